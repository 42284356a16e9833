//! Copying one file between two [`FileAccess`] sides (upload, download, and the copy step of
//! folder renames on services without one), with progress, cancellation and verification.
//!
//! The data streams through a bounded pipe ([`PIPE_BYTES`]), never whole into memory. The
//! destination is written with [`FileAccess::write_atomic`] (temp + rename, or a multipart
//! upload committed at the end), and the source side tells the destination whether it really
//! delivered every byte: when the source fails half-way (a server killed mid-transfer) the
//! destination sees an error, not an early end, so nothing truncated is ever committed under the
//! real name. After the copy the destination's size is compared with the source's.
//!
//! Progress goes to a callback at most every [`PROGRESS_EVERY`]; it must not block.

use crate::fs::{FileAccess, FsError, FsErrorKind, WriteOptions};
use kaiport_protocol::tools::EntryKind;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_util::sync::CancellationToken;

/// Bytes buffered between the two sides.
pub const PIPE_BYTES: usize = 4 * 1024 * 1024;
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
    let source = from.metadata(from_path).await?;
    if source.kind != EntryKind::File {
        return Err(FsError::new(
            FsErrorKind::Other,
            from_path,
            "is not a file; only single files are transferred",
        ));
    }
    let total = source.size;
    let (writer, reader) = tokio::io::duplex(PIPE_BYTES);
    let state = Arc::new(AtomicU8::new(RUNNING));
    let mut sink = CountingSink {
        inner: writer,
        transferred: 0,
        total,
        started: Instant::now(),
        last_report: Instant::now(),
        progress: progress.clone(),
    };
    let mut checked = CheckedSource {
        inner: reader,
        state: state.clone(),
    };
    let reading = async {
        let result = from.read_into(from_path, 0, u64::MAX, &mut sink).await;
        let complete = matches!(result, Ok(read) if read == total);
        state.store(if complete { COMPLETE } else { FAILED }, Ordering::SeqCst);
        if complete {
            sink.report(true);
        }
        // Closing the pipe ends the destination's data (an error unless complete).
        drop(sink);
        match result {
            Ok(read) if read != total => Err(FsError::new(
                FsErrorKind::Changed,
                from_path,
                format!("read {read} bytes but the file has {total}; it changed during the copy"),
            )),
            other => other,
        }
    };
    let writing = to.write_atomic(to_path, &mut checked, options);
    let (read, written) = tokio::select! {
        both = async { tokio::join!(reading, writing) } => both,
        () = cancel.cancelled() => {
            return Err(FsError::new(
                FsErrorKind::Other,
                to_path,
                "the transfer was cancelled; nothing was written under this name",
            ));
        }
    };
    // The source's error explains a destination failure better than "unexpected end".
    read?;
    let written = written?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::LocalFiles;

    #[tokio::test]
    async fn copies_and_reports_progress() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from.bin");
        let to = dir.path().join("to.bin");
        let data: Vec<u8> = (0..3_000_000u32).map(|at| (at % 251) as u8).collect();
        std::fs::write(&from, &data).unwrap();
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
        assert_eq!(std::fs::read(&to).unwrap(), data);
        let last = *seen.lock().unwrap().last().unwrap();
        assert!(last.done);
        assert_eq!(last.transferred, data.len() as u64);
    }
}
