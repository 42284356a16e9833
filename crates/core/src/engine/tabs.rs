//! Tabs: opening one (resolving its target, connecting in the background at the size the page
//! draws), the session a tool call waits for, connecting a dropped one again (by itself, with
//! backoff, unless the failure cannot get better by waiting), and closing it. Never runs a tool.

use super::prompts::EnginePrompts;
use super::{CONNECT_TIMEOUT, Inner, SCROLLBACK_LINES, lock};
use crate::connect::destination::parse_ssh_target;
use crate::connect::profiles::ProfileStore;
use crate::shell_io::ShellClosed;
use crate::ssh::{SshOptions, SshSession, SshTarget};
use crate::terminal::{ShellIntegrationMode, Terminal, TerminalNotice, TerminalSettings};
use crate::tools::{self, TabResources};
use kaiport_protocol::*;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

type SessionState = Option<Result<Arc<TabResources>, String>>;

/// A tab target with profiles and destinations resolved.
pub(super) enum ResolvedTarget {
    Local,
    /// An SSH server; `keep` runs the shell inside tmux or screen there (`ssh::kept`).
    Ssh {
        target: SshTarget,
        keep: bool,
    },
    Storage {
        url: String,
        user: Option<String>,
        local_roots: Vec<String>,
        /// SFTP: the private keys to log in with.
        identity_files: Vec<PathBuf>,
    },
}

pub(super) struct Tab {
    pub(super) id: TabId,
    pub(super) kind: TabKind,
    /// The connection as the user names it; goes into the audit log.
    pub(super) connection: String,
    /// The saved connection the tab was opened from, if any.
    pub(super) profile: Option<String>,
    /// What the tab was opened on; a reconnect resolves it again.
    pub(super) target: TabTarget,
    /// Counts the tab's connections: what an older one (dropped, being replaced) still reports
    /// is not told any more.
    pub(super) generation: Arc<AtomicU64>,
    pub(super) mode: Mutex<Mode>,
    pub(super) settings: Mutex<ConnectionSettings>,
    pub(super) session: watch::Receiver<SessionState>,
    pub(super) session_tx: watch::Sender<SessionState>,
    pub(super) calls: Mutex<HashMap<CallId, CancellationToken>>,
    /// Cancelled when the tab closes: ends every wait in it.
    pub(super) closing: CancellationToken,
    /// The terminal size the page last asked for. Kept while the tab connects, so the pty opens
    /// at the size the page draws (a page fits its terminal only after it asked for the tab).
    pub(super) size: Mutex<TerminalSize>,
    /// Held while the terminal is given `size`: two resizes at once (the page's and the one on
    /// connecting) could leave the pty at one size and the mirror at another.
    pub(super) resizing: tokio::sync::Mutex<()>,
    /// What the host probe found for the current connection; None until it answered (and
    /// again while the tab reconnects).
    pub(super) host_facts: Mutex<Option<HostFacts>>,
    /// The tab's port forwards (SSH terminal tabs); they follow it across reconnects.
    pub(super) forwards: Arc<crate::forward::TabForwards>,
    /// The automatic reconnect under way, if any (`ConnectionState::Reconnecting`).
    pub(super) reconnecting: Mutex<Option<Reconnecting>>,
    /// The secret the marks of the tab's kept shell carry (tmux or screen on the server):
    /// given back when a reconnect attaches to that shell.
    pub(super) kept_secret: Mutex<Option<String>>,
    /// The tab's connection runs in a multiplexer on the server (set once it did).
    pub(super) kept: std::sync::atomic::AtomicBool,
    /// The last connection (generation) whose end was told: the check on coming back and the
    /// shell's own end both report one drop.
    told_end: AtomicU64,
    /// The connection an automatic reconnect made and is telling (`Connected`): its end, if it
    /// comes meanwhile, is told after that.
    telling: AtomicU64,
    /// The terminal of the connection being made (its generation), from its shell's start until
    /// that connection is told: the user sees its first prompt then, and their keys reach it.
    pub(super) starting: Mutex<Option<(u64, Terminal)>>,
}

/// Written into a terminal whose connection was lost, before kaiport connects it again.
const NEW_SHELL_NOTE: &str = "\r\n\x1b[2m[kaiport] The connection was lost; reconnecting. A new \
     shell will start here: what ran in this one has ended.\x1b[0m\r\n";

/// Written into a kept session's terminal when its connection was lost.
const KEPT_SESSION_NOTE: &str = "\r\n\x1b[2m[kaiport] The connection was lost; reconnecting to \
     the same shell, which the server keeps running.\x1b[0m\r\n";

