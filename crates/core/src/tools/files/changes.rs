//! list_changes and undo_change: the changes kaiport made to files on this server (their
//! records and backups are kept by `crate::backup`), and putting a file back as it was.
//!
//! An undo is a change like any other: prepared with a diff (what the file is now against what
//! it will be), decided by the policy, approved, audited, and backed up first, so it can itself
//! be undone. Changes made through sudo are undone through sudo. Nothing here logs file
//! contents.

use super::super::tool::Tool;
use super::super::{Action, Prepared, ToolContext, to_value};
use super::{MAX_READ_BYTES, access, metadata_if_exists, sudo, unified_diff};
use crate::backup::{self, Area, ChangeFacts, PlannedBackup};
use crate::fs::{FileAccess, FsErrorKind, Metadata, WriteOptions, read_whole};
use crate::policy::{CallFacts, ChangeKind, FileChange, Resolved};
use kaiport_protocol::tools::{
    ChangeAction, ChangeRecord, ListChangesParams, ListChangesResult, Side, ToolName,
    UndoChangeParams, UndoChangeResult,
};
use kaiport_protocol::{ApprovalPreview, TabKind};
use serde_json::Value;

/// The backup area of the tab's remote side, or why there is none.
async fn area_of(tool: ToolName, files: &dyn FileAccess) -> Result<Area, String> {
    Area::of(backup::raw(files).0).await.ok_or_else(|| {
        format!(
            "{tool}: this tab keeps no record of changes: {}",
            backup::NOT_SUPPORTED
        )
    })
}

pub(crate) struct ListChanges;

impl Tool for ListChanges {
    const NAME: ToolName = ToolName::ListChanges;
    const DESCRIPTION: &'static str = "List the changes kaiport made to files on this server (newest first): change id, file, \
         what was done, where the old content is kept, whether it can be undone (undo_change).";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = ListChangesParams;
    type Found = ();

    fn check(params: &ListChangesParams) -> Result<(), String> {
        match &params.path {
            Some(path) => super::check_path(Self::NAME, path),
            None => Ok(()),
        }
    }

    fn facts(_: &ListChangesParams, _: Option<&()>) -> CallFacts {
        CallFacts::Read { contents: false }
    }

    async fn prepare(params: ListChangesParams, _: &ToolContext<'_>) -> Result<Prepared, String> {
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: None,
            action: Action::ListChanges(params),
        })
    }
}

pub(crate) async fn list(
    params: ListChangesParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    const TOOL: ToolName = ToolName::ListChanges;
    let files = access(context, Some(Side::Remote)).await?;
    let area = area_of(TOOL, files.as_ref()).await?;
    let changes = backup::list(files.as_ref(), &area, params.path.as_deref())
        .await
        .map_err(|error| format!("{TOOL}: {error}"))?;
    to_value(&ListChangesResult {
        changes,
        area: area.user,
    })
}

/// What preparing an undo learned: the change's file and what the undo does to it.
pub(crate) struct UndoFound {
    path: String,
    kind: ChangeKind,
}

/// An undo made ready in prepare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedUndo {
    record: ChangeRecord,
    /// The file as it is now (`None`: absent), as the diff saw it.
    current: Option<Metadata>,
    /// Where the file's present content goes before the undo.
    backup: PlannedBackup,
}

pub(crate) struct UndoChange;

