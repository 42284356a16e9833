//! A real freedesktop Secret Service for tests: `gnome-keyring-daemon` on a private D-Bus session
//! bus, with its keyrings in a temp HOME, so kaiport's keychain code runs against the same store
//! a Linux desktop has.
//!
//! Each [`SecretService::command`] runs one program under `dbus-run-session`, which starts a bus
//! for it and stops that bus when the program exits (only the program gets the caller's output
//! pipes); the keyring daemon is unlocked (empty
//! password) at the start and leaves with its bus. The keyring files stay in the temp HOME, so a
//! secret saved by one command is read by the next, and everything goes when the fixture drops.
//! Nothing here touches the user's real keyring or bus.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Result, bail};
use tempfile::TempDir;

/// Runs the bus with /dev/null as its output, the caller's stdout and stderr kept as fds 3 and
/// 4 for the program alone. A keyring daemon the bus started can outlive it (it once did, right
/// as the bus closed); with the caller's pipes it kept `Command::output` waiting forever.
const QUIET_BUS: &str = "inner=$1; shift; exec 3>&1 4>&2 >/dev/null 2>&1 dbus-run-session -- sh -c \"$inner\" sh \"$@\"";

/// Unlocks (or creates, with an empty password) the login keyring, then runs the program with
/// the caller's stdout and stderr (fds 3 and 4, see [`QUIET_BUS`]).
const UNLOCK_THEN_RUN: &str = "printf '\\n' | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 3>&- 4>&- || exit 97; exec \"$@\" 1>&3 2>&4 3>&- 4>&-";

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
        let mut command = Command::new("sh");
        command
            .args(["-c", QUIET_BUS, "sh", UNLOCK_THEN_RUN])
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
