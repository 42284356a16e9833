//! The saved connections as front ends see and change them (the protocol's
//! `SavedConnection`, `Op::SaveConnection`, `Op::ImportSshConfig`, …): conversions between a
//! [`ConnectionProfile`] and what the "New connection" form connects to (a [`TabTarget`]), and
//! the load–change–save steps on `connections.toml`.
//!
//! Secrets given with a save go to the [`SecretStore`] handed in, under the same accounts the
//! connect path reads; they never reach the profile file, a return value or an error message.
//! Blocking (files, keychain): call from `spawn_blocking`.

use std::path::Path;

use kaiport_protocol::{
    ConnectionSettings, SaveConnectionSecret, SavedConnection, SshConfigHost, TabTarget,
};

use super::paths::expand_tilde;
use super::profiles::{ConnectionProfile, ProfileError, ProfileKind, ProfileStore};
use super::secrets::{SecretStore, key_passphrase_account, ssh_password_account};
use super::ssh_config::import_ssh_config;
use super::storage_profiles::{AzblobProfile, FileServerProfile, S3Profile, WebdavProfile};
use crate::storage::{Service, StorageUrl};

/// Why a change to the saved connections was refused. Never holds a secret.
#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error(transparent)]
    SshConfig(#[from] super::ssh_config::SshConfigError),
    #[error(transparent)]
    Secret(#[from] super::secrets::SecretError),
    #[error("{0}")]
    Invalid(String),
}

/// All saved connections, in the file's order.
pub fn list(profiles: &Path) -> Result<Vec<SavedConnection>, LibraryError> {
    let store = ProfileStore::load(profiles)?;
    store.profiles().iter().map(saved_connection).collect()
}

/// A profile as the connection list shows it.
pub fn saved_connection(profile: &ConnectionProfile) -> Result<SavedConnection, LibraryError> {
    let target = match &profile.kind {
        ProfileKind::Ssh {
            host,
            port,
            user,
            identity_files,
            proxy_jump,
            keep_session,
            certificate_files,
            identity_agent,
            forward_agent,
            ..
        } => TabTarget::Ssh {
            host: host.clone(),
            port: *port,
            user: user.clone(),
            identity_files: identity_files.clone(),
            jump_hosts: proxy_jump.clone(),
            keep_session: *keep_session,
            certificate_files: certificate_files.clone(),
            identity_agent: identity_agent.clone(),
            forward_agent: *forward_agent,
        },
        storage => TabTarget::Storage {
            url: storage.storage_url().unwrap_or_default(),
            user: None,
            local_roots: storage.local_roots(),
            identity_files: storage
                .identity_files()
                .iter()
                .map(|file| file.display().to_string())
                .collect(),
        },
    };
    Ok(SavedConnection {
        name: profile.name.clone(),
        kind: profile.kind.kind_name().to_owned(),
        address: address(&profile.kind),
        target,
        settings: profile.connection_settings()?,
        tags: profile.tags.clone(),
    })
}

/// Where a profile goes, in words: `ssh://user@host:port via hop` or its storage URL.
pub fn address(kind: &ProfileKind) -> String {
    match kind {
        ProfileKind::Ssh {
            host,
            port,
            user,
            proxy_jump,
            ..
        } => {
            let mut text = format!("ssh://{user}@{host}:{port}");
            if !proxy_jump.is_empty() {
                text.push_str(&format!(" via {}", proxy_jump.join(", ")));
            }
            text
        }
        storage => storage
            .storage_url()
            .unwrap_or_else(|| storage.kind_name().to_owned()),
    }
}

/// The profile that opens `target` (an SSH server or a storage URL) under `name`.
pub fn profile_for(
    name: &str,
    target: &TabTarget,
    settings: &ConnectionSettings,
) -> Result<ConnectionProfile, LibraryError> {
    let invalid = |message: String| LibraryError::Invalid(message);
    let name = name.trim();
    if name.is_empty() {
        return Err(invalid("give the connection a name".to_owned()));
    }
    settings
        .validate()
        .map_err(|error| invalid(error.to_string()))?;
    let kind = match target {
        TabTarget::Ssh {
            host,
            port,
            user,
            identity_files,
            jump_hosts,
            keep_session,
            certificate_files,
            identity_agent,
            forward_agent,
        } => {
            if host.trim().is_empty() || user.trim().is_empty() {
                return Err(invalid(
                    "an SSH connection needs a host and a user".to_owned(),
                ));
            }
            if *port == 0 {
                return Err(invalid("the port must be from 1 to 65535".to_owned()));
            }
            ProfileKind::Ssh {
                host: host.trim().to_owned(),
                port: *port,
                user: user.trim().to_owned(),
                identity_files: identity_files.clone(),
                proxy_jump: jump_hosts.clone(),
                keep_session: *keep_session,
                // Kept from the saved profile by `save` when it is replaced.
                forwards: Vec::new(),
                certificate_files: certificate_files.clone(),
                identity_agent: identity_agent
                    .as_deref()
                    .map(str::trim)
                    .filter(|agent| !agent.is_empty())
                    .map(str::to_owned),
                forward_agent: *forward_agent,
            }
        }
        TabTarget::Storage {
            url,
            user,
            local_roots,
            identity_files,
        } => storage_kind(url, user.as_deref(), local_roots, identity_files)?,
        TabTarget::Local | TabTarget::Profile { .. } => {
            return Err(invalid(
                "only an SSH server or a storage service can be saved as a connection".to_owned(),
            ));
        }
    };
    let settings = match serde_json::to_value(settings) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let profile = ConnectionProfile {
        name: name.to_owned(),
        kind,
        tags: Vec::new(),
        settings,
    };
    profile
        .kind
        .check_storage()
        .map_err(|problem| invalid(problem.message))?;
    Ok(profile)
}

/// The storage profile kind a storage URL stands for.
fn storage_kind(
    url: &str,
    user: Option<&str>,
    local_roots: &[String],
    identity_files: &[String],
) -> Result<ProfileKind, LibraryError> {
    let parsed =
        StorageUrl::parse(url, user).map_err(|error| LibraryError::Invalid(error.to_string()))?;
    let local_roots = local_roots.to_vec();
    let root = parsed.root.clone();
    let user = parsed.user.clone();
    Ok(match parsed.service {
        Service::S3 {
            bucket,
            endpoint,
            region,
            path_style,
            session_token,
        } => {
            if session_token.is_some() {
                return Err(LibraryError::Invalid(
                    "a session token is a secret and cannot be saved in a connection".to_owned(),
                ));
            }
            ProfileKind::S3(S3Profile {
                bucket,
                prefix: root,
                endpoint,
                region,
                path_style,
                user,
                local_roots,
            })
        }
        Service::Webdav { endpoint, ca_file } => {
            let parsed = url::Url::parse(&endpoint)
                .map_err(|error| LibraryError::Invalid(format!("{endpoint:?}: {error}")))?;
            let host = match parsed.host() {
                Some(url::Host::Ipv6(address)) => address.to_string(),
                _ => parsed.host_str().unwrap_or_default().to_owned(),
            };
            ProfileKind::Webdav(WebdavProfile {
                host,
                port: parsed.port(),
                path: root,
                https: parsed.scheme() == "https",
                ca_file,
                user,
                local_roots,
            })
        }
        Service::Azure {
            container,
            account,
            endpoint,
            sas,
        } => ProfileKind::Azblob(AzblobProfile {
            container,
            prefix: root,
            account: account.or(user),
            endpoint,
            sas,
            local_roots,
        }),
        Service::Ftp {
            host,
            port,
            secure,
            ca_file,
        } => {
            let server = FileServerProfile {
                host,
                port: Some(port),
                path: root,
                user,
                ca_file,
                identity_files: Vec::new(),
                local_roots,
            };
            if secure {
                ProfileKind::Ftps(server)
            } else {
                ProfileKind::Ftp(server)
            }
        }
        Service::Sftp { host, port } => ProfileKind::Sftp(FileServerProfile {
            host,
            port: Some(port),
            path: root,
            user,
            ca_file: None,
            identity_files: identity_files.to_vec(),
            local_roots,
        }),
    })
}

/// The keychain account of a profile's password (SSH login or storage secret).
fn password_account(store: &ProfileStore, profile: &ConnectionProfile) -> Option<String> {
    match &profile.kind {
        ProfileKind::Ssh { .. } => {
            let target = store.resolve_target(&profile.name).ok()?;
            Some(ssh_password_account(
                &target.user,
                &target.host,
                target.port,
            ))
        }
        storage => {
            let url = storage.storage_url()?;
            Some(StorageUrl::parse(&url, None).ok()?.secret_account())
        }
    }
}

/// The profile's first key file (the one a `Passphrase` secret is for), `~` expanded.
fn first_key(profile: &ConnectionProfile) -> Option<std::path::PathBuf> {
    match &profile.kind {
        ProfileKind::Ssh { identity_files, .. } => identity_files.first().map(|f| expand_tilde(f)),
        storage => storage.identity_files().into_iter().next(),
    }
}

/// Saves `target` as connection `name` (replacing one of that name only with `replace`), and
/// its `secrets` in `secrets`. Nothing is saved when any part is refused.
pub fn save(
    profiles: &Path,
    name: &str,
    target: &TabTarget,
    settings: &ConnectionSettings,
    given: &[SaveConnectionSecret],
    replace: bool,
    secrets: impl FnOnce() -> Result<SecretStore, super::secrets::SecretError>,
) -> Result<(), LibraryError> {
    let mut profile = profile_for(name, target, settings)?;
    let mut store = ProfileStore::load(profiles)?;
    // The connection form has no tags: a replaced profile keeps its groups.
    if let Some(old) = store.get(&profile.name) {
        profile.tags.clone_from(&old.tags);
    }
    // The connection form has no forwards: a replaced SSH profile keeps the ones it had.
    if let (Some(ProfileKind::Ssh { forwards: kept, .. }), ProfileKind::Ssh { forwards, .. }) = (
        store.get(&profile.name).map(|old| &old.kind),
        &mut profile.kind,
    ) {
        forwards.clone_from(kept);
    }
    if !replace && store.get(&profile.name).is_some() {
        return Err(LibraryError::Invalid(format!(
            "a connection named {:?} exists already; choose another name",
            profile.name
        )));
    }
    let mut with_profile = store.clone();
    with_profile.upsert(profile.clone());
    // Where each secret goes, worked out before anything is written.
    let mut accounts = Vec::new();
    for secret in given {
        match secret {
            SaveConnectionSecret::Password { value } if !value.is_empty() => {
                let account = password_account(&with_profile, &profile).ok_or_else(|| {
                    LibraryError::Invalid("this connection has no password to save".to_owned())
                })?;
                accounts.push((account, value));
            }
            SaveConnectionSecret::Passphrase { value } if !value.is_empty() => {
                let key = first_key(&profile).ok_or_else(|| {
                    LibraryError::Invalid(
                        "a passphrase is saved for a key file: give the key file too".to_owned(),
                    )
                })?;
                accounts.push((key_passphrase_account(&key), value));
            }
            SaveConnectionSecret::Password { .. } | SaveConnectionSecret::Passphrase { .. } => {}
        }
    }
    if !accounts.is_empty() {
        let keychain = secrets()?;
        for (account, value) in accounts {
            keychain.set(&account, value)?;
        }
    }
    store.upsert(profile);
    store.save()?;
    Ok(())
}

/// Deletes connection `name` and the password saved for it (unless another saved connection
/// logs in with the same account).
pub fn delete(
    profiles: &Path,
    name: &str,
    secrets: impl FnOnce() -> Result<SecretStore, super::secrets::SecretError>,
) -> Result<(), LibraryError> {
    let mut store = ProfileStore::load(profiles)?;
    let profile = store
        .get(name)
        .cloned()
        .ok_or_else(|| ProfileError::NotFound(name.to_owned()))?;
    let account = password_account(&store, &profile);
    store.remove(name);
    let shared = account.as_ref().is_some_and(|account| {
        store
            .profiles()
            .iter()
            .any(|other| password_account(&store, other).as_ref() == Some(account))
    });
    store.save()?;
    if let Some(account) = account.filter(|_| !shared) {
        // The profile is gone either way; a keychain that cannot be opened keeps nothing of it.
        match secrets() {
            Ok(keychain) => keychain.delete(&account)?,
            Err(error) => tracing::debug!(%error, "no keychain to forget a password in"),
        }
    }
    Ok(())
}

/// The concrete hosts of the SSH config at `config`, with whether each is saved already.
pub fn ssh_config_hosts(
    config: &Path,
    profiles: &Path,
) -> Result<Vec<SshConfigHost>, LibraryError> {
    let store = ProfileStore::load(profiles)?;
    Ok(import_ssh_config(config)?
        .into_iter()
        .map(|profile| SshConfigHost {
            already_saved: store.get(&profile.name).is_some(),
            address: address(&profile.kind),
            name: profile.name,
            tags: profile.tags,
        })
        .collect())
}

/// Saves the hosts of the SSH config at `config` named `names` (names already saved are kept
/// as they are); returns how many were added.
pub fn import(config: &Path, profiles: &Path, names: &[String]) -> Result<usize, LibraryError> {
    let mut store = ProfileStore::load(profiles)?;
    let found = import_ssh_config(config)?;
    if let Some(missing) = names
        .iter()
        .find(|name| !found.iter().any(|profile| &profile.name == *name))
    {
        return Err(LibraryError::Invalid(format!(
            "{missing:?} is not a host of {}",
            config.display()
        )));
    }
    let mut added = 0;
    for profile in found {
        if names.contains(&profile.name) && store.get(&profile.name).is_none() {
            store.upsert(profile);
            added += 1;
        }
    }
    store.save()?;
    Ok(added)
}

/// Replaces the settings of connection `name`; returns what they were (None when they did
/// not read).
pub fn update_settings(
    profiles: &Path,
    name: &str,
    settings: &ConnectionSettings,
) -> Result<Option<ConnectionSettings>, LibraryError> {
    settings
        .validate()
        .map_err(|error| LibraryError::Invalid(format!("{name}: {error}")))?;
    let mut store = ProfileStore::load(profiles)?;
    let mut profile = store
        .get(name)
        .cloned()
        .ok_or_else(|| ProfileError::NotFound(name.to_owned()))?;
    // Settings saved by an older build that no longer read are replaced all the same.
    let before = profile.connection_settings().ok();
    profile.settings = match serde_json::to_value(settings) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    store.upsert(profile);
    store.save()?;
    Ok(before)
}

/// Replaces the tags of connection `name` ([`super::profiles::normalise_tags`]).
pub fn set_tags(profiles: &Path, name: &str, tags: &[String]) -> Result<(), LibraryError> {
    let tags = super::profiles::normalise_tags(tags)
        .map_err(|problem| LibraryError::Invalid(format!("{name}: {problem}")))?;
    let mut store = ProfileStore::load(profiles)?;
    let mut profile = store
        .get(name)
        .cloned()
        .ok_or_else(|| ProfileError::NotFound(name.to_owned()))?;
    profile.tags = tags;
    store.upsert(profile);
    store.save()?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn keychain() -> SecretStore {
        SecretStore::with_store(keyring_core::sample::Store::new().unwrap())
    }

    #[test]
    fn an_ssh_connection_is_saved_listed_and_its_password_kept_in_the_keychain_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("connections.toml");
        let store = keychain();
        let target = TabTarget::Ssh {
            host: "10.0.0.5".into(),
            port: 2222,
            user: "deploy".into(),
            identity_files: vec![],
            jump_hosts: vec!["ops@bastion:22".into()],
            keep_session: true,
            certificate_files: vec!["~/.ssh/deploy-cert.pub".into()],
            identity_agent: Some("~/.1password/agent.sock".into()),
            forward_agent: true,
        };
        let settings = ConnectionSettings {
            forbidden_commands: vec!["rm".into()],
            ..ConnectionSettings::default()
        };
        let secret = vec![SaveConnectionSecret::Password {
            value: "pw-never-in-file".into(),
        }];
        save(&path, "web1", &target, &settings, &secret, false, || {
            Ok(store.clone())
        })
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("pw-never-in-file"), "{text}");
        assert_eq!(
            store
                .get(&ssh_password_account("deploy", "10.0.0.5", 2222))
                .unwrap()
                .as_deref(),
            Some("pw-never-in-file")
        );
        assert_eq!(
            list(&path).unwrap(),
            vec![SavedConnection {
                name: "web1".into(),
                kind: "ssh".into(),
                address: "ssh://deploy@10.0.0.5:2222 via ops@bastion:22".into(),
                target: target.clone(),
                settings: settings.clone(),
                tags: vec![],
            }]
        );
        set_tags(
            &path,
            "web1",
            &[" web ".into(), "eu".into(), "web".into(), String::new()],
        )
        .unwrap();
        assert_eq!(list(&path).unwrap()[0].tags, vec!["web", "eu"]);
        let error = set_tags(&path, "web1", &["a\u{1b}b".into()])
            .unwrap_err()
            .to_string();
        assert!(error.contains("control character"), "{error}");
        // Saving the form again keeps the groups.
        save(&path, "web1", &target, &settings, &[], true, || {
            Ok(store.clone())
        })
        .unwrap();
        assert_eq!(list(&path).unwrap()[0].tags, vec!["web", "eu"]);
        // The same name again is refused unless replacing.
        let error = save(&path, "web1", &target, &settings, &[], false, || {
            Ok(store.clone())
        })
        .unwrap_err()
        .to_string();
        assert!(error.contains("exists already"), "{error}");

        let mut stricter = settings.clone();
        stricter.command_timeout_s = 700;
        let error = update_settings(&path, "web1", &stricter)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "web1: command_timeout_s must be a whole number from 1 to 600, not 700"
        );
        stricter.command_timeout_s = 30;
        let before = update_settings(&path, "web1", &stricter).unwrap();
        assert_eq!(before.as_ref(), Some(&settings));
        assert_eq!(list(&path).unwrap()[0].settings, stricter);

        delete(&path, "web1", || Ok(store.clone())).unwrap();
        assert_eq!(list(&path).unwrap(), vec![]);
        // Empty, so an entry added by hand still makes a valid file.
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
        assert_eq!(
            store
                .get(&ssh_password_account("deploy", "10.0.0.5", 2222))
                .unwrap(),
            None
        );
    }

    #[test]
    fn storage_urls_become_profiles_that_open_the_same_url() {
        for url in [
            "s3://backups/db?endpoint=http%3A%2F%2F127.0.0.1%3A9000&region=eu-1&path_style=true",
            "webdavs://files.example:8443/share/docs",
            "azblob://container/pre?account=devstoreaccount1&endpoint=http%3A%2F%2F127.0.0.1%3A10000%2Fdevstoreaccount1",
            "ftp://alice@127.0.0.1:2121/pub",
            "ftps://alice@ftp.example:21/",
            "sftp://bob@127.0.0.1:2222/home/bob",
        ] {
            let target = TabTarget::Storage {
                url: url.into(),
                user: None,
                local_roots: vec!["/tmp".into()],
                identity_files: vec![],
            };
            let profile = profile_for("s", &target, &ConnectionSettings::default())
                .unwrap_or_else(|error| panic!("{url}: {error}"));
            let again = profile.kind.storage_url().unwrap();
            let (before, after) = (
                StorageUrl::parse(url, None).unwrap(),
                StorageUrl::parse(&again, None).unwrap(),
            );
            assert_eq!(
                (&after.service, &after.root, after.secret_account()),
                (&before.service, &before.root, before.secret_account()),
                "{url} came back as {again}"
            );
        }
    }

    #[test]
    fn import_saves_the_chosen_hosts_and_keeps_existing_ones() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        std::fs::write(
            &config,
            "Host web1\n  HostName 10.0.0.1\n  User deploy\nHost db\n  HostName db.example\n  Port 2200\n  User pg\nHost *\n  User nobody\n",
        )
        .unwrap();
        let path = dir.path().join("connections.toml");
        let hosts = ssh_config_hosts(&config, &path).unwrap();
        assert_eq!(
            hosts,
            vec![
                SshConfigHost {
                    name: "web1".into(),
                    address: "ssh://deploy@10.0.0.1:22".into(),
                    already_saved: false,
                    tags: vec![],
                },
                SshConfigHost {
                    name: "db".into(),
                    address: "ssh://pg@db.example:2200".into(),
                    already_saved: false,
                    tags: vec![],
                },
            ]
        );
        assert_eq!(import(&config, &path, &["db".into()]).unwrap(), 1);
        assert_eq!(import(&config, &path, &["db".into()]).unwrap(), 0);
        let names: Vec<String> = list(&path).unwrap().into_iter().map(|c| c.name).collect();
        assert_eq!(names, vec!["db".to_owned()]);
        assert!(import(&config, &path, &["nope".into()]).is_err());
        assert!(ssh_config_hosts(&config, &path).unwrap()[1].already_saved);
    }
}
