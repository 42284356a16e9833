//! Pilot's loop in a tab: the user's message goes to the model with a system prompt describing
//! the tab; the model's text streams out as `AssistantText`; its tool calls run one at a time,
//! in the order given, through the engine's own pipeline ([`PilotHost::run_tool`]: policy,
//! approval, audit); their results go back; until the model ends its turn.
//!
//! - One turn at a time per tab; `Op::CancelTurn` (or closing the tab) stops it at any point:
//!   the model stream is dropped, the running call is cancelled (a command already typed into
//!   the terminal keeps running there and the turn says so), calls not yet run are answered
//!   "not run" so the conversation stays valid for the next message.
//! - Tool output reaches the model framed as untrusted data ([`crate::taint::UntrustedFrame`]).
//! - Older tool results are elided when the conversation nears the model's window
//!   ([`budget`]).
//! - The conversation is kept in memory and appended to the tab's history file ([`history`]).
//!
//! This module never sees an API key except to hand it to the provider for one turn; keys are
//! never put into events, history, audit or messages.

pub mod budget;
pub mod history;
mod host;
pub mod ledger;
pub mod prompt;
pub mod results;

pub use host::{LiveFacts, PilotHost, TabInfo};

use crate::audit::now_rfc3339;
use crate::llm::{
    self, LlmError, Message, ModelProvider, ModelRequest, RetryPolicy, ToolCall, ToolSchema,
};
use crate::taint::UntrustedFrame;
use crate::tools;
use history::{History, HistoryEntry};
use kaiport_protocol::*;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Model round trips in one turn before Pilot stops and reports it.
pub const MAX_STEPS_PER_TURN: usize = 50;
/// Reply length when the settings give none.
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 4096;
/// The model settings file in the config folder.
pub const SETTINGS_FILE: &str = "pilot.toml";

/// Every tab's conversation. Owned by the host.
#[derive(Default)]
pub struct Conversations {
    tabs: Mutex<HashMap<TabId, Arc<TabConversation>>>,
}

struct TabConversation {
    /// Held by the running turn.
    state: tokio::sync::Mutex<State>,
    /// The running turn's cancellation; None when idle.
    running: Mutex<Option<CancellationToken>>,
    /// Set when the running turn is ended because the engine was suspended (for this long).
    interrupted: Mutex<Option<std::time::Duration>>,
    next_turn: AtomicU64,
}

