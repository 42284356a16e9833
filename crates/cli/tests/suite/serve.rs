//! `kaiport serve` against the real binary on 127.0.0.1: the token and its cookie, the refusals
//! (no token, a wrong one, a foreign Origin or Host), a WebSocket round trip through a local
//! terminal tab, and a clean stop on Ctrl-C.

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
        let (sender, stderr) = std::sync::mpsc::channel();
        let mut err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text);
            let _ = sender.send(text);
        });
        // The first line is the URL, nothing else.
        let url = first.trim_end();
        let rest = url
            .strip_prefix("http://127.0.0.1:")
            .unwrap_or_else(|| panic!("first line {url:?}"));
        let (port, token) = rest.split_once("/?token=").unwrap();
        assert!(token.len() >= 32 && token.chars().all(|c| c.is_ascii_hexdigit()));
        Served {
            child,
            port: port.parse().unwrap(),
            token: token.to_owned(),
            _home: home,
            stderr,
        }
    }

    fn cookie(&self) -> String {
        format!("kaiport_token_{}={}", self.port, self.token)
    }

    /// A page's WebSocket, past its `hello` (returned).
    async fn page(&self) -> (Socket, Value) {
        let origin = format!("http://127.0.0.1:{}", self.port);
        let mut socket = websocket(self, Some(&self.cookie()), Some(&origin))
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
    fn interrupt(mut self) -> String {
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
        self.stderr.recv_timeout(Duration::from_secs(5)).unwrap()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn websocket(
    served: &Served,
    cookie: Option<&str>,
    origin: Option<&str>,
) -> Result<Socket, u16> {
    let mut request = format!("ws://127.0.0.1:{}/ws", served.port)
        .into_client_request()
        .unwrap();
    if let Some(cookie) = cookie {
        request
            .headers_mut()
            .insert("Cookie", cookie.parse().unwrap());
    }
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("Origin", origin.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, _)) => Ok(socket),
        Err(tungstenite::Error::Http(response)) => Err(response.status().as_u16()),
        Err(error) => panic!("{error}"),
    }
}

#[test]
fn requests_without_the_token_are_refused_and_the_token_becomes_a_cookie() {
    let served = Served::start();
    // No token, a wrong one, a wrong cookie: 401.
    assert_eq!(served.get("/", &[]).0, 401);
    assert_eq!(served.get("/assets/x.js", &[]).0, 401);
    assert_eq!(served.get("/?token=00ff", &[]).0, 401);
    let wrong = format!("kaiport_token_{}={}", served.port, "0".repeat(64));
    assert_eq!(served.get("/", &[("Cookie", &wrong)]).0, 401);
    // Another server's cookie name does not count either.
    let other = format!("kaiport_token_1={}", served.token);
    assert_eq!(served.get("/", &[("Cookie", &other)]).0, 401);

    // The token is exchanged for an HttpOnly, SameSite=Strict cookie and leaves the address.
    let (status, head, _) = served.get(&format!("/?token={}", served.token), &[]);
    assert_eq!(status, 303);
    assert!(head.contains("\r\nlocation: /\r\n"), "{head}");
    let set_cookie = head
        .lines()
        .find(|line| line.starts_with("set-cookie:"))
        .unwrap();
    assert!(
        set_cookie.contains(&served.cookie().to_ascii_lowercase()),
        "{set_cookie}"
    );
    assert!(set_cookie.contains("httponly"), "{set_cookie}");
    assert!(set_cookie.contains("samesite=strict"), "{set_cookie}");

    // With the cookie: the page, or the page that says how to build it.
    let (status, head, body) = served.get("/", &[("Cookie", &served.cookie())]);
    let ui_built = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../ui/dist/index.html")
        .exists();
    if ui_built {
        assert_eq!(status, 200, "{head}");
        assert!(body.contains("<div id=\"app\">"), "{body}");
    } else {
        assert_eq!(status, 503, "{head}");
        assert!(body.contains("npm --prefix ui run build"), "{body}");
    }
    assert!(head.contains("content-security-policy:"), "{head}");
    assert!(head.contains("x-frame-options: deny"), "{head}");

    // A name that is not loopback (DNS rebinding) is refused even with the cookie.
    let rebound = served.get(
        "/",
        &[
            ("Host", "attacker.example:80"),
            ("Cookie", &served.cookie()),
        ],
    );
    assert_eq!(rebound.0, 403);
}

#[tokio::test]
async fn the_websocket_needs_the_cookie_and_this_servers_origin() {
    let served = Served::start();
    let origin = format!("http://127.0.0.1:{}", served.port);
    assert_eq!(
        websocket(&served, None, Some(&origin)).await.err(),
        Some(401)
    );
    let wrong = format!("kaiport_token_{}={}", served.port, "1".repeat(64));
    assert_eq!(
        websocket(&served, Some(&wrong), Some(&origin)).await.err(),
        Some(401)
    );
    let cookie = served.cookie();
    for foreign in [
        "http://evil.example",
        "http://127.0.0.1:1",
        "null",
        "http://localhost.evil.example",
    ] {
        assert_eq!(
            websocket(&served, Some(&cookie), Some(foreign)).await.err(),
            Some(403),
            "{foreign}"
        );
    }
    assert_eq!(
        websocket(&served, Some(&cookie), None).await.err(),
        Some(403)
    );
    assert!(
        websocket(&served, Some(&cookie), Some(&origin))
            .await
            .is_ok()
    );
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

fn input_frame(tab: &str, text: &str) -> Message {
    let mut frame = vec![u8::try_from(tab.len()).unwrap()];
    frame.extend_from_slice(tab.as_bytes());
    frame.extend_from_slice(text.as_bytes());
    Message::Binary(frame.into())
}

#[tokio::test]
async fn a_local_terminal_tab_over_the_websocket_then_a_clean_stop() {
    let served = Served::start();
    let origin = format!("http://127.0.0.1:{}", served.port);
    let cookie = served.cookie();
    let mut socket = websocket(&served, Some(&cookie), Some(&origin))
        .await
        .unwrap();
    assert_eq!(next_event(&mut socket).await["type"], "hello");

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
    let mut late = websocket(&served, Some(&cookie), Some(&origin))
        .await
        .unwrap();
    assert_eq!(next_event(&mut late).await["type"], "hello");
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
    let served = Served::start_with(
        &["--open", "--listen", "127.0.0.1:0"],
        &[("PATH", empty.path().to_str().unwrap())],
    );
    assert_eq!(served.get("/", &[]).0, 401);
    let stderr = served.interrupt();
    assert!(stderr.contains("open the URL above yourself"), "{stderr}");
    assert!(!stderr.contains("WARNING"), "{stderr}");
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
    let origin = format!("http://127.0.0.1:{}", served.port);
    let mut socket = websocket(&served, Some(&served.cookie()), Some(&origin))
        .await
        .unwrap();
    let open = json!({"type": "open_tab", "tab": "p1", "target": {"kind": "local"}, "cols": 80, "rows": 24});
    socket
        .send(Message::Text(open.to_string().into()))
        .await
        .unwrap();
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
    socket
        .send(Message::Text(message.to_string().into()))
        .await
        .unwrap();
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
