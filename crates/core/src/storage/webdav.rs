//! WebDAV's HTTP side for [`super::object::ObjectFiles`]: authentication, TLS trust, streamed
//! uploads and moves that never overwrite silently.
//!
//! - **Authentication**: whatever the server asks for in its first `401` — digest (RFC 7616:
//!   MD5, MD5-sess, SHA-256, qop `auth`) is preferred over basic, and from then on every request
//!   carries it up front. It is done in [`WebdavTransport`], the HTTP transport opendal's WebDAV
//!   service is given, and in kaiport's own requests ([`WebdavHttp::put`],
//!   [`WebdavHttp::move_to`]).
//! - **TLS**: the platform's trust store, or, when the location names a `ca_file`, only the
//!   certificates in that PEM file (a self-signed server). Verification is never turned off.
//! - **Uploads** stream as one PUT through a small bounded channel ([`CHUNK`] ×
//!   [`CHUNKS_IN_FLIGHT`]), because opendal's WebDAV writer sends one PUT holding the whole file.
//!   A file of known size is sent with its `Content-Length` (servers that refuse chunked
//!   uploads take it, and a source that delivers fewer bytes fails the request); chunked
//!   encoding only where the size is unknown. Files up to [`BUFFERED_PUT`] are read into memory
//!   first, so a PUT that fails on the way is sent again ([`Resend`]); a MOVE is sent again only
//!   when the server surely did not do it.
//!
//! This module must never log the password or put it, or an `Authorization` header, into an
//! error message.

use crate::fs::{FsError, FsErrorKind, Source};
use bytes::Bytes;
use http::HeaderValue;
use http::header::{AUTHORIZATION, HeaderMap, WWW_AUTHENTICATE};
use md5::Digest as _;
use opendal::{Buffer, HttpBody, HttpTransport, HttpTransporter};
use opendal_http_transport_reqwest::ReqwestTransport;
use std::sync::{Arc, Mutex, PoisonError};
use tokio::io::AsyncReadExt;

/// Bytes read from the source per piece of an upload.
pub const CHUNK: usize = 256 * 1024;
/// Pieces waiting for the network at most (with [`CHUNK`]: the upload's memory bound).
pub const CHUNKS_IN_FLIGHT: usize = 4;
/// Uploads of a known size up to this are read into memory first, so a failed PUT can be sent
/// again; longer ones stream once.
pub const BUFFERED_PUT: u64 = 8 * 1024 * 1024;

/// Which failed tries of one of kaiport's own requests are sent again (up to
/// [`super::RETRIES`] times; opendal's requests have their retry layer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resend {
    /// After any failure: repeating the request does no harm (a PROPFIND, a PUT to a temp
    /// name).
    Always,
    /// Only when the server surely did nothing: no connection, or a 429 or 503 answer. A MOVE
    /// whose answer was lost may have happened, and repeating it would then fail or, with
    /// `Overwrite: T`, act twice.
    IfNotDone,
}

impl Resend {
    fn after_error(self, error: &reqwest::Error) -> bool {
        self == Resend::Always || error.is_connect()
    }

    fn after_status(self, status: reqwest::StatusCode) -> bool {
        match self {
            Resend::Always => super::busy_status(status.as_u16()),
            Resend::IfNotDone => matches!(status.as_u16(), 429 | 503),
        }
    }
}

/// A digest challenge from the server (`WWW-Authenticate: Digest …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestChallenge {
    pub realm: String,
    pub nonce: String,
    pub opaque: Option<String>,
    /// `MD5`, `MD5-sess`, `SHA-256` or `SHA-256-sess`.
    pub algorithm: String,
    /// The server offers qop `auth`.
    pub qop_auth: bool,
    /// The nonce is stale: the credentials were right, retry with the new nonce.
    pub stale: bool,
}

/// How requests are authenticated, learnt from the server's first `401`.
#[derive(Debug)]
enum Auth {
    /// Nothing sent yet.
    Unknown,
    Basic,
    Digest {
        challenge: DigestChallenge,
        /// Requests made with this nonce (the `nc` of RFC 7616).
        count: u32,
    },
}

