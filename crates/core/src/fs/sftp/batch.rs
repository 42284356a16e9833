//! Many small SFTP requests at once: folder listings for walks and whole-file reads for
//! search_files.
//!
//! Round trips, not bytes, are what small files cost over SFTP. So nothing here waits for a
//! reply it does not need: reads go out the moment a file's handle arrives (all chunks of it at
//! once, sized from the listing), `readdir`s are sent ahead, and `close` is sent without waiting
//! for its answer (the server handles requests in order, so it still comes after the reads).
//! Many files are in flight at once, bounded by open handles and by bytes, not by a small count.
//!
//! Every open handle is closed: each file or folder runs in its own task, which finishes even
//! when the caller stops listening (a dropped search would otherwise leak handles on the
//! server for the life of the session). This module must never log file contents.

use super::{SftpFiles, map_error, metadata_from};
use crate::fs::{DirItem, FsError};
use futures::FutureExt;
use futures::stream::{self, BoxStream, FuturesOrdered, FuturesUnordered, StreamExt};
use kaiport_protocol::tools::EntryKind;
use russh_sftp::client::RawSftpSession;
use russh_sftp::client::error::Error as SftpError;
use russh_sftp::protocol::{FileAttributes, OpenFlags, StatusCode};
use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;
use std::task::Poll;
use tokio::sync::Semaphore;

/// `readdir` requests sent ahead on one folder handle: OpenSSH answers up to 100 names each,
/// so most folders are listed by the first batch.
const READDIR_AHEAD: usize = 3;
/// Bytes of file data asked for and not yet handed to the caller, across all files.
const READ_BUDGET: u64 = 16 * 1024 * 1024;
/// Open handles used by one batch when the server does not say how many it allows.
pub(super) const FALLBACK_HANDLES: usize = 64;
/// Never more handles than this for one batch, whatever the server allows: a search lists
/// folders and reads files at once, and the session's [`super::HANDLE_SLOTS`] leave room for
/// other calls beside both.
pub(super) const MAX_HANDLES: usize = 56;

fn is_eof(error: &SftpError) -> bool {
    matches!(error, SftpError::Status(status) if status.status_code == StatusCode::Eof)
}

/// Sends `close` for `handle` without waiting for the answer. The first poll puts the request
/// on the wire; dropping the future after that only stops listening (russh-sftp ignores the
/// late reply). A close that fails after a complete read or listing loses nothing.
fn close_without_waiting(session: &RawSftpSession, handle: String) {
    if session.close(handle).now_or_never().is_none() {
        tracing::trace!("close sent; its reply is not awaited");
    }
}

/// Lists the folder `path`: `opendir`, then [`READDIR_AHEAD`] `readdir`s at once, topped up
/// while names keep coming.
pub(super) async fn list_dir(
    session: Arc<RawSftpSession>,
    slots: Arc<Semaphore>,
    path: String,
) -> Result<Vec<DirItem>, SftpError> {
    let _slot = SftpFiles::slot(&slots).await;
    let handle = session.opendir(path.as_str()).await?.handle;
    let mut items = Vec::new();
    let mut requests = FuturesUnordered::new();
    for _ in 0..READDIR_AHEAD {
        requests.push(session.readdir(handle.as_str()));
    }
    let mut at_end = false;
    let mut failed = None;
    while let Some(reply) = requests.next().await {
        match reply {
            Ok(names) => {
                items.extend(
                    names
                        .files
                        .into_iter()
                        // The folder itself and its parent; anything else called so is
                        // kept for the walks to refuse and report (fs::refused_name).
                        .filter(|file| {
                            !(matches!(file.filename.as_str(), "." | "..")
                                && metadata_from(&file.attrs).kind == EntryKind::Dir)
                        })
                        .map(|file| DirItem {
                            metadata: metadata_from(&file.attrs),
                            name: file.filename,
                        }),
                );
                if !at_end && failed.is_none() {
                    requests.push(session.readdir(handle.as_str()));
                }
            }
            Err(error) if is_eof(&error) => at_end = true,
            Err(error) => {
                failed.get_or_insert(error);
            }
        }
    }
    drop(requests);
    close_without_waiting(&session, handle);
    match failed {
        Some(error) => Err(error),
        None => Ok(items),
    }
}

