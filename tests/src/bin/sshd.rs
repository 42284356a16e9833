//! `kaiport-sshd`: the real-sshd test fixture (`kaiport_tests::sshd`) for tests outside Rust,
//! such as the browser tests in `ui/e2e`. Prints one JSON line — the port on 127.0.0.1, the login
//! user and the path of a client key in its authorized_keys — then serves until stdin closes
//! or a line arrives, and stops sshd.

use anyhow::Result;
use kaiport_tests::sshd::Sshd;
use std::io::BufRead;

fn main() -> Result<()> {
    let sshd = Sshd::start()?;
    println!(
        "{}",
        serde_json::json!({
            "port": sshd.port(),
            "user": sshd.user(),
            "key": sshd.keys.ed25519.display().to_string(),
        })
    );
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    drop(sshd);
    Ok(())
}