struct State {
    messages: Vec<Message>,
    /// The untrusted-data markers of this conversation (one nonce for its life).
    frame: UntrustedFrame,
    model: Option<ModelSettings>,
    history: Option<History>,
    /// `messages` as the provider last encoded them.
    wire: llm::WireCache,
    /// What this conversation changed (in the prompt, never elided).
    ledger: ledger::Ledger,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Conversations {
    fn tab(&self, tab: &str) -> Arc<TabConversation> {
        lock(&self.tabs)
            .entry(tab.to_owned())
            .or_insert_with(|| {
                Arc::new(TabConversation {
                    state: tokio::sync::Mutex::new(State {
                        messages: Vec::new(),
                        frame: UntrustedFrame::new(),
                        model: None,
                        history: None,
                        wire: llm::WireCache::default(),
                        ledger: ledger::Ledger::default(),
                    }),
                    running: Mutex::new(None),
                    interrupted: Mutex::new(None),
                    next_turn: AtomicU64::new(1),
                })
            })
            .clone()
    }

    /// The conversation of `tab` as the model sees it now (for front ends and tests).
    pub async fn messages(&self, tab: &str) -> Vec<Message> {
        let conversation = lock(&self.tabs).get(tab).cloned();
        match conversation {
            Some(conversation) => conversation.state.lock().await.messages.clone(),
            None => Vec::new(),
        }
    }
}

/// `Op::SendMessage`: start a turn in the background.
pub fn send_message<H: PilotHost>(
    host: &H,
    tab: TabId,
    text: String,
    model: Option<ModelSettings>,
) {
    let Some(info) = host.tab_info(&tab) else {
        host.emit(Event::Error {
            tab: Some(tab.clone()),
            message: format!("there is no tab {tab:?}"),
        });
        return;
    };
    let conversation = host.conversations().tab(&tab);
    let cancel = {
        let mut running = lock(&conversation.running);
        if running.is_some() {
            host.emit(Event::Error {
                tab: Some(tab),
                message: "Pilot is still working on the previous message; wait or cancel it first"
                    .to_owned(),
            });
            return;
        }
        let cancel = info.closing.child_token();
        *running = Some(cancel.clone());
        *lock(&conversation.interrupted) = None;
        cancel
    };
    let turn = conversation.next_turn.fetch_add(1, Ordering::Relaxed);
    let host = host.clone();
    tokio::spawn(async move {
        host.emit(Event::TurnStarted {
            tab: tab.clone(),
            turn,
            text: text.clone(),
        });
        let mut state = conversation.state.lock().await;
        let (mut status, mut message) =
            run_turn(&host, &tab, turn, &mut state, text, model, &cancel).await;
        let interrupted = lock(&conversation.interrupted).take();
        if let Some(suspended) = interrupted
            && status == TurnStatus::Cancelled
        {
            // Told to the model where it will read it: next in the conversation.
            let note = crate::lifecycle::interrupted_note_for_model(suspended);
            push(&host, &tab, turn, &mut state, Message::User { text: note });
            status = TurnStatus::Interrupted;
            message = Some(crate::lifecycle::interrupted_note_for_user(
                suspended,
                message.as_deref(),
            ));
        }
        record(
            &host,
            &tab,
            &mut state,
            HistoryEntry::TurnFinished {
                time: now_rfc3339(),
                turn,
                status,
                message: message.clone(),
            },
        );
        drop(state);
        *lock(&conversation.running) = None;
        host.emit(Event::TurnFinished {
            tab,
            turn,
            status,
            message,
        });
    });
}

/// Ends every running turn because the engine was suspended for `suspended` while it ran
/// (`Op::AppForeground`): it finishes as `interrupted`, with a note to the user and one to the
/// model.
pub(crate) fn interrupt_running_turns<H: PilotHost>(host: &H, suspended: std::time::Duration) {
    let conversations: Vec<Arc<TabConversation>> =
        lock(&host.conversations().tabs).values().cloned().collect();
    for conversation in conversations {
        let running = lock(&conversation.running).clone();
        if let Some(cancel) = running {
            *lock(&conversation.interrupted) = Some(suspended);
            cancel.cancel();
        }
    }
}

/// `Op::CancelTurn`.
pub fn cancel_turn<H: PilotHost>(host: &H, tab: &str) {
    let conversation = lock(&host.conversations().tabs).get(tab).cloned();
    let running = conversation.and_then(|conversation| lock(&conversation.running).clone());
    match running {
        Some(cancel) => cancel.cancel(),
        None => host.emit(Event::Error {
            tab: Some(tab.to_owned()),
            message: "Pilot is not working on anything in this tab".to_owned(),
        }),
    }
}

/// The model settings from the settings file (`pilot.toml` in the config folder):
///
/// ```toml
/// provider = "anthropic"          # or "openai" (any OpenAI-compatible server)
/// [anthropic]
/// model = "claude-sonnet-4-5"
/// [openai]
/// base_url = "http://127.0.0.1:11434/v1"
/// model = "llama3.1"
/// context_tokens = 32768
/// ```
///
/// `provider` picks the section (default: the file's `provider`). None when there is no file
/// or no such section.
pub fn load_model_settings(
    config_dir: &Path,
    provider: Option<ProviderKind>,
) -> Result<Option<ModelSettings>, String> {
    let path = config_dir.join(SETTINGS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
    };
    let file: toml::Table = toml::from_str(&text)
        .map_err(|error| format!("{} is not valid: {error}", path.display()))?;
    let provider = match provider {
        Some(provider) => provider,
        None => match file.get("provider").and_then(toml::Value::as_str) {
            Some("anthropic") => ProviderKind::Anthropic,
            Some("openai") => ProviderKind::Openai,
            Some(other) => {
                return Err(format!(
                    "{}: provider must be anthropic or openai, not {other:?}",
                    path.display()
                ));
            }
            None => return Ok(None),
        },
    };
    let Some(section) = file.get(provider.as_str()) else {
        return Ok(None);
    };
    let mut section = section.clone();
    if let Some(table) = section.as_table_mut() {
        table.insert(
            "provider".to_owned(),
            toml::Value::String(provider.as_str().to_owned()),
        );
    }
    section
        .try_into()
        .map(Some)
        .map_err(|error| format!("{} [{}]: {error}", path.display(), provider.as_str()))
}

/// `Op::SaveModelSettings`: `settings` become their provider's section of the settings file
/// and that provider the one used; the file's other sections, keys and comments stay, and it
/// is replaced whole or not at all. `api_key`, when not empty, is saved in the OS keychain
/// first; the error says what was and was not saved.
pub fn save_model_settings(
    config_dir: &Path,
    settings: &ModelSettings,
    api_key: Option<&str>,
) -> Result<(), String> {
    let model = settings.model.trim();
    if model.is_empty() {
        return Err("the model is empty: choose or type the model's name".to_owned());
    }
    if let Some(base_url) = &settings.base_url {
        let parsed = url::Url::parse(base_url.trim())
            .map_err(|error| format!("the base URL {base_url:?} is not a URL: {error}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!(
                "the base URL {base_url:?} must start with http:// or https://"
            ));
        }
    }
    let path = config_dir.join(SETTINGS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
    };
    let mut file: toml_edit::DocumentMut = text.parse().map_err(|error| {
        format!(
            "{} is not valid TOML, so kaiport left it as it is: {error}",
            path.display()
        )
    })?;
    let provider = settings.provider.as_str();
    file["provider"] = toml_edit::value(provider);
    let section = file
        .entry(provider)
        .or_insert(toml_edit::table())
        .as_table_mut()
        .ok_or_else(|| {
            format!(
                "{}: {provider} is not a [{provider}] section",
                path.display()
            )
        })?;
    section["model"] = toml_edit::value(model);
    let optional =
        |section: &mut toml_edit::Table, key: &str, value: Option<toml_edit::Item>| match value {
            Some(value) => section[key] = value,
            None => {
                section.remove(key);
            }
        };
    let text_value = |value: &Option<String>| {
        value
            .as_deref()
            .map(str::trim)
            .filter(|value| !value.is_empty())
            .map(toml_edit::value)
    };
    let number = |value: Option<u32>| value.map(|value| toml_edit::value(i64::from(value)));
    optional(section, "base_url", text_value(&settings.base_url));
    optional(section, "api_key_env", text_value(&settings.api_key_env));
    optional(section, "context_tokens", number(settings.context_tokens));
    optional(
        section,
        "max_output_tokens",
        number(settings.max_output_tokens),
    );
    let key = api_key.map(str::trim).filter(|key| !key.is_empty());
    if let Some(key) = key {
        crate::redact::remember(key);
        crate::connect::secrets::SecretStore::open()
            .and_then(|store| store.set(&crate::llm::key_account(settings.provider), key))
            .map_err(|error| {
                format!("the API key could not be saved in the OS keychain, so nothing was saved: {error}")
            })?;
    }
    let kept = if key.is_some() {
        "the API key was saved, but "
    } else {
        ""
    };
    std::fs::create_dir_all(config_dir)
        .map_err(|error| format!("{kept}cannot create {}: {error}", config_dir.display()))?;
    let temporary = config_dir.join(format!(".{SETTINGS_FILE}.kaiport-tmp"));
    std::fs::write(&temporary, file.to_string())
        .and_then(|()| std::fs::rename(&temporary, &path))
        .map_err(|error| {
            let _ = std::fs::remove_file(&temporary);
            format!("{kept}{} could not be written: {error}", path.display())
        })?;
    // What was written must read back as what was asked for.
    match load_model_settings(config_dir, None) {
        Ok(Some(saved)) if saved.provider == settings.provider && saved.model == model => Ok(()),
        Ok(_) => Err(format!("{} did not read back as saved", path.display())),
        Err(error) => Err(error),
    }
}

