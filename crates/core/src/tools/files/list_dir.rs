//! list_dir: a folder's entries (name, type, size, modified, permissions). Reads metadata only.

use super::super::tool::Tool;
use super::super::{Action, Prepared, ToolContext, to_value};
use super::{check_path, tab_files, walk};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{ListDirParams, ToolName};
use serde_json::Value;

pub(crate) struct ListDir;

impl Tool for ListDir {
    const NAME: ToolName = ToolName::ListDir;
    const DESCRIPTION: &'static str =
        "List a folder: name, type, size, modified, permissions (up to 500 entries).";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = ListDirParams;
    type Found = ();

    fn check(params: &ListDirParams) -> Result<(), String> {
        check_path(Self::NAME, &params.path)
    }

    fn facts(_: &ListDirParams, _: Option<&()>) -> CallFacts {
        CallFacts::Read { contents: false }
    }

    async fn prepare(params: ListDirParams, _: &ToolContext<'_>) -> Result<Prepared, String> {
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: None,
            action: Action::ListDir(params),
        })
    }
}

pub(crate) async fn execute(
    params: ListDirParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let tab = tab_files(context, params.side)?;
    let files = tab.access().await?;
    let login = tab.login().await;
    to_value(&walk::list_dir(files.as_ref(), &params.path, login).await?)
}
