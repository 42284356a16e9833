//! The command line's own edges: a bad `--setting` is a usage error (exit status 2), and a
//! closed stderr or stdout is never a crash (issue "Keep the promise", items 10 and 13).

use std::process::{Command, Output, Stdio};

fn kaiport(home: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kaiport"));
    command
        .env("KAIPORT_HOME", home)
        .env("HOME", home)
        .stdin(Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command
}

#[test]
fn bad_settings_are_usage_errors() {
    let home = tempfile::tempdir().unwrap();
    for setting in ["no-such-setting=1", "command_timeout_s=soon", "nonsense"] {
        let output = kaiport(home.path())
            .args(["tool", "local", "run_command", r#"{"command":"true"}"#])
            .args(["--setting", setting])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{setting}: {stderr}");
        assert!(stderr.contains("--setting"), "{setting}: {stderr}");
    }
    // A good one still works.
    let output = kaiport(home.path())
        .args([
            "tool",
            "local",
            "run_command",
            r#"{"command":"echo ok"}"#,
            "--yes",
        ])
        .args(["--setting", "command_timeout_s=30"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

/// Runs `command` with stderr (or stdout) a pipe whose reader is already gone.
fn with_closed(mut command: Command, close_stdout: bool) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    if close_stdout {
        command.stdout(writer).stderr(Stdio::piped());
    } else {
        command.stderr(writer).stdout(Stdio::piped());
    }
    command.output().unwrap()
}

#[test]
fn a_closed_stderr_or_stdout_is_not_a_crash() {
    let home = tempfile::tempdir().unwrap();
    // The approval prompt prints to stderr (and is denied: no terminal to ask).
    let mut command = kaiport(home.path());
    command.args(["tool", "local", "run_command", r#"{"command":"echo hi"}"#]);
    let output = with_closed(command, false);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("denied"), "{stdout}");
    // A closed stdout under a result and under a listing.
    let mut command = kaiport(home.path());
    command.args([
        "tool",
        "local",
        "run_command",
        r#"{"command":"echo hi"}"#,
        "--yes",
    ]);
    let output = with_closed(command, true);
    assert_ne!(output.status.code(), Some(101), "{output:?}");
    let mut command = kaiport(home.path());
    command.args(["tools"]);
    let output = with_closed(command, true);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
}

/// Characters a terminal acts on (C1 controls: U+009B is CSI to xterm.js) or that reorder what it
/// shows (bidirectional overrides and isolates) reach neither the audit log nor `kaiport audit`'s
/// output raw; the log stays valid JSON with the same values.
#[test]
fn the_audit_log_never_holds_or_prints_terminal_controls_raw() {
    let home = tempfile::tempdir().unwrap();
    let hostile = "echo a\u{9b}31mb\u{202e}gpj.exe\u{2066}c\u{200e}d\u{61c}e";
    let call = serde_json::json!({ "command": hostile }).to_string();
    let output = kaiport(home.path())
        .args(["tool", "local", "run_command", &call])
        .output()
        .unwrap();
    assert_ne!(output.status.code(), Some(101), "{output:?}");
    let log = home.path().join("ai-audit.jsonl");
    let written = std::fs::read_to_string(&log).unwrap();
    let raw = ['\u{9b}', '\u{202e}', '\u{2066}', '\u{200e}', '\u{61c}'];
    assert!(!written.contains(raw), "{written:?}");
    let line: serde_json::Value = serde_json::from_str(written.lines().next().unwrap()).unwrap();
    assert_eq!(line["args"]["command"], hostile);
    // A line an older kaiport wrote with the characters raw, and a broken one with ESC.
    let old = format!(
        "{}\n{{\"time\":\"x\u{1b}[2J\u{9b}\n",
        serde_json::json!({"time": "t", "connection": format!("evil\u{9b}2J\u{202e}"), "tool": "run_command", "args": {"command": hostile}})
    );
    std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .and_then(|mut file| std::io::Write::write_all(&mut file, old.as_bytes()))
        .unwrap();
    for json in [false, true] {
        let mut command = kaiport(home.path());
        command.args(["audit"]);
        if json {
            command.arg("--json");
        }
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        let shown = String::from_utf8(output.stdout).unwrap();
        assert!(!shown.contains(raw), "{shown:?}");
        assert!(!shown.contains('\u{1b}'), "{shown:?}");
        assert_eq!(shown.lines().count(), 3, "{shown}");
        if json {
            assert!(shown.contains(r"a\u009b31mb\u202egpj.exe"), "{shown}");
            for line in shown.lines().take(2) {
                let value: serde_json::Value = serde_json::from_str(line).unwrap();
                assert_eq!(value["args"]["command"], hostile);
            }
        } else {
            assert!(shown.contains(r"a\u{9b}31mb\u{202e}gpj.exe"), "{shown}");
            assert!(shown.contains(r"evil\u{9b}2J\u{202e}"), "{shown}");
            assert!(shown.contains(r"(unreadable line) {"), "{shown}");
        }
    }
}
