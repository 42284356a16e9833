//! What the user answers on an approval card, through the whole engine against a real sshd: a
//! command edited before it runs (the user's line runs, still refused when forbidden, both lines
//! in the audit log), "always allow" (a rule in the connection's settings, then no card), a deny
//! with a reason for the model, what is at stake (`risk`) on each card, a rule taken back (audited
//! as the user's change), and a duration that leaves out the wait for the user.

use kaiport_protocol::*;
use kaiport_tests::engine_harness::{Approvals, EngineHarness};
use kaiport_tests::sshd::Sshd;
use pretty_assertions::assert_eq;
use serde_json::json;
use std::time::Duration;

async fn open(sshd: &Sshd, settings: ConnectionSettings) -> EngineHarness {
    EngineHarness::open_sshd(sshd, settings, Mode::Ask)
        .await
        .unwrap()
}

/// Each approval asked so far: its risk and the rule it offered.
fn asked(tab: &EngineHarness) -> Vec<(Risk, Option<String>)> {
    tab.events()
        .into_iter()
        .filter_map(|event| match event {
            Event::ApprovalRequested {
                risk, allow_rule, ..
            } => Some((risk, allow_rule)),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edited_command_runs_instead_and_is_recorded_with_both_lines() {
    let sshd = Sshd::start().unwrap();
    let settings = ConnectionSettings {
        forbidden_commands: vec!["rm".to_owned()],
        ..ConnectionSettings::default()
    };
    let tab = open(&sshd, settings).await;
    tab.set_approvals(Approvals::EditCommand("echo edited-5b1c"));
    let result = tab
        .ok(
            "run_command",
            json!({"command": "echo asked-5b1c", "why": "to see"}),
        )
        .await
        .unwrap();
    assert_eq!(result["output"].as_str().unwrap().trim(), "edited-5b1c");
    assert_eq!(result["edited_by_user"], "echo edited-5b1c");
    assert!(!tab.terminal_text().contains("asked-5b1c"));
    let line = tab.audit().unwrap().pop().unwrap();
    assert_eq!(line["args"]["command"], "echo asked-5b1c");
    assert_eq!(line["edited_command"], "echo edited-5b1c");
    assert_eq!(line["decided_by"], "user");
    assert!(
        line["reasons"].to_string().contains("edited the command"),
        "{line}"
    );
    assert!(line["waited_ms"].is_u64(), "{line}");

    // The user's own line is still refused when the connection forbids it.
    tab.set_approvals(Approvals::EditCommand("echo gone-5b1c; rm -f /tmp/x-5b1c"));
    let outcome = tab
        .call("run_command", json!({"command": "echo asked-again-5b1c"}))
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied);
    let error = outcome.error.unwrap();
    assert!(
        error.contains("edited the command") && error.contains("forbidden"),
        "{error}"
    );
    assert!(!tab.terminal_text().contains("gone-5b1c"));
    assert!(!tab.terminal_text().contains("asked-again-5b1c"));
}

/// The line "Always allow" is pressed for in the tests below; its rule is `df`.
const DF: &str = "df -P /";

/// Runs [`DF`] with "Always allow" on its card: the tab's settings then.
async fn always_allowed_df(tab: &EngineHarness) -> ConnectionSettings {
    tab.set_approvals(Approvals::AllowForConnection);
    tab.ok("run_command", json!({ "command": DF }))
        .await
        .unwrap();
    tab.events()
        .into_iter()
        .find_map(|event| match event {
            Event::SettingsChanged { settings, .. } => Some(settings),
            _ => None,
        })
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn always_allow_adds_the_rule_and_the_next_identical_call_runs_without_a_card() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default()).await;
    let line = DF;
    let allowed = always_allowed_df(&tab).await;
    assert_eq!(asked(&tab), vec![(Risk::Routine, Some("df".to_owned()))]);
    assert_eq!(allowed.allowed_commands, vec!["df".to_owned()]);
    let audit = tab.audit().unwrap();
    assert!(
        audit[0]["reasons"]
            .to_string()
            .contains("allowed the command `df` for this tab"),
        "{}",
        audit[0]
    );
    // The same call again: no card, allowed by the rule.
    tab.set_approvals(Approvals::Deny);
    tab.ok("run_command", json!({ "command": line }))
        .await
        .unwrap();
    assert_eq!(asked(&tab).len(), 1);
    let last = tab.audit().unwrap().pop().unwrap();
    assert_eq!(
        (last["decision"].as_str(), last["decided_by"].as_str()),
        (Some("allow"), Some("rule"))
    );
    assert!(last.get("waited_ms").is_none(), "{last}");

    // Dangerous and lock-out calls offer no rule, and say what is at stake.
    for (command, risk) in [
        ("rm -rf /tmp/never-7c1d", Risk::Dangerous),
        ("ufw disable", Risk::Lockout),
    ] {
        let outcome = tab
            .call("run_command", json!({ "command": command }))
            .await
            .unwrap();
        assert_eq!(outcome.status, ToolStatus::Denied, "{command}");
        assert_eq!(asked(&tab).pop(), Some((risk, None)), "{command}");
    }
    // Allow-for-connection on a call that offered no rule approves it alone.
    tab.set_approvals(Approvals::AllowForConnection);
    tab.ok(
        "run_command",
        json!({"command": "echo once-7c1d | tr a-z A-Z"}),
    )
    .await
    .unwrap();
    let settings = tab
        .events()
        .into_iter()
        .rev()
        .find_map(|event| match event {
            Event::SettingsChanged { settings, .. } => Some(settings),
            _ => None,
        });
    assert_eq!(settings.unwrap().allowed_commands, vec!["df".to_owned()]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_deny_reason_reaches_the_model_and_the_audit_log() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default()).await;
    tab.set_approvals(Approvals::DenyBecause("  not during\u{7} business hours  "));
    let outcome = tab
        .call("run_command", json!({"command": "echo denied-2e9a"}))
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied);
    assert_eq!(
        outcome.error.as_deref(),
        Some("the user denied this call: not during business hours")
    );
    assert!(!tab.terminal_text().contains("denied-2e9a"));
    let line = tab.audit().unwrap().pop().unwrap();
    assert_eq!(
        line["error"],
        "the user denied this call: not during business hours"
    );
    assert_eq!(line["decided_by"], "user");
}

