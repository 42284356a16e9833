//! Port forwards on an SSH tab against a real sshd (`GatewayPorts no`, the default): a local
//! forward to a tiny HTTP server started here, a remote forward reached on the server's
//! loopback, a SOCKS5 forward driven by `curl --socks5-hostname`, a forward coming back after
//! the tab reconnects, a port already in use, and a saved connection's forwards.

use kaiport_protocol::*;
use kaiport_tests::engine_harness::EngineHarness;
use kaiport_tests::sshd::Sshd;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const QUICK: Duration = Duration::from_secs(30);

fn http_server(body: &'static str) -> u16 {
    kaiport_tests::http_page::serve(body).unwrap()
}

fn free_port() -> u16 {
    kaiport_tests::http_page::free_port().unwrap()
}

async fn open_forward(tab: &EngineHarness, forward: ForwardSpec) {
    tab.engine
        .handle(Op::OpenForward {
            tab: tab.tab.clone(),
            forward,
        })
        .await;
}

/// GET / from 127.0.0.1:`port`, the whole answer.
async fn fetch(port: u16) -> String {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    stream
        .write_all(b"GET / HTTP/1.0\r\nHost: test\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    tokio::time::timeout(QUICK, stream.read_to_string(&mut answer))
        .await
        .expect("the answer hung")
        .unwrap();
    answer
}

fn local(port: u16, to_port: u16) -> ForwardSpec {
    ForwardSpec {
        kind: ForwardKind::Local,
        bind_address: None,
        listen_port: port,
        to_host: Some("localhost".to_owned()),
        to_port: Some(to_port),
    }
}

/// The first report after the `after`th event for which `wanted` holds, waited for.
async fn forward_state(
    tab: &EngineHarness,
    what: &str,
    after: usize,
    wanted: impl Fn(&ForwardReport) -> bool,
) -> ForwardReport {
    let deadline = tokio::time::Instant::now() + QUICK;
    let event = loop {
        let found =
            tab.events().into_iter().skip(after).find(
                |event| matches!(event, Event::ForwardState { forward, .. } if wanted(forward)),
            );
        if let Some(event) = found {
            break event;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no {what} within {QUICK:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    match event {
        Event::ForwardState { forward, .. } => forward,
        _ => unreachable!(),
    }
}

fn listening(report: &ForwardReport) -> bool {
    matches!(report.status, ForwardStatus::Listening { .. })
}

async fn open(sshd: &Sshd) -> EngineHarness {
    EngineHarness::open_sshd(sshd, ConnectionSettings::default(), Mode::Ask)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_forward_reaches_a_server_behind_the_ssh_server() {
    let sshd = Sshd::start().unwrap();
    let http = http_server("hello through -L");
    let tab = open(&sshd).await;
    let port = free_port();
    open_forward(&tab, local(port, http)).await;
    let report = forward_state(&tab, "listening", 0, listening).await;
    assert_eq!(
        report.status,
        ForwardStatus::Listening {
            address: format!("127.0.0.1:{port}")
        }
    );
    // The user's own: no Pilot call named.
    assert_eq!(report.pilot_call, None);
    let answer = fetch(port).await;
    assert!(answer.ends_with("hello through -L"), "{answer}");
    let done = forward_state(&tab, "the traffic", 0, |f| {
        f.total_connections == 1 && f.open_connections == 0 && f.bytes_received > 0
    })
    .await;
    assert!(done.bytes_sent > 0, "{done:?}");
    // Opened and closed, each an audit line.
    tab.engine
        .handle(Op::CloseForward {
            tab: tab.tab.clone(),
            id: report.id,
        })
        .await;
    forward_state(&tab, "closed", 0, |f| f.status == ForwardStatus::Closed).await;
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
    );
    let audit = tab.audit().unwrap();
    let actions: Vec<(&str, &str)> = audit
        .iter()
        .filter(|line| line["tool"] == "port_forward")
        .map(|line| {
            // The user's own action: the audit view's "By" says "you" for `user-` ids.
            assert!(
                line["call"].as_str().unwrap().starts_with("user-"),
                "{line}"
            );
            (
                line["args"]["action"].as_str().unwrap(),
                line["args"]["forward"].as_str().unwrap(),
            )
        })
        .collect();
    let described = format!("-L {port}:localhost:{http}");
    assert_eq!(
        actions,
        vec![("open", described.as_str()), ("close", described.as_str())]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_forward_is_reached_on_the_servers_loopback() {
    let sshd = Sshd::start().unwrap();
    let http = http_server("hello through -R");
    let tab = open(&sshd).await;
    let port = free_port();
    open_forward(
        &tab,
        ForwardSpec {
            kind: ForwardKind::Remote,
            ..local(port, http)
        },
    )
    .await;
    let report = forward_state(&tab, "listening", 0, listening).await;
    assert!(
        matches!(&report.status, ForwardStatus::Listening { address } if address.contains(&port.to_string())),
        "{report:?}"
    );
    // sshd (GatewayPorts no) listens on its loopback: connect there, as a program on the
    // server would.
    let answer = fetch(port).await;
    assert!(answer.ends_with("hello through -R"), "{answer}");
    forward_state(&tab, "the traffic", 0, |f| {
        f.total_connections == 1 && f.bytes_received > 0
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dynamic_forward_is_a_socks5_proxy_resolving_names_on_the_server() {
    let sshd = Sshd::start().unwrap();
    let http = http_server("hello through -D");
    let tab = open(&sshd).await;
    let port = free_port();
    open_forward(
        &tab,
        ForwardSpec {
            kind: ForwardKind::Dynamic,
            bind_address: None,
            listen_port: port,
            to_host: None,
            to_port: None,
        },
    )
    .await;
    forward_state(&tab, "listening", 0, listening).await;
    let curl = tokio::process::Command::new("curl")
        .args(["-sS", "--max-time", "20", "--socks5-hostname"])
        .arg(format!("127.0.0.1:{port}"))
        .arg(format!("http://localhost:{http}/"))
        .output()
        .await
        .unwrap();
    assert!(
        curl.status.success(),
        "{}",
        String::from_utf8_lossy(&curl.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&curl.stdout), "hello through -D");
    // A SOCKS BIND is refused with "command not supported" (reply code 7).
    let mut socks = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    socks.write_all(&[5, 1, 0]).await.unwrap();
    let mut chosen = [0u8; 2];
    socks.read_exact(&mut chosen).await.unwrap();
    assert_eq!(chosen, [5, 0]);
    socks
        .write_all(&[5, 2, 0, 1, 127, 0, 0, 1, 0, 80])
        .await
        .unwrap();
    let mut reply = [0u8; 2];
    socks.read_exact(&mut reply).await.unwrap();
    assert_eq!(reply, [5, 7]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forwards_come_back_when_the_tab_reconnects() {
    let sshd = Sshd::start().unwrap();
    let http = http_server("hello again");
    let tab = open(&sshd).await;
    let port = free_port();
    open_forward(&tab, local(port, http)).await;
    forward_state(&tab, "listening", 0, listening).await;
    let remote = free_port();
    open_forward(
        &tab,
        ForwardSpec {
            kind: ForwardKind::Remote,
            ..local(remote, http)
        },
    )
    .await;
    forward_state(&tab, "the remote one listening", 0, |f| {
        listening(f) && f.spec.kind == ForwardKind::Remote
    })
    .await;
    let dropped = tab.events().len();
    sshd.kill_connections();
    forward_state(&tab, "waiting", dropped, |f| {
        f.status == ForwardStatus::Waiting && f.spec.kind == ForwardKind::Local
    })
    .await;
    // The engine connects the tab again by itself; the forwards follow it.
    let before = tab.events().len();
    tab.event("the automatic reconnect", QUICK, |event| {
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
    forward_state(&tab, "local listening again", before, |f| {
        listening(f) && f.spec.kind == ForwardKind::Local
    })
    .await;
    forward_state(&tab, "remote listening again", before, |f| {
        listening(f) && f.spec.kind == ForwardKind::Remote
    })
    .await;
    assert!(fetch(port).await.ends_with("hello again"));
    assert!(fetch(remote).await.ends_with("hello again"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_port_in_use_is_refused_naming_it() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd).await;
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    open_forward(&tab, local(port, 80)).await;
    let error = tab
        .event("the refusal", QUICK, |event| {
            matches!(event, Event::Error { .. })
        })
        .await
        .unwrap();
    let Event::Error {
        tab: Some(on),
        message,
    } = error
    else {
        panic!("{error:?}")
    };
    assert_eq!(on, tab.tab);
    assert!(
        message.contains(&format!("port {port} on 127.0.0.1 is already in use")),
        "{message}"
    );
    // A second forward of the tab on a port it forwards already is refused the same way.
    drop(taken);
    for _ in 0..2 {
        open_forward(&tab, local(port, 81)).await;
    }
    tab.event("the duplicate", QUICK, |event| {
        matches!(event, Event::Error { message, .. } if message.contains(&format!("already forwards port {port}")))
    })
    .await
    .unwrap();
    let refused = tab
        .audit()
        .unwrap()
        .into_iter()
        .filter(|line| line["tool"] == "port_forward" && line["status"] == "error")
        .count();
    assert_eq!(refused, 2);
}

/// A saved connection's `forwards` open with its tab, with no op from the front end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_connections_forwards_open_with_its_tab() {
    let sshd = Sshd::start().unwrap();
    let http = http_server("hello from a saved forward");
    let port = free_port();
    let known_hosts = sshd.dir().join("profile_known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    let profile = format!(
        "[[connection]]\nname = \"fwd\"\nkind = \"ssh\"\nhost = \"127.0.0.1\"\nport = {}\nuser = \"{}\"\n\
         identity_files = [\"{}\"]\nforwards = [{{ kind = \"local\", listen_port = {port}, \
         to_host = \"localhost\", to_port = {http} }}]\n",
        sshd.port(),
        sshd.user(),
        sshd.keys.ed25519.display()
    );
    let tab = EngineHarness::open_configured(
        TabTarget::Profile {
            name: "fwd".to_owned(),
        },
        Some(known_hosts),
        ConnectionSettings::default(),
        Mode::Ask,
        None,
        |config, _| std::fs::write(&config.profiles_path, &profile).unwrap(),
    )
    .await
    .unwrap();
    forward_state(&tab, "listening", 0, listening).await;
    assert!(fetch(port).await.ends_with("hello from a saved forward"));
}

/// Pilot's open_forward, scripted: what the model got back, and the cards it caused.
mod pilot {
    use super::*;
    use kaiport_tests::engine_harness::Approvals;
    use kaiport_tests::model_server::ModelServer;
    use serde_json::json;

    /// One turn in which the model calls open_forward with each of `calls`' arguments in turn;
    /// the results the model got back.
    async fn pilot_calls(tab: &EngineHarness, calls: &[serde_json::Value]) -> Vec<String> {
        let mut steps: Vec<serde_json::Value> = calls
            .iter()
            .map(|args| {
                json!({"respond": {"tool_calls": [{"name": "open_forward", "arguments": args}]}})
            })
            .collect();
        steps.push(json!({"respond": {"text": "Done."}}));
        let model = ModelServer::from_json(json!({ "steps": steps })).unwrap();
        tab.turn("forward the web server to me", model.openai_settings())
            .await
            .unwrap();
        assert!(model.failures().is_empty(), "{:?}", model.failures());
        let requests = model.requests();
        assert!(
            requests[0]
                .tool_names()
                .contains(&"open_forward".to_owned()),
            "{:?}",
            requests[0].tool_names()
        );
        requests.last().unwrap().tool_results()
    }

    fn cards(tab: &EngineHarness) -> Vec<(String, Option<ApprovalPreview>)> {
        tab.events()
            .into_iter()
            .filter_map(|event| match event {
                Event::ApprovalRequested { tool, preview, .. } => Some((tool, preview)),
                _ => None,
            })
            .collect()
    }

    fn forward_events(tab: &EngineHarness) -> usize {
        tab.events()
            .iter()
            .filter(|event| matches!(event, Event::ForwardState { .. }))
            .count()
    }

    /// In autopilot, with every command allowed, open_forward still shows its card; approved,
    /// the forward is in the tab's forwards like the user's, carries traffic, and its audit line
    /// says Pilot asked for it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn pilot_opens_a_forward_only_once_the_user_approves_it() {
        let sshd = Sshd::start().unwrap();
        let http = http_server("hello through Pilot's -L");
        let permissive = ConnectionSettings {
            allowed_commands: vec!["ssh".to_owned()],
            ..ConnectionSettings::default()
        };
        let tab = EngineHarness::open_sshd(&sshd, permissive, Mode::Autopilot)
            .await
            .unwrap();
        let port = free_port();
        let forward = format!("-L {port}:localhost:{http}");
        let results = pilot_calls(
            &tab,
            &[json!({"forward": forward, "why": "to read the status page"})],
        )
        .await;

        // One card, naming the address it binds.
        assert_eq!(
            cards(&tab),
            vec![(
                "open_forward".to_owned(),
                Some(ApprovalPreview::Forward {
                    forward: ForwardSpec {
                        bind_address: Some("127.0.0.1".to_owned()),
                        ..local(port, http)
                    }
                })
            )]
        );
        // The model learns where it listens.
        let result = results.last().unwrap();
        assert!(result.contains("open_forward: ok"), "{result}");
        assert!(result.contains(&format!("127.0.0.1:{port}")), "{result}");
        assert!(result.contains("listening"), "{result}");

        let answer = fetch(port).await;
        assert!(answer.ends_with("hello through Pilot's -L"), "{answer}");
        let report = forward_state(&tab, "the traffic", 0, |f| f.total_connections == 1).await;
        assert_eq!(report.spec, local(port, http));

        let audit = tab.audit().unwrap();
        let call = audit
            .iter()
            .find(|line| line["tool"] == "open_forward")
            .unwrap();
        assert_eq!(
            (&call["decision"], &call["decided_by"], &call["status"]),
            (&json!("ask"), &json!("user"), &json!("ok")),
            "{call}"
        );
        let opened: Vec<&serde_json::Value> = audit
            .iter()
            .filter(|line| line["tool"] == "port_forward")
            .collect();
        assert_eq!(opened.len(), 1, "{opened:?}");
        assert_eq!(
            opened[0]["args"],
            json!({"action": "open", "forward": forward, "opened_by": "pilot",
                   "pilot_call": call["call"]})
        );
        // Pilot's: the audit view's "By" says Pilot (not `user-…`).
        let id = opened[0]["call"].as_str().unwrap();
        assert!(
            id.starts_with(call["call"].as_str().unwrap()) && !id.starts_with("user-"),
            "{id}"
        );
        // Its reports name that call, for the Forwards list's "Pilot" marker.
        assert_eq!(
            report.pilot_call.as_deref(),
            call["call"].as_str(),
            "{report:?}"
        );
    }

    /// Denied by the user, or approved by a standing instruction rather than a person,
    /// nothing listens and no forward is reported.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_denied_forward_listens_nowhere() {
        let sshd = Sshd::start().unwrap();
        let tab = open(&sshd).await;
        let port = free_port();
        for (answer, said) in [
            (Approvals::Deny, "the user denied this call"),
            (
                Approvals::Automatic,
                "only a person can approve open_forward",
            ),
        ] {
            tab.set_approvals(answer);
            let asked = cards(&tab).len();
            let results = pilot_calls(&tab, &[json!({"forward": format!("-D {port}")})]).await;
            assert_eq!(cards(&tab).len(), asked + 1, "{answer:?}");
            assert!(results.last().unwrap().contains(said), "{results:?}");
        }
        assert_eq!(forward_events(&tab), 0);
        assert!(
            tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_err()
        );
        assert!(
            !tab.audit()
                .unwrap()
                .iter()
                .any(|line| line["tool"] == "port_forward")
        );
    }

    /// A bind address other computers could reach is refused with a message for the model, in
    /// any mode; in plan mode a loopback forward is refused too; neither asks the user.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn plan_mode_and_non_loopback_addresses_are_refused_without_asking() {
        let sshd = Sshd::start().unwrap();
        let tab = EngineHarness::open_sshd(&sshd, ConnectionSettings::default(), Mode::Plan)
            .await
            .unwrap();
        let port = free_port();
        let results = pilot_calls(
            &tab,
            &[
                json!({"forward": format!("-L 0.0.0.0:{port}:localhost:80")}),
                json!({"spec": {"kind": "local", "listen_port": port,
                    "to_host": "localhost", "to_port": 80}}),
            ],
        )
        .await;
        assert_eq!(cards(&tab), Vec::new());
        let [open_to_all, planning] = results.as_slice() else {
            panic!("{results:?}")
        };
        assert!(
            open_to_all.contains("listens on loopback only, not on \"0.0.0.0\""),
            "{open_to_all}"
        );
        assert!(planning.contains("plan mode"), "{planning}");
        assert!(
            planning.contains(&format!("-L {port}:localhost:80")),
            "{planning}"
        );
        assert_eq!(forward_events(&tab), 0);
        assert!(
            tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_err()
        );
    }
}
