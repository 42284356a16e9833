//! Replays recorded terminal byte streams (tests/fixtures/terminal/*.bin) through a scripted
//! fake shell and checks what the terminal makes of them: extracted output, exit codes, prompt
//! and end detection, the alternate-screen flag, refusals, and closed connections.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kaiport_core::shell_io::{ShellClosed, ShellInput, ShellIo, ShellOutput};
use kaiport_core::terminal::marks::{MarkKind, MarkScanner};
use kaiport_core::terminal::{
    ShellIntegrationMode, Terminal, TerminalError, TerminalNotice, TerminalSettings,
};
use kaiport_protocol::tools::{CommandStatus, Detection, Key};
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/terminal")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What the fake shell does when it has received `expect` (exactly, as typed).
struct Step {
    expect: Vec<u8>,
    reply: Reply,
}

enum Reply {
    Bytes(Vec<u8>),
    BytesThenClose(Vec<u8>, ShellClosed),
}

fn step(expect: &str, reply: &str) -> Step {
    Step {
        expect: expect.as_bytes().to_vec(),
        reply: Reply::Bytes(fixture(reply)),
    }
}

/// Sends `bytes` in small chunks, so marks and sequences are split across reads.
async fn send_chunked(output: &tokio::sync::mpsc::Sender<ShellOutput>, bytes: &[u8]) {
    for chunk in bytes.chunks(5) {
        output
            .send(ShellOutput::Data(chunk.to_vec()))
            .await
            .unwrap();
    }
}

struct Fake {
    terminal: Terminal,
    shown: Arc<Mutex<Vec<u8>>>,
    closed: Arc<Mutex<Option<ShellClosed>>>,
}

/// Starts a terminal on a scripted shell: `greeting` first, then each step's reply once its
/// input has arrived. Input that no step expects is echoed back, like a tty would.
fn fake(greeting: &str, steps: Vec<Step>, mode: ShellIntegrationMode) -> Fake {
    let (io, mut ends): (ShellIo, _) = ShellIo::pair();
    let greeting = fixture(greeting);
    tokio::spawn(async move {
        send_chunked(&ends.output, &greeting).await;
        let mut steps = steps.into_iter();
        let mut next = steps.next();
        let mut typed = Vec::new();
        while let Some(input) = ends.input.recv().await {
            let ShellInput::Data(bytes) = input else {
                continue;
            };
            typed.extend_from_slice(&bytes);
            match &next {
                Some(step) if typed == step.expect => {
                    typed.clear();
                    match next.take().map(|s| s.reply) {
                        Some(Reply::Bytes(reply)) => send_chunked(&ends.output, &reply).await,
                        Some(Reply::BytesThenClose(reply, closed)) => {
                            send_chunked(&ends.output, &reply).await;
                            ends.output.send(ShellOutput::Closed(closed)).await.unwrap();
                            return;
                        }
                        None => {}
                    }
                    next = steps.next();
                }
                Some(step) if step.expect.starts_with(&typed) => {}
                _ => {
                    // Unscripted typing: echo it.
                    ends.output
                        .send(ShellOutput::Data(std::mem::take(&mut typed)))
                        .await
                        .unwrap();
                }
            }
        }
    });
    let shown = Arc::new(Mutex::new(Vec::new()));
    let closed = Arc::new(Mutex::new(None));
    let (shown2, closed2) = (Arc::clone(&shown), Arc::clone(&closed));
    let settings = TerminalSettings {
        shell_integration: mode,
        quiet_period: Duration::from_millis(200),
        ..TerminalSettings::default()
    };
    let terminal = Terminal::start(
        io,
        80,
        24,
        settings,
        Arc::new(move |notice| match notice {
            TerminalNotice::Output(bytes) => shown2.lock().unwrap().extend_from_slice(&bytes),
            TerminalNotice::Closed(reason) => *closed2.lock().unwrap() = Some(reason),
            TerminalNotice::Cwd(_) => {}
        }),
    );
    Fake {
        terminal,
        shown,
        closed,
    }
}

