//! `kaiport shell`: a terminal tab in this terminal. Keystrokes go to the engine as
//! `TerminalInput`, the shell's bytes come back as `TerminalOutput` and are written as they are.
//! The terminal is put in raw mode only while connected, and always restored.

use crate::connection::{ConnectionOptions, open_tab};
use anyhow::Context;
use kaiport_protocol::{ConnectionState, Event, Op};
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

pub async fn run(connection: &str, options: &ConnectionOptions) -> anyhow::Result<ExitCode> {
    let (engine, mut events, answerer) = open_tab(connection, options, TAB, None, false).await?;
    let interactive = std::io::stdin().is_terminal();
    let mut raw_mode = None;
    let (input_tx, mut input_rx) = tokio::sync::mpsc::channel::<String>(64);
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
                        if interactive {
                            raw_mode = Some(RawMode::enable()?);
                        }
                        spawn_stdin_reader(input_tx.clone());
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
                    None => engine.handle(Op::TerminalInput { tab: TAB.to_owned(), data: "\u{4}".to_owned() }).await,
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

fn spawn_stdin_reader(sender: tokio::sync::mpsc::Sender<String>) {
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin();
        let mut buffer = [0u8; 4096];
        let mut text = Utf8Chunks::default();
        loop {
            match stdin.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(read) => {
                    let data = text.push(&buffer[..read]);
                    if !data.is_empty() && sender.blocking_send(data).is_err() {
                        break;
                    }
                }
            }
        }
    });
}

/// Turns reads of UTF-8 input into text without breaking a character that a read cut in two:
/// the incomplete tail waits for the next read. Bytes that are not UTF-8 at all become U+FFFD.
#[derive(Debug, Default)]
struct Utf8Chunks {
    pending: Vec<u8>,
}

impl Utf8Chunks {
    fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let keep = match std::str::from_utf8(&self.pending) {
            Ok(_) => 0,
            // An incomplete character at the very end (at most 3 bytes): keep it for later.
            Err(error) if error.error_len().is_none() => self.pending.len() - error.valid_up_to(),
            Err(_) => trailing_incomplete(&self.pending),
        };
        let tail = self.pending.split_off(self.pending.len() - keep);
        let text = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending = tail;
        text
    }
}

/// Length of an incomplete UTF-8 sequence at the end of `bytes` (0 if none).
fn trailing_incomplete(bytes: &[u8]) -> usize {
    for back in 1..=3.min(bytes.len()) {
        let byte = bytes[bytes.len() - back];
        let needed = match byte {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            0x80..=0xBF => continue,
            _ => return 0,
        };
        return if needed > back { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::Utf8Chunks;

    #[test]
    fn a_character_cut_by_a_read_is_kept_whole() {
        let bytes = "aé€😀z".as_bytes();
        for cut in 0..=bytes.len() {
            let mut chunks = Utf8Chunks::default();
            let mut text = chunks.push(&bytes[..cut]);
            text.push_str(&chunks.push(&bytes[cut..]));
            assert_eq!(text, "aé€😀z", "cut at {cut}");
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_become_replacement_characters() {
        let mut chunks = Utf8Chunks::default();
        assert_eq!(chunks.push(b"a\xffb"), "a\u{fffd}b");
        // Invalid in the middle, incomplete at the end: the tail still waits.
        assert_eq!(chunks.push(b"\xfe c\xe2\x82"), "\u{fffd} c");
        assert_eq!(chunks.push(b"\xac"), "€");
    }
}
