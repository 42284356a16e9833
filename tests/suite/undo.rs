//! Backups and undo against a real sshd: a backup is kept before edit_file, write_file, delete
//! and a rename over a file; undo_change restores the bytes, mode and owner (through sudo for
//! changes made through sudo) and is itself undoable; the area's size and age limits prune; a
//! file over the per-file limit is changed with "no backup" said; plain SFTP writes keep owner,
//! group and mode or write nothing.
//!
//! Changes through sudo: `files::sudo_write_keeps_owner_group_and_mode`.
//!
//! The tests run as root (like CI); sshd logs in as the fixture's test user (passwordless sudo).
//! Areas are per connection (host and port) and all tests share the test user's home: a port is
//! used again by later servers, so the sshd fixture removes its port's areas when it starts and
//! when it is dropped.

use super::files::uid_gid;
use kaiport_protocol::*;
use kaiport_tests::engine_harness::EngineHarness;
use kaiport_tests::sshd::Sshd;
use kaiport_tests::storage_servers::{StorageKind, StorageServer};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

async fn open(sshd: &Sshd, settings: ConnectionSettings) -> EngineHarness {
    super::files::open(sshd, settings, Mode::Autopilot).await
}

fn allowed() -> ConnectionSettings {
    ConnectionSettings {
        send_file_contents: true,
        ..ConnectionSettings::default()
    }
}

fn s(path: &Path) -> String {
    path.display().to_string()
}

/// A folder the test user owns, with a file of `content` (mode 0640) in it.
fn user_file(sshd: &Sshd, content: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("kaiport-undo-")
        .tempdir_in("/tmp")
        .unwrap();
    let (uid, gid) = uid_gid(sshd.user());
    std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).unwrap();
    let file = dir.path().join("app.conf");
    std::fs::write(&file, content).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    std::os::unix::fs::chown(&file, Some(uid), Some(gid)).unwrap();
    (dir, file)
}

pub(super) fn owner_group_mode(path: &Path) -> (u32, u32, u32) {
    let meta = std::fs::metadata(path).unwrap();
    (meta.uid(), meta.gid(), meta.mode() & 0o7777)
}

/// The change note of a result; its backup exists and holds `old`.
pub(super) fn backup_holding(result: &Value, old: &[u8]) -> (String, PathBuf) {
    let change = &result["change"];
    let id = change["change_id"].as_str().unwrap().to_owned();
    let backup = PathBuf::from(change["backup"].as_str().unwrap_or_else(|| {
        panic!("no backup in {result}");
    }));
    assert_eq!(std::fs::read(&backup).unwrap(), old, "{}", backup.display());
    (id, backup)
}

/// The test user's backup area for `sshd`'s connection.
fn area(sshd: &Sshd) -> PathBuf {
    sshd.backup_areas().unwrap().remove(0)
}

/// read_file, then edit_file replacing `old` with `new` in `path`.
async fn read_and_edit(tab: &EngineHarness, path: &Path, old: &str, new: &str) -> ToolOutcome {
    tab.ok("read_file", json!({"path": s(path)})).await.unwrap();
    tab.call(
        "edit_file",
        json!({"path": s(path), "edits": [{"old_text": old, "new_text": new}]}),
    )
    .await
    .unwrap()
}

/// write_file of `content` to `path`; the result.
async fn write(tab: &EngineHarness, path: &Path, content: &str) -> Value {
    tab.ok("write_file", json!({"path": s(path), "content": content}))
        .await
        .unwrap()
}

