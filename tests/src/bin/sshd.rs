//! `kaiport-sshd`: the real-sshd test fixture (`kaiport_tests::sshd`) for tests outside Rust,
//! such as the browser tests in `ui/e2e`. Prints one JSON line — the port on 127.0.0.1, the login
//! user, the path of a client key in its authorized_keys, and of one encrypted with the
//! fixture's test passphrase (also printed), and the login user's password — then serves until
//! stdin closes or a line arrives, and stops sshd.
//!
//! `--password` / `--keyboard-interactive` start a server that takes only that way of logging
//! in (no public keys), for the password and keyboard-interactive prompts.

use anyhow::Result;
use kaiport_tests::sshd::{KEY_PASSPHRASE, Sshd, SshdConfig, TEST_PASSWORD};
use std::io::BufRead;

fn main() -> Result<()> {
    let mut config = SshdConfig::default();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--password" => config.password = true,
            "--keyboard-interactive" => config.keyboard_interactive = true,
            other => anyhow::bail!(
                "unknown argument {other:?}; kaiport-sshd takes --password and --keyboard-interactive"
            ),
        }
        config.no_publickey = true;
    }
    let sshd = Sshd::start_with(config)?;
    println!(
        "{}",
        serde_json::json!({
            "port": sshd.port(),
            "user": sshd.user(),
            "key": sshd.keys.ed25519.display().to_string(),
            "encrypted_key": sshd.keys.ed25519_encrypted.display().to_string(),
            "passphrase": KEY_PASSPHRASE,
            "password": TEST_PASSWORD,
        })
    );
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    drop(sshd);
    Ok(())
}
