//! `kaiport tool sftp://…` logging in with keys against an sshd that accepts public keys only:
//! `--identity FILE` (an encrypted key's passphrase from `--password-env`), a wrong key refused
//! with a clear error, and an sftp profile with `identity_files`.

use super::storage_cli::outcome;
use kaiport_tests::storage_servers::{STORAGE_PASSWORD, StorageServer};
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};

/// A `kaiport` command with its own HOME, no ssh-agent and the server's known_hosts.
fn kaiport(server: &StorageServer, home: &Path, local: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kaiport"));
    command
        .args(args)
        .arg("--local-root")
        .arg(local)
        .arg("--known-hosts")
        .arg(server.known_hosts().unwrap())
        .arg("--yes")
        .env("KAIPORT_HOME", home)
        .env("HOME", home)
        .env_remove("SSH_AUTH_SOCK")
        .stdin(Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command
}

fn entry_names(listed: &Value) -> Vec<String> {
    let mut names: Vec<String> = listed["result"]["entries"]
        .as_array()
        .unwrap_or_else(|| panic!("no entries in {listed}"))
        .iter()
        .map(|entry| entry["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn sftp_urls_log_in_with_identity_files() {
    let server = StorageServer::start_sftp_keys_only().unwrap();
    let keys = server.client_keys().unwrap().clone();
    let local = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let url = server.url();
    std::fs::write(server.data_dir().join("on server.txt"), "from sshd\n").unwrap();

    // A plain key.
    let key = keys.ed25519.display().to_string();
    let list_root = |connection: &str, identity: &[&str]| {
        kaiport(&server, home.path(), local.path(), &["tool", connection])
            .args(["list_dir", r#"{"path":"/"}"#])
            .args(identity)
            .output()
            .unwrap()
    };
    let listed = outcome(&list_root(&url, &["--identity", &key]));
    assert_eq!(listed["status"], "ok", "{listed}");
    assert_eq!(entry_names(&listed), vec!["on server.txt"]);

    // An encrypted key: the passphrase comes from --password-env, and never shows anywhere.
    let root = std::fs::canonicalize(local.path()).unwrap();
    std::fs::write(local.path().join("up.txt"), "by key\n").unwrap();
    let encrypted = keys.ed25519_encrypted.display().to_string();
    let up = kaiport(
        &server,
        home.path(),
        local.path(),
        &["tool", &url, "upload"],
    )
    .arg(json!({"local_path": root.join("up.txt"), "remote_dir": "/"}).to_string())
    .args([
        "--identity",
        &encrypted,
        "--password-env",
        "KAIPORT_TEST_PASSPHRASE",
    ])
    .env(
        "KAIPORT_TEST_PASSPHRASE",
        kaiport_tests::sshd::KEY_PASSPHRASE,
    )
    .output()
    .unwrap();
    let up_outcome = outcome(&up);
    assert_eq!(up_outcome["status"], "ok", "{up_outcome}");
    assert_eq!(
        std::fs::read_to_string(server.data_dir().join("up.txt")).unwrap(),
        "by key\n"
    );
    assert!(!String::from_utf8_lossy(&up.stderr).contains(kaiport_tests::sshd::KEY_PASSPHRASE));

    // A key the server does not accept (and no password to fall back to): a clear error.
    let wrong = keys.unauthorized.display().to_string();
    let refused = list_root(&url, &["--identity", &wrong]);
    assert!(!refused.status.success());
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&refused.stdout),
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(
        said.contains("authentication failed") && said.contains("id_unauthorized"),
        "{said}"
    );

    // --identity means nothing to an FTP URL: refused before anything starts.
    let ftp = list_root("ftp://u@127.0.0.1:1/", &["--identity", &key]);
    assert!(!ftp.status.success());
    assert!(
        String::from_utf8_lossy(&ftp.stderr).contains("--identity is for ssh:// and sftp://"),
        "{}",
        String::from_utf8_lossy(&ftp.stderr)
    );

    let audit = std::fs::read_to_string(home.path().join("ai-audit.jsonl")).unwrap();
    assert!(!audit.contains(kaiport_tests::sshd::KEY_PASSPHRASE));
    assert!(!audit.contains(STORAGE_PASSWORD));
}

/// An sftp profile with `identity_files` in connections.toml logs in with them.
#[test]
fn sftp_profiles_log_in_with_identity_files() {
    let server = StorageServer::start_sftp_keys_only().unwrap();
    let keys = server.client_keys().unwrap().clone();
    let local = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let user = server.url();
    let user = user
        .trim_start_matches("sftp://")
        .split('@')
        .next()
        .unwrap()
        .to_owned();
    // The profile `box`, with `identity_files` or without.
    let write_profile = |identity: Option<&std::path::Path>| {
        let keys = identity
            .map(|key| format!("identity_files = [\"{}\"]\n", key.display()))
            .unwrap_or_default();
        std::fs::write(
            home.path().join("connections.toml"),
            format!(
                "[[connection]]\nname = \"box\"\nkind = \"sftp\"\nhost = \"127.0.0.1\"\nport = {}\n\
                 user = \"{user}\"\npath = \"{}\"\n{keys}",
                server.port,
                server.data_dir().display(),
            ),
        )
        .unwrap();
    };
    let list_root = || {
        kaiport(
            &server,
            home.path(),
            local.path(),
            &["tool", "box", "list_dir"],
        )
        .arg(json!({"path": "/"}).to_string())
        .output()
        .unwrap()
    };
    write_profile(Some(&keys.ecdsa));
    std::fs::write(server.data_dir().join("profile #1.txt"), "via profile\n").unwrap();
    let listed = outcome(&list_root());
    assert_eq!(listed["status"], "ok", "{listed}");
    assert_eq!(entry_names(&listed), vec!["profile #1.txt"]);

    // Without the key the same profile cannot log in (publickey only, no agent).
    write_profile(None);
    let refused = list_root();
    assert!(!refused.status.success());
}