const SECOND: Duration = Duration::from_secs(1);

async fn run(
    terminal: &Terminal,
    command: &str,
    timeout: Duration,
) -> kaiport_protocol::tools::RunCommandResult {
    terminal
        .run_command(command, timeout, CancellationToken::new())
        .await
        .unwrap()
}

#[tokio::test]
async fn terminal_integration_output_exit_code_and_marks() {
    let f = fake(
        "int_prompt.bin",
        vec![
            step("echo hi\r", "int_echo_hi.bin"),
            step("./fetch.sh\r", "int_progress.bin"),
            step("printf abc\r", "int_printf.bin"),
        ],
        ShellIntegrationMode::DetectOnly,
    );
    f.terminal.wait_ready(5 * SECOND).await.unwrap();
    assert!(f.terminal.integration_active());

    let result = run(&f.terminal, "echo hi", 5 * SECOND).await;
    assert_eq!(
        (
            result.status,
            result.output.as_str(),
            result.exit_code,
            result.detection
        ),
        (
            CommandStatus::Completed,
            "hi",
            Some(0),
            Detection::ShellIntegration
        )
    );
    assert_eq!(result.screen, None);

    let result = run(&f.terminal, "./fetch.sh", 5 * SECOND).await;
    assert_eq!(
        (result.status, result.output.as_str(), result.exit_code),
        (CommandStatus::Completed, "100%\ndone", Some(3))
    );

    let result = run(&f.terminal, "printf abc", 5 * SECOND).await;
    assert_eq!((result.output.as_str(), result.exit_code), ("abc", Some(0)));

    let screen = f.terminal.screen();
    // `printf abc` left no newline: the prompt follows on the same line, as in a real terminal.
    assert_eq!(screen.screen.lines().last(), Some("abcuser@host:~$"));
    assert!(!screen.alternate_screen);
    // The UI got every byte, marks included, in order.
    let mut expected = fixture("int_prompt.bin");
    for name in ["int_echo_hi.bin", "int_progress.bin", "int_printf.bin"] {
        expected.extend(fixture(name));
    }
    assert_eq!(*f.shown.lock().unwrap(), expected);
}

#[tokio::test]
async fn terminal_mark_offsets_in_recorded_stream() {
    let mut stream = fixture("int_prompt.bin");
    stream.extend(fixture("int_echo_hi.bin"));
    let mut scanner = MarkScanner::new();
    let mut marks = Vec::new();
    for chunk in stream.chunks(3) {
        scanner.scan(chunk, &mut marks);
    }
    let kinds: Vec<MarkKind> = marks.iter().map(|m| m.kind).collect();
    assert_eq!(
        kinds,
        vec![
            MarkKind::PromptStart,
            MarkKind::CommandStart,
            MarkKind::OutputStart,
            MarkKind::CommandFinished { exit_code: Some(0) },
            MarkKind::PromptStart,
            MarkKind::CommandStart,
        ]
    );
    for mark in &marks {
        let bytes = &stream[mark.start as usize..mark.end as usize];
        assert!(
            bytes.starts_with(b"\x1b]133;") && bytes.ends_with(b"\x07"),
            "{bytes:?}"
        );
    }
    // Output between C and D is exactly the command's bytes.
    let c = marks[2].end as usize;
    let d = marks[3].start as usize;
    assert_eq!(&stream[c..d], b"\x1b[1;32mhi\x1b[0m\r\n");
}

#[tokio::test]
async fn terminal_lost_marks_fall_back_to_heuristic() {
    let f = fake(
        "int_prompt.bin",
        vec![step("exec bash --norc\r", "int_exec.bin")],
        ShellIntegrationMode::DetectOnly,
    );
    f.terminal.wait_ready(5 * SECOND).await.unwrap();
    let result = run(&f.terminal, "exec bash --norc", 10 * SECOND).await;
    assert_eq!(
        (
            result.status,
            result.output.as_str(),
            result.detection,
            result.exit_code
        ),
        (CommandStatus::Completed, "", Detection::Heuristic, None)
    );
    assert!(result.note.unwrap().contains("marks stopped"));
    assert!(!f.terminal.integration_active());
}

