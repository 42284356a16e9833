//! `kaiport connections`: the saved connection profiles (`connections.toml` in the config
//! folder) and their passwords in the OS keychain. Profiles never hold a secret.

use crate::connection::{ConnectionOptions, parse_target};
use anyhow::{Context, bail};
use kaiport_core::connect::profiles::{ConnectionProfile, ProfileStore};
use kaiport_core::connect::secrets::{SecretStore, ssh_password_account};
use kaiport_core::connect::ssh_config::{default_ssh_config_path, import_ssh_config};
use kaiport_protocol::TabTarget;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub enum ConnectionsCommand {
    /// List the saved connections.
    List,
    /// Save every concrete `Host` of an OpenSSH config as a connection (existing names are kept).
    ImportSshConfig {
        /// The config file (default: ~/.ssh/config).
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
    },
    /// Save the SSH password of a connection in the OS keychain (asked at the terminal, or from
    /// --password-env).
    SetPassword {
        connection: String,
        #[arg(long, value_name = "VAR")]
        password_env: Option<String>,
    },
    /// Remove a connection's saved password from the OS keychain.
    ForgetPassword { connection: String },
}

pub fn run(command: ConnectionsCommand) -> anyhow::Result<ExitCode> {
    let config = ConnectionOptions::default().engine_config()?;
    match command {
        ConnectionsCommand::List => {
            let store = ProfileStore::load(&config.profiles_path)?;
            if store.profiles().is_empty() {
                say!("no saved connections in {}", store.path().display());
            }
            for profile in store.profiles() {
                out!("{:<20} {}", profile.name, describe(profile));
            }
        }
        ConnectionsCommand::ImportSshConfig { file } => {
            let Some(path) = file.or_else(default_ssh_config_path) else {
                bail!("no home folder to find ~/.ssh/config in; pass --file");
            };
            let imported = import_ssh_config(&path)?;
            let mut store = ProfileStore::load(&config.profiles_path)?;
            let mut added = 0;
            for profile in imported {
                if store.get(&profile.name).is_some() {
                    say!("kept the existing {:?}", profile.name);
                    continue;
                }
                out!("added {:<20} {}", profile.name, describe(&profile));
                store.upsert(profile);
                added += 1;
            }
            store.save()?;
            say!(
                "{added} connection(s) imported from {} into {}",
                path.display(),
                store.path().display()
            );
        }
        ConnectionsCommand::SetPassword {
            connection,
            password_env,
        } => {
            let account = password_account(&connection, &config.profiles_path)?;
            let password = match password_env {
                Some(var) => {
                    std::env::var(&var).with_context(|| format!("--password-env {var}: not set"))?
                }
                None => rpassword::prompt_password(format!("Password for {connection}: "))
                    .context("cannot read the password from the terminal")?,
            };
            SecretStore::open()?.set(&account, &password)?;
            say!("saved in the OS keychain");
        }
        ConnectionsCommand::ForgetPassword { connection } => {
            let account = password_account(&connection, &config.profiles_path)?;
            SecretStore::open()?.delete(&account)?;
            say!("removed from the OS keychain");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn describe(profile: &ConnectionProfile) -> String {
    kaiport_core::connect::library::address(&profile.kind)
}

/// The keychain account holding the password of a connection (a profile or a destination).
fn password_account(connection: &str, profiles: &std::path::Path) -> anyhow::Result<String> {
    match parse_target(connection, &ConnectionOptions::default())? {
        TabTarget::Ssh {
            host, port, user, ..
        } => Ok(ssh_password_account(&user, &host, port)),
        TabTarget::Profile { name } => {
            let target = ProfileStore::load(profiles)?.resolve_target(&name)?;
            Ok(ssh_password_account(
                &target.user,
                &target.host,
                target.port,
            ))
        }
        TabTarget::Storage { url, user, .. } => {
            Ok(kaiport_core::storage::StorageUrl::parse(&url, user.as_deref())?.secret_account())
        }
        TabTarget::Local => bail!("the local terminal needs no password"),
    }
}
