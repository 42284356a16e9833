//! Reconnect benchmark: the time from the server's return to a usable prompt after a terminal
//! tab's connection was lost, on loopback against the real sshd.
//!
//! The processes serving the tab are killed while sshd itself keeps taking logins, with the
//! engine's first wait set to 0: the automatic attempt starts as the drop is told
//! (`Reconnecting`), with the server already back. Timed from that event to `Connected` (SSH
//! handshake, login, shell, first prompt, integration) and to the end of a run_command `true`
//! (a prompt that takes commands).
//!
//! Run: `cargo bench -p kaiport-tests --bench reconnect` (as root, after scripts/test.sh has
//! installed sshd). Prints medians; the numbers go into BENCHMARKS.md.

use anyhow::{Result, bail};
use kaiport_core::{Engine, EngineConfig};
use kaiport_protocol::*;
use kaiport_tests::sshd::Sshd;
use serde_json::json;
use std::time::{Duration, Instant};

const RUNS: usize = 15;
const TAB: &str = "t1";

#[tokio::main]
async fn main() -> Result<()> {
    let sshd = Sshd::start()?;
    let home = tempfile::tempdir()?;
    let mut config = EngineConfig::in_dir(home.path());
    sshd.write_known_hosts(&config.known_hosts)?;
    config.reconnect.first_delay = Duration::ZERO;
    let (engine, mut events) = Engine::new(config)?;
    let (states_tx, mut states) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            if let Event::ConnectionState { state, .. } = event {
                let _ = states_tx.send((Instant::now(), state));
            }
        }
    });
    engine
        .handle(Op::OpenTab {
            tab: TAB.to_owned(),
            target: sshd.tab_target(),
            cols: 120,
            rows: 40,
            settings: None,
            mode: Some(Mode::Autopilot),
        })
        .await;
    let mut next = async |wanted: fn(&ConnectionState) -> bool| -> Result<Instant> {
        loop {
            let Ok(Some((at, state))) =
                tokio::time::timeout(Duration::from_secs(60), states.recv()).await
            else {
                bail!("no connection state within 60 s");
            };
            if let ConnectionState::Failed { error } = &state {
                bail!("failed: {error}");
            }
            if wanted(&state) {
                return Ok(at);
            }
        }
    };
    next(|state| matches!(state, ConnectionState::Connected)).await?;
    let (mut connected, mut usable) = (Vec::new(), Vec::new());
    for run in 0..=RUNS {
        let outcome = engine
            .run_tool(
                TAB.to_owned(),
                format!("warm-{run}"),
                "run_command".to_owned(),
                json!({"command": "true"}),
            )
            .await;
        if outcome.status != ToolStatus::Ok {
            bail!("run_command before the drop: {outcome:?}");
        }
        sshd.kill_connections();
        let dropped = next(|state| matches!(state, ConnectionState::Reconnecting { .. })).await?;
        let back = next(|state| matches!(state, ConnectionState::Connected)).await?;
        let outcome = engine
            .run_tool(
                TAB.to_owned(),
                format!("after-{run}"),
                "run_command".to_owned(),
                json!({"command": "true"}),
            )
            .await;
        if outcome.status != ToolStatus::Ok {
            bail!("run_command after the reconnect: {outcome:?}");
        }
        // The first run warms the server's caches; it is not counted.
        if run > 0 {
            connected.push((back - dropped).as_secs_f64());
            usable.push(dropped.elapsed().as_secs_f64());
        }
    }
    println!("reconnect on loopback, {RUNS} runs (medians, min–max):");
    for (what, values) in [
        ("drop told → Connected", &mut connected),
        ("drop told → run_command `true` done", &mut usable),
    ] {
        values.sort_by(f64::total_cmp);
        println!(
            "  {what}: {:.3} s ({:.3}–{:.3})",
            values[values.len() / 2],
            values[0],
            values[values.len() - 1]
        );
    }
    Ok(())
}
