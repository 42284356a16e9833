//! One kaiport engine for the pages that show it: the job `kaiport serve` (a WebSocket) and the
//! desktop app (a Tauri channel) share, whatever pipe carries the messages.
//!
//! - [`Bridge`] owns the [`Engine`]: [`Bridge::start`] makes it and pumps its events into the
//!   [`Hub`]; [`Bridge::op_from_page`] hands a page's `Op` to it (with the front end's model, and
//!   the replies that are for that page alone); [`Bridge::close_all`] ends every tab.
//! - [`Hub`] turns events into [`Frame`]s (JSON text, or terminal bytes as
//!   `[tab id length][tab id][bytes]`, see [`terminal_frame`]) for every page, and keeps a
//!   [`Replay`]-like record of what a page that connects later must see first: the hello, the open
//!   tabs with their state, recent output and Pilot's conversation, and the prompts still waiting.
//! - [`Follow`] (from [`Hub::follow`]) is one page's reading of the hub: the replay, then the
//!   frames in batches, and the replay again when the page fell behind. `kaiport serve` and the
//!   desktop app both feed their pages from it.
//! - [`Busy`] says which Pilot turns and transfers are under way (a window asks before closing).
//! - [`sizes`] decides whose terminal size a tab's pty takes when several pages show it.
//!
//! Nothing here knows SSH, policy or storage; a front end only moves frames.

use bytes::Bytes;
use kaiport_core::{Engine, EngineConfig, EngineError};
use kaiport_protocol::{ConnectionState, Event, ModelSettings, Op, TabId};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::broadcast;

pub mod sizes;
pub use sizes::PageId;
use sizes::Sizes;

/// Terminal output kept per tab for pages that connect later.
pub const REPLAY_BYTES: usize = 256 * 1024;
/// Pilot's events kept per tab (its conversation and cards) for pages that connect later.
pub const PILOT_REPLAY_BYTES: usize = 1024 * 1024;
/// Frames a page may fall behind before it must start again from the replay.
pub const FRAMES_BEHIND: usize = 8192;

/// One message for the pages; cloning it shares its text or bytes.
#[derive(Debug, Clone)]
pub enum Frame {
    /// An `Event` as JSON.
    Text(Arc<str>),
    /// Terminal output: [`terminal_frame`].
    Binary(Bytes),
}

impl Frame {
    fn text(text: String) -> Frame {
        Frame::Text(text.into())
    }

    /// The event as a frame; None (and a warning) when it cannot be written as JSON.
    pub fn event(event: &Event) -> Option<Frame> {
        match serde_json::to_string(event) {
            Ok(text) => Some(Frame::text(text)),
            Err(error) => {
                tracing::warn!("an event could not be written as JSON: {error}");
                None
            }
        }
    }
}

/// `[tab id length][tab id][bytes]`; None when the tab id is too long for one length byte.
pub fn terminal_frame(tab: &str, data: &[u8]) -> Option<Vec<u8>> {
    let length = u8::try_from(tab.len()).ok()?;
    let mut frame = Vec::with_capacity(1 + tab.len() + data.len());
    frame.push(length);
    frame.extend_from_slice(tab.as_bytes());
    frame.extend_from_slice(data);
    Some(frame)
}

/// The tab and bytes of a terminal frame from a page.
pub fn parse_terminal_frame(frame: &[u8]) -> Option<(&str, &[u8])> {
    let (&length, rest) = frame.split_first()?;
    let length = usize::from(length);
    if rest.len() < length {
        return None;
    }
    let (tab, data) = rest.split_at(length);
    Some((std::str::from_utf8(tab).ok()?, data))
}

/// Frames a page is sent in one go at most (see [`next_batch`]).
const BATCH_FRAMES: usize = 1024;
/// Bytes of one tab's output joined into one frame at most.
const JOINED_BYTES: usize = 1 << 20;

/// `first` and the frames already waiting behind it, with each run of one tab's terminal output
/// joined into one frame. A flood comes from the engine in pieces of a few KB; sent one by one,
/// a page's link spends its time on per-message costs, falls [`FRAMES_BEHIND`] behind and must
/// start again from the replay. Err when the receiver lagged: the page starts again from a new
/// replay ([`Follow::next`]).
fn next_batch(
    first: Arc<Frame>,
    frames: &mut broadcast::Receiver<Arc<Frame>>,
) -> Result<Vec<Frame>, broadcast::error::RecvError> {
    let mut waiting = vec![first];
    while waiting.len() < BATCH_FRAMES {
        match frames.try_recv() {
            Ok(frame) => waiting.push(frame),
            Err(broadcast::error::TryRecvError::Lagged(skipped)) => {
                return Err(broadcast::error::RecvError::Lagged(skipped));
            }
            Err(broadcast::error::TryRecvError::Empty | broadcast::error::TryRecvError::Closed) => {
                break;
            }
        }
    }
    Ok(join_output(&waiting))
}

