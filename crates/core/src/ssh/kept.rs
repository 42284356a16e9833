//! "Keep the session on the server": the tab's shell runs inside tmux (or GNU screen when tmux
//! is missing) under a session name kaiport owns, so a reconnect, or kaiport started again,
//! attaches to the same shell with whatever it was running.
//!
//! tmux runs on a server of kaiport's own (`tmux -L kaiport`), so the options kaiport sets there
//! never touch the user's own tmux server or `~/.tmux.conf`: no status line (the tab has its
//! own), `allow-passthrough on` for the shell integration's marks, the mouse on (the wheel
//! scrolls tmux's history, which holds what tmux did not draw), and no alternate screen
//! (`smcup@`), so the tab is a terminal at a prompt that kaiport may type into, and what tmux
//! scrolls up goes on into the tab's own scrollback.
//!
//! A multiplexer draws its panes itself, and a mark passed through to the outer terminal
//! reaches kaiport at once while the text printed before it is drawn a moment later.
//! [`marks_after_redraw`] puts each mark back after the drawing that follows it, so the terminal
//! sees marks and text in the order the shell wrote them.
//!
//! GNU screen puts the outer terminal on its alternate screen while attached;
//! [`without_alternate_screen`] takes those switches out, so a tab kept in screen is a terminal
//! at a prompt as one kept in tmux is.
//!
//! This module must never run anything on the server but the lookup, the attach command and
//! the end of a session below (with the wiping of dead screen sockets of its own session
//! names), and never use a session name it did not make.

use std::time::Duration;

use tokio::sync::mpsc;

use super::{SshError, SshSession};
use crate::shell_io::{SHELL_PIPE_CAPACITY, ShellIo, ShellOutput};

/// The tmux server (`-L`) kaiport's sessions live on.
pub const TMUX_SOCKET: &str = "kaiport";

/// Which program keeps the shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Multiplexer {
    Tmux,
    Screen,
}

impl Multiplexer {
    pub fn name(self) -> &'static str {
        match self {
            Multiplexer::Tmux => "tmux",
            Multiplexer::Screen => "screen",
        }
    }
}

/// What the server has for a kept session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// None: neither tmux nor screen is installed.
    pub multiplexer: Option<Multiplexer>,
    /// The session runs already: this connection attaches to its shell.
    pub existing: bool,
}

/// The session name of `tab`: `kaiport-` and the tab id, with characters tmux and screen do
/// not take in a name replaced (and then a hash of the whole id, so two ids stay apart).
pub fn session_name(tab: &str) -> String {
    let clean: String = tab
        .chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean == tab {
        return format!("kaiport-{clean}");
    }
    // FNV-1a: stable across versions and platforms, unlike std's hasher.
    let hash = tab.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("kaiport-{clean}-{:08x}", hash as u32)
}

/// `script` (POSIX sh, without single quotes) run by `sh` whatever the login shell is: fish
/// and csh take `exec sh -c '…'` as sh does.
fn in_sh(script: &str) -> String {
    debug_assert!(!script.contains('\''));
    format!("exec sh -c '{script}'")
}

/// A screen session named `name` whose screen is gone (the server rebooted, screen was killed)
/// leaves its socket behind, listed as `(Dead ???)`. `screen -wipe` removes such sockets of
/// `name`: left, they would make `screen -S name -X quit` ambiguous (it ends nothing), and a
/// lookup that counted them would take the new session for one running already, which gets no
/// shell integration.
fn wipe_dead_screens(name: &str) -> String {
    format!("screen -wipe {name} >/dev/null 2>&1")
}

