//! The engine: owns tabs, takes [`Op`]s from front ends, sends [`Event`]s back, and runs every
//! tool call through one pipeline (docs/architecture.md, "The path of one tool call"):
//!
//! registry → typed arguments → policy → approval → execution → capped output → events → audit.
//!
//! Every path — denied, failed, cancelled, timed out — ends with an outcome for the model, a
//! `ToolFinished` event and an audit line. The engine never knows which front end is attached.

use crate::audit::{AuditLog, AuditRecord, now_rfc3339, redact_args};
use crate::connect::destination::parse_ssh_target;
use crate::connect::profiles::{PROFILES_FILE, ProfileStore};
use crate::connect::secrets::{SecretStore, key_passphrase_account, ssh_password_account};
use crate::pending::{NoAnswer, Pending};
use crate::policy::{CallFacts, Decision, PolicyContext, decide};
use crate::shell_io::ShellClosed;
use crate::ssh::{ConnectInteraction, SshOptions, SshSession, SshTarget};
use crate::terminal::{ShellIntegrationMode, Terminal, TerminalNotice, TerminalSettings};
use crate::tools::{self, Action, TabResources, ToolContext};
use kaiport_protocol::tools::{AskUserParams, AskUserResult};
use kaiport_protocol::*;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

/// How long connecting (TCP, SSH handshake, authentication, first prompt) may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Scrollback kept by each terminal's screen mirror.
pub const SCROLLBACK_LINES: usize = 10_000;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Audit(#[from] crate::audit::AuditError),
    #[error(
        "cannot find a home folder for kaiport's files; set KAIPORT_HOME to a folder kaiport may use"
    )]
    NoHome,
    #[error("cannot create the documents folder {path}: {source}")]
    Documents {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Where the engine keeps its files, and the defaults for new tabs.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Connection profiles and settings.
    pub config_dir: PathBuf,
    /// Audit log, histories.
    pub data_dir: PathBuf,
    pub audit_path: PathBuf,
    /// Saved connection profiles (`connections.toml`).
    pub profiles_path: PathBuf,
    /// OpenSSH known_hosts file used to verify servers.
    pub known_hosts: PathBuf,
    pub default_settings: ConnectionSettings,
    /// When set, the local side of every storage tab is this folder, whatever the front end
    /// asked for: the app's own documents folder on a phone (shown in the Files app on iOS),
    /// never the whole device. Created when the engine starts. None: the front end names the
    /// folders (`TabTarget::Storage::local_roots`). Told to front ends in `Hello`.
    pub documents_dir: Option<PathBuf>,
}

impl EngineConfig {
    /// The standard places: everything under `$KAIPORT_HOME` when set, otherwise the OS config
    /// and data folders; known hosts from `~/.ssh/known_hosts`.
    pub fn from_environment() -> Result<EngineConfig, EngineError> {
        let (config_dir, data_dir) = match std::env::var_os("KAIPORT_HOME") {
            Some(home) if !home.is_empty() => (PathBuf::from(&home), PathBuf::from(home)),
            _ => (
                dirs::config_dir()
                    .ok_or(EngineError::NoHome)?
                    .join("kaiport"),
                dirs::data_dir().ok_or(EngineError::NoHome)?.join("kaiport"),
            ),
        };
        let known_hosts = dirs::home_dir()
            .ok_or(EngineError::NoHome)?
            .join(".ssh")
            .join("known_hosts");
        Ok(EngineConfig {
            audit_path: data_dir.join(crate::audit::AUDIT_FILE_NAME),
            profiles_path: config_dir.join(PROFILES_FILE),
            config_dir,
            data_dir,
            known_hosts,
            default_settings: ConnectionSettings::default(),
            documents_dir: None,
        })
    }
}

impl EngineConfig {
    /// Everything in one folder (tests, portable installs): profiles, audit log, known_hosts.
    pub fn in_dir(dir: &Path) -> EngineConfig {
        EngineConfig {
            config_dir: dir.to_owned(),
            data_dir: dir.to_owned(),
            audit_path: dir.join(crate::audit::AUDIT_FILE_NAME),
            profiles_path: dir.join(PROFILES_FILE),
            known_hosts: dir.join("known_hosts"),
            default_settings: ConnectionSettings::default(),
            documents_dir: None,
        }
    }
}

/// The events of one engine, in order. Unbounded so the shell pump never blocks on a slow front
/// end; front ends drain it continuously.
pub type EventStream = mpsc::UnboundedReceiver<Event>;

/// The engine. Cheap to clone; all clones drive the same tabs.
#[derive(Clone)]
pub struct Engine {
    inner: Arc<Inner>,
}

struct Inner {
    config: EngineConfig,
    events: mpsc::UnboundedSender<Event>,
    tabs: Mutex<HashMap<TabId, Arc<Tab>>>,
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
    pilot: crate::agent::Conversations,
    /// Transfers that failed, for `Op::RetryTransfer`: (tab, call) → (tool, arguments).
    failed_transfers: Mutex<HashMap<(TabId, CallId), (String, Value)>>,
    /// Ops on saved connections and the audit log, done one after the other in the background
    /// (started with the first of them).
    saved_ops: std::sync::OnceLock<mpsc::UnboundedSender<Op>>,
    /// Since `Op::AppBackground`, until `Op::AppForeground` (see [`crate::lifecycle`]).
    background: Mutex<Option<crate::lifecycle::Background>>,
    /// Running transfers (upload, download, execute_plan) and how many progress reports each
    /// has made: after a suspension, one whose count stops is cut.
    transfers: Arc<Mutex<HashMap<(TabId, CallId), u64>>>,
    /// Transfers kaiport ended (cut in the background), with why: they finish as failed.
    cut_transfers: Mutex<HashMap<(TabId, CallId), String>>,
}

/// The answer to one approval.
struct Approval {
    decision: ApprovalDecision,
    reason: Option<String>,
    by: DecidedBy,
}

type SessionState = Option<Result<Arc<TabResources>, String>>;

/// A tab target with profiles and destinations resolved.
enum ResolvedTarget {
    Local,
    Ssh(SshTarget),
    Storage {
        url: String,
        user: Option<String>,
        local_roots: Vec<String>,
        /// SFTP: the private keys to log in with.
        identity_files: Vec<PathBuf>,
    },
}

