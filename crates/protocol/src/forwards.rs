//! Port forwards on an SSH tab: what one is (local `-L`, remote `-R`, dynamic SOCKS5 `-D`) and
//! how it is doing. Plain data; parsing the OpenSSH spellings and running forwards is the
//! engine's (`kaiport_core::forward`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specta::Type;

/// Which way a forward carries connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum ForwardKind {
    /// `-L`: a listener on this computer; each connection goes through the server to
    /// `to_host:to_port`, as the server resolves it.
    Local,
    /// `-R`: the server listens; each connection comes back through SSH and goes to
    /// `to_host:to_port`, as this computer resolves it.
    Remote,
    /// `-D`: a SOCKS5 proxy on this computer; each CONNECT goes through the server.
    Dynamic,
}

/// One forward, as the user asked for it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, Type)]
pub struct ForwardSpec {
    pub kind: ForwardKind,
    /// Where the listener binds: on this computer for local and dynamic (default
    /// `127.0.0.1`), on the server for remote (default: the server's loopback).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bind_address: Option<String>,
    /// The port listened on (remote: 0 lets the server choose).
    pub listen_port: u16,
    /// Where connections go (local and remote; none for dynamic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_host: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_port: Option<u16>,
}

/// Where a forward is in its life.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ForwardStatus {
    /// Being set up (binding, or asking the server).
    Starting,
    /// Taking connections; `address` is where (`127.0.0.1:8080`, or the server's side for a
    /// remote forward, with the port the server chose).
    Listening { address: String },
    /// The tab's connection is down: a local listener stays bound and refuses connections
    /// until the tab reconnects, when the forward comes back by itself.
    Waiting,
    /// The forward could not be set up or broke; `error` names the port and what to do.
    Failed { error: String },
    /// Closed by the user or with the tab.
    Closed,
}

/// One forward's state and traffic, as told by `Event::ForwardState`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct ForwardReport {
    /// The engine's id for the forward within its tab (for `Op::CloseForward`).
    pub id: u32,
    pub spec: ForwardSpec,
    pub status: ForwardStatus,
    /// Connections through it now.
    pub open_connections: u32,
    /// Connections through it since it was opened.
    pub total_connections: u64,
    /// Bytes from the side that connected to the destination.
    pub bytes_sent: u64,
    /// Bytes from the destination back.
    pub bytes_received: u64,
    /// The id of Pilot's open_forward call that opened it (once the user approved the call);
    /// none for a forward the user opened, or a saved connection's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pilot_call: Option<String>,
}
