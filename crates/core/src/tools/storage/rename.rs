//! rename: rename or move a file or folder within one side of a storage tab, or on a terminal
//! tab's host; folders are never merged or replaced.

use super::super::tool::Tool;
use super::super::{Prepared, ToolContext};
use super::{OpFound, op_change, prepare_one};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{PlanOp, RenameParams, ToolName};

pub(crate) struct Rename;

impl Tool for Rename {
    const NAME: ToolName = ToolName::Rename;
    const DESCRIPTION: &'static str = "Rename or move a file or folder within one side.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = RenameParams;
    type Found = OpFound;

    fn facts(params: &RenameParams, found: Option<&OpFound>) -> CallFacts {
        let op = PlanOp::Rename {
            from: params.from.clone(),
            to: params.to.clone(),
            side: params.side,
        };
        CallFacts::Changes {
            changes: vec![op_change(&op, found)],
        }
    }

    async fn prepare(params: RenameParams, context: &ToolContext<'_>) -> Result<Prepared, String> {
        prepare_one(
            Self::NAME,
            PlanOp::Rename {
                from: params.from,
                to: params.to,
                side: params.side,
            },
            context,
        )
        .await
    }
}
