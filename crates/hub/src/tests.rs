//! The hub's replay and frames, and what it counts as busy.

use super::*;

#[test]
fn terminal_frames_round_trip_and_refuse_what_does_not_fit() {
    let frame = terminal_frame("tab-1", b"hi\x1b[0m").unwrap();
    assert_eq!(
        parse_terminal_frame(&frame),
        Some(("tab-1", &b"hi\x1b[0m"[..]))
    );
    assert_eq!(terminal_frame(&"x".repeat(256), b""), None);
    assert_eq!(parse_terminal_frame(&[]), None);
    assert_eq!(parse_terminal_frame(&[9, b'a']), None);
    assert_eq!(parse_terminal_frame(&[2, 0xff, 0xfe]), None);
}

#[test]
fn the_replay_keeps_open_tabs_recent_output_and_waiting_prompts() {
    let hub = Hub::new();
    hub.publish(Event::TabOpened {
        tab: "t".into(),
        kind: kaiport_protocol::TabKind::Terminal,
        title: "local".into(),
    });
    hub.publish(Event::TerminalOutput {
        tab: "t".into(),
        data: vec![b'x'; REPLAY_BYTES + 10],
    });
    hub.publish(Event::PromptRequested {
        tab: Some("t".into()),
        prompt_id: "p".into(),
        prompt: kaiport_protocol::Prompt::Password {
            user: "u".into(),
            host: "h".into(),
        },
    });
    let (frames, _) = hub.join();
    assert_eq!(frames.len(), 3);
    match &frames[1] {
        Frame::Binary(frame) => assert_eq!(frame.len(), 2 + REPLAY_BYTES),
        other => panic!("{other:?}"),
    }
    hub.prompt_answered("p");
    assert_eq!(hub.join().0.len(), 2);
    hub.publish(Event::TabClosed { tab: "t".into() });
    assert_eq!(hub.join().0.len(), 0);
}

#[test]
fn the_replay_keeps_pilots_conversation_of_open_tabs_within_its_bound() {
    let hub = Hub::new();
    hub.publish(Event::TabOpened {
        tab: "t".into(),
        kind: kaiport_protocol::TabKind::Terminal,
        title: "local".into(),
    });
    hub.publish(Event::TurnStarted {
        tab: "t".into(),
        turn: 1,
        text: "hello".into(),
    });
    hub.publish(Event::QuestionAsked {
        tab: "t".into(),
        call: "c".into(),
        question: "which?".into(),
        options: vec![],
    });
    // A view button's result too: a reloaded view card still says what its buttons did.
    hub.publish(Event::ViewButtonFinished {
        tab: "t".into(),
        call: "v".into(),
        command: "journalctl -f -n 50".into(),
        status: kaiport_protocol::ToolStatus::Ok,
        message: None,
    });
    // A closed (or unknown) tab's events are not kept.
    hub.publish(Event::TurnStarted {
        tab: "gone".into(),
        turn: 1,
        text: "hello".into(),
    });
    hub.publish(Event::ModeChanged {
        tab: "t".into(),
        mode: kaiport_protocol::Mode::Plan,
    });
    hub.publish(Event::ModeChanged {
        tab: "t".into(),
        mode: kaiport_protocol::Mode::Autopilot,
    });
    let texts = |frames: Vec<Frame>| -> Vec<String> {
        frames
            .into_iter()
            .filter_map(|frame| match frame {
                Frame::Text(text) => Some(text.to_string()),
                Frame::Binary(_) => None,
            })
            .collect()
    };
    let frames = texts(hub.join().0);
    assert_eq!(frames.len(), 5, "{frames:?}");
    assert!(frames[1].contains("autopilot"), "only the latest mode");
    assert!(frames[2].contains("turn_started") && frames[3].contains("which?"));
    assert!(frames[4].contains("view_button_finished"));
    // Past the bound the oldest go first.
    let delta = "x".repeat(64 * 1024);
    for _ in 0..20 {
        hub.publish(Event::AssistantText {
            tab: "t".into(),
            turn: 1,
            delta: delta.clone(),
        });
    }
    let frames = texts(hub.join().0);
    assert!(!frames.iter().any(|frame| frame.contains("which?")));
    let kept: usize = frames.iter().skip(2).map(String::len).sum();
    assert!(kept <= PILOT_REPLAY_BYTES, "{kept}");
}

