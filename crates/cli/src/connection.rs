//! CONNECTION arguments: `local`, `ssh://user@host:port`, `user@host[:port]`, or a saved
//! profile name; and the options that go with them.

use anyhow::{Context, bail};
use kaiport_core::EngineConfig;
use kaiport_core::connect::destination::parse_ssh_target;
use kaiport_protocol::{ConnectionSettings, TabTarget};
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
    /// Jump host `user@host[:port]` (repeatable, in order).
    #[arg(long = "jump", short = 'J', value_name = "DEST")]
    pub jump: Vec<String>,
    /// Connection setting NAME=VALUE (repeatable; lists comma-separated).
    #[arg(long = "setting", value_name = "NAME=VALUE")]
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

    pub fn connection_settings(&self) -> anyhow::Result<ConnectionSettings> {
        let mut settings = ConnectionSettings::default();
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
                Ok(value) => Ok(Some(value)),
                Err(_) => bail!("--password-env {var}: that environment variable is not set"),
            },
        }
    }
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
        let root = match &options.local_root {
            Some(root) => root.clone(),
            None => std::env::current_dir().context("cannot find the current folder")?,
        };
        let root = std::path::absolute(&root)
            .with_context(|| format!("--local-root {}", root.display()))?;
        // Parse now so a bad URL fails before anything starts.
        kaiport_core::storage::StorageUrl::parse(connection, options.user.as_deref())?;
        return Ok(TabTarget::Storage {
            url: connection.to_owned(),
            user: options.user.clone(),
            local_roots: vec![root.display().to_string()],
        });
    }
    if !connection.contains("://") && !connection.contains('@') {
        return Ok(TabTarget::Profile {
            name: connection.to_owned(),
        });
    }
    let target = parse_ssh_target(connection)?;
    Ok(TabTarget::Ssh {
        host: target.host,
        port: target.port,
        user: target.user,
        identity_files: options
            .identity
            .iter()
            .map(|path| path.display().to_string())
            .collect(),
        jump_hosts: options.jump.clone(),
    })
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