/// Reads `path` whole, up to `limit` bytes. `size` is what the listing said: the first requests
/// cover one byte more than that (so a file that grew shows up as a full reply), all sent at
/// once; only a file that grew or a server that answers short needs more round trips.
async fn read_whole(
    session: Arc<RawSftpSession>,
    slots: Arc<Semaphore>,
    chunk: u64,
    path: String,
    size: u64,
    limit: u64,
) -> Result<Vec<u8>, SftpError> {
    let _slot = SftpFiles::slot(&slots).await;
    let handle = session
        .open(path.as_str(), OpenFlags::READ, FileAttributes::default())
        .await?
        .handle;
    let result = read_handle(&session, &handle, chunk, size, limit).await;
    close_without_waiting(&session, handle);
    result
}

async fn read_handle(
    session: &RawSftpSession,
    handle: &str,
    chunk: u64,
    size: u64,
    limit: u64,
) -> Result<Vec<u8>, SftpError> {
    let first = size.saturating_add(1).min(limit);
    let mut data = Vec::with_capacity(usize::try_from(first).unwrap_or(0));
    let mut requests = FuturesOrdered::new();
    let mut at = 0;
    while at < first {
        let len = chunk.min(first - at);
        requests.push_back(
            session
                .read(handle, at, len as u32)
                .map(move |reply| (len, reply)),
        );
        at += len;
    }
    let mut at_end = false;
    while let Some((len, reply)) = requests.next().await {
        match reply {
            Ok(got) => {
                let short = (got.data.len() as u64) < len;
                data.extend_from_slice(&got.data);
                if short {
                    // OpenSSH answers short only at the end of a regular file; anything else
                    // (a server that sends less, a file that shrank) is read on below.
                    at_end = data.len() as u64 >= size;
                    break;
                }
            }
            Err(error) if is_eof(&error) => {
                at_end = true;
                break;
            }
            Err(error) => return Err(error),
        }
    }
    // Whatever is still in flight is at offsets that may no longer line up: drop it.
    drop(requests);
    while !at_end && (data.len() as u64) < limit {
        let len = chunk.min(limit - data.len() as u64);
        match session.read(handle, data.len() as u64, len as u32).await {
            Ok(got) if got.data.is_empty() => at_end = true,
            Ok(got) => data.extend_from_slice(&got.data),
            Err(error) if is_eof(&error) => at_end = true,
            Err(error) => return Err(error),
        }
    }
    Ok(data)
}

impl SftpFiles {
    /// Open handles one batch of listings or reads may use (see [`SftpFiles::open`]).
    pub(super) fn batch_handles(&self) -> usize {
        self.open_handles
    }

    /// [`crate::fs::FileAccess::read_files`] over SFTP: see the module docs.
    pub(super) fn read_files_pipelined<'a>(
        &'a self,
        files: BoxStream<'a, (String, u64)>,
        limit: u64,
    ) -> BoxStream<'a, (String, Result<Vec<u8>, FsError>)> {
        let chunk = self.read_chunk;
        let jobs = files.map(move |(path, size)| {
            let cost = size.saturating_add(1).min(limit);
            let job = (size > 0).then(|| {
                tokio::spawn(read_whole(
                    self.session.clone(),
                    self.slots.clone(),
                    chunk,
                    path.clone(),
                    size,
                    limit,
                ))
            });
            let location = self.location.as_str();
            let read = async move {
                let result = match job {
                    None => Ok(Vec::new()),
                    Some(job) => match job.await {
                        Ok(result) => result.map_err(|error| map_error(location, &path, error)),
                        Err(error) => Err(FsError::new(
                            crate::fs::FsErrorKind::Other,
                            &path,
                            format!("the read stopped unexpectedly: {error}"),
                        )),
                    },
                };
                (path, result)
            };
            (cost, read)
        });
        in_order_within_budget(jobs.boxed(), self.batch_handles(), READ_BUDGET)
    }
}

