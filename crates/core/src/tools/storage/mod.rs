//! The storage tools, one file each: make_dir, rename, delete, upload, download and
//! execute_plan, over the two sides of a storage tab (the service, and this computer confined to
//! the folders the user opened). make_dir, rename and delete also work in terminal tabs, on the
//! tab's own files (an SSH tab's SFTP on its connection): the file pane beside the terminal
//! uses them. upload, download and execute_plan work there for the user's own calls only (the
//! pane's transfers with this computer's home folder; `Caller` in engine/pipeline.rs).
//!
//! Preparing reads only: it finds out what each operation would replace or delete (with file
//! and byte counts for folders) so the policy and the approval see facts, and the approval lists
//! every operation. Running checks again: an operation that would now replace something the
//! approval did not show as replaced stops with an error instead. Folders are renamed by copying
//! everything, checking every copy's size, and only then deleting the source, where the service
//! cannot rename folders; a failure half-way says exactly what exists where.
//!
//! Nothing here logs file contents.

pub(super) mod delete;
pub(super) mod download;
pub(super) mod execute_plan;
pub(super) mod make_dir;
pub(super) mod rename;
pub(super) mod upload;

use super::{Action, Prepared, ToolContext};
use crate::fs::{
    FileAccess, FsError, FsErrorKind, Metadata, Stamp, WriteOptions, join, split_parent,
};
use crate::output::human_bytes;
use crate::policy::{CallFacts, ChangeKind, FileChange};
use crate::storage::transfer::{self, ProgressSink};
use futures::StreamExt;
use kaiport_protocol::ApprovalPreview;
use kaiport_protocol::tools::*;
use kaiport_protocol::tools::{ChangeAction, ChangeNote};
use serde_json::Value;
use std::sync::Arc;

/// How many files a recursive delete removes at a time.
const DELETES_IN_FLIGHT: usize = 16;
/// How many files a folder rename without a rename of its own copies at a time.
const COPIES_IN_FLIGHT: usize = 4;
/// How many batch deletes (S3 DeleteObjects, Azure Blob Batch) a recursive delete sends at a
/// time.
const BATCHES_IN_FLIGHT: usize = 4;

/// execute_plan takes at most this many operations.
pub const MAX_PLAN_OPS: usize = 200;

/// One operation, checked against what exists now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckedOp {
    MakeDir {
        path: String,
        side: Side,
    },
    Rename {
        from: String,
        to: String,
        side: Side,
        /// The target as it was when checked (`None`: did not exist).
        target: Option<Stamp>,
        /// Where the replaced target's old content goes (`None`: nothing is replaced).
        backup: Option<Box<Backup>>,
    },
    Delete {
        path: String,
        side: Side,
        recursive: bool,
        /// Where the deleted file's or folder's content goes (`None`: nothing to keep).
        backup: Option<Box<Backup>>,
    },
    Upload {
        local_path: String,
        remote_path: String,
        target: Option<Stamp>,
        /// Where the replaced file's old content goes (`None`: nothing is replaced).
        backup: Option<Box<Backup>>,
    },
    Download {
        remote_path: String,
        local_path: String,
        target: Option<Stamp>,
    },
}

/// A file a storage operation replaces or deletes: its facts then, and where its content goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backup {
    pub planned: crate::backup::PlannedBackup,
    pub existing: Metadata,
}

/// Plans the backup of the file `existing` at `path` before an operation replaces or deletes
/// it, and the words for the approval line.
async fn plan_backup(
    files: &dyn FileAccess,
    context: &ToolContext<'_>,
    existing: &Metadata,
) -> (Box<Backup>, String) {
    let limits = crate::backup::Limits::of(context.settings);
    let planned = crate::backup::PlannedBackup::plan(files, &limits, Some(existing), false).await;
    let line = planned
        .card_line()
        .map_or_else(String::new, |line| format!(" — {line}"));
    (
        Box::new(Backup {
            planned,
            existing: existing.clone(),
        }),
        line,
    )
}

/// Keeps the old content of `path` before `tool` replaces or deletes it; the error stops the
/// operation.
async fn keep_old(
    files: &dyn FileAccess,
    tool: ToolName,
    path: &str,
    action: ChangeAction,
    backup: &Backup,
) -> Result<(), String> {
    let facts = crate::backup::ChangeFacts {
        tool: tool.as_str(),
        path,
        action,
        before: Some(&backup.existing),
        sudo: false,
        undoes: None,
    };
    crate::backup::take(files, &backup.planned, &facts)
        .await
        .map_err(|error| format!("{error}; nothing was changed"))
}

/// After the operation: prune the area (done) or drop the unused backup (failed).
async fn settle_backup<T>(
    files: &dyn FileAccess,
    backup: &Backup,
    result: &Result<T, String>,
    context: &ToolContext<'_>,
) -> Option<ChangeNote> {
    let planned = &backup.planned;
    match result {
        Ok(_) => {
            if let Some(area) = &planned.area {
                let limits = crate::backup::Limits::of(context.settings);
                crate::backup::prune(files, area, &limits, &planned.id).await;
            }
            planned.told().then(|| planned.note())
        }
        Err(_) => {
            crate::backup::discard(files, planned).await;
            None
        }
    }
}

