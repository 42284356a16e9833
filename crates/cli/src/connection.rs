//! CONNECTION arguments: `local`, `ssh://user@host:port`, `user@host[:port]`, or a saved
//! profile name; and the options that go with them.

use crate::prompts::Answerer;
use anyhow::{Context, bail};
use kaiport_core::connect::destination::parse_ssh_target;
use kaiport_core::connect::profiles::{ConnectionProfile, ProfileStore};
use kaiport_core::{Engine, EngineConfig, EventStream};
use kaiport_protocol::{ConnectionSettings, Mode, Op, TabTarget};
use std::path::PathBuf;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct ConnectionOptions {
    /// Private key file for SSH (repeatable).
    #[arg(long = "identity", short = 'i', value_name = "FILE")]
    pub identity: Vec<PathBuf>,
    /// known_hosts file to verify the server against (default: ~/.ssh/known_hosts).
    #[arg(long, value_name = "FILE")]
    pub known_hosts: Option<PathBuf>,
    /// Trust and remember a server whose host key is not known yet (a changed key is still refused).
    #[arg(long)]
    pub accept_new_host_key: bool,
    /// Take the SSH password (or key passphrase) from this environment variable.
    #[arg(long, value_name = "VAR")]
    pub password_env: Option<String>,
    /// Let the server use your SSH agent in the shell (agent forwarding, as `ssh -A`); only for
    /// servers you trust: whoever controls one can use the agent's keys meanwhile. A saved
    /// connection forwards the agent when it says so.
    #[arg(long = "forward-agent", short = 'A')]
    pub forward_agent: bool,
    /// Jump host `user@host[:port]` (repeatable, in order).
    #[arg(long = "jump", short = 'J', value_name = "DEST")]
    pub jump: Vec<String>,
    /// Connection setting NAME=VALUE (repeatable; lists comma-separated).
    #[arg(long = "setting", value_name = "NAME=VALUE", value_parser = parse_setting)]
    pub settings: Vec<String>,
    /// Write the audit log here instead of the app's data folder.
    #[arg(long, value_name = "FILE")]
    pub audit: Option<PathBuf>,
    /// Storage URLs: the user name (S3 access key id, Azure account, FTP/WebDAV/SFTP user) when
    /// the URL has none. The secret comes from the keychain or --password-env.
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
    /// Storage URLs: the folder of this computer the local side may use (default: the current
    /// folder); local paths outside it are refused.
    #[arg(long, value_name = "DIR")]
    pub local_root: Option<PathBuf>,
}

/// Checks a `--setting` while the command line is parsed, so a bad one is a usage error (exit
/// status 2, with clap's message) like any other bad flag.
fn parse_setting(setting: &str) -> Result<String, String> {
    let Some((name, value)) = setting.split_once('=') else {
        return Err(format!("takes NAME=VALUE, not {setting:?}"));
    };
    ConnectionSettings::default()
        .set(name.trim(), value)
        .map_err(|error| format!("{error:#}"))?;
    Ok(setting.to_owned())
}

impl ConnectionOptions {
    pub fn engine_config(&self) -> anyhow::Result<EngineConfig> {
        let mut config = EngineConfig::from_environment()?;
        if let Some(known_hosts) = &self.known_hosts {
            config.known_hosts = known_hosts.clone();
        }
        if let Some(audit) = &self.audit {
            config.audit_path = audit.clone();
        }
        Ok(config)
    }

    /// The settings for a tab on `target`: None (the profile's or the defaults, chosen by the
    /// engine) unless `--setting` flags were given, which apply over the profile's settings.
    pub fn tab_settings(
        &self,
        target: &TabTarget,
        config: &EngineConfig,
    ) -> anyhow::Result<Option<ConnectionSettings>> {
        if self.settings.is_empty() {
            return Ok(None);
        }
        let base = match target {
            TabTarget::Profile { name } => {
                match ProfileStore::load(&config.profiles_path)?.get(name) {
                    Some(profile) => profile.connection_settings()?,
                    None => ConnectionSettings::default(),
                }
            }
            TabTarget::Local | TabTarget::Ssh { .. } | TabTarget::Storage { .. } => {
                ConnectionSettings::default()
            }
        };
        self.apply_settings(base).map(Some)
    }

    fn apply_settings(
        &self,
        mut settings: ConnectionSettings,
    ) -> anyhow::Result<ConnectionSettings> {
        for setting in &self.settings {
            let Some((name, value)) = setting.split_once('=') else {
                bail!("--setting takes NAME=VALUE, not {setting:?}");
            };
            settings
                .set(name.trim(), value)
                .with_context(|| format!("--setting {setting}"))?;
        }
        Ok(settings)
    }

    pub fn password_from_env(&self) -> anyhow::Result<Option<String>> {
        match &self.password_env {
            None => Ok(None),
            Some(var) => match std::env::var(var) {
                Ok(value) => {
                    kaiport_core::redact::remember(&value);
                    Ok(Some(value))
                }
                Err(_) => bail!("--password-env {var}: that environment variable is not set"),
            },
        }
    }
}

