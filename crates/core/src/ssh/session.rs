//! One authenticated SSH connection (possibly reached through jump hosts) and the channels opened
//! on it. Each hop runs a [`ClientHandler`] (host keys, end of connection) and is authenticated by
//! [`super::auth`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use russh::client::{self, Msg};
use russh::{ChannelMsg, ChannelStream, Disconnect};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, watch};

use super::handler::{ClientHandler, CloseReason, HandshakePhase};
use super::{ConnectInteraction, ExecOutput, SshError, SshOptions, SshTarget};

/// Per-channel flow-control window: large, so bulk SFTP transfers are not throttled by round trips.
const WINDOW_SIZE: u32 = 16 * 1024 * 1024;
/// Largest packet russh supports sending (it warns above 65535).
const MAX_PACKET_SIZE: u32 = 65535;
/// The language tag sent with a disconnect message.
const LANGUAGE_TAG: &str = "en";

/// A live SSH connection. Cheap to clone; all clones share the connection, which ends when
/// [`SshSession::disconnect`] is called, the server goes away, or the last clone is dropped.
#[derive(Clone)]
pub struct SshSession {
    inner: Arc<Inner>,
}

struct Inner {
    handle: client::Handle<ClientHandler>,
    /// The jump-host sessions this one runs through; kept alive as long as it is.
    hops: Vec<client::Handle<ClientHandler>>,
    endpoint: String,
    alive: watch::Receiver<()>,
    close_reason: CloseReason,
    remote_forwards: RemoteForwards,
    /// The user turned agent forwarding on: shells ask for it (`auth-agent-req@openssh.com`).
    forward_agent: bool,
}

/// The server's listeners this connection asked for (`tcpip-forward`), by the port the server
/// listens on: where the connections it sends back go.
pub(super) type RemoteForwards =
    Arc<Mutex<HashMap<u32, mpsc::UnboundedSender<ForwardedConnection>>>>;

/// A connection the server accepted on a remote forward's port and sent back through SSH.
pub struct ForwardedConnection {
    pub stream: ChannelStream<Msg>,
    /// Who connected to the server's port (`address:port`, as the server says).
    pub originator: String,
}

/// A listener on the server ([`SshSession::remote_forward`]): connections arrive with
/// [`RemoteListener::accept`]. [`RemoteListener::cancel`] asks the server to stop listening;
/// dropping it only stops taking connections (the server's are refused).
pub struct RemoteListener {
    session: SshSession,
    address: String,
    port: u32,
    connections: mpsc::UnboundedReceiver<ForwardedConnection>,
}

impl RemoteListener {
    /// The port the server listens on (the one it chose when asked for 0).
    pub fn port(&self) -> u16 {
        u16::try_from(self.port).unwrap_or(0)
    }

    /// The next connection; `None` once the SSH connection is gone.
    pub async fn accept(&mut self) -> Option<ForwardedConnection> {
        self.connections.recv().await
    }

    /// Asks the server to stop listening (a connection already gone is fine).
    pub async fn cancel(self) {
        self.forget();
        if let Err(e) = self
            .session
            .inner
            .handle
            .cancel_tcpip_forward(self.address.clone(), self.port)
            .await
        {
            tracing::debug!(port = self.port, error = %e, "cancel tcpip-forward: connection gone");
        }
    }

    fn forget(&self) {
        if let Ok(mut forwards) = self.session.inner.remote_forwards.lock() {
            forwards.remove(&self.port);
        }
    }
}

impl Drop for RemoteListener {
    fn drop(&mut self) {
        self.forget();
    }
}

impl std::fmt::Debug for SshSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SshSession")
            .field("endpoint", &self.inner.endpoint)
            .field("hops", &self.inner.hops.len())
            .finish()
    }
}

