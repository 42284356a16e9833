//! find_files: files and folders under a folder by metadata only (name glob, type, size,
//! modified).

use super::super::tool::Tool;
use super::super::{Action, Prepared, ToolContext, to_value};
use super::{access, check_path, walk};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{FindFilesParams, ToolName};
use serde_json::Value;

pub(crate) struct FindFiles;

impl Tool for FindFiles {
    const NAME: ToolName = ToolName::FindFiles;
    const DESCRIPTION: &'static str =
        "Find files and folders under a folder by metadata only (name glob, type, size, modified).";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = FindFilesParams;
    type Found = ();

    fn check(params: &FindFilesParams) -> Result<(), String> {
        check_path(Self::NAME, &params.path)
    }

    fn facts(_: &FindFilesParams, _: Option<&()>) -> CallFacts {
        CallFacts::Read { contents: false }
    }

    async fn prepare(params: FindFilesParams, _: &ToolContext<'_>) -> Result<Prepared, String> {
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: None,
            action: Action::FindFiles(params),
        })
    }
}

pub(crate) async fn execute(
    params: FindFilesParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let files = access(context, params.side).await?;
    to_value(&walk::find_files(files.as_ref(), &params).await?)
}
