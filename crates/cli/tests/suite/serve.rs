//! `kaiport serve` against the real binary on 127.0.0.1: the token as a WebSocket subprotocol and
//! the refusals (no token, a wrong one, the token where a browser would send it by itself, a
//! foreign Origin or Host), a WebSocket round trip through a local terminal tab, a clean stop on
//! Ctrl-C, `--open` without the token on a command line, the engine's limits under a memory
//! limit, slow clients cut off, and no secret in a trace log.

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{self, Message};

/// A running `kaiport serve` and what it printed first.
struct Served {
    child: Child,
    port: u16,
    token: String,
    _home: tempfile::TempDir,
    stdout: std::sync::mpsc::Receiver<String>,
    stderr: std::sync::mpsc::Receiver<String>,
}

impl Served {
    fn start() -> Served {
        Served::start_with(&[], &[])
    }

    fn start_with(args: &[&str], env: &[(&str, &str)]) -> Served {
        Served::start_under(&[], tempfile::tempdir().unwrap(), args, env)
    }

    /// `kaiport serve ARGS` with `home` as its KAIPORT_HOME, run by `wrapper` (a program and
    /// its arguments, before kaiport's path) when one is given.
    fn start_under(
        wrapper: &[&str],
        home: tempfile::TempDir,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Served {
        let kaiport = env!("CARGO_BIN_EXE_kaiport");
        let mut command = match wrapper.split_first() {
            Some((program, wrapper_args)) => {
                let mut command = Command::new(program);
                command.args(wrapper_args).arg(kaiport);
                command
            }
            None => Command::new(kaiport),
        };
        command
            .arg("serve")
            .args(args)
            .env("KAIPORT_HOME", home.path())
            .env("HOME", home.path())
            .env("SHELL", "/bin/bash")
            .env_remove("SSH_AUTH_SOCK")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        assert!(stdout.buffer().is_empty(), "more than the URL at once");
        let stdout = read_all(stdout);
        let stderr = read_all(child.stderr.take().unwrap());
        // The first line is the URL, nothing else; the token is in its fragment.
        let url = first.trim_end();
        let rest = url
            .strip_prefix("http://127.0.0.1:")
            .unwrap_or_else(|| panic!("first line {url:?}"));
        let (port, token) = rest.split_once("/#token=").unwrap();
        assert!(token.len() >= 32 && token.chars().all(|c| c.is_ascii_hexdigit()));
        Served {
            child,
            port: port.parse().unwrap(),
            token: token.to_owned(),
            _home: home,
            stdout,
            stderr,
        }
    }

    fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// A page's WebSocket (the token presented, this server's origin), past its `hello`
    /// (returned).
    async fn page(&self) -> (Socket, Value) {
        let mut socket = websocket(self, &protocols(&self.token), &[("Origin", &self.origin())])
            .await
            .unwrap();
        let hello = next_event(&mut socket).await;
        assert_eq!(hello["type"], "hello", "{hello}");
        (socket, hello)
    }

    /// One HTTP/1.1 request; the status line and headers, and the body.
    fn get(&self, path: &str, headers: &[(&str, &str)]) -> (u16, String, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut request = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("host"))
        {
            request.push_str(&format!("Host: 127.0.0.1:{}\r\n", self.port));
        }
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, head.to_ascii_lowercase(), body.to_owned())
    }

    /// Stop with Ctrl-C (SIGINT) and return what it said on stderr.
    fn interrupt(self) -> String {
        self.interrupt_all().1
    }

    /// Stop with Ctrl-C (SIGINT) and return what it wrote after the URL: stdout, stderr.
    fn interrupt_all(mut self) -> (String, String) {
        let status = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "exit status {status}");
                break;
            }
            assert!(
                Instant::now() < deadline,
                "kaiport serve did not stop on Ctrl-C"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let stdout = self.stdout.recv_timeout(Duration::from_secs(5)).unwrap();
        let stderr = self.stderr.recv_timeout(Duration::from_secs(5)).unwrap();
        (stdout, stderr)
    }
}

