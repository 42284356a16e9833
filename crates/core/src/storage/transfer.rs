//! Copying one file between two [`FileAccess`] sides (upload, download, and the copy step of
//! folder renames on services without one), with progress, cancellation and verification.
//!
//! The data streams through a bounded pipe ([`PIPE_BYTES`]), never whole into memory. The
//! destination is written with [`FileAccess::write_atomic`] (temp + rename, or a multipart
//! upload committed at the end), and the source side tells the destination whether it really
//! delivered every byte: when the source fails half-way (a server killed mid-transfer) the
//! destination sees an error, not an early end, so nothing truncated is ever committed under the
//! real name. After the copy the destination's size is compared with the source's. The source's
//! size and MD5 come from the answer to the read itself where the source can
//! ([`FileAccess::open_file`]: one request per file on S3 and Azure instead of a HEAD and a
//! GET); they describe exactly the bytes that follow and are checked the same way.
//!
//! Big files going to a side that takes pieces at any offset (local files) are read in ranges
//! instead, [`STREAMS`] at once (from a source read best as one stream, such as FTP, the whole
//! file as one range: no pipe to copy through), each written at its place in a temp file that
//! gets the real name only when every range delivered exactly its length (sources that state an
//! MD5 are streamed in order, so the MD5 can be checked on the way). Memory stays bounded either
//! way.
//!
//! Progress goes to a callback at most every [`PROGRESS_EVERY`]; it must not block.

use crate::fs::{FileAccess, FsError, FsErrorKind, OpenedFile, WriteOptions};
use futures::TryStreamExt;
use kaiport_protocol::tools::EntryKind;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio_util::sync::CancellationToken;

/// Bytes buffered between the two sides.
pub const PIPE_BYTES: usize = 4 * 1024 * 1024;
/// Files at least this big are downloaded in [`STREAMS`] streams where the destination takes
/// pieces at any offset (local files), as `rclone --multi-thread-streams` does: one stream
/// cannot keep both the network and the disk busy.
pub const PARALLEL_FROM: u64 = 128 * 1024 * 1024;
/// From a source read best as one stream (FTP), files at least this big still go into pieces
/// when the destination takes them, as one stream of one range: the bytes are copied once on
/// the way instead of into the pipe and out of it, which was 39 % of the CPU samples of a 1 GiB
/// FTP download (`perf`, user-space memmove).
pub const ONE_STREAM_FROM: u64 = 16 * 1024 * 1024;
/// How long a cancelled transfer's destination may take to clean up (abort an upload).
const CANCEL_GRACE: Duration = Duration::from_secs(10);
/// Streams of a parallel download.
pub const STREAMS: u64 = 4;
/// Bytes of one request of a parallel download; each stream takes the next range when its last
/// is done. rclone's `--multi-thread-chunk-size`: against `rclone serve webdav`, four requests of
/// 256 MiB for a 1 GiB file cost the server 1.15 s of CPU, sixteen of 64 MiB 0.8 s (curl, four
/// at a time). Smaller in tests, so that streams take several ranges each.
const RANGE_BYTES: u64 = if cfg!(test) { 8 << 20 } else { 64 << 20 };
/// Bytes a stream of a parallel download buffers before writing them at their offset.
const PIECE_BYTES: usize = 1024 * 1024;
/// How often progress is reported at most.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Where a transfer is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    pub transferred: u64,
    pub total: u64,
    /// Bytes per second since the start.
    pub rate: f64,
    /// Seconds left at that rate.
    pub eta_s: Option<f64>,
    pub done: bool,
}

/// Receives progress; called from the transfer's task.
pub type ProgressSink = Arc<dyn Fn(Progress) + Send + Sync>;

const RUNNING: u8 = 0;
const COMPLETE: u8 = 1;
const FAILED: u8 = 2;

/// The reading end handed to the destination: an early end of data becomes an error unless
/// the source finished completely.
struct CheckedSource {
    inner: tokio::io::DuplexStream,
    state: Arc<AtomicU8>,
}

impl AsyncRead for CheckedSource {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled
            && buf.filled().len() == before
            && self.state.load(Ordering::SeqCst) != COMPLETE
        {
            return Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the source stopped before the end of the file",
            )));
        }
        polled
    }
}

/// The writing end given to the source: counts bytes and reports progress.
struct CountingSink {
    inner: tokio::io::DuplexStream,
    transferred: u64,
    total: u64,
    started: Instant,
    last_report: Instant,
    progress: Option<ProgressSink>,
    /// Hashes what passes when the source stated an MD5 to check against.
    md5: Option<md5::Md5>,
}