/// Written into a terminal whose connection should keep its session, on a server without
/// tmux or screen.
const NOT_KEPT_NOTE: &str = "\x1b[2m[kaiport] Neither tmux nor screen is installed on this \
     server, so this shell cannot be kept: it ends when the connection drops.\x1b[0m\r\n";

/// An automatic reconnect under way: cancelled by `Op::CancelReconnect`, `Op::ReconnectTab`
/// or closing the tab.
pub(super) struct Reconnecting {
    cancel: CancellationToken,
    /// Why the last connection or attempt ended; what "Disconnected" says after a cancel.
    reason: String,
}

/// Why connecting failed, and whether waiting can help (a changed host key or a refused login
/// stays so: an automatic reconnect stops on it).
#[derive(Debug, Clone)]
pub(super) struct ConnectFailure {
    message: String,
    lasting: bool,
}

impl From<String> for ConnectFailure {
    fn from(message: String) -> Self {
        ConnectFailure {
            message,
            lasting: false,
        }
    }
}

/// Failures no later attempt can get past without the user: the host key, the login.
fn lasting(error: &crate::ssh::SshError) -> bool {
    use crate::ssh::SshError;
    matches!(
        error,
        SshError::HostKeyNotAccepted { .. }
            | SshError::HostKeyChanged { .. }
            | SshError::HostKeyRevoked { .. }
            | SshError::KnownHosts { .. }
            | SshError::AuthFailed { .. }
            | SshError::NoUsableAuthMethod { .. }
    )
}

/// A terminal's columns and rows, as the engine accepts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TerminalSize {
    pub(super) cols: u16,
    pub(super) rows: u16,
}

impl TerminalSize {
    /// The most columns or rows: ops asking for more are refused before they get here
    /// ([`crate::limits`]); this clamp only keeps the mirror bounded should one ever slip by.
    const MAX: u16 = crate::limits::MAX_TERMINAL_SIZE;

