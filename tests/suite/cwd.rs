//! The shell's current folder (OSC 7 from the integration snippets) against a real sshd, for
//! bash, zsh and fish login shells: `cd` moves it, paths with spaces and non-ASCII survive the
//! percent-encoding, and output that prints its own OSC 7 (with or without a fake mark) moves
//! nothing. A snippet's `{{cwd}}` is that folder.

use kaiport_protocol::*;
use kaiport_tests::engine_harness::EngineHarness;
use kaiport_tests::sshd::{LoginShell, Sshd, SshdConfig};
use serde_json::json;
use std::time::Duration;

const WITHIN: Duration = Duration::from_secs(30);

/// Waits for the tab's `TerminalCwd` event that says `cwd`.
async fn cwd_event(tab: &EngineHarness, cwd: &str) {
    let wanted = |event: &Event| matches!(event, Event::TerminalCwd { tab: at, cwd: said } if *at == tab.tab && said == cwd);
    tab.event(&format!("a TerminalCwd for {cwd:?}"), WITHIN, wanted)
        .await
        .unwrap_or_else(|error| panic!("{error}; events: {:?}", cwd_events(tab)));
}

fn cwd_events(tab: &EngineHarness) -> Vec<String> {
    tab.events()
        .into_iter()
        .filter_map(|event| match event {
            Event::TerminalCwd { cwd, .. } => Some(cwd),
            _ => None,
        })
        .collect()
}

async fn run(tab: &EngineHarness, command: &str) -> serde_json::Value {
    let result = tab
        .ok("run_command", json!({"command": command}))
        .await
        .unwrap();
    assert_eq!(result["status"], "completed", "{command}: {result}");
    result
}

async fn follows_the_folder(shell: LoginShell) {
    let sshd = Sshd::start_with(SshdConfig {
        login_shell: shell,
        ..SshdConfig::default()
    })
    .unwrap();
    let tab = EngineHarness::open_sshd(&sshd, ConnectionSettings::default(), Mode::Autopilot)
        .await
        .unwrap();
    // The first prompt after the integration is set up reports the home folder.
    let home = run(&tab, "pwd").await["output"]
        .as_str()
        .unwrap()
        .trim()
        .to_owned();
    cwd_event(&tab, &home).await;

    run(&tab, "cd /tmp").await;
    cwd_event(&tab, "/tmp").await;
    let live = tab.engine.tab_info(&tab.tab).unwrap().live;
    assert_eq!(live.cwd.as_deref(), Some("/tmp"), "{shell:?}");

    // Spaces, non-ASCII and a percent sign, typed as printf escapes (the shell's locale may
    // not be UTF-8).
    let name = format!("/tmp/kp cwd \u{fc}%41 {shell:?} {}", std::process::id());
    let typed = format!(
        r#""$(printf '/tmp/kp cwd \xc3\xbc%%41 {shell:?} {}')""#,
        std::process::id()
    );
    run(&tab, &format!("mkdir -p {typed}")).await;
    run(&tab, &format!("cd {typed}")).await;
    cwd_event(&tab, &name).await;

    // Output that prints OSC 7, alone or behind a mark without the session's secret.
    run(&tab, r"printf '\x1b]7;file://evil/etc\x07'").await;
    // The same first in a long output: the shell's own OSC 7 at the next prompt comes in a
    // later read, so the printed one cannot hide behind it.
    run(
        &tab,
        r"printf '\x1b]7;file://evil/etc\x07'; head -c 300000 /dev/zero | tr '\0' x; echo",
    )
    .await;
    run(
        &tab,
        r"printf '\x1b]133;D;0\x07\x1b]7;file://evil/usr\x07x\n'",
    )
    .await;
    run(&tab, "cd /").await;
    cwd_event(&tab, "/").await;
    let seen = cwd_events(&tab);
    assert!(
        !seen.iter().any(|cwd| cwd == "/etc" || cwd == "/usr"),
        "{shell:?}: {seen:?}"
    );
    run(&tab, &format!("rm -rf {typed}")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cwd_follows_cd_in_bash() {
    follows_the_folder(LoginShell::Bash).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cwd_follows_cd_in_zsh() {
    follows_the_folder(LoginShell::Zsh).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn cwd_follows_cd_in_fish() {
    follows_the_folder(LoginShell::Fish).await;
}

/// The snippet ops on a real tab: `{{cwd}}` is the folder OSC 7 reported, `{{user}}` the
/// tab's login; the tab's snippets reach Pilot's tab facts; unknown and missing variables come
/// back as a problem and nothing else.
#[tokio::test(flavor = "multi_thread")]
async fn a_snippet_expands_with_the_tabs_folder_and_user() {
    let sshd = Sshd::start().unwrap();
    let tab = EngineHarness::open_sshd(&sshd, ConnectionSettings::default(), Mode::Autopilot)
        .await
        .unwrap();
    run(&tab, "cd /tmp").await;
    cwd_event(&tab, "/tmp").await;
    std::fs::write(
        tab.home.path().join("snippets.toml"),
        "[[snippet]]\nname = \"look\"\ncommand = \"ls {{cwd}} # {{user}} {{n:3}} {{x}}\"\n\
         [[snippet]]\nname = \"web only\"\ncommand = \"true\"\ngroup = \"web\"\n",
    )
    .unwrap();

    tab.engine
        .handle(Op::ListSnippets {
            tab: Some(tab.tab.clone()),
        })
        .await;
    let listed = tab
        .event("the tab's snippets", WITHIN, |event| {
            matches!(event, Event::Snippets { tab: Some(_), .. })
        })
        .await
        .unwrap();
    let Event::Snippets {
        snippets, builtins, ..
    } = listed
    else {
        unreachable!()
    };
    let names: Vec<&str> = snippets.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["look"]);
    assert_eq!(builtins.cwd.as_deref(), Some("/tmp"));
    assert_eq!(builtins.user.as_deref(), Some(sshd.user()));
    let info = tab.engine.tab_info(&tab.tab).unwrap();
    assert_eq!(info.snippets.len(), 1);

    let expand = |values: &[(&str, &str)]| Op::ExpandSnippet {
        tab: tab.tab.clone(),
        name: "look".to_owned(),
        values: values
            .iter()
            .map(|(name, value)| SnippetValue {
                name: (*name).to_owned(),
                value: (*value).to_owned(),
            })
            .collect(),
    };
    let answers = |tab: &EngineHarness| -> Vec<(String, Option<String>)> {
        tab.events()
            .into_iter()
            .filter_map(|event| match event {
                Event::SnippetExpanded { line, problem, .. } => Some((line, problem)),
                _ => None,
            })
            .collect()
    };
    for values in [&[("x", "a b")][..], &[("x", "1"), ("y", "2")], &[]] {
        tab.engine.handle(expand(values)).await;
    }
    // Answered in the order asked.
    tab.event("three expansions", WITHIN, |_| answers(&tab).len() == 3)
        .await
        .unwrap();
    let user = sshd.user();
    assert_eq!(
        answers(&tab),
        vec![
            (format!("ls /tmp # {user} 3 a b"), None),
            (
                String::new(),
                Some("snippet \"look\" has no variable \"y\"".to_owned())
            ),
            (
                String::new(),
                Some("snippet \"look\" needs a value for \"x\"".to_owned())
            ),
        ]
    );
}
