//! `kaiport serve`: the UI (`ui/`, embedded in this binary) in a browser, over one WebSocket at
//! `/ws` that carries `Op`s and `Event`s as JSON text frames and terminal bytes as binary frames
//! (`[tab id length][tab id][bytes]`, both ways).
//!
//! Security: it listens on 127.0.0.1 on a free port unless told otherwise (and warns when the
//! address is not loopback); each start makes a random 256-bit token, printed on the first line
//! of stdout in the URL's fragment (`/#token=…`), which browsers never send to a server. The
//! page keeps it in `sessionStorage` (a reload and a duplicated tab keep it; another site never
//! sees it) and presents it as a WebSocket subprotocol (`kaiport.token.…`) when it opens `/ws`.
//! Nothing a browser sends by itself — no cookie, no address, no header — is a credential:
//! a page on another port of this host (the same site, so it gets this host's cookies) cannot
//! open the WebSocket. The upgrade also needs an `Origin` that is this server, and on loopback
//! every request's `Host` must be a loopback name (no DNS rebinding). The UI's files hold no
//! secret and are served to anyone who may reach the server.
//!
//! `--open` never puts the token on a command line (other users can read those): it writes a
//! page only this user can read, which sends the browser on to the URL, and opens that file.
//!
//! The HTTP server gives a client [`HEADER_READ_TIMEOUT`] to send a request's headers, so slow
//! or silent connections cannot pile up.
//!
//! One engine serves every page: events go to all of them, and a page that connects (or
//! reconnects) first gets the engine's hello, the open tabs with their state and recent output,
//! and the prompts still waiting. Ctrl-C closes the tabs and stops; the audit log is written and
//! flushed line by line as calls end, so nothing of it waits for the exit. It must never log,
//! print or store the token anywhere but the first line of stdout and the `--open` page.

use crate::connection::ConnectionOptions;
use crate::pilot::{ModelFlags, model_settings};
use anyhow::Context;
use axum::Router;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use kaiport_hub::{Bridge, Frame};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

/// The documents folder's name in the data folder (phone feature set).
const DOCUMENTS_FOLDER: &str = "Documents";

/// How long a client has to send a request's headers (an idle kept-alive connection too).
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The WebSocket subprotocol the page asks for, and the server answers with.
const PROTOCOL: &str = "kaiport";
/// The page presents the token as one more subprotocol: this, then the token.
const TOKEN_PROTOCOL: &str = "kaiport.token.";

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
    /// Keep the local side of every storage tab in this folder (created if missing), as the
    /// phone app keeps it in its documents folder. Default: in a build with the phone's feature
    /// set (no local terminal), `Documents` in kaiport's data folder; otherwise each tab names
    /// its own folders.
    #[arg(long, value_name = "DIR")]
    documents: Option<PathBuf>,
}

/// The phone's feature set has no local terminal: a build without it serves what the phone
/// app shows, the whole filesystem included — which it never is there.
const PHONE_FEATURE_SET: bool = cfg!(not(feature = "local-terminal"));

/// The built UI (`npm --prefix ui run build`), embedded at compile time; empty when it was not
/// built, and then every page says how to build it.
#[derive(rust_embed::RustEmbed)]
#[folder = "../../ui/dist/"]
#[allow_missing = true]
struct Assets;

/// The largest message a page may send.
const MAX_MESSAGE_BYTES: usize = 1 << 20;

/// A hub frame as a WebSocket message (text is copied once per page; bytes are shared).
fn ws_message(frame: &Frame) -> Message {
    match frame {
        Frame::Text(text) => Message::Text(Utf8Bytes::from(&**text)),
        Frame::Binary(bytes) => Message::Binary(bytes.clone()),
    }
}

struct Server {
    bridge: Arc<Bridge>,
    token: String,
    /// Where it listens; on loopback, the `Host` a request names must be a loopback name.
    listen: SocketAddr,
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
    let mut config = options.engine_config()?;
    config.documents_dir = args
        .documents
        .clone()
        .or_else(|| PHONE_FEATURE_SET.then(|| config.data_dir.join(DOCUMENTS_FOLDER)));
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
    let restore = config.restore_tabs;
    let bridge = Bridge::start(config, model, |_| {}).context("cannot start the engine")?;
    // The tabs of the last run open again (KAIPORT_RESTORE_TABS), before a page can attach.
    let restored = bridge.engine.remember_tabs("serve", restore);
    if restored > 0 {
        say!(
            "kaiport serve: {restored} tab{} of the last run opened again",
            if restored == 1 { "" } else { "s" }
        );
    }
    let server = Arc::new(Server {
        bridge,
        token: new_token(),
        listen,
        shutdown: CancellationToken::new(),
    });
    // Browsers reach an unspecified address (0.0.0.0, ::) through loopback.
    let shown = if listen.ip().is_unspecified() {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), listen.port())
    } else {
        listen
    };
    let url = format!("http://{shown}/#token={}", server.token);
    // Listened for before the URL is out: a Ctrl-C right after it still closes the tabs.
    let stop_signal = stop_signal();
    out!("{url}");
    say!("kaiport serve: open the URL above in a browser; Ctrl-C stops the server");
    let opener = if args.open {
        open_browser(&url, listen.port())
    } else {
        None
    };

    let app = Router::new()
        .route("/ws", get(upgrade))
        .fallback(get(asset))
        .layer(middleware::from_fn_with_state(server.clone(), guard))
        .with_state(server.clone());
    let stop = server.shutdown.clone();
    tokio::spawn(async move {
        stop_signal.await;
        stop.cancel();
    });
    serve_http(listener, app, server.shutdown.clone()).await;

    if let Some(opener) = opener {
        // The browser has read it long ago, or never will: the token goes with this run.
        let _ = std::fs::remove_file(opener);
    }
    let closed = server.bridge.close_all().await;
    say!(
        "kaiport serve: stopped ({} tab{} closed)",
        closed,
        if closed == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}