/// Operations made ready in prepare and run once allowed.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedOps {
    pub tool: ToolName,
    pub ops: Vec<CheckedOp>,
    /// execute_plan only: operations that were malformed and left out.
    pub dropped: Vec<DroppedOp>,
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Remote => "remote",
        Side::Local => "local",
    }
}

fn fs_message(tool: ToolName, error: &FsError) -> String {
    format!("{tool}: {}", error.for_model())
}

async fn files_of(context: &ToolContext<'_>, side: Side) -> Result<Arc<dyn FileAccess>, String> {
    context.resources.files_for(Some(side))?.access().await
}

async fn stat(files: &dyn FileAccess, path: &str) -> Result<Option<Metadata>, FsError> {
    match files.metadata(path).await {
        Ok(found) => Ok(Some(found)),
        Err(error) if error.kind == FsErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Everything under `root` (not `root` itself), parents before children.
pub async fn walk_tree(
    files: &dyn FileAccess,
    root: &str,
) -> Result<Vec<(String, Metadata)>, FsError> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        for item in files.read_dir(&dir).await? {
            let path = join(&dir, &item.name);
            if item.metadata.kind == EntryKind::Dir {
                pending.push(path.clone());
            }
            found.push((path, item.metadata));
        }
    }
    Ok(found)
}

/// `bytes` rounded for reading, with the exact count where rounding hid it: what a recursive
/// delete loses should be checkable to the byte.
fn exact_bytes(bytes: u64) -> String {
    let human = human_bytes(bytes);
    if bytes < 1024 {
        human
    } else {
        format!("{human} ({bytes} bytes)")
    }
}

/// What checking an op found that changes its facts.
pub(crate) struct OpFound {
    /// A rename, upload or download lands on an existing file.
    target_exists: bool,
}

/// What `op` changes, as the policy sees it: as checked (`found`) or, unseen, with the stricter
/// answer (the target exists). The one place the storage tools' facts come from.
pub(super) fn op_change(op: &PlanOp, found: Option<&OpFound>) -> FileChange {
    let target_exists = found.is_none_or(|found| found.target_exists);
    let (path, side, kind) = match op {
        PlanOp::MakeDir { path, side } => (path.clone(), *side, ChangeKind::MakeDir),
        PlanOp::Rename { from, to, side } => (
            from.clone(),
            *side,
            ChangeKind::Rename {
                to: to.clone(),
                target_exists,
            },
        ),
        PlanOp::Delete {
            path,
            side,
            recursive,
        } => (
            path.clone(),
            *side,
            ChangeKind::Delete {
                recursive: recursive.unwrap_or(false),
            },
        ),
        PlanOp::Upload {
            local_path,
            remote_dir,
        } => (
            transfer_target(local_path, (Side::Remote, remote_dir)),
            Some(Side::Remote),
            ChangeKind::Transfer {
                replaces_existing: target_exists,
            },
        ),
        PlanOp::Download {
            remote_path,
            local_dir,
        } => (
            transfer_target(remote_path, (Side::Local, local_dir)),
            Some(Side::Local),
            ChangeKind::Transfer {
                replaces_existing: target_exists,
            },
        ),
    };
    FileChange {
        resolved: None,
        path,
        side: side.unwrap_or_default(),
        kind,
    }
}

/// Where a transfer of the file `from` into the folder `into` writes: the same name, made safe
/// for this computer on the local side.
fn transfer_target(from: &str, (into_side, into): (Side, &str)) -> String {
    let name = match into_side {
        Side::Local => local_name(split_parent(from).1),
        // From this computer: its own separators name the file (`\` as well on Windows, where
        // splitting at `/` alone would take `C:\dir\f.txt` whole).
        Side::Remote => std::borrow::Cow::Borrowed(
            std::path::Path::new(from)
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or_else(|| split_parent(from).1),
        ),
    };
    join(into, &name)
}

