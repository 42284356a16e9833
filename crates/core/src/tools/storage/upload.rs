//! upload: one file from the user's computer into a storage folder.

use super::super::tool::Tool;
use super::super::{Prepared, ToolContext};
use super::{OpFound, op_change, prepare_one};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{PlanOp, ToolName, UploadParams};

pub(crate) struct Upload;

impl Tool for Upload {
    const NAME: ToolName = ToolName::Upload;
    const DESCRIPTION: &'static str =
        "Copy one file from the user's computer into a storage folder.";
    const TABS: &'static [TabKind] = &[TabKind::Storage];
    /// An SSH tab's file pane moves files between its server and this computer.
    const USER_TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = UploadParams;
    type Found = OpFound;

    fn facts(params: &UploadParams, found: Option<&OpFound>) -> CallFacts {
        let op = PlanOp::Upload {
            local_path: params.local_path.clone(),
            remote_dir: params.remote_dir.clone(),
        };
        CallFacts::Changes {
            changes: vec![op_change(&op, found)],
        }
    }

    async fn prepare(params: UploadParams, context: &ToolContext<'_>) -> Result<Prepared, String> {
        prepare_one(
            Self::NAME,
            PlanOp::Upload {
                local_path: params.local_path,
                remote_dir: params.remote_dir,
            },
            context,
        )
        .await
    }
}