/// Everything `stream` says until it closes, from a thread of its own.
fn read_all(mut stream: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    let (sender, text) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stream.read_to_end(&mut bytes);
        let _ = sender.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    text
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The subprotocols a page asks for to present `token`.
fn protocols(token: &str) -> String {
    format!("kaiport, kaiport.token.{token}")
}

/// A WebSocket to `/ws` asking for `protocols` (none when empty) with `headers`; the HTTP
/// status when it is refused.
async fn websocket(
    served: &Served,
    protocols: &str,
    headers: &[(&str, &str)],
) -> Result<Socket, u16> {
    websocket_at(served, "/ws", protocols, headers).await
}

async fn websocket_at(
    served: &Served,
    path: &str,
    protocols: &str,
    headers: &[(&str, &str)],
) -> Result<Socket, u16> {
    let mut request = format!("ws://127.0.0.1:{}{path}", served.port)
        .into_client_request()
        .unwrap();
    if !protocols.is_empty() {
        request
            .headers_mut()
            .insert("Sec-WebSocket-Protocol", protocols.parse().unwrap());
    }
    for (name, value) in headers {
        let name: tungstenite::http::HeaderName = name.parse().unwrap();
        request.headers_mut().insert(name, value.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, response)) => {
            // The server answers with kaiport's protocol, never the token.
            let chosen = response.headers().get("Sec-WebSocket-Protocol");
            assert_eq!(chosen.and_then(|v| v.to_str().ok()), Some("kaiport"));
            Ok(socket)
        }
        Err(tungstenite::Error::Http(response)) => Err(response.status().as_u16()),
        Err(error) => panic!("{error}"),
    }
}

#[test]
fn the_page_needs_no_credential_and_no_cookie_is_ever_set() {
    let served = Served::start();
    let ui_built = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../ui/dist/index.html")
        .exists();
    // The UI's files hold no secret: anyone who may reach the server gets them (the page then
    // needs the token from the address's fragment). The old token query changes nothing.
    for path in ["/", &format!("/?token={}", served.token)] {
        let (status, head, body) = served.get(path, &[]);
        if ui_built {
            assert_eq!(status, 200, "{head}");
            assert!(body.contains("<div id=\"app\">"), "{body}");
        } else {
            assert_eq!(status, 503, "{head}");
            assert!(body.contains("npm --prefix ui run build"), "{body}");
        }
        assert!(!head.contains("set-cookie"), "{head}");
        assert!(!body.contains(&served.token), "{path}");
        assert!(head.contains("content-security-policy:"), "{head}");
        assert!(head.contains("x-frame-options: deny"), "{head}");
        assert!(head.contains("referrer-policy: no-referrer"), "{head}");
    }

    // A name that is not loopback (DNS rebinding) is refused.
    let rebound = served.get("/", &[("Host", "attacker.example:80")]);
    assert_eq!(rebound.0, 403);
    assert!(
        rebound.1.contains("content-security-policy:"),
        "{}",
        rebound.1
    );
}

