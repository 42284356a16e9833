//! Storage services behind [`FileAccess`]: S3 (AWS and S3-compatible), WebDAV and Azure Blob
//! through opendal ([`object::ObjectFiles`]), FTP and explicit FTPS through suppaftp
//! ([`ftp::FtpFiles`], because opendal's FTP cannot rename), and SFTP through the existing
//! russh-sftp implementation (with the URL's folder shown as `/`, [`rooted::RootedFiles`], like
//! every other service). A storage tab's location is a [`StorageUrl`]:
//!
//! `s3://bucket/prefix?endpoint=…&region=…&path_style=true`, `webdav(s)://host:port/path`,
//! `azblob://container/prefix?account=…&endpoint=…`, `ftp(s)://user@host:port/path`,
//! `sftp://user@host:port/path`.
//!
//! The user name (S3 access key id, Azure account, FTP/WebDAV/SFTP user) is the URL's user part
//! or given separately; the secret (S3 secret key, Azure account key or SAS token, password)
//! never is part of a URL: it comes from the keychain or the front end.
//!
//! This module must never log, print or put a secret into an error message.

pub mod ftp;
pub mod object;
pub mod rooted;
pub mod sftp_storage;
pub mod transfer;
pub mod versions;
pub mod webdav;

/// Retries of a storage request that failed in a way that may pass (a 5xx, a 429, a dropped
/// connection), after [`retry_delay`]: a service that stays down is reported after about 8 s.
pub(crate) const RETRIES: usize = 5;

/// The wait before retry `attempt` (from 0): 0.25, 0.5, 1, 2, 4 s.
pub(crate) fn retry_delay(attempt: usize) -> std::time::Duration {
    std::time::Duration::from_millis(250 << attempt.min(4))
}

/// Whether an HTTP answer says the service cannot serve the request now (429, 500, 502, 503,
/// 504): the answers a request is sent again after.
pub(crate) fn busy_status(status: u16) -> bool {
    matches!(status, 429 | 500 | 502 | 503 | 504)
}

use crate::fs::{FileAccess, FsError, FsErrorKind};
use std::sync::Arc;

/// Which service a URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Service {
    S3 {
        bucket: String,
        endpoint: Option<String>,
        region: Option<String>,
        path_style: bool,
        session_token: Option<String>,
    },
    Webdav {
        /// `http(s)://host:port`.
        endpoint: String,
        /// A PEM file whose certificates are the only ones trusted for this server
        /// (`?ca_file=…`, a self-signed server); else the platform's trust store.
        ca_file: Option<String>,
    },
    Azure {
        container: String,
        account: Option<String>,
        endpoint: Option<String>,
        /// The secret is a SAS token, not an account key.
        sas: bool,
    },
    Ftp {
        host: String,
        port: u16,
        /// Explicit FTPS (AUTH TLS).
        secure: bool,
        /// A PEM file of extra certificates to trust (self-signed servers).
        ca_file: Option<String>,
    },
    Sftp {
        host: String,
        port: u16,
    },
}

/// A parsed storage URL (no secret in it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageUrl {
    pub service: Service,
    /// The folder of the service the tab shows as `/` (no leading or trailing `/`).
    pub root: String,
    pub user: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StorageUrlError {
    #[error("{0:?} is not a URL: {1}")]
    Syntax(String, String),
    #[error(
        "{0:?}: unknown storage scheme {1:?}; use s3://, webdav://, webdavs://, azblob://, ftp://, ftps:// or sftp://"
    )]
    Scheme(String, String),
    #[error("{0:?}: {1}")]
    Invalid(String, String),
}

fn decode(text: &str) -> String {
    // Form decoding turns `+` into a space; in a URL's path and user part `+` is itself.
    let text = text.replace('+', "%2B");
    url::form_urlencoded::parse(format!("x={text}").as_bytes())
        .next()
        .map(|(_, value)| value.into_owned())
        .unwrap_or_else(|| text.to_owned())
}

