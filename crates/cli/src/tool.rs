//! `kaiport tools` and `kaiport tool`: the tool set of this build, and one tool call through the
//! whole engine pipeline with its result printed as one JSON object on stdout.

use crate::connection::{ConnectionOptions, open_tab};
use kaiport_core::tools;
use kaiport_protocol::{ConnectionState, Event, Mode, Op, ToolOutcome, ToolStatus};
use std::process::ExitCode;

/// Exit status: the call succeeded.
pub const EXIT_OK: u8 = 0;
/// Exit status: the call failed, was denied or cancelled, or the connection failed.
pub const EXIT_FAILED: u8 = 1;

const TAB: &str = "cli";
const CALL: &str = "cli-call";

#[derive(Debug, clap::Args)]
pub struct ToolArgs {
    /// `local`, `ssh://user@host:port`, `user@host`, or a saved profile name.
    connection: String,
    /// The tool, e.g. run_command (see `kaiport tools`).
    tool: String,
    /// The tool's arguments as a JSON object, e.g. '{"command":"uptime"}'.
    #[arg(default_value = "{}")]
    args: String,
    /// ask (default), autopilot or plan.
    #[arg(long, value_parser = parse_mode, default_value = "ask")]
    mode: Mode,
    /// Approve what asks. Never overrides a deny.
    #[arg(long)]
    yes: bool,
    #[command(flatten)]
    options: ConnectionOptions,
}

pub fn parse_mode(text: &str) -> Result<Mode, String> {
    match text {
        "ask" => Ok(Mode::Ask),
        "autopilot" => Ok(Mode::Autopilot),
        "plan" => Ok(Mode::Plan),
        other => Err(format!(
            "mode must be ask, autopilot or plan, not {other:?}"
        )),
    }
}

