//! `kaiport serve`: the UI (`ui/`, embedded in this binary) in a browser, over one WebSocket at
//! `/ws` that carries `Op`s and `Event`s as JSON text frames and terminal bytes as binary frames
//! (`[tab id length][tab id][bytes]`, both ways).
//!
//! Security, as notebook servers do it: it listens on 127.0.0.1 on a free port unless told
//! otherwise (and warns when the address is not loopback); each start makes a random 256-bit
//! token, printed in the URL on the first line of stdout. The first request with the token gets
//! an HttpOnly, SameSite=Strict cookie and is redirected to the same page without it; every
//! request and the WebSocket upgrade without the cookie get 401. The upgrade also needs an
//! `Origin` that is this server, and on loopback the `Host` must be a loopback name (no DNS
//! rebinding).
//!
//! One engine serves every page: events go to all of them, and a page that connects (or
//! reconnects) first gets the engine's hello, the open tabs with their state and recent output,
//! and the prompts still waiting. Ctrl-C closes the tabs and stops; the audit log is written and
//! flushed line by line as calls end, so nothing of it waits for the exit.

use crate::connection::ConnectionOptions;
use crate::pilot::{ModelFlags, model_settings};
use anyhow::Context;
use axum::Router;
use axum::body::Body;
use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use kaiport_core::Engine;
use kaiport_protocol::{ConnectionState, Event, ModelSettings, Op, TabId};
use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Listen here instead of 127.0.0.1 on a free port. Anything but loopback lets other
    /// machines reach the server (the token still guards it): kaiport warns.
    #[arg(long, value_name = "ADDR:PORT")]
    listen: Option<SocketAddr>,
    /// Open the UI in the default browser (the URL is printed either way).
    #[arg(long)]
    open: bool,
    #[command(flatten)]
    model: ModelFlags,
    /// known_hosts file to verify servers against (default: ~/.ssh/known_hosts).
    #[arg(long, value_name = "FILE")]
    known_hosts: Option<PathBuf>,
    /// Write the audit log here instead of the app's data folder.
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
}

/// The built UI (`npm --prefix ui run build`), embedded at compile time; empty when it was not
/// built, and then every page says how to build it.
#[derive(rust_embed::RustEmbed)]
#[folder = "../../ui/dist/"]
#[allow_missing = true]
struct Assets;

/// Terminal output kept per tab for pages that connect later.
const REPLAY_BYTES: usize = 256 * 1024;
/// Pilot's events kept per tab (its conversation and cards) for pages that connect later.
const PILOT_REPLAY_BYTES: usize = 1024 * 1024;
/// Frames a page may fall behind before it is disconnected (it reconnects and gets the replay).
const FRAMES_BEHIND: usize = 8192;
/// The largest message a page may send.
const MAX_MESSAGE_BYTES: usize = 1 << 20;

/// One frame for the pages; cloning it for each page shares its bytes.
#[derive(Debug, Clone)]
enum Frame {
    Text(Utf8Bytes),
    Binary(Bytes),
}

impl Frame {
    fn text(text: String) -> Frame {
        Frame::Text(text.into())
    }

    fn binary(bytes: Vec<u8>) -> Frame {
        Frame::Binary(bytes.into())
    }

    fn message(&self) -> Message {
        match self {
            Frame::Text(text) => Message::Text(text.clone()),
            Frame::Binary(bytes) => Message::Binary(bytes.clone()),
        }
    }
}

/// `[tab id length][tab id][bytes]`; None when the tab id is too long for one length byte.
fn terminal_frame(tab: &str, data: &[u8]) -> Option<Vec<u8>> {
    let length = u8::try_from(tab.len()).ok()?;
    let mut frame = Vec::with_capacity(1 + tab.len() + data.len());
    frame.push(length);
    frame.extend_from_slice(tab.as_bytes());
    frame.extend_from_slice(data);
    Some(frame)
}

/// The tab and bytes of a binary frame from a page.
fn parse_terminal_frame(frame: &[u8]) -> Option<(&str, &[u8])> {
    let (&length, rest) = frame.split_first()?;
    let length = usize::from(length);
    if rest.len() < length {
        return None;
    }
    let (tab, data) = rest.split_at(length);
    Some((std::str::from_utf8(tab).ok()?, data))
}

