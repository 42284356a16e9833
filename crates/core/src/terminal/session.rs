//! [`Terminal`]: one terminal tab's shell session as Pilot and the UI share it.
//!
//! A pump task reads the shell's bytes, feeds the screen mirror (vt100 with scrollback) and the
//! OSC 133 [`MarkScanner`], keeps the raw bytes of the command being run, and hands every chunk
//! to the UI through `notify` — once per chunk, in order, with one short mutex section. The
//! command runner ([`Terminal::run_command`]) types a line into that same shell and decides when
//! it finished: by OSC 133 marks when the shell has integration, otherwise by "quiet output and a
//! prompt-looking cursor line", with bounded fallbacks so no wait is ever unbounded.
//!
//! This module never interprets what a command means (that is the policy's job), never caps the
//! output for the model (the tool layer does), and never types into the shell while a full-screen
//! program is open or the user has typed a partial line. A partial line Pilot left there itself
//! (send_input without Enter) is reported to it as its own, not as the user's typing.
//!
//! Rules that keep the end of a command honest:
//! - **Only kaiport's own marks end a command.** With [`ShellIntegrationMode::Inject`] the
//!   session has a secret that every injected mark carries ([`super::marks`]); marks without it
//!   are output — kept in the result, shown as text ([`render_output`]), never acted on. The
//!   secret is scrubbed from everything given to the model (output, screens). In
//!   [`ShellIntegrationMode::DetectOnly`] there is no secret: the result says that the end was
//!   reported by the shell's own marks, and the output runs up to the *last* `D` mark, so
//!   nothing that arrived after an earlier (possibly printed) mark is hidden.
//! - **The heuristic never ends a command the marks are tracking.** Once a tab has integration,
//!   "quiet and a prompt-looking line" ends a command only when a line editor is waiting (the
//!   shell that replaced ours — `exec`, a nested shell — turned bracketed paste on, which
//!   bash ≥ 5.1, zsh and fish do at their prompt, and which they turn off while a command runs).
//!   `printf 'downloading 45%'; sleep 4` waits for its `D` mark; a replacement shell without
//!   bracketed paste leaves the command to its time limit, with the screen in the result.

use std::collections::VecDeque;
use std::num::NonZeroU16;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use kaiport_protocol::tools::{
    CommandSoFar, CommandStatus, Detection, Key, RunCommandResult, ScreenResult, Truncation,
};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::fast_forward::{self, ScrollRegionWatch};
use super::integration::{self, ShellKind};
use super::keys::encode_key_for;
use super::marks::{Mark, MarkKind, MarkScanner};
use super::prompt::{
    command_reads_terminal, ends_like_prompt, looks_like_interpreter_prompt, looks_like_pager,
    looks_like_prompt, looks_like_question, looks_like_secret_prompt,
};
use super::render::{render_output, render_text};
use super::scrollback::ScrollbackLog;
use super::{ShellIntegrationMode, TerminalError, TerminalNotice, TerminalSettings};
use crate::shell_io::{ShellClosed, ShellInput, ShellIo, ShellOutput};

/// Marks kept (older ones are dropped; a command only looks at marks after it started).
const MAX_MARKS: usize = 256;
/// Rows of vt100 scrollback in the mirror: none, the history is kept compactly in
/// [`ScrollbackLog`] (a vt100 row costs 32 bytes per column).
const MIRROR_SCROLLBACK_ROWS: usize = 0;
/// Plain output deferred before the mirror is fed anyway (bounds the memory and the lag).
const MIRROR_PENDING_MAX: usize = 256 * 1024;
/// A pause in the output this long feeds deferred output to the mirror. Far below every wait
/// that reads the mirror (quiet periods, prompt checks); reads of the screen feed it at once.
const MIRROR_IDLE: Duration = Duration::from_millis(5);
/// Raw bytes of a command's output kept from its start, and from its end; the middle of a huge
/// output is dropped with a marker line. The model gets at most `output_limit_kb` (≤ 1 MiB, half
/// from each end) of rendered text, so 2 MiB of raw bytes at each end (escape sequences
/// included) is always enough, and what a flood costs stays bounded: these buffers, one copy for
/// the slice and the rendered text, never a per-line allocation (`yes | head
/// -c 500000000` peaked at 371 MB when 16 MiB were kept and rendered into one `String` per line).
const CAPTURE_HEAD: usize = 2 << 20;
const CAPTURE_TAIL: usize = 2 << 20;
/// After a `D` mark, how long to wait for the prompt marks before calling the command done.
const PROMPT_AFTER_D: Duration = Duration::from_millis(300);
/// Integration expected, the heuristic says "prompt", but no `D` mark: how long before the
/// heuristic decides (the shell was replaced by `exec`, a nested shell, `sudo -i`, tmux…).
const INTEGRATION_FALLBACK: Duration = Duration::from_millis(1000);
/// Quiet needed to take a freshly drawn prompt (`… $ ` with the cursor after it) as the
/// session's first prompt, and the probe's answer as complete.
const READY_QUIET: Duration = Duration::from_millis(60);
/// How long run_command waits for the shell to be back at an empty prompt before typing.
const READY_FOR_COMMAND: Duration = Duration::from_millis(2000);
/// A refused send_input line: how long to wait for the shell to redraw its empty prompt.
const ABANDON_WAIT: Duration = Duration::from_secs(3);
/// stage_input: how long the shell may take to show the keys typed at its prompt.
const CONFIRM_WAIT: Duration = Duration::from_secs(5);
const CONFIRM_TOKEN_LEN: usize = 6;
/// The key that erases the character before the cursor (DEL) in every line editor.
const BACKSPACE: u8 = 0x7f;
/// After the cursor left the prompt's line for an empty one, how long a quiet shell is still
/// taken to be on its way to the next prompt (a slow PROMPT_COMMAND after Ctrl-C) rather than
/// at an empty line. Below [`READY_FOR_COMMAND`], so run_command does not give up first.
const LINE_LEFT_QUIET: Duration = Duration::from_millis(1500);
/// stage_input: how long to wait for a prompt being drawn.
const PROMPT_DRAW_WAIT: Duration = Duration::from_secs(3);
/// send_input: settled when quiet this long; never longer than `SETTLE_MAX`.
const SETTLE_QUIET: Duration = Duration::from_millis(300);
const SETTLE_MIN: Duration = Duration::from_millis(100);
const SETTLE_MAX: Duration = Duration::from_secs(2);
/// read_screen waits at most this long.
const READ_SCREEN_MAX: Duration = Duration::from_secs(120);
/// Hidden probe / injection: how long each may take before it is abandoned and shown.
const HIDDEN_TIMEOUT: Duration = Duration::from_secs(4);
/// How long the first prompt waits for the echo of keys the user typed before it was taken.
const ECHO_WAIT: Duration = Duration::from_millis(500);
/// Re-check conditions at least this often while waiting (quiet periods are time-based).
const POLL: Duration = Duration::from_millis(25);
/// close(): how long to wait for the shell to report that it is gone.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// How a shell kept in tmux or screen on the server starts ([`Terminal::start_kept`]).
#[derive(Debug, Clone, Default)]
pub struct KeptShell {
    /// How the integration's marks get through the multiplexer.
    pub passthrough: integration::Passthrough,
    /// The secret the shell's marks carry already (an earlier connection injected them).
    pub secret: Option<String>,
    /// The shell ran before this connection: no prompt wait and no injection.
    pub attached: bool,
}

/// One terminal tab's shell. Cheap to clone (an `Arc` inside); all clones drive the same shell.
#[derive(Clone)]
pub struct Terminal {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    input: mpsc::Sender<ShellInput>,
    /// Bumped after every chunk and on close; waiters subscribe.
    changed: watch::Sender<u64>,
    /// One run_command (or injection) at a time; others queue here.
    run_lock: tokio::sync::Mutex<()>,
    settings: TerminalSettings,
    notify: Arc<dyn Fn(TerminalNotice) + Send + Sync>,
}

#[derive(Debug, Clone, Copy)]
struct MarkRecord {
    mark: Mark,
    at: Instant,
    /// Mirror cursor (row, col) right after the mark; `None` while output was hidden.
    cursor: Option<(u16, u16)>,
}

struct State {
    mirror: vt100::Parser,
    /// What the user saw, for a front end that attaches later (compact; see `scrollback`).
    history: ScrollbackLog,
    /// The last chunk fed to the mirror had no escape sequence (the parser is in its ground
    /// state), and whether a scroll region may be set: both gate `fast_forward`.
    previous_plain: bool,
    /// Plain output (no escape sequence) not fed to the mirror yet: while output floods in, the
    /// mirror is fed in big steps, so `fast_forward` skips all but the last screenful of each.
    /// Fed after a pause of [`MIRROR_IDLE`], before anything with marks or escape sequences,
    /// on resize and when the screen is read.
    pending_mirror: Vec<u8>,
    scroll_region: ScrollRegionWatch,
    scanner: MarkScanner,
    marks: VecDeque<MarkRecord>,
    /// Reused buffer for the marks of one chunk.
    chunk_marks: Vec<Mark>,
    last_output_at: Instant,
    /// Raw bytes since the current command was typed.
    capture: Option<Capture>,
    /// The last command run_command typed, once its wait ended: what read_screen's
    /// `since_command` reads. Its capture keeps growing until the command's end is seen.
    last_run: Option<LastRun>,
    /// While `Some`, output is hidden from the UI and the mirror (injection).
    hidden: Option<Vec<u8>>,
    /// While `Some`, the integration is being typed: the user's keys wait here and reach the
    /// shell after it, so they neither split the snippet nor have their output hidden with its.
    held_input: Option<Vec<u8>>,
    /// When the user's keys last reached the shell before it was ready: the first prompt is not
    /// taken while their echo is still on its way.
    user_input_before_ready: Option<Instant>,
    /// The line the user has typed since their last Enter, before the shell was ready: drawn
    /// after the first prompt, it is not part of it. `None` after keys other than text and
    /// Enter (an arrow, a backspace), whose effect on the line is not known, until an Enter.
    line_typed_before_ready: Option<String>,
    /// The integration was not typed at the first prompt because the user had begun a line
    /// there: it is typed before Pilot's first command, at an empty prompt.
    inject_later: bool,
    closed: Option<ShellClosed>,
    ready: bool,
    session_prompt: Option<String>,
    /// The last prompt carried OSC 133 marks.
    marks_live: bool,
    /// A command we typed may still be running (timed out, awaiting input, interrupted).
    busy: bool,
    /// The last run_command stopped at a prompt for a secret, and no read_screen has seen
    /// that prompt go yet: the next read_screen waits for it to go (the user typed it).
    secret_asked: bool,
    /// send_input left keys at the shell prompt without running them. `Some(false)`: what the
    /// line holds was typed by Pilot alone; `Some(true)`: the user typed into it too (or it held
    /// their text before). Cleared once the prompt is empty again. Tells Pilot's own unsubmitted
    /// text from the user's, which it must never type over.
    staged_by_pilot: Option<bool>,
    /// A line feed came after the last `B` mark: the line typed at that prompt was accepted.
    /// Shells without a `C` mark (POSIX sh) only tell a running command apart this way.
    line_fed_since_prompt: bool,
    shell: Option<ShellKind>,
    mode: ShellIntegrationMode,
    /// The session secret injected marks carry ([`ShellIntegrationMode::Inject`] only).
    secret: Option<String>,
    /// How the snippet's marks get through a multiplexer the shell runs in.
    passthrough: integration::Passthrough,
    /// The prompt's text on its last row (up to where the command line starts), at the last
    /// `B` mark: finds the command line again after the screen scrolled.
    prompt_text: Option<(String, u16)>,
    /// The shell's current folder, from the authentic OSC 7 its integration prints at each
    /// prompt ([`super::marks`]); None until one came.
    cwd: Option<String>,
    /// A changed `cwd` not yet told to the UI.
    cwd_changed: bool,
}