/// The frames in order, each run of one tab's terminal frames joined (up to [`JOINED_BYTES`]).
fn join_output(frames: &[Arc<Frame>]) -> Vec<Frame> {
    /// A run of one tab's output: its tab, its frames' bytes (after the tab header), their size.
    struct Run<'a> {
        tab: &'a str,
        parts: Vec<(&'a Frame, &'a [u8])>,
        bytes: usize,
    }
    fn close(out: &mut Vec<Frame>, run: Option<Run<'_>>) {
        let Some(run) = run else { return };
        match run.parts.as_slice() {
            [(single, _)] => out.push((*single).clone()),
            parts => {
                // The tab fitted its header in every part, so it fits here.
                if let Some(mut frame) = terminal_frame(run.tab, &[]) {
                    frame.reserve(run.bytes);
                    for (_, data) in parts {
                        frame.extend_from_slice(data);
                    }
                    out.push(Frame::Binary(frame.into()));
                }
            }
        }
    }
    let mut out = Vec::with_capacity(frames.len());
    let mut run: Option<Run<'_>> = None;
    for frame in frames {
        let parsed = match &**frame {
            Frame::Binary(bytes) => parse_terminal_frame(bytes),
            Frame::Text(_) => None,
        };
        let Some((tab, data)) = parsed else {
            close(&mut out, run.take());
            out.push((**frame).clone());
            continue;
        };
        match &mut run {
            Some(current) if current.tab == tab && current.bytes + data.len() <= JOINED_BYTES => {
                current.parts.push((frame, data));
                current.bytes += data.len();
            }
            _ => {
                close(&mut out, run.take());
                run = Some(Run {
                    tab,
                    parts: vec![(frame, data)],
                    bytes: data.len(),
                });
            }
        }
    }
    close(&mut out, run);
    out
}

/// What a page that connects now must be shown first.
#[derive(Debug, Default)]
struct Replay {
    hello: Option<Arc<str>>,
    tabs: Vec<TabReplay>,
    /// Prompts not answered yet: (prompt id, tab, the event).
    prompts: Vec<(String, Option<TabId>, Arc<str>)>,
    /// The engine's `TabsRestored`, until a page shows a tab of its own choosing (then a page
    /// that connects later starts as pages did before a restart).
    restored: Option<Arc<str>>,
    busy: Busy,
}

#[derive(Debug)]
struct TabReplay {
    id: TabId,
    opened: Option<Arc<str>>,
    state: Option<Arc<str>>,
    output: VecDeque<u8>,
    /// The tab's latest `ModeChanged`.
    mode: Option<Arc<str>>,
    /// The tab's latest `HostFacts`.
    facts: Option<Arc<str>>,
    /// The tab's latest `TerminalCwd`.
    cwd: Option<Arc<str>>,
    /// Each open forward's latest `ForwardState`, by forward id (a closed one is dropped).
    forwards: BTreeMap<u32, Arc<str>>,
    /// Pilot's events in order (turns, text, tool cards, questions, plans, views and their
    /// buttons' results), oldest dropped first past [`PILOT_REPLAY_BYTES`]: a page that reloads
    /// sees the conversation and the cards still waiting for an answer.
    pilot: VecDeque<Arc<str>>,
    pilot_bytes: usize,
}

impl TabReplay {
    fn keep_pilot(&mut self, frame: Arc<str>) {
        self.pilot_bytes += frame.len();
        self.pilot.push_back(frame);
        while self.pilot_bytes > PILOT_REPLAY_BYTES
            && let Some(old) = self.pilot.pop_front()
        {
            self.pilot_bytes -= old.len();
        }
    }
}

impl Replay {
    fn tab(&mut self, id: &str) -> &mut TabReplay {
        let index = match self.tabs.iter().position(|tab| tab.id == id) {
            Some(index) => index,
            None => {
                self.tabs.push(TabReplay {
                    id: id.to_owned(),
                    opened: None,
                    state: None,
                    output: VecDeque::new(),
                    mode: None,
                    facts: None,
                    cwd: None,
                    forwards: BTreeMap::new(),
                    pilot: VecDeque::new(),
                    pilot_bytes: 0,
                });
                self.tabs.len() - 1
            }
        };
        &mut self.tabs[index]
    }