/// The answer to `Op::ListModels`: `current` (a front end's override, else the settings file's
/// provider) and each provider's settings and key status. Asks the keychain whether a key is
/// saved; the key itself is dropped at once and never leaves this function.
pub fn list_models(config_dir: &Path, current: Option<ModelSettings>) -> Event {
    const PROVIDERS: [ProviderKind; 2] = [ProviderKind::Anthropic, ProviderKind::Openai];
    let mut problem = None;
    let current = match current {
        Some(current) => Some(current),
        None => load_model_settings(config_dir, None).unwrap_or_else(|error| {
            problem = Some(error);
            None
        }),
    };
    let store = crate::connect::secrets::SecretStore::open();
    let providers = PROVIDERS
        .into_iter()
        .map(|provider| {
            let mut settings = load_model_settings(config_dir, Some(provider)).unwrap_or_default();
            // The override replaces its provider's section: it is what a message would use.
            if let Some(current) = current.as_ref().filter(|c| c.provider == provider) {
                settings = Some(current.clone());
            }
            let key = match settings.as_ref().and_then(|s| s.api_key_env.clone()) {
                Some(var) => {
                    let set = std::env::var_os(&var).is_some_and(|value| !value.is_empty());
                    KeyStatus::Env { var, set }
                }
                None => match store
                    .as_ref()
                    .map(|store| store.get(&crate::llm::key_account(provider)))
                {
                    Ok(Ok(Some(_))) => KeyStatus::Saved,
                    Ok(Ok(None)) => KeyStatus::NotSaved,
                    Ok(Err(error)) => KeyStatus::Unknown {
                        error: error.to_string(),
                    },
                    Err(error) => KeyStatus::Unknown {
                        error: error.to_string(),
                    },
                },
            };
            ModelChoice {
                provider,
                settings,
                key,
            }
        })
        .collect();
    Event::Models {
        current,
        providers,
        problem,
    }
}

