//! Storage transfer speed against `rclone copy` on the same local servers, in one run
//! (BENCHMARKS.md, "Storage"): for FTP, WebDAV, S3 and Azure Blob, upload and download of one
//! 1 GiB file and of 2,000 files of 100 KB, and the peak memory of the 1 GiB transfers above the
//! process's idle level. Every timed step starts after a `sync`; download rows also show
//! rclone's time plus the `sync` that makes its files durable, as kaiport's fsync does.
//!
//! Run with `cargo bench -p kaiport-tests --bench storage`. `KAIPORT_BENCH_SMALL=1` shrinks the
//! data (64 MiB, 200 files) for a quick check; `KAIPORT_BENCH_ONLY=s3,ftp` limits the services.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use anyhow::{Result, bail};
use futures::StreamExt;
use kaiport_core::fs::{FileAccess, LocalFiles, WriteOptions};
use kaiport_core::storage::{self, StorageUrl, transfer};
use kaiport_tests::storage_servers::{
    AZURITE_ACCOUNT, AZURITE_KEY, BUCKET, STORAGE_PASSWORD, STORAGE_USER, StorageKind,
    StorageServer,
};
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Files moved at once in the many-files rows (rclone's default --transfers is 4 too).
const PARALLEL: usize = 4;

fn main() -> Result<()> {
    let small = std::env::var_os("KAIPORT_BENCH_SMALL").is_some();
    let only = std::env::var("KAIPORT_BENCH_ONLY").ok();
    let big: u64 = if small { 64 << 20 } else { 1 << 30 };
    let count = if small { 200 } else { 2000 };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    storage::install_crypto_provider();
    let data = tempfile::tempdir()?;
    let big_file = data.path().join("big.bin");
    write_random(&big_file, big)?;
    let many = data.path().join("many");
    std::fs::create_dir(&many)?;
    for index in 0..count {
        write_random(&many.join(format!("f{index:05}.bin")), 100 * 1024)?;
    }
    println!(
        "| service | case | kaiport | rclone copy | kaiport / rclone throughput | rclone copy + sync | kaiport / (rclone + sync) | kaiport peak memory above idle |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for kind in [
        StorageKind::Ftp,
        StorageKind::Webdav,
        StorageKind::S3,
        StorageKind::Azure,
    ] {
        let name = format!("{kind:?}").to_lowercase();
        if let Some(only) = &only
            && !only.split(',').any(|wanted| wanted == name)
        {
            continue;
        }
        let server = StorageServer::start(kind)?;
        let url = StorageUrl::parse(&server.url(), None)?;
        let remote = runtime.block_on(storage::open(&url, Some(server.secret())))?;
        let rclone = rclone_remote(&server)?;
        let back = tempfile::tempdir()?;

        // One big file: upload, then download.
        settle()?;
        let (up, up_mem) = measure(|| {
            runtime.block_on(copy(
                &LocalFiles,
                &big_file.display().to_string(),
                remote.as_ref(),
                "/big.bin",
            ))
        })?;
        settle()?;
        let their_up = timed(|| {
            rclone_copy(
                &big_file.display().to_string(),
                &format!("{rclone}rclone-big/"),
            )
        })?;
        settle()?;
        let target = back.path().join("big.bin").display().to_string();
        let (down, down_mem) =
            measure(|| runtime.block_on(copy(remote.as_ref(), "/big.bin", &LocalFiles, &target)))?;
        let their_back = back.path().join("rclone-big");
        settle()?;
        let their_down = timed(|| {
            rclone_copy(
                &format!("{rclone}rclone-big/big.bin"),
                &their_back.display().to_string(),
            )
        })?;
        let their_down_sync = timed(settle)?;
        row(
            &name,
            &format!("upload 1 file of {} MiB", big >> 20),
            up,
            their_up,
            None,
            Some(up_mem),
        );
        row(
            &name,
            &format!("download 1 file of {} MiB", big >> 20),
            down,
            their_down,
            Some(their_down_sync),
            Some(down_mem),
        );

        // Many small files.
        // Object stores have no folders to make (and rclone serve s3 turns a folder marker
        // into an empty file).
        if matches!(kind, StorageKind::Ftp | StorageKind::Webdav) {
            runtime.block_on(remote.make_dir("/many", true))?;
        }
        let names: Vec<String> = (0..count).map(|index| format!("f{index:05}.bin")).collect();
        settle()?;
        let start = Instant::now();
        runtime.block_on(copy_many(
            &names,
            &LocalFiles,
            &many.display().to_string(),
            remote.clone(),
            "/many",
        ))?;
        let up_many = start.elapsed();
        settle()?;
        let their_up_many = timed(|| {
            rclone_copy(
                &many.display().to_string(),
                &format!("{rclone}rclone-many/"),
            )
        })?;
        let local_back = back.path().join("many");
        std::fs::create_dir(&local_back)?;
        settle()?;
        let start = Instant::now();
        runtime.block_on(copy_many_down(
            &names,
            remote.clone(),
            "/many",
            &local_back.display().to_string(),
        ))?;
        let down_many = start.elapsed();
        settle()?;
        let their_down_many = timed(|| {
            rclone_copy(
                &format!("{rclone}rclone-many/"),
                &back.path().join("rclone-many").display().to_string(),
            )
        })?;
        let their_down_many_sync = timed(settle)?;
        row(
            &name,
            &format!("upload {count} files of 100 KB"),
            up_many,
            their_up_many,
            None,
            None,
        );
        row(
            &name,
            &format!("download {count} files of 100 KB"),
            down_many,
            their_down_many,
            Some(their_down_many_sync),
            None,
        );
        drop(server);
    }
    Ok(())
}

/// One table row. `their_sync`: for downloads, how long the `sync` after rclone's copy took —
/// kaiport fsyncs every file it writes before giving it its name, rclone does not, so rclone's
/// time plus that sync is the like-for-like reference (as `put -f` is for `sftp`).
fn row(
    service: &str,
    case: &str,
    ours: Duration,
    theirs: Duration,
    their_sync: Option<Duration>,
    memory: Option<u64>,
) {
    let ratio = |reference: Duration| reference.as_secs_f64() / ours.as_secs_f64().max(1e-9);
    let memory = memory
        .map(|bytes| format!("{:.1} MB", bytes as f64 / 1e6))
        .unwrap_or_else(|| "-".to_owned());
    let (durable, durable_ratio) = match their_sync {
        Some(sync) => (
            format!("{:.2} s", (theirs + sync).as_secs_f64()),
            format!("{:.2}×", ratio(theirs + sync)),
        ),
        None => ("-".to_owned(), "-".to_owned()),
    };
    println!(
        "| {service} | {case} | {:.2} s | {:.2} s | {:.2}× | {durable} | {durable_ratio} | {memory} |",
        ours.as_secs_f64(),
        theirs.as_secs_f64(),
        ratio(theirs),
    );
}

/// Flushes dirty pages to disk, so every timed step starts from the same state and none pays
/// for the previous one's writeback.
fn settle() -> Result<()> {
    anyhow::ensure!(Command::new("sync").status()?.success(), "sync failed");
    Ok(())
}

async fn copy(
    from: &dyn FileAccess,
    from_path: &str,
    to: &dyn FileAccess,
    to_path: &str,
) -> Result<()> {
    transfer::copy_file(
        from,
        from_path,
        to,
        to_path,
        &WriteOptions::default(),
        None,
        &CancellationToken::new(),
    )
    .await?;
    Ok(())
}

async fn copy_many(
    names: &[String],
    from: &dyn FileAccess,
    from_dir: &str,
    to: Arc<dyn FileAccess>,
    to_dir: &str,
) -> Result<()> {
    let results: Vec<Result<()>> = futures::stream::iter(names)
        .map(|name| {
            let to = to.clone();
            async move {
                copy(
                    from,
                    &format!("{from_dir}/{name}"),
                    to.as_ref(),
                    &format!("{to_dir}/{name}"),
                )
                .await
            }
        })
        .buffer_unordered(PARALLEL)
        .collect()
        .await;
    results.into_iter().collect()
}

async fn copy_many_down(
    names: &[String],
    from: Arc<dyn FileAccess>,
    from_dir: &str,
    to_dir: &str,
) -> Result<()> {
    let results: Vec<Result<()>> = futures::stream::iter(names)
        .map(|name| {
            let from = from.clone();
            async move {
                copy(
                    from.as_ref(),
                    &format!("{from_dir}/{name}"),
                    &LocalFiles,
                    &format!("{to_dir}/{name}"),
                )
                .await
            }
        })
        .buffer_unordered(PARALLEL)
        .collect()
        .await;
    results.into_iter().collect()
}

/// Runs `work` and returns its time and the peak resident memory above the level before it.
fn measure(work: impl FnOnce() -> Result<()>) -> Result<(Duration, u64)> {
    // Writing 5 to clear_refs resets the peak (VmHWM) to the current resident size.
    std::fs::write("/proc/self/clear_refs", "5")?;
    let idle = status_kb("VmRSS")?;
    let start = Instant::now();
    work()?;
    let elapsed = start.elapsed();
    let peak = status_kb("VmHWM")?;
    Ok((elapsed, peak.saturating_sub(idle) * 1024))
}

fn status_kb(field: &str) -> Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    for line in status.lines() {
        if let Some(rest) = line.strip_prefix(&format!("{field}:")) {
            return Ok(rest.trim().trim_end_matches("kB").trim().parse()?);
        }
    }
    bail!("no {field} in /proc/self/status")
}

