//! The engine: owns tabs, takes [`Op`]s from front ends, sends [`Event`]s back, and runs every
//! tool call through one pipeline (docs/architecture.md, "The path of one tool call"):
//!
//! registry → typed arguments → policy → approval → execution → capped output → events → audit.
//!
//! Every path — denied, failed, cancelled, timed out — ends with an outcome for the model, a
//! `ToolFinished` event and an audit line. The engine never knows which front end is attached.
//!
//! - [`tabs`]: opening, connecting (again, by itself after a drop) and closing tabs;
//! - [`pipeline`]: the path of one tool call, to its audit line;
//! - [`transfers`]: the running, failed and cut transfers;
//! - [`prompts`]: connection prompts (host keys, passwords) as events;
//! - [`views`]: the buttons of a server view;
//! - [`foreground`]: what coming back from the background checks;
//! - [`forwards`]: a tab's port forwards as ops, events and audit lines;
//! - [`host_keys`]: replacing a changed host key, deliberately;
//! - [`restore`]: the open tabs remembered across restarts;
//! - [`fleet`]: one command on many saved connections, each under its own rules.
//!
//! Pilot sees the engine only through [`crate::agent::PilotHost`].

mod broadcast;
mod fleet;
mod foreground;
mod forwards;
mod host_keys;
mod pipeline;
mod prompts;
mod restore;
mod snippets;
mod tabs;
mod transfers;
mod views;

pub use crate::config::{EngineConfig, EngineError};

use crate::agent::{Conversations, LiveFacts, PilotHost, TabInfo};
use crate::audit::AuditLog;
use crate::pending::Pending;
use crate::tools::{self, TabResources};
use kaiport_protocol::*;
use pipeline::{Approval, Caller, Ran, error_outcome};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tabs::{Tab, TerminalSize};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use transfers::Transfers;

/// How long connecting (TCP, SSH handshake, authentication, first prompt) may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Scrollback kept by each terminal's screen mirror.
pub const SCROLLBACK_LINES: usize = 10_000;

/// The events of one engine, in order. Unbounded so the shell pump never blocks on a slow front
/// end; front ends drain it continuously.
pub type EventStream = mpsc::UnboundedReceiver<Event>;

/// One line of [`Inner::audit_user_action`].
struct UserAction {
    tab: Option<TabId>,
    connection: String,
    tool: &'static str,
    call: String,
    args: Value,
    status: ToolStatus,
    error: Option<String>,
}

/// The engine. Cheap to clone; all clones drive the same tabs.
#[derive(Clone)]
pub struct Engine {
    inner: Arc<Inner>,
}

