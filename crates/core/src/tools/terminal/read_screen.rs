//! read_screen: the text visible in the terminal now, after an optional wait. Reads only.

use super::super::tool::Tool;
use super::super::{Action, Prepared, ToolContext, to_value};
use super::terminal;
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
             long-running command, an interactive program, or something the user did.";
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
    let screen = terminal(context)?
        .read_screen(wait, context.cancel.clone())
        .await
        .map_err(|error| error.to_string())?;
    to_value(&screen)
}