/// What one op would do, for the policy and the approval; `strict`: missing sources are errors
/// (single tools), else they may be made by earlier ops of a plan.
async fn check_op(
    op: PlanOp,
    context: &ToolContext<'_>,
    strict: bool,
) -> Result<(CheckedOp, FileChange, String), String> {
    let absolute = |tool: ToolName, path: &str| super::files::check_path(tool, path);
    match op {
        PlanOp::MakeDir { path, side } => {
            let side = side.unwrap_or_default();
            absolute(ToolName::MakeDir, &path)?;
            let line = format!("make folder {path} ({})", side_name(side));
            let change = op_change(
                &PlanOp::MakeDir {
                    path: path.clone(),
                    side: Some(side),
                },
                None,
            );
            Ok((CheckedOp::MakeDir { path, side }, change, line))
        }
        PlanOp::Rename { from, to, side } => {
            const TOOL: ToolName = ToolName::Rename;
            let side = side.unwrap_or_default();
            absolute(TOOL, &from)?;
            absolute(TOOL, &to)?;
            if from.trim_end_matches('/') == to.trim_end_matches('/') {
                return Err(format!("{TOOL}: {from} and {to} are the same"));
            }
            if to.starts_with(&format!("{}/", from.trim_end_matches('/'))) {
                return Err(format!("{TOOL}: cannot move {from} into itself ({to})"));
            }
            let files = files_of(context, side).await?;
            let source = stat(files.as_ref(), &from)
                .await
                .map_err(|error| fs_message(TOOL, &error))?;
            if source.is_none() && strict {
                return Err(format!("{TOOL}: {from} does not exist"));
            }
            let target = stat(files.as_ref(), &to)
                .await
                .map_err(|error| fs_message(TOOL, &error))?;
            if let Some(existing) = &target {
                let source_is_dir = source
                    .as_ref()
                    .is_some_and(|found| found.kind == EntryKind::Dir);
                if existing.kind == EntryKind::Dir || source_is_dir {
                    return Err(format!(
                        "{TOOL}: {to} already exists; folders are never merged or replaced by a rename. Pick a new name or delete it first."
                    ));
                }
            }
            let what = match &source {
                Some(found) if found.kind == EntryKind::Dir => "folder",
                _ => "file",
            };
            let (backup, backup_line) = match &target {
                Some(existing) => {
                    let (backup, line) = plan_backup(files.as_ref(), context, existing).await;
                    (Some(backup), line)
                }
                None => (None, String::new()),
            };
            let line = match &target {
                Some(_) => format!(
                    "rename {what} {from} to {to} ({}), REPLACING the existing {to}{backup_line}",
                    side_name(side)
                ),
                None => format!("rename {what} {from} to {to} ({})", side_name(side)),
            };
            let change = op_change(
                &PlanOp::Rename {
                    from: from.clone(),
                    to: to.clone(),
                    side: Some(side),
                },
                Some(&OpFound {
                    target_exists: target.is_some(),
                }),
            );
            let target = target.map(|found| found.stamp());
            Ok((
                CheckedOp::Rename {
                    from,
                    to,
                    side,
                    target,
                    backup,
                },
                change,
                line,
            ))
        }
        PlanOp::Delete {
            path,
            side,
            recursive,
        } => {
            const TOOL: ToolName = ToolName::Delete;
            let side = side.unwrap_or_default();
            let recursive = recursive.unwrap_or(false);
            absolute(TOOL, &path)?;
            if path.trim_matches('/').is_empty() {
                return Err(format!("{TOOL}: refusing to delete the top folder {path}"));
            }
            let files = files_of(context, side).await?;
            let found = stat(files.as_ref(), &path)
                .await
                .map_err(|error| fs_message(TOOL, &error))?;
            let mut backup = None;
            let line = match &found {
                None if strict => return Err(format!("{TOOL}: {path} does not exist")),
                None => format!("delete {path} ({}), if it exists then", side_name(side)),
                Some(found) if found.kind == EntryKind::Dir => {
                    let tree = walk_tree(files.as_ref(), &path)
                        .await
                        .map_err(|error| fs_message(TOOL, &error))?;
                    if !tree.is_empty() && !recursive {
                        return Err(format!(
                            "{TOOL}: the folder {path} is not empty ({} entries); pass recursive: true to delete it with everything in it",
                            tree.len()
                        ));
                    }
                    let count = tree
                        .iter()
                        .filter(|(_, item)| item.kind != EntryKind::Dir)
                        .count();
                    let bytes: u64 = tree.iter().map(|(_, item)| item.size).sum();
                    let limits = crate::backup::Limits::of(context.settings);
                    let planned = crate::backup::PlannedBackup::plan_folder(
                        files.as_ref(),
                        &limits,
                        found,
                        &tree,
                    )
                    .await;
                    let backup_line = planned
                        .card_line()
                        .map_or_else(String::new, |line| format!(" — {line}"));
                    backup = Some(Box::new(Backup {
                        planned,
                        existing: found.clone(),
                    }));
                    format!(
                        "delete folder {path} ({}) with {count} files, {}{backup_line}",
                        side_name(side),
                        exact_bytes(bytes)
                    )
                }
                Some(found) => {
                    let (planned, backup_line) = plan_backup(files.as_ref(), context, found).await;
                    backup = Some(planned);
                    format!(
                        "delete file {path} ({}), {}{backup_line}",
                        side_name(side),
                        human_bytes(found.size)
                    )
                }
            };
            let change = op_change(
                &PlanOp::Delete {
                    path: path.clone(),
                    side: Some(side),
                    recursive: Some(recursive),
                },
                None,
            );
            Ok((
                CheckedOp::Delete {
                    path,
                    side,
                    recursive,
                    backup,
                },
                change,
                line,
            ))
        }
        PlanOp::Upload {
            local_path,
            remote_dir,
        } => {
            let (_, target_path, target, mut line) = check_transfer(
                ToolName::Upload,
                context,
                (Side::Local, &local_path),
                (Side::Remote, &remote_dir),
                strict,
            )
            .await?;
            // Replacing a server file keeps its old content first, as write_file does.
            let backup = match &target {
                Some(existing) => {
                    let remote = files_of(context, Side::Remote).await?;
                    let (backup, backup_line) =
                        plan_backup(remote.as_ref(), context, existing).await;
                    line.push_str(&backup_line);
                    Some(backup)
                }
                None => None,
            };
            let change = op_change(
                &PlanOp::Upload {
                    local_path: local_path.clone(),
                    remote_dir,
                },
                Some(&OpFound {
                    target_exists: target.is_some(),
                }),
            );
            Ok((
                CheckedOp::Upload {
                    local_path,
                    remote_path: target_path,
                    target: target.map(|found| found.stamp()),
                    backup,
                },
                change,
                line,
            ))
        }
        PlanOp::Download {
            remote_path,
            local_dir,
        } => {
            let (_, target_path, target, line) = check_transfer(
                ToolName::Download,
                context,
                (Side::Remote, &remote_path),
                (Side::Local, &local_dir),
                strict,
            )
            .await?;
            let change = op_change(
                &PlanOp::Download {
                    remote_path: remote_path.clone(),
                    local_dir,
                },
                Some(&OpFound {
                    target_exists: target.is_some(),
                }),
            );
            Ok((
                CheckedOp::Download {
                    remote_path,
                    local_path: target_path,
                    target: target.map(|found| found.stamp()),
                },
                change,
                line,
            ))
        }
    }
}