/// One connected and authenticated hop, before it is wrapped into a session.
struct Hop {
    endpoint: String,
    handle: client::Handle<ClientHandler>,
    alive: watch::Receiver<()>,
    close_reason: CloseReason,
    remote_forwards: RemoteForwards,
    forward_agent: bool,
}

impl SshSession {
    /// Connects to `target` (through its jump hosts, each dialled from the one before), verifies
    /// every hop's host key and authenticates on each. Time limits: `options.connect_timeout` for
    /// each hop's TCP connect and handshake, and for each authentication round trip; time spent
    /// waiting for the user is not counted.
    pub async fn connect(
        target: &SshTarget,
        options: &SshOptions,
        interaction: Arc<dyn ConnectInteraction>,
    ) -> Result<SshSession, SshError> {
        let config = Arc::new(client_config(options));
        let setup = |hop: &SshTarget| HopSetup {
            options,
            interaction: interaction.clone(),
            config: config.clone(),
            forwarded_agent: forwarded_agent(target, hop, options),
        };
        let mut hops: Vec<client::Handle<ClientHandler>> = Vec::new();
        let chain = target.jump_hosts.iter().chain(std::iter::once(target));
        let mut last: Option<Hop> = None;
        for hop_target in chain {
            let hop = match last.take() {
                None => {
                    let stream = tcp_connect(hop_target, options.connect_timeout).await?;
                    connect_hop(hop_target, &setup(hop_target), stream).await?
                }
                Some(previous) => {
                    let channel = previous
                        .handle
                        .channel_open_direct_tcpip(
                            hop_target.host.clone(),
                            u32::from(hop_target.port),
                            "127.0.0.1",
                            0,
                        )
                        .await
                        .map_err(|e| forward_error(&previous, hop_target, e))?;
                    hops.push(previous.handle);
                    let stream = channel.into_stream();
                    connect_hop(hop_target, &setup(hop_target), stream).await?
                }
            };
            last = Some(hop);
        }
        let Some(hop) = last else {
            // The chain always contains `target` itself.
            return Err(SshError::ConnectionLost {
                endpoint: target.endpoint(),
                reason: "no hop was connected".to_owned(),
            });
        };
        Ok(SshSession {
            inner: Arc::new(Inner {
                handle: hop.handle,
                hops,
                endpoint: target.endpoint(),
                alive: hop.alive,
                close_reason: hop.close_reason,
                remote_forwards: hop.remote_forwards,
                forward_agent: hop.forward_agent,
            }),
        })
    }

    /// Whether the shells of this connection ask for agent forwarding.
    pub(super) fn forwards_agent(&self) -> bool {
        self.inner.forward_agent
    }

    /// Opens a `direct-tcpip` channel: the server connects to `host:port` (resolving the name
    /// itself) and the channel carries that connection. `originator` is who asked, as told to
    /// the server.
    pub async fn open_direct_tcpip(
        &self,
        host: &str,
        port: u16,
        originator: std::net::SocketAddr,
    ) -> Result<ChannelStream<Msg>, SshError> {
        let channel = self
            .inner
            .handle
            .channel_open_direct_tcpip(
                host.to_owned(),
                u32::from(port),
                originator.ip().to_string(),
                u32::from(originator.port()),
            )
            .await
            .map_err(|e| self.channel_error(&format!("connect to {host}:{port}"), e))?;
        Ok(channel.into_stream())
    }

