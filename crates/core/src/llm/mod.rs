//! Model providers: thin HTTP + server-sent-events clients for the Anthropic Messages API and
//! OpenAI-compatible Chat Completions servers, behind one trait, [`ModelProvider`].
//!
//! A provider turns a [`ModelRequest`] (system prompt, provider-neutral [`Message`]s, tool
//! schemas) into one streamed [`ModelReply`]: text deltas go to a callback as they arrive, tool
//! calls come back whole, in the order the model gave them. [`complete_with_retry`] retries
//! rate limits, server errors and network failures with backoff (honouring `retry-after`) as
//! long as nothing was streamed yet. Cancelling drops the HTTP stream at once.
//!
//! This module must never log, return or put into an error the API key it was given.

mod anthropic;
mod openai;
pub mod setup;
mod sse;

pub use anthropic::Anthropic;
pub use openai::OpenAiCompatible;

use kaiport_protocol::{ModelSettings, ProviderKind};
use serde::{Deserialize, Serialize};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// One message of a conversation, independent of the provider's wire format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    User {
        text: String,
    },
    Assistant {
        text: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call, as the model sees it.
    Tool {
        call_id: String,
        name: String,
        content: String,
        is_error: bool,
    },
}

/// A tool call as the model made it. `arguments` is the JSON text the model wrote, which may
/// be malformed: the agent, not the provider, decides what to do with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// A tool as the model is told about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSchema {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

/// One request to a model.
#[derive(Debug, Clone, Copy)]
pub struct ModelRequest<'a> {
    pub system: &'a str,
    pub messages: &'a [Message],
    pub tools: &'a [ToolSchema],
    pub max_output_tokens: u32,
    /// Text sent after the newest message and kept nowhere (the tab's live facts, which change
    /// each step: outside the system prompt, so the prompt and tools stay cacheable); empty for
    /// none.
    pub tab_now: &'a str,
    /// Where the messages' wire encodings are kept between requests of one conversation;
    /// None encodes every message afresh.
    pub wire: Option<&'a WireCache>,
}

/// One message in a provider's wire format: its JSON (for Anthropic the content blocks,
/// comma-separated, since neighbours of one role are merged into one message) and its role.
#[derive(Debug)]
pub(crate) struct Encoded {
    pub role: &'static str,
    pub json: String,
}

/// The messages of one conversation as a provider last encoded them, by position.
///
/// A conversation is sent whole with every request, so encoding every message each time
/// costs more the longer it gets (a few milliseconds per request after a few hundred tool
/// calls); with the cache only new or changed messages are encoded. The owner keeps it next to
/// the messages: messages are only appended, and one changed in place must be [`forget`]-ed.
/// A length check catches a change that was not reported.
///
/// [`forget`]: WireCache::forget
#[derive(Debug, Default)]
pub struct WireCache {
    inner: std::sync::Mutex<WireEntries>,
}

#[derive(Debug, Default)]
struct WireEntries {
    provider: &'static str,
    /// Per message: the text length it was encoded from, and the encoding.
    items: Vec<Option<(usize, std::sync::Arc<Encoded>)>>,
}

impl WireCache {
    /// Message `index` was changed in place: encode it again next time.
    pub fn forget(&self, index: usize) {
        let mut inner = self
            .inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(slot) = inner.items.get_mut(index) {
            *slot = None;
        }
    }

    fn encode_all(
        &self,
        provider: &'static str,
        messages: &[Message],
        encode: fn(&Message) -> Encoded,
    ) -> Vec<std::sync::Arc<Encoded>> {
        let mut inner = self
            .inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if inner.provider != provider {
            inner.provider = provider;
            inner.items.clear();
        }
        inner.items.resize(messages.len(), None);
        inner
            .items
            .iter_mut()
            .zip(messages)
            .map(|(slot, message)| {
                let length = message.text_len();
                match slot {
                    Some((encoded_from, encoded)) if *encoded_from == length => encoded.clone(),
                    _ => {
                        let encoded = std::sync::Arc::new(encode(message));
                        *slot = Some((length, encoded.clone()));
                        encoded
                    }
                }
            })
            .collect()
    }
}

