//! One way to reach files, whatever carries them: [`FileAccess`], with an SFTP implementation
//! ([`SftpFiles`], over the tab's SSH connection) and a local one ([`LocalFiles`]). The file tools
//! (`tools/files`) are written once against the trait; the storage services of storage tabs
//! implement it too, and say what they can do through [`Capabilities`].
//!
//! Contract of every implementation:
//! - reads and writes stream with bounded memory (a 1 GiB file never sits in memory);
//! - [`FileAccess::write_atomic`] never leaves a half-written target: the data goes to a temporary
//!   file beside it which replaces the target only once complete (and flushed where the transport
//!   can); on any failure the temporary file is removed and the original stays byte-identical
//!   (where the server cannot be reached then, the next write to that target removes it, see
//!   [`temp`]); listings leave out the temps of writes in flight;
//! - listings never follow symlinks: a link is reported as a link;
//! - [`FileAccess::resolve_write_target`] answers where a write really lands, from the server,
//!   so that a link to a protected file is judged as that file;
//! - errors name the path and say what went wrong in words a user can act on.
//!
//! This module must never log file contents.

mod confined;
mod local;
mod sftp;
pub mod temp;

pub use confined::ConfinedLocal;
pub(crate) use confined::resolve_existing;
pub use local::LocalFiles;
pub(crate) use local::write_target as local_write_target;
pub use sftp::SftpFiles;
pub(crate) use temp::TempName;

use async_trait::async_trait;
use futures::stream::{BoxStream, StreamExt};
use kaiport_protocol::tools::EntryKind;
use tokio::io::{AsyncRead, AsyncWrite};

/// What a transport can do; tools adapt (e.g. no sudo writes without permissions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// Rename replaces an existing target in one step (posix-rename or an OS rename).
    pub atomic_rename: bool,
    /// Unix owner, group and mode bits exist and can be set.
    pub permissions: bool,
    /// Symlinks exist and can be told apart from what they point to.
    pub symlinks: bool,
    /// Written data can be flushed to stable storage before the rename.
    pub fsync: bool,
}

/// Facts about one file, folder or link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    pub kind: EntryKind,
    pub size: u64,
    /// Seconds since the Unix epoch.
    pub modified: Option<i64>,
    /// Permission bits (`0o7777`), where the transport has them.
    pub mode: Option<u32>,
    pub uid: Option<u32>,
    pub gid: Option<u32>,
    /// The content's MD5 where the service states it (an Azure blob's Content-MD5; S3 ETags
    /// are not taken for one, see `storage::object`): transfers check the bytes they read
    /// against it before the copy gets its real name.
    pub md5: Option<[u8; 16]>,
    /// A tag of this very content where the service gives one (the ETag of an S3 object or an
    /// Azure blob): a download read in several requests compares it at its end, so a file
    /// replaced meanwhile is reported rather than saved as a mix of the two.
    pub version: Option<String>,
}

impl Metadata {
    /// A folder with no facts known beyond its kind (a service's root, a folder above a storage
    /// tab's opened ones).
    pub fn bare_folder() -> Metadata {
        Metadata {
            kind: EntryKind::Dir,
            size: 0,
            modified: None,
            mode: None,
            uid: None,
            gid: None,
            md5: None,
            version: None,
        }
    }

    /// Size and modification time: what "changed since it was read" compares first.
    pub fn stamp(&self) -> Stamp {
        Stamp {
            size: self.size,
            modified: self.modified,
        }
    }
}

/// Size and modification time of a file at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub size: u64,
    pub modified: Option<i64>,
}

/// One entry of a folder listing (not followed if it is a link).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirItem {
    pub name: String,
    pub metadata: Metadata,
}

/// How [`FileAccess::write_atomic`] writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Permission bits for the new file; `None`: keep the target's, or the transport's default
    /// for a new file.
    pub mode: Option<u32>,
    /// Refuse ([`FsErrorKind::Changed`]) unless the target still has this size and time right
    /// before it is replaced; `Some(None)`: refuse if the target exists by then.
    pub expect: Option<Option<Stamp>>,
    /// How many bytes the data will have, where the caller knows (a transfer does): object
    /// stores size their upload parts by it, as S3 takes at most 10,000 parts.
    pub size: Option<u64>,
    /// Refuse ([`FsErrorKind::PermissionDenied`], nothing replaced) when the new file could not
    /// be given the existing target's owner and group: the file tools keep them or write
    /// nothing (sudo can).
    pub keep_owner: bool,
}