    /// Asks the server to listen on `address:port` (`tcpip-forward`; port 0 lets it choose)
    /// and send each connection back. Refused when the port is taken there or the server does
    /// not allow forwarding.
    pub async fn remote_forward(
        &self,
        address: &str,
        port: u16,
    ) -> Result<RemoteListener, SshError> {
        let (sender, connections) = mpsc::unbounded_channel();
        let register = |port: u32, sender: mpsc::UnboundedSender<ForwardedConnection>| {
            if let Ok(mut forwards) = self.inner.remote_forwards.lock() {
                forwards.insert(port, sender);
            }
        };
        // Registered before asking, so a connection that comes at once is not refused.
        if port != 0 {
            register(u32::from(port), sender.clone());
        }
        let asked = self
            .inner
            .handle
            .tcpip_forward(address.to_owned(), u32::from(port))
            .await;
        let bound = match asked {
            Ok(0) => u32::from(port),
            Ok(bound) => bound,
            Err(error) => {
                if let Ok(mut forwards) = self.inner.remote_forwards.lock() {
                    forwards.remove(&u32::from(port));
                }
                return Err(match error {
                    russh::Error::RequestDenied => SshError::Refused {
                        endpoint: self.inner.endpoint.clone(),
                        what: format!(
                            "listen on port {port} of {address} (the port is in use there, or \
                             the server does not allow remote forwarding)"
                        ),
                    },
                    other => self.channel_error("ask for a remote forward", other),
                });
            }
        };
        if port == 0 {
            register(bound, sender);
        }
        Ok(RemoteListener {
            session: self.clone(),
            address: address.to_owned(),
            port: bound,
            connections,
        })
    }

    /// `host:port` of the target (not of the jump hosts).
    pub fn endpoint(&self) -> &str {
        &self.inner.endpoint
    }

    /// Runs `command` on a separate exec channel (never the user's terminal) and collects its
    /// output and exit status. No time limit: callers that need one wrap this in a timeout.
    pub async fn exec(&self, command: &str) -> Result<ExecOutput, SshError> {
        let mut output = ExecOutput::default();
        let (exit_status, _) = self
            .exec_each(command, |error, data| match error {
                false => output.stdout.extend_from_slice(data),
                true => output.stderr.extend_from_slice(data),
            })
            .await?;
        output.exit_status = exit_status;
        Ok(output)
    }

    /// Like [`SshSession::exec`], with `input` written to the command's standard input, which
    /// is then closed. For a secret the command reads (sudo's password): it goes nowhere else.
    pub async fn exec_with_input(
        &self,
        command: &str,
        input: &[u8],
    ) -> Result<ExecOutput, SshError> {
        let mut output = ExecOutput::default();
        let (exit_status, _) = self
            .exec_fed(command, input, |error, data| match error {
                false => output.stdout.extend_from_slice(data),
                true => output.stderr.extend_from_slice(data),
            })
            .await?;
        output.exit_status = exit_status;
        Ok(output)
    }

    /// Runs `command` on a separate exec channel like [`SshSession::exec`], its standard output
    /// and error merged in the order they arrive, keeping at most `keep` bytes: the first and the
    /// last half, the middle counted in [`BoundedOutput::left_out`] (so a huge output costs
    /// `keep` bytes of memory, not its size). No time limit: callers wrap it in a timeout.
    pub async fn exec_bounded(
        &self,
        command: &str,
        keep: usize,
    ) -> Result<BoundedOutput, SshError> {
        let mut output = BoundedOutput::new(keep);
        let (exit_status, signal) = self.exec_each(command, |_, data| output.push(data)).await?;
        output.exit_status = exit_status;
        output.signal = signal;
        Ok(output)
    }

    /// Runs `command` on an exec channel, handing each piece of its output to `data` (with
    /// whether it came on standard error); its exit status and the signal that ended it.
    async fn exec_each(
        &self,
        command: &str,
        data: impl FnMut(bool, &[u8]),
    ) -> Result<(Option<u32>, Option<String>), SshError> {
        self.exec_fed(command, &[], data).await
    }