pub(super) async fn undo(tab: &EngineHarness, id: &str) -> Value {
    tab.ok("undo_change", json!({"change_id": id}))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn edit_and_write_are_backed_up_and_undone_byte_for_byte() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, allowed()).await;
    let first = b"workers = 2\nname = \xc3\xa9t\xc3\xa9\n";
    let (_dir, file) = user_file(&sshd, first);
    let before = owner_group_mode(&file);

    let edited = read_and_edit(&tab, &file, "workers = 2", "workers = 8")
        .await
        .result
        .unwrap();
    let (edit_id, edit_backup) = backup_holding(&edited, first);
    assert!(
        edit_backup.starts_with(area(&sshd)),
        "{}",
        edit_backup.display()
    );
    // A plain SFTP write keeps owner, group and mode.
    assert_eq!(owner_group_mode(&file), before);
    let second = std::fs::read(&file).unwrap();
    let written = write(&tab, &file, "replaced whole\n").await;
    let (write_id, _) = backup_holding(&written, &second);
    assert_eq!(owner_group_mode(&file), before);

    // The audit line names the change and its backup.
    let audit = tab.audit().unwrap();
    let line = audit
        .iter()
        .find(|line| line["tool"] == "edit_file")
        .unwrap();
    assert_eq!(line["result"]["change"]["change_id"], edit_id.as_str());
    assert_eq!(line["result"]["change"]["backup"], s(&edit_backup).as_str());

    let listed = tab.ok("list_changes", json!({})).await.unwrap();
    let ids: Vec<&str> = listed["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|change| change["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        vec![write_id.as_str(), edit_id.as_str()],
        "newest first"
    );

    // Undo the edit while the file also changed mode: bytes and mode come back.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let undone = undo(&tab, &edit_id).await;
    assert_eq!(undone["restored"], true);
    assert_eq!(std::fs::read(&file).unwrap(), first);
    assert_eq!(owner_group_mode(&file), before);
    // It asked, with the diff and where the present content goes.
    let asked = tab.events().into_iter().find_map(|event| match event {
        Event::ApprovalRequested {
            preview: Some(ApprovalPreview::Diff {
                unified, backup, ..
            }),
            tool,
            ..
        } if tool == "undo_change" => Some((unified, backup)),
        _ => None,
    });
    let (unified, backup_line) = asked.expect("undo_change asks with a diff");
    assert!(
        unified.contains("-replaced whole") && unified.contains("+workers = 2"),
        "{unified}"
    );
    assert!(backup_line.unwrap().starts_with("backup: "));

    // The undo is a change too: undoing it brings back what it replaced.
    let undo_id = undone["change"]["change_id"].as_str().unwrap().to_owned();
    backup_holding(&undone, b"replaced whole\n");
    let redone = undo(&tab, &undo_id).await;
    assert_eq!(std::fs::read(&file).unwrap(), b"replaced whole\n");
    assert_eq!(owner_group_mode(&file), (before.0, before.1, 0o600));
    let listed = tab.ok("list_changes", json!({})).await.unwrap();
    let newest = &listed["changes"][0];
    assert_eq!(newest["id"], redone["change"]["change_id"]);
    assert_eq!(newest["undoes"], undo_id.as_str());
    assert_eq!(newest["tool"], "undo_change");

    // A created file's change undoes by removing it (backed up first, so that is undoable).
    let created = file.with_file_name("new.txt");
    let made = write(&tab, &created, "fresh\n").await;
    assert_eq!(made["change"]["backup"], Value::Null);
    let removed = undo(&tab, made["change"]["change_id"].as_str().unwrap()).await;
    assert_eq!(removed["restored"], false);
    assert!(!created.exists());
    undo(&tab, removed["change"]["change_id"].as_str().unwrap()).await;
    assert_eq!(std::fs::read(&created).unwrap(), b"fresh\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn limits_prune_old_and_oversized_and_a_large_file_says_no_backup() {
    let sshd = Sshd::start().unwrap();
    let settings = ConnectionSettings {
        backup_total_kb: 8,
        backup_file_limit_kb: 4,
        backup_max_age_days: 7,
        ..allowed()
    };
    let tab = open(&sshd, settings).await;
    let (dir, file) = user_file(&sshd, &[b'a'; 3000]);
    // An old backup from an earlier session, past the age limit.
    tab.ok("read_file", json!({"path": s(&file)}))
        .await
        .unwrap();
    let first = write(&tab, &file, &"b".repeat(3000)).await;
    let (first_id, first_backup) = backup_holding(&first, &[b'a'; 3000]);
    let old_id = "20200101T000000000Z-0000abcd";
    let old = area(&sshd).join(format!("{old_id}.data"));
    std::fs::write(&old, "old").unwrap();
    std::fs::write(
        area(&sshd).join(format!("{old_id}.json")),
        json!({"id": old_id, "time": "2020-01-01T00:00:00Z", "tool": "edit_file",
               "path": "/tmp/x", "action": "replaced", "backup": s(&old), "undoable": false})
        .to_string(),
    )
    .unwrap();
    // Two more changes of 3000 bytes each: with 8 KiB in all, the first backup goes.
    let second = write(&tab, &file, &"c".repeat(3000)).await;
    backup_holding(&second, &[b'b'; 3000]);
    assert!(!old.exists(), "a backup past the age limit is pruned");
    let third = write(&tab, &file, &"d".repeat(3000)).await;
    backup_holding(&third, &[b'c'; 3000]);
    assert!(
        !first_backup.exists(),
        "the oldest backup went to keep 8 KiB"
    );
    let listed = tab.ok("list_changes", json!({})).await.unwrap();
    let ids: Vec<&str> = listed["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|change| change["id"].as_str().unwrap())
        .collect();
    assert!(
        !ids.contains(&first_id.as_str()) && !ids.contains(&old_id),
        "{ids:?}"
    );
    let outcome = tab
        .call("undo_change", json!({"change_id": first_id}))
        .await
        .unwrap();
    assert_ne!(outcome.status, ToolStatus::Ok);

    // Over the per-file limit: changed, without a backup, and the result says so.
    let big = dir.path().join("big.bin");
    std::fs::write(&big, vec![b'x'; 5000]).unwrap();
    let (uid, gid) = uid_gid(sshd.user());
    std::os::unix::fs::chown(&big, Some(uid), Some(gid)).unwrap();
    tab.ok("read_file", json!({"path": s(&big)})).await.unwrap();
    let changed = write(&tab, &big, "small\n").await;
    assert_eq!(std::fs::read(&big).unwrap(), b"small\n");
    let note = changed["change"]["note"].as_str().unwrap();
    assert!(note.starts_with("no backup: file too large"), "{note}");
    assert_eq!(changed["change"]["backup"], Value::Null);
    let outcome = tab
        .call(
            "undo_change",
            json!({"change_id": changed["change"]["change_id"]}),
        )
        .await
        .unwrap();
    assert!(
        outcome
            .error
            .unwrap_or_default()
            .contains("cannot be undone"),
        "a change without a backup is not undone"
    );
}

/// On another file system than the backup area no hard link can be made: the server copies the
/// old file itself (SFTP `copy-data`), and that copy is what undo restores.
#[tokio::test(flavor = "multi_thread")]
async fn another_file_system_is_backed_up_by_a_server_side_copy() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, allowed()).await;
    let dir = tempfile::Builder::new()
        .prefix("kaiport-undo-")
        .tempdir_in("/dev/shm")
        .unwrap();
    let (uid, gid) = uid_gid(sshd.user());
    std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).unwrap();
    let file = dir.path().join("on-tmpfs.conf");
    std::fs::write(&file, "tmpfs = 1\n").unwrap();
    std::os::unix::fs::chown(&file, Some(uid), Some(gid)).unwrap();
    assert_ne!(
        std::fs::metadata(&file).unwrap().dev(),
        std::fs::metadata(area(&sshd).parent().unwrap().parent().unwrap())
            .or_else(|_| std::fs::metadata(format!("/home/{}", sshd.user())))
            .unwrap()
            .dev(),
        "the test needs /dev/shm on another file system than the home folder"
    );
    let edited = read_and_edit(&tab, &file, "tmpfs = 1", "tmpfs = 2")
        .await
        .result
        .unwrap();
    let (id, backup) = backup_holding(&edited, b"tmpfs = 1\n");
    assert_eq!(
        std::fs::metadata(&backup).unwrap().nlink(),
        1,
        "a copy, not a link"
    );
    assert_eq!(std::fs::metadata(&backup).unwrap().mode() & 0o777, 0o600);
    undo(&tab, &id).await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "tmpfs = 1\n");
}