#[tokio::test]
async fn terminal_heuristic_output_without_echo_and_prompt() {
    let f = fake(
        "plain_prompt.bin",
        vec![step("ls --color\r", "plain_ls.bin")],
        ShellIntegrationMode::DetectOnly,
    );
    f.terminal.wait_ready(5 * SECOND).await.unwrap();
    assert!(!f.terminal.integration_active());
    let result = run(&f.terminal, "ls --color", 5 * SECOND).await;
    assert_eq!(
        (
            result.status,
            result.output.as_str(),
            result.exit_code,
            result.detection
        ),
        (
            CommandStatus::Completed,
            "dir  file.txt",
            None,
            Detection::Heuristic
        )
    );
}

#[tokio::test]
async fn terminal_marks_ignored_when_integration_off() {
    let f = fake(
        "int_prompt.bin",
        vec![step("echo hi\r", "int_echo_hi.bin")],
        ShellIntegrationMode::Off,
    );
    f.terminal.wait_ready(5 * SECOND).await.unwrap();
    assert!(!f.terminal.integration_active());
    let result = run(&f.terminal, "echo hi", 5 * SECOND).await;
    assert_eq!(
        (result.output.as_str(), result.detection, result.exit_code),
        ("hi", Detection::Heuristic, None)
    );
}

#[tokio::test]
async fn terminal_alternate_screen_blocks_run_command() {
    let f = fake(
        "plain_prompt.bin",
        vec![
            step("less notes.txt\r", "plain_less.bin"),
            step("q", "plain_less_quit.bin"),
        ],
        ShellIntegrationMode::DetectOnly,
    );
    f.terminal.wait_ready(5 * SECOND).await.unwrap();
    let result = run(&f.terminal, "less notes.txt", 10 * SECOND).await;
    assert_eq!(result.status, CommandStatus::AwaitingInput);
    assert!(result.note.unwrap().contains("full-screen"));
    assert!(result.screen.unwrap().contains("notes.txt (END)"));
    let screen = f.terminal.screen();
    assert!(screen.alternate_screen);
    assert!(screen.screen.starts_with("line one\nline two"));

    let refused = f
        .terminal
        .run_command("ls", SECOND, CancellationToken::new())
        .await;
    assert_eq!(refused, Err(TerminalError::FullScreenActive));

    let screen = f.terminal.send_input(Some("q"), None).await.unwrap();
    assert!(!screen.alternate_screen);
    assert_eq!(screen.screen.lines().last(), Some("user@host:~$"));
}

#[tokio::test]
async fn terminal_question_awaits_input_then_answer_finishes() {
    let f = fake(
        "plain_prompt.bin",
        vec![
            step("apt install foo\r", "plain_apt.bin"),
            step("y\r", "plain_apt_answer.bin"),
        ],
        ShellIntegrationMode::DetectOnly,
    );
    f.terminal.wait_ready(5 * SECOND).await.unwrap();
    let result = run(&f.terminal, "apt install foo", 5 * SECOND).await;
    assert_eq!(result.status, CommandStatus::AwaitingInput);
    assert_eq!(
        result.output,
        "Reading package lists... Done\nDo you want to continue? [Y/n]"
    );
    assert!(
        result
            .screen
            .unwrap()
            .ends_with("Do you want to continue? [Y/n]")
    );

    let screen = f
        .terminal
        .send_input(Some("y"), Some(Key::Enter))
        .await
        .unwrap();
    assert!(screen.screen.contains("Setting up foo ..."));
    assert_eq!(screen.screen.lines().last(), Some("user@host:~$"));
}

