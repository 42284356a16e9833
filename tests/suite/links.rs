//! Links on the server cannot carry a change past the lock-out rules (issue "Keep the promise",
//! item 1): edit_file, write_file and run_command are judged on the path the server really
//! writes, a file link is written through (the link stays), and harmless links stay unasked.
//!
//! Lock-out paths here are `**/.ssh/authorized_keys*` inside the test's own folder, so a
//! regression changes only the test's files, never the machine's.

use kaiport_protocol::*;
use kaiport_tests::engine_harness::{Approvals, EngineHarness};
use kaiport_tests::sshd::Sshd;
use serde_json::json;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

fn approvals_asked(tab: &EngineHarness) -> Vec<String> {
    tab.events()
        .into_iter()
        .filter_map(|event| match event {
            Event::ApprovalRequested { reasons, .. } => Some(reasons.join(" | ")),
            _ => None,
        })
        .collect()
}

/// A folder owned by the test user with `home/.ssh/authorized_keys` in it.
struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn new(sshd: &Sshd) -> Tree {
        let dir = tempfile::Builder::new()
            .prefix("kaiport-links-")
            .tempdir_in("/tmp")
            .unwrap();
        let tree = Tree { dir };
        std::fs::create_dir_all(tree.path("home/.ssh")).unwrap();
        std::fs::write(tree.keys(), "ssh-ed25519 AAAA original\n").unwrap();
        std::fs::write(tree.path("notes.txt"), "one\ntwo\n").unwrap();
        // `user:` also gives the login's group: an SFTP edit keeps owner and group.
        let status = std::process::Command::new("chown")
            .arg("-R")
            .arg(format!("{}:", sshd.user()))
            .arg(tree.dir.path())
            .status()
            .unwrap();
        assert!(status.success());
        tree
    }

    fn path(&self, rest: &str) -> PathBuf {
        self.dir.path().join(rest)
    }

    fn keys(&self) -> PathBuf {
        self.path("home/.ssh/authorized_keys")
    }

    fn link(&self, name: &str, to: &Path) -> String {
        let link = self.path(name);
        symlink(to, &link).unwrap();
        link.display().to_string()
    }
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn is_link(path: &str) -> bool {
    std::fs::symlink_metadata(path)
        .unwrap()
        .file_type()
        .is_symlink()
}