/// A later server on the same port must not list this one's changes as its own.
#[tokio::test(flavor = "multi_thread")]
async fn a_stopped_server_leaves_no_changes_for_the_next_on_its_port() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, allowed()).await;
    let (_dir, file) = user_file(&sshd, b"port = 1\n");
    let edited = read_and_edit(&tab, &file, "port = 1", "port = 2")
        .await
        .result
        .unwrap();
    let (_, backup) = backup_holding(&edited, b"port = 1\n");
    assert!(backup.starts_with(area(&sshd)), "{}", backup.display());
    let areas = sshd.backup_areas().unwrap();
    drop(tab);
    drop(sshd);
    for area in areas {
        assert!(!area.exists(), "{} was left", area.display());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sftp_writes_keep_owner_or_write_nothing() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, allowed()).await;
    let (dir, _) = user_file(&sshd, b"x\n");
    // Root's file in the user's folder, writable by the user's group: replacing it over SFTP
    // would make it the user's, so nothing is written and sudo is suggested.
    let (_, gid) = uid_gid(sshd.user());
    let shared = dir.path().join("shared.conf");
    std::fs::write(&shared, "mode = a\n").unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o664)).unwrap();
    std::os::unix::fs::chown(&shared, Some(0), Some(gid)).unwrap();
    let outcome = read_and_edit(&tab, &shared, "a", "b").await;
    assert_ne!(outcome.status, ToolStatus::Ok);
    let error = outcome.error.unwrap_or_default();
    assert!(
        error.contains("sudo") && error.contains("nothing was replaced"),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&shared).unwrap(), "mode = a\n");
    assert_eq!(owner_group_mode(&shared), (0, gid, 0o664));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "no temp file left: {leftovers:?}");
    // The failed change left no record behind.
    let listed = tab.ok("list_changes", json!({})).await.unwrap();
    assert_eq!(listed["changes"], json!([]));
}

