//! list_dir: a folder's entries (name, type, size, modified, permissions). Reads metadata only;
//! with `sudo` (terminal tabs), a folder only root may open, listed as root (`sudo::list_as_root`).
//! Pilot gets at most [`walk::MAX_LIST_ENTRIES`] entries (its context); the user's own pane gets
//! the whole folder, up to [`walk::MAX_USER_LIST_ENTRIES`]. The tool's description and result
//! shape are the model's and must not change with the caller.

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
        check_path(Self::NAME, &params.path)?;
        if params.sudo == Some(true) && params.side == Some(kaiport_protocol::tools::Side::Local) {
            return Err("list_dir: sudo lists the server's folders only".to_owned());
        }
        Ok(())
    }

    fn facts(params: &ListDirParams, _: Option<&()>) -> CallFacts {
        match params.sudo {
            Some(true) => CallFacts::ListAsRoot {
                path: params.path.clone(),
            },
            _ => CallFacts::Read { contents: false },
        }
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
    let limit = walk::list_limit(context.by_user);
    if params.sudo == Some(true) {
        let listed = super::sudo::list_as_root(&params.path, context).await?;
        return to_value(&walk::root_listing(&params.path, &listed, limit)?);
    }
    let tab = tab_files(context, params.side)?;
    let files = tab.access().await?;
    let login = tab.login().await;
    to_value(&walk::list_dir(files.as_ref(), &params.path, login, limit).await?)
}