struct Inner {
    config: EngineConfig,
    events: mpsc::UnboundedSender<Event>,
    tabs: Mutex<HashMap<TabId, Arc<Tab>>>,
    /// The open tabs in the one order every window shows (`Op::MoveTab`).
    order: Mutex<Vec<TabId>>,
    approvals: Pending<CallId, Approval>,
    questions: Pending<CallId, Option<String>>,
    prompts: Pending<PromptId, PromptAnswer>,
    audit: AuditLog,
    next_prompt: AtomicU64,
    /// Which connections' data tool results have shown (one ledger per engine for now).
    taint: Mutex<crate::taint::TaintLedger>,
    #[cfg(feature = "plan")]
    plans: crate::plan::PlanBook,
    /// Pilot's conversations, one per tab.
    pilot: Conversations,
    /// Ops on saved connections and the audit log, done one after the other in the background
    /// (started with the first of them).
    saved_ops: std::sync::OnceLock<mpsc::UnboundedSender<Op>>,
    /// Since `Op::AppBackground`, until `Op::AppForeground` (see [`crate::lifecycle`]).
    background: Mutex<Option<crate::lifecycle::Background>>,
    transfers: Transfers,
    /// See [`Engine::set_unattended`].
    unattended: AtomicBool,
    /// The open tabs as written for the next start ([`Engine::remember_tabs`]).
    remembered: Mutex<restore::Remembered>,
    /// The fleet runs under way, by run id: what cancels each.
    fleet_runs: Mutex<HashMap<String, CancellationToken>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Engine {
    /// Start an engine. The stream's first event is `Hello`.
    pub fn new(config: EngineConfig) -> Result<(Engine, EventStream), EngineError> {
        let audit = AuditLog::open(&config.audit_path)?;
        if let Some(documents) = &config.documents_dir {
            std::fs::create_dir_all(documents).map_err(|source| EngineError::Documents {
                path: documents.clone(),
                source,
            })?;
        }
        let documents = config
            .documents_dir
            .as_ref()
            .map(|path| path.display().to_string());
        let (events, stream) = mpsc::unbounded_channel();
        let engine = Engine {
            inner: Arc::new(Inner {
                config,
                events,
                tabs: Mutex::new(HashMap::new()),
                order: Mutex::default(),
                approvals: Pending::default(),
                questions: Pending::default(),
                prompts: Pending::default(),
                audit,
                next_prompt: AtomicU64::new(1),
                taint: Mutex::default(),
                #[cfg(feature = "plan")]
                plans: crate::plan::PlanBook::default(),
                pilot: Conversations::default(),
                saved_ops: std::sync::OnceLock::new(),
                background: Mutex::default(),
                transfers: Transfers::default(),
                unattended: AtomicBool::new(false),
                remembered: Mutex::default(),
                fleet_runs: Mutex::default(),
            }),
        };
        engine.inner.emit(Event::Hello {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            tools: tools::registry()
                .into_iter()
                .map(|spec| spec.name)
                .collect(),
            local_terminal: cfg!(feature = "local-terminal"),
            documents,
        });
        Ok((engine, stream))
    }

    pub fn config(&self) -> &EngineConfig {
        &self.inner.config
    }

    /// Handle one op. Quick ops (input, resize, answers) are done when this returns, so their
    /// order is kept; long ones (connecting, tool calls) continue in the background and report
    /// through events. An op past a limit of [`crate::limits`] is refused whole with an `Error`.
    pub async fn handle(&self, op: Op) {
        let inner = &self.inner;
        if let Err(refused) = crate::limits::check(&op) {
            inner.emit(Event::Error {
                tab: refused.tab.clone(),
                message: refused.to_string(),
            });
            return;
        }
        match op {
            Op::OpenTab {
                tab,
                target,
                cols,
                rows,
                settings,
                mode,
            } => {
                inner.open_tab(tab, target, cols, rows, settings, mode);
            }
            Op::CloseTab { tab } => inner.close_tab(&tab).await,
            Op::OpenForward { tab, forward } => inner.open_forward(&tab, forward).await,
            Op::CloseForward { tab, id } => inner.close_forward(&tab, id),
            Op::ReplaceHostKey {
                tab,
                host,
                port,
                confirmation,
            } => {
                let inner = inner.clone();
                tokio::spawn(async move {
                    inner.replace_host_key(tab, host, port, confirmation).await;
                });
            }
            Op::MoveTab { tab, index } => inner.move_tab(&tab, index),
            Op::CheckKeyFile { path } => {
                let problem = crate::ssh::key_file_problem(&path).await;
                inner.emit(Event::KeyFileChecked { path, problem });
            }
            // An agent may be slow to answer (a locked password manager): not in the ops' way.
            Op::ListAgentKeys => {
                let inner = inner.clone();
                tokio::spawn(async move {
                    let agents = crate::ssh::agent::agents_and_keys().await;
                    inner.emit(Event::AgentKeys { agents });
                });
            }
            Op::ReconnectTab { tab } => inner.reconnect_tab(&tab),
            Op::CancelReconnect { tab } => inner.cancel_reconnect(&tab),
            Op::ShowTab { tab } => inner.show_tab(&tab),
            Op::RememberTabView { tab, view } => inner.remember_tab_view(&tab, view),
            Op::PressViewButton { tab, call, button } => {
                inner.press_view_button(&tab, &call, button).await;
            }
            Op::TerminalInput { tab, data } => {
                let terminal = match inner.tab(&tab) {
                    Some(found) => found.input_terminal(),
                    None => {
                        inner.no_such_tab(&tab);
                        None
                    }
                };
                if let Some(terminal) = terminal
                    && let Err(error) = terminal.user_input(&data).await
                {
                    inner.terminal_error(tab, error);
                }
            }
            Op::Resize { tab, cols, rows } => {
                if let Some(found) = inner.tab(&tab) {
                    // While the tab connects, the size waits for the pty (see `tell_connected`).
                    *lock(&found.size) = TerminalSize::clamped(cols, rows);
                    if let Some(session) = inner.connected(&tab)
                        && let Some(terminal) = &session.terminal
                        && let Err(error) = found.fit_terminal(terminal).await
                    {
                        inner.terminal_error(tab, error);
                    }
                } else {
                    inner.no_such_tab(&tab);
                }
            }
            Op::SetMode { tab, mode } => {
                if let Some(found) = inner.tab(&tab) {
                    *lock(&found.mode) = mode;
                    inner.emit(Event::ModeChanged { tab, mode });
                } else {
                    inner.no_such_tab(&tab);
                }
            }
            Op::UpdateSettings { tab, settings } => {
                if let Err(error) = settings.validate() {
                    inner.emit(Event::Error {
                        tab: Some(tab),
                        message: error.to_string(),
                    });
                } else if let Some(found) = inner.tab(&tab) {
                    let before = std::mem::replace(&mut *lock(&found.settings), settings.clone());
                    inner.audit_settings_change(
                        Some(&tab),
                        &found.connection,
                        format!("user-settings-{tab}"),
                        &before,
                        &settings,
                    );
                    inner.emit(Event::SettingsChanged { tab, settings });
                } else {
                    inner.no_such_tab(&tab);
                }
            }
            Op::RunTool {
                tab,
                call,
                tool,
                args,
            } => {
                let inner = self.inner.clone();
                tokio::spawn(async move {
                    inner.run_tool(tab, call, tool, args, Caller::User).await;
                });
            }
            Op::ListChanges { tab, call, path } => {
                let inner = self.inner.clone();
                let args = serde_json::json!({ "path": path });
                tokio::spawn(async move {
                    let tool = kaiport_protocol::ToolName::ListChanges.as_str().to_owned();
                    inner.run_tool(tab, call, tool, args, Caller::User).await;
                });
            }
            Op::UndoChange {
                tab,
                call,
                change_id,
            } => {
                let inner = self.inner.clone();
                let args = serde_json::json!({ "change_id": change_id });
                tokio::spawn(async move {
                    let tool = kaiport_protocol::ToolName::UndoChange.as_str().to_owned();
                    inner.run_tool(tab, call, tool, args, Caller::User).await;
                });
            }
            Op::RetryTransfer {
                tab,
                call,
                new_call,
            } => {
                let failed = inner.transfers.take_failed(&tab, &call);
                let Some((tool, args)) = failed else {
                    inner.emit(Event::Error {
                        tab: Some(tab),
                        message: format!(
                            "there is no failed transfer {call:?} in this tab to retry (it is \
                             unknown, still running, already retried, or it succeeded)"
                        ),
                    });
                    return;
                };
                let inner = self.inner.clone();
                tokio::spawn(async move {
                    inner
                        .run_tool(tab, new_call, tool, args, Caller::User)
                        .await;
                });
            }
            Op::Approve {
                call,
                decision,
                reason,
                command,
                automatic,
            } => {
                let by = if automatic {
                    DecidedBy::Automatic
                } else {
                    DecidedBy::User
                };
                if !inner.approvals.answer(
                    &call,
                    Approval {
                        decision,
                        reason,
                        command,
                        by,
                    },
                ) {
                    inner.emit(Event::Error {
                        tab: None,
                        message: format!("no approval is pending for call {call}"),
                    });
                }
            }
            Op::AnswerQuestion { call, answer } => {
                if !inner.questions.answer(&call, answer) {
                    inner.emit(Event::Error {
                        tab: None,
                        message: format!("no question is pending for call {call}"),
                    });
                }
            }
            Op::AnswerPrompt { prompt, answer } => {
                if !inner.prompts.answer(&prompt, answer) {
                    inner.emit(Event::Error {
                        tab: None,
                        message: format!("no prompt {prompt} is pending"),
                    });
                }
            }
            Op::Cancel { tab, call } => {
                if let Some(found) = inner.tab(&tab) {
                    let calls = lock(&found.calls);
                    match call {
                        Some(call) => {
                            if let Some(token) = calls.get(&call) {
                                token.cancel();
                            }
                        }
                        None => calls.values().for_each(CancellationToken::cancel),
                    }
                }
            }
            Op::SendMessage { tab, text, model } => {
                crate::agent::send_message(self, tab, text, model);
            }
            Op::CancelTurn { tab } => crate::agent::cancel_turn(self, &tab),
            Op::ListModels => {
                let config_dir = inner.config.config_dir.clone();
                // The keychain can block (a desktop unlock dialog).
                match tokio::task::spawn_blocking(move || {
                    crate::agent::list_models(&config_dir, None)
                })
                .await
                {
                    Ok(event) => inner.emit(event),
                    Err(error) => inner.emit(Event::Error {
                        tab: None,
                        message: format!("cannot list the models: {error}"),
                    }),
                }
            }
            Op::SaveModelSettings { settings, api_key } => {
                let config_dir = inner.config.config_dir.clone();
                let provider = settings.provider;
                // The keychain can block (a desktop unlock dialog).
                let saved = tokio::task::spawn_blocking(move || {
                    crate::agent::save_model_settings(&config_dir, &settings, api_key.as_deref())
                })
                .await;
                let problem = match saved {
                    Ok(Ok(())) => None,
                    Ok(Err(problem)) => Some(problem),
                    Err(error) => Some(format!("the model settings were not saved: {error}")),
                };
                inner.emit(Event::ModelSettingsSaved { provider, problem });
            }
            Op::TestModel { settings, api_key } => {
                let inner = inner.clone();
                // A model can take its time: the op loop goes on meanwhile.
                tokio::spawn(async move {
                    let result = crate::llm::setup::test_model(&settings, api_key).await;
                    let (ok, message) = match result {
                        Ok(message) => (true, message),
                        Err(message) => (false, message),
                    };
                    inner.emit(Event::ModelTested {
                        provider: settings.provider,
                        model: settings.model,
                        ok,
                        message,
                    });
                });
            }
            Op::ListProviderModels { settings, api_key } => {
                let inner = inner.clone();
                tokio::spawn(async move {
                    let (models, problem) =
                        match crate::llm::setup::list_models(&settings, api_key).await {
                            Ok(models) => (models, None),
                            Err(problem) => (Vec::new(), Some(problem)),
                        };
                    inner.emit(Event::ProviderModels {
                        provider: settings.provider,
                        models,
                        problem,
                    });
                });
            }
            Op::AppBackground => {
                let mut background = lock(&inner.background);
                // A second one (another page hidden too) keeps the first's heartbeat.
                if background.is_none() {
                    *background = Some(crate::lifecycle::Background::start());
                }
            }
            Op::AppForeground => {
                // Measured now, before anything else runs: was the engine suspended?
                let ended = lock(&inner.background).take();
                let suspended = ended.and_then(crate::lifecycle::Background::end);
                let engine = self.clone();
                // The checks wait for servers: in the background, so input keeps flowing.
                tokio::spawn(async move {
                    engine
                        .inner
                        .clone()
                        .app_foreground(&engine, suspended)
                        .await
                });
            }
            Op::ReadSettings { tab } => match inner.tab(&tab) {
                Some(found) => inner.emit(Event::SettingsChanged {
                    tab,
                    settings: found.settings(),
                }),
                None => inner.no_such_tab(&tab),
            },
            Op::FleetCheck {
                run,
                targets,
                command,
                mode,
            } => {
                let inner = inner.clone();
                tokio::spawn(async move { inner.fleet_check(run, targets, command, mode).await });
            }
            Op::FleetRun {
                run,
                targets,
                command,
                mode,
                approved,
                automatic,
                concurrency,
            } => {
                let inner = inner.clone();
                let asked = fleet::FleetAsk {
                    run,
                    targets,
                    command,
                    mode: mode.unwrap_or_default(),
                    approved,
                    automatic,
                    concurrency,
                };
                tokio::spawn(async move { inner.fleet_run(asked).await });
            }
            Op::FleetCancel { run } => inner.fleet_cancel(&run),
            Op::BroadcastLine {
                broadcast,
                tabs,
                line,
                skip_refused,
            } => {
                inner
                    .broadcast_line(broadcast, tabs, line, skip_refused)
                    .await;
            }
            op @ (Op::ListConnections
            | Op::SaveConnection { .. }
            | Op::DeleteConnection { .. }
            | Op::ReadSshConfig
            | Op::ImportSshConfig { .. }
            | Op::UpdateConnectionSettings { .. }
            | Op::SetConnectionTags { .. }
            | Op::ListSnippets { .. }
            | Op::SaveSnippet { .. }
            | Op::DeleteSnippet { .. }
            | Op::ExpandSnippet { .. }
            | Op::ReadAudit { .. }) => {
                inner.saved_op(op);
            }
        }
    }

    /// Run one tool call and wait for its outcome (the same pipeline as `Op::RunTool`).
    pub async fn run_tool(
        &self,
        tab: TabId,
        call: CallId,
        tool: String,
        args: Value,
    ) -> ToolOutcome {
        self.inner
            .clone()
            .run_tool(tab, call, tool, args, Caller::User)
            .await
    }

    /// What Pilot's system prompt and policy need to know about a tab.
    pub fn tab_info(&self, tab: &str) -> Option<TabInfo> {
        let found = self.inner.tab(tab)?;
        let resources = match found.session.borrow().as_ref() {
            Some(Ok(resources)) => Some(resources.clone()),
            _ => None,
        };
        let reconnecting = lock(&found.reconnecting).is_some();
        let mut live = LiveFacts {
            connected: resources.is_some() && !reconnecting,
            reconnecting,
            watched: !self.inner.unattended.load(Ordering::Relaxed),
            ..LiveFacts::default()
        };
        if let Some(terminal) = resources.as_ref().and_then(|r| r.terminal.as_ref())
            && !reconnecting
        {
            live.shell = terminal.shell_kind().map(|shell| shell.name());
            live.integration = terminal.integration_active();
            live.integration_pending = terminal.integration_pending();
            live.cwd = terminal.cwd();
            live.size = Some(terminal.size());
            live.busy = terminal.busy();
            live.alternate_screen = terminal.screen().alternate_screen;
        }
        #[cfg(feature = "plan")]
        let plan = self.inner.plans.card(tab);
        #[cfg(not(feature = "plan"))]
        let plan = None;
        // Small files, read as the prompt is built: a snippet saved meanwhile is seen at once.
        let snippets = match self.inner.snippet_context(tab) {
            Some(context) if found.kind == TabKind::Terminal => snippets::for_tab(
                &crate::snippets::SnippetStore::path_in(&self.inner.config.config_dir),
                &self.inner.config.profiles_path,
                &context,
            )
            .map(|(snippets, _)| snippets)
            .unwrap_or_default(),
            _ => Vec::new(),
        };
        Some(TabInfo {
            snippets,
            kind: found.kind,
            connection: found.connection.clone(),
            mode: found.mode(),
            settings: found.settings(),
            closing: found.closing.clone(),
            host: lock(&found.host_facts).clone(),
            live,
            plan,
        })
    }

    /// Nobody watches this engine's terminals (`kaiport pilot`): Pilot's prompt says so.
    pub fn set_unattended(&self) {
        self.inner.unattended.store(true, Ordering::Relaxed);
    }

    /// A tool call that never reaches a tool (the model's arguments are not JSON): it gets
    /// the same `ToolRequested`/`ToolFinished` events and audit line as any other.
    pub fn reject_tool_call(
        &self,
        tab: &str,
        call: CallId,
        tool: &str,
        args: Value,
        message: String,
    ) -> ToolOutcome {
        let started = Instant::now();
        self.inner.emit(Event::ToolRequested {
            tab: tab.to_owned(),
            call: call.clone(),
            tool: tool.to_owned(),
            args: args.clone(),
        });
        let connection = self
            .inner
            .tab(tab)
            .map(|found| found.connection.clone())
            .unwrap_or_default();
        let outcome = error_outcome(tool, ToolStatus::Error, message);
        self.inner.finish(
            tab,
            &connection,
            &call,
            &args,
            Ran::ended(outcome, Verdict::Deny, None, Vec::new()),
            started,
        )
    }

    /// Cancel one running call of a tab (what `Op::Cancel` with a call does).
    pub(crate) fn cancel_call(&self, tab: &str, call: &str) {
        if let Some(found) = self.inner.tab(tab)
            && let Some(token) = lock(&found.calls).get(call)
        {
            token.cancel();
        }
    }
}

/// Why a command line the user chose themselves (a view button, a command edited on its
/// approval card) may not run: only what the connection forbids outright stops it. `None`: it
/// may run.
fn forbidden_for_user(
    line: &str,
    settings: &ConnectionSettings,
    tab_kind: TabKind,
) -> Option<String> {
    use crate::policy::{CallFacts, Decision, PolicyContext, decide};
    let context = PolicyContext::new(Mode::Ask, settings, tab_kind);
    match decide(
        &CallFacts::Command {
            line: line.to_owned(),
        },
        context,
    ) {
        Decision::Deny { reason } => Some(reason),
        Decision::Allow { .. } | Decision::Ask { .. } => None,
    }
}

impl PilotHost for Engine {
    fn tab_info(&self, tab: &str) -> Option<TabInfo> {
        Engine::tab_info(self, tab)
    }