/// An SFTP storage tab in autopilot, its local side an empty folder (kept while it lives).
async fn sftp_storage() -> (StorageServer, tempfile::TempDir, EngineHarness) {
    let server = StorageServer::start(StorageKind::Sftp).unwrap();
    let local = tempfile::tempdir().unwrap();
    let tab = EngineHarness::open_storage(
        &server,
        local.path(),
        allowed(),
        Mode::Autopilot,
        Some(server.secret()),
    )
    .await
    .unwrap();
    (server, local, tab)
}

/// A file `name` of `content` and `mode` in the served folder `data`, owned as `data` is.
fn served_file(data: &Path, name: &str, content: &str, mode: u32) -> PathBuf {
    let path = data.join(name);
    std::fs::write(&path, content).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    let owner = std::fs::metadata(data).unwrap();
    std::os::unix::fs::chown(&path, Some(owner.uid()), Some(owner.gid())).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn storage_delete_and_rename_over_are_backed_up_and_undone() {
    let (server, _local, tab) = sftp_storage().await;
    let data = server.data_dir();
    let kept = served_file(&data, "kept.txt", "keep me\n", 0o640);
    let incoming = served_file(&data, "incoming.txt", "newer\n", 0o640);
    let renamed = tab
        .ok(
            "rename",
            json!({"from": "/incoming.txt", "to": "/kept.txt"}),
        )
        .await
        .unwrap();
    assert!(!incoming.exists());
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "newer\n");
    let (rename_id, _) = backup_holding(&renamed, b"keep me\n");
    // The approval line said where the replaced file goes.
    let said = tab.events().into_iter().any(|event| match event {
        Event::ApprovalRequested {
            preview: Some(ApprovalPreview::Operations { lines }),
            ..
        } => lines
            .iter()
            .any(|line| line.contains("REPLACING") && line.contains("backup: ")),
        _ => false,
    });
    assert!(said, "the card names the backup");

    let deleted = tab
        .ok("delete", json!({"path": "/kept.txt"}))
        .await
        .unwrap();
    assert!(!kept.exists());
    let (delete_id, _) = backup_holding(&deleted, b"newer\n");

    // Undo the delete: the file is back with its bytes and mode.
    undo(&tab, &delete_id).await;
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "newer\n");
    assert_eq!(std::fs::metadata(&kept).unwrap().mode() & 0o7777, 0o640);
    // Undo the rename over it: the replaced content is back.
    undo(&tab, &rename_id).await;
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "keep me\n");
}

