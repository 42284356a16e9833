//! Broadcast input through the engine's ops against three real sshd instances on loopback: a
//! line typed once goes with Enter into every tab; a line one tab's rules forbid is refused
//! there and typed nowhere, unless the user chooses to send it to the others; every tab gets
//! its audit line.

use crate::fleet::appears;
use crate::saved::{next, ssh_target};
use kaiport_core::{Engine, EngineConfig, EventStream};
use kaiport_protocol::*;
use kaiport_tests::sshd::Sshd;
use pretty_assertions::assert_eq;

const TABS: [&str; 3] = ["b0", "b1", "b2"];
/// The tab whose connection forbids `touch`.
const FORBIDDING: &str = "b2";

async fn judged(events: &mut EventStream, id: &str) -> Vec<(String, BroadcastOutcome)> {
    let tabs = next(events, |event| match event {
        Event::BroadcastJudged {
            broadcast, tabs, ..
        } if broadcast == id => Some(tabs),
        _ => None,
    })
    .await;
    tabs.into_iter().map(|one| (one.tab, one.outcome)).collect()
}

fn line(id: &str, line: &str, skip_refused: bool) -> Op {
    Op::BroadcastLine {
        broadcast: id.to_owned(),
        tabs: TABS.map(str::to_owned).to_vec(),
        line: line.to_owned(),
        skip_refused,
    }
}

fn outcomes(
    sent: BroadcastOutcome,
    forbidding: BroadcastOutcome,
) -> Vec<(String, BroadcastOutcome)> {
    TABS.iter()
        .map(|tab| {
            let outcome = if *tab == FORBIDDING { forbidding } else { sent };
            ((*tab).to_owned(), outcome)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broadcast_line_follows_each_tabs_rules_and_is_audited_per_tab() {
    let base = Sshd::start().unwrap();
    let marks = base.writable_folder().unwrap();
    let home = tempfile::tempdir().unwrap();
    let config = EngineConfig::in_dir(home.path());
    let audit_path = config.audit_path.clone();
    let mut servers = Vec::new();
    for tab in TABS {
        let server = base.start_sibling(&[("HOST_NAME", tab)]).unwrap();
        server.trust_in(&config.known_hosts).unwrap();
        servers.push(server);
    }
    let (engine, mut events) = Engine::new(config).unwrap();
    for (tab, server) in TABS.iter().zip(&servers) {
        let mut settings = ConnectionSettings::default();
        if *tab == FORBIDDING {
            settings.forbidden_commands = vec!["touch".to_owned()];
        }
        engine
            .handle(Op::OpenTab {
                tab: (*tab).to_owned(),
                target: ssh_target(server),
                cols: 100,
                rows: 30,
                settings: Some(settings),
                mode: None,
            })
            .await;
    }
    for _ in TABS {
        next(&mut events, |event| match event {
            Event::ConnectionState {
                state: ConnectionState::Connected,
                ..
            } => Some(()),
            _ => None,
        })
        .await;
    }
    let dir = marks.path().display().to_string();
    let mark = |name: &str, tab: &str| marks.path().join(format!("{name}-{tab}"));

    // Allowed everywhere: typed into all three.
    engine
        .handle(line(
            "one",
            &format!("echo 1 > {dir}/one-$HOST_NAME"),
            false,
        ))
        .await;
    let sent = BroadcastOutcome::Sent;
    assert_eq!(judged(&mut events, "one").await, outcomes(sent, sent));
    for tab in TABS {
        appears(&mark("one", tab)).await;
    }

    // Forbidden on one: refused there, held on the others.
    let touch = format!("touch {dir}/two-$HOST_NAME");
    engine.handle(line("two", &touch, false)).await;
    let refused = BroadcastOutcome::Refused;
    assert_eq!(
        judged(&mut events, "two").await,
        outcomes(BroadcastOutcome::Held, refused)
    );

    // Sent to the others on purpose: the forbidding tab still gets nothing.
    engine.handle(line("three", &touch, true)).await;
    assert_eq!(judged(&mut events, "three").await, outcomes(sent, refused));
    engine
        .handle(line(
            "four",
            &format!("echo 4 > {dir}/four-$HOST_NAME"),
            false,
        ))
        .await;
    assert_eq!(judged(&mut events, "four").await, outcomes(sent, sent));
    // Each shell runs its lines in order: once "four" ran, "two" would have run before it.
    for tab in TABS {
        appears(&mark("four", tab)).await;
    }
    for tab in TABS {
        assert_eq!(mark("two", tab).exists(), tab != FORBIDDING, "{tab}");
    }

    // One audit line per tab and line, saying what became of it there.
    let audit = kaiport_core::audit::read_recent(&audit_path, 1000).unwrap();
    for tab in TABS {
        let lines: Vec<(String, ToolStatus, Verdict)> = audit
            .iter()
            .filter(|entry| entry.tool == "broadcast_input" && entry.tab == tab)
            .map(|entry| (entry.call.clone(), entry.status, entry.decision))
            .collect();
        let (two, three, verdict) = if tab == FORBIDDING {
            (ToolStatus::Denied, ToolStatus::Denied, Verdict::Deny)
        } else {
            (ToolStatus::Cancelled, ToolStatus::Ok, Verdict::Ask)
        };
        let call = |id: &str| format!("{id}/{tab}");
        let first = audit
            .iter()
            .find(|entry| entry.tool == "broadcast_input" && entry.tab == tab)
            .map(|entry| entry.decision)
            .unwrap();
        assert_eq!(
            lines,
            vec![
                (call("one"), ToolStatus::Ok, first),
                (call("two"), two, verdict),
                (call("three"), three, verdict),
                (call("four"), ToolStatus::Ok, first),
            ],
            "{tab}"
        );
    }
}
