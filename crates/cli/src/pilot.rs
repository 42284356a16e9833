//! `kaiport pilot CONNECTION "task"`: Pilot in a plain terminal. The model's text streams to
//! stdout with one line per tool call and its status; approvals (with diffs) and ask_user are
//! answered at the prompt; Ctrl-C cancels the turn (twice: quit). Without a terminal nothing is
//! assumed: approvals are denied unless `--yes` (which never overrides a deny) and questions go
//! unanswered. `--json` prints the engine's event stream as JSON lines instead.
//!
//! The model comes from the settings file (`pilot.toml`), overridden by the flags; the API key
//! from the keychain or, for scripts, the variable `--api-key-env` names. The key itself never
//! passes through this file.

use crate::connection::{ConnectionOptions, open_tab};
use crate::tool::{EXIT_FAILED, EXIT_OK};
use anyhow::bail;
use kaiport_core::agent::load_model_settings;
use kaiport_protocol::{
    ConnectionState, Event, Mode, ModelSettings, Op, ProviderKind, TabKind, ToolStatus, TurnStatus,
};
use std::collections::HashMap;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;
use tokio::time::Instant;

const TAB: &str = "pilot";

/// How long the task waits for a terminal tab's host facts once connected: a little more than
/// the engine's probe may take (8 s), so a probe that never reports (the tab connected again
/// meanwhile) holds it back no longer.
const HOST_FACTS_WAIT: Duration = Duration::from_secs(10);

#[derive(Debug, clap::Args)]
pub struct PilotArgs {
    /// `local`, `ssh://user@host:port`, `user@host`, or a saved profile name.
    connection: String,
    /// What Pilot should do.
    task: String,
    /// ask (default), autopilot or plan.
    #[arg(long, value_parser = crate::tool::parse_mode, default_value = "ask")]
    mode: Mode,
    #[command(flatten)]
    model: ModelFlags,
    /// Approve what asks. Never overrides a deny, never answers ask_user.
    #[arg(long)]
    yes: bool,
    /// Print the event stream as JSON lines instead of a transcript.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    options: ConnectionOptions,
}

/// The model flags of `kaiport pilot` and `kaiport serve`: they override the settings file.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ModelFlags {
    /// anthropic, or openai (any OpenAI-compatible server). Default: the settings file.
    #[arg(long, value_parser = parse_provider)]
    pub provider: Option<ProviderKind>,
    /// The provider's API base URL (e.g. http://127.0.0.1:11434/v1 for Ollama).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model name.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// Take the API key from this environment variable (otherwise the keychain).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// The model's context window in tokens (default per provider and model).
    #[arg(long, value_name = "TOKENS")]
    pub context_tokens: Option<u32>,
    /// Longest reply in tokens (default 4096).
    #[arg(long, value_name = "TOKENS")]
    pub max_output_tokens: Option<u32>,
}

impl ModelFlags {
    /// Whether any flag was given.
    pub fn any(&self) -> bool {
        self.provider.is_some()
            || self.base_url.is_some()
            || self.model.is_some()
            || self.api_key_env.is_some()
            || self.context_tokens.is_some()
            || self.max_output_tokens.is_some()
    }
}

pub(crate) fn parse_provider(text: &str) -> Result<ProviderKind, String> {
    match text {
        "anthropic" => Ok(ProviderKind::Anthropic),
        "openai" => Ok(ProviderKind::Openai),
        other => Err(format!(
            "provider must be anthropic or openai (any OpenAI-compatible server), not {other:?}"
        )),
    }
}

