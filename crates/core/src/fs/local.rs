//! [`FileAccess`] on this computer's own file system (the local terminal tab; through
//! `fs/confined.rs`, the local side of storage tabs). Same contract as SFTP: streamed reads and
//! writes, atomic replacement through a temporary file beside the target, links listed but never
//! followed.
//!
//! Big files are synced on the way in the background, and on Linux the pages already on the
//! disk are dropped from the page cache as they go ([`Writeback`]); nothing gets the target's
//! name before its data is durable. Big reads (an upload) go past the page cache
//! ([`open_direct_read`]).

use super::{
    Block, Capabilities, DirItem, FileAccess, FsError, FsErrorKind, Metadata, Sink, Source,
    TempName, WriteOptions, split_parent,
};
use async_trait::async_trait;
use kaiport_protocol::tools::EntryKind;
use std::io::ErrorKind;
use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};

/// Bytes moved per file system call when streaming: tokio's default copy moves 8 KiB, and each
/// call on a tokio file is a hop to a blocking thread (seconds per GiB of transfer).
const COPY_BUFFER: usize = 1024 * 1024;
/// Reads at least this long go past the page cache where the system can (see
/// [`open_direct_read`]); below it the extra open is not worth it.
#[cfg(unix)]
const DIRECT_FROM: u64 = 16 * 1024 * 1024;

/// Files up to this size are written from memory in one go (see `write_atomic`).
const SMALL_WRITE: usize = 1024 * 1024;

/// The local file system.
#[derive(Debug, Clone, Default)]
pub struct LocalFiles;

/// Where a write to `path` lands (see [`FileAccess::resolve_write_target`]): a final link is
/// followed to its target, which must exist; otherwise the deepest existing ancestor is resolved
/// and the rest appended.
pub(crate) fn write_target(path: &std::path::Path) -> std::io::Result<std::path::PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(found) if found.file_type().is_symlink() => std::fs::canonicalize(path).map_err(|_| {
            std::io::Error::new(
                ErrorKind::NotFound,
                "this is a link whose target does not exist; write to the target's own path",
            )
        }),
        _ => Ok(super::confined::resolve_existing(path)),
    }
}

fn map_error(path: &str, error: std::io::Error) -> FsError {
    let kind = match error.kind() {
        ErrorKind::NotFound => FsErrorKind::NotFound,
        ErrorKind::PermissionDenied => FsErrorKind::PermissionDenied,
        ErrorKind::AlreadyExists => FsErrorKind::AlreadyExists,
        _ => FsErrorKind::Other,
    };
    let message = match kind {
        FsErrorKind::NotFound => "no such file or folder".to_owned(),
        FsErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => error.to_string(),
    };
    FsError::new(kind, path, message)
}

fn metadata_from(found: &std::fs::Metadata) -> Metadata {
    let file_type = found.file_type();
    let kind = if file_type.is_symlink() {
        EntryKind::Symlink
    } else if file_type.is_dir() {
        EntryKind::Dir
    } else if file_type.is_file() {
        EntryKind::File
    } else {
        EntryKind::Other
    };
    let modified = found
        .modified()
        .ok()
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|since| since.as_secs() as i64);
    #[cfg(unix)]
    let (mode, uid, gid) = {
        use std::os::unix::fs::MetadataExt;
        (
            Some(found.mode() & 0o7777),
            Some(found.uid()),
            Some(found.gid()),
        )
    };
    #[cfg(not(unix))]
    let (mode, uid, gid) = (None, None, None);
    Metadata {
        kind,
        size: found.len(),
        modified,
        mode,
        uid,
        gid,
        md5: None,
        version: None,
    }
}

/// Opens a new file (refused if anything is there) that only this user may read.
fn create_new_private_std() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

fn create_new_private() -> tokio::fs::OpenOptions {
    create_new_private_std().into()
}

