//! Listing a folder of 10,000 entries as an SSH tab's file pane does (BENCHMARKS.md,
//! "Listing"), against OpenSSH's `sftp` `ls -l` on the same sshd.
//!
//! kaiport's side is the pane's own path: a `list_dir` tool call of the user's (`user-…`, side
//! `remote`) sent to a real [`kaiport_core::Engine`] with the tab open, timed until its outcome
//! arrives, turned into JSON as it goes to the page. The user's list_dir gives every entry (Pilot's
//! stops at 500), in one outcome: its first rows and its last arrive together. The engine's own
//! SFTP listing of the whole folder is timed beside it (what the pipeline around it adds).
//!
//! OpenSSH's side: `sftp -b` with `ls -l FOLDER` as a whole process (start, connection, login,
//! listing, exit), and `ls -l FOLDER` in one `sftp` process kept open (its connection made
//! before the clock starts, like the tab's). Its first rows and its last: when the first and the
//! last line of the listing were read from its output.
//!
//! Run with `cargo bench -p kaiport-tests --bench listing` (as root, like the test suite, so the
//! sshd fixture logs in as its test user). `KAIPORT_BENCH_REPEAT=N` sets the rounds (default 9);
//! `KAIPORT_BENCH_ENTRIES=N` the folder's size (default 10,000).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use anyhow::{Context, Result, bail, ensure};
use kaiport_core::fs::{FileAccess, SftpFiles};
use kaiport_core::ssh::SshSession;
use kaiport_protocol::tools::ListDirResult;
use kaiport_protocol::{ConnectionSettings, Mode, ToolStatus};
use kaiport_tests::bench_timing::compare_moments;
use kaiport_tests::engine_harness::EngineHarness;
use kaiport_tests::interaction::ScriptedInteraction;
use kaiport_tests::sshd::Sshd;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() -> Result<()> {
    let runs = env_number("KAIPORT_BENCH_REPEAT", 9);
    let entries = env_number("KAIPORT_BENCH_ENTRIES", 10_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let sshd = Sshd::start()?;
    let folder = tempfile::Builder::new()
        .prefix("kaiport-bench-listing-")
        .tempdir_in("/tmp")?;
    std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o755))?;
    for index in 0..entries {
        std::fs::File::create(folder.path().join(format!("file-{index:05}.txt")))?;
    }
    let folder_text = folder.path().display().to_string();

    // kaiport: the pane's list_dir through the engine, on an open SSH tab.
    let tab = runtime.block_on(EngineHarness::open_sshd(
        &sshd,
        ConnectionSettings::default(),
        Mode::Ask,
    ))?;
    let mut next_call = 0u32;
    let mut pane = || -> Result<[Duration; 2]> {
        next_call += 1;
        let call = format!("user-list-{next_call}");
        let started = Instant::now();
        let shown = runtime.block_on(async {
            tab.start_as(
                &call,
                "list_dir",
                serde_json::json!({"path": folder_text, "side": "remote"}),
            )
            .await;
            tab.outcome(&call, Duration::from_secs(60)).await
        })?;
        // What goes to the page.
        let json = serde_json::to_vec(&shown)?;
        let elapsed = started.elapsed();
        ensure!(
            shown.status == ToolStatus::Ok,
            "list_dir ended {:?}: {:?}",
            shown.status,
            shown.error
        );
        let result: ListDirResult =
            serde_json::from_value(shown.result.context("list_dir gave no result")?)?;
        ensure!(
            result.entries.len() == entries && result.omitted == 0 && !json.is_empty(),
            "list_dir gave {} entries and {} left out, not all {entries}",
            result.entries.len(),
            result.omitted,
        );
        Ok([elapsed, elapsed])
    };

    // The engine's own SFTP listing of the whole folder (what all rows would cost it).
    let session = runtime.block_on(SshSession::connect(
        &sshd.target(),
        &sshd.options()?,
        Arc::new(ScriptedInteraction::default()),
    ))?;
    let files = runtime.block_on(SftpFiles::open(&session))?;
    let mut whole = || -> Result<[Duration; 2]> {
        let started = Instant::now();
        let mut items = runtime.block_on(files.read_dir(&folder_text))?;
        items.sort_by(|a, b| a.name.cmp(&b.name));
        let elapsed = started.elapsed();
        ensure!(items.len() == entries, "read_dir gave {}", items.len());
        Ok([elapsed, elapsed])
    };

    // OpenSSH.
    let known_hosts = sshd.dir().join("bench_known_hosts");
    sshd.write_known_hosts(&known_hosts)?;
    let openssh = OpenSsh {
        sshd: &sshd,
        known_hosts: known_hosts.display().to_string(),
    };
    let list_command = format!("ls -l {folder_text}");
    let mut sftp_process = || openssh.whole_process(&list_command, entries);
    let mut open_sftp = openssh.open()?;
    let mut sftp_open = || open_sftp.list(&list_command, entries);

    let sides: &mut [&mut dyn FnMut() -> Result<[Duration; 2]>] =
        &mut [&mut pane, &mut whole, &mut sftp_open, &mut sftp_process];
    let timed = compare_moments(runs, sides)?;
    let names = [
        format!("kaiport, the pane's list_dir (all {entries} entries, one outcome)"),
        format!("kaiport, the engine's SFTP listing of all {entries}"),
        "sftp `ls -l`, in an open sftp process".to_owned(),
        "sftp -b `ls -l`, the whole process (connection and login included)".to_owned(),
    ];
    for (name, side) in names.iter().zip(&timed) {
        let ms: Vec<String> = side
            .runs
            .iter()
            .map(|[first, all]| format!("{:.1}/{:.1}", millis(*first), millis(*all)))
            .collect();
        eprintln!("{name}: first/all rows ms per run: {}", ms.join(" "));
    }
    println!(
        "{entries} entries, medians of {runs} interleaved rounds; ratio: kaiport's pane ÷ the \
         reference (below 1: kaiport is faster)"
    );
    println!("| what | first rows | all rows | pane ÷ it, first rows | pane ÷ it, all rows |");
    println!("|---|---|---|---|---|");
    let [pane_first, pane_all] = timed[0].medians;
    for (name, side) in names.iter().zip(&timed) {
        let [first, all] = side.medians;
        println!(
            "| {name} | {:.1} ms | {:.1} ms | {:.2}× | {:.2}× |",
            millis(first),
            millis(all),
            pane_first.as_secs_f64() / first.as_secs_f64(),
            pane_all.as_secs_f64() / all.as_secs_f64()
        );
    }
    open_sftp.close()?;
    drop(tab);
    runtime.block_on(session.disconnect());
    Ok(())
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(default)
        .max(1)
}

