//! The file pane of an SSH tab against a real sshd: the pane's calls (list_dir, make_dir,
//! rename, delete as the user's own `user-…` tool calls) go over SFTP on the tab's own
//! connection, the listing follows the shell's folder as `TerminalCwd` reports it after a `cd`
//! typed into the terminal, and "Open terminal here" (a shell-quoted `cd -- '…'` typed as the
//! user's input) moves the shell to a folder whose name needs quoting.

use kaiport_protocol::tools::ListDirResult;
use kaiport_protocol::*;
use kaiport_tests::engine_harness::EngineHarness;
use kaiport_tests::sshd::Sshd;
use serde_json::{Value, json};
use std::time::Duration;

const WITHIN: Duration = Duration::from_secs(60);

/// Waits for the tab's `TerminalCwd` that says `cwd`.
async fn reported(tab: &EngineHarness, cwd: &str) {
    tab.event(&format!("a TerminalCwd for {cwd:?}"), WITHIN, |event| {
        matches!(event, Event::TerminalCwd { tab: at, cwd: said } if *at == tab.tab && said == cwd)
    })
    .await
    .unwrap();
}

/// The most recent folder the tab's shell reported.
fn last_cwd(tab: &EngineHarness) -> Option<String> {
    tab.events()
        .into_iter()
        .rev()
        .find_map(|event| match event {
            Event::TerminalCwd { cwd, .. } => Some(cwd),
            _ => None,
        })
}

/// The pane's own call (named as the page names the user's calls) to its end.
async fn user_call(tab: &EngineHarness, n: u32, tool: &str, args: Value) -> ToolOutcome {
    let call = format!("user-pane{n}");
    tab.start_as(&call, tool, args).await;
    tab.outcome(&call, WITHIN).await.unwrap()
}

async fn names(tab: &EngineHarness, n: u32, path: &str) -> Vec<String> {
    let outcome = user_call(tab, n, "list_dir", json!({ "path": path })).await;
    assert_eq!(
        outcome.status,
        ToolStatus::Ok,
        "{path}: {:?}",
        outcome.error
    );
    let result: ListDirResult = serde_json::from_value(outcome.result.unwrap()).unwrap();
    assert_eq!(result.path, path);
    result.entries.into_iter().map(|entry| entry.name).collect()
}

/// The same quoting as the page's "Open terminal here" (ui/src/lib/state/shell-pane.ts).
fn cd_line(folder: &str) -> String {
    format!("cd -- '{}'", folder.replace('\'', r"'\''"))
}

#[tokio::test(flavor = "multi_thread")]
async fn ssh_tab_file_pane_lists_and_follows_the_shell() {
    let sshd = Sshd::start().unwrap();
    let tab = EngineHarness::open_sshd(&sshd, ConnectionSettings::default(), Mode::Ask)
        .await
        .unwrap();
    // The integration reports the home folder at the first prompt.
    tab.event("the first TerminalCwd", WITHIN, |event| {
        matches!(event, Event::TerminalCwd { .. })
    })
    .await
    .unwrap();
    let home = last_cwd(&tab).unwrap();
    names(&tab, 1, &home).await;

    // A folder of the test user's with a file in it, made from the shell.
    let dir = format!("/tmp/kp-pane-{}", std::process::id());
    tab.type_line(&format!(
        "mkdir -p {dir} && touch {dir}/seen.txt && cd {dir}"
    ))
    .await;
    reported(&tab, &dir).await;
    assert_eq!(names(&tab, 2, &dir).await, vec!["seen.txt".to_owned()]);

    // New folder, rename, delete: the pane's own changes on the tab's server.
    let made = format!("{dir}/it's new");
    let outcome = user_call(&tab, 3, "make_dir", json!({ "path": made })).await;
    assert_eq!(outcome.status, ToolStatus::Ok, "{:?}", outcome.error);
    let renamed = format!("{dir}/renamed.txt");
    let outcome = user_call(
        &tab,
        4,
        "rename",
        json!({ "from": format!("{dir}/seen.txt"), "to": renamed }),
    )
    .await;
    assert_eq!(outcome.status, ToolStatus::Ok, "{:?}", outcome.error);
    assert_eq!(
        names(&tab, 5, &dir).await,
        vec!["it's new".to_owned(), "renamed.txt".to_owned()]
    );

    // "Open terminal here" on a folder whose name needs quoting.
    tab.type_line(&cd_line(&made)).await;
    reported(&tab, &made).await;

    let outcome = user_call(&tab, 6, "delete", json!({ "path": renamed })).await;
    assert_eq!(outcome.status, ToolStatus::Ok, "{:?}", outcome.error);
    assert_eq!(names(&tab, 7, &dir).await, vec!["it's new".to_owned()]);

    tab.type_line(&format!("cd / && rm -rf {dir}")).await;
    reported(&tab, "/").await;
}