#[test]
fn busy_follows_turns_and_transfers_until_they_end_or_their_tab_closes() {
    let hub = Hub::new();
    hub.publish(Event::TurnStarted {
        tab: "t".into(),
        turn: 1,
        text: "go".into(),
    });
    let progress = |call: &str, done: bool| Event::TransferProgress {
        tab: "s".into(),
        call: call.into(),
        path: "/x".into(),
        transferred: 1,
        total: 2,
        rate: 1.0,
        eta_s: None,
        done,
    };
    hub.publish(progress("c1", false));
    hub.publish(progress("c2", false));
    let busy = hub.busy();
    assert_eq!(busy.turns.len(), 1);
    assert_eq!(busy.transfers.len(), 2);
    hub.publish(progress("c1", true));
    hub.publish(Event::TurnFinished {
        tab: "t".into(),
        turn: 1,
        status: kaiport_protocol::TurnStatus::Completed,
        message: None,
    });
    assert_eq!(hub.busy().transfers.len(), 1);
    assert!(hub.busy().turns.is_empty());
    hub.publish(Event::TabClosed { tab: "s".into() });
    assert!(hub.busy().is_idle());
}

fn binary(tab: &str, data: &[u8]) -> Arc<Frame> {
    Arc::new(Frame::Binary(terminal_frame(tab, data).unwrap().into()))
}

fn text(text: &str) -> Arc<Frame> {
    Arc::new(Frame::Text(text.into()))
}

/// Each frame as ("text" | tab, its text or bytes).
fn shown(frames: &[Frame]) -> Vec<(String, Vec<u8>)> {
    frames
        .iter()
        .map(|frame| match frame {
            Frame::Text(text) => ("text".to_owned(), text.as_bytes().to_vec()),
            Frame::Binary(bytes) => {
                let (tab, data) = parse_terminal_frame(bytes).unwrap();
                (tab.to_owned(), data.to_vec())
            }
        })
        .collect()
}

#[test]
fn a_batch_joins_each_run_of_one_tabs_output_and_keeps_the_order() {
    let frames = [
        binary("a", b"1"),
        binary("a", b"2"),
        binary("a", b"3"),
        text("{\"event\":1}"),
        binary("a", b"4"),
        binary("b", b"x"),
        binary("b", b"y"),
        binary("a", b"5"),
    ];
    let joined = join_output(&frames);
    assert_eq!(
        shown(&joined),
        vec![
            ("a".to_owned(), b"123".to_vec()),
            ("text".to_owned(), b"{\"event\":1}".to_vec()),
            ("a".to_owned(), b"4".to_vec()),
            ("b".to_owned(), b"xy".to_vec()),
            ("a".to_owned(), b"5".to_vec()),
        ]
    );
    // A run stops at its size bound; nothing is lost.
    let big = vec![b'z'; JOINED_BYTES / 2 + 1];
    let joined = join_output(&[binary("a", &big), binary("a", &big), binary("a", b"!")]);
    let parts = shown(&joined);
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].1.len(), big.len());
    assert_eq!(parts[1].1.len(), big.len() + 1);
}

#[tokio::test]
async fn a_batch_takes_what_waits_and_says_when_the_page_lagged() {
    let (sender, mut receiver) = broadcast::channel(4);
    sender.send(binary("a", b"2")).unwrap();
    sender.send(binary("a", b"3")).unwrap();
    let batch = next_batch(binary("a", b"1"), &mut receiver).unwrap();
    assert_eq!(shown(&batch), vec![("a".to_owned(), b"123".to_vec())]);
    for i in 0..6u8 {
        sender.send(binary("a", &[i])).unwrap();
    }
    assert!(matches!(
        next_batch(binary("a", b"0"), &mut receiver),
        Err(broadcast::error::RecvError::Lagged(_))
    ));
}