/// Why [`FileAccess::write_atomic_gated`] replaced nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gated {
    /// The gate failed (its message); the target was not touched.
    Gate(String),
    /// The write itself failed (the gate may have succeeded: its work is the caller's to undo).
    Write(FsError),
}

/// What went wrong, in kinds a caller can act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FsErrorKind {
    NotFound,
    PermissionDenied,
    AlreadyExists,
    /// The target changed between the read it was checked against and the write.
    Changed,
    /// The connection dropped; nothing more can be done on it.
    ConnectionLost,
    /// The transport cannot do this.
    Unsupported,
    Other,
}

/// A failed file operation: which path, what kind of failure, and the transport's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct FsError {
    pub kind: FsErrorKind,
    pub path: String,
    pub message: String,
    /// Where the server's own words start in `message` (they run to its end): an SFTP status
    /// message, an FTP reply, what a WebDAV server or an object store said. None: all
    /// kaiport's words.
    pub server_from: Option<usize>,
}

impl FsError {
    pub fn new(kind: FsErrorKind, path: &str, message: impl Into<String>) -> FsError {
        FsError {
            kind,
            path: path.to_owned(),
            message: message.into(),
            server_from: None,
        }
    }

    /// The same error, its whole message marked as the server's words.
    pub fn said_by_server(mut self) -> FsError {
        self.server_from = Some(0);
        self
    }

    /// An error whose message is kaiport's `prefix` followed by what the server `said`.
    pub fn with_server_words(kind: FsErrorKind, path: &str, prefix: &str, said: &str) -> FsError {
        FsError {
            server_from: Some(prefix.len()),
            ..FsError::new(kind, path, format!("{prefix}{said}"))
        }
    }

    /// The error as the model gets it: the server's words marked for framing
    /// ([`crate::taint::server_text`]).
    pub fn for_model(&self) -> String {
        match self
            .server_from
            .filter(|&at| self.message.is_char_boundary(at))
        {
            Some(at) => format!(
                "{}: {}{}",
                self.path,
                &self.message[..at],
                crate::taint::server_text(&self.message[at..])
            ),
            None => self.to_string(),
        }
    }
}

/// A byte sink for streamed reads.
pub type Sink<'a> = &'a mut (dyn AsyncWrite + Send + Unpin);
/// A byte source for streamed writes.
pub type Source<'a> = &'a mut (dyn AsyncRead + Send + Unpin);

/// Access to the files of one tab side. Paths are absolute (`/` separated on remote sides).
/// See the module docs for the contract every implementation keeps.
#[async_trait]
pub trait FileAccess: Send + Sync {
    /// Where these files are, for messages (`sftp://user@host:22`, `local`).
    fn location(&self) -> String;

    fn capabilities(&self) -> Capabilities;

    /// Facts about `path`, following a final symlink.
    async fn metadata(&self, path: &str) -> Result<Metadata, FsError>;

    /// Facts about `path` itself (a symlink is reported as one).
    async fn symlink_metadata(&self, path: &str) -> Result<Metadata, FsError>;

    /// The entries of the folder `path` (without `.` and `..`), links not followed.
    async fn read_dir(&self, path: &str) -> Result<Vec<DirItem>, FsError>;

    /// Where the symlink `path` points.
    async fn read_link(&self, path: &str) -> Result<String, FsError>;

    /// The path a write to `path` really changes: links in its folders followed, and a final
    /// link followed to its target (which is written, the link staying). The approval rules
    /// decide on this path as well as on the one given (`policy` module docs), so an
    /// implementation must answer from the server itself, in one round trip, and must fail
    /// rather than guess. Transports without symlinks answer `path` as it is.
    async fn resolve_write_target(&self, path: &str) -> Result<String, FsError> {
        Ok(path.to_owned())
    }

    /// Streams up to `max_len` bytes of `path` from `offset` into `sink`; returns how many were
    /// written. Stops early at the end of the file.
    async fn read_into(
        &self,
        path: &str,
        offset: u64,
        max_len: u64,
        sink: Sink<'_>,
    ) -> Result<u64, FsError>;

    /// Replaces (or creates) `path` with everything `source` yields, atomically (module docs).
    /// The parent folder must exist. Returns the bytes written.
    async fn write_atomic(
        &self,
        path: &str,
        source: Source<'_>,
        options: &WriteOptions,
    ) -> Result<u64, FsError>;

