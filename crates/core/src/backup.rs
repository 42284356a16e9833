//! Backups of the files kaiport replaces or deletes on a server, so that every such change can
//! be undone (the `undo_change` tool, `kaiport undo`).
//!
//! Each change gets an id (`20261205T094425123Z-1a2b3c4d`: its UTC time to the millisecond,
//! then random hex) and a record, `<id>.json`, in the connection's backup area on the server,
//! `~/.local/state/kaiport/backups/<host>_<port>/` (mode 0700) in the login user's home. The old
//! content goes beside it as `<id>.data`: a hard link to the old file where the server can make
//! one (the replaced file keeps its inode, so this costs no copy; it keeps the old file's mode
//! too, so undo makes one its owner may not read readable for the copy and then gives its mode
//! back), else a copy the server makes itself (SFTP `copy-data`), else a copy made through
//! kaiport. Changes made through sudo keep
//! their old content in root's area, `/var/backups/kaiport/uid-<uid>/<host>_<port>/`, copied
//! there by the sudo install script with `cp -p` (owner and mode kept; the folders are 0711, so
//! the login user can see whether a backup is still there but not list or read root's files);
//! their records stay in the user's area, so listing changes needs no sudo. A storage tab's view of one folder keeps its backups
//! on the same server, outside the view. A folder a recursive delete removes is kept whole:
//! `<id>.data/` is then a folder of its files and links (`tree/`) and a manifest of every
//! entry's mode and owner ([`take_folder`], [`restore_folder`]).
//!
//! The area is bounded by the connection's settings (docs/policy.md): backups older than
//! `backup_max_age_days` go, then the oldest until all fit in `backup_total_kb`; a file larger
//! than `backup_file_limit_kb` is changed without one and the result says "no backup: file too
//! large". Sides that are no SSH server (storage services, this computer) keep none and say so;
//! where the service keeps the previous version itself (an S3 bucket's versioning, Azure's soft
//! delete: `crate::storage::versions`) the change says that instead.
//!
//! This module must never log file contents, and never back up outside the areas above.

use crate::fs::{FileAccess, FsErrorKind, Metadata, join, read_whole};
use kaiport_protocol::ConnectionSettings;
use kaiport_protocol::tools::{ChangeAction, ChangeNote, ChangeRecord};

/// The login user's backup area, under their home folder.
pub const USER_AREA: &str = ".local/state/kaiport/backups";
/// The folder of root's backup areas (one per login user) for changes made through sudo.
pub const ROOT_AREAS: &str = "/var/backups/kaiport";
/// A change record is small; a larger `.json` in the area is not one of ours.
const MAX_RECORD_BYTES: u64 = 64 * 1024;
/// What the result says where a side keeps no backups.
pub const NOT_SUPPORTED: &str = "no backup: not supported for storage yet (kaiport keeps backups on SSH servers; a bucket with versioning or soft delete keeps old versions itself)";

/// The side backups are kept through (a storage tab's view of a folder is left for the whole
/// server), and the folder a path of `files` is under there.
pub fn raw(files: &dyn FileAccess) -> (&dyn FileAccess, &str) {
    files.unrooted().unwrap_or((files, ""))
}

/// How much the backup area may hold (from the connection's settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub total_bytes: u64,
    pub max_age_s: i64,
    pub file_bytes: u64,
}

impl Limits {
    pub fn of(settings: &ConnectionSettings) -> Limits {
        Limits {
            total_bytes: u64::from(settings.backup_total_kb) * 1024,
            max_age_s: i64::from(settings.backup_max_age_days) * 86_400,
            file_bytes: u64::from(settings.backup_file_limit_kb) * 1024,
        }
    }
}

/// Where a server keeps backups for this connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Area {
    /// The user's area (records, and the old content of changes made without sudo).
    pub user: String,
    /// The connection's folder name inside the areas.
    slug: String,
}

/// The connection as a folder name: `sftp://db1:22` → `db1_22` (the area is in the login's
/// own home already).
fn slug_of(location: &str) -> String {
    let bare = location
        .split_once("://")
        .map_or(location, |(_, rest)| rest);
    let slug: String = bare
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '@' | '-' => c,
            _ => '_',
        })
        .collect();
    match slug.trim_matches('.') {
        "" => "connection".to_owned(),
        trimmed => trimmed.to_owned(),
    }
}