/// Asks the server (on an exec channel, never in the user's terminal) which multiplexer it has
/// and whether session `name` runs already (for screen: listed as attached or detached, not
/// dead).
pub async fn look(session: &SshSession, name: &str) -> Result<Found, SshError> {
    let script = format!(
        "if command -v tmux >/dev/null 2>&1; then \
         if tmux -L {TMUX_SOCKET} has-session -t ={name} >/dev/null 2>&1; then echo tmux attach; \
         else echo tmux new; fi; \
         elif command -v screen >/dev/null 2>&1; then {wipe}; \
         if screen -ls 2>/dev/null | grep -Eq \"[.]{name}[[:space:]].*[(](Multi, )?(At|De)tached[)]\"; \
         then echo screen attach; \
         else echo screen new; fi; \
         else echo none; fi",
        wipe = wipe_dead_screens(name)
    );
    let output = session.exec(&in_sh(&script)).await?;
    let answer = String::from_utf8_lossy(&output.stdout);
    let mut words = answer.split_whitespace();
    let multiplexer = match words.next() {
        Some("tmux") => Some(Multiplexer::Tmux),
        Some("screen") => Some(Multiplexer::Screen),
        _ => None,
    };
    Ok(Found {
        multiplexer,
        existing: words.next() == Some("attach"),
    })
}

/// Ends session `name` (the tab that kept it was closed), in tmux or screen, on an exec
/// channel.
pub async fn end(session: &SshSession, name: &str) -> Result<(), SshError> {
    let script = format!(
        "tmux -L {TMUX_SOCKET} kill-session -t ={name} >/dev/null 2>&1; \
         {wipe}; screen -S {name} -X quit >/dev/null 2>&1; true",
        wipe = wipe_dead_screens(name)
    );
    session.exec(&in_sh(&script)).await.map(drop)
}

/// The command that attaches the pty to session `name`, making it first when it is missing;
/// `cols` x `rows` is the size a new session starts at.
pub fn attach_command(multiplexer: Multiplexer, name: &str, cols: u16, rows: u16) -> String {
    let script = match multiplexer {
        Multiplexer::Tmux => format!(
            "t=\"tmux -u -L {TMUX_SOCKET}\"; \
             $t has-session -t ={name} >/dev/null 2>&1 || $t new-session -d -s {name} -x {cols} -y {rows} || exit 1; \
             $t set-option -t {name} status off >/dev/null 2>&1; \
             $t set-option -t {name} mouse on >/dev/null 2>&1; \
             $t set-option -w -g allow-passthrough on >/dev/null 2>&1; \
             $t set-option -s terminal-overrides \"*:smcup@:rmcup@\" >/dev/null 2>&1; \
             exec $t attach-session -t ={name}"
        ),
        // -D -R: attach, detaching it elsewhere first, or make it; -q: without the message
        // "New screen..." on the prompt's line, where the cursor then stands.
        Multiplexer::Screen => format!("exec screen -q -U -D -R -S {name}"),
    };
    in_sh(&script)
}

/// How long the output may pause before marks held back are let through anyway.
const REDRAW_WAIT: Duration = Duration::from_millis(30);
/// The longest a mark that was not ended (its BEL or ST) is looked at before it counts as text.
const MAX_MARK: usize = 160;

/// The switches of the outer terminal to its alternate screen and back (xterm's three kinds).
const ALTERNATE_SCREEN: [&[u8]; 6] = [
    b"\x1b[?1049h",
    b"\x1b[?1049l",
    b"\x1b[?1047h",
    b"\x1b[?1047l",
    b"\x1b[?47h",
    b"\x1b[?47l",
];

/// `io` without [`ALTERNATE_SCREEN`]'s switches, for a shell kept in GNU screen. screen puts
/// the outer terminal on its alternate screen while attached (`smcup`; tmux is told not to,
/// see [`attach_command`]), and never passes a program's own switch on (its `altscreen` is off
/// unless the user's `~/.screenrc` turns it on), so the tab stays a terminal at a prompt that
/// kaiport may type into, as with tmux.
pub fn without_alternate_screen(io: ShellIo) -> ShellIo {
    let ShellIo { input, mut output } = io;
    let (tx, rx) = mpsc::channel(SHELL_PIPE_CAPACITY);
    tokio::spawn(async move {
        let mut filter = AlternateScreenFilter::default();
        while let Some(message) = output.recv().await {
            let message = match message {
                ShellOutput::Data(bytes) => ShellOutput::Data(filter.filter(&bytes)),
                closed @ ShellOutput::Closed(_) => {
                    let rest = std::mem::take(&mut filter.held);
                    if !rest.is_empty() && tx.send(ShellOutput::Data(rest)).await.is_err() {
                        return;
                    }
                    closed
                }
            };
            if tx.send(message).await.is_err() {
                return;
            }
        }
    });
    ShellIo { input, output: rx }
}