/// A name from a server as it is written on this computer: control characters (ESC, BEL,
/// newline, …), which would reach the user's terminal with every `ls`, become their visible
/// Unicode pictures (`\u{1b}` → `␛`), as rclone encodes them.
pub fn local_name(name: &str) -> std::borrow::Cow<'_, str> {
    if !name.chars().any(|c| c.is_ascii_control()) {
        return std::borrow::Cow::Borrowed(name);
    }
    std::borrow::Cow::Owned(
        name.chars()
            .map(|c| match c {
                '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('?'),
                '\u{7f}' => '\u{2421}',
                other => other,
            })
            .collect(),
    )
}

/// Checks a transfer of the file `from` into the folder `into`: returns the source's facts,
/// the target path, the existing target (if any) and the approval line.
async fn check_transfer(
    tool: ToolName,
    context: &ToolContext<'_>,
    (from_side, from): (Side, &str),
    (into_side, into): (Side, &str),
    strict: bool,
) -> Result<(Option<Metadata>, String, Option<Metadata>, String), String> {
    super::files::check_path(tool, from)?;
    super::files::check_path(tool, into)?;
    let source_files = files_of(context, from_side).await?;
    let target_files = files_of(context, into_side).await?;
    let source = stat(source_files.as_ref(), from)
        .await
        .map_err(|error| fs_message(tool, &error))?;
    match &source {
        None if strict => return Err(format!("{tool}: {from} does not exist")),
        Some(found) if found.kind != EntryKind::File => {
            return Err(format!(
                "{tool}: {from} is not a file; only single files are transferred"
            ));
        }
        _ => {}
    }
    let folder = stat(target_files.as_ref(), into)
        .await
        .map_err(|error| fs_message(tool, &error))?;
    match &folder {
        // An object store has no folders to make first: the upload's key makes the prefix.
        None if strict && !target_files.folders_are_prefixes() => {
            return Err(format!("{tool}: the folder {into} does not exist"));
        }
        Some(found) if found.kind != EntryKind::Dir => {
            return Err(format!("{tool}: {into} is not a folder"));
        }
        _ => {}
    }
    let target_path = transfer_target(from, (into_side, into));
    let target = stat(target_files.as_ref(), &target_path)
        .await
        .map_err(|error| fs_message(tool, &error))?;
    if let Some(existing) = &target
        && existing.kind != EntryKind::File
    {
        return Err(format!("{tool}: {target_path} exists and is not a file"));
    }
    let size = source
        .as_ref()
        .map(|found| format!(", {}", human_bytes(found.size)))
        .unwrap_or_default();
    let verb = match tool {
        ToolName::Upload => "upload",
        _ => "download",
    };
    let line = match &target {
        Some(_) => format!("{verb} {from} to {target_path}{size}, REPLACING the existing file"),
        None => format!("{verb} {from} to {target_path}{size}"),
    };
    Ok((source, target_path, target, line))
}

fn prepared(
    tool: ToolName,
    checked: Vec<(CheckedOp, FileChange, String)>,
    dropped: Vec<DroppedOp>,
) -> Prepared {
    let mut lines = Vec::new();
    let mut changes = Vec::new();
    let mut ops = Vec::new();
    for (index, (op, change, line)) in checked.into_iter().enumerate() {
        lines.push(if tool == ToolName::ExecutePlan {
            format!("{}. {line}", index + 1)
        } else {
            line
        });
        changes.push(change);
        ops.push(op);
    }
    Prepared {
        facts: CallFacts::Changes { changes },
        preview: Some(ApprovalPreview::Operations { lines }),
        action: Action::StorageOps(Box::new(PlannedOps { tool, ops, dropped })),
    }
}

