//! make_dir: create a folder on one side of a storage tab, or on a terminal tab's host.

use super::super::tool::Tool;
use super::super::{Prepared, ToolContext};
use super::{OpFound, op_change, prepare_one};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{MakeDirParams, PlanOp, ToolName};

pub(crate) struct MakeDir;

impl Tool for MakeDir {
    const NAME: ToolName = ToolName::MakeDir;
    const DESCRIPTION: &'static str =
        "Create a folder (with missing parents where the service can).";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = MakeDirParams;
    type Found = OpFound;

    fn facts(params: &MakeDirParams, found: Option<&OpFound>) -> CallFacts {
        let op = PlanOp::MakeDir {
            path: params.path.clone(),
            side: params.side,
        };
        CallFacts::Changes {
            changes: vec![op_change(&op, found)],
        }
    }

    async fn prepare(params: MakeDirParams, context: &ToolContext<'_>) -> Result<Prepared, String> {
        prepare_one(
            Self::NAME,
            PlanOp::MakeDir {
                path: params.path,
                side: params.side,
            },
            context,
        )
        .await
    }
}