impl Tool for UndoChange {
    const NAME: ToolName = ToolName::UndoChange;
    const DESCRIPTION: &'static str = "Put a file back as it was before a change kaiport made (change ids from list_changes or a \
         result's `change`): its bytes, mode and owner, from the backup on the server. The undo is \
         itself a change that can be undone. `why`: one sentence for the user's approval card.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = UndoChangeParams;
    type Found = UndoFound;
    /// The user sees the diff and confirms every undo, in every mode.
    const ALWAYS_ASKS: bool = true;

    fn check(params: &UndoChangeParams) -> Result<(), String> {
        if backup::is_change_id(&params.change_id) {
            Ok(())
        } else {
            Err(format!(
                "undo_change: {:?} is not a change id (like 20261205T094425123Z-1a2b3c4d; see list_changes)",
                params.change_id
            ))
        }
    }

    /// Unseen, the file is not known: the change always asks.
    fn facts(_: &UndoChangeParams, found: Option<&UndoFound>) -> CallFacts {
        let change = match found {
            Some(found) => FileChange {
                path: found.path.clone(),
                side: Side::Remote,
                kind: found.kind.clone(),
                resolved: None,
            },
            None => FileChange {
                path: "/".to_owned(),
                side: Side::Remote,
                kind: ChangeKind::Replace,
                resolved: Some(Resolved::Unknown(
                    "the file is known once the change's record is read".to_owned(),
                )),
            },
        };
        CallFacts::Changes {
            changes: vec![change],
        }
    }

    async fn prepare(
        params: UndoChangeParams,
        context: &ToolContext<'_>,
    ) -> Result<Prepared, String> {
        const TOOL: ToolName = ToolName::UndoChange;
        let tab_files = access(context, Some(Side::Remote)).await?;
        // Records name the server's own paths, also in a storage tab's view of one folder.
        let (files, root) = backup::raw(tab_files.as_ref());
        let area = area_of(TOOL, files).await?;
        let record = backup::find(files, &area, &params.change_id)
            .await
            .map_err(|error| format!("{TOOL}: {error}"))?
            .ok_or_else(|| {
                format!(
                    "{TOOL}: there is no change {} on this server (see list_changes)",
                    params.change_id
                )
            })?;
        if !record.undoable {
            return Err(format!(
                "{TOOL}: change {} cannot be undone: {}",
                record.id,
                record
                    .note
                    .as_deref()
                    .unwrap_or("its old content was not kept")
            ));
        }
        if record.sudo && context.resources.terminal.is_none() && context.resources.ssh.is_none() {
            return Err(format!(
                "{TOOL}: change {} was made through sudo; undo it in a terminal tab",
                record.id
            ));
        }
        let path = record.path.as_str();
        let current = current_of(files, &record, context).await?;
        let wanted = match record.folder {
            true => (kaiport_protocol::tools::EntryKind::Dir, "a folder"),
            false => (kaiport_protocol::tools::EntryKind::File, "a regular file"),
        };
        if let Some(found) = &current
            && found.kind != wanted.0
        {
            return Err(format!(
                "{TOOL}: {path} is no longer {}; nothing was changed",
                wanted.1
            ));
        }
        if record.folder && record.action == ChangeAction::Deleted && current.is_some() {
            return Err(format!(
                "{TOOL}: {path} exists again; a folder is put back only where nothing is (move it away first); nothing was changed"
            ));
        }
        let kind = match (record.action, &current) {
            (ChangeAction::Created, Some(_)) => ChangeKind::Delete {
                recursive: record.folder,
            },
            (ChangeAction::Created, None) => {
                return Err(format!(
                    "{TOOL}: {path}, which change {} created, is already gone",
                    record.id
                ));
            }
            (_, Some(_)) => ChangeKind::Replace,
            (_, None) => ChangeKind::Create,
        };
        let limits = backup::Limits::of(context.settings);
        let planned = match (&current, record.folder) {
            // Undoing a folder's restore deletes it again, kept first as a delete is.
            (Some(found), true) => {
                let tree = crate::tools::storage::walk_tree(files, path)
                    .await
                    .map_err(|error| format!("{TOOL}: {}", error.for_model()))?;
                PlannedBackup::plan_folder(files, &limits, found, &tree).await
            }
            _ => PlannedBackup::plan(files, &limits, current.as_ref(), record.sudo).await,
        };
        let preview = match record.folder {
            true => folder_undo_preview(&record, &planned),
            false => undo_preview(files, &record, current.as_ref(), &planned).await,
        };
        // The policy judges the path as the tab names it.
        let shown = match record.path.strip_prefix(root) {
            Some(rest) if !root.is_empty() && rest.starts_with('/') => rest.to_owned(),
            _ => record.path.clone(),
        };
        let found = UndoFound { path: shown, kind };
        Ok(Prepared {
            facts: Self::facts(&params, Some(&found)),
            preview: Some(preview),
            action: Action::UndoChange(Box::new(PlannedUndo {
                record,
                current,
                backup: planned,
            })),
        })
    }
}

