//! Saved connection profiles in `<config_dir>/connections.toml`, where `config_dir` is
//! `$KAIPORT_HOME` when set, otherwise the OS config folder + `kaiport`.
//!
//! The file is a list of `[[connection]]` tables:
//! ```toml
//! [[connection]]
//! name = "web1"
//! kind = "ssh"
//! host = "web1.example.org"
//! port = 22
//! user = "deploy"
//! identity_files = ["~/.ssh/id_ed25519"]
//! proxy_jump = ["bastion"]          # profile names or user@host:port, first hop first
//! certificate_files = ["~/.ssh/web1-cert.pub"]  # besides each key's own KEY-cert.pub
//! identity_agent = "~/.1password/agent.sock"    # default: SSH_AUTH_SOCK or one found
//! forward_agent = false             # agent forwarding (ssh -A), for the target only
//! forwards = [                      # opened with every tab (kaiport_protocol::ForwardSpec)
//!   { kind = "local", listen_port = 8080, to_host = "localhost", to_port = 80 },
//!   { kind = "dynamic", listen_port = 1080 },
//! ]
//! tags = ["web", "eu"]              # its groups (sidebar, fleet runs); see [`normalise_tags`]
//! [connection.settings]             # per-connection settings (ConnectionSettings's names)
//! send_file_contents = false
//! ```
//! Storage connections (`kind = "s3" | "webdav" | "azblob" | "ftp" | "ftps" | "sftp"`) live in
//! the same file; their fields, checks and URLs are in [`super::storage_profiles`], which knows
//! nothing of this module ([`ProfileKind::storage`] hands it the storage kinds).
//!
//! Saving is atomic (temp file beside it, then rename). Malformed files are reported with file
//! and line and never overwritten by a load. This file must never hold a secret: passwords and
//! passphrases live in [`super::secrets`]; a `password`-like key here is an error.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::destination::{DestinationError, parse_ssh_target};
use super::paths::expand_tilde;
use super::storage_profiles::{
    AzblobProfile, FieldProblem, FileServerProfile, S3Profile, StorageProfile, WebdavProfile,
    locate_type_error, unknown_field,
};
use crate::ssh::{DEFAULT_PORT, SshTarget};

/// The file name of the profile store inside the config dir.
pub const PROFILES_FILE: &str = "connections.toml";
/// The environment variable that overrides the config dir.
pub const HOME_ENV: &str = "KAIPORT_HOME";
/// Deepest ProxyJump nesting followed before giving up (catches cycles too).
const MAX_JUMP_DEPTH: usize = 8;
/// Keys that would hold a secret; refused in the profile file.
const SECRET_KEYS: [&str; 11] = [
    "password",
    "passphrase",
    "secret",
    "private_key",
    "token",
    "secret_key",
    "secret_access_key",
    "account_key",
    "sas_token",
    "session_token",
    "sas_key",
];

/// One saved connection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConnectionProfile {
    pub name: String,
    #[serde(flatten)]
    pub kind: ProfileKind,
    /// The groups it belongs to, in the user's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Per-connection settings (names as in `ConnectionSettings`), kept as written; typed and
    /// checked by [`ConnectionProfile::connection_settings`].
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub settings: serde_json::Map<String, serde_json::Value>,
}

impl ConnectionProfile {
    /// The profile's settings over the defaults; an unknown name or a bad value is an error
    /// naming the profile.
    pub fn connection_settings(
        &self,
    ) -> Result<kaiport_protocol::ConnectionSettings, ProfileError> {
        serde_json::from_value(serde_json::Value::Object(self.settings.clone())).map_err(|error| {
            ProfileError::BadSettings {
                profile: self.name.clone(),
                message: error.to_string(),
            }
        })
    }
}

