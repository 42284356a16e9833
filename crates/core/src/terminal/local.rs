//! The local shell tab: a PTY (portable-pty) running the user's shell, exposed as a
//! [`ShellIo`] like an SSH shell channel.
//!
//! Two std threads per shell: a blocking reader feeding `ShellOutput::Data` (64 KB reads) and
//! finally `Closed(Exited { status })`, and a writer applying `ShellInput` (bytes, resize,
//! close). Dropping the terminal (the input sender) kills the shell. Desktop only (feature
//! `local-terminal`); it never touches the user's files or shell configuration.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

use super::TerminalError;
use crate::shell_io::{ShellClosed, ShellInput, ShellIo, ShellOutput};

const READ_BUFFER: usize = 64 * 1024;

/// What to run in a local PTY.
#[derive(Debug, Clone, Default)]
pub struct LocalShellCommand {
    /// The shell; `None`: `$SHELL`, else the login shell of the user, else `/bin/sh`
    /// (`%COMSPEC%` / cmd.exe on Windows).
    pub program: Option<PathBuf>,
    pub args: Vec<OsString>,
    /// Extra environment (on top of the inherited one and `TERM=xterm-256color`).
    pub env: Vec<(OsString, OsString)>,
    pub cwd: Option<PathBuf>,
    pub cols: u16,
    pub rows: u16,
}

/// Starts `shell` (or the user's default shell) in a local PTY of `cols`×`rows`.
pub fn spawn_local_shell(
    shell: Option<&Path>,
    cols: u16,
    rows: u16,
) -> Result<ShellIo, TerminalError> {
    spawn_local_command(LocalShellCommand {
        program: shell.map(Path::to_path_buf),
        cols,
        rows,
        ..LocalShellCommand::default()
    })
}

fn default_shell() -> PathBuf {
    #[cfg(windows)]
    {
        // Windows PowerShell ships with every Windows since 7 and is what Windows Terminal
        // opens; cmd (COMSPEC) where it has been removed.
        std::env::var_os("SystemRoot")
            .map(|root| PathBuf::from(root).join(r"System32\WindowsPowerShell\v1.0\powershell.exe"))
            .filter(|powershell| powershell.is_file())
            .or_else(|| std::env::var_os("COMSPEC").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("cmd.exe"))
    }
    #[cfg(not(windows))]
    {
        // $SHELL can be missing (services, cron, `env -i`): the login shell from the user
        // database is what the user would get on a console.
        std::env::var_os("SHELL")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                nix::unistd::User::from_uid(nix::unistd::getuid())
                    .ok()
                    .flatten()
                    .map(|user| user.shell)
                    .filter(|shell| !shell.as_os_str().is_empty() && shell.is_file())
            })
            .unwrap_or_else(|| PathBuf::from("/bin/sh"))
    }
}

/// Variables the front end set in its own environment for itself (the desktop window tunes its
/// web view that way); local shells start without them, as they would from the user's session.
static NOT_FOR_SHELLS: Mutex<Vec<OsString>> = Mutex::new(Vec::new());

/// Local shells started from now on do not inherit `name` from this process.
pub fn keep_from_local_shells(name: impl Into<OsString>) {
    NOT_FOR_SHELLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(name.into());
}

/// Starts a local PTY running `command`.
pub fn spawn_local_command(command: LocalShellCommand) -> Result<ShellIo, TerminalError> {
    let program = command.program.clone().unwrap_or_else(default_shell);
    let shell_name = program.display().to_string();
    let fail = |reason: String| TerminalError::LocalShell {
        shell: shell_name.clone(),
        reason,
    };

    let size = PtySize {
        rows: command.rows.max(1),
        cols: command.cols.max(1),
        pixel_width: 0,
        pixel_height: 0,
    };
    let pair = native_pty_system()
        .openpty(size)
        .map_err(|e| fail(format!("no PTY: {e:#}")))?;
    let mut builder = CommandBuilder::new(&program);
    builder.args(&command.args);
    for name in NOT_FOR_SHELLS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
    {
        builder.env_remove(name);
    }
    builder.env("TERM", "xterm-256color");
    for (key, value) in &command.env {
        builder.env(key, value);
    }
    if let Some(cwd) = &command.cwd {
        builder.cwd(cwd);
    } else if let Some(home) = std::env::var_os("HOME") {
        builder.cwd(home);
    }
    let mut child = pair
        .slave
        .spawn_command(builder)
        .map_err(|e| fail(format!("{e:#}")))?;
    // Only the child may hold the slave, or the reader never sees the end.
    drop(pair.slave);
    let mut killer = child.clone_killer();
    let mut reader = pair
        .master
        .try_clone_reader()
        .map_err(|e| fail(format!("{e:#}")))?;
    let mut writer = pair
        .master
        .take_writer()
        .map_err(|e| fail(format!("{e:#}")))?;
    let master = pair.master;

    let (io, mut ends) = ShellIo::pair();
    let output = ends.output;
    std::thread::Builder::new()
        .name("kaiport-pty-reader".to_owned())
        .spawn(move || {
            let mut buffer = vec![0u8; READ_BUFFER];
            loop {
                match reader.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if output
                            .blocking_send(ShellOutput::Data(buffer[..n].to_vec()))
                            .is_err()
                        {
                            let _ = child.kill();
                            break;
                        }
                    }
                }
            }
            let status = child.wait().ok().map(|status| status.exit_code());
            let _ = output.blocking_send(ShellOutput::Closed(ShellClosed::Exited { status }));
        })
        .map_err(|e| fail(format!("no reader thread: {e}")))?;
    std::thread::Builder::new()
        .name("kaiport-pty-writer".to_owned())
        .spawn(move || {
            while let Some(input) = ends.input.blocking_recv() {
                match input {
                    ShellInput::Data(bytes) => {
                        if writer
                            .write_all(&bytes)
                            .and_then(|()| writer.flush())
                            .is_err()
                        {
                            break;
                        }
                    }
                    ShellInput::Resize { cols, rows } => {
                        let size = PtySize {
                            rows,
                            cols,
                            pixel_width: 0,
                            pixel_height: 0,
                        };
                        if let Err(err) = master.resize(size) {
                            tracing::warn!(%err, "local terminal resize failed");
                        }
                    }
                    ShellInput::Close => break,
                }
            }
            // Closed or dropped: end the shell; the reader then reports the exit.
            let _ = killer.kill();
        })
        .map_err(|e| fail(format!("no writer thread: {e}")))?;
    Ok(io)
}