    /// [`FileAccess::write_atomic`] with `gate` (keeping a backup of the old content) run
    /// alongside: the target is replaced only once the gate has succeeded, and a failed gate
    /// replaces nothing ([`Gated::Gate`]). Transports that write through a temp file upload the
    /// new content while the gate runs (the old file stays untouched until the rename); the
    /// default runs the gate first.
    async fn write_atomic_gated(
        &self,
        path: &str,
        source: Source<'_>,
        options: &WriteOptions,
        gate: futures::future::BoxFuture<'_, Result<(), String>>,
    ) -> Result<u64, Gated> {
        gate.await.map_err(Gated::Gate)?;
        self.write_atomic(path, source, options)
            .await
            .map_err(Gated::Write)
    }

    /// Creates the new file `path` (refused if anything exists there) readable only by the
    /// connection's user, with `data`.
    async fn create_private(&self, path: &str, data: &[u8]) -> Result<(), FsError>;

    /// Removes the file `path`.
    async fn remove_file(&self, path: &str) -> Result<(), FsError>;

    /// A folder where [`FileAccess::create_private`] may put short-lived files.
    fn temp_dir(&self) -> String;

    /// How many independent requests (folder listings, small reads) a walk keeps in flight.
    /// Transports where requests are cheap to overlap (SFTP) say more.
    fn parallel_requests(&self) -> usize {
        DEFAULT_PARALLEL_REQUESTS
    }