#[tokio::test]
async fn terminal_refuses_multiline_and_pending_input() {
    let f = fake("plain_prompt.bin", vec![], ShellIntegrationMode::DetectOnly);
    f.terminal.wait_ready(5 * SECOND).await.unwrap();
    let multi = f
        .terminal
        .run_command("echo a\necho b", SECOND, CancellationToken::new())
        .await;
    assert_eq!(multi, Err(TerminalError::MultiLineCommand));
    let tab = f
        .terminal
        .run_command("ls\t", SECOND, CancellationToken::new())
        .await;
    assert_eq!(tab, Err(TerminalError::ControlCharacter { code: 9 }));

    f.terminal.user_input(b"rm -").await.unwrap();
    // The fake shell's echo has reached the screen.
    wait_until(|| f.terminal.screen().screen.ends_with("rm -")).await;
    let pending = f
        .terminal
        .run_command("ls", SECOND, CancellationToken::new())
        .await;
    assert_eq!(
        pending,
        Err(TerminalError::InputLinePending {
            text: "rm -".to_owned()
        })
    );
    // Nothing was typed by the refused calls.
    assert!(
        f.shown.lock().unwrap().ends_with(b"$ rm -") || f.shown.lock().unwrap().ends_with(b"rm -")
    );
}

/// Text Pilot left at the prompt (send_input without Enter) is reported as its own, never as
/// the user's typing; once the user types into the line too, it is theirs.
#[tokio::test]
async fn pilots_own_unsubmitted_text_is_not_the_users() {
    let f = fake("plain_prompt.bin", vec![], ShellIntegrationMode::DetectOnly);
    let terminal = &f.terminal;
    terminal.wait_ready(5 * SECOND).await.unwrap();
    let refusal = || async {
        terminal
            .run_command("ls", SECOND, CancellationToken::new())
            .await
            .unwrap_err()
    };
    let stage = |text: &'static str, shown: &'static str| async move {
        let staged = terminal.stage_input(Some(text), None).await.unwrap();
        terminal.send_staged(&staged).await.unwrap();
        wait_until(|| terminal.screen().screen.ends_with(shown)).await;
    };
    stage("ls -l", "ls -l").await;
    let staged = refusal().await;
    assert_eq!(
        staged,
        TerminalError::StagedLinePending {
            text: "ls -l".to_owned()
        }
    );
    let message = staged.to_string();
    assert!(message.contains("which you typed"), "{message}");
    assert!(!message.contains("the user has typed"), "{message}");
    // More text from Pilot: still its own.
    stage("a", "ls -la").await;
    assert!(matches!(
        refusal().await,
        TerminalError::StagedLinePending { .. }
    ));
    // The user types into it: the line is theirs now, and never typed over.
    terminal.user_input(b"h").await.unwrap();
    wait_until(|| terminal.screen().screen.ends_with("ls -lah")).await;
    assert_eq!(
        refusal().await,
        TerminalError::InputLinePending {
            text: "ls -lah".to_owned()
        }
    );
}

#[tokio::test]
async fn terminal_connection_lost_interrupts_the_command() {
    let mut reply = b"sleep 100\r\n".to_vec();
    reply.extend_from_slice(b"");
    let f = fake(
        "plain_prompt.bin",
        vec![Step {
            expect: b"sleep 100\r".to_vec(),
            reply: Reply::BytesThenClose(
                reply,
                ShellClosed::ConnectionLost {
                    reason: "keepalive timeout".to_owned(),
                },
            ),
        }],
        ShellIntegrationMode::DetectOnly,
    );
    f.terminal.wait_ready(5 * SECOND).await.unwrap();
    let result = run(&f.terminal, "sleep 100", 10 * SECOND).await;
    assert_eq!(result.status, CommandStatus::Interrupted);
    assert!(
        result
            .note
            .unwrap()
            .contains("the connection to the server was lost: keepalive timeout")
    );
    assert_eq!(
        f.terminal.closed(),
        Some(ShellClosed::ConnectionLost {
            reason: "keepalive timeout".to_owned()
        })
    );
    assert_eq!(*f.closed.lock().unwrap(), f.terminal.closed());
    let after = f
        .terminal
        .run_command("ls", SECOND, CancellationToken::new())
        .await;
    assert_eq!(
        after,
        Err(TerminalError::ConnectionLost {
            reason: "keepalive timeout".to_owned()
        })
    );
}

