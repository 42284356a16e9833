//! The byte pipe between a terminal tab's shell (an SSH shell channel or a local PTY) and the
//! terminal machinery. Transports produce a [`ShellIo`]; the terminal consumes it. Neither side
//! knows what the other is.

use tokio::sync::mpsc;

/// What the terminal sends to the shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellInput {
    /// Bytes typed into the shell (keys, pasted text, commands).
    Data(Vec<u8>),
    /// The visible size changed (SSH `window-change`, PTY resize).
    Resize { cols: u16, rows: u16 },
    /// Close the shell (EOF + close for SSH, kill for a local PTY).
    Close,
}

/// What the shell sends back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellOutput {
    /// Bytes the shell printed (stdout and stderr of a PTY are one stream).
    Data(Vec<u8>),
    /// The shell is gone. Sent once, last.
    Closed(ShellClosed),
}

/// Why a shell ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellClosed {
    /// The shell exited on its own (`exit`, `logout`), with its status when known.
    Exited { status: Option<u32> },
    /// The connection dropped (network, keepalive timeout, server went away).
    ConnectionLost { reason: String },
}

/// Both ends of one shell session, as handed from a transport to the terminal.
#[derive(Debug)]
pub struct ShellIo {
    pub input: mpsc::Sender<ShellInput>,
    pub output: mpsc::Receiver<ShellOutput>,
}

/// Channel capacity for shell pipes: large enough that a fast `cat` is not throttled by
/// per-message wakeups, small enough to bound memory when the consumer stalls.
pub const SHELL_PIPE_CAPACITY: usize = 256;

impl ShellIo {
    /// A connected pair: the `ShellIo` for the terminal, and the transport's ends.
    pub fn pair() -> (ShellIo, TransportEnds) {
        let (input_tx, input_rx) = mpsc::channel(SHELL_PIPE_CAPACITY);
        let (output_tx, output_rx) = mpsc::channel(SHELL_PIPE_CAPACITY);
        (
            ShellIo {
                input: input_tx,
                output: output_rx,
            },
            TransportEnds {
                input: input_rx,
                output: output_tx,
            },
        )
    }
}

/// The transport's side of a [`ShellIo`] pair.
#[derive(Debug)]
pub struct TransportEnds {
    pub input: mpsc::Receiver<ShellInput>,
    pub output: mpsc::Sender<ShellOutput>,
}
