//! An HTTP proxy on 127.0.0.1 in front of a test server that fails requests now and then, the
//! way real services do: an error status (500, 503) instead of the server's answer, or an
//! answer whose body breaks off half-way (a reset connection). It counts the faults it made,
//! so a test can prove they happened and were survived, not missed.
//!
//! It forwards only to the given port of 127.0.0.1, with the client's own `Host` header (the
//! signatures of S3 requests cover it).

use anyhow::{Context, Result};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, StatusCode};
use axum::response::Response;
use futures::{StreamExt, TryStreamExt};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Which requests fail, and how.
#[derive(Debug, Clone)]
pub struct Faults {
    /// Every n-th request from the first on (counting all but the spared ones) gets
    /// [`Faults::status`] without reaching the server; 0 fails none.
    pub fail_every: usize,
    pub status: StatusCode,
    /// The failed answer's body (a service's error document) and one extra header.
    pub body: &'static str,
    pub header: Option<(&'static str, &'static str)>,
    /// Every n-th successful GET answer longer than [`CUT_FROM`] bytes breaks off after half
    /// of its body; 0 cuts none.
    pub cut_every: usize,
    /// Starts no cut once this many answers were cut; 0 sets no limit.
    pub max_cuts: usize,
    /// The first cut answer waits, before it breaks off, until [`FaultyProxy::release`]: a
    /// test changes the server meanwhile ([`FaultyProxy::wait_for_cut`]).
    pub hold_first_cut: bool,
    /// Methods never failed: requests the client sends once by design.
    pub spare: &'static [&'static str],
    /// Requests with a body longer than this are never failed (uploads streamed once).
    pub spare_longer_than: Option<u64>,
}

impl Default for Faults {
    fn default() -> Faults {
        Faults {
            fail_every: 0,
            status: StatusCode::SERVICE_UNAVAILABLE,
            body: "",
            header: None,
            cut_every: 0,
            max_cuts: 0,
            hold_first_cut: false,
            spare: &[],
            spare_longer_than: None,
        }
    }
}

/// Shortest answer body that [`Faults::cut_every`] may break.
pub const CUT_FROM: u64 = 1024 * 1024;

struct Shared {
    upstream: u16,
    faults: Faults,
    client: reqwest::Client,
    counted: AtomicUsize,
    long_gets: AtomicUsize,
    failed: AtomicUsize,
    cut: AtomicUsize,
    reached: tokio::sync::Notify,
    released: tokio::sync::Notify,
}