#[tokio::test]
async fn terminal_cancel_interrupts_and_leaves_command_running() {
    let f = fake(
        "int_prompt.bin",
        vec![Step {
            expect: b"sleep 100\r".to_vec(),
            reply: Reply::Bytes(b"sleep 100\r\n\x1b]133;C\x07".to_vec()),
        }],
        ShellIntegrationMode::DetectOnly,
    );
    f.terminal.wait_ready(5 * SECOND).await.unwrap();
    let cancel = CancellationToken::new();
    let canceller = cancel.clone();
    let shown = Arc::clone(&f.shown);
    // Cancelled once the shell has said the command started (its OSC 133 C mark).
    tokio::spawn(async move {
        wait_until(|| shown.lock().unwrap().ends_with(b"\x1b]133;C\x07")).await;
        canceller.cancel();
    });
    let result = f
        .terminal
        .run_command("sleep 100", 60 * SECOND, cancel)
        .await
        .unwrap();
    // Interrupted (the cancel), not timed out.
    assert_eq!(result.status, CommandStatus::Interrupted);
    // Still running: the next command is refused, not typed into it.
    let next = f
        .terminal
        .run_command("ls", SECOND, CancellationToken::new())
        .await;
    assert!(
        matches!(next, Err(TerminalError::NotAtPrompt { .. })),
        "{next:?}"
    );
}

/// Throughput of the pump (mirror + marks + notify) on 64 MB of output. Not a correctness test:
/// run with `cargo test --release -p kaiport-core --test terminal_replay -- --ignored --nocapture`.
/// A flood of output in chunks of many sizes, plain lines mixed with tabs, UTF-8, long wrapping
/// lines, bare line feeds, carriage returns and rare colour: the mirror (which defers and skips
/// plain floods) ends on exactly the screen a plain vt100 parse of every byte gives, and so does
/// a read in the middle of the flood.
#[tokio::test]
async fn terminal_flood_ends_on_the_exact_screen() {
    let (io, ends) = ShellIo::pair();
    let terminal = Terminal::start(io, 80, 24, TerminalSettings::default(), Arc::new(|_| {}));
    let mut stream = Vec::new();
    for n in 0..40_000u32 {
        let line = match n % 97 {
            // Rare, so most chunks are plain and take the deferred path.
            0 if n % 9_991 == 0 => format!("\x1b[1;3{}mcolour {n}\x1b[0m\r\n", n % 8),
            1 => format!("tab\there {n}\r\n"),
            2 => format!("ünïcödé ✓ {n}\r\n"),
            3 => format!("{}\r\n", "w".repeat(150 + (n as usize % 60))),
            4 => format!("no crlf {n}\n"),
            5 => format!("back\rover {n}\r\n"),
            _ => format!("{n:08} the quick brown fox\r\n"),
        };
        stream.extend_from_slice(line.as_bytes());
    }
    stream.extend_from_slice(b"prompt$ ");
    let mut reference = vt100::Parser::new(
        std::num::NonZeroU16::new(24).unwrap(),
        std::num::NonZeroU16::new(80).unwrap(),
        0,
    );
    let mut sizes = [1usize, 7, 4096, 300, 32_768, 13, 2_000].iter().cycle();
    let mut sent = 0;
    let mut chunks = 0;
    while sent < stream.len() {
        let end = (sent + sizes.next().unwrap()).min(stream.len());
        ends.output
            .send(ShellOutput::Data(stream[sent..end].to_vec()))
            .await
            .unwrap();
        reference.process(&stream[sent..end]);
        sent = end;
        chunks += 1;
        if chunks % 50 == 0 {
            wait_for_screen(&terminal, reference.screen()).await;
        }
    }
    wait_for_screen(&terminal, reference.screen()).await;
}