struct Tab {
    id: TabId,
    kind: TabKind,
    /// The connection as the user names it; goes into the audit log.
    connection: String,
    mode: Mutex<Mode>,
    settings: Mutex<ConnectionSettings>,
    session: watch::Receiver<SessionState>,
    session_tx: watch::Sender<SessionState>,
    calls: Mutex<HashMap<CallId, CancellationToken>>,
    /// Cancelled when the tab closes: ends every wait in it.
    closing: CancellationToken,
    /// The terminal size the page last asked for. Kept while the tab connects, so the pty opens
    /// at the size the page draws (a page fits its terminal only after it asked for the tab).
    size: Mutex<TerminalSize>,
}

/// A terminal's columns and rows, as the engine accepts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TerminalSize {
    cols: u16,
    rows: u16,
}

impl TerminalSize {
    /// The most columns or rows a page or model may ask for: the screen mirror allocates every
    /// cell, so 65535 x 65535 from a hostile or broken page would take gigabytes.
    const MAX: u16 = 1000;

    /// `cols` x `rows`, each at most [`Self::MAX`]; 0 means unknown (a pty nobody sized says
    /// 0 x 0) and gives the classic 80 x 24.
    fn clamped(cols: u16, rows: u16) -> Self {
        let or = |value: u16, unknown: u16| {
            if value == 0 {
                unknown
            } else {
                value.min(Self::MAX)
            }
        };
        Self {
            cols: or(cols, 80),
            rows: or(rows, 24),
        }
    }
}

impl Tab {
    fn mode(&self) -> Mode {
        *lock(&self.mode)
    }

    fn settings(&self) -> ConnectionSettings {
        lock(&self.settings).clone()
    }