/// The changed file as it is now (`None`: gone); a sudo change's file in a folder only root
/// may enter, as root sees it.
async fn current_of(
    files: &dyn FileAccess,
    record: &ChangeRecord,
    context: &ToolContext<'_>,
) -> Result<Option<Metadata>, String> {
    const TOOL: ToolName = ToolName::UndoChange;
    match metadata_if_exists(files, &record.path).await {
        Ok(found) => Ok(found),
        Err(error) if record.sudo && error.kind == FsErrorKind::PermissionDenied => {
            Ok(sudo::look_as_root(&record.path, context)
                .await
                .map_err(|message| format!("{TOOL}: {message}"))?
                .found)
        }
        Err(error) => Err(format!("{TOOL}: {}", error.for_model())),
    }
}

/// The first line of an undo's card: which change, then `what` the undo does.
fn undo_words(record: &ChangeRecord, what: &str) -> String {
    format!(
        "undo change {} ({} by {}): {what}",
        record.id, record.time, record.tool
    )
}

/// The approval card of a folder's undo: what will happen, in words.
fn folder_undo_preview(record: &ChangeRecord, planned: &PlannedBackup) -> ApprovalPreview {
    let path = record.path.as_str();
    let what = match record.action {
        ChangeAction::Created => undo_words(
            record,
            &format!("delete the folder {path}, which it put back, with everything in it"),
        ),
        _ => undo_words(
            record,
            &format!(
                "put the folder {path} back with all its files ({} bytes), folders and links, their modes and owners",
                record.size.unwrap_or(0)
            ),
        ),
    };
    let mut lines = vec![what];
    lines.extend(planned.card_line());
    ApprovalPreview::Operations { lines }
}

/// The bytes of `path` for the card's diff, when they are small, readable and text.
async fn text_of(files: &dyn FileAccess, path: &str, size: Option<u64>) -> Option<String> {
    if size.is_some_and(|size| size > MAX_READ_BYTES) {
        return None;
    }
    let raw = read_whole(files, path, MAX_READ_BYTES + 1).await.ok()?;
    if super::text::looks_binary(&raw) {
        return None;
    }
    String::from_utf8(raw).ok()
}

/// The approval card of an undo: a diff from the file now to the file after the undo, where
/// both can be read as text; else what will happen, in words.
async fn undo_preview(
    files: &dyn FileAccess,
    record: &ChangeRecord,
    current: Option<&Metadata>,
    planned: &PlannedBackup,
) -> ApprovalPreview {
    let path = record.path.as_str();
    let now = match current {
        Some(found) => text_of(files, path, Some(found.size)).await,
        None => Some(String::new()),
    };
    let after = match (record.action, &record.backup) {
        (ChangeAction::Created, _) => Some(String::new()),
        (_, Some(backup)) => text_of(files, backup, record.size).await,
        (_, None) => None,
    };
    let owner = match (record.mode, record.uid, record.gid) {
        (Some(mode), Some(uid), Some(gid)) => format!(", mode {mode:o}, owner {uid}:{gid}"),
        _ => String::new(),
    };
    let what = match record.action {
        ChangeAction::Created => undo_words(record, &format!("remove {path}, which it created")),
        _ => undo_words(
            record,
            &format!(
                "put {path} back as it was ({} bytes{owner})",
                record.size.unwrap_or(0)
            ),
        ),
    };
    match (now, after) {
        (Some(now), Some(after)) => ApprovalPreview::Diff {
            path: path.to_owned(),
            unified: unified_diff(path, &now, &after),
            new_file: current.is_none(),
            backup: planned.card_line(),
        },
        _ => {
            let mut lines = vec![
                what,
                "no diff: the file or its backup is binary, large or readable only as root"
                    .to_owned(),
            ];
            lines.extend(planned.card_line());
            ApprovalPreview::Operations { lines }
        }
    }
}

