//! `kaiport-sshd`: the real-sshd test fixture (`kaiport_tests::sshd`) for tests outside Rust,
//! such as the browser tests in `ui/e2e`. Prints one JSON line — the port on 127.0.0.1, the login
//! user, the path of a client key in its authorized_keys, and of one encrypted with the
//! fixture's test passphrase (also printed) — then serves until stdin closes or a line arrives,
//! and stops sshd.

use anyhow::Result;
use kaiport_tests::sshd::{KEY_PASSPHRASE, Sshd};
use std::io::BufRead;

fn main() -> Result<()> {
    let sshd = Sshd::start()?;
    println!(
        "{}",
        serde_json::json!({
            "port": sshd.port(),
            "user": sshd.user(),
            "key": sshd.keys.ed25519.display().to_string(),
            "encrypted_key": sshd.keys.ed25519_encrypted.display().to_string(),
            "passphrase": KEY_PASSPHRASE,
        })
    );
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    drop(sshd);
    Ok(())
}