/// make_dir, rename, delete, upload or download: one op, checked strictly.
pub(super) async fn prepare_one(
    tool: ToolName,
    op: PlanOp,
    context: &ToolContext<'_>,
) -> Result<Prepared, String> {
    let checked = check_op(op, context, true).await?;
    Ok(prepared(tool, vec![checked], Vec::new()))
}

/// execute_plan: malformed ops are dropped (and reported), the rest checked leniently (earlier
/// ops may create what later ones use).
pub(super) async fn prepare_plan(
    params: ExecutePlanParams,
    context: &ToolContext<'_>,
) -> Result<Prepared, String> {
    let mut dropped = Vec::new();
    let mut checked = Vec::new();
    for (index, raw) in params.ops.into_iter().enumerate() {
        let index = index as u32;
        let op: PlanOp = match serde_json::from_value(raw) {
            Ok(op) => op,
            Err(error) => {
                dropped.push(DroppedOp {
                    index,
                    reason: format!("invalid operation: {error}"),
                });
                continue;
            }
        };
        match check_op(op, context, false).await {
            Ok(one) => checked.push(one),
            Err(reason) => dropped.push(DroppedOp { index, reason }),
        }
    }
    if checked.is_empty() {
        let reasons: Vec<String> = dropped
            .iter()
            .map(|drop| format!("op {}: {}", drop.index, drop.reason))
            .collect();
        return Err(format!(
            "execute_plan: no valid operation to run ({})",
            reasons.join("; ")
        ));
    }
    Ok(prepared(ToolName::ExecutePlan, checked, dropped))
}

/// Runs approved operations in order; the first error stops the rest.
pub(super) async fn execute(plan: PlannedOps, context: &ToolContext<'_>) -> Result<Value, String> {
    if plan.tool != ToolName::ExecutePlan {
        let Some(op) = plan.ops.into_iter().next() else {
            return Err(format!("{}: nothing to do", plan.tool));
        };
        let result = run_op(op, context)
            .await
            .map_err(|message| format!("{}: {message}", plan.tool))?;
        return super::to_value(&result);
    }
    // Indices in the outcome are those of the ops as given (dropped ones left out).
    let dropped_indices: Vec<u32> = plan.dropped.iter().map(|drop| drop.index).collect();
    let mut original_index = 0u32;
    let mut outcomes = Vec::new();
    let mut stopped = false;
    for op in plan.ops {
        while dropped_indices.contains(&original_index) {
            original_index += 1;
        }
        let index = original_index;
        original_index += 1;
        if stopped || context.cancel.is_cancelled() {
            outcomes.push(PlanOpOutcome {
                index,
                status: PlanOpStatus::Skipped,
                message: if stopped {
                    "skipped: an earlier operation failed".to_owned()
                } else {
                    "skipped: the plan was cancelled".to_owned()
                },
                change: None,
            });
            continue;
        }
        match run_op(op, context).await {
            Ok(done) => outcomes.push(PlanOpOutcome {
                index,
                status: PlanOpStatus::Done,
                message: done.message,
                change: done.change,
            }),
            Err(message) => {
                stopped = true;
                // A result people read too; the model gets the whole result framed.
                outcomes.push(PlanOpOutcome {
                    index,
                    status: PlanOpStatus::Failed,
                    message: crate::taint::plain(&message).into_owned(),
                    change: None,
                });
            }
        }
    }
    super::to_value(&ExecutePlanResult {
        dropped: plan.dropped,
        outcomes,
    })
}

fn reporter(context: &ToolContext<'_>, path: &str) -> Option<ProgressSink> {
    let report = context.transfers.clone()?;
    let path = path.to_owned();
    Some(Arc::new(move |progress| report(&path, progress)))
}

/// The target must still be as approved (absent, or the same file).
async fn still_as_approved(
    files: &dyn FileAccess,
    path: &str,
    approved: Option<Stamp>,
) -> Result<(), String> {
    let now = stat(files, path).await.map_err(|error| error.for_model())?;
    match (approved, now) {
        (None, Some(_)) => Err(format!(
            "{path} exists now but did not when this was approved; nothing was replaced"
        )),
        (Some(_), None) | (None, None) => Ok(()),
        (Some(before), Some(now)) if before == now.stamp() => Ok(()),
        (Some(_), Some(_)) => Err(format!(
            "{path} changed since this was approved; nothing was replaced"
        )),
    }
}