    fn run_tool(
        &self,
        tab: TabId,
        call: CallId,
        tool: String,
        args: Value,
    ) -> impl Future<Output = ToolOutcome> + Send {
        self.inner
            .clone()
            .run_tool(tab, call, tool, args, Caller::Pilot)
    }

    fn reject_tool_call(
        &self,
        tab: &str,
        call: CallId,
        tool: &str,
        args: Value,
        message: String,
    ) -> ToolOutcome {
        Engine::reject_tool_call(self, tab, call, tool, args, message)
    }

    fn cancel_call(&self, tab: &str, call: &str) {
        Engine::cancel_call(self, tab, call);
    }

    fn emit(&self, event: Event) {
        self.inner.emit(event);
    }

    fn conversations(&self) -> &Conversations {
        &self.inner.pilot
    }

    fn config_dir(&self) -> &Path {
        &self.inner.config.config_dir
    }

    fn data_dir(&self) -> &Path {
        &self.inner.config.data_dir
    }
}

impl Inner {
    /// Queues an op on saved connections or the audit log. Files and the keychain (which may
    /// wait for the user to unlock it) are done in the background, so terminal input keeps
    /// flowing; one at a time, so two saves never overwrite each other and answers come in the
    /// order asked.
    fn saved_op(self: &Arc<Self>, op: Op) {
        let queue = self.saved_ops.get_or_init(|| {
            let (queue, mut ops) = mpsc::unbounded_channel();
            // Weak: the worker ends when the engine goes.
            let engine = Arc::downgrade(self);
            tokio::spawn(async move {
                while let Some(op) = ops.recv().await {
                    let Some(inner) = engine.upgrade() else { break };
                    match op {
                        op @ (Op::ListSnippets { .. }
                        | Op::SaveSnippet { .. }
                        | Op::DeleteSnippet { .. }
                        | Op::ExpandSnippet { .. }) => inner.snippet_op(op).await,
                        op => {
                            let emit = |event| inner.emit(event);
                            if let Some(change) =
                                crate::saved_ops::handle(&inner.config, emit, op).await
                            {
                                inner.audit_settings_change(
                                    None,
                                    &change.name,
                                    format!("user-settings-{}", change.name),
                                    &change.before,
                                    &change.after,
                                );
                            }
                        }
                    }
                }
            });
            queue
        });
        // Sending fails only once the worker is gone with the engine.
        let _ = queue.send(op);
    }