impl CountingSink {
    fn report(&mut self, done: bool) {
        let Some(progress) = &self.progress else {
            return;
        };
        let elapsed = self.started.elapsed().as_secs_f64().max(0.001);
        let rate = self.transferred as f64 / elapsed;
        let left = self.total.saturating_sub(self.transferred) as f64;
        progress(Progress {
            transferred: self.transferred,
            total: self.total,
            rate,
            eta_s: (rate > 0.0).then(|| left / rate),
            done,
        });
        self.last_report = Instant::now();
    }
}

impl AsyncWrite for CountingSink {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, data);
        if let Poll::Ready(Ok(written)) = polled {
            if let Some(md5) = &mut self.md5 {
                md5::Digest::update(md5, &data[..written]);
            }
            self.transferred += written as u64;
            if self.last_report.elapsed() >= PROGRESS_EVERY {
                self.report(false);
            }
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Copies the file `from_path` of `from` to `to_path` of `to` (see the module docs). `options`
/// carry the "changed since checked" expectation for the target. Returns the bytes copied.
pub async fn copy_file(
    from: &dyn FileAccess,
    from_path: &str,
    to: &dyn FileAccess,
    to_path: &str,
    options: &WriteOptions,
    progress: Option<ProgressSink>,
    cancel: &CancellationToken,
) -> Result<u64, FsError> {
    // Where the source can, the read itself states the size and MD5 (one request per file
    // instead of two); else they are asked for first.
    let mut opened = from.open_file(from_path).await?;
    let source = match &opened {
        Some(opened) => opened.metadata.clone(),
        None => from.metadata(from_path).await?,
    };
    if source.kind != EntryKind::File {
        return Err(FsError::new(
            FsErrorKind::Other,
            from_path,
            "is not a file; only single files are transferred",
        ));
    }
    let total = source.size;
    let options = &WriteOptions {
        size: Some(total),
        ..options.clone()
    };
    let streams = if from.parallel_ranges() { STREAMS } else { 1 };
    let in_pieces_from = if streams > 1 {
        PARALLEL_FROM
    } else {
        ONE_STREAM_FROM
    };
    if total >= in_pieces_from
        && source.md5.is_none()
        && let Some(pieces) = to.open_pieces(to_path, options).await?
    {
        // The ranges are read anew, each with its own request.
        drop(opened.take());
        let copied = tokio::select! {
            copied = copy_in_streams(from, from_path, total, &pieces, streams, progress) => copied,
            () = cancel.cancelled() => Err(FsError::new(
                FsErrorKind::Other,
                to_path,
                "the transfer was cancelled; nothing was written under this name",
            )),
        };
        // The ranges came in separate requests: a file replaced meanwhile would be a mix.
        let copied = match copied {
            Ok(()) => same_version(from, from_path, source.version.as_deref()).await,
            Err(error) => Err(error),
        };
        match copied {
            Ok(()) => pieces.commit().await?,
            Err(error) => {
                pieces.discard().await;
                return Err(error);
            }
        }
        return verify_landed(to, to_path, total, total).await;
    }
    let (writer, reader) = tokio::io::duplex(PIPE_BYTES);
    let state = Arc::new(AtomicU8::new(RUNNING));
    let mut sink = CountingSink {
        inner: writer,
        transferred: 0,
        total,
        started: Instant::now(),
        last_report: Instant::now(),
        progress: progress.clone(),
        md5: source.md5.map(|_| <md5::Md5 as md5::Digest>::new()),
    };
    let checked = CheckedSource {
        inner: reader,
        state: state.clone(),
    };
    // Set when the destination has stopped taking data: the source's error after that (the
    // pipe closed under it) is a consequence, the destination's is the cause.
    let destination_gone = AtomicBool::new(false);
    let reading = async {
        // One byte more than the size just read: a file that grew since is still noticed, and a
        // service may skip asking for the size again.
        let limit = total.saturating_add(1);
        let mut result = match opened {
            Some(opened) => drain_opened(opened, from_path, limit, &mut sink).await,
            None => from.read_into(from_path, 0, limit, &mut sink).await,
        };
        if let (Ok(_), Some(stated), Some(md5)) = (&result, source.md5, sink.md5.take()) {
            let read: [u8; 16] = md5::Digest::finalize(md5).into();
            if read != stated {
                result = Err(FsError::new(
                    FsErrorKind::Other,
                    from_path,
                    format!(
                        "the data read does not match the MD5 the service states for this file \
                         ({} read, {} stated); it was damaged on the way or on the server. \
                         Nothing was written under the destination's name; try again",
                        data_encoding::HEXLOWER.encode(&read),
                        data_encoding::HEXLOWER.encode(&stated)
                    ),
                ));
            }
        }
        let after_destination = result.is_err() && destination_gone.load(Ordering::SeqCst);
        let complete = matches!(result, Ok(read) if read == total);
        state.store(if complete { COMPLETE } else { FAILED }, Ordering::SeqCst);
        if complete {
            sink.report(true);
        }
        // Closing the pipe ends the destination's data (an error unless complete).
        drop(sink);
        let result = match result {
            Ok(read) if read != total => Err(FsError::new(
                FsErrorKind::Changed,
                from_path,
                format!("read {read} bytes but the file has {total}; it changed during the copy"),
            )),
            other => other,
        };
        (result, after_destination)
    };
    let writing = async {
        let mut checked = checked;
        let written = to.write_atomic(to_path, &mut checked, options).await;
        // A destination that gave up must not leave the source waiting on a full pipe forever
        // (an upload refused after the first parts, a local disk that filled): closing the
        // pipe's reading end makes the source's next write fail.
        destination_gone.store(true, Ordering::SeqCst);
        drop(checked);
        written
    };
    // A cancel ends the source at once: its side of the pipe closes before the end, which the
    // destination takes as a failure and cleans up after (an S3 multipart upload is aborted,
    // not left to be billed; a temp file is deleted). The destination gets CANCEL_GRACE for it.
    let reading = async {
        tokio::select! {
            read = reading => Some(read),
            () = cancel.cancelled() => None,
        }
    };
    let writing = async {
        let mut writing = std::pin::pin!(writing);
        tokio::select! {
            written = &mut writing => Some(written),
            () = async {
                cancel.cancelled().await;
                tokio::time::sleep(CANCEL_GRACE).await;
            } => None,
        }
    };
    let (Some(read), Some(written)) = tokio::join!(reading, writing) else {
        return Err(FsError::new(
            FsErrorKind::Other,
            to_path,
            "the transfer was cancelled; nothing was written under this name",
        ));
    };
    let (read, read_after_destination) = read;
    let written = match (read, written) {
        // The destination failed first: its error says why.
        (Err(_), Err(error)) if read_after_destination => return Err(error),
        // The source's error explains a destination failure better than "unexpected end".
        (Err(error), _) => return Err(error),
        (Ok(_), written) => written?,
    };
    if to.writes_are_exact() && written == total {
        return Ok(total);
    }
    verify_landed(to, to_path, total, written).await
}

/// Writes the bytes of a read begun with [`FileAccess::open_file`] into `sink`, at most
/// `limit`; returns how many were written (checked against the stated size by the caller).
async fn drain_opened(
    opened: OpenedFile,
    from_path: &str,
    limit: u64,
    sink: &mut CountingSink,
) -> Result<u64, FsError> {
    write_chunks(opened.data, limit, sink, |error| {
        FsError::new(
            FsErrorKind::Other,
            from_path,
            format!("writing the data: {error}"),
        )
    })
    .await
}

/// Writes the chunks of `chunks` into `sink`, at most `limit` bytes, and flushes it; returns
/// the bytes written. A failure of the sink becomes `sink_error`'s error.
pub(crate) async fn write_chunks<E>(
    mut chunks: impl futures::Stream<Item = Result<bytes::Bytes, E>> + Unpin,
    limit: u64,
    sink: &mut (dyn AsyncWrite + Send + Unpin),
    sink_error: impl Fn(std::io::Error) -> E,
) -> Result<u64, E> {
    let mut written = 0u64;
    while written < limit
        && let Some(chunk) = chunks.try_next().await?
    {
        let take = chunk
            .len()
            .min(usize::try_from(limit - written).unwrap_or(usize::MAX));
        sink.write_all(&chunk[..take]).await.map_err(&sink_error)?;
        written += take as u64;
    }
    sink.flush().await.map_err(&sink_error)?;
    Ok(written)
}

/// Fails with [`FsErrorKind::Changed`] when `path` no longer has the `version` it had when
/// the copy started (see [`crate::fs::Metadata::version`]).
async fn same_version(
    from: &dyn FileAccess,
    path: &str,
    version: Option<&str>,
) -> Result<(), FsError> {
    let Some(version) = version else {
        return Ok(());
    };
    if from.metadata(path).await?.version.as_deref() == Some(version) {
        return Ok(());
    }
    Err(FsError::new(
        FsErrorKind::Changed,
        path,
        "the file was replaced while it was copied, so the copy could mix the old and the new \
         content; nothing was written under the destination's name. Copy it again",
    ))
}

/// Checks that the copy at `to_path` has the source's size `total` (and that `written`, what
/// the destination took, was all of it).
async fn verify_landed(
    to: &dyn FileAccess,
    to_path: &str,
    total: u64,
    written: u64,
) -> Result<u64, FsError> {
    let landed = to.metadata(to_path).await?;
    if landed.size != total || written != total {
        return Err(FsError::new(
            FsErrorKind::Other,
            to_path,
            format!(
                "verification failed: {} bytes arrived, the source has {total}",
                landed.size
            ),
        ));
    }
    Ok(total)
}

/// The sink of one stream of a parallel download: gathers what arrives into blocks of
/// [`PIECE_BYTES`] and writes each at its offset while the next one fills. The bytes are copied
/// once on the way (a pipe between the source and the writer copied them twice: 17 % of a
/// 1 GiB WebDAV download's CPU). Bytes past the range's end (the file grew) are counted and
/// never written. A write runs as its own task: the stream polls its sink only when data
/// arrives, and a write waiting for that would hold up the other streams' writes.
struct PieceSink<'a> {
    pieces: Arc<dyn crate::fs::Pieces>,
    block: crate::fs::Block,
    /// Where `block` goes in the file.
    offset: u64,
    /// The end of this stream's range.
    end: u64,
    /// The block being written and its length.
    writing: Option<(tokio::task::JoinHandle<Result<(), FsError>>, u64)>,
    /// The first failure of a write; the source only sees that writing failed.
    failed: Option<FsError>,
    /// Told the length of every block written.
    written: &'a (dyn Fn(u64) + Send + Sync),
    /// The file read, for errors.
    path: &'a str,
}

