//! Fleet runs through the engine's ops against twenty real sshd instances on loopback: each
//! host judged by its own connection's rules (two forbid the command), run on exec channels,
//! grouped by identical output, one audit line per host; a server killed while its command
//! runs is reported as failed with the reason; a cancelled run stops its running hosts and
//! skips the rest.

use crate::saved::next;
use kaiport_core::{Engine, EngineConfig, EventStream};
use kaiport_protocol::*;
use kaiport_tests::sshd::Sshd;
use pretty_assertions::assert_eq;
use std::path::Path;
use std::time::{Duration, Instant};

const HOSTS: usize = 20;
/// The hosts whose rules forbid the command.
const FORBIDDING: [&str; 2] = ["web-18", "web-19"];
const VICTIM: &str = "web-05";

fn name(index: usize) -> String {
    format!("web-{index:02}")
}

/// Waits for `path` to exist: the remote command made it (a hang guard, not a timing).
pub(crate) async fn appears(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} did not appear",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn finished(events: &mut EventStream, run: &str) -> FleetReport {
    next(events, |event| match event {
        Event::FleetFinished { run: done, report } if done == run => Some(report),
        _ => None,
    })
    .await
}

/// A run on the tag `web`, approved for `approved`.
fn run_on_web(run: &str, command: &str, approved: &[String]) -> Op {
    Op::FleetRun {
        run: run.to_owned(),
        targets: vec!["web".to_owned()],
        command: command.to_owned(),
        mode: None,
        approved: approved.to_vec(),
        automatic: false,
        concurrency: None,
    }
}