async fn run_op(op: CheckedOp, context: &ToolContext<'_>) -> Result<StorageOpResult, String> {
    match op {
        CheckedOp::MakeDir { path, side } => {
            let files = files_of(context, side).await?;
            files
                .make_dir(&path, /* parents */ true)
                .await
                .map_err(|error| error.for_model())?;
            Ok(StorageOpResult {
                message: format!("created the folder {path}"),
                bytes: None,
                change: None,
            })
        }
        CheckedOp::Rename {
            from,
            to,
            side,
            target,
            backup,
        } => {
            let files = files_of(context, side).await?;
            still_as_approved(files.as_ref(), &to, target).await?;
            let source = files
                .metadata(&from)
                .await
                .map_err(|error| error.for_model())?;
            if source.kind == EntryKind::Dir {
                return rename_folder(files.as_ref(), &from, &to, context).await;
            }
            if let Some(backup) = &backup {
                keep_old(
                    files.as_ref(),
                    ToolName::Rename,
                    &to,
                    ChangeAction::Replaced,
                    backup,
                )
                .await?;
            }
            let renamed = files
                .rename_file(&from, &to, target.is_some())
                .await
                .map_err(|error| error.for_model());
            let change = match &backup {
                Some(backup) => settle_backup(files.as_ref(), backup, &renamed, context).await,
                None => None,
            };
            renamed?;
            Ok(StorageOpResult {
                message: format!("renamed {from} to {to}"),
                bytes: None,
                change,
            })
        }
        CheckedOp::Delete {
            path,
            side,
            recursive,
            backup,
        } => {
            let files = files_of(context, side).await?;
            let Some(found) = stat(files.as_ref(), &path)
                .await
                .map_err(|error| error.for_model())?
            else {
                return Err(format!("{path} does not exist"));
            };
            if found.kind != EntryKind::Dir {
                if let Some(backup) = &backup {
                    keep_old(
                        files.as_ref(),
                        ToolName::Delete,
                        &path,
                        ChangeAction::Deleted,
                        backup,
                    )
                    .await?;
                }
                let removed = files
                    .remove_file(&path)
                    .await
                    .map_err(|error| error.for_model());
                let change = match &backup {
                    Some(backup) => settle_backup(files.as_ref(), backup, &removed, context).await,
                    None => None,
                };
                removed?;
                return Ok(StorageOpResult {
                    message: format!("deleted {path}"),
                    bytes: Some(found.size),
                    change,
                });
            }
            let path = path.trim_end_matches('/').to_owned();
            let tree = walk_tree(files.as_ref(), &path)
                .await
                .map_err(|error| error.for_model())?;
            if !tree.is_empty() && !recursive {
                return Err(format!(
                    "the folder {path} is not empty; nothing was deleted"
                ));
            }
            if let Some(backup) = &backup {
                let facts = crate::backup::ChangeFacts {
                    tool: ToolName::Delete.as_str(),
                    path: &path,
                    action: ChangeAction::Deleted,
                    before: Some(&found),
                    sudo: false,
                    undoes: None,
                };
                crate::backup::take_folder(files.as_ref(), &backup.planned, &facts, &tree)
                    .await
                    .map_err(|error| format!("{error}; nothing was deleted"))?;
            }
            let deleted = delete_walked(files.as_ref(), &path, tree, context).await;
            let change = match (&backup, &deleted) {
                (Some(backup), Ok(_)) => {
                    settle_backup(files.as_ref(), backup, &deleted, context).await
                }
                // Part of the folder may be gone: its backup stays (the error names it).
                (Some(backup), Err(error)) if backup.planned.backup.is_some() => {
                    return Err(format!(
                        "{error}; everything was kept first in {} (change {})",
                        backup.planned.backup.as_deref().unwrap_or_default(),
                        backup.planned.id
                    ));
                }
                (Some(backup), Err(_)) => {
                    crate::backup::discard(files.as_ref(), &backup.planned).await;
                    None
                }
                (None, _) => None,
            };
            let (count, bytes) = deleted?;
            Ok(StorageOpResult {
                message: format!("deleted the folder {path} with {count} files"),
                bytes: Some(bytes),
                change,
            })
        }
        CheckedOp::Upload {
            local_path,
            remote_path,
            target,
            backup,
        } => {
            let local = files_of(context, Side::Local).await?;
            let remote = files_of(context, Side::Remote).await?;
            if let Some(backup) = &backup {
                still_as_approved(remote.as_ref(), &remote_path, target).await?;
                keep_old(
                    remote.as_ref(),
                    ToolName::Upload,
                    &remote_path,
                    ChangeAction::Replaced,
                    backup,
                )
                .await?;
            }
            let copied = copy_checked(
                local.as_ref(),
                &local_path,
                remote.as_ref(),
                &remote_path,
                target,
                context,
            )
            .await;
            let change = match &backup {
                Some(backup) => settle_backup(remote.as_ref(), backup, &copied, context).await,
                None => None,
            };
            let bytes = copied?;
            Ok(StorageOpResult {
                message: format!("uploaded {local_path} to {remote_path}"),
                bytes: Some(bytes),
                change,
            })
        }
        CheckedOp::Download {
            remote_path,
            local_path,
            target,
        } => {
            let local = files_of(context, Side::Local).await?;
            let remote = files_of(context, Side::Remote).await?;
            copy_checked(
                remote.as_ref(),
                &remote_path,
                local.as_ref(),
                &local_path,
                target,
                context,
            )
            .await
            .map(|bytes| StorageOpResult {
                message: format!("downloaded {remote_path} to {local_path}"),
                bytes: Some(bytes),
                change: None,
            })
        }
    }
}

