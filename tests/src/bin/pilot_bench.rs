//! `kaiport-pilot-bench [CALLS]`: the engine's overhead per Pilot tool call.
//!
//! A real engine with a local terminal tab runs one Pilot turn against the scripted model
//! server on loopback; the model asks for `read_screen` (wait 0: no I/O of its own beyond
//! reading the screen mirror) CALLS times, one call per reply. For each call the gap between
//! the model server finishing reply k and receiving request k+1 is everything but the model:
//! parsing the stream, the tool pipeline (registry, arguments, policy, execution, events,
//! audit line, history line), framing the result, budgeting and building the next request,
//! and the loopback HTTP round. Prints median, p90 and max per protocol.

use anyhow::{Context, Result, bail};
use kaiport_core::{Engine, EngineConfig};
use kaiport_protocol::*;
use kaiport_tests::model_server::ModelServer;
use serde_json::json;
use std::time::Duration;

/// The variable holding the (dummy) API key the bench sends to the loopback server.
const BENCH_KEY_VAR: &str = "KAIPORT_BENCH_KEY";
/// Tool calls per turn.
const CALLS_PER_TURN: usize = 40;

fn main() -> Result<()> {
    if std::env::var_os(BENCH_KEY_VAR).is_none() {
        // Setting the variable in this process would need `unsafe`; run again with it set.
        let status = std::process::Command::new(std::env::current_exe()?)
            .args(std::env::args_os().skip(1))
            .env(BENCH_KEY_VAR, "bench-dummy-key")
            .status()?;
        std::process::exit(status.code().unwrap_or(1));
    }
    let calls: usize = match std::env::args().nth(1) {
        Some(text) => text.parse().context("CALLS must be a number")?,
        None => 300,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    for protocol in [ProviderKind::Anthropic, ProviderKind::Openai] {
        let mut gaps = runtime.block_on(measure(protocol, calls))?;
        if std::env::var_os("KAIPORT_BENCH_DETAIL").is_some() && gaps.len() >= 2 * CALLS_PER_TURN {
            // The conversation grows with every call: early and late calls side by side.
            let median_of = |slice: &[Duration]| {
                let mut slice = slice.to_vec();
                slice.sort();
                slice[slice.len() / 2]
            };
            eprintln!(
                "gap median, first {CALLS_PER_TURN} calls {:?}, last {CALLS_PER_TURN} calls {:?}",
                median_of(&gaps[..CALLS_PER_TURN]),
                median_of(&gaps[gaps.len() - CALLS_PER_TURN..]),
            );
        }
        gaps.sort();
        let at = |share: f64| gaps[((gaps.len() - 1) as f64 * share) as usize];
        println!(
            "{:<9} {} tool calls: median {:.3} ms, p90 {:.3} ms, max {:.3} ms",
            protocol.as_str(),
            gaps.len(),
            at(0.5).as_secs_f64() * 1000.0,
            at(0.9).as_secs_f64() * 1000.0,
            gaps[gaps.len() - 1].as_secs_f64() * 1000.0,
        );
    }
    Ok(())
}

async fn measure(protocol: ProviderKind, calls: usize) -> Result<Vec<Duration>> {
    // Turns of CALLS_PER_TURN calls each (a turn stops at MAX_STEPS_PER_TURN model replies).
    let turns = calls.div_ceil(CALLS_PER_TURN);
    let mut steps = Vec::new();
    for _ in 0..turns {
        for _ in 0..CALLS_PER_TURN {
            steps.push(json!({"respond": {"tool_calls": [{"name": "read_screen", "arguments": {"wait_seconds": 0}}]}}));
        }
        steps.push(json!({"respond": {"text": "done"}}));
    }
    let server = ModelServer::from_json(json!({"steps": steps}))?;
    let home = tempfile::tempdir()?;
    let config = EngineConfig::in_dir(home.path());
    let (engine, mut events) = Engine::new(config)?;
    engine
        .handle(Op::OpenTab {
            tab: "bench".to_owned(),
            target: TabTarget::Local,
            cols: 100,
            rows: 30,
            settings: None,
            mode: Some(Mode::Autopilot),
        })
        .await;
    let base_url = match protocol {
        ProviderKind::Anthropic => server.anthropic_url(),
        ProviderKind::Openai => server.openai_url(),
    };
    let model = ModelSettings {
        provider: protocol,
        base_url: Some(base_url),
        model: "bench".to_owned(),
        api_key_env: None,
        context_tokens: Some(1_000_000),
        max_output_tokens: None,
    };
    // Anthropic needs a key: a dummy one from the variable main() made sure is set.
    let model = ModelSettings {
        api_key_env: Some(BENCH_KEY_VAR.to_owned()),
        ..model
    };
    let mut sent = 0;
    let mut requested = Vec::new();
    let mut tool_finished = Vec::new();
    loop {
        let Some(event) = tokio::time::timeout(Duration::from_secs(120), events.recv()).await?
        else {
            bail!("the engine stopped");
        };
        match event {
            Event::ConnectionState {
                state: ConnectionState::Connected,
                ..
            } => {
                sent += 1;
                engine
                    .handle(Op::SendMessage {
                        tab: "bench".to_owned(),
                        text: "benchmark".to_owned(),
                        model: Some(model.clone()),
                    })
                    .await;
            }
            Event::ConnectionState {
                state: ConnectionState::Failed { error },
                ..
            } => {
                bail!("the local terminal did not start: {error}")
            }
            Event::TurnFinished {
                status, message, ..
            } => {
                if status != TurnStatus::Completed {
                    bail!("the turn ended {status:?}: {message:?}");
                }
                if sent == turns {
                    break;
                }
                sent += 1;
                engine
                    .handle(Op::SendMessage {
                        tab: "bench".to_owned(),
                        text: "again".to_owned(),
                        model: None,
                    })
                    .await;
            }
            Event::ToolRequested { .. } => requested.push(std::time::Instant::now()),
            Event::ToolFinished { .. } => tool_finished.push(std::time::Instant::now()),
            _ => {}
        }
    }
    if std::env::var_os("KAIPORT_BENCH_DETAIL").is_some() {
        let mut pipeline: Vec<Duration> = requested
            .iter()
            .zip(&tool_finished)
            .map(|(start, end)| end.duration_since(*start))
            .collect();
        pipeline.sort();
        eprintln!("tool pipeline median {:?}", pipeline[pipeline.len() / 2]);
        let requests = server.requests();
        // Replies that asked for a tool, in order (the last reply of each turn is text).
        let mut before: Vec<Duration> = requests
            .iter()
            .enumerate()
            .filter(|(index, _)| index % (CALLS_PER_TURN + 1) != CALLS_PER_TURN)
            .map(|(_, request)| request)
            .zip(&requested)
            .filter_map(|(request, at)| Some(at.duration_since(request.finished()?)))
            .collect();
        before.sort();
        eprintln!(
            "reply end to ToolRequested median {:?}",
            before[before.len() / 2]
        );
    }
    if !server.failures().is_empty() {
        bail!("script failures: {:?}", server.failures());
    }
    let requests = server.requests();
    // Only the gaps after a tool-call reply: the others include the bench sending a message.
    Ok(requests
        .windows(2)
        .enumerate()
        .filter(|(index, _)| index % (CALLS_PER_TURN + 1) != CALLS_PER_TURN)
        .filter_map(|(_, pair)| Some(pair[1].received.duration_since(pair[0].finished()?)))
        .collect())
}