impl Area {
    /// The connection's area on `files` (see [`raw`]), `None` where this side keeps no
    /// backups.
    pub async fn of(files: &dyn FileAccess) -> Option<Area> {
        let home = files.home_dir().await?;
        let slug = slug_of(&files.location());
        Some(Area {
            user: join(&join(&home, USER_AREA), &slug),
            slug,
        })
    }

    /// Root's area for this login's sudo changes (by the uid owning the user's area).
    pub async fn root(&self, files: &dyn FileAccess) -> Result<String, String> {
        self.ensure(files).await?;
        let uid = files
            .metadata(&self.user)
            .await
            .ok()
            .and_then(|found| found.uid)
            .ok_or_else(|| format!("cannot tell who owns {}", self.user))?;
        Ok(format!("{ROOT_AREAS}/uid-{uid}/{}", self.slug))
    }

    /// Creates the user's area (private) if it does not exist.
    pub async fn ensure(&self, files: &dyn FileAccess) -> Result<(), String> {
        match files.metadata(&self.user).await {
            Ok(_) => Ok(()),
            Err(error) if error.kind == FsErrorKind::NotFound => {
                files
                    .make_dir(&self.user, true)
                    .await
                    .map_err(|error| format!("cannot create the backup area: {error}"))?;
                files
                    .set_attributes(&self.user, Some(0o700), None)
                    .await
                    .map_err(|error| format!("cannot make the backup area private: {error}"))
            }
            Err(error) => Err(format!("cannot reach the backup area: {error}")),
        }
    }

    fn record_path(&self, id: &str) -> String {
        join(&self.user, &format!("{id}.json"))
    }
}

/// Length of a change id: UTC time to the millisecond, `-`, 8 hex digits.
const ID_LEN: usize = 28;

/// A new change id: its time to the millisecond (so ids sort by time), then random hex.
pub fn new_id() -> String {
    format!(
        "{}-{:08x}",
        chrono::Utc::now().format("%Y%m%dT%H%M%S%3fZ"),
        rand::random::<u32>()
    )
}

/// When the change `id` was made (seconds since the epoch), from the id itself.
fn id_time(id: &str) -> Option<i64> {
    let stamp = id.get(..15)?;
    let millis = id.get(15..18)?;
    if !millis.bytes().all(|byte| byte.is_ascii_digit()) || id.get(18..19) != Some("Z") {
        return None;
    }
    chrono::NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%S")
        .ok()
        .map(|time| time.and_utc().timestamp())
}

/// Whether `id` has the form of a change id (nothing else is ever joined to an area's path).
pub fn is_change_id(id: &str) -> bool {
    is_id(id)
}

fn is_id(id: &str) -> bool {
    id.len() == ID_LEN
        && id_time(id).is_some()
        && id[19..20] == *"-"
        && id[20..].bytes().all(|byte| byte.is_ascii_hexdigit())
}

/// A change's backup, decided before the approval (so the card can name it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedBackup {
    pub id: String,
    /// `None`: this side keeps no backups (`note` says so).
    pub area: Option<Area>,
    /// Where the old content will be kept; `None` when nothing is kept (see `note`).
    pub backup: Option<String>,
    /// Why nothing is kept, when something existed.
    pub note: Option<String>,
    /// The service keeps the previous version itself (`note` says how): nothing is copied,
    /// and the change is told as kaiport's backups are, without a record.
    pub kept_by_service: bool,
}

impl PlannedBackup {
    /// Plans the backup of `existing` (`None`: the change creates the file) on `files`.
    /// `sudo`: the old content goes to root's area.
    pub async fn plan(
        files: &dyn FileAccess,
        limits: &Limits,
        existing: Option<&Metadata>,
        sudo: bool,
    ) -> PlannedBackup {
        let limit = limits.file_bytes.min(limits.total_bytes);
        let too_large = existing.filter(|found| found.size > limit).map(|found| {
            format!(
                "no backup: file too large ({}; the limit is {})",
                crate::output::human_bytes(found.size),
                crate::output::human_bytes(limit)
            )
        });
        PlannedBackup::plan_with(files, limits, existing, sudo, too_large).await
    }

    /// Plans the backup of the folder `folder` a recursive delete removes, with everything in
    /// it (`tree`: its entries as the delete walks them, parents first). Each file must fit the per-file
    /// limit and all of them together the area's; links are kept as links; sockets, pipes and
    /// devices cannot be kept, and a folder holding one is deleted without a backup (said so).
    pub async fn plan_folder(
        files: &dyn FileAccess,
        limits: &Limits,
        folder: &Metadata,
        tree: &[(String, Metadata)],
    ) -> PlannedBackup {
        PlannedBackup::plan_with(
            files,
            limits,
            Some(folder),
            false,
            folder_refusal(limits, tree),
        )
        .await
    }