/// The raw bytes of one command, from the moment it was typed: the head and the tail are kept,
/// the middle of a huge output is counted and dropped.
struct Capture {
    start: u64,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
    /// Line feeds among the dropped bytes, so the result can say how many lines were left out.
    dropped_lines: u64,
    /// A line feed arrived (the shell echoed the command and Enter).
    saw_newline: bool,
}

impl Capture {
    fn new(start: u64) -> Self {
        Capture {
            start,
            head: Vec::new(),
            tail: VecDeque::new(),
            dropped: 0,
            dropped_lines: 0,
            saw_newline: false,
        }
    }

    fn end(&self) -> u64 {
        self.start + self.head.len() as u64 + self.dropped + self.tail.len() as u64
    }

    fn push(&mut self, mut chunk: &[u8]) {
        if !self.saw_newline && chunk.contains(&b'\n') {
            self.saw_newline = true;
        }
        if self.head.len() < CAPTURE_HEAD {
            let take = chunk.len().min(CAPTURE_HEAD - self.head.len());
            self.head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        if chunk.is_empty() {
            return;
        }
        let newlines = |bytes: &[u8]| memchr::memchr_iter(b'\n', bytes).count() as u64;
        if chunk.len() >= CAPTURE_TAIL {
            let (older, newer) = self.tail.as_slices();
            let kept_from = chunk.len() - CAPTURE_TAIL;
            self.dropped_lines += newlines(older) + newlines(newer) + newlines(&chunk[..kept_from]);
            self.dropped += (self.tail.len() + kept_from) as u64;
            self.tail.clear();
            self.tail.extend(&chunk[kept_from..]);
            return;
        }
        let overflow = (self.tail.len() + chunk.len()).saturating_sub(CAPTURE_TAIL);
        if overflow > 0 {
            self.dropped_lines +=
                self.tail.range(..overflow).filter(|&&b| b == b'\n').count() as u64;
            self.tail.drain(..overflow);
            self.dropped += overflow as u64;
        }
        self.tail.extend(chunk);
    }

    /// What was dropped between two stream offsets, if the dropped middle lies between them.
    fn gap_within(&self, from: u64, to: u64) -> Option<Truncation> {
        let head_end = self.start + self.head.len() as u64;
        let tail_start = head_end + self.dropped;
        // A line the cut went through shows as two pieces around the gap: one line, not two.
        let split_line = u64::from(self.head.last().is_some_and(|&byte| byte != b'\n'));
        (self.dropped > 0 && from.max(self.start) < tail_start && to.min(self.end()) > head_end)
            .then_some(Truncation {
                omitted_bytes: self.dropped,
                omitted_lines: self.dropped_lines.saturating_sub(split_line),
            })
    }

    /// Bytes between two stream offsets; a gap (dropped middle) becomes the marker line
    /// [`crate::output::GAP_NOTE`], its size told by [`Capture::gap_within`].
    fn slice(&self, from: u64, to: u64) -> Vec<u8> {
        let from = from.max(self.start);
        let to = to.min(self.end());
        let mut out = Vec::new();
        if from >= to {
            return out;
        }
        let head_end = self.start + self.head.len() as u64;
        if from < head_end {
            let a = (from - self.start) as usize;
            let b = (to.min(head_end) - self.start) as usize;
            out.extend_from_slice(&self.head[a..b]);
        }
        let tail_start = head_end + self.dropped;
        if self.gap_within(from, to).is_some() {
            out.extend_from_slice(format!("\r\n{}\r\n", crate::output::GAP_NOTE).as_bytes());
        }
        if to > tail_start {
            let a = (from.max(tail_start) - tail_start) as usize;
            let b = (to - tail_start) as usize;
            out.extend(self.tail.range(a..b));
        }
        out
    }
}

/// The last command run_command typed, after run_command stopped waiting for it.
struct LastRun {
    command: String,
    capture: Capture,
    /// Its output starts here in the stream.
    from: u64,
    /// Where its output ended (its `D` mark, or where run_command saw it complete); None while
    /// no end was seen.
    to: Option<u64>,
    exit_code: Option<i32>,
    drop_echo: bool,
    drop_prompt: bool,
}

impl State {
    fn ingest(&mut self, chunk: &[u8]) -> bool {
        let base = self.scanner.offset();
        let mut marks = std::mem::take(&mut self.chunk_marks);
        marks.clear();
        self.scanner.scan(chunk, &mut marks);
        if let Some(cwd) = self.scanner.take_cwd()
            && self.mode == ShellIntegrationMode::Inject
            && self.cwd.as_ref() != Some(&cwd)
        {
            self.cwd = Some(cwd);
            self.cwd_changed = true;
        }
        let now = Instant::now();
        self.last_output_at = now;
        if let Some(capture) = &mut self.capture {
            capture.push(chunk);
        } else if let Some(run) = self.last_run.as_mut().filter(|run| run.to.is_none()) {
            run.capture.push(chunk);
        }
        let forward = if let Some(hidden) = &mut self.hidden {
            hidden.extend_from_slice(chunk);
            for mark in &marks {
                self.record_mark(*mark, now, None);
            }
            false
        } else if marks.is_empty() {
            self.feed_mirror(chunk);
            self.history.push(chunk);
            true
        } else {
            // Feed the mirror up to each mark so its cursor position is known.
            self.flush_mirror();
            let mut done = 0;
            for mark in &marks {
                let end = usize::try_from(mark.end - base)
                    .unwrap_or(chunk.len())
                    .min(chunk.len());
                self.mirror.process(&chunk[done..end]);
                done = end;
                let cursor = self.mirror.screen().cursor_position();
                self.record_mark(*mark, now, Some(cursor));
            }
            self.mirror.process(&chunk[done..]);
            self.scroll_region.scan(chunk);
            self.previous_plain = false;
            self.history.push(chunk);
            true
        };
        let after_prompt = marks
            .iter()
            .rev()
            .find(|m| m.kind == MarkKind::CommandStart)
            .map_or(0, |m| {
                usize::try_from(m.end - base)
                    .unwrap_or(chunk.len())
                    .min(chunk.len())
            });
        if chunk[after_prompt..].contains(&b'\n') {
            self.line_fed_since_prompt = true;
        }
        self.chunk_marks = marks;
        forward
    }

    /// Feeds the mirror, deferring plain output (see `pending_mirror`) and skipping what provably
    /// scrolls away unseen (see `fast_forward`).
    fn feed_mirror(&mut self, chunk: &[u8]) {
        let plain = !chunk.contains(&0x1b);
        if plain && self.shortcut_allowed() {
            self.pending_mirror.extend_from_slice(chunk);
            if self.pending_mirror.len() >= MIRROR_PENDING_MAX {
                self.flush_mirror();
            }
        } else {
            self.flush_mirror();
            self.feed_now(chunk);
        }
        self.scroll_region.scan(chunk);
        self.previous_plain = plain;
    }

    /// The parser is in its ground state and nothing makes skipping lines inexact.
    fn shortcut_allowed(&self) -> bool {
        self.previous_plain
            && !self.scroll_region.may_be_set()
            && !self.mirror.screen().alternate_screen()
    }

    fn feed_now(&mut self, bytes: &[u8]) {
        let rows = usize::from(self.mirror.screen().size().0.get());
        match fast_forward::skippable_prefix(bytes, rows).filter(|_| self.shortcut_allowed()) {
            Some(start) => {
                self.mirror.process(&fast_forward::blanking(rows));
                self.mirror.process(&bytes[start..]);
            }
            None => self.mirror.process(bytes),
        }
    }

    /// Feeds the deferred plain output to the mirror. Its first byte was deferred in a state
    /// where the shortcut was allowed, and plain bytes do not change that.
    fn flush_mirror(&mut self) {
        if self.pending_mirror.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending_mirror);
        self.feed_now(&pending);
        self.pending_mirror = pending;
        self.pending_mirror.clear();
    }

    fn record_mark(&mut self, mark: Mark, at: Instant, cursor: Option<(u16, u16)>) {
        match self.mode {
            ShellIntegrationMode::Off => return,
            // A mark without the session secret was printed by output, not by our integration.
            ShellIntegrationMode::Inject if !mark.authentic => return,
            ShellIntegrationMode::Inject | ShellIntegrationMode::DetectOnly => {}
        }
        if matches!(mark.kind, MarkKind::PromptStart | MarkKind::CommandStart) {
            self.marks_live = true;
        }
        // A command run_command stopped waiting for has ended since.
        if let MarkKind::CommandFinished { exit_code } = mark.kind
            && let Some(run) = self.last_run.as_mut()
            && run.to.is_none()
            && mark.start >= run.from
        {
            run.to = Some(mark.start);
            run.exit_code = exit_code;
        }
        if mark.kind == MarkKind::CommandStart {
            self.line_fed_since_prompt = false;
            self.prompt_text = cursor.map(|(_, col)| (self.cursor_line().0, col));
        }
        if self.marks.len() == MAX_MARKS {
            self.marks.pop_front();
        }
        self.marks.push_back(MarkRecord { mark, at, cursor });
    }

    fn offset(&self) -> u64 {
        self.scanner.offset()
    }

    fn quiet_for(&self, now: Instant) -> Duration {
        now.saturating_duration_since(self.last_output_at)
    }

    fn integration_active(&self) -> bool {
        self.mode != ShellIntegrationMode::Off && self.marks_live
    }

    /// The cursor's place counted in cells from the screen's top left (a cursor waiting to
    /// wrap past the last column counts as the next row's first cell).
    fn cursor_index(&self) -> usize {
        let screen = self.mirror.screen();
        let (row, col) = screen.cursor_position();
        let (_, cols) = screen.size();
        usize::from(row) * usize::from(cols.get()) + usize::from(col)
    }