/// Serves `app` on `listener` until `shutdown`, HTTP/1.1 with WebSocket upgrades; each
/// connection must send a request's headers within [`HEADER_READ_TIMEOUT`]. On shutdown it
/// stops accepting, lets requests under way finish (a little while at most) and returns; the
/// pages' WebSockets close themselves.
async fn serve_http(listener: tokio::net::TcpListener, app: Router, shutdown: CancellationToken) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    // Every connection's task holds a receiver: when all are gone, all connections are.
    let (all_done, connection_done) = tokio::sync::watch::channel(());
    loop {
        let stream = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of file descriptors, say: wait a moment instead of spinning.
                    tracing::debug!("kaiport serve: cannot accept a connection: {error}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let shutdown = shutdown.clone();
        let done = connection_done.clone();
        tokio::spawn(async move {
            let _done = done;
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT);
            let connection = builder
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                // A failed connection (a client gone, too slow) concerns nobody else.
                _ = connection.as_mut() => {}
                () = shutdown.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    drop(listener);
    drop(connection_done);
    // A client that reads an answer slowly does not hold up the stop for long.
    let _ = tokio::time::timeout(Duration::from_secs(5), all_done.closed()).await;
}

/// Ctrl-C or SIGTERM, listened for from this call on (`tokio::signal::ctrl_c` would only start
/// listening when first polled, and until then a Ctrl-C ends the process at once).
fn stop_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        async move {
            match (interrupt, terminate) {
                (Ok(mut interrupt), Ok(mut terminate)) => {
                    tokio::select! {
                        _ = interrupt.recv() => {}
                        _ = terminate.recv() => {}
                    }
                }
                (Ok(mut interrupt), Err(_)) => {
                    interrupt.recv().await;
                }
                (Err(_), _) => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(windows)]
    {
        let ctrl_c = tokio::signal::windows::ctrl_c();
        async move {
            match ctrl_c {
                Ok(mut ctrl_c) => {
                    ctrl_c.recv().await;
                }
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(any(unix, windows)))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// Where the `--open` page goes: the user's runtime folder (only theirs), else kaiport's folder
/// in their cache folder.
fn opener_dir() -> Option<PathBuf> {
    dirs::runtime_dir().or_else(|| dirs::cache_dir().map(|cache| cache.join("kaiport")))
}

/// A page that sends the browser on to `url` (the token in its fragment), as a notebook server
/// does: the browser is started on this file, so no command line carries the token.
fn opener_page(url: &str) -> String {
    let url: String = url
        .chars()
        .map(|c| match c {
            '&' => "&amp;".to_owned(),
            '"' => "&quot;".to_owned(),
            '<' => "&lt;".to_owned(),
            '>' => "&gt;".to_owned(),
            c => c.to_string(),
        })
        .collect();
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <meta http-equiv=\"refresh\" content=\"0;url={url}\">\
         <title>Opening kaiport</title></head>\
         <body><p>Opening <a href=\"{url}\">kaiport</a>…</p></body></html>\n"
    )
}

/// Writes the [`opener_page`] into `dir` (made if missing, for this user alone), readable and
/// writable by this user alone; its path.
fn write_opener(dir: &Path, port: u16, url: &str) -> std::io::Result<PathBuf> {
    use std::io::Write as _;
    let mut folder = std::fs::DirBuilder::new();
    folder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut folder, 0o700);
    folder.create(dir)?;
    let path = dir.join(format!("kaiport-serve-{port}.html"));
    let mut options = std::fs::OpenOptions::new();
    // A new file (never through a link someone left there), 0600 from the start.
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = match options.open(&path) {
        // Left by a run on this port that was killed before it could remove it.
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(&path)?;
            options.open(&path)?
        }
        opened => opened?,
    };
    file.write_all(opener_page(url).as_bytes())?;
    Ok(path)
}

/// Starts the default browser on a page that leads to `url`; says so when it cannot (the URL is
/// on stdout). The page's path, to remove when the server stops.
fn open_browser(url: &str, port: u16) -> Option<PathBuf> {
    let written = opener_dir()
        .ok_or_else(|| "there is no runtime or cache folder".to_owned())
        .and_then(|dir| write_opener(&dir, port, url).map_err(|error| error.to_string()));
    let page = match written {
        Ok(page) => page,
        Err(problem) => {
            say!(
                "kaiport serve: cannot write the page that opens the browser ({problem}); open \
                 the URL above yourself"
            );
            return None;
        }
    };
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
        .arg(&page)
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
            Some(page)
        }
        Err(_) => {
            let _ = std::fs::remove_file(&page);
            say!("kaiport serve: no browser to open; open the URL above yourself");
            None
        }
    }
}