impl<'a> PieceSink<'a> {
    fn new(
        pieces: Arc<dyn crate::fs::Pieces>,
        start: u64,
        end: u64,
        written: &'a (dyn Fn(u64) + Send + Sync),
        path: &'a str,
    ) -> Self {
        PieceSink {
            path,
            pieces,
            block: crate::fs::Block::with_capacity(PIECE_BYTES),
            offset: start,
            end,
            writing: None,
            failed: None,
            written,
        }
    }

    /// Waits for the block being written, if any.
    fn poll_written(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let Some((write, size)) = &mut self.writing else {
            return Poll::Ready(Ok(()));
        };
        let result = std::task::ready!(Pin::new(write).poll(cx));
        let size = *size;
        self.writing = None;
        let result = result.unwrap_or_else(|error| {
            Err(FsError::new(
                FsErrorKind::Other,
                self.path,
                format!("writing a block: {error}"),
            ))
        });
        match result {
            Ok(()) => {
                (self.written)(size);
                Poll::Ready(Ok(()))
            }
            Err(error) => {
                let message = error.to_string();
                self.failed = Some(error);
                Poll::Ready(Err(std::io::Error::other(message)))
            }
        }
    }

    /// Starts writing the gathered block (the previous one must be done).
    fn start_write(&mut self) {
        let block = std::mem::replace(
            &mut self.block,
            crate::fs::Block::with_capacity(PIECE_BYTES),
        );
        let size = block.len() as u64;
        let (pieces, offset) = (self.pieces.clone(), self.offset);
        let write = tokio::spawn(async move { pieces.write_at(offset, block).await });
        self.offset += size;
        self.writing = Some((write, size));
    }
}

