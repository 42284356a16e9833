//! Life in the background (`Op::AppBackground` / `Op::AppForeground`, `kaiport_core::lifecycle`)
//! against a real sshd and the scripted model server: a server that went silent meanwhile is
//! found dropped within 2 s of coming back, a live one is left alone; a Pilot turn that ran
//! through a suspension ends with a note to the user and to the model, and one whose page was
//! only hidden goes on.

use kaiport_core::lifecycle::{CHECK_TIMEOUT, HEARTBEAT, SUSPENDED_AFTER};
use kaiport_protocol::*;
use kaiport_tests::engine_harness::EngineHarness;
use kaiport_tests::model_server::ModelServer;
use kaiport_tests::sshd::Sshd;
use pretty_assertions::assert_eq;
use serde_json::json;
use std::time::Duration;

/// The tab dropped (and, by default, reconnects by itself).
fn dropped(event: &Event) -> bool {
    matches!(
        event,
        Event::ConnectionState {
            state: ConnectionState::Reconnecting { .. },
            ..
        }
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_gone_silent_in_the_background_is_dropped_within_two_seconds_of_foreground() {
    let sshd = Sshd::start().unwrap();
    let tab = super::engine::open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    tab.ok("run_command", json!({"command": "echo before"}))
        .await
        .unwrap();

    // Away and back with a live server: the check passes and nothing changes.
    tab.engine.handle(Op::AppBackground).await;
    tab.engine.handle(Op::AppForeground).await;
    // By design: a passing check reports nothing, and a failing one only after CHECK_TIMEOUT.
    tokio::time::sleep(CHECK_TIMEOUT + Duration::from_millis(500)).await;
    assert!(
        !tab.events().iter().any(dropped),
        "a live server was dropped"
    );
    let result = tab
        .ok("run_command", json!({"command": "echo still-here"}))
        .await
        .unwrap();
    assert_eq!(result["output"].as_str().unwrap().trim(), "still-here");

    // Away again, and meanwhile the server side goes silent (as after a network change).
    tab.engine.handle(Op::AppBackground).await;
    sshd.freeze_connections();
    assert!(
        !tab.events().iter().any(dropped),
        "nothing can have noticed yet: keep-alives are 15 s apart"
    );
    tab.engine.handle(Op::AppForeground).await;
    // Well before keep-alives could tell (three missed, 15 s apart); the reason below says it
    // was the check on coming back.
    let event = tab
        .event("the tab dropped", Duration::from_secs(10), dropped)
        .await
        .unwrap();
    let Event::ConnectionState {
        state: ConnectionState::Reconnecting { reason, .. },
        ..
    } = event
    else {
        unreachable!()
    };
    assert!(reason.contains("did not answer"), "{reason}");
    // A call after that fails at once rather than waiting on the dead connection.
    let outcome = tokio::time::timeout(
        Duration::from_secs(10),
        tab.call("run_command", json!({"command": "true"})),
    )
    .await
    .unwrap()
    .unwrap();
    assert_ne!(outcome.status, ToolStatus::Ok);
    // sshd itself still takes logins: a new tab (what "Reconnect" opens) works.
    sshd.kill_connections();
    let again = super::engine::open(&sshd, ConnectionSettings::default(), Mode::Autopilot).await;
    let result = again
        .ok("run_command", json!({"command": "echo reconnected"}))
        .await
        .unwrap();
    assert_eq!(result["output"].as_str().unwrap().trim(), "reconnected");
}

fn turn_finished(event: &Event) -> bool {
    matches!(event, Event::TurnFinished { .. })
}

/// The engine's whole process is suspended, as iOS suspends an app: on this current-thread
/// runtime nothing of the engine runs while the thread sleeps.
#[tokio::test(flavor = "current_thread")]
async fn a_turn_running_through_a_suspension_ends_with_a_note_to_the_user_and_the_model() {
    // The first command ends when the test says (so the turn is seen going on after a hidden
    // spell); the second is still running when the engine is suspended.
    let release = tempfile::tempdir().unwrap();
    let flag = release.path().join("go");
    let model = ModelServer::from_json(json!({"steps": [
        {
            "respond": {"text": "Waiting for it.", "tool_calls": [
                {"name": "run_command", "arguments": {
                    "command": format!("until [ -e {} ]; do sleep 0.1; done; echo released", flag.display()),
                    "timeout_s": 120
                }}
            ]}
        },
        {
            "expect": {"last_result_contains": ["released"]},
            "respond": {"text": "Waiting again.", "tool_calls": [
                {"name": "run_command", "arguments": {"command": "sleep 30", "timeout_s": 120}}
            ]}
        },
        {
            "expect": {"body_contains": ["Note from kaiport", "suspended in the background", "go on"]},
            "respond": {"text": "I looked again."}
        }
    ]}))
    .unwrap();
    let tab = EngineHarness::open(
        TabTarget::Local,
        None,
        ConnectionSettings::default(),
        Mode::Autopilot,
    )
    .await
    .unwrap();
    let settings = model.openai_settings();
    let send = |text: &str| Op::SendMessage {
        tab: tab.tab.clone(),
        text: text.to_owned(),
        model: Some(settings.clone()),
    };
    tab.engine.handle(send("wait for the job")).await;
    let first = tab
        .event(
            "the first command running",
            Duration::from_secs(20),
            |event| matches!(event, Event::ToolRunning { .. }),
        )
        .await
        .unwrap();
    let Event::ToolRunning { call: first, .. } = first else {
        unreachable!()
    };

    // Hidden, but running all along (a desktop page in the background): the turn goes on.
    tab.engine.handle(Op::AppBackground).await;
    // By design: the heartbeat must tick a few times to show the engine was not suspended.
    tokio::time::sleep(HEARTBEAT * 4).await;
    tab.engine.handle(Op::AppForeground).await;
    // On this one thread, a foreground that wrongly ended the turn runs before the command can
    // end: the turn would not reach its second command.
    std::fs::write(&flag, "").unwrap();
    tab.event(
        "the second command running",
        Duration::from_secs(20),
        |event| matches!(event, Event::ToolRunning { call, .. } if *call != first),
    )
    .await
    .unwrap();
    assert!(
        !tab.events().iter().any(turn_finished),
        "{:?}",
        tab.events()
    );

    // Suspended for longer than SUSPENDED_AFTER: that time must pass, by design.
    tab.engine.handle(Op::AppBackground).await;
    std::thread::sleep(SUSPENDED_AFTER + Duration::from_millis(500));
    tab.engine.handle(Op::AppForeground).await;
    let finished = tab
        .event("the turn's end", Duration::from_secs(5), turn_finished)
        .await
        .unwrap();
    let Event::TurnFinished {
        status, message, ..
    } = finished
    else {
        unreachable!()
    };
    assert_eq!(status, TurnStatus::Interrupted);
    let message = message.unwrap_or_default();
    assert!(message.contains("in the background"), "{message}");
    assert!(message.contains("may still be running"), "{message}");

    // The next message: the model reads the note before it.
    tab.engine.handle(send("go on")).await;
    tab.event("the second turn's end", Duration::from_secs(20), |event| {
        matches!(
            event,
            Event::TurnFinished {
                status: TurnStatus::Completed,
                ..
            }
        )
    })
    .await
    .unwrap();
    assert_eq!(model.failures(), Vec::<String>::new());
    assert_eq!(model.remaining_steps(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_transfer_cut_in_the_background_fails_on_foreground_and_retries() {
    let sshd = Sshd::start().unwrap();
    let known_hosts = sshd.dir().join("lifecycle_known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    let shared = sshd.writable_folder().unwrap();
    let local = tempfile::tempdir().unwrap();
    // Big enough to be still on its way when the server goes silent.
    let data: Vec<u8> = (0..96 * 1024 * 1024_u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(local.path().join("big.bin"), &data).unwrap();
    let tab = EngineHarness::open_with_secret(
        sshd.sftp_storage(shared.path(), vec![local.path().display().to_string()]),
        Some(known_hosts),
        ConnectionSettings::default(),
        Mode::Autopilot,
        None,
    )
    .await
    .unwrap();
    let call = tab
        .start(
            "upload",
            json!({"local_path": local.path().join("big.bin").display().to_string(), "remote_dir": "/"}),
        )
        .await;
    tab.event("the upload moving", Duration::from_secs(30), |event| {
        matches!(event, Event::TransferProgress { call: c, transferred, .. } if *c == call && *transferred > 0)
    })
    .await
    .unwrap();
    tab.engine.handle(Op::AppBackground).await;
    sshd.freeze_connections();
    tab.engine.handle(Op::AppForeground).await;
    // Well before keep-alives could tell: the check on coming back cut it.
    let outcome = tab.outcome(&call, Duration::from_secs(10)).await.unwrap();
    assert_eq!(outcome.status, ToolStatus::Error, "{outcome:?}");
    let error = outcome.error.unwrap_or_default();
    assert!(error.contains("the transfer was cut"), "{error}");
    // A storage tab is not dropped: it connects again for the next call, and Retry works.
    assert!(!tab.events().iter().any(dropped));
    sshd.kill_connections();
    tab.engine
        .handle(Op::RetryTransfer {
            tab: tab.tab.clone(),
            call: call.clone(),
            new_call: "retried".to_owned(),
        })
        .await;
    let retried = tab
        .outcome("retried", Duration::from_secs(120))
        .await
        .unwrap();
    assert_eq!(retried.status, ToolStatus::Ok, "{retried:?}");
    assert!(std::fs::read(shared.path().join("big.bin")).unwrap() == data);
}
