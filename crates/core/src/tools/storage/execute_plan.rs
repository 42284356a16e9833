//! execute_plan: up to 200 storage operations after one approval, stopping at the first error.
//! Malformed operations are left out (and reported); the rest are checked leniently, since
//! earlier operations may make what later ones use.

use super::super::tool::Tool;
use super::super::{Prepared, ToolContext};
use super::{MAX_PLAN_OPS, op_change, prepare_plan};
use crate::policy::{CallFacts, FileChange};
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{ExecutePlanParams, PlanOp, ToolName};

pub(crate) struct ExecutePlan;

impl Tool for ExecutePlan {
    const NAME: ToolName = ToolName::ExecutePlan;
    const DESCRIPTION: &'static str =
        "Run up to 200 storage operations after one approval; stops at the first error.";
    const TABS: &'static [TabKind] = &[TabKind::Storage];
    /// An SSH tab's file pane moves files between its server and this computer.
    const USER_TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = ExecutePlanParams;
    /// The changes of the operations that passed their checks.
    type Found = Vec<FileChange>;

    fn check(params: &ExecutePlanParams) -> Result<(), String> {
        if params.ops.len() > MAX_PLAN_OPS {
            return Err(format!(
                "execute_plan: at most {MAX_PLAN_OPS} operations, not {}; split the plan",
                params.ops.len()
            ));
        }
        Ok(())
    }

    /// Unseen, every operation that parses is judged with the stricter answers (the malformed
    /// ones never run).
    fn facts(params: &ExecutePlanParams, found: Option<&Vec<FileChange>>) -> CallFacts {
        let changes = match found {
            Some(changes) => changes.clone(),
            None => params
                .ops
                .iter()
                .filter_map(|raw| serde_json::from_value::<PlanOp>(raw.clone()).ok())
                .map(|op| op_change(&op, None))
                .collect(),
        };
        CallFacts::Changes { changes }
    }

    async fn prepare(
        params: ExecutePlanParams,
        context: &ToolContext<'_>,
    ) -> Result<Prepared, String> {
        prepare_plan(params, context).await
    }
}