/// The tools the model is offered in a tab of `kind`: those of this build made for this kind.
pub fn tool_schemas(kind: TabKind) -> Vec<ToolSchema> {
    tools::registry()
        .into_iter()
        .filter(|spec| spec.tab_kinds.contains(&kind))
        .map(|spec| ToolSchema {
            name: spec.name.as_str().to_owned(),
            description: spec.description.to_owned(),
            parameters: parameters_schema(spec.name).into(),
        })
        .collect()
}

fn record<H: PilotHost>(host: &H, tab: &str, state: &mut State, entry: HistoryEntry) {
    if state.history.is_none() {
        match History::open(host.data_dir(), tab) {
            Ok(history) => state.history = Some(history),
            Err(error) => {
                host.emit(Event::Error {
                    tab: Some(tab.to_owned()),
                    message: format!("cannot save Pilot's history: {error}"),
                });
                return;
            }
        }
    }
    if let Some(history) = &mut state.history
        && let Err(error) = history.append(&entry)
    {
        host.emit(Event::Error {
            tab: Some(tab.to_owned()),
            message: format!(
                "cannot save Pilot's history to {}: {error}",
                history.path().display()
            ),
        });
    }
}

fn push<H: PilotHost>(host: &H, tab: &str, turn: u64, state: &mut State, message: Message) {
    state.messages.push(message.clone());
    record(
        host,
        tab,
        state,
        HistoryEntry::Message {
            time: now_rfc3339(),
            turn,
            message,
        },
    );
}