impl StorageUrl {
    /// Parses a storage URL; `user` (e.g. `--user`) wins over the URL's user part.
    pub fn parse(text: &str, user: Option<&str>) -> Result<StorageUrl, StorageUrlError> {
        let parsed = url::Url::parse(text)
            .map_err(|error| StorageUrlError::Syntax(text.to_owned(), error.to_string()))?;
        let invalid = |why: &str| StorageUrlError::Invalid(text.to_owned(), why.to_owned());
        if parsed.password().is_some() {
            return Err(invalid(
                "a secret may not be part of the URL; it comes from the keychain or --password-env",
            ));
        }
        let query: std::collections::HashMap<String, String> =
            parsed.query_pairs().into_owned().collect();
        let flag = |name: &str| {
            query
                .get(name)
                .is_some_and(|value| matches!(value.as_str(), "true" | "1" | "yes"))
        };
        let url_user = (!parsed.username().is_empty()).then(|| decode(parsed.username()));
        let user = user.map(str::to_owned).or(url_user);
        // An IPv6 host without its brackets: the brackets are URL syntax, not the address.
        let host = match parsed.host() {
            Some(url::Host::Ipv6(address)) => address.to_string(),
            _ => parsed.host_str().unwrap_or_default().to_owned(),
        };
        let path = decode(parsed.path());
        let path = path.trim_matches('/').to_owned();
        let need_host = || {
            if host.is_empty() {
                Err(invalid("the URL names no host, bucket or container"))
            } else {
                Ok(())
            }
        };
        let service = match parsed.scheme() {
            "s3" => {
                need_host()?;
                Service::S3 {
                    bucket: host.clone(),
                    endpoint: query.get("endpoint").cloned(),
                    region: query.get("region").cloned(),
                    path_style: flag("path_style"),
                    session_token: None,
                }
            }
            "webdav" | "webdavs" => {
                need_host()?;
                let scheme = if parsed.scheme() == "webdavs" {
                    "https"
                } else {
                    "http"
                };
                let port = parsed
                    .port()
                    .map(|port| format!(":{port}"))
                    .unwrap_or_default();
                let host = if host.contains(':') {
                    format!("[{host}]")
                } else {
                    host.clone()
                };
                Service::Webdav {
                    endpoint: format!("{scheme}://{host}{port}"),
                    ca_file: query.get("ca_file").cloned(),
                }
            }
            "azblob" => {
                need_host()?;
                Service::Azure {
                    container: host.clone(),
                    account: query.get("account").cloned(),
                    endpoint: query.get("endpoint").cloned(),
                    sas: flag("sas"),
                }
            }
            "ftp" | "ftps" => {
                need_host()?;
                Service::Ftp {
                    host: host.clone(),
                    port: parsed.port().unwrap_or(21),
                    secure: parsed.scheme() == "ftps",
                    ca_file: query.get("ca_file").cloned(),
                }
            }
            "sftp" => {
                need_host()?;
                Service::Sftp {
                    host: host.clone(),
                    port: parsed.port().unwrap_or(22),
                }
            }
            other => return Err(StorageUrlError::Scheme(text.to_owned(), other.to_owned())),
        };
        Ok(StorageUrl {
            service,
            root: path,
            user,
        })
    }

    /// How the tab is named (no secret).
    pub fn label(&self) -> String {
        let user = self
            .user
            .as_deref()
            .map(|user| format!("{user}@"))
            .unwrap_or_default();
        let root = &self.root;
        match &self.service {
            Service::S3 { bucket, .. } => format!("s3://{bucket}/{root}"),
            Service::Webdav { endpoint, .. } => format!("{endpoint}/{root}"),
            Service::Azure { container, .. } => format!("azblob://{container}/{root}"),
            Service::Ftp {
                host, port, secure, ..
            } => {
                let scheme = if *secure { "ftps" } else { "ftp" };
                format!("{scheme}://{user}{host}:{port}/{root}")
            }
            Service::Sftp { host, port } => format!("sftp://{user}{host}:{port}/{root}"),
        }
    }