/// `request`'s messages in a provider's wire format, from its cache where it has one.
pub(crate) fn encoded_messages(
    request: &ModelRequest<'_>,
    provider: &'static str,
    encode: fn(&Message) -> Encoded,
) -> Vec<std::sync::Arc<Encoded>> {
    match request.wire {
        Some(cache) => cache.encode_all(provider, request.messages, encode),
        None => request
            .messages
            .iter()
            .map(|message| std::sync::Arc::new(encode(message)))
            .collect(),
    }
}

/// Appends `,"tools":[…]` with each tool in a provider's format; nothing when there are none.
pub(crate) fn push_tools(
    out: &mut Vec<u8>,
    tools: &[ToolSchema],
    wire: fn(&ToolSchema) -> serde_json::Value,
) {
    if tools.is_empty() {
        return;
    }
    let tools: Vec<serde_json::Value> = tools.iter().map(wire).collect();
    out.extend_from_slice(b",\"tools\":");
    push_json(out, &tools);
}

/// Appends `value` as JSON.
pub(crate) fn push_json<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    // Strings and JSON values written to memory cannot fail to serialize.
    if serde_json::to_writer(&mut *out, value).is_err() {
        out.extend_from_slice(b"null");
    }
}

impl Message {
    /// The length of all the text in the message (a cheap fingerprint for [`WireCache`]).
    fn text_len(&self) -> usize {
        match self {
            Message::User { text } => text.len(),
            Message::Assistant { text, tool_calls } => {
                text.len()
                    + tool_calls
                        .iter()
                        .map(|call| call.id.len() + call.name.len() + call.arguments.len())
                        .sum::<usize>()
            }
            Message::Tool {
                call_id,
                name,
                content,
                ..
            } => call_id.len() + name.len() + content.len(),
        }
    }
}

/// Why the model stopped writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// The model finished its turn.
    EndTurn,
    /// The model wants tool results.
    ToolUse,
    /// The reply hit the output limit.
    MaxTokens,
    /// Anything else the server said (`content_filter`, `refusal`, …).
    Other(String),
}

/// One complete reply.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelReply {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    pub stop: StopReason,
}

/// What went wrong talking to a model. Never contains the API key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    #[error(
        "{provider} refused the API key (HTTP {status}): {detail}. Check the key in the settings (or the variable given with --api-key-env)."
    )]
    Auth {
        provider: &'static str,
        status: u16,
        detail: String,
    },
    #[error(
        "{provider} has no model {model:?} at {url} (HTTP 404): {detail}. Check the model name and base URL in the settings."
    )]
    NotFound {
        provider: &'static str,
        model: String,
        url: String,
        detail: String,
    },
    #[error("{provider} answered HTTP {status}: {detail}")]
    Http {
        provider: &'static str,
        status: u16,
        detail: String,
        /// From `retry-after`, when the server sent one.
        retry_after: Option<Duration>,
    },
    #[error("cannot reach {provider} at {url}: {detail}")]
    Network {
        provider: &'static str,
        url: String,
        detail: String,
    },
    #[error("{provider} sent a reply kaiport cannot read: {detail}")]
    Protocol {
        provider: &'static str,
        detail: String,
    },
    #[error(
        "no API key for {provider}: save one in the OS keychain (the app's settings, or `kaiport models set-key {provider}`; account {account:?}) or pass --api-key-env VAR"
    )]
    NoKey {
        provider: &'static str,
        account: String,
    },
    #[error("the environment variable {var} (given for the API key) is not set")]
    KeyEnvMissing { var: String },
    #[error("the keychain could not be read: {0}")]
    Keychain(String),
    #[error("cancelled")]
    Cancelled,
}

impl LlmError {
    /// Whether trying again may help: rate limits, server errors, network failures.
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::Http { status, .. } => *status == 408 || *status == 429 || *status >= 500,
            LlmError::Network { .. } => true,
            LlmError::Auth { .. }
            | LlmError::NotFound { .. }
            | LlmError::Protocol { .. }
            | LlmError::NoKey { .. }
            | LlmError::KeyEnvMissing { .. }
            | LlmError::Keychain(_)
            | LlmError::Cancelled => false,
        }
    }
}

/// A model API. Implementations: [`Anthropic`], [`OpenAiCompatible`].
#[async_trait::async_trait]
pub trait ModelProvider: Send + Sync {
    /// The provider's name for messages (`anthropic`, `openai`).
    fn name(&self) -> &'static str;

