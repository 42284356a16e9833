//! The file tools end to end against a real sshd over SFTP: every limit at and past its edge,
//! binary detection, the content permission, edit failure modes, sudo writes keeping owner and
//! mode, hostile names, symlink loops, folder_report figures on a tree with known ages, sizes and
//! duplicates, and a connection killed in the middle of a write.
//!
//! The tests run as root (like CI); sshd logs in as the fixture's test user, so files the test
//! makes are chowned to that user where the user must own them.

use kaiport_core::fs::{FileAccess, SftpFiles, WriteOptions};
use kaiport_core::ssh::SshSession;
use kaiport_protocol::*;
use kaiport_tests::engine_harness::{Approvals, EngineHarness};
use kaiport_tests::interaction::ScriptedInteraction;
use kaiport_tests::sshd::Sshd;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

pub(super) async fn open(sshd: &Sshd, settings: ConnectionSettings, mode: Mode) -> EngineHarness {
    let known_hosts = sshd.dir().join("files_known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    let target = TabTarget::Ssh {
        host: "127.0.0.1".to_owned(),
        port: sshd.port(),
        user: sshd.user().to_owned(),
        identity_files: vec![sshd.keys.ed25519.display().to_string()],
        jump_hosts: Vec::new(),
        keep_session: false,
        certificate_files: Vec::new(),
        identity_agent: None,
        forward_agent: false,
    };
    EngineHarness::open(target, Some(known_hosts), settings, mode)
        .await
        .unwrap()
}

fn allowed() -> ConnectionSettings {
    ConnectionSettings {
        send_file_contents: true,
        ..ConnectionSettings::default()
    }
}

/// A folder the test user owns.
fn user_dir(sshd: &Sshd) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("kaiport-files-")
        .tempdir_in("/tmp")
        .unwrap();
    chown_user(sshd, dir.path());
    dir
}

pub(super) fn uid_gid(user: &str) -> (u32, u32) {
    let id = |flag: &str| {
        let out = std::process::Command::new("id")
            .arg(flag)
            .arg(user)
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    (id("-u"), id("-g"))
}

fn chown_user(sshd: &Sshd, path: &Path) {
    let (uid, gid) = uid_gid(sshd.user());
    std::os::unix::fs::lchown(path, Some(uid), Some(gid)).unwrap();
}

/// Writes `data` to `path`, owned by the test user.
fn put(sshd: &Sshd, path: &Path, data: impl AsRef<[u8]>) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, data).unwrap();
    chown_user(sshd, path);
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn s(path: &Path) -> String {
    path.display().to_string()
}

async fn error_of(tab: &EngineHarness, tool: &str, args: Value) -> (ToolStatus, String) {
    let outcome = tab.call(tool, args).await.unwrap();
    assert_ne!(
        outcome.status,
        ToolStatus::Ok,
        "{tool} should fail: {outcome:?}"
    );
    (outcome.status, outcome.error.unwrap_or_default())
}

