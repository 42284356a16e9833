//! Automatic reconnect (`ConnectionState::Reconnecting`, docs/architecture.md "When a
//! connection drops") against a real sshd: a terminal whose connection is lost comes back by
//! itself with its output kept; a shell that exits stays closed; a changed host key stops the
//! attempts with `Failed`; `Op::CancelReconnect` stops them; keepalives find a silent server
//! (frozen, or behind a cut link in a network namespace) within the dead-peer time; a kept
//! session goes on in tmux, or in screen without tmux, and a server with neither says so.

use kaiport_core::EngineConfig;
use kaiport_protocol::*;
use kaiport_tests::engine_harness::EngineHarness;
use kaiport_tests::sshd::{LoginShell, Multiplexers, Sshd, SshdConfig};
use serde_json::json;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);

/// A terminal tab on `sshd` whose engine was configured by `configure`.
async fn open(sshd: &Sshd, configure: impl FnOnce(&mut EngineConfig)) -> EngineHarness {
    open_keeping(sshd, false, configure).await
}

/// [`open`], with the session kept on the server when `keep_session`.
async fn open_keeping(
    sshd: &Sshd,
    keep: bool,
    configure: impl FnOnce(&mut EngineConfig),
) -> EngineHarness {
    let (mut target, known_hosts) = super::engine::ssh_target(sshd);
    if let TabTarget::Ssh { keep_session, .. } = &mut target {
        *keep_session = keep;
    }
    EngineHarness::open_configured(
        target,
        Some(known_hosts),
        ConnectionSettings::default(),
        Mode::Autopilot,
        None,
        |config, _| configure(config),
    )
    .await
    .unwrap()
}

/// A tab whose attempts come 100, 200, 400 ms… apart.
async fn open_quick(sshd: &Sshd) -> EngineHarness {
    open(sshd, |config| {
        config.reconnect.first_delay = Duration::from_millis(100);
    })
    .await
}

/// A tab whose engine counts a server silent for 2 s as gone, and tries again quickly.
async fn open_watchful(sshd: &Sshd) -> EngineHarness {
    open(sshd, |config| {
        config.reconnect.dead_peer = Duration::from_secs(2);
        config.reconnect.first_delay = Duration::from_millis(100);
    })
    .await
}

/// Waits for the tab's second `Connected` and proves its shell takes commands.
async fn back_again(tab: &EngineHarness) {
    nth_state(tab, "connected again", 2, connected).await;
    let result = tab
        .ok("run_command", json!({"command": "echo back"}))
        .await
        .unwrap();
    assert_eq!(result["output"].as_str().unwrap().trim(), "back");
}

/// The tab's known_hosts file (see `engine::ssh_target`).
fn known_hosts(sshd: &Sshd) -> std::path::PathBuf {
    sshd.dir().join("engine_known_hosts")
}

/// The error of the tab's first `Failed`, once there is one; no prompt may have been shown.
async fn failed_without_asking(tab: &EngineHarness) -> String {
    let failed = nth_state(tab, "failed", 1, |state| {
        matches!(state, ConnectionState::Failed { .. })
    })
    .await;
    assert!(
        !tab.events()
            .iter()
            .any(|event| matches!(event, Event::PromptRequested { .. }))
    );
    match failed {
        ConnectionState::Failed { error } => error,
        _ => unreachable!(),
    }
}

fn states(tab: &EngineHarness) -> Vec<ConnectionState> {
    tab.events()
        .into_iter()
        .filter_map(|event| match event {
            Event::ConnectionState { state, .. } => Some(state),
            _ => None,
        })
        .collect()
}

/// Waits for the `n`th (from 1) connection state that `wanted` matches.
async fn nth_state(
    tab: &EngineHarness,
    what: &str,
    n: usize,
    wanted: impl Fn(&ConnectionState) -> bool,
) -> ConnectionState {
    tab.event(what, WAIT, |_| {
        states(tab).iter().filter(|state| wanted(state)).count() >= n
    })
    .await
    .unwrap();
    states(tab)
        .into_iter()
        .filter(|state| wanted(state))
        .nth(n - 1)
        .unwrap()
}

fn reconnecting(state: &ConnectionState) -> bool {
    matches!(state, ConnectionState::Reconnecting { .. })
}

