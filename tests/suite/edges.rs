//! Hostile input from the model or a server that must end in a clear error or a safe name, never
//! a dead session or a terminal-controlling file name (issue "Keep the promise", items 11, 12).

use kaiport_protocol::*;
use kaiport_tests::engine_harness::EngineHarness;
use kaiport_tests::sshd::Sshd;
use kaiport_tests::storage_servers::{StorageKind, StorageServer};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn a_nul_byte_in_a_path_is_refused_and_the_session_lives_on() {
    let sshd = Sshd::start().unwrap();
    let settings = ConnectionSettings {
        send_file_contents: true,
        ..ConnectionSettings::default()
    };
    let tab = EngineHarness::open_sshd(&sshd, settings, Mode::Autopilot)
        .await
        .unwrap();
    for (tool, args) in [
        ("read_file", json!({"path": "/etc/host\u{0}name"})),
        ("list_dir", json!({"path": "/tmp/\u{0}"})),
        (
            "write_file",
            json!({"path": "/tmp/a\u{0}b", "content": "x"}),
        ),
        ("run_command", json!({"command": "echo a\u{0}b"})),
    ] {
        let outcome = tab.call(tool, args).await.unwrap();
        assert_eq!(outcome.status, ToolStatus::Error, "{tool}: {outcome:?}");
        let error = outcome.error.unwrap_or_default();
        assert!(error.contains("NUL byte"), "{tool}: {error}");
    }
    // The SFTP session and the terminal still work.
    let listing = tab.ok("list_dir", json!({"path": "/"})).await.unwrap();
    assert!(listing["entries"].as_array().is_some_and(|e| !e.is_empty()));
    let result = tab
        .ok("run_command", json!({"command": "echo still-here"}))
        .await
        .unwrap();
    assert_eq!(result["output"].as_str().unwrap().trim(), "still-here");
}

