//! search_files: matching lines of text files under a folder, never whole files. Reads
//! contents, so it needs the connection's permission to send them.

use super::super::tool::Tool;
use super::super::{Action, Prepared, ToolContext, to_value};
use super::{access, check_path, walk};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{SearchFilesParams, ToolName};
use serde_json::Value;

pub(crate) struct SearchFiles;

impl Tool for SearchFiles {
    const NAME: ToolName = ToolName::SearchFiles;
    const DESCRIPTION: &'static str = "Search text files under a folder for a regex or literal; returns matching lines with path and line \
         number (at most 100), never whole files. Needs the content permission.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = SearchFilesParams;
    type Found = ();

    fn check(params: &SearchFilesParams) -> Result<(), String> {
        check_path(Self::NAME, &params.path)
    }

    fn facts(_: &SearchFilesParams, _: Option<&()>) -> CallFacts {
        CallFacts::Read { contents: true }
    }

    async fn prepare(params: SearchFilesParams, _: &ToolContext<'_>) -> Result<Prepared, String> {
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: None,
            action: Action::SearchFiles(params),
        })
    }
}

pub(crate) async fn execute(
    params: SearchFilesParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let files = access(context, params.side).await?;
    let limit = u64::from(context.settings.file_limit_kb) * 1024;
    to_value(&walk::search_files(files.as_ref(), &params, limit).await?)
}
