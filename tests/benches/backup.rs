//! What keeping a backup costs (BENCHMARKS.md, "Backups"): a 10 MB file replaced over SFTP
//! (`FileAccess::write_atomic`, as edit_file and write_file write) with the backup kept first
//! (plan, keep, record, prune: `kaiport_core::backup`), against the same write without it.
//! As write_file does, the backup is kept on a second SFTP channel while the new content
//! uploads on the first (`FileAccess::write_atomic_gated`), joined before the rename.
//! Two places: a folder on the backup area's file system (the backup is a hard link), and one
//! on another file system, `/dev/shm` (the backup is a copy the server makes, `copy-data`).
//!
//! Beside them, the backup kept first and the write after (as before the two ran together), so
//! one run shows what running them together saves. The time of a run ends when the write and
//! the prune are done (the discard of the backup after it, which keeps every run alike, is not
//! timed).
//!
//! Run with `cargo bench -p kaiport-tests --bench backup` (as root, like the test suite, so the
//! sshd fixture logs in as its test user). `KAIPORT_BENCH_REPEAT=N` sets the rounds (default 7;
//! each side goes first in turn); the medians and their ratios to the write without a backup
//! are printed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use anyhow::{Context, Result};
use kaiport_core::backup::{self, ChangeFacts, Limits, PlannedBackup};
use kaiport_core::fs::{FileAccess, Gated, SftpFiles, WriteOptions};
use kaiport_core::ssh::SshSession;
use kaiport_protocol::ConnectionSettings;
use kaiport_protocol::tools::ChangeAction;
use kaiport_tests::bench_timing::compare_moments;
use kaiport_tests::interaction::ScriptedInteraction;
use kaiport_tests::sshd::Sshd;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

const SIZE: usize = 10 * 1024 * 1024;

fn main() -> Result<()> {
    let runs: usize = std::env::var("KAIPORT_BENCH_REPEAT")
        .ok()
        .and_then(|runs| runs.parse().ok())
        .unwrap_or(7);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let sshd = Sshd::start()?;
    let session = runtime.block_on(SshSession::connect(
        &sshd.target(),
        &sshd.options()?,
        Arc::new(ScriptedInteraction::default()),
    ))?;
    let files: Arc<dyn FileAccess> = Arc::new(runtime.block_on(SftpFiles::open(&session))?);
    // write_file's second channel for backups (`TabFiles::copier`).
    let copier: Arc<dyn FileAccess> = Arc::new(runtime.block_on(SftpFiles::open(&session))?);
    let home = runtime
        .block_on(files.home_dir())
        .context("the test user has no home folder")?;
    let mut places = vec![("same file system (hard link)", PathBuf::from(&home))];
    if Path::new("/dev/shm").is_dir() {
        places.push(("another file system (copy)", PathBuf::from("/dev/shm")));
    }
    let limits = Limits::of(&ConnectionSettings::default());
    println!(
        "| 10 MB write over SFTP | with backup (alongside) | with backup (first, as before) | without | ratio alongside | ratio first |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for (name, parent) in places {
        let dir = tempfile::Builder::new()
            .prefix("kaiport-bench-backup-")
            .tempdir_in(&parent)?;
        chown_to(&sshd, dir.path())?;
        let target = dir.path().join("big.conf").display().to_string();
        let content = vec![b'x'; SIZE];
        // The file exists before every run: each write replaces it.
        runtime.block_on(write(files.as_ref(), &target, &content))?;
        let backed_up = |alongside: bool| {
            runtime.block_on(async {
                let started = Instant::now();
                let existing = files.metadata(&target).await?;
                let planned =
                    PlannedBackup::plan(files.as_ref(), &limits, Some(&existing), false).await;
                let facts = ChangeFacts {
                    tool: "write_file",
                    path: &target,
                    action: ChangeAction::Replaced,
                    before: Some(&existing),
                    sudo: false,
                    undoes: None,
                };
                if alongside {
                    let gate = Box::pin(backup::take(copier.as_ref(), &planned, &facts));
                    let mut source: &[u8] = &content;
                    files
                        .write_atomic_gated(&target, &mut source, &WriteOptions::default(), gate)
                        .await
                        .map_err(|failed| match failed {
                            Gated::Gate(message) => anyhow::anyhow!("backup: {message}"),
                            Gated::Write(error) => anyhow::Error::new(error),
                        })?;
                } else {
                    backup::take(files.as_ref(), &planned, &facts)
                        .await
                        .map_err(anyhow::Error::msg)?;
                    write(files.as_ref(), &target, &content).await?;
                }
                if let Some(area) = &planned.area {
                    backup::prune(files.as_ref(), area, &limits, &planned.id).await;
                }
                let took = started.elapsed();
                // Not kept: the next run should find the area as this one did.
                backup::discard(files.as_ref(), &planned).await;
                Ok([took])
            })
        };
        let mut alongside = || backed_up(true);
        let mut first = || backed_up(false);
        let mut without = || {
            let started = Instant::now();
            runtime.block_on(write(files.as_ref(), &target, &content))?;
            Ok([started.elapsed()])
        };
        let sides = compare_moments(runs, &mut [&mut alongside, &mut first, &mut without])?;
        let ms = |side: usize| sides[side].medians[0].as_secs_f64() * 1000.0;
        println!(
            "| {name} | {:.1} ms | {:.1} ms | {:.1} ms | {:.2}× | {:.2}× |",
            ms(0),
            ms(1),
            ms(2),
            ms(0) / ms(2),
            ms(1) / ms(2)
        );
    }
    Ok(())
}

async fn write(files: &dyn FileAccess, path: &str, content: &[u8]) -> Result<()> {
    let mut source = content;
    files
        .write_atomic(path, &mut source, &WriteOptions::default())
        .await?;
    Ok(())
}

/// Gives `path` to the test user sshd logs in as.
fn chown_to(sshd: &Sshd, path: &Path) -> Result<()> {
    let status = std::process::Command::new("chown")
        .arg(sshd.user())
        .arg(path)
        .status()?;
    anyhow::ensure!(status.success(), "chown {} failed", path.display());
    Ok(())
}