    /// [`SshSession::exec_each`] with `input` on standard input (closed after it; an empty
    /// `input` leaves it open, as a plain exec does).
    async fn exec_fed(
        &self,
        command: &str,
        input: &[u8],
        mut data: impl FnMut(bool, &[u8]),
    ) -> Result<(Option<u32>, Option<String>), SshError> {
        let mut channel = self.open_session_channel().await?;
        channel
            .exec(/* want_reply */ true, command)
            .await
            .map_err(|e| self.channel_error("run a command", e))?;
        if !input.is_empty() {
            channel
                .data(input)
                .await
                .map_err(|e| self.channel_error("write a command's input", e))?;
            channel
                .eof()
                .await
                .map_err(|e| self.channel_error("close a command's input", e))?;
        }
        let (mut exit_status, mut signal) = (None, None);
        let mut ended_cleanly = false;
        while let Some(msg) = channel.wait().await {
            match msg {
                ChannelMsg::Data { data: bytes } => data(false, &bytes),
                ChannelMsg::ExtendedData { data: bytes, .. } => data(true, &bytes),
                ChannelMsg::ExitStatus { exit_status: code } => {
                    exit_status = Some(code);
                    ended_cleanly = true;
                }
                ChannelMsg::ExitSignal { signal_name, .. } => {
                    signal = Some(format!("{signal_name:?}"));
                    ended_cleanly = true;
                }
                ChannelMsg::Close => ended_cleanly = true,
                ChannelMsg::Failure => {
                    return Err(SshError::Refused {
                        endpoint: self.inner.endpoint.clone(),
                        what: "run the command".to_owned(),
                    });
                }
                _ => {}
            }
        }
        if !ended_cleanly {
            return Err(self.lost());
        }
        Ok((exit_status, signal))
    }

    /// Starts `command` on a separate exec channel whose input and output stream while it runs:
    /// write its standard input through [`ExecPipe::input`], read its standard output with
    /// [`ExecPipe::output`]. Standard error is dropped. A server that refuses to run commands
    /// makes `output` end without data.
    pub async fn exec_piped(&self, command: &str) -> Result<ExecPipe, SshError> {
        let channel = self.open_session_channel().await?;
        channel
            .exec(/* want_reply */ true, command)
            .await
            .map_err(|e| self.channel_error("run a command", e))?;
        let (reader, writer) = channel.split();
        Ok(ExecPipe { reader, writer })
    }

    /// Opens a session channel running subsystem `name` (e.g. `sftp`) and returns it as a byte
    /// stream.
    pub async fn open_subsystem(&self, name: &str) -> Result<ChannelStream<Msg>, SshError> {
        let mut channel = self.open_session_channel().await?;
        channel
            .request_subsystem(/* want_reply */ true, name)
            .await
            .map_err(|e| self.channel_error("start a subsystem", e))?;
        // Wait for the server's answer so a missing subsystem is an error here, not a hang later.
        loop {
            match channel.wait().await {
                Some(ChannelMsg::Success) => break,
                Some(ChannelMsg::Failure) => {
                    return Err(SshError::Refused {
                        endpoint: self.inner.endpoint.clone(),
                        what: format!("start the {name} subsystem"),
                    });
                }
                Some(ChannelMsg::WindowAdjusted { .. }) => {}
                Some(_) => break,
                None => return Err(self.lost()),
            }
        }
        Ok(channel.into_stream())
    }

    /// Whether the connection is gone.
    pub fn is_closed(&self) -> bool {
        self.inner.handle.is_closed() || self.inner.alive.has_changed().is_err()
    }

    /// Resolves when the connection is gone (server went away, network lost, keepalive timeout,
    /// or [`SshSession::disconnect`]).
    pub async fn closed(&self) {
        let mut alive = self.inner.alive.clone();
        while alive.changed().await.is_ok() {}
    }

    /// Why the connection ended, once it has.
    pub fn close_reason(&self) -> Option<String> {
        self.inner
            .close_reason
            .lock()
            .ok()
            .and_then(|slot| slot.clone())
    }

