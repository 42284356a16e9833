//! update_plan: a plan step's status (no approval), or an added step, which waits for the user's
//! confirmation. The engine's plan book keeps it.

use super::tool::Tool;
use super::{Action, Prepared, ToolContext};
use crate::policy::CallFacts;
use kaiport_protocol::tools::{PlanStepStatus, ToolName, UpdatePlanParams};
use kaiport_protocol::{ApprovalPreview, TabKind};

pub(crate) struct UpdatePlan;

impl Tool for UpdatePlan {
    const NAME: ToolName = ToolName::UpdatePlan;
    const DESCRIPTION: &'static str = "Only once the user approved a plan (propose_plan): set a step to running, done, failed or \
             skipped with a short note, or add a step (the user confirms added steps).";
    const TABS: &'static [TabKind] = &[TabKind::Terminal];
    type Params = UpdatePlanParams;
    type Found = ();

    /// A status change or an added step, not both, not neither.
    fn check(params: &UpdatePlanParams) -> Result<(), String> {
        match (&params.add, params.step, params.status) {
            (Some(step), None, None) if !step.title.trim().is_empty() => Ok(()),
            (Some(_), None, None) => Err("update_plan: the added step's title is empty".to_owned()),
            (None, Some(_), Some(PlanStepStatus::Pending)) => Err(
                "update_plan: status must be running, done, failed or skipped".to_owned(),
            ),
            (None, Some(step), Some(_)) if step >= 1 => Ok(()),
            (None, Some(_), Some(_)) => Err("update_plan: steps are numbered from 1".to_owned()),
            _ => Err(
                "update_plan: give either `step` with `status` (and an optional `note`), or `add` with a new step"
                    .to_owned(),
            ),
        }
    }

    fn facts(params: &UpdatePlanParams, _: Option<&()>) -> CallFacts {
        match &params.add {
            Some(step) => CallFacts::PlanStepAdded {
                title: step.title.clone(),
            },
            None => CallFacts::Plan,
        }
    }

    async fn prepare(params: UpdatePlanParams, _: &ToolContext<'_>) -> Result<Prepared, String> {
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: params.add.as_ref().map(|step| ApprovalPreview::Text {
                text: match &step.detail {
                    Some(detail) => format!("{}\n{detail}", step.title),
                    None => step.title.clone(),
                },
            }),
            action: Action::UpdatePlan(params),
        })
    }
}
