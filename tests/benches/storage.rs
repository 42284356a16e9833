//! Storage transfer speed against `rclone copy` on the same local servers, in one run
//! (BENCHMARKS.md, "Storage"): for FTP, WebDAV, S3 and Azure Blob, upload and download of one
//! 1 GiB file and of 2,000 files of 100 KB, and the peak memory of the 1 GiB transfers above the
//! process's idle level. Every timed step starts after a `sync`; download rows also show
//! rclone's time plus the `sync` that makes its files durable, as kaiport's fsync does. Before
//! the downloads the server is asked once for every file's metadata (see [`warm`]). Each row
//! also shows the CPU time of each client and of the server while it worked.
//!
//! Run with `cargo bench -p kaiport-tests --bench storage`. `KAIPORT_BENCH_SMALL=1` shrinks the
//! data (64 MiB, 200 files) for a quick check; `KAIPORT_BENCH_ONLY=s3,ftp` limits the services;
//! `KAIPORT_BENCH_REPEAT=N` measures every row N times, kaiport first in even rounds and rclone
//! first in odd ones (so N should be even), and shows mean times and the ratio of the totals;
//! `KAIPORT_BENCH_CASES=many` (or `big`) measures only those rows. Every timed step starts with
//! the page cache emptied (as root), unless `KAIPORT_BENCH_KEEP_CACHE=1`.
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
    let cases = std::env::var("KAIPORT_BENCH_CASES").unwrap_or_default();
    let (do_big, do_many) = match cases.as_str() {
        "big" => (true, false),
        "many" => (false, true),
        _ => (true, true),
    };
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
    let names: Vec<String> = (0..count).map(|index| format!("f{index:05}.bin")).collect();
    let repeat = std::env::var("KAIPORT_BENCH_REPEAT")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(1usize)
        .max(1);
    println!(
        "note: kaiport copies inside an open tab (remote opened once, untimed); rclone runs as a whole \
         process each time (start, login, listing, checks); the whole-process comparison is `--bench whole`"
    );
    println!(
        "| service | case | kaiport | rclone copy | kaiport / rclone throughput | rclone copy + sync | kaiport / (rclone + sync) | kaiport peak memory above idle | CPU kaiport / rclone | server CPU during kaiport / rclone | ratio of each round |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
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
        let pid = server.pid();
        let url = StorageUrl::parse(&server.url(), None)?;
        let remote = runtime.block_on(storage::open(&url, Some(server.secret())))?;
        let rclone = rclone_remote(&server)?;
        let mut rows = [false, true, false, true].map(|downloads| Samples {
            downloads,
            ..Samples::default()
        });
        for round in 0..repeat {
            let back = tempfile::tempdir()?;
            let [up_big, down_big, up_many, down_many] = &mut rows;

            // One big file: upload, then download. Every round writes new names: rclone copy
            // skips files that are already there.
            let ours = format!("/big-{round}.bin");
            let theirs = format!("rclone-big-{round}");
            if do_big {
                up_big.measure(
                    round,
                    || {
                        let (run, memory) = measure(pid, || {
                            runtime.block_on(copy(
                                &LocalFiles,
                                &big_file.display().to_string(),
                                remote.as_ref(),
                                &ours,
                            ))
                        })?;
                        Ok((run, Some(memory)))
                    },
                    || {
                        timed(pid, || {
                            rclone_copy(
                                &big_file.display().to_string(),
                                &format!("{rclone}{theirs}/"),
                            )
                        })
                    },
                )?;
                runtime.block_on(warm(
                    remote.clone(),
                    vec![ours.clone(), format!("/{theirs}/big.bin")],
                ))?;
                down_big.measure(
                    round,
                    || {
                        let target = back.path().join("big.bin").display().to_string();
                        let (run, memory) = measure(pid, || {
                            runtime.block_on(copy(remote.as_ref(), &ours, &LocalFiles, &target))
                        })?;
                        Ok((run, Some(memory)))
                    },
                    || {
                        timed(pid, || {
                            rclone_copy(
                                &format!("{rclone}{theirs}/big.bin"),
                                &back.path().join("rclone-big").display().to_string(),
                            )
                        })
                    },
                )?;
            }

            // Many small files.
            if !do_many {
                continue;
            }
            let ours = format!("/many-{round}");
            let theirs = format!("rclone-many-{round}");
            // Object stores have no folders to make (and rclone serve s3 turns a folder
            // marker into an empty file). rclone's is made too: rclone copy counts pyftpdlib's
            // answer for a missing folder (501) as an error and makes a second attempt at the
            // whole copy, which listed and checked every file again (seconds more).
            if matches!(kind, StorageKind::Ftp | StorageKind::Webdav) {
                runtime.block_on(remote.make_dir(&ours, true))?;
                runtime.block_on(remote.make_dir(&format!("/{theirs}"), true))?;
            }
            up_many.measure(
                round,
                || {
                    let run = timed(pid, || {
                        runtime.block_on(copy_many(
                            &names,
                            &LocalFiles,
                            &many.display().to_string(),
                            remote.clone(),
                            &ours,
                        ))
                    })?;
                    Ok((run, None))
                },
                || {
                    timed(pid, || {
                        rclone_copy(&many.display().to_string(), &format!("{rclone}{theirs}/"))
                    })
                },
            )?;
            runtime.block_on(warm(
                remote.clone(),
                names
                    .iter()
                    .flat_map(|name| [format!("{ours}/{name}"), format!("/{theirs}/{name}")])
                    .collect(),
            ))?;
            let local_back = back.path().join("many");
            std::fs::create_dir(&local_back)?;
            down_many.measure(
                round,
                || {
                    let run = timed(pid, || {
                        runtime.block_on(copy_many_down(
                            &names,
                            remote.clone(),
                            &ours,
                            &local_back.display().to_string(),
                        ))
                    })?;
                    Ok((run, None))
                },
                || {
                    timed(pid, || {
                        rclone_copy(
                            &format!("{rclone}{theirs}/"),
                            &back.path().join("rclone-many").display().to_string(),
                        )
                    })
                },
            )?;
        }
        let [up_big, down_big, up_many, down_many] = &rows;
        if do_big {
            up_big.row(&name, &format!("upload 1 file of {} MiB", big >> 20));
            down_big.row(&name, &format!("download 1 file of {} MiB", big >> 20));
        }
        if do_many {
            up_many.row(&name, &format!("upload {count} files of 100 KB"));
            down_many.row(&name, &format!("download {count} files of 100 KB"));
        }
        drop(server);
    }
    Ok(())
}

