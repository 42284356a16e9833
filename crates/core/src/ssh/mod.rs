//! SSH client (russh): connect, authenticate, verify host keys, jump hosts, keepalive; shell, exec
//! and subsystem (sftp) channels.
//!
//! [`SshSession::connect`] dials a [`SshTarget`] (through its jump hosts, if any), checks every
//! hop's host key against the OpenSSH `known_hosts` file in [`SshOptions`], and authenticates in
//! the order agent → identity files (each with its OpenSSH certificate first, when it has one) →
//! password → keyboard-interactive, using only what the server offers. The agent ([`agent`]) can
//! be forwarded to the target (never to a jump host) when the target asks for it. Anything that needs a person (an unknown host key, a password, a key passphrase) goes
//! through the front end's [`ConnectInteraction`].
//!
//! Inside, each file uses only those before it: `handler` (the russh handler of one hop: host
//! keys, end of connection, forwarded agent channels), `auth`, `session` ([`SshSession`]: hops,
//! exec, sftp), `shell` ([`SshSession::open_shell`]), `kept` (a shell kept in tmux or screen on
//! the server).
//!
//! This module must never trust a host key that the user has not confirmed or that `known_hosts`
//! does not vouch for, never log or store a secret, and never open a connection the caller did not
//! ask for.

pub mod agent;
mod auth;
mod error;
mod handler;
pub mod kept;
mod keyfile;
mod session;
mod shell;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use async_trait::async_trait;
pub use error::SshError;
pub use session::{
    BoundedOutput, ExecPipe, ForwardedConnection, RemoteListener, SshSession, fetch_host_key,
};

/// The default SSH port.
pub const DEFAULT_PORT: u16 = 22;
/// How long the TCP connect plus SSH handshake may take, by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// How often a keepalive is sent when the server has been quiet, by default.
pub const DEFAULT_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(15);
/// How many unanswered keepalives close the connection, by default.
pub const DEFAULT_KEEPALIVE_MAX: usize = 3;

/// One SSH server to log in to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshTarget {
    pub host: String,
    pub port: u16,
    pub user: String,
    /// Private key files to try, in order (after the agent). A `KEY-cert.pub` beside one is
    /// its OpenSSH certificate, tried before the bare key.
    pub identity_files: Vec<PathBuf>,
    /// OpenSSH certificates (`CertificateFile`), each tried with the identity file or agent key
    /// it certifies.
    pub certificate_files: Vec<PathBuf>,
    /// The agent for this target (`IdentityAgent`), over [`SshOptions::agent`].
    pub identity_agent: Option<agent::AgentSource>,
    /// Let the server use the local agent (agent forwarding) in the shells of this target.
    /// Jump hosts never get it.
    pub forward_agent: bool,
    /// ProxyJump hops in order: the first is dialled first, the target is reached from the last.
    /// Hops' own `jump_hosts` are ignored.
    pub jump_hosts: Vec<SshTarget>,
}

impl SshTarget {
    /// A target with no identity files and no jump hosts.
    pub fn new(host: impl Into<String>, port: u16, user: impl Into<String>) -> Self {
        SshTarget {
            host: host.into(),
            port,
            user: user.into(),
            identity_files: Vec::new(),
            certificate_files: Vec::new(),
            identity_agent: None,
            forward_agent: false,
            jump_hosts: Vec::new(),
        }
    }

    /// `host:port`, as used in messages.
    pub fn endpoint(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }
}

impl std::fmt::Display for SshTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{}:{}", self.user, self.host, self.port)
    }
}

/// How to connect: where host keys are recorded, time limits, keepalive, agent use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshOptions {
    /// The OpenSSH-format `known_hosts` file used for every hop.
    pub known_hosts: PathBuf,
    /// Limit for the TCP connect and the SSH handshake of each hop (time spent waiting for the
    /// user to confirm a host key does not count).
    pub connect_timeout: Duration,
    /// Keepalive interval; zero turns keepalives off.
    pub keepalive_interval: Duration,
    /// Unanswered keepalives after which the connection counts as lost.
    pub keepalive_max: usize,
    /// Try the agent's keys first (and let the target use it when it forwards the agent).
    pub use_agent: bool,
    /// Which agent; `None` is [`agent::default_source`] (`SSH_AUTH_SOCK`, then the agents
    /// this computer is known to have).
    pub agent: Option<agent::AgentSource>,
}

impl SshOptions {
    /// Default options recording host keys in `known_hosts`.
    pub fn with_known_hosts(known_hosts: impl Into<PathBuf>) -> Self {
        SshOptions {
            known_hosts: known_hosts.into(),
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            keepalive_interval: DEFAULT_KEEPALIVE_INTERVAL,
            keepalive_max: DEFAULT_KEEPALIVE_MAX,
            use_agent: true,
            agent: None,
        }
    }