pub(crate) async fn undo(plan: PlannedUndo, context: &ToolContext<'_>) -> Result<Value, String> {
    const TOOL: ToolName = ToolName::UndoChange;
    let tab_files = access(context, Some(Side::Remote)).await?;
    let (files, _) = backup::raw(tab_files.as_ref());
    let PlannedUndo {
        record,
        current,
        backup: planned,
    } = plan;
    let path = record.path.as_str();
    let before = current.as_ref().map(Metadata::stamp);
    // The approval may have taken minutes: the file must still be as the diff saw it.
    let now = current_of(files, &record, context).await?;
    crate::fs::check_unchanged(path, before, now.as_ref().map(Metadata::stamp))
        .map_err(|error| format!("{TOOL}: {error}"))?;
    let action = match (record.action, &current) {
        (ChangeAction::Created, _) => ChangeAction::Deleted,
        (_, None) => ChangeAction::Created,
        (_, Some(_)) => ChangeAction::Replaced,
    };
    let facts = ChangeFacts {
        tool: TOOL.as_str(),
        path,
        action,
        before: current.as_ref(),
        sudo: record.sudo,
        undoes: Some(&record.id),
    };
    let done = match record.folder {
        true => match undo_folder(files, &record, &planned, &facts, context).await {
            Ok(done) => Ok(done),
            Err(FolderUndoFailed::KeepBackup(error)) => return Err(format!("{TOOL}: {error}")),
            Err(FolderUndoFailed::Plain(error)) => Err(error),
        },
        false => {
            backup::take(files, &planned, &facts)
                .await
                .map_err(|error| format!("{TOOL}: {error}; nothing was changed"))?;
            restore(files, &record, before, &planned, context).await
        }
    };
    let (bytes_written, warning) = match done {
        Ok(done) => done,
        Err(error) => {
            backup::discard(files, &planned).await;
            return Err(format!("{TOOL}: {error}"));
        }
    };
    if let Some(area) = &planned.area {
        let limits = backup::Limits::of(context.settings);
        backup::prune(files, area, &limits, &planned.id).await;
    }
    to_value(&UndoChangeResult {
        path: record.path.clone(),
        restored: record.action != ChangeAction::Created,
        bytes_written,
        change: planned.note(),
        warning,
    })
}

/// Why a folder's undo failed: `KeepBackup` when part of the folder may be gone, so what was
/// kept first must stay (the message names it).
enum FolderUndoFailed {
    Plain(String),
    KeepBackup(String),
}

/// Puts a folder back from its backup, or deletes the folder an undo put back (kept first).
async fn undo_folder(
    files: &dyn FileAccess,
    record: &ChangeRecord,
    planned: &PlannedBackup,
    facts: &ChangeFacts<'_>,
    context: &ToolContext<'_>,
) -> Result<(u64, Option<String>), FolderUndoFailed> {
    let path = record.path.as_str();
    let tree = match record.action {
        ChangeAction::Created => crate::tools::storage::walk_tree(files, path)
            .await
            .map_err(|error| FolderUndoFailed::Plain(error.for_model()))?,
        _ => Vec::new(),
    };
    backup::take_folder(files, planned, facts, &tree)
        .await
        .map_err(|error| FolderUndoFailed::Plain(format!("{error}; nothing was changed")))?;
    match (record.action, &record.backup) {
        (ChangeAction::Created, _) => {
            match crate::tools::storage::delete_walked(files, path, tree, context).await {
                Ok(_) => Ok((0, None)),
                Err(error) => Err(match &planned.backup {
                    Some(kept) => FolderUndoFailed::KeepBackup(format!(
                        "{error}; everything was kept first in {kept} (change {})",
                        planned.id
                    )),
                    None => FolderUndoFailed::Plain(error),
                }),
            }
        }
        (_, Some(backup)) => backup::restore_folder(files, backup, path, context.cancel)
            .await
            .map_err(FolderUndoFailed::Plain),
        (_, None) => Err(FolderUndoFailed::Plain(
            "its old content was not kept".to_owned(),
        )),
    }
}