fn groups(report: &FleetReport) -> Vec<(FleetStatus, String, usize)> {
    report
        .groups
        .iter()
        .map(|group| (group.status, group.output.clone(), group.hosts.len()))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fleet_run_follows_each_hosts_rules_groups_the_output_and_audits_every_host() {
    let base = Sshd::start().unwrap();
    let gate_dir = base.writable_folder().unwrap();
    let home = tempfile::tempdir().unwrap();
    let config = EngineConfig::in_dir(home.path());
    let mut servers = Vec::new();
    let mut profiles = String::new();
    for index in 0..HOSTS {
        let host = name(index);
        let version = if index < 3 { "1.22.1" } else { "1.24.0" };
        let env = [
            ("NGINX_VERSION", version),
            ("HOST_NAME", host.as_str()),
            ("GATE_DIR", gate_dir.path().to_str().unwrap()),
        ];
        let server = base.start_sibling(&env).unwrap();
        server.trust_in(&config.known_hosts).unwrap();
        profiles.push_str(&format!(
            "[[connection]]\nname = \"{host}\"\nkind = \"ssh\"\nhost = \"127.0.0.1\"\nport = {}\n\
             user = \"{}\"\nidentity_files = [\"{}\"]\ntags = [\"web\"]\n",
            server.port(),
            server.user(),
            server.keys.ed25519.display()
        ));
        if FORBIDDING.contains(&host.as_str()) {
            profiles.push_str("[connection.settings]\nforbidden_commands = [\"printenv\"]\n");
        }
        servers.push(server);
    }
    std::fs::write(&config.profiles_path, profiles).unwrap();
    let audit_path = config.audit_path.clone();
    let (engine, mut events) = Engine::new(config).unwrap();
    let command = "printenv NGINX_VERSION && touch \"$GATE_DIR/started-$HOST_NAME\" && \
                   until [ -e \"$GATE_DIR/gate\" ]; do sleep 0.05; done";
    let everyone: Vec<String> = (0..HOSTS).map(name).collect();

    // Before it runs: which hosts' rules ask and which forbid it.
    engine
        .handle(Op::FleetCheck {
            run: "check".to_owned(),
            targets: vec!["web".to_owned()],
            command: command.to_owned(),
            mode: None,
        })
        .await;
    let checked = next(&mut events, |event| match event {
        Event::FleetChecked { hosts, .. } => Some(hosts),
        _ => None,
    })
    .await;
    let decisions: Vec<(String, Verdict)> = checked
        .iter()
        .map(|host| (host.host.clone(), host.decision))
        .collect();
    let expected: Vec<(String, Verdict)> = everyone
        .iter()
        .map(|host| {
            let verdict = if FORBIDDING.contains(&host.as_str()) {
                Verdict::Deny
            } else {
                Verdict::Ask
            };
            (host.clone(), verdict)
        })
        .collect();
    assert_eq!(decisions, expected);

    // The gate open: every allowed host runs to its end.
    std::fs::write(gate_dir.path().join("gate"), "").unwrap();
    engine.handle(run_on_web("first", command, &everyone)).await;
    let report = finished(&mut events, "first").await;
    assert_eq!(
        (report.total, report.done, report.refused, report.failed),
        (20, 18, 2, 0),
        "{report:#?}"
    );
    let refused = &report.groups[0];
    assert_eq!(refused.hosts, FORBIDDING.map(str::to_owned).to_vec());
    assert!(
        refused
            .reason
            .as_deref()
            .unwrap_or_default()
            .contains("printenv"),
        "{refused:?}"
    );
    assert_eq!(
        groups(&report),
        vec![
            (FleetStatus::Refused, String::new(), 2),
            (FleetStatus::Done, "1.24.0\n".to_owned(), 15),
            (FleetStatus::Done, "1.22.1\n".to_owned(), 3),
        ]
    );

    // The gate shut: one server dies while its command runs.
    std::fs::remove_file(gate_dir.path().join("gate")).unwrap();
    for host in &everyone {
        let _ = std::fs::remove_file(gate_dir.path().join(format!("started-{host}")));
    }
    engine
        .handle(run_on_web("second", command, &everyone))
        .await;
    appears(&gate_dir.path().join(format!("started-{VICTIM}"))).await;
    let victim = everyone.iter().position(|host| host == VICTIM).unwrap();
    servers[victim].kill();
    let failed = next(&mut events, |event| match event {
        Event::FleetHostFinished { run, result, .. }
            if run == "second" && result.host == VICTIM =>
        {
            Some(result)
        }
        _ => None,
    })
    .await;
    assert_eq!(failed.status, FleetStatus::Failed, "{failed:?}");
    std::fs::write(gate_dir.path().join("gate"), "").unwrap();
    let report = finished(&mut events, "second").await;
    assert_eq!(
        (report.total, report.done, report.refused, report.failed),
        (20, 17, 2, 1),
        "{report:#?}"
    );
    let reason = report.groups[1].reason.clone().unwrap_or_default();
    assert!(
        reason.contains("lost") || reason.contains("closed") || reason.contains("reset"),
        "{reason}"
    );
    assert_eq!(
        groups(&report),
        vec![
            (FleetStatus::Refused, String::new(), 2),
            (FleetStatus::Failed, String::new(), 1),
            (FleetStatus::Done, "1.24.0\n".to_owned(), 14),
            (FleetStatus::Done, "1.22.1\n".to_owned(), 3),
        ]
    );
    assert_eq!(report.groups[1].hosts, vec![VICTIM.to_owned()]);

    // The gate shut again, four at a time: cancelled while the first four run.
    std::fs::remove_file(gate_dir.path().join("gate")).unwrap();
    for host in &everyone {
        let _ = std::fs::remove_file(gate_dir.path().join(format!("started-{host}")));
    }
    engine
        .handle(Op::FleetRun {
            run: "third".to_owned(),
            targets: vec!["web".to_owned()],
            command: command.to_owned(),
            mode: None,
            approved: everyone.clone(),
            automatic: false,
            concurrency: Some(4),
        })
        .await;
    appears(&gate_dir.path().join(format!("started-{}", name(0)))).await;
    engine
        .handle(Op::FleetCancel {
            run: "third".to_owned(),
        })
        .await;
    let report = finished(&mut events, "third").await;
    std::fs::write(gate_dir.path().join("gate"), "").unwrap();
    assert_eq!((report.total, report.cancelled), (20, 20), "{report:#?}");
    let reason = |host: &str| {
        let found = report.hosts.iter().find(|result| result.host == host);
        found
            .and_then(|result| result.reason.clone())
            .unwrap_or_default()
    };
    assert!(
        reason(&name(0)).contains("while this host ran"),
        "{report:#?}"
    );
    assert!(
        reason(&name(10)).contains("before this host started"),
        "{report:#?}"
    );

    // Each connection's audit has one line per run, saying how its part ended.
    let audit = kaiport_core::audit::read_recent(&audit_path, 1000).unwrap();
    for host in &everyone {
        let lines: Vec<(String, ToolStatus, Verdict)> = audit
            .iter()
            .filter(|entry| entry.tool == "fleet_run" && &entry.connection == host)
            .map(|entry| (entry.tab.clone(), entry.status, entry.decision))
            .collect();
        let (status, verdict) = if FORBIDDING.contains(&host.as_str()) {
            (ToolStatus::Denied, Verdict::Deny)
        } else {
            (ToolStatus::Ok, Verdict::Ask)
        };
        let second = if host == VICTIM {
            ToolStatus::Error
        } else {
            status
        };
        assert_eq!(
            lines,
            vec![
                ("fleet:first".to_owned(), status, verdict),
                ("fleet:second".to_owned(), second, verdict),
                ("fleet:third".to_owned(), ToolStatus::Cancelled, verdict),
            ],
            "{host}"
        );
    }
}

/// Pilot's run_on_hosts on a group of three real sshd servers, one of whose rules forbid the
/// line: one approval for the two that ask (its card lists all three and what each says), the
/// forbidden one refused and said so, the output grouped for the model in one turn, and one
/// audit line per host in its own connection's name.
/// Siblings of `base` trusted in the harness's known_hosts, saved as connections tagged `db`
/// (`forbidding` forbids `printenv`): the servers (kept running while held) and the
/// connections file.
fn db_hosts(base: &Sshd, hosts: &[(&str, &str)], forbidding: Option<&str>) -> (Vec<Sshd>, String) {
    let known_hosts = base.dir().join("harness_known_hosts");
    let mut servers = Vec::new();
    let mut profiles = String::new();
    for (host, version) in hosts {
        let server = base
            .start_sibling(&[("NGINX_VERSION", version), ("HOST_NAME", host)])
            .unwrap();
        server.trust_in(&known_hosts).unwrap();
        profiles.push_str(&format!(
            "[[connection]]\nname = \"{host}\"\nkind = \"ssh\"\nhost = \"127.0.0.1\"\nport = {}\n\
             user = \"{}\"\nidentity_files = [\"{}\"]\ntags = [\"db\"]\n",
            server.port(),
            server.user(),
            server.keys.ed25519.display()
        ));
        if forbidding == Some(*host) {
            profiles.push_str("[connection.settings]\nforbidden_commands = [\"printenv\"]\n");
        }
        servers.push(server);
    }
    (servers, profiles)
}

#[tokio::test(flavor = "multi_thread")]
async fn pilot_runs_on_a_group_with_one_approval_and_each_hosts_rules() {
    use kaiport_tests::engine_harness::EngineHarness;
    use kaiport_tests::model_server::ModelServer;
    use serde_json::json;

    let base = Sshd::start().unwrap();
    let tab = EngineHarness::open_sshd(&base, ConnectionSettings::default(), Mode::Ask)
        .await
        .unwrap();
    let hosts = [("db-1", "1.24.0"), ("db-2", "1.24.0"), ("db-3", "1.22.1")];
    let (_servers, profiles) = db_hosts(&base, &hosts, Some("db-3"));
    std::fs::write(tab.home.path().join("connections.toml"), profiles).unwrap();

    let model = ModelServer::from_json(json!({"steps": [
        {"respond": {"text": "Checking nginx everywhere.", "tool_calls": [
            {"name": "run_on_hosts", "arguments": {"hosts": ["db"], "command": "printenv NGINX_VERSION"}}
        ]}},
        {"respond": {"text": "Two hosts run nginx 1.24.0; db-3 refused the check."}}
    ]}))
    .unwrap();
    tab.turn("which nginx do the db hosts run?", model.openai_settings())
        .await
        .unwrap();
    assert!(model.failures().is_empty(), "{:?}", model.failures());
    let requests = model.requests();
    assert!(
        requests[0]
            .tool_names()
            .contains(&"run_on_hosts".to_owned()),
        "{:?}",
        requests[0].tool_names()
    );

    // One approval card, listing every host with what its rules say.
    let cards: Vec<Vec<(String, Verdict)>> = tab
        .events()
        .into_iter()
        .filter_map(|event| match event {
            Event::ApprovalRequested {
                preview: Some(ApprovalPreview::Fleet { hosts, .. }),
                ..
            } => Some(
                hosts
                    .into_iter()
                    .map(|host| (host.host, host.decision))
                    .collect(),
            ),
            Event::ApprovalRequested { tool, .. } => panic!("another approval: {tool}"),
            _ => None,
        })
        .collect();
    assert_eq!(
        cards,
        vec![vec![
            ("db-1".to_owned(), Verdict::Ask),
            ("db-2".to_owned(), Verdict::Ask),
            ("db-3".to_owned(), Verdict::Deny),
        ]]
    );

    // The model got the grouped outcome: the refusal with its reason, the two alike as one.
    let results = requests.last().unwrap().tool_results();
    let result = results.last().unwrap();
    assert!(
        result.contains("3 hosts: 2 done (0 exited non-zero), 1 refused"),
        "{result}"
    );
    assert!(result.contains("1 host(s) refused: db-3"), "{result}");
    assert!(result.contains("forbidden"), "{result}");
    assert!(
        result.contains("2 host(s) done, exit code 0: db-1, db-2"),
        "{result}"
    );
    assert!(result.contains("1.24.0"), "{result}");
    assert!(
        !result.contains("1.22.1"),
        "the forbidden host ran: {result}"
    );

    // Each host's own audit line, and the call's in the tab's.
    let audit = tab.audit().unwrap();
    let fleet: Vec<(String, String, String)> = audit
        .iter()
        .filter(|line| line["tool"] == "fleet_run")
        .map(|line| {
            (
                line["connection"].as_str().unwrap_or_default().to_owned(),
                line["decision"].as_str().unwrap_or_default().to_owned(),
                line["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let mut fleet = fleet;
    fleet.sort();
    let line = |host: &str, decision: &str, status: &str| {
        (host.to_owned(), decision.to_owned(), status.to_owned())
    };
    assert_eq!(
        fleet,
        vec![
            line("db-1", "ask", "ok"),
            line("db-2", "ask", "ok"),
            line("db-3", "deny", "denied"),
        ]
    );
    let call = audit
        .iter()
        .find(|line| line["tool"] == "run_on_hosts")
        .unwrap();
    assert_eq!(
        (&call["decision"], &call["decided_by"], &call["status"]),
        (&json!("ask"), &json!("user"), &json!("ok")),
        "{call}"
    );
}

/// In autopilot, a line no host asks about runs without a card, and the call's audit line says
/// what let it run: the rules for a command on every host's allowed list, autopilot for a
/// change it let through.
#[tokio::test(flavor = "multi_thread")]
async fn run_on_hosts_in_autopilot_says_what_decided() {
    use kaiport_tests::engine_harness::EngineHarness;
    use kaiport_tests::model_server::ModelServer;
    use serde_json::json;

    let base = Sshd::start().unwrap();
    let marks = base.writable_folder().unwrap();
    let tab = EngineHarness::open_sshd(&base, ConnectionSettings::default(), Mode::Autopilot)
        .await
        .unwrap();
    let (_servers, profiles) = db_hosts(&base, &[("db-1", "1"), ("db-2", "2")], None);
    // `uname` is on each connection's allowed list: the rules let it run, not autopilot.
    let profiles = profiles.replace(
        "tags = [\"db\"]\n",
        "tags = [\"db\"]\n[connection.settings]\nallowed_commands = [\"uname\"]\n",
    );
    std::fs::write(tab.home.path().join("connections.toml"), profiles).unwrap();
    // A path without variables: autopilot asks about a write it cannot place.
    let mark = marks.path().join("mark");
    let touch = format!("touch {}", mark.display());
    let call = |command: &str| {
        json!({"respond": {"tool_calls": [
            {"name": "run_on_hosts", "arguments": {"hosts": ["db"], "command": command}}
        ]}})
    };
    let model = ModelServer::from_json(json!({"steps": [
        call("uname -s"),
        call(&touch),
        {"respond": {"text": "Done."}}
    ]}))
    .unwrap();
    tab.turn("check and mark the db hosts", model.openai_settings())
        .await
        .unwrap();
    assert!(model.failures().is_empty(), "{:?}", model.failures());
    let asked: Vec<Vec<String>> = tab
        .events()
        .into_iter()
        .filter_map(|event| match event {
            Event::ApprovalRequested { reasons, .. } => Some(reasons),
            _ => None,
        })
        .collect();
    assert!(asked.is_empty(), "autopilot asked: {asked:?}");
    assert!(mark.exists());
    let calls: Vec<(serde_json::Value, serde_json::Value)> = tab
        .audit()
        .unwrap()
        .into_iter()
        .filter(|line| line["tool"] == "run_on_hosts")
        .map(|line| (line["decision"].clone(), line["decided_by"].clone()))
        .collect();
    assert_eq!(
        calls,
        vec![
            (json!("allow"), json!("rule")),
            (json!("allow"), json!("autopilot")),
        ]
    );
}