impl LocalFiles {
    async fn write_temp(
        &self,
        temp: &str,
        target: &str,
        source: Source<'_>,
        mode: Option<u32>,
        options: &WriteOptions,
    ) -> Result<u64, FsError> {
        let file = create_new_private()
            .open(temp)
            .await
            .map_err(|error| map_error(target, error))?;
        let file = std::sync::Arc::new(file.into_std().await);
        let mut writer = Writeback::default();
        // One block is written on a blocking thread while the next is read. It answers its
        // length.
        let mut in_flight: Option<tokio::task::JoinHandle<std::io::Result<usize>>> = None;
        let mut written = 0u64;
        loop {
            let mut block = Block::with_capacity(COPY_BUFFER);
            let read = block.fill_from(&mut *source).await;
            if let Some(previous) = in_flight.take() {
                let size = joined(temp, previous.await)?;
                writer.wrote(&file, size);
            }
            read.map_err(|error| map_error(temp, error))?;
            if block.is_empty() {
                break;
            }
            let offset = written;
            written += block.len() as u64;
            let file = file.clone();
            in_flight = Some(tokio::task::spawn_blocking(move || {
                write_block(&file, offset, &block).map(|()| block.len())
            }));
        }
        writer.finish(temp).await?;
        let file = std::sync::Arc::try_unwrap(file).map_err(|_| {
            FsError::new(FsErrorKind::Other, temp, "the file is still being written")
        })?;
        let (temp_owned, target_owned, options) =
            (temp.to_owned(), target.to_owned(), options.clone());
        blocking(target, move || {
            finish_temp(file, &temp_owned, &target_owned, mode, &options)
        })
        .await?;
        Ok(written)
    }

    /// Checks that `path`'s folder exists and picks the mode of the file that replaces it
    /// (see [`prepare_write`]).
    async fn prepare_write(&self, path: &str, options: &WriteOptions) -> Result<u32, FsError> {
        let (path_owned, options) = (path.to_owned(), options.clone());
        blocking(path, move || prepare_write(&path_owned, &options)).await
    }
}

/// Data written to a file since its last sync, to start the disk on it while the transfer goes
/// on: the fsync before the rename then waits for the last few MiB only, not for the whole file
/// (0.6 s of a 1 GiB download here), and the page cache holds little unwritten data. On Linux
/// every sync is followed by dropping the file's pages that are on the disk now: the next
/// blocks reuse the memory just freed instead of taking fresh pages, whose first use is what
/// makes writing through the page cache slow on a VM (its free memory goes back to the host) or
/// when the cache is full of other files. Cold 1 GiB FTP downloads here, three rounds: 1.05 to
/// 1.24 s this way, 1.89–3.02 s without dropping the pages, 2.57–3.28 s written past the page
/// cache (O_DIRECT, as before), against `rclone copy` 0.94–1.02 s, which does not sync.
#[derive(Default)]
struct Writeback {
    unsynced: usize,
    syncing: BackgroundSync,
}

impl Writeback {
    /// Bytes written between syncs.
    const EVERY: usize = 16 * 1024 * 1024;

    /// Notes `bytes` more written to `file`, and starts syncing its data when it is time.
    fn wrote(&mut self, file: &std::sync::Arc<std::fs::File>, bytes: usize) {
        self.unsynced += bytes;
        if self.unsynced >= Self::EVERY && self.syncing.start(file) {
            self.unsynced = 0;
        }
    }

    /// Waits for the sync in progress; fails if any sync failed.
    async fn finish(&mut self, path: &str) -> Result<(), FsError> {
        self.syncing
            .finish()
            .await
            .map_err(|error| map_error(path, error))
    }
}

/// One data sync at a time on a blocking thread, which no writer waits for: the writes go on
/// while the disk catches up. A failure is kept for [`BackgroundSync::finish`]: after a failed
/// fsync the kernel may not report the error again, so the final fsync alone could pass.
#[derive(Default)]
struct BackgroundSync {
    running: Option<tokio::task::JoinHandle<()>>,
    failure: std::sync::Arc<std::sync::Mutex<Option<std::io::Error>>>,
}

