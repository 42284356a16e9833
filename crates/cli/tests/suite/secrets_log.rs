//! No secret reaches a log line at any level: `kaiport tool` with `KAIPORT_LOG=trace` against
//! every storage kind and an SSH password login, its stderr and stdout searched for the secret
//! in clear and encoded. The trace output must be there, or the test proves nothing. (Secrets
//! typed into a page of `kaiport serve`: serve.rs.)

use kaiport_tests::sshd::{Sshd, SshdConfig, TEST_PASSWORD};
use kaiport_tests::storage_servers::{StorageKind, StorageServer};
use serde_json::json;
use std::process::{Command, Output, Stdio};

fn traced(args: &[&str], secret: &str, home: &std::path::Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kaiport"));
    command
        .args(args)
        .args(["--password-env", "KAIPORT_TEST_SECRET"])
        .env("KAIPORT_TEST_SECRET", secret)
        .env("KAIPORT_LOG", "trace")
        .env("KAIPORT_HOME", home)
        .env("HOME", home)
        .env_remove("SSH_AUTH_SOCK")
        .stdin(Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command.output().unwrap()
}

fn assert_no_secret(what: &str, output: &Output, secret: &str) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stdout.contains("\"status\":\"ok\"") || stdout.contains("\"status\": \"ok\""),
        "{what}: the call failed:\n{stdout}\n{stderr}"
    );
    assert_trace_was_on(what, &stderr);
    for form in encodings(secret) {
        for (stream, text) in [("stdout", &stdout), ("stderr", &stderr)] {
            assert!(
                !text.contains(&form),
                "{what}: the secret is in {stream} as {form:?}"
            );
        }
    }
}

/// The log was written at trace level, or a test that finds no secret in it proves nothing.
/// The libraries that log wire data stay at info whatever is asked (README, "Logs"), so the
/// trace lines are few: one is enough.
pub(super) fn assert_trace_was_on(what: &str, stderr: &str) {
    assert!(
        stderr.lines().any(|line| line.contains("TRACE")),
        "{what}: no trace output, so nothing was tested:\n{stderr}"
    );
}

/// The ways a log line may write `secret`: as text, URL-encoded, its bytes in hex (either case,
/// run together or apart) and in decimal (a byte slice's `Debug`).
pub(super) fn encodings(secret: &str) -> Vec<String> {
    let bytes = secret.as_bytes();
    let hex: Vec<String> = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    let decimal: Vec<String> = bytes.iter().map(u8::to_string).collect();
    let encoded: String = url::form_urlencoded::byte_serialize(bytes).collect();
    vec![
        secret.to_owned(),
        encoded.clone(),
        encoded.replace('+', "%20"),
        hex.concat(),
        hex.concat().to_uppercase(),
        hex.join(" "),
        hex.join(", "),
        decimal.join(", "),
    ]
}

#[test]
fn storage_secrets_never_reach_the_trace_log() {
    for kind in [
        StorageKind::S3,
        StorageKind::Webdav,
        StorageKind::Azure,
        StorageKind::Ftp,
        StorageKind::Sftp,
    ] {
        let server = StorageServer::start(kind).unwrap();
        let home = tempfile::tempdir().unwrap();
        let url = server.url();
        let listing = json!({"path": "/"}).to_string();
        let mut args = vec!["tool", url.as_str(), "list_dir", listing.as_str(), "--yes"];
        let known_hosts = server.known_hosts().map(|path| path.display().to_string());
        if let Some(known_hosts) = &known_hosts {
            args.extend(["--known-hosts", known_hosts.as_str()]);
        }
        let output = traced(&args, server.secret(), home.path());
        assert_no_secret(&format!("{kind:?}"), &output, server.secret());
        if kind == StorageKind::S3 {
            // The credential provider does show it at trace level: masked, not missing.
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains(kaiport_core::redact::MASK),
                "S3: nothing was masked"
            );
        }
    }
}

#[test]
fn an_ssh_password_never_reaches_the_trace_log() {
    let sshd = Sshd::start_with(SshdConfig {
        password: true,
        no_publickey: true,
        ..SshdConfig::default()
    })
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let known_hosts = home.path().join("known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    let url = format!("ssh://{}@127.0.0.1:{}", sshd.user(), sshd.port());
    let known_hosts = known_hosts.display().to_string();
    let output = traced(
        &[
            "tool",
            &url,
            "--known-hosts",
            &known_hosts,
            "run_command",
            r#"{"command":"echo pw-ok"}"#,
            "--yes",
        ],
        TEST_PASSWORD,
        home.path(),
    );
    assert_no_secret("ssh password", &output, TEST_PASSWORD);
}
