//! `kaiport-sshd`: the real-sshd test fixture (`kaiport_tests::sshd`) for tests outside Rust,
//! such as the browser tests in `ui/e2e`. Prints one JSON line — the port on 127.0.0.1, the login
//! user, the path of a client key in its authorized_keys, and of one encrypted with the
//! fixture's test passphrase (also printed), and the login user's password — then serves until
//! stdin closes or a line arrives, and stops sshd.
//!
//! `--password` / `--keyboard-interactive` start a server that takes only that way of logging
//! in (no public keys), for the password and keyboard-interactive prompts. `--sudo-password`
//! logs in (with the keys, as always) as the user whose sudo asks for its password (the printed
//! `password`), for sudo prompts the person answers in the terminal.

use anyhow::Result;
use kaiport_tests::sshd::{KEY_PASSPHRASE, Sshd, SshdConfig, TEST_PASSWORD};
use std::io::BufRead;

fn main() -> Result<()> {
    let mut config = SshdConfig::default();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--password" => {
                config.password = true;
                config.no_publickey = true;
            }
            "--keyboard-interactive" => {
                config.keyboard_interactive = true;
                config.no_publickey = true;
            }
            "--sudo-password" => config.sudo_asks_password = true,
            other => anyhow::bail!(
                "unknown argument {other:?}; kaiport-sshd takes --password, \
                 --keyboard-interactive and --sudo-password"
            ),
        }
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
