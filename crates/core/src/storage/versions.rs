//! Whether an object service keeps the previous version of a file kaiport replaces or deletes
//! by itself: an S3 bucket's versioning (GetBucketVersioning, `Status` `Enabled`; `Suspended`
//! keeps nothing new) and Azure Blob's soft delete (the blob service's `DeleteRetentionPolicy`).
//! Where it does, a change's card, result and audit line say so instead of "no backup"
//! (`crate::backup`). Azure's blob versioning is a setting of the storage account that the blob
//! service does not tell, so it is not looked at: soft delete alone decides.
//!
//! The answer is asked again after [`FRESH_FOR`], so a setting turned off meanwhile is not
//! claimed for long; a service that does not answer (no permission, a SAS token without service
//! rights) is taken as keeping nothing.
//!
//! This module only reads the service's settings, never changes one, and must never log or put a
//! secret in an error.

use reqsign_core::{Context, Signer};
use std::time::{Duration, Instant};

/// How long an answer is used before the service is asked again.
const FRESH_FOR: Duration = Duration::from_secs(60);
/// How long asking may take.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The blob service's API version asked for (one that has `DeleteRetentionPolicy`).
const AZURE_API_VERSION: &str = "2021-08-06";

/// What a change says where an S3 bucket keeps versions.
pub const S3_VERSIONING: &str =
    "the previous version is kept by the bucket's versioning (kaiport keeps no copy)";

/// What a change says where Azure's soft delete keeps deleted and overwritten blobs.
pub fn azure_soft_delete(days: Option<u32>) -> String {
    let kept = match days {
        Some(1) => " for 1 day".to_owned(),
        Some(days) => format!(" for {days} days"),
        None => String::new(),
    };
    format!("the previous version is kept by Azure's soft delete{kept} (kaiport keeps no copy)")
}

/// The request that asks, and how it is signed.
enum Ask {
    S3 {
        url: String,
        signer: Signer<reqsign_aws_v4::Credential>,
    },
    Azure {
        url: String,
        signer: Signer<reqsign_azure_storage::Credential>,
    },
}

/// Asks one bucket or container whether the service keeps old versions.
pub struct VersionsProbe {
    ask: Ask,
    client: reqwest::Client,
    /// The last answer and when it came.
    known: tokio::sync::Mutex<Option<(Instant, Option<String>)>>,
}

impl VersionsProbe {
    /// For an S3 bucket; `None` for a bucket name no URL can carry as it is.
    pub fn s3(
        bucket: &str,
        endpoint: Option<&str>,
        region: &str,
        path_style: bool,
        credential: (&str, &str, Option<&str>),
    ) -> Option<VersionsProbe> {
        if bucket.is_empty()
            || !bucket
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'-' | b'_'))
        {
            return None;
        }
        let endpoint = endpoint.map_or_else(
            || format!("https://s3.{region}.amazonaws.com"),
            |endpoint| endpoint.trim_end_matches('/').to_owned(),
        );
        let url = if path_style {
            format!("{endpoint}/{bucket}?versioning")
        } else {
            let (scheme, host) = endpoint.split_once("://")?;
            format!("{scheme}://{bucket}.{host}/?versioning")
        };
        let (key_id, secret, token) = credential;
        let mut provider = reqsign_aws_v4::StaticCredentialProvider::new(key_id, secret);
        if let Some(token) = token {
            provider = provider.with_session_token(token);
        }
        let signer = Signer::new(
            Context::new(),
            provider,
            reqsign_aws_v4::RequestSigner::new("s3", region),
        );
        Some(VersionsProbe::new(Ask::S3 { url, signer }))
    }

    /// For an Azure container whose account is at `endpoint`; `sas`: `secret` is a SAS token,
    /// not the account key.
    pub fn azure(endpoint: &str, account: &str, secret: &str, sas: bool) -> VersionsProbe {
        let url = format!(
            "{}/?restype=service&comp=properties",
            endpoint.trim_end_matches('/')
        );
        let provider = if sas {
            reqsign_azure_storage::StaticCredentialProvider::new_sas_token(secret)
        } else {
            reqsign_azure_storage::StaticCredentialProvider::new_shared_key(account, secret)
        };
        let signer = Signer::new(
            Context::new(),
            provider,
            reqsign_azure_storage::RequestSigner::new(),
        );
        VersionsProbe::new(Ask::Azure { url, signer })
    }

    fn new(ask: Ask) -> VersionsProbe {
        VersionsProbe {
            ask,
            client: reqwest::Client::builder()
                .timeout(TIMEOUT)
                .build()
                .unwrap_or_default(),
            known: tokio::sync::Mutex::new(None),
        }
    }

    /// What a change says where the service keeps the previous version (`None`: it does not),
    /// asked at most once per [`FRESH_FOR`]. `Err`: the service did not tell, in words without
    /// a secret.
    pub async fn kept(&self) -> Result<Option<String>, String> {
        let mut known = self.known.lock().await;
        if let Some((at, answer)) = known.as_ref()
            && at.elapsed() < FRESH_FOR
        {
            return Ok(answer.clone());
        }
        let answer = self.ask().await?;
        *known = Some((Instant::now(), answer.clone()));
        Ok(answer)
    }

    async fn ask(&self) -> Result<Option<String>, String> {
        let (url, headers) = match &self.ask {
            Ask::S3 { url, signer } => {
                let mut parts = request_parts(
                    url,
                    &[("x-amz-content-sha256", reqsign_aws_v4::EMPTY_STRING_SHA256)],
                )?;
                signer
                    .sign(&mut parts, None)
                    .await
                    .map_err(|error| format!("cannot sign the request: {}", error.kind()))?;
                (parts.uri.to_string(), parts.headers)
            }
            Ask::Azure { url, signer } => {
                let mut parts = request_parts(url, &[("x-ms-version", AZURE_API_VERSION)])?;
                signer
                    .sign(&mut parts, None)
                    .await
                    .map_err(|error| format!("cannot sign the request: {}", error.kind()))?;
                (parts.uri.to_string(), parts.headers)
            }
        };
        let answer = self
            .client
            .get(&url)
            .headers(headers)
            .send()
            .await
            .map_err(|error| format!("the service did not answer: {}", error.without_url()))?;
        let status = answer.status();
        if !status.is_success() {
            return Err(format!("the service answered {status}"));
        }
        let body = answer
            .text()
            .await
            .map_err(|error| format!("the service's answer broke off: {}", error.without_url()))?;
        Ok(match &self.ask {
            Ask::S3 { .. } => s3_keeps_versions(&body).then(|| S3_VERSIONING.to_owned()),
            Ask::Azure { .. } => azure_retention(&body).map(azure_soft_delete),
        })
    }
}

