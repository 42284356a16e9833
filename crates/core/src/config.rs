//! Where the engine keeps its files (config, data, audit log, known hosts) and the defaults for
//! new tabs. Reads the environment only; never writes a file.

use crate::connect::profiles::PROFILES_FILE;
use crate::policy::this_computer::ThisComputer;
use kaiport_protocol::ConnectionSettings;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Audit(#[from] crate::audit::AuditError),
    #[error(
        "cannot find a home folder for kaiport's files; set KAIPORT_HOME to a folder kaiport may use"
    )]
    NoHome,
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
        }
    }
}
