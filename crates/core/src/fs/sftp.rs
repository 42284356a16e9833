//! [`FileAccess`] over SFTP (russh-sftp's raw session on the tab's SSH connection).
//!
//! Throughput: one request per round trip is what makes naive SFTP clients slow, so reads and
//! writes keep up to [`MAX_IN_FLIGHT`] requests of the server's largest chunk outstanding
//! (OpenSSH advertises its limits through `limits@openssh.com`), replies are consumed in order,
//! and the SSH channel has a large window (see `ssh::session`). Folder listings, stats and small
//! files are cheap to run concurrently because every request is independent on the wire.
//!
//! Atomic writes use `fsync@openssh.com` and `posix-rename@openssh.com` where the server offers
//! them. Without posix-rename, a plain SFTP rename cannot replace an existing file, so the
//! target is removed first (a short window in which it is missing; said in the docs of
//! [`SftpFiles::capabilities`]).

mod batch;
mod scan;

use super::{
    Capabilities, DirItem, FileAccess, FsError, FsErrorKind, Gated, Metadata, Sink, Source,
    TempName, WriteOptions, check_unchanged, join, split_parent,
};
use crate::ssh::SshSession;
use async_trait::async_trait;
use futures::stream::{FuturesOrdered, FuturesUnordered, StreamExt};
use kaiport_protocol::tools::EntryKind;
use russh_sftp::client::RawSftpSession;
use russh_sftp::client::error::Error as SftpError;
use russh_sftp::protocol::{FileAttributes, OpenFlags, Packet, StatusCode};
use std::sync::Arc;

