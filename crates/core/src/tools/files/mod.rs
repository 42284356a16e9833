//! The file tools: read_file, edit_file, write_file here; list_dir,
//! find_files, search_files and folder_report in [`walk`]. All are written once against
//! [`FileAccess`]; a tab reaches its files through [`TabFiles`] (SFTP opened on first use, so a
//! server without the sftp subsystem still gives a working terminal).
//!
//! Rules kept here: file contents go to the model only with the connection's permission (the
//! policy denies before anything is read); a file that was read and changed since is never
//! overwritten, and replacing an existing file needs a read first; edit/write previews are
//! unified diffs; sudo writes go through the user's terminal and never see or type a password.
//! Nothing here logs file contents.

mod prefilter;
mod sudo;
mod text;
mod walk;

use super::{Action, Prepared, ToolContext};
use crate::fs::{
    FileAccess, FsError, FsErrorKind, LocalFiles, Metadata, SftpFiles, Stamp, WriteOptions,
    read_whole, split_parent,
};
use crate::policy::{CallFacts, ChangeKind, FileChange, Resolved};
use crate::ssh::SshSession;
use kaiport_protocol::ApprovalPreview;
use kaiport_protocol::tools::*;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use text::{LineEndingInfo, TextFile};

/// read_file refuses whole files larger than this (a range of lines is still possible).
pub const MAX_READ_BYTES: u64 = 2 * 1024 * 1024;
/// Bytes looked at to tell a binary file from text (as grep and git do).
pub const BINARY_PROBE_BYTES: usize = 8000;

type Hash = [u8; 32];

fn hash(data: &[u8]) -> Hash {
    Sha256::digest(data).into()
}

/// What a tab knows about a file read_file gave the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ReadRecord {
    stamp: Stamp,
    /// Of the whole file, when it was read whole.
    hash: Option<Hash>,
}

enum FilesSource {
    Sftp(SshSession),
    Given(Arc<dyn FileAccess>),
}

/// The files of one tab: how to reach them, opened on first use, and what was read.
pub struct TabFiles {
    source: FilesSource,
    opened: tokio::sync::OnceCell<Arc<dyn FileAccess>>,
    reads: Mutex<HashMap<String, ReadRecord>>,
}

impl TabFiles {
    /// The server's files over SFTP on `ssh` (the subsystem starts on the first file tool call).
    pub fn sftp(ssh: SshSession) -> TabFiles {
        TabFiles::with_source(FilesSource::Sftp(ssh))
    }

    /// This computer's files (the local terminal tab).
    pub fn local() -> TabFiles {
        TabFiles::given(Arc::new(LocalFiles))
    }

    /// Files through an already open [`FileAccess`].
    pub fn given(files: Arc<dyn FileAccess>) -> TabFiles {
        TabFiles::with_source(FilesSource::Given(files))
    }

    fn with_source(source: FilesSource) -> TabFiles {
        TabFiles {
            source,
            opened: tokio::sync::OnceCell::new(),
            reads: Mutex::new(HashMap::new()),
        }
    }

    /// The file access, opening it if needed. A failure is not remembered: the next call tries
    /// again.
    pub async fn access(&self) -> Result<Arc<dyn FileAccess>, String> {
        self.opened
            .get_or_try_init(|| async {
                match &self.source {
                    FilesSource::Given(files) => Ok(files.clone()),
                    FilesSource::Sftp(ssh) => SftpFiles::open(ssh)
                        .await
                        .map(|files| Arc::new(files) as Arc<dyn FileAccess>)
                        .map_err(|error| error.to_string()),
                }
            })
            .await
            .cloned()
    }

    fn record(&self, path: &str) -> Option<ReadRecord> {
        lock(&self.reads).get(path).copied()
    }