/// `key=value` pairs of one challenge, values unquoted.
fn parse_params(text: &str) -> Vec<(String, String)> {
    let mut params = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let Some(equals) = rest.find('=') else { break };
        let key = rest[..equals]
            .trim()
            .trim_start_matches(',')
            .trim()
            .to_ascii_lowercase();
        rest = rest[equals + 1..].trim_start();
        let value;
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut out = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((at, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            out.push(escaped);
                        }
                    }
                    '"' => {
                        end = at + 1;
                        break;
                    }
                    other => out.push(other),
                }
            }
            value = out;
            rest = &quoted[end.min(quoted.len())..];
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            value = rest[..end].trim().to_owned();
            rest = &rest[end..];
        }
        rest = rest.trim_start().trim_start_matches(',').trim_start();
        params.push((key, value));
    }
    params
}

/// The digest challenge among `WWW-Authenticate` values, if the server offers one.
pub fn digest_challenge<'a>(values: impl Iterator<Item = &'a str>) -> Option<DigestChallenge> {
    for value in values {
        let trimmed = value.trim_start();
        if trimmed.len() < 7 || !trimmed[..7].eq_ignore_ascii_case("digest ") {
            continue;
        }
        let params = parse_params(&trimmed[7..]);
        let get = |name: &str| {
            params
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        };
        let (Some(realm), Some(nonce)) = (get("realm"), get("nonce")) else {
            continue;
        };
        let qop = get("qop").unwrap_or_default();
        return Some(DigestChallenge {
            realm,
            nonce,
            opaque: get("opaque"),
            algorithm: get("algorithm").unwrap_or_else(|| "MD5".to_owned()),
            qop_auth: qop
                .split(',')
                .any(|one| one.trim().eq_ignore_ascii_case("auth")),
            stale: get("stale").is_some_and(|stale| stale.eq_ignore_ascii_case("true")),
        });
    }
    None
}

fn hex_digest(algorithm: &str, data: &str) -> Option<String> {
    let base = algorithm
        .trim_end_matches("-sess")
        .trim_end_matches("-SESS");
    if base.eq_ignore_ascii_case("MD5") {
        Some(data_encoding::HEXLOWER.encode(&md5::Md5::digest(data.as_bytes())))
    } else if base.eq_ignore_ascii_case("SHA-256") {
        use sha2::Digest as _;
        Some(data_encoding::HEXLOWER.encode(&sha2::Sha256::digest(data.as_bytes())))
    } else {
        None
    }
}

fn quote(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The `Authorization: Digest …` value for one request (RFC 7616 §3.4), or `None` for an
/// algorithm kaiport does not know. `uri` is the request target as sent (path and query).
pub fn digest_authorization(
    challenge: &DigestChallenge,
    user: &str,
    password: &str,
    method: &str,
    uri: &str,
    count: u32,
    cnonce: &str,
) -> Option<String> {
    let algorithm = challenge.algorithm.as_str();
    let mut ha1 = hex_digest(algorithm, &format!("{user}:{}:{password}", challenge.realm))?;
    if algorithm.to_ascii_lowercase().ends_with("-sess") {
        ha1 = hex_digest(algorithm, &format!("{ha1}:{}:{cnonce}", challenge.nonce))?;
    }
    let ha2 = hex_digest(algorithm, &format!("{method}:{uri}"))?;
    let nc = format!("{count:08x}");
    let response = if challenge.qop_auth {
        hex_digest(
            algorithm,
            &format!("{ha1}:{}:{nc}:{cnonce}:auth:{ha2}", challenge.nonce),
        )?
    } else {
        hex_digest(algorithm, &format!("{ha1}:{}:{ha2}", challenge.nonce))?
    };
    let mut header = format!(
        "Digest username=\"{}\", realm=\"{}\", nonce=\"{}\", uri=\"{}\", algorithm={algorithm}, response=\"{response}\"",
        quote(user),
        quote(&challenge.realm),
        quote(&challenge.nonce),
        quote(uri),
    );
    if challenge.qop_auth {
        header.push_str(&format!(", qop=auth, nc={nc}, cnonce=\"{cnonce}\""));
    }
    if let Some(opaque) = &challenge.opaque {
        header.push_str(&format!(", opaque=\"{}\"", quote(opaque)));
    }
    Some(header)
}

/// The HTTP side of one WebDAV location.
pub struct WebdavHttp {
    client: reqwest::Client,
    /// `http(s)://host:port`.
    endpoint: String,
    /// opendal's normalized root (`/share/`).
    root: String,
    user: String,
    password: String,
    auth: Mutex<Auth>,
    label: String,
}

impl std::fmt::Debug for WebdavHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // No password, no authorization state.
        f.debug_struct("WebdavHttp")
            .field("endpoint", &self.endpoint)
            .field("root", &self.root)
            .finish()
    }
}