/// A running proxy; stops when dropped.
pub struct FaultyProxy {
    pub port: u16,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FaultyProxy {
    /// Listens on a free port of 127.0.0.1 and forwards to `upstream` there.
    pub fn start(upstream: u16, faults: Faults) -> Result<FaultyProxy> {
        let listener = std::net::TcpListener::bind((crate::sshd::LOCALHOST, 0))
            .context("binding the faulty proxy")?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .context("the proxy's HTTP client")?;
        let shared = Arc::new(Shared {
            upstream,
            faults,
            client,
            counted: AtomicUsize::new(0),
            long_gets: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
            cut: AtomicUsize::new(0),
            reached: tokio::sync::Notify::new(),
            released: tokio::sync::Notify::new(),
        });
        let app = axum::Router::new()
            .fallback(forward)
            .with_state(shared.clone());
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            runtime.block_on(async move {
                let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                    return;
                };
                tokio::select! {
                    _ = axum::serve(listener, app) => {}
                    _ = stopped => {}
                }
            });
            drop(runtime);
        });
        Ok(FaultyProxy {
            port,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Requests answered with the error status.
    pub fn failed(&self) -> usize {
        self.shared.failed.load(Ordering::SeqCst)
    }

    /// Answers broken off half-way (counted when the half was sent).
    pub fn cut(&self) -> usize {
        self.shared.cut.load(Ordering::SeqCst)
    }

    /// Waits until the first cut answer is held ([`Faults::hold_first_cut`]).
    pub async fn wait_for_cut(&self) {
        self.shared.reached.notified().await;
    }

    /// Lets the held answer break off.
    pub fn release(&self) {
        self.shared.released.notify_one();
    }
}

impl Drop for FaultyProxy {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Connection-level headers, which belong to each hop and are not passed on.
fn hop_by_hop(name: &HeaderName) -> bool {
    matches!(
        name.as_str(),
        "connection" | "keep-alive" | "transfer-encoding" | "te" | "trailer" | "upgrade"
    )
}

async fn forward(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let faults = &shared.faults;
    let length = parts
        .headers
        .get("content-length")
        .and_then(|value| value.to_str().ok()?.parse::<u64>().ok());
    let spared = faults.spare.contains(&parts.method.as_str())
        || faults
            .spare_longer_than
            .is_some_and(|limit| length.is_some_and(|length| length > limit));
    if !spared
        && faults.fail_every > 0
        && shared.counted.fetch_add(1, Ordering::SeqCst) % faults.fail_every == 0
    {
        // A server reads the request before it answers; the client sees only the status.
        let _ = axum::body::to_bytes(body, usize::MAX).await;
        shared.failed.fetch_add(1, Ordering::SeqCst);
        let mut answer = Response::builder()
            .status(faults.status)
            .header("content-type", "application/xml");
        if let Some((name, value)) = faults.header {
            answer = answer.header(name, value);
        }
        return answer
            .body(Body::from(faults.body))
            .unwrap_or_else(|_| Response::new(Body::empty()));
    }
    let target = format!(
        "http://{}:{}{}",
        crate::sshd::LOCALHOST,
        shared.upstream,
        parts.uri.path_and_query().map_or("/", |path| path.as_str())
    );
    let mut headers = axum::http::HeaderMap::new();
    for (name, value) in &parts.headers {
        if !hop_by_hop(name) {
            headers.append(name.clone(), value.clone());
        }
    }
    let sent = shared
        .client
        .request(parts.method.clone(), target)
        .headers(headers)
        .body(reqwest::Body::wrap_stream(body.into_data_stream()))
        .send()
        .await;
    let answer = match sent {
        Ok(answer) => answer,
        Err(error) => {
            return Response::builder()
                .status(StatusCode::BAD_GATEWAY)
                .body(Body::from(format!(
                    "the proxy could not reach the server: {error}"
                )))
                .unwrap_or_else(|_| Response::new(Body::empty()));
        }
    };
    let status = answer.status();
    let mut response = Response::builder().status(status);
    for (name, value) in answer.headers() {
        if !hop_by_hop(name) {
            response = response.header(name, value.clone());
        }
    }
    let length = answer.content_length().unwrap_or(0);
    let cut = parts.method == axum::http::Method::GET
        && status.is_success()
        && length >= CUT_FROM
        && faults.cut_every > 0
        && (shared.long_gets.fetch_add(1, Ordering::SeqCst) + 1) % faults.cut_every == 0
        && (faults.max_cuts == 0 || shared.cut.load(Ordering::SeqCst) < faults.max_cuts);
    let stream = answer.bytes_stream().map_err(std::io::Error::other);
    let body = if cut {
        let shared = shared.clone();
        // Half the body, then an error: hyper drops the connection with the answer unfinished.
        let mut left = length / 2;
        let half = stream
            .map_ok(move |mut chunk| {
                let keep = (left as usize).min(chunk.len());
                left -= keep as u64;
                chunk.truncate(keep);
                chunk
            })
            .take_while(|chunk| {
                std::future::ready(chunk.as_ref().map_or(true, |chunk| !chunk.is_empty()))
            })
            .chain(futures::stream::once(async move {
                // Counted only here: a client may drop an answer before its half (opendal
                // reads only the headers of a long file's first answer).
                let first = shared.cut.fetch_add(1, Ordering::SeqCst) == 0;
                if first && shared.faults.hold_first_cut {
                    shared.reached.notify_one();
                    shared.released.notified().await;
                }
                Err(std::io::Error::other("cut by the faulty proxy"))
            }));
        Body::from_stream(half)
    } else {
        Body::from_stream(stream)
    };
    response
        .body(body)
        .unwrap_or_else(|_| Response::new(Body::empty()))
}