    /// `refusal`: why `existing` cannot be kept (too large), said instead of a backup.
    async fn plan_with(
        files: &dyn FileAccess,
        limits: &Limits,
        existing: Option<&Metadata>,
        sudo: bool,
        refusal: Option<String>,
    ) -> PlannedBackup {
        let id = new_id();
        let (files, _) = raw(files);
        let Some(area) = Area::of(files).await else {
            let kept = match existing {
                Some(_) => files.old_versions_kept().await,
                None => None,
            };
            return PlannedBackup {
                id,
                area: None,
                backup: None,
                kept_by_service: kept.is_some(),
                note: kept.or_else(|| existing.map(|_| NOT_SUPPORTED.to_owned())),
            };
        };
        let (backup, note) = match existing {
            None => (None, None),
            Some(_) if limits.total_bytes == 0 || limits.file_bytes == 0 => (
                None,
                Some("no backup: backups are off for this connection".to_owned()),
            ),
            Some(_) if refusal.is_some() => (None, refusal),
            Some(_) if sudo => match area.root(files).await {
                Ok(root) => (Some(join(&root, &format!("{id}.data"))), None),
                Err(error) => (None, Some(format!("no backup: {error}"))),
            },
            Some(_) => (Some(join(&area.user, &format!("{id}.data"))), None),
        };
        PlannedBackup {
            id,
            area: Some(area),
            backup,
            note,
            kept_by_service: false,
        }
    }

    /// A plan for a side without backups, or a change that keeps none.
    pub fn none(note: Option<String>) -> PlannedBackup {
        PlannedBackup {
            id: new_id(),
            area: None,
            backup: None,
            note,
            kept_by_service: false,
        }
    }

    /// The line for the approval card: where the old content will be kept, or why not.
    pub fn card_line(&self) -> Option<String> {
        match (&self.backup, &self.note) {
            (Some(backup), _) => Some(format!("backup: {backup} (change {})", self.id)),
            (None, Some(note)) => Some(note.clone()),
            (None, None) => None,
        }
    }

    /// What the tool result says about the change.
    pub fn note(&self) -> ChangeNote {
        ChangeNote {
            change_id: self.id.clone(),
            backup: self.backup.clone(),
            note: self.note.clone(),
        }
    }

    /// Whether the change is recorded (the side has an area).
    pub fn recorded(&self) -> bool {
        self.area.is_some()
    }

    /// Whether the result and the audit line name the change ([`PlannedBackup::note`]): it is
    /// recorded, or the service keeps the previous version.
    pub fn told(&self) -> bool {
        self.recorded() || self.kept_by_service
    }
}

/// Why a folder cannot be backed up whole (see [`PlannedBackup::plan_folder`]), if it cannot.
fn folder_refusal(limits: &Limits, tree: &[(String, Metadata)]) -> Option<String> {
    use crate::output::human_bytes;
    use kaiport_protocol::tools::EntryKind;
    let kept =
        |kind: EntryKind| matches!(kind, EntryKind::File | EntryKind::Dir | EntryKind::Symlink);
    if tree.iter().any(|(_, item)| !kept(item.kind)) {
        return Some(
            "no backup: the folder holds sockets, pipes or devices, which cannot be kept"
                .to_owned(),
        );
    }
    let files = || tree.iter().filter(|(_, item)| item.kind == EntryKind::File);
    let bytes: u64 = files().map(|(_, item)| item.size).sum();
    if bytes > limits.total_bytes {
        return Some(format!(
            "no backup: folder too large ({}, limit {})",
            human_bytes(bytes),
            human_bytes(limits.total_bytes)
        ));
    }
    let largest = files().map(|(_, item)| item.size).max().unwrap_or(0);
    (largest > limits.file_bytes).then(|| {
        format!(
            "no backup: the folder holds a file too large ({}; the limit per file is {})",
            human_bytes(largest),
            human_bytes(limits.file_bytes)
        )
    })
}

/// A folder's backup (`<id>.data/`): its files and links under `tree/`, and in `manifest.json`
/// every entry's kind, mode, owner and size (the folder itself first, as `""`), parents before
/// children. The copies in the area are private (0700 folders): their real modes and owners
/// are the manifest's.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Manifest {
    entries: Vec<ManifestEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct ManifestEntry {
    /// Below the folder: `""` (the folder), `/sub`, `/sub/file`.
    path: String,
    kind: kaiport_protocol::tools::EntryKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mode: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gid: Option<u32>,
    #[serde(default)]
    size: u64,
}

