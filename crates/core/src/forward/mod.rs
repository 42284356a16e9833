//! Port forwards on an SSH tab's connection: local (`-L`), remote (`-R`) and dynamic SOCKS5
//! (`-D`), with their state and traffic reported as [`ForwardReport`]s.
//!
//! [`TabForwards`] holds a tab's forwards. A local or dynamic forward binds its listener when it
//! is opened (so a port in use is an error at once, naming the port) and keeps it bound while
//! the tab reconnects, refusing connections meanwhile; a remote forward asks the server to
//! listen on every connection the tab gets ([`TabForwards::set_session`]). Inside: [`spec`]
//! (the OpenSSH spellings), [`socks`] (the SOCKS5 handshake).
//!
//! It must never listen on anything but what the user asked for (127.0.0.1 unless told
//! otherwise), never open a forward by itself, and never outlive its tab.

pub mod socks;
pub mod spec;

use crate::ssh::{ForwardedConnection, SshSession};
use kaiport_protocol::{ForwardKind, ForwardReport, ForwardSpec, ForwardStatus};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// Where a local listener binds when the user names no address.
pub const DEFAULT_BIND: &str = "127.0.0.1";
/// How often a forward's byte counts are told while they change.
const TRAFFIC_REPORT: Duration = Duration::from_secs(1);
/// Buffer of each direction of a forwarded connection: large, so bulk transfers are not cut
/// into many small SSH packets.
const COPY_BUFFER: usize = 256 * 1024;

