//! `kaiport forward` and `kaiport known-hosts replace` against a real sshd: a local forward
//! fetched through until Ctrl-C, a port in use, and a changed host key replaced only with the
//! server's whole new fingerprint.

use kaiport_tests::sshd::Sshd;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const QUICK: Duration = Duration::from_secs(30);

fn http_server(body: &'static str) -> u16 {
    kaiport_tests::http_page::serve(body).unwrap()
}

fn free_port() -> u16 {
    kaiport_tests::http_page::free_port().unwrap()
}

fn fetch(port: u16) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(QUICK)).unwrap();
    stream.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

fn kaiport(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kaiport"));
    command
        .env("KAIPORT_HOME", home)
        .env("HOME", home)
        .env_remove("SSH_AUTH_SOCK")
        .stdin(Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command
}

/// `kaiport forward` on the fixture with `forwards`, its stderr lines arriving on the channel.
fn forward(
    home: &Path,
    sshd: &Sshd,
    known_hosts: &Path,
    forwards: &[&str],
) -> (Child, mpsc::Receiver<String>) {
    let mut child = kaiport(home)
        .arg("forward")
        .arg(format!("ssh://{}@127.0.0.1:{}", sshd.user(), sshd.port()))
        .arg("--identity")
        .arg(&sshd.keys.ed25519)
        .arg("--known-hosts")
        .arg(known_hosts)
        .args(forwards)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (lines_tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { return };
            if lines_tx.send(line).is_err() {
                return;
            }
        }
    });
    (child, lines)
}

/// Waits for a line holding `wanted`; every line seen goes into `seen`.
fn line_with(lines: &mpsc::Receiver<String>, wanted: &str, seen: &mut Vec<String>) -> String {
    loop {
        match lines.recv_timeout(QUICK) {
            Ok(line) => {
                seen.push(line.clone());
                if line.contains(wanted) {
                    return line;
                }
            }
            Err(_) => panic!(
                "no line with {wanted:?}; stderr so far:\n{}",
                seen.join("\n")
            ),
        }
    }
}

fn wait(child: &mut Child) -> std::process::ExitStatus {
    for _ in 0..3000 {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    panic!("kaiport forward did not end");
}

/// The audit log's lines in `home` (also read by the snippet tests).
pub(super) fn audit(home: &Path) -> Vec<Value> {
    std::fs::read_to_string(home.join("ai-audit.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn forward_serves_a_local_forward_until_ctrl_c() {
    let sshd = Sshd::start().unwrap();
    let home = tempfile::tempdir().unwrap();
    let known_hosts = sshd.dir().join("forward_known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    let http = http_server("through kaiport forward");
    let port = free_port();
    let spec = format!("{port}:localhost:{http}");
    let (mut child, lines) = forward(home.path(), &sshd, &known_hosts, &["-L", &spec]);
    let mut seen = Vec::new();
    line_with(&lines, &format!("listening on 127.0.0.1:{port}"), &mut seen);
    assert!(fetch(port).ends_with("through kaiport forward"));
    line_with(&lines, "0 open, 1 in all", &mut seen);
    // Ctrl-C: the forwards close and the command ends well.
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(wait(&mut child).success(), "{}", seen.join("\n"));
    let actions: Vec<String> = audit(home.path())
        .iter()
        .filter(|line| line["tool"] == "port_forward")
        .map(|line| line["args"]["action"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(actions, ["open", "close"]);
}

#[test]
fn forward_on_a_port_in_use_fails_naming_the_port() {
    let sshd = Sshd::start().unwrap();
    let home = tempfile::tempdir().unwrap();
    let known_hosts = sshd.dir().join("forward_known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let spec = format!("{port}:localhost:80");
    let (mut child, lines) = forward(home.path(), &sshd, &known_hosts, &["-L", &spec]);
    let mut seen = Vec::new();
    let line = line_with(&lines, "already in use", &mut seen);
    assert!(
        line.contains(&format!("port {port} on 127.0.0.1")),
        "{line}"
    );
    assert!(!wait(&mut child).success());
    drop(taken);
}

#[test]
fn known_hosts_replace_takes_only_the_servers_whole_new_fingerprint() {
    let mut sshd = Sshd::start().unwrap();
    let home = tempfile::tempdir().unwrap();
    let known_hosts = sshd.dir().join("replace_known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    sshd.restart_with_new_host_keys().unwrap();
    let before = std::fs::read_to_string(&known_hosts).unwrap();
    let fingerprint = sshd.host_fingerprint().unwrap();
    let host = format!("127.0.0.1:{}", sshd.port());
    let replace = |given: &str| {
        kaiport(home.path())
            .args([
                "known-hosts",
                "replace",
                &host,
                "--fingerprint",
                given,
                "--known-hosts",
            ])
            .arg(&known_hosts)
            .output()
            .unwrap()
    };
    // The last 8 characters alone are for a person at the dialog, not the command line; a
    // whole fingerprint one character off is not the server's.
    let last = if fingerprint.ends_with('A') { "B" } else { "A" };
    let near_miss = format!("{}{last}", &fingerprint[..fingerprint.len() - 1]);
    for wrong in [&fingerprint[fingerprint.len() - 8..], near_miss.as_str()] {
        let output = replace(wrong);
        assert!(!output.status.success());
        assert_eq!(std::fs::read_to_string(&known_hosts).unwrap(), before);
    }
    let output = replace(&fingerprint);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains(&fingerprint), "{stdout}");
    assert_ne!(std::fs::read_to_string(&known_hosts).unwrap(), before);
    // The connection now succeeds.
    let run = kaiport(home.path())
        .arg("tool")
        .arg(format!("ssh://{}@{host}", sshd.user()))
        .arg("--identity")
        .arg(&sshd.keys.ed25519)
        .arg("--known-hosts")
        .arg(&known_hosts)
        .args(["run_command", r#"{"command":"echo replaced-ok"}"#, "--yes"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&run.stdout).contains("replaced-ok"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let statuses: Vec<String> = audit(home.path())
        .iter()
        .filter(|line| line["tool"] == "replace_host_key")
        .map(|line| line["status"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(statuses, ["denied", "ok"]);
}