/// Drops [`ALTERNATE_SCREEN`]'s switches from a stream, also where one is split between two
/// chunks (its start is held back until the next).
#[derive(Debug, Default)]
struct AlternateScreenFilter {
    held: Vec<u8>,
}

impl AlternateScreenFilter {
    fn filter(&mut self, chunk: &[u8]) -> Vec<u8> {
        let mut bytes = std::mem::take(&mut self.held);
        bytes.extend_from_slice(chunk);
        let mut out = Vec::with_capacity(bytes.len());
        let mut at = 0;
        while at < bytes.len() {
            let rest = &bytes[at..];
            if rest[0] == 0x1b {
                if let Some(switch) = ALTERNATE_SCREEN.iter().find(|s| rest.starts_with(s)) {
                    at += switch.len();
                    continue;
                }
                if ALTERNATE_SCREEN.iter().any(|s| s.starts_with(rest)) {
                    self.held = rest.to_vec();
                    break;
                }
            }
            out.push(rest[0]);
            at += 1;
        }
        out
    }
}

/// `io` with each OSC 133 mark put back where the shell printed it, as near as the drawing
/// shows: the multiplexer sends a mark at once and draws the text around it a moment later.
/// `C` (output starts) goes where the next line starts (after the command line); `D`, `A`
/// (the command ended, the prompt starts) go before the last line drawn until the output
/// pauses for [`REDRAW_WAIT`] (the prompt), and `B` (the prompt ends) after it.
pub fn marks_after_redraw(io: ShellIo) -> ShellIo {
    let ShellIo { input, mut output } = io;
    let (tx, rx) = mpsc::channel(SHELL_PIPE_CAPACITY);
    tokio::spawn(async move {
        let mut splitter = MarkSplitter::default();
        let mut placer = Placer::default();
        loop {
            let message = if placer.waiting() {
                match tokio::time::timeout(REDRAW_WAIT, output.recv()).await {
                    Ok(message) => message,
                    Err(_) => {
                        let out = placer.pause();
                        if !out.is_empty() && tx.send(ShellOutput::Data(out)).await.is_err() {
                            return;
                        }
                        continue;
                    }
                }
            } else {
                output.recv().await
            };
            match message {
                Some(ShellOutput::Data(bytes)) => {
                    let mut out = Vec::with_capacity(bytes.len());
                    for piece in splitter.split(&bytes) {
                        placer.take(piece, &mut out);
                    }
                    if !out.is_empty() && tx.send(ShellOutput::Data(out)).await.is_err() {
                        return;
                    }
                }
                Some(closed @ ShellOutput::Closed(_)) => {
                    let mut out = placer.pause();
                    out.extend(placer.pause());
                    out.extend(splitter.rest());
                    if !out.is_empty() {
                        let _ = tx.send(ShellOutput::Data(out)).await;
                    }
                    let _ = tx.send(closed).await;
                    return;
                }
                None => return,
            }
        }
    });
    ShellIo { input, output: rx }
}

/// A piece of the stream: text, or one whole mark with its letter.
#[derive(Debug, PartialEq, Eq)]
enum Piece {
    Text(Vec<u8>),
    Mark(u8, Vec<u8>),
}

/// Where the marks go (see [`marks_after_redraw`]).
#[derive(Debug, Default)]
struct Placer {
    /// A `C` waiting for the end of the line drawn after it.
    output_start: Option<Vec<u8>>,
    /// `D`, `A`, `B`… waiting for the output to pause, and the text drawn since the first.
    ends: Vec<(u8, Vec<u8>)>,
    drawn: Vec<u8>,
    /// A line end went out since the last `B` (the command line was drawn whole): a `C` that
    /// comes now belongs here, not after the next line, which is output.
    line_ended: bool,
    /// The text drawn since the held `C` ended with a move to the first column.
    line_start_pending: bool,
}

