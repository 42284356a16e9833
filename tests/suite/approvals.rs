//! What the user answers on an approval card, through the whole engine against a real sshd: a
//! command edited before it runs (the user's line runs, still refused when forbidden, both lines
//! in the audit log), "always allow" (a rule in the connection's settings, then no card), a deny
//! with a reason for the model, and what is at stake (`risk`) on each card.

use kaiport_protocol::*;
use kaiport_tests::engine_harness::{Approvals, EngineHarness};
use kaiport_tests::sshd::Sshd;
use pretty_assertions::assert_eq;
use serde_json::json;

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

#[tokio::test(flavor = "multi_thread")]
async fn always_allow_adds_the_rule_and_the_next_identical_call_runs_without_a_card() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default()).await;
    tab.set_approvals(Approvals::AllowForConnection);
    let line = "df -P /";
    tab.ok("run_command", json!({ "command": line }))
        .await
        .unwrap();
    assert_eq!(asked(&tab), vec![(Risk::Routine, Some("df".to_owned()))]);
    let allowed = tab.events().into_iter().find_map(|event| match event {
        Event::SettingsChanged { settings, .. } => Some(settings.allowed_commands),
        _ => None,
    });
    assert_eq!(allowed, Some(vec!["df".to_owned()]));
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