/// What a page that connects now must be shown first.
#[derive(Debug, Default)]
struct Replay {
    hello: Option<Utf8Bytes>,
    tabs: Vec<TabReplay>,
    /// Prompts not answered yet: (prompt id, tab, the event).
    prompts: Vec<(String, Option<TabId>, Utf8Bytes)>,
}

#[derive(Debug)]
struct TabReplay {
    id: TabId,
    opened: Option<Utf8Bytes>,
    state: Option<Utf8Bytes>,
    output: VecDeque<u8>,
    /// The tab's latest `ModeChanged`.
    mode: Option<Utf8Bytes>,
    /// Pilot's events in order (turns, text, tool cards, questions, plans, views and their
    /// buttons' results), oldest dropped first past [`PILOT_REPLAY_BYTES`]: a page that reloads
    /// sees the conversation and the cards still waiting for an answer.
    pilot: VecDeque<Utf8Bytes>,
    pilot_bytes: usize,
}

impl TabReplay {
    fn keep_pilot(&mut self, frame: Utf8Bytes) {
        self.pilot_bytes += frame.len();
        self.pilot.push_back(frame);
        while self.pilot_bytes > PILOT_REPLAY_BYTES
            && let Some(old) = self.pilot.pop_front()
        {
            self.pilot_bytes -= old.len();
        }
    }
}

impl Replay {
    fn tab(&mut self, id: &str) -> &mut TabReplay {
        let index = match self.tabs.iter().position(|tab| tab.id == id) {
            Some(index) => index,
            None => {
                self.tabs.push(TabReplay {
                    id: id.to_owned(),
                    opened: None,
                    state: None,
                    output: VecDeque::new(),
                    mode: None,
                    pilot: VecDeque::new(),
                    pilot_bytes: 0,
                });
                self.tabs.len() - 1
            }
        };
        &mut self.tabs[index]
    }

    /// The tab `id` when it is open (not made up for an event of a closed tab).
    fn open_tab(&mut self, id: &str) -> Option<&mut TabReplay> {
        self.tabs.iter_mut().find(|tab| tab.id == id)
    }

    fn frames(&self) -> Vec<Frame> {
        let mut frames: Vec<Frame> = self.hello.iter().cloned().map(Frame::Text).collect();
        for tab in &self.tabs {
            frames.extend(tab.opened.iter().cloned().map(Frame::Text));
            frames.extend(tab.state.iter().cloned().map(Frame::Text));
            if !tab.output.is_empty() {
                let (front, back) = tab.output.as_slices();
                if let Some(frame) = terminal_frame(&tab.id, &[front, back].concat()) {
                    frames.push(Frame::binary(frame));
                }
            }
            frames.extend(tab.mode.iter().cloned().map(Frame::Text));
            frames.extend(tab.pilot.iter().cloned().map(Frame::Text));
        }
        frames.extend(
            self.prompts
                .iter()
                .map(|(_, _, event)| Frame::Text(event.clone())),
        );
        frames
    }
}

/// The engine's events, to every page.
struct Hub {
    replay: Mutex<Replay>,
    frames: broadcast::Sender<Arc<Frame>>,
}