    /// Reads many small files whole, each up to `limit` bytes like [`read_whole`], overlapping
    /// the requests; results come back in the order of `files`. Each file comes with the size
    /// its listing gave (a hint for the read size); a file listed as empty is not read and
    /// yields no bytes. Reads already started finish even if the stream is dropped.
    fn read_files<'a>(
        &'a self,
        files: BoxStream<'a, (String, u64)>,
        limit: u64,
    ) -> BoxStream<'a, (String, Result<Vec<u8>, FsError>)> {
        files
            .map(move |(path, size)| async move {
                let mut data = Vec::new();
                let result = match size {
                    0 => Ok(data),
                    _ => self
                        .read_into(&path, 0, limit, &mut data)
                        .await
                        .map(|_| data),
                };
                (path, result)
            })
            .buffered(self.parallel_requests())
            .boxed()
    }

    /// Sorts out where the files are which of `paths` may contain one of `needles` (byte
    /// strings) or a NUL byte, so that files which cannot match a search need not be read (over
    /// SSH, grep runs on the server). Sends `(path, may_contain)` to `answers` in the order of
    /// `paths`; a path left without an answer (a file the server could not read, a scan cut
    /// short) must be read. Transports that cannot scan answer nothing and return at once.
    async fn scan_contents(
        &self,
        needles: &[Vec<u8>],
        paths: BoxStream<'_, String>,
        answers: futures::channel::mpsc::UnboundedSender<(String, bool)>,
    ) {
        let _ = (needles, paths, answers);
    }

    // --- Backups of replaced and deleted files (the `backup` module). Defaults say "none".

    /// For a view of one folder of another side (a storage tab's URL folder shown as `/`):
    /// that side, and the folder (no trailing `/`) a path here is under there. Backups are
    /// kept through it, outside the view. `None`: this side is itself.
    fn unrooted(&self) -> Option<(&dyn FileAccess, &str)> {
        None
    }

    /// The login user's home folder on this side, where the backup area lives; `None` where
    /// this side keeps no backups (only SSH servers do).
    async fn home_dir(&self) -> Option<String> {
        None
    }

    /// Where the service itself keeps the previous version of a file replaced or deleted here
    /// (an S3 bucket's versioning, Azure's soft delete): what the change says instead of "no
    /// backup". `None` where it keeps none or does not tell.
    async fn old_versions_kept(&self) -> Option<String> {
        None
    }

    /// Makes `to` a second name of the file `from` (no bytes copied). Fails where the server
    /// cannot (another file system, links protected, no extension), and the caller copies.
    async fn hard_link(&self, from: &str, to: &str) -> Result<(), FsError> {
        let _ = to;
        Err(unsupported(&self.location(), from, "hard links"))
    }

    /// Makes the symbolic link `link` pointing at `target` (taken as it is, not resolved).
    async fn make_symlink(&self, target: &str, link: &str) -> Result<(), FsError> {
        let _ = target;
        Err(unsupported(&self.location(), link, "making links"))
    }

    /// Sets the permission bits and, where given, owner and group of `path`.
    async fn set_attributes(
        &self,
        path: &str,
        mode: Option<u32>,
        owner: Option<(u32, u32)>,
    ) -> Result<(), FsError> {
        let _ = (mode, owner);
        Err(unsupported(&self.location(), path, "setting permissions"))
    }

    // --- Storage operations (storage tabs). Defaults say "unsupported" so a transport that
    // lacks one fails with a clear error instead of doing something else.

    /// Creates the folder `path`; with `parents`, missing parent folders too. An existing folder
    /// is not an error.
    async fn make_dir(&self, path: &str, parents: bool) -> Result<(), FsError> {
        let _ = parents;
        Err(unsupported(&self.location(), path, "creating folders"))
    }

    /// Renames the file `from` to `to` in one step where the service can. Never replaces an
    /// existing `to` silently: fails with [`FsErrorKind::AlreadyExists`] unless `replace`.
    async fn rename_file(&self, from: &str, to: &str, replace: bool) -> Result<(), FsError> {
        let _ = (to, replace);
        Err(unsupported(&self.location(), from, "renaming"))
    }

    /// Whether [`FileAccess::rename_dir`] works (else folders move by copy + delete).
    /// Folders are only the common prefix of keys (S3, Azure Blob): a file may be written into
    /// a folder nobody made, and a made empty folder may not outlive the tab that made it.
    fn folders_are_prefixes(&self) -> bool {
        false
    }

    fn renames_folders(&self) -> bool {
        false
    }

    /// Renames the folder `from` to the new name `to` (which must not exist) in one step.
    async fn rename_dir(&self, from: &str, to: &str) -> Result<(), FsError> {
        let _ = to;
        Err(unsupported(&self.location(), from, "renaming folders"))
    }

    /// Copies the file `from` (of `size` bytes, as listed) to the new name `to` on the server
    /// itself, where the service can do it in one atomic step (S3 CopyObject): the bytes never
    /// pass through kaiport. The copy is checked against `size`. Never replaces: fails with
    /// [`FsErrorKind::AlreadyExists`] if `to` exists. `Ok(false)`: not here (the service, or
    /// this file's size, does not allow it); copy through kaiport instead.
    async fn copy_on_server(&self, from: &str, to: &str, size: u64) -> Result<bool, FsError> {
        let _ = (from, to, size);
        Ok(false)
    }

    /// Removes the empty folder `path`.
    async fn remove_dir(&self, path: &str) -> Result<(), FsError> {
        Err(unsupported(&self.location(), path, "removing folders"))
    }

    /// How many files [`FileAccess::remove_files`] removes with one request; 1 where the
    /// service has no batch delete (recursive deletes then remove file by file).
    fn delete_batch(&self) -> usize {
        1
    }

    /// Removes the files `paths` (at most [`FileAccess::delete_batch`] of them; each was just
    /// listed), with one request where the service can. One result per path, in order: `Ok`
    /// once that file is gone.
    async fn remove_files(&self, paths: &[String]) -> Vec<Result<(), FsError>> {
        let mut results = Vec::with_capacity(paths.len());
        for path in paths {
            results.push(self.remove_file(path).await);
        }
        results
    }

    /// Whether a successful [`FileAccess::write_atomic`] has put exactly the bytes it reports
    /// under the name in one step that the service confirmed (an object store's PUT or
    /// multipart commit; a local file written, fsynced and renamed), so a transfer need not ask
    /// for the file's size again afterwards.
    fn writes_are_exact(&self) -> bool {
        false
    }

    /// Whether a big file is read faster as several ranges at once than as one stream (see
    /// [`FileAccess::open_pieces`]).
    fn parallel_ranges(&self) -> bool {
        true
    }

    /// For downloads in several streams: a new temporary file beside `path` that pieces are
    /// written into at any offset, which takes `path`'s name only at [`Pieces::commit`] (the
    /// same guarantees as [`FileAccess::write_atomic`]). `None` where this side cannot (all but
    /// local files); the caller streams in order then.
    async fn open_pieces(
        &self,
        path: &str,
        options: &WriteOptions,
    ) -> Result<Option<std::sync::Arc<dyn Pieces>>, FsError> {
        let _ = (path, options);
        Ok(None)
    }

    /// Starts reading the whole file `path` with one request whose answer also states the
    /// file's facts (an HTTP GET's size and Content-MD5), so a transfer needs no separate
    /// metadata request per file. `None` where this side cannot (the default), or where `path`
    /// is not a plain file; the caller asks [`FileAccess::metadata`] and reads with
    /// [`FileAccess::read_into`] then.
    async fn open_file(&self, path: &str) -> Result<Option<OpenedFile>, FsError> {
        let _ = path;
        Ok(None)
    }
}

