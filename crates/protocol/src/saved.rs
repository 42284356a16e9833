//! Saved connections, the ~/.ssh/config import and the audit log, as front ends see them
//! (`Op::ListConnections`, `Op::SaveConnection`, `Op::ReadSshConfig`, `Op::ReadAudit`, …).
//!
//! Plain data, and never a secret in any of these types: the secrets a front end saves with a
//! connection travel only in `Op::SaveConnection` ([`crate::ops::SaveConnectionSecret`]).

use crate::common::{DecidedBy, ToolStatus, Verdict};
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
    /// The groups the connection belongs to (several allowed; the sidebar groups by them and a
    /// fleet run names one to mean its members). Imported from ~/.ssh/config: the wildcard
    /// `Host` patterns that matched the alias.
    pub tags: Vec<String>,
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
    /// The tags an import gives it: the wildcard `Host` patterns (`web-*`) that match it.
    pub tags: Vec<String>,
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
    /// The command line that ran when the user edited it on the approval card (`args` keeps
    /// the one the model asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_command: Option<String>,
    /// How long the call did its work, not counting the wait for the user's approval.
    pub duration_ms: u64,
    /// How long the call waited for the user's approval, when it asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited_ms: Option<u64>,
}
