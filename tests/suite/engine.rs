//! The engine's tool pipeline end to end against a real sshd: run_command / send_input /
//! read_screen with and without shell integration, interactive and full-screen programs, Ctrl-C,
//! approvals, ask_user, cancel, a dropped connection — and the audit line of every outcome.

use kaiport_protocol::*;
use kaiport_tests::engine_harness::{Approvals, EngineHarness};
use kaiport_tests::sshd::Sshd;
use pretty_assertions::assert_eq;
use serde_json::json;
use std::time::Duration;

pub(crate) async fn open(sshd: &Sshd, settings: ConnectionSettings, mode: Mode) -> EngineHarness {
    let (target, known_hosts) = ssh_target(sshd);
    EngineHarness::open(target, Some(known_hosts), settings, mode)
        .await
        .unwrap()
}

/// An autopilot tab whose connection forbids `rm`.
async fn open_forbidding_rm(sshd: &Sshd) -> EngineHarness {
    let settings = ConnectionSettings {
        forbidden_commands: vec!["rm".to_owned()],
        ..ConnectionSettings::default()
    };
    open(sshd, settings, Mode::Autopilot).await
}

/// The shell's own idea of its terminal size.
async fn stty_size(tab: &EngineHarness) -> String {
    let result = tab
        .ok("run_command", json!({"command": "stty size"}))
        .await
        .unwrap();
    result["output"].as_str().unwrap().trim().to_owned()
}

/// The pty gets the size the page draws: a page asks for a tab first and fits its terminal
/// after, so the resize comes while the tab connects, and the shell must start at that size
/// (not the one the tab was asked for with). A later resize reaches it too, and a size beyond
/// what the engine accepts is refused with an error. SSH and local tabs.
#[tokio::test(flavor = "multi_thread")]
async fn the_shell_starts_at_the_size_given_while_connecting() {
    let sshd = Sshd::start().unwrap();
    for (target, known_hosts) in ssh_and_local(&sshd) {
        let tab =
            EngineHarness::open_resized_while_connecting(target.clone(), known_hosts, (95, 52))
                .await
                .unwrap();
        assert_eq!(stty_size(&tab).await, "52 95", "{target:?}");
        let resize = |cols, rows| Op::Resize {
            tab: tab.tab.clone(),
            cols,
            rows,
        };
        tab.engine.handle(resize(120, 40)).await;
        assert_eq!(stty_size(&tab).await, "40 120", "{target:?}");
        // Beyond what the engine accepts: refused with an error naming the tab, the size kept.
        tab.engine.handle(resize(u16::MAX, u16::MAX)).await;
        let refused = |event: &Event| {
            matches!(event, Event::Error { tab: Some(errored), message }
                if *errored == tab.tab && message.contains("resize refused: cols (65535)"))
        };
        tab.event("the refusal", Duration::from_secs(5), refused)
            .await
            .unwrap();
        assert_eq!(stty_size(&tab).await, "40 120", "{target:?}");
        tab.engine.handle(resize(1000, 1000)).await;
        assert_eq!(stty_size(&tab).await, "1000 1000", "{target:?}");
    }
}