impl Hub {
    fn new() -> Hub {
        Hub {
            replay: Mutex::new(Replay::default()),
            frames: broadcast::channel(FRAMES_BEHIND).0,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Replay> {
        self.replay
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What to show a page first, and the frames after it: taken under one lock, so no frame
    /// is missed or shown twice.
    fn join(&self) -> (Vec<Frame>, broadcast::Receiver<Arc<Frame>>) {
        let replay = self.lock();
        (replay.frames(), self.frames.subscribe())
    }

    fn publish(&self, event: Event) {
        let mut replay = self.lock();
        let frame = match &event {
            Event::TerminalOutput { tab, data } => {
                let output = &mut replay.tab(tab).output;
                output.extend(data.iter().copied());
                let excess = output.len().saturating_sub(REPLAY_BYTES);
                output.drain(..excess);
                match terminal_frame(tab, data) {
                    Some(frame) => Frame::binary(frame),
                    None => return,
                }
            }
            _ => match serde_json::to_string(&event) {
                Ok(text) => Frame::text(text),
                Err(error) => {
                    tracing::warn!("kaiport serve: an event could not be written as JSON: {error}");
                    return;
                }
            },
        };
        if let Frame::Text(text) = &frame {
            match &event {
                Event::Hello { .. } => replay.hello = Some(text.clone()),
                Event::TabOpened { tab, .. } => replay.tab(tab).opened = Some(text.clone()),
                Event::ConnectionState { tab, state } => {
                    replay.tab(tab).state = Some(text.clone());
                    if !matches!(state, ConnectionState::Connecting) {
                        replay
                            .prompts
                            .retain(|(_, prompt_tab, _)| prompt_tab.as_ref() != Some(tab));
                    }
                }
                Event::TabClosed { tab } => {
                    replay.tabs.retain(|known| &known.id != tab);
                    replay
                        .prompts
                        .retain(|(_, prompt_tab, _)| prompt_tab.as_ref() != Some(tab));
                }
                Event::PromptRequested { tab, prompt_id, .. } => {
                    replay
                        .prompts
                        .push((prompt_id.clone(), tab.clone(), text.clone()));
                }
                Event::ModeChanged { tab, .. } => {
                    if let Some(known) = replay.open_tab(tab) {
                        known.mode = Some(text.clone());
                    }
                }
                Event::ToolRequested { tab, .. }
                | Event::ApprovalRequested { tab, .. }
                | Event::ToolRunning { tab, .. }
                | Event::QuestionAsked { tab, .. }
                | Event::ToolFinished { tab, .. }
                | Event::PlanProposed { tab, .. }
                | Event::PlanUpdated { tab, .. }
                | Event::TurnStarted { tab, .. }
                | Event::AssistantText { tab, .. }
                | Event::ModelRetrying { tab, .. }
                | Event::TurnFinished { tab, .. }
                | Event::ContextUsage { tab, .. }
                | Event::ViewShown { tab, .. }
                | Event::ViewButtonFinished { tab, .. } => {
                    // Only for tabs still open (a late event of a closed tab is not kept).
                    if let Some(known) = replay.open_tab(tab) {
                        known.keep_pilot(text.clone());
                    }
                }
                _ => {}
            }
        }
        // No page connected is fine: the replay keeps what matters.
        let _ = self.frames.send(Arc::new(frame));
    }

    fn prompt_answered(&self, prompt: &str) {
        self.lock().prompts.retain(|(id, _, _)| id != prompt);
    }

    fn open_tabs(&self) -> Vec<TabId> {
        self.lock().tabs.iter().map(|tab| tab.id.clone()).collect()
    }
}

struct Server {
    engine: Engine,
    hub: Hub,
    token: String,
    cookie: String,
    /// Where it listens; on loopback, the `Host` a request names must be a loopback name.
    listen: SocketAddr,
    /// The model for every tab, when the flags set one (else the engine's settings file).
    model: Option<ModelSettings>,
    shutdown: CancellationToken,
}

/// A fresh 256-bit token, as hex.
fn new_token() -> String {
    let bytes: [u8; 32] = rand::random();
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Compares without stopping at the first difference.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |diff, (x, y)| diff | (x ^ y))
            == 0
}

fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

pub async fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let options = ConnectionOptions {
        known_hosts: args.known_hosts.clone(),
        audit: args.audit.clone(),
        ..ConnectionOptions::default()
    };
    let config = options.engine_config()?;
    let model = if args.model.any() {
        Some(model_settings(&args.model, &config.config_dir)?)
    } else {
        None
    };
    let listen = args
        .listen
        .unwrap_or(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0));
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    let listen = listener.local_addr().context("cannot read the address")?;
    if !is_loopback(listen.ip()) {
        say!(
            "kaiport serve: WARNING: listening on {listen}, which other machines can reach. \
             Anyone with the URL below can use your terminals and connections; the traffic is \
             not encrypted. Use the default (127.0.0.1) unless you mean it."
        );
    }
    let (engine, mut events) = Engine::new(config).context("cannot start the engine")?;
    let server = Arc::new(Server {
        engine,
        hub: Hub::new(),
        token: new_token(),
        cookie: format!("kaiport_token_{}", listen.port()),
        listen,
        model,
        shutdown: CancellationToken::new(),
    });
    let pump = {
        let server = server.clone();
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                server.hub.publish(event);
            }
        })
    };

    // Browsers reach an unspecified address (0.0.0.0, ::) through loopback.
    let shown = if listen.ip().is_unspecified() {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), listen.port())
    } else {
        listen
    };
    let url = format!("http://{shown}/?token={}", server.token);
    out!("{url}");
    say!("kaiport serve: open the URL above in a browser; Ctrl-C stops the server");
    if args.open {
        open_browser(&url);
    }

    let app = Router::new()
        .route("/ws", get(upgrade))
        .fallback(get(asset))
        .layer(middleware::from_fn_with_state(server.clone(), guard))
        .with_state(server.clone());
    let stop = server.shutdown.clone();
    tokio::spawn(async move {
        wait_for_stop_signal().await;
        stop.cancel();
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(server.shutdown.clone().cancelled_owned())
        .await
        .context("the server failed")?;

    let tabs = server.hub.open_tabs();
    for tab in &tabs {
        server
            .engine
            .handle(Op::CloseTab { tab: tab.clone() })
            .await;
    }
    pump.abort();
    say!(
        "kaiport serve: stopped ({} tab{} closed)",
        tabs.len(),
        if tabs.len() == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}

async fn wait_for_stop_signal() {
    #[cfg(unix)]
    {
        let terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate());
        match terminate {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Starts the default browser on `url`; says so when it cannot (the URL is on stdout).
fn open_browser(url: &str) {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut command = std::process::Command::new("cmd");
        command.args(["/C", "start", ""]);
        command
    } else {
        std::process::Command::new("xdg-open")
    };
    command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    match command.spawn() {
        Ok(mut child) => {
            // xdg-open returns at once; reap it in the background.
            std::thread::spawn(move || {
                if !child.wait().is_ok_and(|status| status.success()) {
                    say!("kaiport serve: could not open a browser; open the URL above yourself");
                }
            });
        }
        Err(_) => say!("kaiport serve: no browser to open; open the URL above yourself"),
    }
}

/// The value of cookie `name` in the request, if any.
fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// The `token` query parameter, if any.
fn query_token(query: Option<&str>) -> Option<&str> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| *key == "token")
        .map(|(_, value)| value)
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text,
    )
        .into_response()
}

