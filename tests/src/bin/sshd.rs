//! `kaiport-sshd`: the real-sshd test fixture (`kaiport_tests::sshd`) for tests outside Rust,
//! such as the browser tests in `ui/e2e`. Prints one JSON line — the port on 127.0.0.1, the login
//! user, the path of a client key in its authorized_keys, and of one encrypted with the
//! fixture's test passphrase (also printed), and the login user's password — then serves until
//! stdin closes or a line arrives, and stops sshd.
//!
//! `--password` / `--keyboard-interactive` start a server that takes only that way of logging
//! in (no public keys), for the password and keyboard-interactive prompts. `--sudo-password`
//! logs in (with the keys, as always) as the user whose sudo asks for its password (the printed
//! `password`), for sudo prompts the person answers in the terminal. `--login-shell=zsh` /
//! `--login-shell=fish` log in as a user whose login shell is that one. `--env=NAME=VALUE`
//! (repeatable) gives its sessions that variable, so several servers can answer one command
//! differently; `--trust-in=PATH` appends its host keys to the known_hosts file `PATH` (for
//! clients that must not ask, such as fleet runs).

use anyhow::Result;
use kaiport_tests::sshd::{KEY_PASSPHRASE, LoginShell, Sshd, SshdConfig, TEST_PASSWORD};
use std::io::BufRead;

fn main() -> Result<()> {
    let mut config = SshdConfig::default();
    let mut env: Vec<(String, String)> = Vec::new();
    let mut trust_in: Vec<std::path::PathBuf> = Vec::new();
    for arg in std::env::args().skip(1) {
        if let Some(pair) = arg.strip_prefix("--env=") {
            let Some((name, value)) = pair.split_once('=') else {
                anyhow::bail!("--env takes NAME=VALUE, not {pair:?}");
            };
            env.push((name.to_owned(), value.to_owned()));
            continue;
        }
        if let Some(path) = arg.strip_prefix("--trust-in=") {
            trust_in.push(path.into());
            continue;
        }
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
            "--login-shell=zsh" => config.login_shell = LoginShell::Zsh,
            "--login-shell=fish" => config.login_shell = LoginShell::Fish,
            other => anyhow::bail!(
                "unknown argument {other:?}; kaiport-sshd takes --password, \
                 --keyboard-interactive, --sudo-password, --login-shell=zsh|fish, \
                 --env=NAME=VALUE and --trust-in=PATH"
            ),
        }
    }
    let env: Vec<(&str, &str)> = env
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let sshd = Sshd::start_with_env(config, &env)?;
    for path in &trust_in {
        sshd.trust_in(path)?;
    }
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
