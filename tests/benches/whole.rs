//! Same footing, as a user's script sees it (BENCHMARKS.md, "Same footing"): every row times a
//! whole `kaiport tool …` process against the reference command as a whole process, both from
//! nothing to exit — process start, connection, key exchange, authentication, the work, the
//! shutdown. The in-session benchmarks (foundation, files, storage) time kaiport inside an open
//! tab; these rows are what a script calling kaiport in a loop pays.
//!
//! 1. one tool call: `kaiport tool ssh://… run_command true` vs `ssh host true`;
//! 2. terminal ingest: `run_command 'cat' a 64 MB text file` vs `ssh -tt host cat FILE`;
//! 3. search_files over 20,000 files / 200 MB vs `ssh host grep -rIn`;
//! 4. folder_report over 100,000 entries vs `ssh host find -printf`;
//! 5. storage, 256 MiB: S3 and FTP download vs `rclone copy` + `sync`, S3 upload vs `rclone copy`.
//!
//! Run: `cargo build --release -p kaiport-cli && cargo bench -p kaiport-tests --bench whole` (as
//! root, after scripts/test.sh installed the servers). It runs `target/release/kaiport`
//! (`KAIPORT_BIN` to choose another). `KAIPORT_BENCH_SMALL=1` shrinks the data sets.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use anyhow::{Result, bail};
use kaiport_tests::bench_timing::{compare, kaiport_bin, median};
use kaiport_tests::sshd::Sshd;
use kaiport_tests::storage_servers::{STORAGE_PASSWORD, STORAGE_USER, StorageKind, StorageServer};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Row {
    name: String,
    ours: Duration,
    theirs: Duration,
    reference: &'static str,
}