impl WebdavHttp {
    /// Builds the client. `ca_file`: a PEM file whose certificates are the only ones trusted
    /// (for a server with its own CA); without it the platform's trust store is used.
    pub fn new(
        endpoint: &str,
        root: &str,
        user: &str,
        password: &str,
        ca_file: Option<&str>,
        label: &str,
    ) -> Result<WebdavHttp, FsError> {
        let mut builder = reqwest::Client::builder();
        if let Some(ca_file) = ca_file {
            let pem = std::fs::read(ca_file).map_err(|error| {
                FsError::new(
                    FsErrorKind::Other,
                    label,
                    format!("cannot read the CA file {ca_file}: {error}"),
                )
            })?;
            let certificates = reqwest::Certificate::from_pem_bundle(&pem).map_err(|error| {
                FsError::new(
                    FsErrorKind::Other,
                    label,
                    format!("the CA file {ca_file} holds no usable PEM certificate: {error}"),
                )
            })?;
            if certificates.is_empty() {
                return Err(FsError::new(
                    FsErrorKind::Other,
                    label,
                    format!("the CA file {ca_file} holds no PEM certificate"),
                ));
            }
            builder = builder.tls_certs_only(certificates);
        }
        let client = builder.build().map_err(|error| {
            FsError::new(
                FsErrorKind::Other,
                label,
                format!("cannot set up HTTPS for {label}: {error}"),
            )
        })?;
        Ok(WebdavHttp {
            client,
            endpoint: endpoint.trim_end_matches('/').to_owned(),
            root: opendal::raw::normalize_root(root),
            user: user.to_owned(),
            password: password.to_owned(),
            auth: Mutex::new(Auth::Unknown),
            label: label.to_owned(),
        })
    }

    /// The transport to give opendal's WebDAV service (same client, same authentication).
    pub fn transport(self: &Arc<Self>) -> HttpTransporter {
        HttpTransporter::new(WebdavTransport {
            http: self.clone(),
            inner: ReqwestTransport::new(self.client.clone()),
        })
    }

    /// The URL of the tab path `path` (`/a b` → `…/root/a%20b`), encoded as opendal does.
    pub fn url(&self, path: &str) -> String {
        let rooted = opendal::raw::build_rooted_abs_path(&self.root, path.trim_start_matches('/'));
        format!(
            "{}{}",
            self.endpoint,
            opendal::raw::percent_encode_path(&rooted)
        )
    }

    fn auth(&self) -> std::sync::MutexGuard<'_, Auth> {
        self.auth.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The `Authorization` value for a request, if the scheme is known yet.
    fn authorization(&self, method: &str, url: &str) -> Option<HeaderValue> {
        let mut auth = self.auth();
        let value = match &mut *auth {
            Auth::Unknown => return None,
            Auth::Basic => {
                let pair = format!("{}:{}", self.user, self.password);
                format!("Basic {}", data_encoding::BASE64.encode(pair.as_bytes()))
            }
            Auth::Digest { challenge, count } => {
                *count += 1;
                let target = url::Url::parse(url)
                    .map(|parsed| match parsed.query() {
                        Some(query) => format!("{}?{query}", parsed.path()),
                        None => parsed.path().to_owned(),
                    })
                    .unwrap_or_else(|_| url.to_owned());
                let cnonce = format!("{:016x}", rand::random::<u64>());
                digest_authorization(
                    challenge,
                    &self.user,
                    &self.password,
                    method,
                    &target,
                    *count,
                    &cnonce,
                )?
            }
        };
        let mut value = HeaderValue::from_str(&value).ok()?;
        value.set_sensitive(true);
        Some(value)
    }