    fn remember(&self, path: &str, record: ReadRecord) {
        lock(&self.reads).insert(path.to_owned(), record);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A write made ready in prepare and carried out once allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedWrite {
    pub tool: ToolName,
    pub path: String,
    /// The file really written: `path` with links followed, as the server resolved it. A link
    /// stays a link; its target gets the new content.
    pub target: String,
    /// Which side of a storage tab (terminal tabs: remote).
    pub side: Side,
    pub content: Vec<u8>,
    /// The target as it was when the diff was made (`None`: it did not exist).
    pub before: Option<Stamp>,
    /// Hash of the content the diff was made against.
    pub before_hash: Option<[u8; 32]>,
    /// Owner, group and mode of the existing target (sudo writes restore them).
    pub owner: Option<(u32, u32, u32)>,
    pub sudo: bool,
    pub edits_applied: u32,
    pub lines_added: u64,
    pub lines_removed: u64,
}

fn tab_files<'a>(context: &'a ToolContext<'_>, side: Option<Side>) -> Result<&'a TabFiles, String> {
    context.resources.files_for(side)
}

async fn access(
    context: &ToolContext<'_>,
    side: Option<Side>,
) -> Result<Arc<dyn FileAccess>, String> {
    tab_files(context, side)?.access().await
}

/// Paths are absolute; relative ones are the model's to fix.
pub(super) fn check_path(tool: ToolName, path: &str) -> Result<(), String> {
    if path.starts_with('/') || (cfg!(windows) && path.get(1..3) == Some(":\\")) {
        Ok(())
    } else {
        Err(format!(
            "{tool}: path must be absolute (start with /), not {path:?}"
        ))
    }
}

fn fs_message(tool: ToolName, error: &FsError) -> String {
    format!("{tool}: {error}")
}

async fn metadata_if_exists(
    files: &dyn FileAccess,
    path: &str,
) -> Result<Option<Metadata>, FsError> {
    match files.metadata(path).await {
        Ok(found) => Ok(Some(found)),
        Err(error) if error.kind == FsErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Where a write to `path` lands, for the policy (module docs of `policy`) and the write itself.
/// A link to nothing is refused (the write would create a file the user never named); a server
/// that cannot say for another reason leaves the given path as the target and makes the change
/// ask.
async fn write_target(
    tool: ToolName,
    files: &dyn FileAccess,
    path: &str,
) -> Result<(String, Option<Resolved>), String> {
    match files.resolve_write_target(path).await {
        Ok(real) if real == path => Ok((real, None)),
        Ok(real) => Ok((real.clone(), Some(Resolved::To(real)))),
        Err(error) if error.kind == FsErrorKind::NotFound => Err(fs_message(tool, &error)),
        Err(error) => Ok((path.to_owned(), Some(Resolved::Unknown(error.to_string())))),
    }
}

fn side(side: Option<Side>) -> Side {
    side.unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// read_file
// ---------------------------------------------------------------------------------------------

pub(super) fn prepare_read_file(params: ReadFileParams) -> Result<Prepared, String> {
    check_path(ToolName::ReadFile, &params.path)?;
    if params.start_line == Some(0) {
        return Err("read_file: start_line counts from 1".to_owned());
    }
    if params.line_count == Some(0) {
        return Err("read_file: line_count must be at least 1".to_owned());
    }
    Ok(Prepared {
        facts: CallFacts::Read { contents: true },
        preview: None,
        action: Action::ReadFile(params),
    })
}

pub(super) async fn read_file(
    params: ReadFileParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    const TOOL: ToolName = ToolName::ReadFile;
    let tab = tab_files(context, params.side)?;
    let files = tab.access().await?;
    let path = params.path.as_str();
    let found = files
        .metadata(path)
        .await
        .map_err(|error| fs_message(TOOL, &error))?;
    if found.kind == EntryKind::Dir {
        return Err(format!("read_file: {path} is a folder; use list_dir"));
    }
    let ranged = params.start_line.is_some() || params.line_count.is_some();
    let whole = found.size <= MAX_READ_BYTES;
    if !whole && !ranged {
        return Err(format!(
            "read_file: {path} is {} bytes, more than read_file reads at once (2 MB). Read a part with \
             start_line and line_count, or find what you need with search_files.",
            found.size
        ));
    }
    let start_line = params.start_line.unwrap_or(1);
    let (raw, total_lines, complete) = if whole {
        let raw = read_whole(files.as_ref(), path, MAX_READ_BYTES + 1)
            .await
            .map_err(|error| fs_message(TOOL, &error))?;
        if raw.len() as u64 > MAX_READ_BYTES {
            return Err(format!(
                "read_file: {path} grew past 2 MB while it was read; read a part with start_line and line_count"
            ));
        }
        let lines = text::count_lines(&raw);
        (raw, lines, true)
    } else {
        text::read_line_range(
            files.as_ref(),
            path,
            start_line,
            params.line_count,
            MAX_READ_BYTES,
        )
        .await
        .map_err(|error| fs_message(TOOL, &error))?
    };
    if text::looks_binary(&raw) {
        return Err(format!(
            "read_file: {path} is a binary file (it has NUL bytes); only text files can be read"
        ));
    }
    tab.remember(
        path,
        ReadRecord {
            stamp: found.stamp(),
            hash: complete.then(|| hash(&raw)),
        },
    );
    let file = TextFile::decode(&raw);
    let limit = context.settings.file_limit_kb as usize * 1024;
    let result = text::shape_read_result(
        path,
        &file,
        total_lines,
        if complete {
            raw.len() as u64
        } else {
            found.size
        },
        complete,
        start_line,
        params.line_count,
        limit,
    )
    .map_err(|message| format!("read_file: {message}"))?;
    super::to_value(&result)
}

// ---------------------------------------------------------------------------------------------
// edit_file and write_file
// ---------------------------------------------------------------------------------------------

/// Reads the current content of an existing text file for a diff, enforcing the read-before-
/// change rule. Returns the bytes, its metadata and its hash.
async fn current_text(
    tool: ToolName,
    tab: &TabFiles,
    files: &dyn FileAccess,
    path: &str,
    found: &Metadata,
    must_have_read: bool,
) -> Result<Vec<u8>, String> {
    if found.kind != EntryKind::File {
        return Err(format!("{tool}: {path} is not a regular file"));
    }
    let record = tab.record(path);
    if record.is_none() && must_have_read {
        return Err(format!(
            "{tool}: {path} exists and was not read in this tab; read it with read_file first, then \
             change it (edit_file is preferred for existing files)"
        ));
    }
    if found.size > MAX_READ_BYTES {
        return Err(format!(
            "{tool}: {path} is {} bytes; files over 2 MB cannot be changed with {tool}",
            found.size
        ));
    }
    let raw = read_whole(files, path, MAX_READ_BYTES + 1)
        .await
        .map_err(|error| fs_message(tool, &error))?;
    if let Some(record) = record {
        let hash_differs = record.hash.is_some_and(|read| read != hash(&raw));
        if record.stamp != found.stamp() || hash_differs {
            return Err(format!(
                "{tool}: {path} changed since you read it; read it again with read_file, then retry"
            ));
        }
    }
    Ok(raw)
}

fn unified_diff(path: &str, before: &str, after: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a{path}"), &format!("b{path}"))
        .to_string()
}

fn count_changes(before: &str, after: &str) -> (u64, u64) {
    let diff = similar::TextDiff::from_lines(before, after);
    let mut added = 0;
    let mut removed = 0;
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    (added, removed)
}

fn owner_of(found: &Metadata) -> Option<(u32, u32, u32)> {
    match (found.uid, found.gid, found.mode) {
        (Some(uid), Some(gid), Some(mode)) => Some((uid, gid, mode)),
        _ => None,
    }
}

#[cfg(feature = "edit-file")]
pub(super) async fn prepare_edit_file(
    params: EditFileParams,
    context: &ToolContext<'_>,
) -> Result<Prepared, String> {
    const TOOL: ToolName = ToolName::EditFile;
    check_path(TOOL, &params.path)?;
    if params.edits.is_empty() {
        return Err(
            "edit_file: `edits` is empty; give at least one {old_text, new_text}".to_owned(),
        );
    }
    let tab = tab_files(context, params.side)?;
    let files = tab.access().await?;
    let path = params.path.as_str();
    let (found, resolution) = tokio::join!(
        metadata_if_exists(files.as_ref(), path),
        write_target(TOOL, files.as_ref(), path)
    );
    let found = match found {
        Ok(Some(found)) => found,
        Ok(None) => {
            return Err(format!(
                "edit_file: {path} does not exist; create it with write_file"
            ));
        }
        Err(error) => return Err(fs_message(TOOL, &error)),
    };
    let (target, resolved) = resolution?;
    let raw = current_text(TOOL, tab, files.as_ref(), path, &found, false).await?;
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
    Ok(Prepared {
        facts: CallFacts::Changes {
            changes: vec![FileChange {
                resolved,
                path: params.path.clone(),
                side: side(params.side),
                kind: ChangeKind::Edit,
            }],
        },
        preview: Some(ApprovalPreview::Diff {
            path: params.path.clone(),
            unified,
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
            sudo: params.sudo.unwrap_or(false),
            edits_applied: params.edits.len() as u32,
            lines_added,
            lines_removed,
        })),
    })
}

pub(super) async fn prepare_write_file(
    params: WriteFileParams,
    context: &ToolContext<'_>,
) -> Result<Prepared, String> {
    const TOOL: ToolName = ToolName::WriteFile;
    check_path(TOOL, &params.path)?;
    let tab = tab_files(context, params.side)?;
    let files = tab.access().await?;
    let path = params.path.as_str();
    let (existing, resolution) = tokio::join!(
        metadata_if_exists(files.as_ref(), path),
        write_target(TOOL, files.as_ref(), path)
    );
    let existing = existing.map_err(|error| fs_message(TOOL, &error))?;
    let (kind, before_text, before_hash, content) = match &existing {
        Some(found) => {
            let raw = current_text(TOOL, tab, files.as_ref(), path, found, true).await?;
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
    Ok(Prepared {
        facts: CallFacts::Changes {
            changes: vec![FileChange {
                resolved,
                path: params.path.clone(),
                side: side(params.side),
                kind,
            }],
        },
        preview: Some(ApprovalPreview::Diff {
            path: params.path.clone(),
            unified,
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
            sudo: params.sudo.unwrap_or(false),
            edits_applied: 0,
            lines_added,
            lines_removed,
        })),
    })
}

/// Carries out an approved edit_file / write_file.
pub(super) async fn write(plan: PlannedWrite, context: &ToolContext<'_>) -> Result<Value, String> {
    let tool = plan.tool;
    let tab = tab_files(context, Some(plan.side))?;
    let files = tab.access().await?;
    let path = plan.path.as_str();
    // The approval may have taken minutes: the content must still be what the diff showed.
    if let Some(expected) = plan.before_hash {
        let now = read_whole(files.as_ref(), path, MAX_READ_BYTES + 1)
            .await
            .map_err(|error| fs_message(tool, &error))?;
        if hash(&now) != expected {
            return Err(format!(
                "{tool}: {path} changed on the server after the diff was made; nothing was written. Read it again."
            ));
        }
    }
    if plan.sudo {
        sudo::write(&plan, files.as_ref(), context).await?;
    } else {
        let options = WriteOptions {
            mode: None,
            expect: Some(plan.before),
            size: None,
        };
        let mut source: &[u8] = &plan.content;
        // Through a link, the target is replaced and the link stays.
        files
            .write_atomic(&plan.target, &mut source, &options)
            .await
            .map_err(|error| match error.kind {
                FsErrorKind::PermissionDenied => format!(
                    "{tool}: {error}. If the file needs root, retry with sudo: true (the user may be asked for a sudo password in the terminal)."
                ),
                _ => fs_message(tool, &error),
            })?;
    }
    // What was written is now what the model knows.
    if let Ok(found) = files.metadata(path).await {
        tab.remember(
            path,
            ReadRecord {
                stamp: found.stamp(),
                hash: Some(hash(&plan.content)),
            },
        );
    }
    let bytes_written = plan.content.len() as u64;
    match tool {
        ToolName::EditFile => super::to_value(&EditFileResult {
            path: plan.path.clone(),
            edits_applied: plan.edits_applied,
            bytes_written,
            lines_added: plan.lines_added,
            lines_removed: plan.lines_removed,
        }),
        _ => super::to_value(&WriteFileResult {
            path: plan.path.clone(),
            created: plan.before.is_none(),
            bytes_written,
        }),
    }
}

// ---------------------------------------------------------------------------------------------
// Read-only listings (implemented in `walk`)
// ---------------------------------------------------------------------------------------------

pub(super) fn prepare_listing(
    action: Action,
    path: &str,
    tool: ToolName,
) -> Result<Prepared, String> {
    check_path(tool, path)?;
    let contents = matches!(action, Action::SearchFiles(_));
    Ok(Prepared {
        facts: CallFacts::Read { contents },
        preview: None,
        action,
    })
}

pub(super) async fn list_dir(
    params: ListDirParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let files = access(context, params.side).await?;
    super::to_value(&walk::list_dir(files.as_ref(), &params.path).await?)
}

pub(super) async fn find_files(
    params: FindFilesParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let files = access(context, params.side).await?;
    super::to_value(&walk::find_files(files.as_ref(), &params).await?)
}

pub(super) async fn search_files(
    params: SearchFilesParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let files = access(context, params.side).await?;
    let limit = u64::from(context.settings.file_limit_kb) * 1024;
    super::to_value(&walk::search_files(files.as_ref(), &params, limit).await?)
}

pub(super) async fn folder_report(
    params: FolderReportParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    let files = access(context, params.side).await?;
    super::to_value(
        &walk::folder_report(files.as_ref(), &params, chrono::Utc::now().timestamp()).await?,
    )
}

/// search_files on `files` directly, without a tab or the pipeline (benchmarks, tools that
/// already decided). `file_limit`: the per-file limit in bytes.
pub async fn search_files_on(
    files: &dyn FileAccess,
    params: &SearchFilesParams,
    file_limit: u64,
) -> Result<SearchFilesResult, String> {
    walk::search_files(files, params, file_limit).await
}

/// folder_report on `files` directly, without a tab or the pipeline.
pub async fn folder_report_on(
    files: &dyn FileAccess,
    params: &FolderReportParams,
) -> Result<FolderReportResult, String> {
    walk::folder_report(files, params, chrono::Utc::now().timestamp()).await
}
