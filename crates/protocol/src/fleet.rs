//! A fleet run: one command line on many saved SSH connections at once, each under its own
//! connection's rules (`Op::FleetCheck`, `Op::FleetRun` and the events that answer them).
//!
//! Plain data. A host is a saved connection, named as saved; a group is a tag.

use crate::common::Verdict;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specta::Type;

/// What one host's rules say of the line, before it runs (`Event::FleetChecked`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct FleetHostCheck {
    /// The saved connection.
    pub host: String,
    /// Allow: runs. Ask: runs only when the caller approves it for this host. Deny: refused.
    pub decision: Verdict,
    pub reasons: Vec<String>,
}

/// How one host's part of a fleet run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum FleetStatus {
    /// The command ran to its end (whatever its exit code).
    Done,
    /// It could not run or did not end: no connection, a lost connection, a time-out, not an
    /// SSH connection.
    Failed,
    /// The connection's rules forbid the line (or plan mode does).
    Refused,
    /// The connection's rules ask, and the caller did not approve it for this host.
    NeedsApproval,
    /// The run was cancelled (`Op::FleetCancel`) before this host ended: one not started yet
    /// never connected; one running was stopped by closing its connection.
    Cancelled,
}

/// One host's outcome in a fleet run; its output is in the report's group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct FleetHostResult {
    pub host: String,
    pub status: FleetStatus,
    /// The command's exit code (Done only; none when a signal ended it).
    pub exit_code: Option<i32>,
    /// Why it failed, was refused or needs approval; the signal that ended a Done command.
    pub reason: Option<String>,
    /// Connecting and running, not counting the wait for a free slot.
    pub duration_ms: u64,
}

/// Hosts whose outcome and output were the same.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct FleetGroup {
    pub status: FleetStatus,
    pub exit_code: Option<i32>,
    pub reason: Option<String>,
    /// What the command printed (standard output and error merged as they came), capped by
    /// the connection's output limits: its head and tail with a marker line between.
    pub output: String,
    /// In the order the run named them.
    pub hosts: Vec<String>,
}

/// The whole run: counts, then groups of identical outcomes, failures and refusals first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct FleetReport {
    pub command: String,
    pub total: u32,
    pub done: u32,
    pub failed: u32,
    pub refused: u32,
    pub needs_approval: u32,
    pub cancelled: u32,
    /// Done hosts whose command exited with a code other than 0 (counted in `done` too).
    pub nonzero_exit: u32,
    pub groups: Vec<FleetGroup>,
    /// Every host, in the order the run named them.
    pub hosts: Vec<FleetHostResult>,
}