    /// Send one request and stream the reply: each text delta goes to `on_text` as it
    /// arrives; tool calls are returned whole. When `cancel` fires, the HTTP stream is
    /// dropped at once and the result is [`LlmError::Cancelled`]. One attempt only: see
    /// [`complete_with_retry`].
    async fn complete(
        &self,
        request: &ModelRequest<'_>,
        cancel: &CancellationToken,
        on_text: &mut (dyn for<'t> FnMut(&'t str) + Send),
    ) -> Result<ModelReply, LlmError>;
}

/// The keychain account that holds a provider's API key.
pub fn key_account(provider: ProviderKind) -> String {
    format!("model-api-key:{}", provider.as_str())
}

/// Where an API key comes from. Resolved right before use, so the key is held as briefly as
/// possible and never stored in settings.
pub fn resolve_api_key(settings: &ModelSettings) -> Result<Option<String>, LlmError> {
    if let Some(var) = &settings.api_key_env {
        return match std::env::var(var) {
            Ok(value) if !value.is_empty() => {
                crate::redact::remember(&value);
                Ok(Some(value))
            }
            _ => Err(LlmError::KeyEnvMissing { var: var.clone() }),
        };
    }
    let account = key_account(settings.provider);
    let stored = crate::connect::secrets::SecretStore::open()
        .and_then(|store| store.get(&account))
        .map_err(|error| LlmError::Keychain(error.to_string()));
    match (stored, settings.provider) {
        (Ok(Some(key)), _) => Ok(Some(key)),
        // Local OpenAI-compatible servers (Ollama, llama.cpp, …) need no key.
        (Ok(None) | Err(_), ProviderKind::Openai) => Ok(None),
        (Ok(None), ProviderKind::Anthropic) => Err(LlmError::NoKey {
            provider: "anthropic",
            account,
        }),
        (Err(error), ProviderKind::Anthropic) => Err(error),
    }
}

/// The provider for `settings`, with `api_key` (see [`resolve_api_key`]).
pub fn provider_for(
    settings: &ModelSettings,
    api_key: Option<String>,
) -> Result<Box<dyn ModelProvider>, LlmError> {
    let base_url = settings
        .base_url
        .clone()
        .unwrap_or_else(|| settings.provider.default_base_url().to_owned());
    let client = http_client(settings.provider.as_str())?;
    Ok(match settings.provider {
        ProviderKind::Anthropic => Box::new(Anthropic::new(
            client,
            base_url,
            settings.model.clone(),
            api_key.unwrap_or_default(),
        )),
        ProviderKind::Openai => Box::new(OpenAiCompatible::new(
            client,
            base_url,
            settings.model.clone(),
            api_key,
        )),
    })
}

/// How long connecting to a model API may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a stream may stay silent before it counts as dropped (models can think a while).
const READ_TIMEOUT: Duration = Duration::from_secs(300);

fn http_client(provider: &'static str) -> Result<reqwest::Client, LlmError> {
    install_crypto_provider();
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .build()
        .map_err(|error| LlmError::Protocol {
            provider,
            detail: format!("cannot set up the HTTP client: {error}"),
        })
}

/// rustls needs one process-wide crypto provider when more than one is linked (without a
/// default, building a rustls config then panics): this installs aws-lc-rs.
pub fn install_crypto_provider() {
    // An error means a provider is installed already, which is all that matters.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
}

/// How retries are spaced.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub attempts: u32,
    pub first_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 5,
            first_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
        }
    }
}

/// A retry about to happen, for the user to see.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryNotice {
    /// The attempt that comes next (2 = the first retry).
    pub attempt: u32,
    pub wait: Duration,
    pub reason: String,
}

