//! The terminal against real local shells in a PTY (`spawn_local_command`): bash with and
//! without injected integration, sh, and zsh/fish when installed. Every shell runs with HOME in a
//! temp dir and a known rc file, so prompts and history are deterministic.
#![cfg(all(unix, feature = "local-terminal"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kaiport_core::shell_io::ShellClosed;
use kaiport_core::terminal::{
    LocalShellCommand, ShellIntegrationMode, ShellKind, Terminal, TerminalError, TerminalNotice,
    TerminalSettings, keep_from_local_shells, spawn_local_command,
};
use kaiport_protocol::tools::{CommandStatus, Detection, Key, RunCommandResult};
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

const SECOND: Duration = Duration::from_secs(1);

fn find(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

struct Local {
    terminal: Terminal,
    shown: Arc<Mutex<Vec<u8>>>,
    _home: tempfile::TempDir,
}

impl Local {
    fn shown_text(&self) -> String {
        String::from_utf8_lossy(&self.shown.lock().unwrap()).into_owned()
    }

    /// Waits (30 s at most) until the shell has printed `text`.
    async fn wait_shown(&self, text: &str) {
        for _ in 0..3000 {
            if self.shown_text().contains(text) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("{text:?} not shown:\n{}", self.shown_text());
    }

    /// Waits (30 s at most) until the screen ends in an empty bash prompt.
    async fn wait_for_empty_prompt(&self) {
        let last_line = || {
            let screen = self.terminal.screen().screen;
            screen
                .trim_end()
                .lines()
                .last()
                .unwrap_or_default()
                .to_owned()
        };
        for _ in 0..3000 {
            if is_bash_prompt(&last_line()) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("no empty prompt: {:?}", self.terminal.screen().screen);
    }
}

/// Starts `shell` with HOME in a temp dir holding `rc_name` = `rc`, and waits until it is ready.
async fn start(shell: &Path, rc_name: &str, rc: &str, mode: ShellIntegrationMode) -> Local {
    let local = start_unready(shell, rc_name, rc, mode);
    local.terminal.wait_ready(15 * SECOND).await.unwrap();
    local
}

/// [`start`] without waiting for the first prompt (nor the injection after it).
fn start_unready(shell: &Path, rc_name: &str, rc: &str, mode: ShellIntegrationMode) -> Local {
    let home = tempfile::tempdir().unwrap();
    let rc_path = home.path().join(rc_name);
    std::fs::create_dir_all(rc_path.parent().unwrap()).unwrap();
    std::fs::write(&rc_path, rc).unwrap();
    let io = spawn_local_command(LocalShellCommand {
        program: Some(shell.to_path_buf()),
        args: Vec::new(),
        env: vec![
            ("HOME".into(), home.path().into()),
            ("ENV".into(), rc_path.clone().into()),
            ("ZDOTDIR".into(), home.path().into()),
            ("XDG_CONFIG_HOME".into(), home.path().join(".config").into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("PROMPT_COMMAND".into(), "".into()),
        ],
        cwd: Some(home.path().to_path_buf()),
        cols: 100,
        rows: 30,
    })
    .unwrap();
    let shown = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&shown);
    let terminal = Terminal::start(
        io,
        100,
        30,
        TerminalSettings {
            shell_integration: mode,
            ..TerminalSettings::default()
        },
        Arc::new(move |notice| {
            if let TerminalNotice::Output(bytes) = notice {
                sink.lock().unwrap().extend_from_slice(&bytes);
            }
        }),
    );
    Local {
        terminal,
        shown,
        _home: home,
    }
}

const BASHRC: &str = "PS1='kp@test:\\w\\$ '\nHISTFILE=\"$HOME/.bash_history\"\nunset HISTCONTROL\n";

/// The test prompt (`\\$` is `#` for root).
fn is_bash_prompt(text: &str) -> bool {
    text == "kp@test:~$" || text == "kp@test:~#"
}

async fn bash(mode: ShellIntegrationMode) -> Option<Local> {
    let bash = find("bash").expect("bash is not installed; scripts/test.sh installs it");
    Some(start(&bash, ".bashrc", BASHRC, mode).await)
}

/// sh with injected integration and the prompt `sh-test$ `.
async fn sh() -> Local {
    let sh = find("sh").expect("sh is not installed; scripts/test.sh installs it");
    start(
        &sh,
        ".shrc",
        "PS1='sh-test$ '\n",
        ShellIntegrationMode::Inject,
    )
    .await
}

async fn run(terminal: &Terminal, command: &str, timeout: Duration) -> RunCommandResult {
    terminal
        .run_command(command, timeout, CancellationToken::new())
        .await
        .unwrap_or_else(|e| panic!("{command}: {e}"))
}

fn short(result: &RunCommandResult) -> (CommandStatus, &str, Option<i32>, Detection) {
    (
        result.status,
        result.output.as_str(),
        result.exit_code,
        result.detection,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_local_shell_lacks_what_the_app_kept_for_itself() {
    // `cargo test` gives the test process both; the shell gets only the one not kept back.
    assert!(std::env::var_os("CARGO_PKG_NAME").is_some());
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    keep_from_local_shells("CARGO_PKG_NAME");
    let local = sh().await;
    let result = run(
        &local.terminal,
        "echo \"[${CARGO_PKG_NAME-unset}] [${CARGO_MANIFEST_DIR:+set}]\"",
        10 * SECOND,
    )
    .await;
    assert_eq!(result.output, "[unset] [set]");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_typed_as_the_shell_starts_are_shown_and_the_integration_still_goes_in() {
    let bash = find("bash").expect("bash is not installed; scripts/test.sh installs it");
    let local = start_unready(&bash, ".bashrc", BASHRC, ShellIntegrationMode::Inject);
    let t = &local.terminal;
    // A user who types the moment the prompt shows: once before the prompt is taken (its echo
    // still on the way), then while the integration is typed (hidden), then after it.
    let typing = async {
        local.wait_shown("kp@test:~").await;
        t.user_input(b"echo typed-$((1*7))\r").await.unwrap();
        local.wait_shown("typed-7\r\n").await;
        for i in 2..=12 {
            tokio::time::sleep(Duration::from_millis(if i == 2 { 80 } else { 30 })).await;
            t.user_input(format!("echo typed-$(({i}*7))\r").as_bytes())
                .await
                .unwrap();
        }
    };
    let (ready, ()) = tokio::join!(t.wait_ready(15 * SECOND), typing);
    ready.unwrap();
    // Every line's output reached the screen the user sees, once and in order.
    for i in 1..=12 {
        local.wait_shown(&format!("typed-{}\r\n", i * 7)).await;
    }
    let shown = local.shown_text();
    let places: Vec<usize> = (1..=12)
        .map(|i| {
            let out = format!("typed-{}\r\n", i * 7);
            assert_eq!(shown.matches(&out).count(), 1, "{out:?} in {shown:?}");
            shown.find(&out).unwrap()
        })
        .collect();
    assert!(places.is_sorted(), "out of order: {shown:?}");
    // The integration went in all the same, and nothing of it showed.
    assert!(t.integration_active(), "{shown:?}");
    assert!(!shown.contains("__kp"), "{shown:?}");
    assert_eq!(
        short(&run(t, "echo after", 10 * SECOND).await),
        (
            CommandStatus::Completed,
            "after",
            Some(0),
            Detection::ShellIntegration
        )
    );
}

/// A user who begins a line at the first prompt before kaiport took it: the prompt is the line
/// without their text, so the shell is ready without waiting out the time given to find a
/// prompt, and Pilot is told the line is theirs rather than typing after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_begun_at_the_first_prompt_stays_the_users() {
    let started = Instant::now();
    let line = "echo begun-$((6*7)) é";
    let (local, pilot) = begun_at_the_first_prompt(line.as_bytes(), line, 60 * SECOND).await;
    // Taking the whole line as the prompt waits for the no-prompt deadline.
    assert!(started.elapsed() < 30 * SECOND, "{:?}", started.elapsed());
    match pilot {
        Err(TerminalError::InputLinePending { text }) => assert_eq!(text, line),
        other => panic!("Pilot typed after the user's line: {other:?}"),
    }
    finish_the_line(&local, "begun-42 \u{e9}\r\n").await;
}

/// The same with a key whose effect on the line is not known (a backspace): the prompt cannot
/// be told from the user's text, so no line is taken as the prompt, and Pilot does not type
/// after the user's text either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_edited_at_the_first_prompt_is_not_taken_for_it() {
    let keys = b"echo edited-$((6*7))x\x7f";
    // No prompt-looking line: ready once the time given to find one is over.
    let (local, pilot) = begun_at_the_first_prompt(keys, "edited-$((6*7))", 3 * SECOND).await;
    assert!(
        matches!(
            pilot,
            Err(TerminalError::NotAtPrompt { .. } | TerminalError::InputLinePending { .. })
        ),
        "Pilot typed after the user's line: {pilot:?}"
    );
    finish_the_line(&local, "edited-42\r\n").await;
}

/// A local bash whose user types `keys` at the first prompt, before it is taken, until `echo`
/// shows; once it is ready (within `within`), what Pilot's `echo pilot` came to.
async fn begun_at_the_first_prompt(
    keys: &[u8],
    echo: &str,
    within: Duration,
) -> (Local, Result<RunCommandResult, TerminalError>) {
    let bash = find("bash").expect("bash is not installed; scripts/test.sh installs it");
    let local = start_unready(&bash, ".bashrc", BASHRC, ShellIntegrationMode::Inject);
    let t = &local.terminal;
    let typing = async {
        local.wait_shown("kp@test:~").await;
        t.user_input(keys).await.unwrap();
        local.wait_shown(echo).await;
    };
    let (ready, ()) = tokio::join!(t.wait_ready(within), typing);
    ready.unwrap();
    let pilot = t
        .run_command("echo pilot", 10 * SECOND, CancellationToken::new())
        .await;
    (local, pilot)
}

/// The user ends their line: it prints `output`, Pilot's command never ran, and Pilot's next
/// one runs at the next prompt — with the shell integration, typed unseen just before it (it
/// was put off at the first prompt, where it would have joined the user's line).
async fn finish_the_line(local: &Local, output: &str) {
    let t = &local.terminal;
    assert!(!t.integration_active());
    t.user_input(b"\r").await.unwrap();
    local.wait_shown(output).await;
    assert!(
        !local.shown_text().contains("pilot"),
        "{}",
        local.shown_text()
    );
    let after = run(t, "echo after; false", 10 * SECOND).await;
    assert_eq!(
        short(&after),
        (
            CommandStatus::Completed,
            "after",
            Some(1),
            Detection::ShellIntegration
        )
    );
    assert!(t.integration_active());
    assert_eq!(t.shell_kind(), Some(ShellKind::Bash));
    let shown = local.shown_text();
    assert!(!shown.contains("__kp"), "{shown:?}");
    assert_eq!(shown.matches("echo after").count(), 1, "{shown:?}");
    let screen = t.screen().screen;
    assert!(
        screen.contains(output.lines().next().unwrap_or_default()),
        "{screen:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_bash_injected_integration() {
    let Some(local) = bash(ShellIntegrationMode::Inject).await else {
        return;
    };
    let t = &local.terminal;
    assert!(t.integration_active());
    assert_eq!(t.shell_kind(), Some(ShellKind::Bash));
    // Injection left nothing on the screen or in what the UI was shown.
    let screen = t.screen().screen;
    assert!(is_bash_prompt(&screen), "{screen:?}");
    assert!(
        !local.shown_text().contains("__kp"),
        "{:?}",
        local.shown_text()
    );

    let si = Detection::ShellIntegration;
    assert_eq!(
        short(&run(t, "echo hi", 10 * SECOND).await),
        (CommandStatus::Completed, "hi", Some(0), si)
    );
    assert_eq!(
        short(&run(t, "false", 10 * SECOND).await),
        (CommandStatus::Completed, "", Some(1), si)
    );
    assert_eq!(
        short(&run(t, "(exit 3)", 10 * SECOND).await),
        (CommandStatus::Completed, "", Some(3), si)
    );
    let stderr = run(t, "echo out; echo err >&2", 10 * SECOND).await;
    assert_eq!(stderr.output, "out\nerr");

    // The prompt looks as before, and history has no trace of the injection.
    let history = run(t, "history", 10 * SECOND).await;
    assert!(!history.output.contains("__kp"), "{}", history.output);
    assert!(history.output.contains("echo hi"), "{}", history.output);
    assert!(is_bash_prompt(
        t.screen().screen.lines().last().unwrap_or_default()
    ));
    assert!(!t.screen().screen.contains("__kp"));

    // Long output arrives complete.
    let seq = run(t, "seq 1 100000", 60 * SECOND).await;
    assert_eq!(seq.exit_code, Some(0));
    let lines: Vec<&str> = seq.output.lines().collect();
    assert_eq!(
        (lines.len(), lines.first(), lines.last()),
        (100_000, Some(&"1"), Some(&"100000"))
    );

    // A \r progress bar: only the final state of the line.
    let bar = run(t, r"printf '10%%\r50%%\r100%%\ndone\n'", 10 * SECOND).await;
    assert_eq!(bar.output, "100%\ndone");

    common_interactions(t, si).await;

    // The shell is replaced by one without integration: the heuristic takes over.
    let exec = run(t, "exec bash --norc --noprofile", 20 * SECOND).await;
    assert_eq!(
        (exec.status, exec.detection),
        (CommandStatus::Completed, Detection::Heuristic)
    );
    assert!(!t.integration_active());
    let after = run(t, "echo again", 10 * SECOND).await;
    assert_eq!(
        short(&after),
        (
            CommandStatus::Completed,
            "again",
            None,
            Detection::Heuristic
        )
    );

    shell_exit(t).await;
}

/// Timeouts, questions, Ctrl-C and full-screen programs: the same with and without marks.
async fn common_interactions(t: &Terminal, detection: Detection) {
    // Outlives its timeout, then the prompt comes back.
    let slow = run(t, "sleep 3", SECOND).await;
    assert_eq!(slow.status, CommandStatus::TimedOut);
    assert!(slow.screen.is_some());
    t.read_screen(3 * SECOND, CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(short(&run(t, "echo back", 10 * SECOND).await).1, "back");

    // `read` waits silently; send_input answers it.
    let read = run(t, "read x", 10 * SECOND).await;
    assert_eq!(read.status, CommandStatus::AwaitingInput, "{read:?}");
    t.send_input(Some("hello"), Some(Key::Enter)).await.unwrap();
    let echo = run(t, "echo \"got $x\"", 10 * SECOND).await;
    assert_eq!(
        (echo.output.as_str(), echo.detection),
        ("got hello", detection)
    );

    // A [y/N] question.
    let ask = run(
        t,
        "read -p 'Continue? [y/N] ' a; echo \"answer=$a\"",
        10 * SECOND,
    )
    .await;
    assert_eq!(ask.status, CommandStatus::AwaitingInput);
    assert!(
        ask.screen
            .as_deref()
            .unwrap_or_default()
            .ends_with("Continue? [y/N]"),
        "{ask:?}"
    );
    let screen = t.send_input(Some("y"), Some(Key::Enter)).await.unwrap();
    assert!(screen.screen.contains("answer=y"), "{}", screen.screen);

    // Ctrl-C stops a long command.
    let long = run(t, "sleep 100", SECOND).await;
    assert_eq!(long.status, CommandStatus::TimedOut);
    assert!(matches!(
        t.run_command("echo no", SECOND, CancellationToken::new())
            .await,
        Err(kaiport_core::terminal::TerminalError::NotAtPrompt { .. })
    ));
    t.send_input(None, Some(Key::CtrlC)).await.unwrap();
    assert_eq!(short(&run(t, "echo alive", 10 * SECOND).await).1, "alive");

    // A full-screen program: awaiting input, refused run_command, quit with a key.
    if let Some(less) = find("less") {
        let file = "kp_notes.txt";
        run(t, &format!("seq 1 200 > {file}"), 10 * SECOND).await;
        let opened = run(t, &format!("{} {file}", less.display()), 10 * SECOND).await;
        assert_eq!(opened.status, CommandStatus::AwaitingInput, "{opened:?}");
        assert!(t.screen().alternate_screen);
        assert_eq!(
            t.run_command("ls", SECOND, CancellationToken::new()).await,
            Err(kaiport_core::terminal::TerminalError::FullScreenActive)
        );
        let screen = t.send_input(Some("q"), None).await.unwrap();
        assert!(!screen.alternate_screen, "{}", screen.screen);
    } else {
        panic!("less is not installed; scripts/test.sh installs it");
    }
    if let Some(vi) = find("vi") {
        let opened = run(
            t,
            &format!("{} -u NONE kp_vi.txt", vi.display()),
            10 * SECOND,
        )
        .await;
        assert_eq!(opened.status, CommandStatus::AwaitingInput, "{opened:?}");
        t.send_input(None, Some(Key::Esc)).await.unwrap();
        let screen = t.send_input(Some(":q!"), Some(Key::Enter)).await.unwrap();
        assert!(!screen.alternate_screen, "{}", screen.screen);
        assert_eq!(
            short(&run(t, "echo after-vi", 10 * SECOND).await).1,
            "after-vi"
        );
    } else {
        panic!("vi is not installed; scripts/test.sh installs it");
    }
}

async fn shell_exit(t: &Terminal) {
    let exit = run(t, "exit 4", 10 * SECOND).await;
    assert_eq!(exit.status, CommandStatus::Interrupted);
    assert!(exit.note.unwrap().contains("the shell has exited"));
    assert!(matches!(t.closed(), Some(ShellClosed::Exited { .. })));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_bash_heuristic_only() {
    let Some(local) = bash(ShellIntegrationMode::Off).await else {
        return;
    };
    let t = &local.terminal;
    assert!(!t.integration_active());
    let h = Detection::Heuristic;
    assert_eq!(
        short(&run(t, "echo hi", 10 * SECOND).await),
        (CommandStatus::Completed, "hi", None, h)
    );
    assert_eq!(
        short(&run(t, "false", 10 * SECOND).await),
        (CommandStatus::Completed, "", None, h)
    );
    let seq = run(t, "seq 1 20000", 60 * SECOND).await;
    assert_eq!(seq.output.lines().count(), 20_000);
    common_interactions(t, h).await;
    shell_exit(t).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_sh_gets_marks_from_its_prompt_and_no_trace() {
    let local = sh().await;
    let t = &local.terminal;
    assert_eq!(t.shell_kind(), Some(ShellKind::Sh));
    assert!(t.integration_active());
    assert_eq!(t.screen().screen, "sh-test$");
    assert!(!local.shown_text().contains("__kp"));
    let i = Detection::ShellIntegration;
    let r = run(t, "echo hi; echo there", 10 * SECOND).await;
    assert_eq!(
        short(&r),
        (CommandStatus::Completed, "hi\nthere", Some(0), i)
    );
    assert_eq!(
        short(&run(t, "(exit 4)", 10 * SECOND).await),
        (CommandStatus::Completed, "", Some(4), i)
    );
    // No `C` mark in sh: a command still running after its timeout must not look like a prompt.
    // It runs until the test lets it end, so it is surely still running when refused.
    let slow = run(t, "until [ -e go ]; do sleep 0.1; done; echo slept", SECOND).await;
    assert_eq!(slow.status, CommandStatus::TimedOut);
    let refused = t
        .run_command("echo too-early", 2 * SECOND, CancellationToken::new())
        .await;
    assert!(refused.is_err(), "{refused:?}");
    std::fs::write(local._home.path().join("go"), "").unwrap();
    local.wait_shown("\nslept").await;
    let after = run(t, "echo after", 10 * SECOND).await;
    assert_eq!(
        short(&after),
        (CommandStatus::Completed, "after", Some(0), i)
    );
    assert!(!local.shown_text().contains("too-early"));
    t.close().await;
    assert!(t.closed().is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_zsh_injected_integration() {
    let zsh = find("zsh").expect("zsh is not installed; scripts/test.sh installs it");
    let local = start(
        &zsh,
        ".zshrc",
        "PS1='kp@zsh %~ %# '\nHISTFILE=$HOME/.zsh_history\n",
        ShellIntegrationMode::Inject,
    )
    .await;
    let t = &local.terminal;
    assert_eq!(t.shell_kind(), Some(ShellKind::Zsh));
    assert!(t.integration_active());
    assert_eq!(short(&run(t, "(exit 3)", 10 * SECOND).await).2, Some(3));
    assert_eq!(run(t, "echo hi", 10 * SECOND).await.output, "hi");
    let history = run(t, "fc -l 1", 10 * SECOND).await;
    assert!(!history.output.contains("__kp"), "{}", history.output);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_fish_injected_integration() {
    let fish = find("fish").expect("fish is not installed; scripts/test.sh installs it");
    let local = start(
        &fish,
        ".config/fish/config.fish",
        "",
        ShellIntegrationMode::Inject,
    )
    .await;
    let t = &local.terminal;
    assert_eq!(t.shell_kind(), Some(ShellKind::Fish));
    assert!(t.integration_active());
    assert_eq!(short(&run(t, "false", 10 * SECOND).await).2, Some(1));
    assert_eq!(run(t, "echo hi", 10 * SECOND).await.output, "hi");
}

/// Marks printed by output (not carrying the session secret) end nothing, are
/// shown as text, and the secret never reaches what the model is given.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_printed_marks_do_not_end_a_command() {
    let Some(local) = bash(ShellIntegrationMode::Inject).await else {
        return;
    };
    let t = &local.terminal;
    let si = Detection::ShellIntegration;
    let faked = run(
        t,
        r"printf '\033]133;D;0\007\033]133;A\007'; sleep 2; echo REALEND; (exit 5)",
        20 * SECOND,
    )
    .await;
    assert_eq!(
        short(&faked),
        (
            CommandStatus::Completed,
            r"\e]133;D;0\a\e]133;A\aREALEND",
            Some(5),
            si
        )
    );
    // The same from a file, with a guessed secret field.
    run(
        t,
        r"printf 'x\033]133;D;0;kp=0123\007\033]133;A\033\\y\n' > kp_marks.txt",
        10 * SECOND,
    )
    .await;
    let cat = run(t, "cat kp_marks.txt; sleep 1; echo after", 20 * SECOND).await;
    assert_eq!(
        short(&cat),
        (
            CommandStatus::Completed,
            "x\\e]133;D;0;kp=…\\a\\e]133;A\\ay\nafter",
            Some(0),
            si
        )
    );
    // Where the shell keeps the secret, the model sees a placeholder.
    let shown = run(t, "declare -f __kp_pre; echo \"$PS1\"", 10 * SECOND).await;
    assert!(
        shown.output.contains("[kaiport secret]"),
        "{}",
        shown.output
    );
    let hex32 = regex::Regex::new("[0-9a-f]{32}").unwrap();
    assert!(!hex32.is_match(&shown.output), "{}", shown.output);
    assert!(!hex32.is_match(&t.screen().screen), "{}", t.screen().screen);
    let history = run(t, "history", 10 * SECOND).await;
    assert!(
        !history.output.contains("__kp_installed"),
        "{}",
        history.output
    );
    assert!(!hex32.is_match(&history.output), "{}", history.output);
}

/// With integration, a prompt-looking pause in the output is not the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_prompt_looking_output_waits_for_the_marks() {
    let Some(local) = bash(ShellIntegrationMode::Inject).await else {
        return;
    };
    let t = &local.terminal;
    // What comes after the pause shows the end came from the marks, not from the pause.
    for (command, output) in [
        (
            "printf 'downloading 45%%'; sleep 3; printf ' done'",
            "downloading 45% done",
        ),
        (
            "printf 'root@box:~# '; sleep 3; echo done",
            "root@box:~# done",
        ),
    ] {
        let result = run(t, command, 20 * SECOND).await;
        assert_eq!(
            short(&result),
            (
                CommandStatus::Completed,
                output,
                Some(0),
                Detection::ShellIntegration
            ),
            "{command}"
        );
    }
    assert!(t.integration_active());
}

/// At a prompt, the line Enter runs is read off the screen after the keys
/// before it; keys that could run an unreadable line are flagged; inside a program nothing is
/// staged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_staged_input_reads_the_line_enter_runs() {
    use kaiport_core::terminal::PromptInput;
    let Some(local) = bash(ShellIntegrationMode::Inject).await else {
        return;
    };
    let t = &local.terminal;
    run(t, "touch kp_v", 10 * SECOND).await;
    // Ctrl-A then `r`; Ctrl-F Ctrl-D; Ctrl-V: all give `rm kp_v`.
    for text in ["m kp_v\u{1}r", "rxm kp_v\u{1}\u{6}\u{4}", "r\u{16}m kp_v"] {
        let staged = t.stage_input(Some(text), Some(Key::Enter)).await.unwrap();
        assert_eq!(
            staged.found,
            PromptInput::Runs {
                line: "rm kp_v".to_owned()
            },
            "{text:?}"
        );
        t.abandon_staged(&staged).await;
        local.wait_for_empty_prompt().await;
    }
    // Nothing ran, and the prompt is clean again.
    assert_eq!(
        short(&run(t, "ls kp_v", 10 * SECOND).await).1,
        "kp_v",
        "the staged lines must not have run"
    );
    // Keys over two calls: the second call's Enter runs what is on the line.
    let first = t
        .stage_input(Some("m kp_v"), Some(Key::Home))
        .await
        .unwrap();
    assert_eq!(first.found, PromptInput::NothingRuns);
    t.send_staged(&first).await.unwrap();
    let second = t.stage_input(Some("r"), Some(Key::Enter)).await.unwrap();
    assert_eq!(
        second.found,
        PromptInput::Runs {
            line: "rm kp_v".to_owned()
        }
    );
    t.abandon_staged(&second).await;
    local.wait_for_empty_prompt().await;
    // Unreadable: keys after Enter, Esc, Ctrl-X, a history search (Ctrl-R).
    for (text, key) in [
        ("echo a\rrm kp_v", Some(Key::Enter)),
        ("echo a", Some(Key::Esc)),
        ("\u{18}\u{5}", None),
        ("\u{12}kp_v", Some(Key::Enter)),
    ] {
        let staged = t.stage_input(Some(text), key).await.unwrap();
        assert!(
            matches!(staged.found, PromptInput::Unknown { .. }),
            "{text:?}: {staged:?}"
        );
    }
    // An allowed line runs when sent, and only if unchanged.
    staged_echo_runs(t, "bash").await;
    // Inside a program the keys are not staged.
    let read = run(t, "read answer", 10 * SECOND).await;
    assert_eq!(read.status, CommandStatus::AwaitingInput);
    let answer = t.stage_input(Some("rm"), Some(Key::Enter)).await.unwrap();
    assert_eq!(answer.found, PromptInput::NotAtPrompt);
    t.send_staged(&answer).await.unwrap();
    assert_eq!(
        short(&run(t, "echo \"$answer\"", 10 * SECOND).await).1,
        "rm"
    );
}

/// Every shell kaiport integrates with (and bash without integration) reads the keys Pilot types
/// before Enter, shows the line they make, and takes it back clean on Ctrl-C; an allowed line
/// then runs as it was read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_staged_input_in_every_shell() {
    use kaiport_core::terminal::PromptInput;
    let zsh = find("zsh").expect("zsh is not installed; scripts/test.sh installs it");
    let fish = find("fish").expect("fish is not installed; scripts/test.sh installs it");
    let sh = find("sh").expect("sh is not installed; scripts/test.sh installs it");
    let bash = find("bash").expect("bash is not installed; scripts/test.sh installs it");
    let shells = [
        (
            zsh,
            ".zshrc",
            "PS1='kp@zsh %~ %# '\n",
            ShellIntegrationMode::Inject,
        ),
        (
            fish,
            ".config/fish/config.fish",
            "",
            ShellIntegrationMode::Inject,
        ),
        (
            sh,
            ".shrc",
            "PS1='sh-test$ '\n",
            ShellIntegrationMode::Inject,
        ),
        (bash, ".bashrc", BASHRC, ShellIntegrationMode::Off),
    ];
    for (shell, rc_name, rc, mode) in shells {
        let local = start(&shell, rc_name, rc, mode).await;
        let t = &local.terminal;
        let name = shell.display().to_string();
        // bash edits with Ctrl-A; the others get the plain line (in zsh and fish a line with
        // text after the cursor is not read, and sh has no line editor).
        let (typed, line) = if name.ends_with("bash") {
            ("m kp_v\u{1}r", "rm kp_v")
        } else {
            ("rm kp_v", "rm kp_v")
        };
        let staged = t.stage_input(Some(typed), Some(Key::Enter)).await.unwrap();
        assert_eq!(
            staged.found,
            PromptInput::Runs {
                line: line.to_owned()
            },
            "{name}"
        );
        t.abandon_staged(&staged).await;
        let after = run(t, "echo kp-after", 10 * SECOND).await;
        assert_eq!(after.status, CommandStatus::Completed, "{name}: {after:?}");
        assert_eq!(after.output, "kp-after", "{name}: {after:?}");
        staged_echo_runs(t, &name).await;
        t.close().await;
    }
}

/// `echo kp-ok` staged with Enter is read as that line, and runs when sent.
async fn staged_echo_runs(t: &Terminal, shell: &str) {
    use kaiport_core::terminal::PromptInput;
    let echo = t
        .stage_input(Some("echo kp-ok"), Some(Key::Enter))
        .await
        .unwrap();
    assert_eq!(
        echo.found,
        PromptInput::Runs {
            line: "echo kp-ok".to_owned()
        },
        "{shell}"
    );
    let screen = t.send_staged(&echo).await.unwrap();
    assert!(
        screen.screen.contains("\nkp-ok"),
        "{shell}: {}",
        screen.screen
    );
}