impl BackgroundSync {
    /// Starts syncing `file`'s data unless the last sync is still running; true if started.
    fn start(&mut self, file: &std::sync::Arc<std::fs::File>) -> bool {
        if self
            .running
            .as_ref()
            .is_some_and(|sync| !sync.is_finished())
        {
            return false;
        }
        let (file, failure) = (file.clone(), self.failure.clone());
        self.running = Some(tokio::task::spawn_blocking(move || {
            match file.sync_data() {
                Ok(()) => drop_synced_pages(&file),
                Err(error) => Self::keep(&failure, error),
            }
        }));
        true
    }

    fn keep(failure: &std::sync::Mutex<Option<std::io::Error>>, error: std::io::Error) {
        failure
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get_or_insert(error);
    }

    /// Waits for the sync in progress; the first failure of any.
    async fn finish(&mut self) -> std::io::Result<()> {
        if let Some(running) = self.running.take()
            && let Err(error) = running.await
        {
            Self::keep(&self.failure, std::io::Error::other(error.to_string()));
        }
        let failure = self
            .failure
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        failure.map_or(Ok(()), Err)
    }
}

/// The result of a blocking write: a panic of its thread or its I/O error, as an [`FsError`].
fn joined<T>(
    path: &str,
    result: Result<std::io::Result<T>, tokio::task::JoinError>,
) -> Result<T, FsError> {
    result
        .map_err(|error| FsError::new(FsErrorKind::Other, path, error.to_string()))?
        .map_err(|error| map_error(path, error))
}

/// Runs file system calls on a blocking thread, all in one trip.
async fn blocking<T: Send + 'static>(
    path: &str,
    work: impl FnOnce() -> Result<T, FsError> + Send + 'static,
) -> Result<T, FsError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| FsError::new(FsErrorKind::Other, path, error.to_string()))?
}

/// Checks that `path`'s folder exists and picks the mode of the file that replaces it: what
/// `options` say, else the existing file's, else 0644.
fn prepare_write(path: &str, options: &WriteOptions) -> Result<u32, FsError> {
    let (parent, _) = split_parent(path);
    match std::fs::metadata(parent) {
        Ok(found) if found.is_dir() => {}
        Ok(_) => {
            return Err(FsError::new(
                FsErrorKind::NotFound,
                path,
                format!("{parent} is not a folder"),
            ));
        }
        Err(_) => {
            return Err(FsError::new(
                FsErrorKind::NotFound,
                path,
                format!("the folder {parent} does not exist; create it first"),
            ));
        }
    }
    let existing = match std::fs::metadata(path) {
        Ok(found) => Some(metadata_from(&found)),
        Err(error) if error.kind() == ErrorKind::NotFound => None,
        Err(error) => return Err(map_error(path, error)),
    };
    Ok(options
        .mode
        .or_else(|| existing.as_ref().and_then(|found| found.mode))
        .unwrap_or(0o644))
}

/// Makes the written temp file durable, gives it `mode`, checks the target against `options`,
/// and renames the temp file over the target.
fn finish_temp(
    file: std::fs::File,
    temp: &str,
    target: &str,
    mode: Option<u32>,
    options: &WriteOptions,
) -> Result<(), FsError> {
    file.sync_all().map_err(|error| map_error(temp, error))?;
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(|error| map_error(temp, error))?;
    }
    #[cfg(not(unix))]
    let _ = mode;
    drop(file);
    if let Some(expected) = &options.expect {
        let now = match std::fs::metadata(target) {
            Ok(found) => Some(metadata_from(&found).stamp()),
            Err(error) if error.kind() == ErrorKind::NotFound => None,
            Err(error) => return Err(map_error(target, error)),
        };
        super::check_unchanged(target, *expected, now)?;
    }
    std::fs::rename(temp, target).map_err(|error| map_error(target, error))
}

/// Writes `data` as the whole new content of `path` (see [`FileAccess::write_atomic`]), every
/// step in one go on the calling (blocking) thread.
fn write_whole(path: &str, data: &[u8], options: &WriteOptions) -> Result<u64, FsError> {
    use std::io::Write;
    let mode = prepare_write(path, options)?;
    let mut temp = TempName::beside(path);
    let mut file = create_new_private_std()
        .open(&temp)
        .map_err(|error| map_error(path, error))?;
    let result = file
        .write_all(data)
        .map_err(|error| map_error(&temp, error))
        .and_then(|()| finish_temp(file, &temp, path, Some(mode), options));
    if result.is_err() && std::fs::remove_file(&temp).is_err() {
        return result.map(|()| data.len() as u64);
    }
    temp.settled();
    result.map(|()| data.len() as u64)
}