/// What kind of connection a profile is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProfileKind {
    Ssh {
        host: String,
        #[serde(default = "default_port")]
        port: u16,
        user: String,
        /// Private key files (`~` allowed), tried in order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        identity_files: Vec<String>,
        /// Jump hosts, first hop first: profile names or `user@host:port`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        proxy_jump: Vec<String>,
        /// Port forwards opened with every tab on this connection (see [`crate::forward`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        forwards: Vec<kaiport_protocol::ForwardSpec>,
        /// "Keep the session on the server": the tab's shell runs inside tmux or screen
        /// (`crate::ssh::kept`), so a reconnect or a restart attaches to the same shell.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        keep_session: bool,
        /// Agent forwarding (`ForwardAgent`), off unless the user turned it on.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        forward_agent: bool,
        /// The SSH agent to use (`IdentityAgent`); none is the default agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        identity_agent: Option<String>,
        /// OpenSSH certificates (`CertificateFile`, `~` allowed), beside each identity file's
        /// own `KEY-cert.pub`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        certificate_files: Vec<String>,
    },
    /// An S3 bucket (AWS or S3-compatible).
    S3(S3Profile),
    /// A WebDAV share.
    Webdav(WebdavProfile),
    /// An Azure Blob container.
    Azblob(AzblobProfile),
    /// An FTP server.
    Ftp(FileServerProfile),
    /// An FTP server with explicit TLS (AUTH TLS).
    Ftps(FileServerProfile),
    /// An SSH server's files over SFTP, as a storage tab.
    Sftp(FileServerProfile),
}

impl ProfileKind {
    /// The `kind` as written in the file.
    pub fn kind_name(&self) -> &'static str {
        match self {
            ProfileKind::Ssh { .. } => "ssh",
            ProfileKind::S3(_) => "s3",
            ProfileKind::Webdav(_) => "webdav",
            ProfileKind::Azblob(_) => "azblob",
            ProfileKind::Ftp(_) => "ftp",
            ProfileKind::Ftps(_) => "ftps",
            ProfileKind::Sftp(_) => "sftp",
        }
    }

    /// The storage profile this is; `None` for SSH.
    pub fn storage(&self) -> Option<StorageProfile<'_>> {
        Some(match self {
            ProfileKind::Ssh { .. } => return None,
            ProfileKind::S3(s3) => StorageProfile::S3(s3),
            ProfileKind::Webdav(dav) => StorageProfile::Webdav(dav),
            ProfileKind::Azblob(azure) => StorageProfile::Azblob(azure),
            ProfileKind::Ftp(server) => StorageProfile::Ftp(server),
            ProfileKind::Ftps(server) => StorageProfile::Ftps(server),
            ProfileKind::Sftp(server) => StorageProfile::Sftp(server),
        })
    }

    /// Whether this is a storage connection (anything but SSH).
    pub fn is_storage(&self) -> bool {
        self.storage().is_some()
    }

    /// The local folders a storage profile's tab may use (`~` expanded); empty for SSH.
    pub fn local_roots(&self) -> Vec<String> {
        self.storage()
            .map_or_else(Vec::new, StorageProfile::local_roots)
    }

    /// The private keys an SFTP profile logs in with (`~` expanded); empty for other kinds and
    /// for SSH (whose keys go into its `SshTarget`).
    pub fn identity_files(&self) -> Vec<PathBuf> {
        self.storage()
            .map_or_else(Vec::new, StorageProfile::identity_files)
    }

    /// The storage URL this profile stands for (no secret in it); `None` for SSH.
    pub fn storage_url(&self) -> Option<String> {
        self.storage().map(StorageProfile::url)
    }

    /// Checks the values of a storage profile, naming the field that is wrong. SSH profiles
    /// pass.
    pub fn check_storage(&self) -> Result<(), FieldProblem> {
        self.storage().map_or(Ok(()), StorageProfile::check)
    }
}

fn default_port() -> u16 {
    DEFAULT_PORT
}

/// The file's entries as plain tables, with their place in the file.
#[derive(Debug, Default, Deserialize)]
struct RawFile {
    #[serde(default, rename = "connection")]
    connections: Vec<toml::Spanned<toml::Table>>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct ProfileFile {
    // Nothing rather than `connection = []`, so a `[[connection]]` added by hand still parses.
    #[serde(default, rename = "connection", skip_serializing_if = "Vec::is_empty")]
    connections: Vec<ConnectionProfile>,
}

/// Errors loading, saving or resolving profiles.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("the settings of connection {profile:?} are not valid: {message}")]
    BadSettings { profile: String, message: String },
    #[error("cannot find a config folder: set {HOME_ENV} to the folder kaiport should use")]
    NoConfigDir,
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{line}: {message}. Fix or remove that line; kaiport will not overwrite the file until it reads cleanly.", path.display())]
    Malformed {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("cannot save {}: {source}. Check that the folder is writable.", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot save the connection profiles: {0}")]
    Encode(String),
    #[error("no connection profile named {0:?}")]
    NotFound(String),
    #[error("connection {profile:?}: ProxyJump {hop:?}: {source}")]
    BadJump {
        profile: String,
        hop: String,
        #[source]
        source: DestinationError,
    },
    #[error(
        "connection {0:?} is a storage connection ({1}), not an SSH server; open it as a storage tab"
    )]
    NotSsh(String, &'static str),
    #[error(
        "connection {0:?}: ProxyJump hops nest too deeply or form a loop; check its proxy_jump list"
    )]
    JumpLoop(String),
}

