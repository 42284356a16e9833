//! Port forwards against OpenSSH on the same sshd (BENCHMARKS.md, "Port forwards"): a local
//! forward opened by `kaiport forward -L` against one opened by `ssh -N -L`, each a whole
//! process kept running while it is measured.
//!
//! 1. throughput: 1 GiB (64 MiB with `KAIPORT_BENCH_SMALL=1`) read through the forward from a
//!    server on 127.0.0.1 that sends zeros and closes; medians of `KAIPORT_BENCH_REPEAT` runs
//!    (default 3), the two sides interleaved;
//! 2. connection setup: the median of 200 `curl` requests, each a new connection through the
//!    forward to a one-page HTTP server.
//!
//! Run: `cargo build --release -p kaiport-cli && cargo bench -p kaiport-tests --bench forward`
//! (as root, after scripts/test.sh installed sshd and curl). It runs `target/release/kaiport`
//! (`KAIPORT_BIN` to choose another: a debug build shows that it works, not how fast it is).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use anyhow::{Context, Result, bail};
use kaiport_tests::bench_timing::{compare, kaiport_bin, median};
use kaiport_tests::http_page::{free_port, serve};
use kaiport_tests::sshd::Sshd;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn main() -> Result<()> {
    let small = std::env::var_os("KAIPORT_BENCH_SMALL").is_some();
    let repeat: usize = std::env::var("KAIPORT_BENCH_REPEAT")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let kaiport = kaiport_bin()?;
    let bytes: u64 = if small { 64 << 20 } else { 1 << 30 };
    let home = tempfile::tempdir()?;
    let sshd = Sshd::start()?;
    let known_hosts = home.path().join("known_hosts");
    sshd.write_known_hosts(&known_hosts)?;
    let zeros = zero_server(bytes)?;
    let page = serve("ok")?;

    let ours_port = free_port()?;
    let theirs_port = free_port()?;
    let ours_page = free_port()?;
    let theirs_page = free_port()?;
    let _ours = Running(kaiport_forward(
        &kaiport,
        home.path(),
        &sshd,
        &known_hosts,
        &[(ours_port, zeros), (ours_page, page)],
    )?);
    let _theirs = Running(ssh_forward(
        &sshd,
        &known_hosts,
        &[(theirs_port, zeros), (theirs_page, page)],
    )?);
    wait_listening(theirs_port)?;
    wait_listening(theirs_page)?;

    let (ours, theirs) = compare(
        repeat,
        || drain(ours_port, bytes),
        || drain(theirs_port, bytes),
    )?;
    let mib = bytes as f64 / f64::from(1 << 20);
    let rate = |d: Duration| mib / d.as_secs_f64();
    println!(
        "throughput, {mib:.0} MiB through -L: kaiport {:.3} s ({:.0} MiB/s), ssh -L {:.3} s ({:.0} MiB/s), kaiport ÷ OpenSSH throughput {:.2} (goal ≥ 0.90)",
        ours.as_secs_f64(),
        rate(ours),
        theirs.as_secs_f64(),
        rate(theirs),
        rate(ours) / rate(theirs)
    );

    let requests = if small { 20 } else { 200 };
    let ours = curl_median(ours_page, requests)?;
    let theirs = curl_median(theirs_page, requests)?;
    println!(
        "connection setup, median of {requests} curl requests: kaiport {:.2} ms, ssh -L {:.2} ms, ratio {:.2} (goal ≤ 1.20)",
        ours.as_secs_f64() * 1e3,
        theirs.as_secs_f64() * 1e3,
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
    Ok(())
}

/// A child process killed (by PID) when the bench ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `kaiport forward` with one `-L` per pair, returned once every forward listens.
fn kaiport_forward(
    kaiport: &Path,
    home: &Path,
    sshd: &Sshd,
    known_hosts: &Path,
    forwards: &[(u16, u16)],
) -> Result<Child> {
    let mut command = Command::new(kaiport);
    command
        .arg("forward")
        .arg(format!("ssh://{}@127.0.0.1:{}", sshd.user(), sshd.port()))
        .arg("--identity")
        .arg(&sshd.keys.ed25519)
        .arg("--known-hosts")
        .arg(known_hosts)
        .env("KAIPORT_HOME", home)
        .env_remove("SSH_AUTH_SOCK")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (port, to) in forwards {
        command.arg("-L").arg(format!("{port}:127.0.0.1:{to}"));
    }
    let mut child = command.spawn()?;
    let stderr = child.stderr.take().context("no stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    let mut listening = 0;
    while listening < forwards.len() {
        let Some(line) = lines.next() else {
            bail!("kaiport forward ended before its forwards listened");
        };
        let line = line?;
        if line.contains("listening on") && line.contains(", 0 in all") {
            listening += 1;
        }
    }
    // The rest of what it says is read and dropped, so it never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    Ok(child)
}

/// `ssh -N` with one `-L` per pair, the same key and known_hosts.
fn ssh_forward(sshd: &Sshd, known_hosts: &Path, forwards: &[(u16, u16)]) -> Result<Child> {
    let mut command = Command::new("ssh");
    command
        .args([
            "-N",
            "-o",
            "BatchMode=yes",
            "-o",
            "ExitOnForwardFailure=yes",
        ])
        .arg("-o")
        .arg(format!("UserKnownHostsFile={}", known_hosts.display()))
        .arg("-i")
        .arg(&sshd.keys.ed25519)
        .args(["-p", &sshd.port().to_string()]);
    for (port, to) in forwards {
        command.arg("-L").arg(format!("{port}:127.0.0.1:{to}"));
    }
    command
        .arg(format!("{}@127.0.0.1", sshd.user()))
        .stdin(Stdio::null());
    Ok(command.spawn()?)
}

/// Waits until something accepts connections on `port` (ssh says nothing when it is ready).
fn wait_listening(port: u16) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            bail!("nothing listens on port {port} after 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// A server sending `bytes` zeros to every connection, then closing.
fn zero_server(bytes: u64) -> Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let block = vec![0u8; 1 << 20];
                let mut left = bytes;
                while left > 0 {
                    let n = left.min(block.len() as u64) as usize;
                    if stream.write_all(&block[..n]).is_err() {
                        return;
                    }
                    left -= n as u64;
                }
            });
        }
    });
    Ok(port)
}

/// Reads everything the forward on `port` carries; it must be `bytes`.
fn drain(port: u16, bytes: u64) -> Result<()> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    let mut buffer = vec![0u8; 1 << 20];
    let mut got = 0u64;
    loop {
        let n = stream.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        got += n as u64;
    }
    anyhow::ensure!(
        got == bytes,
        "read {got} bytes through port {port}, not {bytes}"
    );
    Ok(())
}

/// The median time of `requests` curl runs, each a new connection through `port`.
fn curl_median(port: u16, requests: usize) -> Result<Duration> {
    let mut times = Vec::with_capacity(requests);
    for _ in 0..requests {
        let started = Instant::now();
        let output = Command::new("curl")
            .args(["-sS", "--max-time", "20", "-o", "/dev/null"])
            .arg(format!("http://127.0.0.1:{port}/"))
            .output()?;
        anyhow::ensure!(
            output.status.success(),
            "curl through port {port}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        times.push(started.elapsed());
    }
    Ok(median(&mut times))
}
