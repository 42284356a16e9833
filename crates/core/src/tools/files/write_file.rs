//! write_file: create a file or replace it whole; the preview is a unified diff. Replacing an
//! existing file needs a read first, and the file unchanged since.

use super::super::tool::Tool;
use super::super::{Action, Prepared, ToolContext};
use super::{
    Found, LineEnding, LineEndingInfo, PlannedWrite, WriteSite, change_facts, check_path,
    count_changes, current_text, fs_message, hash, owner_of, plan_backup, side, unified_diff,
    write_site,
};
use crate::fs::{FsErrorKind, Metadata, split_parent};
use crate::policy::{CallFacts, ChangeKind};
use kaiport_protocol::tools::{EntryKind, ToolName, WriteFileParams};
use kaiport_protocol::{ApprovalPreview, TabKind};

pub(crate) struct WriteFile;

impl Tool for WriteFile {
    const NAME: ToolName = ToolName::WriteFile;
    const DESCRIPTION: &'static str = "Create a file or replace it whole. Read an existing file before replacing it. `why`: \
         one sentence for the user's approval card.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = WriteFileParams;
    type Found = Found;

    fn check(params: &WriteFileParams) -> Result<(), String> {
        check_path(Self::NAME, &params.path)
    }

    /// Unseen, the file exists and is replaced.
    fn facts(params: &WriteFileParams, found: Option<&Found>) -> CallFacts {
        change_facts(&params.path, params.side, ChangeKind::Replace, found)
    }

    async fn prepare(
        params: WriteFileParams,
        context: &ToolContext<'_>,
    ) -> Result<Prepared, String> {
        const TOOL: ToolName = ToolName::WriteFile;
        let path = params.path.as_str();
        let WriteSite {
            tab,
            files,
            existing,
            target: resolution,
        } = write_site(
            TOOL,
            context,
            params.side,
            path,
            params.sudo.unwrap_or(false),
        )
        .await?;
        let existing = existing.map_err(|error| fs_message(TOOL, &error))?;
        let (kind, before_text, before_hash, content) = match &existing {
            Some(found) => {
                let root = params.sudo.unwrap_or(false).then_some(context);
                let raw = current_text(TOOL, tab, files.as_ref(), path, found, true, root).await?;
                let before = String::from_utf8_lossy(&raw).into_owned();
                // A CRLF file stays CRLF when the model writes plain newlines.
                let content = match LineEndingInfo::of(&raw).ending {
                    LineEnding::Crlf if !params.content.contains('\r') => {
                        params.content.replace('\n', "\r\n")
                    }
                    _ => params.content.clone(),
                };
                (ChangeKind::Replace, before, Some(hash(&raw)), content)
            }
            None => {
                let (parent, _) = split_parent(path);
                match files.metadata(parent).await {
                    Ok(found) if found.kind == EntryKind::Dir => {}
                    Ok(_) => return Err(format!("write_file: {parent} is not a folder")),
                    Err(error) if error.kind == FsErrorKind::NotFound => {
                        return Err(format!(
                            "write_file: the folder {parent} does not exist; create it first (e.g. mkdir -p with run_command)"
                        ));
                    }
                    Err(error) => return Err(fs_message(TOOL, &error)),
                }
                (
                    ChangeKind::Create,
                    String::new(),
                    None,
                    params.content.clone(),
                )
            }
        };
        let (target, resolved) = resolution?;
        let unified = unified_diff(path, &before_text, &content);
        let (lines_added, lines_removed) = count_changes(&before_text, &content);
        let new_file = kind == ChangeKind::Create;
        let sudo = params.sudo.unwrap_or(false);
        let backup = plan_backup(files.as_ref(), context, existing.as_ref(), sudo).await;
        Ok(Prepared {
            facts: Self::facts(&params, Some(&Found { kind, resolved })),
            preview: Some(ApprovalPreview::Diff {
                path: params.path.clone(),
                unified,
                new_file,
                backup: backup.card_line(),
            }),
            action: Action::WriteFile(Box::new(PlannedWrite {
                tool: TOOL,
                side: side(params.side),
                path: params.path,
                target,
                content: content.into_bytes(),
                before: existing.as_ref().map(Metadata::stamp),
                before_hash,
                owner: existing.as_ref().and_then(owner_of),
                sudo,
                backup,
                existing,
                edits_applied: 0,
                lines_added,
                lines_removed,
            })),
        })
    }
}
