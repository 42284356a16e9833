//! The russh [`client::Handler`] of one hop: it checks the server's host key against
//! known_hosts (asking the user about an unknown one), takes the connections of the server's
//! listeners and its agent channels (only with agent forwarding on), and records why the
//! connection ended.
//! [`super::session`] builds one per hop; [`super::auth`] authenticates over its handle.
//!
//! It must never accept a host key that known_hosts does not vouch for and the user did not
//! confirm, nor join a server's agent channel to the agent unless the user turned forwarding on.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use russh::client;
use russh::keys::{PublicKey, PublicKeyOrCertificate};
use tokio::sync::watch;

use super::{ConnectInteraction, SshError};
use crate::connect::known_hosts::{self, HostKeyStatus};

/// What the handshake is doing, so the connect timeout can pause while the user is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum HandshakePhase {
    Network,
    AskingUser,
}

/// Why the connection ended, once it has; shared between the handler and the session.
pub(super) type CloseReason = Arc<Mutex<Option<String>>>;

/// The russh handler of one hop: host-key verification and end-of-connection reporting.
pub(super) struct ClientHandler {
    pub(super) host: String,
    pub(super) port: u16,
    pub(super) known_hosts: PathBuf,
    pub(super) interaction: Arc<dyn ConnectInteraction>,
    /// The precise reason a host key was refused (russh itself only says "unknown key").
    pub(super) refusal: Arc<Mutex<Option<SshError>>>,
    pub(super) phase: watch::Sender<HandshakePhase>,
    pub(super) close_reason: CloseReason,
    /// The agent the server may reach through `auth-agent@openssh.com` channels: set only on
    /// the target's hop, and only when the user turned agent forwarding on.
    pub(super) forwarded_agent: Option<super::agent::AgentSource>,
    /// Where connections of the server's listeners go (remote forwards).
    pub(super) remote_forwards: super::session::RemoteForwards,
    /// Dropped with the handler when russh's session task ends: receivers then see the close.
    pub(super) _alive: watch::Sender<()>,
}

impl ClientHandler {
    fn endpoint(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    fn refuse(&self, error: SshError) -> bool {
        if let Ok(mut slot) = self.refusal.lock() {
            *slot = Some(error);
        }
        false
    }

    async fn verify(&self, key: &PublicKey) -> bool {
        let endpoint = self.endpoint();
        let key_type = known_hosts::key_type_label(key);
        let fingerprint = known_hosts::fingerprint_sha256(key);
        let status = match known_hosts::check(&self.known_hosts, &self.host, self.port, key) {
            Ok(status) => status,
            Err(source) => return self.refuse(SshError::KnownHosts { endpoint, source }),
        };
        match status {
            HostKeyStatus::Known { .. } => true,
            HostKeyStatus::Changed { line, key_type } => self.refuse(SshError::HostKeyChanged {
                endpoint,
                key_type,
                fingerprint,
                old_fingerprint: known_hosts::key_on_line(&self.known_hosts, line)
                    .map(|old| known_hosts::fingerprint_sha256(&old))
                    .unwrap_or_default(),
                known_hosts: self.known_hosts.clone(),
                line,
            }),
            HostKeyStatus::Revoked { line } => self.refuse(SshError::HostKeyRevoked {
                endpoint,
                key_type,
                fingerprint,
                known_hosts: self.known_hosts.clone(),
                line,
            }),
            HostKeyStatus::Unknown => {
                self.phase.send_replace(HandshakePhase::AskingUser);
                let accepted = self
                    .interaction
                    .confirm_unknown_host(&self.host, self.port, &key_type, &fingerprint)
                    .await;
                self.phase.send_replace(HandshakePhase::Network);
                if !accepted {
                    return self.refuse(SshError::HostKeyNotAccepted {
                        endpoint,
                        key_type,
                        fingerprint,
                        known_hosts: self.known_hosts.clone(),
                    });
                }
                match known_hosts::append(&self.known_hosts, &self.host, self.port, key) {
                    Ok(()) => {
                        tracing::info!(host = %endpoint, %fingerprint, "host key trusted and recorded");
                        true
                    }
                    Err(source) => self.refuse(SshError::KnownHosts { endpoint, source }),
                }
            }
        }
    }
}

impl client::Handler for ClientHandler {
    type Error = russh::Error;

