//! `kaiport policy check`: the single form (decision plus the simple commands found) and the
//! batch form (one JSON line out per line in, in order, same decisions as the engine's policy).

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Stdio};

fn kaiport(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kaiport"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn single_check_prints_decision_and_commands() {
    let (code, stdout, stderr) = kaiport(
        &[
            "policy",
            "check",
            "--forbidden",
            "rm",
            "--allowed",
            "ls",
            "--mode",
            "autopilot",
            "--",
            "ls; sudo -u bob /bin/rm -rf x",
        ],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["decision"], "deny");
    assert!(answer["reasons"][0].as_str().unwrap().contains("forbidden"));
    let commands: Vec<Value> = answer["commands"].as_array().unwrap().clone();
    assert_eq!(commands[0]["words"], json!(["ls"]));
    assert_eq!(commands[1]["words"], json!(["rm", "-rf", "x"]));
    assert_eq!(commands[1]["wrappers"], json!([["sudo", "-u", "bob"]]));
}

#[test]
fn batch_answers_every_line_in_order() {
    let input = [
        json!({"forbidden": ["rm"], "allowed": [], "mode": "autopilot", "command": "ls && rm x"}),
        json!({"allowed": ["ls"], "mode": "ask", "command": "ls -la"}),
        json!({"mode": "autopilot", "command": "echo x >> /etc/ssh/sshd_config"}),
        json!({"mode": "plan", "command": "touch x"}),
        json!({"mode": "autopilot", "tool": "edit_file", "args": {"path": "/etc/sudoers", "edits": [{"old_text": "a", "new_text": "b"}]}}),
        json!({"mode": "autopilot", "tool": "list_dir", "args": {"path": "/etc"}}),
    ]
    .iter()
    .map(|line| line.to_string())
    .collect::<Vec<_>>()
    .join("\n");
    let (code, stdout, stderr) = kaiport(&["policy", "check", "--batch"], &input);
    assert_eq!(code, 0, "{stderr}");
    let decisions: Vec<String> = stdout
        .lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).unwrap();
            assert!(value["reasons"].is_array(), "{line}");
            value["decision"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(decisions, ["deny", "allow", "ask", "deny", "ask", "allow"]);
}

#[test]
fn batch_marks_unreadable_lines_and_keeps_order() {
    let input = "{\"command\": \"ls\", \"mode\": \"autopilot\"}\nnot json\n{\"mode\": \"ask\"}\n";
    let (code, stdout, _) = kaiport(&["policy", "check", "--batch"], input);
    assert_eq!(code, 1);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["decision"], "allow");
    assert!(lines[1]["error"].as_str().unwrap().starts_with("line 2:"));
    assert!(
        lines[2]["error"]
            .as_str()
            .unwrap()
            .contains("give \"command\"")
    );
}

#[test]
fn missing_command_is_explained() {
    let (code, _, stderr) = kaiport(&["policy", "check", "--forbidden", "rm"], "");
    assert_eq!(code, 1);
    assert!(stderr.contains("after `--`"), "{stderr}");
}

#[test]
fn explain_names_the_spec_and_the_option_that_decided() {
    let line = "tar --remove-files -czf /tmp/a.tgz /var/log/app";
    let (code, stdout, stderr) = kaiport(
        &[
            "policy",
            "explain",
            "--allowed",
            "tar",
            "--json",
            "--",
            line,
        ],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["decision"], "ask");
    assert_eq!(report["dangerous"], true);
    let tar = &report["commands"][0];
    assert_eq!(tar["spec"], "archives");
    assert_eq!(tar["program"], "tar");
    assert_eq!(tar["allowed_by"], json!(["tar"]));
    let remove = tar["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|option| option["option"] == "--remove-files")
        .unwrap();
    assert!(
        remove["is"].as_str().unwrap().starts_with("deletes"),
        "{remove}"
    );

    let (code, stdout, stderr) = kaiport(
        &[
            "policy",
            "explain",
            "--allowed",
            "tar",
            "--",
            "tar --frobnicate -cf a.tar d",
        ],
        "",
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("ask (dangerous) in ask mode"),
        "{stdout}"
    );
    assert!(
        stdout.contains("option --frobnicate of tar is not known to kaiport's rules"),
        "{stdout}"
    );
    assert!(stdout.contains("spec: tar (archives)"), "{stdout}");
}

/// The holes closed in the policy explain what decided them: the spec that found the unknown
/// files of a patch, the lock-out reason of a home folder's mode, and the history re-run or
/// prompt expansion that a forbidden rule refuses.
#[test]
fn explain_shows_why_the_new_lockout_and_shell_cases_stop() {
    let explain = |rules: &[&str], line: &str| -> Value {
        let mut args = vec!["policy", "explain", "--mode", "autopilot", "--json"];
        args.extend_from_slice(rules);
        args.extend(["--", line]);
        let (code, stdout, stderr) = kaiport(&args, "");
        assert_eq!(code, 0, "{stderr}");
        serde_json::from_str(&stdout).unwrap()
    };
    let report = explain(&[], "patch -p0 < p.patch");
    assert_eq!(report["decision"], "ask");
    let patch = &report["commands"][0];
    assert_eq!(patch["spec"], "patch");
    assert_eq!(patch["spec_complete"], true);
    assert!(
        patch["unknown"][0]
            .as_str()
            .unwrap()
            .contains("changes the files its patch text names"),
        "{patch}"
    );

    let report = explain(&[], "chmod 777 /home/alice");
    assert_eq!(report["decision"], "ask");
    assert!(
        report["commands"][0]["lockout"][0]
            .as_str()
            .unwrap()
            .contains("a home or .ssh folder"),
        "{report}"
    );

    let report = explain(&["--forbidden", "rm"], "fc -s 'echo '=");
    assert_eq!(report["decision"], "deny");
    assert_eq!(report["commands"][0]["spec"], "interactive");
    assert!(
        report["reasons"][0]
            .as_str()
            .unwrap()
            .contains("re-running the history is refused"),
        "{report}"
    );

    let report = explain(&["--forbidden", "rm"], "x='$(rm F)'; echo ${x@P}");
    assert_eq!(report["decision"], "deny");
    let commands: Vec<&str> = report["commands"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|command| command["command"].as_str())
        .collect();
    assert!(commands.contains(&"rm F"), "{commands:?}");
}