    /// The keychain account of this location's secret.
    pub fn secret_account(&self) -> String {
        format!("storage-secret:{}", self.label())
    }

    /// Whether opening needs a secret (everything but anonymous access does).
    pub fn needs_secret(&self) -> bool {
        !matches!(self.service, Service::Sftp { .. })
    }
}

/// The secret for `url`: from the keychain (account [`StorageUrl::secret_account`]), else
/// asked for through `interaction` (a password prompt the front end answers). Never logged.
pub async fn secret_for(
    url: &StorageUrl,
    interaction: &dyn crate::ssh::ConnectInteraction,
) -> Result<Option<String>, String> {
    if !url.needs_secret() {
        return Ok(None);
    }
    let account = url.secret_account();
    let stored = tokio::task::spawn_blocking(move || {
        crate::connect::secrets::SecretStore::open()
            .ok()
            .and_then(|store| store.get(&account).ok().flatten())
    })
    .await
    .ok()
    .flatten();
    if stored.is_some() {
        return Ok(stored);
    }
    let user = url.user.clone().unwrap_or_default();
    // Port 0: not an SSH server, so no SSH password in the keychain can match.
    match interaction.password(&user, &url.label(), 0).await {
        Some(secret) => Ok(Some(secret)),
        None => Err(format!(
            "no secret for {} (not in the keychain, and none was given)",
            url.label()
        )),
    }
}

/// Installs the process-wide rustls crypto provider (suppaftp and reqwest both link rustls;
/// without one default, building a TLS config panics) and opendal's default HTTP transport.
pub fn install_crypto_provider() {
    // Fails only when one is installed already, which is what we want.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    // opendal's HTTP transport (reqwest) is process-wide too; installing twice is harmless.
    opendal::install_default();
}

/// Opens the storage service `url` names (not SFTP: that needs an SSH session; see
/// `engine`). The error says what to fix.
pub async fn open(url: &StorageUrl, secret: Option<&str>) -> Result<Arc<dyn FileAccess>, FsError> {
    install_crypto_provider();
    if let Some(secret) = secret {
        crate::redact::remember(secret);
    }
    match &url.service {
        Service::Ftp { .. } => Ok(Arc::new(ftp::FtpFiles::connect(url, secret).await?)),
        Service::S3 { .. } | Service::Webdav { .. } | Service::Azure { .. } => {
            Ok(Arc::new(object::ObjectFiles::open(url, secret).await?))
        }
        Service::Sftp { .. } => Err(FsError::new(
            FsErrorKind::Unsupported,
            &url.label(),
            "SFTP storage opens through an SSH session",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn urls() {
        let s3 = StorageUrl::parse(
            "s3://AKID@bucket/some/prefix?endpoint=http://127.0.0.1:9000&region=eu-1&path_style=true",
            None,
        )
        .unwrap();
        assert_eq!(
            s3,
            StorageUrl {
                service: Service::S3 {
                    bucket: "bucket".to_owned(),
                    endpoint: Some("http://127.0.0.1:9000".to_owned()),
                    region: Some("eu-1".to_owned()),
                    path_style: true,
                    session_token: None,
                },
                root: "some/prefix".to_owned(),
                user: Some("AKID".to_owned()),
            }
        );
        let ftp = StorageUrl::parse("ftps://bob@host:2121/a%20b", Some("alice")).unwrap();
        assert_eq!(ftp.user.as_deref(), Some("alice"));
        assert_eq!(ftp.root, "a b");
        assert!(StorageUrl::parse("ftp://bob:pw@host/", None).is_err());
        assert!(StorageUrl::parse("gopher://host/", None).is_err());
        let dav = StorageUrl::parse("webdavs://u@dav.example:8443/share", None).unwrap();
        assert_eq!(
            dav.service,
            Service::Webdav {
                endpoint: "https://dav.example:8443".to_owned(),
                ca_file: None,
            }
        );
    }
}
