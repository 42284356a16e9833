//! Saved connections, their settings, the audit log and changed host keys through the engine's
//! ops and events (what the browser's sidebar, settings dialog and audit view use), against a
//! real sshd.

use kaiport_core::{Engine, EngineConfig, EventStream};
use kaiport_protocol::*;
use kaiport_tests::sshd::Sshd;
use pretty_assertions::assert_eq;
use serde_json::json;
use std::time::Duration;

/// The next event `pick` takes, skipping others (terminal output and the like).
pub(crate) async fn next<T>(
    events: &mut EventStream,
    mut pick: impl FnMut(Event) -> Option<T>,
) -> T {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("the awaited event did not come in 30 s")
            .expect("the engine stopped");
        if let Some(found) = pick(event) {
            return found;
        }
    }
}

pub(crate) fn ssh_target(sshd: &Sshd) -> TabTarget {
    TabTarget::Ssh {
        host: "127.0.0.1".to_owned(),
        port: sshd.port(),
        user: sshd.user().to_owned(),
        identity_files: vec![sshd.keys.ed25519.display().to_string()],
        jump_hosts: Vec::new(),
        keep_session: false,
        certificate_files: Vec::new(),
        identity_agent: None,
        forward_agent: false,
    }
}

fn listed(event: Event) -> Option<Vec<SavedConnection>> {
    match event {
        Event::SavedConnections { connections } => Some(connections),
        _ => None,
    }
}

