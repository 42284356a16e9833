//! folder_report: statistics of a folder tree from metadata only.

use super::super::tool::Tool;
use super::super::{Action, Prepared, ToolContext, to_value};
use super::{access, check_path, walk};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{FolderReportParams, ToolName};
use serde_json::Value;

pub(crate) struct FolderReport;

impl Tool for FolderReport {
    const NAME: ToolName = ToolName::FolderReport;
    const DESCRIPTION: &'static str = "Statistics of a folder tree from metadata only: counts, sizes by type and extension, ages, largest, \
         oldest, newest, possible duplicates, empty folders, clean-up candidates.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = FolderReportParams;
    type Found = ();

    fn check(params: &FolderReportParams) -> Result<(), String> {
        check_path(Self::NAME, &params.path)
    }

    fn facts(_: &FolderReportParams, _: Option<&()>) -> CallFacts {
        CallFacts::Read { contents: false }
    }

    async fn prepare(params: FolderReportParams, _: &ToolContext<'_>) -> Result<Prepared, String> {
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: None,
            action: Action::FolderReport(params),
        })
    }
}

pub(crate) async fn execute(
    params: FolderReportParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let files = access(context, params.side).await?;
    to_value(&walk::folder_report(files.as_ref(), &params, chrono::Utc::now().timestamp()).await?)
}