/// A manifest is this large at most (some 100 bytes an entry).
const MAX_MANIFEST_BYTES: u64 = 256 * 1024 * 1024;
/// Files copied into (or out of) a folder's backup at a time.
const COPIES_IN_FLIGHT: usize = 8;

impl Manifest {
    /// The manifest of `folder` (at `path`) and `tree` (its entries, as walked).
    fn of(path: &str, folder: &Metadata, tree: &[(String, Metadata)]) -> Manifest {
        let entry = |below: &str, found: &Metadata| ManifestEntry {
            path: below.to_owned(),
            kind: found.kind,
            mode: found.mode,
            uid: found.uid,
            gid: found.gid,
            size: found.size,
        };
        let mut entries = vec![entry("", folder)];
        for (entry_path, found) in tree {
            if let Some(below) = entry_path.strip_prefix(path) {
                entries.push(entry(below, found));
            }
        }
        Manifest { entries }
    }
}

/// Keeps the folder `facts.path` with everything in `tree` (as walked through `files`) and
/// writes the change's record (marked `folder`), before a recursive delete. An error means
/// nothing may be deleted; a half-made backup is removed.
pub async fn take_folder(
    files: &dyn FileAccess,
    planned: &PlannedBackup,
    facts: &ChangeFacts<'_>,
    tree: &[(String, Metadata)],
) -> Result<(), String> {
    let Some(area) = &planned.area else {
        return Ok(());
    };
    let (raw_files, root) = raw(files);
    area.ensure(raw_files).await?;
    if let Some(backup) = &planned.backup
        && let Some(folder) = facts.before
    {
        let manifest = Manifest::of(facts.path, folder, tree);
        if let Err(error) = copy_folder(
            raw_files,
            &format!("{root}{}", facts.path),
            backup,
            &manifest,
        )
        .await
        {
            remove_backup(raw_files, backup).await;
            return Err(error);
        }
    }
    write_record(raw_files, area, planned, facts, root, true).await
}

/// Copies the folder `path` into the new backup folder `backup` as `manifest` lists it.
async fn copy_folder(
    files: &dyn FileAccess,
    path: &str,
    backup: &str,
    manifest: &Manifest,
) -> Result<(), String> {
    use futures::StreamExt;
    use kaiport_protocol::tools::EntryKind;
    let tree = join(backup, "tree");
    for folder in [backup, tree.as_str()] {
        files
            .make_dir(folder, false)
            .await
            .map_err(|error| format!("cannot make the backup {backup}: {error}"))?;
        files
            .set_attributes(folder, Some(0o700), None)
            .await
            .map_err(|error| format!("cannot make the backup {backup} private: {error}"))?;
    }
    for entry in &manifest.entries {
        if entry.kind == EntryKind::Dir && !entry.path.is_empty() {
            files
                .make_dir(&format!("{tree}{}", entry.path), false)
                .await
                .map_err(|error| format!("cannot make the backup {backup}: {error}"))?;
        }
    }
    let copies: Vec<_> = manifest
        .entries
        .iter()
        .filter(|entry| entry.kind != EntryKind::Dir)
        .map(|entry| {
            let from = format!("{path}{}", entry.path);
            let to = format!("{tree}{}", entry.path);
            async move {
                match entry.kind {
                    EntryKind::Symlink => {
                        let target = files
                            .read_link(&from)
                            .await
                            .map_err(|error| format!("cannot read the link {from}: {error}"))?;
                        files
                            .make_symlink(&target, &to)
                            .await
                            .map_err(|error| format!("cannot keep the link {from}: {error}"))
                    }
                    _ => {
                        let found = Metadata {
                            kind: entry.kind,
                            size: entry.size,
                            ..Metadata::bare_folder()
                        };
                        copy_old(files, &from, &to, Some(&found)).await
                    }
                }
            }
        })
        .collect();
    let mut copies = futures::stream::iter(copies).buffer_unordered(COPIES_IN_FLIGHT);
    while let Some(copied) = copies.next().await {
        copied?;
    }
    let json = serde_json::to_vec(manifest)
        .map_err(|error| format!("cannot encode the backup's manifest: {error}"))?;
    files
        .create_private(&join(backup, "manifest.json"), &json)
        .await
        .map_err(|error| format!("cannot write the backup's manifest: {error}"))
}