/// Runs the futures `jobs` yields, each with a cost, keeping at most `max_count` of them and at
/// most `max_cost` in summed cost running (one job always runs, however costly), and yields
/// their outputs in the order of `jobs`. A job's cost is released when its output is taken, so
/// outputs waiting behind a slow one count too and memory stays bounded.
fn in_order_within_budget<'a, F>(
    mut jobs: BoxStream<'a, (u64, F)>,
    max_count: usize,
    max_cost: u64,
) -> BoxStream<'a, F::Output>
where
    F: Future + Send + 'a,
    F::Output: Send + 'a,
{
    let mut running = FuturesOrdered::new();
    let mut costs = VecDeque::new();
    let mut cost = 0u64;
    let mut waiting: Option<(u64, F)> = None;
    let mut jobs_done = false;
    stream::poll_fn(move |cx| {
        while running.len() < max_count.max(1) {
            let next = match waiting.take() {
                Some(job) => Some(job),
                None if jobs_done => None,
                None => match jobs.poll_next_unpin(cx) {
                    Poll::Ready(Some(job)) => Some(job),
                    Poll::Ready(None) => {
                        jobs_done = true;
                        None
                    }
                    Poll::Pending => None,
                },
            };
            let Some((job_cost, job)) = next else {
                break;
            };
            if !running.is_empty() && cost.saturating_add(job_cost) > max_cost {
                waiting = Some((job_cost, job));
                break;
            }
            cost = cost.saturating_add(job_cost);
            costs.push_back(job_cost);
            running.push_back(job);
        }
        match running.poll_next_unpin(cx) {
            Poll::Ready(Some(output)) => {
                cost = cost.saturating_sub(costs.pop_front().unwrap_or(0));
                Poll::Ready(Some(output))
            }
            Poll::Ready(None) if jobs_done && waiting.is_none() => Poll::Ready(None),
            Poll::Ready(None) | Poll::Pending => Poll::Pending,
        }
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    /// Outputs keep the input order although later jobs finish first, and the running cost
    /// never passes the budget (except for a single job bigger than it).
    #[tokio::test]
    async fn in_order_and_within_budget() {
        let running = Arc::new(AtomicU64::new(0));
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let costs = [5u64, 1, 1, 30, 2, 2, 2, 9, 1];
        let jobs = stream::iter(costs.into_iter().enumerate()).map({
            let (running, seen) = (running.clone(), seen.clone());
            move |(index, job_cost)| {
                let (running, seen) = (running.clone(), seen.clone());
                let job = async move {
                    let now = running.fetch_add(job_cost, Ordering::SeqCst) + job_cost;
                    seen.lock().unwrap().push((index, now));
                    // Later jobs finish sooner.
                    tokio::time::sleep(Duration::from_millis(20 - 2 * index as u64)).await;
                    running.fetch_sub(job_cost, Ordering::SeqCst);
                    index
                };
                (job_cost, job)
            }
        });
        let order: Vec<usize> = in_order_within_budget(jobs.boxed(), 3, 10).collect().await;
        assert_eq!(order, (0..costs.len()).collect::<Vec<_>>());
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen.len(), costs.len());
        for (index, now) in seen {
            match index {
                3 => assert_eq!(now, 30, "the job over budget runs alone"),
                _ => assert!(now <= 10, "job {index} started with {now} running"),
            }
        }
    }

    #[tokio::test]
    async fn small_budget_still_progresses() {
        let jobs = stream::iter(0..5u64).map(|n| (100, async move { n }));
        let out: Vec<u64> = in_order_within_budget(jobs.boxed(), 8, 1).collect().await;
        assert_eq!(out, vec![0, 1, 2, 3, 4]);
    }
}
