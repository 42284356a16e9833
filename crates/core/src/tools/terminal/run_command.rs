//! run_command: type a command line into the user's terminal, press Enter, wait for the prompt.
//! The line is what the policy decides on; the output for the model is capped here.

use super::super::tool::Tool;
use super::super::{Action, Prepared, ToolContext, to_value};
use super::terminal;
use crate::output::{TextLimits, cap_text_around};
use crate::policy::CallFacts;
use kaiport_protocol::tools::{RunCommandParams, ToolName};
use kaiport_protocol::{ApprovalPreview, MAX_COMMAND_TIMEOUT_S, TabKind};
use serde_json::Value;
use std::time::Duration;

pub(crate) struct RunCommand;

impl Tool for RunCommand {
    const NAME: ToolName = ToolName::RunCommand;
    const DESCRIPTION: &'static str = "Type one command line into the user's visible, interactive shell, press Enter and wait until the \
         shell shows its prompt again. One line only: no here-documents or multi-line scripts (write the script \
         with write_file, then run it). Returns status (completed; timed_out = still running, follow it with \
         read_screen; awaiting_input = the command asks something or a pager waits: answer or quit it with \
         send_input; awaiting_secret = it asks for a password: only the user types it, wait with read_screen; \
         interrupted), the output without the echoed command and prompt, exit_code (with shell integration \
         only), duration_ms and the detection method. Long output keeps its head and tail. Without an exit \
         code, append `; echo \"exit=$?\"` (`$status` in fish). timeout_s defaults to the connection's \
         command timeout (in the system prompt). `why`: one sentence for the user's approval card.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal];
    type Params = RunCommandParams;
    type Found = ();

    fn check(params: &RunCommandParams) -> Result<(), String> {
        if params.command.trim().is_empty() {
            return Err(
                "run_command: `command` is empty; give the command line to type".to_owned(),
            );
        }
        if let Some(timeout) = params.timeout_s
            && !(1..=MAX_COMMAND_TIMEOUT_S).contains(&timeout)
        {
            return Err(format!(
                "run_command: timeout_s must be from 1 to {MAX_COMMAND_TIMEOUT_S}, not {timeout}"
            ));
        }
        Ok(())
    }

    fn facts(params: &RunCommandParams, _: Option<&()>) -> CallFacts {
        CallFacts::Command {
            line: params.command.clone(),
        }
    }

    async fn prepare(params: RunCommandParams, _: &ToolContext<'_>) -> Result<Prepared, String> {
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: Some(ApprovalPreview::Command {
                command: params.command.clone(),
            }),
            action: Action::RunCommand(params),
        })
    }
}

pub(crate) async fn execute(
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
    to_value(&result)
}