/// The model settings: the settings file, then the flags on top.
pub(crate) fn model_settings(
    args: &ModelFlags,
    config_dir: &std::path::Path,
) -> anyhow::Result<ModelSettings> {
    let from_file = load_model_settings(config_dir, args.provider).map_err(anyhow::Error::msg)?;
    let mut settings = match (from_file, args.provider) {
        (Some(settings), _) => settings,
        (None, Some(provider)) => ModelSettings {
            provider,
            base_url: None,
            model: String::new(),
            api_key_env: None,
            context_tokens: None,
            max_output_tokens: None,
        },
        (None, None) => bail!(
            "no model configured: pass --provider and --model, or write {}",
            config_dir
                .join(kaiport_core::agent::SETTINGS_FILE)
                .display()
        ),
    };
    if let Some(base_url) = &args.base_url {
        settings.base_url = Some(base_url.clone());
    }
    if let Some(model) = &args.model {
        settings.model = model.clone();
    }
    if let Some(var) = &args.api_key_env {
        settings.api_key_env = Some(var.clone());
    }
    if let Some(tokens) = args.context_tokens {
        settings.context_tokens = Some(tokens);
    }
    if let Some(tokens) = args.max_output_tokens {
        settings.max_output_tokens = Some(tokens);
    }
    if settings.model.trim().is_empty() {
        bail!("no model name: pass --model NAME");
    }
    Ok(settings)
}

/// The transcript printer.
struct Transcript {
    json: bool,
    /// Whether the last thing printed ended a line.
    at_line_start: bool,
    /// Arguments of calls in flight, for their status line.
    args: HashMap<String, (String, String)>,
}

impl Transcript {
    fn out(&mut self, text: &str) {
        let mut stdout = std::io::stdout();
        let _ = stdout.write_all(text.as_bytes());
        let _ = stdout.flush();
        if !text.is_empty() {
            self.at_line_start = text.ends_with('\n');
        }
    }

    fn line(&mut self, text: &str) {
        if !self.at_line_start {
            self.out("\n");
        }
        self.out(&format!("{text}\n"));
    }
}

/// Ctrl-C presses from this call on, none lost: one listener for the whole run. A
/// `tokio::signal::ctrl_c()` made afresh for each wait sees only the presses after it is first
/// polled, so a press that came while an event was being handled went unseen and the turn ran on.
fn interrupts() -> tokio::sync::mpsc::UnboundedReceiver<()> {
    let (press, presses) = tokio::sync::mpsc::unbounded_channel();
    #[cfg(unix)]
    let listener = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt());
    #[cfg(windows)]
    let listener = tokio::signal::windows::ctrl_c();
    tokio::spawn(async move {
        #[cfg(any(unix, windows))]
        if let Ok(mut listener) = listener {
            while listener.recv().await.is_some() && press.send(()).is_ok() {}
            return;
        }
        while tokio::signal::ctrl_c().await.is_ok() && press.send(()).is_ok() {}
    });
    presses
}

/// Gives the model the task, once.
async fn send_task(engine: &kaiport_core::Engine, model: &mut Option<ModelSettings>, task: &str) {
    if let Some(model) = model.take() {
        engine
            .handle(Op::SendMessage {
                tab: TAB.to_owned(),
                text: task.to_owned(),
                model: Some(model),
            })
            .await;
    }
}