    /// `cols` x `rows`, each at most [`Self::MAX`]; 0 means unknown (a pty nobody sized says
    /// 0 x 0) and gives the classic 80 x 24.
    pub(super) fn clamped(cols: u16, rows: u16) -> Self {
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
    /// Forgets the terminal connection `generation` (or an older one) was starting.
    pub(super) fn stop_starting(&self, generation: u64) {
        let mut starting = lock(&self.starting);
        if starting
            .as_ref()
            .is_some_and(|(started, _)| *started <= generation)
        {
            *starting = None;
        }
    }

    /// The terminal the user's keys go to: the connected one, else the current connection's
    /// while it starts (its first prompt is on the screen before the tab counts as connected).
    pub(super) fn input_terminal(&self) -> Option<Terminal> {
        let current = self.generation.load(Ordering::SeqCst);
        let starting = lock(&self.starting)
            .as_ref()
            .filter(|(started, _)| *started == current)
            .map(|(_, terminal)| terminal.clone());
        starting.or_else(|| match &*self.session.borrow() {
            Some(Ok(session)) => session.terminal.clone(),
            _ => None,
        })
    }

    pub(super) fn mode(&self) -> Mode {
        *lock(&self.mode)
    }

    pub(super) fn settings(&self) -> ConnectionSettings {
        lock(&self.settings).clone()
    }

    /// Gives `terminal` the size the page last asked for, unless it has it. The size is read
    /// under the lock, so whichever resize runs last gives the latest size to mirror and pty.
    pub(super) async fn fit_terminal(
        &self,
        terminal: &Terminal,
    ) -> Result<(), crate::terminal::TerminalError> {
        let _resizing = self.resizing.lock().await;
        let wanted = *lock(&self.size);
        if terminal.size() == (wanted.cols, wanted.rows) {
            return Ok(());
        }
        terminal.resize(wanted.cols, wanted.rows).await
    }

    /// The tab's shell is kept in tmux or screen on the server: a reconnect attaches to it.
    pub(super) fn keeps_session(&self) -> bool {
        self.kept.load(Ordering::SeqCst)
    }

    /// The session once connecting ended (or the error it ended with).
    pub(super) async fn session(
        &self,
        cancel: &CancellationToken,
    ) -> Result<Arc<TabResources>, String> {
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

impl Inner {
    pub(super) fn open_tab(
        self: &Arc<Self>,
        tab: TabId,
        target: TabTarget,
        cols: u16,
        rows: u16,
        settings: Option<ConnectionSettings>,
        mode: Option<Mode>,
    ) {
        self.open_tab_with(tab, target, (cols, rows), settings, mode, None);
    }

    /// A tab of the last run opened again (`restore`), with its kept shell's secret.
    pub(super) fn open_tab_restored(
        self: &Arc<Self>,
        tab: TabId,
        target: TabTarget,
        settings: Option<ConnectionSettings>,
        mode: Option<Mode>,
        kept_secret: Option<String>,
    ) {
        // The page that shows it sends its size.
        self.open_tab_with(tab, target, (0, 0), settings, mode, kept_secret);
    }

    fn open_tab_with(
        self: &Arc<Self>,
        tab: TabId,
        target: TabTarget,
        (cols, rows): (u16, u16),
        settings: Option<ConnectionSettings>,
        mode: Option<Mode>,
        kept_secret: Option<String>,
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
            profile: match &target {
                TabTarget::Profile { name } => Some(name.clone()),
                _ => None,
            },
            target: target.clone(),
            generation: Arc::default(),
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
            resizing: tokio::sync::Mutex::new(()),
            host_facts: Mutex::new(None),
            forwards: super::forwards::tab_forwards(Arc::downgrade(self), tab.clone()),
            reconnecting: Mutex::new(None),
            kept: std::sync::atomic::AtomicBool::new(kept_secret.is_some()),
            kept_secret: Mutex::new(kept_secret),
            told_end: AtomicU64::new(0),
            telling: AtomicU64::new(0),
            starting: Mutex::new(None),
        });
        lock(&self.tabs).insert(tab.clone(), entry.clone());
        lock(&self.order).push(tab.clone());
        self.emit(Event::TabOpened {
            tab: tab.clone(),
            kind: entry.kind,
            title: entry.connection.clone(),
        });
        self.emit(Event::ConnectionState {
            tab: tab.clone(),
            state: ConnectionState::Connecting,
        });
        let profile = entry.profile.clone();
        self.start_connecting(entry, resolved.map(|(target, _)| target), None);
        if let Some(profile) = profile {
            let inner = self.clone();
            tokio::spawn(async move { inner.open_profile_forwards(&tab, &profile).await });
        }
    }

    /// `Op::ReconnectTab`: the same tab on a new connection, its settings, mode and Pilot
    /// conversation kept; the old connection (dropped, or not) is closed first.
    pub(super) fn reconnect_tab(self: &Arc<Self>, tab: &str) {
        let Some(entry) = self.tab(tab) else {
            self.no_such_tab(tab);
            return;
        };
        // Now rather than at the automatic attempt's time.
        if let Some(automatic) = lock(&entry.reconnecting).take() {
            automatic.cancel.cancel();
        }
        let old = entry.session_tx.send_replace(None);
        entry.forwards.set_session(None);
        *lock(&entry.host_facts) = None;
        self.emit(Event::ConnectionState {
            tab: entry.id.clone(),
            state: ConnectionState::Connecting,
        });
        let resolved = self.resolve_target(&entry.target).map(|(target, _)| target);
        let old = match old {
            Some(Ok(resources)) => Some(resources),
            _ => None,
        };
        self.start_connecting(entry, resolved, old);
    }

    /// Connects `entry` in the background (after closing `old`, its previous connection) and
    /// tells how it went; a newer connection of the tab supersedes this one.
    fn start_connecting(
        self: &Arc<Self>,
        entry: Arc<Tab>,
        resolved: Result<ResolvedTarget, String>,
        old: Option<Arc<TabResources>>,
    ) {
        let generation = entry.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let inner = self.clone();
        tokio::spawn(async move {
            if let Some(old) = old {
                close_resources(&old).await;
            }
            let connecting = async {
                let target = resolved?;
                inner.connect(&entry, target, generation, false).await
            };
            let result = tokio::select! {
                result = connecting => result,
                () = entry.closing.cancelled() => Err("the tab was closed while connecting".to_owned().into()),
            };
            inner
                .tell_connected(
                    &entry,
                    result.map_err(|failure| failure.message),
                    generation,
                )
                .await;
        });
    }

    /// Tells how connecting `generation` went (unless the tab connected again meanwhile), and
    /// starts the host probe on a terminal that connected.
    async fn tell_connected(
        self: &Arc<Self>,
        entry: &Tab,
        result: Result<Arc<TabResources>, String>,
        generation: u64,
    ) {
        if entry.generation.load(Ordering::SeqCst) != generation {
            // Reconnected again meanwhile: that connection tells.
            entry.stop_starting(generation);
            return;
        }
        let state = match &result {
            Ok(_) => ConnectionState::Connected,
            Err(error) => ConnectionState::Failed {
                error: error.clone(),
            },
        };
        entry.session_tx.send_replace(Some(result.clone()));
        // After the session is in place, so no key finds neither.
        entry.stop_starting(generation);
        if let Ok(resources) = &result
            && resources.terminal.is_some()
        {
            entry.forwards.set_session(resources.ssh.clone());
        }
        // A resize that came after the pty opened and before the tab counted as connected
        // found no terminal to resize: give it now.
        if let Ok(resources) = &result
            && let Some(terminal) = &resources.terminal
            && let Err(error) = entry.fit_terminal(terminal).await
        {
            self.emit(Event::Error {
                tab: Some(entry.id.clone()),
                message: error.to_string(),
            });
        }
        self.emit(Event::ConnectionState {
            tab: entry.id.clone(),
            state,
        });
        // An end held back while this was told (see `connection_ended`) is told now, after it.
        if entry
            .telling
            .compare_exchange(generation, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
            && let Ok(resources) = &result
            && let Some(closed) = resources.terminal.as_ref().and_then(|t| t.closed())
        {
            self.connection_ended(&entry.id, generation, &closed);
            return;
        }
        if let Ok(resources) = result
            && resources.terminal.is_some()
        {
            self.probe_host(entry, &resources, generation).await;
        }
    }

    /// The end of connection `generation` of `tab`, told once: a lost SSH connection of a
    /// terminal tab is connected again by itself (when the engine does that), anything else
    /// (the shell exited) leaves the tab disconnected with its Reconnect.
    pub(super) fn connection_ended(
        self: &Arc<Self>,
        tab: &str,
        generation: u64,
        closed: &ShellClosed,
    ) {
        let Some(entry) = self.tab(tab) else { return };
        // An automatic attempt's connection that ends before it is told: the attempt sees it,
        // or `tell_connected` tells it after `Connected`.
        if entry.generation.load(Ordering::SeqCst) != generation
            || lock(&entry.reconnecting).is_some()
            || entry.telling.load(Ordering::SeqCst) == generation
            || entry.told_end.fetch_max(generation, Ordering::SeqCst) >= generation
        {
            return;
        }
        let reason = describe_closed(closed);
        let automatic = self.config.reconnect.automatic
            && matches!(closed, ShellClosed::ConnectionLost { .. })
            && entry.kind == TabKind::Terminal
            && !matches!(entry.target, TabTarget::Local);
        if !automatic {
            self.emit(Event::ConnectionState {
                tab: entry.id.clone(),
                state: ConnectionState::Disconnected { reason },
            });
            return;
        }
        // Local listeners stay bound and refuse connections until the tab is back.
        entry.forwards.set_session(None);
        // In the terminal itself, where the user looks: the next prompt is another shell's,
        // unless the server keeps this one.
        let note = if lock(&entry.kept_secret).is_some() || entry.keeps_session() {
            KEPT_SESSION_NOTE
        } else {
            NEW_SHELL_NOTE
        };
        self.emit(Event::TerminalOutput {
            tab: entry.id.clone(),
            data: note.as_bytes().to_vec(),
        });
        let cancel = entry.closing.child_token();
        let previous = lock(&entry.reconnecting).replace(Reconnecting {
            cancel: cancel.clone(),
            reason: reason.clone(),
        });
        if let Some(previous) = previous {
            previous.cancel.cancel();
        }
        let inner = self.clone();
        tokio::spawn(async move { inner.reconnect_automatically(entry, reason, cancel).await });
    }

    /// Connects `entry` again after its connection was lost: waits (1, 2, 4, 8, 16, then 30 s
    /// by default), tries, and goes on until it is connected, a failure cannot get better by
    /// waiting (`Failed`), or `cancel`. Until then the tab keeps its dead connection, so calls
    /// fail at once saying the connection was lost rather than waiting.
    async fn reconnect_automatically(
        self: Arc<Self>,
        entry: Arc<Tab>,
        mut reason: String,
        cancel: CancellationToken,
    ) {
        let policy = self.config.reconnect;
        let mut attempt: u32 = 0;
        let (result, generation) = loop {
            attempt = attempt.saturating_add(1);
            let delay = policy.delay(attempt);
            self.emit(Event::ConnectionState {
                tab: entry.id.clone(),
                state: ConnectionState::Reconnecting {
                    attempt,
                    in_ms: u32::try_from(delay.as_millis()).unwrap_or(u32::MAX),
                    reason: reason.clone(),
                },
            });
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                () = cancel.cancelled() => return,
            }
            let generation = entry.generation.fetch_add(1, Ordering::SeqCst) + 1;
            let connecting = async {
                let (target, _) = self.resolve_target(&entry.target)?;
                self.connect(&entry, target, generation, true).await
            };
            let result = tokio::select! {
                result = connecting => result,
                () = cancel.cancelled() => return,
            };
            // Under the lock, so an end of this attempt's connection is either seen here or
            // told by `connection_ended` once the reconnect is over.
            let mut running = lock(&entry.reconnecting);
            if running.is_none() || cancel.is_cancelled() {
                // Cancelled meanwhile: the cancel told.
                return;
            }
            let ended = match &result {
                Ok(resources) => resources.terminal.as_ref().and_then(|t| t.closed()),
                Err(_) => None,
            };
            let failure = match (result, ended) {
                (Ok(resources), None) => {
                    entry.telling.store(generation, Ordering::SeqCst);
                    *running = None;
                    break (Ok(resources), generation);
                }
                // A shell that ends as it starts will do so again.
                (Ok(_), Some(closed @ ShellClosed::Exited { .. })) => ConnectFailure {
                    message: describe_closed(&closed),
                    lasting: true,
                },
                (Ok(_), Some(closed)) => ConnectFailure::from(describe_closed(&closed)),
                (Err(failure), _) => failure,
            };
            if failure.lasting {
                *running = None;
                break (Err(failure.message), generation);
            }
            reason = failure.message;
            if let Some(running) = running.as_mut() {
                running.reason = reason.clone();
            }
        };
        *lock(&entry.host_facts) = None;
        let dead = entry.session.borrow().clone();
        if let Some(Ok(dead)) = dead {
            tokio::spawn(async move { close_resources(&dead).await });
        }
        self.tell_connected(&entry, result, generation).await;
    }

    /// `Op::CancelReconnect`: the automatic reconnect stops; the tab stays disconnected.
    pub(super) fn cancel_reconnect(&self, tab: &str) {
        let Some(entry) = self.tab(tab) else {
            self.no_such_tab(tab);
            return;
        };
        let running = lock(&entry.reconnecting).take();
        entry.stop_starting(entry.generation.load(Ordering::SeqCst));
        let Some(running) = running else {
            self.emit(Event::Error {
                tab: Some(tab.to_owned()),
                message: "this tab is not reconnecting".to_owned(),
            });
            return;
        };
        running.cancel.cancel();
        self.emit(Event::ConnectionState {
            tab: entry.id.clone(),
            state: ConnectionState::Disconnected {
                reason: running.reason,
            },
        });
    }

    /// Runs the host probe on its own channel (never in the user's terminal) and keeps and
    /// tells what it found, unless the tab connected again meanwhile. Runs after `Connected`,
    /// so it never delays the first prompt.
    async fn probe_host(&self, entry: &Tab, resources: &TabResources, generation: u64) {
        #[cfg(feature = "show-view")]
        let facts = {
            let host = match &resources.ssh {
                Some(ssh) => crate::views::ViewHost::Ssh(ssh),
                None => crate::views::ViewHost::Local,
            };
            tokio::select! {
                facts = crate::views::host_facts::probe(host, &entry.closing) => facts,
                () = entry.closing.cancelled() => return,
            }
        };
        // The probe runs on the views' runner, which builds without show-view (phones) leave
        // out: the facts then say so instead of staying "not probed yet".
        #[cfg(not(feature = "show-view"))]
        let facts = {
            let _ = resources;
            HostFacts {
                probe_error: Some("this build of kaiport has no host probe".to_owned()),
                ..HostFacts::default()
            }
        };
        if entry.generation.load(Ordering::SeqCst) != generation {
            return;
        }
        *lock(&entry.host_facts) = Some(facts.clone());
        self.emit(Event::HostFacts {
            tab: entry.id.clone(),
            facts,
        });
    }

    /// The folders a storage tab's local side may use: `asked`, unless this engine keeps every
    /// tab in its documents folder.
    pub(super) fn local_roots(&self, asked: Vec<String>) -> Vec<String> {
        match &self.config.documents_dir {
            Some(documents) => vec![documents.display().to_string()],
            None => asked,
        }
    }

    /// What a tab target names, with the profile's settings when it is a profile.
    pub(super) fn resolve_target(
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
                                crate::connect::paths::expand_tilde(root)
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
                keep_session,
                certificate_files,
                identity_agent,
                forward_agent,
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
                    certificate_files: certificate_files
                        .iter()
                        .map(|file| crate::connect::paths::expand_tilde(file))
                        .collect(),
                    identity_agent: identity_agent
                        .as_deref()
                        .and_then(crate::ssh::agent::AgentSource::parse),
                    forward_agent: *forward_agent,
                    jump_hosts,
                };
                Ok((
                    ResolvedTarget::Ssh {
                        target,
                        keep: *keep_session,
                    },
                    None,
                ))
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
                let keep = matches!(
                    store.get(name).map(|profile| &profile.kind),
                    Some(crate::connect::profiles::ProfileKind::Ssh {
                        keep_session: true,
                        ..
                    })
                );
                Ok((ResolvedTarget::Ssh { target, keep }, settings))
            }
        }
    }

    pub(super) async fn connect(
        self: &Arc<Self>,
        tab: &Arc<Tab>,
        target: ResolvedTarget,
        generation: u64,
        automatic: bool,
    ) -> Result<Arc<TabResources>, ConnectFailure> {
        // The pty and the screen mirror start at one size; a resize after this is reconciled once
        // the tab counts as connected (`open_tab`).
        let mut kept: Option<crate::ssh::kept::Found> = None;
        let (io, ssh, size) = match target {
            ResolvedTarget::Storage {
                url,
                user,
                local_roots,
                identity_files,
            } => {
                return self
                    .connect_storage(tab, &url, user, &local_roots, identity_files)
                    .await
                    .map_err(ConnectFailure::from);
            }
            ResolvedTarget::Local => {
                let size = *lock(&tab.size);
                (open_local_shell(size.cols, size.rows)?, None, size)
            }
            ResolvedTarget::Ssh { target, keep } => {
                let options = self.ssh_options();
                let interaction = Arc::new(EnginePrompts {
                    inner: self.clone(),
                    tab: tab.id.clone(),
                    automatic,
                });
                let session = SshSession::connect(&target, &options, interaction)
                    .await
                    .map_err(|error| ConnectFailure {
                        lasting: lasting(&error),
                        message: self.connect_error(&tab.id, error),
                    })?;
                // The size the page asked for while the connection was made.
                let size = *lock(&tab.size);
                let (io, found) = if keep {
                    self.open_kept_shell(tab, &session, size).await?
                } else {
                    let io = session
                        .open_shell("xterm-256color", size.cols, size.rows)
                        .await
                        .map_err(|error| error.to_string())?;
                    (io, None)
                };
                kept = found;
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
            let current = tab.generation.clone();
            let tab = tab.id.clone();
            Arc::new(move |notice: TerminalNotice| {
                let Some(inner) = inner.upgrade() else { return };
                if current.load(Ordering::SeqCst) != generation {
                    // A connection the tab has replaced: its last words are not the tab's.
                    return;
                }
                match notice {
                    TerminalNotice::Output(data) => inner.emit(Event::TerminalOutput {
                        tab: tab.clone(),
                        data,
                    }),
                    TerminalNotice::Cwd(cwd) => inner.emit(Event::TerminalCwd {
                        tab: tab.clone(),
                        cwd,
                    }),
                    TerminalNotice::Closed(closed) => {
                        inner.connection_ended(&tab, generation, &closed);
                    }
                }
            })
        };
        let terminal = match kept {
            Some(crate::ssh::kept::Found {
                multiplexer: Some(multiplexer),
                existing,
            }) => {
                let secret = lock(&tab.kept_secret).clone();
                let kept = crate::terminal::KeptShell {
                    passthrough: match multiplexer {
                        crate::ssh::kept::Multiplexer::Tmux => crate::terminal::Passthrough::Tmux,
                        crate::ssh::kept::Multiplexer::Screen => {
                            crate::terminal::Passthrough::Screen
                        }
                    },
                    attached: existing,
                    // A shell made now gets a secret of its own.
                    secret: secret.filter(|_| existing),
                };
                let io = match multiplexer {
                    crate::ssh::kept::Multiplexer::Screen => {
                        crate::ssh::kept::without_alternate_screen(io)
                    }
                    crate::ssh::kept::Multiplexer::Tmux => io,
                };
                let io = crate::ssh::kept::marks_after_redraw(io);
                Terminal::start_kept(io, size.cols, size.rows, terminal_settings, notify, kept)
            }
            _ => Terminal::start(io, size.cols, size.rows, terminal_settings, notify),
        };
        *lock(&tab.starting) = Some((generation, terminal.clone()));
        if let Err(error) = terminal.wait_ready(CONNECT_TIMEOUT).await {
            tab.stop_starting(generation);
            return Err(error.to_string().into());
        }
        if matches!(kept, Some(found) if found.multiplexer.is_some()) {
            tab.kept.store(true, Ordering::SeqCst);
            // The next connection attaches to this shell, whose marks carry this secret.
            let secret = terminal.mark_secret();
            if secret.is_some() {
                *lock(&tab.kept_secret) = secret;
            }
        }
        // SFTP starts on the first file tool call, so a server without it still gives a terminal.
        let files = Some(match &ssh {
            Some(session) => tools::TabFiles::sftp(session.clone()),
            None => tools::TabFiles::local(),
        });
        // An SSH tab's file pane uploads from and downloads to this computer: the home folder
        // (or the documents folder where the engine keeps one), confined like a storage tab's
        // local side. Only the user's own calls reach it (engine/pipeline.rs, `Caller`).
        let local_files = match &ssh {
            Some(_) => self.ssh_tab_local_side(),
            None => None,
        };
        Ok(Arc::new(TabResources {
            terminal: Some(terminal),
            ssh,
            files,
            local_files,
        }))
    }

    /// This computer's side of an SSH tab, or `None` when its folder cannot be opened (the
    /// pane then says so when asked to use it).
    fn ssh_tab_local_side(&self) -> Option<tools::TabFiles> {
        let home = crate::connect::paths::expand_tilde("~")
            .display()
            .to_string();
        let roots: Vec<PathBuf> = self
            .local_roots(vec![home])
            .iter()
            .map(PathBuf::from)
            .collect();
        let confined = crate::fs::ConfinedLocal::new(&roots).ok()?;
        Some(tools::TabFiles::given(Arc::new(confined)))
    }

    /// Opens a storage tab: the service (secret from the keychain, else asked for with a
    /// password prompt; SFTP logs in like SSH, with `identity_files` first) and the local side
    /// confined to `local_roots`.
    pub(super) async fn connect_storage(
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
            automatic: false,
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
                let mut target =
                    SshTarget::new(host.clone(), *port, parsed.user.clone().unwrap_or_default());
                target.identity_files = identity_files;
                let options = self.ssh_options();
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

    /// Opens the tab's kept session on `session`: attaches to it in tmux or screen (making it
    /// when it is not there), or, when the server has neither, the login shell with a line in
    /// the terminal saying that this shell is not kept.
    async fn open_kept_shell(
        &self,
        tab: &Tab,
        session: &SshSession,
        size: TerminalSize,
    ) -> Result<(crate::shell_io::ShellIo, Option<crate::ssh::kept::Found>), ConnectFailure> {
        use crate::ssh::kept;
        let name = kept::session_name(&tab.id);
        let found = kept::look(session, &name)
            .await
            .map_err(|error| error.to_string())?;
        let command = match found.multiplexer {
            Some(multiplexer) => Some(kept::attach_command(
                multiplexer,
                &name,
                size.cols,
                size.rows,
            )),
            None => {
                self.emit(Event::TerminalOutput {
                    tab: tab.id.clone(),
                    data: NOT_KEPT_NOTE.as_bytes().to_vec(),
                });
                None
            }
        };
        let io = session
            .open_terminal("xterm-256color", size.cols, size.rows, command.as_deref())
            .await
            .map_err(|error| error.to_string())?;
        Ok((io, Some(found)))
    }

    /// How SSH connections are made: keepalives find a dead server within the engine's
    /// dead-peer time.
    pub(super) fn ssh_options(&self) -> SshOptions {
        SshOptions {
            known_hosts: self.config.known_hosts.clone(),
            connect_timeout: CONNECT_TIMEOUT,
            keepalive_interval: self.config.reconnect.keepalive_interval(),
            keepalive_max: crate::config::ReconnectConfig::KEEPALIVE_MAX,
            use_agent: true,
            agent: None,
        }
    }

    /// A failed SSH connect in words; a changed host key is also told as `HostKeyChanged`, so
    /// front ends can say what it means and offer no way to connect anyway.
    pub(super) fn connect_error(&self, tab: &str, error: crate::ssh::SshError) -> String {
        if let crate::ssh::SshError::HostKeyChanged {
            endpoint,
            key_type,
            fingerprint,
            old_fingerprint,
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
                old_fingerprint: old_fingerprint.clone(),
                known_hosts: known_hosts.display().to_string(),
                line: u32::try_from(*line).unwrap_or(u32::MAX),
            });
        }
        error.to_string()
    }
}

