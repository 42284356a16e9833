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