    /// The cursor's index ([`State::cursor_index`]) if the cells just before it hold `text`
    /// (single-width characters).
    fn cursor_after(&self, text: &[u8]) -> Option<usize> {
        let screen = self.mirror.screen();
        let cols = usize::from(screen.size().1.get());
        let end = self.cursor_index();
        let start = end.checked_sub(text.len())?;
        let matches = text.iter().enumerate().all(|(i, &byte)| {
            let at = start + i;
            let (Ok(row), Ok(col)) = (u16::try_from(at / cols), u16::try_from(at % cols)) else {
                return false;
            };
            screen
                .cell(row, col)
                .is_some_and(|cell| cell.contents().as_bytes() == [byte])
        });
        matches.then_some(end)
    }

    /// The cursor row's text before and after the cursor.
    fn cursor_line(&self) -> (String, String) {
        let screen = self.mirror.screen();
        let (row, col) = screen.cursor_position();
        let (_, cols) = screen.size();
        let before = screen
            .rows(0, col)
            .nth(usize::from(row))
            .unwrap_or_default();
        let after = screen
            .rows(col, cols.get().saturating_sub(col))
            .nth(usize::from(row))
            .unwrap_or_default();
        (before, after)
    }

    /// The command line typed at the shell prompt: `None` when the terminal is not at a shell
    /// prompt, `Some(Err(why))` when it is but the line cannot be read off the screen.
    fn prompt_line(&self, now: Instant, quiet_period: Duration) -> Option<Result<String, String>> {
        match self.prompt_state(now, quiet_period) {
            PromptState::FullScreen | PromptState::NotAtPrompt | PromptState::Drawing => {
                return None;
            }
            PromptState::Empty | PromptState::Typed(_) => {}
        }
        let screen = self.mirror.screen();
        let (rows, cols) = screen.size();
        let (cursor_row, cursor_col) = screen.cursor_position();
        let row_text = |row: u16, width: u16| {
            screen
                .rows(0, width)
                .nth(usize::from(row))
                .unwrap_or_default()
        };
        // Where the line starts: after the prompt, found by its text on the screen (the mark's
        // row moves up when the screen scrolls).
        let marked = self.integration_active()
            && self
                .last_mark()
                .is_some_and(|m| m.mark.kind == MarkKind::CommandStart);
        let (prompt, prompt_cols) = match (&self.prompt_text, self.session_prompt.as_deref()) {
            (Some((text, col)), _) if marked => (text.clone(), *col),
            (_, Some(prompt)) if !marked && !prompt.trim().is_empty() => {
                let prompt = prompt.trim_end().to_owned();
                let cols = u16::try_from(prompt.chars().count()).unwrap_or(u16::MAX);
                (prompt, cols)
            }
            _ => return Some(Err("the prompt is not known".to_owned())),
        };
        let start_row = (0..=cursor_row)
            .rev()
            .find(|&row| row_text(row, prompt_cols).trim_end() == prompt.trim_end());
        let Some(start_row) = start_row else {
            return Some(Err(
                "the prompt is no longer on the screen above the cursor".to_owned(),
            ));
        };
        let last_row = (cursor_row..rows.get())
            .rev()
            .find(|&row| !row_text(row, cols.get()).trim().is_empty())
            .unwrap_or(cursor_row);
        let line = screen.contents_between(start_row, prompt_cols, last_row, cols.get());
        let after_cursor = screen.contents_between(cursor_row, cursor_col, last_row, cols.get());
        // zsh and fish draw things after the cursor that Enter does not run (a right prompt,
        // an autosuggestion): there, text after the cursor makes the line unknown.
        if matches!(self.shell, Some(ShellKind::Zsh | ShellKind::Fish))
            && !after_cursor.trim().is_empty()
        {
            return Some(Err(format!(
                "{} shows text after the cursor ({:?}) that may be a suggestion or a right \
                 prompt rather than part of the line",
                self.shell.map_or("the shell", ShellKind::name),
                after_cursor.trim()
            )));
        }
        Some(Ok(line.trim().to_owned()))
    }

    fn screen_result(&self) -> ScreenResult {
        let mut result = screen_result(self.mirror.screen());
        result.screen = self.scrub(result.screen);
        result
    }

    /// `text` without the session secret (for anything the model is given), also where a
    /// screen row ends inside it.
    fn scrub(&self, text: String) -> String {
        const PLACEHOLDER: &str = "[kaiport secret]";
        let Some(secret) = &self.secret else {
            return text;
        };
        let mut text = if text.contains(secret.as_str()) {
            text.replace(secret.as_str(), PLACEHOLDER)
        } else {
            text
        };
        if text.contains('\n') {
            for split in 1..secret.len() {
                let (head, tail) = secret.split_at(split);
                let broken = format!("{head}\n{tail}");
                if text.contains(&broken) {
                    text = text.replace(&broken, &format!("{PLACEHOLDER}\n"));
                }
            }
        }
        text
    }

    /// A new secret nobody has seen: marks typed with the old one no longer count.
    fn rotate_secret(&mut self) {
        if self.secret.is_some() {
            let secret = integration::new_secret();
            self.scanner.set_secret(&secret);
            self.secret = Some(secret);
        }
    }

    fn last_mark(&self) -> Option<&MarkRecord> {
        self.marks.back()
    }

    /// Where the shell is, as far as typing a command is concerned.
    fn prompt_state(&self, now: Instant, quiet_period: Duration) -> PromptState {
        if self.mirror.screen().alternate_screen() {
            return PromptState::FullScreen;
        }
        let (before, after) = self.cursor_line();
        if self.integration_active()
            && let Some(last) = self.last_mark()
        {
            match last.mark.kind {
                MarkKind::CommandStart => {
                    if last.mark.end == self.offset() {
                        return PromptState::Empty;
                    }
                    // Without a `C` mark, the accepted line is all that says a command runs.
                    if self.shell == Some(ShellKind::Sh) && self.line_fed_since_prompt {
                        return PromptState::NotAtPrompt;
                    }
                    let cursor = self.mirror.screen().cursor_position();
                    if let Some((row, col)) = last.cursor {
                        let on_prompt_line = cursor.0 == row && cursor.1 >= col;
                        if !on_prompt_line
                            && before.trim().is_empty()
                            && after.trim().is_empty()
                            && self.quiet_for(now) < LINE_LEFT_QUIET.max(quiet_period)
                        {
                            // The cursor left the prompt's line for an empty one: the line was
                            // run or interrupted (Ctrl-C), and the shell is about to print the
                            // command's marks or a new prompt. Until then the line is not empty.
                            return PromptState::Drawing;
                        }
                        let typed = if on_prompt_line {
                            let (_, cols) = self.mirror.screen().size();
                            self.mirror
                                .screen()
                                .rows(col, cols.get().saturating_sub(col))
                                .nth(usize::from(row))
                                .unwrap_or_default()
                        } else {
                            format!("{before}{after}")
                        };
                        let typed = typed.trim().to_owned();
                        return if typed.is_empty() {
                            PromptState::Empty
                        } else {
                            PromptState::Typed(typed)
                        };
                    }
                    // No cursor known (marks arrived while hidden): use the screen heuristic.
                }
                MarkKind::PromptStart | MarkKind::CommandFinished { .. } => {
                    // The prompt is being drawn; wait for B (or the heuristic) a moment.
                    if now.saturating_duration_since(last.at) < PROMPT_AFTER_D {
                        return PromptState::Drawing;
                    }
                }
                MarkKind::OutputStart => return PromptState::NotAtPrompt,
            }
        }
        if self.busy && self.quiet_for(now) < quiet_period {
            return PromptState::NotAtPrompt;
        }
        if !after.trim().is_empty() {
            return PromptState::Typed(after.trim().to_owned());
        }
        let session = self.session_prompt.as_deref();
        if looks_like_prompt(&before, session) && !looks_like_interpreter_prompt(&before, session) {
            return PromptState::Empty;
        }
        if let Some(prompt) = self.session_prompt.as_deref()
            && !prompt.is_empty()
            && let Some(rest) = before.strip_prefix(prompt)
        {
            return PromptState::Typed(rest.trim().to_owned());
        }
        PromptState::NotAtPrompt
    }
}

/// `line` after the user typed `bytes`: text joins it and Enter starts a new, empty one. Any
/// other key (or bytes that are not whole UTF-8) makes it `None` until the next Enter: what an
/// arrow or a backspace did to the line is not known.
fn typed_line(mut line: Option<String>, bytes: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    for c in text.chars() {
        match c {
            '\r' | '\n' => line = Some(String::new()),
            c if c.is_control() => line = None,
            c => {
                if let Some(line) = &mut line {
                    line.push(c);
                }
            }
        }
    }
    line
}

/// Bytes that make a line editor run the line: CR (Enter, Ctrl-M), LF (Ctrl-J), and Ctrl-O
/// (bash's operate-and-get-next, zsh's accept-line-and-down-history).
const SUBMIT_BYTES: &[u8] = b"\r\n\x0f";

/// Why keys at a prompt may run something that cannot be read first: Ctrl-X (prefix of bash's
/// edit-and-execute-command and many other bindings), Ctrl-R and Ctrl-S (history search), and
/// Esc not starting a cursor-key sequence
/// (Meta bindings, vi command mode: `v` opens an editor whose buffer then runs). `None`: only
/// typing, line editing and cursor keys.
fn editor_keys(bytes: &[u8]) -> Option<String> {
    if bytes.contains(&0x18) {
        return Some(
            "the input has Ctrl-X, which starts key bindings that can open an editor and run \
             its text"
                .to_owned(),
        );
    }
    if bytes.iter().any(|b| matches!(b, 0x12 | 0x13)) {
        return Some(
            "the input has Ctrl-R or Ctrl-S (history search), after which Enter runs the line \
             found, which the screen shows inside the search, not as a line"
                .to_owned(),
        );
    }
    let bare_escape = bytes
        .iter()
        .enumerate()
        .any(|(at, &b)| b == 0x1b && !matches!(bytes.get(at + 1), Some(b'[' | b'O')));
    bare_escape.then(|| {
        "the input has Esc (a Meta key or vi command mode), which can open an editor and run \
         its text"
            .to_owned()
    })
}

/// What send_input's keys do at the terminal's current state (from [`Terminal::stage_input`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptInput {
    /// Not at a shell prompt: a program reads the input.
    NotAtPrompt,
    /// At a shell prompt, but the keys run nothing (no Enter).
    NothingRuns,
    /// At a shell prompt: Enter will run `line` (read off the screen after the keys before it
    /// were typed).
    Runs { line: String },
    /// At a shell prompt, and what the keys would run cannot be read first: why.
    Unknown { reason: String },
}

/// send_input's keys made ready for the decision: what they do, and what is left to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedInput {
    pub found: PromptInput,
    /// Some of the keys were typed already (the line before Enter).
    typed: bool,
    remaining: Vec<u8>,
}

impl StagedInput {
    fn new(found: PromptInput, remaining: Vec<u8>) -> StagedInput {
        StagedInput {
            found,
            typed: false,
            remaining,
        }
    }
}