    /// The agent used for `target`, if any: its own, these options', or the default.
    pub fn agent_source(&self, target: &SshTarget) -> Option<agent::AgentSource> {
        if !self.use_agent {
            return None;
        }
        target
            .identity_agent
            .clone()
            .or_else(|| self.agent.clone())
            .or_else(agent::default_source)
    }
}

impl Default for SshOptions {
    /// Uses the user's `~/.ssh/known_hosts`, like OpenSSH.
    fn default() -> Self {
        let home = dirs::home_dir().unwrap_or_default();
        SshOptions::with_known_hosts(home.join(".ssh").join("known_hosts"))
    }
}

/// What keeps the key file `path` (as the user typed it: a leading `~` is the home folder) from
/// being read here, in words for the form that asked; None when it can be. Reads at most the
/// file's first byte, never its contents into anything kept.
pub async fn key_file_problem(path: &str) -> Option<String> {
    let expanded = crate::connect::paths::expand_tilde(path);
    match tokio::fs::metadata(&expanded).await {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Some(format!("key file not found: {}", expanded.display()))
        }
        Err(error) => Some(format!("key file {}: {error}", expanded.display())),
        Ok(meta) if meta.is_dir() => Some(format!(
            "{} is a folder, not a key file",
            expanded.display()
        )),
        Ok(_) => match tokio::fs::File::open(&expanded).await {
            Ok(_) => None,
            Err(error) => Some(format!(
                "key file {} cannot be read: {error}",
                expanded.display()
            )),
        },
    }
}

/// The private keys OpenSSH tries by default, those of them that exist: `~/.ssh/id_ed25519`,
/// `id_ecdsa`, `id_rsa`. For front ends that want OpenSSH's behaviour when a profile names none.
pub fn default_identity_files() -> Vec<PathBuf> {
    let Some(home) = dirs::home_dir() else {
        return Vec::new();
    };
    ["id_ed25519", "id_ecdsa", "id_rsa"]
        .iter()
        .map(|name| home.join(".ssh").join(name))
        .filter(|path| path.is_file())
        .collect()
}

/// What the front end does when connecting needs a person: implemented by CLI prompts and UI
/// dialogs. Every method may take as long as the user needs (no connect timeout runs meanwhile).
/// Returning `false`/`None` means the user declined or cancelled; connecting then goes on with the
/// next authentication method, or fails with a [`SshError`] that says what was declined.
#[async_trait]
pub trait ConnectInteraction: Send + Sync {
    /// The server's host key is not in `known_hosts`. `key_type` is like `ED25519`,
    /// `fingerprint_sha256` like `SHA256:…` (OpenSSH style). `true` trusts it and records it.
    async fn confirm_unknown_host(
        &self,
        host: &str,
        port: u16,
        key_type: &str,
        fingerprint_sha256: &str,
    ) -> bool;
    /// The password for `user@host`.
    async fn password(&self, user: &str, host: &str, port: u16) -> Option<String>;
    /// The passphrase that decrypts the private key at `key_path`.
    async fn passphrase(&self, key_path: &Path) -> Option<String>;
    /// Answers to the server's keyboard-interactive prompts, one per prompt, in order. Each
    /// prompt comes with whether the answer may be echoed.
    async fn keyboard_interactive(
        &self,
        name: &str,
        instructions: &str,
        prompts: &[(String, bool)],
    ) -> Option<Vec<String>>;
    /// A FIDO2 security key (`key`: its type and fingerprint) must be touched to sign the login:
    /// called with `waiting` true before the signature is asked for and false once it is done
    /// (or failed). Front ends show "Touch your security key" meanwhile.
    async fn security_key_touch(&self, _key: &agent::AgentKey, _waiting: bool) {}
}

/// What a command run with [`SshSession::exec`] produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecOutput {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// The command's exit status; `None` when it ended by a signal or the server did not say.
    pub exit_status: Option<u32>,
}

#[cfg(test)]
mod tests {
    use super::key_file_problem;

    #[tokio::test(flavor = "current_thread")]
    async fn a_key_file_is_found_or_the_problem_named() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("id_test");
        std::fs::write(&key, "not really a key").unwrap();
        assert_eq!(key_file_problem(&key.display().to_string()).await, None);
        let missing = dir.path().join("id_missing").display().to_string();
        assert_eq!(
            key_file_problem(&missing).await,
            Some(format!("key file not found: {missing}"))
        );
        let folder = key_file_problem(&dir.path().display().to_string()).await;
        assert!(folder.is_some_and(|problem| problem.contains("is a folder")));
    }
}