/// Every request: the `Host` on loopback, then the token (exchanged for the cookie) or the
/// cookie.
async fn guard(State(server): State<Arc<Server>>, request: Request, next: Next) -> Response {
    if is_loopback(server.listen.ip()) && !loopback_host(request.headers(), server.listen.port()) {
        return plain(
            StatusCode::FORBIDDEN,
            "kaiport serve answers only to 127.0.0.1, localhost and [::1].\n",
        );
    }
    if let Some(token) = query_token(request.uri().query()) {
        if !same_secret(token, &server.token) {
            return plain(StatusCode::UNAUTHORIZED, NOT_AUTHORIZED);
        }
        // Exchange: the cookie, and the same page without the token in the address bar.
        let path = request.uri().path().to_owned();
        let cookie = format!(
            "{}={}; HttpOnly; SameSite=Strict; Path=/",
            server.cookie, server.token
        );
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::SEE_OTHER;
        let headers = response.headers_mut();
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            headers.insert(header::SET_COOKIE, value);
        }
        if let Ok(value) = HeaderValue::from_str(&path) {
            headers.insert(header::LOCATION, value);
        }
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        );
        return response;
    }
    match cookie(request.headers(), &server.cookie) {
        Some(value) if same_secret(value, &server.token) => {
            let mut response = next.run(request).await;
            secure_headers(response.headers_mut());
            response
        }
        _ => plain(StatusCode::UNAUTHORIZED, NOT_AUTHORIZED),
    }
}

const NOT_AUTHORIZED: &str = "Not authorized. Open the URL that `kaiport serve` printed \
(with its ?token=…) in this browser.\n";