    /// Whether the server answers a request now: a `keepalive@openssh.com` global request
    /// that must be answered within `within`. For checking a connection at once (back from the
    /// background) rather than after the keep-alive interval and its misses. A connection that
    /// is gone, or goes while waiting, is not alive.
    pub async fn answers_within(&self, within: Duration) -> bool {
        if self.is_closed() {
            return false;
        }
        // `send_ping` also returns when the connection ends before the answer: checked below.
        let answered = tokio::time::timeout(within, self.inner.handle.send_ping()).await;
        matches!(answered, Ok(Ok(()))) && !self.is_closed()
    }

    /// Gives up on a connection whose server stopped answering: records `reason` as why it
    /// ended (what [`SshSession::close_reason`] and the shell's end then say) and closes it
    /// without waiting for the server.
    pub async fn abandon(&self, reason: String) {
        if let Ok(mut slot) = self.inner.close_reason.lock() {
            slot.get_or_insert(reason);
        }
        self.disconnect().await;
    }

    /// Says goodbye to the server (and to every jump host). Never fails: a connection that is
    /// already gone is fine.
    pub async fn disconnect(&self) {
        let handles = std::iter::once(&self.inner.handle).chain(self.inner.hops.iter().rev());
        for handle in handles {
            if let Err(e) = handle
                .disconnect(Disconnect::ByApplication, "", LANGUAGE_TAG)
                .await
            {
                tracing::debug!(host = %self.inner.endpoint, error = %e, "disconnect: already closed");
            }
        }
        if let Ok(mut slot) = self.inner.close_reason.lock() {
            slot.get_or_insert_with(|| "disconnected by kaiport".to_owned());
        }
    }

    pub(super) async fn open_session_channel(&self) -> Result<russh::Channel<Msg>, SshError> {
        self.inner
            .handle
            .channel_open_session()
            .await
            .map_err(|e| self.channel_error("open a session channel", e))
    }

    pub(super) fn channel_error(&self, what: &str, error: russh::Error) -> SshError {
        match error {
            russh::Error::ChannelOpenFailure(reason) => SshError::Refused {
                endpoint: self.inner.endpoint.clone(),
                what: format!("{what} ({reason:?})"),
            },
            _ if self.is_closed() => self.lost(),
            other => SshError::Protocol {
                endpoint: self.inner.endpoint.clone(),
                doing: "opening a channel",
                source: other,
            },
        }
    }

    /// The error for "the connection is gone", with the best reason known.
    pub(super) fn lost(&self) -> SshError {
        SshError::ConnectionLost {
            endpoint: self.inner.endpoint.clone(),
            reason: self.lost_reason(),
        }
    }

    /// Why the connection is gone, as a sentence fragment.
    pub(super) fn lost_reason(&self) -> String {
        self.close_reason()
            .unwrap_or_else(|| "the connection was lost".to_owned())
    }
}

/// The host key `target` shows now (its jump hosts are not used: the target is dialled
/// directly). The handshake stops at the key: nothing is trusted, recorded or authenticated.
pub async fn fetch_host_key(
    target: &SshTarget,
    options: &SshOptions,
) -> Result<russh::keys::PublicKey, SshError> {
    struct KeyGrabber(Arc<Mutex<Option<russh::keys::PublicKey>>>);
    impl client::Handler for KeyGrabber {
        type Error = russh::Error;
        async fn check_server_key(
            &mut self,
            key: &russh::keys::PublicKeyOrCertificate,
        ) -> Result<bool, Self::Error> {
            let key = match key {
                russh::keys::PublicKeyOrCertificate::PublicKey { key, .. } => key.clone(),
                russh::keys::PublicKeyOrCertificate::Certificate(cert) => {
                    russh::keys::PublicKey::from(cert.public_key().clone())
                }
            };
            if let Ok(mut slot) = self.0.lock() {
                *slot = Some(key);
            }
            // Refused: the handshake ends here.
            Ok(false)
        }
    }
    let endpoint = target.endpoint();
    let stream = tcp_connect(target, options.connect_timeout).await?;
    let seen = Arc::new(Mutex::new(None));
    let handshake = client::connect_stream(
        Arc::new(client_config(options)),
        stream,
        KeyGrabber(seen.clone()),
    );
    let outcome = tokio::time::timeout(options.connect_timeout, handshake).await;
    if let Some(key) = seen.lock().ok().and_then(|mut slot| slot.take()) {
        return Ok(key);
    }
    Err(match outcome {
        Err(_) => SshError::Timeout {
            endpoint,
            seconds: options.connect_timeout.as_secs(),
        },
        Ok(Err(russh::Error::IO(source))) => SshError::Connect { endpoint, source },
        Ok(Err(source)) => SshError::Protocol {
            endpoint,
            doing: "fetching the host key",
            source,
        },
        Ok(Ok(_)) => SshError::ConnectionLost {
            endpoint,
            reason: "the server showed no host key".to_owned(),
        },
    })
}