    /// The tab `id` when it is open (not made up for an event of a closed tab).
    fn open_tab(&mut self, id: &str) -> Option<&mut TabReplay> {
        self.tabs.iter_mut().find(|tab| tab.id == id)
    }

    fn frames(&self) -> Vec<Frame> {
        let mut frames: Vec<Frame> = self.hello.iter().cloned().map(Frame::Text).collect();
        for tab in &self.tabs {
            frames.extend(tab.opened.iter().cloned().map(Frame::Text));
            frames.extend(tab.state.iter().cloned().map(Frame::Text));
            if !tab.output.is_empty() {
                let (front, back) = tab.output.as_slices();
                if let Some(frame) = terminal_frame(&tab.id, &[front, back].concat()) {
                    frames.push(Frame::Binary(frame.into()));
                }
            }
            frames.extend(tab.mode.iter().cloned().map(Frame::Text));
            frames.extend(tab.facts.iter().cloned().map(Frame::Text));
            frames.extend(tab.cwd.iter().cloned().map(Frame::Text));
            frames.extend(tab.forwards.values().cloned().map(Frame::Text));
            frames.extend(tab.pilot.iter().cloned().map(Frame::Text));
        }
        frames.extend(self.restored.iter().cloned().map(Frame::Text));
        frames.extend(
            self.prompts
                .iter()
                .map(|(_, _, event)| Frame::Text(event.clone())),
        );
        frames
    }
}

/// The Pilot turns and transfers under way, by tab.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Busy {
    /// Tabs where Pilot is working on a message.
    pub turns: BTreeSet<TabId>,
    /// (tab, call) of transfers that have not finished.
    pub transfers: BTreeSet<(TabId, String)>,
}

impl Busy {
    pub fn is_idle(&self) -> bool {
        self.turns.is_empty() && self.transfers.is_empty()
    }

    fn follow(&mut self, event: &Event) {
        match event {
            Event::TurnStarted { tab, .. } => {
                self.turns.insert(tab.clone());
            }
            Event::TurnFinished { tab, .. } => {
                self.turns.remove(tab);
            }
            Event::TransferProgress {
                tab, call, done, ..
            } => {
                let key = (tab.clone(), call.clone());
                if *done {
                    self.transfers.remove(&key);
                } else {
                    self.transfers.insert(key);
                }
            }
            Event::ToolFinished { tab, call, .. } => {
                self.transfers.remove(&(tab.clone(), call.clone()));
            }
            Event::TabClosed { tab } => {
                self.turns.remove(tab);
                self.transfers.retain(|(known, _)| known != tab);
            }
            _ => {}
        }
    }
}

/// The engine's events, to every page.
pub struct Hub {
    replay: Mutex<Replay>,
    frames: broadcast::Sender<Arc<Frame>>,
    sizes: Mutex<Sizes>,
}

impl Default for Hub {
    fn default() -> Hub {
        Hub::new()
    }
}