impl Inner {
    pub(super) async fn close_tab(&self, tab: &str) {
        let Some(found) = lock(&self.tabs).remove(tab) else {
            self.no_such_tab(tab);
            return;
        };
        lock(&self.order).retain(|known| known != tab);
        found.closing.cancel();
        self.close_forwards(&found);
        self.transfers.forget_tab(tab);
        #[cfg(feature = "plan")]
        self.plans.forget(tab);
        let state = found.session.borrow().clone();
        if let Some(Ok(session)) = state {
            // Closed by the user: the shell kept on the server ends with the tab.
            if found.keeps_session()
                && !lock(&self.remembered).quitting
                && let Some(ssh) = &session.ssh
            {
                let name = crate::ssh::kept::session_name(&found.id);
                match tokio::time::timeout(CONNECT_TIMEOUT, crate::ssh::kept::end(ssh, &name)).await
                {
                    Ok(Ok(())) => {}
                    Ok(Err(error)) => {
                        tracing::warn!(%error, "the kept session was not ended on the server");
                    }
                    Err(_) => tracing::warn!("ending the kept session on the server timed out"),
                }
            }
            close_resources(&session).await;
        }
        self.emit(Event::TabClosed {
            tab: tab.to_owned(),
        });
    }
}

/// Ends a connection the tab no longer uses: its shell, then its SSH session.
async fn close_resources(resources: &TabResources) {
    if let Some(terminal) = &resources.terminal {
        terminal.close().await;
    }
    if let Some(ssh) = &resources.ssh {
        ssh.disconnect().await;
    }
}