/// A whole-file read that has begun (see [`FileAccess::open_file`]).
pub struct OpenedFile {
    /// The facts the answer to the read stated (always a file).
    pub metadata: Metadata,
    /// The file's bytes from the start, in order, as the service sends them; the caller
    /// checks them against `metadata` (size, MD5). Dropping it ends the request.
    pub data: BoxStream<'static, Result<bytes::Bytes, FsError>>,
}

/// A block of a file read or written in pieces, placed in memory at a [`Block::ALIGN`] boundary
/// so that it can be read from the disk past the page cache (O_DIRECT wants aligned buffers).
pub struct Block {
    /// Padding up to the aligned start, then the data.
    buffer: Vec<u8>,
    start: usize,
    /// The bytes it was made for; it holds more only by reallocating (and losing alignment).
    capacity: usize,
}

impl Block {
    /// The alignment of the data in memory: a page, which covers every disk's block size.
    pub const ALIGN: usize = 4096;

    /// An empty block with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        let mut buffer: Vec<u8> = Vec::with_capacity(capacity + Self::ALIGN);
        let start = buffer.as_ptr().align_offset(Self::ALIGN).min(Self::ALIGN);
        buffer.resize(start, 0);
        Block {
            buffer,
            start,
            capacity,
        }
    }

    pub fn extend_from_slice(&mut self, data: &[u8]) {
        self.buffer.extend_from_slice(data);
    }

    pub fn len(&self) -> usize {
        self.buffer.len() - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.buffer[self.start..]
    }

    /// Reads from `source` until the block holds `capacity` bytes (as made) or the source ends.
    pub async fn fill_from(
        &mut self,
        source: &mut (dyn tokio::io::AsyncRead + Send + Unpin),
    ) -> std::io::Result<()> {
        use tokio::io::AsyncReadExt;
        while self.len() < self.capacity {
            let room = self.capacity - self.len();
            if source.take(room as u64).read_buf(&mut self.buffer).await? == 0 {
                break;
            }
        }
        Ok(())
    }

    /// Reads `file` from `offset` into the empty block until it holds `capacity` bytes or the
    /// file ends. Works on a file opened for reads past the page cache, which takes only
    /// aligned offsets and lengths: a read that comes back short of a whole [`Block::ALIGN`]
    /// is the file's end (`capacity` should be a multiple of it).
    #[cfg(unix)]
    pub fn read_at(&mut self, file: &std::fs::File, offset: u64) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        self.buffer.resize(self.start + self.capacity, 0);
        let mut filled = 0;
        let result = loop {
            let room = &mut self.buffer[self.start + filled..];
            if room.is_empty() {
                break Ok(());
            }
            match file.read_at(room, offset + filled as u64) {
                Ok(0) => break Ok(()),
                Ok(read) => {
                    filled += read;
                    if !read.is_multiple_of(Self::ALIGN) {
                        break Ok(());
                    }
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => break Err(error),
            }
        };
        self.buffer.truncate(self.start + filled);
        result
    }

    /// Whether the data starts at an [`Block::ALIGN`] boundary in memory (it may not after
    /// growing past its capacity).
    #[cfg(test)]
    fn is_aligned(&self) -> bool {
        self.as_slice().as_ptr().align_offset(Self::ALIGN) == 0
    }
}

/// A file being written in pieces (see [`FileAccess::open_pieces`]).
#[async_trait]
pub trait Pieces: Send + Sync {
    /// Writes `block` at `offset` of the temporary file.
    async fn write_at(&self, offset: u64, block: Block) -> Result<(), FsError>;

    /// Makes the temporary file durable and gives it the target's name (refused, and the
    /// temporary file removed, when the target changed against [`WriteOptions::expect`]).
    async fn commit(&self) -> Result<(), FsError>;

    /// Removes the temporary file; nothing was written under the target's name.
    async fn discard(&self);
}

/// [`FileAccess::parallel_requests`] unless a transport says otherwise.
pub const DEFAULT_PARALLEL_REQUESTS: usize = 32;

fn unsupported(location: &str, path: &str, what: &str) -> FsError {
    FsError::new(
        FsErrorKind::Unsupported,
        path,
        format!("{location} does not support {what}"),
    )
}

/// `/a`, `/a/b`, `/a/b/c` for `/a/b/c`: the folders to create, outermost first.
pub(crate) fn ancestors_and_self(path: &str) -> Vec<String> {
    let mut steps = Vec::new();
    let mut current = String::new();
    for part in path.split('/').filter(|part| !part.is_empty()) {
        current.push('/');
        current.push_str(part);
        steps.push(current.clone());
    }
    steps
}

