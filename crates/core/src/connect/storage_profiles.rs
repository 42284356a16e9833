//! Storage connection profiles: the `kind = "s3" | "webdav" | "azblob" | "ftp" | "ftps" |
//! "sftp"` entries of `connections.toml`, beside the SSH ones.
//!
//! ```toml
//! [[connection]]
//! name = "backups"
//! kind = "s3"
//! bucket = "nightly"
//! prefix = "db"
//! endpoint = "https://s3.eu.example"
//! region = "eu-1"
//! path_style = true
//! user = "AKIDEXAMPLE"            # the access key id; the secret key is in the keychain
//! local_roots = ["~/restore"]     # the folders of this computer the tab's local side may use
//! [connection.settings]
//! sensitivity = "confidential"
//! ```
//!
//! An `sftp` entry logs in like an SSH profile: `identity_files = ["~/.ssh/id_ed25519"]`, each
//! key's passphrase in the keychain (or asked for), then the password.
//!
//! Besides those keys, a profile holds exactly what a storage URL carries
//! ([`crate::storage::StorageUrl`]); it is turned into that URL ([`StorageProfile::url`]) so a
//! profile tab and a URL tab open the same way and look up the same keychain entry.
//! [`unknown_field`] and [`StorageProfile::check`] find unknown and invalid fields so the error
//! names the file, the profile and the field.
//!
//! The profile file and its `ProfileKind` (`super::profiles`) build on this module, never the
//! other way round: it takes a [`StorageProfile`] and knows no profile store. It must never hold
//! or accept a secret; the profile file refuses secret-like keys.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::paths::expand_tilde;
use crate::storage::StorageUrl;

/// An S3 bucket, on AWS or an S3-compatible service at `endpoint`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct S3Profile {
    pub bucket: String,
    /// The folder of the bucket the tab shows as `/`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prefix: String,
    /// `http(s)://host:port` of an S3-compatible service (default: AWS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub path_style: bool,
    /// The access key id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_roots: Vec<String>,
}

/// A WebDAV share.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct WebdavProfile {
    pub host: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// The folder of the share the tab shows as `/`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    /// `https://` instead of `http://`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub https: bool,
    /// A PEM file whose certificates are the only ones trusted for this server (a self-signed
    /// or private CA); otherwise the platform's trust store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_roots: Vec<String>,
}

/// An Azure Blob container.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AzblobProfile {
    pub container: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prefix: String,
    /// The storage account (also the user name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    /// The blob endpoint (Azurite, sovereign clouds); default `https://<account>.blob.core.windows.net`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// The secret in the keychain is a SAS token, not an account key.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sas: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_roots: Vec<String>,
}

/// An FTP, FTPS or SFTP server.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FileServerProfile {
    pub host: String,
    /// Default 21 (FTP, FTPS) or 22 (SFTP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// The folder the tab starts in.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// FTPS only: a PEM file of extra certificates to trust (self-signed servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<String>,
    /// SFTP only: private key files to log in with (`~` expanded), as for SSH profiles; a
    /// key's passphrase lives in the keychain like an SSH profile's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub identity_files: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_roots: Vec<String>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// The fields each storage kind takes (besides `name`, `kind` and `settings`).
fn known_fields(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "s3" => &[
            "bucket",
            "prefix",
            "endpoint",
            "region",
            "path_style",
            "user",
            "local_roots",
        ],
        "webdav" => &[
            "host",
            "port",
            "path",
            "https",
            "ca_file",
            "user",
            "local_roots",
        ],
        "azblob" => &[
            "container",
            "prefix",
            "account",
            "endpoint",
            "sas",
            "local_roots",
        ],
        "ftps" => &["host", "port", "path", "user", "ca_file", "local_roots"],
        "ftp" => &["host", "port", "path", "user", "local_roots"],
        "sftp" => &[
            "host",
            "port",
            "path",
            "user",
            "identity_files",
            "local_roots",
        ],
        _ => return None,
    })
}

/// What is wrong with one field of a storage profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldProblem {
    pub field: String,
    pub message: String,
}

/// Checks the raw table of one `[[connection]]` entry of a storage kind: unknown fields (a typo
/// would otherwise be ignored silently). `None` for SSH entries and when all is well.
pub fn unknown_field(table: &toml::Table) -> Option<FieldProblem> {
    let kind = table.get("kind")?.as_str()?;
    let known = known_fields(kind)?;
    let unknown = table.keys().find(|key| {
        !matches!(key.as_str(), "name" | "kind" | "tags" | "settings")
            && !known.contains(&key.as_str())
    })?;
    Some(FieldProblem {
        field: unknown.clone(),
        message: format!(
            "unknown field `{unknown}`; a {kind} connection takes {}",
            known.join(", ")
        ),
    })
}