fn connected(state: &ConnectionState) -> bool {
    matches!(state, ConnectionState::Connected)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lost_connection_comes_back_by_itself_with_the_output_kept() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, |_| {}).await;
    tab.ok("run_command", json!({"command": "echo before-$((6 * 7))"}))
        .await
        .unwrap();
    // The processes serving the tab die; sshd itself still takes logins.
    sshd.kill_connections();
    let ConnectionState::Reconnecting {
        attempt, reason, ..
    } = nth_state(&tab, "reconnecting", 1, reconnecting).await
    else {
        unreachable!()
    };
    assert_eq!(attempt, 1);
    assert!(reason.contains("connection was lost"), "{reason}");
    nth_state(&tab, "connected again", 2, connected).await;
    let result = tab
        .ok("run_command", json!({"command": "echo after-$((6 * 7))"}))
        .await
        .unwrap();
    assert_eq!(result["output"].as_str().unwrap().trim(), "after-42");
    // The tab's output, as a page replays it, still has what came before the drop.
    let text = tab.terminal_text();
    let (before, after) = (text.find("before-42"), text.find("after-42"));
    assert!(before.is_some() && before < after, "{text}");
    // And says the shell after it is a new one.
    let note = text.find("A new shell will start here");
    assert!(before < note && note < after, "{text}");
    assert!(
        !states(&tab)
            .iter()
            .any(|state| matches!(state, ConnectionState::Disconnected { .. })),
        "{:?}",
        states(&tab)
    );
    assert!(!tab.engine.tab_info(&tab.tab).unwrap().live.reconnecting);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_shell_that_exits_is_not_reconnected() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, |_| {}).await;
    tab.type_line("exit").await;
    let ConnectionState::Disconnected { reason } = nth_state(&tab, "the shell's end", 1, |state| {
        matches!(state, ConnectionState::Disconnected { .. })
    })
    .await
    else {
        unreachable!()
    };
    assert!(reason.contains("exited"), "{reason}");
    // Decided when the end was told: nothing else follows it.
    assert!(!states(&tab).iter().any(reconnecting), "{:?}", states(&tab));
    assert!(!tab.terminal_text().contains("[kaiport]"));
    assert!(!tab.engine.tab_info(&tab.tab).unwrap().live.reconnecting);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_host_key_changed_between_attempts_stops_them_as_failed() {
    let sshd = Sshd::start().unwrap();
    let tab = open_quick(&sshd).await;
    // known_hosts now has another key for this server, as after someone took its address.
    let other = std::fs::read_to_string(sshd.keys.unauthorized.with_extension("pub")).unwrap();
    let mut fields = other.split_whitespace();
    let (algo, blob) = (fields.next().unwrap(), fields.next().unwrap());
    std::fs::write(
        known_hosts(&sshd),
        format!("[127.0.0.1]:{} {algo} {blob}\n", sshd.port()),
    )
    .unwrap();
    sshd.kill_connections();
    let error = failed_without_asking(&tab).await;
    assert!(error.contains("changed"), "{error}");
    assert!(
        tab.events()
            .iter()
            .any(|event| matches!(event, Event::HostKeyChanged { .. }))
    );
    // One attempt: a changed key does not get better by waiting.
    assert_eq!(states(&tab).iter().filter(|s| reconnecting(s)).count(), 1);
    assert!(!tab.engine.tab_info(&tab.tab).unwrap().live.reconnecting);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_host_key_stops_the_attempts_without_asking() {
    let sshd = Sshd::start().unwrap();
    let tab = open_quick(&sshd).await;
    std::fs::write(known_hosts(&sshd), "").unwrap();
    sshd.kill_connections();
    let error = failed_without_asking(&tab).await;
    assert!(error.contains("not trusted"), "{error}");
}

#[tokio::test(flavor = "multi_thread")]
async fn cancel_during_the_wait_leaves_the_tab_disconnected() {
    let mut sshd = Sshd::start().unwrap();
    let tab = open_quick(&sshd).await;
    // The whole server goes: every attempt fails, and they go on.
    sshd.kill();
    let ConnectionState::Reconnecting { reason, .. } =
        nth_state(&tab, "the second attempt's wait", 2, reconnecting).await
    else {
        unreachable!()
    };
    assert!(reason.contains("cannot connect"), "{reason}");
    // Pilot sees it in its facts, and a call fails at once saying so.
    let info = tab.engine.tab_info(&tab.tab).unwrap();
    assert!(info.live.reconnecting && !info.live.connected);
    let outcome = tab.call("run_command", json!({"command": "true"})).await;
    let outcome = outcome.unwrap();
    assert_eq!(outcome.status, ToolStatus::Error);
    assert!(
        outcome
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("connection to the server was lost"),
        "{outcome:?}"
    );
    tab.engine
        .handle(Op::CancelReconnect {
            tab: tab.tab.clone(),
        })
        .await;
    let ConnectionState::Disconnected { reason } = nth_state(&tab, "disconnected", 1, |state| {
        matches!(state, ConnectionState::Disconnected { .. })
    })
    .await
    else {
        unreachable!()
    };
    assert!(reason.contains("cannot connect"), "{reason}");
    let after_cancel = states(&tab).len();
    // Attempts were 100, 200, 400 ms apart: a few of those go by without one.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(states(&tab).len(), after_cancel, "{:?}", states(&tab));
    assert!(!tab.engine.tab_info(&tab.tab).unwrap().live.reconnecting);
    // Cancelling again says there is nothing to cancel.
    tab.engine
        .handle(Op::CancelReconnect {
            tab: tab.tab.clone(),
        })
        .await;
    tab.event("the refusal", WAIT, |event| {
        matches!(event, Event::Error { message, .. } if message.contains("not reconnecting"))
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn keepalives_find_a_silent_server_within_the_dead_peer_time() {
    let sshd = Sshd::start().unwrap();
    let tab = open_watchful(&sshd).await;
    // The processes serving the tab stop answering and close nothing, as behind a dead link.
    sshd.freeze_connections();
    let ConnectionState::Reconnecting { reason, .. } =
        nth_state(&tab, "the drop found by keepalives", 1, reconnecting).await
    else {
        unreachable!()
    };
    assert!(reason.contains("connection was lost"), "{reason}");
    // sshd itself was not frozen: the tab logs in again.
    back_again(&tab).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cut_link_is_found_by_keepalives_and_the_tab_comes_back_with_it() {
    // Declared first, dropped last: sshd stops before its namespace goes.
    let net = kaiport_tests::netns::TestNet::create().unwrap();
    let sshd = Sshd::start_in(&net).unwrap();
    let tab = open_watchful(&sshd).await;
    tab.ok("run_command", json!({"command": "echo over-the-link"}))
        .await
        .unwrap();
    net.link(false).unwrap();
    let ConnectionState::Reconnecting { reason, .. } =
        nth_state(&tab, "the drop found by keepalives", 1, reconnecting).await
    else {
        unreachable!()
    };
    assert!(reason.contains("connection was lost"), "{reason}");
    // While the link is down, attempts fail and go on.
    nth_state(&tab, "a failed attempt", 2, reconnecting).await;
    assert_eq!(states(&tab).iter().filter(|s| connected(s)).count(), 1);
    net.link(true).unwrap();
    back_again(&tab).await;
}

/// A tab whose shell the server keeps in tmux, or screen ("keep the session on the server").
async fn open_kept(sshd: &Sshd) -> EngineHarness {
    // A session a failed run left (the harness's tab id is always the same) would be attached.
    let leftovers = [
        (
            "tmux",
            &["-L", "kaiport", "kill-session", "-t", "kaiport-t1"][..],
        ),
        ("screen", &["-S", "kaiport-t1", "-X", "quit"][..]),
    ];
    for (program, args) in leftovers {
        if let Ok(mut command) = kaiport_tests::command_as(sshd.user(), program) {
            let _ = command
                .args(args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        }
    }
    open_keeping(sshd, true, |config| {
        config.reconnect.first_delay = Duration::from_millis(100);
    })
    .await
}

/// With the session kept in tmux, a command started before the drop goes on running and
/// prints into the same tab after the reconnect; the shell integration works inside tmux
/// (its marks passed through, in order with the text), before and after.
#[tokio::test(flavor = "multi_thread")]
async fn a_kept_session_runs_on_through_a_drop_and_is_attached_again() {
    let sshd = Sshd::start().unwrap();
    let tab = open_kept(&sshd).await;
    integrated(
        &tab,
        "seq 1 5; echo in-${TMUX:+tmux}",
        "1\n2\n3\n4\n5\nin-tmux",
    )
    .await;
    goes_on_through_a_drop(&tab, 2, "finished", || sshd.kill_connections()).await;
    integrated(&tab, "echo again-$((6 * 7))", "again-42").await;
    // The folder the shell reports inside tmux is taken as the tab's.
    tab.ok("run_command", json!({"command": "cd /tmp"}))
        .await
        .unwrap();
    let cwd = |event: &Event| matches!(event, Event::TerminalCwd { cwd, .. } if cwd == "/tmp");
    tab.event("a TerminalCwd for /tmp", WAIT, cwd)
        .await
        .unwrap();
    exit_ends_the_session(&tab).await;
}

/// A kept session through a drop (`cut` ends the connection): `echo WORD` after `seconds` of
/// sleep, started before it and still running, prints WORD into the same tab after the
/// reconnect, after the note that it is the same shell; the screen the multiplexer draws again
/// shows none of the lines kaiport typed hidden when it made the session (the detection probe,
/// the integration snippet and its secret).
async fn goes_on_through_a_drop(tab: &EngineHarness, seconds: u32, word: &str, cut: impl FnOnce()) {
    // Typed as `wo''rd`: the word itself is not on the line.
    let (head, tail) = word.split_at(2);
    let quoted = format!("{head}''{tail}");
    tab.type_line(&format!("sleep {seconds}; echo {quoted}"))
        .await;
    tab.output_shows(&quoted, WAIT).await.unwrap();
    cut();
    let dropped_at = tab.terminal_text().len();
    nth_state(tab, "connected again", 2, connected).await;
    tab.output_shows(word, WAIT).await.unwrap();
    let text = tab.terminal_text();
    let note = text
        .find("reconnecting to the same shell")
        .unwrap_or_else(|| panic!("{text}"));
    let printed = text.rfind(word).unwrap();
    assert!(note < printed && dropped_at <= printed, "{text}");
    assert!(!text.contains("A new shell will start here"), "{text}");
    let redrawn = &text[dropped_at..];
    assert!(
        !redrawn.contains("__kp"),
        "the reattached screen shows kaiport's hidden lines: {redrawn}"
    );
}

/// Runs `command` as Pilot does: it prints `output`, its end told by the shell integration.
async fn integrated(tab: &EngineHarness, command: &str, output: &str) {
    assert_eq!(ran(tab, command, output).await, "shell_integration");
}

/// Runs `command` as Pilot does: it prints `output`; returns how its end was detected.
async fn ran(tab: &EngineHarness, command: &str, output: &str) -> String {
    let result = tab
        .ok("run_command", json!({ "command": command }))
        .await
        .unwrap();
    assert_eq!(
        result["output"].as_str().unwrap().trim(),
        output,
        "{result}"
    );
    result["detection"].as_str().unwrap_or_default().to_owned()
}

/// The shell's own end ends the session on the server, and the tab's connection.
async fn exit_ends_the_session(tab: &EngineHarness) {
    tab.type_line("exit").await;
    nth_state(tab, "the shell's end", 1, |state| {
        matches!(state, ConnectionState::Disconnected { .. })
    })
    .await;
}

/// Without tmux, a kept session runs in GNU screen: a command started before the drop prints
/// `done` into the same tab after the reconnect, and the shell integration works there before
/// and after (marks and OSC 7 passed through screen's DCS), its end, exit status and folder
/// told. A dead screen of the same name (screen killed, its socket left behind) is not taken
/// for the kept shell. (Its own login user: it never shares a session with the tmux tests.)
#[tokio::test(flavor = "multi_thread")]
async fn without_tmux_a_kept_session_runs_in_screen_through_a_drop() {
    let sshd = Sshd::start_with(SshdConfig {
        multiplexers: Multiplexers::ScreenOnly,
        ..SshdConfig::default()
    })
    .unwrap();
    leave_a_dead_screen(&sshd, "kaiport-t1");
    let tab = open_kept(&sshd).await;
    let probe = "command -v tmux || echo no-tmux; echo in-${STY:+screen}";
    integrated(&tab, probe, "no-tmux\nin-screen").await;
    exits_with(&tab, "sh -c 'exit 3'", 3).await;
    reports_folder(&tab, "/tmp").await;
    let parent = sshd.writable_folder().unwrap();
    reports_a_long_folder(&tab, parent.path()).await;
    goes_on_through_a_drop(&tab, 3, "done", || sshd.drop_connections()).await;
    // Attached again: the same shell's marks, carrying the secret it was given.
    let again = "echo again-$((6 * 7))-${STY:+screen}";
    integrated(&tab, again, "again-42-screen").await;
    exits_with(&tab, "false", 1).await;
    reports_folder(&tab, "/var/tmp").await;
    exit_ends_the_session(&tab).await;
}

/// Leaves a screen session named `name` of `sshd`'s user dead, as after a crash: its screen
/// killed before its window (whose end would end it cleanly), its socket listed as
/// `(Dead ???)` once the process is gone. Each step waits for what it needs (a loaded machine
/// lists a new session as attached until screen has detached it, and forks its window late).
fn leave_a_dead_screen(sshd: &Sshd, name: &str) {
    let script = format!(
        "screen -dmS {name} sleep 60 || exit 1; \
         for _ in $(seq 200); do \
         pid=$(screen -ls | sed -n \"s/^[[:space:]]*\\([0-9]*\\)[.]{name}[[:space:]].*Detached.*/\\1/p\"); \
         [ -n \"$pid\" ] && child=$(pgrep -P \"$pid\") && break; sleep 0.05; done; \
         [ -n \"$pid\" ] && [ -n \"$child\" ] || {{ echo \"no detached {name} with a window\"; screen -ls; exit 1; }}; \
         kill -9 \"$pid\"; kill -9 $child; \
         for _ in $(seq 200); do \
         screen -ls | grep -q \"^[[:space:]]*$pid[.]{name}[[:space:]].*Dead\" && exit 0; \
         sleep 0.05; done; screen -ls; exit 1"
    );
    let status = kaiport_tests::command_as(sshd.user(), "sh")
        .unwrap()
        .args(["-c", &script])
        .status()
        .unwrap();
    assert!(status.success(), "no dead screen {name} was left");
}

/// Runs `command` as Pilot does: its end told by the shell integration, with `code`.
async fn exits_with(tab: &EngineHarness, command: &str, code: i64) {
    let result = tab
        .ok("run_command", json!({ "command": command }))
        .await
        .unwrap();
    assert_eq!(result["detection"], "shell_integration", "{result}");
    assert_eq!(result["exit_code"], code, "{result}");
}

/// `cd folder` in the shell: the folder it reports is taken as the tab's.
async fn reports_folder(tab: &EngineHarness, folder: &str) {
    integrated(tab, &format!("cd {folder} && pwd"), folder).await;
    let cwd = |event: &Event| matches!(event, Event::TerminalCwd { cwd, .. } if cwd == folder);
    tab.event(&format!("a TerminalCwd for {folder}"), WAIT, cwd)
        .await
        .unwrap();
}

/// A folder whose URL is longer than screen passes on in one piece (2 KiB, with characters to
/// encode) is told all the same, and the mark before it still ends the command.
async fn reports_a_long_folder(tab: &EngineHarness, parent: &std::path::Path) {
    let mut folder = parent.to_path_buf();
    for i in 0..16 {
        folder.push(format!("{i}-folder-é-{}", "x".repeat(150)));
    }
    std::fs::create_dir_all(&folder).unwrap();
    let folder = folder.to_str().unwrap().to_owned();
    exits_with(tab, &format!("cd '{folder}'"), 0).await;
    let cwd = |event: &Event| matches!(event, Event::TerminalCwd { cwd, .. } if *cwd == folder);
    tab.event("a TerminalCwd for the long folder", WAIT, cwd)
        .await
        .unwrap();
    exits_with(tab, "cd /tmp", 0).await;
}

/// With neither tmux nor screen, the tab says its shell cannot be kept and why, and the shell
/// works all the same.
#[tokio::test(flavor = "multi_thread")]
async fn without_tmux_or_screen_the_tab_says_its_shell_cannot_be_kept() {
    let sshd = Sshd::start_with(SshdConfig {
        multiplexers: Multiplexers::Neither,
        ..SshdConfig::default()
    })
    .unwrap();
    let tab = open_kept(&sshd).await;
    tab.output_shows(
        "Neither tmux nor screen is installed on this server, so this shell cannot be kept: \
         it ends when the connection drops.",
        WAIT,
    )
    .await
    .unwrap();
    let command = "echo plain-${STY:+screen}${TMUX:+tmux}-$((6 * 7))";
    integrated(&tab, command, "plain--42").await;
}

/// A kept session whose login shell is `shell` (bash: the test above, whose user and session
/// name it would share): its shell integration works inside tmux, the output of each command
/// whole and in place, the folder reported.
async fn a_kept_session_works_in(shell: LoginShell) {
    let sshd = Sshd::start_with(SshdConfig {
        login_shell: shell,
        ..SshdConfig::default()
    })
    .unwrap();
    let tab = open_kept(&sshd).await;
    for (command, output) in [
        (
            "seq 1 3; test -n \"$TMUX\" && echo in-tmux",
            "1\n2\n3\nin-tmux",
        ),
        ("cd /tmp && pwd", "/tmp"),
        ("printf '%s\\n' a b", "a\nb"),
    ] {
        integrated(&tab, command, output).await;
    }
    // The folder the shell reports inside tmux is taken as the tab's.
    let cwd = |event: &Event| matches!(event, Event::TerminalCwd { cwd, .. } if cwd == "/tmp");
    tab.event("a TerminalCwd for /tmp", WAIT, cwd)
        .await
        .unwrap_or_else(|error| panic!("{shell:?}: {error}"));
    exit_ends_the_session(&tab).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_kept_session_works_in_zsh() {
    a_kept_session_works_in(LoginShell::Zsh).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_kept_session_works_in_fish() {
    a_kept_session_works_in(LoginShell::Fish).await;
}