pub fn list_tools(json: bool) -> anyhow::Result<ExitCode> {
    let registry = tools::registry();
    if json {
        let specs: Vec<serde_json::Value> = registry.iter().map(tools::spec_json).collect();
        out!("{}", serde_json::to_string_pretty(&specs)?);
    } else {
        for spec in &registry {
            let first_sentence = spec
                .description
                .split(". ")
                .next()
                .unwrap_or(spec.description);
            out!("{:<14} {first_sentence}", spec.name.as_str());
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn run(args: ToolArgs) -> anyhow::Result<ExitCode> {
    let tool_args: serde_json::Value = match serde_json::from_str(&args.args) {
        Ok(value) => value,
        Err(error) => {
            say!(
                "kaiport: JSON_ARGS is not valid JSON ({error}); example: '{{\"command\":\"uptime\"}}'"
            );
            return Ok(ExitCode::from(2));
        }
    };
    let mut first = Some((args.tool.clone(), tool_args));
    let outcome = run_calls(&args.connection, &args.options, args.mode, args.yes, |_| {
        first.take()
    })
    .await?;
    let Some(outcome) = outcome else {
        return Ok(ExitCode::from(EXIT_FAILED));
    };
    out!("{}", serde_json::to_string(&outcome)?);
    Ok(exit_code(&outcome))
}

/// The exit status for a call that ended so.
pub fn exit_code(outcome: &ToolOutcome) -> ExitCode {
    if outcome.status == ToolStatus::Ok {
        ExitCode::from(EXIT_OK)
    } else {
        ExitCode::from(EXIT_FAILED)
    }
}

/// Opens a tab on `connection` and runs tool calls in it through the whole pipeline, one after
/// another: `next` gets the outcome of the call before (`None` at first) and returns the next
/// call, or `None` to stop. Returns the last outcome; `None` when there was none (the
/// connection failed, or Ctrl-C before the first call).
pub async fn run_calls(
    connection: &str,
    options: &ConnectionOptions,
    mode: Mode,
    yes: bool,
    mut next: impl FnMut(Option<&ToolOutcome>) -> Option<(String, serde_json::Value)>,
) -> anyhow::Result<Option<ToolOutcome>> {
    let (engine, mut events, answerer) =
        open_tab(connection, options, TAB, Some(mode), yes).await?;
    let mut progress = TransferBars::default();
    let mut interrupts = std::pin::pin!(tokio::signal::ctrl_c());
    let mut cancelled = false;
    let mut call_started = false;
    let mut calls = 0u32;
    let start = |engine: &kaiport_core::Engine,
                 calls: &mut u32,
                 (tool, args): (String, serde_json::Value)| {
        *calls += 1;
        let op = Op::RunTool {
            tab: TAB.to_owned(),
            call: format!("{CALL}-{calls}"),
            tool,
            args,
        };
        let engine = engine.clone();
        async move { engine.handle(op).await }
    };
    loop {
        let event = tokio::select! {
            event = events.recv() => event,
            _ = &mut interrupts, if !cancelled => {
                cancelled = true;
                say!("\nkaiport: cancelling…");
                if !call_started {
                    engine.handle(Op::CloseTab { tab: TAB.to_owned() }).await;
                    return Ok(None);
                }
                engine.handle(Op::Cancel { tab: TAB.to_owned(), call: None }).await;
                continue;
            }
        };
        let Some(event) = event else {
            anyhow::bail!("the engine stopped unexpectedly")
        };
        if answerer.respond(&engine, &event).await {
            continue;
        }
        match event {
            // Once: connected again after a drop is not a second call.
            Event::ConnectionState {
                state: ConnectionState::Connected,
                ..
            } if !call_started => {
                call_started = true;
                match next(None) {
                    Some(call) => start(&engine, &mut calls, call).await,
                    None => {
                        engine.handle(Op::CloseTab { tab: TAB.to_owned() }).await;
                        return Ok(None);
                    }
                }
            }
            Event::ConnectionState {
                state: ConnectionState::Failed { error },
                ..
            } => {
                say!("kaiport: could not connect to {connection}: {error}");
                return Ok(None);
            }
            Event::ConnectionState {
                state: ConnectionState::Disconnected { reason },
                ..
            } => {
                say!("kaiport: {reason}");
            }
            Event::ConnectionState {
                state: ConnectionState::Reconnecting { in_ms, reason, .. },
                ..
            } => say!("kaiport: {reason}; reconnecting in {} s…", in_ms.div_ceil(1000)),
            // Answered by `Answerer::respond` above.
            Event::PromptRequested { .. }
            | Event::ApprovalRequested { .. }
            | Event::QuestionAsked { .. } => {}
            Event::ToolFinished { outcome, .. } => {
                let more = if cancelled { None } else { next(Some(&outcome)) };
                match more {
                    Some(call) => start(&engine, &mut calls, call).await,
                    None => {
                        engine
                            .handle(Op::CloseTab {
                                tab: TAB.to_owned(),
                            })
                            .await;
                        return Ok(Some(outcome));
                    }
                }
            }
            Event::Error { message, .. } => say!("kaiport: {message}"),
            Event::HostFacts { facts, .. } => {
                say!("kaiport: host: {}", crate::prompts::host_line(&facts));
            }
            Event::TransferProgress {
                path,
                transferred,
                total,
                done,
                ..
            } => progress.update(&path, transferred, total, done),
            Event::Hello { .. }
            | Event::TabOpened { .. }
            | Event::ConnectionState {
                state: ConnectionState::Connecting | ConnectionState::Connected,
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
            | Event::ToolRequested { .. }
            | Event::ToolRunning { .. }
            | Event::PlanProposed { .. }
            | Event::PlanUpdated { .. }
            | Event::ViewShown { .. }
            | Event::ViewButtonFinished { .. }
            | Event::TurnStarted { .. }
            | Event::AssistantText { .. }
            | Event::ModelRetrying { .. }
            | Event::TurnFinished { .. }
            | Event::ContextUsage { .. }
            | Event::Models { .. }
            | Event::ModelSettingsSaved { .. }
            | Event::ModelTested { .. }
            | Event::ProviderModels { .. } => {}
        }
    }
}

/// Progress bars for a call's transfers, on stderr when it is a terminal (indicatif hides them
/// otherwise, so scripts get clean output).
#[derive(Default)]
struct TransferBars {
    bars: std::collections::HashMap<String, indicatif::ProgressBar>,
}

impl TransferBars {
    fn update(&mut self, path: &str, transferred: u64, total: u64, done: bool) {
        let bar = self.bars.entry(path.to_owned()).or_insert_with(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(total),
                indicatif::ProgressDrawTarget::stderr(),
            );
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{msg} {wide_bar} {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
            ) {
                bar.set_style(style);
            }
            bar.set_message(path.to_owned());
            bar
        });
        bar.set_position(transferred);
        if done {
            bar.finish();
        }
    }
}