fn short(text: &str, max: usize) -> String {
    let one_line = text.replace('\n', " ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(max).collect();
    cut.push('…');
    cut
}

pub async fn run(args: PilotArgs) -> anyhow::Result<ExitCode> {
    let model = model_settings(&args.model, &args.options.engine_config()?.config_dir)?;
    let (engine, mut events, answerer) = open_tab(
        &args.connection,
        &args.options,
        TAB,
        Some(args.mode),
        args.yes,
    )
    .await?;
    engine.set_unattended();
    let mut presses = interrupts();
    let mut transcript = Transcript {
        json: args.json,
        at_line_start: true,
        args: HashMap::new(),
    };
    let mut model = Some(model);
    // The task goes to the model once the host probe answered, so that its first request
    // already says where it is (the probe runs after `Connected`, beside the shell's first
    // prompt). Storage tabs have no probe: theirs goes at `Connected`.
    let mut terminal_tab = false;
    let mut facts_by: Option<Instant> = None;
    let mut turn_started = false;
    let mut interrupts = 0u32;
    loop {
        let facts_late = async {
            match facts_by {
                Some(deadline) => tokio::time::sleep_until(deadline).await,
                None => std::future::pending().await,
            }
        };
        let event = tokio::select! {
            event = events.recv() => event,
            () = facts_late => {
                facts_by = None;
                send_task(&engine, &mut model, &args.task).await;
                continue;
            }
            Some(()) = presses.recv() => {
                interrupts += 1;
                if interrupts > 1 || !turn_started {
                    say!("\nkaiport: stopped");
                    engine.handle(Op::CloseTab { tab: TAB.to_owned() }).await;
                    return Ok(ExitCode::from(EXIT_FAILED));
                }
                say!("\nkaiport: cancelling the turn… (Ctrl-C again to quit)");
                engine.handle(Op::CancelTurn { tab: TAB.to_owned() }).await;
                continue;
            }
        };
        let Some(event) = event else {
            bail!("the engine stopped unexpectedly");
        };
        if transcript.json && !matches!(event, Event::TerminalOutput { .. }) {
            transcript.out(&format!("{}\n", serde_json::to_string(&event)?));
        }
        if answerer.respond(&engine, &event).await {
            continue;
        }
        match event {
            Event::TabOpened { kind, .. } => terminal_tab = kind == TabKind::Terminal,
            Event::ConnectionState {
                state: ConnectionState::Connected,
                ..
            } => {
                if terminal_tab {
                    if model.is_some() {
                        facts_by = Some(Instant::now() + HOST_FACTS_WAIT);
                    }
                } else {
                    send_task(&engine, &mut model, &args.task).await;
                }
            }
            Event::ConnectionState {
                state: ConnectionState::Failed { error },
                ..
            } => {
                say!("kaiport: could not connect to {}: {error}", args.connection);
                return Ok(ExitCode::from(EXIT_FAILED));
            }
            Event::ConnectionState {
                state: ConnectionState::Disconnected { reason },
                ..
            } => say!("kaiport: {reason}"),
            Event::ConnectionState {
                state: ConnectionState::Reconnecting { in_ms, reason, .. },
                ..
            } => say!("kaiport: {reason}; reconnecting in {} s…", in_ms.div_ceil(1000)),
            // Answered by `Answerer::respond` above.
            Event::PromptRequested { .. }
            | Event::ApprovalRequested { .. }
            | Event::QuestionAsked { .. } => {}
            Event::TurnStarted { .. } => turn_started = true,
            Event::TransferProgress {
                path,
                transferred,
                total,
                done,
                ..
            } => {
                if done && !transcript.json {
                    transcript.line(&format!("  ⇅ {path}: {transferred} of {total} bytes"));
                }
            }
            Event::PlanProposed { plan, .. } | Event::PlanUpdated { plan, .. } => {
                if !transcript.json {
                    transcript.line(&format!("▤ plan: {} ({:?})", plan.title, plan.phase));
                    for (index, step) in plan.steps.iter().enumerate() {
                        let waiting = if step.awaiting_confirmation {
                            " (awaiting your confirmation)"
                        } else {
                            ""
                        };
                        transcript.line(&format!(
                            "  {}. [{:?}] {}{waiting}",
                            index + 1,
                            step.status,
                            step.title
                        ));
                    }
                }
            }
            Event::AssistantText { delta, .. } => {
                if !transcript.json {
                    transcript.out(&delta);
                }
            }
            Event::ModelRetrying {
                attempt,
                wait_ms,
                reason,
                ..
            } => say!("kaiport: {reason}; retrying in {wait_ms} ms (attempt {attempt})"),
            Event::ToolRequested {
                call, tool, args, ..
            } => {
                transcript
                    .args
                    .insert(call, (tool, short(&args.to_string(), 100)));
            }
            Event::ToolFinished {
                call,
                outcome,
                duration_ms,
                ..
            } => {
                let (tool, shown) = transcript
                    .args
                    .remove(&call)
                    .unwrap_or_else(|| (outcome.tool.clone(), String::new()));
                if !transcript.json {
                    let status = match outcome.status {
                        ToolStatus::Ok => "ok",
                        ToolStatus::Error => "error",
                        ToolStatus::Denied => "denied",
                        ToolStatus::Cancelled => "cancelled",
                    }
                    .to_owned();
                    let error = outcome
                        .error
                        .as_deref()
                        .map(|error| format!(": {}", short(error, 160)))
                        .unwrap_or_default();
                    transcript.line(&format!(
                        "⏺ {tool} {shown} → {status}{error} ({duration_ms} ms)"
                    ));
                }
                if let Some(asked) = crate::prompts::secret_asked(&outcome) {
                    // Only a person types a secret: here, hidden, straight to the server's
                    // prompt. Pilot waits for the prompt to go (read_screen).
                    answerer.type_secret(&engine, TAB, &asked).await;
                }
            }
            Event::HostFacts { facts, .. } => {
                if !transcript.json {
                    transcript.line(&format!("▸ host: {}", crate::prompts::host_line(&facts)));
                }
                if facts_by.take().is_some() {
                    send_task(&engine, &mut model, &args.task).await;
                }
            }
            Event::TurnFinished {
                status, message, ..
            } => {
                if !transcript.json {
                    if !transcript.at_line_start {
                        transcript.out("\n");
                    }
                    if let Some(message) = &message {
                        say!("kaiport: {message}");
                    }
                }
                engine
                    .handle(Op::CloseTab {
                        tab: TAB.to_owned(),
                    })
                    .await;
                let code = match status {
                    TurnStatus::Completed => EXIT_OK,
                    TurnStatus::Cancelled | TurnStatus::Failed | TurnStatus::Interrupted => {
                        EXIT_FAILED
                    }
                };
                return Ok(ExitCode::from(code));
            }
            Event::Error { message, .. } => say!("kaiport: {message}"),
            // The view itself is for the user: its summary here (`kaiport view` shows tables).
            Event::ViewShown { report, .. } => {
                if !transcript.json {
                    for line in report.summary.lines() {
                        transcript.line(&format!("  │ {line}"));
                    }
                }
            }
            Event::Hello { .. }
            | Event::ViewButtonFinished { .. }
            | Event::ConnectionState {
                state: ConnectionState::Connecting,
                ..
            }
            | Event::TerminalOutput { .. }
            | Event::TerminalCwd { .. }
            | Event::TabClosed { .. }
            | Event::TabsReordered { .. }
            | Event::TabsRestored { .. }
            | Event::KeyFileChecked { .. }
            | Event::AgentKeys { .. }
            | Event::SecurityKeyTouch { .. }
            | Event::ModeChanged { .. }
            | Event::SettingsChanged { .. }
            // Answers to ops these front ends do not send; a changed host key also fails the tab.
            | Event::SavedConnections { .. }
            | Event::SshConfigHosts { .. }
            | Event::FleetChecked { .. }
            | Event::BroadcastJudged { .. }
            | Event::Snippets { .. }
            | Event::SnippetExpanded { .. }
            | Event::FleetHostRunning { .. }
            | Event::FleetHostFinished { .. }
            | Event::FleetFinished { .. }
            | Event::AuditLog { .. }
            | Event::AuditRecorded { .. }
            | Event::HostKeyChanged { .. }
            | Event::HostKeyReplaced { .. }
            | Event::ForwardState { .. }
            | Event::ToolRunning { .. }
            | Event::ContextUsage { .. }
            | Event::Models { .. }
            | Event::ModelSettingsSaved { .. }
            | Event::ModelTested { .. }
            | Event::ProviderModels { .. } => {}
        }
    }
}
