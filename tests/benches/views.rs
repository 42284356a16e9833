//! show_view speed against OpenSSH on the same sshd (BENCHMARKS.md, "Views"), and the host probe
//! a terminal tab runs on connect against `ssh host true`: for each view, the
//! time from the call to the finished report on an open connection (its commands on parallel
//! exec channels) against running the very same commands (from the report, after the same
//! prelude) with `ssh host 'cmd'` one after another.
//!
//! Run with `cargo bench -p kaiport-tests --bench views` (as root, like the test suite, so the
//! sshd fixture logs in as its test user). `KAIPORT_BENCH_REPEAT=N` (default 5) runs each side N
//! times and reports medians. The data (a folder tree, a log file) is made in a temp dir and
//! removed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use anyhow::{Context, Result, bail};
use kaiport_core::ssh::SshSession;
use kaiport_core::views::{self, PRELUDE, ViewHost, ViewRequest};
use kaiport_protocol::tools::ViewKind;
use kaiport_tests::dockerd::{BUSYBOX_IMAGE, Dockerd};
use kaiport_tests::interaction::ScriptedInteraction;
use kaiport_tests::sshd::{Sshd, SshdConfig};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

fn repeat() -> usize {
    std::env::var("KAIPORT_BENCH_REPEAT")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(5)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    // The docker views need an engine with a container: Debian's dockerd with its own socket
    // and data, a busybox image imported from a local tarball (never pulled), and an sshd
    // whose sessions get its DOCKER_HOST. Without it the docker rows are left out, and the
    // bench says so.
    let first = Sshd::start()?;
    let dockerd = match start_docker(first.user()) {
        Ok(dockerd) => Some(dockerd),
        Err(error) => {
            eprintln!("note: no docker rows: {error:#}");
            None
        }
    };
    let sshd = match &dockerd {
        Some(dockerd) => {
            Sshd::start_with_env(SshdConfig::default(), &[("DOCKER_HOST", &dockerd.host())])?
        }
        None => first,
    };
    let known_hosts = sshd.dir().join("bench_known_hosts");
    sshd.write_known_hosts(&known_hosts)?;
    let session = runtime.block_on(SshSession::connect(
        &sshd.target(),
        &sshd.options()?,
        Arc::new(ScriptedInteraction::default()),
    ))?;
    let data = tempfile::Builder::new()
        .prefix("kaiport-bench-views-")
        .tempdir_in("/tmp")?;
    for index in 0..200 {
        let folder = data.path().join(format!("tree/d{}", index % 20));
        std::fs::create_dir_all(&folder)?;
        std::fs::write(
            folder.join(format!("f{index}")),
            vec![1u8; 4096 * (index % 7 + 1)],
        )?;
    }
    let log: String = (0..2000)
        .map(|i| format!("line {i} {}\n", if i % 50 == 0 { "ERROR x" } else { "ok" }))
        .collect();
    std::fs::write(data.path().join("app.log"), log)?;
    let status = Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(data.path())
        .status()?;
    if !status.success() {
        bail!("chmod failed");
    }
    let path = |rest: &str| Some(data.path().join(rest).display().to_string());
    let cases = [
        (ViewKind::Processes, None),
        (ViewKind::Disk, None),
        (ViewKind::DiskUsage, path("tree")),
        (ViewKind::Ports, None),
        (ViewKind::Logs, path("app.log")),
        (ViewKind::Cron, None),
        (
            ViewKind::Certificates,
            Some("/etc/ssl/certs/ca-certificates.crt".to_owned()),
        ),
        (ViewKind::Services, None),
        (ViewKind::ServiceStatus, Some("cron".to_owned())),
        (ViewKind::Updates, None),
        (ViewKind::Websites, None),
    ];
    let docker_cases = [
        (ViewKind::Docker, None),
        (ViewKind::DockerLogs, Some(CONTAINER.to_owned())),
    ];
    let cases = cases
        .into_iter()
        .chain(docker_cases.into_iter().filter(|_| dockerd.is_some()));
    let mut rows = Vec::new();
    for (view, subject) in cases {
        let request = ViewRequest { view, subject };
        let mut ours = Vec::new();
        let mut commands = Vec::new();
        for _ in 0..repeat() {
            let started = Instant::now();
            let report = runtime
                .block_on(views::show(
                    &request,
                    ViewHost::Ssh(&session),
                    &CancellationToken::new(),
                    false,
                ))
                .map_err(anyhow::Error::msg)?;
            ours.push(started.elapsed());
            commands = report.commands.iter().map(|c| c.command.clone()).collect();
        }
        let mut theirs = Vec::new();
        for _ in 0..repeat() {
            let started = Instant::now();
            for command in &commands {
                ssh(
                    &sshd,
                    &known_hosts.display().to_string(),
                    &format!("{PRELUDE}{command}"),
                )?;
            }
            theirs.push(started.elapsed());
        }
        let (ours, theirs) = (median(ours), median(theirs));
        eprintln!("{}: ours {ours:?}, ssh {theirs:?}", views::view_name(view));
        rows.push((views::view_name(view), commands.len(), ours, theirs));
    }
    // The host probe a terminal tab runs once it is connected, against a bare `ssh host true`.
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..repeat() {
        let started = Instant::now();
        let facts = runtime.block_on(views::host_facts::probe(
            ViewHost::Ssh(&session),
            &CancellationToken::new(),
        ));
        ours.push(started.elapsed());
        if let Some(error) = facts.probe_error {
            bail!("the host probe failed: {error}");
        }
        let started = Instant::now();
        ssh(&sshd, &known_hosts.display().to_string(), "true")?;
        theirs.push(started.elapsed());
    }
    let (ours, theirs) = (median(ours), median(theirs));
    eprintln!("host probe: ours {ours:?}, ssh true {theirs:?}");
    rows.push(("host probe (against `ssh host true`)", 1, ours, theirs));
    println!();
    println!("| view | commands | kaiport | ssh one after another | ratio |");
    println!("|---|---|---|---|---|");
    for (name, count, ours, theirs) in rows {
        println!(
            "| {name} | {count} | {:.0} ms | {:.0} ms | {:.2}× |",
            ours.as_secs_f64() * 1000.0,
            theirs.as_secs_f64() * 1000.0,
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
    }
    Ok(())
}

/// The running container the docker views look at.
const CONTAINER: &str = "kp-bench";

fn start_docker(group: &str) -> Result<Dockerd> {
    let dockerd = Dockerd::start(group)?;
    dockerd.import_busybox()?;
    dockerd.docker_ok(&[
        "run",
        "-d",
        "--network",
        "none",
        "--name",
        CONTAINER,
        BUSYBOX_IMAGE,
        "/bin/busybox",
        "sh",
        "-c",
        "i=0; while true; do i=$((i+1)); echo \"tick $i\"; sleep 0.1; done",
    ])?;
    Ok(dockerd)
}

/// Printed after the remote command: proof that ssh connected and ran it.
const RAN: &str = "kaiport-bench-ran";

/// Runs `remote` with OpenSSH's `ssh` (a new connection each time, as a person would).
fn ssh(sshd: &Sshd, known_hosts: &str, remote: &str) -> Result<()> {
    let output = Command::new("ssh")
        .arg("-i")
        .arg(&sshd.keys.ed25519)
        .arg("-p")
        .arg(sshd.port().to_string())
        .args(["-o", &format!("UserKnownHostsFile={known_hosts}")])
        .args(["-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes"])
        .arg(format!("{}@127.0.0.1", sshd.user()))
        .arg(format!("{remote}\necho {RAN}"))
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .context("running ssh")?;
    // A view's command may fail (no permission, not installed; `pacman -Qu` without a pacman
    // database exits 255 like ssh's own failure) and still count as run; only a connection that
    // never ran it voids the comparison.
    if !String::from_utf8_lossy(&output.stdout).ends_with(&format!("{RAN}\n")) {
        bail!("ssh could not connect to the fixture ({})", output.status);
    }
    Ok(())
}
