//! The user's SSH agent: where it listens ([`AgentSource`]: `SSH_AUTH_SOCK`, the 1Password and
//! Secretive sockets, on Windows the OpenSSH agent pipe and Pageant), what keys it holds
//! ([`list_keys`]), and a connection to it for signing logins ([`AgentSource::connect`]) or for
//! carrying a forwarded agent channel ([`AgentSource::stream`]).
//!
//! Every kind of agent speaks the same agent protocol, so the rest of the SSH client sees one
//! [`AgentClient`] whatever is behind it. This module must never ask an agent to sign anything by
//! itself, add or remove keys, or log what the agent returns beyond key types, comments and
//! fingerprints.

use std::path::PathBuf;

use russh::keys::agent::AgentIdentity;
use russh::keys::agent::client::{AgentClient, AgentStream};
use russh::keys::{Algorithm, HashAlg, PublicKey};

/// The boxed stream every kind of agent is reached through.
pub type AgentConnection = Box<dyn AgentStream + Send + Unpin + 'static>;
/// An agent client over any kind of agent.
pub type Agent = AgentClient<AgentConnection>;

/// The OpenSSH agent's named pipe on Windows.
pub const WINDOWS_OPENSSH_PIPE: &str = r"\\.\pipe\openssh-ssh-agent";
/// How long an agent may take to list its keys for a form (a locked password manager may
/// never answer).
pub(crate) const LIST_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);
/// How `identity_agent` names Pageant (no socket or pipe path: it is found by its window).
pub const PAGEANT: &str = "pageant";

/// Where an agent listens.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AgentSource {
    /// A Unix socket (ssh-agent, gpg-agent, 1Password, Secretive).
    Socket(PathBuf),
    /// A Windows named pipe (the OpenSSH agent, 1Password on Windows).
    NamedPipe(String),
    /// PuTTY's Pageant (Windows).
    Pageant,
}

/// Why an agent could not be used.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("cannot reach the SSH agent at {source_label}: {message}")]
    Unreachable {
        source_label: String,
        message: String,
    },
    #[error("the SSH agent at {source_label} did not list its keys: {message}")]
    Listing {
        source_label: String,
        message: String,
    },
    #[error("{0} is only on Windows")]
    WindowsOnly(String),
}

impl AgentSource {
    /// The source a user or an `IdentityAgent` line names: `pageant`, a `\\.\pipe\…` name, or a
    /// socket path (`~` is the home folder). `SSH_AUTH_SOCK` is the agent of the environment.
    pub fn parse(text: &str) -> Option<AgentSource> {
        let text = text.trim();
        if text.is_empty() || text.eq_ignore_ascii_case("none") {
            return None;
        }
        if text == "SSH_AUTH_SOCK" {
            return env_source();
        }
        if text.eq_ignore_ascii_case(PAGEANT) {
            return Some(AgentSource::Pageant);
        }
        if text.starts_with(r"\\.\pipe\") || text.starts_with("//./pipe/") {
            return Some(AgentSource::NamedPipe(text.to_owned()));
        }
        Some(AgentSource::Socket(crate::connect::paths::expand_tilde(
            text,
        )))
    }

    /// How the source is written (what [`AgentSource::parse`] reads back).
    pub fn label(&self) -> String {
        match self {
            AgentSource::Socket(path) => path.display().to_string(),
            AgentSource::NamedPipe(name) => name.clone(),
            AgentSource::Pageant => PAGEANT.to_owned(),
        }
    }

    /// Whether the agent seems to be there (its socket exists; on Windows, assumed for pipes and
    /// Pageant, which are found only by trying).
    pub fn present(&self) -> bool {
        match self {
            AgentSource::Socket(path) => path.exists(),
            AgentSource::NamedPipe(_) | AgentSource::Pageant => cfg!(windows),
        }
    }