/// Puts a folder back from its backup `backup` at `path` (which must not exist): folders,
/// files (bytes and mode) and links, then each one's owner and group where this login may
/// give them (root may). Returns the bytes written and a warning when owners could not be
/// given back.
pub async fn restore_folder(
    files: &dyn FileAccess,
    backup: &str,
    path: &str,
    cancel: &tokio_util::sync::CancellationToken,
) -> Result<(u64, Option<String>), String> {
    use futures::StreamExt;
    use kaiport_protocol::tools::EntryKind;
    let (files, root) = raw(files);
    let path = format!("{root}{path}");
    let raw_manifest = read_whole(files, &join(backup, "manifest.json"), MAX_MANIFEST_BYTES)
        .await
        .map_err(|error| format!("cannot read the backup's manifest: {error}"))?;
    let manifest: Manifest = serde_json::from_slice(&raw_manifest)
        .map_err(|error| format!("the backup's manifest is damaged: {error}"))?;
    let tree = join(backup, "tree");
    let folders: Vec<&ManifestEntry> = manifest
        .entries
        .iter()
        .filter(|entry| entry.kind == EntryKind::Dir)
        .collect();
    for folder in &folders {
        files
            .make_dir(&format!("{path}{}", folder.path), false)
            .await
            .map_err(|error| error.for_model())?;
    }
    let copies: Vec<_> = manifest
        .entries
        .iter()
        .filter(|entry| entry.kind != EntryKind::Dir)
        .map(|entry| {
            let from = format!("{tree}{}", entry.path);
            let to = format!("{path}{}", entry.path);
            async move {
                if entry.kind == EntryKind::Symlink {
                    let target = files
                        .read_link(&from)
                        .await
                        .map_err(|error| error.for_model())?;
                    files
                        .make_symlink(&target, &to)
                        .await
                        .map_err(|error| error.for_model())?;
                    return Ok(0);
                }
                let options = crate::fs::WriteOptions {
                    mode: entry.mode,
                    expect: Some(None),
                    size: Some(entry.size),
                    keep_owner: false,
                };
                crate::storage::transfer::copy_file(
                    files, &from, files, &to, &options, None, cancel,
                )
                .await
                .map_err(|error| error.for_model())
            }
        })
        .collect();
    let mut copies = futures::stream::iter(copies).buffer_unordered(COPIES_IN_FLIGHT);
    let mut written = 0u64;
    while let Some(copied) = copies.next().await {
        written += copied?;
    }
    // Owners, then modes (a change of owner may clear set-id bits); folders deepest first, so
    // a folder's own mode never stops work inside it.
    let mut not_given = 0usize;
    let mut entries: Vec<&ManifestEntry> = manifest.entries.iter().collect();
    entries.sort_by_key(|entry| std::cmp::Reverse(entry.path.len()));
    for entry in entries {
        let at = format!("{path}{}", entry.path);
        if entry.kind == EntryKind::Symlink {
            continue;
        }
        if let (Some(uid), Some(gid)) = (entry.uid, entry.gid) {
            let now = files.symlink_metadata(&at).await.ok();
            let kept = now.is_some_and(|found| found.uid == Some(uid) && found.gid == Some(gid));
            if !kept
                && files
                    .set_attributes(&at, None, Some((uid, gid)))
                    .await
                    .is_err()
            {
                not_given += 1;
            }
        }
        if let Some(mode) = entry.mode {
            files
                .set_attributes(&at, Some(mode), None)
                .await
                .map_err(|error| error.for_model())?;
        }
    }
    let warning = (not_given > 0).then(|| {
        format!(
            "the folder is back with its bytes and modes, but this login could not give {not_given} entries their owner back"
        )
    });
    Ok((written, warning))
}

/// Removes a backup: a file, or a folder's backup with all it holds.
async fn remove_backup(files: &dyn FileAccess, backup: &str) {
    let removed = match files.symlink_metadata(backup).await {
        Ok(found) if found.kind == kaiport_protocol::tools::EntryKind::Dir => {
            remove_folder(files, backup).await
        }
        _ => files.remove_file(backup).await,
    };
    if let Err(error) = removed
        && error.kind != FsErrorKind::NotFound
    {
        tracing::debug!(path = %backup, error = %error, "could not remove a backup");
    }
}