/// Reads `source` into `into` until it ends (true) or holds more than `limit` bytes (false).
async fn gather(source: Source<'_>, into: &mut Vec<u8>, limit: usize) -> std::io::Result<bool> {
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let read = source.read(&mut chunk).await?;
        if read == 0 {
            return Ok(true);
        }
        into.extend_from_slice(&chunk[..read]);
        if into.len() > limit {
            return Ok(false);
        }
    }
}

/// A download written in pieces into a temp file beside the target (see
/// [`FileAccess::open_pieces`]).
#[cfg(unix)]
struct LocalPieces {
    file: std::sync::Arc<std::fs::File>,
    /// One write at a time: concurrent writes into one file contend for its inode lock, which
    /// the kernel waits for by spinning — a core lost to every waiting stream (10 % of a 1 GiB
    /// download's CPU on 2 cores). A stream waiting here sleeps instead; one writer keeps up.
    writing: tokio::sync::Mutex<Writeback>,
    temp: String,
    /// Known as in flight until committed or discarded (see `fs::temp`).
    name: std::sync::Mutex<TempName>,
    target: String,
    mode: u32,
    options: WriteOptions,
}

/// Drops the pages of `file` that are on the disk (Linux: `POSIX_FADV_DONTNEED` on the whole
/// file, which leaves pages written since the last sync alone). Only a hint: if it fails, the
/// pages stay cached and the kernel reclaims them as usual.
#[cfg(target_os = "linux")]
fn drop_synced_pages(file: &std::fs::File) {
    let _ = rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::DontNeed);
}

#[cfg(not(target_os = "linux"))]
fn drop_synced_pages(_file: &std::fs::File) {}

/// Opens `path` for reads past the page cache (Linux's O_DIRECT), where the file system takes
/// them; None means "read it the usual way", whose errors then say what is wrong. A big upload
/// read this way costs the disk what it would anyway and spares the CPU filling the page cache
/// with a file read once (and the other files that cache holds): a cold 1 GiB read here took
/// 0.11 s of system time past the cache, 0.5–1.5 s through it.
#[cfg(target_os = "linux")]
async fn open_direct_read(path: &str) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let path = path.to_owned();
    tokio::task::spawn_blocking(move || {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
            .ok()?;
        file.metadata().ok()?.is_file().then_some(file)
    })
    .await
    .ok()
    .flatten()
}

#[cfg(all(unix, not(target_os = "linux")))]
async fn open_direct_read(_path: &str) -> Option<std::fs::File> {
    None
}

/// Blocks read ahead of the sink by [`read_direct`]: the disk keeps reading while the sink
/// (the network) takes the block before.
#[cfg(unix)]
const READ_AHEAD: usize = 2;

/// Streams up to `max_len` bytes of `file` (opened by [`open_direct_read`]) from the aligned
/// `offset` into `sink`, reading on a blocking thread [`READ_AHEAD`] blocks ahead. None when
/// the file system refused the first read, before anything reached the sink: read it the usual
/// way then.
#[cfg(unix)]
async fn read_direct(
    file: std::fs::File,
    path: &str,
    offset: u64,
    max_len: u64,
    sink: Sink<'_>,
) -> Result<Option<u64>, FsError> {
    let (blocks, mut arriving) = tokio::sync::mpsc::channel(READ_AHEAD);
    // Ends when the file does, at its first error, or when nobody takes its blocks any more.
    let reader = tokio::task::spawn_blocking(move || {
        let mut at = offset;
        while at - offset < max_len {
            let mut block = Block::with_capacity(COPY_BUFFER);
            let read = block.read_at(&file, at).map(|()| {
                at += block.len() as u64;
                block
            });
            let ended = !read.as_ref().is_ok_and(|block| block.len() == COPY_BUFFER);
            if blocks.blocking_send(read).is_err() || ended {
                break;
            }
        }
    });
    let mut copied = 0u64;
    let result = loop {
        let block = match arriving.recv().await {
            None => break Ok(Some(copied)),
            Some(Ok(block)) => block,
            Some(Err(error)) if copied == 0 && refuses_direct(&error) => break Ok(None),
            Some(Err(error)) => break Err(map_error(path, error)),
        };
        let take = block
            .len()
            .min(usize::try_from(max_len - copied).unwrap_or(usize::MAX));
        if let Err(error) = sink.write_all(&block.as_slice()[..take]).await {
            break Err(map_error(path, error));
        }
        copied += take as u64;
    };
    drop(arriving);
    let _ = reader.await;
    match result {
        Ok(Some(copied)) => {
            sink.flush().await.map_err(|error| map_error(path, error))?;
            Ok(Some(copied))
        }
        other => other,
    }
}