    /// A raw connection to the agent: what a forwarded agent channel is joined to.
    pub async fn stream(&self) -> Result<AgentConnection, AgentError> {
        let unreachable = |message: String| AgentError::Unreachable {
            source_label: self.label(),
            message,
        };
        match self {
            #[cfg(unix)]
            AgentSource::Socket(path) => tokio::net::UnixStream::connect(path)
                .await
                .map(|stream| Box::new(stream) as AgentConnection)
                .map_err(|error| unreachable(error.to_string())),
            // Tokio has no Unix sockets here: Windows agents are pipes or Pageant.
            #[cfg(not(unix))]
            AgentSource::Socket(_) => Err(unreachable(
                "only a named pipe or Pageant can be used on this system".to_owned(),
            )),
            #[cfg(windows)]
            AgentSource::NamedPipe(name) => AgentClient::connect_named_pipe(name)
                .await
                .map(AgentClient::into_inner)
                .map_err(|error| unreachable(error.to_string())),
            #[cfg(windows)]
            AgentSource::Pageant => AgentClient::connect_pageant()
                .await
                .map(AgentClient::into_inner)
                .map_err(|error| unreachable(error.to_string())),
            #[cfg(not(windows))]
            AgentSource::NamedPipe(name) => Err(AgentError::WindowsOnly(name.clone())),
            #[cfg(not(windows))]
            AgentSource::Pageant => Err(AgentError::WindowsOnly("Pageant".to_owned())),
        }
    }

    /// An agent client for signing.
    pub async fn connect(&self) -> Result<Agent, AgentError> {
        Ok(AgentClient::connect(self.stream().await?))
    }
}

/// The agent `SSH_AUTH_SOCK` names, if set.
fn env_source() -> Option<AgentSource> {
    let value = std::env::var_os("SSH_AUTH_SOCK")?;
    if value.is_empty() {
        return None;
    }
    let text = value.to_string_lossy();
    if text.starts_with(r"\\.\pipe\") {
        return Some(AgentSource::NamedPipe(text.into_owned()));
    }
    Some(AgentSource::Socket(PathBuf::from(value)))
}

/// Agents this computer may have, with a name for each, in the order they are preferred:
/// `SSH_AUTH_SOCK`, then the default places of 1Password and Secretive (macOS, Linux), and on
/// Windows the OpenSSH pipe and Pageant. Only those that seem present ([`AgentSource::present`]).
pub fn known_sources() -> Vec<(String, AgentSource)> {
    let mut found: Vec<(String, AgentSource)> = Vec::new();
    if let Some(source) = env_source() {
        found.push(("SSH_AUTH_SOCK".to_owned(), source));
    }
    if let Some(home) = dirs::home_dir() {
        let candidates = [
            ("1Password", home.join(".1password").join("agent.sock")),
            (
                "1Password",
                home.join("Library/Group Containers/2BUA8C4S2C.com.1password/t/agent.sock"),
            ),
            (
                "Secretive",
                home.join(
                    "Library/Containers/com.maxgoedjen.Secretive.SecretAgent/Data/socket.ssh",
                ),
            ),
        ];
        for (name, path) in candidates {
            found.push((name.to_owned(), AgentSource::Socket(path)));
        }
    }
    found.push((
        "OpenSSH agent".to_owned(),
        AgentSource::NamedPipe(WINDOWS_OPENSSH_PIPE.to_owned()),
    ));
    found.push(("Pageant".to_owned(), AgentSource::Pageant));
    let mut seen = Vec::new();
    found.retain(|(_, source)| {
        let fresh = source.present() && !seen.contains(source);
        seen.push(source.clone());
        fresh
    });
    found
}

/// The agent used when a connection names none: the first of [`known_sources`].
pub fn default_source() -> Option<AgentSource> {
    known_sources().into_iter().next().map(|(_, source)| source)
}

/// One key an agent holds, as a form lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentKey {
    /// `ED25519`, `ECDSA`, `RSA`, `ED25519-SK`, `ECDSA-SK` (as `ssh-add -l` says).
    pub key_type: String,
    pub comment: String,
    /// `SHA256:…`.
    pub fingerprint: String,
    /// An OpenSSH certificate rather than a plain key.
    pub certificate: bool,
    /// A FIDO2 security key: each signature waits for a touch.
    pub security_key: bool,
}

/// The keys the agent at `source` holds, in its order.
pub async fn list_keys(source: &AgentSource) -> Result<Vec<AgentKey>, AgentError> {
    let mut agent = source.connect().await?;
    let identities = agent
        .request_identities()
        .await
        .map_err(|error| AgentError::Listing {
            source_label: source.label(),
            message: error.to_string(),
        })?;
    Ok(identities.iter().map(describe).collect())
}