impl Hub {
    pub fn new() -> Hub {
        Hub {
            replay: Mutex::new(Replay::default()),
            frames: broadcast::channel(FRAMES_BEHIND).0,
            sizes: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Replay> {
        self.replay
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What to show a page first, and the frames after it: taken under one lock, so no frame
    /// is missed or shown twice. A receiver that lags ([`broadcast::error::RecvError::Lagged`])
    /// must start again from a new `join`.
    fn join(&self) -> (Vec<Frame>, broadcast::Receiver<Arc<Frame>>) {
        let replay = self.lock();
        (replay.frames(), self.frames.subscribe())
    }

    /// A page starts following the hub: from now on it misses no frame (see [`Follow::next`]).
    pub fn follow(&self) -> Follow<'_> {
        let (replay, frames) = self.join();
        Follow {
            hub: self,
            replay: Some(replay),
            frames,
            behind: false,
        }
    }

    pub fn publish(&self, event: Event) {
        let mut replay = self.lock();
        replay.busy.follow(&event);
        let frame = match &event {
            Event::TerminalOutput { tab, data } => {
                let output = &mut replay.tab(tab).output;
                output.extend(data.iter().copied());
                let excess = output.len().saturating_sub(REPLAY_BYTES);
                output.drain(..excess);
                match terminal_frame(tab, data) {
                    Some(frame) => Frame::Binary(frame.into()),
                    None => return,
                }
            }
            _ => match Frame::event(&event) {
                Some(frame) => frame,
                None => return,
            },
        };
        if let Frame::Text(text) = &frame {
            match &event {
                Event::Hello { .. } => replay.hello = Some(text.clone()),
                Event::TabOpened { tab, .. } => replay.tab(tab).opened = Some(text.clone()),
                Event::ConnectionState { tab, state } => {
                    replay.tab(tab).state = Some(text.clone());
                    if !matches!(state, ConnectionState::Connecting) {
                        replay
                            .prompts
                            .retain(|(_, prompt_tab, _)| prompt_tab.as_ref() != Some(tab));
                    }
                }
                Event::TabClosed { tab } => {
                    replay.tabs.retain(|known| &known.id != tab);
                    self.sizes().closed(tab);
                    replay
                        .prompts
                        .retain(|(_, prompt_tab, _)| prompt_tab.as_ref() != Some(tab));
                }
                Event::TabsRestored { .. } => replay.restored = Some(text.clone()),
                Event::TabsReordered { tabs } => {
                    // A page that connects later gets the tabs in this order.
                    replay.tabs.sort_by_key(|known| {
                        tabs.iter()
                            .position(|id| *id == known.id)
                            .unwrap_or(usize::MAX)
                    });
                }
                Event::PromptRequested { tab, prompt_id, .. } => {
                    replay
                        .prompts
                        .push((prompt_id.clone(), tab.clone(), text.clone()));
                }
                Event::ModeChanged { tab, .. } => {
                    if let Some(known) = replay.open_tab(tab) {
                        known.mode = Some(text.clone());
                    }
                }
                Event::HostFacts { tab, .. } => {
                    if let Some(known) = replay.open_tab(tab) {
                        known.facts = Some(text.clone());
                    }
                }
                Event::TerminalCwd { tab, .. } => {
                    if let Some(known) = replay.open_tab(tab) {
                        known.cwd = Some(text.clone());
                    }
                }
                Event::ForwardState { tab, forward } => {
                    if let Some(known) = replay.open_tab(tab) {
                        if forward.status == kaiport_protocol::ForwardStatus::Closed {
                            known.forwards.remove(&forward.id);
                        } else {
                            known.forwards.insert(forward.id, text.clone());
                        }
                    }
                }
                Event::ToolRequested { tab, .. }
                | Event::ApprovalRequested { tab, .. }
                | Event::ToolRunning { tab, .. }
                | Event::QuestionAsked { tab, .. }
                | Event::ToolFinished { tab, .. }
                | Event::PlanProposed { tab, .. }
                | Event::PlanUpdated { tab, .. }
                | Event::TurnStarted { tab, .. }
                | Event::AssistantText { tab, .. }
                | Event::ModelRetrying { tab, .. }
                | Event::TurnFinished { tab, .. }
                | Event::ContextUsage { tab, .. }
                | Event::ViewShown { tab, .. }
                | Event::ViewButtonFinished { tab, .. } => {
                    // Only for tabs still open (a late event of a closed tab is not kept).
                    if let Some(known) = replay.open_tab(tab) {
                        known.keep_pilot(text.clone());
                    }
                }
                _ => {}
            }
        }
        // No page connected is fine: the replay keeps what matters.
        let _ = self.frames.send(Arc::new(frame));
    }

    fn sizes(&self) -> MutexGuard<'_, Sizes> {
        self.sizes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn prompt_answered(&self, prompt: &str) {
        self.lock().prompts.retain(|(id, _, _)| id != prompt);
    }

    pub fn open_tabs(&self) -> Vec<TabId> {
        self.lock().tabs.iter().map(|tab| tab.id.clone()).collect()
    }

    /// The turns and transfers under way now.
    pub fn busy(&self) -> Busy {
        self.lock().busy.clone()
    }
}

/// One page following the [`Hub`]: the replay first, then every frame after it in batches, and
/// the replay again when the page fell behind. Whatever pipe carries the frames, this is how a
/// page reads them.
pub struct Follow<'a> {
    hub: &'a Hub,
    /// The replay not handed out yet.
    replay: Option<Vec<Frame>>,
    frames: broadcast::Receiver<Arc<Frame>>,
    /// The page fell behind: the next call starts again from a new replay.
    behind: bool,
}

impl Follow<'_> {
    /// The next frames for the page, in order: the replay first, then what the engine sent
    /// since, in batches (each run of one tab's terminal output joined into one frame).
    ///
    /// `Err(Lagged)` when the page fell [`FRAMES_BEHIND`] behind: what it shows is stale, and
    /// the next call starts again from a new replay (the front end tells its page to drop what
    /// it shows, or closes its link). `Err(Closed)` only once the hub's sender is gone, which
    /// cannot happen while the hub lives.
    ///
    /// Cancel-safe: in a `tokio::select!` that picks another branch, no frame is lost.
    pub async fn next(&mut self) -> Result<Vec<Frame>, broadcast::error::RecvError> {
        if std::mem::take(&mut self.behind) {
            let (replay, frames) = self.hub.join();
            self.frames = frames;
            return Ok(replay);
        }
        if let Some(replay) = self.replay.take() {
            return Ok(replay);
        }
        let batch = match self.frames.recv().await {
            Ok(first) => next_batch(first, &mut self.frames),
            Err(error) => Err(error),
        };
        self.behind = matches!(batch, Err(broadcast::error::RecvError::Lagged(_)));
        batch
    }

