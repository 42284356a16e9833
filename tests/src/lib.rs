//! Real-server fixtures for kaiport's end-to-end suites.
//!
//! - [`sshd::Sshd`]: a real OpenSSH `sshd` on 127.0.0.1 (port picked by the fixture) with its own
//!   host keys, client keys and authorized_keys in a temp dir, logging in as the test user
//!   [`sshd::TEST_USER`]; stopped by PID on drop.
//! - [`sshd::SshAgent`]: a real `ssh-agent` on a socket in a temp dir.
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
//! - [`dockerd::Dockerd`]: a real Docker engine with its own data and socket in a temp dir, for
//!   show_view's docker views; images imported from a local busybox tarball, never pulled.
//!
//! Every server binds to 127.0.0.1 only; every started process is stopped by its PID. Run
//! `scripts/install-test-deps.sh` (as root) first on a fresh machine.

pub mod dockerd;
pub mod engine_harness;
pub mod faulty_proxy;
pub mod interaction;
pub mod model_server;
pub mod secret_service;
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