/// The longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 64;

/// Tags as they are kept: trimmed, empty ones and repeats dropped, in the given order. A tag
/// longer than [`MAX_TAG_CHARS`] or with a control character is refused, naming it.
pub fn normalise_tags(tags: &[String]) -> Result<Vec<String>, String> {
    let mut kept: Vec<String> = Vec::new();
    for tag in tags {
        let tag = tag.trim();
        if tag.is_empty() {
            continue;
        }
        if tag.chars().count() > MAX_TAG_CHARS {
            return Err(format!(
                "the tag {tag:?} is longer than {MAX_TAG_CHARS} characters"
            ));
        }
        if tag.chars().any(char::is_control) {
            return Err(format!("the tag {tag:?} has a control character"));
        }
        if !kept.iter().any(|known| known == tag) {
            kept.push(tag.to_owned());
        }
    }
    Ok(kept)
}

/// The kaiport config folder: `$KAIPORT_HOME`, else `<OS config dir>/kaiport`.
pub fn config_dir() -> Result<PathBuf, ProfileError> {
    if let Some(home) = std::env::var_os(HOME_ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(home));
    }
    dirs::config_dir()
        .map(|dir| dir.join("kaiport"))
        .ok_or(ProfileError::NoConfigDir)
}

/// The saved profiles and the file they live in.
#[derive(Debug, Clone)]
pub struct ProfileStore {
    path: PathBuf,
    profiles: Vec<ConnectionProfile>,
}

impl ProfileStore {
    /// Loads `<config_dir>/connections.toml` (empty when it does not exist yet).
    pub fn load_default() -> Result<ProfileStore, ProfileError> {
        ProfileStore::load(config_dir()?.join(PROFILES_FILE))
    }

    /// Loads the profile file at `path` (empty when it does not exist yet).
    pub fn load(path: impl Into<PathBuf>) -> Result<ProfileStore, ProfileError> {
        let path = path.into();
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => return Err(ProfileError::Read { path, source }),
        };
        let profiles = parse(&text, &path)?;
        Ok(ProfileStore { path, profiles })
    }

    /// The file this store loads from and saves to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn profiles(&self) -> &[ConnectionProfile] {
        &self.profiles
    }

    pub fn get(&self, name: &str) -> Option<&ConnectionProfile> {
        self.profiles.iter().find(|p| p.name == name)
    }

    /// Adds `profile`, replacing one with the same name.
    pub fn upsert(&mut self, profile: ConnectionProfile) {
        match self.profiles.iter_mut().find(|p| p.name == profile.name) {
            Some(existing) => *existing = profile,
            None => self.profiles.push(profile),
        }
    }

    /// Removes the profile called `name`, returning it.
    pub fn remove(&mut self, name: &str) -> Option<ConnectionProfile> {
        let index = self.profiles.iter().position(|p| p.name == name)?;
        Some(self.profiles.remove(index))
    }

    /// Writes the profiles atomically: a temp file in the same folder, flushed, renamed over.
    pub fn save(&self) -> Result<(), ProfileError> {
        let file = ProfileFile {
            connections: self.profiles.clone(),
        };
        let text =
            toml::to_string_pretty(&file).map_err(|e| ProfileError::Encode(e.to_string()))?;
        write_atomic(&self.path, &text)
    }

    /// The [`SshTarget`] for profile `name`, with its ProxyJump hops resolved (hops naming
    /// other profiles use those profiles, recursively, like OpenSSH).
    pub fn resolve_target(&self, name: &str) -> Result<SshTarget, ProfileError> {
        let mut seen = HashSet::new();
        self.resolve(name, &mut seen, 0)
    }

    fn resolve(
        &self,
        name: &str,
        seen: &mut HashSet<String>,
        depth: usize,
    ) -> Result<SshTarget, ProfileError> {
        if depth > MAX_JUMP_DEPTH || !seen.insert(name.to_owned()) {
            return Err(ProfileError::JumpLoop(name.to_owned()));
        }
        let profile = self
            .get(name)
            .ok_or_else(|| ProfileError::NotFound(name.to_owned()))?;
        let ProfileKind::Ssh {
            host,
            port,
            user,
            identity_files,
            proxy_jump,
            certificate_files,
            identity_agent,
            forward_agent,
            ..
        } = &profile.kind
        else {
            return Err(ProfileError::NotSsh(
                name.to_owned(),
                profile.kind.kind_name(),
            ));
        };
        let mut target = SshTarget::new(host.clone(), *port, user.clone());
        target.identity_files = identity_files.iter().map(|f| expand_tilde(f)).collect();
        target.certificate_files = certificate_files.iter().map(|f| expand_tilde(f)).collect();
        target.identity_agent = identity_agent
            .as_deref()
            .and_then(crate::ssh::agent::AgentSource::parse);
        // A jump host resolved here never forwards the agent: only the target's shells do.
        target.forward_agent = *forward_agent && depth == 0;
        for hop in proxy_jump {
            if self.get(hop).is_some() {
                let mut hop_target = self.resolve(hop, seen, depth + 1)?;
                target.jump_hosts.append(&mut hop_target.jump_hosts);
                target.jump_hosts.push(hop_target);
            } else {
                let hop_target = parse_ssh_target(hop).map_err(|source| ProfileError::BadJump {
                    profile: name.to_owned(),
                    hop: hop.clone(),
                    source,
                })?;
                target.jump_hosts.push(hop_target);
            }
        }
        seen.remove(name);
        Ok(target)
    }
}