fn client_config(options: &SshOptions) -> client::Config {
    let keepalive = (!options.keepalive_interval.is_zero()).then_some(options.keepalive_interval);
    client::Config {
        window_size: WINDOW_SIZE,
        maximum_packet_size: MAX_PACKET_SIZE,
        keepalive_interval: keepalive,
        keepalive_max: options.keepalive_max,
        nodelay: true,
        preferred: preferred_algorithms(aes_is_accelerated()),
        ..client::Config::default()
    }
}

/// russh's defaults with AES-256-GCM moved ahead of ChaCha20-Poly1305 when the CPU has AES
/// instructions: there it costs both ends a fraction of ChaCha20's time per byte, which on a
/// bulk transfer (a flood of output, a 1 GiB file) is most of the CPU either side spends.
/// Without them ChaCha20 stays first, as OpenSSH orders it. Only the order changes; the set
/// of algorithms offered is russh's default.
fn preferred_algorithms(aes_accelerated: bool) -> russh::Preferred {
    use russh::cipher;
    let defaults = russh::Preferred::default();
    if !aes_accelerated {
        return defaults;
    }
    let mut ciphers = vec![cipher::AES_256_GCM];
    ciphers.extend(
        defaults
            .cipher
            .iter()
            .copied()
            .filter(|name| *name != cipher::AES_256_GCM),
    );
    russh::Preferred {
        cipher: ciphers.into(),
        ..defaults
    }
}

fn aes_is_accelerated() -> bool {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        std::arch::is_x86_feature_detected!("aes")
            && std::arch::is_x86_feature_detected!("pclmulqdq")
    }
    #[cfg(target_arch = "aarch64")]
    {
        std::arch::is_aarch64_feature_detected!("aes")
            && std::arch::is_aarch64_feature_detected!("pmull")
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64", target_arch = "aarch64")))]
    {
        false
    }
}

async fn tcp_connect(
    target: &SshTarget,
    timeout: Duration,
) -> Result<tokio::net::TcpStream, SshError> {
    let endpoint = target.endpoint();
    let connecting = tokio::net::TcpStream::connect((target.host.as_str(), target.port));
    let stream = match tokio::time::timeout(timeout, connecting).await {
        Ok(Ok(stream)) => stream,
        Ok(Err(source)) => return Err(SshError::Connect { endpoint, source }),
        Err(_) => {
            return Err(SshError::Timeout {
                endpoint,
                seconds: timeout.as_secs(),
            });
        }
    };
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(host = %endpoint, error = %e, "set_nodelay failed");
    }
    Ok(stream)
}

/// The agent that the hop `hop` of a connection to `target` may reach: the target's own hop
/// only, and only with agent forwarding on.
fn forwarded_agent(
    target: &SshTarget,
    hop: &SshTarget,
    options: &SshOptions,
) -> Option<super::agent::AgentSource> {
    let is_target = std::ptr::eq(target, hop);
    (is_target && target.forward_agent)
        .then(|| options.agent_source(target))
        .flatten()
}

