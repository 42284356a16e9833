//! delete: a file, or a folder (with everything in it only when asked to); always asks the user.

use super::super::tool::Tool;
use super::super::{Prepared, ToolContext};
use super::{OpFound, op_change, prepare_one};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{DeleteParams, PlanOp, ToolName};

pub(crate) struct Delete;

impl Tool for Delete {
    const NAME: ToolName = ToolName::Delete;
    const DESCRIPTION: &'static str = "Delete a file or folder; a non-empty folder only with recursive: true. Always asks the user.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = DeleteParams;
    type Found = OpFound;

    fn facts(params: &DeleteParams, found: Option<&OpFound>) -> CallFacts {
        let op = PlanOp::Delete {
            path: params.path.clone(),
            side: params.side,
            recursive: params.recursive,
        };
        CallFacts::Changes {
            changes: vec![op_change(&op, found)],
        }
    }

    async fn prepare(params: DeleteParams, context: &ToolContext<'_>) -> Result<Prepared, String> {
        prepare_one(
            Self::NAME,
            PlanOp::Delete {
                path: params.path,
                side: params.side,
                recursive: params.recursive,
            },
            context,
        )
        .await
    }
}