/// A file its owner may not read (mode 000) is deleted: its hard-linked backup keeps that mode,
/// and undo still gives the file back, bytes and mode, and the backup its mode.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_file_deleted_is_undone() {
    let (server, _local, tab) = sftp_storage().await;
    let data = server.data_dir();
    let path = served_file(&data, "sealed.key", "sealed\n", 0o000);
    let owner = std::fs::metadata(&data).unwrap();

    let deleted = tab
        .ok("delete", json!({"path": "/sealed.key"}))
        .await
        .unwrap();
    assert!(!path.exists());
    let (id, backup) = backup_holding(&deleted, b"sealed\n");
    undo(&tab, &id).await;
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "sealed\n");
    assert_eq!(owner_group_mode(&path), (owner.uid(), owner.gid(), 0o000));
    assert_eq!(std::fs::metadata(&backup).unwrap().mode() & 0o7777, 0o000);
}

/// The approval lines of the cards shown so far.
fn card_lines(tab: &EngineHarness) -> Vec<String> {
    tab.events()
        .into_iter()
        .filter_map(|event| match event {
            Event::ApprovalRequested {
                preview: Some(ApprovalPreview::Operations { lines }),
                ..
            } => Some(lines),
            _ => None,
        })
        .flatten()
        .collect()
}

/// The audit lines of `tool`'s calls, as written.
fn audit_lines(tab: &EngineHarness, tool: &str) -> Vec<String> {
    tab.audit()
        .unwrap()
        .into_iter()
        .filter(|line| line["tool"] == tool)
        .map(|line| line.to_string())
        .collect()
}

/// Whether the service itself keeps old versions, asked as a tab does; an error (the service
/// did not tell, say a request signed wrongly) fails the test.
async fn old_versions(server: &StorageServer) -> Option<String> {
    kaiport_core::storage::install_crypto_provider();
    let url = kaiport_core::storage::StorageUrl::parse(&server.url(), None).unwrap();
    let files = kaiport_core::storage::object::ObjectFiles::open(&url, Some(server.secret()))
        .await
        .unwrap();
    files.old_versions().await.unwrap()
}

/// Azure's blob soft delete keeps a deleted or overwritten blob: with it on, a delete on an
/// Azure tab says so on its card, in its result and in its audit line, where it said "no backup"
/// before (and still does with it off). Azurite keeps and tells the setting; it does not itself
/// keep deleted blobs, so only what kaiport says is checked, not the service's versions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn azure_soft_delete_is_named_instead_of_a_backup() {
    let server = StorageServer::start(StorageKind::Azure).unwrap();
    let seeded: Vec<(String, Vec<u8>)> = ["off.txt", "on.txt"]
        .iter()
        .map(|name| ((*name).to_owned(), b"old\n".to_vec()))
        .collect();
    server.seed_files("docs", &seeded).unwrap();
    let local = tempfile::tempdir().unwrap();
    let open = || {
        EngineHarness::open_storage(
            &server,
            local.path(),
            allowed(),
            Mode::Autopilot,
            Some(server.secret()),
        )
    };
    let kept_phrase = "the previous version is kept by Azure's soft delete";

    // Off (azurite's default): as before, no backup and nothing recorded.
    assert_eq!(old_versions(&server).await, None);
    let tab = open().await.unwrap();
    let deleted = tab
        .ok("delete", json!({"path": "/docs/off.txt"}))
        .await
        .unwrap();
    assert_eq!(deleted.get("change"), None, "{deleted}");
    let lines = card_lines(&tab);
    assert!(
        lines
            .iter()
            .any(|line| line.contains("no backup: not supported for storage yet")),
        "{lines:?}"
    );
    assert!(
        !lines.iter().any(|line| line.contains(kept_phrase)),
        "{lines:?}"
    );

    // On: the card, the result and the audit line say the service keeps it.
    server.set_azure_soft_delete(Some(7)).unwrap();
    let said =
        "the previous version is kept by Azure's soft delete for 7 days (kaiport keeps no copy)";
    assert_eq!(old_versions(&server).await.as_deref(), Some(said));
    let tab = open().await.unwrap();
    let deleted = tab
        .ok("delete", json!({"path": "/docs/on.txt"}))
        .await
        .unwrap();
    assert_eq!(deleted["change"]["note"], said, "{deleted}");
    assert_eq!(deleted["change"].get("backup"), None, "{deleted}");
    assert_eq!(server.stored_files("docs").unwrap(), Vec::<String>::new());
    let lines = card_lines(&tab);
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("delete file /docs/on.txt") && line.contains(said)),
        "{lines:?}"
    );
    assert!(
        !lines.iter().any(|line| line.contains("no backup")),
        "{lines:?}"
    );
    let audit = audit_lines(&tab, "delete");
    assert!(audit.iter().any(|line| line.contains(said)), "{audit:?}");
}