impl Placer {
    fn waiting(&self) -> bool {
        self.output_start.is_some() || !self.ends.is_empty()
    }

    fn take(&mut self, piece: Piece, out: &mut Vec<u8>) {
        match piece {
            Piece::Mark(b'C', mark) => {
                out.extend(self.pause());
                if self.line_ended {
                    out.extend(mark);
                } else {
                    self.output_start = Some(mark);
                }
            }
            Piece::Mark(letter, mark) => self.ends.push((letter, mark)),
            Piece::Text(text) if !self.ends.is_empty() => self.drawn.extend(text),
            Piece::Text(text) => match self.output_start.take() {
                Some(start) => {
                    let pending = std::mem::take(&mut self.line_start_pending);
                    let found = match (pending, what_comes_next(&text)) {
                        (true, Next::Text) => LineStart::At(0),
                        (true, Next::End) => LineStart::Maybe,
                        _ => next_line_start(&text),
                    };
                    match found {
                        LineStart::At(at) => {
                            out.extend_from_slice(&text[..at]);
                            out.extend(start);
                            out.extend_from_slice(&text[at..]);
                        }
                        LineStart::Maybe | LineStart::NotYet => {
                            self.line_start_pending = found == LineStart::Maybe;
                            out.extend(text);
                            self.output_start = Some(start);
                        }
                    }
                }
                None => {
                    self.line_ended |= text.contains(&b'\n');
                    out.extend(text);
                }
            },
        }
    }

    /// The output paused: whatever waits goes out, in its place.
    fn pause(&mut self) -> Vec<u8> {
        let start = self.output_start.take();
        self.line_start_pending = false;
        if self.ends.is_empty() {
            return start.unwrap_or_default();
        }
        let drawn = std::mem::take(&mut self.drawn);
        let last_line = memchr::memrchr(b'\n', &drawn).map_or(0, |newline| newline + 1);
        let (mut head, tail) = drawn.split_at(last_line);
        let mut out = Vec::with_capacity(drawn.len() + 256);
        if let Some(start) = start {
            if let LineStart::At(at) = next_line_start(head) {
                out.extend_from_slice(&head[..at]);
                head = &head[at..];
            }
            out.extend(start);
        }
        out.extend_from_slice(head);
        let ends = std::mem::take(&mut self.ends);
        for (_, mark) in ends.iter().filter(|(letter, _)| *letter != b'B') {
            out.extend_from_slice(mark);
        }
        out.extend_from_slice(tail);
        // Drawn up to a line end: no prompt waits on the last line, the command line typed
        // after it was drawn whole before the pause.
        let ended_at_line_end = tail.is_empty() && !head.is_empty();
        for (_, mark) in ends.iter().filter(|(letter, _)| *letter == b'B') {
            out.extend_from_slice(mark);
            self.line_ended = ended_at_line_end;
        }
        out
    }
}

/// Where the next line starts in text drawn after the command line.
#[derive(Debug, PartialEq, Eq)]
enum LineStart {
    At(usize),
    /// The text ends with a move to the first column: whether output is drawn there shows in
    /// the next piece.
    Maybe,
    NotYet,
}

/// Where the next line starts in `text`: after a line end, or at a cursor move to the first
/// column that text is drawn at. tmux sends no line end for a line feed above the bottom row
/// after a mark passed through (the mark resets its idea of where the cursor is): it moves the
/// cursor there when it draws the next text.
fn next_line_start(text: &[u8]) -> LineStart {
    let newline = memchr::memchr(b'\n', text).map(|at| at + 1);
    let mut at = 0;
    while let Some(escape) = memchr::memchr(b'\x1b', &text[at..]).map(|found| at + found) {
        if newline.is_some_and(|newline| newline <= escape) {
            break;
        }
        let Some((params, len)) = csi(&text[escape..]) else {
            at = escape + 1;
            continue;
        };
        let column = params.split(|byte| *byte == b';').nth(1).unwrap_or(b"1");
        if text[escape + len - 1] == b'H' && matches!(column, b"" | b"1") {
            match what_comes_next(&text[escape + len..]) {
                Next::Text => return LineStart::At(escape),
                Next::End => return LineStart::Maybe,
                Next::Move => {}
            }
        }
        at = escape + len;
    }
    newline.map_or(LineStart::NotYet, LineStart::At)
}