/// Where in `entry` (the text of one storage entry, header and sub-tables cut off) a type
/// error is, and its message: deserializing the kind's own struct keeps toml's field spans,
/// which the flattened profile loses. `None` for SSH entries or when it parses.
pub fn locate_type_error(kind: &str, entry: &str) -> Option<(usize, String)> {
    fn error_of<T: serde::de::DeserializeOwned>(entry: &str) -> Option<(usize, String)> {
        let error = toml::from_str::<T>(entry).err()?;
        let at = error.span().map_or(0, |span| span.start);
        Some((at, error.message().trim_end_matches('.').to_owned()))
    }
    match kind {
        "s3" => error_of::<S3Profile>(entry),
        "webdav" => error_of::<WebdavProfile>(entry),
        "azblob" => error_of::<AzblobProfile>(entry),
        "ftp" | "ftps" | "sftp" => error_of::<FileServerProfile>(entry),
        _ => None,
    }
}

fn problem(field: &str, message: impl Into<String>) -> FieldProblem {
    FieldProblem {
        field: field.to_owned(),
        message: message.into(),
    }
}

fn check_name(field: &str, value: &str, what: &str) -> Result<(), FieldProblem> {
    if value.trim().is_empty() {
        return Err(problem(
            field,
            format!("`{field}` is empty; give the {what}"),
        ));
    }
    if value.contains(['/', '?', '#', '@', ' ']) {
        return Err(problem(
            field,
            format!("`{field}` {value:?} is not a {what}: it contains /, ?, #, @ or a space"),
        ));
    }
    Ok(())
}

fn check_endpoint(value: Option<&String>) -> Result<(), FieldProblem> {
    let Some(endpoint) = value else {
        return Ok(());
    };
    match url::Url::parse(endpoint) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") && parsed.has_host() => Ok(()),
        _ => Err(problem(
            "endpoint",
            format!("`endpoint` {endpoint:?} is not an http:// or https:// URL"),
        )),
    }
}

fn check_port(port: Option<u16>) -> Result<(), FieldProblem> {
    match port {
        Some(0) => Err(problem("port", "`port` must be from 1 to 65535")),
        _ => Ok(()),
    }
}