/// rclone's S3 server answers GetBucketVersioning (signed as every request: a wrong signature
/// would fail the test) with versioning never turned on, and cannot turn it on
/// (PutBucketVersioning is not implemented): a rename over a file says "no backup" as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_without_versioning_says_no_backup_as_before() {
    let server = StorageServer::start(StorageKind::S3).unwrap();
    let seeded: Vec<(String, Vec<u8>)> = ["a.txt", "b.txt"]
        .iter()
        .map(|name| ((*name).to_owned(), name.as_bytes().to_vec()))
        .collect();
    server.seed_files("docs", &seeded).unwrap();
    assert_eq!(old_versions(&server).await, None);
    let local = tempfile::tempdir().unwrap();
    let tab = EngineHarness::open_storage(
        &server,
        local.path(),
        allowed(),
        Mode::Autopilot,
        Some(server.secret()),
    )
    .await
    .unwrap();
    let renamed = tab
        .ok(
            "rename",
            json!({"from": "/docs/a.txt", "to": "/docs/b.txt"}),
        )
        .await
        .unwrap();
    assert_eq!(renamed.get("change"), None, "{renamed}");
    let lines = card_lines(&tab);
    assert!(
        lines.iter().any(|line| line.contains("REPLACING")
            && line.contains("no backup: not supported for storage yet")),
        "{lines:?}"
    );
    let claimed = "kept by the bucket's versioning";
    assert!(
        !lines.iter().any(|line| line.contains(claimed)),
        "{lines:?}"
    );
}

