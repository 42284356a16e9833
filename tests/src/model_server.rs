//! A scripted model server: a real HTTP server on 127.0.0.1 that speaks the Anthropic Messages
//! API (`POST /v1/messages`) and OpenAI-compatible Chat Completions (`POST /chat/completions`,
//! `/v1/chat/completions`) with streaming, and replays a [`Script`].
//!
//! Each request takes the next [`Step`]: its [`Expect`] checks are run against what the client
//! sent (a failed check answers HTTP 400 with the reason and is kept in
//! [`ModelServer::failures`]), then its [`Respond`] is streamed in the protocol of the path
//! asked: text in pieces, tool calls with their arguments split across chunks (or malformed, or
//! naming unknown tools), error statuses with `retry-after` (the next request must wait it out,
//! as a real API would insist; one that does not is a failure), a connection dropped or stalled
//! mid-stream, and the quirks of OpenAI-compatible servers. An answer may be held until the test
//! opens a gate ([`Respond::after_gate`]), so what a person does between two model steps (type a
//! password) happens before the model's next move, not in a race with it. Every request is recorded
//! ([`ModelServer::requests`]) so tests can assert what the model was sent. It is the only
//! stand-in kaiport's tests use: no model API is reachable from the test machines.
//!
//! Run by hand: `cargo run -p kaiport-tests --bin kaiport-model-server -- SCRIPT.json` (a line
//! `open NAME` on its stdin opens a gate).

use anyhow::{Context, Result};
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the server replays: one step per request, in order.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// When set, requests must carry this key (`x-api-key` or `Authorization: Bearer`);
    /// others get 401.
    #[serde(default)]
    pub api_key: Option<String>,
    /// The model names its model list (`GET /v1/models`, `GET /models`) offers; default
    /// `scripted-model`. Asking for the list takes no step.
    #[serde(default)]
    pub models: Option<Vec<String>>,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(default)]
    pub expect: Expect,
    pub respond: Respond,
}

/// Checks on the request a step answers.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Tool names that must be offered.
    #[serde(default)]
    pub tools_include: Vec<String>,
    /// Tool names that must not be offered.
    #[serde(default)]
    pub tools_exclude: Vec<String>,
    #[serde(default)]
    pub system_contains: Vec<String>,
    /// Substrings of the newest tool result.
    #[serde(default)]
    pub last_result_contains: Vec<String>,
    /// Substrings of the raw request body.
    #[serde(default)]
    pub body_contains: Vec<String>,
    #[serde(default)]
    pub body_excludes: Vec<String>,
}

/// How a step answers.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Respond {
    /// Answer with this HTTP error status instead of a stream.
    #[serde(default)]
    pub status: Option<u16>,
    /// Seconds, sent as `retry-after`; a request before they pass is a failure.
    #[serde(default)]
    pub retry_after: Option<u32>,
    #[serde(default)]
    pub error_message: Option<String>,
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub tool_calls: Vec<ScriptedCall>,
    /// Pause between stream chunks.
    #[serde(default)]
    pub chunk_delay_ms: u64,
    /// Close the connection abruptly after this many chunks.
    #[serde(default)]
    pub drop_after_chunks: Option<usize>,
    /// Send this many chunks, then keep the stream open without sending anything.
    #[serde(default)]
    pub stall_after_chunks: Option<usize>,
    /// OpenAI only: no call ids, no index, the name repeated in every piece, and
    /// `finish_reason: "stop"` after tool calls (as some local servers do).
    #[serde(default)]
    pub openai_quirks: bool,
    /// Hold the answer until the test opens this gate ([`ModelServer::open_gate`]): a model
    /// that is still thinking while the test does what a person would (type a password).
    /// After [`GATE_HANG_GUARD`] the request fails instead.
    #[serde(default)]
    pub after_gate: Option<String>,
}

/// How long an answer waits for its gate before the step counts as failed.
pub const GATE_HANG_GUARD: Duration = Duration::from_secs(120);

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptedCall {
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
    #[serde(default)]
    pub arguments: Value,
    /// Sent instead of `arguments`, as is (for malformed JSON).
    #[serde(default)]
    pub raw_arguments: Option<String>,
}

/// One request the server got.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// `anthropic` or `openai`.
    pub protocol: &'static str,
    pub path: String,
    pub body: Value,
    /// The body as sent.
    pub raw: String,
    /// Whether the key matched [`Script::api_key`] (true when the script sets none).
    pub auth_ok: bool,
    /// When the request arrived.
    pub received: Instant,
    /// When the last byte of a streamed answer was handed to the connection.
    finished: Arc<Mutex<Option<Instant>>>,
}