/// Removes the folder `path` and everything in it (links not followed).
fn remove_folder<'a>(
    files: &'a dyn FileAccess,
    path: &'a str,
) -> futures::future::BoxFuture<'a, Result<(), crate::fs::FsError>> {
    Box::pin(async move {
        for item in files.read_dir(path).await? {
            let inner = join(path, &item.name);
            if item.metadata.kind == kaiport_protocol::tools::EntryKind::Dir {
                remove_folder(files, &inner).await?;
            } else {
                files.remove_file(&inner).await?;
            }
        }
        files.remove_dir(path).await
    })
}

/// The bytes of the files under the folder `path` (links not followed).
fn folder_bytes<'a>(
    files: &'a dyn FileAccess,
    path: &'a str,
) -> futures::future::BoxFuture<'a, u64> {
    Box::pin(async move {
        let Ok(items) = files.read_dir(path).await else {
            return 0;
        };
        let mut total = 0;
        for item in items {
            match item.metadata.kind {
                kaiport_protocol::tools::EntryKind::Dir => {
                    total += folder_bytes(files, &join(path, &item.name)).await;
                }
                _ => total += item.metadata.size,
            }
        }
        total
    })
}

/// What a change does, for its record.
pub struct ChangeFacts<'a> {
    pub tool: &'a str,
    /// The file changed (links followed).
    pub path: &'a str,
    pub action: ChangeAction,
    /// The old file, when there was one.
    pub before: Option<&'a Metadata>,
    pub sudo: bool,
    pub undoes: Option<&'a str>,
}

fn record_of(planned: &PlannedBackup, facts: &ChangeFacts<'_>) -> ChangeRecord {
    ChangeRecord {
        id: planned.id.clone(),
        time: crate::audit::now_rfc3339(),
        tool: facts.tool.to_owned(),
        path: facts.path.to_owned(),
        action: facts.action,
        backup: planned.backup.clone(),
        note: planned.note.clone(),
        size: facts.before.map(|found| found.size),
        mode: facts.before.and_then(|found| found.mode),
        uid: facts.before.and_then(|found| found.uid),
        gid: facts.before.and_then(|found| found.gid),
        sudo: facts.sudo,
        undoes: facts.undoes.map(str::to_owned),
        folder: false,
        undoable: false,
    }
}

/// Keeps the old content (unless it goes through sudo, whose script copies it) and writes the
/// change's record, before the change. An error means nothing may be changed: the old content
/// could not be kept.
pub async fn take(
    files: &dyn FileAccess,
    planned: &PlannedBackup,
    facts: &ChangeFacts<'_>,
) -> Result<(), String> {
    let Some(area) = &planned.area else {
        return Ok(());
    };
    let (files, root) = raw(files);
    let path = format!("{root}{}", facts.path);
    area.ensure(files).await?;
    if let Some(backup) = &planned.backup
        && !facts.sudo
    {
        copy_old(files, &path, backup, facts.before).await?;
    }
    write_record(files, area, planned, facts, root, false).await
}

/// Writes the record of a change whose old content is kept (`folder`: a folder's); on failure
/// the backup is removed.
async fn write_record(
    files: &dyn FileAccess,
    area: &Area,
    planned: &PlannedBackup,
    facts: &ChangeFacts<'_>,
    root: &str,
    folder: bool,
) -> Result<(), String> {
    let mut record = record_of(planned, facts);
    record.path = format!("{root}{}", facts.path);
    record.folder = folder;
    let json = serde_json::to_vec_pretty(&record)
        .map_err(|error| format!("cannot encode the change record: {error}"))?;
    if let Err(error) = files
        .create_private(&area.record_path(&planned.id), &json)
        .await
    {
        discard(files, planned).await;
        return Err(format!("cannot write the change record: {error}"));
    }
    Ok(())
}

/// Puts the old content of `path` at `backup`: a hard link where the server makes one, else a
/// copy made by the server (SFTP `copy-data`), else a copy through kaiport.
async fn copy_old(
    files: &dyn FileAccess,
    path: &str,
    backup: &str,
    before: Option<&Metadata>,
) -> Result<(), String> {
    if files.hard_link(path, backup).await.is_ok() {
        return Ok(());
    }
    if let Some(found) = before
        && let Ok(true) = files.copy_on_server(path, backup, found.size).await
    {
        return Ok(());
    }
    // A half copy the server left is not a backup.
    if let Err(error) = files.remove_file(backup).await
        && error.kind != FsErrorKind::NotFound
    {
        return Err(format!("cannot clear the backup {backup}: {error}"));
    }
    let limit = before.map_or(u64::MAX, |found| found.size.saturating_add(1));
    let data = read_whole(files, path, limit)
        .await
        .map_err(|error| format!("cannot read the file to back it up: {error}"))?;
    files
        .create_private(backup, &data)
        .await
        .map_err(|error| format!("cannot write the backup {backup}: {error}"))
}