/// The measurements of one row over every round.
#[derive(Default)]
struct Samples {
    ours: Vec<Run>,
    theirs: Vec<Run>,
    /// For downloads, how long the `sync` after rclone's copy took — kaiport fsyncs every file
    /// it writes before giving it its name, rclone does not, so rclone's time plus that sync is
    /// the like-for-like reference (as `put -f` is for `sftp`).
    their_sync: Vec<Duration>,
    memory: Vec<u64>,
    downloads: bool,
}

impl Samples {
    /// Measures kaiport (`ours`: its run and peak memory) and rclone (`theirs`) for one round,
    /// kaiport first in even rounds and rclone first in odd ones, so that neither always finds
    /// the server (a JIT, a cache) as the other left it. Every timed step starts after a sync,
    /// so none pays for the previous one's writeback. Downloads (`self.downloads`) also time the
    /// sync that makes rclone's files durable.
    fn measure(
        &mut self,
        round: usize,
        ours: impl FnOnce() -> Result<(Run, Option<u64>)>,
        theirs: impl FnOnce() -> Result<Run>,
    ) -> Result<()> {
        if round.is_multiple_of(2) {
            self.measure_ours(ours)?;
            self.measure_theirs(theirs)
        } else {
            self.measure_theirs(theirs)?;
            self.measure_ours(ours)
        }
    }

    fn measure_ours(&mut self, ours: impl FnOnce() -> Result<(Run, Option<u64>)>) -> Result<()> {
        settle()?;
        let (run, memory) = ours()?;
        self.ours.push(run);
        self.memory.extend(memory);
        Ok(())
    }

    fn measure_theirs(&mut self, theirs: impl FnOnce() -> Result<Run>) -> Result<()> {
        settle()?;
        self.theirs.push(theirs()?);
        if self.downloads {
            self.their_sync.push(timed(None, settle)?.wall);
        }
        Ok(())
    }

    /// Prints the row: mean times over the rounds and the ratios of the total times (kaiport
    /// runs first in half of the rounds, so neither order weighs more), the ratio of every
    /// round, the highest memory.
    fn row(&self, service: &str, case: &str) {
        let ratio_in = |round: usize| {
            self.theirs[round].wall.as_secs_f64() / self.ours[round].wall.as_secs_f64().max(1e-9)
        };
        let (ours, theirs) = (Run::mean(&self.ours), Run::mean(&self.theirs));
        let ratio =
            |reference: Duration| reference.as_secs_f64() / ours.wall.as_secs_f64().max(1e-9);
        let memory = self
            .memory
            .iter()
            .max()
            .map(|bytes| format!("{:.1} MB", *bytes as f64 / 1e6))
            .unwrap_or_else(|| "-".to_owned());
        let (durable, durable_ratio) = match self.their_sync.len() {
            0 => ("-".to_owned(), "-".to_owned()),
            rounds => {
                let sync = self.their_sync.iter().sum::<Duration>() / rounds as u32;
                (
                    format!("{:.2} s", (theirs.wall + sync).as_secs_f64()),
                    format!("{:.2}×", ratio(theirs.wall + sync)),
                )
            }
        };
        let every: Vec<String> = (0..self.ours.len())
            .map(|round| format!("{:.2}", ratio_in(round)))
            .collect();
        println!(
            "| {service} | {case} | {:.2} s | {:.2} s | {:.2}× | {durable} | {durable_ratio} | {memory} | {:.2} / {:.2} s | {:.2} / {:.2} s | {} |",
            ours.wall.as_secs_f64(),
            theirs.wall.as_secs_f64(),
            ratio(theirs.wall),
            ours.cpu,
            theirs.cpu,
            ours.server_cpu,
            theirs.server_cpu,
            every.join(", "),
        );
    }
}

