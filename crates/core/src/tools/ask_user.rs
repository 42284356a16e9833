//! ask_user: a question for the user with up to 5 suggested answers. The engine shows it and
//! waits; only the user answers it, in every mode.

use super::tool::Tool;
use super::{Action, Prepared, ToolContext};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{AskUserParams, ToolName};

/// Maximum ask_user options.
pub const MAX_QUESTION_OPTIONS: usize = 5;

pub(crate) struct AskUser;

impl Tool for AskUser {
    const NAME: ToolName = ToolName::AskUser;
    const DESCRIPTION: &'static str = "Ask the user a question with up to 5 suggested answers; they may type their own. Never answered \
             automatically. For decisions and facts only the user has — never to ask permission for a call \
             (the approval card does that) and never for a password or other secret (answers are kept in the \
             history and the audit log).";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = AskUserParams;
    type Found = ();

    fn check(params: &AskUserParams) -> Result<(), String> {
        if params.question.trim().is_empty() {
            return Err("ask_user: `question` is empty".to_owned());
        }
        if params.options.len() > MAX_QUESTION_OPTIONS {
            return Err(format!(
                "ask_user: at most {MAX_QUESTION_OPTIONS} options, not {}; the user can always type their own answer",
                params.options.len()
            ));
        }
        Ok(())
    }

    fn facts(_: &AskUserParams, _: Option<&()>) -> CallFacts {
        CallFacts::Interaction
    }

    async fn prepare(params: AskUserParams, _: &ToolContext<'_>) -> Result<Prepared, String> {
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: None,
            action: Action::AskUser(params),
        })
    }
}
