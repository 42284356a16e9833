//! The file tools, one file each: read_file, edit_file, write_file, list_dir, find_files,
//! search_files and folder_report (the walks themselves in [`walk`]), and list_changes and
//! undo_change over the backups kept before every write ([`crate::backup`]). All are written once against
//! [`FileAccess`]; a tab reaches its files through [`TabFiles`] (SFTP opened on first use, so a
//! server without the sftp subsystem still gives a working terminal).
//!
//! Rules kept here: file contents go to the model only with the connection's permission (the
//! policy denies before anything is read); a file that was read and changed since is never
//! overwritten, and replacing an existing file needs a read first; edit/write previews are
//! unified diffs; every write keeps the old content first ([`crate::backup`]) and keeps the
//! file's owner, group and mode (or writes nothing); sudo reads and writes ([`sudo`]) hand a
//! sudo password the user gave to sudo's standard input and nowhere else.
//! Nothing here logs file contents.

pub(super) mod changes;
#[cfg(feature = "edit-file")]
pub(super) mod edit_file;
pub(super) mod find_files;
pub(super) mod folder_report;
pub(super) mod list_dir;
mod prefilter;
pub(super) mod read_file;
pub(super) mod search_files;
mod sudo;
mod text;
mod walk;
pub(super) mod write_file;

use super::ToolContext;
use crate::fs::{
    FileAccess, FsError, FsErrorKind, Gated, LocalFiles, Metadata, SftpFiles, Stamp, WriteOptions,
    read_whole,
};
use crate::policy::{CallFacts, ChangeKind, FileChange, Resolved};
use crate::ssh::SshSession;
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
    /// A second SFTP channel for backups, so the server copies the old file while the new one
    /// arrives on the first (OpenSSH's sftp-server answers one request at a time).
    copier: tokio::sync::OnceCell<Arc<dyn FileAccess>>,
    login: tokio::sync::OnceCell<Option<Login>>,
    reads: Mutex<HashMap<String, ReadRecord>>,
}

/// Who an SSH tab's login is on the server (`id -u`, `id -G`), to tell which files it may not
/// read or replace without root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Login {
    uid: u32,
    gids: Vec<u32>,
}

impl Login {
    /// Parses `id -u` and `id -G` output (two lines).
    fn parse(output: &str) -> Option<Login> {
        let mut lines = output.lines();
        let uid = lines.next()?.trim().parse().ok()?;
        let gids = lines
            .next()?
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        Some(Login { uid, gids })
    }

    /// Whether this login may not read `found`, or not replace it keeping its owner (ACLs
    /// aside): it is someone else's, or its owner bits lack read or write. Root may do all.
    fn needs_root(&self, found: &Metadata) -> bool {
        let (Some(uid), Some(mode)) = (found.uid, found.mode) else {
            return false;
        };
        self.uid != 0 && (uid != self.uid || (mode >> 6) & 0o6 != 0o6)
    }

    /// Whether this login may not list or enter the folder `found` (ACLs aside): the bits of
    /// its class (owner, group, others) lack read or search. Root may do all.
    fn cannot_open(&self, found: &Metadata) -> bool {
        let (Some(uid), Some(gid), Some(mode)) = (found.uid, found.gid, found.mode) else {
            return false;
        };
        let bits = if uid == self.uid {
            mode >> 6
        } else if self.gids.contains(&gid) {
            mode >> 3
        } else {
            mode
        };
        self.uid != 0 && bits & 0o5 != 0o5
    }
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
            copier: tokio::sync::OnceCell::new(),
            login: tokio::sync::OnceCell::new(),
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

    /// Where backups are copied through while a write uploads: a second SFTP channel on SSH
    /// tabs (opened on first use; where the server refuses one, the tab's own files), else
    /// the tab's files.
    async fn copier(&self) -> Result<Arc<dyn FileAccess>, String> {
        let files = self.access().await?;
        let FilesSource::Sftp(ssh) = &self.source else {
            return Ok(files);
        };
        Ok(self
            .copier
            .get_or_init(|| async {
                match SftpFiles::open(ssh).await {
                    Ok(second) => Arc::new(second) as Arc<dyn FileAccess>,
                    Err(error) => {
                        tracing::debug!(error = %error, "no second SFTP channel for backups");
                        files.clone()
                    }
                }
            })
            .await
            .clone())
    }

