//! sudo reads and writes whose sudo asks for a password: the app asks for it (a `SudoPassword`
//! prompt, answered here the way the password dialog does) and it goes to sudo's standard input
//! only — never into an event, the audit log or the terminal. Files are written with owner, group
//! and mode kept; a file the login cannot read at all is read and edited as root; a dismissed or
//! wrong password leaves the original intact. A folder the login cannot open is listed as root.
//!
//! The tests run as root (like CI); sshd logs in as [`SUDO_PASSWORD_USER`], whose sudo asks for
//! [`TEST_PASSWORD`] every time.

use kaiport_protocol::tools::{EntryKind, ListDirResult};
use kaiport_protocol::*;
use kaiport_tests::engine_harness::EngineHarness;
use kaiport_tests::sshd::{SUDO_PASSWORD_USER, Sshd, SshdConfig, TEST_PASSWORD};
use pretty_assertions::assert_eq;
use serde_json::json;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// A root-owned file with `mode` and group `gid` in a root-owned folder the login user cannot
/// write.
fn root_file(content: &str, mode: u32, gid: u32) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let target = dir.path().join("app 'prod'.conf");
    std::fs::write(&target, content).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode)).unwrap();
    std::os::unix::fs::chown(&target, Some(0), Some(gid)).unwrap();
    (dir, target)
}

fn owner_group_mode(path: &Path) -> (u32, u32, u32) {
    let meta = std::fs::metadata(path).unwrap();
    (meta.uid(), meta.gid(), meta.mode() & 0o7777)
}

async fn open(sshd: &Sshd, mode: Mode, password: Option<&str>) -> EngineHarness {
    let settings = ConnectionSettings {
        send_file_contents: true,
        command_timeout_s: 60,
        ..ConnectionSettings::default()
    };
    EngineHarness::open_sshd_with_secret(sshd, settings, mode, password)
        .await
        .unwrap()
}

pub(super) fn start_server() -> Sshd {
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
    sshd
}

fn sudo_prompts(tab: &EngineHarness) -> Vec<String> {
    tab.events()
        .into_iter()
        .filter_map(|event| match event {
            Event::PromptRequested {
                prompt: Prompt::SudoPassword { path, .. },
                ..
            } => Some(path),
            _ => None,
        })
        .collect()
}

/// edit_file of `target` through sudo, `old` to `new`.
async fn sudo_edit(tab: &EngineHarness, target: &Path, old: &str, new: &str) -> ToolOutcome {
    let args = json!({"path": target.display().to_string(), "sudo": true, "edits": [
        {"old_text": old, "new_text": new}
    ]});
    tab.call("edit_file", args).await.unwrap()
}