/// One turn, to its end. Returns how it ended and why (when not completed).
async fn run_turn<H: PilotHost>(
    host: &H,
    tab: &str,
    turn: u64,
    state: &mut State,
    text: String,
    model: Option<ModelSettings>,
    cancel: &CancellationToken,
) -> (TurnStatus, Option<String>) {
    if let Some(model) = model {
        state.model = Some(model);
    }
    if state.model.is_none() {
        match load_model_settings(host.config_dir(), None) {
            Ok(Some(model)) => state.model = Some(model),
            Ok(None) => {
                return (
                    TurnStatus::Failed,
                    Some(format!(
                        "Pilot has no model configured: choose a provider and model in the settings ({})",
                        host.config_dir().join(SETTINGS_FILE).display()
                    )),
                );
            }
            Err(error) => return (TurnStatus::Failed, Some(error)),
        }
    }
    let Some(settings) = state.model.clone() else {
        return (TurnStatus::Failed, Some("no model configured".to_owned()));
    };
    let provider =
        match llm::resolve_api_key(&settings).and_then(|key| llm::provider_for(&settings, key)) {
            Ok(provider) => provider,
            Err(error) => return (TurnStatus::Failed, Some(error.to_string())),
        };
    push(host, tab, turn, state, Message::User { text });
    let max_output = settings
        .max_output_tokens
        .unwrap_or(DEFAULT_MAX_OUTPUT_TOKENS);
    let context = settings
        .context_tokens
        .unwrap_or_else(|| budget::default_context_tokens(settings.provider, &settings.model));
    let budget = budget::conversation_budget(context, max_output);
    // The tool set depends on the build and the tab kind only: made once per turn.
    let Some(kind) = host.tab_info(tab).map(|info| info.kind) else {
        return (TurnStatus::Cancelled, Some("the tab was closed".to_owned()));
    };
    let tools = tool_schemas(kind);
    let tools_tokens = budget::estimate(&serde_json::to_string(&tools).unwrap_or_default());

    for step in 0..MAX_STEPS_PER_TURN {
        if cancel.is_cancelled() {
            return (TurnStatus::Cancelled, None);
        }
        let Some(info) = host.tab_info(tab) else {
            return (TurnStatus::Cancelled, Some("the tab was closed".to_owned()));
        };
        let system = prompt::system_prompt(
            &info,
            &tools,
            state.frame.nonce(),
            prompt::Style::for_context(context),
        );
        let tab_now = prompt::tab_now(&info, &state.ledger);
        let fixed = budget::estimate(&system) + budget::estimate(&tab_now) + tools_tokens;
        for index in budget::fit(&mut state.messages, fixed, budget) {
            state.wire.forget(index);
        }
        host.emit(context_usage(tab, turn, fixed, &state.messages, context));
        let reply = ask_model(
            host,
            tab,
            turn,
            provider.as_ref(),
            (&system, &tab_now),
            &tools,
            state,
            max_output,
            cancel,
        )
        .await;
        let reply = match reply {
            Ok(reply) => reply,
            Err((error, partial)) => {
                if !partial.is_empty() {
                    push(
                        host,
                        tab,
                        turn,
                        state,
                        Message::Assistant {
                            text: partial,
                            tool_calls: Vec::new(),
                        },
                    );
                }
                return match error {
                    LlmError::Cancelled => (TurnStatus::Cancelled, None),
                    error => (TurnStatus::Failed, Some(error.to_string())),
                };
            }
        };
        let calls = reply.tool_calls.clone();
        push(
            host,
            tab,
            turn,
            state,
            Message::Assistant {
                text: reply.text,
                tool_calls: reply.tool_calls,
            },
        );
        if calls.is_empty() {
            return match reply.stop {
                llm::StopReason::EndTurn | llm::StopReason::ToolUse => {
                    (TurnStatus::Completed, None)
                }
                llm::StopReason::MaxTokens => (
                    TurnStatus::Completed,
                    Some("the reply reached the model's output limit".to_owned()),
                ),
                llm::StopReason::Other(reason) => (
                    TurnStatus::Completed,
                    Some(format!("the model stopped: {reason}")),
                ),
            };
        }
        let mut note = None;
        for (index, call) in calls.iter().enumerate() {
            if cancel.is_cancelled() {
                push(host, tab, turn, state, not_run(call));
                continue;
            }
            let call_id = format!("{tab}-{turn}-{step}-{index}");
            let (message, left_running, outcome) =
                run_call(host, tab, &state.frame, call, call_id, cancel).await;
            if left_running {
                note = Some(format!(
                    "{} was cancelled; the command may still be running in the terminal",
                    call.name
                ));
            }
            if let Ok(args) = serde_json::from_str::<Value>(&call.arguments) {
                state.ledger.record(&call.name, &args, &outcome);
            }
            push(host, tab, turn, state, message);
        }
        if cancel.is_cancelled() {
            return (TurnStatus::Cancelled, note);
        }
    }
    (
        TurnStatus::Failed,
        Some(format!(
            "Pilot stopped after {MAX_STEPS_PER_TURN} steps in one turn; send another message to let it continue"
        )),
    )
}