    /// The audit line of something decided by the user outside a tool call's own line (a port
    /// forward, a replaced host key, a settings change): `Denied` counted as a deny. The call
    /// id says who did it, as the audit view's "By" reads it: `user-…` for the user's own
    /// actions, Pilot's call id for what the user approved of Pilot's (a forward it opened).
    /// A failed write is told as an `Error` of `tab`.
    fn audit_user_action(&self, action: UserAction) {
        let record = crate::audit::AuditRecord {
            time: crate::audit::now_rfc3339(),
            tab: action.tab.clone().unwrap_or_default(),
            connection: action.connection,
            tool: action.tool.to_owned(),
            call: action.call,
            args: action.args,
            decision: if action.status == ToolStatus::Denied {
                Verdict::Deny
            } else {
                Verdict::Allow
            },
            decided_by: Some(DecidedBy::User),
            reasons: Vec::new(),
            status: action.status,
            result: None,
            error: action.error,
            edited_command: None,
            duration_ms: 0,
            waited_ms: None,
        };
        match self.audit.append(&record) {
            Ok(()) => self.emit(Event::AuditRecorded { entry: record }),
            Err(error) => self.emit(Event::Error {
                tab: action.tab,
                message: error.to_string(),
            }),
        }
    }

    /// The audit line of the user's change to a tab's or a saved connection's settings
    /// (Connection settings, or a card's "Undo always allow"): what changed; none when nothing
    /// did. Its call id starts with `user-`, as the user's own calls do.
    fn audit_settings_change(
        &self,
        tab: Option<&TabId>,
        connection: &str,
        call: String,
        before: &ConnectionSettings,
        after: &ConnectionSettings,
    ) {
        let Some(changed) = crate::audit::settings_change(before, after) else {
            return;
        };
        let args = match tab {
            Some(_) => serde_json::json!({ "changed": changed }),
            None => serde_json::json!({ "saved_connection": connection, "changed": changed }),
        };
        self.audit_user_action(UserAction {
            tab: tab.cloned(),
            connection: connection.to_owned(),
            tool: "connection_settings",
            call,
            args,
            status: ToolStatus::Ok,
            error: None,
        });
    }