/// Reconnect is the same tab on a new connection: same id, its settings kept, its commands run
/// again, the pty at the size last given; what the dropped shell still says is not told.
#[tokio::test(flavor = "multi_thread")]
async fn a_reconnected_tab_is_the_same_tab() {
    let sshd = Sshd::start().unwrap();
    let (ssh, known_hosts) = ssh_target(&sshd);
    let settings = ConnectionSettings {
        forbidden_commands: vec!["shutdown".to_owned()],
        ..ConnectionSettings::default()
    };
    let tab = EngineHarness::open(ssh, Some(known_hosts), settings.clone(), Mode::Autopilot)
        .await
        .unwrap();
    tab.engine
        .handle(Op::Resize {
            tab: tab.tab.clone(),
            cols: 91,
            rows: 33,
        })
        .await;
    // The server ends the shell's session: the tab drops (and would come back by itself;
    // Reconnect does it now).
    tab.engine
        .handle(Op::TerminalInput {
            tab: tab.tab.clone(),
            data: b"kill -9 $PPID\r".to_vec(),
        })
        .await;
    let dropped = |event: &Event| {
        matches!(
            event,
            Event::ConnectionState {
                state: ConnectionState::Disconnected { .. } | ConnectionState::Reconnecting { .. },
                ..
            }
        )
    };
    tab.event("the drop", Duration::from_secs(20), dropped)
        .await
        .unwrap();
    tab.engine
        .handle(Op::ReconnectTab {
            tab: tab.tab.clone(),
        })
        .await;
    let connected = |event: &Event| {
        matches!(
            event,
            Event::ConnectionState {
                state: ConnectionState::Connected,
                ..
            }
        )
    };
    let before = tab.events().iter().filter(|event| connected(event)).count();
    tab.event("connected again", Duration::from_secs(20), |_| {
        tab.events().iter().filter(|event| connected(event)).count() > before
    })
    .await
    .unwrap();
    assert_eq!(stty_size(&tab).await, "33 91");
    // Its rules are the ones it had.
    let refused = tab
        .call("run_command", json!({"command": "shutdown now"}))
        .await
        .unwrap();
    assert_eq!(refused.status, ToolStatus::Denied);
    // Nothing after the new connection says the tab is down.
    let events = tab.events();
    let last_state = events
        .iter()
        .rev()
        .find_map(|event| match event {
            Event::ConnectionState { state, .. } => Some(state.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(last_state, ConnectionState::Connected);
    assert!(
        !events
            .iter()
            .any(|event| matches!(event, Event::TabClosed { .. }))
    );
    // A tab that is not there says so.
    tab.engine
        .handle(Op::ReconnectTab {
            tab: "nope".to_owned(),
        })
        .await;
    tab.event("the error", Duration::from_secs(5), |event| {
        matches!(event, Event::Error { message, .. } if message.contains("there is no tab \"nope\""))
    })
    .await
    .unwrap();
}

/// The fixture as an SSH tab's target, and a known_hosts file that trusts it.
pub(crate) fn ssh_target(sshd: &Sshd) -> (TabTarget, std::path::PathBuf) {
    let known_hosts = sshd.dir().join("engine_known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    (sshd.tab_target(), known_hosts)
}

/// An SSH tab's target on `sshd` and a local tab's, each with the known_hosts file to open it with.
fn ssh_and_local(sshd: &Sshd) -> [(TabTarget, Option<std::path::PathBuf>); 2] {
    let (ssh, known_hosts) = ssh_target(sshd);
    [
        (ssh, Some(known_hosts.clone())),
        (TabTarget::Local, Some(known_hosts)),
    ]
}

fn without_integration() -> ConnectionSettings {
    ConnectionSettings {
        shell_integration: ShellIntegration::Off,
        ..ConnectionSettings::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn run_command_with_shell_integration_is_exact() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    let result = tab
        .ok(
            "run_command",
            json!({"command": "printf 'a\\nb\\n'; (exit 7)"}),
        )
        .await
        .unwrap();
    assert_eq!(result["output"], "a\nb");
    assert_eq!(result["exit_code"], 7);
    assert_eq!(result["detection"], "shell_integration");
    let result = tab
        .ok("run_command", json!({"command": "echo \"$((6*7))\""}))
        .await
        .unwrap();
    assert_eq!(result["output"].as_str().unwrap().trim(), "42");
    assert_eq!(result["exit_code"], 0);
    // The injected integration left no trace in the history.
    let result = tab
        .ok("run_command", json!({"command": "history | tail -n 5"}))
        .await
        .unwrap();
    let history = result["output"].as_str().unwrap();
    assert!(
        !history.contains("]133;") && !history.contains("__kp"),
        "{history}"
    );
    assert!(history.contains("6*7"), "{history}");
}

#[tokio::test(flavor = "multi_thread")]
async fn run_command_without_integration_uses_the_heuristic() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, without_integration(), Mode::Autopilot).await;
    let result = tab
        .ok("run_command", json!({"command": "echo plain; echo text"}))
        .await
        .unwrap();
    assert_eq!(result["output"].as_str().unwrap().trim(), "plain\ntext");
    assert_eq!(result["detection"], "heuristic");
    assert!(result.get("exit_code").is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn losing_the_markers_falls_back_to_the_heuristic() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    // A new shell without kaiport's integration replaces the integrated one.
    let replaced = tab
        .call(
            "run_command",
            json!({"command": "exec bash --norc --noprofile", "timeout_s": 20}),
        )
        .await
        .unwrap();
    assert_eq!(replaced.status, ToolStatus::Ok, "{replaced:?}");
    let result = tab
        .ok(
            "run_command",
            json!({"command": "echo still-here", "timeout_s": 20}),
        )
        .await
        .unwrap();
    assert_eq!(result["status"], "completed");
    assert_eq!(result["output"].as_str().unwrap().trim(), "still-here");
    assert_eq!(result["detection"], "heuristic");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_ends_the_wait_and_send_input_answers_it() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    let result = tab
        .ok(
            "run_command",
            json!({"command": "read -p 'Your name? ' name; echo \"hello $name\"", "timeout_s": 20}),
        )
        .await
        .unwrap();
    assert_eq!(result["status"], "awaiting_input", "{result}");
    assert!(result["screen"].as_str().unwrap().contains("Your name?"));
    let screen = tab
        .ok("send_input", json!({"text": "kai", "key": "enter"}))
        .await
        .unwrap();
    assert!(
        screen["screen"].as_str().unwrap().contains("hello kai"),
        "{screen}"
    );
    let result = tab
        .ok("run_command", json!({"command": "echo next"}))
        .await
        .unwrap();
    assert_eq!(result["output"].as_str().unwrap().trim(), "next");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_screen_program_is_driven_with_send_input() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    let result = tab
        .ok(
            "run_command",
            json!({"command": "seq 1 500 | less", "timeout_s": 5}),
        )
        .await
        .unwrap();
    assert_ne!(result["status"], "completed", "{result}");
    let screen = tab.ok("read_screen", json!({})).await.unwrap();
    assert_eq!(screen["alternate_screen"], true, "{screen}");
    assert!(screen["screen"].as_str().unwrap().contains("\n2\n"));
    let screen = tab.ok("send_input", json!({"key": "pgdn"})).await.unwrap();
    assert!(
        !screen["screen"].as_str().unwrap().starts_with("1\n"),
        "{screen}"
    );
    let screen = tab.ok("send_input", json!({"text": "q"})).await.unwrap();
    assert_eq!(screen["alternate_screen"], false, "{screen}");
    let result = tab
        .ok("run_command", json!({"command": "echo back"}))
        .await
        .unwrap();
    assert_eq!(result["output"].as_str().unwrap().trim(), "back");
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_stops_a_command_that_outlived_its_timeout() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    let result = tab
        .ok(
            "run_command",
            json!({"command": "sleep 100", "timeout_s": 1}),
        )
        .await
        .unwrap();
    assert_eq!(result["status"], "timed_out");
    tab.ok("send_input", json!({"key": "ctrl-c"}))
        .await
        .unwrap();
    let result = tab
        .ok("run_command", json!({"command": "echo after"}))
        .await
        .unwrap();
    assert_eq!(result["status"], "completed");
    assert_eq!(result["output"].as_str().unwrap().trim(), "after");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dropped_connection_interrupts_the_waiting_call() {
    let mut sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    let call = tab
        .start(
            "run_command",
            json!({"command": "echo started-$((6 * 7)); sleep 60", "timeout_s": 120}),
        )
        .await;
    // The command runs (its output, not the echo of the typed line) before the server goes.
    tab.output_shows("started-42", Duration::from_secs(30))
        .await
        .unwrap();
    sshd.kill();
    let outcome = tab.outcome(&call, Duration::from_secs(20)).await.unwrap();
    let interrupted = outcome.status == ToolStatus::Error
        || outcome
            .result
            .as_ref()
            .is_some_and(|result| result["status"] == "interrupted");
    assert!(interrupted, "{outcome:?}");
    // The server is gone: the tab tries again by itself.
    tab.event("reconnecting", Duration::from_secs(20), |event| {
        matches!(
            event,
            Event::ConnectionState {
                state: ConnectionState::Reconnecting { .. },
                ..
            }
        )
    })
    .await
    .unwrap();
    // Later calls fail at once with a clear error instead of hanging.
    let outcome = tokio::time::timeout(
        Duration::from_secs(10),
        tab.call("run_command", json!({"command": "true"})),
    )
    .await
    .unwrap()
    .unwrap();
    assert_ne!(outcome.status, ToolStatus::Ok);
    assert_eq!(tab.audit().unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn approvals_decide_and_every_outcome_is_audited() {
    let sshd = Sshd::start().unwrap();
    let settings = ConnectionSettings {
        forbidden_commands: vec!["reboot".to_owned()],
        ..ConnectionSettings::default()
    };
    let tab = open(&sshd, settings, Mode::Ask).await;

    tab.set_approvals(Approvals::Approve);
    let approved = tab
        .call("run_command", json!({"command": "echo approved"}))
        .await
        .unwrap();
    assert_eq!(approved.status, ToolStatus::Ok);

    tab.set_approvals(Approvals::Deny);
    let never = std::env::temp_dir().join(format!("kaiport-denied-{}", std::process::id()));
    let denied = tab
        .call(
            "run_command",
            json!({"command": format!("touch {}", never.display())}),
        )
        .await
        .unwrap();
    assert_eq!(denied.status, ToolStatus::Denied);
    assert_eq!(denied.error.as_deref(), Some("the user denied this call"));
    assert!(!never.exists(), "a denied command ran");

    let forbidden = tab
        .call("run_command", json!({"command": "sudo reboot"}))
        .await
        .unwrap();
    assert_eq!(forbidden.status, ToolStatus::Denied);

    tab.set_approvals(Approvals::Ignore);
    let call = tab
        .start("run_command", json!({"command": "echo never"}))
        .await;
    tab.event(
        "the approval request",
        Duration::from_secs(30),
        |event| matches!(event, Event::ApprovalRequested { call: asked, .. } if *asked == call),
    )
    .await
    .unwrap();
    tab.engine
        .handle(Op::Cancel {
            tab: tab.tab.clone(),
            call: Some(call.clone()),
        })
        .await;
    let cancelled = tab.outcome(&call, Duration::from_secs(5)).await.unwrap();
    assert_eq!(cancelled.status, ToolStatus::Cancelled);

    let bad = tab.call("run_command", json!({"cmd": "ls"})).await.unwrap();
    assert_eq!(bad.status, ToolStatus::Error);

    let read = tab.call("read_screen", json!({})).await.unwrap();
    assert_eq!(read.status, ToolStatus::Ok);

    let audit = tab.audit().unwrap();
    let summary: Vec<(String, String, String)> = audit
        .iter()
        .map(|line| {
            (
                line["decision"].as_str().unwrap().to_owned(),
                line["decided_by"].as_str().unwrap_or("-").to_owned(),
                line["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String, String)> = [
        ("ask", "user", "ok"),
        ("ask", "user", "denied"),
        ("deny", "rule", "denied"),
        ("ask", "-", "cancelled"),
        ("deny", "-", "error"),
        ("allow", "rule", "ok"),
    ]
    .iter()
    .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
    .collect();
    assert_eq!(summary, expected);
    // The terminal never saw the denied or forbidden commands.
    let typed = tab.terminal_text();
    assert!(
        !typed.contains("kaiport-denied") && !typed.contains("reboot") && !typed.contains("never"),
        "{typed}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_user_waits_for_the_user_even_in_autopilot() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    tab.set_question_answer(Some("blue"));
    let answer = tab
        .ok(
            "ask_user",
            json!({"question": "Which colour?", "options": ["red", "blue"]}),
        )
        .await
        .unwrap();
    assert_eq!(answer, json!({"answered": true, "answer": "blue"}));
    tab.set_question_answer(None);
    let answer = tab
        .ok("ask_user", json!({"question": "Proceed?"}))
        .await
        .unwrap();
    assert_eq!(answer, json!({"answered": false}));
    let asked = tab
        .events()
        .iter()
        .filter(|event| matches!(event, Event::QuestionAsked { .. }))
        .count();
    assert_eq!(asked, 2);
}

/// At a shell prompt, send_input's Enter is judged on the line it runs, however
/// the keys edited it; refused lines are taken back; inside a program input stays input.
#[tokio::test(flavor = "multi_thread")]
async fn send_input_at_a_prompt_is_judged_on_the_line_enter_runs() {
    let sshd = Sshd::start().unwrap();
    let tab = open_forbidding_rm(&sshd).await;
    tab.set_approvals(Approvals::Deny);
    tab.ok("run_command", json!({"command": "touch /tmp/kp_v"}))
        .await
        .unwrap();
    let attempts = [
        // Ctrl-A to the line start, then `r`.
        json!({"text": "m /tmp/kp_v\u{1}r", "key": "enter"}),
        // Ctrl-A, Ctrl-F, Ctrl-D deletes the `x`.
        json!({"text": "rxm /tmp/kp_v\u{1}\u{6}\u{4}", "key": "enter"}),
        // Ctrl-V inserts the next key as it is.
        json!({"text": "r\u{16}m /tmp/kp_v", "key": "enter"}),
        // An arrow key inside the text.
        json!({"text": "m /tmp/kp_v\u{1b}[D\u{1b}[D\u{1b}[D\u{1b}[D\u{1b}[D\u{1b}[D\u{1b}[D\u{1b}[D\u{1b}[D\u{1b}[D\u{1b}[Dr", "key": "enter"}),
    ];
    for args in attempts {
        let outcome = tab.call("send_input", args.clone()).await.unwrap();
        assert_eq!(outcome.status, ToolStatus::Denied, "{args}: {outcome:?}");
        assert!(
            outcome.error.as_deref().unwrap_or_default().contains("rm"),
            "{outcome:?}"
        );
    }
    // Over two calls: the first only types (nothing runs), the second's Enter is judged on the
    // whole line.
    tab.ok("send_input", json!({"text": "m /tmp/kp_v", "key": "home"}))
        .await
        .unwrap();
    let outcome = tab
        .call("send_input", json!({"text": "r", "key": "enter"}))
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied, "{outcome:?}");
    // Keys that could run a line kaiport cannot read first ask (and are refused here).
    let outcome = tab
        .call("send_input", json!({"text": "echo a", "key": "esc"}))
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied, "{outcome:?}");
    // Nothing ran, every refused line was taken back, the prompt is usable.
    let result = tab
        .ok("run_command", json!({"command": "ls /tmp/kp_v"}))
        .await
        .unwrap();
    assert_eq!(result["output"], "/tmp/kp_v", "{result}");
    // An allowed line runs.
    let screen = tab
        .ok(
            "send_input",
            json!({"text": "echo kp-typed", "key": "enter"}),
        )
        .await
        .unwrap();
    assert!(
        screen["screen"].as_str().unwrap().contains("\nkp-typed"),
        "{screen}"
    );
    // Inside a running program the input is the program's.
    let read = tab
        .ok(
            "run_command",
            json!({"command": "read answer", "timeout_s": 20}),
        )
        .await
        .unwrap();
    assert_eq!(read["status"], "awaiting_input", "{read}");
    tab.ok("send_input", json!({"text": "remove", "key": "enter"}))
        .await
        .unwrap();
    let result = tab
        .ok("run_command", json!({"command": "echo \"$answer\""}))
        .await
        .unwrap();
    assert_eq!(result["output"], "remove");
    let audit = tab.audit().unwrap();
    assert!(
        audit
            .iter()
            .any(|line| line["tool"] == "send_input" && line["decision"] == "deny"),
        "{audit:?}"
    );
}

/// The line send_input's Enter would run is read only once the shell has read every key before
/// it: a shell that falls behind (a loaded machine; here stopped for a second) would otherwise
/// show a half-edited line, which is judged and then, once the shell catches up, becomes
/// another line when Enter runs it.
#[tokio::test(flavor = "multi_thread")]
async fn send_input_judges_the_line_once_a_slow_shell_has_read_the_keys() {
    let sshd = Sshd::start().unwrap();
    let tab = open_forbidding_rm(&sshd).await;
    tab.set_approvals(Approvals::Deny);
    let file = format!("/tmp/kp_slow_{}", std::process::id());
    tab.ok("run_command", json!({"command": format!("touch {file}")}))
        .await
        .unwrap();
    let shell = tab
        .ok("run_command", json!({"command": "echo $$"}))
        .await
        .unwrap();
    let pid = shell["output"].as_str().unwrap().trim().to_owned();
    let kill = |signal: &str, pid: &str| {
        std::process::Command::new("kill")
            .args([signal, pid])
            .status()
            .is_ok_and(|status| status.success())
    };
    assert!(kill("-STOP", &pid), "kill -STOP {pid}");
    let resume = std::thread::spawn({
        let pid = pid.clone();
        move || {
            std::thread::sleep(Duration::from_secs(1));
            kill("-CONT", &pid)
        }
    });
    let outcome = tab
        .call(
            "send_input",
            json!({"text": format!("m {file}\u{1}r"), "key": "enter"}),
        )
        .await
        .unwrap();
    assert!(resume.join().unwrap(), "kill -CONT {pid}");
    assert_eq!(outcome.status, ToolStatus::Denied, "{outcome:?}");
    assert!(
        outcome.error.as_deref().unwrap_or_default().contains("rm"),
        "{outcome:?}"
    );
    let listed = tab
        .ok("run_command", json!({"command": format!("ls {file}")}))
        .await
        .unwrap();
    assert_eq!(listed["output"], file.as_str(), "{listed}");
    // What Pilot typed to find the line out is gone again: the prompt is empty.
    let screen = tab.ok("read_screen", json!({})).await.unwrap();
    let last = screen["screen"]
        .as_str()
        .unwrap()
        .lines()
        .last()
        .unwrap_or_default();
    assert!(last.trim_end().ends_with('$'), "{screen}");
    // The tab forbids rm; the server is this machine.
    std::fs::remove_file(&file).unwrap();
}

/// After a refused send_input Pilot's Ctrl-C takes the line back; a shell slow to draw its next
/// prompt (here PROMPT_COMMAND sleeps a second) must not lend that interrupted line's end
/// (status 130) to the next run_command, which gets its own output and status.
#[tokio::test(flavor = "multi_thread")]
async fn a_taken_back_line_does_not_end_the_next_command() {
    let sshd = Sshd::start().unwrap();
    let tab = open_forbidding_rm(&sshd).await;
    tab.set_approvals(Approvals::Approve);
    tab.ok(
        "run_command",
        json!({"command": "PROMPT_COMMAND=$'__s=$?; sleep 1; (exit $__s)\\n'\"$PROMPT_COMMAND\""}),
    )
    .await
    .unwrap();
    tab.set_approvals(Approvals::Deny);
    let outcome = tab
        .call(
            "send_input",
            json!({"text": "rm /tmp/kp_nothing", "key": "enter"}),
        )
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied, "{outcome:?}");
    let result = tab
        .ok("run_command", json!({"command": "echo kp-own; false"}))
        .await
        .unwrap();
    assert_eq!(result["output"], "kp-own", "{result}");
    assert_eq!(result["exit_code"], 1, "{result}");
}

/// Closing a tab observes the shell's end instead of waiting out the close
/// limit (2 s), and the tab's start does not wait a whole quiet period for a drawn prompt.
#[tokio::test(flavor = "multi_thread")]
async fn a_tab_opens_and_closes_promptly() {
    let sshd = Sshd::start().unwrap();
    let opened = std::time::Instant::now();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    tab.ok("run_command", json!({"command": "true"}))
        .await
        .unwrap();
    let open_and_run = opened.elapsed();
    let closing = std::time::Instant::now();
    tab.engine
        .handle(Op::CloseTab {
            tab: tab.tab.clone(),
        })
        .await;
    let close = closing.elapsed();
    // Hang guards, not speed goals (BENCHMARKS.md times tabs): a close that waited on a shell
    // that never ends, or a start that never saw its prompt, would take far longer.
    assert!(close < Duration::from_secs(10), "closing took {close:?}");
    assert!(
        open_and_run < Duration::from_secs(20),
        "opening and running `true` took {open_and_run:?}"
    );
    // The harness collects events on its own task.
    tab.event("TabClosed", Duration::from_secs(10), |event| {
        matches!(event, Event::TabClosed { .. })
    })
    .await
    .unwrap();
}

/// The user's keystrokes reach the program as the bytes they are, also when they are not UTF-8
/// (a terminal in a Latin-1 locale, xterm's mouse reports above 0x7f).
#[tokio::test(flavor = "multi_thread")]
async fn keystrokes_that_are_not_utf8_reach_the_program_unchanged() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    tab.ok("run_command", json!({"command": "true"}))
        .await
        .unwrap();
    let typed = |data: &[u8]| Op::TerminalInput {
        tab: tab.tab.clone(),
        data: data.to_vec(),
    };
    tab.engine
        .handle(typed(b"echo waiting-$((6*7)); head -c 3 | od -An -tx1\r"))
        .await;
    // Once the marker is printed the shell runs the pipeline: typed bytes wait there for head.
    // (What is waited for is computed, so the echoed command line does not hold it.)
    tab.output_shows("waiting-42", Duration::from_secs(20))
        .await
        .unwrap();
    tab.engine.handle(typed(&[b'a', 0xe9, 0xff, b'\n'])).await;
    tab.output_shows("61 e9 ff", Duration::from_secs(20))
        .await
        .unwrap();
}

/// A pager that keeps the normal screen (`less -X`, as systemd and git run it) ends the wait with
/// a note saying how to leave it, and plan mode lets Pilot leave it with `q`; a password prompt
/// ends the wait as `awaiting_secret`, the user types the secret, and the command goes on.
#[tokio::test(flavor = "multi_thread")]
async fn a_pager_and_a_password_prompt_end_the_wait_with_what_to_do() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Plan).await;
    let paged = tab
        .ok(
            "run_command",
            json!({"command": "seq 1 500 | less -X", "timeout_s": 60}),
        )
        .await
        .unwrap();
    assert_eq!(paged["status"], "awaiting_input", "{paged}");
    assert!(
        paged["note"].as_str().unwrap_or_default().contains("pager"),
        "{paged}"
    );
    // Plan mode refuses typing, but not leaving the pager.
    let typed = tab
        .call("send_input", json!({"text": "ls", "key": "enter"}))
        .await
        .unwrap();
    assert_eq!(typed.status, ToolStatus::Denied, "{typed:?}");
    tab.ok("send_input", json!({"text": "q"})).await.unwrap();
    let back = tab
        .ok("run_command", json!({"command": "echo back-$((2 * 21))"}))
        .await
        .unwrap();
    assert_eq!(back["status"], "completed", "{back}");
    assert_eq!(
        back["output"].as_str().unwrap_or_default().trim(),
        "back-42"
    );

    let tab = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    let asked = tab
        .ok(
            "run_command",
            json!({"command": "read -rs -p 'Password: ' pw; echo; echo \"length ${#pw}\"", "timeout_s": 60}),
        )
        .await
        .unwrap();
    assert_eq!(asked["status"], "awaiting_secret", "{asked}");
    assert!(
        asked["note"]
            .as_str()
            .unwrap_or_default()
            .contains("only the user types it"),
        "{asked}"
    );
    // The user types it in the terminal while Pilot waits with read_screen: the wait ends once
    // the prompt is gone and the output after it settled, not at the end of its 120 s (the
    // guard is shorter than that).
    let waited = tokio::time::timeout(Duration::from_secs(90), async {
        tokio::join!(
            tab.ok(
                "read_screen",
                json!({"wait_seconds": 120, "since_command": true})
            ),
            tab.type_line("s3cret-typed"),
        )
    })
    .await
    .expect("read_screen kept waiting after the password prompt was gone");
    let looked = waited.0.unwrap();
    let output = looked["command"]["output"].as_str().unwrap_or_default();
    assert!(output.contains("length 12"), "{looked}");
    assert!(!output.contains("s3cret-typed"), "{looked}");
    let audit = serde_json::to_string(&tab.audit().unwrap()).unwrap();
    assert!(!audit.contains("s3cret-typed"), "{audit}");
}

/// The host probe runs once the tab is connected, on its own channel (never in the user's
/// terminal), and its facts reach the front ends as an event.
#[tokio::test(flavor = "multi_thread")]
async fn the_host_probe_tells_what_the_server_is() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Ask).await;
    let event = tab
        .event("host facts", Duration::from_secs(60), |event| {
            matches!(event, Event::HostFacts { .. })
        })
        .await
        .unwrap();
    let Event::HostFacts { facts, .. } = event else {
        unreachable!()
    };
    assert_eq!(facts.probe_error, None, "{facts:?}");
    assert_eq!(facts.user.as_deref(), Some(sshd.user()), "{facts:?}");
    assert_eq!(
        facts.may_sudo,
        Some(false),
        "the fixture's user is in no sudo group"
    );
    assert!(
        facts
            .kernel
            .as_deref()
            .unwrap_or_default()
            .starts_with("Linux"),
        "{facts:?}"
    );
    assert!(
        facts.os.is_some() && facts.server_time.is_some(),
        "{facts:?}"
    );
    assert_eq!(facts.userland.as_deref(), Some("GNU"), "{facts:?}");
    assert_eq!(facts.package_manager.as_deref(), Some("apt"), "{facts:?}");
    // Nothing of the probe was typed into the user's terminal.
    tab.marker_round_trip("probe").await.unwrap();
    assert!(!tab.terminal_text().contains("lslink="));
}

/// A command that starts an interpreter ends the wait at the interpreter's prompt, which is not
/// taken for the shell's: the note says the next line would go into it; leaving it gives the
/// shell back.
#[tokio::test(flavor = "multi_thread")]
async fn an_interpreter_prompt_is_not_the_shells() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    let started = tab
        .ok(
            "run_command",
            json!({"command": "python3 -q", "timeout_s": 60}),
        )
        .await
        .unwrap();
    assert_eq!(started["status"], "awaiting_input", "{started}");
    assert!(
        started["note"]
            .as_str()
            .unwrap_or_default()
            .contains("an interpreter (REPL) is open"),
        "{started}"
    );
    tab.ok("send_input", json!({"text": "exit()", "key": "enter"}))
        .await
        .unwrap();
    let back = tab
        .ok("run_command", json!({"command": "echo shell-$((40 + 2))"}))
        .await
        .unwrap();
    assert_eq!(back["status"], "completed", "{back}");
    assert_eq!(
        back["output"].as_str().unwrap_or_default().trim(),
        "shell-42"
    );
}

/// read_screen with `since_command` gives the whole output of a command left running, not
/// only the screen, capped like run_command's, and later says that it ended and how; before
/// any command it says there is none. With and without shell integration.
#[tokio::test(flavor = "multi_thread")]
async fn read_screen_since_command_reads_the_running_commands_output() {
    let sshd = Sshd::start().unwrap();
    for integration in [true, false] {
        let settings = ConnectionSettings {
            output_limit_lines: 200,
            ..if integration {
                ConnectionSettings::default()
            } else {
                without_integration()
            }
        };
        let tab = open(&sshd, settings, Mode::Autopilot).await;
        let none = tab
            .call("read_screen", json!({"since_command": true}))
            .await
            .unwrap();
        assert_eq!(none.status, ToolStatus::Error, "{none:?}");
        assert!(
            none.error.unwrap().contains("no command was run"),
            "integration {integration}"
        );
        // Prints 300 lines, then waits for a line from the terminal: left waiting.
        let command = "seq 1 300; read -r answer; echo got-$answer-$((6 * 7))";
        let ran = tab
            .ok("run_command", json!({"command": command, "timeout_s": 2}))
            .await
            .unwrap();
        assert_ne!(ran["status"], "completed", "{ran}");
        let read = tab
            .ok("read_screen", json!({"since_command": true}))
            .await
            .unwrap();
        let so_far = &read["command"];
        assert_eq!(so_far["command"], command);
        assert_eq!(so_far["ended"], false, "{read}");
        let output = so_far["output"].as_str().unwrap();
        // Far more than the screen's rows, head and tail kept around the cut.
        assert!(output.starts_with("1\n2\n3\n"), "{output}");
        assert!(output.contains("\n300"), "{output}");
        assert!(
            so_far["truncated"]["omitted_lines"].as_u64().unwrap() > 0,
            "{read}"
        );
        assert!(!read["screen"].as_str().unwrap().contains("\n1\n2\n"));
        // The user (or Pilot) answers; the command ends.
        tab.ok("send_input", json!({"text": "yes", "key": "enter"}))
            .await
            .unwrap();
        // Everything the shell printed before the marker (the end mark too) has been read.
        tab.output_shows("got-yes-42", Duration::from_secs(30))
            .await
            .unwrap();
        tab.marker_round_trip("after").await.unwrap();
        let ended = tab
            .ok("read_screen", json!({"since_command": true}))
            .await
            .unwrap();
        let output = ended["command"]["output"].as_str().unwrap();
        assert!(output.contains("got-yes-42"), "{output}");
        assert_eq!(ended["command"]["ended"], integration, "{ended}");
        if integration {
            assert_eq!(ended["command"]["exit_code"], 0, "{ended}");
            let output = ended["command"]["output"].as_str().unwrap();
            assert!(output.trim_end().ends_with("got-yes-42"), "{output}");
        }
    }
}

/// A user who types the moment the first prompt shows (before the tab counts as connected,
/// while the shell integration goes in) has their keys taken and sees the command's output;
/// the integration still goes in. SSH and local tabs.
#[tokio::test(flavor = "multi_thread")]
async fn keys_typed_at_the_first_prompt_reach_the_shell() {
    let sshd = Sshd::start().unwrap();
    for (target, known_hosts) in ssh_and_local(&sshd) {
        let tab = EngineHarness::open_typing_at_the_first_prompt(
            target.clone(),
            known_hosts,
            "echo early-$((6*7))",
        )
        .await
        .unwrap();
        tab.output_shows("early-42\r\n", Duration::from_secs(10))
            .await
            .unwrap();
        let result = tab
            .ok("run_command", json!({"command": "echo after"}))
            .await
            .unwrap();
        assert_eq!(result["output"], "after", "{target:?}");
        assert_eq!(result["detection"], "shell_integration", "{target:?}");
        assert_eq!(
            tab.terminal_text().matches("early-42\r\n").count(),
            1,
            "{target:?}: {}",
            tab.terminal_text()
        );
    }
}