#[tokio::test(flavor = "multi_thread")]
async fn file_tools_are_judged_where_links_lead() {
    let sshd = Sshd::start().unwrap();
    let settings = ConnectionSettings {
        send_file_contents: true,
        ..ConnectionSettings::default()
    };
    let tab = EngineHarness::open_sshd(&sshd, settings, Mode::Autopilot)
        .await
        .unwrap();
    let tree = Tree::new(&sshd);
    let folder_link = tree.link("l", &tree.path("home/.ssh"));
    let file_link = tree.link("k", &tree.keys());
    let root_link = tree.link("r", Path::new("/"));
    tab.set_approvals(Approvals::Deny);

    // Through a link to the folder: asked (and refused here), nothing changed.
    let through_folder = format!("{folder_link}/authorized_keys");
    let edit = |path: &str| json!({"path": path, "edits": [{"old_text": "original", "new_text": "attacker"}]});
    let outcome = tab.call("edit_file", edit(&through_folder)).await.unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied, "{outcome:?}");
    // Through a link to the file itself.
    let outcome = tab.call("edit_file", edit(&file_link)).await.unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied, "{outcome:?}");
    // A new file through a link to `/`.
    let through_root = format!(
        "{root_link}{}",
        tree.path("home/.ssh/authorized_keys2").display()
    );
    let outcome = tab
        .call(
            "write_file",
            json!({"path": through_root, "content": "ssh-ed25519 AAAA attacker\n"}),
        )
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied, "{outcome:?}");
    assert_eq!(text(&tree.keys()), "ssh-ed25519 AAAA original\n");
    assert!(!tree.path("home/.ssh/authorized_keys2").exists());
    let asked = approvals_asked(&tab);
    assert_eq!(asked.len(), 3, "{asked:#?}");
    for reasons in &asked {
        assert!(
            reasons.contains("through a link") && reasons.contains("lock you out"),
            "{reasons}"
        );
    }

    // Approved through the file link: the target changes and the link stays a link.
    tab.set_approvals(Approvals::Approve);
    tab.ok("edit_file", edit(&file_link)).await.unwrap();
    assert_eq!(text(&tree.keys()), "ssh-ed25519 AAAA attacker\n");
    assert!(is_link(&file_link), "the link was replaced by a file");

    // A harmless link is written through without asking.
    let asked_before = approvals_asked(&tab).len();
    let notes_link = tree.link("notes-link", &tree.path("notes.txt"));
    tab.ok("read_file", json!({"path": notes_link}))
        .await
        .unwrap();
    tab.ok(
        "edit_file",
        json!({"path": notes_link, "edits": [{"old_text": "two", "new_text": "TWO"}]}),
    )
    .await
    .unwrap();
    assert_eq!(text(&tree.path("notes.txt")), "one\nTWO\n");
    assert!(is_link(&notes_link));
    tab.ok(
        "write_file",
        json!({"path": notes_link, "content": "three\n"}),
    )
    .await
    .unwrap();
    assert_eq!(text(&tree.path("notes.txt")), "three\n");
    assert!(is_link(&notes_link));
    assert_eq!(approvals_asked(&tab).len(), asked_before);

    // A link whose target does not exist is refused with what to do.
    let dangling = tree.link("dangling", &tree.path("nowhere/file"));
    let outcome = tab
        .call("write_file", json!({"path": dangling, "content": "x\n"}))
        .await
        .unwrap();
    let error = outcome.error.clone().unwrap_or_default();
    assert!(
        error.contains("link") && error.contains("does not exist"),
        "{outcome:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn command_writes_are_judged_where_links_lead() {
    let sshd = Sshd::start().unwrap();
    let tab = EngineHarness::open_sshd(&sshd, ConnectionSettings::default(), Mode::Autopilot)
        .await
        .unwrap();
    let tree = Tree::new(&sshd);
    let folder_link = tree.link("l", &tree.path("home/.ssh"));
    let file_link = tree.link("k", &tree.keys());
    let root_link = tree.link("r", Path::new("/"));
    let keys_via_root = format!("{root_link}{}", tree.keys().display());
    tab.set_approvals(Approvals::Deny);
    for line in [
        format!("echo attacker >> {folder_link}/authorized_keys"),
        format!("echo attacker | tee -a {file_link}"),
        format!("cp {} {keys_via_root}", tree.path("notes.txt").display()),
        format!("truncate -s 0 {folder_link}/authorized_keys"),
        format!("dd if=/dev/zero of={file_link} count=1"),
    ] {
        let outcome = tab
            .call("run_command", json!({ "command": line }))
            .await
            .unwrap();
        assert_eq!(outcome.status, ToolStatus::Denied, "{line}: {outcome:?}");
        let asked = approvals_asked(&tab);
        let last = asked.last().cloned().unwrap_or_default();
        assert!(last.contains("lock you out"), "{line}: {last}");
    }
    assert_eq!(text(&tree.keys()), "ssh-ed25519 AAAA original\n");

    // Writes that do not lead anywhere protected stay unasked in autopilot.
    let asked_before = approvals_asked(&tab).len();
    let plain = tree.path("plain.txt");
    let notes_link = tree.link("notes-link", &tree.path("notes.txt"));
    tab.ok(
        "run_command",
        json!({"command": format!("echo hi > {} && echo more >> {notes_link}", plain.display())}),
    )
    .await
    .unwrap();
    assert_eq!(text(&plain), "hi\n");
    assert_eq!(text(&tree.path("notes.txt")), "one\ntwo\nmore\n");
    assert_eq!(approvals_asked(&tab).len(), asked_before);
}