/// Writes `text` to `path` atomically: a temp file in the same folder (created when missing),
/// flushed, renamed over. Other files in the config folder (snippets) are saved the same way.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), ProfileError> {
    let write_err = |source| ProfileError::Write {
        path: path.to_owned(),
        source,
    };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).map_err(write_err)?;
    let file_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(PROFILES_FILE);
    let temp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut out = std::fs::File::create(&temp)?;
        out.write_all(text.as_bytes())?;
        out.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        // Best effort: do not leave the temp file behind.
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(write_err)
}

fn parse(text: &str, path: &Path) -> Result<Vec<ConnectionProfile>, ProfileError> {
    for (index, line) in text.lines().enumerate() {
        let key = line
            .split('=')
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches('"')
            .to_ascii_lowercase();
        if line.contains('=') && SECRET_KEYS.contains(&key.as_str()) {
            return Err(ProfileError::Malformed {
                path: path.to_owned(),
                line: index + 1,
                message: format!(
                    "`{key}` does not belong in this file: kaiport keeps secrets in the OS keychain"
                ),
            });
        }
    }
    let malformed = |line: usize, message: String| ProfileError::Malformed {
        path: path.to_owned(),
        line,
        message,
    };
    let syntax = |e: toml::de::Error| {
        let line = e.span().map(|span| line_of(text, span.start)).unwrap_or(1);
        malformed(line, e.message().trim_end_matches('.').to_owned())
    };
    // The entries as plain tables first, with where each is, so an error can name its profile.
    let raw: RawFile = toml::from_str(text).map_err(syntax)?;
    // An entry's span covers its `[[connection]]` header; it reaches to the next entry.
    let extents: Vec<std::ops::Range<usize>> = raw
        .connections
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let end = raw
                .connections
                .get(index + 1)
                .map_or(text.len(), |next| next.span().start);
            entry.span().start..end
        })
        .collect();
    let entry_name = |offset: usize| {
        extents
            .iter()
            .position(|extent| extent.contains(&offset))
            .and_then(|index| raw.connections[index].get_ref().get("name"))
            .and_then(|name| name.as_str())
            .map(str::to_owned)
    };
    let file: ProfileFile = toml::from_str(text).map_err(|e| {
        let mut offset = e.span().map(|span| span.start).unwrap_or(0);
        let mut message = e.message().trim_end_matches('.').to_owned();
        // A storage entry's field errors lose their place in the flattened profile: find it.
        if let Some(index) = extents.iter().position(|extent| extent.contains(&offset))
            && let Some(kind) = raw.connections[index].get_ref().get("kind")
            && let Some(kind) = kind.as_str()
        {
            let extent = &extents[index];
            let entry = text.get(extent.clone()).unwrap_or_default();
            // Past the `[[connection]]` line, up to a sub-table such as `[connection.settings]`.
            let body_start = entry.find('\n').map_or(entry.len(), |at| at + 1);
            let body = &entry[body_start..];
            let body = body.find("\n[").map_or(body, |end| &body[..=end]);
            if let Some((at, found)) = locate_type_error(kind, body) {
                offset = extent.start + body_start + at;
                let line = text[..offset].rsplit('\n').next().unwrap_or_default();
                let rest = &text[offset..];
                let line = format!("{line}{}", rest.split('\n').next().unwrap_or_default());
                message = match line.split_once('=') {
                    Some((key, _)) => format!("`{}`: {found}", key.trim().trim_matches('"')),
                    None => found,
                };
            }
        }
        let message = match entry_name(offset) {
            Some(name) => format!("connection {name:?}: {message}"),
            None => message,
        };
        malformed(line_of(text, offset), message)
    })?;
    for ((entry, extent), profile) in raw.connections.iter().zip(&extents).zip(&file.connections) {
        let found =
            unknown_field(entry.get_ref()).map_or_else(|| profile.kind.check_storage(), Err);
        if let Err(problem) = found {
            let line = field_line(text, extent.clone(), &problem.field);
            return Err(malformed(
                line,
                format!("connection {:?}: {}", profile.name, problem.message),
            ));
        }
    }
    let mut names = HashSet::new();
    for profile in &file.connections {
        if profile.name.trim().is_empty() || !names.insert(profile.name.clone()) {
            let needle = format!("\"{}\"", profile.name);
            let line = text
                .lines()
                .enumerate()
                .filter(|(_, l)| l.trim_start().starts_with("name") && l.contains(&needle))
                .map(|(i, _)| i + 1)
                .last()
                .unwrap_or(1);
            return Err(ProfileError::Malformed {
                path: path.to_owned(),
                line,
                message: format!("connection name {:?} is empty or used twice", profile.name),
            });
        }
    }
    Ok(file.connections)
}