/// `ESC [ params final` at the start of `bytes`: the params and the sequence's length.
fn csi(bytes: &[u8]) -> Option<(&[u8], usize)> {
    let body = bytes.strip_prefix(b"\x1b[")?;
    let end = body.iter().position(|byte| (0x40..=0x7e).contains(byte))?;
    Some((&body[..end], end + 3))
}

/// What follows a cursor move, past colours, line erases and mode switches.
#[derive(Debug, PartialEq, Eq)]
enum Next {
    Text,
    End,
    Move,
}

fn what_comes_next(mut bytes: &[u8]) -> Next {
    loop {
        match bytes.first() {
            Some(0x1b) => match csi(bytes) {
                Some((_, len)) if matches!(bytes[len - 1], b'm' | b'K' | b'h' | b'l') => {
                    bytes = &bytes[len..];
                }
                _ => return Next::Move,
            },
            Some(byte) if *byte >= b' ' => return Next::Text,
            Some(_) => return Next::Move,
            None => return Next::End,
        }
    }
}

/// Takes OSC 133 marks (`ESC ] 133 ; … BEL` or `… ESC \`) out of a stream, across chunks.
#[derive(Debug, Default)]
struct MarkSplitter {
    /// The start of a possible mark at the end of the last chunk.
    partial: Vec<u8>,
}

const MARK_START: &[u8] = b"\x1b]133;";

impl MarkSplitter {
    /// The chunk as text and the marks it ended, in order.
    fn split(&mut self, chunk: &[u8]) -> Vec<Piece> {
        let mut data = std::mem::take(&mut self.partial);
        data.extend_from_slice(chunk);
        let mut pieces = Vec::new();
        let mut text = Vec::with_capacity(data.len());
        let mut i = 0;
        while i < data.len() {
            let Some(at) = memchr::memchr(0x1b, &data[i..]) else {
                text.extend_from_slice(&data[i..]);
                break;
            };
            let start = i + at;
            text.extend_from_slice(&data[i..start]);
            let rest = &data[start..];
            if rest.len() < MARK_START.len() {
                if MARK_START.starts_with(rest) {
                    self.partial = rest.to_vec();
                } else {
                    text.extend_from_slice(rest);
                }
                break;
            }
            if !rest.starts_with(MARK_START) {
                text.push(0x1b);
                i = start + 1;
                continue;
            }
            let end = rest
                .iter()
                .enumerate()
                .skip(MARK_START.len())
                // BEL, or ST (ESC \\).
                .find_map(|(n, &b)| {
                    (b == 0x07 || (b == b'\\' && rest[n - 1] == 0x1b)).then_some(n + 1)
                });
            match end {
                Some(end) if end <= MAX_MARK => {
                    // The folder the shell reports right after its mark stays right after it
                    // (only there is it the shell's), so it goes where the mark goes.
                    let end = match osc7_after(&rest[end..]) {
                        Osc7::Whole(len) => end + len,
                        Osc7::Partial if rest.len() < MAX_MARK + MAX_OSC7 => {
                            self.partial = rest.to_vec();
                            break;
                        }
                        Osc7::Partial | Osc7::None => end,
                    };
                    if !text.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    let letter = rest.get(MARK_START.len()).copied().unwrap_or_default();
                    pieces.push(Piece::Mark(letter, rest[..end].to_vec()));
                    i = start + end;
                }
                None if rest.len() < MAX_MARK => {
                    self.partial = rest.to_vec();
                    break;
                }
                // Too long for a mark: text.
                _ => {
                    text.push(0x1b);
                    i = start + 1;
                }
            }
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        pieces
    }

    fn rest(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.partial)
    }
}