    /// Learns from a `401`; true when a retry can succeed (a first challenge, or a stale
    /// nonce), false when the credentials were refused.
    fn learn(&self, headers: &HeaderMap, sent_authorization: bool) -> bool {
        let values = headers
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|value| value.to_str().ok());
        let digest = digest_challenge(values);
        let offers_basic = headers
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .any(|value| value.trim_start().to_ascii_lowercase().starts_with("basic"));
        let mut auth = self.auth();
        match digest {
            Some(challenge) if !sent_authorization || challenge.stale => {
                *auth = Auth::Digest {
                    challenge,
                    count: 0,
                };
                true
            }
            Some(_) => false,
            None if offers_basic && !sent_authorization => {
                *auth = Auth::Basic;
                true
            }
            None => false,
        }
    }

    fn error(&self, path: &str, what: &str, status: reqwest::StatusCode) -> FsError {
        let kind = match status.as_u16() {
            401 | 403 => FsErrorKind::PermissionDenied,
            404 | 409 => FsErrorKind::NotFound,
            412 => FsErrorKind::AlreadyExists,
            _ => FsErrorKind::Other,
        };
        let message = match kind {
            FsErrorKind::PermissionDenied => format!(
                "{} refused access ({status}): check the user name and the password",
                self.label
            ),
            FsErrorKind::NotFound => format!("{what}: no such file or folder ({status})"),
            FsErrorKind::AlreadyExists => {
                format!("{what}: the target exists and was not replaced ({status})")
            }
            _ => format!("{what} failed on {}: {status}", self.label),
        };
        FsError::new(kind, path, message)
    }

    fn send_error(&self, path: &str, error: &reqwest::Error) -> FsError {
        // reqwest's text names the URL (no credentials in it) and the TLS cause.
        let mut text = error.to_string();
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            text.push_str(": ");
            text.push_str(&cause.to_string());
            source = cause.source();
        }
        FsError::new(
            FsErrorKind::Other,
            path,
            format!("cannot reach {}: {text}", self.label),
        )
    }

    /// Sends a request (with `body`, held in memory), authenticating as the server asks, and
    /// sends it again after a failure `resend` allows.
    async fn send(
        &self,
        method: reqwest::Method,
        url: &str,
        headers: HeaderMap,
        body: Option<Bytes>,
        path: &str,
        resend: Resend,
    ) -> Result<reqwest::Response, FsError> {
        for _ in 0..2 {
            let mut sent = false;
            let response = self
                .resending(resend, path, || {
                    let authorization = self.authorization(method.as_str(), url);
                    sent = authorization.is_some();
                    let mut request = self
                        .client
                        .request(method.clone(), url)
                        .headers(headers.clone());
                    if let Some(value) = authorization {
                        request = request.header(AUTHORIZATION, value);
                    }
                    if let Some(body) = &body {
                        request = request.body(body.clone());
                    }
                    request.send()
                })
                .await?;
            if response.status() == reqwest::StatusCode::UNAUTHORIZED
                && self.learn(response.headers(), sent)
            {
                continue;
            }
            return Ok(response);
        }
        Err(FsError::new(
            FsErrorKind::PermissionDenied,
            path,
            format!(
                "{} refused access: check the user name and the password",
                self.label
            ),
        ))
    }

    /// Runs `send` until it succeeds or fails in a way `resend` does not allow to repeat, at
    /// most [`super::RETRIES`] times more, waiting longer each time.
    async fn resending<F, Sending>(
        &self,
        resend: Resend,
        path: &str,
        mut send: F,
    ) -> Result<reqwest::Response, FsError>
    where
        F: FnMut() -> Sending,
        Sending: std::future::Future<Output = Result<reqwest::Response, reqwest::Error>>,
    {
        let mut attempt = 0;
        loop {
            let sent = send().await;
            let again = match &sent {
                Ok(response) => resend.after_status(response.status()),
                Err(error) => resend.after_error(error),
            };
            if !again || attempt == super::RETRIES {
                return sent.map_err(|error| self.send_error(path, &error));
            }
            tracing::warn!(
                attempt = attempt + 1,
                "retrying a WebDAV request for {path}"
            );
            tokio::time::sleep(super::retry_delay(attempt)).await;
            attempt += 1;
        }
    }

    /// Uploads `source` to `path` as one streamed PUT (the caller picks a temp name), of `size`
    /// bytes where known. The server's folder for it must exist. Returns the bytes sent.
    pub async fn put(
        &self,
        path: &str,
        source: Source<'_>,
        size: Option<u64>,
    ) -> Result<u64, FsError> {
        let url = self.url(path);
        // Of an unknown size, the first BUFFERED_PUT + 1 bytes tell whether it is short.
        let mut prefix = Vec::new();
        let body = match size {
            Some(size) if size <= BUFFERED_PUT => Some(read_exactly(source, size, path).await?),
            Some(_) => None,
            None => {
                prefix = read_up_to(source, BUFFERED_PUT + 1, path).await?;
                (prefix.len() as u64 <= BUFFERED_PUT)
                    .then(|| Bytes::from(std::mem::take(&mut prefix)))
            }
        };
        if let Some(body) = body {
            let size = body.len() as u64;
            let mut headers = HeaderMap::new();
            headers.insert(http::header::CONTENT_LENGTH, HeaderValue::from(size));
            let response = self
                .send(
                    reqwest::Method::PUT,
                    &url,
                    headers,
                    Some(body),
                    path,
                    Resend::Always,
                )
                .await?;
            let status = response.status();
            if !status.is_success() {
                return Err(self.error(path, "uploading", status));
            }
            return Ok(size);
        }
        if matches!(*self.auth(), Auth::Unknown) {
            // Learn the scheme with a cheap request first: a streamed body cannot be sent twice
            // (a body in memory is sent again after a 401, see `send`).
            let mut headers = HeaderMap::new();
            headers.insert("Depth", HeaderValue::from_static("0"));
            let probe = reqwest::Method::from_bytes(b"PROPFIND")
                .map_err(|error| FsError::new(FsErrorKind::Other, path, error.to_string()))?;
            self.send(
                probe,
                &self.endpoint_url(),
                headers,
                None,
                path,
                Resend::Always,
            )
            .await?;
        }
        let mut prefixed = (&prefix[..]).chain(&mut *source);
        let source: Source<'_> = &mut prefixed;
        let (sender, mut receiver) =
            tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(CHUNKS_IN_FLIGHT);
        let stream = futures::stream::poll_fn(move |cx| receiver.poll_recv(cx));
        let mut request = self
            .client
            .put(&url)
            .body(reqwest::Body::wrap_stream(stream));
        if let Some(size) = size {
            request = request.header(http::header::CONTENT_LENGTH, size);
        }
        if let Some(value) = self.authorization("PUT", &url) {
            request = request.header(AUTHORIZATION, value);
        }
        let sending = async {
            request
                .send()
                .await
                .map_err(|error| self.send_error(path, &error))
        };
        let pumping = async move {
            // Breaks the request body, so the server never completes the file.
            let fail = |error: std::io::Error| async {
                let message = format!("reading the data: {error}");
                let _ = sender.send(Err(error)).await;
                Err(FsError::new(FsErrorKind::Other, path, message))
            };
            let mut total = 0u64;
            loop {
                let mut buffer = vec![0u8; CHUNK];
                let mut filled = 0;
                let mut ended = false;
                while filled < CHUNK {
                    match source.read(&mut buffer[filled..]).await {
                        Ok(0) => {
                            ended = true;
                            break;
                        }
                        Ok(read) => filled += read,
                        Err(error) => return fail(error).await,
                    }
                }
                if filled == 0 {
                    return Ok(total);
                }
                buffer.truncate(filled);
                total += filled as u64;
                if let Some(size) = size
                    && total >= size
                {
                    // With a Content-Length the server has the file once the last byte is
                    // sent, and hyper polls the body no further: that byte goes only after the
                    // source has really ended (one that fails or grows at its end must still
                    // break the request).
                    let mut probe = [0u8; 1];
                    let more = if ended {
                        Ok(0)
                    } else {
                        source.read(&mut probe).await
                    };
                    match more {
                        Ok(0) if total == size => {}
                        Ok(_) => {
                            return fail(std::io::Error::other(format!(
                                "the source has more than the {size} bytes it was to send"
                            )))
                            .await;
                        }
                        Err(error) => return fail(error).await,
                    }
                }
                if sender.send(Ok(Bytes::from(buffer))).await.is_err() {
                    // The request ended early; its own error says why.
                    return Ok(total);
                }
            }
        };
        let (sent, pumped) = tokio::join!(sending, pumping);
        let total = pumped?;
        let response = sent?;
        let status = response.status();
        if !status.is_success() {
            return Err(self.error(path, "uploading", status));
        }
        Ok(total)
    }

    fn endpoint_url(&self) -> String {
        self.url("/")
    }

    /// Moves `from` to `to` on the server. Without `overwrite` the server is told not to
    /// replace an existing `to` (`Overwrite: F`), so one that appeared meanwhile is kept.
    pub async fn move_to(&self, from: &str, to: &str, overwrite: bool) -> Result<(), FsError> {
        let mut headers = HeaderMap::new();
        let destination = HeaderValue::from_str(&self.url(to))
            .map_err(|error| FsError::new(FsErrorKind::Other, to, error.to_string()))?;
        headers.insert("Destination", destination);
        headers.insert(
            "Overwrite",
            HeaderValue::from_static(if overwrite { "T" } else { "F" }),
        );
        let method = reqwest::Method::from_bytes(b"MOVE")
            .map_err(|error| FsError::new(FsErrorKind::Other, from, error.to_string()))?;
        let response = self
            .send(
                method,
                &self.url(from),
                headers,
                None,
                from,
                Resend::IfNotDone,
            )
            .await?;
        let status = response.status();
        if status == reqwest::StatusCode::MULTI_STATUS {
            // A folder the server could move only in part (RFC 4918 §9.9.4).
            return Err(FsError::new(
                FsErrorKind::Other,
                from,
                format!(
                    "the server moved only part of {from} to {to} (207 Multi-Status); some \
                     files are under each name now. List both folders to see which"
                ),
            ));
        }
        if status.is_success() {
            return Ok(());
        }
        Err(self.error(to, &format!("moving {from} to {to}"), status))
    }
}