fn error(event: Event) -> Option<String> {
    match event {
        Event::Error { tab: None, message } => Some(message),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_saved_connection_opens_with_its_settings_and_its_calls_are_audited() {
    let sshd = Sshd::start().unwrap();
    let home = tempfile::tempdir().unwrap();
    let config = EngineConfig::in_dir(home.path());
    sshd.write_known_hosts(&config.known_hosts).unwrap();
    let (engine, mut events) = Engine::new(config).unwrap();

    engine.handle(Op::ListConnections).await;
    assert_eq!(next(&mut events, listed).await, vec![]);

    let settings = ConnectionSettings {
        forbidden_commands: vec!["rm".to_owned()],
        ..ConnectionSettings::default()
    };
    let save = Op::SaveConnection {
        name: "web1".to_owned(),
        target: ssh_target(&sshd),
        settings: Some(settings.clone()),
        secrets: Vec::new(),
        replace: false,
    };
    engine.handle(save.clone()).await;
    let saved = next(&mut events, listed).await;
    assert_eq!(
        saved,
        vec![SavedConnection {
            name: "web1".to_owned(),
            kind: "ssh".to_owned(),
            address: format!("ssh://{}@127.0.0.1:{}", sshd.user(), sshd.port()),
            target: ssh_target(&sshd),
            settings: settings.clone(),
            tags: vec![],
        }]
    );
    engine.handle(save).await;
    assert!(next(&mut events, error).await.contains("exists already"));

    // Tags: set through the op, listed, a bad one refused naming it.
    engine
        .handle(Op::SetConnectionTags {
            name: "web1".to_owned(),
            tags: vec!["web".to_owned(), " eu ".to_owned()],
        })
        .await;
    let tagged = next(&mut events, listed).await;
    assert_eq!(tagged[0].tags, vec!["web".to_owned(), "eu".to_owned()]);
    engine
        .handle(Op::SetConnectionTags {
            name: "web1".to_owned(),
            tags: vec!["x".repeat(65)],
        })
        .await;
    assert!(next(&mut events, error).await.contains("longer than 64"));

    // A bad value is refused with its name; nothing is saved.
    engine
        .handle(Op::UpdateConnectionSettings {
            name: "web1".to_owned(),
            settings: ConnectionSettings {
                file_limit_kb: 0,
                ..settings.clone()
            },
        })
        .await;
    assert_eq!(
        next(&mut events, error).await,
        "web1: file_limit_kb must be a whole number from 1 to 2048, not 0"
    );

    engine
        .handle(Op::OpenTab {
            tab: "t1".to_owned(),
            target: TabTarget::Profile {
                name: "web1".to_owned(),
            },
            cols: 100,
            rows: 30,
            settings: None,
            mode: None,
        })
        .await;
    next(&mut events, |event| match event {
        Event::ConnectionState {
            state: ConnectionState::Connected,
            ..
        } => Some(()),
        Event::ConnectionState {
            state: ConnectionState::Failed { error },
            ..
        } => panic!("{error}"),
        _ => None,
    })
    .await;
    engine
        .handle(Op::ReadSettings {
            tab: "t1".to_owned(),
        })
        .await;
    let tab_settings = next(&mut events, |event| match event {
        Event::SettingsChanged { settings, .. } => Some(settings),
        _ => None,
    })
    .await;
    assert_eq!(tab_settings, settings);
    // A tab's settings are checked too: the error names the setting and the tab.
    engine
        .handle(Op::UpdateSettings {
            tab: "t1".to_owned(),
            settings: ConnectionSettings {
                output_limit_lines: 1,
                ..settings.clone()
            },
        })
        .await;
    let refused = next(&mut events, |event| match event {
        Event::Error {
            tab: Some(tab),
            message,
        } => Some((tab, message)),
        Event::SettingsChanged { .. } => panic!("an invalid setting was applied"),
        _ => None,
    })
    .await;
    assert_eq!(
        refused,
        (
            "t1".to_owned(),
            "output_limit_lines must be a whole number from 10 to 100000, not 1".to_owned()
        )
    );

    engine
        .handle(Op::RunTool {
            tab: "t1".to_owned(),
            call: "c1".to_owned(),
            tool: "run_command".to_owned(),
            args: json!({"command": "rm -rf /tmp/kaiport-nothing-here"}),
        })
        .await;
    let recorded = next(&mut events, |event| match event {
        Event::AuditRecorded { entry } => Some(entry),
        _ => None,
    })
    .await;
    assert_eq!(
        (
            recorded.tool.as_str(),
            recorded.call.as_str(),
            recorded.connection.as_str(),
            recorded.decision,
            recorded.decided_by,
            recorded.status
        ),
        (
            "run_command",
            "c1",
            "web1",
            Verdict::Deny,
            Some(DecidedBy::Rule),
            ToolStatus::Denied
        )
    );
    engine.handle(Op::ReadAudit { limit: 10 }).await;
    let (path, entries) = next(&mut events, |event| match event {
        Event::AuditLog { path, entries } => Some((path, entries)),
        _ => None,
    })
    .await;
    assert_eq!(entries, vec![recorded]);
    assert!(path.ends_with("ai-audit.jsonl"), "{path}");

    // File contents for the saved connection: the tab's settings and the saved ones change,
    // through the same ops as the Connection settings dialog.
    engine
        .handle(Op::RunTool {
            tab: "t1".to_owned(),
            call: "c2".to_owned(),
            tool: "read_file".to_owned(),
            args: json!({"path": "/etc/passwd"}),
        })
        .await;
    let (call, reasons) = next(&mut events, |event| match event {
        Event::ApprovalRequested {
            call,
            reasons,
            permission: Some(Permission::FileContents),
            ..
        } => Some((call, reasons)),
        _ => None,
    })
    .await;
    assert!(reasons[0].contains("This saved connection"), "{reasons:?}");
    let for_the_connection = |call| Op::Approve {
        call,
        decision: ApprovalDecision::AllowForConnection,
        reason: None,
        command: None,
        automatic: false,
    };
    engine.handle(for_the_connection(call)).await;
    // The call's end and, through the UpdateConnectionSettings path (which answers with the
    // saved connections), the saved settings: in either order.
    let (mut outcome, mut listed_now) = (None, None);
    next(&mut events, |event| {
        match event {
            Event::ToolFinished {
                call, outcome: o, ..
            } if call == "c2" => outcome = Some(o),
            Event::SavedConnections { connections } => listed_now = Some(connections),
            _ => {}
        }
        (outcome.is_some() && listed_now.is_some()).then_some(())
    })
    .await;
    let (outcome, listed_now) = (outcome.unwrap(), listed_now.unwrap());
    assert_eq!(outcome.status, ToolStatus::Ok, "{outcome:?}");
    assert!(listed_now[0].settings.send_file_contents);
    assert_eq!(
        listed_now[0].settings,
        ConnectionSettings {
            send_file_contents: true,
            ..settings.clone()
        }
    );

    // "Always allow this command": the offered rule goes into the saved settings the same way.
    engine
        .handle(Op::RunTool {
            tab: "t1".to_owned(),
            call: "c3".to_owned(),
            tool: "run_command".to_owned(),
            args: json!({"command": "df -P /"}),
        })
        .await;
    let (call, rule) = next(&mut events, |event| match event {
        Event::ApprovalRequested {
            call, allow_rule, ..
        } => Some((call, allow_rule)),
        _ => None,
    })
    .await;
    assert_eq!(rule.as_deref(), Some("df"));
    engine.handle(for_the_connection(call)).await;
    let listed_now = next(&mut events, listed).await;
    assert_eq!(
        listed_now[0].settings.allowed_commands,
        vec!["df".to_owned()]
    );

    engine
        .handle(Op::DeleteConnection {
            name: "web1".to_owned(),
        })
        .await;
    assert_eq!(next(&mut events, listed).await, vec![]);
    engine
        .handle(Op::CloseTab {
            tab: "t1".to_owned(),
        })
        .await;
}

/// A server whose key changed (restarted with new host keys): the tab is refused with both
/// fingerprints and the stored line; replacing the key needs the new fingerprint typed (a wrong
/// one replaces nothing), the right one replaces just that line, the tab then connects, and
/// both attempts are audit lines.
#[tokio::test(flavor = "multi_thread")]
async fn a_changed_host_key_is_refused_and_replaced_only_deliberately() {
    let mut sshd = Sshd::start().unwrap();
    let home = tempfile::tempdir().unwrap();
    let config = EngineConfig::in_dir(home.path());
    std::fs::write(&config.known_hosts, sshd.known_hosts_lines().unwrap()).unwrap();
    let old = sshd.host_fingerprint().unwrap();
    sshd.restart_with_new_host_keys().unwrap();
    let new = sshd.host_fingerprint().unwrap();
    assert_ne!(old, new);
    let before = std::fs::read_to_string(&config.known_hosts).unwrap();
    let known_hosts = config.known_hosts.display().to_string();
    let (engine, mut events) = Engine::new(config.clone()).unwrap();
    let open = |tab: &str| Op::OpenTab {
        tab: tab.to_owned(),
        target: ssh_target(&sshd),
        cols: 100,
        rows: 30,
        settings: None,
        mode: None,
    };
    engine.handle(open("t1")).await;
    let changed = next(&mut events, |event| match event {
        Event::HostKeyChanged {
            tab,
            host,
            port,
            key_type,
            fingerprint,
            old_fingerprint,
            known_hosts,
            line,
        } => Some((
            tab,
            host,
            port,
            key_type,
            fingerprint,
            old_fingerprint,
            known_hosts,
            line,
        )),
        Event::PromptRequested { prompt, .. } => panic!("asked instead of refusing: {prompt:?}"),
        _ => None,
    })
    .await;
    assert_eq!(
        changed,
        (
            "t1".to_owned(),
            "127.0.0.1".to_owned(),
            sshd.port(),
            "ED25519".to_owned(),
            new.clone(),
            old.clone(),
            known_hosts.clone(),
            1
        )
    );
    let failed = next(&mut events, |event| match event {
        Event::ConnectionState {
            state: ConnectionState::Failed { error },
            ..
        } => Some(error),
        _ => None,
    })
    .await;
    assert!(failed.contains(&old) && failed.contains(&new), "{failed}");

    let replace = |confirmation: &str| Op::ReplaceHostKey {
        tab: Some("t1".to_owned()),
        host: "127.0.0.1".to_owned(),
        port: sshd.port(),
        confirmation: confirmation.to_owned(),
    };
    let answer = |event: Event| match event {
        Event::HostKeyReplaced {
            line,
            old_fingerprint,
            fingerprint,
            ..
        } => Some(Ok((line, old_fingerprint, fingerprint))),
        Event::Error { message, .. } => Some(Err(message)),
        _ => None,
    };
    // The old key's tail, a near miss and an empty answer replace nothing.
    let tail = |fp: &str| fp[fp.len() - 8..].to_owned();
    let near_miss = format!("{}x", &tail(&new)[..7]);
    for wrong in [tail(&old), near_miss, String::new()] {
        engine.handle(replace(&wrong)).await;
        let refused = next(&mut events, answer).await.unwrap_err();
        assert!(refused.starts_with("nothing was replaced"), "{refused}");
        assert!(refused.contains(&new), "{refused}");
        assert_eq!(
            std::fs::read_to_string(&config.known_hosts).unwrap(),
            before
        );
    }
    engine.handle(replace(&tail(&new))).await;
    let (line, removed, added) = next(&mut events, answer).await.unwrap();
    assert_eq!((removed, added.as_str()), (old.clone(), new.as_str()));
    let after = std::fs::read_to_string(&config.known_hosts).unwrap();
    // Only the ed25519 line went; the other types' lines stay, and the new key is the last.
    assert_eq!(after.lines().count(), before.lines().count());
    assert_eq!(line as usize, after.lines().count());
    assert_eq!(
        after.lines().take(2).collect::<Vec<_>>(),
        before.lines().skip(1).take(2).collect::<Vec<_>>()
    );

    engine.handle(open("t2")).await;
    next(&mut events, |event| match event {
        Event::ConnectionState {
            tab,
            state: ConnectionState::Connected,
        } if tab == "t2" => Some(()),
        Event::ConnectionState {
            tab,
            state: ConnectionState::Failed { error },
        } if tab == "t2" => panic!("{error}"),
        _ => None,
    })
    .await;
    let audit = kaiport_core::audit::read_recent(&config.audit_path, 100).unwrap();
    let statuses: Vec<ToolStatus> = audit
        .iter()
        .filter(|entry| entry.tool == "replace_host_key")
        .inspect(|entry| assert!(entry.call.starts_with("user-"), "{}", entry.call))
        .map(|entry| entry.status)
        .collect();
    assert_eq!(
        statuses,
        vec![
            ToolStatus::Denied,
            ToolStatus::Denied,
            ToolStatus::Denied,
            ToolStatus::Ok
        ]
    );
    engine
        .handle(Op::CloseTab {
            tab: "t2".to_owned(),
        })
        .await;
}