fn main() -> Result<()> {
    let small = std::env::var_os("KAIPORT_BENCH_SMALL").is_some();
    let kaiport = kaiport_bin()?;
    let home = tempfile::tempdir()?;
    let sshd = Sshd::start()?;
    let known_hosts = home.path().join("known_hosts");
    sshd.write_known_hosts(&known_hosts)?;
    let ssh = Ssh {
        sshd: &sshd,
        known_hosts: known_hosts.clone(),
    };
    let tool = |tool: &str, args: String, extra: &[&str]| {
        let mut command = Command::new(&kaiport);
        command
            .arg("tool")
            .arg(format!("ssh://{}@127.0.0.1:{}", sshd.user(), sshd.port()))
            .arg(tool)
            .arg(args)
            .arg("--yes")
            .arg("--identity")
            .arg(&sshd.keys.ed25519)
            .arg("--known-hosts")
            .arg(&known_hosts)
            .args(extra)
            .env("KAIPORT_HOME", home.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        command
    };
    let mut rows = Vec::new();
    println!("kaiport: {}", kaiport.display());
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        // Both sides are interleaved, but a busy machine still widens every figure: say so.
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        println!(
            "note: load average {} on {cores} cores at the start",
            load.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        );
    }

    // 1. One tool call.
    let runs = if small { 5 } else { 21 };
    let (ours, theirs) = compare(
        runs,
        || run(tool("run_command", r#"{"command":"true"}"#.into(), &[])),
        || run(ssh.command(&["true"])),
    )?;
    rows.push(Row {
        name: "one tool call: run_command `true`".to_owned(),
        ours,
        theirs,
        reference: "ssh host true",
    });

    // 1b. One tool call that writes a file: the policy resolves its target on the server (one
    // `realpath` on an exec channel) before deciding; the difference to row 1 is that cost.
    let written = format!("/tmp/kaiport-whole-{}", std::process::id());
    let write = format!(r#"{{"command":"echo x > {written}"}}"#);
    let (ours, theirs) = compare(
        runs,
        || run(tool("run_command", write.clone(), &[])),
        || run(ssh.command(&[&format!("echo x > {written}")])),
    )?;
    rows.push(Row {
        name: "one tool call writing a file: `echo x > FILE`".to_owned(),
        ours,
        theirs,
        reference: "ssh host 'echo x > FILE'",
    });
    let _ = std::fs::remove_file(&written);

    // 2. Terminal ingest: the whole output goes through the tab's terminal.
    let data = shared_dir()?;
    let text = data.path().join("ingest.txt");
    let size = if small { 8 << 20 } else { 64 << 20 };
    write_text(&text, size)?;
    let cat = format!(r#"{{"command":"cat {}"}}"#, text.display());
    let runs = if small { 3 } else { 7 };
    let (ours, theirs) = compare(
        runs,
        || run(tool("run_command", cat.clone(), &[])),
        || run(ssh.command(&["-tt", "cat", &text.display().to_string()])),
    )?;
    rows.push(Row {
        name: format!("terminal ingest: `cat` {} MB", size >> 20),
        ours,
        theirs,
        reference: "ssh -tt host cat FILE",
    });

    // 3. and 4. The file tools over big trees (the server's page cache holds them: both sides
    // read warm data).
    let (folders, per_folder) = if small { (20, 100) } else { (200, 100) };
    let tree = shared_dir()?;
    make_text_tree(tree.path(), folders, per_folder, 10_000)?;
    chmod_tree(tree.path())?;
    let root = tree.path().display().to_string();
    let search = format!(r#"{{"path":"{root}","pattern":"kaiport-needle-7f3a"}}"#);
    let contents = ["--setting", "send_file_contents=true"];
    let (ours, theirs) = compare(
        runs,
        || run(tool("search_files", search.clone(), &contents)),
        || {
            run_allowing(
                ssh.command(&["grep", "-rIn", "kaiport-needle-7f3a", &root]),
                1,
            )
        },
    )?;
    rows.push(Row {
        name: format!("search_files, {} files", folders * per_folder),
        ours,
        theirs,
        reference: "ssh host grep -rIn",
    });
    let entries = if small { (20, 500) } else { (100, 1000) };
    let empty = shared_dir()?;
    make_empty_tree(empty.path(), entries.0, entries.1)?;
    chmod_tree(empty.path())?;
    let root = empty.path().display().to_string();
    let report = format!(r#"{{"path":"{root}"}}"#);
    let (ours, theirs) = compare(
        runs,
        || run(tool("folder_report", report.clone(), &[])),
        || run(ssh.command(&["find", &root, "-printf", "'%s %T@ %y %p\\n'"])),
    )?;
    rows.push(Row {
        name: format!(
            "folder_report, {} entries",
            entries.0 * entries.1 + entries.0
        ),
        ours,
        theirs,
        reference: "ssh host find -printf",
    });
    drop((tree, empty, data));

    // 5. Storage, whole processes on both sides.
    let size: u64 = if small { 16 << 20 } else { 256 << 20 };
    for kind in [StorageKind::S3, StorageKind::Ftp] {
        rows.extend(storage_rows(&kaiport, home.path(), kind, size, small)?);
    }

    println!();
    println!("| benchmark | kaiport tool (process) | reference (process) | ratio |");
    println!("|---|---|---|---|");
    for row in &rows {
        println!(
            "| {} | {:.3} s | {:.3} s ({}) | {:.2}× time |",
            row.name,
            row.ours.as_secs_f64(),
            row.theirs.as_secs_f64(),
            row.reference,
            row.ours.as_secs_f64() / row.theirs.as_secs_f64()
        );
    }
    Ok(())
}

fn storage_rows(
    kaiport: &Path,
    home: &Path,
    kind: StorageKind,
    size: u64,
    small: bool,
) -> Result<Vec<Row>> {
    let server = StorageServer::start(kind)?;
    let local = tempfile::tempdir()?;
    let source = local.path().join("big.bin");
    write_random(&source, size)?;
    server.seed_files("/seed", &[("big.bin".to_owned(), std::fs::read(&source)?)])?;
    let local_root = std::fs::canonicalize(local.path())?;
    let tool = |tool: &str, args: String| {
        let mut command = Command::new(kaiport);
        command
            .arg("tool")
            .arg(server.url())
            .arg(tool)
            .arg(args)
            .arg("--yes")
            .arg("--local-root")
            .arg(&local_root)
            .args(["--password-env", "KAIPORT_BENCH_SECRET"])
            .env("KAIPORT_BENCH_SECRET", server.secret())
            .env("KAIPORT_HOME", home)
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        command
    };
    let remote = rclone_remote(&server)?;
    let runs = if small { 2 } else { 3 };
    let mut rows = Vec::new();
    let down = local_root.join("down");
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for round in 0..runs {
        // Interleaved, and in turn first, so neither side always finds the disk as the other
        // left it.
        let order = if round % 2 == 0 {
            [true, false]
        } else {
            [false, true]
        };
        for kaiport_turn in order {
            let _ = std::fs::remove_dir_all(&down);
            std::fs::create_dir_all(&down)?;
            settle()?;
            let started = Instant::now();
            if kaiport_turn {
                run(tool(
                    "download",
                    format!(
                        r#"{{"remote_path":"/seed/big.bin","local_dir":"{}"}}"#,
                        down.display()
                    ),
                ))?;
                ours.push(started.elapsed());
            } else {
                rclone(
                    &format!("{remote}seed/big.bin"),
                    &down.display().to_string(),
                )?;
                anyhow::ensure!(Command::new("sync").status()?.success(), "sync failed");
                theirs.push(started.elapsed());
            }
        }
    }
    // Each side ran every round; the pairs were interleaved so neither always went first.
    rows.push(Row {
        name: format!("{kind:?} download {} MiB", size >> 20),
        ours: median(&mut ours),
        theirs: median(&mut theirs),
        reference: "rclone copy + sync",
    });
    if kind == StorageKind::S3 {
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        for round in 0..runs {
            settle()?;
            let started = Instant::now();
            run(tool(
                "upload",
                format!(
                    r#"{{"local_path":"{}","remote_dir":"/up{round}"}}"#,
                    local_root.join("big.bin").display()
                ),
            ))?;
            ours.push(started.elapsed());
            settle()?;
            let started = Instant::now();
            rclone(
                &local_root.join("big.bin").display().to_string(),
                &format!("{remote}rc{round}"),
            )?;
            theirs.push(started.elapsed());
        }
        rows.push(Row {
            name: format!("{kind:?} upload {} MiB", size >> 20),
            ours: median(&mut ours),
            theirs: median(&mut theirs),
            reference: "rclone copy",
        });
    }
    Ok(rows)
}

struct Ssh<'a> {
    sshd: &'a Sshd,
    known_hosts: PathBuf,
}

impl Ssh<'_> {
    fn command(&self, remote: &[&str]) -> Command {
        let mut command = Command::new("ssh");
        command
            .arg("-p")
            .arg(self.sshd.port().to_string())
            .arg("-i")
            .arg(&self.sshd.keys.ed25519)
            .arg("-o")
            .arg(format!("UserKnownHostsFile={}", self.known_hosts.display()))
            .args(["-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes"])
            .args(["-o", "IdentitiesOnly=yes", "-F", "/dev/null"])
            .arg(format!("{}@127.0.0.1", self.sshd.user()))
            .args(remote)
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        command
    }
}

fn run(command: Command) -> Result<()> {
    run_allowing(command, 0)
}

/// Runs `command` to its end; exit status 0 or `also` (grep's "nothing found") is success.
fn run_allowing(mut command: Command, also: i32) -> Result<()> {
    let output = command.stderr(Stdio::piped()).output()?;
    match output.status.code() {
        Some(0) => Ok(()),
        Some(code) if code == also => Ok(()),
        _ => bail!(
            "{:?} failed ({}): {}",
            command,
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}

/// Flushes dirty pages and, as root, empties the page cache. Says so in the output when it
/// could not, since the transfer figures then depend on what the cache held.
fn settle() -> Result<()> {
    anyhow::ensure!(Command::new("sync").status()?.success(), "sync failed");
    if std::fs::write("/proc/sys/vm/drop_caches", "3").is_err() {
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            println!(
                "note: the page cache could not be emptied (not root): transfer rows may read cached data"
            );
        });
    }
    Ok(())
}

fn rclone(from: &str, to: &str) -> Result<()> {
    let status = Command::new("rclone")
        .args(["copy", "--config", "/dev/null", "-q", from, to])
        .status()?;
    anyhow::ensure!(status.success(), "rclone copy {from} {to} failed");
    Ok(())
}

fn obscure(secret: &str) -> Result<String> {
    let output = Command::new("rclone").args(["obscure", secret]).output()?;
    Ok(String::from_utf8(output.stdout)?.trim().to_owned())
}

fn rclone_remote(server: &StorageServer) -> Result<String> {
    let port = server.port;
    Ok(match server.kind {
        StorageKind::Ftp => format!(
            ":ftp,host=127.0.0.1,port={port},user={STORAGE_USER},pass={}:/",
            obscure(STORAGE_PASSWORD)?
        ),
        StorageKind::S3 => format!(
            ":s3,provider=Other,endpoint='http://127.0.0.1:{port}',access_key_id={STORAGE_USER},secret_access_key={STORAGE_PASSWORD},force_path_style=true:{}/",
            kaiport_tests::storage_servers::BUCKET
        ),
        other => bail!("no rclone remote here for {other:?}"),
    })
}

fn shared_dir() -> Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new()
        .prefix("kaiport-bench-")
        .tempdir_in("/tmp")?;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))?;
    Ok(dir)
}

/// Readable by the sshd fixture's login user.
fn chmod_tree(root: &Path) -> Result<()> {
    let status = Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(root)
        .status()?;
    anyhow::ensure!(status.success(), "chmod failed");
    Ok(())
}

fn write_text(path: &Path, size: usize) -> Result<()> {
    let line = "the quick brown fox jumps over the lazy dog 0123456789 ABCDEFGHIJ\n";
    let text = line.repeat(size / line.len() + 1);
    std::fs::write(path, &text.as_bytes()[..size])?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644))?;
    Ok(())
}

fn write_random(path: &Path, size: u64) -> Result<()> {
    use std::io::Write;
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

fn make_text_tree(root: &Path, folders: usize, per_folder: usize, size: usize) -> Result<()> {
    let line = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor\n";
    let body = line.repeat(size / line.len() + 1);
    for folder in 0..folders {
        let dir = root.join(format!("d{folder:04}"));
        std::fs::create_dir_all(&dir)?;
        for index in 0..per_folder {
            let mut text = body[..size].to_owned();
            if (folder * per_folder + index).is_multiple_of(400) {
                text.replace_range(0..line.len(), "kaiport-needle-7f3a is here, one line\n");
            }
            std::fs::write(dir.join(format!("f{index:03}.txt")), &text)?;
        }
    }
    Ok(())
}

fn make_empty_tree(root: &Path, folders: usize, per_folder: usize) -> Result<()> {
    for folder in 0..folders {
        let dir = root.join(format!("d{folder:04}"));
        std::fs::create_dir_all(&dir)?;
        for index in 0..per_folder {
            std::fs::File::create(dir.join(format!("f{index:03}.dat")))?;
        }
    }
    Ok(())
}