/// [`ModelProvider::complete`] with retries on retryable errors, as long as no text has been
/// streamed yet (a retry after text was shown would repeat it).
pub async fn complete_with_retry(
    provider: &dyn ModelProvider,
    request: &ModelRequest<'_>,
    policy: RetryPolicy,
    cancel: &CancellationToken,
    on_text: &mut (dyn for<'t> FnMut(&'t str) + Send),
    on_retry: &mut (dyn FnMut(&RetryNotice) + Send),
) -> Result<ModelReply, LlmError> {
    let mut attempt = 1;
    loop {
        let mut streamed = false;
        let result = {
            let mut forward = |delta: &str| {
                streamed = true;
                on_text(delta);
            };
            provider.complete(request, cancel, &mut forward).await
        };
        let error = match result {
            Ok(reply) => return Ok(reply),
            Err(error) => error,
        };
        if streamed || !error.is_retryable() || attempt >= policy.attempts {
            return Err(error);
        }
        let backoff = policy
            .first_delay
            .saturating_mul(2u32.saturating_pow(attempt - 1))
            .min(policy.max_delay);
        let wait = match &error {
            LlmError::Http {
                retry_after: Some(after),
                ..
            } => (*after).min(policy.max_delay),
            _ => backoff,
        };
        attempt += 1;
        on_retry(&RetryNotice {
            attempt,
            wait,
            reason: error.to_string(),
        });
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = cancel.cancelled() => return Err(LlmError::Cancelled),
        }
    }
}

/// `retry-after` in seconds (the HTTP-date form is rare from model APIs and is ignored).
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

/// The error for a non-success HTTP answer. `body` is the server's text (a JSON error object
/// usually); only its message is kept, shortened.
fn http_error(
    provider: &'static str,
    status: u16,
    headers: &reqwest::header::HeaderMap,
    body: &str,
    model: &str,
    url: &str,
) -> LlmError {
    let detail = error_detail(body);
    match status {
        401 | 403 => LlmError::Auth {
            provider,
            status,
            detail,
        },
        404 => LlmError::NotFound {
            provider,
            model: model.to_owned(),
            url: url.to_owned(),
            detail,
        },
        _ => LlmError::Http {
            provider,
            status,
            detail,
            retry_after: retry_after(headers),
        },
    }
}

/// The human part of an API error body: `error.message` (both providers), else the text.
fn error_detail(body: &str) -> String {
    const MAX: usize = 300;
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let message = parsed
        .as_ref()
        .and_then(|value| {
            value
                .pointer("/error/message")
                .or_else(|| value.get("message"))
                .or_else(|| value.get("error"))
        })
        .and_then(|value| value.as_str())
        .map(str::to_owned)
        .unwrap_or_else(|| body.trim().to_owned());
    if message.is_empty() {
        return "no details".to_owned();
    }
    let mut short: String = message.chars().take(MAX).collect();
    if short.len() < message.len() {
        short.push('…');
    }
    short
}

/// Send `builder` and return the response when it is a success, or the error it stands for.
async fn send(
    provider: &'static str,
    builder: reqwest::RequestBuilder,
    url: &str,
    model: &str,
    cancel: &CancellationToken,
) -> Result<reqwest::Response, LlmError> {
    let response = tokio::select! {
        response = builder.send() => response.map_err(|error| network_error(provider, url, &error))?,
        () = cancel.cancelled() => return Err(LlmError::Cancelled),
    };
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let headers = response.headers().clone();
    let body = tokio::select! {
        body = response.text() => body.unwrap_or_default(),
        () = cancel.cancelled() => return Err(LlmError::Cancelled),
    };
    Err(http_error(
        provider,
        status.as_u16(),
        &headers,
        &body,
        model,
        url,
    ))
}

fn network_error(provider: &'static str, url: &str, error: &reqwest::Error) -> LlmError {
    // reqwest's Display stops at the outermost error; the causes say what really happened.
    let mut detail = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        detail.push_str(": ");
        detail.push_str(&cause.to_string());
        source = cause.source();
    }
    LlmError::Network {
        provider,
        url: url.to_owned(),
        detail,
    }
}

