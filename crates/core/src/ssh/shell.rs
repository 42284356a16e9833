//! The user's interactive shell on an SSH connection: [`SshSession::open_shell`] and the task
//! that pumps its channel to and from its [`ShellIo`]. Built on [`super::session`], which knows
//! nothing of it.
//!
//! Reading and writing run as two tasks so a large paste waiting for window space never stops
//! output from being read. The reader owns the outcome: it keeps reading after `exit-status`
//! until the channel ends, then sends exactly one [`ShellOutput::Closed`]. A channel that ends
//! without exit status or close from the server means the connection dropped.
//!
//! Closing ends the reading promptly: once kaiport has sent `CHANNEL_CLOSE` itself, russh no
//! longer passes the server's exit status and close on to the channel and keeps its queue open
//! until the connection is dropped, so the reader only drains what already arrived (briefly)
//! and reports the shell exited. Waiting for the queue to end made closing a tab wait out its
//! whole limit (`kaiport tool … run_command true` took 3 s). A server's
//! `CHANNEL_CLOSE` ends the reading as well: nothing may follow it (RFC 4254 §5.3).

use std::time::Duration;

use russh::client::Msg;
use russh::{Channel, ChannelMsg, ChannelWriteHalf, Pty};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{SshError, SshSession};
use crate::shell_io::{ShellClosed, ShellInput, ShellIo, ShellOutput, TransportEnds};

/// How long buffered output is still read after the connection is known to be gone, or after
/// kaiport closed the channel.
const DRAIN_AFTER_LOSS: Duration = Duration::from_millis(100);

impl SshSession {
    /// Opens a session channel with a pseudo-terminal of `cols`×`rows` and the user's login
    /// shell, and returns the pipe to it. A spawned task pumps bytes both ways until the channel
    /// ends; see [`ShellIo`] for what arrives last.
    pub async fn open_shell(&self, term: &str, cols: u16, rows: u16) -> Result<ShellIo, SshError> {
        self.open_terminal(term, cols, rows, None).await
    }

    /// Like [`SshSession::open_shell`], but with `command` run on the pseudo-terminal instead
    /// of the login shell when given (what a kept session attaches with, `super::kept`).
    pub async fn open_terminal(
        &self,
        term: &str,
        cols: u16,
        rows: u16,
        command: Option<&str>,
    ) -> Result<ShellIo, SshError> {
        let channel = self.open_session_channel().await?;
        channel
            .request_pty(
                /* want_reply */ true,
                term,
                u32::from(cols),
                u32::from(rows),
                /* pix_width */ 0,
                /* pix_height */ 0,
                &[(Pty::ECHO, 1)],
            )
            .await
            .map_err(|e| self.channel_error("request a terminal", e))?;
        if self.forwards_agent() {
            // No reply asked: a server that refuses still gives the shell, without the agent.
            channel
                .agent_forward(/* want_reply */ false)
                .await
                .map_err(|e| self.channel_error("forward the agent", e))?;
        }
        match command {
            Some(command) => channel
                .exec(/* want_reply */ true, command)
                .await
                .map_err(|e| self.channel_error("start the kept session", e))?,
            None => channel
                .request_shell(/* want_reply */ true)
                .await
                .map_err(|e| self.channel_error("start a shell", e))?,
        }
        let (io, ends) = ShellIo::pair();
        tokio::spawn(pump(channel, ends, self.clone()));
        Ok(io)
    }
}

async fn pump(channel: Channel<Msg>, ends: TransportEnds, session: SshSession) {
    let TransportEnds { input, output } = ends;
    let (mut reader, writer) = channel.split();
    let stop_writer = CancellationToken::new();
    let closed_by_us = CancellationToken::new();
    let writer_task = tokio::spawn(write_loop(
        writer,
        input,
        stop_writer.clone(),
        closed_by_us.clone(),
    ));

    let mut exit_status = None;
    let mut ended_by_server = false;
    let mut consumer_gone = false;
    let mut connection_gone = false;
    let mut closing = false;
    loop {
        let msg = if connection_gone || closing {
            // Deliver what was already received, but do not wait for more.
            tokio::time::timeout(DRAIN_AFTER_LOSS, reader.wait())
                .await
                .ok()
                .flatten()
        } else {
            tokio::select! {
                msg = reader.wait() => msg,
                // The connection can die while russh still holds the channel's sender.
                () = session.closed() => {
                    connection_gone = true;
                    continue;
                }
                () = closed_by_us.cancelled() => {
                    closing = true;
                    continue;
                }
            }
        };
        let Some(msg) = msg else { break };
        match msg {
            ChannelMsg::Data { data } | ChannelMsg::ExtendedData { data, .. } => {
                let delivered =
                    consumer_gone || output.send(ShellOutput::Data(data.to_vec())).await.is_ok();
                if !delivered {
                    // Nobody listens any more: close the channel, keep draining until it ends.
                    consumer_gone = true;
                    stop_writer.cancel();
                }
            }
            ChannelMsg::ExitStatus {
                exit_status: status,
            } => {
                exit_status = Some(status);
                ended_by_server = true;
            }
            ChannelMsg::ExitSignal { .. } | ChannelMsg::Eof => {
                ended_by_server = true;
            }
            ChannelMsg::Close => {
                ended_by_server = true;
                break;
            }
            _ => {}
        }
    }
    stop_writer.cancel();
    if let Err(e) = writer_task.await {
        tracing::debug!(error = %e, "shell writer task ended abnormally");
    }
    // Closed by the server, or by us on purpose: the shell exited (not a lost connection).
    let ended = ended_by_server || closing;
    let closed = if exit_status.is_some() || (ended && !session.is_closed()) {
        ShellClosed::Exited {
            status: exit_status,
        }
    } else {
        ShellClosed::ConnectionLost {
            reason: session.lost_reason(),
        }
    };
    if !consumer_gone {
        // Ignored error: the terminal dropped its receiver in the meantime; nothing left to tell.
        let _ = output.send(ShellOutput::Closed(closed)).await;
    }
}

async fn write_loop(
    writer: ChannelWriteHalf<Msg>,
    mut input: mpsc::Receiver<ShellInput>,
    stop: CancellationToken,
    closed_by_us: CancellationToken,
) {
    loop {
        let next = tokio::select! {
            () = stop.cancelled() => None,
            next = input.recv() => next,
        };
        let step = match next {
            Some(ShellInput::Data(bytes)) => {
                tokio::select! {
                    () = stop.cancelled() => break,
                    r = writer.data_bytes(bytes) => r,
                }
            }
            Some(ShellInput::Resize { cols, rows }) => {
                writer
                    .window_change(u32::from(cols), u32::from(rows), 0, 0)
                    .await
            }
            Some(ShellInput::Close) | None => {
                // Ignored errors: the channel or connection may already be gone, which is the goal.
                let _ = writer.eof().await;
                let _ = writer.close().await;
                closed_by_us.cancel();
                break;
            }
        };
        if let Err(e) = step {
            tracing::debug!(error = %e, "writing to the shell channel failed; the reader reports why");
            break;
        }
    }
}