fn set_mtime(path: &Path, days_ago: u64) {
    let when = SystemTime::now() - Duration::from_secs(days_ago * 86_400);
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(when).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn read_file_limits_binary_encodings_and_permission() {
    let sshd = Sshd::start().unwrap();
    let dir = user_dir(&sshd);
    let small = dir.path().join("small.txt");
    put(&sshd, &small, "one\ntwo\nthree\nfour");
    // Without the permission the user is asked, even in autopilot; refusing keeps the file
    // from the model.
    let asked = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    asked.set_approvals(Approvals::Deny);
    let (status, error) = error_of(&asked, "read_file", json!({"path": s(&small)})).await;
    assert_eq!(status, ToolStatus::Denied);
    assert!(error.contains("the user denied"), "{error}");
    let permission_asks = |tab: &EngineHarness| {
        tab.events()
            .iter()
            .filter(|event| {
                matches!(
                    event,
                    Event::ApprovalRequested {
                        permission: Some(Permission::FileContents),
                        risk: Risk::Routine,
                        ..
                    }
                )
            })
            .count()
    };
    assert_eq!(permission_asks(&asked), 1);
    assert_eq!(asked.audit().unwrap().last().unwrap()["decision"], "ask");
    // A standing instruction (--yes) never gives a permission.
    asked.set_approvals(Approvals::Automatic);
    let (status, error) = error_of(&asked, "read_file", json!({"path": s(&small)})).await;
    assert_eq!(status, ToolStatus::Denied);
    assert!(error.contains("only a person can allow it"), "{error}");
    // Just this once: read, and the next read asks again.
    asked.set_approvals(Approvals::Approve);
    let once = asked
        .ok("read_file", json!({"path": s(&small)}))
        .await
        .unwrap();
    assert_eq!(once["content"], "one\ntwo\nthree\nfour");
    asked
        .ok("read_file", json!({"path": s(&small)}))
        .await
        .unwrap();
    assert_eq!(permission_asks(&asked), 4);
    // For the connection: the tab's settings change (as Connection settings would change
    // them) and later reads no longer ask.
    asked.set_approvals(Approvals::AllowForConnection);
    asked
        .ok("read_file", json!({"path": s(&small)}))
        .await
        .unwrap();
    assert!(asked.events().iter().any(|event| matches!(
        event,
        Event::SettingsChanged { settings, .. } if settings.send_file_contents
    )));
    let audit = asked.audit().unwrap();
    let reasons = audit.last().unwrap()["reasons"].to_string();
    assert!(
        reasons.contains("allowed file contents for this tab"),
        "{reasons}"
    );
    asked.set_approvals(Approvals::Deny);
    asked
        .ok("read_file", json!({"path": s(&small)}))
        .await
        .unwrap();
    assert_eq!(permission_asks(&asked), 5);

    let settings = ConnectionSettings {
        file_limit_kb: 1,
        ..allowed()
    };
    let tab = open(&sshd, settings, Mode::Autopilot).await;
    let whole = tab
        .ok("read_file", json!({"path": s(&small)}))
        .await
        .unwrap();
    assert_eq!(whole["content"], "one\ntwo\nthree\nfour");
    assert_eq!(whole["total_lines"], 4);
    assert_eq!(whole["line_ending"], "lf");
    let range = tab
        .ok(
            "read_file",
            json!({"path": s(&small), "start_line": 2, "line_count": 2}),
        )
        .await
        .unwrap();
    assert_eq!(range["content"], "two\nthree\n");
    assert_eq!(
        (range["start_line"].clone(), range["end_line"].clone()),
        (json!(2), json!(3))
    );
    let (_, error) = error_of(
        &tab,
        "read_file",
        json!({"path": s(&small), "start_line": 9}),
    )
    .await;
    assert!(error.contains("past the end"), "{error}");

    // The per-file limit (1 KB here): exactly at the limit stays whole, past it keeps head+tail.
    let at_limit = dir.path().join("at-limit.txt");
    put(&sshd, &at_limit, "x".repeat(1023) + "\n");
    let result = tab
        .ok("read_file", json!({"path": s(&at_limit)}))
        .await
        .unwrap();
    assert!(result.get("truncated").is_none(), "{result}");
    let past = dir.path().join("past-limit.txt");
    let lines: String = (1..=300).map(|n| format!("line {n}\n")).collect();
    put(&sshd, &past, &lines);
    let result = tab
        .ok("read_file", json!({"path": s(&past)}))
        .await
        .unwrap();
    let content = result["content"].as_str().unwrap();
    assert!(content.len() <= 1024, "{}", content.len());
    assert!(
        content.starts_with("line 1\n") && content.ends_with("line 300\n"),
        "{content}"
    );
    assert!(result["truncated"]["omitted_lines"].as_u64().unwrap() > 100);
    assert!(content.contains("left out"), "{content}");

    // Binary: a NUL byte in the first bytes.
    let binary = dir.path().join("image.bin");
    put(&sshd, &binary, b"\x89PNG\0\0\0data");
    let (_, error) = error_of(&tab, "read_file", json!({"path": s(&binary)})).await;
    assert!(error.contains("binary"), "{error}");

    // 2 MB: at the edge it reads, one byte more is refused with a pointer to ranges.
    let two_mb = dir.path().join("two.log");
    let mut data = "0123456789abcde\n"
        .repeat(2 * 1024 * 1024 / 16)
        .into_bytes();
    put(&sshd, &two_mb, &data);
    tab.ok("read_file", json!({"path": s(&two_mb)}))
        .await
        .unwrap();
    data.push(b'x');
    let over = dir.path().join("over.log");
    put(&sshd, &over, &data);
    let (_, error) = error_of(&tab, "read_file", json!({"path": s(&over)})).await;
    assert!(
        error.contains("start_line") && error.contains("search_files"),
        "{error}"
    );
    let tail = tab
        .ok(
            "read_file",
            json!({"path": s(&over), "start_line": 131073, "line_count": 5}),
        )
        .await
        .unwrap();
    assert_eq!(tail["content"], "x");
    assert_eq!(tail["total_lines"], 131073);

    // CRLF kept as a fact, invalid UTF-8 shown lossily and reported.
    let crlf = dir.path().join("win.txt");
    put(&sshd, &crlf, b"a\r\nb\xff\r\n");
    let result = tab
        .ok("read_file", json!({"path": s(&crlf)}))
        .await
        .unwrap();
    assert_eq!(result["line_ending"], "crlf");
    assert_eq!(result["content"], "a\nb\u{fffd}\n");
    assert!(result["encoding_note"].as_str().unwrap().contains("UTF-8"));
}

#[tokio::test(flavor = "multi_thread")]
async fn edit_file_applies_all_or_nothing_and_keeps_the_file_shape() {
    let sshd = Sshd::start().unwrap();
    let dir = user_dir(&sshd);
    let tab = open(&sshd, allowed(), Mode::Ask).await;
    let config = dir.path().join("app.conf");
    put(&sshd, &config, "port = 80\r\nhost = a\r\nhost = a\r\nend");
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    let result = tab
        .ok(
            "edit_file",
            json!({"path": s(&config), "edits": [
                {"old_text": "port = 80\nhost", "new_text": "port = 8080\nhost"},
                {"old_text": "host = a", "new_text": "host = b", "replace_all": true}
            ]}),
        )
        .await
        .unwrap();
    assert_eq!(result["edits_applied"], 2);
    assert_eq!(text(&config), "port = 8080\r\nhost = b\r\nhost = b\r\nend");
    let meta = std::fs::metadata(&config).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o600, "mode kept");
    assert_eq!(meta.uid(), uid_gid(sshd.user()).0);
    let diff = tab
        .events()
        .into_iter()
        .find_map(|event| match event {
            Event::ApprovalRequested {
                preview: Some(ApprovalPreview::Diff { unified, .. }),
                ..
            } => Some(unified),
            _ => None,
        })
        .expect("an approval with a diff");
    assert!(
        diff.contains("-port = 80") && diff.contains("+port = 8080"),
        "{diff}"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temp file left");

    let before = text(&config);
    let (_, error) = error_of(
        &tab,
        "edit_file",
        json!({"path": s(&config), "edits": [
            {"old_text": "end", "new_text": "END"},
            {"old_text": "nothing like this", "new_text": "x"}
        ]}),
    )
    .await;
    assert!(
        error.contains("edit 2 of 2: old_text matched 0 times"),
        "{error}"
    );
    let (_, error) = error_of(
        &tab,
        "edit_file",
        json!({"path": s(&config), "edits": [
            {"old_text": "host = b", "new_text": "x"}
        ]}),
    )
    .await;
    assert!(
        error.contains("edit 1 of 1: old_text matched 2 times"),
        "{error}"
    );
    assert_eq!(text(&config), before, "all or nothing");
    let (_, error) = error_of(
        &tab,
        "edit_file",
        json!({"path": s(&dir.path().join("missing")), "edits": [
            {"old_text": "a", "new_text": "b"}
        ]}),
    )
    .await;
    assert!(error.contains("does not exist"), "{error}");

    // Changed underneath after it was read.
    tab.ok("read_file", json!({"path": s(&config)}))
        .await
        .unwrap();
    std::fs::write(&config, "someone else was here\nend").unwrap();
    let (_, error) = error_of(
        &tab,
        "edit_file",
        json!({"path": s(&config), "edits": [
            {"old_text": "end", "new_text": "END"}
        ]}),
    )
    .await;
    assert!(error.contains("changed since you read it"), "{error}");
    assert_eq!(text(&config), "someone else was here\nend");

    // No write permission: a root-owned file in a root-owned folder.
    let locked_dir = tempfile::tempdir_in("/tmp").unwrap();
    std::fs::set_permissions(locked_dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let locked = locked_dir.path().join("root.conf");
    std::fs::write(&locked, "a = 1\n").unwrap();
    let (_, error) = error_of(
        &tab,
        "edit_file",
        json!({"path": s(&locked), "edits": [
            {"old_text": "a = 1", "new_text": "a = 2"}
        ]}),
    )
    .await;
    assert!(
        error.contains("permission denied") && error.contains("sudo"),
        "{error}"
    );
    assert_eq!(text(&locked), "a = 1\n");

    // A missing final newline stays missing.
    let bare = dir.path().join("bare.txt");
    put(&sshd, &bare, "alpha\nbeta");
    tab.ok(
        "edit_file",
        json!({"path": s(&bare), "edits": [{"old_text": "alpha", "new_text": "ALPHA"}]}),
    )
    .await
    .unwrap();
    assert_eq!(text(&bare), "ALPHA\nbeta");

    // The audit has paths and sizes, never contents.
    let audit = serde_json::to_string(&tab.audit().unwrap()).unwrap();
    assert!(audit.contains("app.conf"));
    assert!(!audit.contains("port = 8080"), "{audit}");
}

#[tokio::test(flavor = "multi_thread")]
async fn write_file_creates_replaces_after_a_read_and_handles_odd_names() {
    let sshd = Sshd::start().unwrap();
    let dir = user_dir(&sshd);
    let tab = open(&sshd, allowed(), Mode::Autopilot).await;
    for name in [
        "with space.txt",
        "it's \"quoted\".txt",
        "new\nline.txt",
        "ünïcødé ✓.txt",
        "-rf",
    ] {
        let path = dir.path().join(name);
        let result = tab
            .ok(
                "write_file",
                json!({"path": s(&path), "content": format!("{name}\n")}),
            )
            .await
            .unwrap();
        assert_eq!(result["created"], true);
        assert_eq!(text(&path), format!("{name}\n"));
    }
    let (_, error) = error_of(
        &tab,
        "write_file",
        json!({"path": s(&dir.path().join("no/such/folder/x")), "content": "x"}),
    )
    .await;
    assert!(error.contains("does not exist"), "{error}");

    let existing = dir.path().join("existing.txt");
    put(&sshd, &existing, "old\r\n");
    let (_, error) = error_of(
        &tab,
        "write_file",
        json!({"path": s(&existing), "content": "new\n"}),
    )
    .await;
    assert!(error.contains("read it with read_file first"), "{error}");
    assert_eq!(text(&existing), "old\r\n");
    tab.ok("read_file", json!({"path": s(&existing)}))
        .await
        .unwrap();
    let result = tab
        .ok(
            "write_file",
            json!({"path": s(&existing), "content": "new\nlines\n"}),
        )
        .await
        .unwrap();
    assert_eq!(result["created"], false);
    assert_eq!(text(&existing), "new\r\nlines\r\n", "CRLF kept");
    // What kaiport wrote counts as read: a second write needs no new read.
    tab.ok(
        "write_file",
        json!({"path": s(&existing), "content": "third\n"}),
    )
    .await
    .unwrap();
    assert_eq!(text(&existing), "third\r\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn sudo_write_keeps_owner_group_and_mode() {
    let sshd = Sshd::start().unwrap();
    assert_eq!(
        sshd.user(),
        kaiport_tests::sshd::TEST_USER,
        "the suite runs as root, which makes root-owned files (scripts/test.sh checks)"
    );
    let tab = open(&sshd, allowed(), Mode::Autopilot).await;
    let root_dir = tempfile::tempdir_in("/tmp").unwrap();
    std::fs::set_permissions(root_dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let target = root_dir.path().join("secret 'conf'");
    std::fs::write(&target, "level = low\n").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    // Readable for the diff: the test user's group gets read access through a root group? No:
    // make the group the test user's so it can read (mode 0640), the owner stays root.
    let (_, gid) = uid_gid(sshd.user());
    std::os::unix::fs::chown(&target, Some(0), Some(gid)).unwrap();
    let result = tab
        .ok(
            "edit_file",
            json!({"path": s(&target), "sudo": true, "edits": [
                {"old_text": "level = low", "new_text": "level = high"}
            ]}),
        )
        .await
        .unwrap();
    assert_eq!(result["edits_applied"], 1);
    assert_eq!(text(&target), "level = high\n");
    let meta = std::fs::metadata(&target).unwrap();
    assert_eq!(
        (meta.uid(), meta.gid(), meta.mode() & 0o7777),
        (0, gid, 0o640)
    );
    let leftovers = std::fs::read_dir(root_dir.path()).unwrap().count();
    assert_eq!(leftovers, 1, "no temp file beside the target");
    let temps: Vec<_> = std::fs::read_dir("/tmp")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .starts_with(".kaiport-sudo-")
        })
        .collect();
    assert!(temps.is_empty(), "uploaded temp files removed");
    // Without sudo the same change is refused.
    let (_, error) = error_of(
        &tab,
        "edit_file",
        json!({"path": s(&target), "edits": [
            {"old_text": "high", "new_text": "max"}
        ]}),
    )
    .await;
    assert!(error.contains("sudo"), "{error}");
    // The old content went to root's backup area, with the old file's owner, group and mode.
    let (uid, _) = uid_gid(sshd.user());
    let (id, backup) = super::undo::backup_holding(&result, b"level = low\n");
    assert!(
        backup.starts_with(format!("/var/backups/kaiport/uid-{uid}/")),
        "{}",
        backup.display()
    );
    assert_eq!(super::undo::owner_group_mode(&backup), (0, gid, 0o640));
    let listed = tab.ok("list_changes", json!({})).await.unwrap();
    assert_eq!(listed["changes"][0]["sudo"], true);
    assert_eq!(listed["changes"][0]["undoable"], true);
    // Owner and mode changed meanwhile: undoing (through sudo) puts both back with the bytes.
    std::os::unix::fs::chown(&target, Some(0), Some(0)).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).unwrap();
    let undone = super::undo::undo(&tab, &id).await;
    assert_eq!(text(&target), "level = low\n");
    assert_eq!(super::undo::owner_group_mode(&target), (0, gid, 0o640));
    // The undo kept what it replaced in root's area too: undoing it is a redo.
    let (undo_id, _) = super::undo::backup_holding(&undone, b"level = high\n");
    super::undo::undo(&tab, &undo_id).await;
    assert_eq!(text(&target), "level = high\n");
    assert_eq!(super::undo::owner_group_mode(&target), (0, 0, 0o644));
    assert_eq!(std::fs::read_dir(root_dir.path()).unwrap().count(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn list_dir_edges_empty_folders_and_symlink_loops() {
    let sshd = Sshd::start().unwrap();
    let dir = user_dir(&sshd);
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Ask).await;
    // The user's own calls (`Op::RunTool`) list a folder whole; Pilot's 500 cap is
    // tests/suite/file_pane.rs's.
    let exact = dir.path().join("exact");
    for index in 0..501 {
        put(&sshd, &exact.join(format!("f{index:03}")), "");
    }
    let result = tab
        .ok("list_dir", json!({"path": s(&exact)}))
        .await
        .unwrap();
    assert_eq!(
        (
            result["entries"].as_array().unwrap().len(),
            result["omitted"].clone()
        ),
        (501, json!(0))
    );

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let result = tab
        .ok("list_dir", json!({"path": s(&empty)}))
        .await
        .unwrap();
    assert_eq!(result["entries"], json!([]));

    let loop_dir = dir.path().join("loop");
    std::fs::create_dir(&loop_dir).unwrap();
    std::os::unix::fs::symlink(&loop_dir, loop_dir.join("again")).unwrap();
    std::os::unix::fs::symlink("b", loop_dir.join("a")).unwrap();
    std::os::unix::fs::symlink("a", loop_dir.join("b")).unwrap();
    put(&sshd, &loop_dir.join("file.txt"), "hello");
    let result = tab
        .ok("list_dir", json!({"path": s(&loop_dir)}))
        .await
        .unwrap();
    let entries = result["entries"].as_array().unwrap();
    let again = entries
        .iter()
        .find(|entry| entry["name"] == "again")
        .unwrap();
    assert_eq!(again["kind"], "symlink");
    assert_eq!(again["link_target"], s(&loop_dir));
    let file = entries
        .iter()
        .find(|entry| entry["name"] == "file.txt")
        .unwrap();
    assert_eq!(
        (file["kind"].clone(), file["size"].clone()),
        (json!("file"), json!(5))
    );
    assert_eq!(file["permissions"], "rw-r--r--");
    assert_eq!(
        file.get("root_only"),
        None,
        "the login's own file needs no root"
    );
    // Walks report links and do not follow them, so loops end.
    let report = tab
        .ok(
            "folder_report",
            json!({"path": s(&loop_dir), "max_depth": 12}),
        )
        .await
        .unwrap();
    assert_eq!(
        (report["files"].clone(), report["folders"].clone()),
        (json!(1), json!(0))
    );
    let found = tab
        .ok("find_files", json!({"path": s(&loop_dir)}))
        .await
        .unwrap();
    assert_eq!(found["entries_scanned"], 4);
    // Listing tools need no content permission and ask nothing.
    assert!(
        !tab.events()
            .iter()
            .any(|event| matches!(event, Event::ApprovalRequested { .. }))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn search_files_limits() {
    let sshd = Sshd::start().unwrap();
    let dir = user_dir(&sshd);
    let settings = ConnectionSettings {
        file_limit_kb: 4,
        ..allowed()
    };
    let tab = open(&sshd, settings, Mode::Autopilot).await;
    let root = dir.path();
    // Depth: level 6 is searched, level 7 is not.
    let mut deep = root.to_path_buf();
    for level in 1..=6 {
        deep = deep.join(format!("l{level}"));
    }
    put(&sshd, &deep.join("six.txt"), "needle at six\n");
    put(
        &sshd,
        &deep.join("l7").join("seven.txt"),
        "needle at seven\n",
    );
    put(&sshd, &root.join("bin.dat"), b"needle\0binary");
    put(&sshd, &root.join("big.txt"), "needle\n".repeat(1000));
    put(
        &sshd,
        &root.join("long.txt"),
        format!("needle{}\n", "y".repeat(500)),
    );
    put(&sshd, &root.join("Case.txt"), "NEEDLE upper\n");
    let result = tab
        .ok(
            "search_files",
            json!({"path": s(root), "pattern": "needle"}),
        )
        .await
        .unwrap();
    let paths: Vec<&str> = result["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|found| found["path"].as_str().unwrap())
        .collect();
    assert!(
        paths.iter().any(|path| path.ends_with("six.txt")),
        "{paths:?}"
    );
    assert!(
        !paths.iter().any(|path| path.ends_with("seven.txt")),
        "{paths:?}"
    );
    assert!(
        !paths.iter().any(|path| path.ends_with("Case.txt")),
        "{paths:?}"
    );
    let long = result["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|found| found["path"].as_str().unwrap().ends_with("long.txt"))
        .unwrap();
    assert_eq!(long["text"].as_str().unwrap().chars().count(), 200);
    let skipped = serde_json::to_string(&result["skipped"]).unwrap();
    assert!(
        skipped.contains("bin.dat") && skipped.contains("binary"),
        "{skipped}"
    );
    assert!(
        skipped.contains("big.txt") && skipped.contains("per-file limit"),
        "{skipped}"
    );
    let read = serde_json::to_string(&result["files_read"]).unwrap();
    assert!(
        read.contains("six.txt") && read.contains("long.txt") && !read.contains("big.txt"),
        "{read}"
    );
    let result = tab
        .ok("search_files", json!({"path": s(root), "pattern": "NEEDLE up", "literal": true, "case_insensitive": true, "glob": "*.txt"}))
        .await
        .unwrap();
    assert_eq!(result["matches"].as_array().unwrap().len(), 1);

    // 100 matching lines: exactly 100 is complete, 101 is truncated.
    let hundred = root.join("hundred");
    put(&sshd, &hundred.join("a.txt"), "hit\n".repeat(100));
    let result = tab
        .ok(
            "search_files",
            json!({"path": s(&hundred), "pattern": "hit"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (
            result["matches"].as_array().unwrap().len(),
            result["truncated"].clone()
        ),
        (100, json!(false))
    );
    put(&sshd, &hundred.join("b.txt"), "hit\n");
    let result = tab
        .ok(
            "search_files",
            json!({"path": s(&hundred), "pattern": "hit"}),
        )
        .await
        .unwrap();
    assert_eq!(
        (
            result["matches"].as_array().unwrap().len(),
            result["truncated"].clone()
        ),
        (100, json!(true))
    );

    // Without the permission the user is asked; refused, nothing is searched.
    let denied = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    denied.set_approvals(Approvals::Deny);
    let (status, _) = error_of(
        &denied,
        "search_files",
        json!({"path": s(root), "pattern": "x"}),
    )
    .await;
    assert_eq!(status, ToolStatus::Denied);
    assert!(denied.events().iter().any(|event| matches!(
        event,
        Event::ApprovalRequested {
            permission: Some(Permission::FileContents),
            ..
        }
    )));
}

#[tokio::test(flavor = "multi_thread")]
async fn find_files_and_folder_report_figures() {
    let sshd = Sshd::start().unwrap();
    let dir = user_dir(&sshd);
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    let root = dir.path();
    let file = |rel: &str, size: usize, days_ago: u64| -> PathBuf {
        let path = root.join(rel);
        put(&sshd, &path, vec![b'a'; size]);
        set_mtime(&path, days_ago);
        path
    };
    file("app/app.log", 1000, 40);
    file("app/new.log", 500, 1);
    file("app/config.yml", 300, 10);
    file("backup/db.sql.bak", 5000, 100);
    file("a/readme.txt", 77, 2);
    file("b/readme.txt", 77, 400);
    file("scratch.tmp", 10, 0);
    file("huge.iso", 11 * 1024 * 1024, 500);
    std::fs::create_dir_all(root.join("empty/inner")).unwrap();

    let found = tab
        .ok(
            "find_files",
            json!({"path": s(root), "name": "*.log", "modified_before": "7d"}),
        )
        .await
        .unwrap();
    let paths: Vec<&str> = found["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, vec![s(&root.join("app/app.log"))]);
    let found = tab
        .ok(
            "find_files",
            json!({"path": s(root), "kind": "file", "min_size": 1000, "limit": 2}),
        )
        .await
        .unwrap();
    assert_eq!(found["matches"].as_array().unwrap().len(), 2);
    assert_eq!(found["truncated"], true);
    let found = tab
        .ok(
            "find_files",
            json!({"path": s(root), "kind": "dir", "max_depth": 1}),
        )
        .await
        .unwrap();
    assert_eq!(found["matches"].as_array().unwrap().len(), 5, "{found}");

    let report = tab
        .ok("folder_report", json!({"path": s(root)}))
        .await
        .unwrap();
    assert_eq!(report["files"], 8);
    assert_eq!(report["folders"], 6);
    assert_eq!(
        report["total_bytes"],
        1000 + 500 + 300 + 5000 + 77 + 77 + 10 + 11 * 1024 * 1024
    );
    assert_eq!(report["largest"][0]["path"], s(&root.join("huge.iso")));
    assert_eq!(report["largest"].as_array().unwrap().len(), 8);
    assert_eq!(report["oldest"][0]["path"], s(&root.join("huge.iso")));
    assert_eq!(report["oldest"].as_array().unwrap().len(), 5);
    assert_eq!(report["newest"][0]["path"], s(&root.join("scratch.tmp")));
    assert_eq!(
        report["possible_duplicates"],
        json!([{"name": "readme.txt", "size": 77, "paths": [s(&root.join("a/readme.txt")), s(&root.join("b/readme.txt"))]}])
    );
    assert_eq!(
        report["empty_folders"],
        json!([s(&root.join("empty/inner"))])
    );
    let reasons: Vec<(String, String)> = report["cleanup_candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["path"].as_str().unwrap().to_owned(),
                c["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let names: Vec<&str> = reasons
        .iter()
        .map(|(path, _)| path.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["huge.iso", "db.sql.bak", "app.log", "scratch.tmp"],
        "{reasons:?}"
    );
    let ages: Vec<(String, u64)> = report["by_age"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["name"].as_str().unwrap().to_owned(),
                g["files"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ages,
        vec![
            ("under 1 day".to_owned(), 1),
            ("1-7 days".to_owned(), 2),
            ("7-30 days".to_owned(), 1),
            ("30-90 days".to_owned(), 1),
            ("90-365 days".to_owned(), 1),
            ("over 1 year".to_owned(), 2),
        ]
    );
    let logs = report["by_type"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "logs")
        .unwrap();
    assert_eq!(
        (logs["files"].clone(), logs["bytes"].clone()),
        (json!(2), json!(1500))
    );
    assert_eq!(report["depth_limited"], false);
    let shallow = tab
        .ok("folder_report", json!({"path": s(root), "max_depth": 1}))
        .await
        .unwrap();
    // One folder level: everything but what is inside empty/inner, which is not entered.
    assert_eq!(shallow["depth_limited"], true);
    assert_eq!(
        (shallow["files"].clone(), shallow["folders"].clone()),
        (json!(8), json!(6))
    );
    assert_eq!(shallow["empty_folders"], json!([]));
    let (_, error) = error_of(
        &tab,
        "folder_report",
        json!({"path": s(root), "max_depth": 13}),
    )
    .await;
    assert!(error.contains("from 1 to 12"), "{error}");
}

/// SFTP on its own session to `sshd`, without an engine (keep the session alive with it).
/// search_files picks the files worth reading with grep on the server; the results are the
/// same as reading every file, whatever the files hold or are called.
#[tokio::test(flavor = "multi_thread")]
async fn search_on_the_server_finds_what_reading_everything_finds() {
    use futures::StreamExt;
    let sshd = Sshd::start().unwrap();
    let dir = user_dir(&sshd);
    let root = dir.path();
    let mut plain = Vec::new();
    for index in 0..300 {
        let name = format!("d{}/f{index:03}.txt", index % 7);
        let body = match index % 5 {
            0 => format!("line one\nthe Needle {index} here\r\nlast\n"),
            1 => format!("no match in {index}\n"),
            2 => format!("NEEDLE in caps {index}\n"),
            3 => String::new(),
            _ => format!("needle{index}\nneedle again\n"),
        };
        put(&sshd, &root.join(&name), body);
        plain.push(name);
    }
    let odd_names = [
        "with space.txt",
        "it's \"quoted\".txt",
        "new\nline.txt",
        "-leading-dash.txt",
        "ünïcödé ✓.txt",
        "$HOME;`x`.txt",
    ];
    for name in odd_names {
        put(
            &sshd,
            &root.join("odd").join(name),
            format!("a needle in {name}\n"),
        );
    }
    put(&sshd, &root.join("odd/clean name.txt"), "nothing\n");
    // Binary with and without the needle, a NUL past the binary probe, an unreadable file.
    put(&sshd, &root.join("bin/with.dat"), b"needle\0binary");
    put(&sshd, &root.join("bin/without.dat"), b"\0\x01\x02 binary");
    let mut late_nul = "text\n".repeat(2000).into_bytes();
    late_nul.extend_from_slice(b"\0 tail needle?");
    put(&sshd, &root.join("bin/late-nul.txt"), &late_nul);
    put(
        &sshd,
        &root.join("locked/secret.txt"),
        "needle behind a lock\n",
    );
    std::fs::set_permissions(
        root.join("locked/secret.txt"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();

    let (_session, scanning) = sftp_files(&sshd).await;
    let (_other, reading) = sftp_files(&sshd).await;
    let reading = reading.scan_on_server(false);
    let searches = [
        json!({"pattern": "needle"}),
        json!({"pattern": "needle", "case_insensitive": true}),
        json!({"pattern": "Needle \\d+|caps", "glob": "*.txt"}),
        json!({"pattern": "needle again", "literal": true}),
        json!({"pattern": "^(line|last)$"}),
        json!({"pattern": "binary"}),
        json!({"pattern": "tail needle?", "literal": true}),
        json!({"pattern": "n.*e"}),
    ];
    for search in searches {
        let mut params = search.clone();
        params["path"] = json!(s(root));
        let params: kaiport_protocol::tools::SearchFilesParams =
            serde_json::from_value(params).unwrap();
        let limit = 64 * 1024;
        let scanned = kaiport_core::tools::search_files_on(&scanning, &params, limit)
            .await
            .unwrap();
        let read = kaiport_core::tools::search_files_on(&reading, &params, limit)
            .await
            .unwrap();
        assert_eq!(scanned, read, "{search}");
    }

    // Both ways agreeing proves little if both are wrong: answers written out by hand, from how
    // the files were made above (index % 5 decides the body).
    let by_hand = |pattern: Value, expected: Vec<(String, u64, String)>| {
        let mut params = pattern.clone();
        params["path"] = json!(s(root));
        let params: kaiport_protocol::tools::SearchFilesParams =
            serde_json::from_value(params).unwrap();
        (pattern, params, expected)
    };
    let every = |rest: u32| (0..300u32).filter(move |index| index % 5 == rest);
    let file = |index: u32| s(&root.join(format!("d{}/f{index:03}.txt", index % 7)));
    let expectations = [
        by_hand(
            json!({"pattern": "needle again", "literal": true}),
            every(4)
                .map(|index| (file(index), 2, "needle again".to_owned()))
                .collect(),
        ),
        by_hand(
            json!({"pattern": "^(line|last)$"}),
            every(0)
                .map(|index| (file(index), 3, "last".to_owned()))
                .collect(),
        ),
        by_hand(
            json!({"pattern": "a needle in"}),
            odd_names
                .iter()
                .map(|name| {
                    let first_line = format!("a needle in {name}");
                    let first_line = first_line.split('\n').next().unwrap().to_owned();
                    (s(&root.join("odd").join(name)), 1, first_line)
                })
                .collect(),
        ),
    ];
    for (pattern, params, mut expected) in expectations {
        expected.sort();
        for files in [&scanning, &reading] {
            let found = kaiport_core::tools::search_files_on(files, &params, 64 * 1024)
                .await
                .unwrap();
            assert!(!found.truncated, "{pattern}");
            let mut found: Vec<(String, u64, String)> = found
                .matches
                .into_iter()
                .map(|hit| (hit.path, hit.line, hit.text))
                .collect();
            found.sort();
            assert_eq!(found, expected, "{pattern}");
        }
    }

    // The scan answers for what it could read, in order, and passes over what it could not.
    let mut paths: Vec<String> = plain.iter().map(|name| s(&root.join(name))).collect();
    paths.push(s(&root.join("locked/secret.txt")));
    paths.push(s(&root.join("bin/without.dat")));
    paths.push(s(&root.join("odd/new\nline.txt")));
    paths.push(s(&root.join("odd/clean name.txt")));
    let (answer, answers) = futures::channel::mpsc::unbounded();
    scanning
        .scan_contents(
            &[b"needle".to_vec()],
            futures::stream::iter(paths.clone()).boxed(),
            answer,
        )
        .await;
    let answers: Vec<(String, bool)> = answers.collect().await;
    let mut expected: Vec<(String, bool)> = plain
        .iter()
        .enumerate()
        .map(|(index, name)| (s(&root.join(name)), index % 5 == 4))
        .collect();
    expected.push((s(&root.join("bin/without.dat")), true));
    expected.push((s(&root.join("odd/new\nline.txt")), true));
    expected.push((s(&root.join("odd/clean name.txt")), false));
    assert_eq!(answers, expected);
}

async fn sftp_files(sshd: &Sshd) -> (SshSession, SftpFiles) {
    let session = SshSession::connect(
        &sshd.target(),
        &sshd.options().unwrap(),
        Arc::new(ScriptedInteraction::default()),
    )
    .await
    .unwrap();
    let files = SftpFiles::open(&session).await.unwrap();
    (session, files)
}

/// Killing the server in the middle of a write leaves the original byte-identical.
#[tokio::test(flavor = "multi_thread")]
async fn connection_killed_mid_write_keeps_the_original() {
    let mut sshd = Sshd::start().unwrap();
    let dir = user_dir(&sshd);
    let target = dir.path().join("keep.bin");
    let original: Vec<u8> = (0..1_000_000u32).map(|n| (n % 251) as u8).collect();
    put(&sshd, &target, &original);
    let (_session, files) = sftp_files(&sshd).await;
    let (mut writer, mut reader) = tokio::io::duplex(64 * 1024);
    let path = s(&target);
    let write = tokio::spawn(async move {
        files
            .write_atomic(&path, &mut reader, &WriteOptions::default())
            .await
    });
    use tokio::io::AsyncWriteExt;
    for _ in 0..64 {
        writer.write_all(&[7u8; 64 * 1024]).await.unwrap();
    }
    sshd.kill();
    // Keep feeding until the write notices; the source never ends on its own.
    let outcome = loop {
        if write.is_finished() {
            break write.await.unwrap();
        }
        let _ =
            tokio::time::timeout(Duration::from_millis(50), writer.write_all(&[7u8; 1024])).await;
    };
    assert!(outcome.is_err(), "{outcome:?}");
    assert_eq!(std::fs::read(&target).unwrap(), original);
}

/// Hundreds of reads, listings and a batch read at once on one session all succeed with the
/// right bytes. OpenSSH numbers handles by slot; russh-sftp decodes them as lossy UTF-8, so a
/// handle from slot 128 on came back mangled and every use of it failed — the session keeps
/// at most 128 handles open at once.
#[tokio::test(flavor = "multi_thread")]
async fn hundreds_of_files_at_once_on_one_session() {
    use futures::StreamExt;
    let sshd = Sshd::start().unwrap();
    let dir = user_dir(&sshd);
    const FILES: usize = 300;
    let content = |index: usize| format!("file {index}\n").repeat(index % 7 + 1);
    for index in 0..FILES {
        put(
            &sshd,
            &dir.path().join(format!("f{index:03}.txt")),
            content(index),
        );
    }
    let (_session, files) = sftp_files(&sshd).await;
    let files = Arc::new(files);
    let path_of = |index: usize| s(&dir.path().join(format!("f{index:03}.txt")));
    let single = futures::future::join_all((0..FILES).map(|index| {
        let (files, path) = (files.clone(), path_of(index));
        async move {
            let mut sink = Vec::new();
            files
                .read_into(&path, 0, u64::MAX, &mut sink)
                .await
                .map(|_| sink)
        }
    }));
    let listings = futures::future::join_all((0..40).map(|_| {
        let (files, path) = (files.clone(), s(dir.path()));
        async move { files.read_dir(&path).await }
    }));
    let batch = files
        .read_files(
            futures::stream::iter(
                (0..FILES).map(|index| (path_of(index), content(index).len() as u64)),
            )
            .boxed(),
            1 << 20,
        )
        .collect::<Vec<_>>();
    let (single, listings, batch) = tokio::join!(single, listings, batch);
    for (index, read) in single.into_iter().enumerate() {
        assert_eq!(read.unwrap(), content(index).into_bytes(), "file {index}");
    }
    for listing in listings {
        assert_eq!(listing.unwrap().len(), FILES);
    }
    assert_eq!(batch.len(), FILES);
    for (index, (path, read)) in batch.into_iter().enumerate() {
        assert_eq!(path, path_of(index));
        assert_eq!(read.unwrap(), content(index).into_bytes(), "file {index}");
    }
}