impl AsyncWrite for PieceSink<'_> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        if this.failed.is_some() {
            return Poll::Ready(Err(std::io::Error::other("writing failed")));
        }
        if this.block.len() == PIECE_BYTES {
            std::task::ready!(this.poll_written(cx))?;
            this.start_write();
        }
        // A write finished in the meantime is noticed (and reported) early.
        if let Poll::Ready(Err(error)) = this.poll_written(cx) {
            return Poll::Ready(Err(error));
        }
        let at = this.offset + this.block.len() as u64;
        let room = (PIECE_BYTES - this.block.len())
            .min(usize::try_from(this.end.saturating_sub(at)).unwrap_or(usize::MAX));
        if room == 0 {
            // Past the range: the caller sees more read than asked and reports it.
            return Poll::Ready(Ok(data.len()));
        }
        let take = room.min(data.len());
        this.block.extend_from_slice(&data[..take]);
        Poll::Ready(Ok(take))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.poll_written(cx))?;
        if this.block.is_empty() {
            return Poll::Ready(Ok(()));
        }
        this.start_write();
        this.poll_written(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.poll_flush(cx)
    }
}

/// Reads `from_path` (`total` bytes) into `pieces` in ranges of [`RANGE_BYTES`], `streams` at
/// once (one stream reads the whole file as one range); succeeds only when every range
/// delivered exactly its length (the last one is asked for a byte more, so a file that grew is
/// noticed).
async fn copy_in_streams(
    from: &dyn FileAccess,
    from_path: &str,
    total: u64,
    pieces: &Arc<dyn crate::fs::Pieces>,
    streams: u64,
    progress: Option<ProgressSink>,
) -> Result<(), FsError> {
    let done = std::sync::atomic::AtomicU64::new(0);
    let started = Instant::now();
    let last_report = std::sync::Mutex::new(Instant::now());
    let report = |finished: bool| {
        let Some(progress) = &progress else {
            return;
        };
        let transferred = done.load(Ordering::SeqCst);
        let rate = transferred as f64 / started.elapsed().as_secs_f64().max(0.001);
        let left = total.saturating_sub(transferred) as f64;
        progress(Progress {
            transferred,
            total,
            rate,
            eta_s: (rate > 0.0).then(|| left / rate),
            done: finished,
        });
    };
    let written = |size: u64| {
        done.fetch_add(size, Ordering::SeqCst);
        let mut last = last_report
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if last.elapsed() >= PROGRESS_EVERY {
            *last = Instant::now();
            drop(last);
            report(false);
        }
    };
    let range_bytes = if streams > 1 {
        RANGE_BYTES
    } else {
        total.max(1)
    };
    let ranges = total.div_ceil(range_bytes);
    let next = std::sync::atomic::AtomicU64::new(0);
    let streams = (0..streams).map(|_| {
        let (written, next) = (&written, &next);
        async move {
            // Each stream takes the next range until none is left: a slow stream holds up the
            // end by one range at most.
            loop {
                let index = next.fetch_add(1, Ordering::SeqCst);
                if index >= ranges {
                    return Ok::<(), FsError>(());
                }
                let start = index * range_bytes;
                let length = range_bytes.min(total - start);
                let last = start + length == total;
                let asked = if last { length + 1 } else { length };
                let mut sink =
                    PieceSink::new(pieces.clone(), start, start + length, written, from_path);
                let mut read = from.read_into(from_path, start, asked, &mut sink).await;
                if read.is_ok()
                    && let Err(error) = sink.flush().await
                {
                    read = Err(FsError::new(
                        FsErrorKind::Other,
                        from_path,
                        error.to_string(),
                    ));
                }
                if let Some(error) = sink.failed.take() {
                    return Err(error);
                }
                match read {
                    Ok(read) if read == length => {}
                    Ok(read) => {
                        return Err(FsError::new(
                            FsErrorKind::Changed,
                            from_path,
                            format!(
                                "the part at {start} did not have its {length} bytes ({read} \
                                 read); the file changed during the copy (it had {total})"
                            ),
                        ));
                    }
                    // The source failed before its range ended: its error says why.
                    Err(error) => return Err(error),
                }
            }
        }
    });
    futures::future::try_join_all(streams).await?;
    report(true);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::LocalFiles;
    use futures::StreamExt;

    /// Copies `data` from one local file to another; checks the copy, the last progress report,
    /// and that no temp file is left.
    async fn copy_and_check(data: &[u8]) {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from.bin");
        let to = dir.path().join("to.bin");
        std::fs::write(&from, data).unwrap();
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink_seen = seen.clone();
        let progress: ProgressSink = Arc::new(move |update| sink_seen.lock().unwrap().push(update));
        let copied = copy_file(
            &LocalFiles,
            from.to_str().unwrap(),
            &LocalFiles,
            to.to_str().unwrap(),
            &WriteOptions::default(),
            Some(progress),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
        assert_eq!(copied, data.len() as u64);
        assert!(std::fs::read(&to).unwrap() == data, "the copy differs");
        let last = *seen.lock().unwrap().last().unwrap();
        assert!(last.done);
        assert_eq!(last.transferred, data.len() as u64);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[tokio::test]
    async fn copies_and_reports_progress() {
        let data: Vec<u8> = (0..3_000_000u32).map(|at| (at % 251) as u8).collect();
        copy_and_check(&data).await;
    }

    #[tokio::test]
    async fn a_big_file_comes_in_parallel_streams_and_whole() {
        // Many more ranges than streams, and an odd tail.
        let size = PARALLEL_FROM as usize + 12_345;
        let data: Vec<u8> = (0..size)
            .map(|at| (at % 241) as u8 ^ (at >> 20) as u8)
            .collect();
        copy_and_check(&data).await;
    }

    #[tokio::test]
    async fn a_file_synced_on_the_way_ends_with_its_odd_tail() {
        // Past the local side's first sync on the way, in one stream, not a multiple of a block.
        let size = 20 * 1024 * 1024 + 4097;
        let data: Vec<u8> = (0..size)
            .map(|at| (at % 239) as u8 ^ (at >> 16) as u8)
            .collect();
        copy_and_check(&data).await;
    }

    #[tokio::test]
    async fn a_stream_that_fails_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from.bin");
        let to = dir.path().join("to.bin");
        std::fs::write(&from, vec![7u8; PARALLEL_FROM as usize]).unwrap();
        let side = Wrapped {
            fail_from: 1,
            ..Wrapped::stating(None)
        };
        fails_leaving_only_the_source(&side, &from, &to).await;
    }

    /// Copies `from` through `side` to `to` beside it, which must fail as the source does
    /// ("gone") and leave nothing in the folder but `from`.
    async fn fails_leaving_only_the_source(
        side: &Wrapped,
        from: &std::path::Path,
        to: &std::path::Path,
    ) {
        let error = copy_through(side, from, to).await.unwrap_err();
        assert!(error.message.contains("gone"), "{error}");
        assert!(!to.exists(), "a failed download got the name");
        let left = std::fs::read_dir(to.parent().unwrap()).unwrap().count();
        assert_eq!(left, 1, "a temp file was left");
    }

    /// A big file from a source read best as one stream goes into pieces as one read of the
    /// whole file (and a byte more, to notice growth), arrives whole, and leaves no temp file;
    /// cut off half-way, it leaves nothing at all under the destination's folder.
    #[tokio::test]
    async fn a_big_file_from_a_one_stream_source_is_one_read_into_pieces() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from.bin");
        let to = dir.path().join("to.bin");
        let size = ONE_STREAM_FROM as usize + 3 * 1024 * 1024 + 4097;
        let data: Vec<u8> = (0..size)
            .map(|at| (at % 233) as u8 ^ (at >> 18) as u8)
            .collect();
        std::fs::write(&from, &data).unwrap();
        let side = Wrapped {
            one_stream: true,
            ..Wrapped::stating(None)
        };
        let (options, cancel) = (WriteOptions::default(), CancellationToken::new());
        let (from_path, to_path) = (from.to_str().unwrap(), to.to_str().unwrap());
        let copied = copy_file(&side, from_path, &side, to_path, &options, None, &cancel).await;
        assert_eq!(copied.unwrap(), size as u64);
        assert!(std::fs::read(&to).unwrap() == data, "the copy differs");
        assert_eq!(*side.reads.lock().unwrap(), [(0, size as u64 + 1)]);
        assert!(
            side.pieces.load(Ordering::SeqCst),
            "it went through the pipe"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);

        std::fs::remove_file(&to).unwrap();
        let side = Wrapped {
            one_stream: true,
            cut_after: Some(size as u64 / 2),
            ..Wrapped::stating(None)
        };
        fails_leaving_only_the_source(&side, &from, &to).await;
    }

    /// A destination that fails after taking some of the data ends the copy with its own error;
    /// the source, still sending, does not wait on the full pipe forever.
    #[tokio::test]
    async fn a_destination_that_gives_up_ends_the_copy_with_its_error() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from.bin");
        // Several pipes' worth, below the size read in parallel ranges.
        std::fs::write(&from, vec![3u8; 4 * PIPE_BYTES]).unwrap();
        let side = Wrapped {
            refuse_writes_after: Some(1024 * 1024),
            ..Wrapped::stating(None)
        };
        let to = dir.path().join("to.bin");
        let (options, cancel) = (WriteOptions::default(), CancellationToken::new());
        let copying = copy_file(
            &LocalFiles,
            from.to_str().unwrap(),
            &side,
            to.to_str().unwrap(),
            &options,
            None,
            &cancel,
        );
        let error = tokio::time::timeout(Duration::from_secs(30), copying)
            .await
            .expect("the copy hung after the destination failed")
            .unwrap_err();
        assert!(error.message.contains("does not exist"), "{error}");
    }

    /// Copies the local file `from`, read through `side`, to the local file `to`.
    async fn copy_through(
        side: &dyn FileAccess,
        from: &std::path::Path,
        to: &std::path::Path,
    ) -> Result<u64, FsError> {
        copy_file(
            side,
            from.to_str().unwrap(),
            &LocalFiles,
            to.to_str().unwrap(),
            &WriteOptions::default(),
            None,
            &CancellationToken::new(),
        )
        .await
    }

    /// Local files whose metadata states a content MD5 (like an Azure blob's Content-MD5), and
    /// whose reads from `fail_from` on fail (like a server dying mid-download). With `opens`,
    /// the facts come only with the read ([`FileAccess::open_file`], like an S3 or Azure GET),
    /// stating `stated_size` where set instead of the real size, and asking for metadata fails.
    /// With `refuse_writes_after`, a write takes that many bytes and then fails (like an upload
    /// whose parts the service refuses). With `one_stream`, it is read best as one stream (like
    /// FTP), and with `cut_after` every read fails after that many bytes (a connection lost
    /// mid-file). `reads` records every read's offset and length asked for, and `pieces` is set
    /// when a download into it was written in pieces.
    struct Wrapped {
        md5: Option<[u8; 16]>,
        fail_from: u64,
        opens: bool,
        stated_size: Option<u64>,
        refuse_writes_after: Option<usize>,
        one_stream: bool,
        cut_after: Option<u64>,
        reads: std::sync::Mutex<Vec<(u64, u64)>>,
        pieces: AtomicBool,
    }

    impl Wrapped {
        fn stating(md5: Option<[u8; 16]>) -> Wrapped {
            Wrapped {
                md5,
                fail_from: u64::MAX,
                opens: false,
                stated_size: None,
                refuse_writes_after: None,
                one_stream: false,
                cut_after: None,
                reads: std::sync::Mutex::default(),
                pieces: AtomicBool::new(false),
            }
        }
    }

    #[async_trait::async_trait]
    impl FileAccess for Wrapped {
        fn location(&self) -> String {
            "stated-md5".to_owned()
        }
        fn capabilities(&self) -> crate::fs::Capabilities {
            LocalFiles.capabilities()
        }
        async fn metadata(&self, path: &str) -> Result<crate::fs::Metadata, FsError> {
            if self.opens {
                return Err(FsError::new(
                    FsErrorKind::Other,
                    path,
                    "metadata was asked for; the read states it",
                ));
            }
            let mut found = LocalFiles.metadata(path).await?;
            found.md5 = self.md5;
            Ok(found)
        }
        async fn open_file(&self, path: &str) -> Result<Option<OpenedFile>, FsError> {
            if !self.opens {
                return Ok(None);
            }
            let mut metadata = LocalFiles.metadata(path).await?;
            metadata.md5 = self.md5;
            metadata.size = self.stated_size.unwrap_or(metadata.size);
            let content = std::fs::read(path).unwrap();
            let chunks: Vec<Result<bytes::Bytes, FsError>> = content
                .chunks(100_000)
                .map(|chunk| Ok(bytes::Bytes::copy_from_slice(chunk)))
                .collect();
            Ok(Some(OpenedFile {
                metadata,
                data: futures::stream::iter(chunks).boxed(),
            }))
        }
        async fn symlink_metadata(&self, path: &str) -> Result<crate::fs::Metadata, FsError> {
            self.metadata(path).await
        }
        async fn read_dir(&self, path: &str) -> Result<Vec<crate::fs::DirItem>, FsError> {
            LocalFiles.read_dir(path).await
        }
        async fn read_link(&self, path: &str) -> Result<String, FsError> {
            LocalFiles.read_link(path).await
        }
        async fn read_into(
            &self,
            path: &str,
            offset: u64,
            max_len: u64,
            sink: crate::fs::Sink<'_>,
        ) -> Result<u64, FsError> {
            self.reads.lock().unwrap().push((offset, max_len));
            if offset >= self.fail_from {
                return Err(FsError::new(FsErrorKind::ConnectionLost, path, "gone"));
            }
            if let Some(cut) = self.cut_after {
                LocalFiles
                    .read_into(path, offset, max_len.min(cut), sink)
                    .await?;
                return Err(FsError::new(FsErrorKind::ConnectionLost, path, "gone"));
            }
            LocalFiles.read_into(path, offset, max_len, sink).await
        }
        fn parallel_ranges(&self) -> bool {
            !self.one_stream
        }
        async fn open_pieces(
            &self,
            path: &str,
            options: &WriteOptions,
        ) -> Result<Option<Arc<dyn crate::fs::Pieces>>, FsError> {
            self.pieces.store(true, Ordering::SeqCst);
            LocalFiles.open_pieces(path, options).await
        }
        async fn write_atomic(
            &self,
            path: &str,
            source: crate::fs::Source<'_>,
            options: &WriteOptions,
        ) -> Result<u64, FsError> {
            if let Some(taken) = self.refuse_writes_after {
                let mut part = vec![0u8; taken];
                tokio::io::AsyncReadExt::read_exact(source, &mut part)
                    .await
                    .unwrap();
                return Err(FsError::new(
                    FsErrorKind::NotFound,
                    path,
                    "the container does not exist",
                ));
            }
            LocalFiles.write_atomic(path, source, options).await
        }
        async fn create_private(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
            LocalFiles.create_private(path, data).await
        }
        async fn remove_file(&self, path: &str) -> Result<(), FsError> {
            LocalFiles.remove_file(path).await
        }
        fn temp_dir(&self) -> String {
            LocalFiles.temp_dir()
        }
    }

    #[tokio::test]
    async fn a_stated_md5_is_checked_before_the_copy_gets_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from.bin");
        let to = dir.path().join("to.bin");
        let data: Vec<u8> = (0..9_000_000u32).map(|at| (at % 253) as u8).collect();
        std::fs::write(&from, &data).unwrap();
        let right: [u8; 16] =
            md5::Digest::finalize(<md5::Md5 as md5::Digest>::new_with_prefix(&data)).into();
        let copy = |stated| {
            let (from, to) = (from.clone(), to.clone());
            async move { copy_through(&Wrapped::stating(stated), &from, &to).await }
        };
        let mut wrong = right;
        wrong[7] ^= 1;
        let error = copy(Some(wrong)).await.unwrap_err().to_string();
        assert!(error.contains("does not match the MD5"), "{error}");
        assert!(!to.exists(), "a copy that failed its check got the name");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "a temp file was left behind");
        assert_eq!(copy(Some(right)).await.unwrap(), data.len() as u64);
        assert_eq!(std::fs::read(&to).unwrap(), data);
    }

    /// Facts stated by the read itself (no metadata request) are checked as strictly as asked
    /// ones: a wrong MD5, a size smaller or larger than the bytes that came: each fails, and
    /// nothing (not even a temp file) is left under the destination's folder.
    #[tokio::test]
    async fn facts_stated_by_the_read_are_checked_before_the_copy_gets_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from.bin");
        let to = dir.path().join("to.bin");
        let data: Vec<u8> = (0..1_000_000u32).map(|at| (at % 249) as u8).collect();
        std::fs::write(&from, &data).unwrap();
        let right: [u8; 16] =
            md5::Digest::finalize(<md5::Md5 as md5::Digest>::new_with_prefix(&data)).into();
        let mut wrong = right;
        wrong[3] ^= 1;
        let copy = |md5, stated_size| {
            let (from, to) = (from.clone(), to.clone());
            async move {
                let side = Wrapped {
                    opens: true,
                    stated_size,
                    ..Wrapped::stating(md5)
                };
                copy_through(&side, &from, &to).await
            }
        };
        let size = data.len() as u64;
        for (md5, stated_size, expected) in [
            (Some(wrong), None, "does not match the MD5"),
            (Some(right), Some(size - 1), "changed during the copy"),
            (None, Some(size - 1), "changed during the copy"),
            (None, Some(size + 1), "changed during the copy"),
        ] {
            let error = copy(md5, stated_size).await.unwrap_err().to_string();
            assert!(error.contains(expected), "{stated_size:?}: {error}");
            assert!(!to.exists(), "a copy that failed its check got the name");
            let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
            assert_eq!(leftovers, 1, "a temp file was left behind");
        }
        assert_eq!(copy(Some(right), None).await.unwrap(), size);
        assert_eq!(std::fs::read(&to).unwrap(), data);
    }
}