    /// Whether the next [`Follow::next`] hands out a replay (a front end holds back the page's
    /// ops until the page has it, so that a reply meant for the page alone comes after its
    /// hello).
    pub fn replay_waiting(&self) -> bool {
        self.behind || self.replay.is_some()
    }
}

/// The engine and its pages. Made inside a tokio runtime (it spawns the event pump).
pub struct Bridge {
    pub engine: Engine,
    pub hub: Arc<Hub>,
    /// The model for every tab, when the front end chose one (else the engine's settings file).
    model: Option<ModelSettings>,
    pump: tokio::task::JoinHandle<()>,
    /// The next [`Bridge::page`]'s number (0 is [`Bridge::op_from_page`]'s one window).
    next_page: AtomicU64,
}

impl Bridge {
    /// Starts the engine; `watch` sees every event before the pages do (the desktop app's
    /// notifications), from the pump's task: it must not block.
    pub fn start(
        config: EngineConfig,
        model: Option<ModelSettings>,
        watch: impl Fn(&Event) + Send + Sync + 'static,
    ) -> Result<Arc<Bridge>, EngineError> {
        let (engine, mut events) = Engine::new(config)?;
        let hub = Arc::new(Hub::new());
        let pump = {
            let hub = hub.clone();
            tokio::spawn(async move {
                while let Some(event) = events.recv().await {
                    watch(&event);
                    hub.publish(event);
                }
            })
        };
        Ok(Arc::new(Bridge {
            engine,
            hub,
            model,
            pump,
            next_page: AtomicU64::new(1),
        }))
    }

    /// A new page attached: the id its ops and keystrokes come with ([`Bridge::op_from`]).
    pub fn page(&self) -> PageId {
        PageId(self.next_page.fetch_add(1, Ordering::Relaxed))
    }

    /// The page went away: its terminal sizes no longer count.
    pub fn page_left(&self, page: PageId) {
        self.hub.sizes().left(page);
    }

    /// An op from the front end's only page (the desktop window); see [`Bridge::op_from`].
    pub async fn op_from_page(&self, op: Op) -> Option<Frame> {
        self.op_from(PageId(0), op).await
    }

    /// An op from `page`; the reply for that page alone when there is one. A resize reaches
    /// the engine only when the pty takes this page's size ([`sizes`]).
    pub async fn op_from(&self, page: PageId, mut op: Op) -> Option<Frame> {
        match &mut op {
            Op::OpenTab {
                tab, cols, rows, ..
            } => self.hub.sizes().opened(page, tab, (*cols, *rows)),
            // Another page typed last: its size stays the pty's, this one is only noted.
            Op::Resize { tab, cols, rows } => {
                self.hub.sizes().resized(page, tab, (*cols, *rows))?;
            }
            Op::TerminalInput { tab, .. } => self.follow_typist(page, tab).await,
            // The answer is for the form that asked, not every page (a path past the limit goes
            // on to the engine, which refuses it).
            Op::CheckKeyFile { path } if path.len() <= kaiport_core::limits::MAX_PATH_BYTES => {
                let problem = kaiport_core::ssh::key_file_problem(path).await;
                let path = std::mem::take(path);
                return Frame::event(&Event::KeyFileChecked { path, problem });
            }
            Op::SendMessage { model, .. } if model.is_none() => model.clone_from(&self.model),
            // The front end's model is not the engine's: answered here, to this page.
            Op::ListModels if self.model.is_some() => {
                let config_dir = self.engine.config().config_dir.clone();
                let current = self.model.clone();
                let event = tokio::task::spawn_blocking(move || {
                    kaiport_core::agent::list_models(&config_dir, current)
                })
                .await
                .ok()?;
                return Frame::event(&event);
            }
            Op::AnswerPrompt { prompt, .. } => self.hub.prompt_answered(prompt),
            Op::ShowTab { .. } => self.hub.lock().restored = None,
            _ => {}
        }
        self.engine.handle(op).await;
        None
    }