/// An engine with one tab opening on `connection`, and the answerer for its prompts. The tab's
/// events (connection state, prompts) arrive on the returned stream.
pub async fn open_tab(
    connection: &str,
    options: &ConnectionOptions,
    tab: &str,
    mode: Option<Mode>,
    yes: bool,
) -> anyhow::Result<(Engine, EventStream, Answerer)> {
    let target = parse_target(connection, options)?;
    let config = options.engine_config()?;
    let settings = match storage_profile(connection, options)? {
        // A storage profile opens as its URL (so --local-root applies): its settings go along.
        Some(profile) => Some(options.apply_settings(profile.connection_settings()?)?),
        None => options.tab_settings(&target, &config)?,
    };
    let answerer = Answerer {
        yes,
        accept_new_host_key: options.accept_new_host_key,
        password: options.password_from_env()?,
    };
    let (engine, events) = Engine::new(config).context("cannot start the engine")?;
    let (cols, rows) = crossterm::terminal::size().unwrap_or((120, 40));
    engine
        .handle(Op::OpenTab {
            tab: tab.to_owned(),
            target,
            cols,
            rows,
            settings,
            mode,
        })
        .await;
    Ok((engine, events, answerer))
}

/// What a CONNECTION argument names: `local`, a URL or `user@host[:port]`, else a profile name.
pub fn parse_target(connection: &str, options: &ConnectionOptions) -> anyhow::Result<TabTarget> {
    if connection == "local" {
        return Ok(TabTarget::Local);
    }
    const STORAGE_SCHEMES: [&str; 7] = [
        "s3://",
        "webdav://",
        "webdavs://",
        "azblob://",
        "ftp://",
        "ftps://",
        "sftp://",
    ];
    if STORAGE_SCHEMES
        .iter()
        .any(|scheme| connection.starts_with(scheme))
    {
        // Parse now so a bad URL fails before anything starts.
        let parsed = kaiport_core::storage::StorageUrl::parse(connection, options.user.as_deref())?;
        let sftp = matches!(parsed.service, kaiport_core::storage::Service::Sftp { .. });
        if !sftp && !options.identity.is_empty() {
            bail!("--identity is for ssh:// and sftp:// connections, not {connection}");
        }
        return Ok(TabTarget::Storage {
            url: connection.to_owned(),
            user: options.user.clone(),
            local_roots: vec![local_root(options)?],
            identity_files: identity_files(options),
        });
    }
    if !connection.contains("://") && !connection.contains('@') {
        if let Some(profile) = storage_profile(connection, options)? {
            let url = profile.kind.storage_url().unwrap_or_default();
            // --local-root wins, then the profile's folders, then the current folder.
            let profile_roots = profile.kind.local_roots();
            let local_roots = if options.local_root.is_none() && !profile_roots.is_empty() {
                profile_roots
            } else {
                vec![local_root(options)?]
            };
            // --identity wins over the profile's keys.
            let identity_files = if options.identity.is_empty() {
                profile
                    .kind
                    .identity_files()
                    .iter()
                    .map(|path| path.display().to_string())
                    .collect()
            } else {
                identity_files(options)
            };
            return Ok(TabTarget::Storage {
                url,
                user: options.user.clone(),
                local_roots,
                identity_files,
            });
        }
        return Ok(TabTarget::Profile {
            name: connection.to_owned(),
        });
    }
    let target = parse_ssh_target(connection)?;
    Ok(TabTarget::Ssh {
        host: target.host,
        port: target.port,
        user: target.user,
        identity_files: identity_files(options),
        jump_hosts: options.jump.clone(),
        keep_session: false,
        certificate_files: Vec::new(),
        identity_agent: None,
        forward_agent: options.forward_agent,
    })
}

/// The `--identity` files as the protocol carries them.
fn identity_files(options: &ConnectionOptions) -> Vec<String> {
    options
        .identity
        .iter()
        .map(|path| path.display().to_string())
        .collect()
}

/// The saved storage profile `connection` names, if it names one.
fn storage_profile(
    connection: &str,
    options: &ConnectionOptions,
) -> anyhow::Result<Option<ConnectionProfile>> {
    if connection.contains("://") || connection.contains('@') || connection == "local" {
        return Ok(None);
    }
    let store = ProfileStore::load(&options.engine_config()?.profiles_path)?;
    Ok(store
        .get(connection)
        .filter(|profile| profile.kind.is_storage())
        .cloned())
}

/// The folder the local side of a CLI storage tab may use: --local-root, else the current one.
fn local_root(options: &ConnectionOptions) -> anyhow::Result<String> {
    let root = match &options.local_root {
        Some(root) => root.clone(),
        None => std::env::current_dir().context("cannot find the current folder")?,
    };
    let root =
        std::path::absolute(&root).with_context(|| format!("--local-root {}", root.display()))?;
    Ok(root.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        let options = ConnectionOptions::default();
        assert_eq!(parse_target("local", &options).unwrap(), TabTarget::Local);
        assert_eq!(
            parse_target("web1", &options).unwrap(),
            TabTarget::Profile {
                name: "web1".to_owned()
            }
        );
        match parse_target("ssh://alice@127.0.0.1:2222", &options).unwrap() {
            TabTarget::Ssh {
                host, port, user, ..
            } => assert_eq!(
                (host.as_str(), port, user.as_str()),
                ("127.0.0.1", 2222, "alice")
            ),
            other => panic!("{other:?}"),
        }
        match parse_target("bob@[::1]", &options).unwrap() {
            TabTarget::Ssh { host, port, .. } => assert_eq!((host.as_str(), port), ("::1", 22)),
            other => panic!("{other:?}"),
        }
        assert!(parse_target("ssh://alice@host:notaport", &options).is_err());
    }
}