async fn copy_checked(
    from: &dyn FileAccess,
    from_path: &str,
    to: &dyn FileAccess,
    to_path: &str,
    approved: Option<Stamp>,
    context: &ToolContext<'_>,
) -> Result<u64, String> {
    still_as_approved(to, to_path, approved).await?;
    let options = WriteOptions {
        mode: None,
        // Refuse at the last moment if the target appeared or changed meanwhile.
        expect: Some(approved),
        size: None,
        keep_owner: false,
    };
    transfer::copy_file(
        from,
        from_path,
        to,
        to_path,
        &options,
        reporter(context, to_path),
        context.cancel,
    )
    .await
    .map_err(|error| error.for_model())
}

/// Deletes the folder `path` and (with `recursive`) everything in it, files first, deepest
/// folders first. Returns files and bytes deleted.
async fn delete_tree(
    files: &dyn FileAccess,
    path: &str,
    recursive: bool,
    context: &ToolContext<'_>,
) -> Result<(u64, u64), String> {
    let tree = walk_tree(files, path)
        .await
        .map_err(|error| error.for_model())?;
    if !tree.is_empty() && !recursive {
        return Err(format!(
            "the folder {path} is not empty; nothing was deleted"
        ));
    }
    delete_walked(files, path, tree, context).await
}

/// Deletes the folder `path` whose entries are `tree` (as walked): files first, deepest
/// folders first. Returns files and bytes deleted.
pub(crate) async fn delete_walked(
    files: &dyn FileAccess,
    path: &str,
    tree: Vec<(String, Metadata)>,
    context: &ToolContext<'_>,
) -> Result<(u64, u64), String> {
    let (folders, doomed): (Vec<_>, Vec<_>) = tree
        .iter()
        .partition(|(_, item)| item.kind == EntryKind::Dir);
    let mut folders: Vec<String> = folders
        .into_iter()
        .map(|(entry, _)| entry.clone())
        .collect();
    let total = doomed.len();
    // Several deletes in flight: one request per file, one after another, takes minutes for
    // 10,000 files on HTTP services. After a failure or a cancel no new delete starts, and the
    // ones in flight are waited for, so the count below is exact.
    let stop = std::sync::atomic::AtomicBool::new(false);
    // Collected first: a stream holding the mapping closure is not provably Send (rustc's
    // higher-ranked lifetime limits), a stream of ready-made futures is. They do nothing yet.
    // Services with a batch delete (S3, Azure Blob) take a batch per request.
    let batch = files.delete_batch().max(1);
    let in_flight = if batch > 1 {
        BATCHES_IN_FLIGHT
    } else {
        DELETES_IN_FLIGHT
    };
    let pending: Vec<_> = doomed
        .chunks(batch)
        .map(|chunk| delete_some(files, chunk, &stop, context.cancel))
        .collect();
    let mut deletes = futures::stream::iter(pending).buffer_unordered(in_flight);
    let mut tally = Tally::default();
    while let Some(done) = deletes.next().await {
        done.into_iter().for_each(|result| tally.add(result));
    }
    let (count, bytes) = (tally.files as u64, tally.bytes);
    if let Some(error) = tally.failure {
        return Err(format!(
            "deleted {count} of {total} files in {path}, then failed: {}; the rest is still there",
            error.for_model()
        ));
    }
    if context.cancel.is_cancelled() && (count as usize) < total {
        return Err(format!(
            "cancelled after deleting {count} of {total} files in {path}; the rest is still there"
        ));
    }
    // Deepest first: a child's path is longer than its parent's.
    folders.sort_by_key(|folder| std::cmp::Reverse(folder.len()));
    folders.push(path.to_owned());
    for folder in folders {
        files.remove_dir(&folder).await.map_err(|error| {
            format!(
                "deleted all {count} files in {path} but not every folder: {}",
                error.for_model()
            )
        })?;
    }
    Ok((count, bytes))
}

/// Files done, their bytes and the first failure, from the results of work on many files
/// (each success holding its file's size).
struct Tally<E> {
    files: usize,
    bytes: u64,
    failure: Option<E>,
}

impl<E> Default for Tally<E> {
    fn default() -> Self {
        Tally {
            files: 0,
            bytes: 0,
            failure: None,
        }
    }
}

impl<E> Tally<E> {
    fn add(&mut self, result: Result<u64, E>) {
        match result {
            Ok(size) => {
                self.files += 1;
                self.bytes += size;
            }
            Err(error) => {
                self.failure.get_or_insert(error);
            }
        }
    }
}

