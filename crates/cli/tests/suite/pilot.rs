//! `kaiport pilot` end to end: a real sshd, the scripted model server on both protocols
//! (Anthropic Messages and OpenAI-compatible), and the `kaiport` binary. Each test checks the
//! transcript or event stream, what the model was sent, the audit log, and that the API key
//! never shows up in anything recorded.

use kaiport_tests::model_server::{ModelServer, RecordedRequest};
use kaiport_tests::sshd::{Sshd, SshdConfig, TEST_PASSWORD};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The API key the tests hand to kaiport; it must never be recorded anywhere.
const API_KEY: &str = "sk-test-NEVER-LOG-7f3a9c";
const KEY_VAR: &str = "KAIPORT_TEST_MODEL_KEY";
const PROTOCOLS: [&str; 2] = ["anthropic", "openai"];

struct Server {
    /// Runs for as long as the test holds the server; stopped by PID on drop.
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
    let known_hosts = sshd.dir().join("pilot_known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    Server {
        url: format!("ssh://{}@127.0.0.1:{}", sshd.user(), sshd.port()),
        known_hosts: known_hosts.display().to_string(),
        key: sshd.keys.ed25519.display().to_string(),
        sshd,
    }
}

/// A temporary folder anyone may write in (the fixture's login user, root through sudo).
fn open_folder() -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        folder.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    folder
}

/// A command for the model to run that says, with a file the test can see, that it is running:
/// the command line, the file, and the folder that holds it (the login user may write there).
fn running_marked(then: &str) -> (String, PathBuf, tempfile::TempDir) {
    let folder = open_folder();
    let marker = folder.path().join("started");
    (
        format!("touch {}; {then}", marker.display()),
        marker,
        folder,
    )
}

/// Waits (60 s at most) until `path` exists.
fn wait_for_file(path: &std::path::Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One `kaiport pilot` run with its own KAIPORT_HOME.
struct Run {
    home: tempfile::TempDir,
    child: Child,
    stdout: Collected,
    stderr: Collected,
}

struct Finished {
    status: ExitStatus,
    stdout: String,
    stderr: String,
    home: tempfile::TempDir,
}

/// What a child process wrote to one pipe, read on a thread of its own as it comes.
struct Collected {
    text: Arc<Mutex<String>>,
    /// Says the pipe was read to its end (every writer gone).
    ended: std::sync::mpsc::Receiver<()>,
}

impl Collected {
    fn now(&self) -> String {
        self.text.lock().unwrap().clone()
    }

    fn contains(&self, needle: &str) -> bool {
        self.text.lock().unwrap().contains(needle)
    }

    /// Everything written, once the pipe has ended (30 s at most after the process ended).
    fn all(self) -> String {
        self.ended
            .recv_timeout(Duration::from_secs(30))
            .expect("the pipe was still open 30 s after the process ended");
        self.now()
    }
}

fn collect(mut source: impl Read + Send + 'static) -> Collected {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = text.clone();
    let (done, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(read) = source.read(&mut buffer) {
            if read == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buffer[..read]));
        }
        let _ = done.send(());
    });
    Collected { text, ended }
}

/// `kaiport pilot … TASK` against `server` and the scripted `model`, at home in `home`.
fn pilot_command(
    server: &Server,
    model: &ModelServer,
    protocol: &str,
    extra: &[&str],
    task: &str,
    home: &std::path::Path,
) -> Command {
    let base_url = match protocol {
        "anthropic" => model.anthropic_url(),
        _ => model.openai_url(),
    };
    let mut command = Command::new(env!("CARGO_BIN_EXE_kaiport"));
    command
        .args(["pilot", &server.url, "--identity", &server.key])
        .args(["--known-hosts", &server.known_hosts])
        .args(["--provider", protocol, "--base-url", &base_url])
        .args(["--model", "scripted-model", "--api-key-env", KEY_VAR])
        .args(extra)
        .arg(task)
        .env("KAIPORT_HOME", home)
        .env("HOME", home)
        .env(KEY_VAR, API_KEY)
        .env_remove("SSH_AUTH_SOCK");
    command
}

fn start(server: &Server, model: &ModelServer, protocol: &str, extra: &[&str], task: &str) -> Run {
    let home = tempfile::tempdir().unwrap();
    let mut command = pilot_command(server, model, protocol, extra, task, home.path());
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // A process group of its own: no controlling terminal, nothing asked interactively.
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn().unwrap();
    let stdout = collect(child.stdout.take().unwrap());
    let stderr = collect(child.stderr.take().unwrap());
    Run {
        home,
        child,
        stdout,
        stderr,
    }
}