/// How full the window is, as the budget counts it.
fn context_usage(
    tab: &str,
    turn: u64,
    fixed: usize,
    messages: &[Message],
    context_tokens: u32,
) -> Event {
    let used = fixed + messages.iter().map(budget::message_tokens).sum::<usize>();
    let elided = messages
        .iter()
        .filter(|message| {
            matches!(message, Message::Tool { content, .. } if budget::is_elided(content))
        })
        .count();
    Event::ContextUsage {
        tab: tab.to_owned(),
        turn,
        used_tokens: used as u64,
        context_tokens,
        elided_results: u32::try_from(elided).unwrap_or(u32::MAX),
    }
}

/// One model request with retries; text streams out as events. On error, also the text that
/// was streamed before it.
#[allow(clippy::too_many_arguments)]
async fn ask_model<H: PilotHost>(
    host: &H,
    tab: &str,
    turn: u64,
    provider: &dyn ModelProvider,
    (system, tab_now): (&str, &str),
    tools: &[ToolSchema],
    state: &State,
    max_output: u32,
    cancel: &CancellationToken,
) -> Result<llm::ModelReply, (LlmError, String)> {
    let request = ModelRequest {
        system,
        messages: &state.messages,
        tools,
        max_output_tokens: max_output,
        tab_now,
        wire: Some(&state.wire),
    };
    let mut streamed = String::new();
    let mut on_text = |delta: &str| {
        streamed.push_str(delta);
        host.emit(Event::AssistantText {
            tab: tab.to_owned(),
            turn,
            delta: delta.to_owned(),
        });
    };
    let mut on_retry = |notice: &llm::RetryNotice| {
        host.emit(Event::ModelRetrying {
            tab: tab.to_owned(),
            turn,
            attempt: notice.attempt,
            wait_ms: notice.wait.as_millis() as u64,
            reason: notice.reason.clone(),
        });
    };
    let result = llm::complete_with_retry(
        provider,
        &request,
        RetryPolicy::default(),
        cancel,
        &mut on_text,
        &mut on_retry,
    )
    .await;
    result.map_err(|error| (error, streamed))
}

