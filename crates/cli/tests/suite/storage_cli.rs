//! `kaiport tool` against real storage servers with storage URLs: the secret from
//! `--password-env`, the local side confined to `--local-root`.

use kaiport_tests::storage_servers::{StorageKind, StorageServer};
use serde_json::{Value, json};
use std::process::{Command, Output, Stdio};

fn kaiport(
    server: &StorageServer,
    local: &std::path::Path,
    home: &std::path::Path,
    tool: &str,
    args: Value,
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kaiport"));
    command
        .args(["tool", &server.url(), tool, &args.to_string(), "--yes"])
        .arg("--local-root")
        .arg(local)
        .args(["--password-env", "KAIPORT_TEST_SECRET"])
        .env("KAIPORT_TEST_SECRET", server.secret())
        .env("KAIPORT_HOME", home)
        .env("HOME", home)
        .stdin(Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command.output().unwrap()
}

/// The one JSON object `kaiport tool` prints (panics with its output when there is none).
pub(super) fn outcome(output: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|error| {
        panic!(
            "stdout is not one JSON object ({error}):\n{stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn storage_urls_work_with_kaiport_tool() {
    for kind in [StorageKind::S3, StorageKind::Ftp] {
        let server = StorageServer::start(kind).unwrap();
        let local = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(local.path())
            .unwrap()
            .display()
            .to_string();
        std::fs::write(local.path().join("report 1.txt"), "quarterly\n").unwrap();
        let up = kaiport(
            &server,
            local.path(),
            home.path(),
            "upload",
            json!({"local_path": format!("{root}/report 1.txt"), "remote_dir": "/"}),
        );
        assert_eq!(
            outcome(&up)["status"],
            "ok",
            "{kind:?}: {}",
            String::from_utf8_lossy(&up.stderr)
        );
        let listed = outcome(&kaiport(
            &server,
            local.path(),
            home.path(),
            "list_dir",
            json!({"path": "/"}),
        ));
        let names: Vec<&str> = listed["result"]["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| entry["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, vec!["report 1.txt"], "{kind:?}");
        // Local paths outside --local-root are refused.
        let outside = kaiport(
            &server,
            local.path(),
            home.path(),
            "upload",
            json!({"local_path": "/etc/hostname", "remote_dir": "/"}),
        );
        assert_eq!(outcome(&outside)["status"], "error", "{kind:?}");
        assert!(!outside.status.success());
        // No secret in anything kaiport wrote.
        let audit = std::fs::read_to_string(home.path().join("ai-audit.jsonl")).unwrap();
        assert!(!audit.contains(server.secret()));
        assert!(audit.lines().count() >= 3);
    }
}

/// A storage profile in `connections.toml`: `kaiport tool NAME …` opens it (the secret from
/// --password-env, as from the keychain), `kaiport connections list` shows it, and the
/// profile's settings apply (read_file needs send_file_contents).
#[test]
fn storage_profiles_work_with_kaiport_tool() {
    let server = StorageServer::start(StorageKind::Webdav).unwrap();
    let local = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("connections.toml"),
        format!(
            "[[connection]]\nname = \"share\"\nkind = \"webdav\"\nhost = \"127.0.0.1\"\nport = {}\n\
             user = \"{}\"\n[connection.settings]\nsend_file_contents = true\n",
            server.port,
            kaiport_tests::storage_servers::STORAGE_USER
        ),
    )
    .unwrap();
    std::fs::write(server.data_dir().join("notes #1.txt"), "from the share\n").unwrap();
    let run = |args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kaiport"));
        command
            .args(args)
            .arg("--local-root")
            .arg(local.path())
            .args(["--password-env", "KAIPORT_TEST_SECRET"])
            .env("KAIPORT_TEST_SECRET", server.secret())
            .env("KAIPORT_HOME", home.path())
            .env("HOME", home.path())
            .stdin(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        command.output().unwrap()
    };
    let read = run(&[
        "tool",
        "share",
        "read_file",
        &json!({"path": "/notes #1.txt"}).to_string(),
    ]);
    let read = outcome(&read);
    assert_eq!(read["status"], "ok", "{read}");
    assert_eq!(read["result"]["content"], "from the share\n");
    let root = std::fs::canonicalize(local.path()).unwrap();
    let down = outcome(&run(&[
        "tool",
        "share",
        "download",
        &json!({"remote_path": "/notes #1.txt", "local_dir": root}).to_string(),
        "--yes",
    ]));
    assert_eq!(down["status"], "ok", "{down}");
    assert_eq!(
        std::fs::read_to_string(local.path().join("notes #1.txt")).unwrap(),
        "from the share\n"
    );

    let mut list = Command::new(env!("CARGO_BIN_EXE_kaiport"));
    let list = list
        .args(["connections", "list"])
        .env("KAIPORT_HOME", home.path())
        .env("HOME", home.path())
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(
        listed.contains("share")
            && listed.contains(&format!("webdav://kaiport@127.0.0.1:{}/", server.port)),
        "{listed}"
    );

    // A bad entry: the error names the file, the profile and the field.
    std::fs::write(
        home.path().join("connections.toml"),
        "[[connection]]\nname = \"share\"\nkind = \"webdav\"\nhost = \"127.0.0.1\"\nprot = 1\n",
    )
    .unwrap();
    let bad = run(&["tool", "share", "list_dir", r#"{"path":"/"}"#]);
    assert!(!bad.status.success());
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        stderr.contains("connections.toml:5: connection \"share\": unknown field `prot`"),
        "{stderr}"
    );
    let audit = std::fs::read_to_string(home.path().join("ai-audit.jsonl")).unwrap();
    assert!(!audit.contains(server.secret()));
}

/// `kaiport tool sftp://user@host:port/folder`: the password from --password-env, the URL's
/// folder shown as `/`, names with spaces and `#` both ways.
#[test]
fn sftp_urls_work_with_kaiport_tool() {
    let server = StorageServer::start(StorageKind::Sftp).unwrap();
    let local = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let known_hosts = server.known_hosts().unwrap();
    let root = std::fs::canonicalize(local.path()).unwrap();
    std::fs::write(local.path().join("up #1.txt"), "to the server\n").unwrap();
    let run = |tool: &str, args: Value| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kaiport"));
        command
            .args(["tool", &server.url(), tool, &args.to_string(), "--yes"])
            .arg("--local-root")
            .arg(local.path())
            .arg("--known-hosts")
            .arg(&known_hosts)
            .args(["--password-env", "KAIPORT_TEST_SECRET"])
            .env("KAIPORT_TEST_SECRET", server.secret())
            .env("KAIPORT_HOME", home.path())
            .env("HOME", home.path())
            .env_remove("SSH_AUTH_SOCK")
            .stdin(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        outcome(&command.output().unwrap())
    };
    let up = run(
        "upload",
        json!({"local_path": root.join("up #1.txt"), "remote_dir": "/"}),
    );
    assert_eq!(up["status"], "ok", "{up}");
    assert_eq!(
        std::fs::read_to_string(server.data_dir().join("up #1.txt")).unwrap(),
        "to the server\n"
    );
    let listed = run("list_dir", json!({"path": "/"}));
    assert_eq!(
        listed["result"]["entries"][0]["name"], "up #1.txt",
        "{listed}"
    );
    std::fs::remove_file(local.path().join("up #1.txt")).unwrap();
    let down = run(
        "download",
        json!({"remote_path": "/up #1.txt", "local_dir": root}),
    );
    assert_eq!(down["status"], "ok", "{down}");
    assert_eq!(
        std::fs::read_to_string(local.path().join("up #1.txt")).unwrap(),
        "to the server\n"
    );
    let audit = std::fs::read_to_string(home.path().join("ai-audit.jsonl")).unwrap();
    assert!(!audit.contains(server.secret()));
}