impl RecordedRequest {
    /// When the streamed answer ended (None for error answers and dropped streams).
    pub fn finished(&self) -> Option<Instant> {
        *self
            .finished
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|tool| {
                        tool["name"]
                            .as_str()
                            .or_else(|| tool["function"]["name"].as_str())
                            .map(str::to_owned)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn system(&self) -> String {
        match self.protocol {
            // A string, or text blocks (which can carry cache breakpoints).
            "anthropic" => match &self.body["system"] {
                Value::Array(blocks) => blocks
                    .iter()
                    .filter_map(|block| block["text"].as_str())
                    .collect(),
                other => other.as_str().unwrap_or_default().to_owned(),
            },
            _ => self.body["messages"][0]["content"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        }
    }

    /// The tab-now block kaiport sends after the newest message (the tab's live facts, plan
    /// and ledger: `kaiport_core::agent::prompt::tab_now`); empty when there is none.
    pub fn tab_now(&self) -> String {
        const HEADER: &str = "# The tab now";
        let Some(last) = self.body["messages"].as_array().and_then(|m| m.last()) else {
            return String::new();
        };
        let text = match &last["content"] {
            Value::String(text) => Some(text.as_str()),
            Value::Array(blocks) => blocks.last().and_then(|block| block["text"].as_str()),
            _ => None,
        };
        text.filter(|text| text.starts_with(HEADER))
            .unwrap_or_default()
            .to_owned()
    }

    /// Everything kaiport tells the model at this step: the system prompt, then the tab-now
    /// block.
    pub fn told(&self) -> String {
        format!("{}\n{}", self.system(), self.tab_now())
    }

    /// The tool results in the conversation, oldest first, as text.
    pub fn tool_results(&self) -> Vec<String> {
        let mut results = Vec::new();
        for message in self.body["messages"].as_array().into_iter().flatten() {
            if message["role"] == "tool" {
                results.push(message["content"].as_str().unwrap_or_default().to_owned());
            }
            for block in message["content"].as_array().into_iter().flatten() {
                if block["type"] == "tool_result" {
                    results.push(match &block["content"] {
                        Value::String(text) => text.clone(),
                        other => other.to_string(),
                    });
                }
            }
        }
        results
    }
}

struct Shared {
    script: Script,
    /// Gates the test opened ([`Respond::after_gate`]).
    gates: std::collections::HashSet<String>,
    next: usize,
    requests: Vec<RecordedRequest>,
    failures: Vec<String>,
    /// Until when the last answer's `retry-after` asked the client to wait.
    not_before: Option<Instant>,
}

type SharedState = Arc<Mutex<Shared>>;

/// What the handlers share.
#[derive(Clone)]
struct Served {
    state: SharedState,
    gate_opened: Arc<tokio::sync::Notify>,
}

fn lock(state: &SharedState) -> std::sync::MutexGuard<'_, Shared> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A running scripted model server on 127.0.0.1; stopped when dropped.
pub struct ModelServer {
    port: u16,
    state: SharedState,
    gate_opened: Arc<tokio::sync::Notify>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ModelServer {
    /// Start serving `script` on a free port (its own thread and runtime, so sync and async
    /// tests can both use it).
    pub fn start(script: Script) -> Result<ModelServer> {
        let listener = std::net::TcpListener::bind((crate::sshd::LOCALHOST, 0))
            .context("binding the model server")?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let state: SharedState = Arc::new(Mutex::new(Shared {
            script,
            gates: Default::default(),
            next: 0,
            requests: Vec::new(),
            failures: Vec::new(),
            not_before: None,
        }));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let gate_opened = Arc::new(tokio::sync::Notify::new());
        let app = axum::Router::new()
            .route("/v1/messages", axum::routing::post(handle))
            .route("/chat/completions", axum::routing::post(handle))
            .route("/v1/chat/completions", axum::routing::post(handle))
            .route("/v1/models", axum::routing::get(models))
            .route("/models", axum::routing::get(models))
            .with_state(Served {
                state: state.clone(),
                gate_opened: gate_opened.clone(),
            });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let thread = std::thread::spawn(move || {
            runtime.block_on(async move {
                let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                    return;
                };
                // Real APIs flush each event at once; Nagle would hold small SSE writes back.
                let listener = axum::serve::ListenerExt::tap_io(listener, |stream| {
                    let _ = stream.set_nodelay(true);
                });
                tokio::select! {
                    _ = axum::serve(listener, app) => {}
                    _ = stopped => {}
                }
            });
            // Dropping the runtime ends every open (stalled) stream.
            drop(runtime);
        });
        Ok(ModelServer {
            port,
            state,
            gate_opened,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Start with a script given as JSON.
    pub fn from_json(script: Value) -> Result<ModelServer> {
        ModelServer::start(serde_json::from_value(script).context("not a model-server script")?)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Base URL for Anthropic (the client adds `/v1/messages`).
    pub fn anthropic_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Base URL for OpenAI-compatible clients (they add `/chat/completions`).
    pub fn openai_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Model settings choosing this server as the OpenAI-compatible provider (`Op::SendMessage`).
    pub fn openai_settings(&self) -> kaiport_protocol::ModelSettings {
        kaiport_protocol::ModelSettings {
            provider: kaiport_protocol::ProviderKind::Openai,
            base_url: Some(self.openai_url()),
            model: "scripted".to_owned(),
            api_key_env: None,
            context_tokens: None,
            max_output_tokens: None,
        }
    }

    /// A `pilot.toml` choosing this server as the OpenAI-compatible provider, with `model` and
    /// the API key from the variable `api_key_env`.
    pub fn pilot_toml(&self, model: &str, api_key_env: &str) -> String {
        format!(
            "provider = \"openai\"\n[openai]\nbase_url = \"{}\"\nmodel = \"{model}\"\n\
             api_key_env = \"{api_key_env}\"\n",
            self.openai_url()
        )
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// Failed expectations and requests beyond the script.
    pub fn failures(&self) -> Vec<String> {
        lock(&self.state).failures.clone()
    }

    /// Opens the gate `name`: answers held for it ([`Respond::after_gate`]) go out.
    pub fn open_gate(&self, name: &str) {
        lock(&self.state).gates.insert(name.to_owned());
        self.gate_opened.notify_waiters();
    }

    /// Steps not used yet.
    pub fn remaining_steps(&self) -> usize {
        let shared = lock(&self.state);
        shared.script.steps.len() - shared.next.min(shared.script.steps.len())
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The model list, in the shape both APIs share (`data[].id`), behind the same key check.
async fn models(State(served): State<Served>, headers: HeaderMap) -> Response {
    let shared = lock(&served.state);
    // `/v1/models` is both APIs' path (an OpenAI base URL ends in /v1): either header will do.
    let key_ok = ["anthropic", "openai"]
        .iter()
        .any(|protocol| key_given(&shared.script, &headers, protocol));
    if !key_ok {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({"error": {"message": "invalid x-api-key"}})),
        )
            .into_response();
    }
    let names = shared
        .script
        .models
        .clone()
        .unwrap_or_else(|| vec!["scripted-model".to_owned()]);
    let data: Vec<Value> = names
        .iter()
        .map(|id| json!({"id": id, "type": "model"}))
        .collect();
    axum::Json(json!({"data": data, "object": "list"})).into_response()
}

/// Whether a request carries the script's key (`x-api-key`, or `Authorization: Bearer`).
fn key_given(script: &Script, headers: &HeaderMap, protocol: &str) -> bool {
    match &script.api_key {
        None => true,
        Some(key) => {
            let given = match protocol {
                "anthropic" => header(headers, "x-api-key"),
                _ => header(headers, "authorization")
                    .and_then(|value| value.strip_prefix("Bearer ").map(str::to_owned)),
            };
            given.as_deref() == Some(key.as_str())
        }
    }
}

async fn handle(
    State(served): State<Served>,
    headers: HeaderMap,
    uri: Uri,
    body: Bytes,
) -> Response {
    let state = served.state;
    // Taken before this server parses the body, so its own parsing is not counted as the
    // client's time.
    let received = Instant::now();
    let protocol = if uri.path() == "/v1/messages" {
        "anthropic"
    } else {
        "openai"
    };
    let raw = String::from_utf8_lossy(&body).into_owned();
    let parsed: Value = serde_json::from_str(&raw).unwrap_or(Value::Null);
    let (step, auth_ok, failure, finished) = {
        let mut shared = lock(&state);
        let auth_ok = key_given(&shared.script, &headers, protocol);
        let record = RecordedRequest {
            protocol,
            path: uri.path().to_owned(),
            body: parsed,
            raw,
            auth_ok,
            received,
            finished: Arc::default(),
        };
        let finished = record.finished.clone();
        let step = shared.script.steps.get(shared.next).cloned();
        let early = shared.not_before.take().and_then(|not_before| {
            (received < not_before).then(|| {
                format!(
                    "request {} came {:?} before the last answer's retry-after ran out",
                    shared.requests.len() + 1,
                    not_before - received
                )
            })
        });
        let failure = match &step {
            None => Some(format!(
                "request {} is beyond the script ({} steps)",
                shared.requests.len() + 1,
                shared.script.steps.len()
            )),
            _ if early.is_some() => early,
            Some(step) if auth_ok => check(&step.expect, &record).err(),
            Some(_) => None,
        };
        if let Some(step) = step.as_ref().filter(|_| auth_ok)
            && let Some(after) = step.respond.retry_after
        {
            shared.not_before = Some(received + Duration::from_secs(u64::from(after)));
        }
        if auth_ok {
            shared.next += 1;
        }
        if let Some(failure) = &failure {
            shared.failures.push(failure.clone());
        }
        shared.requests.push(record);
        (step, auth_ok, failure, finished)
    };
    if !auth_ok {
        return error_response(protocol, 401, "invalid api key", None);
    }
    if let Some(failure) = failure {
        return error_response(
            protocol,
            400,
            &format!("script expectation failed: {failure}"),
            None,
        );
    }
    let Some(step) = step else {
        return error_response(protocol, 400, "no step", None);
    };
    let respond = step.respond;
    if let Some(gate) = &respond.after_gate
        && !gate_opens(&state, &served.gate_opened, gate).await
    {
        let failure = format!("the gate {gate:?} was not opened within {GATE_HANG_GUARD:?}");
        lock(&state).failures.push(failure.clone());
        return error_response(protocol, 400, &failure, None);
    }
    if let Some(status) = respond.status {
        let message = respond
            .error_message
            .clone()
            .unwrap_or_else(|| format!("scripted error {status}"));
        return error_response(protocol, status, &message, respond.retry_after);
    }
    let events = match protocol {
        "anthropic" => anthropic_events(&respond),
        _ => openai_events(&respond),
    };
    stream(events, &respond, finished)
}

/// Waits until the test opened `gate` (false after [`GATE_HANG_GUARD`]).
async fn gate_opens(state: &SharedState, opened: &tokio::sync::Notify, gate: &str) -> bool {
    let deadline = tokio::time::Instant::now() + GATE_HANG_GUARD;
    loop {
        // Made before the look, so an opening in between is not missed.
        let notified = opened.notified();
        if lock(state).gates.contains(gate) {
            return true;
        }
        if tokio::time::timeout_at(deadline, notified).await.is_err() {
            return false;
        }
    }
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

fn check(expect: &Expect, request: &RecordedRequest) -> std::result::Result<(), String> {
    let tools = request.tool_names();
    for name in &expect.tools_include {
        if !tools.contains(name) {
            return Err(format!("tool {name} not offered (offered: {tools:?})"));
        }
    }
    for name in &expect.tools_exclude {
        if tools.contains(name) {
            return Err(format!("tool {name} offered but should not be"));
        }
    }
    let told = request.told();
    for needle in &expect.system_contains {
        if !told.contains(needle.as_str()) {
            return Err(format!("system prompt and tab-now block lack {needle:?}"));
        }
    }
    let last = request.tool_results().pop().unwrap_or_default();
    for needle in &expect.last_result_contains {
        if !last.contains(needle.as_str()) {
            return Err(format!("last tool result lacks {needle:?}: {last}"));
        }
    }
    for needle in &expect.body_contains {
        if !request.raw.contains(needle.as_str()) {
            return Err(format!("request lacks {needle:?}"));
        }
    }
    for needle in &expect.body_excludes {
        if request.raw.contains(needle.as_str()) {
            return Err(format!("request contains {needle:?}"));
        }
    }
    Ok(())
}

fn error_response(
    protocol: &str,
    status: u16,
    message: &str,
    retry_after: Option<u32>,
) -> Response {
    let body = match protocol {
        "anthropic" => {
            json!({"type": "error", "error": {"type": "scripted_error", "message": message}})
        }
        _ => json!({"error": {"message": message, "type": "scripted_error"}}),
    };
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, axum::Json(body)).into_response();
    if let Some(after) = retry_after
        && let Ok(value) = after.to_string().parse()
    {
        response.headers_mut().insert("retry-after", value);
    }
    response
}

/// Text in pieces of a few characters, split on character boundaries.
fn pieces(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(size.max(1))
        .map(|chunk| chunk.iter().collect())
        .collect()
}

fn arguments_text(call: &ScriptedCall) -> String {
    match &call.raw_arguments {
        Some(raw) => raw.clone(),
        None if call.arguments.is_null() => "{}".to_owned(),
        None => call.arguments.to_string(),
    }
}

fn sse(event: Option<&str>, data: &Value) -> String {
    match event {
        Some(event) => format!("event: {event}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

fn anthropic_events(respond: &Respond) -> Vec<String> {
    let mut events = vec![
        sse(
            Some("message_start"),
            &json!({"type": "message_start", "message": {"id": "msg_scripted", "type": "message",
                "role": "assistant", "content": [], "model": "scripted", "stop_reason": null,
                "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        ),
        sse(Some("ping"), &json!({"type": "ping"})),
    ];
    let mut index = 0;
    if !respond.text.is_empty() {
        events.push(sse(
            Some("content_block_start"),
            &json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
        ));
        for piece in pieces(&respond.text, 6) {
            events.push(sse(
                Some("content_block_delta"),
                &json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}}),
            ));
        }
        events.push(sse(
            Some("content_block_stop"),
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    for (number, call) in respond.tool_calls.iter().enumerate() {
        let id = call.id.clone().unwrap_or_else(|| format!("toolu_{number}"));
        events.push(sse(
            Some("content_block_start"),
            &json!({"type": "content_block_start", "index": index, "content_block":
                {"type": "tool_use", "id": id, "name": call.name, "input": {}}}),
        ));
        let arguments = arguments_text(call);
        let size = arguments.chars().count().div_ceil(3).max(1);
        for piece in pieces(&arguments, size) {
            events.push(sse(
                Some("content_block_delta"),
                &json!({"type": "content_block_delta", "index": index, "delta":
                    {"type": "input_json_delta", "partial_json": piece}}),
            ));
        }
        events.push(sse(
            Some("content_block_stop"),
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    let stop = if respond.tool_calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    events.push(sse(
        Some("message_delta"),
        &json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 10}}),
    ));
    events.push(sse(Some("message_stop"), &json!({"type": "message_stop"})));
    events
}

fn openai_events(respond: &Respond) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        sse(
            None,
            &json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0,
                "model": "scripted", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
        )
    };
    let mut events = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for piece in pieces(&respond.text, 6) {
        events.push(chunk(json!({"content": piece}), Value::Null));
    }
    for (number, call) in respond.tool_calls.iter().enumerate() {
        let id = call.id.clone().unwrap_or_else(|| format!("call_{number}"));
        let arguments = arguments_text(call);
        let size = arguments.chars().count().div_ceil(3).max(1);
        let argument_pieces = pieces(&arguments, size);
        if respond.openai_quirks {
            for piece in argument_pieces {
                events.push(chunk(
                    json!({"tool_calls": [{"type": "function", "function": {"name": call.name, "arguments": piece}}]}),
                    Value::Null,
                ));
            }
        } else {
            events.push(chunk(
                json!({"tool_calls": [{"index": number, "id": id, "type": "function",
                    "function": {"name": call.name, "arguments": ""}}]}),
                Value::Null,
            ));
            for piece in argument_pieces {
                events.push(chunk(
                    json!({"tool_calls": [{"index": number, "function": {"arguments": piece}}]}),
                    Value::Null,
                ));
            }
        }
    }
    let finish = if respond.tool_calls.is_empty() || respond.openai_quirks {
        "stop"
    } else {
        "tool_calls"
    };
    events.push(chunk(json!({}), json!(finish)));
    events.push("data: [DONE]\n\n".to_owned());
    events
}

fn stream(
    events: Vec<String>,
    respond: &Respond,
    finished: Arc<Mutex<Option<Instant>>>,
) -> Response {
    let delay = Duration::from_millis(respond.chunk_delay_ms);
    let drop_after = respond.drop_after_chunks;
    let stall_after = respond.stall_after_chunks;
    let body = futures::stream::unfold(0usize, move |sent| {
        let events = events.clone();
        let finished = finished.clone();
        async move {
            if drop_after == Some(sent) {
                // Let what was sent reach the client first, then end the body with an error:
                // the client sees a connection dropped mid-stream.
                tokio::time::sleep(Duration::from_millis(50)).await;
                return Some((Err(std::io::Error::other("scripted drop")), usize::MAX));
            }
            if sent == usize::MAX {
                return None;
            }
            if stall_after == Some(sent) {
                std::future::pending::<()>().await;
            }
            let Some(event) = events.get(sent).cloned() else {
                *finished
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(Instant::now());
                return None;
            };
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            Some((Ok::<_, std::io::Error>(Bytes::from(event)), sent + 1))
        }
    });
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}