fn timed(work: impl FnOnce() -> Result<()>) -> Result<Duration> {
    let start = Instant::now();
    work()?;
    Ok(start.elapsed())
}

fn obscure(secret: &str) -> Result<String> {
    let output = Command::new("rclone").args(["obscure", secret]).output()?;
    Ok(String::from_utf8(output.stdout)?.trim().to_owned())
}

/// An rclone on-the-fly remote for the same server (`:backend,options:path/`).
fn rclone_remote(server: &StorageServer) -> Result<String> {
    let port = server.port;
    Ok(match server.kind {
        StorageKind::Ftp | StorageKind::Ftps => format!(
            ":ftp,host=127.0.0.1,port={port},user={STORAGE_USER},pass={}:/",
            obscure(STORAGE_PASSWORD)?
        ),
        StorageKind::Webdav => format!(
            ":webdav,url='http://127.0.0.1:{port}',user={STORAGE_USER},pass={}:/",
            obscure(STORAGE_PASSWORD)?
        ),
        StorageKind::WebdavDigest | StorageKind::Webdavs => {
            bail!("the benchmark compares plain WebDAV only")
        }
        StorageKind::S3 => format!(
            ":s3,provider=Other,endpoint='http://127.0.0.1:{port}',access_key_id={STORAGE_USER},secret_access_key={STORAGE_PASSWORD},force_path_style=true:{BUCKET}/"
        ),
        StorageKind::Azure => format!(
            ":azureblob,account={AZURITE_ACCOUNT},key='{AZURITE_KEY}',endpoint='http://127.0.0.1:{port}/{AZURITE_ACCOUNT}':{BUCKET}/"
        ),
        StorageKind::Sftp => format!(
            ":sftp,host=127.0.0.1,port={port},user={},pass={}:{}/",
            kaiport_tests::sshd::TEST_USER,
            obscure(kaiport_tests::sshd::TEST_PASSWORD)?,
            server.data_dir().display()
        ),
    })
}

fn rclone_copy(from: &str, to: &str) -> Result<()> {
    let status = Command::new("rclone")
        .args(["copy", "--config", "/dev/null", "-q", from, to])
        .status()?;
    if !status.success() {
        bail!("rclone copy {from} {to} failed");
    }
    Ok(())
}

fn write_random(path: &Path, size: u64) -> Result<()> {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15 ^ size;
    let mut block = vec![0u8; 1 << 20];
    let mut left = size;
    while left > 0 {
        for chunk in block.chunks_mut(8) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            chunk.copy_from_slice(&state.to_le_bytes()[..chunk.len()]);
        }
        let take = left.min(block.len() as u64) as usize;
        file.write_all(&block[..take])?;
        left -= take as u64;
    }
    file.flush()?;
    Ok(())
}
