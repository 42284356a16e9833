//! What kaiport knows about the machine behind a terminal tab, from a read-only probe run once
//! per connection. Every string came from the server: front ends show it as text, never as markup.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specta::Type;

/// The host behind a terminal tab. `None` in a field: the probe could not tell (never a guess).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct HostFacts {
    /// Name and version of the system (`Debian GNU/Linux 12 (bookworm)`, `macOS 14.5`).
    pub os: Option<String>,
    /// Kernel name, release and machine (`Linux 6.1.0-18-amd64 x86_64`).
    pub kernel: Option<String>,
    pub hostname: Option<String>,
    /// The login user.
    pub user: Option<String>,
    pub uid: Option<u32>,
    pub groups: Vec<String>,
    /// The user is root or in a group that usually may use sudo (sudo, wheel, admin). Whether
    /// sudo needs a password is not probed: that would need sudo.
    pub may_sudo: Option<bool>,
    /// The user's login shell (from the user database, else `$SHELL`).
    pub login_shell: Option<String>,
    /// `systemd`, `openrc`, `launchd`, `sysvinit`, `runit`, `busybox`.
    pub init: Option<String>,
    /// `apt`, `dnf`, `yum`, `zypper`, `apk`, `pacman`, `brew`.
    pub package_manager: Option<String>,
    /// Whose command-line tools: `GNU`, `BusyBox` or `BSD` (flags differ).
    pub userland: Option<String>,
    /// The container the shell runs in (`docker`, `podman`, `lxc`, …); `Some("none")` when the
    /// probe found none.
    pub container: Option<String>,
    /// The server's clock and zone when probed (`2026-12-05 03:10:00 +0000 UTC`).
    pub server_time: Option<String>,
    /// Why the probe failed or was cut short; None when it answered.
    pub probe_error: Option<String>,
}
