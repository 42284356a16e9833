//! The engine's answers to the ops on saved connections, the ~/.ssh/config import and the
//! audit log (`Op::ListConnections`, `SaveConnection`, `DeleteConnection`, `ReadSshConfig`,
//! `ImportSshConfig`, `UpdateConnectionSettings`, `SetConnectionTags`, `ReadAudit`).
//!
//! File and keychain work runs on the blocking pool. A secret handed in with `SaveConnection`
//! goes to the keychain and nowhere else: no event, error or log line here carries it.

use crate::config::EngineConfig;
use crate::connect::library::{self, LibraryError};
use crate::connect::secrets::SecretStore;
use crate::connect::ssh_config::default_ssh_config_path;
use kaiport_protocol::{ConnectionSettings, Event, Op};

/// A saved connection's settings as `UpdateConnectionSettings` changed them, for the audit line
/// of the user's change.
pub(crate) struct SavedSettingsChange {
    pub(crate) name: String,
    pub(crate) before: ConnectionSettings,
    pub(crate) after: ConnectionSettings,
}

/// Handles one of the ops above; its answer (or an `Error`) goes to `emit`. Returns the change
/// an `UpdateConnectionSettings` made.
pub(crate) async fn handle(
    config: &EngineConfig,
    emit: impl Fn(Event),
    op: Op,
) -> Option<SavedSettingsChange> {
    let config = config.clone();
    let profiles = config.profiles_path.clone();
    let work = move || -> Result<(Vec<Event>, Option<SavedSettingsChange>), String> {
        let mut change = None;
        let events = answer(&config, &profiles, op, &mut change)?;
        Ok((events, change))
    };
    let (events, change) = match tokio::task::spawn_blocking(work).await {
        Ok(Ok(answered)) => answered,
        Ok(Err(message)) => (vec![Event::Error { tab: None, message }], None),
        Err(error) => (
            vec![Event::Error {
                tab: None,
                message: format!("the saved connections could not be read or changed: {error}"),
            }],
            None,
        ),
    };
    events.into_iter().for_each(emit);
    change
}

/// The blocking work of [`handle`]: the events that answer `op`.
fn answer(
    config: &EngineConfig,
    profiles: &std::path::Path,
    op: Op,
    change: &mut Option<SavedSettingsChange>,
) -> Result<Vec<Event>, String> {
    let profiles = profiles.to_path_buf();
    {
        let text = |error: LibraryError| error.to_string();
        let listed = |profiles: &std::path::Path| -> Result<Event, String> {
            Ok(Event::SavedConnections {
                connections: library::list(profiles).map_err(text)?,
            })
        };
        let ssh_config = || {
            default_ssh_config_path()
                .ok_or_else(|| "there is no home folder to find ~/.ssh/config in".to_owned())
        };
        match op {
            Op::ListConnections => Ok(vec![listed(&profiles)?]),
            Op::SaveConnection {
                name,
                target,
                settings,
                secrets,
                replace,
            } => {
                let settings = settings.unwrap_or_else(|| config.default_settings.clone());
                library::save(
                    &profiles,
                    &name,
                    &target,
                    &settings,
                    &secrets,
                    replace,
                    SecretStore::open,
                )
                .map_err(text)?;
                Ok(vec![listed(&profiles)?])
            }
            Op::DeleteConnection { name } => {
                library::delete(&profiles, &name, SecretStore::open).map_err(text)?;
                Ok(vec![listed(&profiles)?])
            }
            Op::ReadSshConfig => {
                let path = ssh_config()?;
                if !path.exists() {
                    return Err(format!("there is no SSH config at {}", path.display()));
                }
                let hosts = library::ssh_config_hosts(&path, &profiles).map_err(text)?;
                Ok(vec![Event::SshConfigHosts {
                    path: path.display().to_string(),
                    hosts,
                }])
            }
            Op::ImportSshConfig { names } => {
                library::import(&ssh_config()?, &profiles, &names).map_err(text)?;
                Ok(vec![listed(&profiles)?])
            }
            Op::UpdateConnectionSettings { name, settings } => {
                let before = library::update_settings(&profiles, &name, &settings).map_err(text)?;
                *change = before.map(|before| SavedSettingsChange {
                    name,
                    before,
                    after: settings,
                });
                Ok(vec![listed(&profiles)?])
            }
            Op::SetConnectionTags { name, tags } => {
                library::set_tags(&profiles, &name, &tags).map_err(text)?;
                Ok(vec![listed(&profiles)?])
            }
            Op::ReadAudit { limit } => {
                let entries = crate::audit::read_recent(&config.audit_path, limit as usize)
                    .map_err(|error| error.to_string())?;
                Ok(vec![Event::AuditLog {
                    path: config.audit_path.display().to_string(),
                    entries,
                }])
            }
            // The engine routes only the ops above here.
            Op::OpenTab { .. }
            | Op::CloseTab { .. }
            | Op::OpenForward { .. }
            | Op::CloseForward { .. }
            | Op::ReplaceHostKey { .. }
            | Op::MoveTab { .. }
            | Op::CheckKeyFile { .. }
            | Op::ListAgentKeys
            | Op::ReconnectTab { .. }
            | Op::CancelReconnect { .. }
            | Op::ShowTab { .. }
            | Op::RememberTabView { .. }
            | Op::TerminalInput { .. }
            | Op::Resize { .. }
            | Op::SetMode { .. }
            | Op::UpdateSettings { .. }
            | Op::ReadSettings { .. }
            | Op::RunTool { .. }
            | Op::RetryTransfer { .. }
            | Op::ListChanges { .. }
            | Op::UndoChange { .. }
            | Op::Approve { .. }
            | Op::AnswerQuestion { .. }
            | Op::AnswerPrompt { .. }
            | Op::Cancel { .. }
            | Op::SendMessage { .. }
            | Op::CancelTurn { .. }
            | Op::ListModels
            | Op::SaveModelSettings { .. }
            | Op::TestModel { .. }
            | Op::ListProviderModels { .. }
            | Op::PressViewButton { .. }
            | Op::FleetCheck { .. }
            | Op::FleetRun { .. }
            | Op::ListSnippets { .. }
            | Op::SaveSnippet { .. }
            | Op::DeleteSnippet { .. }
            | Op::ExpandSnippet { .. }
            | Op::FleetCancel { .. }
            | Op::BroadcastLine { .. }
            | Op::AppBackground
            | Op::AppForeground => Ok(Vec::new()),
        }
    }
}