#[tokio::test]
async fn the_websocket_needs_the_token_as_a_subprotocol_and_this_servers_origin() {
    let served = Served::start();
    let origin = served.origin();
    let same = [("Origin", origin.as_str())];
    assert_eq!(websocket(&served, "", &same).await.err(), Some(401));
    assert_eq!(websocket(&served, "kaiport", &same).await.err(), Some(401));
    let wrong = protocols(&"1".repeat(64));
    assert_eq!(websocket(&served, &wrong, &same).await.err(), Some(401));

    // What a browser sends to any port of this host by itself, or a page could put in a link,
    // is not a credential: a cookie of any name, the query, an Authorization header.
    let token = served.token.as_str();
    for cookie in [
        format!("kaiport_token_{}={token}", served.port),
        format!("token={token}"),
        format!("kaiport={token}"),
    ] {
        let headers = [("Origin", origin.as_str()), ("Cookie", cookie.as_str())];
        assert_eq!(
            websocket(&served, "kaiport", &headers).await.err(),
            Some(401),
            "{cookie}"
        );
    }
    let bearer = format!("Bearer {token}");
    let headers = [
        ("Origin", origin.as_str()),
        ("Authorization", bearer.as_str()),
    ];
    assert_eq!(
        websocket(&served, "kaiport", &headers).await.err(),
        Some(401)
    );
    let query = format!("/ws?token={token}");
    assert_eq!(
        websocket_at(&served, &query, "kaiport", &same).await.err(),
        Some(401)
    );

    let right = protocols(token);
    for foreign in [
        "http://evil.example",
        "http://127.0.0.1:1",
        "null",
        "http://localhost.evil.example",
    ] {
        assert_eq!(
            websocket(&served, &right, &[("Origin", foreign)])
                .await
                .err(),
            Some(403),
            "{foreign}"
        );
    }
    assert_eq!(websocket(&served, &right, &[]).await.err(), Some(403));
    let rebound = [
        ("Origin", "http://attacker.example:80"),
        ("Host", "attacker.example:80"),
    ];
    assert_eq!(websocket(&served, &right, &rebound).await.err(), Some(403));
    assert!(websocket(&served, &right, &same).await.is_ok());
}

/// The next text frame as JSON, skipping binary ones.
async fn next_event(socket: &mut Socket) -> Value {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(20), socket.next())
            .await
            .expect("no event within 20 s")
            .unwrap()
            .unwrap();
        if let Message::Text(text) = message {
            return serde_json::from_str(text.as_str()).unwrap();
        }
    }
}

/// Reads until the tab's terminal output contains `needle`; returns all text seen.
async fn output_until(socket: &mut Socket, tab: &str, needle: &str) -> String {
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !String::from_utf8_lossy(&seen).contains(needle) {
        let left = deadline.saturating_duration_since(Instant::now());
        let message = tokio::time::timeout(left, socket.next())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "no {needle:?} in the output: {:?}",
                    String::from_utf8_lossy(&seen)
                )
            })
            .unwrap()
            .unwrap();
        match message {
            Message::Binary(frame) => {
                let length = usize::from(frame[0]);
                assert_eq!(&frame[1..=length], tab.as_bytes());
                seen.extend_from_slice(&frame[1 + length..]);
            }
            Message::Text(text) => {
                let event: Value = serde_json::from_str(text.as_str()).unwrap();
                assert_ne!(event["type"], "terminal_output", "output came as JSON");
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&seen).into_owned()
}

/// Sends `op` (JSON) as a text frame.
async fn send_op(socket: &mut Socket, op: &Value) {
    socket
        .send(Message::Text(op.to_string().into()))
        .await
        .unwrap();
}

fn input_frame(tab: &str, text: &str) -> Message {
    let mut frame = vec![u8::try_from(tab.len()).unwrap()];
    frame.extend_from_slice(tab.as_bytes());
    frame.extend_from_slice(text.as_bytes());
    Message::Binary(frame.into())
}

#[tokio::test]
async fn a_local_terminal_tab_over_the_websocket_then_a_clean_stop() {
    let served = Served::start();
    let (mut socket, _) = served.page().await;

    let open = json!({"type": "open_tab", "tab": "t1", "target": {"kind": "local"}, "cols": 80, "rows": 24});
    socket
        .send(Message::Text(open.to_string().into()))
        .await
        .unwrap();
    let opened = next_event(&mut socket).await;
    assert_eq!(opened["type"], "tab_opened", "{opened}");
    loop {
        let event = next_event(&mut socket).await;
        if event["type"] == "connection_state" && event["state"]["state"] == "connected" {
            break;
        }
        assert_ne!(event["state"]["state"], "failed", "{event}");
    }
    // Keystrokes as a binary frame; the shell's answer as binary frames.
    socket
        .send(input_frame("t1", "echo served-$((6*7))\r"))
        .await
        .unwrap();
    output_until(&mut socket, "t1", "served-42").await;

    // A page that connects later sees the tab and its recent output at once.
    let (mut late, _) = served.page().await;
    assert_eq!(next_event(&mut late).await["type"], "tab_opened");
    assert_eq!(next_event(&mut late).await["state"]["state"], "connected");
    output_until(&mut late, "t1", "served-42").await;

    // Something that is not an op gets an error for this page, without quoting it.
    socket
        .send(Message::Text(
            r#"{"type":"answer_prompt","prompt":"p","answer":{"kind":"secret","value":7}} hunter2"#
                .into(),
        ))
        .await
        .unwrap();
    let error = next_event(&mut socket).await;
    assert_eq!(error["type"], "error", "{error}");
    assert!(!error.to_string().contains("hunter2"), "{error}");

    drop(socket);
    drop(late);
    let stderr = served.interrupt();
    assert!(stderr.contains("stopped (1 tab closed)"), "{stderr}");
}