/// Run one call through the engine; the turn's cancellation cancels the call. Returns the
/// result message and whether a command was left running in the terminal.
async fn run_call<H: PilotHost>(
    host: &H,
    tab: &str,
    frame: &UntrustedFrame,
    call: &ToolCall,
    call_id: CallId,
    cancel: &CancellationToken,
) -> (Message, bool, ToolOutcome) {
    let outcome = match serde_json::from_str::<Value>(&call.arguments) {
        Err(error) => host.reject_tool_call(
            tab,
            call_id,
            &call.name,
            Value::String(call.arguments.chars().take(200).collect()),
            format!(
                "{}: the arguments are not valid JSON ({error}); send one JSON object that matches the tool's schema",
                call.name
            ),
        ),
        Ok(args) => {
            let run = host.run_tool(tab.to_owned(), call_id.clone(), call.name.clone(), args);
            tokio::pin!(run);
            tokio::select! {
                outcome = &mut run => outcome,
                () = cancel.cancelled() => {
                    host.cancel_call(tab, &call_id);
                    run.await
                }
            }
        }
    };
    // The terminal reports a cancelled wait as `interrupted` (the command keeps running there).
    let interrupted = outcome
        .result
        .as_ref()
        .is_some_and(|result| result["status"] == "interrupted");
    let left_running = cancel.is_cancelled()
        && call.name == ToolName::RunCommand.as_str()
        && (outcome.status == ToolStatus::Cancelled || interrupted);
    (result_message(call, frame, &outcome), left_running, outcome)
}

/// What the model gets for an outcome ([`results`]): kaiport's fields as a header, server text
/// framed as untrusted data (ask_user answers come from the user and are not).
fn result_message(call: &ToolCall, frame: &UntrustedFrame, outcome: &ToolOutcome) -> Message {
    Message::Tool {
        call_id: call.id.clone(),
        name: call.name.clone(),
        content: results::render(&call.name, outcome, frame),
        is_error: outcome.status != ToolStatus::Ok,
    }
}

fn not_run(call: &ToolCall) -> Message {
    Message::Tool {
        call_id: call.id.clone(),
        name: call.name.clone(),
        content: format!(
            "{}: cancelled\nnot run: the user cancelled the turn",
            call.name
        ),
        is_error: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_models_reads_the_settings_and_says_where_keys_come_from_never_what_they_are() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(SETTINGS_FILE),
            "provider = \"openai\"\n[openai]\nmodel = \"llama3\"\nbase_url = \"http://127.0.0.1:1/v1\"\n\
             api_key_env = \"KAIPORT_UNIT_TEST_VARIABLE_NOBODY_SETS\"\n",
        )
        .unwrap();
        let Event::Models {
            current,
            providers,
            problem,
        } = list_models(dir.path(), None)
        else {
            panic!("not a models event");
        };
        assert_eq!(problem, None);
        assert_eq!(current.as_ref().map(|c| c.model.as_str()), Some("llama3"));
        let openai = providers
            .iter()
            .find(|p| p.provider == ProviderKind::Openai)
            .unwrap();
        assert_eq!(
            openai.key,
            KeyStatus::Env {
                var: "KAIPORT_UNIT_TEST_VARIABLE_NOBODY_SETS".to_owned(),
                set: false
            }
        );
        let anthropic = providers
            .iter()
            .find(|p| p.provider == ProviderKind::Anthropic)
            .unwrap();
        assert_eq!(anthropic.settings, None);

        // A front end's override replaces its provider's section and is the current model.
        let chosen = ModelSettings {
            provider: ProviderKind::Anthropic,
            base_url: None,
            model: "claude-test".to_owned(),
            api_key_env: Some("KAIPORT_UNIT_TEST_OTHER_VARIABLE".to_owned()),
            context_tokens: None,
            max_output_tokens: None,
        };
        let Event::Models {
            current, providers, ..
        } = list_models(dir.path(), Some(chosen.clone()))
        else {
            panic!("not a models event");
        };
        assert_eq!(current, Some(chosen.clone()));
        let anthropic = providers
            .iter()
            .find(|p| p.provider == ProviderKind::Anthropic)
            .unwrap();
        assert_eq!(anthropic.settings, Some(chosen));

        // A broken settings file is said, not hidden.
        std::fs::write(dir.path().join(SETTINGS_FILE), "provider = [").unwrap();
        let Event::Models { problem, .. } = list_models(dir.path(), None) else {
            panic!("not a models event");
        };
        assert!(problem.is_some_and(|p| p.contains("not valid")));
    }
}