/// Waits until `done` holds, at most 30 s.
async fn wait_until(done: impl Fn() -> bool) {
    for _ in 0..3000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the awaited state never came");
}

/// Waits until the terminal shows `screen` (the pump may still be working), at most 10 s.
async fn wait_for_screen(terminal: &Terminal, screen: &vt100::Screen) {
    let mut lines: Vec<String> = screen
        .rows(0, 80)
        .map(|row| row.trim_end().to_owned())
        .collect();
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    let expected = (lines.join("\n"), screen.cursor_position());
    let deadline = std::time::Instant::now() + 10 * SECOND;
    loop {
        let shown = terminal.screen();
        let got = (shown.screen, (shown.cursor_row, shown.cursor_col));
        if got == expected {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{got:?}\n!=\n{expected:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
#[ignore = "micro benchmark"]
async fn terminal_pump_throughput() {
    let (io, ends) = ShellIo::pair();
    let total = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = Arc::clone(&total);
    let terminal = Terminal::start(
        io,
        120,
        40,
        TerminalSettings::default(),
        Arc::new(move |notice| {
            if let TerminalNotice::Output(bytes) = notice {
                seen.fetch_add(bytes.len(), std::sync::atomic::Ordering::Relaxed);
            }
        }),
    );
    let line = b"0123456789 the quick brown fox jumps over the lazy dog \x1b[1mbold\x1b[0m\r\n";
    let chunk: Vec<u8> = line.iter().copied().cycle().take(64 * 1024).collect();
    let chunks = 1024;
    let started = std::time::Instant::now();
    for _ in 0..chunks {
        ends.output
            .send(ShellOutput::Data(chunk.clone()))
            .await
            .unwrap();
    }
    ends.output
        .send(ShellOutput::Closed(ShellClosed::Exited { status: Some(0) }))
        .await
        .unwrap();
    while terminal.closed().is_none() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let elapsed = started.elapsed();
    let bytes = total.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(bytes, chunks * chunk.len());
    eprintln!(
        "{} MB in {elapsed:?}: {:.0} MB/s",
        bytes >> 20,
        (bytes >> 20) as f64 / elapsed.as_secs_f64()
    );
    // Baseline: the vt100 mirror alone on the same bytes.
    let mut parser = vt100::Parser::new(
        std::num::NonZeroU16::new(40).unwrap(),
        std::num::NonZeroU16::new(120).unwrap(),
        10_000,
    );
    let started = std::time::Instant::now();
    for _ in 0..chunks {
        parser.process(&chunk);
    }
    eprintln!("vt100 alone: {:?}", started.elapsed());
}

/// Detect-only: marks without a secret may be printed by the output, so the
/// output runs to the last `D` (nothing after an earlier one is hidden), its status is the last
/// one's, and the result says where the end came from.
#[tokio::test]
async fn terminal_detect_only_hides_nothing_after_a_mark_and_says_so() {
    let reply = b"cat evil\x1b[?2004l\r\r\n\x1b]133;C\x07before\r\n\x1b]133;D;0\x07after\r\n\
                  \x1b]133;D;3\x07\x1b]133;A\x07\x1b[?2004huser@host:~$ \x1b]133;B\x07";
    let f = fake(
        "int_prompt.bin",
        vec![Step {
            expect: b"cat evil\r".to_vec(),
            reply: Reply::Bytes(reply.to_vec()),
        }],
        ShellIntegrationMode::DetectOnly,
    );
    f.terminal.wait_ready(5 * SECOND).await.unwrap();
    let result = run(&f.terminal, "cat evil", 5 * SECOND).await;
    assert_eq!(
        (
            result.status,
            result.output.as_str(),
            result.exit_code,
            result.detection
        ),
        (
            CommandStatus::Completed,
            "before\nafter",
            Some(3),
            Detection::ShellIntegration
        )
    );
    assert!(
        result.note.unwrap_or_default().contains("shell's own"),
        "detect-only results say the marks are the shell's own"
    );
}