#[tokio::test]
async fn a_page_follows_the_replay_then_batches_and_starts_again_when_behind() {
    let hub = Hub::new();
    let output = |data: &[u8]| Event::TerminalOutput {
        tab: "t".into(),
        data: data.to_vec(),
    };
    hub.publish(Event::TabOpened {
        tab: "t".into(),
        kind: kaiport_protocol::TabKind::Terminal,
        title: "local".into(),
    });
    hub.publish(output(b"a"));
    let mut follow = hub.follow();
    // Published after the page started following: not in its replay, and not missed.
    hub.publish(output(b"b"));
    hub.publish(output(b"c"));
    assert!(follow.replay_waiting());
    let replay = shown(&follow.next().await.unwrap());
    assert_eq!(replay.len(), 2, "{replay:?}");
    assert_eq!(replay[0].0, "text");
    assert_eq!(replay[1], ("t".to_owned(), b"a".to_vec()));
    assert!(!follow.replay_waiting());
    assert_eq!(
        shown(&follow.next().await.unwrap()),
        vec![("t".to_owned(), b"bc".to_vec())]
    );

    for _ in 0..=FRAMES_BEHIND {
        hub.publish(output(b"x"));
    }
    assert!(matches!(
        follow.next().await,
        Err(broadcast::error::RecvError::Lagged(_))
    ));
    // Behind: the page starts again from the replay, which has all it missed that is kept.
    assert!(follow.replay_waiting());
    let replay = shown(&follow.next().await.unwrap());
    let mut kept = b"abc".to_vec();
    kept.extend(std::iter::repeat_n(b'x', FRAMES_BEHIND + 1));
    assert_eq!(replay[1], ("t".to_owned(), kept));
    hub.publish(output(b"d"));
    assert_eq!(
        shown(&follow.next().await.unwrap()),
        vec![("t".to_owned(), b"d".to_vec())]
    );
}

/// A page that connects after tabs were moved gets them in the engine's order.
#[test]
fn the_replay_opens_tabs_in_the_order_they_were_moved_to() {
    let hub = Hub::new();
    for tab in ["a", "b", "c"] {
        hub.publish(Event::TabOpened {
            tab: tab.into(),
            kind: kaiport_protocol::TabKind::Terminal,
            title: tab.into(),
        });
    }
    hub.publish(Event::TabsReordered {
        tabs: vec!["c".into(), "a".into(), "b".into()],
    });
    let opened: Vec<String> = hub
        .join()
        .0
        .iter()
        .filter_map(|frame| match frame {
            Frame::Text(text) => serde_json::from_str::<Event>(text).ok(),
            Frame::Binary(_) => None,
        })
        .filter_map(|event| match event {
            Event::TabOpened { tab, .. } => Some(tab),
            _ => None,
        })
        .collect();
    assert_eq!(opened, ["c", "a", "b"]);
}

#[test]
fn the_replay_keeps_each_open_forwards_latest_state() {
    use kaiport_protocol::{ForwardKind, ForwardReport, ForwardSpec, ForwardStatus};
    let report = |id: u32, status: ForwardStatus, total: u64| ForwardReport {
        id,
        spec: ForwardSpec {
            kind: ForwardKind::Local,
            bind_address: None,
            listen_port: 8080 + u16::try_from(id).unwrap(),
            to_host: Some("localhost".into()),
            to_port: Some(80),
        },
        status,
        open_connections: 0,
        total_connections: total,
        bytes_sent: 0,
        bytes_received: 0,
        pilot_call: None,
    };
    let hub = Hub::new();
    hub.publish(Event::TabOpened {
        tab: "t".into(),
        kind: kaiport_protocol::TabKind::Terminal,
        title: "web1".into(),
    });
    let listening = || ForwardStatus::Listening {
        address: "127.0.0.1:8081".into(),
    };
    for (id, total) in [(1, 0), (2, 0), (1, 5)] {
        hub.publish(Event::ForwardState {
            tab: "t".into(),
            forward: report(id, listening(), total),
        });
    }
    let texts = |frames: Vec<Frame>| -> Vec<String> {
        frames
            .into_iter()
            .filter_map(|frame| match frame {
                Frame::Text(text) if text.contains("forward_state") => Some(text.to_string()),
                _ => None,
            })
            .collect()
    };
    let kept = texts(hub.join().0);
    // One frame per forward, the latest: forward 1 with its 5 connections, then forward 2.
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(kept[0].contains("\"total_connections\":5"), "{kept:?}");
    assert!(kept[1].contains("\"id\":2"), "{kept:?}");
    hub.publish(Event::ForwardState {
        tab: "t".into(),
        forward: report(1, ForwardStatus::Closed, 5),
    });
    let kept = texts(hub.join().0);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(kept[0].contains("\"id\":2"), "{kept:?}");
}