/// Puts the file back (or removes the one the change created). Returns the bytes written and
/// a warning when owner or group could not be given back.
async fn restore(
    files: &dyn FileAccess,
    record: &ChangeRecord,
    before: Option<crate::fs::Stamp>,
    planned: &PlannedBackup,
    context: &ToolContext<'_>,
) -> Result<(u64, Option<String>), String> {
    let path = record.path.as_str();
    let owner = match (record.uid, record.gid, record.mode) {
        (Some(uid), Some(gid), Some(mode)) => Some((uid, gid, mode)),
        _ => None,
    };
    if record.sudo {
        let action = match (record.action, &record.backup) {
            (ChangeAction::Created, _) => sudo::Install::Remove,
            (_, Some(backup)) => sudo::Install::OnServer(backup),
            (_, None) => return Err("its old content was not kept".to_owned()),
        };
        let job = sudo::Job {
            tool: ToolName::UndoChange,
            target: path,
            action,
            owner,
            before,
            backup: super::sudo_backup(planned, context),
        };
        sudo::run(&job, files, context).await?;
        return Ok((record.size.unwrap_or(0), None));
    }
    let Some(backup) = &record.backup else {
        if record.action == ChangeAction::Created {
            files
                .remove_file(path)
                .await
                .map_err(|error| error.for_model())?;
            return Ok((0, None));
        }
        return Err("its old content was not kept".to_owned());
    };
    let options = WriteOptions {
        mode: record.mode,
        expect: Some(before),
        size: record.size,
        keep_owner: false,
    };
    let copy = || {
        crate::storage::transfer::copy_file(
            files,
            backup,
            files,
            path,
            &options,
            None,
            context.cancel,
        )
    };
    let written = match copy().await {
        // A hard-linked backup is the old file itself, in its mode: one its owner may not read
        // (a mode-000 key deleted) is made readable for the copy, then given its mode back.
        Err(error)
            if error.kind == FsErrorKind::PermissionDenied
                && error.path == *backup
                && let Some(mode) = record.mode.filter(|mode| mode & 0o400 == 0) =>
        {
            match files.set_attributes(backup, Some(mode | 0o400), None).await {
                Ok(()) => {
                    let again = copy().await;
                    if let Err(error) = files.set_attributes(backup, Some(mode), None).await {
                        tracing::warn!(%error, "the backup's mode was not given back");
                    }
                    again
                }
                Err(_) => Err(error),
            }
        }
        other => other,
    };
    let written = written.map_err(|error| match error.kind {
        FsErrorKind::PermissionDenied => format!(
            "{}. The file needs root: undo it from a terminal tab of a login that may write it",
            error.for_model()
        ),
        _ => error.for_model(),
    })?;
    let mut warning = None;
    if let Some((uid, gid, _)) = owner {
        let now = files.metadata(path).await.ok();
        let kept = now.is_some_and(|found| found.uid == Some(uid) && found.gid == Some(gid));
        if !kept
            && files
                .set_attributes(path, None, Some((uid, gid)))
                .await
                .is_err()
        {
            warning = Some(format!(
                "the content and mode are back, but owner {uid}:{gid} could not be given back by this login"
            ));
        }
        // A change of owner may clear set-id bits: the mode once more.
        if !kept && let Some(mode) = record.mode {
            let _ = files.set_attributes(path, Some(mode), None).await;
        }
    }
    Ok((written, warning))
}