/// A server names a file with ESC, BEL and newline: the download gets their visible pictures.
async fn control_names_download_safely(kind: StorageKind) {
    let server = StorageServer::start(kind).unwrap();
    // An FTP listing is one name per line: a newline cannot be in an FTP name at all.
    let (hostile, safe) = match kind {
        StorageKind::Ftp => (
            "bell\u{7}esc\u{1b}]0;owned\u{7}end.txt",
            "bell␇esc␛]0;owned␇end.txt",
        ),
        _ => (
            "bell\u{7}esc\u{1b}]0;owned\u{7}line\nend.txt",
            "bell␇esc␛]0;owned␇line␊end.txt",
        ),
    };
    let hostile = hostile.to_owned();
    server
        .seed_files("/drop", &[(hostile.clone(), b"payload\n".to_vec())])
        .unwrap();
    let local = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(local.path()).unwrap();
    let settings = ConnectionSettings {
        send_file_contents: true,
        ..ConnectionSettings::default()
    };
    let tab = EngineHarness::open_storage(
        &server,
        local.path(),
        settings,
        Mode::Autopilot,
        Some(server.secret()),
    )
    .await
    .unwrap();
    let listing = tab.ok("list_dir", json!({"path": "/drop"})).await.unwrap();
    let listed: Vec<&str> = listing["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry["name"].as_str())
        .collect();
    assert_eq!(listed, vec![hostile.as_str()], "{kind:?}");
    tab.ok(
        "download",
        json!({"remote_path": format!("/drop/{hostile}"), "local_dir": root.display().to_string()}),
    )
    .await
    .unwrap();
    let written: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(written, vec![safe.to_owned()], "{kind:?}");
    assert_eq!(
        std::fs::read(root.join(&written[0])).unwrap(),
        b"payload\n",
        "{kind:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn control_names_download_safely_from_ftp() {
    control_names_download_safely(StorageKind::Ftp).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn control_names_download_safely_from_sftp() {
    control_names_download_safely(StorageKind::Sftp).await;
}

/// An object store keeps no empty folders (rclone's S3 gateway folds markers): a folder made in
/// one tab is gone in the next, and an upload into it must still work (item 17).
#[tokio::test(flavor = "multi_thread")]
async fn an_upload_into_a_prefix_needs_no_folder_marker() {
    let server = StorageServer::start(StorageKind::S3).unwrap();
    let local = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(local.path()).unwrap();
    std::fs::write(root.join("report.txt"), "quarterly\n").unwrap();
    let settings = ConnectionSettings {
        send_file_contents: true,
        ..ConnectionSettings::default()
    };
    let open = || {
        EngineHarness::open_storage(
            &server,
            local.path(),
            settings.clone(),
            Mode::Autopilot,
            Some(server.secret()),
        )
    };
    let first = open().await.unwrap();
    first
        .ok("make_dir", json!({"path": "/fresh/deeper"}))
        .await
        .unwrap();
    drop(first);
    let second = open().await.unwrap();
    second
        .ok(
            "upload",
            json!({"local_path": root.join("report.txt").display().to_string(), "remote_dir": "/fresh/deeper"}),
        )
        .await
        .unwrap();
    let listing = second
        .ok("list_dir", json!({"path": "/fresh/deeper"}))
        .await
        .unwrap();
    let names: Vec<&str> = listing["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry["name"].as_str())
        .collect();
    assert_eq!(names, vec!["report.txt"]);
    // A folder that was never made is just as good on an object store.
    second
        .ok(
            "upload",
            json!({"local_path": root.join("report.txt").display().to_string(), "remote_dir": "/never/made"}),
        )
        .await
        .unwrap();
    assert!(
        server
            .stored_files("/never/made")
            .unwrap()
            .contains(&"report.txt".to_owned())
    );
}

/// An SSH terminal tab in autopilot on a fresh sshd (kept alive by the caller).
async fn autopilot_on_sshd() -> (Sshd, EngineHarness) {
    let sshd = Sshd::start().unwrap();
    let tab = EngineHarness::open_sshd(&sshd, ConnectionSettings::default(), Mode::Autopilot)
        .await
        .unwrap();
    (sshd, tab)
}

/// The "left out" line of a huge output counts what the terminal did not keep as well as what
/// the tool cut (item 9): kept lines plus left-out lines are every line the command printed.
#[tokio::test(flavor = "multi_thread")]
async fn left_out_counts_add_up_for_a_huge_output() {
    let (_sshd, tab) = autopilot_on_sshd().await;
    let lines: u64 = 1_000_000;
    let result = tab
        .ok(
            "run_command",
            json!({"command": format!("seq 1 {lines}"), "timeout_s": 300}),
        )
        .await
        .unwrap();
    let output = result["output"].as_str().unwrap();
    let kept = output
        .lines()
        .filter(|line| line.parse::<u64>().is_ok())
        .count() as u64;
    let left_out = result["truncated"]["omitted_lines"].as_u64().unwrap();
    assert_eq!(
        kept + left_out,
        lines,
        "{}",
        &output[..200.min(output.len())]
    );
    assert!(output.contains(&format!("[… {left_out} lines")));
    assert!(output.starts_with("1\n2\n"));
    assert!(output.ends_with(&format!("\n{lines}")));
}

/// Text Pilot left at the shell prompt (send_input without Enter) is reported to it as its own
/// staged text, not as "the user has typed"; once the user types into the line, it is theirs.
#[tokio::test(flavor = "multi_thread")]
async fn text_pilot_left_at_the_prompt_is_reported_as_its_own() {
    let (_sshd, tab) = autopilot_on_sshd().await;
    tab.ok("send_input", json!({"text": "echo staged-by-pilot"}))
        .await
        .unwrap();
    let outcome = tab
        .call("run_command", json!({"command": "echo next"}))
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Error, "{outcome:?}");
    let error = outcome.error.unwrap_or_default();
    assert!(
        error.contains("\"echo staged-by-pilot\", which you typed with send_input"),
        "{error}"
    );
    assert!(!error.contains("the user has typed"), "{error}");
    // Pilot runs what it staged; the next command then runs as usual.
    let ran = tab.ok("send_input", json!({"key": "enter"})).await.unwrap();
    assert!(ran["screen"].as_str().unwrap().contains("staged-by-pilot"));
    let next = tab
        .ok("run_command", json!({"command": "echo next"}))
        .await
        .unwrap();
    assert_eq!(next["output"].as_str().unwrap().trim(), "next");
    // Staged again, and the user types into the line: now it is the user's, never typed over.
    tab.ok("send_input", json!({"text": "echo again"}))
        .await
        .unwrap();
    tab.engine
        .handle(Op::TerminalInput {
            tab: tab.tab.clone(),
            data: b" mine".to_vec(),
        })
        .await;
    tab.output_shows("echo again mine", std::time::Duration::from_secs(30))
        .await
        .unwrap();
    let outcome = tab
        .call("run_command", json!({"command": "echo next"}))
        .await
        .unwrap();
    let error = outcome.error.unwrap_or_default();
    assert!(
        // The line is the server's text: framed for the model, plain in the outcome.
        error.contains("the user has typed echo again mine at the prompt"),
        "{error}"
    );
}

/// A server lists names that would be other places once joined to their folder (`.` and `..` as
/// files, `../escape.txt`, a name holding `/` or NUL): the listing and the walk a folder copy is
/// built from refuse them and name them, and a plan that still holds such a path drops it and
/// says so; nothing lands outside the folder copied into.
#[tokio::test(flavor = "multi_thread")]
async fn names_that_escape_their_folder_are_refused_and_reported() {
    let hostile = [
        ".",
        "..",
        "../escape.txt",
        "sub/../../up.txt",
        "nul\u{0}name",
    ];
    let names = serde_json::to_string(&hostile).unwrap();
    let server =
        StorageServer::start_with_env(StorageKind::Ftp, &[("FTPD_HOSTILE_NAMES", &names)]).unwrap();
    server
        .seed_files(
            "/drop/hostile",
            &[("good.txt".to_owned(), b"good\n".to_vec())],
        )
        .unwrap();
    // What `../escape.txt` names, there for a download that followed it.
    server
        .seed_files("/drop", &[("escape.txt".to_owned(), b"outside\n".to_vec())])
        .unwrap();
    let local = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(local.path()).unwrap();
    let into = root.join("into");
    std::fs::create_dir_all(&into).unwrap();
    let tab = EngineHarness::open_storage(
        &server,
        &root,
        ConnectionSettings::default(),
        Mode::Autopilot,
        Some(server.secret()),
    )
    .await
    .unwrap();
    let refused_names = |result: &serde_json::Value| {
        let mut names: Vec<String> = result["refused"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| {
                assert_eq!(entry["folder"], "/drop/hostile", "{entry}");
                assert!(entry["reason"].as_str().is_some_and(|r| !r.is_empty()));
                entry["name"].as_str().unwrap().to_owned()
            })
            .collect();
        names.sort();
        names
    };
    let mut expected: Vec<String> = hostile.iter().map(|name| (*name).to_owned()).collect();
    expected.sort();

    // The listing, and what a folder copy is built from: the good file, the refused names beside.
    for (tool, list, key, good) in [
        ("list_dir", "entries", "name", "good.txt"),
        ("find_files", "matches", "path", "/drop/hostile/good.txt"),
    ] {
        let result = tab
            .ok(tool, json!({"path": "/drop/hostile"}))
            .await
            .unwrap();
        let kept: Vec<&str> = result[list]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|entry| entry[key].as_str())
            .collect();
        assert_eq!(kept, vec![good], "{tool}");
        assert_eq!(refused_names(&result), expected, "{tool}");
    }

    // A plan that joined the name anyway: that step is dropped, with why, the rest runs.
    let target = into.join("hostile");
    let plan = tab
        .ok(
            "execute_plan",
            json!({"ops": [
                {"op": "make_dir", "path": target.display().to_string(), "side": "local"},
                {"op": "download", "remote_path": "/drop/hostile/good.txt", "local_dir": target.display().to_string()},
                {"op": "download", "remote_path": "/drop/hostile/../escape.txt", "local_dir": format!("{}/..", target.display())},
            ]}),
        )
        .await
        .unwrap();
    let dropped = plan["dropped"].as_array().unwrap();
    assert_eq!(dropped.len(), 1, "{plan}");
    assert_eq!(dropped[0]["index"], 2, "{plan}");
    assert!(
        dropped[0]["reason"].as_str().unwrap().contains(".."),
        "{plan}"
    );
    assert_eq!(
        std::fs::read_to_string(target.join("good.txt")).unwrap(),
        "good\n"
    );
    for outside in [into.join("escape.txt"), root.join("escape.txt")] {
        assert!(!outside.exists(), "{}", outside.display());
    }
}
