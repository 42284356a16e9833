//! Real-server fixtures for kaiport's end-to-end suites.
//!
//! - [`sshd::Sshd`]: a real OpenSSH `sshd` on 127.0.0.1 (port picked by the fixture) with its own
//!   host keys, client keys and authorized_keys in a temp dir, logging in as the test user
//!   [`sshd::TEST_USER`]; stopped by PID on drop.
//! - [`sshd::SshAgent`]: a real `ssh-agent` on a socket in a temp dir.
//! - [`sk_agent::SoftSkAgent`]: a software FIDO2 security key behind an agent socket.
//! - [`interaction::ScriptedInteraction`]: a [`kaiport_core::ssh::ConnectInteraction`] that
//!   answers from a script and records what it was asked.
//! - [`model_server::ModelServer`]: a scripted model server speaking the Anthropic and
//!   OpenAI-compatible streaming APIs, recording every request (binary `kaiport-model-server`).
//!
//! - [`storage_servers::StorageServer`]: FTP/FTPS (pyftpdlib), WebDAV and S3 (rclone serve),
//!   Azure Blob (azurite), each on 127.0.0.1 with its own data folder; stopped by PID on drop.
//!
//! - [`faulty_proxy::FaultyProxy`]: an HTTP proxy in front of one of those servers that fails
//!   some requests (an error status, an answer broken off half-way) and counts them.
//!
//! - [`secret_service::SecretService`]: a real Secret Service (gnome-keyring-daemon on a private
//!   D-Bus session bus) for the keychain code.
//!
//! - [`nginx::PrivateNginx`]: an nginx with its own prefix, configuration, pid file and port in a
//!   temp dir, run as the sshd fixture's login user; never the machine's own nginx.
//!
//! - [`dockerd::Dockerd`]: a real Docker engine with its own data and socket in a temp dir, for
//!   show_view's docker views; images imported from a local busybox tarball, never pulled.
//!
//! - [`bench_timing`]: two sides of a benchmark timed interleaved, medians.
//! - [`http_page::serve`]: a one-page HTTP server, for what reaches a server through a forward.
//! - [`netns::TestNet`]: a network namespace of the test's own, joined by a veth pair whose
//!   link the test cuts and restores; [`sshd::Sshd::start_in`] runs sshd inside it.
//!
//! Every server binds to 127.0.0.1 only (or to the address inside a test's own namespace);
//! every started process is stopped by its PID. Run
//! `scripts/install-test-deps.sh` (as root) first on a fresh machine.

pub mod bench_timing;
pub mod dockerd;
pub mod engine_harness;
pub mod faulty_proxy;
pub mod http_page;
pub mod interaction;
pub mod model_server;
pub mod netns;
pub mod nginx;
pub mod secret_service;
pub mod sk_agent;
pub mod sshd;
pub mod storage_servers;

/// Every entry under `dir` that is not a folder (files, links), at any depth; a missing `dir`
/// has none. For tests that look at what a server or kaiport left on disk.
pub fn files_under(dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => return Err(error),
        };
        for entry in entries {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                pending.push(entry.path());
            } else {
                found.push(entry.path());
            }
        }
    }
    Ok(found)
}

/// `program` to be run as `user` (the sshd fixture's login user, for processes its shell must be
/// able to signal): through `setpriv` with the user's own groups when the tests run as root,
/// as it is otherwise (then the current user is the login user).
pub fn command_as(user: &str, program: &str) -> anyhow::Result<std::process::Command> {
    if !sshd::is_root() || user == "root" {
        return Ok(std::process::Command::new(program));
    }
    let mut command = std::process::Command::new("setpriv");
    command
        .arg(format!("--reuid={user}"))
        .arg(format!("--regid={}", primary_group(user)?))
        .args(["--init-groups", "--"])
        .arg(program);
    Ok(command)
}

fn primary_group(user: &str) -> anyhow::Result<String> {
    let out = std::process::Command::new("id")
        .args(["-g", user])
        .output()?;
    if !out.status.success() {
        anyhow::bail!("no user {user}");
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Gives `path` and everything under it to `user` (as root; otherwise the files are the
/// current user's already).
pub fn give_to(path: &std::path::Path, user: &str) -> anyhow::Result<()> {
    if !sshd::is_root() {
        return Ok(());
    }
    let status = std::process::Command::new("chown")
        .arg("-R")
        .arg(format!("{user}:{}", primary_group(user)?))
        .arg(path)
        .status()?;
    if !status.success() {
        anyhow::bail!("chown -R {user} {} failed", path.display());
    }
    Ok(())
}

/// `GET path` from 127.0.0.1:`port` over HTTP/1.0: the status and the body.
pub fn http_get(port: u16, path: &str) -> anyhow::Result<(u16, String)> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect((sshd::LOCALHOST, port))?;
    stream.set_read_timeout(Some(std::time::Duration::from_secs(5)))?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n")?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("no HTTP status in {head:?}"))?;
    Ok((status, body.to_owned()))
}

/// A port on 127.0.0.1 that was free a moment ago.
pub fn free_port() -> anyhow::Result<u16> {
    sshd::free_port()
}

/// Panics unless the file system of `dir` has `bytes` free, saying so plainly: a test server
/// that runs out of disk drops its connections, which reads as a network fault, not a full disk.
pub fn require_free_disk(dir: &std::path::Path, bytes: u64) {
    let out = std::process::Command::new("df")
        .args(["-Pk", "--"])
        .arg(dir)
        .output();
    let free_kib = out.ok().and_then(|out| {
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines()
            .nth(1)?
            .split_whitespace()
            .nth(3)?
            .parse::<u64>()
            .ok()
    });
    match free_kib {
        Some(free) if free * 1024 < bytes => panic!(
            "this test needs {} MiB free on the disk of {} and only {} MiB are: free disk \
             space and run it again",
            bytes >> 20,
            dir.display(),
            free >> 10
        ),
        Some(_) => {}
        None => eprintln!("free disk space of {} unknown (df failed)", dir.display()),
    }
}