    /// The pty of `tab` takes `page`'s size when `page` types into it and another page's size
    /// was the pty's.
    async fn follow_typist(&self, page: PageId, tab: &str) {
        let size = self.hub.sizes().typed(page, tab);
        if let Some((cols, rows)) = size {
            let tab = tab.to_owned();
            self.engine.handle(Op::Resize { tab, cols, rows }).await;
        }
    }

    /// An op from `page` as JSON text; a malformed one gets an error event for that page.
    pub async fn text_from(&self, page: PageId, text: &str) -> Option<Frame> {
        match serde_json::from_str::<Op>(text) {
            Ok(op) => self.op_from(page, op).await,
            Err(error) => {
                // serde's message can quote the input (a typed password): only where it failed.
                let message = format!(
                    "kaiport could not read an op from this page ({:?} error at column {})",
                    error.classify(),
                    error.column()
                );
                Frame::event(&Event::Error { tab: None, message })
            }
        }
    }

    /// Terminal input from `page` (a [`terminal_frame`]).
    pub async fn input_from(&self, page: PageId, frame: &[u8]) {
        let Some((tab, data)) = parse_terminal_frame(frame) else {
            return;
        };
        self.follow_typist(page, tab).await;
        let op = Op::TerminalInput {
            tab: tab.to_owned(),
            data: data.to_vec(),
        };
        self.engine.handle(op).await;
    }

    /// Closes every open tab (ending its connection, keeping a kept session on its server);
    /// returns how many there were. The engine's remembered tabs stay as they were, for the
    /// next start ([`Engine::remember_tabs`]).
    pub async fn close_all(&self) -> usize {
        self.engine.stop_remembering();
        let tabs = self.hub.open_tabs();
        for tab in &tabs {
            self.engine.handle(Op::CloseTab { tab: tab.clone() }).await;
        }
        tabs.len()
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.pump.abort();
    }
}

/// Crates that log what passes over the wire — WebSocket frames (in clear and in hex), SSH and
/// SFTP packets, HTTP messages, the desktop window's IPC — and with it typed keystrokes and
/// answered passwords, at debug or trace level. Their lines are kept at info and above,
/// whatever `KAIPORT_LOG` asks (README, "Logs"): the scrubber masks only the secrets it was
/// told of, and keystrokes at a `read -s` prompt are none of those.
pub const WIRE_LOG_TARGETS: [&str; 9] = [
    "tungstenite",
    "tokio_tungstenite",
    "axum",
    "hyper",
    "hyper_util",
    "h2",
    "russh",
    "russh_sftp",
    "tauri::ipc",
];

/// Logs go to stderr, quiet by default (`KAIPORT_LOG=debug` for details; never below info for
/// [`WIRE_LOG_TARGETS`]). Every line passes through the secret scrubber
/// (`kaiport_core::redact`), whichever crate wrote it.
pub fn init_logging() {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::filter::{FilterExt as _, LevelFilter, Targets};
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let chosen = tracing_subscriber::EnvFilter::try_from_env("KAIPORT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    // A second filter that must agree, so no directive in KAIPORT_LOG can lift the caps.
    let wire = Targets::new()
        .with_default(LevelFilter::TRACE)
        .with_targets(WIRE_LOG_TARGETS.map(|target| (target, LevelFilter::INFO)));
    let lines = tracing_subscriber::fmt::layer()
        .with_writer(|| ScrubbedLine(Vec::new()))
        .with_filter(chosen.and(wire));
    tracing_subscriber::registry().with(lines).init();
}

/// One log line, collected whole and written to stderr with every known secret masked.
struct ScrubbedLine(Vec<u8>);

impl std::io::Write for ScrubbedLine {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for ScrubbedLine {
    fn drop(&mut self) {
        let line = String::from_utf8_lossy(&self.0);
        let scrubbed = kaiport_core::redact::scrub(&line);
        // A closed stderr loses the log line, never the program.
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), scrubbed.as_bytes());
    }
}

#[cfg(test)]
mod tests;