impl Run {
    fn wait_for_stdout(&self, needle: &str, within: Duration) {
        let deadline = Instant::now() + within;
        while !self.stdout.contains(needle) {
            assert!(
                Instant::now() < deadline,
                "{needle:?} not printed within {within:?}; stdout:\n{}\nstderr:\n{}",
                self.stdout.now(),
                self.stderr.now()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Ctrl-C, as the terminal would send it.
    fn interrupt(&self) {
        let status = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn finish(mut self) -> Finished {
        let deadline = Instant::now() + Duration::from_secs(120);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("kaiport pilot did not end within 120 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Finished {
            status,
            stdout: self.stdout.all(),
            stderr: self.stderr.all(),
            home: self.home,
        }
    }
}

impl Finished {
    fn audit(&self) -> Vec<Value> {
        std::fs::read_to_string(self.home.path().join("ai-audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    fn history_path(&self) -> PathBuf {
        self.home.path().join("pilot-history").join("pilot.jsonl")
    }

    fn history(&self) -> Vec<Value> {
        std::fs::read_to_string(self.history_path())
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    /// The event stream of a `--json` run.
    fn events(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|error| panic!("not an event ({error}): {line}"))
            })
            .collect()
    }

    fn describe(&self) -> String {
        format!(
            "status {:?}\nstdout:\n{}\nstderr:\n{}",
            self.status, self.stdout, self.stderr
        )
    }

    /// Nothing recorded anywhere holds the API key.
    fn assert_no_secret(&self, model: &ModelServer) {
        let history = std::fs::read_to_string(self.history_path()).unwrap_or_default();
        let audit =
            std::fs::read_to_string(self.home.path().join("ai-audit.jsonl")).unwrap_or_default();
        for (what, text) in [
            ("stdout", &self.stdout),
            ("stderr", &self.stderr),
            ("history", &history),
            ("audit log", &audit),
        ] {
            assert!(!text.contains(API_KEY), "the API key is in the {what}");
        }
        for request in model.requests() {
            assert!(
                !request.raw.contains(API_KEY),
                "the API key is in a request body"
            );
        }
    }
}

fn run(
    server: &Server,
    model: &ModelServer,
    protocol: &str,
    extra: &[&str],
    task: &str,
) -> Finished {
    start(server, model, protocol, extra, task).finish()
}

fn script(steps: Value) -> ModelServer {
    ModelServer::from_json(json!({"api_key": API_KEY, "steps": steps})).unwrap()
}

fn assert_script_done(model: &ModelServer, finished: &Finished) {
    assert_eq!(
        model.failures(),
        Vec::<String>::new(),
        "{}",
        finished.describe()
    );
    assert_eq!(model.remaining_steps(), 0, "{}", finished.describe());
}

fn last_request(model: &ModelServer) -> RecordedRequest {
    model.requests().pop().unwrap()
}

#[test]
fn a_multi_step_task_runs_commands_and_reports() {
    let server = server();
    for protocol in PROTOCOLS {
        let model = script(json!([
            {"expect": {"tools_include": ["run_command", "send_input", "read_screen", "ask_user"],
                        // The task waited for the host probe: the first request knows the host.
                        "system_contains": ["terminal tab", server.url, "The tab is in ask mode", "untrusted data", "Nobody watches the terminal",
                                            "Logged in as kaiport-test (uid "],
                        "body_contains": ["Check who I am"]},
             "respond": {"text": "Let me check.", "tool_calls": [
                {"name": "run_command", "arguments": {"command": "echo user=$(whoami)", "why": "Find out who is logged in"}}]}},
            {"expect": {"last_result_contains": ["user=kaiport-test", "run_command: completed, exit code 0", "<untrusted-data nonce=", "part=\"output\""]},
             "respond": {"tool_calls": [{"name": "run_command", "arguments": {"command": "echo $((6*7))"}}],
                         "openai_quirks": true}},
            {"expect": {"last_result_contains": ["42"]},
             "respond": {"text": "You are kaiport-test and 6*7 is 42."}}
        ]));
        let finished = run(&server, &model, protocol, &["--yes"], "Check who I am");
        assert!(
            finished.status.success(),
            "{protocol}: {}",
            finished.describe()
        );
        assert_script_done(&model, &finished);
        assert!(
            finished.stdout.contains("Let me check."),
            "{}",
            finished.describe()
        );
        assert!(
            finished
                .stdout
                .contains("You are kaiport-test and 6*7 is 42.")
        );
        assert_eq!(
            finished
                .stdout
                .lines()
                .filter(|line| line.starts_with("⏺ run_command"))
                .count(),
            2,
            "{}",
            finished.describe()
        );
        // The host facts are printed once, before the turn's first line.
        let lines: Vec<&str> = finished.stdout.lines().collect();
        let host = lines.iter().position(|line| line.starts_with("▸ host: "));
        let first = lines.iter().position(|line| line.contains("Let me check."));
        assert!(
            host.is_some_and(|host| Some(host) < first && lines[host].contains(" · kaiport-test (")),
            "{}",
            finished.describe()
        );
        // The approval shows Pilot's reason beside kaiport's.
        assert!(
            finished
                .stderr
                .contains("Pilot's reason: \u{201c}Find out who is logged in\u{201d}"),
            "{}",
            finished.describe()
        );
        let audit = finished.audit();
        let commands: Vec<(&str, &str, &str)> = audit
            .iter()
            .map(|line| {
                (
                    line["args"]["command"].as_str().unwrap(),
                    line["status"].as_str().unwrap(),
                    line["decided_by"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            commands,
            vec![
                ("echo user=$(whoami)", "ok", "automatic"),
                ("echo $((6*7))", "ok", "automatic")
            ]
        );
        assert_eq!(audit[0]["connection"], json!(server.url));
        // The conversation was saved: the user's message, three replies, two results, the end.
        let history = finished.history();
        assert_eq!(history.len(), 7, "{history:#?}");
        assert_eq!(
            history[0]["message"],
            json!({"role": "user", "text": "Check who I am"})
        );
        assert_eq!(history[6]["kind"], "turn_finished");
        assert_eq!(history[6]["status"], "completed");
        finished.assert_no_secret(&model);
    }
}

#[test]
fn a_denied_approval_is_reported_and_the_model_recovers() {
    let server = server();
    for protocol in PROTOCOLS {
        let model = script(json!([
            {"respond": {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch /tmp/pilot-denied"}}]}},
            {"expect": {"last_result_contains": ["run_command: denied", "the user denied this call"]},
             "respond": {"text": "The change was not approved, so I left the server as it was."}}
        ]));
        // No terminal and no --yes: what asks is denied.
        let finished = run(&server, &model, protocol, &[], "Create a marker file");
        assert!(finished.status.success(), "{}", finished.describe());
        assert_script_done(&model, &finished);
        assert!(
            finished.stdout.contains("→ denied"),
            "{}",
            finished.describe()
        );
        let audit = finished.audit();
        assert_eq!(audit.len(), 1);
        assert_eq!(audit[0]["status"], "denied");
        assert_eq!(audit[0]["decision"], "ask");
        assert_eq!(audit[0]["decided_by"], "automatic");
        finished.assert_no_secret(&model);
    }
}

#[test]
fn a_forbidden_command_is_refused_even_with_yes() {
    let server = server();
    for protocol in PROTOCOLS {
        let model = script(json!([
            {"expect": {"system_contains": ["Forbidden commands (always refused): rm."]},
             "respond": {"tool_calls": [{"name": "run_command", "arguments": {"command": "cd /tmp && rm -rf pilot-x"}}]}},
            {"expect": {"last_result_contains": ["run_command: denied", "forbidden"]},
             "respond": {"text": "Deleting is forbidden on this connection."}}
        ]));
        let finished = run(
            &server,
            &model,
            protocol,
            &[
                "--yes",
                "--mode",
                "autopilot",
                "--setting",
                "forbidden_commands=rm",
            ],
            "Clean up",
        );
        assert!(finished.status.success(), "{}", finished.describe());
        assert_script_done(&model, &finished);
        let audit = finished.audit();
        assert_eq!(audit.len(), 1);
        assert_eq!(audit[0]["status"], "denied");
        assert_eq!(audit[0]["decision"], "deny");
        assert_eq!(audit[0]["decided_by"], "rule");
        finished.assert_no_secret(&model);
    }
}

#[test]
fn malformed_arguments_and_unknown_tools_go_back_to_the_model() {
    let server = server();
    for protocol in PROTOCOLS {
        let model = script(json!([
            {"respond": {"tool_calls": [
                {"name": "run_command", "raw_arguments": "{\"command\": \"ls"},
                {"name": "launch_rockets", "arguments": {"count": 3}}]}},
            {"respond": {"text": "Sorry, my calls were broken."}}
        ]));
        let finished = run(&server, &model, protocol, &["--yes"], "List files");
        assert!(finished.status.success(), "{}", finished.describe());
        assert_script_done(&model, &finished);
        let results = last_request(&model).tool_results();
        assert_eq!(results.len(), 2, "{results:?}");
        assert!(
            results[0].contains("run_command: the arguments are not valid JSON"),
            "{}",
            results[0]
        );
        assert!(
            results[1].contains("unknown tool \"launch_rockets\""),
            "{}",
            results[1]
        );
        let audit = finished.audit();
        let lines: Vec<(&str, &str)> = audit
            .iter()
            .map(|line| {
                (
                    line["tool"].as_str().unwrap(),
                    line["status"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            lines,
            vec![("run_command", "error"), ("launch_rockets", "error")]
        );
        finished.assert_no_secret(&model);
    }
}

#[test]
fn ask_user_unanswered_tells_the_model_so() {
    let server = server();
    for protocol in PROTOCOLS {
        let model = script(json!([
            {"respond": {"tool_calls": [{"name": "ask_user", "arguments":
                {"question": "Which environment?", "options": ["staging", "production"]}}]}},
            {"expect": {"last_result_contains": ["ask_user: ok, the user did not answer"]},
             "respond": {"text": "No answer; I will stop here."}}
        ]));
        // Autopilot and --yes, and still nobody answers for the user.
        let finished = run(
            &server,
            &model,
            protocol,
            &["--yes", "--mode", "autopilot"],
            "Deploy",
        );
        assert!(finished.status.success(), "{}", finished.describe());
        assert_script_done(&model, &finished);
        assert!(
            finished.stderr.contains("not answered"),
            "{}",
            finished.describe()
        );
        let audit = finished.audit();
        assert_eq!(audit.len(), 1);
        assert_eq!(audit[0]["tool"], "ask_user");
        finished.assert_no_secret(&model);
    }
}

/// `kaiport pilot … TASK` with a real terminal (`script` makes one), as a person at a prompt
/// would have: its stdin is what they type, its stdout what the terminal shows.
fn in_terminal(
    server: &Server,
    model: &ModelServer,
    protocol: &str,
    extra: &[&str],
    task: &str,
    home: &tempfile::TempDir,
) -> (Child, Collected) {
    let pilot = pilot_command(server, model, protocol, extra, task, home.path());
    let quote = |text: &str| format!("'{}'", text.replace('\'', "'\\''"));
    let line: Vec<String> = std::iter::once(pilot.get_program())
        .chain(pilot.get_args())
        .map(|arg| quote(&arg.to_string_lossy()))
        .collect();
    let mut command = Command::new("script");
    command.args(["-qfec", &line.join(" "), "/dev/null"]);
    for (name, value) in pilot.get_envs() {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = collect(child.stdout.take().unwrap());
    (child, output)
}

/// Waits (60 s at most) until the terminal shows `needle`.
fn wait_for_output(output: &Collected, needle: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !output.contains(needle) {
        assert!(
            Instant::now() < deadline,
            "{needle:?} not shown:\n{}",
            output.now()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for a run [`in_terminal`] to end: it succeeded, the model's script was played whole,
/// the terminal showed `says` and never the API key.
fn finish_in_terminal(mut child: Child, output: Collected, model: &ModelServer, says: &str) {
    let status = child.wait().unwrap();
    let transcript = output.all();
    assert!(status.success(), "{transcript}");
    assert!(transcript.contains(says), "{transcript}");
    assert_eq!(model.failures(), Vec::<String>::new());
    assert_eq!(model.remaining_steps(), 0);
    assert!(!transcript.contains(API_KEY));
}

#[test]
fn ask_user_is_answered_at_the_terminal() {
    let server = server();
    for protocol in PROTOCOLS {
        let model = script(json!([
            {"respond": {"tool_calls": [{"name": "ask_user", "arguments":
                {"question": "Which environment?", "options": ["staging", "production"]}}]}},
            {"expect": {"last_result_contains": ["ask_user: ok, the user answered:\nproduction"]},
             "respond": {"text": "Production it is."}}
        ]));
        let home = tempfile::tempdir().unwrap();
        let (mut child, output) = in_terminal(&server, &model, protocol, &[], "Deploy", &home);
        wait_for_output(&output, "Answer (a number");
        assert!(output.contains("Pilot asks: Which environment?"));
        child.stdin.as_mut().unwrap().write_all(b"2\n").unwrap();
        finish_in_terminal(child, output, &model, "Production it is.");
        let audit = std::fs::read_to_string(home.path().join("ai-audit.jsonl")).unwrap();
        let line: Value = serde_json::from_str(audit.lines().next().unwrap()).unwrap();
        assert_eq!(line["tool"], "ask_user");
        assert_eq!(line["status"], "ok");
    }
}

/// A command Pilot ran stops at sudo's password prompt: `kaiport pilot` asks the person at its
/// terminal, hidden, and types the answer into the server's prompt as theirs; the model, told
/// `awaiting_secret`, only waits and looks. The password reaches sudo (the file is root's) and
/// nothing recorded: no model request, history or audit line.
#[test]
fn a_sudo_password_is_typed_by_the_person_at_the_terminal() {
    let server = server_with(SshdConfig {
        sudo_asks_password: true,
        ..SshdConfig::default()
    });
    let folder = open_folder();
    let made = folder.path().join("made-by-root");
    let model = script(json!([
        {"respond": {"tool_calls": [{"name": "run_command", "arguments":
            {"command": format!("sudo touch {}", made.display()), "why": "Make the file as root"}}]}},
        {"expect": {"last_result_contains": ["run_command: awaiting_secret", "only the user types it"]},
         "respond": {"text": "sudo asks for your password: please type it in the terminal.",
                     "after_gate": "typed",
                     "tool_calls": [{"name": "read_screen", "arguments": {"since_command": true}}]}},
        {"expect": {"body_excludes": [TEST_PASSWORD]},
         "respond": {"text": "The file is made."}}
    ]));
    let home = tempfile::tempdir().unwrap();
    let (mut child, output) = in_terminal(
        &server,
        &model,
        "anthropic",
        &["--yes", "--mode", "autopilot"],
        "Make the file as root",
        &home,
    );
    wait_for_output(&output, "Type it here (hidden");
    assert!(
        output.contains("The command on the server asks: [sudo] password for"),
        "{}",
        output.now()
    );
    child
        .stdin
        .as_mut()
        .unwrap()
        .write_all(format!("{TEST_PASSWORD}\n").as_bytes())
        .unwrap();
    // sudo took it: the file is there, made by root. Then the model looks again.
    wait_for_file(&made);
    model.open_gate("typed");
    finish_in_terminal(child, output, &model, "The file is made.");
    use std::os::unix::fs::MetadataExt;
    assert_eq!(std::fs::metadata(&made).unwrap().uid(), 0);
    // (The terminal itself may echo the password if it comes before the hidden prompt turns
    // echo off, as a fast typist's would: what matters is that kaiport records it nowhere.)
    let history =
        std::fs::read_to_string(home.path().join("pilot-history").join("pilot.jsonl")).unwrap();
    let audit = std::fs::read_to_string(home.path().join("ai-audit.jsonl")).unwrap();
    assert!(
        !history.contains(TEST_PASSWORD),
        "the password is in the history"
    );
    assert!(
        !audit.contains(TEST_PASSWORD),
        "the password is in the audit log"
    );
    for request in model.requests() {
        assert!(
            !request.raw.contains(TEST_PASSWORD),
            "the password reached the model"
        );
    }
    let tools: Vec<String> = audit
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["tool"].to_string())
        .collect();
    assert_eq!(tools, ["\"run_command\"", "\"read_screen\""]);
}

#[test]
fn cancel_mid_stream_stops_the_turn() {
    let server = server();
    for protocol in PROTOCOLS {
        let model = script(json!([
            {"respond": {"text": "Working on it, step by step, slowly and carefully...", "chunk_delay_ms": 30,
                         "stall_after_chunks": 6}}
        ]));
        let running = start(&server, &model, protocol, &["--json"], "Take your time");
        running.wait_for_stdout("\"assistant_text\"", Duration::from_secs(60));
        let interrupted = Instant::now();
        running.interrupt();
        let finished = running.finish();
        // A hang guard: the model's stream never ends by itself.
        assert!(
            interrupted.elapsed() < Duration::from_secs(30),
            "cancel took {:?}",
            interrupted.elapsed()
        );
        assert_eq!(finished.status.code(), Some(1), "{}", finished.describe());
        let events = finished.events();
        let last = events
            .iter()
            .rev()
            .find(|event| event["type"] == "turn_finished")
            .unwrap();
        assert_eq!(last["status"], "cancelled");
        assert_eq!(finished.audit().len(), 0);
        // The partial reply is kept in the history, then the cancelled turn.
        let history = finished.history();
        assert_eq!(history.last().unwrap()["status"], "cancelled");
        finished.assert_no_secret(&model);
    }
}

#[test]
fn cancel_mid_tool_leaves_the_command_running_and_says_so() {
    let server = server();
    for protocol in PROTOCOLS {
        let (command, started, _folder) = running_marked("sleep 30");
        let model = script(json!([
            {"respond": {"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}}
        ]));
        let running = start(
            &server,
            &model,
            protocol,
            &["--json", "--yes"],
            "Wait a while",
        );
        wait_for_file(&started);
        running.interrupt();
        let finished = running.finish();
        assert_eq!(finished.status.code(), Some(1), "{}", finished.describe());
        let events = finished.events();
        let end = events
            .iter()
            .find(|event| event["type"] == "turn_finished")
            .unwrap();
        assert_eq!(end["status"], "cancelled", "{}", finished.describe());
        assert!(
            end["message"]
                .as_str()
                .unwrap_or_default()
                .contains("may still be running in the terminal"),
            "{}",
            finished.describe()
        );
        let audit = finished.audit();
        assert_eq!(audit.len(), 1);
        assert_eq!(audit[0]["args"]["command"], command);
        let outcome = &events
            .iter()
            .find(|event| event["type"] == "tool_finished")
            .unwrap()["outcome"];
        // The terminal stopped waiting; the command itself was left running.
        assert!(
            outcome["status"] == "cancelled" || outcome["result"]["status"] == "interrupted",
            "{outcome}"
        );
        finished.assert_no_secret(&model);
    }
}

#[test]
fn rate_limits_are_retried_and_a_dropped_stream_before_text_too() {
    let server = server();
    for protocol in PROTOCOLS {
        let model = script(json!([
            {"respond": {"status": 429, "retry_after": 1, "error_message": "slow down"}},
            {"respond": {"text": "never seen", "drop_after_chunks": 1}},
            {"respond": {"text": "Hello after waiting."}}
        ]));
        let finished = run(&server, &model, protocol, &[], "Say hello");
        assert!(finished.status.success(), "{}", finished.describe());
        // The model server fails a request that comes before its retry-after ran out.
        assert_script_done(&model, &finished);
        assert!(finished.stdout.contains("Hello after waiting."));
        assert!(!finished.stdout.contains("never seen"));
        assert!(
            finished
                .stderr
                .contains("HTTP 429: slow down; retrying in 1000 ms"),
            "{}",
            finished.describe()
        );
        assert_eq!(finished.audit().len(), 0);
        finished.assert_no_secret(&model);
    }
}

#[test]
fn a_wrong_key_fails_at_once_with_a_clear_message() {
    let server = server();
    for protocol in PROTOCOLS {
        let model = ModelServer::from_json(json!({"api_key": "the-right-key", "steps": [
            {"respond": {"text": "unreachable"}}]}))
        .unwrap();
        let finished = run(&server, &model, protocol, &[], "Hello");
        assert_eq!(finished.status.code(), Some(1), "{}", finished.describe());
        assert!(
            finished.stderr.contains(&format!(
                "{protocol} refused the API key (HTTP 401): invalid api key"
            )),
            "{}",
            finished.describe()
        );
        assert_eq!(model.requests().len(), 1, "a 401 must not be retried");
        assert!(!model.requests()[0].auth_ok);
        assert_eq!(finished.audit().len(), 0);
        finished.assert_no_secret(&model);
    }
}

#[test]
fn a_connection_dropped_mid_reply_fails_the_turn() {
    let server = server();
    for protocol in PROTOCOLS {
        let model = script(json!([
            {"respond": {"text": "Starting the check now, one moment", "drop_after_chunks": 5}}
        ]));
        let finished = run(&server, &model, protocol, &[], "Check");
        assert_eq!(finished.status.code(), Some(1), "{}", finished.describe());
        assert!(finished.stdout.contains("Start"), "{}", finished.describe());
        assert!(
            finished
                .stderr
                .contains(&format!("cannot reach {protocol}")),
            "{}",
            finished.describe()
        );
        // Text was already shown: no retry that would repeat it.
        assert_eq!(model.requests().len(), 1);
        assert_eq!(finished.history().last().unwrap()["status"], "failed");
        assert_eq!(finished.audit().len(), 0);
        finished.assert_no_secret(&model);
    }
}

#[test]
fn an_ssh_connection_dropped_mid_turn_is_reported_to_the_model() {
    for protocol in PROTOCOLS {
        let mut server = server();
        let (command, started, _folder) = running_marked("sleep 30");
        let model = script(json!([
            {"respond": {"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}},
            {"expect": {"last_result_contains": ["interrupted"]},
             "respond": {"tool_calls": [{"name": "run_command", "arguments": {"command": "echo again"}}]}},
            {"respond": {"text": "The server went away; reconnect and I will check again."}}
        ]));
        let running = start(&server, &model, protocol, &["--json", "--yes"], "Wait");
        wait_for_file(&started);
        server.sshd.kill();
        let finished = running.finish();
        assert!(finished.status.success(), "{}", finished.describe());
        assert_script_done(&model, &finished);
        let outcomes: Vec<Value> = finished
            .events()
            .into_iter()
            .filter(|event| event["type"] == "tool_finished")
            .map(|event| event["outcome"].clone())
            .collect();
        assert_eq!(outcomes.len(), 2, "{}", finished.describe());
        assert_eq!(outcomes[0]["result"]["status"], "interrupted");
        let note = outcomes[0]["result"]["note"].as_str().unwrap();
        assert!(note.contains("connection to the server was lost"), "{note}");
        // The next call fails at once with what to do, and the model hears it.
        assert_eq!(outcomes[1]["status"], "error");
        let error = outcomes[1]["error"].as_str().unwrap();
        assert!(error.contains("until it is connected again"), "{error}");
        assert!(
            last_request(&model)
                .raw
                .contains("until it is connected again"),
            "the model was not told"
        );
        let audit = finished.audit();
        assert_eq!(audit.len(), 2, "{audit:?}");
        assert_eq!(audit[0]["args"]["command"], command);
        assert_eq!(audit[0]["result"]["status"], "interrupted", "{audit:?}");
        assert_eq!(audit[1]["args"]["command"], "echo again");
        assert_eq!(audit[1]["status"], "error", "{audit:?}");
        finished.assert_no_secret(&model);
    }
}

#[test]
fn the_context_budget_elides_old_results_in_a_long_session() {
    let server = server();
    for protocol in PROTOCOLS {
        let mut steps = Vec::new();
        for round in 0..12 {
            steps.push(json!({"respond": {"tool_calls": [{"name": "run_command",
                "arguments": {"command": format!("seq {} {}", round * 100_000, round * 100_000 + 350)}}]}}));
        }
        steps.push(
            json!({"expect": {"body_contains": ["[elided to save room; re-run only read-only calls to see it again] run_command: completed, exit code 0"]},
                          "respond": {"text": "All numbers seen."}}),
        );
        let model = script(Value::Array(steps));
        let finished = run(
            &server,
            &model,
            protocol,
            &[
                "--mode",
                "autopilot",
                "--context-tokens",
                "13000",
                "--max-output-tokens",
                "500",
            ],
            "Count",
        );
        assert!(finished.status.success(), "{}", finished.describe());
        assert_script_done(&model, &finished);
        let last = last_request(&model);
        let results = last.tool_results();
        assert_eq!(results.len(), 12);
        // The newest results are whole; older ones were elided.
        assert!(results[11].contains("1100350"), "{}", results[11]);
        assert!(results[10].contains("1000350"));
        // An elided result is a one-line digest: header, size, its first and last line framed.
        assert!(
            results[0].starts_with(
                "[elided to save room; re-run only read-only calls to see it again] \
                 run_command: completed, exit code 0,"
            ) && results[0].contains("part=\"digest\">0 … 350</untrusted-data nonce=")
                && !results[0].contains('\n'),
            "{}",
            results[0]
        );
        // Elided in batches: between them, each request starts with the one before (all but
        // its last message, which carries Anthropic's moving cache breakpoint).
        let requests = model.requests();
        let elided = |request: &RecordedRequest| {
            request
                .tool_results()
                .iter()
                .filter(|result| result.starts_with("[elided"))
                .count()
        };
        let mut kept = 0;
        for pair in requests.windows(2) {
            let (before, after) = (&pair[0], &pair[1]);
            if elided(before) != elided(after) {
                continue;
            }
            kept += 1;
            let (old, new) = (&before.body["messages"], &after.body["messages"]);
            let shared = old.as_array().unwrap().len() - 1;
            // OpenAI's first message is the system prompt.
            let from = usize::from(protocol == "openai");
            assert_eq!(
                old.as_array().unwrap()[from..shared],
                new.as_array().unwrap()[from..shared],
                "{protocol}: the conversation changed between batches"
            );
            // (The system prompt changes when the host facts do, once the probe answers.)
            assert_eq!(before.body["tools"], after.body["tools"], "{protocol}");
        }
        let batches = requests.len() - 1 - kept;
        assert!(
            kept >= 5 && batches < kept,
            "{protocol}: {batches} batches, {kept} steps without one"
        );
        if protocol == "anthropic" {
            // Cache breakpoints: the system prompt, the last tool, the conversation's end (the
            // newest result; the tab-now block after it changes each step).
            let ephemeral = json!({"type": "ephemeral"});
            assert_eq!(last.body["system"][0]["cache_control"], ephemeral);
            let tools = last.body["tools"].as_array().unwrap();
            assert_eq!(tools.last().unwrap()["cache_control"], ephemeral);
            assert!(tools[0].get("cache_control").is_none());
            let end = last.body["messages"].as_array().unwrap().last().unwrap();
            let blocks = end["content"].as_array().unwrap();
            assert!(last.tab_now().starts_with("# The tab now"), "{end}");
            assert!(blocks[blocks.len() - 1].get("cache_control").is_none());
            assert_eq!(blocks[blocks.len() - 2]["cache_control"], ephemeral);
            assert_eq!(last.raw.matches("\"cache_control\"").count(), 3);
        }
        // The request stayed near the budget (≈ 4 bytes a token).
        assert!(
            last.raw.len() < 12000 * 4,
            "request of {} bytes",
            last.raw.len()
        );
        assert_eq!(finished.audit().len(), 12);
        finished.assert_no_secret(&model);
    }
}

/// Needs read_file and edit_file: fails, on purpose, in a build without them rather than being
/// skipped.
#[test]
fn a_multi_step_task_reads_edits_and_verifies_a_file() {
    for tool in ["read_file", "edit_file"] {
        assert!(
            kaiport_core::tools::find(tool).is_some(),
            "{tool} is not in this build"
        );
    }
    let server = server();
    for protocol in PROTOCOLS {
        // Writes go through a temporary file beside the target: the folder must be writable by
        // the test user too.
        let dir = tempfile::Builder::new()
            .prefix("kaiport-pilot-")
            .tempdir_in("/tmp")
            .unwrap();
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o777),
        )
        .unwrap();
        let path = dir.path().join(format!("pilot-{protocol}.conf"));
        std::fs::write(&path, "port = 8080\nmode = slow\n").unwrap();
        // The login's own file: an edit over SFTP keeps owner and group or writes nothing.
        give_to_login(&server.sshd, &path);
        let path = path.display().to_string();
        let model = script(json!([
            {"expect": {"tools_include": ["read_file", "edit_file"]},
             "respond": {"tool_calls": [{"name": "run_command", "arguments": {"command": format!("wc -l {path}")}}]}},
            {"expect": {"last_result_contains": ["2 "]},
             "respond": {"tool_calls": [{"name": "read_file", "arguments": {"path": path}}]}},
            {"expect": {"last_result_contains": ["mode = slow"]},
             "respond": {"tool_calls": [{"name": "edit_file", "arguments": {"path": path,
                "edits": [{"old_text": "mode = slow", "new_text": "mode = fast"}]}}]}},
            {"respond": {"tool_calls": [{"name": "run_command", "arguments": {"command": format!("grep mode {path}")}}]}},
            {"expect": {"last_result_contains": ["mode = fast"]},
             "respond": {"text": "Switched to fast mode."}}
        ]));
        let finished = run(
            &server,
            &model,
            protocol,
            &["--yes", "--setting", "send_file_contents=true"],
            "Make it fast",
        );
        assert!(finished.status.success(), "{}", finished.describe());
        assert_script_done(&model, &finished);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "port = 8080\nmode = fast\n"
        );
        let tools: Vec<String> = finished
            .audit()
            .iter()
            .map(|line| {
                format!(
                    "{}:{}",
                    line["tool"].as_str().unwrap(),
                    line["status"].as_str().unwrap()
                )
            })
            .collect();
        assert_eq!(
            tools,
            [
                "run_command:ok",
                "read_file:ok",
                "edit_file:ok",
                "run_command:ok"
            ]
        );
        finished.assert_no_secret(&model);
    }
}

fn give_to_login(sshd: &Sshd, path: &std::path::Path) {
    // `user:` is the user and their login group.
    let status = std::process::Command::new("chown")
        .arg(format!("{}:", sshd.user()))
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "chown {}", path.display());
}

/// pilot.toml in the config folder chooses the model, and each flag overrides its own field of
/// it and leaves the rest (README: "The flags override `pilot.toml`"): no flag, `--model`, and
/// `--base-url` each reach the server and model they should.
#[test]
fn the_flags_override_pilot_toml_field_by_field() {
    let from_file = script(json!([
        {"respond": {"text": "File's server, file's model."}},
        {"respond": {"text": "File's server, flag's model."}}
    ]));
    let from_flag = script(json!([{"respond": {"text": "Flag's server, file's model."}}]));
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("pilot.toml"),
        from_file.pilot_toml("model-from-file", KEY_VAR),
    )
    .unwrap();
    let pilot = |flags: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_kaiport"))
            .args(["pilot", "local"])
            .args(flags)
            .arg("Say hello")
            .env("KAIPORT_HOME", home.path())
            .env("HOME", home.path())
            .env(KEY_VAR, API_KEY)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "{flags:?}: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    };
    assert!(pilot(&[]).contains("File's server, file's model."));
    assert!(pilot(&["--model", "model-from-flag"]).contains("File's server, flag's model."));
    assert!(
        pilot(&["--base-url", &from_flag.openai_url()]).contains("Flag's server, file's model.")
    );
    let models = |server: &ModelServer| -> Vec<Value> {
        server
            .requests()
            .iter()
            .map(|request| request.body["model"].clone())
            .collect()
    };
    assert_eq!(
        models(&from_file),
        vec![json!("model-from-file"), json!("model-from-flag")]
    );
    assert_eq!(models(&from_flag), vec![json!("model-from-file")]);
    for server in [&from_file, &from_flag] {
        assert_eq!(server.failures(), Vec::<String>::new());
        assert_eq!(server.remaining_steps(), 0);
        assert!(server.requests().iter().all(|request| request.auth_ok));
    }
}

/// A folder the login user owns, laid out for the lock-out attacks below: `home/.ssh` holds
/// `authorized_keys` (a `.ssh` folder outside /root and /home, protected by the
/// `**/.ssh/authorized_keys*` rule, as /srv/git's would be), `evil/` what an attacker wants there,
/// and the patches, archive, ed script, gpg data and git history that would put it there. A
/// regression changes only this folder, never the machine's own keys.
struct LockoutTree {
    dir: tempfile::TempDir,
}

const ORIGINAL_KEY: &str = "ssh-ed25519 AAAA original\n";
const ATTACKER_KEY: &str = "ssh-ed25519 AAAA attacker\n";

impl LockoutTree {
    fn new(user: &str) -> LockoutTree {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new()
            .prefix("kaiport-guard-")
            .tempdir_in("/tmp")
            .unwrap();
        let tree = LockoutTree { dir };
        let write = |rest: &str, text: &str| {
            let path = tree.path(rest);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("evil/.ssh/authorized_keys", ATTACKER_KEY);
        let diff = |name: &str| {
            format!("--- {name}\n+++ {name}\n@@ -1 +1 @@\n-{ORIGINAL_KEY}+{ATTACKER_KEY}")
        };
        write("p.patch", &diff("authorized_keys"));
        write("p0.patch", &diff("home/.ssh/authorized_keys"));
        write("p1.patch", &diff(".ssh/authorized_keys"));
        write("ed.script", &format!("1c\n{ATTACKER_KEY}.\nw\nq\n"));
        write("F", "keep me\n");
        let run = |program: &str, args: &[&str]| {
            let status = Command::new(program)
                .args(args)
                .current_dir(tree.dir.path())
                .stdout(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "{program} {args:?}");
        };
        run("tar", &["-C", "evil", "-cf", "evil.tar", ".ssh"]);
        // The attacker's key, committed, and the original in the working tree: a checkout
        // would bring the attacker's back.
        write("home/.ssh/authorized_keys", ATTACKER_KEY);
        let git = [
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-C",
            "home",
        ];
        run("git", &[&git[..], &["init", "-q"]].concat());
        run(
            "git",
            &[&git[..], &["add", ".ssh/authorized_keys"]].concat(),
        );
        run("git", &[&git[..], &["commit", "-qm", "keys"]].concat());
        write("home/.ssh/authorized_keys", ORIGINAL_KEY);
        if has_gpg() {
            // A literal data packet (no key, no agent): `gpg -d` writes the attacker's key.
            let gpg_home = tempfile::tempdir().unwrap();
            let home = gpg_home.path().display().to_string();
            run(
                "gpg",
                &[
                    "--homedir",
                    &home,
                    "--batch",
                    "--quiet",
                    "--store",
                    "-o",
                    "keys.gpg",
                    "evil/.ssh/authorized_keys",
                ],
            );
        }
        let status = Command::new("chown")
            .args(["-R", &format!("{user}:")])
            .arg(tree.dir.path())
            .status()
            .unwrap();
        assert!(status.success());
        std::fs::set_permissions(
            tree.path("home/.ssh"),
            std::fs::Permissions::from_mode(0o700),
        )
        .unwrap();
        std::fs::set_permissions(tree.keys(), std::fs::Permissions::from_mode(0o600)).unwrap();
        tree
    }

    fn path(&self, rest: &str) -> PathBuf {
        self.dir.path().join(rest)
    }

    fn keys(&self) -> PathBuf {
        self.path("home/.ssh/authorized_keys")
    }

    fn mode(&self, rest: &str) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(self.path(rest))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    }
}

fn has_gpg() -> bool {
    Command::new("gpg")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// The holes an attacker found in autopilot, run by a model through `kaiport pilot` without
/// `--yes` against a real sshd: each lock-out change is asked (and so refused, nobody being
/// there to approve), each command the shell would run out of sight — the history run again,
/// prompt expansion, a coproc group, a key binding — is refused where `rm` is forbidden, and
/// nothing of it reaches the files.
#[test]
fn autopilot_never_changes_lockout_files_unasked() {
    let server = server();
    let tree = LockoutTree::new(server.sshd.user());
    let folder = tree.dir.path().display().to_string();
    // Run first, from the folder: the later lines are relative to it, as the shell's folder
    // stays between calls and the policy cannot see it.
    let setup = [format!("cd {folder}"), "echo rm F".to_owned()];
    let mut refused = vec![
        // The history run again: `^echo ^` and `fc -s` would run `rm F`.
        "^echo ^",
        "fc -s 'echo '=",
        "!!",
        "x='$(rm F)'; echo ${x@P}",
        "coproc { rm F; }",
        "bind -x '\"\\C-m\":rm F'",
        // Lock-out files changed or removed.
        "patch home/.ssh/authorized_keys p.patch",
        "patch -p0 < p0.patch",
        "patch -d home -p0 < p1.patch",
        "ed -s home/.ssh/authorized_keys < ed.script",
        "cp -rT evil home",
        "cp -r evil/.ssh home/",
        "tar -xf evil.tar -C home",
        "tar --remove-files -cf out.tar home/.ssh",
        "zip -qm out.zip home/.ssh/authorized_keys",
        "git -C home checkout -- .ssh/authorized_keys",
        "echo attacker >> home/.ss[h]/authorized_key?",
        "echo attacker | tee home/.ssh/authorized_{keys,x}",
        "mv home/.ssh home/.ssh.bak",
        "chmod 777 home/.ssh",
        "chmod g+w .",
    ];
    if has_gpg() {
        refused.push("gpg --batch --yes -o home/.ssh/authorized_keys -d keys.gpg");
    }
    let mode_before = tree.mode(".");
    let mut steps: Vec<Value> = setup
        .iter()
        .map(String::as_str)
        .chain(refused.iter().copied())
        .map(|command| {
            json!({"respond": {"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}})
        })
        .collect();
    steps.push(json!({"respond": {"text": "Nothing was changed."}}));
    let model = script(Value::Array(steps));
    let finished = run(
        &server,
        &model,
        "anthropic",
        &["--mode", "autopilot", "--setting", "forbidden_commands=rm"],
        "Get in",
    );
    assert!(finished.status.success(), "{}", finished.describe());
    assert_script_done(&model, &finished);

    assert_eq!(std::fs::read_to_string(tree.keys()).unwrap(), ORIGINAL_KEY);
    assert_eq!(tree.mode("home/.ssh"), 0o700);
    assert_eq!(tree.mode("."), mode_before);
    assert!(tree.path("F").exists(), "rm F ran");
    for never in [
        "home/.ssh/authorized_x",
        "home/.ssh.bak",
        "home/evil",
        "out.zip",
    ] {
        assert!(!tree.path(never).exists(), "{never} was made");
    }

    let audit = finished.audit();
    assert_eq!(audit.len(), setup.len() + refused.len(), "{audit:#?}");
    for line in &audit[..setup.len()] {
        assert_eq!(line["status"], "ok", "{line}");
    }
    for (line, command) in audit[setup.len()..].iter().zip(&refused) {
        assert_eq!(line["args"]["command"], *command, "{line}");
        assert_eq!(line["status"], "denied", "{command}: {line}");
        let decision = line["decision"].as_str().unwrap_or_default();
        assert!(decision == "ask" || decision == "deny", "{command}: {line}");
    }
    // What the shell would run out of sight is refused outright where `rm` is forbidden.
    for line in &audit[setup.len()..setup.len() + 6] {
        assert_eq!(line["decision"], "deny", "{line}");
    }
    finished.assert_no_secret(&model);
}
