//! sudo writes whose sudo asks for a password: the prompt is the user's, in the terminal. The
//! tool waits for it within the command time limit; the test types the password the way the
//! user would (an `Op::TerminalInput`, never a tool), and checks that the file is written with
//! owner, group and mode kept; and that a limit passing without a password gives a clear error
//! and leaves the original intact, even when the password comes later.
//!
//! The tests run as root (like CI); sshd logs in as [`SUDO_PASSWORD_USER`], whose sudo asks for
//! [`TEST_PASSWORD`] every time.

use kaiport_protocol::*;
use kaiport_tests::engine_harness::EngineHarness;
use kaiport_tests::sshd::{SUDO_PASSWORD_USER, Sshd, SshdConfig, TEST_PASSWORD};
use pretty_assertions::assert_eq;
use serde_json::json;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::time::Duration;

/// What sudo prints before reading the password.
const SUDO_PROMPT: &str = "[sudo] password for";

/// A root-owned file (mode 0640, group the login user's so it can read it for the diff) in a
/// root-owned folder the login user cannot write.
fn root_file(sshd: &Sshd, content: &str) -> (tempfile::TempDir, std::path::PathBuf, u32) {
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let target = dir.path().join("app 'prod'.conf");
    std::fs::write(&target, content).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (_, gid) = super::files::uid_gid(sshd.user());
    std::os::unix::fs::chown(&target, Some(0), Some(gid)).unwrap();
    (dir, target, gid)
}

fn owner_group_mode(path: &Path) -> (u32, u32, u32) {
    let meta = std::fs::metadata(path).unwrap();
    (meta.uid(), meta.gid(), meta.mode() & 0o7777)
}

async fn open(sshd: &Sshd, command_timeout_s: u32) -> EngineHarness {
    let settings = ConnectionSettings {
        send_file_contents: true,
        command_timeout_s,
        ..ConnectionSettings::default()
    };
    EngineHarness::open_sshd(sshd, settings, Mode::Autopilot)
        .await
        .unwrap()
}

/// This tab's uploads (named in the command line the terminal echoed) that still exist. Other
/// tests' uploads in /tmp are not looked at: they may run at the same time.
fn uploads_left(tab: &EngineHarness) -> Vec<String> {
    const PREFIX: &str = "/tmp/.kaiport-sudo-";
    let text = tab.terminal_text();
    let nonce: String = text
        .split(PREFIX)
        .nth(1)
        .map(|rest| rest.chars().take(16).collect())
        .unwrap_or_default();
    assert_eq!(nonce.len(), 16, "no upload named in the terminal:\n{text}");
    ["sh", "data"]
        .iter()
        .map(|ext| format!("{PREFIX}{nonce}.{ext}"))
        .filter(|path| Path::new(path).exists())
        .collect()
}

pub(super) fn start_server() -> Option<Sshd> {
    let sshd = Sshd::start_with(SshdConfig {
        sudo_asks_password: true,
        ..SshdConfig::default()
    })
    .unwrap();
    assert_eq!(
        sshd.user(),
        SUDO_PASSWORD_USER,
        "the suite runs as root, which makes a user whose sudo asks for a password (scripts/test.sh checks)"
    );
    Some(sshd)
}

#[tokio::test(flavor = "multi_thread")]
async fn sudo_password_typed_by_the_user_in_the_terminal() {
    let Some(sshd) = start_server() else {
        return;
    };
    let tab = open(&sshd, 60).await;
    let (dir, target, gid) = root_file(&sshd, "workers = 2\nlisten = 80\n");
    let call = tab
        .start(
            "edit_file",
            json!({"path": target.display().to_string(), "sudo": true, "edits": [
                {"old_text": "workers = 2", "new_text": "workers = 8"}
            ]}),
        )
        .await;
    tab.output_shows(SUDO_PROMPT, Duration::from_secs(30))
        .await
        .unwrap();
    // The tool waits for the user; nothing has changed yet. (A tool that gave up at the prompt
    // would end in an error, which the outcome after the password below would show.)
    assert!(
        tab.outcome(&call, Duration::from_millis(10)).await.is_err(),
        "the tool must wait for the password"
    );
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "workers = 2\nlisten = 80\n"
    );

    tab.type_line(TEST_PASSWORD).await;
    let outcome = tab.outcome(&call, Duration::from_secs(60)).await.unwrap();
    assert_eq!(outcome.status, ToolStatus::Ok, "{:?}", outcome.error);
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "workers = 8\nlisten = 80\n"
    );
    assert_eq!(owner_group_mode(&target), (0, gid, 0o640));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temp file beside the target"
    );
    assert_eq!(uploads_left(&tab), Vec::<String>::new(), "uploads removed");
    // The password went to sudo only: not echoed, not in any event, result or audit line.
    let events = serde_json::to_string(&tab.events()).unwrap();
    assert!(
        !events.contains(TEST_PASSWORD),
        "the password leaked into an event"
    );
    let audit = serde_json::to_string(&tab.audit().unwrap()).unwrap();
    assert!(
        !audit.contains(TEST_PASSWORD),
        "the password leaked into the audit log"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sudo_password_never_typed_times_out_and_keeps_the_original() {
    let Some(sshd) = start_server() else {
        return;
    };
    let limit_s = 4;
    let tab = open(&sshd, limit_s).await;
    let original = "workers = 2\n";
    let (dir, target, gid) = root_file(&sshd, original);
    // The 4 s limit must pass by design; `call` gives up after 90 s (a hang guard).
    let outcome = tab
        .call(
            "edit_file",
            json!({"path": target.display().to_string(), "sudo": true, "edits": [
                {"old_text": "workers = 2", "new_text": "workers = 99"}
            ]}),
        )
        .await
        .unwrap();
    assert_ne!(outcome.status, ToolStatus::Ok, "{outcome:?}");
    let error = outcome.error.unwrap_or_default();
    assert!(
        error.contains("waiting for input") && error.contains("not changed"),
        "{error}"
    );
    assert!(tab.terminal_text().contains(SUDO_PROMPT));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), original);
    assert_eq!(owner_group_mode(&target), (0, gid, 0o640));
    assert_eq!(uploads_left(&tab), Vec::<String>::new(), "uploads removed");

    // The user answers the prompt after the tool gave up: the script is gone, so nothing that
    // was not approved any more can land.
    tab.type_line(TEST_PASSWORD).await;
    tab.output_shows("-failed\r\n", Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), original);
    assert_eq!(owner_group_mode(&target), (0, gid, 0o640));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