/// Whether `Host` names this server by a loopback name.
fn loopback_host(headers: &HeaderMap, port: u16) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    ["127.0.0.1", "localhost", "[::1]"]
        .iter()
        .any(|name| host == format!("{name}:{port}"))
}

fn secure_headers(headers: &mut HeaderMap) {
    let fixed = [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
             img-src 'self' data:; font-src 'self' data:; connect-src 'self'; \
             frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        ),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

/// A file of the built UI.
async fn asset(request: Request) -> Response {
    let path = request.uri().path().trim_start_matches('/');
    let path = if path.is_empty() { "index.html" } else { path };
    match Assets::get(path) {
        Some(file) => {
            let cache = if path.starts_with("assets/") {
                // Vite puts a content hash in these names.
                "public, max-age=31536000, immutable"
            } else {
                "no-store"
            };
            (
                [
                    (header::CONTENT_TYPE, content_type(path)),
                    (header::CACHE_CONTROL, cache),
                ],
                file.data.into_owned(),
            )
                .into_response()
        }
        None if Assets::get("index.html").is_none() => (
            StatusCode::SERVICE_UNAVAILABLE,
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CACHE_CONTROL, "no-store"),
            ],
            UI_NOT_BUILT,
        )
            .into_response(),
        None => plain(StatusCode::NOT_FOUND, "Not found.\n"),
    }
}

const UI_NOT_BUILT: &str = "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\">\
<title>kaiport: the UI was not built</title>\
<body style=\"font-family:system-ui,sans-serif;max-width:40em;margin:4em auto;line-height:1.5\">\
<h1>The UI was not built into this kaiport</h1>\
<p>This <code>kaiport</code> binary was compiled before <code>ui/dist</code> existed. Build the UI, \
then kaiport:</p>\
<pre>npm --prefix ui ci\nnpm --prefix ui run build\ncargo build -p kaiport-cli</pre>\
<p>(<code>scripts/run.sh</code> does all of this.)</p></body></html>\n";