/// One storage profile, whichever its kind: borrowed from a profile's kind (the profiles module's
/// `ProfileKind::storage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageProfile<'a> {
    S3(&'a S3Profile),
    Webdav(&'a WebdavProfile),
    Azblob(&'a AzblobProfile),
    Ftp(&'a FileServerProfile),
    Ftps(&'a FileServerProfile),
    Sftp(&'a FileServerProfile),
}

impl StorageProfile<'_> {
    /// Checks the values, naming the field that is wrong.
    pub fn check(self) -> Result<(), FieldProblem> {
        match self {
            StorageProfile::S3(s3) => {
                check_name("bucket", &s3.bucket, "bucket name")?;
                check_endpoint(s3.endpoint.as_ref())?;
            }
            StorageProfile::Webdav(dav) => {
                check_name("host", &dav.host, "host name")?;
                check_port(dav.port)?;
            }
            StorageProfile::Azblob(azure) => {
                check_name("container", &azure.container, "container name")?;
                check_endpoint(azure.endpoint.as_ref())?;
                if azure.account.is_none() && azure.endpoint.is_none() {
                    return Err(problem(
                        "account",
                        "`account` is missing; give the storage account (or an endpoint with it)",
                    ));
                }
            }
            StorageProfile::Ftp(server)
            | StorageProfile::Ftps(server)
            | StorageProfile::Sftp(server) => {
                check_name("host", &server.host, "host name")?;
                check_port(server.port)?;
            }
        }
        // The URL it makes must parse the way the engine will parse it.
        StorageUrl::parse(&self.url(), None)
            .map(|_| ())
            .map_err(|error| problem("kind", error.to_string()))
    }

    /// The local folders the profile's tab may use (`~` expanded).
    pub fn local_roots(self) -> Vec<String> {
        let roots = match self {
            StorageProfile::S3(s3) => &s3.local_roots,
            StorageProfile::Webdav(dav) => &dav.local_roots,
            StorageProfile::Azblob(azure) => &azure.local_roots,
            StorageProfile::Ftp(server)
            | StorageProfile::Ftps(server)
            | StorageProfile::Sftp(server) => &server.local_roots,
        };
        roots
            .iter()
            .map(|root| expand_tilde(root).display().to_string())
            .collect()
    }

    /// The private keys an SFTP profile logs in with (`~` expanded); empty for other kinds.
    pub fn identity_files(self) -> Vec<PathBuf> {
        match self {
            StorageProfile::Sftp(server) => server
                .identity_files
                .iter()
                .map(|file| expand_tilde(file))
                .collect(),
            StorageProfile::S3(_)
            | StorageProfile::Webdav(_)
            | StorageProfile::Azblob(_)
            | StorageProfile::Ftp(_)
            | StorageProfile::Ftps(_) => Vec::new(),
        }
    }

    /// The storage URL this profile stands for (no secret in it).
    pub fn url(self) -> String {
        let (scheme, user, host, port, path, query): (_, _, _, _, _, Vec<(&str, String)>) =
            match self {
                StorageProfile::S3(s3) => {
                    let mut query = Vec::new();
                    if let Some(endpoint) = &s3.endpoint {
                        query.push(("endpoint", endpoint.clone()));
                    }
                    if let Some(region) = &s3.region {
                        query.push(("region", region.clone()));
                    }
                    if s3.path_style {
                        query.push(("path_style", "true".to_owned()));
                    }
                    ("s3", &s3.user, &s3.bucket, None, &s3.prefix, query)
                }
                StorageProfile::Webdav(dav) => {
                    let scheme = if dav.https { "webdavs" } else { "webdav" };
                    let query = dav
                        .ca_file
                        .iter()
                        .map(|file| ("ca_file", file.clone()))
                        .collect();
                    (scheme, &dav.user, &dav.host, dav.port, &dav.path, query)
                }
                StorageProfile::Azblob(azure) => {
                    let mut query = Vec::new();
                    if let Some(account) = &azure.account {
                        query.push(("account", account.clone()));
                    }
                    if let Some(endpoint) = &azure.endpoint {
                        query.push(("endpoint", endpoint.clone()));
                    }
                    if azure.sas {
                        query.push(("sas", "true".to_owned()));
                    }
                    let container = &azure.container;
                    (
                        "azblob",
                        &azure.account,
                        container,
                        None,
                        &azure.prefix,
                        query,
                    )
                }
                StorageProfile::Ftp(server)
                | StorageProfile::Ftps(server)
                | StorageProfile::Sftp(server) => {
                    let scheme = match self {
                        StorageProfile::Ftps(_) => "ftps",
                        StorageProfile::Sftp(_) => "sftp",
                        _ => "ftp",
                    };
                    let mut query = Vec::new();
                    if let Some(ca_file) = &server.ca_file {
                        query.push(("ca_file", expand_tilde(ca_file).display().to_string()));
                    }
                    let path = &server.path;
                    (scheme, &server.user, &server.host, server.port, path, query)
                }
            };
        let mut text = format!("{scheme}://");
        if let Some(user) = user {
            text.push_str(&encode(user));
            text.push('@');
        }
        if host.contains(':') {
            text.push_str(&format!("[{host}]"));
        } else {
            text.push_str(host);
        }
        if let Some(port) = port {
            text.push_str(&format!(":{port}"));
        }
        text.push('/');
        let path: Vec<String> = path
            .split('/')
            .filter(|part| !part.is_empty())
            .map(encode)
            .collect();
        text.push_str(&path.join("/"));
        if !query.is_empty() {
            let mut pairs = url::form_urlencoded::Serializer::new(String::new());
            for (name, value) in query {
                pairs.append_pair(name, &value);
            }
            text.push('?');
            text.push_str(&pairs.finish());
        }
        text
    }
}

/// Percent-encodes everything but unreserved characters (a user name or path segment in a URL).
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn known_fields_match_the_types() {
        fn full(kind: &str, profile: impl Serialize) {
            let value = toml::Table::try_from(profile).unwrap();
            let mut keys: Vec<&str> = value.keys().map(String::as_str).collect();
            keys.sort_unstable();
            let mut known = known_fields(kind).unwrap().to_vec();
            known.sort_unstable();
            assert_eq!(keys, known, "{kind}");
        }
        let some = || Some("x".to_owned());
        let roots = vec!["/r".to_owned()];
        full(
            "s3",
            S3Profile {
                bucket: "b".into(),
                prefix: "p".into(),
                endpoint: some(),
                region: some(),
                path_style: true,
                user: some(),
                local_roots: roots.clone(),
            },
        );
        full(
            "webdav",
            WebdavProfile {
                host: "h".into(),
                port: Some(1),
                path: "p".into(),
                https: true,
                ca_file: some(),
                user: some(),
                local_roots: roots.clone(),
            },
        );
        full(
            "azblob",
            AzblobProfile {
                container: "c".into(),
                prefix: "p".into(),
                account: some(),
                endpoint: some(),
                sas: true,
                local_roots: roots.clone(),
            },
        );
        let server = FileServerProfile {
            host: "h".into(),
            port: Some(1),
            path: "p".into(),
            user: some(),
            ca_file: None,
            identity_files: Vec::new(),
            local_roots: roots,
        };
        full("ftp", server.clone());
        full(
            "sftp",
            FileServerProfile {
                identity_files: vec!["/k".to_owned()],
                ..server.clone()
            },
        );
        full(
            "ftps",
            FileServerProfile {
                ca_file: some(),
                ..server
            },
        );
    }
}
