//! The terminal tab machinery: screen mirror, OSC 133 marks, prompt heuristic, command runner,
//! key encoding.
//!
//! [`Terminal::start`] takes a [`ShellIo`](crate::shell_io::ShellIo) (an SSH shell channel or a
//! local PTY from [`spawn_local_shell`]) and runs a pump task that mirrors the screen and passes
//! every output chunk to the UI. Pilot's terminal tools map onto it: `run_command` →
//! [`Terminal::run_command`], `send_input` → [`Terminal::send_input`], `read_screen` →
//! [`Terminal::read_screen`]. The user's keystrokes go through [`Terminal::user_input`].
//!
//! Submodules, each usable on its own:
//! - [`marks`]: finds OSC 133 marks and their byte offsets in the stream.
//! - [`render`]: turns a command's raw bytes into plain text (final text per line).
//! - [`prompt`]: "looks like a prompt" / "looks like a question" heuristics.
//! - [`integration`]: bash/zsh/fish snippets and the hidden shell probe.
//! - [`keys`]: xterm encodings for send_input keys.
//!
//! This module never decides whether a command is allowed (policy), never caps output for the
//! model (tools), and knows nothing about SSH or the UI.

pub mod fast_forward;
pub mod integration;
pub mod keys;
#[cfg(feature = "local-terminal")]
mod local;
pub mod marks;
pub mod prompt;
pub mod render;
pub mod scrollback;
mod session;

use std::time::Duration;

use crate::shell_io::ShellClosed;

pub use integration::Passthrough;
pub use integration::ShellKind;
pub use keys::{encode_key, encode_key_for};
#[cfg(feature = "local-terminal")]
pub use local::{
    LocalShellCommand, keep_from_local_shells, spawn_local_command, spawn_local_shell,
};
pub use session::{KeptShell, PromptInput, StagedInput, Terminal};

/// Whether kaiport uses OSC 133 shell integration on this connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShellIntegrationMode {
    /// Detect bash/zsh/fish and inject the snippet on connect (hidden from the user).
    #[default]
    Inject,
    /// Use marks if the shell already sends them (server-side setup); inject nothing.
    DetectOnly,
    /// Ignore marks; always use the prompt heuristic.
    Off,
}

/// Per-connection terminal settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalSettings {
    pub shell_integration: ShellIntegrationMode,
    /// Lines of scrollback in the mirror.
    pub scrollback_lines: usize,
    /// Output must be quiet this long before the heuristic calls a command finished.
    pub quiet_period: Duration,
}

impl Default for TerminalSettings {
    fn default() -> Self {
        TerminalSettings {
            shell_integration: ShellIntegrationMode::Inject,
            scrollback_lines: 10_000,
            quiet_period: Duration::from_millis(500),
        }
    }
}

/// What the terminal tells the UI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TerminalNotice {
    /// Bytes to show, in order (never the hidden integration setup).
    Output(Vec<u8>),
    /// The shell's current folder changed (its integration's OSC 7; never from output alone).
    Cwd(String),
    /// The shell is gone; sent once, last.
    Closed(ShellClosed),
}

/// Why a terminal operation could not be done. Messages are written for the model and the user:
/// they say what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TerminalError {
    /// The shell exited (`exit`, logout).
    #[error("the shell has exited{}", .status.map(|s| format!(" (status {s})")).unwrap_or_default())]
    ShellExited { status: Option<u32> },
    /// The connection to the server dropped.
    #[error(
        "the connection to the server was lost: {reason}; nothing can run in this tab until \
         it is connected again (kaiport reconnects by itself, or the user reconnects it)"
    )]
    ConnectionLost { reason: String },
    /// No prompt appeared in time after connecting.
    #[error("the shell showed no prompt within {} s", .waited.as_secs_f32())]
    NotReady { waited: Duration },
    /// run_command got more than one line.
    #[error(
        "the command contains a line break; run_command types exactly one line: join commands \
         with `;` or `&&`, or write a script file first"
    )]
    MultiLineCommand,
    /// run_command got a control character (it would act as a key press).
    #[error("the command contains the control character U+{code:04X}; use send_input for keys")]
    ControlCharacter { code: u32 },
    /// run_command got nothing to run.
    #[error("the command is empty")]
    EmptyCommand,
    /// A full-screen program (vim, less, top) is open.
    #[error(
        "a full-screen program is open in the terminal (alternate screen); look at it with \
         read_screen and control or quit it with send_input before running commands"
    )]
    FullScreenActive,
    /// The user has typed something at the prompt that was not submitted.
    #[error(
        "the user has typed {} at the prompt without pressing Enter; not typing over it — \
         wait and try again, or ask the user",
        crate::taint::server_text(.text)
    )]
    InputLinePending { text: String },
    /// Text Pilot itself typed at the prompt with send_input (without Enter) is still there.
    #[error(
        "the prompt still holds {text:?}, which you typed with send_input without pressing Enter \
         (the user did not type it); run it with send_input key \"enter\" (it is checked first), \
         or clear it with send_input key \"ctrl-c\", then try again"
    )]
    StagedLinePending { text: String },
    /// The shell is not at a prompt (a command still runs, or waits for input).
    #[error(
        "the terminal is not at a prompt (a command is still running or waiting for input; the \
         cursor line is {}); use read_screen to watch it, send_input to answer, or \
         send_input key \"ctrl-c\" to stop it",
        crate::taint::server_text(.cursor_line)
    )]
    NotAtPrompt { cursor_line: String },
    /// send_input's Enter was not pressed: the line at the prompt changed after it was judged.
    #[error(
        "the line at the prompt changed after it was checked ({}, now {}); Enter \
         was not pressed — look with read_screen and try again",
        crate::taint::server_text(.checked),
        crate::taint::server_text(.now)
    )]
    LineChanged { checked: String, now: String },
    /// send_input's keys before Enter were not seen through: the shell did not show that it had
    /// read them all, so the line Enter would run could not be read. They were taken back.
    #[error(
        "the shell did not show within {} s that it had read the keys typed at its prompt, so \
         the line Enter would run could not be read; Enter was not pressed and the typed keys \
         were taken back with Ctrl-C — look with read_screen and try again, or use run_command",
        .waited.as_secs()
    )]
    TypingNotConfirmed { waited: std::time::Duration },
    /// send_input got neither text nor key.
    #[error("send_input needs text, a key, or both")]
    NothingToSend,
    /// resize got a zero dimension.
    #[error("invalid terminal size {cols}x{rows}: both must be at least 1")]
    InvalidSize { cols: u16, rows: u16 },
    /// The call was cancelled.
    #[error("cancelled")]
    Cancelled,
    /// Shell integration could not be set up (the terminal keeps working with the heuristic).
    #[error("shell integration could not be set up: {reason}")]
    Integration { reason: String },
    /// The local shell could not be started.
    #[error("could not start the local shell {shell}: {reason}")]
    LocalShell { shell: String, reason: String },
}

impl TerminalError {
    /// The error for a shell that has closed for `reason`.
    pub fn from_closed(reason: &ShellClosed) -> TerminalError {
        match reason {
            ShellClosed::Exited { status } => TerminalError::ShellExited { status: *status },
            ShellClosed::ConnectionLost { reason } => TerminalError::ConnectionLost {
                reason: reason.clone(),
            },
        }
    }
}
