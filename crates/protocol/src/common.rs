//! The words ops, events and saved connections share: ids and small enums.
//!
//! The bottom of the protocol's modules: it uses none of the others, and `ops`, `saved` and
//! `events` use it (and each other one way only: `ops` <- `saved` <- `events`). Plain data.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specta::Type;

/// A tab's id, chosen by the front end that opens it so it can subscribe before work starts.
pub type TabId = String;
/// A tool call's id (from the model, or chosen by the front end for `RunTool`).
pub type CallId = String;
/// The id of a prompt the engine raised (host key, password, passphrase, …).
pub type PromptId = String;

/// Who decided that a tool call may run (or not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// A rule decided without asking (allowed / forbidden / read-only / plan mode).
    Rule,
    /// The user answered an approval.
    User,
    /// Autopilot let it through.
    Autopilot,
    /// A front end answered without asking a person: `--yes`, or no one at a terminal to ask.
    Automatic,
}

/// How much is at stake in a call that asks (`Event::ApprovalRequested::risk`), strictest last.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema, Type,
)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    /// An ordinary change: it asks because the mode says every change asks.
    Routine,
    /// Dangerous, destructive or not understood (unknown options, unreadable lines, links that
    /// could not be followed): asks in every mode, autopilot included.
    Dangerous,
    /// Can cut the user off from the server (sshd, firewall, network, sudoers, keys): asks in
    /// every mode; a front end confirms it twice.
    Lockout,
}

impl Risk {
    /// Dangerous or worse.
    pub fn is_dangerous(self) -> bool {
        self >= Risk::Dangerous
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Allow,
    Ask,
    Deny,
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// The tool ran and produced a result.
    Ok,
    /// The tool ran, or tried to, and failed (bad arguments, I/O error, …).
    Error,
    /// A rule or the user refused it.
    Denied,
    /// The call was cancelled.
    Cancelled,
}