/// Every agent of [`known_sources`] with its keys (or why they could not be listed), as
/// `Event::AgentKeys` tells them.
pub async fn agents_and_keys() -> Vec<kaiport_protocol::AgentInfo> {
    let mut agents = Vec::new();
    for (name, source) in known_sources() {
        let listed = tokio::time::timeout(LIST_LIMIT, list_keys(&source)).await;
        let (keys, error) = match listed {
            Ok(Ok(keys)) => (keys.into_iter().map(AgentKey::into_info).collect(), None),
            Ok(Err(error)) => (Vec::new(), Some(error.to_string())),
            Err(_) => (Vec::new(), Some("the agent did not answer".to_owned())),
        };
        agents.push(kaiport_protocol::AgentInfo {
            name,
            source: source.label(),
            keys,
            error,
        });
    }
    agents
}

impl AgentKey {
    fn into_info(self) -> kaiport_protocol::AgentKeyInfo {
        kaiport_protocol::AgentKeyInfo {
            key_type: self.key_type,
            comment: self.comment,
            fingerprint: self.fingerprint,
            certificate: self.certificate,
            security_key: self.security_key,
        }
    }
}

/// A key or certificate of the agent, described.
pub(super) fn describe(identity: &AgentIdentity) -> AgentKey {
    let (key, comment, certificate) = match identity {
        AgentIdentity::PublicKey { key, comment } => (key.clone(), comment.clone(), false),
        AgentIdentity::Certificate {
            certificate,
            comment,
        } => (
            PublicKey::from(certificate.public_key().clone()),
            comment.clone(),
            true,
        ),
    };
    AgentKey {
        key_type: key_type_label(key.algorithm()),
        comment,
        fingerprint: key.fingerprint(HashAlg::Sha256).to_string(),
        certificate,
        security_key: is_security_key(&key.algorithm()),
    }
}

/// The key type as `ssh-add -l` names it.
pub fn key_type_label(algorithm: Algorithm) -> String {
    match algorithm {
        Algorithm::SkEd25519 => "ED25519-SK".to_owned(),
        Algorithm::SkEcdsaSha2NistP256 => "ECDSA-SK".to_owned(),
        Algorithm::Ed25519 => "ED25519".to_owned(),
        Algorithm::Ecdsa { .. } => "ECDSA".to_owned(),
        Algorithm::Rsa { .. } => "RSA".to_owned(),
        Algorithm::Dsa => "DSA".to_owned(),
        other => other.as_str().to_owned(),
    }
}

/// Whether a key lives on a FIDO2 security key (`sk-ssh-ed25519@openssh.com`,
/// `sk-ecdsa-sha2-nistp256@openssh.com`): signing with it waits for a touch.
pub fn is_security_key(algorithm: &Algorithm) -> bool {
    matches!(
        algorithm,
        Algorithm::SkEd25519 | Algorithm::SkEcdsaSha2NistP256
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_parse_as_written() {
        assert_eq!(AgentSource::parse("pageant"), Some(AgentSource::Pageant));
        assert_eq!(
            AgentSource::parse(r"\\.\pipe\openssh-ssh-agent"),
            Some(AgentSource::NamedPipe(WINDOWS_OPENSSH_PIPE.to_owned()))
        );
        assert_eq!(
            AgentSource::parse("/tmp/agent.sock"),
            Some(AgentSource::Socket(PathBuf::from("/tmp/agent.sock")))
        );
        assert_eq!(AgentSource::parse("none"), None);
        assert_eq!(AgentSource::parse(" "), None);
        let source = AgentSource::Socket(PathBuf::from("/tmp/a.sock"));
        assert_eq!(AgentSource::parse(&source.label()), Some(source));
    }

    /// A FIDO2 security key's public key in the form `ssh-keygen -t ed25519-sk` writes (the
    /// bytes were made here: this machine has no authenticator to record one from).
    #[test]
    fn security_keys_are_recognised_from_recorded_public_keys() {
        let ed25519_sk = "sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAII/7OgD2+MLXB3F87CFfocchcH0/3fMF0Zmkwd8xwMABAAAABHNzaDo= user@host";
        let key = PublicKey::from_openssh(ed25519_sk).unwrap();
        assert!(is_security_key(&key.algorithm()));
        let described = describe(&AgentIdentity::PublicKey {
            key: key.clone(),
            comment: "yubikey".to_owned(),
        });
        assert_eq!(described.key_type, "ED25519-SK");
        assert!(described.security_key);
        assert!(described.fingerprint.starts_with("SHA256:"));
        assert_eq!(
            key.key_data().sk_ed25519().map(|sk| sk.application()),
            Some("ssh:")
        );
    }
}