/// opendal's HTTP transport for a WebDAV location: [`WebdavHttp`]'s client and authentication.
struct WebdavTransport {
    http: Arc<WebdavHttp>,
    inner: ReqwestTransport,
}

impl WebdavTransport {
    fn request(&self, parts: &http::request::Parts, body: Buffer) -> (http::Request<Buffer>, bool) {
        let mut request = http::Request::from_parts(parts.clone(), body);
        let authorization = self
            .http
            .authorization(parts.method.as_str(), &parts.uri.to_string());
        let sent = authorization.is_some();
        if let Some(value) = authorization {
            request.headers_mut().insert(AUTHORIZATION, value);
        }
        (request, sent)
    }
}

impl HttpTransport for WebdavTransport {
    async fn fetch(
        &self,
        request: http::Request<Buffer>,
    ) -> opendal::Result<http::Response<HttpBody>> {
        let (parts, body) = request.into_parts();
        // opendal's request bodies are in memory (never an upload stream): one retry is cheap.
        let (first, sent) = self.request(&parts, body.clone());
        let response = self.inner.fetch(first).await?;
        if response.status() != http::StatusCode::UNAUTHORIZED
            || !self.http.learn(response.headers(), sent)
        {
            return Ok(response);
        }
        drop(response);
        let (again, _) = self.request(&parts, body);
        let response = self.inner.fetch(again).await?;
        if response.status() == http::StatusCode::UNAUTHORIZED {
            // Servers word a 401 body as they like; say what it means.
            return Err(opendal::Error::new(
                opendal::ErrorKind::PermissionDenied,
                "the server refused the user name or password (401)",
            ));
        }
        Ok(response)
    }
}