impl Inner {
    /// `Op::MoveTab`: `tab` to `index` in the order (past the end: last), told to every window.
    pub(super) fn move_tab(&self, tab: &str, index: u32) {
        let tabs = {
            let mut order = lock(&self.order);
            let Some(from) = order.iter().position(|known| known == tab) else {
                drop(order);
                self.no_such_tab(tab);
                return;
            };
            let moved = order.remove(from);
            let to = usize::try_from(index)
                .unwrap_or(usize::MAX)
                .min(order.len());
            order.insert(to, moved);
            order.clone()
        };
        self.emit(Event::TabsReordered { tabs });
    }
}

#[cfg(feature = "local-terminal")]
pub(super) fn open_local_shell(cols: u16, rows: u16) -> Result<crate::shell_io::ShellIo, String> {
    crate::terminal::spawn_local_shell(None, cols, rows).map_err(|error| error.to_string())
}

#[cfg(not(feature = "local-terminal"))]
pub(super) fn open_local_shell(_cols: u16, _rows: u16) -> Result<crate::shell_io::ShellIo, String> {
    Err("this build has no local terminal".to_owned())
}

pub(super) fn connection_label(target: &TabTarget) -> String {
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

pub(super) fn describe_closed(closed: &ShellClosed) -> String {
    match closed {
        ShellClosed::Exited {
            status: Some(status),
        } => format!("the shell exited with status {status}"),
        ShellClosed::Exited { status: None } => "the shell exited".to_owned(),
        ShellClosed::ConnectionLost { reason } => format!("the connection was lost: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use crate::{Engine, EngineConfig};
    use kaiport_protocol::{Event, Op, TabTarget};
    use pretty_assertions::assert_eq;

    /// The next `TabsReordered` (or `Error`) on the stream, skipping the tabs' other events.
    async fn order(events: &mut crate::EventStream) -> Result<Vec<String>, String> {
        loop {
            match events.recv().await {
                Some(Event::TabsReordered { tabs }) => return Ok(tabs),
                Some(Event::Error { message, .. }) => return Err(message),
                Some(_) => {}
                None => return Err("the stream ended".to_owned()),
            }
        }
    }

    /// One order for every window: a tab moves to an index (past the end: last), a closed tab
    /// leaves the others in their order, an unknown tab is an error.
    #[tokio::test(flavor = "current_thread")]
    async fn tabs_move_in_one_order_and_keep_it_when_one_closes() {
        let dir = tempfile::tempdir().unwrap();
        let (engine, mut events) = Engine::new(EngineConfig::in_dir(dir.path())).unwrap();
        for tab in ["a", "b", "c"] {
            // A saved connection that does not exist: the tab opens (and fails) offline.
            let target = TabTarget::Profile {
                name: "nowhere".to_owned(),
            };
            engine
                .handle(Op::OpenTab {
                    tab: tab.to_owned(),
                    target,
                    cols: 80,
                    rows: 24,
                    settings: None,
                    mode: None,
                })
                .await;
        }
        let move_tab = |tab: &str, index| Op::MoveTab {
            tab: tab.to_owned(),
            index,
        };
        engine.handle(move_tab("c", 0)).await;
        assert_eq!(order(&mut events).await.unwrap(), ["c", "a", "b"]);
        engine.handle(move_tab("c", 99)).await;
        assert_eq!(order(&mut events).await.unwrap(), ["a", "b", "c"]);
        engine
            .handle(Op::CloseTab {
                tab: "b".to_owned(),
            })
            .await;
        engine.handle(move_tab("a", 1)).await;
        assert_eq!(order(&mut events).await.unwrap(), ["c", "a"]);
        engine.handle(move_tab("b", 0)).await;
        assert!(
            order(&mut events)
                .await
                .unwrap_err()
                .contains("no tab \"b\"")
        );
    }
}