/// Whether `error` of a direct read means "not this way" (this file system or device wants
/// another alignment, or takes no direct reads: EINVAL, or EOPNOTSUPP from some FUSE and
/// network file systems) rather than a failure of the disk.
#[cfg(unix)]
fn refuses_direct(error: &std::io::Error) -> bool {
    #[cfg(target_os = "linux")]
    if error.raw_os_error() == Some(libc::EOPNOTSUPP) {
        return true;
    }
    error.kind() == ErrorKind::InvalidInput
}

/// Writes `block` at `offset` of `file`.
fn write_block(file: &std::fs::File, offset: u64, block: &Block) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.write_all_at(block.as_slice(), offset)
    }
    // The blocks come in order here.
    #[cfg(not(unix))]
    {
        use std::io::Write;
        let _ = offset;
        (&*file).write_all(block.as_slice())
    }
}

#[cfg(unix)]
impl LocalPieces {
    fn settled(&self) {
        self.name
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .settled();
    }
}

#[cfg(unix)]
#[async_trait]
impl super::Pieces for LocalPieces {
    async fn write_at(&self, offset: u64, block: Block) -> Result<(), FsError> {
        let mut turn = self.writing.lock().await;
        let file = self.file.clone();
        let size = block.len();
        let written = tokio::task::spawn_blocking(move || write_block(&file, offset, &block));
        joined(&self.temp, written.await)?;
        turn.wrote(&self.file, size);
        Ok(())
    }

    async fn commit(&self) -> Result<(), FsError> {
        let result = async {
            self.writing.lock().await.finish(&self.temp).await?;
            let file = self
                .file
                .try_clone()
                .map_err(|error| map_error(&self.temp, error))?;
            let (temp, target, mode, options) = (
                self.temp.clone(),
                self.target.clone(),
                self.mode,
                self.options.clone(),
            );
            blocking(&self.target, move || {
                finish_temp(file, &temp, &target, Some(mode), &options)
            })
            .await
        }
        .await;
        if result.is_err() {
            self.discard().await;
        } else {
            self.settled();
        }
        result
    }

    async fn discard(&self) {
        if tokio::fs::remove_file(&self.temp).await.is_ok() {
            self.settled();
        }
    }
}