/// The first `limit` bytes of `source` (all of it if shorter).
async fn read_up_to(source: Source<'_>, limit: u64, path: &str) -> Result<Vec<u8>, FsError> {
    let mut data = Vec::new();
    (&mut *source)
        .take(limit)
        .read_to_end(&mut data)
        .await
        .map_err(|error| {
            FsError::new(
                FsErrorKind::Other,
                path,
                format!("reading the data: {error}"),
            )
        })?;
    Ok(data)
}

/// All of `source`, which must be `size` bytes: fewer, more, or a failure to read is an error,
/// before anything is sent.
async fn read_exactly(source: Source<'_>, size: u64, path: &str) -> Result<Bytes, FsError> {
    let data = read_up_to(source, size.saturating_add(1), path).await?;
    if data.len() as u64 != size {
        return Err(FsError::new(
            FsErrorKind::Changed,
            path,
            format!(
                "the source gave {} bytes where {size} were to be sent",
                if data.len() as u64 > size {
                    "more".to_owned()
                } else {
                    data.len().to_string()
                }
            ),
        ));
    }
    Ok(Bytes::from(data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_move_is_sent_again_only_when_the_server_surely_did_nothing() {
        use reqwest::StatusCode;
        for (status, always, if_not_done) in [
            (StatusCode::SERVICE_UNAVAILABLE, true, true),
            (StatusCode::TOO_MANY_REQUESTS, true, true),
            (StatusCode::INTERNAL_SERVER_ERROR, true, false),
            (StatusCode::BAD_GATEWAY, true, false),
            (StatusCode::NOT_FOUND, false, false),
            (StatusCode::PRECONDITION_FAILED, false, false),
            (StatusCode::CREATED, false, false),
        ] {
            assert_eq!(Resend::Always.after_status(status), always, "{status}");
            assert_eq!(
                Resend::IfNotDone.after_status(status),
                if_not_done,
                "{status}"
            );
        }
    }

    #[test]
    fn rfc_2617_example() {
        // RFC 2617 §3.5: Mufasa / "Circle Of Life".
        let challenge = digest_challenge(
            [
                "Basic realm=\"x\"",
                "Digest realm=\"testrealm@host.com\", qop=\"auth,auth-int\", \
                 nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\"",
            ]
            .into_iter(),
        )
        .unwrap();
        assert_eq!(
            challenge,
            DigestChallenge {
                realm: "testrealm@host.com".to_owned(),
                nonce: "dcd98b7102dd2f0e8b11d0f600bfb0c093".to_owned(),
                opaque: Some("5ccc069c403ebaf9f0171e9517f40e41".to_owned()),
                algorithm: "MD5".to_owned(),
                qop_auth: true,
                stale: false,
            }
        );
        let header = digest_authorization(
            &challenge,
            "Mufasa",
            "Circle Of Life",
            "GET",
            "/dir/index.html",
            1,
            "0a4f113b",
        )
        .unwrap();
        assert!(
            header.contains("response=\"6629fae49393a05397450978507c4ef1\""),
            "{header}"
        );
        assert!(header.contains("nc=00000001"), "{header}");
    }

    #[test]
    fn stale_and_unknown_algorithms() {
        let challenge = digest_challenge(
            ["Digest realm=\"r\", nonce=\"n\", algorithm=SHA-512-256, stale=TRUE"].into_iter(),
        )
        .unwrap();
        assert!(challenge.stale);
        assert!(!challenge.qop_auth);
        // An algorithm kaiport cannot compute gives no header rather than a wrong one.
        assert_eq!(
            digest_authorization(&challenge, "u", "p", "GET", "/", 1, "c"),
            None
        );
        assert_eq!(digest_challenge(["Basic realm=\"r\""].into_iter()), None);
    }
}