/// The line of `field = …` inside the entry at `span` (else the entry's first line).
fn field_line(text: &str, span: std::ops::Range<usize>, field: &str) -> usize {
    let entry = text.get(span.clone()).unwrap_or_default();
    let mut offset = 0;
    for line in entry.split_inclusive('\n') {
        let key = line
            .split('=')
            .next()
            .unwrap_or_default()
            .trim()
            .trim_matches('"');
        if line.contains('=') && key == field {
            return line_of(text, span.start + offset);
        }
        offset += line.len();
    }
    line_of(text, span.start)
}

fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map(|before| before.matches('\n').count() + 1)
        .unwrap_or(1)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const SAMPLE: &str = r#"
[[connection]]
name = "bastion"
kind = "ssh"
host = "bastion.example.org"
user = "ops"

[[connection]]
name = "web1"
kind = "ssh"
host = "10.0.0.5"
port = 2222
user = "deploy"
identity_files = ["~/.ssh/id_ed25519", "/keys/id_rsa"]
proxy_jump = ["bastion", "admin@inner.example.org:2200"]

[connection.settings]
send_file_contents = true
command_timeout_s = 90
"#;

    #[test]
    fn load_resolve_save_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("connections.toml");
        std::fs::write(&path, SAMPLE).unwrap();
        let store = ProfileStore::load(&path).unwrap();
        assert_eq!(store.profiles().len(), 2);
        let web1 = store.get("web1").unwrap();
        assert_eq!(
            web1.settings.get("command_timeout_s"),
            Some(&serde_json::json!(90))
        );

        let target = store.resolve_target("web1").unwrap();
        let mut expected = SshTarget::new("10.0.0.5", 2222, "deploy");
        expected.identity_files = vec![
            expand_tilde("~/.ssh/id_ed25519"),
            PathBuf::from("/keys/id_rsa"),
        ];
        expected.jump_hosts = vec![
            SshTarget::new("bastion.example.org", 22, "ops"),
            SshTarget::new("inner.example.org", 2200, "admin"),
        ];
        assert_eq!(target, expected);

        store.save().unwrap();
        let again = ProfileStore::load(&path).unwrap();
        assert_eq!(again.profiles(), store.profiles());
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(
            leftovers,
            vec![std::ffi::OsString::from("connections.toml")]
        );
    }

    /// Agent forwarding, the agent and certificates reach the target; a jump host that forwards
    /// the agent in its own profile does not when it is only a hop.
    #[test]
    fn keys_and_agent_forwarding_resolve_for_the_target_only() {
        let text = r#"
[[connection]]
name = "bastion"
kind = "ssh"
host = "bastion.example"
user = "ops"
forward_agent = true

[[connection]]
name = "web"
kind = "ssh"
host = "web.example"
user = "deploy"
proxy_jump = ["bastion"]
certificate_files = ["/keys/web-cert.pub"]
identity_agent = "/run/agent.sock"
forward_agent = true
"#;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("connections.toml");
        std::fs::write(&path, text).unwrap();
        let store = ProfileStore::load(&path).unwrap();
        let web = store.resolve_target("web").unwrap();
        assert!(web.forward_agent);
        assert_eq!(
            web.certificate_files,
            vec![PathBuf::from("/keys/web-cert.pub")]
        );
        assert_eq!(
            web.identity_agent,
            Some(crate::ssh::agent::AgentSource::Socket(PathBuf::from(
                "/run/agent.sock"
            )))
        );
        assert!(!web.jump_hosts[0].forward_agent);
        assert!(store.resolve_target("bastion").unwrap().forward_agent);
    }

    #[test]
    fn missing_file_is_empty_and_save_creates_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("connections.toml");
        let mut store = ProfileStore::load(&path).unwrap();
        assert!(store.profiles().is_empty());
        store.upsert(ConnectionProfile {
            name: "h".into(),
            kind: ProfileKind::Ssh {
                host: "h.example".into(),
                port: 22,
                user: "u".into(),
                identity_files: vec![],
                proxy_jump: vec![],
                forwards: vec![],
                keep_session: false,
                certificate_files: vec![],
                identity_agent: None,
                forward_agent: false,
            },
            tags: vec![],
            settings: serde_json::Map::new(),
        });
        store.save().unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "[[connection]]\nname = \"h\"\nkind = \"ssh\"\nhost = \"h.example\"\nport = 22\nuser = \"u\"\n"
        );
        assert!(store.remove("h").is_some());
    }

    #[test]
    fn malformed_file_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("connections.toml");
        std::fs::write(&path, "[[connection]]\nname = \"a\"\nkind = \"ssh\"\nhost = \"h\"\nport = \"x\"\nuser = \"u\"\n").unwrap();
        let error = ProfileStore::load(&path).unwrap_err();
        let ProfileError::Malformed { line, .. } = &error else {
            panic!("{error:?}")
        };
        assert!(
            error
                .to_string()
                .starts_with(&format!("{}:", path.display())),
            "{error}"
        );
        assert!(*line >= 1, "{error}");

        std::fs::write(&path, "[[connection]]\nname = \"a\"\nkind = \"ssh\"\nhost = \"h\"\nuser = \"u\"\npassword = \"hunter2\"\n").unwrap();
        let error = ProfileStore::load(&path).unwrap_err().to_string();
        assert!(
            error.contains(":6: `password` does not belong in this file"),
            "{error}"
        );
        assert!(!error.contains("hunter2"));

        std::fs::write(&path, "[[connection]]\nname = \"a\"\nkind = \"ssh\"\nhost = \"h\"\nuser = \"u\"\n[[connection]]\nname = \"a\"\nkind = \"ssh\"\nhost = \"h\"\nuser = \"u\"\n").unwrap();
        let error = ProfileStore::load(&path).unwrap_err().to_string();
        assert!(
            error.contains(":7: connection name \"a\" is empty or used twice"),
            "{error}"
        );

        std::fs::write(&path, "[[connection]\n").unwrap();
        let error = ProfileStore::load(&path).unwrap_err().to_string();
        assert!(error.contains(":1: "), "{error}");
    }

    #[test]
    fn jump_loops_are_reported() {
        let text = "[[connection]]\nname = \"a\"\nkind = \"ssh\"\nhost = \"h\"\nuser = \"u\"\nproxy_jump = [\"b\"]\n\
                    [[connection]]\nname = \"b\"\nkind = \"ssh\"\nhost = \"h2\"\nuser = \"u\"\nproxy_jump = [\"a\"]\n";
        let store = ProfileStore {
            path: PathBuf::from("x"),
            profiles: parse(text, Path::new("x")).unwrap(),
        };
        assert!(matches!(
            store.resolve_target("a"),
            Err(ProfileError::JumpLoop(_))
        ));
        assert!(matches!(
            store.resolve_target("zzz"),
            Err(ProfileError::NotFound(_))
        ));
    }
}
