//! download: one file from storage into a folder on the user's computer.

use super::super::tool::Tool;
use super::super::{Prepared, ToolContext};
use super::{OpFound, op_change, prepare_one};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{DownloadParams, PlanOp, ToolName};

pub(crate) struct Download;

impl Tool for Download {
    const NAME: ToolName = ToolName::Download;
    const DESCRIPTION: &'static str =
        "Copy one file from storage into a folder on the user's computer.";
    const TABS: &'static [TabKind] = &[TabKind::Storage];
    /// An SSH tab's file pane moves files between its server and this computer.
    const USER_TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = DownloadParams;
    type Found = OpFound;

    fn facts(params: &DownloadParams, found: Option<&OpFound>) -> CallFacts {
        let op = PlanOp::Download {
            remote_path: params.remote_path.clone(),
            local_dir: params.local_dir.clone(),
        };
        CallFacts::Changes {
            changes: vec![op_change(&op, found)],
        }
    }

    async fn prepare(
        params: DownloadParams,
        context: &ToolContext<'_>,
    ) -> Result<Prepared, String> {
        prepare_one(
            Self::NAME,
            PlanOp::Download {
                remote_path: params.remote_path,
                local_dir: params.local_dir,
            },
            context,
        )
        .await
    }
}