    async fn check_server_key(
        &mut self,
        server_public_key: &PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        let key = match server_public_key {
            PublicKeyOrCertificate::PublicKey { key, .. } => key.clone(),
            // A host certificate is checked like its plain key: kaiport trusts no CA.
            PublicKeyOrCertificate::Certificate(cert) => PublicKey::from(cert.public_key().clone()),
        };
        Ok(self.verify(&key).await)
    }

    /// A connection to one of the server's listeners: accepted only for a port this session
    /// asked for, and handed to that forward.
    async fn server_channel_open_forwarded_tcpip(
        &mut self,
        channel: russh::Channel<client::Msg>,
        connected_address: &str,
        connected_port: u32,
        originator_address: &str,
        originator_port: u32,
        reply: client::ChannelOpenHandle,
        _session: &mut client::Session,
    ) -> Result<(), Self::Error> {
        let sender = self
            .remote_forwards
            .lock()
            .ok()
            .and_then(|forwards| forwards.get(&connected_port).cloned());
        let Some(sender) = sender.filter(|sender| !sender.is_closed()) else {
            tracing::debug!(
                address = connected_address,
                port = connected_port,
                "forwarded connection for no forward: refused"
            );
            reply
                .reject(russh::ChannelOpenFailure::AdministrativelyProhibited)
                .await;
            return Ok(());
        };
        reply.accept().await;
        let connection = super::session::ForwardedConnection {
            stream: channel.into_stream(),
            originator: format!("{originator_address}:{originator_port}"),
        };
        if sender.send(connection).is_err() {
            tracing::debug!(port = connected_port, "remote forward closed meanwhile");
        }
        Ok(())
    }

    /// The server wants the local agent (someone ran `ssh-add -l` or `ssh` on it): refused
    /// unless agent forwarding is on for this connection, else joined to a new connection to
    /// the agent for as long as the channel lasts.
    async fn server_channel_open_agent_forward(
        &mut self,
        channel: russh::Channel<client::Msg>,
        reply: client::ChannelOpenHandle,
        _session: &mut client::Session,
    ) -> Result<(), Self::Error> {
        let Some(source) = self.forwarded_agent.clone() else {
            tracing::info!(host = %self.endpoint(), "agent channel refused: forwarding is off");
            reply
                .reject(russh::ChannelOpenFailure::AdministrativelyProhibited)
                .await;
            return Ok(());
        };
        let mut agent = match source.stream().await {
            Ok(agent) => agent,
            Err(error) => {
                tracing::warn!(%error, "forwarded agent channel: the agent is not reachable");
                reply.reject(russh::ChannelOpenFailure::ConnectFailed).await;
                return Ok(());
            }
        };
        reply.accept().await;
        tokio::spawn(async move {
            let mut stream = channel.into_stream();
            if let Err(error) = tokio::io::copy_bidirectional(&mut stream, &mut agent).await {
                tracing::debug!(%error, "forwarded agent channel ended");
            }
        });
        Ok(())
    }

    async fn disconnected(
        &mut self,
        reason: client::DisconnectReason<Self::Error>,
    ) -> Result<(), Self::Error> {
        let text = match reason {
            client::DisconnectReason::ReceivedDisconnect(info) if info.message.is_empty() => {
                format!("server disconnected ({:?})", info.reason_code)
            }
            client::DisconnectReason::ReceivedDisconnect(info) => {
                format!("server disconnected: {}", info.message)
            }
            client::DisconnectReason::Error(russh::Error::KeepaliveTimeout) => {
                "the server stopped answering keepalives".to_owned()
            }
            client::DisconnectReason::Error(russh::Error::IO(e)) => format!("network error: {e}"),
            client::DisconnectReason::Error(e) => e.to_string(),
        };
        tracing::debug!(host = %self.endpoint(), reason = %text, "ssh connection ended");
        if let Ok(mut slot) = self.close_reason.lock() {
            slot.get_or_insert(text);
        }
        Ok(())
    }
}