/// Deletes some files of a recursive delete (one, or a batch in one request), unless an
/// earlier delete failed (`stop`) or the call was cancelled (nothing then). Returns each file's
/// size once it is gone.
async fn delete_some(
    files: &dyn FileAccess,
    chunk: &[&(String, Metadata)],
    stop: &std::sync::atomic::AtomicBool,
    cancel: &tokio_util::sync::CancellationToken,
) -> Vec<Result<u64, FsError>> {
    if stop.load(std::sync::atomic::Ordering::Relaxed) || cancel.is_cancelled() {
        return Vec::new();
    }
    let results = match chunk {
        [(entry, _)] => vec![files.remove_file(entry).await],
        _ => {
            let paths: Vec<String> = chunk.iter().map(|(entry, _)| entry.clone()).collect();
            files.remove_files(&paths).await
        }
    };
    if results.iter().any(Result::is_err) {
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    results
        .into_iter()
        .zip(chunk)
        .map(|(result, (_, item))| result.map(|()| item.size))
        .collect()
}

/// Copies the file `from` (`size` bytes as listed) to `to`, which must not exist: on the server
/// where it can, else through kaiport; either way checked. Returns the bytes copied.
async fn copy_into_new(
    files: &dyn FileAccess,
    from: &str,
    size: u64,
    to: &str,
    context: &ToolContext<'_>,
) -> Result<u64, FsError> {
    if context.cancel.is_cancelled() {
        return Err(FsError::new(
            FsErrorKind::Other,
            to,
            "the rename was cancelled before this file was copied",
        ));
    }
    if files.copy_on_server(from, to, size).await? {
        return Ok(size);
    }
    let options = WriteOptions {
        mode: None,
        expect: Some(None),
        size: None,
        keep_owner: false,
    };
    transfer::copy_file(
        files,
        from,
        files,
        to,
        &options,
        reporter(context, to),
        context.cancel,
    )
    .await
}

/// Renames a folder: in one step where the service can, else copy everything, verify, delete.
async fn rename_folder(
    files: &dyn FileAccess,
    from: &str,
    to: &str,
    context: &ToolContext<'_>,
) -> Result<StorageOpResult, String> {
    if files.renames_folders() {
        files
            .rename_dir(from, to)
            .await
            .map_err(|error| error.for_model())?;
        return Ok(StorageOpResult {
            message: format!("renamed the folder {from} to {to}"),
            bytes: None,
            change: None,
        });
    }
    let tree = walk_tree(files, from)
        .await
        .map_err(|error| error.for_model())?;
    let total = tree
        .iter()
        .filter(|(_, item)| item.kind != EntryKind::Dir)
        .count();
    let relocate = |path: &str| {
        format!(
            "{}{}",
            to.trim_end_matches('/'),
            &path[from.trim_end_matches('/').len()..]
        )
    };
    let half_done = |copied: usize, error: String| {
        format!(
            "copying {from} to {to} failed after {copied} of {total} files: {error}. \
             The original {from} is complete and untouched; {to} holds a partial copy that can be deleted."
        )
    };
    files
        .make_dir(to, true)
        .await
        .map_err(|error| half_done(0, error.for_model()))?;
    // The folders first (parents before children, as the walk found them), then the files,
    // several at a time; after the first failure no new copy starts.
    for (path, item) in &tree {
        if item.kind == EntryKind::Dir {
            files
                .make_dir(&relocate(path), true)
                .await
                .map_err(|error| half_done(0, error.for_model()))?;
        }
    }
    let failed = std::sync::atomic::AtomicBool::new(false);
    let copies: Vec<(String, String, u64)> = tree
        .iter()
        .filter(|(_, item)| item.kind != EntryKind::Dir)
        .map(|(path, item)| (path.clone(), relocate(path), item.size))
        .collect();
    let failed = &failed;
    let results: Vec<_> = futures::stream::iter(copies)
        .map(|(path, target, size)| async move {
            if failed.load(std::sync::atomic::Ordering::Relaxed) {
                return None;
            }
            let copied = copy_into_new(files, &path, size, &target, context).await;
            if copied.is_err() {
                failed.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            Some(copied)
        })
        .buffer_unordered(COPIES_IN_FLIGHT)
        .collect()
        .await;
    let mut tally = Tally::default();
    results
        .into_iter()
        .flatten()
        .for_each(|result| tally.add(result));
    if let Some(error) = tally.failure {
        return Err(half_done(tally.files, error.for_model()));
    }
    let bytes = tally.bytes;
    // Every copy is in place with the right size (copy_file verifies): now remove the original.
    let (deleted, _) = delete_tree(files, from, true, context).await.map_err(|error| {
        format!(
            "all {total} files were copied to {to} and verified, but deleting the original {from} failed: {error}. \
             Both exist now; delete {from} to finish."
        )
    })?;
    Ok(StorageOpResult {
        message: format!(
            "renamed the folder {from} to {to} ({deleted} files copied, verified, originals deleted)"
        ),
        bytes: Some(bytes),
        change: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_become_their_pictures_locally() {
        assert_eq!(local_name("plain name.txt"), "plain name.txt");
        assert_eq!(local_name("a\u{1b}[31mb\u{7}\nc\u{7f}"), "a␛[31mb␇␊c␡");
        assert!(matches!(local_name("é ok"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human_bytes(0), "0 bytes");
        assert_eq!(human_bytes(1536), "1.5 KB");
        assert_eq!(human_bytes(1024 * 1024 * 1024), "1.0 GB");
        assert_eq!(exact_bytes(1000), "1000 bytes");
        assert_eq!(exact_bytes(1_245_000), "1.2 MB (1245000 bytes)");
    }
}