/// Fails with [`FsErrorKind::AlreadyExists`] when something is at `path`.
pub(crate) async fn refuse_existing(
    files: &(impl FileAccess + ?Sized),
    path: &str,
) -> Result<(), FsError> {
    match files.symlink_metadata(path).await {
        Ok(_) => Err(FsError::new(
            FsErrorKind::AlreadyExists,
            path,
            "already exists; nothing was replaced",
        )),
        Err(error) if error.kind == FsErrorKind::NotFound => Ok(()),
        Err(error) => Err(error),
    }
}

/// Reads `path` whole into memory, refusing files over `limit` bytes (the size is checked
/// first, and the read stops at the limit should the file grow meanwhile).
pub async fn read_whole(
    files: &dyn FileAccess,
    path: &str,
    limit: u64,
) -> Result<Vec<u8>, FsError> {
    let mut data = Vec::new();
    files.read_into(path, 0, limit, &mut data).await?;
    Ok(data)
}

/// The folder part of `path` (`/` for top-level entries), and the final name.
pub fn split_parent(path: &str) -> (&str, &str) {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(0) => ("/", &trimmed[1..]),
        Some(at) => (&trimmed[..at], &trimmed[at + 1..]),
        None => (".", trimmed),
    }
}

/// Why a name a server listed is not used as a name in a folder, if it is not: it would be
/// another place once joined to the folder's path (`..`, `a/../../b`), or is no name at all.
/// `.` and `..` as folders are the folder itself and its parent, which SFTP and FTP servers list
/// in every folder; the transports leave those out before this is asked.
pub fn refused_name(name: &str) -> Option<&'static str> {
    match name {
        "" => Some("an empty name"),
        "." | ".." => Some("`.` or `..` as a name, which would be another folder"),
        _ if name.contains('/') => Some("a name holding `/`, which would be another path"),
        _ if name.contains('\0') => Some("a name holding a NUL byte"),
        _ => None,
    }
}

/// `dir` joined with `name` using `/`.
pub fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// Refuses when the target is not as it was when it was read.
pub(crate) fn check_unchanged(
    target: &str,
    expected: Option<Stamp>,
    now: Option<Stamp>,
) -> Result<(), FsError> {
    if expected == now {
        return Ok(());
    }
    let what = match (expected, now) {
        (Some(_), None) => "was removed",
        (None, Some(_)) => "was created by someone else",
        _ => "was changed",
    };
    Err(FsError::new(
        FsErrorKind::Changed,
        target,
        format!("the file {what} since it was read; nothing was written. Read it again first."),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[tokio::test]
    async fn a_block_is_aligned_and_fills_to_its_size() {
        let mut block = Block::with_capacity(10_000);
        assert!(block.is_aligned() && block.is_empty());
        let data: Vec<u8> = (0..25_000u32).map(|at| at as u8).collect();
        let mut source = &data[..];
        block.fill_from(&mut source).await.unwrap();
        assert_eq!(block.as_slice(), &data[..10_000]);
        assert!(block.is_aligned(), "filling moved the data");
        let mut rest = Block::with_capacity(20_000);
        rest.fill_from(&mut source).await.unwrap();
        assert_eq!(
            rest.as_slice(),
            &data[10_000..],
            "stops where the source ends"
        );
    }

    #[test]
    fn parents_and_names() {
        assert_eq!(split_parent("/etc/hosts"), ("/etc", "hosts"));
        assert_eq!(split_parent("/hosts"), ("/", "hosts"));
        assert_eq!(split_parent("/a/b/"), ("/a", "b"));
        assert_eq!(join("/", "x"), "/x");
        assert_eq!(join("/a", "x"), "/a/x");
        let mut temp = TempName::beside("/srv/app/config.yml");
        assert!(
            temp.starts_with("/srv/app/.config.yml.kaiport-"),
            "{temp:?}"
        );
        temp.settled();
    }

    #[test]
    fn names_that_would_be_another_place_are_refused() {
        for name in ["", ".", "..", "../escape", "a/b", "/etc", "x\0y"] {
            assert!(refused_name(name).is_some(), "{name:?}");
        }
        for name in ["a", ".hidden", "..x", "x..", "a b", "a\\b", "ünï"] {
            assert_eq!(refused_name(name), None, "{name:?}");
        }
    }
}
