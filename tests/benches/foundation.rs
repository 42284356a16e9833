//! Foundation benchmarks (issue: terminal tabs), side by side with OpenSSH on the same sshd:
//!
//! 1. Memory: 20 open SSH terminal tabs with 10,000 lines of history each (first, so the
//!    process has not held anything bigger before).
//! 2. Terminal ingest: `cat` of a 256 MB text file through a terminal tab (screen mirror, marks,
//!    history, events) vs `ssh -tt host cat FILE > /dev/null`.
//! 3. run_command round trip of `true`, 200 times with shell integration, 50 times with the
//!    heuristic.
//!
//! Run: `cargo bench -p kaiport-tests --bench foundation` (as root, after scripts/test.sh has
//! installed sshd). Prints a table; the numbers go into BENCHMARKS.md.

use anyhow::{Context, Result, bail};
use kaiport_core::{Engine, EngineConfig, EventStream};
use kaiport_protocol::*;
use kaiport_tests::sshd::Sshd;
use serde_json::json;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const INGEST_BYTES: u64 = 256 << 20;
const AES_GCM: &str = "aes256-gcm@openssh.com";
const ROUND_TRIPS_INTEGRATION: usize = 200;
const ROUND_TRIPS_HEURISTIC: usize = 50;
const MEMORY_TABS: usize = 20;
const HISTORY_LINES: usize = 10_000;

/// An engine whose events are drained (terminal bytes only counted), with tool calls awaited.
struct Bench {
    engine: Engine,
    _home: tempfile::TempDir,
    output_bytes: Arc<AtomicU64>,
}

impl Bench {
    fn new(sshd: &Sshd) -> Result<(Bench, EventStream)> {
        let home = tempfile::tempdir()?;
        let mut config = EngineConfig::in_dir(home.path());
        config.known_hosts = home.path().join("known_hosts");
        sshd.write_known_hosts(&config.known_hosts)?;
        let (engine, events) = Engine::new(config)?;
        Ok((
            Bench {
                engine,
                _home: home,
                output_bytes: Arc::default(),
            },
            events,
        ))
    }

    fn drain(
        &self,
        mut events: EventStream,
    ) -> tokio::sync::mpsc::UnboundedReceiver<(TabId, ConnectionState)> {
        let (states_tx, states) = tokio::sync::mpsc::unbounded_channel();
        let counter = self.output_bytes.clone();
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                match event {
                    Event::TerminalOutput { data, .. } => {
                        counter.fetch_add(data.len() as u64, Ordering::Relaxed);
                    }
                    Event::ConnectionState { tab, state } => {
                        let _ = states_tx.send((tab, state));
                    }
                    _ => {}
                }
            }
        });
        states
    }

    async fn open(
        &self,
        states: &mut tokio::sync::mpsc::UnboundedReceiver<(TabId, ConnectionState)>,
        sshd: &Sshd,
        tab: &str,
        settings: ConnectionSettings,
    ) -> Result<()> {
        let target = TabTarget::Ssh {
            host: "127.0.0.1".to_owned(),
            port: sshd.port(),
            user: sshd.user().to_owned(),
            identity_files: vec![sshd.keys.ed25519.display().to_string()],
            jump_hosts: Vec::new(),
            keep_session: false,
            certificate_files: Vec::new(),
            identity_agent: None,
            forward_agent: false,
        };
        self.engine
            .handle(Op::OpenTab {
                tab: tab.to_owned(),
                target,
                cols: 120,
                rows: 40,
                settings: Some(settings),
                mode: Some(Mode::Autopilot),
            })
            .await;
        while let Some((id, state)) = states.recv().await {
            match (id == tab, state) {
                (true, ConnectionState::Connected) => return Ok(()),
                (true, ConnectionState::Failed { error }) => bail!("{tab}: {error}"),
                _ => {}
            }
        }
        bail!("engine stopped")
    }

    async fn run(&self, tab: &str, command: &str) -> Result<serde_json::Value> {
        let outcome = self
            .engine
            .run_tool(
                tab.to_owned(),
                "bench".to_owned(),
                "run_command".to_owned(),
                json!({"command": command, "timeout_s": 600}),
            )
            .await;
        if outcome.status != ToolStatus::Ok {
            bail!("{command}: {:?} {:?}", outcome.status, outcome.error);
        }
        let result = outcome.result.context("no result")?;
        if result["status"] != "completed" {
            bail!("{command}: {result}");
        }
        Ok(result)
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[((values.len() as f64 - 1.0) * p).round() as usize]
}

fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn make_text_file(path: &std::path::Path, bytes: u64) -> Result<()> {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut written = 0u64;
    let mut n = 0u64;
    while written < bytes {
        let line =
            format!("{n:010} the quick brown fox jumps over the lazy dog, line after line\n");
        file.write_all(line.as_bytes())?;
        written += line.len() as u64;
        n += 1;
    }
    file.flush()?;
    Ok(())
}

