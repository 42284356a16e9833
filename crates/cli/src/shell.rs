//! `kaiport shell`: a terminal tab in this terminal. Keystrokes go to the engine as
//! `TerminalInput`, the shell's bytes come back as `TerminalOutput` and are written as they are.
//! The terminal is put in raw mode only while connected, and always restored.

use crate::connection::{ConnectionOptions, open_tab};
use crate::forward::{ForwardOptions, describe_report};
use anyhow::Context;
use kaiport_protocol::{ConnectionState, Event, ForwardStatus, Op};
use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;

const TAB: &str = "shell";

/// Restores the terminal when dropped, however the session ends.
struct RawMode;

impl RawMode {
    fn enable() -> anyhow::Result<RawMode> {
        crossterm::terminal::enable_raw_mode().context("cannot switch the terminal to raw mode")?;
        Ok(RawMode)
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = crossterm::terminal::disable_raw_mode();
    }
}

pub async fn run(
    connection: &str,
    options: &ConnectionOptions,
    forwards: &ForwardOptions,
) -> anyhow::Result<ExitCode> {
    if !forwards.all().is_empty() && connection == "local" {
        anyhow::bail!("-L, -R and -D need an SSH connection");
    }
    forwards.warn_if_exposed();
    let (engine, mut events, answerer) = open_tab(connection, options, TAB, None, false).await?;
    let mut forwards_opened = false;
    let interactive = std::io::stdin().is_terminal();
    let mut raw_mode = None;
    // Connected again after a drop: the reader is still there.
    let mut reading = false;
    let (input_tx, mut input_rx) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
    let mut stdout = std::io::stdout();
    #[cfg(unix)]
    let mut resizes =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::window_change())?;
    loop {
        #[cfg(unix)]
        let resized = resizes.recv();
        #[cfg(not(unix))]
        let resized = std::future::pending::<Option<()>>();
        tokio::select! {
            event = events.recv() => {
                let Some(event) = event else { anyhow::bail!("the engine stopped unexpectedly") };
                match event {
                    Event::TerminalOutput { data, .. } => {
                        stdout.write_all(&data)?;
                        stdout.flush()?;
                    }
                    Event::ConnectionState { state: ConnectionState::Connected, .. } => {
                        if interactive && raw_mode.is_none() {
                            raw_mode = Some(RawMode::enable()?);
                        }
                        if !reading {
                            reading = true;
                            spawn_stdin_reader(input_tx.clone());
                        }
                        if !forwards_opened {
                            forwards_opened = true;
                            forwards.open(&engine, TAB).await;
                        }
                    }
                    // Only what needs attention: the terminal is the shell's.
                    Event::ForwardState { forward, .. } => {
                        if matches!(forward.status, ForwardStatus::Failed { .. }) {
                            say_inline!("\r\nkaiport: {}\r\n", describe_report(&forward));
                        }
                    }
                    Event::ConnectionState {
                        state: ConnectionState::Reconnecting { in_ms, reason, .. },
                        ..
                    } => {
                        let seconds = in_ms.div_ceil(1000);
                        say_inline!("\r\nkaiport: {reason}; reconnecting in {seconds} s…\r\n");
                    }
                    Event::ConnectionState { state: ConnectionState::Failed { error }, .. } => {
                        say!("kaiport: could not connect to {connection}: {error}");
                        return Ok(ExitCode::FAILURE);
                    }
                    Event::ConnectionState { state: ConnectionState::Disconnected { reason }, .. } => {
                        drop(raw_mode.take());
                        say!("\r\nkaiport: {reason}");
                        engine.handle(Op::CloseTab { tab: TAB.to_owned() }).await;
                        return Ok(ExitCode::SUCCESS);
                    }
                    Event::PromptRequested { .. } => {
                        answerer.respond(&engine, &event).await;
                    }
                    Event::Error { message, .. } => say_inline!("\r\nkaiport: {message}\r\n"),
                    _ => {}
                }
            }
            input = input_rx.recv() => {
                match input {
                    Some(data) => {
                        engine.handle(Op::TerminalInput { tab: TAB.to_owned(), data }).await;
                    }
                    // stdin closed: let the shell see end of input.
                    None => engine.handle(Op::TerminalInput { tab: TAB.to_owned(), data: vec![4] }).await,
                }
            }
            _ = resized => {
                if let Ok((cols, rows)) = crossterm::terminal::size() {
                    engine.handle(Op::Resize { tab: TAB.to_owned(), cols, rows }).await;
                }
            }
        }
    }
}

/// Reads stdin as bytes and sends them on as they are: the shell on the other side decodes them
/// in its own locale (UTF-8 or not).
fn spawn_stdin_reader(sender: tokio::sync::mpsc::Sender<Vec<u8>>) {
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin();
        let mut buffer = [0u8; 4096];
        loop {
            match stdin.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(read) => {
                    if sender.blocking_send(buffer[..read].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
}