/// Removes what [`take`] made, for a change that did not happen.
pub async fn discard(files: &dyn FileAccess, planned: &PlannedBackup) {
    let Some(area) = &planned.area else {
        return;
    };
    let (files, _) = raw(files);
    let mut doomed = vec![area.record_path(&planned.id)];
    if let Some(backup) = &planned.backup
        && backup.starts_with(&area.user)
    {
        doomed.push(backup.clone());
    }
    for path in doomed {
        remove_backup(files, &path).await;
    }
}

/// Removes backups older than the age limit, then the oldest until the rest fit the size
/// limit; `keep` (the change just made) is never removed. Failures are logged, not returned:
/// the change itself is done.
pub async fn prune(files: &dyn FileAccess, area: &Area, limits: &Limits, keep: &str) {
    let (files, _) = raw(files);
    let Ok(items) = files.read_dir(&area.user).await else {
        return;
    };
    let now = chrono::Utc::now().timestamp();
    // Per id: its record and data (with size), newest first.
    let mut ids: Vec<(String, u64)> = Vec::new();
    for item in &items {
        let Some(id) = item
            .name
            .strip_suffix(".json")
            .or_else(|| item.name.strip_suffix(".data"))
        else {
            continue;
        };
        if !is_id(id) {
            continue;
        }
        let size = match item.name.ends_with(".data") {
            true if item.metadata.kind == kaiport_protocol::tools::EntryKind::Dir => {
                folder_bytes(files, &join(&area.user, &item.name)).await
            }
            true => item.metadata.size,
            false => 0,
        };
        match ids.iter_mut().find(|(known, _)| known == id) {
            Some((_, total)) => *total += size,
            None => ids.push((id.to_owned(), size)),
        }
    }
    ids.sort_by(|a, b| b.0.cmp(&a.0));
    let mut total = 0u64;
    for (id, size) in ids {
        if id == keep {
            total += size;
            continue;
        }
        let too_old = id_time(&id).is_some_and(|time| now - time > limits.max_age_s);
        total += size;
        if too_old || total > limits.total_bytes {
            total -= size;
            for name in [format!("{id}.data"), format!("{id}.json")] {
                remove_backup(files, &join(&area.user, &name)).await;
            }
        }
    }
}

/// The changes recorded on `files`, newest first (`path`: only those of that file), each
/// marked whether it can be undone now.
pub async fn list(
    files: &dyn FileAccess,
    area: &Area,
    path: Option<&str>,
) -> Result<Vec<ChangeRecord>, String> {
    let (files, root) = raw(files);
    let path = path.map(|wanted| format!("{root}{wanted}"));
    let items = match files.read_dir(&area.user).await {
        Ok(items) => items,
        Err(error) if error.kind == FsErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(format!("cannot list the backup area: {error}")),
    };
    let names: std::collections::HashSet<&str> =
        items.iter().map(|item| item.name.as_str()).collect();
    let mut records = Vec::new();
    for item in &items {
        let Some(id) = item.name.strip_suffix(".json") else {
            continue;
        };
        if !is_id(id) {
            continue;
        }
        let Ok(raw) = read_whole(files, &join(&area.user, &item.name), MAX_RECORD_BYTES).await
        else {
            continue;
        };
        let Ok(mut record) = serde_json::from_slice::<ChangeRecord>(&raw) else {
            continue;
        };
        if record.id != id || path.as_ref().is_some_and(|wanted| *wanted != record.path) {
            continue;
        }
        record.undoable = match (&record.action, &record.backup) {
            (ChangeAction::Created, _) => true,
            (_, None) => false,
            (_, Some(backup)) => {
                let kept = match backup.strip_prefix(&format!("{}/", area.user)) {
                    Some(name) => names.contains(name),
                    // Root's area: the login can look at a name there, not list it.
                    None => match files.symlink_metadata(backup).await {
                        Ok(_) => true,
                        Err(error) => error.kind != FsErrorKind::NotFound,
                    },
                };
                if !kept {
                    record.note = Some("backup pruned since (older or over the size limit)".into());
                }
                kept
            }
        };
        records.push(record);
    }
    records.sort_by(|a, b| b.id.cmp(&a.id));
    Ok(records)
}