fn millis(time: Duration) -> f64 {
    time.as_secs_f64() * 1000.0
}

/// The rows of an `ls -l` as sftp prints them, and when the first and the last were read.
struct Rows {
    started: Instant,
    count: usize,
    first: Option<Duration>,
    last: Option<Duration>,
}

impl Rows {
    fn new(started: Instant) -> Rows {
        Rows {
            started,
            count: 0,
            first: None,
            last: None,
        }
    }

    /// One line of sftp's output: a row unless it is sftp's echo of the command it runs.
    fn saw(&mut self, line: &str) {
        if line.starts_with("sftp>") {
            return;
        }
        let now = self.started.elapsed();
        self.first.get_or_insert(now);
        self.last = Some(now);
        self.count += 1;
    }

    /// The times of the first row and of the last, once all `entries` were seen.
    fn times(&self, entries: usize) -> Result<[Duration; 2]> {
        ensure!(
            self.count == entries,
            "sftp listed {} rows, not {entries}",
            self.count
        );
        match (self.first, self.last) {
            (Some(first), Some(last)) => Ok([first, last]),
            _ => bail!("sftp listed nothing"),
        }
    }
}

struct OpenSsh<'a> {
    sshd: &'a Sshd,
    known_hosts: String,
}

impl OpenSsh<'_> {
    /// `sftp -q -b BATCH user@127.0.0.1` with the fixture's key and known hosts.
    fn sftp(&self, batch: &str) -> Command {
        let mut command = Command::new("sftp");
        command
            .arg("-i")
            .arg(&self.sshd.keys.ed25519)
            .arg("-P")
            .arg(self.sshd.port().to_string())
            .arg("-o")
            .arg(format!("UserKnownHostsFile={}", self.known_hosts))
            .args(["-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes"])
            .args(["-q", "-b", batch])
            .arg(format!("{}@127.0.0.1", self.sshd.user()))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// Runs `list` in a new `sftp -b` process; the times of its first row and of its exit.
    fn whole_process(&self, list: &str, entries: usize) -> Result<[Duration; 2]> {
        let batch = tempfile::NamedTempFile::new()?;
        std::fs::write(batch.path(), format!("{list}\n"))?;
        let path = batch.path().display().to_string();
        let started = Instant::now();
        let mut child = self.sftp(&path).stdin(Stdio::null()).spawn()?;
        let stdout = child.stdout.take().context("no stdout")?;
        let mut rows = Rows::new(started);
        for line in BufReader::new(stdout).lines() {
            rows.saw(&line?);
        }
        let output = child.wait_with_output()?;
        if !output.status.success() {
            bail!("sftp failed: {}", String::from_utf8_lossy(&output.stderr));
        }
        rows.times(entries)
    }

    /// An `sftp` process reading its commands from a pipe, connected and logged in.
    fn open(&self) -> Result<OpenSftp> {
        let mut child = self.sftp("-").stdin(Stdio::piped()).spawn()?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("no stdout")?);
        let mut open = OpenSftp {
            child,
            stdin,
            stdout,
        };
        open.until_marker(|_| {})?;
        Ok(open)
    }
}

/// A running `sftp -b -`.
struct OpenSftp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// sftp's answer to `pwd`, sent after each command so its end can be seen.
const MARKER: &str = "Remote working directory:";

impl OpenSftp {
    /// Sends `pwd` and hands every line before its answer to `row`.
    fn until_marker(&mut self, mut row: impl FnMut(&str)) -> Result<()> {
        writeln!(self.stdin, "pwd")?;
        self.stdin.flush()?;
        let mut line = String::new();
        loop {
            line.clear();
            if self.stdout.read_line(&mut line)? == 0 {
                bail!("sftp ended before answering pwd");
            }
            if line.starts_with(MARKER) {
                return Ok(());
            }
            row(line.trim_end());
        }
    }

    /// Runs `list`; the times of its first row and of its last.
    fn list(&mut self, list: &str, entries: usize) -> Result<[Duration; 2]> {
        let mut rows = Rows::new(Instant::now());
        writeln!(self.stdin, "{list}")?;
        self.until_marker(|line| rows.saw(line))?;
        rows.times(entries)
    }

    fn close(mut self) -> Result<()> {
        writeln!(self.stdin, "bye")?;
        drop(self.stdin);
        let status = self.child.wait()?;
        ensure!(status.success(), "sftp ended with {status}");
        Ok(())
    }
}
