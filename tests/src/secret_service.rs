//! A real freedesktop Secret Service for tests: `gnome-keyring-daemon` on a private D-Bus session
//! bus, with its keyrings in a temp HOME, so kaiport's keychain code runs against the same store
//! a Linux desktop has.
//!
//! Each [`SecretService::command`] runs one program under `dbus-run-session`, which starts a bus
//! for it and stops that bus when the program exits; the keyring daemon is unlocked (empty
//! password) at the start and leaves with its bus. The keyring files stay in the temp HOME, so a
//! secret saved by one command is read by the next, and everything goes when the fixture drops.
//! Nothing here touches the user's real keyring or bus.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Result, bail};
use tempfile::TempDir;

/// Unlocks (or creates, with an empty password) the login keyring, then runs the program.
const UNLOCK_THEN_RUN: &str = "printf '\\n' | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 97; exec \"$@\"";

/// A temp HOME whose keyring is served by a real Secret Service while a command runs.
#[derive(Debug)]
pub struct SecretService {
    home: TempDir,
}

impl SecretService {
    /// Fails with what to install when `dbus-run-session` or `gnome-keyring-daemon` is missing.
    pub fn new() -> Result<SecretService> {
        for program in ["dbus-run-session", "gnome-keyring-daemon"] {
            if find(program).is_none() {
                bail!(
                    "{program} is not installed: run scripts/install-test-deps.sh (packages dbus, \
                     gnome-keyring)"
                );
            }
        }
        let home = tempfile::tempdir()?;
        std::fs::create_dir_all(home.path().join("run"))?;
        Ok(SecretService { home })
    }

    /// The HOME (and KAIPORT_HOME) the commands run with.
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// `program` with a Secret Service on its session bus. Exit status 97: the keyring could
    /// not be unlocked.
    pub fn command(&self, program: impl AsRef<Path>) -> Command {
        let mut command = Command::new("dbus-run-session");
        command
            .args(["--", "sh", "-c", UNLOCK_THEN_RUN, "sh"])
            .arg(program.as_ref())
            .env("HOME", self.home())
            .env("KAIPORT_HOME", self.home())
            .env("XDG_RUNTIME_DIR", self.home().join("run"))
            .env_remove("DBUS_SESSION_BUS_ADDRESS");
        command
    }
}

fn find(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}