fn content_type(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map_or("", |(_, ext)| ext);
    match extension {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// `/ws`: past the guard (cookie), the page must come from this server.
async fn upgrade(
    State(server): State<Arc<Server>>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    if !same_origin(&headers) {
        return plain(
            StatusCode::FORBIDDEN,
            "The WebSocket is only for pages of this server.\n",
        );
    }
    upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| page(server, socket))
}

/// Whether `Origin` is `http(s)://` + the `Host` the request was sent to.
fn same_origin(headers: &HeaderMap) -> bool {
    let origin = headers.get(header::ORIGIN).and_then(|h| h.to_str().ok());
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    match (origin, host) {
        (Some(origin), Some(host)) => {
            origin == format!("http://{host}") || origin == format!("https://{host}")
        }
        _ => false,
    }
}

/// One page's WebSocket: the replay, then events out and ops in until either side stops.
async fn page(server: Arc<Server>, mut socket: WebSocket) {
    let (replay, mut frames) = server.hub.join();
    for frame in replay {
        if socket.send(frame.message()).await.is_err() {
            return;
        }
    }
    loop {
        tokio::select! {
            () = server.shutdown.cancelled() => {
                let _ = socket.send(close(axum::extract::ws::close_code::AWAY, "kaiport serve stopped")).await;
                return;
            }
            frame = frames.recv() => match frame {
                Ok(frame) => {
                    if socket.send(frame.message()).await.is_err() {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // Too far behind: the page reconnects and starts from the replay.
                    let _ = socket.send(close(axum::extract::ws::close_code::AGAIN, "fell behind; reconnect")).await;
                    return;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
            message = socket.recv() => match message {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                Some(Ok(Message::Text(text))) => {
                    if let Some(reply) = server.text_from_page(text.as_str()).await
                        && socket.send(reply.message()).await.is_err()
                    {
                        return;
                    }
                }
                Some(Ok(Message::Binary(bytes))) => server.input_from_page(&bytes).await,
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
            },
        }
    }
}

fn close(code: u16, reason: &'static str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: reason.into(),
    }))
}

impl Server {
    /// An op from a page; the reply for that page alone when it was not one.
    async fn text_from_page(&self, text: &str) -> Option<Frame> {
        let mut op: Op = match serde_json::from_str(text) {
            Ok(op) => op,
            Err(error) => {
                // serde's message can quote the input (a typed password): only where it failed.
                let message = format!(
                    "kaiport serve could not read an op from this page ({:?} error at column {})",
                    error.classify(),
                    error.column()
                );
                let event = Event::Error { tab: None, message };
                return serde_json::to_string(&event).ok().map(Frame::text);
            }
        };
        match &mut op {
            Op::SendMessage { model, .. } if model.is_none() => model.clone_from(&self.model),
            // The flags' model is the server's, not the engine's: answered here, to this page.
            Op::ListModels if self.model.is_some() => {
                let config_dir = self.engine.config().config_dir.clone();
                let current = self.model.clone();
                let event = tokio::task::spawn_blocking(move || {
                    kaiport_core::agent::list_models(&config_dir, current)
                })
                .await
                .ok()?;
                return serde_json::to_string(&event).ok().map(Frame::text);
            }
            Op::AnswerPrompt { prompt, .. } => self.hub.prompt_answered(prompt),
            _ => {}
        }
        self.engine.handle(op).await;
        None
    }

    /// Terminal input from a page (a binary frame).
    async fn input_from_page(&self, frame: &[u8]) {
        let Some((tab, data)) = parse_terminal_frame(frame) else {
            return;
        };
        let op = Op::TerminalInput {
            tab: tab.to_owned(),
            data: String::from_utf8_lossy(data).into_owned(),
        };
        self.engine.handle(op).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_frames_round_trip_and_refuse_what_does_not_fit() {
        let frame = terminal_frame("tab-1", b"hi\x1b[0m").unwrap();
        assert_eq!(
            parse_terminal_frame(&frame),
            Some(("tab-1", &b"hi\x1b[0m"[..]))
        );
        assert_eq!(terminal_frame(&"x".repeat(256), b""), None);
        assert_eq!(parse_terminal_frame(&[]), None);
        assert_eq!(parse_terminal_frame(&[9, b'a']), None);
        assert_eq!(parse_terminal_frame(&[2, 0xff, 0xfe]), None);
    }

    #[test]
    fn cookies_and_tokens_are_found_by_exact_name() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static("a=1; kaiport_token_80x=no; kaiport_token_80=yes"),
        );
        assert_eq!(cookie(&headers, "kaiport_token_80"), Some("yes"));
        assert_eq!(cookie(&headers, "kaiport_token_8"), None);
        assert_eq!(query_token(Some("x=1&token=abc")), Some("abc"));
        assert_eq!(query_token(Some("tokens=abc")), None);
        assert_eq!(query_token(None), None);
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "abcd"));
        assert_eq!(new_token().len(), 64);
        assert_ne!(new_token(), new_token());
    }

    #[test]
    fn loopback_hosts_and_same_origin() {
        let v4 = |text: &str| text.parse::<IpAddr>().unwrap();
        assert!(is_loopback(v4("127.0.0.1")));
        assert!(is_loopback(v4("127.8.9.10")));
        assert!(is_loopback(v4("::1")));
        assert!(is_loopback(v4("::ffff:127.0.0.1")));
        assert!(!is_loopback(v4("0.0.0.0")));
        assert!(!is_loopback(v4("192.0.2.1")));
        assert!(!is_loopback(v4("::")));

        let headers = |pairs: &[(header::HeaderName, &'static str)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.insert(name.clone(), HeaderValue::from_static(value));
            }
            map
        };
        for host in ["127.0.0.1:8080", "localhost:8080", "[::1]:8080"] {
            let map = headers(&[(header::HOST, host)]);
            assert!(loopback_host(&map, 8080), "{host}");
            assert!(!loopback_host(&map, 8081), "{host}");
        }
        assert!(!loopback_host(
            &headers(&[(header::HOST, "evil.example:8080")]),
            8080
        ));
        assert!(!loopback_host(&headers(&[]), 8080));

        let same = headers(&[
            (header::HOST, "127.0.0.1:8080"),
            (header::ORIGIN, "http://127.0.0.1:8080"),
        ]);
        assert!(same_origin(&same));
        for origin in [
            "http://127.0.0.1:8081",
            "http://localhost:8080",
            "null",
            "http://127.0.0.1:8080.evil",
        ] {
            let map = headers(&[(header::HOST, "127.0.0.1:8080"), (header::ORIGIN, origin)]);
            assert!(!same_origin(&map), "{origin}");
        }
        assert!(!same_origin(&headers(&[(header::HOST, "127.0.0.1:8080")])));
    }

    #[test]
    fn the_replay_keeps_open_tabs_recent_output_and_waiting_prompts() {
        let hub = Hub::new();
        hub.publish(Event::TabOpened {
            tab: "t".into(),
            kind: kaiport_protocol::TabKind::Terminal,
            title: "local".into(),
        });
        hub.publish(Event::TerminalOutput {
            tab: "t".into(),
            data: vec![b'x'; REPLAY_BYTES + 10],
        });
        hub.publish(Event::PromptRequested {
            tab: Some("t".into()),
            prompt_id: "p".into(),
            prompt: kaiport_protocol::Prompt::Password {
                user: "u".into(),
                host: "h".into(),
            },
        });
        let (frames, _) = hub.join();
        assert_eq!(frames.len(), 3);
        match &frames[1] {
            Frame::Binary(frame) => assert_eq!(frame.len(), 2 + REPLAY_BYTES),
            other => panic!("{other:?}"),
        }
        hub.prompt_answered("p");
        assert_eq!(hub.join().0.len(), 2);
        hub.publish(Event::TabClosed { tab: "t".into() });
        assert_eq!(hub.join().0.len(), 0);
    }

    #[test]
    fn the_replay_keeps_pilots_conversation_of_open_tabs_within_its_bound() {
        let hub = Hub::new();
        hub.publish(Event::TabOpened {
            tab: "t".into(),
            kind: kaiport_protocol::TabKind::Terminal,
            title: "local".into(),
        });
        hub.publish(Event::TurnStarted {
            tab: "t".into(),
            turn: 1,
            text: "hello".into(),
        });
        hub.publish(Event::QuestionAsked {
            tab: "t".into(),
            call: "c".into(),
            question: "which?".into(),
            options: vec![],
        });
        // A view button's result too: a reloaded view card still says what its buttons did.
        hub.publish(Event::ViewButtonFinished {
            tab: "t".into(),
            call: "v".into(),
            command: "journalctl -f -n 50".into(),
            status: kaiport_protocol::ToolStatus::Ok,
            message: None,
        });
        // A closed (or unknown) tab's events are not kept.
        hub.publish(Event::TurnStarted {
            tab: "gone".into(),
            turn: 1,
            text: "hello".into(),
        });
        hub.publish(Event::ModeChanged {
            tab: "t".into(),
            mode: kaiport_protocol::Mode::Plan,
        });
        hub.publish(Event::ModeChanged {
            tab: "t".into(),
            mode: kaiport_protocol::Mode::Autopilot,
        });
        let texts = |frames: Vec<Frame>| -> Vec<String> {
            frames
                .into_iter()
                .filter_map(|frame| match frame {
                    Frame::Text(text) => Some(text.as_str().to_owned()),
                    Frame::Binary(_) => None,
                })
                .collect()
        };
        let frames = texts(hub.join().0);
        assert_eq!(frames.len(), 5, "{frames:?}");
        assert!(frames[1].contains("autopilot"), "only the latest mode");
        assert!(frames[2].contains("turn_started") && frames[3].contains("which?"));
        assert!(frames[4].contains("view_button_finished"));
        // Past the bound the oldest go first.
        let delta = "x".repeat(64 * 1024);
        for _ in 0..20 {
            hub.publish(Event::AssistantText {
                tab: "t".into(),
                turn: 1,
                delta: delta.clone(),
            });
        }
        let frames = texts(hub.join().0);
        assert!(!frames.iter().any(|frame| frame.contains("which?")));
        let kept: usize = frames.iter().skip(2).map(String::len).sum();
        assert!(kept <= PILOT_REPLAY_BYTES, "{kept}");
    }
}