/// The password went to sudo only: not in any event, result, audit line or the terminal.
fn password_nowhere(tab: &EngineHarness) {
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
    assert!(
        !tab.terminal_text().contains(TEST_PASSWORD),
        "the password reached the terminal"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sudo_password_asked_by_the_app_goes_to_sudo_only() {
    let sshd = start_server();
    let tab = open(&sshd, Mode::Autopilot, Some(TEST_PASSWORD)).await;
    let (_, gid) = super::files::uid_gid(sshd.user());
    let (dir, target) = root_file("workers = 2\nlisten = 80\n", 0o640, gid);
    let outcome = sudo_edit(&tab, &target, "workers = 2", "workers = 8").await;
    assert_eq!(outcome.status, ToolStatus::Ok, "{:?}", outcome.error);
    assert_eq!(sudo_prompts(&tab), vec![target.display().to_string()]);
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
    password_nowhere(&tab);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_file_the_login_cannot_read_is_read_and_edited_as_root() {
    let sshd = start_server();
    let tab = open(&sshd, Mode::Autopilot, Some(TEST_PASSWORD)).await;
    let (_dir, target) = root_file("token = old\n", 0o600, 0);
    let path = target.display().to_string();
    // The listing marks it: only root may read or change it.
    let listed = tab
        .ok(
            "list_dir",
            json!({"path": target.parent().unwrap().display().to_string()}),
        )
        .await
        .unwrap();
    assert_eq!(listed["entries"][0]["root_only"], true, "{listed}");
    // Without sudo the login may not read it.
    let refused = tab.call("read_file", json!({"path": path})).await.unwrap();
    assert_ne!(refused.status, ToolStatus::Ok);
    let read = tab
        .ok("read_file", json!({"path": path, "sudo": true}))
        .await
        .unwrap();
    assert_eq!(read["content"], "token = old\n");
    tab.ok(
        "edit_file",
        json!({"path": path, "sudo": true, "edits": [
            {"old_text": "old", "new_text": "new"}
        ]}),
    )
    .await
    .unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "token = new\n");
    assert_eq!(owner_group_mode(&target), (0, 0, 0o600));
    // Asked once per call: the read, then the edit (its diff, its check and its install).
    assert_eq!(sudo_prompts(&tab), vec![path.clone(), path.clone()]);
    password_nowhere(&tab);
}

/// A root-owned 0700 folder: the listing of its parent marks it, listing it says only root
/// may open it, and listed as root (asked in ask mode, the password through the app) it shows
/// its files, folders and links, each marked root-only.
#[tokio::test(flavor = "multi_thread")]
async fn a_folder_only_root_may_open_is_listed_as_root() {
    let sshd = start_server();
    let tab = open(&sshd, Mode::Ask, Some(TEST_PASSWORD)).await;
    let parent = tempfile::tempdir_in("/tmp").unwrap();
    std::fs::set_permissions(parent.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let vault = parent.path().join("vault 'x'");
    std::fs::create_dir_all(vault.join("inner")).unwrap();
    std::fs::write(vault.join("secret.conf"), "key = 1\n").unwrap();
    std::os::unix::fs::symlink("secret.conf", vault.join("link")).unwrap();
    std::fs::set_permissions(&vault, std::fs::Permissions::from_mode(0o700)).unwrap();
    let path = vault.display().to_string();

    let listed = tab
        .ok(
            "list_dir",
            json!({"path": parent.path().display().to_string()}),
        )
        .await
        .unwrap();
    assert_eq!(listed["entries"][0]["root_only"], true, "{listed}");
    let refused = tab.call("list_dir", json!({"path": path})).await.unwrap();
    assert_eq!(refused.status, ToolStatus::Error);
    assert!(
        refused
            .error
            .as_deref()
            .unwrap_or("")
            .contains("only root may open"),
        "{:?}",
        refused.error
    );

    let listed = tab
        .ok("list_dir", json!({"path": path, "sudo": true}))
        .await
        .unwrap();
    let result: ListDirResult = serde_json::from_value(listed).unwrap();
    let seen: Vec<(String, EntryKind, u64, Option<String>, bool)> = result
        .entries
        .into_iter()
        .map(|entry| {
            let size = if entry.kind == EntryKind::File {
                entry.size
            } else {
                0
            };
            (
                entry.name,
                entry.kind,
                size,
                entry.link_target,
                entry.root_only,
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![
            ("inner".to_owned(), EntryKind::Dir, 0, None, true),
            (
                "link".to_owned(),
                EntryKind::Symlink,
                0,
                Some("secret.conf".to_owned()),
                true
            ),
            ("secret.conf".to_owned(), EntryKind::File, 8, None, true),
        ]
    );
    assert_eq!(sudo_prompts(&tab), vec![path.clone()]);
    let asked = tab.events().into_iter().any(|event| {
        matches!(event, Event::ApprovalRequested { ref reasons, .. }
            if reasons.iter().any(|reason| reason.contains("lists") && reason.contains("as root")))
    });
    assert!(asked, "a listing as root asks outside autopilot");
    password_nowhere(&tab);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sudo_read_asks_in_ask_mode() {
    let sshd = start_server();
    let tab = open(&sshd, Mode::Ask, Some(TEST_PASSWORD)).await;
    let (_dir, target) = root_file("a = 1\n", 0o600, 0);
    tab.ok(
        "read_file",
        json!({"path": target.display().to_string(), "sudo": true}),
    )
    .await
    .unwrap();
    let asked = tab.events().into_iter().any(|event| {
        matches!(event, Event::ApprovalRequested { ref reasons, .. }
            if reasons.iter().any(|reason| reason.contains("as root")))
    });
    assert!(asked, "a read as root asks outside autopilot");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dismissed_or_wrong_password_keeps_the_original() {
    let sshd = start_server();
    let (_, gid) = super::files::uid_gid(sshd.user());
    let original = "workers = 2\n";
    let (dir, target) = root_file(original, 0o640, gid);
    for (password, said) in [
        (None, "did not give the sudo password"),
        (Some("not the password"), "did not accept the password"),
    ] {
        let tab = open(&sshd, Mode::Autopilot, password).await;
        let outcome = sudo_edit(&tab, &target, "workers = 2", "workers = 99").await;
        assert_ne!(outcome.status, ToolStatus::Ok, "{outcome:?}");
        let error = outcome.error.unwrap_or_default();
        assert!(
            error.contains(said) && error.contains("not changed"),
            "{error}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), original);
        assert_eq!(owner_group_mode(&target), (0, gid, 0o640));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

/// An SFTP write keeps owner, group and mode too: a root-owned file the login may write (its
/// group's) in a folder the login owns is rewritten in place of a new file only if the new file
/// can get root as owner; it cannot, so nothing is replaced and the change says so, while the
/// same change through sudo keeps all three.
#[tokio::test(flavor = "multi_thread")]
async fn sftp_and_sudo_writes_keep_owner_group_and_mode() {
    let sshd = start_server();
    let tab = open(&sshd, Mode::Autopilot, Some(TEST_PASSWORD)).await;
    let (uid, gid) = super::files::uid_gid(sshd.user());
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).unwrap();
    let target = dir.path().join("shared.conf");
    std::fs::write(&target, "mode = a\n").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o664)).unwrap();
    std::os::unix::fs::chown(&target, Some(0), Some(gid)).unwrap();
    let path = target.display().to_string();
    let edit = |to: &str, sudo: bool| json!({"path": path, "sudo": sudo, "edits": [{"old_text": "mode = a", "new_text": to}]});
    let refused = tab
        .call("edit_file", edit("mode = b", false))
        .await
        .unwrap();
    assert_ne!(refused.status, ToolStatus::Ok);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "mode = a\n");
    assert_eq!(owner_group_mode(&target), (0, gid, 0o664));
    tab.ok("edit_file", edit("mode = c", true)).await.unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "mode = c\n");
    assert_eq!(owner_group_mode(&target), (0, gid, 0o664));
    password_nowhere(&tab);
}

/// The file pane's "Open as root" on a file inside a folder the login cannot even enter (0700
/// root) : read, saved (write_file), backed up to root's area, undone and redone, all through
/// sudo, with owner, group and mode kept and nothing left beside the file.
#[tokio::test(flavor = "multi_thread")]
async fn a_file_in_a_folder_only_root_may_enter_is_saved_backed_up_and_undone() {
    let sshd = start_server();
    let tab = open(&sshd, Mode::Autopilot, Some(TEST_PASSWORD)).await;
    let (uid, _) = super::files::uid_gid(sshd.user());
    let parent = tempfile::tempdir_in("/tmp").unwrap();
    std::fs::set_permissions(parent.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let vault = parent.path().join("root-only");
    std::fs::create_dir(&vault).unwrap();
    std::fs::set_permissions(&vault, std::fs::Permissions::from_mode(0o700)).unwrap();
    let target = vault.join("app 'x'.conf");
    let first = b"token = old\n\xc3\xa9\n";
    std::fs::write(&target, first).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
    let path = target.display().to_string();

    let read = tab
        .ok("read_file", json!({"path": path, "sudo": true}))
        .await
        .unwrap();
    assert_eq!(read["content"], "token = old\né\n");
    let saved = tab
        .ok(
            "write_file",
            json!({"path": path, "sudo": true, "content": "token = new\n"}),
        )
        .await
        .unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"token = new\n");
    assert_eq!(owner_group_mode(&target), (0, 0, 0o600));
    let (id, backup) = super::undo::backup_holding(&saved, first);
    assert!(
        backup.starts_with(format!("/var/backups/kaiport/uid-{uid}/")),
        "{}",
        backup.display()
    );
    assert_eq!(owner_group_mode(&backup), (0, 0, 0o600));
    let listed = tab.ok("list_changes", json!({})).await.unwrap();
    assert_eq!(listed["changes"][0]["id"], id.as_str());
    assert_eq!(listed["changes"][0]["sudo"], true);
    assert_eq!(listed["changes"][0]["undoable"], true, "{listed}");

    // Mode changed meanwhile: the undo puts bytes and mode back, through sudo.
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let undone = super::undo::undo(&tab, &id).await;
    assert_eq!(undone["restored"], true);
    assert_eq!(std::fs::read(&target).unwrap(), first);
    assert_eq!(owner_group_mode(&target), (0, 0, 0o600));
    // The undo kept what it replaced: undoing it is a redo.
    let (undo_id, _) = super::undo::backup_holding(&undone, b"token = new\n");
    super::undo::undo(&tab, &undo_id).await;
    assert_eq!(std::fs::read(&target).unwrap(), b"token = new\n");
    assert_eq!(owner_group_mode(&target), (0, 0, 0o640));
    assert_eq!(
        std::fs::read_dir(&vault).unwrap().count(),
        1,
        "no temp file beside the target"
    );
    password_nowhere(&tab);
}
