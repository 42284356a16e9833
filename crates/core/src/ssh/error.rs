//! Errors of the SSH client. Every message names the host (and user where it matters) and says
//! what the user can do about it. Messages never contain secrets.

use std::path::PathBuf;

use crate::connect::known_hosts::KnownHostsError;

/// Why connecting, authenticating or opening a channel failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SshError {
    /// The TCP connection could not be made.
    #[error(
        "cannot connect to {endpoint}: {source}. Check the host name and port, and that the SSH \
         server is running and reachable."
    )]
    Connect {
        endpoint: String,
        #[source]
        source: std::io::Error,
    },
    /// TCP connect or SSH handshake took longer than the connect timeout.
    #[error(
        "connection to {endpoint} timed out after {seconds} s. Check the address and the network \
         (a firewall may drop the packets), or raise the connect timeout."
    )]
    Timeout { endpoint: String, seconds: u64 },
    /// The host key is not in known_hosts and the user did not accept it.
    #[error(
        "host key for {endpoint} is not trusted: the {key_type} key {fingerprint} is not in {} and \
         was not accepted. Compare the fingerprint with the one the server's administrator gives \
         you, then connect again and accept it.",
        known_hosts.display()
    )]
    HostKeyNotAccepted {
        endpoint: String,
        key_type: String,
        fingerprint: String,
        known_hosts: PathBuf,
    },
    /// known_hosts has a different key of the same type for this host.
    #[error(
        "host key for {endpoint} changed: line {line} of {} holds the {key_type} key \
         {old_fingerprint}, but the server now shows {fingerprint}. Someone may be intercepting \
         the connection; if the server's administrator confirms its key changed, replace the \
         stored key (`kaiport known-hosts replace`, or \"Replace the stored key\").",
        known_hosts.display()
    )]
    HostKeyChanged {
        endpoint: String,
        key_type: String,
        fingerprint: String,
        /// The fingerprint of the key stored on `line`.
        old_fingerprint: String,
        known_hosts: PathBuf,
        line: usize,
    },
    /// known_hosts marks the key `@revoked`.
    #[error(
        "host key for {endpoint} is revoked: line {line} of {} marks the {key_type} key \
         {fingerprint} as @revoked. Do not connect; ask the server's administrator for its new key.",
        known_hosts.display()
    )]
    HostKeyRevoked {
        endpoint: String,
        key_type: String,
        fingerprint: String,
        known_hosts: PathBuf,
        line: usize,
    },
    /// known_hosts could not be read or written.
    #[error("checking the host key of {endpoint}: {source}")]
    KnownHosts {
        endpoint: String,
        #[source]
        source: KnownHostsError,
    },
    /// Every method the server offered and we could use failed.
    #[error(
        "authentication failed for {user}@{host}: tried {tried}. Check the user name, add a key the \
         server accepts (identity file or ssh-agent), or enter the right password."
    )]
    AuthFailed {
        user: String,
        host: String,
        tried: String,
    },
    /// The server offers no method kaiport can use.
    #[error(
        "authentication failed for {user}@{host}: the server offers only {offered}, which kaiport \
         cannot use here. Enable publickey or password login on the server."
    )]
    NoUsableAuthMethod {
        user: String,
        host: String,
        offered: String,
    },
    /// The SSH protocol failed (handshake, key exchange, unexpected message).
    #[error(
        "SSH error with {endpoint} while {doing}: {source}. Try again; if it persists, check the server's sshd log."
    )]
    Protocol {
        endpoint: String,
        doing: &'static str,
        #[source]
        source: russh::Error,
    },
    /// The server refused to open a channel or start what was asked on it.
    #[error(
        "{endpoint} refused to {what}. Check the server's sshd configuration (e.g. AllowTcpForwarding, Subsystem, PermitTTY)."
    )]
    Refused { endpoint: String, what: String },
    /// The connection is gone.
    #[error("the connection to {endpoint} is closed ({reason}). Reconnect to continue.")]
    ConnectionLost { endpoint: String, reason: String },
}