/// What every hop is connected with, and the agent the server may use through this one.
struct HopSetup<'a> {
    options: &'a SshOptions,
    interaction: Arc<dyn ConnectInteraction>,
    config: Arc<client::Config>,
    /// The agent the server may use through this hop (agent forwarding), if any.
    forwarded_agent: Option<super::agent::AgentSource>,
}

/// Runs the SSH handshake over `stream`, then authenticates.
async fn connect_hop<S>(
    target: &SshTarget,
    setup: &HopSetup<'_>,
    stream: S,
) -> Result<Hop, SshError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let HopSetup {
        options,
        interaction,
        config,
        forwarded_agent,
    } = setup;
    let forwarded_agent = forwarded_agent.clone();
    let endpoint = target.endpoint();
    let (phase_tx, mut phase_rx) = watch::channel(HandshakePhase::Network);
    let (alive_tx, alive_rx) = watch::channel(());
    let refusal = Arc::new(Mutex::new(None));
    let close_reason: CloseReason = Arc::new(Mutex::new(None));
    let remote_forwards = RemoteForwards::default();
    let forward_agent = forwarded_agent.is_some();
    let handler = ClientHandler {
        forwarded_agent,
        remote_forwards: remote_forwards.clone(),
        host: target.host.clone(),
        port: target.port,
        known_hosts: options.known_hosts.clone(),
        interaction: interaction.clone(),
        refusal: refusal.clone(),
        phase: phase_tx,
        close_reason: close_reason.clone(),
        _alive: alive_tx,
    };
    let handshake = client::connect_stream(config.clone(), stream, handler);
    tokio::pin!(handshake);
    let timeout = options.connect_timeout;
    let mut phase_open = true;
    let result = loop {
        let asking = *phase_rx.borrow_and_update() == HandshakePhase::AskingUser;
        tokio::select! {
            result = &mut handshake => break result,
            changed = phase_rx.changed(), if phase_open => {
                phase_open = changed.is_ok();
            }
            () = tokio::time::sleep(timeout), if !asking => {
                return Err(SshError::Timeout { endpoint, seconds: timeout.as_secs() });
            }
        }
    };
    let mut handle = match result {
        Ok(handle) => handle,
        Err(error) => {
            if let Some(refused) = refusal.lock().ok().and_then(|mut slot| slot.take()) {
                return Err(refused);
            }
            return Err(match error {
                russh::Error::IO(source) => SshError::Connect { endpoint, source },
                other => SshError::Protocol {
                    endpoint,
                    doing: "the SSH handshake",
                    source: other,
                },
            });
        }
    };
    super::auth::authenticate(&mut handle, target, options, interaction.as_ref()).await?;
    Ok(Hop {
        endpoint: target.endpoint(),
        handle,
        alive: alive_rx,
        close_reason,
        remote_forwards,
        forward_agent,
    })
}

fn forward_error(previous: &Hop, next: &SshTarget, error: russh::Error) -> SshError {
    match error {
        russh::Error::ChannelOpenFailure(reason) => SshError::Refused {
            endpoint: format!("jump host {}", previous.endpoint),
            what: format!("forward a connection to {} ({reason:?})", next.endpoint()),
        },
        other if previous.handle.is_closed() => SshError::ConnectionLost {
            endpoint: format!("jump host {}", previous.endpoint),
            reason: format!("while forwarding to {}: {other}", next.endpoint()),
        },
        other => SshError::Protocol {
            endpoint: next.endpoint(),
            doing: "forwarding through the jump host",
            source: other,
        },
    }
}

/// A command started with [`SshSession::exec_piped`]. Dropping it closes the channel.
pub struct ExecPipe {
    reader: russh::ChannelReadHalf,
    writer: russh::ChannelWriteHalf<Msg>,
}