/// A card's duration counts the work, not the time the card waited for the user: approved 1.5 s
/// after it asked, the call reports far less, and its audit line keeps the wait apart.
#[tokio::test(flavor = "multi_thread")]
async fn a_cards_duration_leaves_out_the_time_it_waited_for_approval() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default()).await;
    tab.set_approvals(Approvals::Ignore);
    let call = tab
        .start("run_command", json!({"command": "echo waited-3e9a"}))
        .await;
    tab.event(
        "the approval card",
        Duration::from_secs(60),
        |event| matches!(event, Event::ApprovalRequested { call: asked, .. } if *asked == call),
    )
    .await
    .unwrap();
    // The user takes their time; this wait is what the test is about, not a synchronisation.
    let wait = Duration::from_millis(1500);
    tokio::time::sleep(wait).await;
    tab.engine
        .handle(Op::Approve {
            call: call.clone(),
            decision: ApprovalDecision::Approve,
            reason: None,
            command: None,
            automatic: false,
        })
        .await;
    let outcome = tab.outcome(&call, Duration::from_secs(60)).await.unwrap();
    assert_eq!(outcome.status, ToolStatus::Ok, "{outcome:?}");
    let reported = tab
        .events()
        .into_iter()
        .find_map(|event| match event {
            Event::ToolFinished {
                call: finished,
                duration_ms,
                ..
            } if finished == call => Some(duration_ms),
            _ => None,
        })
        .unwrap();
    let line = tab.audit().unwrap().pop().unwrap();
    let waited = line["waited_ms"].as_u64().unwrap();
    assert!(waited >= 1500, "{line}");
    assert_eq!(line["duration_ms"].as_u64(), Some(reported), "{line}");
    // Running `echo` on a connected shell takes a fraction of the wait.
    assert!(
        reported < 750,
        "the card reports {reported} ms after a {waited} ms wait for approval"
    );
}

/// "Undo always allow" takes the rule back the way Connection settings does (`UpdateSettings`):
/// an audit line of the user's change names the rule removed, and the same call asks again.
#[tokio::test(flavor = "multi_thread")]
async fn a_rule_taken_back_is_audited_as_the_users_change_and_the_call_asks_again() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default()).await;
    let line = DF;
    let granted = always_allowed_df(&tab).await;
    assert_eq!(granted.allowed_commands, vec!["df".to_owned()]);
    tab.engine
        .handle(Op::UpdateSettings {
            tab: tab.tab.clone(),
            settings: ConnectionSettings {
                allowed_commands: Vec::new(),
                ..granted.clone()
            },
        })
        .await;
    let recorded = tab
        .event("the settings change's audit line", Duration::from_secs(10), |event| {
            matches!(event, Event::AuditRecorded { entry } if entry.tool == "connection_settings")
        })
        .await
        .unwrap();
    let Event::AuditRecorded { entry } = recorded else {
        unreachable!()
    };
    assert_eq!(
        (
            entry.decided_by,
            entry.status,
            entry.tab.as_str(),
            entry.call.starts_with("user-")
        ),
        (
            Some(DecidedBy::User),
            ToolStatus::Ok,
            tab.tab.as_str(),
            true
        )
    );
    assert_eq!(
        entry.args,
        json!({"changed": {"allowed_commands": {"removed": ["df"]}}})
    );
    assert_eq!(
        tab.audit().unwrap().pop().unwrap()["tool"],
        "connection_settings"
    );
    // The same settings again change nothing, and say nothing.
    tab.engine
        .handle(Op::UpdateSettings {
            tab: tab.tab.clone(),
            settings: ConnectionSettings {
                allowed_commands: Vec::new(),
                ..granted
            },
        })
        .await;
    // Without the rule the same call asks again.
    tab.set_approvals(Approvals::Deny);
    let outcome = tab
        .call("run_command", json!({ "command": line }))
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied);
    assert_eq!(asked(&tab).len(), 2);
    let settings_lines = tab
        .audit()
        .unwrap()
        .into_iter()
        .filter(|line| line["tool"] == "connection_settings")
        .count();
    assert_eq!(settings_lines, 1);
}