enum PromptState {
    Empty,
    Typed(String),
    FullScreen,
    NotAtPrompt,
    /// Between a line and the next prompt (a prompt being drawn, a line just run or
    /// interrupted): keys sent now are read by whatever comes next, so they wait.
    Drawing,
}

fn screen_result(screen: &vt100::Screen) -> ScreenResult {
    let (rows, cols) = screen.size();
    let mut lines: Vec<String> = screen
        .rows(0, cols.get())
        .map(|row| row.trim_end().to_owned())
        .collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    let (cursor_row, cursor_col) = screen.cursor_position();
    ScreenResult {
        screen: lines.join("\n"),
        cursor_row,
        cursor_col,
        rows: rows.get(),
        cols: cols.get(),
        alternate_screen: screen.alternate_screen(),
        command: None,
    }
}

fn size(cols: u16, rows: u16) -> Result<(NonZeroU16, NonZeroU16), TerminalError> {
    match (NonZeroU16::new(cols), NonZeroU16::new(rows)) {
        (Some(cols), Some(rows)) => Ok((cols, rows)),
        _ => Err(TerminalError::InvalidSize { cols, rows }),
    }
}

/// What the runner decided about the command being waited for.
struct Verdict {
    status: CommandStatus,
    detection: Detection,
    exit_code: Option<i32>,
    note: Option<String>,
    /// Output range in the stream: from, and to (`None` = up to the end of the capture).
    from: u64,
    to: Option<u64>,
    /// The first captured line is the echoed command (no `C` mark to start from).
    drop_echo: bool,
    /// The last line is the prompt.
    drop_prompt: bool,
    marks_lost: bool,
}

struct RunContext {
    start: u64,
    integration: bool,
    reads_terminal: bool,
    fallback_since: Option<Instant>,
    quiet_period: Duration,
}

impl RunContext {
    /// The command waits for a person or a key (`AwaitingInput`, `AwaitingSecret`): `note` says
    /// what to do; the output runs from `from` to now, the echoed line dropped when no mark
    /// showed where output starts (`drop_echo`).
    fn waiting(&self, status: CommandStatus, note: &str, from: u64, drop_echo: bool) -> Verdict {
        Verdict {
            status,
            detection: if self.integration {
                Detection::ShellIntegration
            } else {
                Detection::Heuristic
            },
            exit_code: None,
            note: Some(note.to_owned()),
            from,
            to: None,
            drop_echo,
            drop_prompt: false,
            marks_lost: false,
        }
    }

    /// One look at the state: `Some` when the command finished or waits for input.
    fn evaluate(&mut self, state: &State, now: Instant) -> Option<Verdict> {
        let marks: Vec<&MarkRecord> = state
            .marks
            .iter()
            .filter(|m| m.mark.start >= self.start)
            .collect();
        let output_start = marks.iter().find(|m| m.mark.kind == MarkKind::OutputStart);
        let from = output_start.map_or(self.start, |m| m.mark.end);
        let is_finish = |m: &&&MarkRecord| {
            matches!(m.mark.kind, MarkKind::CommandFinished { .. }) && m.mark.start >= from
        };
        let finished = marks.iter().find(is_finish);
        if let Some(done) = finished {
            // Without a secret any of these marks may have been printed by the output: the
            // output then runs to the last `D`, so nothing that arrived after one is hidden.
            let last = marks.iter().rev().find(is_finish).unwrap_or(done);
            let done = if state.mode == ShellIntegrationMode::DetectOnly {
                last
            } else {
                done
            };
            let to = done.mark.start;
            let prompt_back = marks.iter().any(|m| {
                m.mark.start > done.mark.start
                    && matches!(m.mark.kind, MarkKind::CommandStart | MarkKind::PromptStart)
            });
            if prompt_back || now.saturating_duration_since(done.at) >= PROMPT_AFTER_D {
                let exit_code = match done.mark.kind {
                    MarkKind::CommandFinished { exit_code } => exit_code,
                    _ => None,
                };
                return Some(Verdict {
                    status: CommandStatus::Completed,
                    detection: Detection::ShellIntegration,
                    exit_code,
                    note: None,
                    from,
                    to: Some(to),
                    drop_echo: output_start.is_none(),
                    drop_prompt: false,
                    marks_lost: false,
                });
            }
            return None;
        }

        let echoed = state.capture.as_ref().is_some_and(|c| c.saw_newline);
        let quiet = state.quiet_for(now) >= self.quiet_period;
        if !echoed || !quiet {
            self.fallback_since = None;
            return None;
        }
        if state.mirror.screen().alternate_screen() {
            // A full-screen program (less, vim, top) is waiting for keys.
            return Some(self.waiting(
                CommandStatus::AwaitingInput,
                "a full-screen program is open (alternate screen): read it with read_screen, \
                 control or quit it with send_input (e.g. key \"esc\", text \"q\" or \":q\" \
                 then key \"enter\")",
                from,
                output_start.is_none(),
            ));
        }
        let (before, _) = state.cursor_line();
        if looks_like_pager(&before) {
            return Some(self.waiting(
                CommandStatus::AwaitingInput,
                "a pager (less, more) waits for a key: send_input text \"q\" to leave it; \
                 next time add --no-pager or `| cat` to the command",
                from,
                output_start.is_none(),
            ));
        }
        if looks_like_interpreter_prompt(&before, state.session_prompt.as_deref()) {
            // Not the shell's prompt come back: the command started a REPL (sqlite3, python3),
            // whose line editor looks like a shell's: it is no prompt to run commands at.
            return Some(self.waiting(
                CommandStatus::AwaitingInput,
                "an interpreter (REPL) is open and waits at its prompt: what is typed goes to \
                 it, not to the shell, and run_command is refused until you leave it \
                 (send_input `exit()`, `.quit`, `\\q` or `exit` then key \"enter\", or key \
                 \"ctrl-d\"; a bare `>` may also be the shell asking for the rest of an \
                 unfinished line: key \"ctrl-c\"); next time prefer a one-shot form \
                 (`sqlite3 DB 'SQL'`, `python3 -c`, `mysql -e`, `psql -c`)",
                from,
                output_start.is_none(),
            ));
        }
        let at_prompt = looks_like_prompt(&before, state.session_prompt.as_deref());
        // With integration, the marks track this command until a line editor waits again
        // (module docs): a prompt-looking line of output is not the end.
        let heuristic_may_end = !self.integration || state.mirror.screen().bracketed_paste();
        if at_prompt && heuristic_may_end {
            let decide = if self.integration {
                let since = *self.fallback_since.get_or_insert(now);
                now.saturating_duration_since(since) >= INTEGRATION_FALLBACK
            } else {
                true
            };
            if decide {
                return Some(Verdict {
                    status: CommandStatus::Completed,
                    detection: Detection::Heuristic,
                    exit_code: None,
                    note: self.integration.then(|| {
                        "shell integration marks stopped (the shell was probably replaced, e.g. \
                         by exec, a nested shell, sudo -i or tmux); the end was detected by the \
                         prompt heuristic, so there is no exit code"
                            .to_owned()
                    }),
                    from,
                    to: None,
                    drop_echo: output_start.is_none(),
                    drop_prompt: true,
                    marks_lost: self.integration,
                });
            }
            return None;
        }
        self.fallback_since = None;
        let line_is_blank = before.trim().is_empty();
        if looks_like_secret_prompt(&before) {
            return Some(self.waiting(
                CommandStatus::AwaitingSecret,
                "the command asks for a password, passphrase or PIN: only the user types it. \
                 Tell the user to type it in the terminal, then wait with read_screen \
                 (wait_seconds up to 120: it returns as soon as the prompt is gone). Never \
                 send_input a secret or ask for one with ask_user.",
                from,
                output_start.is_none(),
            ));
        }
        if looks_like_question(&before) || (self.reads_terminal && line_is_blank) {
            return Some(self.waiting(
                CommandStatus::AwaitingInput,
                "the command waits for input: answer with send_input (text, then key \
                 \"enter\"), or stop it with key \"ctrl-c\"",
                from,
                output_start.is_none(),
            ));
        }
        None
    }
}

/// Text of the output between two stream offsets, cleaned for the model: the echoed command
/// line and the prompt line dropped when asked, trailing blank lines removed. Works on the one
/// rendered `String` (a flood of short lines must not become millions of allocations).
fn extract_output(
    bytes: &[u8],
    drop_echo: bool,
    drop_prompt: bool,
    secret: Option<&str>,
) -> String {
    // Only with a secret can kaiport tell marks printed by output from the shell's own: then
    // they are shown. Without one (detect-only, off) marks are the shell's and dropped.
    let mut text = match secret {
        Some(_) => render_output(bytes, secret),
        None => render_text(bytes),
    };
    if drop_prompt {
        match text.rfind('\n') {
            Some(newline) => text.truncate(newline),
            None => text.clear(),
        }
    }
    if drop_echo {
        match text.find('\n') {
            Some(newline) => {
                text.drain(..=newline);
            }
            None => text.clear(),
        }
    }
    loop {
        let last_start = text.rfind('\n').map_or(0, |newline| newline + 1);
        if !text[last_start..].trim().is_empty() {
            break;
        }
        if last_start == 0 {
            text.clear();
            break;
        }
        text.truncate(last_start - 1);
    }
    text
}

impl Terminal {
    /// Starts the pump task for `io` (call inside a tokio runtime). `notify` receives every
    /// output chunk for the UI, in order, then `Closed` once.
    pub fn start(
        io: ShellIo,
        cols: u16,
        rows: u16,
        settings: TerminalSettings,
        notify: Arc<dyn Fn(TerminalNotice) + Send + Sync>,
    ) -> Terminal {
        Terminal::start_kept(io, cols, rows, settings, notify, KeptShell::default())
    }

