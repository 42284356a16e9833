//! Where the engine keeps its files (config, data, audit log, known hosts) and the defaults for
//! new tabs, and what the engine does when a terminal's connection drops ([`ReconnectConfig`]).
//! Reads the environment only; never writes a file.

use crate::connect::profiles::PROFILES_FILE;
use crate::policy::this_computer::ThisComputer;
use kaiport_protocol::ConnectionSettings;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The environment variable that turns automatic reconnecting off (`off`) or on (`on`).
pub const RECONNECT_ENV: &str = "KAIPORT_RECONNECT";
/// The environment variable with the dead-peer time in whole seconds.
pub const DEAD_PEER_ENV: &str = "KAIPORT_DEAD_PEER_SECONDS";
/// The environment variable that turns reopening the last run's tabs off (`off`) or on (`on`).
pub const RESTORE_TABS_ENV: &str = "KAIPORT_RESTORE_TABS";
/// The environment variable with how many hosts a fleet run works on at once.
pub const FLEET_CONCURRENCY_ENV: &str = "KAIPORT_FLEET_CONCURRENCY";

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Audit(#[from] crate::audit::AuditError),
    #[error(
        "cannot find a home folder for kaiport's files; set KAIPORT_HOME to a folder kaiport may use"
    )]
    NoHome,
    #[error("{name}={value:?} is not valid: {expected}")]
    BadSetting {
        name: &'static str,
        value: String,
        expected: &'static str,
    },
    #[error("cannot create the documents folder {path}: {source}")]
    Documents {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Where the engine keeps its files, and the defaults for new tabs.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Connection profiles and settings.
    pub config_dir: PathBuf,
    /// Audit log, histories.
    pub data_dir: PathBuf,
    pub audit_path: PathBuf,
    /// Saved connection profiles (`connections.toml`).
    pub profiles_path: PathBuf,
    /// OpenSSH known_hosts file used to verify servers.
    pub known_hosts: PathBuf,
    pub default_settings: ConnectionSettings,
    /// When set, the local side of every storage tab is this folder, whatever the front end
    /// asked for: the app's own documents folder on a phone (shown in the Files app on iOS),
    /// never the whole device. Created when the engine starts. None: the front end names the
    /// folders (`TabTarget::Storage::local_roots`). Told to front ends in `Hello`.
    pub documents_dir: Option<PathBuf>,
    /// This computer's start-up, ssh, git, autostart and `PATH` files, which Pilot changes only
    /// when asked (`policy::this_computer`): the user's own by default.
    pub this_computer: ThisComputer,
    /// What happens when a terminal tab's connection drops.
    pub reconnect: ReconnectConfig,
    /// A front end that remembers its tabs (`Engine::remember_tabs`: `kaiport serve`, the
    /// desktop app) opens the last run's again when it starts. Default on;
    /// `KAIPORT_RESTORE_TABS=off` turns it off.
    pub restore_tabs: bool,
    /// How many hosts a fleet run works on at once unless the run says
    /// (`KAIPORT_FLEET_CONCURRENCY`, 1 to [`crate::fleet::MAX_CONCURRENCY`]; default 16).
    pub fleet_concurrency: usize,
}

/// `KAIPORT_FLEET_CONCURRENCY`, or the default.
fn fleet_concurrency_from_environment() -> Result<usize, EngineError> {
    let Some(value) = std::env::var(FLEET_CONCURRENCY_ENV)
        .ok()
        .filter(|value| !value.trim().is_empty())
    else {
        return Ok(crate::fleet::DEFAULT_CONCURRENCY);
    };
    value
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|count| (1..=crate::fleet::MAX_CONCURRENCY).contains(count))
        .ok_or(EngineError::BadSetting {
            name: FLEET_CONCURRENCY_ENV,
            value,
            expected: "a whole number from 1 to 256",
        })
}

/// Engine-wide: how a dropped SSH terminal tab is noticed and connected again
/// (docs/architecture.md, "When a connection drops").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReconnectConfig {
    /// Connect a terminal tab whose connection was lost again by itself (not one whose shell
    /// exited). Default on; `KAIPORT_RECONNECT=off` turns it off.
    pub automatic: bool,
    /// How long a silent server is given before its connection counts as lost: keepalives go
    /// out every quarter of it and the fourth unanswered one ends the connection. Default 15 s;
    /// `KAIPORT_DEAD_PEER_SECONDS`.
    pub dead_peer: Duration,
    /// The wait before the first attempt; it doubles with each failed attempt up to
    /// [`ReconnectConfig::MAX_DELAY`].
    pub first_delay: Duration,
}

impl ReconnectConfig {
    /// The longest wait between two attempts, which go on while the tab is open.
    pub const MAX_DELAY: Duration = Duration::from_secs(30);
    /// The shortest dead-peer time accepted: keepalives more often than every half second
    /// would be noise on a slow link.
    pub const MIN_DEAD_PEER: Duration = Duration::from_secs(2);
    /// Unanswered keepalives that end a connection (the one after them is not sent).
    pub const KEEPALIVE_MAX: usize = 3;

    /// The wait before attempt `attempt` (from 1): 1, 2, 4, 8, 16, then 30 s by default.
    pub fn delay(&self, attempt: u32) -> Duration {
        let doubled = self
            .first_delay
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
        doubled.min(Self::MAX_DELAY)
    }

    /// How often a keepalive goes out when the server is quiet.
    pub fn keepalive_interval(&self) -> Duration {
        self.dead_peer.max(Self::MIN_DEAD_PEER) / (Self::KEEPALIVE_MAX as u32 + 1)
    }