/// One entry of a folder as the test sees it: path below the folder, what it is ("dir",
/// "file", "link"), mode (links: 0), owner, group, and the bytes (a link: its target).
type Entry = (String, &'static str, u32, u32, u32, Vec<u8>);

/// Everything under `root` (itself as `""`), sorted by path.
fn snapshot(root: &Path) -> Vec<Entry> {
    fn walk(root: &Path, at: &Path, into: &mut Vec<Entry>) {
        let meta = std::fs::symlink_metadata(at).unwrap();
        let below = at.strip_prefix(root).unwrap().display().to_string();
        let (kind, mode, bytes) = if meta.file_type().is_symlink() {
            let target = std::fs::read_link(at).unwrap();
            ("link", 0, target.display().to_string().into_bytes())
        } else if meta.is_dir() {
            ("dir", meta.mode() & 0o7777, Vec::new())
        } else {
            ("file", meta.mode() & 0o7777, std::fs::read(at).unwrap())
        };
        into.push((below, kind, mode, meta.uid(), meta.gid(), bytes));
        if meta.is_dir() {
            for entry in std::fs::read_dir(at).unwrap() {
                walk(root, &entry.unwrap().path(), into);
            }
        }
    }
    let mut found = Vec::new();
    walk(root, root, &mut found);
    found.sort();
    found
}

/// A recursive delete keeps the whole folder first (files with their bytes and modes, empty
/// folders, links as links); undo puts it back as it was, the undo of that deletes it again
/// (kept first too), and undoing that brings it back once more. The card, the result, the
/// audit line and list_changes name the backup. A folder over the area's limit is deleted
/// with "no backup: folder too large (…)" said on the card and in the result.
#[tokio::test(flavor = "multi_thread")]
async fn a_deleted_folder_is_kept_whole_and_undone() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, allowed()).await;
    let (dir, _) = user_file(&sshd, b"unused\n");
    let (uid, gid) = uid_gid(sshd.user());
    let site = dir.path().join("site 'x'");
    std::fs::create_dir_all(site.join("sub/deeper")).unwrap();
    std::fs::create_dir(site.join("empty")).unwrap();
    std::fs::write(site.join("index.html"), "<h1>hi</h1>\n").unwrap();
    let binary: Vec<u8> = (0..150_000u32).map(|i| (i * 31 % 256) as u8).collect();
    std::fs::write(site.join("sub/data.bin"), &binary).unwrap();
    std::fs::write(site.join("sub/deeper/run.sh"), "#!/bin/sh\necho ok\n").unwrap();
    std::os::unix::fs::symlink("../index.html", site.join("sub/home")).unwrap();
    for (path, mode) in [
        ("", 0o750),
        ("index.html", 0o644),
        ("sub", 0o700),
        ("sub/data.bin", 0o600),
        ("sub/deeper", 0o755),
        ("sub/deeper/run.sh", 0o754),
        ("empty", 0o711),
    ] {
        let at = site.join(path);
        std::fs::set_permissions(&at, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let chown = std::process::Command::new("chown")
        .args(["-hR", &format!("{uid}:{gid}")])
        .arg(&site)
        .status()
        .unwrap();
    assert!(chown.success());
    let before = snapshot(&site);
    assert_eq!(before.len(), 8, "{before:?}");

    let deleted = tab
        .ok("delete", json!({"path": s(&site), "recursive": true}))
        .await
        .unwrap();
    assert!(!site.exists());
    let id = deleted["change"]["change_id"].as_str().unwrap().to_owned();
    let backup = deleted["change"]["backup"].as_str().unwrap().to_owned();
    assert!(Path::new(&backup).starts_with(area(&sshd)), "{deleted}");
    assert!(
        card_lines(&tab)
            .iter()
            .any(|line| line.contains("delete folder")
                && line.contains(&format!("backup: {backup}"))),
        "{:?}",
        card_lines(&tab)
    );
    assert!(
        audit_lines(&tab, "delete")
            .iter()
            .any(|line| line.contains(&id) && line.contains(&backup))
    );
    let listed = tab.ok("list_changes", json!({})).await.unwrap();
    let newest = &listed["changes"][0];
    assert_eq!(
        (&newest["id"], &newest["folder"], &newest["undoable"]),
        (&json!(id), &json!(true), &json!(true)),
        "{listed}"
    );

    let undone = undo(&tab, &id).await;
    assert_eq!(undone["restored"], true);
    assert_eq!(snapshot(&site), before);
    // The undo is a change too: undoing it deletes the folder again, kept first.
    let undo_id = undone["change"]["change_id"].as_str().unwrap().to_owned();
    let again = undo(&tab, &undo_id).await;
    assert!(!site.exists());
    let redo_id = again["change"]["change_id"].as_str().unwrap().to_owned();
    assert!(again["change"]["backup"].is_string(), "{again}");
    undo(&tab, &redo_id).await;
    assert_eq!(snapshot(&site), before);

    // Over the area's limit: deleted without a backup, and said so first.
    let small = open(
        &sshd,
        ConnectionSettings {
            backup_total_kb: 64,
            ..allowed()
        },
    )
    .await;
    let result = small
        .ok("delete", json!({"path": s(&site), "recursive": true}))
        .await
        .unwrap();
    assert!(!site.exists());
    let note = result["change"]["note"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        note.starts_with("no backup: folder too large (") && note.contains("limit 64"),
        "{result}"
    );
    assert_eq!(result["change"]["backup"], Value::Null);
    assert!(
        card_lines(&small).iter().any(|line| line.contains(&note)),
        "{:?}",
        card_lines(&small)
    );
}
