//! The policy through the whole engine against a real sshd: forbidden commands never reach the
//! terminal, lock-out changes stop for approval in autopilot, plan mode runs only reading
//! commands, and propose_plan / update_plan live from proposal to approved plan with the events a
//! UI renders.

use kaiport_protocol::*;
use kaiport_tests::engine_harness::{Approvals, EngineHarness};
use kaiport_tests::sshd::Sshd;
use pretty_assertions::assert_eq;
use serde_json::json;

async fn open(sshd: &Sshd, settings: ConnectionSettings, mode: Mode) -> EngineHarness {
    EngineHarness::open_sshd(sshd, settings, mode)
        .await
        .unwrap()
}

pub(super) fn approvals_asked(tab: &EngineHarness) -> Vec<(Vec<String>, Risk)> {
    tab.events()
        .into_iter()
        .filter_map(|event| match event {
            Event::ApprovalRequested { reasons, risk, .. } => Some((reasons, risk)),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn forbidden_commands_are_never_typed() {
    let sshd = Sshd::start().unwrap();
    let settings = ConnectionSettings {
        forbidden_commands: vec!["rm".to_owned(), "systemctl restart".to_owned()],
        ..ConnectionSettings::default()
    };
    let tab = open(&sshd, settings, Mode::Autopilot).await;
    // A control: allowed commands do reach the terminal.
    let result = tab
        .ok("run_command", json!({"command": "echo control-7f3a"}))
        .await
        .unwrap();
    assert_eq!(result["output"].as_str().unwrap().trim(), "control-7f3a");
    for (marker, line) in [
        ("m1-9c2e", "echo m1-9c2e; rm -rf /tmp/never"),
        ("m2-9c2e", "echo m2-9c2e && sudo -u nobody /bin/rm x"),
        ("m3-9c2e", "bash -c 'echo m3-9c2e; r\"\"m x'"),
        ("m4-9c2e", "echo m4-9c2e | xargs rm"),
        ("m5-9c2e", "find /tmp -name m5-9c2e -exec rm {} \\;"),
        ("m6-9c2e", "echo m6-9c2e; systemctl --quiet restart ssh"),
    ] {
        let outcome = tab
            .call("run_command", json!({ "command": line }))
            .await
            .unwrap();
        assert_eq!(outcome.status, ToolStatus::Denied, "{line}");
        assert!(
            outcome.error.as_deref().unwrap().contains("forbidden"),
            "{line}: {:?}",
            outcome.error
        );
        assert!(
            !tab.terminal_text().contains(marker),
            "{line} reached the terminal"
        );
    }
    // No approval was asked: a forbidden command is refused outright.
    assert_eq!(approvals_asked(&tab), Vec::new());
    let audit = tab.audit().unwrap();
    let denied = audit
        .iter()
        .filter(|line| line["decision"] == "deny")
        .count();
    assert_eq!(denied, 6);
}

#[tokio::test(flavor = "multi_thread")]
async fn autopilot_stops_for_lockout_changes() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    tab.set_approvals(Approvals::Deny);
    for (marker, line) in [
        (
            "l1-51d0",
            "echo l1-51d0; echo 'PermitRootLogin yes' >> /etc/ssh/sshd_config",
        ),
        (
            "l2-51d0",
            "echo l2-51d0; sudo sed -i 's/^#Port 22/Port 2222/' /etc/ssh/sshd_config",
        ),
        (
            "l3-51d0",
            "echo l3-51d0; cd ~/.ssh && echo key >> authorized_keys",
        ),
    ] {
        let before = approvals_asked(&tab).len();
        let outcome = tab
            .call("run_command", json!({ "command": line }))
            .await
            .unwrap();
        assert_eq!(outcome.status, ToolStatus::Denied, "{line}");
        let asked = approvals_asked(&tab);
        assert_eq!(asked.len(), before + 1, "{line}: no approval asked");
        let (reasons, risk) = asked.last().unwrap();
        assert_eq!(*risk, Risk::Lockout, "{line}");
        assert!(
            reasons.iter().any(|reason| reason.contains("lock you out")),
            "{line}: {reasons:?}"
        );
        assert!(!tab.terminal_text().contains(marker), "{line} was typed");
    }
    // Approved, it runs (the user decides; autopilot never does).
    tab.set_approvals(Approvals::Approve);
    // In a fresh folder of the server user's (a relative authorized_keys still counts).
    let command = "cd \"$(mktemp -d)\" && mkdir .ssh && cd .ssh && echo key-8e1f >> authorized_keys && cat authorized_keys";
    let result = tab
        .ok("run_command", json!({ "command": command }))
        .await
        .unwrap();
    assert_eq!(result["output"].as_str().unwrap().trim(), "key-8e1f");
    let last = tab.audit().unwrap().pop().unwrap();
    assert_eq!(last["decided_by"], "user");
    let (reasons, _) = approvals_asked(&tab).pop().unwrap();
    assert!(
        reasons.iter().any(|reason| reason.contains("lock you out")),
        "{reasons:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn plan_mode_reads_then_plan_approval_switches_to_ask() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Plan).await;
    // Reading commands run without asking.
    let result = tab
        .ok(
            "run_command",
            json!({"command": "echo plan-read-0b; ls / | head -n 3"}),
        )
        .await
        .unwrap();
    assert!(result["output"].as_str().unwrap().contains("plan-read-0b"));
    // Anything that changes something is refused with a reason to act on.
    let marker = sshd.dir().join("plan-mode-must-not-exist");
    let outcome = tab
        .call(
            "run_command",
            json!({"command": format!("touch {}", marker.display())}),
        )
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied);
    assert!(
        outcome.error.as_deref().unwrap().contains("propose_plan"),
        "{:?}",
        outcome.error
    );
    assert!(!marker.exists());
    let outcome = tab.call("send_input", json!({"text": "y"})).await.unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied);
    // Status updates need an approved plan.
    let outcome = tab
        .call("update_plan", json!({"step": 1, "status": "done"}))
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Error);
    assert!(outcome.error.unwrap().contains("no approved plan"));
    // Too many steps: the model's to fix.
    let steps: Vec<_> = (0..31)
        .map(|i| json!({"title": format!("s{i}"), "kind": "check"}))
        .collect();
    let outcome = tab
        .call(
            "propose_plan",
            json!({"title": "t", "findings": "f", "steps": steps}),
        )
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Error);

    // The proposal: a card, an approval, then ask mode.
    let result = tab
        .ok(
            "propose_plan",
            json!({
                "title": "Rotate nginx logs",
                "findings": "logs are 4 GB",
                "steps": [
                    {"title": "check disk", "kind": "check"},
                    {"title": "compress old logs", "kind": "command", "detail": "gzip *.log.1"}
                ]
            }),
        )
        .await
        .unwrap();
    assert_eq!(result["approved"], true);
    assert_eq!(result["steps"].as_array().unwrap().len(), 2);
    let events = tab.events();
    let proposed = events
        .iter()
        .position(|event| matches!(event, Event::PlanProposed { plan, .. } if plan.phase == PlanPhase::Proposed && plan.steps.len() == 2))
        .expect("PlanProposed");
    let asked = events
        .iter()
        .position(|event| matches!(event, Event::ApprovalRequested { tool, preview: Some(ApprovalPreview::Operations { lines }), .. } if tool == "propose_plan" && lines == &["1. check disk", "2. compress old logs"]))
        .expect("approval with the steps");
    let switched = events
        .iter()
        .position(|event| {
            matches!(
                event,
                Event::ModeChanged {
                    mode: Mode::Ask,
                    ..
                }
            )
        })
        .expect("ModeChanged to ask");
    let approved = events
        .iter()
        .position(|event| matches!(event, Event::PlanUpdated { plan, .. } if plan.phase == PlanPhase::Approved))
        .expect("PlanUpdated approved");
    assert!(proposed < asked && asked < approved && approved < switched);

    // Now in ask mode: the plan's steps report progress without approval.
    tab.set_approvals(Approvals::Deny);
    let result = tab
        .ok(
            "update_plan",
            json!({"step": 1, "status": "done", "note": "12 GB free"}),
        )
        .await
        .unwrap();
    assert_eq!(result["steps"][0]["status"], "done");
    assert_eq!(result["steps"][0]["note"], "12 GB free");
    // An added step waits for the user: refused, it is gone.
    let outcome = tab
        .call(
            "update_plan",
            json!({"add": {"title": "restart nginx", "kind": "command"}}),
        )
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied);
    let last_card = |tab: &EngineHarness| {
        tab.events()
            .into_iter()
            .rev()
            .find_map(|event| match event {
                Event::PlanUpdated { plan, .. } => Some(plan),
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(last_card(&tab).steps.len(), 2);
    // Confirmed, it stays.
    tab.set_approvals(Approvals::Approve);
    let result = tab
        .ok(
            "update_plan",
            json!({"add": {"title": "reload nginx", "kind": "command"}}),
        )
        .await
        .unwrap();
    assert_eq!(result["steps"][2]["title"], "reload nginx");
    assert_eq!(result["steps"][2]["awaiting_confirmation"], false);
    assert_eq!(last_card(&tab).steps.len(), 3);
    // Once: no second plan.
    let outcome = tab
        .call(
            "propose_plan",
            json!({"title": "again", "findings": "", "steps": [{"title": "x", "kind": "read"}]}),
        )
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied);
}

#[tokio::test(flavor = "multi_thread")]
async fn refused_plan_keeps_plan_mode() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default(), Mode::Plan).await;
    tab.set_approvals(Approvals::Deny);
    let outcome = tab
        .call(
            "propose_plan",
            json!({"title": "t", "findings": "f", "steps": [{"title": "x", "kind": "edit"}]}),
        )
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied);
    let events = tab.events();
    assert!(events.iter().any(
        |event| matches!(event, Event::PlanUpdated { plan, .. } if plan.phase == PlanPhase::Rejected)
    ));
    assert!(
        !events
            .iter()
            .any(|event| matches!(event, Event::ModeChanged { .. }))
    );
    // Still plan mode: changes are refused.
    let outcome = tab
        .call("run_command", json!({"command": "touch /tmp/x-plan"}))
        .await
        .unwrap();
    assert_eq!(outcome.status, ToolStatus::Denied);
    // A revised plan may be proposed.
    tab.set_approvals(Approvals::Approve);
    let result = tab
        .ok(
            "propose_plan",
            json!({"title": "t2", "findings": "f", "steps": [{"title": "y", "kind": "check"}]}),
        )
        .await
        .unwrap();
    assert_eq!(result["approved"], true);
}
