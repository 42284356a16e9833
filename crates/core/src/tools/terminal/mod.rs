//! run_command, send_input and read_screen (one file each): the terminal tools, executed on
//! the tab's [`Terminal`]. Output for the model is capped here; the terminal itself shows
//! everything.
//!
//! **At a shell prompt, whatever Enter will run is judged as a command line** (docs/policy.md).
//! send_input's keys can edit a line into a forbidden command (`m /tmp/v`, Ctrl-A, `r`, Enter
//! runs `rm /tmp/v`), so at a prompt send_input is prepared by [`Terminal::stage_input`]: the
//! keys before Enter are typed, the resulting line is read off the screen (once the shell shows
//! it has read every key, not after a quiet moment: a slow shell shows half) and decided like
//! run_command's line ([`CallFacts::Command`]); Enter is pressed only once that allows it, and
//! only if the line is still the same. A line that cannot be read first (keys after Enter, Esc
//! or Ctrl-X that can open an editor, text after the cursor in zsh/fish) asks
//! ([`CallFacts::UnreadLine`]). A refused call takes its typing back with Ctrl-C. Inside a
//! running program (not at a prompt) send_input is decided on its text, as before.

pub(super) mod read_screen;
pub(super) mod run_command;
pub(super) mod send_input;

use super::ToolContext;
use crate::terminal::{StagedInput, Terminal};

/// send_input once prepared: the call and what [`Terminal::stage_input`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedInput {
    staged: StagedInput,
}

/// A send_input that will not run: take back what preparing it typed.
pub(super) async fn abandon_send_input(planned: &PlannedInput, context: &ToolContext<'_>) {
    if let Ok(terminal) = terminal(context) {
        terminal.abandon_staged(&planned.staged).await;
    }
}

pub(super) fn terminal<'a>(context: &'a ToolContext<'_>) -> Result<&'a Terminal, String> {
    context
        .resources
        .terminal
        .as_ref()
        .ok_or_else(|| "this tab has no terminal".to_owned())
}
