//! send_input: keys into the terminal without waiting for a prompt. At a shell prompt the keys
//! before Enter are staged first and the line Enter would run is what the policy decides on
//! (see the parent module's docs).

use super::super::tool::Tool;
use super::super::{Action, Prepared, ToolContext, to_value};
use super::{PlannedInput, terminal};
use crate::policy::CallFacts;
use crate::terminal::PromptInput;
use kaiport_protocol::tools::{Key, SendInputParams, ToolName};
use kaiport_protocol::{ApprovalPreview, TabKind};
use serde_json::Value;

pub(crate) struct SendInput;

impl Tool for SendInput {
    const NAME: ToolName = ToolName::SendInput;
    const DESCRIPTION: &'static str = "Send text and/or one special key to the terminal without waiting for a prompt: answer a question, \
             quit a program or pager (`q`, key esc or ctrl-c), move in a full-screen program. Never a password, \
             passphrase or other secret: only the user types those. Returns the screen once output settles (at \
             most 2 s). `why`: one sentence for the user's approval card.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal];
    type Params = SendInputParams;
    /// What staging the keys found at the terminal.
    type Found = PromptInput;

    fn check(params: &SendInputParams) -> Result<(), String> {
        if params.text.as_deref().is_none_or(str::is_empty) && params.key.is_none() {
            return Err("send_input: give `text`, `key`, or both".to_owned());
        }
        Ok(())
    }

    /// Unseen, the keys are judged as typed text (which the policy reads as a possible command
    /// line).
    fn facts(params: &SendInputParams, found: Option<&PromptInput>) -> CallFacts {
        let text = params.text.clone().unwrap_or_default();
        let leaves = matches!(
            (params.text.as_deref(), params.key),
            (Some("q"), None) | (None, Some(Key::Esc | Key::CtrlC))
        );
        match found {
            Some(PromptInput::NotAtPrompt) if leaves => CallFacts::LeaveProgram { text },
            None | Some(PromptInput::NotAtPrompt | PromptInput::NothingRuns) => {
                CallFacts::TerminalInput { text }
            }
            Some(PromptInput::Runs { line }) => CallFacts::Command { line: line.clone() },
            Some(PromptInput::Unknown { reason }) => CallFacts::UnreadLine {
                text,
                reason: format!("at the shell prompt, {reason}"),
            },
        }
    }

    async fn prepare(
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
        let facts = Self::facts(&params, Some(&staged.found));
        let preview = match &staged.found {
            PromptInput::Runs { line } => ApprovalPreview::Command {
                command: line.clone(),
            },
            _ => ApprovalPreview::Text { text: shown },
        };
        Ok(Prepared {
            facts,
            preview: Some(preview),
            action: Action::SendInput(Box::new(PlannedInput { staged })),
        })
    }
}

pub(crate) async fn execute(
    planned: PlannedInput,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let screen = terminal(context)?
        .send_staged(&planned.staged)
        .await
        .map_err(|error| error.to_string())?;
    to_value(&screen)
}
