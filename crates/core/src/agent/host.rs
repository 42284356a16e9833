//! What Pilot needs of the engine that hosts it: the facts of a tab, the tool pipeline, and a
//! way to tell the front ends. Pilot reaches tabs and connections only through this trait, so it
//! can never run a tool past the policy, approval and audit of the pipeline.

use super::Conversations;
use kaiport_protocol::{
    CallId, ConnectionSettings, Event, HostFacts, Mode, PlanCard, TabId, TabKind, ToolOutcome,
};
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
    /// What the host probe found (terminal tabs); None until it answered.
    pub host: Option<HostFacts>,
    /// What the engine knows of the tab right now.
    pub live: LiveFacts,
    /// The tab's plan, when it has one.
    pub plan: Option<PlanCard>,
    /// The user's snippets that apply to the tab (terminal tabs), listed in the system prompt.
    pub snippets: Vec<kaiport_protocol::Snippet>,
}

/// What the engine knows of a tab at this moment (see [`TabInfo`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LiveFacts {
    /// The tab is connected (terminal or storage).
    pub connected: bool,
    /// The connection dropped and the engine is connecting the tab again by itself.
    pub reconnecting: bool,
    /// The interactive shell kaiport detected (`bash`, `zsh`, `fish`, `sh`); None when it did
    /// not answer the detection (csh, a REPL, a shell on a router) or integration is off.
    pub shell: Option<&'static str>,
    /// Commands end by the shell's own marks (exit codes known) rather than by watching the
    /// screen.
    pub integration: bool,
    /// The detection and the integration were put off (the user was typing at the first
    /// prompt): they go in just before Pilot's first run_command.
    pub integration_pending: bool,
    /// The shell's current folder, as its integration reports it at each prompt; None
    /// without integration (or before the first prompt).
    pub cwd: Option<String>,
    /// Columns and rows of the user's terminal.
    pub size: Option<(u16, u16)>,
    /// A command Pilot typed may still be running (timed out, waiting for input).
    pub busy: bool,
    /// A full-screen program (vim, less, top) holds the screen.
    pub alternate_screen: bool,
    /// A person sees the terminal and the cards as Pilot works (the app, the browser); false
    /// for `kaiport pilot`, where nobody watches the terminal.
    pub watched: bool,
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