/// The record of change `id`, if this area has it.
pub async fn find(
    files: &dyn FileAccess,
    area: &Area,
    id: &str,
) -> Result<Option<ChangeRecord>, String> {
    if !is_id(id) {
        return Err(format!(
            "{id:?} is not a change id (they look like 20261205T094425123Z-1a2b3c4d; see list_changes)"
        ));
    }
    Ok(list(files, area, None)
        .await?
        .into_iter()
        .find(|record| record.id == id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_sort_by_time_and_parse_back() {
        let id = new_id();
        assert!(is_id(&id), "{id}");
        let now = chrono::Utc::now().timestamp();
        assert!((now - id_time(&id).unwrap()).abs() < 5);
        assert!(!is_id("../../etc/passwd"));
        assert!(!is_id("20261205T094425123Z-zzzzzzzz"));
        assert!(!is_id("20261205T094425Z-1a2b3c4d"));
        assert!(is_id("20261205T094425123Z-1a2b3c4d"));
        assert!("20261205T094425123Z-ffffffff" < "20261205T094425124Z-00000000");
    }

    #[test]
    fn a_connection_is_one_safe_folder_name() {
        assert_eq!(slug_of("sftp://alice@db1:22"), "alice@db1_22");
        assert_eq!(slug_of("sftp://a/../b"), "a_.._b");
        assert_eq!(slug_of(".."), "connection");
    }

    #[test]
    fn a_folder_is_kept_whole_only_within_the_limits() {
        use kaiport_protocol::tools::EntryKind;
        let item = |kind: EntryKind, size: u64| Metadata {
            kind,
            size,
            ..Metadata::bare_folder()
        };
        let limits = Limits {
            total_bytes: 3 * 1024 * 1024,
            max_age_s: 86_400,
            file_bytes: 2 * 1024 * 1024,
        };
        let mut tree = vec![
            ("/f/a".to_owned(), item(EntryKind::File, 1024 * 1024)),
            ("/f/sub".to_owned(), item(EntryKind::Dir, 4096)),
            ("/f/sub/l".to_owned(), item(EntryKind::Symlink, 9)),
            ("/f/sub/b".to_owned(), item(EntryKind::File, 1024 * 1024)),
        ];
        assert_eq!(
            folder_refusal(&limits, &tree),
            None,
            "folders and links count nothing"
        );
        tree.push(("/f/c".to_owned(), item(EntryKind::File, 1536 * 1024)));
        assert_eq!(
            folder_refusal(&limits, &tree).as_deref(),
            Some("no backup: folder too large (3.5 MB, limit 3.0 MB)")
        );
        tree.truncate(3);
        tree.remove(0);
        tree.push((
            "/f/big".to_owned(),
            item(EntryKind::File, 2 * 1024 * 1024 + 1),
        ));
        assert!(
            folder_refusal(&limits, &tree)
                .unwrap()
                .starts_with("no backup: the folder holds a file too large (2.0 MB;")
        );
        tree.pop();
        tree.push(("/f/sock".to_owned(), item(EntryKind::Other, 0)));
        assert!(folder_refusal(&limits, &tree).unwrap().contains("sockets"));
    }

    #[test]
    fn a_manifest_lists_the_folder_first_then_below_it() {
        use kaiport_protocol::tools::EntryKind;
        let folder = Metadata {
            mode: Some(0o750),
            uid: Some(7),
            gid: Some(8),
            ..Metadata::bare_folder()
        };
        let file = Metadata {
            kind: EntryKind::File,
            size: 5,
            mode: Some(0o600),
            ..Metadata::bare_folder()
        };
        let manifest = Manifest::of("/srv/site", &folder, &[("/srv/site/a b".to_owned(), file)]);
        let paths: Vec<(&str, u64, Option<u32>)> = manifest
            .entries
            .iter()
            .map(|entry| (entry.path.as_str(), entry.size, entry.mode))
            .collect();
        assert_eq!(paths, vec![("", 0, Some(0o750)), ("/a b", 5, Some(0o600))]);
        let json = serde_json::to_string(&manifest).unwrap();
        assert_eq!(serde_json::from_str::<Manifest>(&json).unwrap(), manifest);
    }

    #[test]
    fn card_lines_name_the_backup_or_say_why_not() {
        let mut planned = PlannedBackup::none(Some("no backup: file too large".into()));
        assert_eq!(
            planned.card_line().as_deref(),
            Some("no backup: file too large")
        );
        planned.backup = Some("/home/u/x.data".into());
        assert!(
            planned
                .card_line()
                .unwrap()
                .starts_with("backup: /home/u/x.data (change ")
        );
    }
}