/// Read the SSE stream of `response`, handing each event to `on_event` until it returns
/// `Ok(true)` (done) or the stream ends (`Ok(false)`). Cancelling drops the stream at once.
async fn read_events(
    provider: &'static str,
    url: &str,
    response: reqwest::Response,
    cancel: &CancellationToken,
    on_event: &mut (dyn FnMut(sse::SseEvent) -> Result<bool, LlmError> + Send),
) -> Result<bool, LlmError> {
    use futures::StreamExt;
    let mut stream = response.bytes_stream();
    let mut parser = sse::SseParser::default();
    loop {
        let chunk = tokio::select! {
            chunk = stream.next() => chunk,
            () = cancel.cancelled() => return Err(LlmError::Cancelled),
        };
        let bytes = match chunk {
            None => break,
            Some(Ok(bytes)) => bytes,
            Some(Err(error)) => return Err(network_error(provider, url, &error)),
        };
        for event in parser.push(&bytes) {
            if on_event(event)? {
                return Ok(true);
            }
        }
    }
    for event in parser.finish() {
        if on_event(event)? {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// Both wire formats: a request built from the cache is byte for byte the one built
    /// afresh, as the conversation grows and after a result is changed in place.
    #[test]
    fn cached_encodings_give_the_same_body() {
        let call = |id: &str| ToolCall {
            id: id.to_owned(),
            name: "read_file".to_owned(),
            arguments: r#"{"path":"/etc/hosts"}"#.to_owned(),
        };
        let result = |id: &str, content: &str| Message::Tool {
            call_id: id.to_owned(),
            name: "read_file".to_owned(),
            content: content.to_owned(),
            is_error: false,
        };
        let tools = [ToolSchema {
            name: "read_file".into(),
            description: "reads \"a\" file".into(),
            parameters: serde_json::json!({"type": "object"}),
        }];
        let bodies: [fn(&str, &ModelRequest<'_>) -> Vec<u8>; 2] = [anthropic::body, openai::body];
        for body in bodies {
            let cache = WireCache::default();
            let mut messages = vec![Message::User {
                text: "look at \"hosts\"\n".to_owned(),
            }];
            let request = |messages: &[Message], wire| {
                let request = ModelRequest {
                    system: "sys",
                    messages,
                    tools: &tools,
                    max_output_tokens: 10,
                    tab_now: "",
                    wire,
                };
                body("m", &request)
            };
            for step in 0..3 {
                let id = format!("c{step}");
                messages.push(Message::Assistant {
                    text: String::new(),
                    tool_calls: vec![call(&id)],
                });
                messages.push(result(&id, "127.0.0.1 localhost\n"));
                let cached = request(&messages, Some(&cache));
                assert_eq!(
                    String::from_utf8_lossy(&cached),
                    String::from_utf8_lossy(&request(&messages, None))
                );
                let parsed: serde_json::Value = serde_json::from_slice(&cached).unwrap();
                assert!(parsed["messages"].is_array());
            }
            // A result elided in place and reported: the new text is sent.
            messages[2] = result("c0", "[removed]");
            cache.forget(2);
            let cached = request(&messages, Some(&cache));
            assert!(String::from_utf8_lossy(&cached).contains("[removed]"));
            assert_eq!(cached, request(&messages, None));
            // Changed and not reported: the length check still catches it.
            messages[4] = result("c1", "[also removed]");
            assert_eq!(request(&messages, Some(&cache)), request(&messages, None));
        }
    }

    #[test]
    fn error_details_come_from_the_json_body() {
        assert_eq!(
            error_detail(
                r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#
            ),
            "invalid x-api-key"
        );
        assert_eq!(error_detail("upstream down"), "upstream down");
        assert_eq!(error_detail(""), "no details");
    }

    #[test]
    fn statuses_map_to_errors_a_user_can_act_on() {
        let headers = reqwest::header::HeaderMap::new();
        let auth = http_error("anthropic", 401, &headers, "{}", "m", "http://x");
        assert!(matches!(auth, LlmError::Auth { status: 401, .. }));
        assert!(!auth.is_retryable());
        let missing = http_error("openai", 404, &headers, "{}", "gpt-x", "http://x");
        assert!(missing.to_string().contains("no model \"gpt-x\""));
        let mut limited = reqwest::header::HeaderMap::new();
        limited.insert(reqwest::header::RETRY_AFTER, "3".parse().unwrap());
        let rate = http_error("openai", 429, &limited, "{}", "m", "http://x");
        assert_eq!(
            rate,
            LlmError::Http {
                provider: "openai",
                status: 429,
                detail: "{}".to_owned(),
                retry_after: Some(Duration::from_secs(3)),
            }
        );
        assert!(rate.is_retryable());
        assert!(http_error("openai", 503, &headers, "", "m", "u").is_retryable());
        assert!(!http_error("openai", 400, &headers, "", "m", "u").is_retryable());
    }
}
