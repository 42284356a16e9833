//! `kaiport tools` and `kaiport tool` against a real sshd and the local shell: results, exit
//! codes, approvals without a terminal, denies, bad arguments, host keys, and the audit line
//! every outcome leaves.

use kaiport_tests::sshd::{Sshd, SshdConfig, TEST_PASSWORD};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// One kaiport invocation with its own KAIPORT_HOME (so its audit log is its own).
struct Kaiport {
    home: tempfile::TempDir,
}

impl Kaiport {
    fn new() -> Kaiport {
        Kaiport {
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn audit_path(&self) -> PathBuf {
        self.home.path().join("ai-audit.jsonl")
    }

    fn audit(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(self.audit_path()).unwrap_or_default();
        text.lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_with_env(args, &[])
    }

    fn run_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_kaiport"));
        command
            .args(args)
            .env("KAIPORT_HOME", self.home.path())
            .env("HOME", self.home.path())
            .env_remove("SSH_AUTH_SOCK")
            .stdin(Stdio::null());
        for (name, value) in env {
            command.env(name, value);
        }
        // setsid: no controlling terminal, so nothing can be asked interactively.
        command.process_group(0);
        command.output().unwrap()
    }
}

trait ProcessGroup {
    fn process_group(&mut self, group: i32) -> &mut Self;
}

impl ProcessGroup for Command {
    fn process_group(&mut self, group: i32) -> &mut Self {
        std::os::unix::process::CommandExt::process_group(self, group)
    }
}

fn outcome(output: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|error| {
        panic!(
            "stdout is not one JSON object ({error}):\n{stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn ssh_args<'a>(sshd: &'a Sshd, url: &'a str, known_hosts: &'a str, key: &'a str) -> Vec<&'a str> {
    let _ = sshd;
    vec![url, "--identity", key, "--known-hosts", known_hosts]
}

struct Server {
    sshd: Sshd,
    url: String,
    known_hosts: String,
    key: String,
}

fn server() -> Server {
    server_with(SshdConfig::default())
}

fn server_with(config: SshdConfig) -> Server {
    let sshd = Sshd::start_with(config).unwrap();
    let known_hosts = sshd.dir().join("cli_known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    Server {
        url: format!("ssh://{}@127.0.0.1:{}", sshd.user(), sshd.port()),
        known_hosts: known_hosts.display().to_string(),
        key: sshd.keys.ed25519.display().to_string(),
        sshd,
    }
}

impl Server {
    fn tool(&self, kaiport: &Kaiport, tool: &str, args: Value, extra: &[&str]) -> Output {
        let args = args.to_string();
        let mut argv = vec!["tool"];
        argv.extend(ssh_args(
            &self.sshd,
            &self.url,
            &self.known_hosts,
            &self.key,
        ));
        argv.push(tool);
        argv.push(&args);
        argv.extend(extra);
        kaiport.run(&argv)
    }
}

#[test]
fn tools_json_lists_the_build_with_schemas() {
    let output = Kaiport::new().run(&["tools", "--json"]);
    assert!(output.status.success());
    let tools: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    let run_command = tools
        .iter()
        .find(|tool| tool["name"] == "run_command")
        .unwrap();
    assert_eq!(run_command["input_schema"]["required"], json!(["command"]));
    assert_eq!(
        run_command["input_schema"]["properties"]["timeout_s"]["type"],
        json!(["integer", "null"])
    );
    let names: Vec<&str> = tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    for name in [
        "send_input",
        "read_screen",
        "edit_file",
        "show_view",
        "propose_plan",
        "update_plan",
        "ask_user",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
}

#[test]
fn run_command_over_ssh_prints_the_result_and_leaves_an_audit_line() {
    let server = server();
    let kaiport = Kaiport::new();
    let output = server.tool(
        &kaiport,
        "run_command",
        json!({"command": "echo hello from $(whoami)"}),
        &["--yes"],
    );
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = outcome(&output);
    assert_eq!(result["status"], "ok");
    assert_eq!(result["result"]["status"], "completed");
    assert_eq!(
        result["result"]["output"].as_str().unwrap().trim(),
        "hello from kaiport-test"
    );
    assert_eq!(result["result"]["exit_code"], 0);
    assert_eq!(result["result"]["detection"], "shell_integration");

    let audit = kaiport.audit();
    assert_eq!(audit.len(), 1);
    let shown = kaiport.run(&["audit"]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.contains("run_command") && shown.contains("automatic") && shown.contains(&server.url),
        "{shown}"
    );
    let line = &audit[0];
    assert_eq!(line["tool"], "run_command");
    assert_eq!(line["connection"], json!(server.url));
    assert_eq!(line["args"]["command"], "echo hello from $(whoami)");
    assert_eq!(line["decision"], "ask");
    assert_eq!(line["decided_by"], "automatic");
    assert_eq!(line["status"], "ok");
    assert!(line["duration_ms"].as_u64().is_some());
    assert!(line["time"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn exit_codes_and_long_output_are_reported_and_capped() {
    let server = server();
    let kaiport = Kaiport::new();
    let output = server.tool(
        &kaiport,
        "run_command",
        json!({"command": "(exit 3)"}),
        &["--mode", "autopilot"],
    );
    assert!(output.status.success());
    assert_eq!(outcome(&output)["result"]["exit_code"], 3);

    let output = server.tool(
        &kaiport,
        "run_command",
        json!({"command": "seq 1 100000"}),
        &["--mode", "autopilot"],
    );
    let result = outcome(&output)["result"].clone();
    let text = result["output"].as_str().unwrap();
    assert!(text.starts_with("1\n2\n3\n"), "{}", &text[..50]);
    assert!(text.trim_end().ends_with("99999\n100000"));
    assert!(text.len() <= 16 * 1024);
    assert!(text.lines().count() <= 400);
    let omitted = result["truncated"]["omitted_lines"].as_u64().unwrap();
    assert_eq!(omitted + text.lines().count() as u64 - 1, 100_000);
}

#[test]
fn a_command_that_outlives_its_timeout_is_reported_as_still_running() {
    let server = server();
    let kaiport = Kaiport::new();
    let output = server.tool(
        &kaiport,
        "run_command",
        json!({"command": "sleep 30", "timeout_s": 1}),
        &["--mode", "autopilot"],
    );
    let result = outcome(&output);
    assert_eq!(result["status"], "ok");
    assert_eq!(result["result"]["status"], "timed_out");
}

#[test]
fn without_a_terminal_an_ask_is_denied_and_yes_never_overrides_a_forbidden_command() {
    let server = server();
    let kaiport = Kaiport::new();
    let marker = server.sshd.dir().join("must-survive");
    std::fs::write(&marker, "x").unwrap();
    let command = format!("rm -f {}", marker.display());

    // Ask mode, nobody to ask: denied, not run.
    let output = server.tool(&kaiport, "run_command", json!({ "command": command }), &[]);
    assert_eq!(output.status.code(), Some(1));
    let result = outcome(&output);
    assert_eq!(result["status"], "denied");
    assert!(marker.exists());

    // Forbidden: denied even with --yes and in autopilot, with the rule named.
    let output = server.tool(
        &kaiport,
        "run_command",
        json!({ "command": format!("true && sudo {command}") }),
        &[
            "--yes",
            "--mode",
            "autopilot",
            "--setting",
            "forbidden_commands=rm,shutdown",
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    let result = outcome(&output);
    assert_eq!(result["status"], "denied");
    assert!(
        result["error"].as_str().unwrap().contains("forbidden"),
        "{result}"
    );
    assert!(marker.exists());

    let audit = kaiport.audit();
    assert_eq!(audit.len(), 2);
    assert_eq!(
        (
            audit[0]["decision"].as_str(),
            audit[0]["decided_by"].as_str()
        ),
        (Some("ask"), Some("automatic"))
    );
    assert_eq!(
        (
            audit[1]["decision"].as_str(),
            audit[1]["decided_by"].as_str()
        ),
        (Some("deny"), Some("rule"))
    );
    assert_eq!(audit[1]["status"], "denied");
}

#[test]
fn bad_arguments_and_unknown_tools_are_errors_for_the_model() {
    let server = server();
    let kaiport = Kaiport::new();
    let output = server.tool(&kaiport, "run_command", json!({"comand": "ls"}), &["--yes"]);
    assert_eq!(output.status.code(), Some(1));
    let result = outcome(&output);
    assert_eq!(result["status"], "error");
    assert!(
        result["error"]
            .as_str()
            .unwrap()
            .contains("unknown field `comand`"),
        "{result}"
    );

    let output = server.tool(&kaiport, "format_disk", json!({}), &["--yes"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        outcome(&output)["error"]
            .as_str()
            .unwrap()
            .starts_with("unknown tool \"format_disk\"")
    );

    let audit = kaiport.audit();
    assert_eq!(
        audit
            .iter()
            .map(|line| line["status"].as_str().unwrap())
            .collect::<Vec<_>>(),
        vec!["error", "error"]
    );

    // Not JSON at all: a usage error, nothing run, nothing audited.
    let output = kaiport.run(&["tool", "local", "run_command", "{command: ls}"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(kaiport.audit().len(), 2);
}

#[test]
fn unknown_host_keys_are_refused_without_consent_and_remembered_with_it() {
    let server = server();
    let kaiport = Kaiport::new();
    let empty_known_hosts = kaiport.home.path().join("known_hosts");
    let known_hosts = empty_known_hosts.display().to_string();
    let port = server.sshd.port().to_string();
    let args = [
        "tool",
        &server.url,
        "--identity",
        &server.key,
        "--known-hosts",
        &known_hosts,
        "read_screen",
        "{}",
    ];
    let output = kaiport.run(&args);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("SHA256:"), "{stderr}");

    let mut accepting = args.to_vec();
    accepting.push("--accept-new-host-key");
    let output = kaiport.run(&accepting);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let remembered = std::fs::read_to_string(&empty_known_hosts).unwrap();
    assert!(
        remembered.contains(&format!("[127.0.0.1]:{port}")),
        "{remembered}"
    );
    // Now known: no flag needed.
    assert!(kaiport.run(&args).status.success());
}

#[test]
fn password_from_an_environment_variable() {
    let server = server_with(SshdConfig {
        password: true,
        no_publickey: true,
        ..SshdConfig::default()
    });
    let kaiport = Kaiport::new();
    let args = [
        "tool",
        &server.url,
        "--known-hosts",
        &server.known_hosts,
        "--password-env",
        "KAIPORT_TEST_PW",
        "run_command",
        r#"{"command":"echo pw-ok"}"#,
        "--yes",
    ];
    let output = kaiport.run_with_env(&args, &[("KAIPORT_TEST_PW", TEST_PASSWORD)]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        outcome(&output)["result"]["output"]
            .as_str()
            .unwrap()
            .trim(),
        "pw-ok"
    );
    // The password is in no file kaiport wrote and in none of its output.
    let audit = std::fs::read_to_string(kaiport.audit_path()).unwrap();
    assert!(!audit.contains(TEST_PASSWORD));
    assert!(!String::from_utf8_lossy(&output.stdout).contains(TEST_PASSWORD));
    assert!(!String::from_utf8_lossy(&output.stderr).contains(TEST_PASSWORD));

    let output = kaiport.run_with_env(&args, &[("KAIPORT_TEST_PW", "wrong")]);
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn the_local_terminal_tab_runs_commands_too() {
    let kaiport = Kaiport::new();
    let output = kaiport.run(&[
        "tool",
        "local",
        "run_command",
        r#"{"command":"echo local-ok; (exit 4)"}"#,
        "--yes",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = outcome(&output);
    assert_eq!(
        result["result"]["output"].as_str().unwrap().trim(),
        "local-ok"
    );
    assert_eq!(result["result"]["exit_code"], 4);
    assert_eq!(kaiport.audit()[0]["connection"], "local");
}

#[test]
fn a_saved_profile_brings_its_host_and_its_rules() {
    let server = server();
    let kaiport = Kaiport::new();
    let profiles = format!(
        "[[connection]]\nname = \"web1\"\nkind = \"ssh\"\nhost = \"127.0.0.1\"\nport = {}\nuser = \"{}\"\nidentity_files = [\"{}\"]\n\n[connection.settings]\nforbidden_commands = [\"rm\"]\n",
        server.sshd.port(),
        server.sshd.user(),
        server.key,
    );
    std::fs::write(kaiport.home.path().join("connections.toml"), profiles).unwrap();
    let known_hosts = ["--known-hosts", server.known_hosts.as_str()];

    let mut args = vec![
        "tool",
        "web1",
        "run_command",
        r#"{"command":"echo via-profile"}"#,
        "--yes",
    ];
    args.extend(known_hosts);
    let output = kaiport.run(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        outcome(&output)["result"]["output"]
            .as_str()
            .unwrap()
            .trim(),
        "via-profile"
    );

    let mut args = vec![
        "tool",
        "web1",
        "run_command",
        r#"{"command":"rm -rf /tmp/nothing"}"#,
        "--yes",
    ];
    args.extend(known_hosts);
    let output = kaiport.run(&args);
    assert_eq!(outcome(&output)["status"], "denied");
    assert_eq!(kaiport.audit()[1]["connection"], "web1");

    let output = kaiport.run(&["connections", "list"]);
    let listed = String::from_utf8_lossy(&output.stdout);
    assert!(
        listed.contains("web1") && listed.contains(&format!(":{}", server.sshd.port())),
        "{listed}"
    );

    // A profile that does not exist is a clear error.
    let output = kaiport.run(&["tool", "nosuch", "read_screen", "{}"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("nosuch"));
}

#[test]
fn ssh_config_hosts_are_imported_as_connections() {
    let kaiport = Kaiport::new();
    let config = kaiport.home.path().join("ssh_config");
    std::fs::write(
        &config,
        "Host db\n  HostName 10.0.0.5\n  User postgres\n  Port 2200\n  ProxyJump bastion\n\nHost bastion\n  HostName bastion.example\n  User ops\n\nHost *\n  ServerAliveInterval 30\n",
    )
    .unwrap();
    let output = kaiport.run(&[
        "connections",
        "import-ssh-config",
        "--file",
        config.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = kaiport.run(&["connections", "list"]);
    let listed = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        listed.contains("ssh://postgres@10.0.0.5:2200 via bastion"),
        "{listed}"
    );
    assert!(listed.contains("ssh://ops@bastion.example:22"), "{listed}");
    assert!(!listed.contains('*'), "{listed}");
    let saved = std::fs::read_to_string(kaiport.home.path().join("connections.toml")).unwrap();
    assert!(!saved.to_lowercase().contains("password"));
}

#[test]
fn kaiport_shell_drives_the_local_terminal_through_the_engine() {
    let kaiport = Kaiport::new();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kaiport"))
        .args(["shell", "local"])
        .env("KAIPORT_HOME", kaiport.home.path())
        .env("HOME", kaiport.home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let stdin = child.stdin.as_mut().unwrap();
        stdin.write_all(b"echo shell-$((40+2))\nexit\n").unwrap();
    }
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(printed.contains("shell-42"), "{printed}");
}

/// read_file, edit_file and write_file through `kaiport tool` over SFTP, with the content
/// permission given as a setting and approvals answered by --yes.
#[test]
fn file_tools_through_kaiport_tool() {
    let server = server();
    let kaiport = Kaiport::new();
    let dir = tempfile::Builder::new()
        .prefix("kaiport-cli-files-")
        .tempdir_in("/tmp")
        .unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    let path = dir.path().join("notes.txt").display().to_string();
    let allow = ["--yes", "--setting", "send_file_contents=true"];

    let output = server.tool(
        &kaiport,
        "write_file",
        json!({"path": path, "content": "a = 1\n"}),
        &allow,
    );
    assert_eq!(outcome(&output)["result"]["created"], true, "{output:?}");
    let output = server.tool(
        &kaiport,
        "edit_file",
        json!({"path": path, "edits": [{"old_text": "a = 1", "new_text": "a = 2"}]}),
        &allow,
    );
    assert_eq!(outcome(&output)["result"]["edits_applied"], 1, "{output:?}");
    let output = server.tool(&kaiport, "read_file", json!({"path": path}), &allow);
    assert_eq!(outcome(&output)["result"]["content"], "a = 2\n");
    // Each `kaiport tool` is a new tab: replacing an existing file needs a read in that tab.
    let output = server.tool(
        &kaiport,
        "write_file",
        json!({"path": path, "content": "x\n"}),
        &allow,
    );
    assert!(!output.status.success());
    assert!(
        outcome(&output)["error"]
            .as_str()
            .unwrap()
            .contains("read it with read_file first")
    );
    // Without the permission no content is read.
    let output = server.tool(&kaiport, "read_file", json!({"path": path}), &["--yes"]);
    assert_eq!(outcome(&output)["status"], "denied");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "a = 2\n");
    let audit = serde_json::to_string(&kaiport.audit()).unwrap();
    assert!(
        audit.contains("notes.txt") && !audit.contains("a = 2"),
        "{audit}"
    );
}

#[test]
fn view_prints_tables_or_the_typed_json_through_the_tool_pipeline() {
    let server = server();
    let kaiport = Kaiport::new();
    let view = |args: &[&str]| {
        let mut argv = vec!["view"];
        argv.extend(ssh_args(
            &server.sshd,
            &server.url,
            &server.known_hosts,
            &server.key,
        ));
        argv.extend(args);
        kaiport.run(&argv)
    };
    let output = view(&["disk"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("\nMOUNT "), "{stdout}");
    assert!(
        stdout.lines().any(|line| line.starts_with("/ ")),
        "{stdout}"
    );
    assert!(stdout.contains("  $ df -PT -B1   (exit 0,"), "{stdout}");

    let output = view(&["processes", "--json"]);
    assert!(output.status.success());
    let report: kaiport_protocol::ViewReport = serde_json::from_slice(&output.stdout).unwrap();
    let kaiport_protocol::ViewData::Processes(processes) = report.data else {
        panic!("{:?}", report.data)
    };
    assert!(processes.total > 0);

    let output = view(&["service_status"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the service_status view needs `unit`"),
        "{stderr}"
    );
    let audit = kaiport.audit();
    assert_eq!(audit.len(), 3, "{audit:?}");
    assert!(audit.iter().all(|line| line["tool"] == "show_view"));
}

/// `kaiport audit` (README): the latest calls one line each (`-n` of them, 20 by default), the
/// raw JSON lines with `--json`, only the log's path with `--path`, another log with `--audit`,
/// and a note rather than an error where there is no log yet.
#[test]
fn audit_shows_the_latest_calls_raw_or_summed_up_and_where_the_log_is() {
    let kaiport = Kaiport::new();
    let stdout = |output: Output| {
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let none = kaiport.run(&["audit"]);
    assert!(
        String::from_utf8_lossy(&none.stderr).contains("no audit log yet"),
        "{none:?}"
    );
    assert_eq!(stdout(none), "");
    for n in 1..=3 {
        let args = format!(r#"{{"command":"echo audit-call-{n}"}}"#);
        stdout(kaiport.run(&["tool", "local", "run_command", &args, "--yes"]));
    }
    let file = std::fs::read_to_string(kaiport.audit_path()).unwrap();
    let file: Vec<&str> = file.lines().collect();
    assert_eq!(file.len(), 3);

    let summed_up = stdout(kaiport.run(&["audit"]));
    let lines: Vec<&str> = summed_up.lines().collect();
    assert_eq!(lines.len(), 3, "{summed_up}");
    for (n, line) in (1..=3).zip(&lines) {
        assert!(
            line.contains("local") && line.contains("run_command") && line.contains("ok"),
            "{line}"
        );
        assert!(line.contains(&format!("audit-call-{n}")), "{line}");
    }
    let latest = stdout(kaiport.run(&["audit", "-n", "2"]));
    assert_eq!(latest.lines().collect::<Vec<_>>(), lines[1..], "{latest}");
    let raw = stdout(kaiport.run(&["audit", "--json", "-n", "2"]));
    assert_eq!(raw.lines().collect::<Vec<_>>(), file[1..], "{raw}");

    let path = stdout(kaiport.run(&["audit", "--path"]));
    assert_eq!(path.trim_end(), kaiport.audit_path().to_str().unwrap());
    let other = kaiport.home.path().join("other-audit.jsonl");
    std::fs::write(&other, format!("{}\n", file[0])).unwrap();
    let other_arg = other.to_str().unwrap();
    let path = stdout(kaiport.run(&["audit", "--audit", other_arg, "--path"]));
    assert_eq!(path.trim_end(), other_arg);
    let raw = stdout(kaiport.run(&["audit", "--audit", other_arg, "--json"]));
    assert_eq!(raw.lines().collect::<Vec<_>>(), file[..1], "{raw}");
}