const OSC7_START: &[u8] = b"\x1b]7;";
/// The longest OSC 7 kept with its mark: a percent-encoded `PATH_MAX` path and a host name.
const MAX_OSC7: usize = 3 * crate::terminal::marks::MAX_CWD_BYTES + 300;

/// An OSC 7 at the start of some bytes.
#[derive(Debug, PartialEq, Eq)]
enum Osc7 {
    /// Ended (BEL or ST), this long.
    Whole(usize),
    /// Begun, its end not here yet.
    Partial,
    None,
}

fn osc7_after(bytes: &[u8]) -> Osc7 {
    if !bytes.starts_with(OSC7_START) {
        return if !bytes.is_empty() && OSC7_START.starts_with(bytes) {
            Osc7::Partial
        } else {
            Osc7::None
        };
    }
    let end = bytes
        .iter()
        .enumerate()
        .skip(OSC7_START.len())
        .take(MAX_OSC7)
        .find_map(|(n, &b)| (b == 0x07 || (b == b'\\' && bytes[n - 1] == 0x1b)).then_some(n + 1));
    end.map_or(Osc7::Partial, Osc7::Whole)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// Reads `io`'s output into `got` until it ends with `suffix`.
    async fn read_until(io: &mut ShellIo, got: &mut Vec<u8>, suffix: &[u8]) {
        while !got.ends_with(suffix) {
            match io.output.recv().await.unwrap() {
                ShellOutput::Data(bytes) => got.extend(bytes),
                closed => panic!("{closed:?}"),
            }
        }
    }

    #[test]
    fn session_names_are_the_tab_id_or_a_clean_one_with_a_hash() {
        assert_eq!(session_name("tab-0a1b"), "kaiport-tab-0a1b");
        let odd = session_name("a b.c:d");
        assert!(odd.starts_with("kaiport-a_b_c_d-"), "{odd}");
        assert_ne!(odd, session_name("a_b_c_d"));
        assert_ne!(session_name("a.b"), session_name("a:b"));
    }

    #[test]
    fn commands_are_one_single_quoted_sh_script() {
        let command = attach_command(Multiplexer::Tmux, "kaiport-t1", 80, 24);
        assert!(command.starts_with("exec sh -c '"), "{command}");
        assert_eq!(command.matches('\'').count(), 2, "{command}");
        assert!(command.contains("allow-passthrough on"));
        assert!(!command.contains('!'));
    }

    #[test]
    fn marks_come_out_of_the_stream_even_split_over_chunks() {
        let mut splitter = MarkSplitter::default();
        let text = |bytes: &[u8]| Piece::Text(bytes.to_vec());
        assert_eq!(
            splitter.split(b"a\x1b[1mb\x1b]133;D;0;kp=x\x07c\x1b]13"),
            [
                text(b"a\x1b[1mb"),
                Piece::Mark(b'D', b"\x1b]133;D;0;kp=x\x07".to_vec()),
                text(b"c")
            ]
        );
        assert_eq!(
            splitter.split(b"3;A;kp=x\x1b\\d\x1b]0;title\x07"),
            [
                Piece::Mark(b'A', b"\x1b]133;A;kp=x\x1b\\".to_vec()),
                text(b"d\x1b]0;title\x07")
            ]
        );
        assert_eq!(splitter.split(b"\x1b"), []);
        assert_eq!(splitter.rest(), b"\x1b");
    }

    #[test]
    fn screens_alternate_screen_switches_go_even_when_split() {
        let mut filter = AlternateScreenFilter::default();
        assert_eq!(
            filter.filter(b"\x1b[?1049h\x1b[22;0;0t\x1b[H\x1b[2J$ "),
            b"\x1b[22;0;0t\x1b[H\x1b[2J$ "
        );
        assert_eq!(filter.filter(b"ls\r\n\x1b[?10"), b"ls\r\n");
        assert_eq!(filter.filter(b"49l\x1b[?25h"), b"\x1b[?25h");
        // Other private modes, and an ESC that starts none of them, pass whole.
        assert_eq!(
            filter.filter(b"\x1b[?1h\x1b[?2004h"),
            b"\x1b[?1h\x1b[?2004h"
        );
        assert_eq!(filter.filter(b"a\x1b"), b"a");
        assert_eq!(filter.filter(b"[?47"), b"");
        assert_eq!(filter.filter(b"0h"), b"\x1b[?470h");
    }

    /// As tmux sends them: the marks first, then the drawing of the text around them.
    #[tokio::test(flavor = "current_thread")]
    async fn marks_go_back_between_the_lines_drawn_after_them() {
        let (io, ends) = ShellIo::pair();
        let mut io = marks_after_redraw(io);
        let data = |bytes: &[u8]| ShellOutput::Data(bytes.to_vec());
        let (c, d, a, b) = (
            "\x1b]133;C\x07",
            "\x1b]133;D;0\x07",
            "\x1b]133;A\x07",
            "\x1b]133;B\x07",
        );
        let marks = format!("{c}\x1b[m{d}{a}{b}\x1b[1;1H");
        ends.output.send(data(marks.as_bytes())).await.unwrap();
        ends.output
            .send(data(b"\x1b[5;3Hecho hi\r\nhi\r\n$ "))
            .await
            .unwrap();
        let mut got = Vec::new();
        read_until(&mut io, &mut got, b.as_bytes()).await;
        assert_eq!(
            String::from_utf8(got).unwrap(),
            format!("\x1b[m\x1b[1;1H\x1b[5;3Hecho hi\r\n{c}hi\r\n{d}{a}$ {b}")
        );
    }

    /// The command line drawn whole (its line end out) before the `C` arrives: the output's
    /// first line is output, not taken for the command line.
    #[tokio::test(flavor = "current_thread")]
    async fn a_late_output_start_stays_before_the_first_line_of_output() {
        let (io, ends) = ShellIo::pair();
        let mut io = marks_after_redraw(io);
        let data = |bytes: &[u8]| ShellOutput::Data(bytes.to_vec());
        let (c, b) = ("\x1b]133;C\x07", "\x1b]133;B\x07");
        let mut got = Vec::new();
        let until = async |io: &mut ShellIo, got: &mut Vec<u8>, wanted: &[u8]| {
            while !got.windows(wanted.len()).any(|window| window == wanted) {
                match io.output.recv().await.unwrap() {
                    ShellOutput::Data(bytes) => got.extend(bytes),
                    closed => panic!("{closed:?}"),
                }
            }
        };
        ends.output
            .send(data(format!("$ {b}").as_bytes()))
            .await
            .unwrap();
        until(&mut io, &mut got, b.as_bytes()).await;
        ends.output.send(data(b"seq 2\r\n")).await.unwrap();
        until(&mut io, &mut got, b"seq 2\r\n").await;
        ends.output.send(data(c.as_bytes())).await.unwrap();
        ends.output.send(data(b"1\r\n2\r\n$ ")).await.unwrap();
        until(&mut io, &mut got, b"2\r\n$ ").await;
        assert_eq!(
            String::from_utf8(got).unwrap(),
            format!("$ {b}seq 2\r\n{c}1\r\n2\r\n$ ")
        );
    }

    /// As tmux sends it after a mark passed through: the command line's line feed becomes a
    /// cursor move to the next row, after a reset that also moves the cursor.
    #[tokio::test(flavor = "current_thread")]
    async fn a_cursor_move_to_the_next_row_starts_the_output() {
        let (io, ends) = ShellIo::pair();
        let mut io = marks_after_redraw(io);
        let data = |bytes: &[u8]| ShellOutput::Data(bytes.to_vec());
        let (c, b) = ("\x1b]133;C\x07", "\x1b]133;B\x07");
        ends.output
            .send(data(format!("$ {b}").as_bytes()))
            .await
            .unwrap();
        ends.output.send(data(b"seq 2")).await.unwrap();
        let reset = "\x1b(B\x1b[m\x1b[1;1H\x1b[1;30r";
        let moved = format!("{c}{reset}\x1b[18;1H\x1b[?1006h");
        ends.output.send(data(moved.as_bytes())).await.unwrap();
        ends.output
            .send(data(b"\x1b[32m1\r\n2\r\n$ "))
            .await
            .unwrap();
        let mut got = Vec::new();
        read_until(&mut io, &mut got, b"2\r\n$ ").await;
        let got = String::from_utf8(got).unwrap();
        let output = got.split(c).nth(1).unwrap_or_else(|| panic!("{got:?}"));
        assert_eq!(output, "\x1b[32m1\r\n2\r\n$ ", "{got:?}");
    }

    #[test]
    fn the_folder_reported_right_after_a_mark_stays_with_it() {
        let mut splitter = MarkSplitter::default();
        let d = "\x1b]133;D;0;kp=s\x07";
        let osc7 = "\x1b]7;file://h/tmp\x1b\\";
        let pieces = splitter.split(format!("x{d}{osc7}y").as_bytes());
        assert_eq!(
            pieces,
            vec![
                Piece::Text(b"x".to_vec()),
                Piece::Mark(b'D', format!("{d}{osc7}").into_bytes()),
                Piece::Text(b"y".to_vec()),
            ]
        );
        // Split over chunks: the mark waits for the rest of the OSC 7.
        assert_eq!(
            splitter.split(format!("{d}\x1b]7;file://h/t").as_bytes()),
            vec![]
        );
        assert_eq!(
            splitter.split(b"mp\x07$ "),
            vec![
                Piece::Mark(b'D', format!("{d}\x1b]7;file://h/tmp\x07").into_bytes()),
                Piece::Text(b"$ ".to_vec()),
            ]
        );
        // A mark at the end of a chunk does not wait for what may follow.
        assert_eq!(
            splitter.split(d.as_bytes()),
            vec![Piece::Mark(b'D', d.as_bytes().to_vec())]
        );
    }

    #[test]
    fn the_next_line_starts_after_a_line_end_or_at_a_move_to_the_first_column() {
        use LineStart::{At, Maybe, NotYet};
        assert_eq!(next_line_start(b"ls\r\nout"), At(4));
        assert_eq!(
            next_line_start(b"ls\x1b[1;1H\x1b[1;30r\x1b[7;1Hout"),
            At(15)
        );
        assert_eq!(next_line_start(b"\x1b[7H\x1b[?25h\x1b[32mout"), At(0));
        assert_eq!(next_line_start(b"\x1b[5;3Hls\r\n\x1b[9;1Hx"), At(10));
        // A move into the middle of a line, or to where the screen is then cleared, starts no
        // line; one at the end of the text may.
        assert_eq!(next_line_start(b"\x1b[7;3Hls"), NotYet);
        assert_eq!(next_line_start(b"\x1b[7;1H\x1b[2J"), NotYet);
        assert_eq!(next_line_start(b"\x1b[7;1H\x1b[?1006l"), Maybe);
    }

    /// The command line typed and drawn before the output paused after the prompt (the prompt
    /// end mark still held): the output's first line is output all the same.
    #[tokio::test(flavor = "current_thread")]
    async fn a_command_line_drawn_before_the_prompt_pause_is_not_output() {
        let (io, ends) = ShellIo::pair();
        let mut io = marks_after_redraw(io);
        let data = |bytes: &[u8]| ShellOutput::Data(bytes.to_vec());
        let (c, b) = ("\x1b]133;C\x07", "\x1b]133;B\x07");
        ends.output
            .send(data(format!("{b}$ seq 2\r\n{c}").as_bytes()))
            .await
            .unwrap();
        ends.output.send(data(b"1\r\n2\r\n$ ")).await.unwrap();
        let mut got = Vec::new();
        read_until(&mut io, &mut got, b"2\r\n$ ").await;
        let got = String::from_utf8(got).unwrap();
        let output = got.split(c).nth(1).unwrap_or_else(|| panic!("{got:?}"));
        assert_eq!(output, "1\r\n2\r\n$ ", "{got:?}");
    }
}