    /// The login's uid and groups (SSH tabs, asked once on an exec channel); `None` elsewhere
    /// or when the server does not say.
    async fn login(&self) -> Option<&Login> {
        self.login
            .get_or_init(|| async {
                let FilesSource::Sftp(ssh) = &self.source else {
                    return None;
                };
                let output = ssh.exec("id -u && id -G").await.ok()?;
                Login::parse(&String::from_utf8_lossy(&output.stdout))
            })
            .await
            .as_ref()
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
    /// Where the old content goes before the write (decided in prepare, named on the card).
    pub backup: crate::backup::PlannedBackup,
    /// The existing target's facts, for the change record.
    pub existing: Option<Metadata>,
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
    format!("{tool}: {}", error.for_model())
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

/// Where a write of `path` lands, looked at before the diff is made: the tab's files, the file
/// as it is now (`None`: it does not exist) and the write's target with where links lead.
struct WriteSite<'a> {
    tab: &'a TabFiles,
    files: Arc<dyn FileAccess>,
    existing: Result<Option<Metadata>, FsError>,
    target: Result<(String, Option<Resolved>), String>,
}

/// `sudo`: a write as root, which looks as root where the login may not (a file in a folder
/// only root may enter).
async fn write_site<'a>(
    tool: ToolName,
    context: &'a ToolContext<'_>,
    on: Option<Side>,
    path: &str,
    sudo: bool,
) -> Result<WriteSite<'a>, String> {
    let tab = tab_files(context, on)?;
    let files = tab.access().await?;
    let (mut existing, mut target) = tokio::join!(
        metadata_if_exists(files.as_ref(), path),
        write_target(tool, files.as_ref(), path)
    );
    if sudo && matches!(&existing, Err(error) if error.kind == FsErrorKind::PermissionDenied) {
        let look = sudo::look_as_root(path, context)
            .await
            .map_err(|message| format!("{tool}: {message}"))?;
        let resolved = (look.real != path).then(|| Resolved::To(look.real.clone()));
        existing = Ok(look.found);
        target = Ok((look.real, resolved));
    }
    Ok(WriteSite {
        tab,
        files,
        existing,
        target,
    })
}

/// What preparing a write found on the server: whether it creates, replaces or edits the file,
/// and where links make it land.
pub(crate) struct Found {
    kind: ChangeKind,
    resolved: Option<Resolved>,
}

/// A write of `path` as the policy sees it: as found or, unseen, `unseen` on the path as given
/// (links are not followed where nobody asked the server).
fn change_facts(
    path: &str,
    on: Option<Side>,
    unseen: ChangeKind,
    found: Option<&Found>,
) -> CallFacts {
    let (kind, resolved) = match found {
        Some(found) => (found.kind.clone(), found.resolved.clone()),
        None => (unseen, None),
    };
    CallFacts::Changes {
        changes: vec![FileChange {
            path: path.to_owned(),
            side: side(on),
            kind,
            resolved,
        }],
    }
}

// ---------------------------------------------------------------------------------------------
// edit_file and write_file
// ---------------------------------------------------------------------------------------------

/// The whole of `path`, at most `limit` bytes, over the tab's files; with `root` (a sudo call's
/// context), as root through sudo when the login may not read it.
async fn read_content(
    tool: ToolName,
    files: &dyn FileAccess,
    path: &str,
    limit: u64,
    root: Option<&ToolContext<'_>>,
) -> Result<Vec<u8>, String> {
    match (read_whole(files, path, limit).await, root) {
        (Ok(raw), _) => Ok(raw),
        (Err(error), Some(context)) if error.kind == FsErrorKind::PermissionDenied => {
            sudo::read_as_root(path, limit, context)
                .await
                .map_err(|message| format!("{tool}: {message}"))
        }
        (Err(error), _) => Err(fs_message(tool, &error)),
    }
}

