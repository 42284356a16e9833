//! What Pilot needs of the engine that hosts it: the facts of a tab, the tool pipeline, and a
//! way to tell the front ends. Pilot reaches tabs and connections only through this trait, so it
//! can never run a tool past the policy, approval and audit of the pipeline.

use super::Conversations;
use kaiport_protocol::{CallId, ConnectionSettings, Event, Mode, TabId, TabKind, ToolOutcome};
use serde_json::Value;
use std::future::Future;
use std::path::Path;
use tokio_util::sync::CancellationToken;

/// A tab as Pilot sees it.
#[derive(Debug, Clone)]
pub struct TabInfo {
    pub kind: TabKind,
    /// The connection as the user names it (never a secret).
    pub connection: String,
    pub mode: Mode,
    pub settings: ConnectionSettings,
    /// Fires when the tab closes.
    pub closing: CancellationToken,
}

/// The engine, as Pilot's loop uses it.
pub trait PilotHost: Clone + Send + Sync + 'static {
    /// What the system prompt and the loop need to know about `tab`; None once it is closed.
    fn tab_info(&self, tab: &str) -> Option<TabInfo>;

    /// One tool call through the whole pipeline (policy, approval, execution, audit).
    fn run_tool(
        &self,
        tab: TabId,
        call: CallId,
        tool: String,
        args: Value,
    ) -> impl Future<Output = ToolOutcome> + Send;

    /// A call that never reaches a tool (its arguments are not JSON), reported and audited
    /// like any other.
    fn reject_tool_call(
        &self,
        tab: &str,
        call: CallId,
        tool: &str,
        args: Value,
        message: String,
    ) -> ToolOutcome;

    /// Cancels one running call of a tab.
    fn cancel_call(&self, tab: &str, call: &str);

    /// Tells the front ends.
    fn emit(&self, event: Event);

    /// Every tab's conversation.
    fn conversations(&self) -> &Conversations;

    /// Where `pilot.toml` lives.
    fn config_dir(&self) -> &Path;

    /// Where the conversation histories are kept.
    fn data_dir(&self) -> &Path;
}