#[test]
fn open_says_so_when_there_is_no_browser_and_the_url_stays_first() {
    // No xdg-open on this PATH: the URL is still the first line, and stderr says what to do.
    let empty = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let served = Served::start_with(
        &["--open", "--listen", "127.0.0.1:0"],
        &[
            ("PATH", empty.path().to_str().unwrap()),
            ("XDG_RUNTIME_DIR", runtime.path().to_str().unwrap()),
        ],
    );
    assert!([200, 503].contains(&served.get("/", &[]).0));
    let stderr = served.interrupt();
    assert!(stderr.contains("open the URL above yourself"), "{stderr}");
    assert!(!stderr.contains("WARNING"), "{stderr}");
    // The page for the browser that was not there is gone.
    assert_eq!(std::fs::read_dir(runtime.path()).unwrap().count(), 0);
}

/// `--open` starts the browser (here a stand-in for xdg-open that writes down its command line)
/// on a page in the user's runtime folder that only the user can read and that leads on to the
/// URL: no command line, which every local user can read, carries the token. The page goes
/// when the server stops.
#[test]
fn open_starts_the_browser_on_a_private_page_and_no_command_line_has_the_token() {
    let bin = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let argv = bin.path().join("argv");
    let stub = bin.path().join("xdg-open");
    std::fs::write(
        &stub,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" > '{0}.part' && mv '{0}.part' '{0}'\n",
            argv.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&stub, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let served = Served::start_with(
        &["--open"],
        &[
            ("PATH", path.as_str()),
            ("XDG_RUNTIME_DIR", runtime.path().to_str().unwrap()),
        ],
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while !argv.exists() {
        assert!(Instant::now() < deadline, "the browser was not started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let args = std::fs::read_to_string(&argv).unwrap();
    assert!(
        !args.contains(&served.token),
        "the token is on a command line: {args}"
    );
    let lines: Vec<&str> = args.lines().collect();
    assert_eq!(lines.len(), 2, "{args}");
    let page = std::path::Path::new(lines[1]);
    assert_eq!(page.parent(), Some(runtime.path()), "{args}");
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(page).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600, "{}", page.display());
    let html = std::fs::read_to_string(page).unwrap();
    let url = format!("http://127.0.0.1:{}/#token={}", served.port, served.token);
    assert!(html.contains(&format!("content=\"0;url={url}\"")), "{html}");
    let stderr = served.interrupt();
    assert!(!stderr.contains("open the URL above yourself"), "{stderr}");
    assert!(!page.exists(), "the page outlived the server");
}

/// The next event `wanted` picks; every event before it goes through `seen`.
async fn event_where(
    socket: &mut Socket,
    wanted: impl Fn(&Value) -> bool,
    mut seen: impl FnMut(&Value),
) -> Value {
    loop {
        let event = next_event(socket).await;
        if wanted(&event) {
            return event;
        }
        seen(&event);
    }
}

/// A page cannot make the engine allocate without bound or lose what it asked for: under a
/// memory limit, a resize and an open_tab of 65535 x 65535 are refused with an error and serve
/// goes on; so is a tab id too long for a terminal frame (not echoed back). No tab is opened
/// for any of them.
#[tokio::test]
async fn sizes_and_ids_beyond_the_engines_limits_are_refused_under_a_memory_limit() {
    let served = Served::start_under(
        &["prlimit", MEMORY_LIMIT, "--"],
        tempfile::tempdir().unwrap(),
        &[],
        &[],
    );
    let (mut socket, _) = served.page().await;
    open_connected(&mut socket, "t1", json!({"kind": "local"})).await;
    let long = "x".repeat(256);
    let ops = [
        (
            json!({"type": "resize", "tab": "t1", "cols": 65535, "rows": 65535}),
            json!("t1"),
            "resize refused: cols (65535) over the limit of 1000",
        ),
        (
            json!({"type": "open_tab", "tab": "t2", "target": {"kind": "local"},
                   "cols": 65535, "rows": 65535}),
            json!("t2"),
            "open_tab refused: cols (65535) over the limit of 1000",
        ),
        (
            json!({"type": "open_tab", "tab": long, "target": {"kind": "local"},
                   "cols": 80, "rows": 24}),
            Value::Null,
            "open_tab refused: the tab id (256 bytes) over the limit of 255 bytes",
        ),
    ];
    for (op, tab, message) in ops {
        send_op(&mut socket, &op).await;
        let error = event_where(
            &mut socket,
            |event| event["type"] == "error",
            |event| assert_ne!(event["type"], "tab_opened", "{event}"),
        )
        .await;
        assert_eq!(error["message"], message, "{error}");
        assert_eq!(
            error.get("tab").cloned().unwrap_or(Value::Null),
            tab,
            "{error}"
        );
    }
    // Still serving, at the size it had.
    socket
        .send(input_frame("t1", "echo alive-$((6*7)) $(stty size)\r"))
        .await
        .unwrap();
    output_until(&mut socket, "t1", "alive-42 24 80").await;
    drop(socket);
    let stderr = served.interrupt();
    assert!(stderr.contains("stopped (1 tab closed)"), "{stderr}");
}

/// The address space `kaiport serve` gets in the limits test: room to run (threads reserve
/// stacks and allocator arenas), far from what a 65535 x 65535 screen would take.
const MEMORY_LIMIT: &str = "--as=2147483648";

/// A client that never finishes its request's headers, or sends nothing, is disconnected by
/// the server (its header read timeout), so such connections cannot pile up. The test waits
/// for the close with a generous guard; the server still answers others.
#[test]
fn clients_that_never_finish_their_headers_are_disconnected() {
    let served = Served::start();
    let partial = TcpStream::connect(("127.0.0.1", served.port)).unwrap();
    (&partial)
        .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:")
        .unwrap();
    let silent = TcpStream::connect(("127.0.0.1", served.port)).unwrap();
    for mut stream in [partial, silent] {
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        let mut answer = Vec::new();
        match stream.read_to_end(&mut answer) {
            Ok(_) => {}
            Err(error) => panic!("still connected after 120 s: {error}"),
        }
        let answer = String::from_utf8_lossy(&answer);
        assert!(
            answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
            "{answer}"
        );
    }
    assert!([200, 503].contains(&served.get("/", &[]).0));
}

/// No secret reaches the log at any level, whichever crate would write it (README, "Logs"):
/// with `KAIPORT_LOG=trace` (and trace asked for the wire libraries by name), a key's passphrase answered at the prompt and a secret typed at a
/// `read -s` prompt, both through a real WebSocket to the real sshd, are nowhere in what serve
/// wrote — in clear, URL-encoded, or as bytes in hex or decimal. The trace output must be
/// there, or the test proves nothing.
#[tokio::test]
async fn secrets_typed_into_a_page_never_reach_the_trace_log() {
    use kaiport_tests::sshd::{KEY_PASSPHRASE, Sshd};
    const TYPED: &str = "typed-Secret-at-read-s-5821";
    let sshd = Sshd::start().unwrap();
    let known_hosts = sshd.dir().join("serve_known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    let served = Served::start_with(
        &["--known-hosts", known_hosts.to_str().unwrap()],
        &[(
            "KAIPORT_LOG",
            "trace,tungstenite=trace,tokio_tungstenite=trace,axum=trace,russh=trace",
        )],
    );
    let (mut socket, _) = served.page().await;
    let target = json!({"kind": "ssh", "host": "127.0.0.1", "port": sshd.port(),
                        "user": sshd.user(), "identity_files": [sshd.keys.ed25519_encrypted]});
    let open = json!({"type": "open_tab", "tab": "k1", "target": target, "cols": 80, "rows": 24});
    send_op(&mut socket, &open).await;
    let prompt = event_where(
        &mut socket,
        |event| event["type"] == "prompt_requested",
        |event| assert_ne!(event["state"]["state"], "failed", "{event}"),
    )
    .await;
    assert_eq!(prompt["prompt"]["kind"], "passphrase", "{prompt}");
    let answer = json!({"type": "answer_prompt", "prompt": prompt["prompt_id"],
                        "answer": {"kind": "secret", "value": KEY_PASSPHRASE}});
    send_op(&mut socket, &answer).await;
    event_where(
        &mut socket,
        |event| event["type"] == "connection_state" && event["state"]["state"] == "connected",
        |event| assert_ne!(event["state"]["state"], "failed", "{event}"),
    )
    .await;
    socket
        .send(input_frame(
            "k1",
            "read -s -p 'secret> ' S; echo \"got-${#S}\"\r",
        ))
        .await
        .unwrap();
    output_until(&mut socket, "k1", "secret> ").await;
    socket
        .send(input_frame("k1", &format!("{TYPED}\r")))
        .await
        .unwrap();
    output_until(&mut socket, "k1", &format!("got-{}", TYPED.len())).await;
    drop(socket);
    let (stdout, stderr) = served.interrupt_all();
    super::secrets_log::assert_trace_was_on("serve", &stderr);
    for secret in [KEY_PASSPHRASE, TYPED] {
        for form in super::secrets_log::encodings(secret) {
            for (stream, text) in [("stdout", &stdout), ("stderr", &stderr)] {
                assert!(
                    !text.contains(&form),
                    "{secret:?} is in {stream} as {form:?}"
                );
            }
        }
    }
}

#[tokio::test]
async fn the_model_flags_choose_the_model_for_every_tab() {
    const KEY: &str = "sk-serve-test-NEVER-SENT-TO-PAGES";
    let model = kaiport_tests::model_server::ModelServer::from_json(json!({
        "api_key": KEY,
        "steps": [{"expect": {"body_contains": ["Say hello"]},
                   "respond": {"text": "Hello from the scripted model."}}]
    }))
    .unwrap();
    let base_url = model.openai_url();
    let served = Served::start_with(
        &[
            "--provider",
            "openai",
            "--base-url",
            &base_url,
            "--model",
            "scripted",
            "--api-key-env",
            "KAIPORT_TEST_SERVE_KEY",
        ],
        &[("KAIPORT_TEST_SERVE_KEY", KEY)],
    );
    let (mut socket, _) = served.page().await;
    let open = json!({"type": "open_tab", "tab": "p1", "target": {"kind": "local"}, "cols": 80, "rows": 24});
    send_op(&mut socket, &open).await;
    let mut seen = Vec::new();
    loop {
        let event = next_event(&mut socket).await;
        seen.push(event.to_string());
        if event["type"] == "connection_state" && event["state"]["state"] == "connected" {
            break;
        }
    }
    // No model in the op: the server's flags choose it.
    let message = json!({"type": "send_message", "tab": "p1", "text": "Say hello"});
    send_op(&mut socket, &message).await;
    let mut text = String::new();
    loop {
        let event = next_event(&mut socket).await;
        seen.push(event.to_string());
        match event["type"].as_str() {
            Some("assistant_text") => text.push_str(event["delta"].as_str().unwrap()),
            Some("turn_finished") => {
                assert_eq!(event["status"], "completed", "{event}");
                break;
            }
            Some("error") => panic!("{event}"),
            _ => {}
        }
    }
    assert_eq!(text, "Hello from the scripted model.");
    assert_eq!(model.failures(), Vec::<String>::new());
    assert!(model.requests().iter().all(|request| request.auth_ok));
    // How full the window is came before the model's text: the default window of an
    // OpenAI-compatible model kaiport does not know.
    let usage = seen
        .iter()
        .position(|event| event.contains("\"context_usage\""))
        .expect("a context_usage event");
    let first_text = seen
        .iter()
        .position(|event| event.contains("\"assistant_text\""))
        .unwrap();
    assert!(usage < first_text, "{seen:?}");
    let usage: Value = serde_json::from_str(&seen[usage]).unwrap();
    assert_eq!(usage["context_tokens"], 32768, "{usage}");
    assert!(usage["used_tokens"].as_u64().unwrap() > 100, "{usage}");

    // The model picker's question: the flags' model, and that its key comes from the variable
    // and is set; never the key.
    let models = list_models(&mut socket, &mut seen).await;
    assert_eq!(models["current"]["model"], "scripted", "{models}");
    assert_eq!(models["current"]["base_url"], base_url.as_str(), "{models}");
    let openai = models["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|choice| choice["provider"] == "openai")
        .unwrap();
    assert_eq!(
        openai["key"],
        json!({"kind": "env", "var": "KAIPORT_TEST_SERVE_KEY", "set": true}),
        "{models}"
    );
    assert!(
        seen.iter().all(|event| !event.contains(KEY)),
        "the API key reached a page"
    );
    drop(socket);
    served.interrupt();
}

/// `--listen` beyond loopback warns (README: "it warns when that is not loopback"); the default
/// does not. The unspecified addresses are taken inside a network namespace of their own
/// (`unshare --net`; the suite runs as root), so no other machine can reach them even for the
/// moment the test takes.
#[test]
fn listening_beyond_loopback_warns_and_the_default_does_not() {
    for listen in ["0.0.0.0:0", "[::]:0"] {
        let served = Served::start_under(
            &["unshare", "--net", "--"],
            tempfile::tempdir().unwrap(),
            &["--listen", listen],
            &[],
        );
        let taken = listen.replace(":0", &format!(":{}", served.port));
        let stderr = served.interrupt();
        assert!(
            stderr.contains(&format!(
                "WARNING: listening on {taken}, which other machines can reach"
            )),
            "{listen}: {stderr}"
        );
    }
    let stderr = Served::start().interrupt();
    assert!(!stderr.contains("WARNING"), "{stderr}");
}

/// The page's question for the model picker: the `models` event it answers with (every event
/// until then also goes into `seen`).
async fn list_models(socket: &mut Socket, seen: &mut Vec<String>) -> Value {
    socket
        .send(Message::Text(
            json!({"type": "list_models"}).to_string().into(),
        ))
        .await
        .unwrap();
    loop {
        let event = next_event(socket).await;
        seen.push(event.to_string());
        if event["type"] == "models" {
            return event;
        }
    }
}

/// Opens a tab with `target` (JSON) on a page and waits until it is connected.
async fn open_connected(socket: &mut Socket, tab: &str, target: Value) {
    let open = json!({"type": "open_tab", "tab": tab, "target": target, "cols": 80, "rows": 24});
    socket
        .send(Message::Text(open.to_string().into()))
        .await
        .unwrap();
    loop {
        let event = next_event(socket).await;
        if event["type"] == "connection_state" && event["state"]["state"] == "connected" {
            return;
        }
        assert_ne!(event["state"]["state"], "failed", "{event}");
    }
}

/// Runs one tool call from a page; its outcome.
async fn run_tool(socket: &mut Socket, tab: &str, call: &str, tool: &str, args: Value) -> Value {
    let op = json!({"type": "run_tool", "tab": tab, "call": call, "tool": tool, "args": args});
    socket
        .send(Message::Text(op.to_string().into()))
        .await
        .unwrap();
    loop {
        let event = next_event(socket).await;
        if event["type"] == "tool_finished" && event["call"] == call {
            return event["outcome"].clone();
        }
    }
}

/// `--documents DIR` keeps every storage tab's local side in DIR (created if missing), as the
/// phone app does (README), whatever folders the page asks for: the page is told the folder in
/// `hello`, and a storage tab that asked for the whole disk lists DIR and cannot list /etc.
#[tokio::test]
async fn documents_keeps_every_storage_tabs_local_side_in_one_folder() {
    let sshd = kaiport_tests::sshd::Sshd::start().unwrap();
    let known_hosts = sshd.dir().join("serve_known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    let shared = sshd.writable_folder().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let documents = folder.path().join("My Documents");
    let served = Served::start_with(
        &[
            "--documents",
            documents.to_str().unwrap(),
            "--known-hosts",
            known_hosts.to_str().unwrap(),
        ],
        &[],
    );
    let (mut socket, hello) = served.page().await;
    assert_eq!(hello["documents"], documents.to_str().unwrap(), "{hello}");
    assert!(documents.is_dir());
    std::fs::write(documents.join("note.txt"), "from the page\n").unwrap();

    // Asked for the whole disk: given the documents folder only.
    let target = sshd.sftp_storage(shared.path(), vec!["/".to_owned()]);
    open_connected(&mut socket, "s1", serde_json::to_value(target).unwrap()).await;
    let listed = run_tool(
        &mut socket,
        "s1",
        "c1",
        "list_dir",
        json!({"path": documents, "side": "local"}),
    )
    .await;
    assert_eq!(listed["status"], "ok", "{listed}");
    assert_eq!(
        listed["result"]["entries"][0]["name"], "note.txt",
        "{listed}"
    );
    let outside = run_tool(
        &mut socket,
        "s1",
        "c2",
        "list_dir",
        json!({"path": "/etc", "side": "local"}),
    )
    .await;
    assert_ne!(outside["status"], "ok", "{outside}");
    drop(socket);
    served.interrupt();
}

/// The model flags override pilot.toml field by field, for every tab (README): with a file
/// naming a server and a model, `--model` changes only the model. The page is told so, and a
/// message goes to the file's server asking for the flag's model.
#[tokio::test]
async fn the_model_flags_override_pilot_toml_field_by_field() {
    let model = kaiport_tests::model_server::ModelServer::from_json(json!({
        "steps": [{"respond": {"text": "Hello from the file's server."}}]
    }))
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("pilot.toml"),
        model.pilot_toml("model-from-file", "KAIPORT_TEST_SERVE_KEY"),
    )
    .unwrap();
    let served = Served::start_under(
        &[],
        home,
        &["--model", "model-from-flag"],
        &[("KAIPORT_TEST_SERVE_KEY", "sk-serve-file-test")],
    );
    let (mut socket, _) = served.page().await;
    let models = list_models(&mut socket, &mut Vec::new()).await;
    assert_eq!(models["current"]["model"], "model-from-flag", "{models}");
    assert_eq!(
        models["current"]["base_url"],
        model.openai_url().as_str(),
        "{models}"
    );

    open_connected(&mut socket, "p1", json!({"kind": "local"})).await;
    let message = json!({"type": "send_message", "tab": "p1", "text": "Say hello"});
    socket
        .send(Message::Text(message.to_string().into()))
        .await
        .unwrap();
    loop {
        let event = next_event(&mut socket).await;
        if event["type"] == "turn_finished" {
            assert_eq!(event["status"], "completed", "{event}");
            break;
        }
    }
    let asked: Vec<Value> = model
        .requests()
        .iter()
        .map(|request| request.body["model"].clone())
        .collect();
    assert_eq!(asked, vec![json!("model-from-flag")]);
    assert_eq!(model.failures(), Vec::<String>::new());
    drop(socket);
    served.interrupt();
}