#[async_trait]
impl FileAccess for LocalFiles {
    fn location(&self) -> String {
        "local".to_owned()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            atomic_rename: true,
            permissions: cfg!(unix),
            symlinks: true,
            fsync: true,
        }
    }

    async fn metadata(&self, path: &str) -> Result<Metadata, FsError> {
        let found = tokio::fs::metadata(path)
            .await
            .map_err(|error| map_error(path, error))?;
        Ok(metadata_from(&found))
    }

    async fn symlink_metadata(&self, path: &str) -> Result<Metadata, FsError> {
        let found = tokio::fs::symlink_metadata(path)
            .await
            .map_err(|error| map_error(path, error))?;
        Ok(metadata_from(&found))
    }

    async fn read_dir(&self, path: &str) -> Result<Vec<DirItem>, FsError> {
        let path_owned = path.to_owned();
        // One blocking task for the whole folder, not one per entry.
        tokio::task::spawn_blocking(move || {
            let reader =
                std::fs::read_dir(&path_owned).map_err(|error| map_error(&path_owned, error))?;
            let mut items = Vec::new();
            for entry in reader {
                let entry = entry.map_err(|error| map_error(&path_owned, error))?;
                let name = entry.file_name().to_string_lossy().into_owned();
                let Ok(found) = entry.metadata() else {
                    continue;
                };
                items.push(DirItem {
                    name,
                    metadata: metadata_from(&found),
                });
            }
            Ok(items)
        })
        .await
        .map_err(|error| FsError::new(FsErrorKind::Other, path, error.to_string()))?
    }

    async fn read_link(&self, path: &str) -> Result<String, FsError> {
        let target = tokio::fs::read_link(path)
            .await
            .map_err(|error| map_error(path, error))?;
        Ok(target.to_string_lossy().into_owned())
    }

    async fn resolve_write_target(&self, path: &str) -> Result<String, FsError> {
        let given = std::path::PathBuf::from(path);
        let resolved = tokio::task::spawn_blocking(move || write_target(&given))
            .await
            .map_err(|error| {
                FsError::new(
                    FsErrorKind::Other,
                    path,
                    format!("resolving links stopped: {error}"),
                )
            })?
            .map_err(|error| map_error(path, error))?;
        Ok(resolved.to_string_lossy().into_owned())
    }

    async fn read_into(
        &self,
        path: &str,
        offset: u64,
        max_len: u64,
        sink: Sink<'_>,
    ) -> Result<u64, FsError> {
        #[cfg(unix)]
        if max_len >= DIRECT_FROM
            && offset.is_multiple_of(Block::ALIGN as u64)
            && let Some(direct) = open_direct_read(path).await
            && let Some(copied) = read_direct(direct, path, offset, max_len, &mut *sink).await?
        {
            return Ok(copied);
        }
        let mut file = tokio::fs::File::open(path)
            .await
            .map_err(|error| map_error(path, error))?;
        if offset > 0 {
            file.seek(std::io::SeekFrom::Start(offset))
                .await
                .map_err(|error| map_error(path, error))?;
        }
        // Small reads (a config file) need no big buffer.
        let capacity = max_len.clamp(8 * 1024, COPY_BUFFER as u64) as usize;
        let mut limited = tokio::io::BufReader::with_capacity(capacity, file.take(max_len));
        let copied = tokio::io::copy_buf(&mut limited, sink)
            .await
            .map_err(|error| map_error(path, error))?;
        sink.flush().await.map_err(|error| map_error(path, error))?;
        Ok(copied)
    }

    async fn write_atomic(
        &self,
        path: &str,
        source: Source<'_>,
        options: &WriteOptions,
    ) -> Result<u64, FsError> {
        // A write cut earlier (a killed connection) may have left its temp: a Retry removes it.
        crate::fs::temp::remove_leftovers(self, path).await;
        // Small files (most of a many-file transfer) are gathered first and written in one
        // trip to a blocking thread: checks, create, write, fsync, mode and rename took a trip
        // each.
        let mut head = Vec::new();
        let ended = gather(source, &mut head, SMALL_WRITE)
            .await
            .map_err(|error| map_error(path, error))?;
        if ended {
            let (path_owned, options) = (path.to_owned(), options.clone());
            return blocking(path, move || write_whole(&path_owned, &head, &options)).await;
        }
        let mode = Some(self.prepare_write(path, options).await?);
        let mut temp = TempName::beside(path);
        let mut rest = (&head[..]).chain(source);
        let result = self.write_temp(&temp, path, &mut rest, mode, options).await;
        if result.is_err() && tokio::fs::remove_file(&temp).await.is_err() {
            return result;
        }
        temp.settled();
        result
    }

    fn writes_are_exact(&self) -> bool {
        // Every byte went through write_all, then fsync and rename succeeded.
        true
    }

    #[cfg(unix)]
    async fn open_pieces(
        &self,
        path: &str,
        options: &WriteOptions,
    ) -> Result<Option<std::sync::Arc<dyn super::Pieces>>, FsError> {
        let mode = self.prepare_write(path, options).await?;
        let mut name = TempName::beside(path);
        let file = match create_new_private().open(&name).await {
            Ok(file) => file,
            Err(error) => {
                name.settled();
                return Err(map_error(path, error));
            }
        };
        let file = std::sync::Arc::new(file.into_std().await);
        Ok(Some(std::sync::Arc::new(LocalPieces {
            file,
            writing: tokio::sync::Mutex::default(),
            temp: name.as_str().to_owned(),
            name: std::sync::Mutex::new(name),
            target: path.to_owned(),
            mode,
            options: options.clone(),
        })))
    }

    async fn create_private(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        let mut file = create_new_private()
            .open(path)
            .await
            .map_err(|error| map_error(path, error))?;
        let written = file.write_all(data).await;
        let flushed = file.flush().await;
        if let Err(error) = written.and(flushed) {
            let _ = tokio::fs::remove_file(path).await;
            return Err(map_error(path, error));
        }
        Ok(())
    }

    async fn remove_file(&self, path: &str) -> Result<(), FsError> {
        tokio::fs::remove_file(path)
            .await
            .map_err(|error| map_error(path, error))
    }

    fn temp_dir(&self) -> String {
        std::env::temp_dir().to_string_lossy().into_owned()
    }

    async fn make_dir(&self, path: &str, parents: bool) -> Result<(), FsError> {
        let result = if parents {
            tokio::fs::create_dir_all(path).await
        } else {
            match tokio::fs::create_dir(path).await {
                Err(error) if error.kind() == ErrorKind::AlreadyExists => {
                    match tokio::fs::symlink_metadata(path).await {
                        Ok(found) if found.is_dir() => Ok(()),
                        _ => Err(error),
                    }
                }
                other => other,
            }
        };
        result.map_err(|error| map_error(path, error))
    }

    async fn rename_file(&self, from: &str, to: &str, replace: bool) -> Result<(), FsError> {
        if !replace {
            super::refuse_existing(self, to).await?;
        }
        tokio::fs::rename(from, to)
            .await
            .map_err(|error| map_error(from, error))
    }

    fn renames_folders(&self) -> bool {
        true
    }

    async fn rename_dir(&self, from: &str, to: &str) -> Result<(), FsError> {
        super::refuse_existing(self, to).await?;
        tokio::fs::rename(from, to)
            .await
            .map_err(|error| map_error(from, error))
    }

    async fn remove_dir(&self, path: &str) -> Result<(), FsError> {
        tokio::fs::remove_dir(path)
            .await
            .map_err(|error| map_error(path, error))
    }
}