/// Flushes dirty pages to disk and, as root, empties the page cache, so every timed step
/// starts from the same state: none pays for the previous one's writeback, and none finds the
/// file the other just wrote or read still cached (or has to evict it first).
fn settle() -> Result<()> {
    anyhow::ensure!(Command::new("sync").status()?.success(), "sync failed");
    // Not root (or KAIPORT_BENCH_KEEP_CACHE set): the cache stays, and the rounds' order
    // matters more (see BENCHMARKS.md).
    let kept = std::env::var_os("KAIPORT_BENCH_KEEP_CACHE").is_some()
        || std::fs::write("/proc/sys/vm/drop_caches", "3").is_err();
    if kept {
        // The figures then depend on what the cache held: said in the output, not only the docs.
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            println!(
                "note: the page cache is NOT emptied between steps (not root, or KAIPORT_BENCH_KEEP_CACHE): \
                 reads may come from memory and the order of the rounds matters"
            );
        });
    }
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

/// Asks the server for the metadata of every file about to be downloaded, untimed, so that
/// both downloads find the server in the same state. `rclone serve s3` computes an object's MD5
/// (its ETag) on the first HEAD or GET after a write and keeps it: `rclone copy` HEADs every
/// object after uploading it, kaiport does not (the PUT's answer is enough), so without this
/// the first download of kaiport's objects pays the server for hashing them (2 s for 1 GiB)
/// and rclone's does not.
async fn warm(remote: Arc<dyn FileAccess>, paths: Vec<String>) -> Result<()> {
    let results: Vec<_> = futures::stream::iter(paths)
        .map(|path| {
            let remote = remote.clone();
            async move { remote.metadata(&path).await }
        })
        .buffer_unordered(PARALLEL)
        .collect()
        .await;
    for result in results {
        result?;
    }
    Ok(())
}

/// [`timed`], and the peak resident memory above the level before `work`.
fn measure(server: Option<u32>, work: impl FnOnce() -> Result<()>) -> Result<(Run, u64)> {
    // Writing 5 to clear_refs resets the peak (VmHWM) to the current resident size.
    std::fs::write("/proc/self/clear_refs", "5")?;
    let idle = status_kb("VmRSS")?;
    let run = timed(server, work)?;
    let peak = status_kb("VmHWM")?;
    Ok((run, peak.saturating_sub(idle) * 1024))
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

/// One timed step: its wall time, the CPU time of whoever did the work (kaiport in this
/// process, or the rclone it waited for), and the server's CPU time meanwhile. On a 2-core
/// machine client and server share the cores, so CPU time is the figure that noise moves least.
#[derive(Clone, Copy)]
struct Run {
    wall: Duration,
    cpu: f64,
    server_cpu: f64,
}

impl Run {
    /// The mean of `runs` (one or more).
    fn mean(runs: &[Run]) -> Run {
        let count = runs.len().max(1);
        Run {
            wall: runs.iter().map(|run| run.wall).sum::<Duration>() / count as u32,
            cpu: runs.iter().map(|run| run.cpu).sum::<f64>() / count as f64,
            server_cpu: runs.iter().map(|run| run.server_cpu).sum::<f64>() / count as f64,
        }
    }
}

fn timed(server: Option<u32>, work: impl FnOnce() -> Result<()>) -> Result<Run> {
    let server_ticks = || server.map_or(Ok(0), |pid| cpu_ticks(&pid.to_string()));
    let (own, server_before) = (cpu_ticks("self")?, server_ticks()?);
    let start = Instant::now();
    work()?;
    let wall = start.elapsed();
    let seconds = |ticks: u64| ticks as f64 / CLOCK_TICKS;
    Ok(Run {
        wall,
        cpu: seconds(cpu_ticks("self")?.saturating_sub(own)),
        server_cpu: seconds(server_ticks()?.saturating_sub(server_before)),
    })
}

/// `sysconf(_SC_CLK_TCK)`, 100 on every Linux this runs on.
const CLOCK_TICKS: f64 = 100.0;

/// User + system time of a process and of the children it has waited for, in clock ticks.
fn cpu_ticks(pid: &str) -> Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The fields after the command name, which is in parentheses and may hold spaces.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime, stime, cutime, cstime are fields 14–17; `after` starts at field 3.
    let mut ticks = 0;
    for field in fields.get(11..15).unwrap_or_default() {
        ticks += field.parse::<u64>()?;
    }
    Ok(ticks)
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