/// Links followed in a row before a write target counts as a loop (as Linux's MAXSYMLINKS).
const MAX_LINK_HOPS: u32 = 40;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Requests kept outstanding during a transfer (OpenSSH's own client uses 64).
const MAX_IN_FLIGHT: usize = 64;
/// Chunk size when the server does not say what it accepts (the SFTP minimum every server takes).
const FALLBACK_CHUNK: u64 = 32 * 1024;
/// Never ask for more per request than this, even if the server would send it.
const MAX_CHUNK: u64 = 255 * 1024;
/// Largest SFTP packet accepted from the server: a full data reply plus headers.
const MAX_PACKET: u32 = 1024 * 1024;
/// How long one request may take before the connection is considered stuck.
const REQUEST_TIMEOUT_S: u64 = 120;
/// Permission bits of a new file when the target did not exist (before the server's umask).
const NEW_FILE_MODE: u32 = 0o644;
/// Permission bits of files only the connection's user may read.
const PRIVATE_MODE: u32 = 0o600;

const POSIX_RENAME: &str = "posix-rename@openssh.com";
const FSYNC: &str = "fsync@openssh.com";
const LIMITS: &str = "limits@openssh.com";
/// Server-side copy between two open handles (OpenSSH 9.0 and later).
const COPY_DATA: &str = "copy-data";

/// Files on an SSH server through its `sftp` subsystem.
pub struct SftpFiles {
    session: Arc<RawSftpSession>,
    /// The connection the subsystem runs on, for the search prefilter's exec channel.
    ssh: SshSession,
    /// Whether search_files may run its prefilter on the server (see `scan`).
    server_scan: bool,
    location: String,
    read_chunk: u64,
    write_chunk: u64,
    posix_rename: bool,
    fsync: bool,
    copy_data: bool,
    /// Open handles a batch of listings or reads may use (see `batch`).
    open_handles: usize,
    /// One permit per handle open on the server (see [`HANDLE_SLOTS`]).
    slots: Arc<Semaphore>,
}

/// Handles open at once on one session, at most. russh-sftp keeps a handle as a `String` and
/// decodes it lossily, and OpenSSH's handles are a 4-byte big-endian index into its table:
/// from the 129th handle open at once the index has a byte of 0x80 or more, which the decoding
/// turns into U+FFFD, and the server answers every use of that handle with a bare `Failure`.
/// OpenSSH reuses freed slots first, so with no more than 128 open at once every index stays
/// below 128.
const HANDLE_SLOTS: usize = 128;

impl SftpFiles {
    /// Starts the `sftp` subsystem on `ssh` and learns what the server offers.
    pub async fn open(ssh: &SshSession) -> Result<SftpFiles, FsError> {
        let location = format!("sftp://{}", ssh.endpoint());
        let stream = ssh.open_subsystem("sftp").await.map_err(|error| {
            FsError::new(
                FsErrorKind::Unsupported,
                "/",
                format!("the server offers no SFTP: {error}"),
            )
        })?;
        let config = russh_sftp::client::Config {
            max_packet_len: MAX_PACKET,
            request_timeout_secs: REQUEST_TIMEOUT_S,
            ..russh_sftp::client::Config::default()
        };
        let session = RawSftpSession::new_with_config(stream, config);
        let version = session
            .init()
            .await
            .map_err(|error| map_error(&location, "/", error))?;
        let offers = |name: &str| version.extensions.contains_key(name);
        let (mut read_chunk, mut write_chunk) = (FALLBACK_CHUNK, FALLBACK_CHUNK);
        let mut open_handles = batch::FALLBACK_HANDLES;
        if offers(LIMITS)
            && let Ok(limits) = session.limits().await
        {
            if limits.max_open_handles > 0 {
                // A quarter of what the server allows: search_files lists folders and reads
                // files at the same time, and other work on the session still needs some.
                let quarter = usize::try_from(limits.max_open_handles / 4).unwrap_or(usize::MAX);
                open_handles = quarter.clamp(1, batch::MAX_HANDLES);
            }
            if limits.max_read_len > 0 {
                read_chunk = limits.max_read_len.min(MAX_CHUNK);
            }
            if limits.max_write_len > 0 {
                write_chunk = limits.max_write_len.min(MAX_CHUNK);
            }
        }
        Ok(SftpFiles {
            session: Arc::new(session),
            ssh: ssh.clone(),
            server_scan: true,
            location,
            read_chunk,
            write_chunk,
            posix_rename: offers(POSIX_RENAME),
            fsync: offers(FSYNC),
            copy_data: offers(COPY_DATA),
            open_handles,
            slots: Arc::new(Semaphore::new(HANDLE_SLOTS)),
        })
    }

    /// Whether search_files may pick the files worth reading with `grep` on the server first
    /// (on by default; off, every file is read over SFTP).
    pub fn scan_on_server(mut self, allowed: bool) -> SftpFiles {
        self.server_scan = allowed;
        self
    }

    /// Waits for a free handle slot; the permit is held until the handle's `close` is sent.
    pub(super) async fn slot(slots: &Arc<Semaphore>) -> Option<OwnedSemaphorePermit> {
        // The semaphore is never closed, so this always gets a permit.
        slots.clone().acquire_owned().await.ok()
    }

    /// Where `path` leads: its folder's real path (from the server) plus its name, a final link
    /// followed by its target. One round trip unless links are followed. Returns the path,
    /// whether it exists, and whether a link was followed.
    fn resolve_hops(
        &self,
        path: String,
        hops: u32,
    ) -> futures::future::BoxFuture<'_, Result<(String, bool, bool), FsError>> {
        Box::pin(async move {
            let (parent, name) = split_parent(&path);
            let first_name = |reply: Result<russh_sftp::protocol::Name, SftpError>, of: &str| {
                reply
                    .map_err(|error| self.error(of, error))?
                    .files
                    .into_iter()
                    .next()
                    .map(|file| file.filename)
                    .ok_or_else(|| {
                        FsError::new(FsErrorKind::Other, of, "the server sent no real path")
                    })
            };
            if name.is_empty() || name == "." || name == ".." {
                let real = first_name(self.session.realpath(path.as_str()).await, &path)?;
                return Ok((real, true, false));
            }
            // OpenSSH's realpath needs every component to exist and does not say where a final
            // link leads, so the folder is resolved and the name looked at, together.
            let (itself, real_parent) = tokio::join!(
                self.session.lstat(path.as_str()),
                self.session.realpath(parent)
            );
            let folder = first_name(real_parent, parent)?;
            match itself {
                Ok(attrs) if metadata_from(&attrs.attrs).kind == EntryKind::Symlink => {
                    if hops == 0 {
                        return Err(FsError::new(
                            FsErrorKind::Other,
                            &path,
                            "too many links in a row (a loop?)",
                        ));
                    }
                    let target = self.read_link(&path).await?;
                    let next = if target.starts_with('/') {
                        target
                    } else {
                        join(&folder, &target)
                    };
                    match self.resolve_hops(next.clone(), hops - 1).await {
                        Ok((real, exists, _)) => Ok((real, exists, true)),
                        Err(error) if error.kind == FsErrorKind::NotFound => Err(FsError::new(
                            FsErrorKind::NotFound,
                            &path,
                            format!(
                                "this is a link to {next}, which does not exist; write to the target's own path"
                            ),
                        )),
                        Err(error) => Err(error),
                    }
                }
                Ok(_) => Ok((join(&folder, name), true, false)),
                Err(error) => match self.error(&path, error) {
                    missing if missing.kind == FsErrorKind::NotFound => {
                        Ok((join(&folder, name), false, false))
                    }
                    other => Err(other),
                },
            }
        })
    }

    fn error(&self, path: &str, error: SftpError) -> FsError {
        map_error(&self.location, path, error)
    }

    async fn read_handle(
        &self,
        handle: &str,
        offset: u64,
        max_len: u64,
        sink: Sink<'_>,
        path: &str,
    ) -> Result<u64, FsError> {
        let end = offset.saturating_add(max_len);
        let mut next = offset;
        let mut written = 0u64;
        let mut at_end = false;
        let mut in_flight = FuturesOrdered::new();
        loop {
            while !at_end && next < end && in_flight.len() < MAX_IN_FLIGHT {
                let len = self.read_chunk.min(end - next);
                let session = self.session.clone();
                let handle = handle.to_owned();
                let at = next;
                in_flight.push_back(async move {
                    let reply = session.read(handle, at, len as u32).await;
                    (at, len, reply)
                });
                next += len;
            }
            let Some((at, len, reply)) = in_flight.next().await else {
                break;
            };
            match reply {
                Ok(data) => {
                    let got = data.data.len() as u64;
                    sink.write_all(&data.data)
                        .await
                        .map_err(|error| local_error(path, error))?;
                    written += got;
                    if got < len {
                        // A short reply (end of file, or a server that sends less): everything
                        // requested after it is at the wrong offset, so restart from here.
                        in_flight = FuturesOrdered::new();
                        next = at + got;
                        at_end = got == 0;
                    }
                }
                Err(SftpError::Status(status)) if status.status_code == StatusCode::Eof => {
                    at_end = true;
                    in_flight = FuturesOrdered::new();
                }
                Err(error) => return Err(self.error(path, error)),
            }
        }
        sink.flush()
            .await
            .map_err(|error| local_error(path, error))?;
        Ok(written)
    }

    async fn write_handle(
        &self,
        handle: &str,
        source: Source<'_>,
        path: &str,
    ) -> Result<u64, FsError> {
        let mut offset = 0u64;
        let mut source_done = false;
        let mut in_flight = FuturesUnordered::new();
        loop {
            if !source_done && in_flight.len() < MAX_IN_FLIGHT {
                let mut chunk = vec![0u8; self.write_chunk as usize];
                let filled = fill(source, &mut chunk)
                    .await
                    .map_err(|error| local_error(path, error))?;
                if filled == 0 {
                    source_done = true;
                } else {
                    chunk.truncate(filled);
                    let session = self.session.clone();
                    let handle = handle.to_owned();
                    let at = offset;
                    in_flight.push(async move { session.write(handle, at, chunk).await });
                    offset += filled as u64;
                }
                // Top the pipeline up before waiting for a reply.
                if !source_done && in_flight.len() < MAX_IN_FLIGHT {
                    continue;
                }
            }
            match in_flight.next().await {
                None => break,
                Some(Ok(_)) => {}
                Some(Err(error)) => return Err(self.error(path, error)),
            }
        }
        Ok(offset)
    }

    async fn rename_over(&self, from: &str, to: &str) -> Result<(), FsError> {
        if self.posix_rename {
            let mut data = Vec::with_capacity(8 + from.len() + to.len());
            for text in [from, to] {
                put_string(&mut data, text);
            }
            return self.extended_status(POSIX_RENAME, data, to).await;
        }
        match self.session.rename(from, to).await {
            Ok(_) => Ok(()),
            Err(_) => {
                // Plain SFTP rename refuses an existing target: remove it, then rename.
                match self.session.remove(to).await {
                    Ok(_) => {}
                    Err(SftpError::Status(status))
                        if status.status_code == StatusCode::NoSuchFile => {}
                    Err(error) => return Err(self.error(to, error)),
                }
                self.session
                    .rename(from, to)
                    .await
                    .map(|_| ())
                    .map_err(|error| self.error(to, error))
            }
        }
    }

    /// Sends the extension request `name` whose answer is a status: `Ok` or the error.
    async fn extended_status(&self, name: &str, data: Vec<u8>, path: &str) -> Result<(), FsError> {
        match self.session.extended(name, data).await {
            Ok(Packet::Status(status)) if status.status_code == StatusCode::Ok => Ok(()),
            Ok(Packet::Status(status)) => Err(self.error(path, SftpError::Status(status))),
            Ok(_) => Err(FsError::new(
                FsErrorKind::Other,
                path,
                format!("unexpected answer to {name}"),
            )),
            Err(error) => Err(self.error(path, error)),
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn finish_temp(
        &self,
        handle: &str,
        temp: &str,
        target: &str,
        source: Source<'_>,
        mode: u32,
        existing: Option<&Metadata>,
        options: &WriteOptions,
    ) -> Result<u64, FsError> {
        let written = self.write_handle(handle, source, temp).await?;
        if self.fsync {
            self.session
                .fsync(handle)
                .await
                .map_err(|error| self.error(temp, error))?;
        }
        if let Some(existing) = existing
            && let (Some(uid), Some(gid)) = (existing.uid, existing.gid)
        {
            // Keep the owner where the server lets us; a user who may write a file they do not
            // own usually may not give it away, and then the new file is theirs — unless the
            // caller must keep the owner, when nothing is replaced.
            let owner = FileAttributes {
                uid: Some(uid),
                gid: Some(gid),
                ..FileAttributes::default()
            };
            if let Err(error) = self.session.fsetstat(handle, owner).await {
                if options.keep_owner {
                    return Err(FsError::new(
                        FsErrorKind::PermissionDenied,
                        target,
                        format!(
                            "the file belongs to uid {uid} gid {gid}, which this login cannot give \
                             a new file; nothing was replaced"
                        ),
                    ));
                }
                tracing::debug!(path = %target, error = %error, "could not keep the owner");
            }
        }
        // The mode last: a change of owner may clear set-id bits.
        let attrs = FileAttributes {
            permissions: Some(mode),
            ..FileAttributes::default()
        };
        self.session
            .fsetstat(handle, attrs)
            .await
            .map_err(|error| self.error(temp, error))?;
        self.session
            .close(handle)
            .await
            .map_err(|error| self.error(temp, error))?;
        Ok(written)
    }

    /// Puts the finished temp in place of `target`, if the target is still as expected.
    async fn commit_temp(
        &self,
        temp: &str,
        target: &str,
        options: &WriteOptions,
    ) -> Result<(), FsError> {
        if let Some(expected) = &options.expect {
            let now = match self.metadata(target).await {
                Ok(found) => Some(found.stamp()),
                Err(error) if error.kind == FsErrorKind::NotFound => None,
                Err(error) => return Err(error),
            };
            check_unchanged(target, *expected, now)?;
        }
        self.rename_over(temp, target).await
    }

    /// Everything of [`FileAccess::write_atomic`] up to the rename: the new content in a
    /// closed temp file beside `path` (with the target's owner and mode), or nothing left.
    async fn fill_temp(
        &self,
        path: &str,
        source: Source<'_>,
        options: &WriteOptions,
    ) -> Result<(TempName, u64), FsError> {
        // A write cut earlier (a killed connection) may have left its temp: a Retry removes it.
        crate::fs::temp::remove_leftovers(self, path).await;
        let (parent, _) = split_parent(path);
        match self.metadata(parent).await {
            Ok(found) if found.kind == EntryKind::Dir => {}
            Ok(_) => {
                return Err(FsError::new(
                    FsErrorKind::NotFound,
                    path,
                    format!("{parent} is not a folder"),
                ));
            }
            Err(error) if error.kind == FsErrorKind::NotFound => {
                return Err(FsError::new(
                    FsErrorKind::NotFound,
                    path,
                    format!("the folder {parent} does not exist; create it first"),
                ));
            }
            Err(error) => return Err(error),
        }
        let existing = match self.metadata(path).await {
            Ok(found) => Some(found),
            Err(error) if error.kind == FsErrorKind::NotFound => None,
            Err(error) => return Err(error),
        };
        if let Some(found) = &existing
            && found.kind != EntryKind::File
        {
            return Err(FsError::new(
                FsErrorKind::Other,
                path,
                "this is not a regular file; only files can be written",
            ));
        }
        let mode = options
            .mode
            .or_else(|| existing.as_ref().and_then(|found| found.mode))
            .unwrap_or(NEW_FILE_MODE);
        let mut temp = TempName::beside(path);
        let private = FileAttributes {
            permissions: Some(PRIVATE_MODE),
            ..FileAttributes::default()
        };
        let flags = OpenFlags::WRITE | OpenFlags::CREATE | OpenFlags::EXCLUDE;
        let slot = Self::slot(&self.slots).await;
        let handle = self
            .session
            .open(temp.as_str(), flags, private)
            .await
            .map_err(|error| match self.error(path, error) {
                denied if denied.kind == FsErrorKind::PermissionDenied => FsError::new(
                    FsErrorKind::PermissionDenied,
                    path,
                    format!(
                        "permission denied: cannot create a file in {parent} (writes go through a \
                         temporary file beside the target)"
                    ),
                ),
                other => other,
            })?
            .handle;
        let result = self
            .finish_temp(
                &handle,
                &temp,
                path,
                source,
                mode,
                existing.as_ref(),
                options,
            )
            .await;
        match result {
            Ok(written) => Ok((temp, written)),
            Err(error) => {
                // Best effort: the connection may be gone, and then sshd closes the handle
                // itself and the temp stays a leftover that the next write to this target
                // removes.
                let _ = self.session.close(handle.as_str()).await;
                drop(slot);
                self.drop_temp(&mut temp).await;
                Err(error)
            }
        }
    }

    /// Removes a temp that will not become the target (a leftover if it cannot be removed).
    async fn drop_temp(&self, temp: &mut TempName) {
        if self.session.remove(temp.as_str()).await.is_ok() {
            temp.settled();
        }
    }

    /// [`FileAccess::write_atomic`], with `gate` joined before the rename (see
    /// [`FileAccess::write_atomic_gated`]).
    async fn write_via_temp(
        &self,
        path: &str,
        source: Source<'_>,
        options: &WriteOptions,
        gate: Option<futures::future::BoxFuture<'_, Result<(), String>>>,
    ) -> Result<u64, Gated> {
        let (filled, gated) = match gate {
            Some(gate) => tokio::join!(self.fill_temp(path, source, options), gate),
            None => (self.fill_temp(path, source, options).await, Ok(())),
        };
        let (mut temp, written) = match (filled, gated) {
            (Ok(filled), Ok(())) => filled,
            (Ok((mut temp, _)), Err(message)) => {
                self.drop_temp(&mut temp).await;
                return Err(Gated::Gate(message));
            }
            // Nothing was replaced; the gate's failure is the one the caller must hear of.
            (Err(_), Err(message)) => return Err(Gated::Gate(message)),
            (Err(error), Ok(())) => return Err(Gated::Write(error)),
        };
        match self.commit_temp(&temp, path, options).await {
            Ok(()) => {
                temp.settled();
                Ok(written)
            }
            Err(error) => {
                self.drop_temp(&mut temp).await;
                Err(Gated::Write(error))
            }
        }
    }
}

/// `text` as an SFTP string: its length (4 bytes, big-endian), then its bytes.
fn put_string(data: &mut Vec<u8>, text: &str) {
    data.extend_from_slice(&(text.len() as u32).to_be_bytes());
    data.extend_from_slice(text.as_bytes());
}

/// Reads from `source` until `buffer` is full or the source ends.
async fn fill(source: Source<'_>, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        let got = source.read(&mut buffer[filled..]).await?;
        if got == 0 {
            break;
        }
        filled += got;
    }
    Ok(filled)
}

fn local_error(path: &str, error: std::io::Error) -> FsError {
    FsError::new(
        FsErrorKind::Other,
        path,
        format!("local I/O failed: {error}"),
    )
}

fn map_error(location: &str, path: &str, error: SftpError) -> FsError {
    match error {
        SftpError::Status(status) => {
            let kind = match status.status_code {
                StatusCode::NoSuchFile => FsErrorKind::NotFound,
                StatusCode::PermissionDenied => FsErrorKind::PermissionDenied,
                StatusCode::OpUnsupported => FsErrorKind::Unsupported,
                StatusCode::NoConnection | StatusCode::ConnectionLost => {
                    FsErrorKind::ConnectionLost
                }
                StatusCode::Ok | StatusCode::Eof | StatusCode::Failure | StatusCode::BadMessage => {
                    FsErrorKind::Other
                }
            };
            let message = match kind {
                FsErrorKind::NotFound => "no such file or folder".to_owned(),
                FsErrorKind::PermissionDenied => "permission denied".to_owned(),
                _ if status.error_message.is_empty() => format!("{}", status.status_code),
                // The server's own words: the model gets them framed.
                _ => return FsError::new(kind, path, status.error_message).said_by_server(),
            };
            FsError::new(kind, path, message)
        }
        SftpError::Timeout => FsError::new(
            FsErrorKind::ConnectionLost,
            path,
            format!("{location} did not answer within {REQUEST_TIMEOUT_S} s"),
        ),
        SftpError::IO(message) | SftpError::UnexpectedBehavior(message) => FsError::new(
            FsErrorKind::ConnectionLost,
            path,
            format!("the SFTP connection to {location} failed: {message}"),
        ),
        SftpError::Limited(message) => FsError::new(FsErrorKind::Other, path, message),
        SftpError::UnexpectedPacket => FsError::new(
            FsErrorKind::Other,
            path,
            format!("{location} sent an unexpected SFTP answer"),
        ),
    }
}

fn metadata_from(attrs: &FileAttributes) -> Metadata {
    let kind = match attrs.permissions {
        None => EntryKind::Other,
        Some(_) if attrs.is_symlink() => EntryKind::Symlink,
        Some(_) if attrs.is_dir() => EntryKind::Dir,
        Some(_) if attrs.is_regular() => EntryKind::File,
        Some(_) => EntryKind::Other,
    };
    Metadata {
        kind,
        size: attrs.size.unwrap_or(0),
        modified: attrs.mtime.map(i64::from),
        mode: attrs.permissions.map(|bits| bits & 0o7777),
        uid: attrs.uid,
        gid: attrs.gid,
        md5: None,
        version: None,
    }
}

#[async_trait]
impl FileAccess for SftpFiles {
    fn location(&self) -> String {
        self.location.clone()
    }

    /// `atomic_rename` is false on servers without posix-rename: the target is then removed
    /// just before the rename.
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            atomic_rename: self.posix_rename,
            permissions: true,
            symlinks: true,
            fsync: self.fsync,
        }
    }

    async fn metadata(&self, path: &str) -> Result<Metadata, FsError> {
        let attrs = self
            .session
            .stat(path)
            .await
            .map_err(|error| self.error(path, error))?;
        Ok(metadata_from(&attrs.attrs))
    }

    async fn symlink_metadata(&self, path: &str) -> Result<Metadata, FsError> {
        let attrs = self
            .session
            .lstat(path)
            .await
            .map_err(|error| self.error(path, error))?;
        Ok(metadata_from(&attrs.attrs))
    }

    async fn read_dir(&self, path: &str) -> Result<Vec<DirItem>, FsError> {
        // Its own task, so the folder handle is closed even if the caller stops waiting.
        let listing = tokio::spawn(batch::list_dir(
            self.session.clone(),
            self.slots.clone(),
            path.to_owned(),
        ))
        .await;
        match listing {
            Ok(listed) => listed.map_err(|error| self.error(path, error)),
            Err(error) => Err(FsError::new(
                FsErrorKind::Other,
                path,
                format!("the listing stopped unexpectedly: {error}"),
            )),
        }
    }

    fn parallel_requests(&self) -> usize {
        self.batch_handles()
    }

    fn read_files<'a>(
        &'a self,
        files: futures::stream::BoxStream<'a, (String, u64)>,
        limit: u64,
    ) -> futures::stream::BoxStream<'a, (String, Result<Vec<u8>, FsError>)> {
        self.read_files_pipelined(files, limit)
    }

    async fn scan_contents(
        &self,
        needles: &[Vec<u8>],
        paths: futures::stream::BoxStream<'_, String>,
        answers: futures::channel::mpsc::UnboundedSender<(String, bool)>,
    ) {
        if self.server_scan {
            scan::scan(&self.ssh, needles, paths, answers).await;
        }
    }

    async fn read_link(&self, path: &str) -> Result<String, FsError> {
        let name = self
            .session
            .readlink(path)
            .await
            .map_err(|error| self.error(path, error))?;
        name.files
            .into_iter()
            .next()
            .map(|file| file.filename)
            .ok_or_else(|| FsError::new(FsErrorKind::Other, path, "the server sent no link target"))
    }

    async fn resolve_write_target(&self, path: &str) -> Result<String, FsError> {
        let (real, exists, followed) = self.resolve_hops(path.to_owned(), MAX_LINK_HOPS).await?;
        if followed && !exists {
            return Err(FsError::new(
                FsErrorKind::NotFound,
                path,
                format!(
                    "this is a link to {real}, which does not exist; write to the target's own path"
                ),
            ));
        }
        Ok(real)
    }

    async fn read_into(
        &self,
        path: &str,
        offset: u64,
        max_len: u64,
        sink: Sink<'_>,
    ) -> Result<u64, FsError> {
        let _slot = Self::slot(&self.slots).await;
        let handle = self
            .session
            .open(path, OpenFlags::READ, FileAttributes::default())
            .await
            .map_err(|error| self.error(path, error))?
            .handle;
        let result = self.read_handle(&handle, offset, max_len, sink, path).await;
        // A failed close after a complete read loses nothing.
        if let Err(error) = self.session.close(handle).await {
            tracing::debug!(path = %path, error = %error, "closing after a read failed");
        }
        result
    }

    async fn write_atomic(
        &self,
        path: &str,
        source: Source<'_>,
        options: &WriteOptions,
    ) -> Result<u64, FsError> {
        self.write_via_temp(path, source, options, None)
            .await
            .map_err(|failed| match failed {
                Gated::Write(error) => error,
                // No gate, so no gate failure; said plainly should that ever change.
                Gated::Gate(message) => FsError::new(FsErrorKind::Other, path, message),
            })
    }

    async fn write_atomic_gated(
        &self,
        path: &str,
        source: Source<'_>,
        options: &WriteOptions,
        gate: futures::future::BoxFuture<'_, Result<(), String>>,
    ) -> Result<u64, Gated> {
        self.write_via_temp(path, source, options, Some(gate)).await
    }

    async fn create_private(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        let private = FileAttributes {
            permissions: Some(PRIVATE_MODE),
            ..FileAttributes::default()
        };
        let flags = OpenFlags::WRITE | OpenFlags::CREATE | OpenFlags::EXCLUDE;
        let slot = Self::slot(&self.slots).await;
        let handle = self
            .session
            .open(path, flags, private)
            .await
            .map_err(|error| self.error(path, error))?
            .handle;
        let mut source: &[u8] = data;
        let written = self.write_handle(&handle, &mut source, path).await;
        let closed = self.session.close(handle).await;
        drop(slot);
        if let Err(error) = written {
            let _ = self.session.remove(path).await;
            return Err(error);
        }
        closed.map(|_| ()).map_err(|error| self.error(path, error))
    }

    async fn remove_file(&self, path: &str) -> Result<(), FsError> {
        self.session
            .remove(path)
            .await
            .map(|_| ())
            .map_err(|error| self.error(path, error))
    }

    fn temp_dir(&self) -> String {
        "/tmp".to_owned()
    }

    async fn home_dir(&self) -> Option<String> {
        // SFTP starts in the login user's home folder.
        let reply = self.session.realpath(".").await.ok()?;
        reply
            .files
            .into_iter()
            .next()
            .map(|file| file.filename)
            .filter(|home| home.starts_with('/'))
    }

    async fn hard_link(&self, from: &str, to: &str) -> Result<(), FsError> {
        self.session
            .hardlink(from, to)
            .await
            .map(|_| ())
            .map_err(|error| self.error(to, error))
    }

    async fn make_symlink(&self, target: &str, link: &str) -> Result<(), FsError> {
        // OpenSSH reads SSH_FXP_SYMLINK's two paths the other way round from the draft (target
        // first, then the link), as its own sftp client sends them; russh-sftp sends them in
        // the draft's order, so they go in swapped.
        self.session
            .symlink(target, link)
            .await
            .map(|_| ())
            .map_err(|error| self.error(link, error))
    }

    async fn set_attributes(
        &self,
        path: &str,
        mode: Option<u32>,
        owner: Option<(u32, u32)>,
    ) -> Result<(), FsError> {
        if let Some((uid, gid)) = owner {
            let attrs = FileAttributes {
                uid: Some(uid),
                gid: Some(gid),
                ..FileAttributes::default()
            };
            self.session
                .setstat(path, attrs)
                .await
                .map_err(|error| self.error(path, error))?;
        }
        if let Some(mode) = mode {
            let attrs = FileAttributes {
                permissions: Some(mode),
                ..FileAttributes::default()
            };
            self.session
                .setstat(path, attrs)
                .await
                .map_err(|error| self.error(path, error))?;
        }
        Ok(())
    }

    async fn make_dir(&self, path: &str, parents: bool) -> Result<(), FsError> {
        let steps = if parents {
            super::ancestors_and_self(path)
        } else {
            vec![path.to_owned()]
        };
        for step in steps {
            match self.metadata(&step).await {
                Ok(found) if found.kind == EntryKind::Dir => continue,
                Ok(_) => {
                    return Err(FsError::new(
                        FsErrorKind::AlreadyExists,
                        &step,
                        "exists and is not a folder",
                    ));
                }
                Err(error) if error.kind == FsErrorKind::NotFound => {}
                Err(error) => return Err(error),
            }
            self.session
                .mkdir(step.as_str(), FileAttributes::default())
                .await
                .map_err(|error| self.error(&step, error))?;
        }
        Ok(())
    }

    /// With the server's `copy-data`: the bytes are copied by the server, never sent. The copy
    /// is private (0600) and checked against `size`; a failed copy is removed.
    async fn copy_on_server(&self, from: &str, to: &str, size: u64) -> Result<bool, FsError> {
        if !self.copy_data {
            return Ok(false);
        }
        super::refuse_existing(self, to).await?;
        let _read_slot = Self::slot(&self.slots).await;
        let source = self
            .session
            .open(from, OpenFlags::READ, FileAttributes::default())
            .await
            .map_err(|error| self.error(from, error))?
            .handle;
        let _write_slot = Self::slot(&self.slots).await;
        let private = FileAttributes {
            permissions: Some(PRIVATE_MODE),
            ..FileAttributes::default()
        };
        let flags = OpenFlags::WRITE | OpenFlags::CREATE | OpenFlags::EXCLUDE;
        let target = match self.session.open(to, flags, private).await {
            Ok(opened) => opened.handle,
            Err(error) => {
                let _ = self.session.close(source).await;
                return Err(self.error(to, error));
            }
        };
        let mut data = Vec::with_capacity(40 + source.len() + target.len());
        put_string(&mut data, &source);
        data.extend_from_slice(&0u64.to_be_bytes());
        // Length 0: to the end of the file.
        data.extend_from_slice(&0u64.to_be_bytes());
        put_string(&mut data, &target);
        data.extend_from_slice(&0u64.to_be_bytes());
        let copied = self.extended_status(COPY_DATA, data, to).await;
        let written = match &copied {
            Ok(()) => self
                .session
                .fstat(target.as_str())
                .await
                .map(|attrs| attrs.attrs.size.unwrap_or(0))
                .map_err(|error| self.error(to, error)),
            Err(error) => Err(error.clone()),
        };
        let _ = self.session.close(source).await;
        let closed = self.session.close(target).await;
        let result = match (written, closed) {
            (Ok(written), Ok(_)) if written == size => Ok(true),
            (Ok(written), Ok(_)) => Err(FsError::new(
                FsErrorKind::Changed,
                to,
                format!("the copy has {written} bytes, not {size}: the source changed meanwhile"),
            )),
            (Err(error), _) => Err(error),
            (_, Err(error)) => Err(self.error(to, error)),
        };
        if result.is_err() {
            let _ = self.session.remove(to).await;
        }
        result
    }

    async fn rename_file(&self, from: &str, to: &str, replace: bool) -> Result<(), FsError> {
        if replace {
            return self.rename_over(from, to).await;
        }
        super::refuse_existing(self, to).await?;
        self.session
            .rename(from, to)
            .await
            .map(|_| ())
            .map_err(|error| self.error(from, error))
    }

    fn renames_folders(&self) -> bool {
        true
    }

    async fn rename_dir(&self, from: &str, to: &str) -> Result<(), FsError> {
        super::refuse_existing(self, to).await?;
        self.session
            .rename(from, to)
            .await
            .map(|_| ())
            .map_err(|error| self.error(from, error))
    }

    async fn remove_dir(&self, path: &str) -> Result<(), FsError> {
        self.session
            .rmdir(path)
            .await
            .map(|_| ())
            .map_err(|error| self.error(path, error))
    }
}