    /// What the user's own typing or resizing met. A shell that is gone was told already, in
    /// the tab's own state (`ConnectionState::Disconnected`, with its Reconnect): no second,
    /// lasting notice for every key pressed into it.
    fn terminal_error(&self, tab: TabId, error: crate::terminal::TerminalError) {
        use crate::terminal::TerminalError;
        if !matches!(
            error,
            TerminalError::ConnectionLost { .. } | TerminalError::ShellExited { .. }
        ) {
            self.emit(Event::Error {
                tab: Some(tab),
                message: error.to_string(),
            });
        }
    }

    fn emit(&self, event: Event) {
        let save = Inner::changes_tabs(&event);
        // A closed stream means every front end is gone; nothing is left to tell.
        let _ = self.events.send(event);
        if save {
            self.save_tabs();
        }
    }

    fn tab(&self, tab: &str) -> Option<Arc<Tab>> {
        lock(&self.tabs).get(tab).cloned()
    }

    fn connected(&self, tab: &str) -> Option<Arc<TabResources>> {
        let found = self.tab(tab);
        let Some(found) = found else {
            self.no_such_tab(tab);
            return None;
        };
        let state = found.session.borrow().clone();
        match state {
            Some(Ok(session)) => Some(session),
            _ => None,
        }
    }

    fn no_such_tab(&self, tab: &str) {
        self.emit(Event::Error {
            tab: Some(tab.to_owned()),
            message: format!("there is no tab {tab:?}"),
        });
    }
}
