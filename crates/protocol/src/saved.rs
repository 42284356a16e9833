//! Saved connections, the ~/.ssh/config import and the audit log, as front ends see them
//! (`Op::ListConnections`, `Op::SaveConnection`, `Op::ReadSshConfig`, `Op::ReadAudit`, …).
//!
//! Plain data. Never a secret in any of these types except [`SaveConnectionSecret`], which only
//! travels from a front end to the engine (in an `Op`) and is never sent back.

use crate::events::{DecidedBy, ToolStatus, Verdict};
use crate::ops::TabTarget;
use crate::settings::ConnectionSettings;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specta::Type;

/// One saved connection profile, as the connection list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct SavedConnection {
    pub name: String,
    /// `ssh`, `s3`, `webdav`, `azblob`, `ftp`, `ftps` or `sftp`.
    pub kind: String,
    /// Where it goes, in words (`ssh://deploy@web1:22 via bastion`, a storage URL); no secret.
    pub address: String,
    /// What "Connect" with the same fields would open (`ssh` or `storage`); opening the saved
    /// connection itself is `TabTarget::Profile { name }`.
    pub target: TabTarget,
    pub settings: ConnectionSettings,
}

/// A secret to keep in the OS keychain with a saved connection. Goes to the engine only; the
/// engine never writes it into the profile file, an event or a log.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SaveConnectionSecret {
    /// The SSH login password, or a storage connection's secret (S3 secret key, Azure key,
    /// WebDAV/FTP/SFTP password).
    Password { value: String },
    /// The passphrase of the connection's first key file.
    Passphrase { value: String },
}

// Debug by hand: an op printed for debugging must not print the secret.
impl std::fmt::Debug for SaveConnectionSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SaveConnectionSecret::Password { .. } => f.write_str("Password { .. }"),
            SaveConnectionSecret::Passphrase { .. } => f.write_str("Passphrase { .. }"),
        }
    }
}

/// A concrete `Host` of an OpenSSH config, offered for import.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct SshConfigHost {
    /// The alias (`Host web1`): the saved connection's name.
    pub name: String,
    /// `ssh://user@host:port`, with ` via …` for jump hosts.
    pub address: String,
    /// A saved connection has this name already (importing it replaces nothing).
    pub already_saved: bool,
}

/// One line of the audit log (`ai-audit.jsonl`): one tool call, however it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct AuditEntry {
    /// RFC 3339 UTC with milliseconds.
    pub time: String,
    pub tab: String,
    /// The connection as a user names it (`ssh://alice@host:22`, a profile name, `local`);
    /// never a secret.
    pub connection: String,
    pub tool: String,
    pub call: String,
    /// Arguments with secrets replaced and file contents reduced to their size.
    pub args: serde_json::Value,
    pub decision: Verdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<DecidedBy>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    pub status: ToolStatus,
    /// How the work itself ended, when the result says (a command `interrupted` or `timed_out`
    /// is a call with status ok): the result's `status` and `exit_code`, never its output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub duration_ms: u64,
}