    /// The session once connecting ended (or the error it ended with).
    async fn session(&self, cancel: &CancellationToken) -> Result<Arc<TabResources>, String> {
        let mut receiver = self.session.clone();
        let wait = receiver.wait_for(Option::is_some);
        tokio::select! {
            state = wait => match state {
                Ok(state) => match state.as_ref() {
                    Some(Ok(session)) => Ok(session.clone()),
                    Some(Err(error)) => Err(format!("the tab could not connect: {error}")),
                    None => Err("the tab is not connected".to_owned()),
                },
                Err(_) => Err("the tab was closed".to_owned()),
            },
            () = cancel.cancelled() => Err("cancelled while the tab was connecting".to_owned()),
        }
    }
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
                approvals: Pending::default(),
                questions: Pending::default(),
                prompts: Pending::default(),
                audit,
                next_prompt: AtomicU64::new(1),
                taint: Mutex::default(),
                #[cfg(feature = "plan")]
                plans: crate::plan::PlanBook::default(),
                pilot: crate::agent::Conversations::default(),
                failed_transfers: Mutex::default(),
                saved_ops: std::sync::OnceLock::new(),
                background: Mutex::default(),
                transfers: Arc::default(),
                cut_transfers: Mutex::default(),
            }),
        };
        engine.inner.emit(Event::Hello {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            tools: tools::registry()
                .into_iter()
                .filter(|spec| spec.implemented)
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
    /// through events.
    pub async fn handle(&self, op: Op) {
        let inner = &self.inner;
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
            Op::PressViewButton { tab, call, button } => {
                inner.press_view_button(&tab, &call, button).await;
            }
            Op::TerminalInput { tab, data } => {
                if let Some(session) = inner.connected(&tab)
                    && let Some(terminal) = &session.terminal
                    && let Err(error) = terminal.user_input(&data).await
                {
                    inner.emit(Event::Error {
                        tab: Some(tab),
                        message: error.to_string(),
                    });
                }
            }
            Op::Resize { tab, cols, rows } => {
                let size = TerminalSize::clamped(cols, rows);
                if let Some(found) = inner.tab(&tab) {
                    // While the tab connects, the size waits for the pty (see `open_tab`).
                    *lock(&found.size) = size;
                }
                if let Some(session) = inner.connected(&tab)
                    && let Some(terminal) = &session.terminal
                    && let Err(error) = terminal.resize(size.cols, size.rows).await
                {
                    inner.emit(Event::Error {
                        tab: Some(tab),
                        message: error.to_string(),
                    });
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
                    *lock(&found.settings) = settings.clone();
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
                    inner.run_tool(tab, call, tool, args).await;
                });
            }
            Op::RetryTransfer {
                tab,
                call,
                new_call,
            } => {
                let failed = lock(&inner.failed_transfers).remove(&(tab.clone(), call.clone()));
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
                    inner.run_tool(tab, new_call, tool, args).await;
                });
            }
            Op::Approve {
                call,
                decision,
                reason,
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
            op @ (Op::ListConnections
            | Op::SaveConnection { .. }
            | Op::DeleteConnection { .. }
            | Op::ReadSshConfig
            | Op::ImportSshConfig { .. }
            | Op::UpdateConnectionSettings { .. }
            | Op::ReadAudit { .. }) => {
                // Files and the keychain (which may wait for the user to unlock it): in the
                // background, so terminal input keeps flowing; one at a time, so two saves never
                // overwrite each other and answers come in the order asked.
                let queue = inner.saved_ops.get_or_init(|| {
                    let (queue, mut ops) = mpsc::unbounded_channel();
                    // Weak: the worker ends when the engine goes.
                    let engine = Arc::downgrade(&self.inner);
                    tokio::spawn(async move {
                        while let Some(op) = ops.recv().await {
                            let Some(inner) = engine.upgrade() else { break };
                            crate::saved_ops::handle(&Engine { inner }, op).await;
                        }
                    });
                    queue
                });
                // Sending fails only once the worker is gone with the engine.
                let _ = queue.send(op);
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
        self.inner.clone().run_tool(tab, call, tool, args).await
    }

    /// What Pilot's system prompt and policy need to know about a tab.
    pub fn tab_info(&self, tab: &str) -> Option<TabInfo> {
        let found = self.inner.tab(tab)?;
        Some(TabInfo {
            kind: found.kind,
            connection: found.connection.clone(),
            mode: found.mode(),
            settings: found.settings(),
            closing: found.closing.clone(),
        })
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
            outcome,
            Verdict::Deny,
            None,
            Vec::new(),
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

    pub(crate) fn emit(&self, event: Event) {
        self.inner.emit(event);
    }

    pub(crate) fn pilot(&self) -> &crate::agent::Conversations {
        &self.inner.pilot
    }
}

/// A tab as Pilot sees it (see [`Engine::tab_info`]).
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

impl Inner {
    fn emit(&self, event: Event) {
        // A closed stream means every front end is gone; nothing is left to tell.
        let _ = self.events.send(event);
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

    fn open_tab(
        self: &Arc<Self>,
        tab: TabId,
        target: TabTarget,
        cols: u16,
        rows: u16,
        settings: Option<ConnectionSettings>,
        mode: Option<Mode>,
    ) {
        if self.tab(&tab).is_some() {
            self.emit(Event::Error {
                tab: Some(tab.clone()),
                message: format!("a tab {tab:?} is already open"),
            });
            return;
        }
        let resolved = self.resolve_target(&target);
        let profile_settings = match &resolved {
            Ok((_, settings)) => settings.clone(),
            Err(_) => None,
        };
        let (session_tx, session) = watch::channel(None);
        let entry = Arc::new(Tab {
            id: tab.clone(),
            kind: match (&target, &resolved) {
                (TabTarget::Storage { .. }, _) => TabKind::Storage,
                // A storage profile opens a storage tab.
                (TabTarget::Profile { .. }, Ok((ResolvedTarget::Storage { .. }, _))) => {
                    TabKind::Storage
                }
                (TabTarget::Local | TabTarget::Profile { .. } | TabTarget::Ssh { .. }, _) => {
                    TabKind::Terminal
                }
            },
            connection: connection_label(&target),
            mode: Mutex::new(mode.unwrap_or_default()),
            settings: Mutex::new(
                settings
                    .or(profile_settings)
                    .unwrap_or_else(|| self.config.default_settings.clone()),
            ),
            session,
            session_tx,
            calls: Mutex::new(HashMap::new()),
            closing: CancellationToken::new(),
            size: Mutex::new(TerminalSize::clamped(cols, rows)),
        });
        lock(&self.tabs).insert(tab.clone(), entry.clone());
        self.emit(Event::TabOpened {
            tab: tab.clone(),
            kind: entry.kind,
            title: entry.connection.clone(),
        });
        self.emit(Event::ConnectionState {
            tab: tab.clone(),
            state: ConnectionState::Connecting,
        });
        let inner = self.clone();
        tokio::spawn(async move {
            let connecting = async {
                let (target, _) = resolved?;
                inner.connect(&entry, target).await
            };
            let result = tokio::select! {
                result = connecting => result,
                () = entry.closing.cancelled() => Err("the tab was closed while connecting".to_owned()),
            };
            let state = match &result {
                Ok(_) => ConnectionState::Connected,
                Err(error) => ConnectionState::Failed {
                    error: error.clone(),
                },
            };
            entry.session_tx.send_replace(Some(result.clone()));
            // A resize that came after the pty opened and before the tab counted as connected
            // found no terminal to resize: give it now.
            if let Ok(resources) = &result
                && let Some(terminal) = &resources.terminal
            {
                let wanted = *lock(&entry.size);
                if terminal.size() != (wanted.cols, wanted.rows)
                    && let Err(error) = terminal.resize(wanted.cols, wanted.rows).await
                {
                    inner.emit(Event::Error {
                        tab: Some(entry.id.clone()),
                        message: error.to_string(),
                    });
                }
            }
            inner.emit(Event::ConnectionState {
                tab: entry.id.clone(),
                state,
            });
        });
    }

    /// The folders a storage tab's local side may use: `asked`, unless this engine keeps every
    /// tab in its documents folder.
    fn local_roots(&self, asked: Vec<String>) -> Vec<String> {
        match &self.config.documents_dir {
            Some(documents) => vec![documents.display().to_string()],
            None => asked,
        }
    }

    /// What a tab target names, with the profile's settings when it is a profile.
    fn resolve_target(
        &self,
        target: &TabTarget,
    ) -> Result<(ResolvedTarget, Option<ConnectionSettings>), String> {
        match target {
            TabTarget::Local => Ok((ResolvedTarget::Local, None)),
            TabTarget::Storage {
                url,
                user,
                local_roots,
                identity_files,
            } => Ok((
                ResolvedTarget::Storage {
                    url: url.clone(),
                    user: user.clone(),
                    // `~` as in a profile's local_roots (a front end cannot know the home folder).
                    local_roots: self.local_roots(
                        local_roots
                            .iter()
                            .map(|root| {
                                crate::connect::profiles::expand_tilde(root)
                                    .display()
                                    .to_string()
                            })
                            .collect(),
                    ),
                    identity_files: identity_files.iter().map(PathBuf::from).collect(),
                },
                None,
            )),
            TabTarget::Ssh {
                host,
                port,
                user,
                identity_files,
                jump_hosts,
            } => {
                let jump_hosts = jump_hosts
                    .iter()
                    .map(|hop| parse_ssh_target(hop).map_err(|error| error.to_string()))
                    .collect::<Result<Vec<SshTarget>, String>>()?;
                let target = SshTarget {
                    host: host.clone(),
                    port: *port,
                    user: user.clone(),
                    identity_files: identity_files.iter().map(PathBuf::from).collect(),
                    jump_hosts,
                };
                Ok((ResolvedTarget::Ssh(target), None))
            }
            TabTarget::Profile { name } => {
                let store = ProfileStore::load(&self.config.profiles_path)
                    .map_err(|error| error.to_string())?;
                if let Some(profile) = store.get(name)
                    && let Some(url) = profile.kind.storage_url()
                {
                    let settings = profile
                        .connection_settings()
                        .map_err(|error| error.to_string())?;
                    let target = ResolvedTarget::Storage {
                        url,
                        user: None,
                        local_roots: self.local_roots(profile.kind.local_roots()),
                        identity_files: profile.kind.identity_files(),
                    };
                    return Ok((target, Some(settings)));
                }
                let target = store
                    .resolve_target(name)
                    .map_err(|error| error.to_string())?;
                let settings = match store.get(name) {
                    Some(profile) => Some(
                        profile
                            .connection_settings()
                            .map_err(|error| error.to_string())?,
                    ),
                    None => None,
                };
                Ok((ResolvedTarget::Ssh(target), settings))
            }
        }
    }

    async fn connect(
        self: &Arc<Self>,
        tab: &Arc<Tab>,
        target: ResolvedTarget,
    ) -> Result<Arc<TabResources>, String> {
        // The pty and the screen mirror start at one size; a resize after this is reconciled once
        // the tab counts as connected (`open_tab`).
        let (io, ssh, size) = match target {
            ResolvedTarget::Storage {
                url,
                user,
                local_roots,
                identity_files,
            } => {
                return self
                    .connect_storage(tab, &url, user, &local_roots, identity_files)
                    .await;
            }
            ResolvedTarget::Local => {
                let size = *lock(&tab.size);
                (open_local_shell(size.cols, size.rows)?, None, size)
            }
            ResolvedTarget::Ssh(target) => {
                let options = SshOptions {
                    known_hosts: self.config.known_hosts.clone(),
                    connect_timeout: CONNECT_TIMEOUT,
                    keepalive_interval: Duration::from_secs(15),
                    keepalive_max: 3,
                    use_agent: true,
                };
                let interaction = Arc::new(EnginePrompts {
                    inner: self.clone(),
                    tab: tab.id.clone(),
                });
                let session = SshSession::connect(&target, &options, interaction)
                    .await
                    .map_err(|error| self.connect_error(&tab.id, error))?;
                // The size the page asked for while the connection was made.
                let size = *lock(&tab.size);
                let io = session
                    .open_shell("xterm-256color", size.cols, size.rows)
                    .await
                    .map_err(|error| error.to_string())?;
                (io, Some(session), size)
            }
        };
        let settings = tab.settings();
        let terminal_settings = TerminalSettings {
            shell_integration: match settings.shell_integration {
                ShellIntegration::Inject => ShellIntegrationMode::Inject,
                ShellIntegration::DetectOnly => ShellIntegrationMode::DetectOnly,
                ShellIntegration::Off => ShellIntegrationMode::Off,
            },
            scrollback_lines: SCROLLBACK_LINES,
            quiet_period: Duration::from_millis(500),
        };
        let notify = {
            let inner = Arc::downgrade(self);
            let tab = tab.id.clone();
            Arc::new(move |notice: TerminalNotice| {
                let Some(inner) = inner.upgrade() else { return };
                match notice {
                    TerminalNotice::Output(data) => inner.emit(Event::TerminalOutput {
                        tab: tab.clone(),
                        data,
                    }),
                    TerminalNotice::Closed(closed) => inner.emit(Event::ConnectionState {
                        tab: tab.clone(),
                        state: ConnectionState::Disconnected {
                            reason: describe_closed(&closed),
                        },
                    }),
                }
            })
        };
        let terminal = Terminal::start(io, size.cols, size.rows, terminal_settings, notify);
        terminal
            .wait_ready(CONNECT_TIMEOUT)
            .await
            .map_err(|error| error.to_string())?;
        // SFTP starts on the first file tool call, so a server without it still gives a terminal.
        let files = Some(match &ssh {
            Some(session) => tools::TabFiles::sftp(session.clone()),
            None => tools::TabFiles::local(),
        });
        Ok(Arc::new(TabResources {
            terminal: Some(terminal),
            ssh,
            files,
            local_files: None,
        }))
    }

    /// Opens a storage tab: the service (secret from the keychain, else asked for with a
    /// password prompt; SFTP logs in like SSH, with `identity_files` first) and the local side
    /// confined to `local_roots`.
    async fn connect_storage(
        self: &Arc<Self>,
        tab: &Arc<Tab>,
        url: &str,
        user: Option<String>,
        local_roots: &[String],
        identity_files: Vec<PathBuf>,
    ) -> Result<Arc<TabResources>, String> {
        let parsed = crate::storage::StorageUrl::parse(url, user.as_deref())
            .map_err(|error| error.to_string())?;
        let interaction = Arc::new(EnginePrompts {
            inner: self.clone(),
            tab: tab.id.clone(),
        });
        let roots: Vec<PathBuf> = local_roots.iter().map(PathBuf::from).collect();
        let local = if roots.is_empty() {
            None
        } else {
            let confined =
                crate::fs::ConfinedLocal::new(&roots).map_err(|error| error.to_string())?;
            Some(tools::TabFiles::given(Arc::new(confined)))
        };
        let (files, ssh) = match &parsed.service {
            crate::storage::Service::Sftp { host, port } => {
                let target = SshTarget {
                    host: host.clone(),
                    port: *port,
                    user: parsed.user.clone().unwrap_or_default(),
                    identity_files,
                    jump_hosts: Vec::new(),
                };
                let options = SshOptions {
                    known_hosts: self.config.known_hosts.clone(),
                    connect_timeout: CONNECT_TIMEOUT,
                    keepalive_interval: Duration::from_secs(15),
                    keepalive_max: 3,
                    use_agent: true,
                };
                // Opened now (so wrong credentials fail the tab) and again when the server
                // was lost (storage::sftp_storage).
                let connector: crate::storage::sftp_storage::SftpConnector = Arc::new(move || {
                    let (target, options) = (target.clone(), options.clone());
                    let prompts = interaction.clone();
                    let interaction: Arc<dyn crate::ssh::ConnectInteraction> = interaction.clone();
                    Box::pin(async move {
                        let session = SshSession::connect(&target, &options, interaction)
                            .await
                            .map_err(|error| prompts.inner.connect_error(&prompts.tab, error))?;
                        let files = crate::fs::SftpFiles::open(&session)
                            .await
                            .map_err(|error| error.to_string())?;
                        Ok((session, files))
                    })
                });
                let (session, files) = connector().await?;
                let files = crate::storage::sftp_storage::ReconnectingSftp::new(
                    session.clone(),
                    files,
                    connector,
                );
                // The URL's folder is the tab's `/`, as on every other storage service.
                let files = crate::storage::rooted::RootedFiles::new(Arc::new(files), &parsed.root);
                (tools::TabFiles::given(Arc::new(files)), Some(session))
            }
            _ => {
                let secret = crate::storage::secret_for(&parsed, interaction.as_ref()).await?;
                let files = crate::storage::open(&parsed, secret.as_deref())
                    .await
                    .map_err(|error| error.to_string())?;
                (tools::TabFiles::given(files), None)
            }
        };
        Ok(Arc::new(TabResources {
            terminal: None,
            ssh,
            files: Some(files),
            local_files: local,
        }))
    }

    /// A failed SSH connect in words; a changed host key is also told as `HostKeyChanged`, so
    /// front ends can say what it means and offer no way to connect anyway.
    fn connect_error(&self, tab: &str, error: crate::ssh::SshError) -> String {
        if let crate::ssh::SshError::HostKeyChanged {
            endpoint,
            key_type,
            fingerprint,
            known_hosts,
            line,
        } = &error
        {
            let (host, port) = match endpoint.rsplit_once(':') {
                Some((host, port)) => (host, port.parse().unwrap_or(crate::ssh::DEFAULT_PORT)),
                None => (endpoint.as_str(), crate::ssh::DEFAULT_PORT),
            };
            self.emit(Event::HostKeyChanged {
                tab: tab.to_owned(),
                host: host.trim_matches(['[', ']']).to_owned(),
                port,
                key_type: key_type.clone(),
                fingerprint: fingerprint.clone(),
                known_hosts: known_hosts.display().to_string(),
                line: u32::try_from(*line).unwrap_or(u32::MAX),
            });
        }
        error.to_string()
    }

    /// Turns a call's transfer progress into `TransferProgress` events.
    fn transfer_reporter(&self, tab: &str, call: &str) -> tools::TransferReporter {
        let events = self.events.clone();
        let transfers = self.transfers.clone();
        let (tab, call) = (tab.to_owned(), call.to_owned());
        Arc::new(
            move |path: &str, progress: crate::storage::transfer::Progress| {
                if let Some(reports) = lock(&transfers).get_mut(&(tab.clone(), call.clone())) {
                    *reports += 1;
                }
                // A closed stream means no front end is left to tell.
                let _ = events.send(Event::TransferProgress {
                    tab: tab.clone(),
                    call: call.clone(),
                    path: path.to_owned(),
                    transferred: progress.transferred,
                    total: progress.total,
                    rate: progress.rate,
                    eta_s: progress.eta_s,
                    done: progress.done,
                });
            },
        )
    }

    /// A view button the user confirmed (`Op::PressViewButton`): the command derived from its
    /// action must be the one shown, the connection's forbidden commands still apply, and it is
    /// typed into the user's terminal (visible; a sudo prompt is answered there). Audited as
    /// the user's action.
    async fn press_view_button(&self, tab_id: &str, call: &str, button: ViewButton) {
        let started = Instant::now();
        let tab = self.tab(tab_id);
        let connection = tab
            .as_ref()
            .map(|t| t.connection.clone())
            .unwrap_or_default();
        let args = serde_json::json!({"action": &button.action, "command": &button.command});
        let (status, verdict, message, reasons) =
            match self.type_view_button(tab.as_ref(), &button).await {
                Ok(()) => (ToolStatus::Ok, Verdict::Allow, None, Vec::new()),
                Err((status, message)) => {
                    let verdict = if status == ToolStatus::Denied {
                        Verdict::Deny
                    } else {
                        Verdict::Allow
                    };
                    (status, verdict, Some(message.clone()), vec![message])
                }
            };
        let record = AuditRecord {
            time: now_rfc3339(),
            tab: tab_id.to_owned(),
            connection,
            tool: "view_button".to_owned(),
            call: call.to_owned(),
            args: redact_args(&args),
            decision: verdict,
            decided_by: Some(DecidedBy::User),
            reasons,
            status,
            result: None,
            error: message.clone(),
            duration_ms: started.elapsed().as_millis() as u64,
        };
        if let Err(error) = self.audit.append(&record) {
            self.emit(Event::Error {
                tab: Some(tab_id.to_owned()),
                message: error.to_string(),
            });
        }
        self.emit(Event::ViewButtonFinished {
            tab: tab_id.to_owned(),
            call: call.to_owned(),
            command: button.command,
            status,
            message,
        });
    }

    async fn type_view_button(
        &self,
        tab: Option<&Arc<Tab>>,
        button: &ViewButton,
    ) -> Result<(), (ToolStatus, String)> {
        let error = |message: String| (ToolStatus::Error, message);
        let Some(tab) = tab else {
            return Err(error("there is no such tab".to_owned()));
        };
        let derived = button_command(&button.action).map_err(|why| (ToolStatus::Denied, why))?;
        if derived != button.command {
            return Err((
                ToolStatus::Denied,
                format!(
                    "the button's command is {derived:?}, not the {:?} shown",
                    button.command
                ),
            ));
        }
        let settings = tab.settings();
        // The user confirmed it: only what the connection forbids outright still stops it.
        let context = PolicyContext::new(Mode::Ask, &settings, tab.kind);
        if let Decision::Deny { reason } = decide(
            &CallFacts::Command {
                line: derived.clone(),
            },
            context,
        ) {
            return Err((ToolStatus::Denied, reason));
        }
        let Some(session) = self.connected(&tab.id) else {
            return Err(error("the tab is not connected".to_owned()));
        };
        let Some(terminal) = &session.terminal else {
            return Err(error("this tab has no terminal".to_owned()));
        };
        terminal
            .user_input(format!("{derived}\r").as_bytes())
            .await
            .map_err(|e| error(e.to_string()))
    }

    /// Turns a show_view call's whole view into `ViewShown` for the front ends.
    fn view_reporter(&self, tab: &str, call: &str) -> tools::ViewReporter {
        let events = self.events.clone();
        let (tab, call) = (tab.to_owned(), call.to_owned());
        Arc::new(move |report| {
            let _ = events.send(Event::ViewShown {
                tab: tab.clone(),
                call: call.clone(),
                report,
            });
        })
    }

    /// `Op::AppForeground` (see [`crate::lifecycle`]): every connection checked at once; after a
    /// suspension, running turns ended with a note and transfers that stay still cut.
    async fn app_foreground(self: Arc<Self>, engine: &Engine, suspended: Option<Duration>) {
        let reports_before = lock(&self.transfers).clone();
        if let Some(suspended) = suspended {
            crate::agent::interrupt_running_turns(engine, suspended);
        }
        let tabs: Vec<Arc<Tab>> = lock(&self.tabs).values().cloned().collect();
        let checks = tabs.into_iter().filter_map(|tab| {
            let state = tab.session.borrow().clone();
            let ssh = match state {
                Some(Ok(resources)) => resources.ssh.clone()?,
                _ => return None,
            };
            let inner = self.clone();
            Some(async move { inner.check_connection(&tab, &ssh).await })
        });
        futures::future::join_all(checks).await;
        if suspended.is_none() || reports_before.is_empty() {
            return;
        }
        tokio::time::sleep(crate::lifecycle::TRANSFER_STALL).await;
        let reports_now = lock(&self.transfers).clone();
        for (key, before) in reports_before {
            if reports_now.get(&key) == Some(&before) {
                self.cut_transfer(&key.0, &key.1, crate::lifecycle::stalled_transfer());
            }
        }
    }

    /// Asks the server of `tab` to answer now; one that does not is given up: its transfers are
    /// cut and a terminal tab is reported dropped (its "Reconnect" opens a new connection). A
    /// connection already gone was reported when it went (or, in a storage tab, is opened
    /// again on its next use).
    async fn check_connection(&self, tab: &Arc<Tab>, ssh: &SshSession) {
        if ssh.is_closed() || ssh.answers_within(crate::lifecycle::CHECK_TIMEOUT).await {
            return;
        }
        let reason = crate::lifecycle::unanswered_check();
        let running: Vec<CallId> = lock(&self.transfers)
            .keys()
            .filter(|(of_tab, _)| *of_tab == tab.id)
            .map(|(_, call)| call.clone())
            .collect();
        for call in running {
            self.cut_transfer(
                &tab.id,
                &call,
                crate::lifecycle::transfer_on_lost_connection(),
            );
        }
        ssh.abandon(reason.clone()).await;
        if tab.kind == TabKind::Terminal {
            // Worded as the shell's own end will be (it follows with the same words).
            let closed = ShellClosed::ConnectionLost {
                reason: ssh.close_reason().unwrap_or(reason),
            };
            self.emit(Event::ConnectionState {
                tab: tab.id.clone(),
                state: ConnectionState::Disconnected {
                    reason: describe_closed(&closed),
                },
            });
        }
    }

    /// Ends a running transfer as failed, saying `reason`.
    fn cut_transfer(&self, tab: &str, call: &str, reason: String) {
        let Some(found) = self.tab(tab) else { return };
        let token = lock(&found.calls).get(call).cloned();
        if let Some(token) = token {
            lock(&self.cut_transfers).insert((tab.to_owned(), call.to_owned()), reason);
            token.cancel();
        }
    }

    async fn close_tab(&self, tab: &str) {
        let Some(found) = lock(&self.tabs).remove(tab) else {
            self.no_such_tab(tab);
            return;
        };
        found.closing.cancel();
        lock(&self.failed_transfers).retain(|(of_tab, _), _| of_tab != tab);
        #[cfg(feature = "plan")]
        self.plans.forget(tab);
        let state = found.session.borrow().clone();
        if let Some(Ok(session)) = state {
            if let Some(terminal) = &session.terminal {
                terminal.close().await;
            }
            if let Some(ssh) = &session.ssh {
                ssh.disconnect().await;
            }
        }
        self.emit(Event::TabClosed {
            tab: tab.to_owned(),
        });
    }

    /// The whole pipeline for one call.
    async fn run_tool(
        self: Arc<Self>,
        tab_id: TabId,
        call: CallId,
        tool: String,
        args: Value,
    ) -> ToolOutcome {
        let started = Instant::now();
        self.emit(Event::ToolRequested {
            tab: tab_id.clone(),
            call: call.clone(),
            tool: tool.clone(),
            args: args.clone(),
        });
        let Some(tab) = self.tab(&tab_id) else {
            let outcome = error_outcome(
                &tool,
                ToolStatus::Error,
                format!("there is no tab {tab_id:?}"),
            );
            return self.finish(
                &tab_id,
                "",
                &call,
                &args,
                outcome,
                Verdict::Deny,
                None,
                Vec::new(),
                started,
            );
        };
        let cancel = tab.closing.child_token();
        lock(&tab.calls).insert(call.clone(), cancel.clone());
        let transfer = is_transfer(&tool);
        let key = (tab_id.clone(), call.clone());
        let (mut outcome, verdict, decided_by, reasons) = self
            .decide_and_execute(&tab, &call, &tool, &args, &cancel)
            .await;
        lock(&tab.calls).remove(&call);
        if transfer {
            lock(&self.transfers).remove(&key);
        }
        // Cut by kaiport (see `app_foreground`): a failure, not the user's cancel.
        if let Some(reason) = lock(&self.cut_transfers).remove(&key)
            && outcome.status != ToolStatus::Ok
        {
            outcome = error_outcome(&tool, ToolStatus::Error, reason);
        }
        // A failed transfer can be run again (Op::RetryTransfer); a denied one cannot.
        if transfer && matches!(outcome.status, ToolStatus::Error | ToolStatus::Cancelled) {
            lock(&self.failed_transfers)
                .insert((tab_id.clone(), call.clone()), (tool.clone(), args.clone()));
        }
        self.finish(
            &tab_id,
            &tab.connection,
            &call,
            &args,
            outcome,
            verdict,
            decided_by,
            reasons,
            started,
        )
    }

    async fn decide_and_execute(
        &self,
        tab: &Arc<Tab>,
        call: &CallId,
        tool: &str,
        args: &Value,
        cancel: &CancellationToken,
    ) -> (ToolOutcome, Verdict, Option<DecidedBy>, Vec<String>) {
        let fail = |message: String| {
            (
                error_outcome(tool, ToolStatus::Error, message),
                Verdict::Deny,
                None,
                Vec::new(),
            )
        };
        // 1. Registry: known in this build, for this kind of tab?
        let Some(spec) = tools::find(tool) else {
            let known: Vec<&str> = tools::registry()
                .iter()
                .filter(|spec| spec.implemented)
                .map(|spec| spec.name.as_str())
                .collect();
            return fail(format!(
                "unknown tool {tool:?}; the tools are: {}",
                known.join(", ")
            ));
        };
        if !spec.tab_kinds.contains(&tab.kind) {
            return fail(format!("{tool} does not work in this kind of tab"));
        }
        // 2. Typed arguments.
        let request = match tools::parse_request(spec.name, args.clone()) {
            Ok(request) => request,
            Err(message) => return fail(message),
        };
        // 3. Prepare (reads only) on the connected tab, then the policy.
        let resources = match tab.session(cancel).await {
            Ok(resources) => resources,
            Err(message) => return fail(message),
        };
        let settings = tab.settings();
        let context = ToolContext {
            resources: &resources,
            settings: &settings,
            tab_kind: tab.kind,
            cancel,
            transfers: Some(self.transfer_reporter(&tab.id, call)),
            views: Some(self.view_reporter(&tab.id, call)),
        };
        let prepared = match tools::prepare(request, &context).await {
            Ok(prepared) => prepared,
            Err(message) => return fail(message),
        };
        let policy = PolicyContext {
            mode: tab.mode(),
            settings: &settings,
            tab_kind: tab.kind,
            data_seen: lock(&self.taint).seen_elsewhere(&tab.connection),
        };
        let mut decision = decide(&prepared.facts, policy);
        // A command line's write targets (run_command, or the line send_input's Enter runs) are
        // judged where links on the server make them land.
        if let (CallFacts::Command { line }, false) =
            (&prepared.facts, matches!(decision, Decision::Deny { .. }))
        {
            let resolved = tools::links::resolve_command_writes(line, &resources).await;
            decision = crate::policy::judge_resolved_writes(decision, &resolved);
        }
        // Plan calls that may go ahead get their cards before the approval is asked.
        #[cfg(feature = "plan")]
        if !matches!(decision, Decision::Deny { .. }) {
            match self.plans.before_decision(&tab.id, call, &prepared.action) {
                Ok(events) => events.into_iter().for_each(|event| self.emit(event)),
                Err(message) => {
                    tools::abandon(&prepared.action, &context).await;
                    return fail(message);
                }
            }
        }
        let (decided_by, reasons) = match decision {
            Decision::Deny { reason } => {
                // What preparing did (send_input's staged line) is taken back on every refusal.
                tools::abandon(&prepared.action, &context).await;
                let outcome = error_outcome(tool, ToolStatus::Denied, reason.clone());
                return (outcome, Verdict::Deny, Some(DecidedBy::Rule), vec![reason]);
            }
            Decision::Allow { by, reasons } => (by, reasons),
            Decision::Ask { reasons, dangerous } => {
                // 4. Approval: waits for the user, without a time limit; cancel ends it.
                let preview = prepared.preview.clone();
                let answer = self
                    .approvals
                    .ask(call.clone(), cancel, || {
                        self.emit(Event::ApprovalRequested {
                            tab: tab.id.clone(),
                            call: call.clone(),
                            tool: tool.to_owned(),
                            reasons: reasons.clone(),
                            dangerous,
                            preview,
                        });
                    })
                    .await;
                match answer {
                    Ok(Approval {
                        decision: ApprovalDecision::Approve,
                        by,
                        ..
                    }) => (by, reasons),
                    Ok(Approval {
                        decision: ApprovalDecision::Deny,
                        reason,
                        by,
                    }) => {
                        let message = match reason {
                            Some(reason) if !reason.trim().is_empty() => {
                                format!("the user denied this call: {reason}")
                            }
                            _ => "the user denied this call".to_owned(),
                        };
                        #[cfg(feature = "plan")]
                        self.plan_refused(&tab.id, &prepared.action);
                        tools::abandon(&prepared.action, &context).await;
                        let outcome = error_outcome(tool, ToolStatus::Denied, message);
                        return (outcome, Verdict::Ask, Some(by), reasons);
                    }
                    Err(NoAnswer::Cancelled | NoAnswer::Abandoned) => {
                        #[cfg(feature = "plan")]
                        self.plan_refused(&tab.id, &prepared.action);
                        tools::abandon(&prepared.action, &context).await;
                        let outcome = error_outcome(
                            tool,
                            ToolStatus::Cancelled,
                            "cancelled while waiting for approval".to_owned(),
                        );
                        return (outcome, Verdict::Ask, None, reasons);
                    }
                }
            }
        };
        let verdict = match decided_by {
            DecidedBy::User | DecidedBy::Automatic => Verdict::Ask,
            DecidedBy::Rule | DecidedBy::Autopilot => Verdict::Allow,
        };
        // 5. Execution.
        if is_transfer(tool) {
            // Watched from now on (not while it waited for approval): see `app_foreground`.
            lock(&self.transfers).insert((tab.id.clone(), call.clone()), 0);
        }
        self.emit(Event::ToolRunning {
            tab: tab.id.clone(),
            call: call.clone(),
        });
        let outcome = match prepared.action {
            Action::AskUser(params) => self.ask_user(tab, call, tool, params, cancel).await,
            #[cfg(feature = "plan")]
            action @ (Action::ProposePlan(_) | Action::UpdatePlan(_)) => {
                self.plan_call(tab, tool, &action, decided_by)
            }
            action => match tools::execute(action, &context).await {
                Ok(result) => ToolOutcome {
                    tool: tool.to_owned(),
                    status: ToolStatus::Ok,
                    result: Some(result),
                    error: None,
                },
                // A cancelled call says so, whatever the tool made of the cancellation.
                Err(message) if cancel.is_cancelled() => {
                    error_outcome(tool, ToolStatus::Cancelled, message)
                }
                Err(message) => error_outcome(tool, ToolStatus::Error, message),
            },
        };
        if outcome.result.is_some() {
            lock(&self.taint).record(&tab.connection, settings.sensitivity);
        }
        (outcome, verdict, Some(decided_by), reasons)
    }

    /// propose_plan / update_plan once allowed: the plan book records it; approving a proposal
    /// (by a person) switches the tab from plan to ask mode.
    #[cfg(feature = "plan")]
    fn plan_call(&self, tab: &Arc<Tab>, tool: &str, action: &Action, by: DecidedBy) -> ToolOutcome {
        match self.plans.approved(&tab.id, action, by == DecidedBy::User) {
            Ok((result, events, leaves_plan_mode)) => {
                events.into_iter().for_each(|event| self.emit(event));
                if leaves_plan_mode {
                    let mut mode = lock(&tab.mode);
                    if *mode == Mode::Plan {
                        *mode = Mode::Ask;
                        drop(mode);
                        self.emit(Event::ModeChanged {
                            tab: tab.id.clone(),
                            mode: Mode::Ask,
                        });
                    }
                }
                ok_outcome(tool, &result)
            }
            Err(message) => {
                if let Some(plan) = self.plans.card(&tab.id) {
                    self.emit(Event::PlanUpdated {
                        tab: tab.id.clone(),
                        plan,
                    });
                }
                error_outcome(tool, ToolStatus::Error, message)
            }
        }
    }

    #[cfg(feature = "plan")]
    fn plan_refused(&self, tab: &str, action: &Action) {
        for event in self.plans.refused(tab, action) {
            self.emit(event);
        }
    }

    /// ask_user: shown to the user and answered only by them, in every mode.
    async fn ask_user(
        &self,
        tab: &Arc<Tab>,
        call: &CallId,
        tool: &str,
        params: AskUserParams,
        cancel: &CancellationToken,
    ) -> ToolOutcome {
        let answer = self
            .questions
            .ask(call.clone(), cancel, || {
                self.emit(Event::QuestionAsked {
                    tab: tab.id.clone(),
                    call: call.clone(),
                    question: params.question.clone(),
                    options: params.options.clone(),
                });
            })
            .await;
        match answer {
            Ok(answer) => ok_outcome(
                tool,
                &AskUserResult {
                    answered: answer.is_some(),
                    answer,
                },
            ),
            Err(_) => error_outcome(
                tool,
                ToolStatus::Cancelled,
                "the user did not answer".to_owned(),
            ),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        tab: &str,
        connection: &str,
        call: &str,
        args: &Value,
        outcome: ToolOutcome,
        verdict: Verdict,
        decided_by: Option<DecidedBy>,
        reasons: Vec<String>,
        started: Instant,
    ) -> ToolOutcome {
        let duration_ms = started.elapsed().as_millis() as u64;
        let record = AuditRecord {
            time: now_rfc3339(),
            tab: tab.to_owned(),
            connection: connection.to_owned(),
            tool: outcome.tool.clone(),
            call: call.to_owned(),
            args: redact_args(args),
            decision: verdict,
            decided_by,
            reasons,
            status: outcome.status,
            result: crate::audit::result_summary(outcome.result.as_ref()),
            error: outcome.error.clone(),
            duration_ms,
        };
        let recorded = self.audit.append(&record);
        if let Err(error) = &recorded {
            // The call happened; the user must learn that its record is missing.
            self.emit(Event::Error {
                tab: Some(tab.to_owned()),
                message: error.to_string(),
            });
        }
        self.emit(Event::ToolFinished {
            tab: tab.to_owned(),
            call: call.to_owned(),
            outcome: outcome.clone(),
            verdict,
            decided_by,
            duration_ms,
        });
        if recorded.is_ok() {
            self.emit(Event::AuditRecorded { entry: record });
        }
        outcome
    }

    fn next_prompt_id(&self) -> PromptId {
        format!(
            "prompt-{}",
            self.next_prompt.fetch_add(1, Ordering::Relaxed)
        )
    }

    async fn prompt(&self, tab: &str, prompt: Prompt) -> Option<PromptAnswer> {
        let id = self.next_prompt_id();
        let closing = self
            .tab(tab)
            .map(|found| found.closing.clone())
            .unwrap_or_default();
        self.prompts
            .ask(id.clone(), &closing, || {
                self.emit(Event::PromptRequested {
                    tab: Some(tab.to_owned()),
                    prompt_id: id.clone(),
                    prompt,
                });
            })
            .await
            .ok()
    }
}

/// Connection prompts (host keys, passwords) as engine events answered by `Op::AnswerPrompt`.
struct EnginePrompts {
    inner: Arc<Inner>,
    tab: TabId,
}

#[async_trait::async_trait]
impl ConnectInteraction for EnginePrompts {
    async fn confirm_unknown_host(
        &self,
        host: &str,
        port: u16,
        key_type: &str,
        fingerprint_sha256: &str,
    ) -> bool {
        let prompt = Prompt::UnknownHostKey {
            host: host.to_owned(),
            port,
            key_type: key_type.to_owned(),
            fingerprint: fingerprint_sha256.to_owned(),
        };
        matches!(
            self.inner.prompt(&self.tab, prompt).await,
            Some(PromptAnswer::Confirm { accept: true })
        )
    }

    async fn password(&self, user: &str, host: &str, port: u16) -> Option<String> {
        if let Some(saved) = keychain_secret(ssh_password_account(user, host, port)).await {
            return Some(saved);
        }
        let prompt = Prompt::Password {
            user: user.to_owned(),
            host: host.to_owned(),
        };
        match self.inner.prompt(&self.tab, prompt).await {
            Some(PromptAnswer::Secret { value }) => Some(value),
            _ => None,
        }
    }

    async fn passphrase(&self, key_path: &Path) -> Option<String> {
        if let Some(saved) = keychain_secret(key_passphrase_account(key_path)).await {
            return Some(saved);
        }
        let prompt = Prompt::Passphrase {
            key_path: key_path.display().to_string(),
        };
        match self.inner.prompt(&self.tab, prompt).await {
            Some(PromptAnswer::Secret { value }) => Some(value),
            _ => None,
        }
    }

    async fn keyboard_interactive(
        &self,
        name: &str,
        instructions: &str,
        prompts: &[(String, bool)],
    ) -> Option<Vec<String>> {
        let prompt = Prompt::KeyboardInteractive {
            name: name.to_owned(),
            instructions: instructions.to_owned(),
            prompts: prompts.iter().map(|(text, _)| text.clone()).collect(),
        };
        match self.inner.prompt(&self.tab, prompt).await {
            Some(PromptAnswer::Responses { values }) => Some(values),
            _ => None,
        }
    }
}

/// A secret saved in the OS keychain, if the keychain can be read and has one. A keychain that
/// cannot be opened is not an error here: the user is asked instead.
async fn keychain_secret(account: String) -> Option<String> {
    let lookup = tokio::task::spawn_blocking(move || SecretStore::open()?.get(&account)).await;
    match lookup {
        Ok(Ok(secret)) => secret,
        Ok(Err(error)) => {
            tracing::debug!(%error, "no secret from the keychain");
            None
        }
        Err(_) => None,
    }
}

#[cfg(feature = "local-terminal")]
fn open_local_shell(cols: u16, rows: u16) -> Result<crate::shell_io::ShellIo, String> {
    crate::terminal::spawn_local_shell(None, cols, rows).map_err(|error| error.to_string())
}

#[cfg(not(feature = "local-terminal"))]
fn open_local_shell(_cols: u16, _rows: u16) -> Result<crate::shell_io::ShellIo, String> {
    Err("this build has no local terminal".to_owned())
}

fn connection_label(target: &TabTarget) -> String {
    match target {
        TabTarget::Local => "local".to_owned(),
        TabTarget::Profile { name } => name.clone(),
        TabTarget::Ssh {
            host, port, user, ..
        } => format!("ssh://{user}@{host}:{port}"),
        TabTarget::Storage { url, user, .. } => {
            match crate::storage::StorageUrl::parse(url, user.as_deref()) {
                Ok(parsed) => parsed.label(),
                Err(_) => url.clone(),
            }
        }
    }
}

fn describe_closed(closed: &ShellClosed) -> String {
    match closed {
        ShellClosed::Exited {
            status: Some(status),
        } => format!("the shell exited with status {status}"),
        ShellClosed::Exited { status: None } => "the shell exited".to_owned(),
        ShellClosed::ConnectionLost { reason } => format!("the connection was lost: {reason}"),
    }
}

/// The command a view button types (see `views::buttons`).
#[cfg(feature = "show-view")]
fn button_command(action: &ButtonAction) -> Result<String, String> {
    crate::views::buttons::command(action)
}

#[cfg(not(feature = "show-view"))]
fn button_command(_action: &ButtonAction) -> Result<String, String> {
    Err("server views are not part of this build".to_owned())
}

/// The tools that move files: shown in Transfers, retried with `Op::RetryTransfer`.
fn is_transfer(tool: &str) -> bool {
    matches!(tool, "upload" | "download" | "execute_plan")
}

fn ok_outcome(tool: &str, result: &impl serde::Serialize) -> ToolOutcome {
    match serde_json::to_value(result) {
        Ok(value) => ToolOutcome {
            tool: tool.to_owned(),
            status: ToolStatus::Ok,
            result: Some(value),
            error: None,
        },
        Err(error) => error_outcome(
            tool,
            ToolStatus::Error,
            format!("could not encode the result: {error}"),
        ),
    }
}

fn error_outcome(tool: &str, status: ToolStatus, message: String) -> ToolOutcome {
    ToolOutcome {
        tool: tool.to_owned(),
        status,
        result: None,
        error: Some(message),
    }
}