/// Why a forward could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    #[error(
        "port {port} on {address} is already in use (by another forward or program): choose \
         another port, or close what uses it"
    )]
    PortInUse { address: String, port: u16 },
    #[error("this tab already forwards port {port} on {address} ({existing})")]
    Duplicate {
        address: String,
        port: u16,
        existing: String,
    },
    #[error("cannot listen on {address} port {port}: {source}")]
    Bind {
        address: String,
        port: u16,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Spec(#[from] spec::SpecError),
}

/// Told on every change of a forward.
pub type ForwardNotify = Arc<dyn Fn(ForwardReport) + Send + Sync>;

/// Whether `address` is a loopback address (or `localhost`): a listener anywhere else is
/// reachable from other computers, which front ends warn about.
pub fn is_loopback(address: &str) -> bool {
    address.eq_ignore_ascii_case("localhost")
        || address
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The forwards of one tab. See the module docs.
pub struct TabForwards {
    session: watch::Sender<Option<SshSession>>,
    forwards: Mutex<Vec<Arc<Forward>>>,
    next_id: AtomicU32,
    notify: ForwardNotify,
}

struct Forward {
    id: u32,
    spec: ForwardSpec,
    /// Pilot's open_forward call that opened it, if Pilot did.
    pilot_call: Option<String>,
    status: Mutex<ForwardStatus>,
    open: AtomicU32,
    total: AtomicU64,
    sent: Arc<AtomicU64>,
    received: Arc<AtomicU64>,
    stop: CancellationToken,
    notify: ForwardNotify,
    /// Woken on every change of `status` (see [`TabForwards::settled`]).
    changed: tokio::sync::Notify,
}

impl Forward {
    fn report(&self) -> ForwardReport {
        ForwardReport {
            id: self.id,
            spec: self.spec.clone(),
            status: lock(&self.status).clone(),
            open_connections: self.open.load(Ordering::SeqCst),
            total_connections: self.total.load(Ordering::SeqCst),
            bytes_sent: self.sent.load(Ordering::SeqCst),
            bytes_received: self.received.load(Ordering::SeqCst),
            pilot_call: self.pilot_call.clone(),
        }
    }

    fn tell(&self) {
        (self.notify)(self.report());
    }

    fn set_status(&self, status: ForwardStatus) {
        let changed = {
            let mut current = lock(&self.status);
            if *current == ForwardStatus::Closed || *current == status {
                false
            } else {
                *current = status;
                true
            }
        };
        if changed {
            self.changed.notify_waiters();
            self.tell();
        }
    }

    fn bytes(&self) -> (u64, u64) {
        (
            self.sent.load(Ordering::SeqCst),
            self.received.load(Ordering::SeqCst),
        )
    }

    /// Carries one connection both ways to its end, counting bytes and telling when it opens
    /// and closes.
    async fn carry<A, B>(self: &Arc<Self>, client: A, destination: B)
    where
        A: AsyncRead + AsyncWrite + Unpin,
        B: AsyncRead + AsyncWrite + Unpin,
    {
        self.open.fetch_add(1, Ordering::SeqCst);
        self.total.fetch_add(1, Ordering::SeqCst);
        self.tell();
        let mut client = Counted {
            inner: client,
            count: self.sent.clone(),
        };
        let mut destination = Counted {
            inner: destination,
            count: self.received.clone(),
        };
        let copied = tokio::select! {
            copied = tokio::io::copy_bidirectional_with_sizes(
                &mut client,
                &mut destination,
                COPY_BUFFER,
                COPY_BUFFER,
            ) => copied.map(|_| ()),
            () = self.stop.cancelled() => Ok(()),
        };
        if let Err(error) = copied {
            tracing::debug!(forward = self.id, %error, "forwarded connection ended with an error");
        }
        self.open.fetch_sub(1, Ordering::SeqCst);
        self.tell();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl TabForwards {
    pub fn new(notify: ForwardNotify) -> TabForwards {
        TabForwards {
            session: watch::channel(None).0,
            forwards: Mutex::default(),
            next_id: AtomicU32::new(1),
            notify,
        }
    }

    /// The tab's connection now (`None` while it reconnects): remote forwards are asked for
    /// again on a new one, local listeners pass connections to it.
    pub fn set_session(&self, session: Option<SshSession>) {
        self.session.send_replace(session);
    }

    /// Opens a forward: binds its listener now (local, dynamic) or asks the server as soon as
    /// the tab is connected (remote). Its reports follow through the notifier; `pilot_call`:
    /// the open_forward call that asked for it, which its reports carry.
    pub async fn open(
        &self,
        spec: ForwardSpec,
        pilot_call: Option<&str>,
    ) -> Result<ForwardReport, ForwardError> {
        let address = spec
            .bind_address
            .clone()
            .unwrap_or_else(|| DEFAULT_BIND.to_owned());
        let remote = |kind: ForwardKind| kind == ForwardKind::Remote;
        let duplicate = lock(&self.forwards)
            .iter()
            .find(|f| {
                spec.listen_port != 0
                    && remote(f.spec.kind) == remote(spec.kind)
                    && f.spec.listen_port == spec.listen_port
                    && f.spec.bind_address == spec.bind_address
            })
            .map(|f| spec::describe(&f.spec));
        if let Some(existing) = duplicate {
            return Err(ForwardError::Duplicate {
                address,
                port: spec.listen_port,
                existing,
            });
        }
        let listener = match spec.kind {
            ForwardKind::Remote => None,
            ForwardKind::Local | ForwardKind::Dynamic => {
                let bound = TcpListener::bind(spec::host_port(&address, spec.listen_port)).await;
                Some(bound.map_err(|source| {
                    if source.kind() == std::io::ErrorKind::AddrInUse {
                        ForwardError::PortInUse {
                            address: address.clone(),
                            port: spec.listen_port,
                        }
                    } else {
                        ForwardError::Bind {
                            address: address.clone(),
                            port: spec.listen_port,
                            source,
                        }
                    }
                })?)
            }
        };
        let forward = Arc::new(Forward {
            id: self.next_id.fetch_add(1, Ordering::SeqCst),
            spec,
            pilot_call: pilot_call.map(str::to_owned),
            status: Mutex::new(ForwardStatus::Starting),
            open: AtomicU32::new(0),
            total: AtomicU64::new(0),
            sent: Arc::default(),
            received: Arc::default(),
            stop: CancellationToken::new(),
            notify: self.notify.clone(),
            changed: tokio::sync::Notify::new(),
        });
        lock(&self.forwards).push(forward.clone());
        let report = forward.report();
        forward.tell();
        let sessions = self.session.subscribe();
        match listener {
            Some(listener) => {
                tokio::spawn(run_listener(forward, listener, sessions));
            }
            None => {
                tokio::spawn(run_remote(forward, sessions));
            }
        }
        Ok(report)
    }

    /// Closes forward `id` (its listener and connections); its spec when there was one.
    pub fn close(&self, id: u32) -> Option<ForwardSpec> {
        let forward = {
            let mut forwards = lock(&self.forwards);
            let index = forwards.iter().position(|f| f.id == id)?;
            forwards.remove(index)
        };
        forward.stop.cancel();
        *lock(&forward.status) = ForwardStatus::Closed;
        forward.changed.notify_waiters();
        forward.tell();
        Some(forward.spec.clone())
    }

    /// Forward `id` once it is past starting (listening, waiting for the connection, failed or
    /// closed), or as it is when `limit` has passed; `None` when the tab has no such forward.
    pub async fn settled(&self, id: u32, limit: Duration) -> Option<ForwardReport> {
        let forward = lock(&self.forwards).iter().find(|f| f.id == id).cloned()?;
        let past_starting = async {
            loop {
                // Registered before the status is read, so no change slips between them.
                let changed = forward.changed.notified();
                tokio::pin!(changed);
                changed.as_mut().enable();
                if *lock(&forward.status) != ForwardStatus::Starting {
                    return;
                }
                changed.await;
            }
        };
        // Still starting after the limit is an answer too: the report says so.
        let _ = tokio::time::timeout(limit, past_starting).await;
        Some(forward.report())
    }

    /// Closes every forward (the tab closes); the ids and specs that were open.
    pub fn close_all(&self) -> Vec<(u32, ForwardSpec)> {
        let ids: Vec<u32> = lock(&self.forwards).iter().map(|f| f.id).collect();
        ids.into_iter()
            .filter_map(|id| self.close(id).map(|spec| (id, spec)))
            .collect()
    }

    /// Every open forward as it is now.
    pub fn reports(&self) -> Vec<ForwardReport> {
        lock(&self.forwards).iter().map(|f| f.report()).collect()
    }
}

impl Drop for TabForwards {
    fn drop(&mut self) {
        for forward in lock(&self.forwards).iter() {
            forward.stop.cancel();
        }
    }
}

/// The session to use now: the watched one while it is alive.
fn current(sessions: &watch::Receiver<Option<SshSession>>) -> Option<SshSession> {
    sessions.borrow().clone().filter(|s| !s.is_closed())
}

/// Resolves when `session` ends (never when there is none).
async fn ended(session: Option<SshSession>) {
    match session {
        Some(session) => session.closed().await,
        None => std::future::pending().await,
    }
}

/// A local or dynamic forward: takes connections while the forward is open, passing each to
/// the tab's connection of the moment (refusing them while there is none).
async fn run_listener(
    forward: Arc<Forward>,
    listener: TcpListener,
    mut sessions: watch::Receiver<Option<SshSession>>,
) {
    let address = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    let mut traffic = tokio::time::interval(TRAFFIC_REPORT);
    let mut told = forward.bytes();
    loop {
        let session = current(&sessions);
        forward.set_status(match &session {
            Some(_) => ForwardStatus::Listening {
                address: address.clone(),
            },
            None => ForwardStatus::Waiting,
        });
        tokio::select! {
            () = forward.stop.cancelled() => return,
            changed = sessions.changed() => {
                if changed.is_err() {
                    return;
                }
            }
            // Shown as waiting (the next turn) until the tab's next connection comes.
            () = ended(session.clone()) => {}
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        tracing::debug!(forward = forward.id, %error, "accept failed");
                        continue;
                    }
                };
                let Some(session) = session else {
                    // Closed at once: the client sees a refusal rather than a hang.
                    drop(stream);
                    continue;
                };
                let forward = forward.clone();
                tokio::spawn(async move { forward_local(forward, session, stream, peer).await });
            }
            _ = traffic.tick() => {
                let now = forward.bytes();
                if now != told {
                    told = now;
                    forward.tell();
                }
            }
        }
    }
}

/// One connection to a local or dynamic listener, through SSH to where it goes.
async fn forward_local(
    forward: Arc<Forward>,
    session: SshSession,
    mut stream: TcpStream,
    peer: SocketAddr,
) {
    let _ = stream.set_nodelay(true);
    let (host, port) = match (&forward.spec.to_host, forward.spec.to_port) {
        (Some(host), Some(port)) if forward.spec.kind == ForwardKind::Local => (host.clone(), port),
        _ => match socks::accept(&mut stream).await {
            Ok(destination) => destination,
            Err(error) => {
                tracing::info!(forward = forward.id, %error, "SOCKS client refused");
                return;
            }
        },
    };
    let channel = session.open_direct_tcpip(&host, port, peer).await;
    let channel = match channel {
        Ok(channel) => channel,
        Err(error) => {
            tracing::info!(forward = forward.id, destination = %spec::host_port(&host, port), %error, "the server did not connect");
            if forward.spec.kind == ForwardKind::Dynamic {
                let _ = socks::reply(&mut stream, socks::Reply::ConnectionRefused).await;
            }
            return;
        }
    };
    if forward.spec.kind == ForwardKind::Dynamic
        && socks::reply(&mut stream, socks::Reply::Succeeded)
            .await
            .is_err()
    {
        return;
    }
    forward.carry(stream, channel).await;
}

/// A remote forward: asks each connection of the tab for the server's listener and carries
/// what arrives on it to the destination, as this computer reaches it.
async fn run_remote(forward: Arc<Forward>, mut sessions: watch::Receiver<Option<SshSession>>) {
    let address = forward
        .spec
        .bind_address
        .clone()
        .unwrap_or_else(|| "localhost".to_owned());
    let mut traffic = tokio::time::interval(TRAFFIC_REPORT);
    let mut told = forward.bytes();
    loop {
        let Some(session) = current(&sessions) else {
            forward.set_status(ForwardStatus::Waiting);
            tokio::select! {
                () = forward.stop.cancelled() => return,
                changed = sessions.changed() => if changed.is_err() { return },
            }
            continue;
        };
        forward.set_status(ForwardStatus::Starting);
        let asked = tokio::select! {
            () = forward.stop.cancelled() => return,
            asked = session.remote_forward(&address, forward.spec.listen_port) => asked,
        };
        let mut listener = match asked {
            Ok(listener) => listener,
            Err(error) => {
                forward.set_status(ForwardStatus::Failed {
                    error: error.to_string(),
                });
                // Asked again on the tab's next connection.
                tokio::select! {
                    () = forward.stop.cancelled() => return,
                    changed = sessions.changed() => if changed.is_err() { return },
                }
                continue;
            }
        };
        forward.set_status(ForwardStatus::Listening {
            address: format!(
                "{} on the server",
                spec::host_port(&address, listener.port())
            ),
        });
        loop {
            tokio::select! {
                () = forward.stop.cancelled() => {
                    listener.cancel().await;
                    return;
                }
                _ = sessions.changed() => break,
                () = session.closed() => break,
                connection = listener.accept() => {
                    let Some(connection) = connection else { break };
                    let forward = forward.clone();
                    tokio::spawn(async move { forward_remote(forward, connection).await });
                }
                _ = traffic.tick() => {
                    let now = forward.bytes();
                    if now != told {
                        told = now;
                        forward.tell();
                    }
                }
            }
        }
    }
}

/// One connection the server sent back, to its destination on this side.
async fn forward_remote(forward: Arc<Forward>, connection: ForwardedConnection) {
    let (Some(host), Some(port)) = (&forward.spec.to_host, forward.spec.to_port) else {
        return;
    };
    match TcpStream::connect(spec::host_port(host, port)).await {
        Ok(stream) => {
            let _ = stream.set_nodelay(true);
            // The side that connected is the server's: its bytes go to the destination.
            forward.carry(connection.stream, stream).await;
        }
        Err(error) => {
            tracing::info!(forward = forward.id, from = %connection.originator, %error, "remote forward: destination unreachable");
        }
    }
}

/// A stream that adds the bytes read from it to a counter.
struct Counted<S> {
    inner: S,
    count: Arc<AtomicU64>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        let read = buf.filled().len().saturating_sub(before);
        self.count.fetch_add(read as u64, Ordering::Relaxed);
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