impl ExecPipe {
    /// A writer to the command's standard input; shutting it down sends end-of-file.
    pub fn input(&self) -> impl AsyncWrite + Send + Unpin + 'static {
        self.writer.make_writer()
    }

    /// The next piece of the command's standard output; `None` once the command has ended, the
    /// server refused it or the connection is gone.
    pub async fn output(&mut self) -> Option<Vec<u8>> {
        loop {
            match self.reader.wait().await? {
                ChannelMsg::Data { data } => return Some(data.to_vec()),
                ChannelMsg::Failure | ChannelMsg::Close | ChannelMsg::Eof => return None,
                _ => {}
            }
        }
    }

    /// Closes the channel (a command still running gets a hang-up).
    pub async fn close(self) {
        let _ = self.writer.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::preferred_algorithms;
    use russh::cipher;

    #[test]
    fn aes_gcm_leads_only_where_the_cpu_accelerates_it() {
        let defaults = russh::Preferred::default();
        let accelerated = preferred_algorithms(true);
        assert_eq!(accelerated.cipher[0], cipher::AES_256_GCM);
        let mut offered: Vec<_> = accelerated.cipher.iter().map(|n| n.as_ref()).collect();
        let mut default_set: Vec<_> = defaults.cipher.iter().map(|n| n.as_ref()).collect();
        offered.sort_unstable();
        default_set.sort_unstable();
        assert_eq!(offered, default_set, "only the order may change");

        let plain = preferred_algorithms(false);
        assert_eq!(plain.cipher, defaults.cipher);
    }
}

/// What [`SshSession::exec_bounded`] kept of a command's output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoundedOutput {
    /// The first bytes, up to half of what is kept.
    pub head: Vec<u8>,
    /// The last bytes, up to the other half.
    pub tail: std::collections::VecDeque<u8>,
    /// How many bytes between them were not kept.
    pub left_out: u64,
    pub exit_status: Option<u32>,
    /// The signal that ended the command, when one did.
    pub signal: Option<String>,
    keep_head: usize,
    keep_tail: usize,
}

impl BoundedOutput {
    fn new(keep: usize) -> BoundedOutput {
        BoundedOutput {
            keep_head: keep / 2,
            keep_tail: keep - keep / 2,
            ..BoundedOutput::default()
        }
    }

    fn push(&mut self, mut data: &[u8]) {
        let room = self.keep_head.saturating_sub(self.head.len());
        let (first, rest) = data.split_at(room.min(data.len()));
        self.head.extend_from_slice(first);
        data = rest;
        // Only the last `keep_tail` bytes of what is left can stay in the tail.
        if data.len() > self.keep_tail {
            let skipped = data.len() - self.keep_tail;
            self.left_out += (self.tail.len() + skipped) as u64;
            self.tail.clear();
            data = &data[skipped..];
        }
        let overflow = (self.tail.len() + data.len()).saturating_sub(self.keep_tail);
        self.tail.drain(..overflow);
        self.left_out += overflow as u64;
        self.tail.extend(data);
    }
}

#[cfg(test)]
mod bounded_tests {
    use super::BoundedOutput;

    #[test]
    fn keeps_the_head_and_the_tail_and_counts_the_middle() {
        let mut output = BoundedOutput::new(6);
        for chunk in [&b"ab"[..], b"cdef", b"ghij", b"k"] {
            output.push(chunk);
        }
        assert_eq!(output.head, b"abc");
        assert_eq!(output.tail.iter().copied().collect::<Vec<u8>>(), b"ijk");
        assert_eq!(output.left_out, 5);
        let mut small = BoundedOutput::new(100);
        small.push(b"hello");
        assert_eq!(
            (small.head.as_slice(), small.tail.len(), small.left_out),
            (&b"hello"[..], 0, 0)
        );
        let mut big = BoundedOutput::new(4);
        big.push(&[b'x'; 1000]);
        assert_eq!((big.head.len(), big.tail.len(), big.left_out), (2, 2, 996));
    }
}
