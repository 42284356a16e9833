//! read_screen: the text visible in the terminal now, after an optional wait, and with
//! `since_command` the last run_command's output since it started (capped here like
//! run_command's). Reads only.

use super::super::tool::Tool;
use super::super::{Action, Prepared, ToolContext, to_value};
use super::terminal;
use crate::output::{TextLimits, cap_text_around};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{ReadScreenParams, ToolName};
use serde_json::Value;
use std::time::Duration;

/// Maximum read_screen wait.
pub const MAX_READ_SCREEN_WAIT_S: u32 = 120;

pub(crate) struct ReadScreen;

impl Tool for ReadScreen {
    const NAME: ToolName = ToolName::ReadScreen;
    const DESCRIPTION: &'static str = "Return the text visible in the terminal now, after waiting wait_seconds (0-120): follow a \
             long-running command, an interactive program, or something the user did. With since_command: true, \
             also everything the last command you started with run_command printed since it started (while it \
             runs, or after it timed out or waited for input), not only what fits on the screen, capped like \
             run_command's output, and whether it has ended with its exit code. After run_command's \
             awaiting_secret the wait ends as soon as the password prompt is gone.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal];
    type Params = ReadScreenParams;
    type Found = ();

    fn check(params: &ReadScreenParams) -> Result<(), String> {
        match params.wait_seconds {
            Some(wait) if wait > MAX_READ_SCREEN_WAIT_S => Err(format!(
                "read_screen: wait_seconds must be from 0 to {MAX_READ_SCREEN_WAIT_S}, not {wait}"
            )),
            _ => Ok(()),
        }
    }

    fn facts(_: &ReadScreenParams, _: Option<&()>) -> CallFacts {
        CallFacts::Read { contents: false }
    }

    async fn prepare(params: ReadScreenParams, _: &ToolContext<'_>) -> Result<Prepared, String> {
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: None,
            action: Action::ReadScreen(params),
        })
    }
}

pub(crate) async fn execute(
    params: ReadScreenParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let wait = Duration::from_secs(u64::from(params.wait_seconds.unwrap_or(0)));
    let terminal = terminal(context)?;
    let mut screen = terminal
        .read_screen(wait, context.cancel.clone())
        .await
        .map_err(|error| error.to_string())?;
    if params.since_command == Some(true) {
        let Some(mut command) = terminal.command_so_far() else {
            return Err(
                "read_screen: since_command: no command was run with run_command in this terminal \
                 since it connected; read_screen without since_command shows the screen"
                    .to_owned(),
            );
        };
        let settings = context.settings;
        let limits = TextLimits {
            max_bytes: settings.output_limit_kb as usize * 1024,
            max_lines: settings.output_limit_lines as usize,
        };
        let (output, truncated) = cap_text_around(&command.output, limits, command.truncated);
        command.output = output;
        command.truncated = truncated;
        screen.command = Some(command);
    }
    to_value(&screen)
}