/// The token a page presents among its WebSocket subprotocols, if any.
fn presented_token<'a>(protocols: impl Iterator<Item = &'a HeaderValue>) -> Option<&'a str> {
    protocols
        .filter_map(|value| value.to_str().ok())
        .find_map(|protocol| protocol.strip_prefix(TOKEN_PROTOCOL))
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text,
    )
        .into_response()
}

/// Every request: on loopback, the `Host` must be a loopback name; every answer gets the
/// security headers. The token is checked where it matters, on the WebSocket ([`upgrade`]).
async fn guard(State(server): State<Arc<Server>>, request: Request, next: Next) -> Response {
    let mut response = if is_loopback(server.listen.ip())
        && !loopback_host(request.headers(), server.listen.port())
    {
        plain(
            StatusCode::FORBIDDEN,
            "kaiport serve answers only to 127.0.0.1, localhost and [::1].\n",
        )
    } else {
        next.run(request).await
    };
    secure_headers(response.headers_mut());
    response
}

const NOT_AUTHORIZED: &str = "Not authorized. Open the URL that `kaiport serve` printed \
(it ends in #token=…) in this browser.\n";

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

/// `/ws`: the page must come from this server and present the token as a subprotocol.
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
    match presented_token(upgrade.requested_protocols()) {
        Some(token) if same_secret(token, &server.token) => {}
        _ => return plain(StatusCode::UNAUTHORIZED, NOT_AUTHORIZED),
    }
    // The answer names `kaiport`, never the token.
    upgrade
        .protocols([PROTOCOL])
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
    let id = server.bridge.page();
    serve_page(&server, &mut socket, id).await;
    server.bridge.page_left(id);
}

async fn serve_page(server: &Server, socket: &mut WebSocket, id: kaiport_hub::PageId) {
    let mut follow = server.bridge.hub.follow();
    loop {
        tokio::select! {
            () = server.shutdown.cancelled() => {
                let _ = socket.send(close(axum::extract::ws::close_code::AWAY, "kaiport serve stopped")).await;
                return;
            }
            frames = follow.next() => match frames {
                Ok(frames) => {
                    for frame in &frames {
                        if socket.send(ws_message(frame)).await.is_err() {
                            return;
                        }
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // Too far behind: the page reconnects and starts from the replay.
                    let _ = socket.send(close(axum::extract::ws::close_code::AGAIN, "fell behind; reconnect")).await;
                    return;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
            // The page's ops wait until it has the replay: a reply for it alone comes after its
            // hello.
            message = socket.recv(), if !follow.replay_waiting() => match message {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                Some(Ok(Message::Text(text))) => {
                    if let Some(reply) = server.bridge.text_from(id, text.as_str()).await
                        && socket.send(ws_message(&reply)).await.is_err()
                    {
                        return;
                    }
                }
                Some(Ok(Message::Binary(bytes))) => server.bridge.input_from(id, &bytes).await,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_found_among_the_subprotocols_only_by_its_prefix() {
        let values = |list: &[&'static str]| -> Vec<HeaderValue> {
            list.iter().map(|v| HeaderValue::from_static(v)).collect()
        };
        let offered = values(&["kaiport", "kaiport.token.abc"]);
        assert_eq!(presented_token(offered.iter()), Some("abc"));
        let other = values(&["kaiport", "kaiport.tokenabc", "x.kaiport.token.abc"]);
        assert_eq!(presented_token(other.iter()), None);
        assert_eq!(presented_token(std::iter::empty()), None);
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "abcd"));
        assert_eq!(new_token().len(), 64);
        assert_ne!(new_token(), new_token());
    }

    #[test]
    fn the_opener_page_leads_to_the_url_and_only_this_user_reads_it() {
        let url = "http://127.0.0.1:4711/#token=00ff";
        let page = opener_page(url);
        assert!(page.contains("content=\"0;url=http://127.0.0.1:4711/#token=00ff\""));
        assert!(opener_page("http://x/\"><script>").contains("&quot;&gt;&lt;script&gt;"));
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("run");
        let path = write_opener(&folder, 4711, url).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), page);
        // A file left by an earlier run on this port is replaced.
        let again = write_opener(&folder, 4711, "http://127.0.0.1:4711/#token=11").unwrap();
        assert_eq!(again, path);
        assert!(std::fs::read_to_string(&path).unwrap().contains("token=11"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(&folder), 0o700);
        }
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
}
