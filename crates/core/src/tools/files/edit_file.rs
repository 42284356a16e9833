//! edit_file: exact replacements in a text file, all or none; the preview is a unified diff.
//! The file must have been read and be unchanged since.

use super::super::tool::Tool;
use super::super::{Action, Prepared, ToolContext};
use super::{
    Found, PlannedWrite, WriteSite, change_facts, check_path, count_changes, current_text,
    fs_message, hash, owner_of, plan_backup, side, text, unified_diff, write_site,
};
use crate::policy::{CallFacts, ChangeKind};
use kaiport_protocol::tools::{EditFileParams, ToolName};
use kaiport_protocol::{ApprovalPreview, TabKind};

pub(crate) struct EditFile;

impl Tool for EditFile {
    const NAME: ToolName = ToolName::EditFile;
    const DESCRIPTION: &'static str = "Change parts of a text file by exact replacement: each old_text must occur exactly once unless \
         replace_all. All edits apply or none. Prefer this over write_file for existing files; read the file \
         first and copy old_text exactly. `why`: one sentence for the user's approval card.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = EditFileParams;
    type Found = Found;

    fn check(params: &EditFileParams) -> Result<(), String> {
        check_path(Self::NAME, &params.path)?;
        if params.edits.is_empty() {
            return Err(
                "edit_file: `edits` is empty; give at least one {old_text, new_text}".to_owned(),
            );
        }
        Ok(())
    }

    /// Unseen, the edit lands on the path as given.
    fn facts(params: &EditFileParams, found: Option<&Found>) -> CallFacts {
        change_facts(&params.path, params.side, ChangeKind::Edit, found)
    }

    async fn prepare(
        params: EditFileParams,
        context: &ToolContext<'_>,
    ) -> Result<Prepared, String> {
        const TOOL: ToolName = ToolName::EditFile;
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
        let found = match existing {
            Ok(Some(found)) => found,
            Ok(None) => {
                return Err(format!(
                    "edit_file: {path} does not exist; create it with write_file"
                ));
            }
            Err(error) => return Err(fs_message(TOOL, &error)),
        };
        let (target, resolved) = resolution?;
        let sudo = params.sudo.unwrap_or(false);
        let root = sudo.then_some(context);
        let raw = current_text(TOOL, tab, files.as_ref(), path, &found, false, root).await?;
        if text::looks_binary(&raw) {
            return Err(format!(
                "edit_file: {path} is a binary file; it cannot be edited"
            ));
        }
        let before = String::from_utf8(raw.clone()).map_err(|_| {
            format!(
                "edit_file: {path} is not valid UTF-8; editing it could damage it, so nothing was changed"
            )
        })?;
        let after = text::apply_edits(&before, &params.edits)?;
        let (lines_added, lines_removed) = count_changes(&before, &after);
        let unified = unified_diff(path, &before, &after);
        let backup = plan_backup(files.as_ref(), context, Some(&found), sudo).await;
        Ok(Prepared {
            facts: Self::facts(
                &params,
                Some(&Found {
                    kind: ChangeKind::Edit,
                    resolved,
                }),
            ),
            preview: Some(ApprovalPreview::Diff {
                path: params.path.clone(),
                unified,
                new_file: false,
                backup: backup.card_line(),
            }),
            action: Action::WriteFile(Box::new(PlannedWrite {
                tool: TOOL,
                side: side(params.side),
                path: params.path,
                target,
                content: after.into_bytes(),
                before: Some(found.stamp()),
                before_hash: Some(hash(&raw)),
                owner: owner_of(&found),
                sudo,
                backup,
                existing: Some(found),
                edits_applied: params.edits.len() as u32,
                lines_added,
                lines_removed,
            })),
        })
    }
}
