//! run_command, send_input and read_screen: the terminal tools, executed on the tab's
//! [`Terminal`]. Output for the model is capped here; the terminal itself shows everything.
//!
//! **At a shell prompt, whatever Enter will run is judged as a command line** (docs/policy.md).
//! send_input's keys can edit a line into a forbidden command (`m /tmp/v`, Ctrl-A, `r`, Enter
//! runs `rm /tmp/v`), so at a prompt send_input is prepared by [`Terminal::stage_input`]: the
//! keys before Enter are typed, the resulting line is read off the screen and decided like
//! run_command's line ([`CallFacts::Command`]); Enter is pressed only once that allows it, and
//! only if the line is still the same. A line that cannot be read first (keys after Enter, Esc
//! or Ctrl-X that can open an editor, text after the cursor in zsh/fish) asks
//! ([`CallFacts::UnreadLine`]). A refused call takes its typing back with Ctrl-C. Inside a
//! running program (not at a prompt) send_input is decided on its text, as before.

use super::{Action, Prepared, ToolContext};
use crate::output::{TextLimits, cap_text_around};
use crate::policy::CallFacts;
use crate::terminal::{PromptInput, StagedInput, Terminal};
use kaiport_protocol::ApprovalPreview;
use kaiport_protocol::tools::{ReadScreenParams, RunCommandParams, SendInputParams};
use serde_json::Value;
use std::time::Duration;

pub(super) fn prepare_run_command(params: RunCommandParams) -> Prepared {
    Prepared {
        facts: CallFacts::Command {
            line: params.command.clone(),
        },
        preview: Some(ApprovalPreview::Command {
            command: params.command.clone(),
        }),
        action: Action::RunCommand(params),
    }
}

/// send_input once prepared: the call and what [`Terminal::stage_input`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedInput {
    staged: StagedInput,
}

pub(super) async fn prepare_send_input(
    params: SendInputParams,
    context: &ToolContext<'_>,
) -> Result<Prepared, String> {
    let mut shown = params.text.clone().unwrap_or_default();
    if let Some(key) = params.key {
        let name = serde_json::to_value(key)
            .ok()
            .and_then(|value| value.as_str().map(str::to_owned))
            .unwrap_or_default();
        shown.push_str(&format!("<{name}>"));
    }
    let staged = terminal(context)?
        .stage_input(params.text.as_deref(), params.key)
        .await
        .map_err(|error| error.to_string())?;
    let text = params.text.clone().unwrap_or_default();
    let (facts, preview) = match &staged.found {
        PromptInput::NotAtPrompt | PromptInput::NothingRuns => (
            CallFacts::TerminalInput { text },
            ApprovalPreview::Text { text: shown },
        ),
        PromptInput::Runs { line } => (
            CallFacts::Command { line: line.clone() },
            ApprovalPreview::Command {
                command: line.clone(),
            },
        ),
        PromptInput::Unknown { reason } => (
            CallFacts::UnreadLine {
                text,
                reason: format!("at the shell prompt, {reason}"),
            },
            ApprovalPreview::Text { text: shown },
        ),
    };
    Ok(Prepared {
        facts,
        preview: Some(preview),
        action: Action::SendInput(Box::new(PlannedInput { staged })),
    })
}

/// A send_input that will not run: take back what preparing it typed.
pub(super) async fn abandon_send_input(planned: &PlannedInput, context: &ToolContext<'_>) {
    if let Ok(terminal) = terminal(context) {
        terminal.abandon_staged(&planned.staged).await;
    }
}

pub(super) fn prepare_read_screen(params: ReadScreenParams) -> Prepared {
    Prepared {
        facts: CallFacts::Read { contents: false },
        preview: None,
        action: Action::ReadScreen(params),
    }
}

fn terminal<'a>(context: &'a ToolContext<'_>) -> Result<&'a Terminal, String> {
    context
        .resources
        .terminal
        .as_ref()
        .ok_or_else(|| "this tab has no terminal".to_owned())
}

pub(super) async fn run_command(
    params: RunCommandParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let settings = context.settings;
    let timeout = Duration::from_secs(u64::from(
        params.timeout_s.unwrap_or(settings.command_timeout_s),
    ));
    let mut result = terminal(context)?
        .run_command(&params.command, timeout, context.cancel.clone())
        .await
        .map_err(|error| error.to_string())?;
    let limits = TextLimits {
        max_bytes: settings.output_limit_kb as usize * 1024,
        max_lines: settings.output_limit_lines as usize,
    };
    // The terminal's own gap (output it did not keep) counts in the one "left out" line.
    let (output, truncated) = cap_text_around(&result.output, limits, result.truncated.take());
    result.output = output;
    result.truncated = truncated;
    super::to_value(&result)
}

pub(super) async fn send_input(
    planned: PlannedInput,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let screen = terminal(context)?
        .send_staged(&planned.staged)
        .await
        .map_err(|error| error.to_string())?;
    super::to_value(&screen)
}

pub(super) async fn read_screen(
    params: ReadScreenParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let wait = Duration::from_secs(u64::from(params.wait_seconds.unwrap_or(0)));
    let screen = terminal(context)?
        .read_screen(wait, context.cancel.clone())
        .await
        .map_err(|error| error.to_string())?;
    super::to_value(&screen)
}