    /// [`Terminal::start`] for a shell kept in a multiplexer on the server (see [`KeptShell`]).
    pub fn start_kept(
        io: ShellIo,
        cols: u16,
        rows: u16,
        settings: TerminalSettings,
        notify: Arc<dyn Fn(TerminalNotice) + Send + Sync>,
        kept: KeptShell,
    ) -> Terminal {
        let cols = NonZeroU16::new(cols).unwrap_or(vt100::Parser::DEFAULT_COLS);
        let rows = NonZeroU16::new(rows).unwrap_or(vt100::Parser::DEFAULT_ROWS);
        let secret = (settings.shell_integration == ShellIntegrationMode::Inject)
            .then(|| kept.secret.unwrap_or_else(integration::new_secret));
        let state = State {
            // The mirror keeps the visible screen only; history lives in the compact log.
            mirror: vt100::Parser::new(rows, cols, MIRROR_SCROLLBACK_ROWS),
            history: ScrollbackLog::new(settings.scrollback_lines),
            previous_plain: false,
            pending_mirror: Vec::new(),
            scroll_region: ScrollRegionWatch::default(),
            scanner: match &secret {
                Some(secret) => MarkScanner::with_secret(secret),
                None => MarkScanner::new(),
            },
            marks: VecDeque::new(),
            chunk_marks: Vec::new(),
            last_output_at: Instant::now(),
            capture: None,
            last_run: None,
            hidden: None,
            held_input: None,
            user_input_before_ready: None,
            line_typed_before_ready: Some(String::new()),
            inject_later: false,
            closed: None,
            // An attached shell was made ready (and given its integration) by an earlier
            // connection; it may be running a command now, with no prompt to wait for.
            ready: kept.attached,
            session_prompt: None,
            marks_live: false,
            busy: false,
            secret_asked: false,
            staged_by_pilot: None,
            line_fed_since_prompt: false,
            shell: None,
            mode: settings.shell_integration,
            secret,
            passthrough: kept.passthrough,
            prompt_text: None,
            cwd: None,
            cwd_changed: false,
        };
        let (changed, _) = watch::channel(0);
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            input: io.input,
            changed,
            run_lock: tokio::sync::Mutex::new(()),
            settings,
            notify,
        });
        tokio::spawn(pump(Arc::clone(&shared), io.output));
        Terminal { shared }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.lock()
    }

    /// Waits for the first prompt (OSC 133 marks, or quiet output with a prompt-looking cursor
    /// line). With [`ShellIntegrationMode::Inject`] it then detects the shell and injects its
    /// integration snippet, hidden from the user; a failed injection is logged and the terminal
    /// keeps working with the heuristic. Calling it again returns at once.
    pub async fn wait_ready(&self, timeout: Duration) -> Result<(), TerminalError> {
        let _run = self.shared.run_lock.lock().await;
        if self.lock().ready {
            return Ok(());
        }
        let deadline = Instant::now() + timeout;
        let quiet_period = self.shared.settings.quiet_period;
        let mut changed = self.shared.changed.subscribe();
        let inject;
        loop {
            let now = Instant::now();
            {
                let mut state = self.lock();
                if let Some(closed) = &state.closed {
                    return Err(TerminalError::from_closed(closed));
                }
                let quiet = state.quiet_for(now);
                state.flush_mirror();
                let (before, _) = state.cursor_line();
                let marked_prompt = state.integration_active()
                    && state
                        .last_mark()
                        .is_some_and(|m| m.mark.kind == MarkKind::CommandStart)
                    && quiet >= Duration::from_millis(50);
                // A line ending in a prompt character with the cursor one blank after it is
                // what shells draw: a short pause is enough (the connection's start should not
                // wait out the whole quiet period).
                let (_, cursor_col) = state.mirror.screen().cursor_position();
                let text = before.trim_end();
                let one_blank_after = text.chars().count() + 1 == usize::from(cursor_col);
                let drawn_prompt = ends_like_prompt(text)
                    && one_blank_after
                    && state.cursor_line().1.trim().is_empty();
                let give_up = now >= deadline;
                // Keys the user sent whose echo has not come back yet: the line is about to
                // change, so it is not the prompt yet.
                let typed_at = state.user_input_before_ready;
                let echo_pending = typed_at.is_some_and(|at| {
                    at > state.last_output_at && now.saturating_duration_since(at) < ECHO_WAIT
                });
                // A line the user began at the prompt, echoed: the prompt is what precedes it.
                let before_typed = match state.line_typed_before_ready.as_deref() {
                    Some(line) if !line.trim().is_empty() && !echo_pending => before
                        .trim_end()
                        .strip_suffix(line.trim_end())
                        .filter(|prompt| looks_like_prompt(prompt, None))
                        .map(str::to_owned),
                    _ => None,
                };
                let typed_prompt = before_typed.is_some() && quiet >= READY_QUIET;
                let heuristic = looks_like_prompt(&before, None)
                    && (quiet >= quiet_period || (drawn_prompt && quiet >= READY_QUIET));
                if (!echo_pending || give_up)
                    && (marked_prompt
                        || typed_prompt
                        || heuristic
                        || (give_up && quiet >= quiet_period && !before.trim().is_empty()))
                {
                    if !marked_prompt && !typed_prompt && !heuristic {
                        tracing::warn!(prompt = %before, "no prompt-looking line; taking the cursor line as the prompt");
                    }
                    let prompt = before_typed.as_deref().unwrap_or(&before);
                    // After keys whose effect on the line is not known, the cursor line may hold
                    // the user's text: remembered as the prompt, it would make their line look
                    // empty (and Pilot type after it).
                    let unknown_line =
                        typed_at.is_some() && state.line_typed_before_ready.is_none();
                    state.session_prompt =
                        (marked_prompt || !unknown_line).then(|| prompt.trim_end().to_owned());
                    // Typed after a line the user may have begun, the probe would join it: with
                    // keys typed before and no empty prompt for certain, the heuristic serves.
                    let line_clear = typed_at.is_none() || marked_prompt || drawn_prompt;
                    let wanted =
                        state.mode == ShellIntegrationMode::Inject && !state.integration_active();
                    inject = wanted && line_clear;
                    // In a multiplexer the snippet ends by clearing its screen and history (they
                    // would keep the secret): later, that would wipe what the user did there.
                    state.inject_later = wanted
                        && !line_clear
                        && state.passthrough == integration::Passthrough::None;
                    if inject {
                        // Taken in the same lock as the prompt: no key slips in between.
                        state.held_input = Some(Vec::new());
                    }
                    break;
                }
                if give_up {
                    return Err(TerminalError::NotReady { waited: timeout });
                }
            }
            let _ = tokio::time::timeout(POLL, changed.changed()).await;
        }
        if inject {
            self.inject_holding_input().await;
        }
        self.lock().ready = true;
        Ok(())
    }

    /// Injects the integration (the caller took `held_input` in the lock that saw the prompt
    /// empty), then lets the keys the user typed meanwhile go. A failed injection is logged and
    /// the heuristic serves.
    async fn inject_holding_input(&self) {
        let _release = ReleaseHeldInput(&self.shared);
        match self.inject().await {
            Ok(Some(shell)) => {
                tracing::debug!(shell = shell.name(), "shell integration injected")
            }
            Ok(None) => tracing::debug!("no shell integration for this shell"),
            Err(err) => tracing::warn!(%err, "shell integration was not injected"),
        }
        self.send_held_input().await;
    }

    /// Sends the keys the user typed during the injection, in order: keys typed while a batch
    /// is on its way join the next batch, and only an empty batch ends the holding.
    async fn send_held_input(&self) {
        loop {
            let batch = {
                let mut state = self.lock();
                match state.held_input.as_mut() {
                    Some(held) if !held.is_empty() => std::mem::take(held),
                    _ => {
                        state.held_input = None;
                        return;
                    }
                }
            };
            if self.send(batch).await.is_err() {
                // The shell is gone; nothing more reaches it.
                self.lock().held_input = None;
                return;
            }
        }
    }

    /// The integration was put off at the first prompt (the user had begun a line there) and
    /// goes in before Pilot's next command.
    pub fn integration_pending(&self) -> bool {
        self.lock().inject_later
    }

    /// Detects the shell and injects its snippet, with the shell's output hidden. `Ok(None)`: a
    /// shell without a snippet (sh, dash…).
    async fn inject(&self) -> Result<Option<ShellKind>, TerminalError> {
        let probe = self
            .hidden_line(integration::PROBE_LINE, HiddenDone::ProbeAnswered)
            .await?;
        let Some(probe) = probe else {
            return Err(TerminalError::Integration {
                reason: "the shell did not answer the detection probe".to_owned(),
            });
        };
        let Some(shell) = integration::parse_probe(&probe) else {
            return Ok(None);
        };
        let snippet = {
            let mut state = self.lock();
            state.shell = Some(shell);
            integration::snippet_for(
                shell,
                state.secret.as_deref().unwrap_or_default(),
                state.passthrough,
            )
        };
        let done = self.hidden_line(&snippet, HiddenDone::PromptMarked).await?;
        if done.is_none() {
            return Err(TerminalError::Integration {
                reason: format!("no OSC 133 marks from {} after the snippet", shell.name()),
            });
        }
        Ok(Some(shell))
    }

    /// Types ` <line>` + Enter with output hidden from the UI and mirror, until `done`.
    /// `Ok(Some(text))`: done, the hidden output is discarded (the user's screen still shows the
    /// prompt it showed before, which the shell has just redrawn identically). `Ok(None)`: not done
    /// in time; the hidden output is shown after all, so the screen stays truthful.
    async fn hidden_line(
        &self,
        line: &str,
        done: HiddenDone,
    ) -> Result<Option<String>, TerminalError> {
        let start = {
            let mut state = self.lock();
            state.hidden = Some(Vec::new());
            state.offset()
        };
        let mut changed = self.shared.changed.subscribe();
        let sent = self.send(format!(" {line}\r").into_bytes()).await;
        let deadline = Instant::now() + HIDDEN_TIMEOUT;
        let mut finished: Option<String> = None;
        if sent.is_ok() {
            loop {
                let now = Instant::now();
                {
                    let state = self.lock();
                    if state.closed.is_some() {
                        break;
                    }
                    let hidden = state.hidden.as_deref().unwrap_or_default();
                    let quiet = state.quiet_for(now);
                    match done {
                        HiddenDone::ProbeAnswered => {
                            let text = render_text(hidden);
                            let last = text.rsplit('\n').next().unwrap_or_default();
                            // The prompt seen at the start, drawn again: the answer is complete
                            // after a short pause; another prompt-looking line needs a longer one.
                            let same_prompt = state
                                .session_prompt
                                .as_deref()
                                .is_some_and(|prompt| last.trim_end() == prompt.trim_end());
                            let settled = if same_prompt {
                                quiet >= READY_QUIET
                            } else {
                                quiet >= Duration::from_millis(150)
                            };
                            if integration::probe_answered(&text)
                                && text.contains('\n')
                                && settled
                                && looks_like_prompt(last, state.session_prompt.as_deref())
                            {
                                finished = Some(text);
                                break;
                            }
                        }
                        HiddenDone::PromptMarked => {
                            let marked = state.marks.iter().any(|m| {
                                m.mark.start >= start && m.mark.kind == MarkKind::CommandStart
                            });
                            if marked && quiet >= Duration::from_millis(50) {
                                finished = Some(render_text(hidden));
                                break;
                            }
                        }
                    }
                }
                if now >= deadline {
                    break;
                }
                let _ = tokio::time::timeout(POLL, changed.changed()).await;
            }
        }
        let shown = {
            let mut state = self.lock();
            let hidden = state.hidden.take().unwrap_or_default();
            state.flush_mirror();
            if finished.is_some() {
                // Marks seen while hidden belong to the prompt the user sees now.
                let cursor = state.mirror.screen().cursor_position();
                for record in state.marks.iter_mut().filter(|m| m.mark.start >= start) {
                    record.cursor = Some(cursor);
                }
                state.prompt_text = Some((state.cursor_line().0, cursor.1));
                None
            } else {
                // The echo of a snippet carries the secret: it is shown without it, and the
                // secret is replaced (a screen line break could split it past scrubbing).
                let hidden = match state.secret.clone() {
                    Some(secret) if line.contains(secret.as_str()) => {
                        state.rotate_secret();
                        replace_bytes(&hidden, secret.as_bytes(), b"[kaiport secret]")
                    }
                    _ => hidden,
                };
                state.mirror.process(&hidden);
                state.scroll_region.scan(&hidden);
                state.previous_plain = false;
                state.history.push(&hidden);
                Some(hidden)
            }
        };
        if let Some(bytes) = shown
            && !bytes.is_empty()
        {
            (self.shared.notify)(TerminalNotice::Output(bytes));
        }
        sent?;
        Ok(finished)
    }

    /// Types `command` + Enter into the terminal and waits until it finishes, waits for input,
    /// times out (left running) or is cancelled (left running). The output is complete (up to
    /// 8 MB head + 8 MB tail); capping it for the model is the caller's job.
    ///
    /// Refused (error, nothing typed) when the command has a line break or control character,
    /// a full-screen program is open, the user has typed a partial line, or the previous command
    /// is still running.
    pub async fn run_command(
        &self,
        command: &str,
        timeout: Duration,
        cancel: CancellationToken,
    ) -> Result<RunCommandResult, TerminalError> {
        if command.contains(['\n', '\r']) {
            return Err(TerminalError::MultiLineCommand);
        }
        if let Some(c) = command.chars().find(|c| c.is_control()) {
            return Err(TerminalError::ControlCharacter { code: u32::from(c) });
        }
        if command.trim().is_empty() {
            return Err(TerminalError::EmptyCommand);
        }
        let _run = tokio::select! {
            guard = self.shared.run_lock.lock() => guard,
            () = cancel.cancelled() => return Err(TerminalError::Cancelled),
        };
        let started_at = Instant::now();
        if self.ready_for_command(&cancel).await? {
            self.inject_holding_input().await;
            self.ready_for_command(&cancel).await?;
        }
        let quiet_period = self.shared.settings.quiet_period;
        let mut ctx = {
            let mut state = self.lock();
            let start = state.offset();
            state.capture = Some(Capture::new(start));
            state.last_run = None;
            RunContext {
                start,
                integration: state.integration_active(),
                reads_terminal: command_reads_terminal(command),
                fallback_since: None,
                quiet_period,
            }
        };
        let mut changed = self.shared.changed.subscribe();
        let mut line = command.as_bytes().to_vec();
        line.push(b'\r');
        if let Err(err) = self.send(line).await {
            self.lock().capture = None;
            return Err(err);
        }
        // The time limit is the command's: waiting for the prompt above does not use it up.
        let deadline = Instant::now() + timeout;
        loop {
            let now = Instant::now();
            {
                let mut state = self.lock();
                if let Some(verdict) = ctx.evaluate(&state, now) {
                    return Ok(self.finish(&mut state, &ctx, verdict, started_at, command));
                }
                let interrupted = |note: String| Verdict {
                    status: CommandStatus::Interrupted,
                    detection: if ctx.integration {
                        Detection::ShellIntegration
                    } else {
                        Detection::Heuristic
                    },
                    exit_code: None,
                    note: Some(note),
                    from: ctx.start,
                    to: None,
                    drop_echo: true,
                    drop_prompt: false,
                    marks_lost: false,
                };
                if let Some(closed) = state.closed.clone() {
                    let note = TerminalError::from_closed(&closed).to_string();
                    let verdict = interrupted(format!("{note}; the command did not finish"));
                    return Ok(self.finish(&mut state, &ctx, verdict, started_at, command));
                }
                if cancel.is_cancelled() {
                    let verdict = interrupted(
                        "cancelled while waiting; the command may still be running in the terminal"
                            .to_owned(),
                    );
                    return Ok(self.finish(&mut state, &ctx, verdict, started_at, command));
                }
                if now >= deadline {
                    let verdict = Verdict {
                        status: CommandStatus::TimedOut,
                        note: Some(format!(
                            "still running after {} s and left running in the terminal: check on it \
                             with read_screen, stop it with send_input key \"ctrl-c\"",
                            timeout.as_secs_f32()
                        )),
                        ..interrupted(String::new())
                    };
                    return Ok(self.finish(&mut state, &ctx, verdict, started_at, command));
                }
            }
            tokio::select! {
                _ = tokio::time::timeout(POLL, changed.changed()) => {}
                () = cancel.cancelled() => {}
            }
        }
    }

    fn finish(
        &self,
        state: &mut State,
        ctx: &RunContext,
        mut verdict: Verdict,
        started_at: Instant,
        command: &str,
    ) -> RunCommandResult {
        let capture = state.capture.take();
        // Output that started with a C mark has no echo line to drop.
        if verdict.status != CommandStatus::Completed {
            let output_start = state
                .marks
                .iter()
                .find(|m| m.mark.start >= ctx.start && m.mark.kind == MarkKind::OutputStart);
            if let Some(c) = output_start {
                verdict.from = c.mark.end;
                verdict.drop_echo = false;
            }
        }
        let secret = state.secret.as_deref();
        let gap = capture.as_ref().and_then(|capture| {
            capture.gap_within(verdict.from, verdict.to.unwrap_or_else(|| capture.end()))
        });
        let output = capture.as_ref().map_or_else(String::new, |capture| {
            let to = verdict.to.unwrap_or_else(|| capture.end());
            let bytes = capture.slice(verdict.from, to);
            let echoed = capture.saw_newline;
            extract_output(
                &bytes,
                verdict.drop_echo && echoed,
                verdict.drop_prompt,
                secret,
            )
        });
        let output = state.scrub(output);
        let completed = verdict.status == CommandStatus::Completed;
        state.last_run = capture.map(|capture| LastRun {
            command: command.to_owned(),
            to: completed.then(|| verdict.to.unwrap_or_else(|| capture.end())),
            capture,
            from: verdict.from,
            exit_code: verdict.exit_code,
            drop_echo: verdict.drop_echo,
            drop_prompt: verdict.drop_prompt,
        });
        if verdict.detection == Detection::ShellIntegration
            && state.mode == ShellIntegrationMode::DetectOnly
            && verdict.status == CommandStatus::Completed
        {
            let note = "the end was reported by the shell's own OSC 133 marks (shell_integration \
                        is detect-only: the marks carry no kaiport secret, so output that prints \
                        such marks can fake them); if more output was expected, look with \
                        read_screen";
            verdict.note = Some(match verdict.note {
                Some(other) => format!("{other}; {note}"),
                None => note.to_owned(),
            });
        }
        if verdict.marks_lost {
            state.marks_live = false;
        }
        state.busy = verdict.status != CommandStatus::Completed;
        state.secret_asked = verdict.status == CommandStatus::AwaitingSecret;
        state.flush_mirror();
        let screen =
            (verdict.status != CommandStatus::Completed).then(|| state.screen_result().screen);
        RunCommandResult {
            status: verdict.status,
            output,
            exit_code: verdict.exit_code,
            duration_ms: u64::try_from(started_at.elapsed().as_millis()).unwrap_or(u64::MAX),
            detection: verdict.detection,
            // What the terminal did not keep; the tool adds what it cuts for the model.
            truncated: gap,
            screen,
            note: verdict.note,
            edited_by_user: None,
        }
    }

    /// Waits (briefly) until the shell sits at an empty prompt; errors say why not. `true`: the
    /// integration put off at the first prompt is to be typed now (the user's keys are held).
    async fn ready_for_command(&self, cancel: &CancellationToken) -> Result<bool, TerminalError> {
        let deadline = Instant::now() + READY_FOR_COMMAND;
        let quiet_period = self.shared.settings.quiet_period;
        let mut changed = self.shared.changed.subscribe();
        loop {
            let now = Instant::now();
            {
                let mut state = self.lock();
                if let Some(closed) = &state.closed {
                    return Err(TerminalError::from_closed(closed));
                }
                state.flush_mirror();
                match state.prompt_state(now, quiet_period) {
                    PromptState::Empty => {
                        state.busy = false;
                        state.staged_by_pilot = None;
                        // Tried once; taken in the lock that saw the line empty, so no key of
                        // the user's slips in before it.
                        let inject =
                            std::mem::take(&mut state.inject_later) && !state.integration_active();
                        if inject {
                            state.held_input = Some(Vec::new());
                        }
                        return Ok(inject);
                    }
                    PromptState::FullScreen => return Err(TerminalError::FullScreenActive),
                    PromptState::Typed(text) if !state.busy => {
                        return Err(match state.staged_by_pilot {
                            Some(false) => TerminalError::StagedLinePending { text },
                            Some(true) | None => TerminalError::InputLinePending { text },
                        });
                    }
                    PromptState::Typed(_) | PromptState::NotAtPrompt | PromptState::Drawing => {
                        if now >= deadline {
                            return Err(TerminalError::NotAtPrompt {
                                cursor_line: state.cursor_line().0.trim_end().to_owned(),
                            });
                        }
                    }
                }
            }
            tokio::select! {
                _ = tokio::time::timeout(POLL, changed.changed()) => {}
                () = cancel.cancelled() => return Err(TerminalError::Cancelled),
            }
        }
    }

    /// Sends text and/or a key (text first), then returns the screen once output settles
    /// (quiet for 300 ms, at most 2 s). Does not wait for a prompt.
    pub async fn send_input(
        &self,
        text: Option<&str>,
        key: Option<Key>,
    ) -> Result<ScreenResult, TerminalError> {
        if let Some(closed) = self.closed() {
            return Err(TerminalError::from_closed(&closed));
        }
        let bytes = self.input_bytes(text, key);
        if bytes.is_empty() {
            return Err(TerminalError::NothingToSend);
        }
        let sent_at = Instant::now();
        self.send(bytes).await?;
        self.settle(sent_at).await;
        Ok(self.screen())
    }

    /// The bytes send_input sends for `text` then `key` (the key in the terminal's current
    /// cursor-key mode).
    fn input_bytes(&self, text: Option<&str>, key: Option<Key>) -> Vec<u8> {
        let mut bytes = Vec::new();
        if let Some(text) = text {
            bytes.extend_from_slice(text.as_bytes());
        }
        if let Some(key) = key {
            let application_cursor = self.lock().mirror.screen().application_cursor();
            bytes.extend_from_slice(encode_key_for(key, application_cursor));
        }
        bytes
    }

    /// Prepares send_input's keys for the decision (editing keys must not
    /// smuggle a forbidden command past it). At a shell prompt, what Enter runs is a command
    /// line: the keys before Enter are typed now, and the line that results is read off the
    /// screen, for the policy to judge like run_command's. The returned [`StagedInput`] says
    /// what was found and holds the bytes still to send; give it to [`Terminal::send_staged`]
    /// when the call is allowed, or to [`Terminal::abandon_staged`] when it is not.
    ///
    /// Not at a shell prompt (a program runs), nothing is typed here.
    pub async fn stage_input(
        &self,
        text: Option<&str>,
        key: Option<Key>,
    ) -> Result<StagedInput, TerminalError> {
        let bytes = self.input_bytes(text, key);
        if bytes.is_empty() {
            return Err(TerminalError::NothingToSend);
        }
        let quiet_period = self.shared.settings.quiet_period;
        // Keys sent while the shell draws its next prompt are read by that prompt: wait for it
        // rather than take them for a program's input.
        let drawn = self
            .wait_screen(PROMPT_DRAW_WAIT, |state, now| {
                (!matches!(state.prompt_state(now, quiet_period), PromptState::Drawing))
                    .then_some(())
            })
            .await?;
        {
            let mut state = self.lock();
            state.flush_mirror();
            if drawn.is_none() {
                let reason = "the shell was still between a line and its next prompt".to_owned();
                return Ok(StagedInput::new(PromptInput::Unknown { reason }, bytes));
            }
            if state.prompt_line(Instant::now(), quiet_period).is_none() {
                return Ok(StagedInput::new(PromptInput::NotAtPrompt, bytes));
            }
        }
        let submit_at = bytes.iter().position(|b| SUBMIT_BYTES.contains(b));
        if let Some(reason) = editor_keys(&bytes) {
            return Ok(StagedInput::new(PromptInput::Unknown { reason }, bytes));
        }
        let Some(submit_at) = submit_at else {
            return Ok(StagedInput::new(PromptInput::NothingRuns, bytes));
        };
        if submit_at + 1 != bytes.len() {
            let reason = "the input goes on after a key that runs the line (Enter, Ctrl-J, \
                          Ctrl-M, Ctrl-O), so the lines it runs cannot be read before they run"
                .to_owned();
            return Ok(StagedInput::new(PromptInput::Unknown { reason }, bytes));
        }
        let (prefix, submit) = bytes.split_at(submit_at);
        if !prefix.is_empty() {
            self.type_and_confirm(prefix).await?;
        }
        let mut state = self.lock();
        state.flush_mirror();
        let found = match state.prompt_line(Instant::now(), quiet_period) {
            Some(Ok(line)) => PromptInput::Runs {
                line: state.scrub(line),
            },
            Some(Err(reason)) => PromptInput::Unknown { reason },
            None => PromptInput::Unknown {
                reason: "after the keys before Enter the terminal no longer shows a shell prompt"
                    .to_owned(),
            },
        };
        Ok(StagedInput {
            found,
            typed: !prefix.is_empty(),
            remaining: submit.to_vec(),
        })
    }

    /// Sends what [`Terminal::stage_input`] left to send, then returns the screen once output
    /// settles. For a line it read, Enter is pressed only if the line is still the same.
    pub async fn send_staged(&self, staged: &StagedInput) -> Result<ScreenResult, TerminalError> {
        if let PromptInput::Runs { line } = &staged.found {
            let mut state = self.lock();
            state.flush_mirror();
            let quiet_period = self.shared.settings.quiet_period;
            let current = state
                .prompt_line(Instant::now(), quiet_period)
                .and_then(Result::ok)
                .map(|current| state.scrub(current));
            if current.as_ref() != Some(line) {
                return Err(TerminalError::LineChanged {
                    checked: line.clone(),
                    now: current.unwrap_or_default(),
                });
            }
        }
        if let Some(closed) = self.closed() {
            return Err(TerminalError::from_closed(&closed));
        }
        self.note_staging(staged);
        self.send(staged.remaining.clone()).await?;
        self.settle(Instant::now()).await;
        Ok(self.screen())
    }

    /// Remembers whether the keys about to be sent leave Pilot's own text at the prompt.
    fn note_staging(&self, staged: &StagedInput) {
        let quiet_period = self.shared.settings.quiet_period;
        let mut state = self.lock();
        let ends_run = staged
            .remaining
            .last()
            .is_some_and(|byte| SUBMIT_BYTES.contains(byte));
        match &staged.found {
            PromptInput::NotAtPrompt => {}
            PromptInput::Runs { .. } => state.staged_by_pilot = None,
            PromptInput::Unknown { .. } if ends_run => state.staged_by_pilot = None,
            PromptInput::NothingRuns | PromptInput::Unknown { .. } => {
                state.flush_mirror();
                let empty = matches!(
                    state.prompt_state(Instant::now(), quiet_period),
                    PromptState::Empty
                );
                state.staged_by_pilot = match (empty, state.staged_by_pilot) {
                    (true, _) => Some(false),
                    // The line held text already: Pilot's stays Pilot's, the user's the user's.
                    (false, Some(user_too)) => Some(user_too),
                    (false, None) => Some(true),
                };
            }
        }
    }

    /// Types `prefix` at the prompt and returns once the shell has shown that it read all of
    /// it. Reading the line after a quiet moment is not enough: a shell slow to run (a loaded
    /// machine) shows half the keys, and Enter would then run a line nobody judged. So a random
    /// token follows the keys; a shell reads keys in order, so once the token stands before the
    /// cursor every key before it was read. The token is then erased (Backspace) and the line
    /// read once the cursor is back where the token began. A shell that does not show this in
    /// time gets the keys taken back (Ctrl-C) and the call fails.
    async fn type_and_confirm(&self, prefix: &[u8]) -> Result<(), TerminalError> {
        let token: Vec<u8> = (0..CONFIRM_TOKEN_LEN)
            .map(|_| rand::random_range(b'a'..=b'z'))
            .collect();
        let mut keys = prefix.to_vec();
        keys.extend_from_slice(&token);
        self.send(keys).await?;
        let end = self
            .wait_screen(CONFIRM_WAIT, |state, _| state.cursor_after(&token))
            .await?;
        let confirmed = match end {
            Some(end) => {
                self.send(vec![BACKSPACE; token.len()]).await?;
                let start = end.saturating_sub(token.len());
                self.wait_screen(CONFIRM_WAIT, |state, _| {
                    (state.cursor_index() == start).then_some(())
                })
                .await?
                .is_some()
            }
            None => false,
        };
        if !confirmed {
            self.discard_line().await;
            return Err(TerminalError::TypingNotConfirmed {
                waited: CONFIRM_WAIT,
            });
        }
        self.settle(Instant::now()).await;
        Ok(())
    }

    /// Polls the state (after every chunk of output, at least every [`POLL`]) until `check`
    /// returns `Some`, for at most `limit`: `None` when the time ran out.
    async fn wait_screen<T>(
        &self,
        limit: Duration,
        mut check: impl FnMut(&State, Instant) -> Option<T>,
    ) -> Result<Option<T>, TerminalError> {
        let deadline = Instant::now() + limit;
        let mut changed = self.shared.changed.subscribe();
        loop {
            let now = Instant::now();
            {
                let mut state = self.lock();
                if let Some(closed) = &state.closed {
                    return Err(TerminalError::from_closed(closed));
                }
                state.flush_mirror();
                if let Some(found) = check(&state, now) {
                    return Ok(Some(found));
                }
                if now >= deadline {
                    return Ok(None);
                }
            }
            let _ = tokio::time::timeout(POLL, changed.changed()).await;
        }
    }

    /// Takes back what [`Terminal::stage_input`] typed at the prompt (the call was refused).
    pub async fn abandon_staged(&self, staged: &StagedInput) {
        if staged.typed {
            self.discard_line().await;
        }
    }

    /// Ctrl-C discards the line at the prompt in every shell and line-editing mode.
    async fn discard_line(&self) {
        if self.closed().is_some() {
            return;
        }
        let sent_at = self.lock().offset();
        if let Err(err) = self.send(encode_key_for(Key::CtrlC, false).to_vec()).await {
            tracing::debug!(%err, "could not discard the staged line");
            return;
        }
        self.lock().staged_by_pilot = None;
        // Until the shell has drawn its fresh prompt the staged text is still on the screen, and
        // the next call would take it for the user's typing, or a run_command would take the
        // interrupted line's `D` mark (status 130) for its own end. Wait for the empty prompt
        // (with marks: one drawn after the Ctrl-C), briefly; never mark the terminal busy here:
        // a busy terminal takes keys as a program's input, unjudged.
        let quiet_period = self.shared.settings.quiet_period;
        let redrawn = self
            .wait_screen(ABANDON_WAIT, |state, now| {
                let fresh = !state.integration_active()
                    || state
                        .marks
                        .iter()
                        .any(|m| m.mark.start >= sent_at && m.mark.kind == MarkKind::CommandStart);
                (fresh && matches!(state.prompt_state(now, quiet_period), PromptState::Empty))
                    .then_some(())
            })
            .await;
        if !matches!(redrawn, Ok(Some(()))) {
            tracing::debug!("no fresh prompt after Ctrl-C within the wait");
        }
    }

    /// Waits until output has been quiet for a moment (at least 100 ms, at most 2 s after
    /// `sent_at`).
    async fn settle(&self, sent_at: Instant) {
        let mut changed = self.shared.changed.subscribe();
        loop {
            let now = Instant::now();
            {
                let state = self.lock();
                let since_send = now.saturating_duration_since(sent_at);
                let quiet = state.quiet_for(now).min(since_send);
                if state.closed.is_some()
                    || since_send >= SETTLE_MAX
                    || (since_send >= SETTLE_MIN && quiet >= SETTLE_QUIET)
                {
                    return;
                }
            }
            let _ = tokio::time::timeout(POLL, changed.changed()).await;
        }
    }

    /// Waits `wait` (at most 120 s; ends early if the shell closes), then returns the screen.
    /// After a run_command that stopped at a password prompt the wait also ends once that
    /// prompt is gone (the user typed the secret) and the output after it settled: Pilot waits
    /// for exactly that, and is not kept waiting for the rest of `wait`.
    pub async fn read_screen(
        &self,
        wait: Duration,
        cancel: CancellationToken,
    ) -> Result<ScreenResult, TerminalError> {
        let deadline = Instant::now() + wait.min(READ_SCREEN_MAX);
        let mut changed = self.shared.changed.subscribe();
        loop {
            if self.lock().closed.is_some() {
                return Ok(self.screen());
            }
            if self.secret_prompt_gone() {
                self.settle(Instant::now()).await;
                // Asked again (a wrong password): wait for that prompt too.
                if !self.secret_prompt_back() {
                    return Ok(self.screen());
                }
            }
            if Instant::now() >= deadline {
                return Ok(self.screen());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            tokio::select! {
                _ = tokio::time::timeout(left, changed.changed()) => {}
                () = cancel.cancelled() => return Err(TerminalError::Cancelled),
            }
        }
    }

    /// Whether a secret prompt the last run_command stopped at has gone since (told once).
    fn secret_prompt_gone(&self) -> bool {
        let mut state = self.lock();
        if !state.secret_asked {
            return false;
        }
        state.flush_mirror();
        if looks_like_secret_prompt(&state.cursor_line().0) {
            return false;
        }
        state.secret_asked = false;
        true
    }

    /// Whether a secret prompt is at the cursor again after one went (then waited for again).
    fn secret_prompt_back(&self) -> bool {
        let mut state = self.lock();
        state.flush_mirror();
        state.secret_asked = looks_like_secret_prompt(&state.cursor_line().0);
        state.secret_asked
    }

    /// What the last command run_command typed has printed since it started, uncapped (the
    /// tool caps it), with where its end was seen; None before the first run_command.
    pub fn command_so_far(&self) -> Option<CommandSoFar> {
        let state = self.lock();
        let run = state.last_run.as_ref()?;
        let to = run.to.unwrap_or_else(|| run.capture.end());
        let bytes = run.capture.slice(run.from, to);
        let output = extract_output(
            &bytes,
            run.drop_echo && run.capture.saw_newline,
            run.drop_prompt && run.to.is_some(),
            state.secret.as_deref(),
        );
        Some(CommandSoFar {
            command: run.command.clone(),
            ended: run.to.is_some(),
            exit_code: run.exit_code,
            output: state.scrub(output),
            truncated: run.capture.gap_within(run.from, to),
        })
    }

    /// Keystrokes from the UI, passed to the shell unchanged.
    pub async fn user_input(&self, bytes: &[u8]) -> Result<(), TerminalError> {
        {
            let mut state = self.lock();
            if let Some(closed) = &state.closed {
                return Err(TerminalError::from_closed(closed));
            }
            // Whatever Pilot left at the prompt is now the user's line too.
            if state.staged_by_pilot.is_some() {
                state.staged_by_pilot = Some(true);
            }
            if let Some(held) = &mut state.held_input {
                held.extend_from_slice(bytes);
                return Ok(());
            }
            if !state.ready {
                state.user_input_before_ready = Some(Instant::now());
                state.line_typed_before_ready =
                    typed_line(state.line_typed_before_ready.take(), bytes);
            }
        }
        self.send(bytes.to_vec()).await
    }

    /// Resizes the mirror and the shell's terminal.
    pub async fn resize(&self, cols: u16, rows: u16) -> Result<(), TerminalError> {
        let (c, r) = size(cols, rows)?;
        {
            let mut state = self.lock();
            if let Some(closed) = &state.closed {
                return Err(TerminalError::from_closed(closed));
            }
            // Deferred output was written for the old size.
            state.flush_mirror();
            state.mirror.screen_mut().set_size(r, c);
        }
        self.shared
            .input
            .send(ShellInput::Resize { cols, rows })
            .await
            .map_err(|_| self.gone())
    }

    /// The terminal's history as the raw bytes the user saw (bounded by `scrollback_lines`), for
    /// a front end that attaches later to replay.
    pub fn history_bytes(&self) -> Vec<u8> {
        self.lock().history.bytes()
    }

    /// The history as plain text lines (colors and cursor movement applied).
    pub fn history_text(&self) -> String {
        render_text(&self.history_bytes())
    }

    /// The mirror's size as (columns, rows): the size the shell was last given.
    pub fn size(&self) -> (u16, u16) {
        let (rows, cols) = self.lock().mirror.screen().size();
        (cols.get(), rows.get())
    }

    /// The visible screen now.
    pub fn screen(&self) -> ScreenResult {
        let mut state = self.lock();
        state.flush_mirror();
        state.screen_result()
    }

    /// Whether commands are currently detected by OSC 133 marks.
    pub fn integration_active(&self) -> bool {
        self.lock().integration_active()
    }

    /// The secret this shell's marks carry (with [`ShellIntegrationMode::Inject`]): a kept
    /// shell's next connection gives it back ([`KeptShell::secret`]).
    pub fn mark_secret(&self) -> Option<String> {
        self.lock().secret.clone()
    }

    /// A command typed here may still be running (timed out, waiting for input, interrupted).
    pub fn busy(&self) -> bool {
        self.lock().busy
    }

    /// The shell's current folder as its integration last reported it (OSC 7 right after an
    /// authentic `D` or `A` mark); None without integration or before the first prompt.
    pub fn cwd(&self) -> Option<String> {
        self.lock().cwd.clone()
    }

    /// The shell detected for integration, if any.
    pub fn shell_kind(&self) -> Option<ShellKind> {
        self.lock().shell
    }

    /// Why the shell ended, once it has.
    pub fn closed(&self) -> Option<ShellClosed> {
        self.lock().closed.clone()
    }

    /// Asks the transport to close the shell and waits briefly until it reports closed.
    pub async fn close(&self) {
        let mut changed = self.shared.changed.subscribe();
        if self.shared.input.send(ShellInput::Close).await.is_err() {
            return;
        }
        let deadline = Instant::now() + CLOSE_WAIT;
        while self.lock().closed.is_none() && Instant::now() < deadline {
            let _ = tokio::time::timeout(POLL, changed.changed()).await;
        }
    }

    async fn send(&self, bytes: Vec<u8>) -> Result<(), TerminalError> {
        self.shared
            .input
            .send(ShellInput::Data(bytes))
            .await
            .map_err(|_| self.gone())
    }

    fn gone(&self) -> TerminalError {
        match &self.lock().closed {
            Some(closed) => TerminalError::from_closed(closed),
            None => TerminalError::ConnectionLost {
                reason: "the shell's input channel is closed".to_owned(),
            },
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum HiddenDone {
    /// The probe printed its answer and the prompt is back.
    ProbeAnswered,
    /// A `B` mark arrived: the integrated prompt is drawn.
    PromptMarked,
}

/// Lets the keys held during an injection go when the injection is abandoned midway (its
/// future dropped): they must never stay held.
struct ReleaseHeldInput<'a>(&'a Shared);

impl Drop for ReleaseHeldInput<'_> {
    fn drop(&mut self) {
        let held = self.0.lock().held_input.take();
        if let Some(bytes) = held.filter(|bytes| !bytes.is_empty()) {
            // Best effort: a full input queue here means the shell is not reading anyway.
            let _ = self.0.input.try_send(ShellInput::Data(bytes));
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves the mirror usable; keep going.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn close_with(&self, reason: ShellClosed) {
        {
            let mut state = self.lock();
            if state.closed.is_some() {
                return;
            }
            state.closed = Some(reason.clone());
        }
        (self.notify)(TerminalNotice::Closed(reason));
        self.changed.send_modify(|v| *v = v.wrapping_add(1));
    }
}

/// The hot path: every byte from the shell goes through here once.
async fn pump(shared: Arc<Shared>, mut output: mpsc::Receiver<ShellOutput>) {
    let mut deferred = false;
    loop {
        // With plain output deferred, a pause in the stream feeds it to the mirror.
        let message = if deferred {
            match tokio::time::timeout(MIRROR_IDLE, output.recv()).await {
                Ok(message) => message,
                Err(_) => {
                    shared.lock().flush_mirror();
                    deferred = false;
                    continue;
                }
            }
        } else {
            output.recv().await
        };
        let Some(message) = message else { break };
        match message {
            ShellOutput::Data(bytes) => {
                let (forward, offset, cwd) = {
                    let mut state = shared.lock();
                    let forward = state.ingest(&bytes);
                    deferred = !state.pending_mirror.is_empty();
                    let cwd = std::mem::take(&mut state.cwd_changed)
                        .then(|| state.cwd.clone())
                        .flatten();
                    (forward, state.offset(), cwd)
                };
                if forward {
                    (shared.notify)(TerminalNotice::Output(bytes));
                }
                if let Some(cwd) = cwd {
                    (shared.notify)(TerminalNotice::Cwd(cwd));
                }
                shared.changed.send_replace(offset);
            }
            ShellOutput::Closed(reason) => {
                shared.lock().flush_mirror();
                shared.close_with(reason);
                return;
            }
        }
    }
    shared.lock().flush_mirror();
    shared.close_with(ShellClosed::ConnectionLost {
        reason: "the shell's output stream ended without a close notice".to_owned(),
    });
}

/// `bytes` with every occurrence of `needle` replaced by `with`.
fn replace_bytes(bytes: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = memchr::memmem::find(rest, needle) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(with);
        rest = &rest[at + needle.len()..];
    }
    out.extend_from_slice(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// A flood keeps a bounded capture, and what the model gets is made from
    /// one rendered string (head and tail, with the gap marked).
    #[test]
    fn a_flood_keeps_a_bounded_capture() {
        let mut capture = Capture::new(0);
        let chunk = b"y\r\n".repeat(10_923);
        for _ in 0..1_600 {
            capture.push(&chunk);
        }
        assert_eq!(
            capture.head.len() + capture.tail.len(),
            CAPTURE_HEAD + CAPTURE_TAIL
        );
        assert!(capture.head.capacity() <= 2 * CAPTURE_HEAD);
        assert_eq!(capture.end(), 1_600 * chunk.len() as u64);
        let bytes = capture.slice(0, capture.end());
        assert!(bytes.len() < CAPTURE_HEAD + CAPTURE_TAIL + 100);
        let text = extract_output(&bytes, false, false, Some("s3cr3t"));
        assert!(text.starts_with("y\ny\n"));
        assert!(text.contains(crate::output::GAP_NOTE));
        assert!(text.ends_with("\ny"));
        // The gap is counted exactly, in bytes and lines, for the one "left out" line.
        let gap = capture.gap_within(0, capture.end()).unwrap();
        let kept = (CAPTURE_HEAD + CAPTURE_TAIL) as u64;
        assert_eq!(gap.omitted_bytes, capture.end() - kept);
        let kept_lines =
            bytecount(&capture.head) + capture.tail.iter().filter(|&&b| b == b'\n').count() as u64;
        // The head ends inside a line here: its two pieces count once.
        assert_ne!(capture.head.last(), Some(&b'\n'));
        assert_eq!(gap.omitted_lines, 1_600 * 10_923 - kept_lines - 1);
    }

    fn bytecount(bytes: &[u8]) -> u64 {
        bytes.iter().filter(|&&b| b == b'\n').count() as u64
    }

    #[test]
    fn extract_output_drops_echo_prompt_and_blank_tail() {
        let cases: [(&[u8], bool, bool, &str); 5] = [
            (b"ls\r\na\r\nb\r\n\r\n$ ", true, true, "a\nb"),
            (b"only\r\n", true, false, ""),
            (b"a\r\nb", true, true, ""),
            (b"out\r\n  \r\n\r\n", false, false, "out"),
            (b"", true, true, ""),
        ];
        for (bytes, echo, prompt, expected) in cases {
            assert_eq!(
                extract_output(bytes, echo, prompt, None),
                expected,
                "{bytes:?}"
            );
        }
    }
}