fn openssh_cat(
    sshd: &Sshd,
    known_hosts: &std::path::Path,
    file: &std::path::Path,
    cipher: Option<&str>,
) -> Result<Duration> {
    let started = Instant::now();
    let mut ssh = Command::new("ssh");
    if let Some(cipher) = cipher {
        ssh.args(["-c", cipher]);
    }
    let status = ssh
        .args(["-tt", "-q", "-i"])
        .arg(&sshd.keys.ed25519)
        .args([
            "-o",
            "BatchMode=yes",
            "-o",
            "StrictHostKeyChecking=yes",
            "-o",
        ])
        .arg(format!("UserKnownHostsFile={}", known_hosts.display()))
        .args(["-p", &sshd.port().to_string()])
        .arg(format!("{}@127.0.0.1", sshd.user()))
        .arg(format!("cat {}", file.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()?;
    if !status.success() {
        bail!("ssh cat failed: {status}");
    }
    Ok(started.elapsed())
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> Result<()> {
    let sshd = Sshd::start()?;
    println!("kaiport foundation benchmarks (release build, sshd on 127.0.0.1)");
    println!(
        "note: kaiport's tab is open before its timers start; `ssh -tt` is timed as a whole process \
         (start, key exchange, login, pty); the whole-process comparison is `--bench whole`\n"
    );

    // 1. Memory first, in a fresh process: 20 tabs, each with a full history.
    let idle = rss_mb();
    {
        let (bench, events) = Bench::new(&sshd)?;
        let mut states = bench.drain(events);
        for index in 0..MEMORY_TABS {
            let tab = format!("mem-{index}");
            bench
                .open(&mut states, &sshd, &tab, ConnectionSettings::default())
                .await?;
            bench
                .run(&tab, &format!("seq 1 {}", HISTORY_LINES + 2000))
                .await?;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let loaded = rss_mb();
        println!(
            "| {MEMORY_TABS} SSH terminal tabs × {HISTORY_LINES} lines of history | RSS {loaded:.0} MB (process before the engine: {idle:.0} MB) (≤ 150 MB) |"
        );
    }

    // 2. Terminal ingest.
    let (bench, events) = Bench::new(&sshd)?;
    let mut states = bench.drain(events);
    let file = sshd.dir().join("ingest.txt");
    make_text_file(&file, INGEST_BYTES)?;
    let size = std::fs::metadata(&file)?.len();
    let known_hosts = sshd.dir().join("bench_known_hosts");
    sshd.write_known_hosts(&known_hosts)?;
    bench
        .open(&mut states, &sshd, "ingest", ConnectionSettings::default())
        .await?;
    let mut openssh = Vec::new();
    let mut openssh_gcm = Vec::new();
    let mut kaiport = Vec::new();
    for _ in 0..3 {
        openssh.push(openssh_cat(&sshd, &known_hosts, &file, None)?.as_secs_f64());
        // kaiport prefers AES-GCM where the CPU accelerates it; OpenSSH's default is
        // ChaCha20-Poly1305. Both are shown so the ratio's source is plain.
        openssh_gcm.push(openssh_cat(&sshd, &known_hosts, &file, Some(AES_GCM))?.as_secs_f64());
        let before = bench.output_bytes.load(Ordering::Relaxed);
        let started = Instant::now();
        bench
            .run("ingest", &format!("cat {}", file.display()))
            .await?;
        kaiport.push(started.elapsed().as_secs_f64());
        let streamed = bench.output_bytes.load(Ordering::Relaxed) - before;
        if streamed < size {
            bail!("the terminal streamed {streamed} bytes of {size}");
        }
    }
    let (openssh_s, kaiport_s) = (median(&mut openssh), median(&mut kaiport));
    let openssh_gcm_s = median(&mut openssh_gcm);
    let mb = size as f64 / (1 << 20) as f64;
    println!(
        "| terminal ingest, cat {mb:.0} MB | OpenSSH ssh -tt: {:.0} MB/s | kaiport tab: {:.0} MB/s | ratio {:.2} (≥ 0.90) |",
        mb / openssh_s,
        mb / kaiport_s,
        openssh_s / kaiport_s
    );
    println!(
        "| same, OpenSSH with -c {AES_GCM} | OpenSSH ssh -tt: {:.0} MB/s | kaiport tab: {:.0} MB/s | ratio {:.2} |",
        mb / openssh_gcm_s,
        mb / kaiport_s,
        openssh_gcm_s / kaiport_s
    );

    // 3. Round trips.
    bench
        .open(
            &mut states,
            &sshd,
            "rt-integration",
            ConnectionSettings::default(),
        )
        .await?;
    let shell_time = bench
        .run("rt-integration", "TIMEFORMAT=%R; { time true; } 2>&1")
        .await?;
    let shell_ms: f64 = shell_time["output"]
        .as_str()
        .unwrap_or("0")
        .trim()
        .parse::<f64>()
        .unwrap_or(0.0)
        * 1000.0;
    let mut integration = Vec::new();
    for _ in 0..ROUND_TRIPS_INTEGRATION {
        let started = Instant::now();
        let result = bench.run("rt-integration", "true").await?;
        if result["detection"] != "shell_integration" {
            bail!("expected shell integration: {result}");
        }
        integration.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    let integration_median = median(&mut integration);
    println!(
        "| run_command `true` ×{ROUND_TRIPS_INTEGRATION}, shell integration | median {integration_median:.2} ms, p95 {:.2} ms; shell's own time {shell_ms:.2} ms → overhead {:.2} ms (≤ 5 ms) |",
        percentile(&mut integration, 0.95),
        integration_median - shell_ms
    );

    let heuristic_settings = ConnectionSettings {
        shell_integration: ShellIntegration::Off,
        ..ConnectionSettings::default()
    };
    bench
        .open(&mut states, &sshd, "rt-heuristic", heuristic_settings)
        .await?;
    let mut heuristic = Vec::new();
    for _ in 0..ROUND_TRIPS_HEURISTIC {
        let started = Instant::now();
        bench.run("rt-heuristic", "true").await?;
        heuristic.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "| run_command `true` ×{ROUND_TRIPS_HEURISTIC}, heuristic | median {:.0} ms, p95 {:.0} ms (≤ 600 ms) |",
        median(&mut heuristic),
        percentile(&mut heuristic, 0.95)
    );

    Ok(())
}
