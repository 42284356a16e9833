//! propose_plan (plan mode): one plan for the user to approve. The engine's plan book keeps it;
//! the policy always asks, and only a person's approval approves it.

use super::tool::Tool;
use super::{Action, Prepared, ToolContext};
use crate::policy::CallFacts;
use kaiport_protocol::tools::{ProposePlanParams, ToolName};
use kaiport_protocol::{ApprovalPreview, TabKind};

/// Most steps in one plan.
pub const MAX_PLAN_STEPS: usize = 30;

pub(crate) struct ProposePlan;

impl Tool for ProposePlan {
    const NAME: ToolName = ToolName::ProposePlan;
    const DESCRIPTION: &'static str = "Plan mode only, once: propose a plan (title, findings, up to 30 steps) for the user to approve.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal];
    type Params = ProposePlanParams;
    type Found = ();

    fn check(params: &ProposePlanParams) -> Result<(), String> {
        if params.title.trim().is_empty() {
            return Err("propose_plan: `title` is empty".to_owned());
        }
        if params.steps.is_empty() {
            return Err("propose_plan: a plan needs at least one step".to_owned());
        }
        if params.steps.len() > MAX_PLAN_STEPS {
            return Err(format!(
                "propose_plan: at most {MAX_PLAN_STEPS} steps, not {}; merge small steps",
                params.steps.len()
            ));
        }
        if let Some(index) = params
            .steps
            .iter()
            .position(|step| step.title.trim().is_empty())
        {
            return Err(format!(
                "propose_plan: step {} has an empty title",
                index + 1
            ));
        }
        Ok(())
    }

    fn facts(params: &ProposePlanParams, _: Option<&()>) -> CallFacts {
        CallFacts::ProposePlan {
            steps: params.steps.len(),
        }
    }

    async fn prepare(params: ProposePlanParams, _: &ToolContext<'_>) -> Result<Prepared, String> {
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: Some(ApprovalPreview::Operations {
                lines: params
                    .steps
                    .iter()
                    .enumerate()
                    .map(|(index, step)| format!("{}. {}", index + 1, step.title))
                    .collect(),
            }),
            action: Action::ProposePlan(params),
        })
    }
}