/// Reads the current content of an existing text file for a diff, enforcing the read-before-
/// change rule (`root`: a sudo call's context, which may read as root). Returns the bytes.
async fn current_text(
    tool: ToolName,
    tab: &TabFiles,
    files: &dyn FileAccess,
    path: &str,
    found: &Metadata,
    must_have_read: bool,
    root: Option<&ToolContext<'_>>,
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
    let raw = read_content(tool, files, path, MAX_READ_BYTES + 1, root).await?;
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

/// Carries out an approved edit_file / write_file.
pub(super) async fn write(plan: PlannedWrite, context: &ToolContext<'_>) -> Result<Value, String> {
    let tool = plan.tool;
    let tab = tab_files(context, Some(plan.side))?;
    let files = tab.access().await?;
    let path = plan.path.as_str();
    // The approval may have taken minutes: the content must still be what the diff showed.
    if let Some(expected) = plan.before_hash {
        let root = plan.sudo.then_some(context);
        let now = read_content(tool, files.as_ref(), path, MAX_READ_BYTES + 1, root).await?;
        if hash(&now) != expected {
            return Err(format!(
                "{tool}: {path} changed on the server after the diff was made; nothing was written. Read it again."
            ));
        }
    }
    let change = crate::backup::ChangeFacts {
        tool: tool.as_str(),
        path: &plan.target,
        action: match plan.before {
            Some(_) => kaiport_protocol::tools::ChangeAction::Replaced,
            None => kaiport_protocol::tools::ChangeAction::Created,
        },
        before: plan.existing.as_ref(),
        sudo: plan.sudo,
        undoes: None,
    };
    let written = if plan.sudo {
        // The sudo script copies the old content itself; the record goes first.
        crate::backup::take(files.as_ref(), &plan.backup, &change)
            .await
            .map_err(|error| format!("{tool}: {error}; nothing was changed"))?;
        let job = sudo::Job {
            tool,
            target: &plan.target,
            action: sudo::Install::Upload(&plan.content),
            owner: plan.owner,
            before: plan.before,
            backup: sudo_backup(&plan.backup, context),
        };
        sudo::run(&job, files.as_ref(), context).await
    } else {
        let options = WriteOptions {
            mode: None,
            expect: Some(plan.before),
            size: None,
            keep_owner: true,
        };
        let mut source: &[u8] = &plan.content;
        // The backup is kept while the new content uploads; the file is replaced only after.
        let copier = tab.copier().await?;
        let gate = Box::pin(crate::backup::take(copier.as_ref(), &plan.backup, &change));
        // Through a link, the target is replaced and the link stays.
        match files
            .write_atomic_gated(&plan.target, &mut source, &options, gate)
            .await
        {
            Ok(_) => Ok(()),
            Err(Gated::Gate(error)) => {
                return Err(format!("{tool}: {error}; nothing was changed"));
            }
            Err(Gated::Write(error)) => Err(match error.kind {
                FsErrorKind::PermissionDenied => format!(
                    "{tool}: {error}. If the file needs root, retry with sudo: true (the user may be asked for the sudo password)."
                ),
                _ => fs_message(tool, &error),
            }),
        }
    };
    if let Err(error) = written {
        crate::backup::discard(files.as_ref(), &plan.backup).await;
        return Err(error);
    }
    if let Some(area) = &plan.backup.area {
        let limits = crate::backup::Limits::of(context.settings);
        crate::backup::prune(files.as_ref(), area, &limits, &plan.backup.id).await;
    }
    let change = plan.backup.told().then(|| plan.backup.note());
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
            change,
        }),
        _ => super::to_value(&WriteFileResult {
            path: plan.path.clone(),
            created: plan.before.is_none(),
            bytes_written,
            change,
        }),
    }
}

/// What the sudo script does with the old content: copied into root's area, with that area's
/// limits.
fn sudo_backup<'a>(
    planned: &'a crate::backup::PlannedBackup,
    context: &ToolContext<'_>,
) -> Option<sudo::Backup<'a>> {
    planned.backup.as_deref().map(|path| sudo::Backup {
        path,
        limits: crate::backup::Limits::of(context.settings),
    })
}

/// Plans the backup of a write's target, for prepare (the card names it).
async fn plan_backup(
    files: &dyn FileAccess,
    context: &ToolContext<'_>,
    existing: Option<&Metadata>,
    sudo: bool,
) -> crate::backup::PlannedBackup {
    let limits = crate::backup::Limits::of(context.settings);
    crate::backup::PlannedBackup::plan(files, &limits, existing, sudo).await
}

// ---------------------------------------------------------------------------------------------
// Read-only listings (implemented in `walk`)
// ---------------------------------------------------------------------------------------------

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

#[cfg(test)]
mod tests {
    use super::*;

    fn file(uid: u32, mode: u32) -> Metadata {
        Metadata {
            uid: Some(uid),
            gid: Some(0),
            mode: Some(mode),
            ..Metadata::bare_folder()
        }
    }

    #[test]
    fn a_login_needs_root_for_others_files_and_its_own_without_rw() {
        let login = Login::parse("1000\n1000 27 100\n").unwrap();
        assert_eq!(login.gids, vec![1000, 27, 100]);
        assert!(!login.needs_root(&file(1000, 0o644)));
        assert!(login.needs_root(&file(1000, 0o444)), "read-only");
        assert!(login.needs_root(&file(0, 0o666)), "someone else's");
        assert!(login.needs_root(&file(0, 0o600)));
        let root = Login::parse("0\n0\n").unwrap();
        assert!(!root.needs_root(&file(1000, 0o000)));
        assert_eq!(Login::parse("x\n"), None);
        assert!(!login.needs_root(&Metadata::bare_folder()), "nothing known");
    }
}
