//! run_command, send_input and read_screen: the terminal tools, executed on the tab's
//! [`Terminal`]. Output for the model is capped here; the terminal itself shows everything.

use super::{Action, Prepared, ToolContext};
use crate::output::{TextLimits, cap_text};
use crate::policy::CallFacts;
use crate::terminal::Terminal;
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

pub(super) fn prepare_send_input(params: SendInputParams) -> Prepared {
    let mut shown = params.text.clone().unwrap_or_default();
    if let Some(key) = params.key {
        let name = serde_json::to_value(key)
            .ok()
            .and_then(|value| value.as_str().map(str::to_owned))
            .unwrap_or_default();
        shown.push_str(&format!("<{name}>"));
    }
    Prepared {
        facts: CallFacts::TerminalInput {
            text: params.text.clone().unwrap_or_default(),
        },
        preview: Some(ApprovalPreview::Text { text: shown }),
        action: Action::SendInput(params),
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
    let (output, truncated) = cap_text(&result.output, limits);
    result.output = output;
    result.truncated = truncated;
    super::to_value(&result)
}

pub(super) async fn send_input(
    params: SendInputParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let screen = terminal(context)?
        .send_input(params.text.as_deref(), params.key)
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