    /// The defaults, changed by `KAIPORT_RECONNECT` and `KAIPORT_DEAD_PEER_SECONDS` when set.
    pub fn from_environment() -> Result<ReconnectConfig, EngineError> {
        let read = |name: &'static str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Self::from_values(read(RECONNECT_ENV), read(DEAD_PEER_ENV))
    }

    fn from_values(
        automatic: Option<String>,
        dead_peer: Option<String>,
    ) -> Result<ReconnectConfig, EngineError> {
        let mut config = ReconnectConfig::default();
        if let Some(value) = automatic {
            config.automatic = switch(RECONNECT_ENV, value)?;
        }
        if let Some(value) = dead_peer {
            let seconds = value
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|seconds| (2..=3600).contains(seconds));
            let Some(seconds) = seconds else {
                return Err(EngineError::BadSetting {
                    name: DEAD_PEER_ENV,
                    value,
                    expected: "whole seconds from 2 to 3600",
                });
            };
            config.dead_peer = Duration::from_secs(seconds);
        }
        Ok(config)
    }
}

impl Default for ReconnectConfig {
    fn default() -> Self {
        ReconnectConfig {
            automatic: true,
            dead_peer: Duration::from_secs(15),
            first_delay: Duration::from_secs(1),
        }
    }
}

impl EngineConfig {
    /// The standard places: everything under `$KAIPORT_HOME` when set, otherwise the OS config
    /// and data folders; known hosts from `~/.ssh/known_hosts`.
    pub fn from_environment() -> Result<EngineConfig, EngineError> {
        let (config_dir, data_dir) = match std::env::var_os("KAIPORT_HOME") {
            Some(home) if !home.is_empty() => (PathBuf::from(&home), PathBuf::from(home)),
            _ => (
                dirs::config_dir()
                    .ok_or(EngineError::NoHome)?
                    .join("kaiport"),
                dirs::data_dir().ok_or(EngineError::NoHome)?.join("kaiport"),
            ),
        };
        let known_hosts = dirs::home_dir()
            .ok_or(EngineError::NoHome)?
            .join(".ssh")
            .join("known_hosts");
        Ok(EngineConfig {
            audit_path: data_dir.join(crate::audit::AUDIT_FILE_NAME),
            profiles_path: config_dir.join(PROFILES_FILE),
            config_dir,
            data_dir,
            known_hosts,
            default_settings: ConnectionSettings::default(),
            documents_dir: None,
            this_computer: ThisComputer::from_env(),
            reconnect: ReconnectConfig::from_environment()?,
            restore_tabs: on_or_off(RESTORE_TABS_ENV, true)?,
            fleet_concurrency: fleet_concurrency_from_environment()?,
        })
    }
}

impl EngineConfig {
    /// Everything in one folder (tests, portable installs): profiles, audit log, known_hosts.
    pub fn in_dir(dir: &Path) -> EngineConfig {
        EngineConfig {
            config_dir: dir.to_owned(),
            data_dir: dir.to_owned(),
            audit_path: dir.join(crate::audit::AUDIT_FILE_NAME),
            profiles_path: dir.join(PROFILES_FILE),
            known_hosts: dir.join("known_hosts"),
            default_settings: ConnectionSettings::default(),
            documents_dir: None,
            this_computer: ThisComputer::from_env(),
            reconnect: ReconnectConfig::default(),
            restore_tabs: true,
            fleet_concurrency: crate::fleet::DEFAULT_CONCURRENCY,
        }
    }
}

/// The environment variable `name` as on or off; `default` when it is not set.
fn on_or_off(name: &'static str, default: bool) -> Result<bool, EngineError> {
    match std::env::var(name).ok().filter(|v| !v.trim().is_empty()) {
        None => Ok(default),
        Some(value) => switch(name, value),
    }
}

fn switch(name: &'static str, value: String) -> Result<bool, EngineError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "on" | "1" | "true" | "yes" => Ok(true),
        "off" | "0" | "false" | "no" => Ok(false),
        _ => Err(EngineError::BadSetting {
            name,
            value,
            expected: "on or off",
        }),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reconnect_waits_double_up_to_thirty_seconds() {
        let config = ReconnectConfig::default();
        let waits: Vec<u64> = (1..=8).map(|n| config.delay(n).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 30, 30, 30]);
        assert_eq!(config.delay(u32::MAX), ReconnectConfig::MAX_DELAY);
    }

    #[test]
    fn the_dead_peer_time_is_four_keepalive_intervals() {
        let config = ReconnectConfig::default();
        assert_eq!(config.keepalive_interval(), Duration::from_millis(3750));
    }

    #[test]
    fn reconnect_settings_come_from_their_variables_and_bad_ones_are_refused() {
        let config = ReconnectConfig::from_values(Some("off".into()), Some("8".into())).unwrap();
        assert!(!config.automatic);
        assert_eq!(config.dead_peer, Duration::from_secs(8));
        assert!(ReconnectConfig::from_values(None, None).unwrap().automatic);
        for (automatic, dead_peer) in [(Some("maybe"), None), (None, Some("1")), (None, Some("x"))]
        {
            let error = ReconnectConfig::from_values(
                automatic.map(str::to_owned),
                dead_peer.map(str::to_owned),
            )
            .unwrap_err();
            assert!(error.to_string().contains("is not valid"), "{error}");
        }
    }
}