/// A GET of `url` with `headers`, ready to be signed.
fn request_parts(url: &str, headers: &[(&str, &str)]) -> Result<http::request::Parts, String> {
    let mut request = http::Request::get(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
        .body(())
        .map(|request| request.into_parts().0)
        .map_err(|error| format!("cannot build the request: {error}"))
}

/// The text of the first `<name>…</name>` in `xml` (the services' answers are small and flat
/// where read here).
fn element<'a>(xml: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find(&format!("</{name}>"))? + start;
    Some(xml[start..end].trim())
}

/// Whether a GetBucketVersioning answer says versioning is on (never set: no `Status`;
/// `Suspended`: new changes keep no version).
fn s3_keeps_versions(xml: &str) -> bool {
    element(xml, "Status") == Some("Enabled")
}

/// From a Get Blob Service Properties answer: `Some(days)` when soft delete is on (`None` days
/// where the answer gives none).
fn azure_retention(xml: &str) -> Option<Option<u32>> {
    let policy = element(xml, "DeleteRetentionPolicy")?;
    if element(policy, "Enabled")? != "true" {
        return None;
    }
    Some(element(policy, "Days").and_then(|days| days.parse().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_enabled_versioning_keeps_versions() {
        let answer = |status: &str| {
            format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<VersioningConfiguration \
                 xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">{status}</VersioningConfiguration>"
            )
        };
        assert!(s3_keeps_versions(&answer("<Status>Enabled</Status>")));
        assert!(!s3_keeps_versions(&answer("<Status>Suspended</Status>")));
        assert!(!s3_keeps_versions(&answer("")));
        assert!(!s3_keeps_versions(
            "<Error><Code>NotImplemented</Code></Error>"
        ));
    }

    #[test]
    fn soft_delete_is_read_from_its_own_policy() {
        let answer = |policy: &str| {
            format!(
                "<StorageServiceProperties><HourMetrics><Enabled>true</Enabled>\
                 <RetentionPolicy><Enabled>true</Enabled><Days>3</Days></RetentionPolicy>\
                 </HourMetrics>{policy}</StorageServiceProperties>"
            )
        };
        let on = answer(
            "<DeleteRetentionPolicy><Enabled>true</Enabled><Days>7</Days></DeleteRetentionPolicy>",
        );
        assert_eq!(azure_retention(&on), Some(Some(7)));
        let off = answer("<DeleteRetentionPolicy><Enabled>false</Enabled></DeleteRetentionPolicy>");
        assert_eq!(azure_retention(&off), None);
        // Metrics' retention is not soft delete.
        assert_eq!(azure_retention(&answer("")), None);
        assert_eq!(
            azure_soft_delete(Some(7)),
            "the previous version is kept by Azure's soft delete for 7 days (kaiport keeps no copy)"
        );
    }

    #[test]
    fn s3_asks_the_bucket_where_its_url_style_puts_it() {
        let url = |probe: Option<VersionsProbe>| match probe.map(|probe| probe.ask) {
            Some(Ask::S3 { url, .. }) => Some(url),
            _ => None,
        };
        let key = ("id", "secret", None);
        assert_eq!(
            url(VersionsProbe::s3("b1", None, "eu-west-1", false, key)).as_deref(),
            Some("https://b1.s3.eu-west-1.amazonaws.com/?versioning")
        );
        assert_eq!(
            url(VersionsProbe::s3(
                "b1",
                Some("http://127.0.0.1:9000/"),
                "us-east-1",
                true,
                key
            ))
            .as_deref(),
            Some("http://127.0.0.1:9000/b1?versioning")
        );
        assert_eq!(
            url(VersionsProbe::s3("a/b", None, "us-east-1", true, key)),
            None
        );
    }
}