// Direct reads past the page cache are Unix only.
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Big reads from aligned offsets go past the page cache; whatever the length asked for
    /// and wherever the file ends, they give exactly the bytes a buffered read gives.
    #[tokio::test]
    async fn reads_past_the_page_cache_give_exactly_the_bytes_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.bin");
        let size = 2 * DIRECT_FROM as usize + 4097;
        let data: Vec<u8> = (0..size)
            .map(|at| (at % 251) as u8 ^ (at >> 12) as u8)
            .collect();
        std::fs::write(&path, &data).unwrap();
        let path = path.to_str().unwrap();
        let aligned = 3 * Block::ALIGN;
        for (offset, max_len) in [
            (0, size + 1),
            (0, size),
            (0, DIRECT_FROM as usize + 123),
            (aligned, DIRECT_FROM as usize + 5),
            (aligned, size),
            (size - size % Block::ALIGN, DIRECT_FROM as usize),
            // Not aligned: read through the cache.
            (aligned + 1, DIRECT_FROM as usize),
        ] {
            let mut read = Vec::new();
            let copied = LocalFiles
                .read_into(path, offset as u64, max_len as u64, &mut read)
                .await
                .unwrap();
            let expected = &data[offset.min(size)..(offset + max_len).min(size)];
            assert_eq!(copied as usize, expected.len(), "at {offset}, {max_len}");
            assert!(read == expected, "other bytes at {offset}, {max_len}");
        }
    }
}
