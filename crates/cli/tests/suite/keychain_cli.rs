//! The OS keychain against a real Secret Service: an API key saved with `kaiport models set-key`
//! is what `kaiport pilot` sends to the model (no --api-key-env), `show` says it is saved without
//! printing it, and after `forget-key` Pilot says how to save one; an SSH password saved with
//! `kaiport connections set-password` logs `kaiport tool` in until `forget-password` removes it.
//! No secret shows up in anything kaiport prints or writes.

use kaiport_tests::model_server::ModelServer;
use kaiport_tests::secret_service::SecretService;
use kaiport_tests::sshd::{Sshd, SshdConfig, TEST_PASSWORD};
use serde_json::json;
use std::process::{Output, Stdio};

const API_KEY: &str = "sk-keychain-NEVER-LOG-51c2e8";

fn kaiport(keychain: &SecretService, args: &[&str]) -> Output {
    keychain
        .command(env!("CARGO_BIN_EXE_kaiport"))
        .args(args)
        .env("KAIPORT_TEST_KEY", API_KEY)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Everything kaiport wrote under its home, as text.
fn written(keychain: &SecretService) -> String {
    let mut all = String::new();
    for entry in kaiport_tests::files_under(keychain.home()).unwrap() {
        // The keyring files are the Secret Service's own (encrypted) storage.
        if entry.components().any(|c| c.as_os_str() == "keyrings") {
            continue;
        }
        all.push_str(&String::from_utf8_lossy(
            &std::fs::read(&entry).unwrap_or_default(),
        ));
    }
    all
}

#[test]
fn an_api_key_saved_in_the_keychain_is_used_by_pilot_and_never_shown() {
    let keychain = SecretService::new().unwrap();
    let model = ModelServer::from_json(json!({"api_key": API_KEY, "steps": [
        {"respond": {"text": "Hello from the keychain."}}
    ]}))
    .unwrap();
    let pilot = |model: &ModelServer| {
        kaiport(
            &keychain,
            &[
                "pilot",
                "local",
                "--provider",
                "anthropic",
                "--base-url",
                &model.anthropic_url(),
                "--model",
                "scripted-model",
                "Say hello",
            ],
        )
    };

    let saved = kaiport(
        &keychain,
        &[
            "models",
            "set-key",
            "anthropic",
            "--key-env",
            "KAIPORT_TEST_KEY",
        ],
    );
    assert!(saved.status.success(), "{}", text(&saved));

    let shown = kaiport(&keychain, &["models", "show"]);
    assert!(shown.status.success(), "{}", text(&shown));
    let shown_text = text(&shown);
    assert!(
        shown_text.contains("anthropic") && shown_text.contains("saved in the OS keychain"),
        "{shown_text}"
    );

    let ran = pilot(&model);
    assert!(ran.status.success(), "{}", text(&ran));
    assert!(
        text(&ran).contains("Hello from the keychain."),
        "{}",
        text(&ran)
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    assert!(requests[0].auth_ok, "the saved key was not sent");

    let forgotten = kaiport(&keychain, &["models", "forget-key", "anthropic"]);
    assert!(forgotten.status.success(), "{}", text(&forgotten));
    let unused = ModelServer::from_json(json!({"api_key": API_KEY, "steps": []})).unwrap();
    let refused = pilot(&unused);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    assert!(
        text(&refused).contains("kaiport models set-key anthropic"),
        "{}",
        text(&refused)
    );
    assert!(unused.requests().is_empty(), "sent without a key");

    for output in [&saved, &shown, &ran, &forgotten, &refused] {
        assert!(!text(output).contains(API_KEY), "the key was printed");
    }
    assert!(
        !written(&keychain).contains(API_KEY),
        "the key was written to a file"
    );
}

#[test]
fn an_empty_or_missing_key_is_refused_with_nothing_saved() {
    let keychain = SecretService::new().unwrap();
    let missing = kaiport(
        &keychain,
        &[
            "models",
            "set-key",
            "openai",
            "--key-env",
            "KAIPORT_NO_SUCH_VAR",
        ],
    );
    assert_eq!(missing.status.code(), Some(1), "{}", text(&missing));
    assert!(text(&missing).contains("--key-env KAIPORT_NO_SUCH_VAR: not set"));
    let empty = keychain
        .command(env!("CARGO_BIN_EXE_kaiport"))
        .args(["models", "set-key", "openai", "--key-env", "EMPTY_KEY"])
        .env("EMPTY_KEY", "  ")
        .output()
        .unwrap();
    assert_eq!(empty.status.code(), Some(1), "{}", text(&empty));
    assert!(text(&empty).contains("the API key is empty"));
    let shown = kaiport(&keychain, &["models", "show"]);
    assert!(
        text(&shown).contains("API key: not saved"),
        "{}",
        text(&shown)
    );
    let bad = kaiport(&keychain, &["models", "set-key", "gemini"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    assert!(text(&bad).contains("provider must be anthropic or openai"));
}

#[test]
fn an_ssh_password_saved_in_the_keychain_logs_in_until_forgotten() {
    let sshd = Sshd::start_with(SshdConfig {
        password: true,
        no_publickey: true,
        ..SshdConfig::default()
    })
    .unwrap();
    let keychain = SecretService::new().unwrap();
    let known_hosts = keychain.home().join("known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    let url = format!("ssh://{}@127.0.0.1:{}", sshd.user(), sshd.port());
    let known_hosts = known_hosts.display().to_string();
    let tool = |keychain: &SecretService| {
        keychain
            .command(env!("CARGO_BIN_EXE_kaiport"))
            .args(["tool", &url, "--known-hosts", &known_hosts])
            .args([
                "run_command",
                r#"{"command":"echo from-keychain"}"#,
                "--yes",
            ])
            .env_remove("SSH_AUTH_SOCK")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };

    // Nothing saved, no terminal to ask at: a clear failure.
    let unsaved = tool(&keychain);
    assert_eq!(unsaved.status.code(), Some(1), "{}", text(&unsaved));
    assert!(
        text(&unsaved).contains("authentication failed"),
        "{}",
        text(&unsaved)
    );

    let saved = keychain
        .command(env!("CARGO_BIN_EXE_kaiport"))
        .args(["connections", "set-password", &url, "--password-env", "PW"])
        .env("PW", TEST_PASSWORD)
        .output()
        .unwrap();
    assert!(saved.status.success(), "{}", text(&saved));
    let ran = tool(&keychain);
    assert!(ran.status.success(), "{}", text(&ran));
    assert!(text(&ran).contains("from-keychain"), "{}", text(&ran));

    // Forgotten: the next login has no password again.
    let forgotten = kaiport(&keychain, &["connections", "forget-password", &url]);
    assert!(forgotten.status.success(), "{}", text(&forgotten));
    assert!(
        text(&forgotten).contains("removed from the OS keychain"),
        "{}",
        text(&forgotten)
    );
    let refused = tool(&keychain);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    assert!(
        text(&refused).contains("authentication failed"),
        "{}",
        text(&refused)
    );

    for output in [&unsaved, &saved, &ran, &forgotten, &refused] {
        assert!(
            !text(output).contains(TEST_PASSWORD),
            "the password was printed"
        );
    }
    assert!(
        !written(&keychain).contains(TEST_PASSWORD),
        "the password was written to a file"
    );
}
