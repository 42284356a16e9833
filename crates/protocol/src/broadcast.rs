//! Broadcast input: a line the user typed once, sent to several terminal tabs, each judged by
//! its own connection's rules first (`Op::BroadcastLine`, `Event::BroadcastJudged`).
//!
//! Plain data. A receiving tab is an open terminal tab, named by its id.

use crate::common::{TabId, Verdict};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specta::Type;

/// What became of a broadcast line on one tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(rename_all = "snake_case")]
pub enum BroadcastOutcome {
    /// Typed there, with Enter.
    Sent,
    /// The tab's rules forbid the line: nothing was typed there.
    Refused,
    /// Allowed there, but not typed because another tab refused it (and the user did not
    /// choose to send it to the others anyway).
    Held,
    /// Not typed: the tab is not a connected terminal.
    Failed,
}

/// One receiving tab's part of a broadcast line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Type)]
pub struct BroadcastTabResult {
    pub tab: TabId,
    /// The tab's connection, as its audit line names it (empty for an unknown tab).
    pub connection: String,
    /// What the tab's rules say of the line (ask counts as allowed: the user typed it).
    pub decision: Verdict,
    pub outcome: BroadcastOutcome,
    /// Why it was refused, held or failed; the rules' reasons for an ask.
    pub reasons: Vec<String>,
}
