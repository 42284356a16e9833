//! The file pane of an SSH tab against a real sshd: the pane's calls (list_dir, make_dir,
//! rename, delete as the user's own `user-…` tool calls) go over SFTP on the tab's own
//! connection, the listing follows the shell's folder as `TerminalCwd` reports it after a `cd`
//! typed into the terminal, and "Open terminal here" (a shell-quoted `cd -- '…'` typed as the
//! user's input) moves the shell to a folder whose name needs quoting. The pane's transfers with
//! this computer (the user's upload and download in an SSH tab) move a file there and back, and
//! Pilot is offered neither them nor this computer's side there.

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

/// `outcome` is an error that says `words`.
fn assert_refused(outcome: &ToolOutcome, words: &str) {
    assert_eq!(outcome.status, ToolStatus::Error);
    let said = outcome.error.as_deref().unwrap_or("");
    assert!(said.contains(words), "{said:?} does not say {words:?}");
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

/// An SSH tab (ask mode) whose "this computer" folder is a fresh one (returned); `name` keeps
/// its known_hosts file apart.
async fn open_with_this_computer(sshd: &Sshd, name: &str) -> (EngineHarness, std::path::PathBuf) {
    let known_hosts = sshd.dir().join(format!("{name}_known_hosts"));
    sshd.write_known_hosts(&known_hosts).unwrap();
    let mut local = None;
    let tab = EngineHarness::open_configured(
        sshd.tab_target(),
        Some(known_hosts),
        ConnectionSettings::default(),
        Mode::Ask,
        None,
        |config, home| {
            let folder = home.join("this-computer");
            std::fs::create_dir_all(&folder).unwrap();
            local = Some(folder.clone());
            config.documents_dir = Some(folder);
        },
    )
    .await
    .unwrap();
    (tab, local.unwrap())
}

/// The pane's transfers with this computer: the user's own upload and download move a file to
/// the server and back byte for byte, between the tab's server and this computer's folder for
/// it (the documents folder here, else the home folder); Pilot's calls are refused both the
/// transfer tools and this computer's side in an SSH tab.
#[tokio::test(flavor = "multi_thread")]
async fn ssh_tab_file_pane_uploads_and_downloads_with_this_computer() {
    use kaiport_core::agent::PilotHost;
    let sshd = Sshd::start().unwrap();
    let (tab, local) = open_with_this_computer(&sshd, "pane_transfer").await;
    std::fs::create_dir_all(local.join("back")).unwrap();
    let content: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(local.join("up.bin"), &content).unwrap();
    let remote = sshd.writable_folder().unwrap();
    let remote_dir = remote.path().display().to_string();

    let outcome = user_call(
        &tab,
        1,
        "upload",
        json!({ "local_path": local.join("up.bin").display().to_string(), "remote_dir": remote_dir }),
    )
    .await;
    assert_eq!(outcome.status, ToolStatus::Ok, "{:?}", outcome.error);
    assert_eq!(
        std::fs::read(remote.path().join("up.bin")).unwrap(),
        content
    );

    let outcome = user_call(
        &tab,
        2,
        "download",
        json!({
            "remote_path": format!("{remote_dir}/up.bin"),
            "local_dir": local.join("back").display().to_string(),
        }),
    )
    .await;
    assert_eq!(outcome.status, ToolStatus::Ok, "{:?}", outcome.error);
    assert_eq!(std::fs::read(local.join("back/up.bin")).unwrap(), content);
    // The user's calls are in the audit log as theirs.
    let audit = tab.audit().unwrap();
    for tool in ["upload", "download"] {
        assert!(
            audit.iter().any(|line| line["tool"] == tool
                && line["call"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("user-"))),
            "no audit line of the user's {tool}: {audit:?}"
        );
    }

    // Pilot is offered neither here: its calls are refused before anything is read.
    let pilot = |call: &str, tool: &str, args: Value| {
        PilotHost::run_tool(
            &tab.engine,
            tab.tab.clone(),
            call.to_owned(),
            tool.to_owned(),
            args,
        )
    };
    let refused = pilot(
        "pilot-1",
        "upload",
        json!({ "local_path": local.join("up.bin").display().to_string(), "remote_dir": "/tmp" }),
    )
    .await;
    assert_refused(&refused, "does not work in this kind of tab");
    let refused = pilot(
        "pilot-2",
        "list_dir",
        json!({ "path": local.display().to_string(), "side": "local" }),
    )
    .await;
    assert_refused(&refused, "only in storage tabs");
}

/// A folder of 2,100 files: the pane's own listing (the user's call) gives every entry, in name
/// order, and none left out; Pilot's list_dir of the same folder gives the first 500 and says
/// how many more there are, in the result the model reads too.
#[tokio::test(flavor = "multi_thread")]
async fn the_pane_lists_a_big_folder_whole_and_pilot_500() {
    use kaiport_tests::model_server::ModelServer;
    use std::os::unix::fs::PermissionsExt;

    const FILES: usize = 2_100;
    let sshd = Sshd::start().unwrap();
    let folder = tempfile::Builder::new()
        .prefix("kp-pane-big-")
        .tempdir_in("/tmp")
        .unwrap();
    std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let expected: Vec<String> = (0..FILES).map(|index| format!("f{index:04}.txt")).collect();
    // Made in reverse: the order listed is the engine's, not the disk's.
    for name in expected.iter().rev() {
        std::fs::File::create(folder.path().join(name)).unwrap();
    }
    let path = folder.path().display().to_string();
    let tab = EngineHarness::open_sshd(&sshd, ConnectionSettings::default(), Mode::Ask)
        .await
        .unwrap();

    let outcome = user_call(&tab, 1, "list_dir", json!({ "path": path })).await;
    assert_eq!(outcome.status, ToolStatus::Ok, "{:?}", outcome.error);
    let result: ListDirResult = serde_json::from_value(outcome.result.unwrap()).unwrap();
    let listed: Vec<String> = result.entries.into_iter().map(|entry| entry.name).collect();
    assert_eq!((listed, result.omitted), (expected.clone(), 0));

    // Pilot's own call, scripted.
    let model = ModelServer::from_json(json!({ "steps": [
        {"respond": {"tool_calls": [{"name": "list_dir", "arguments": {"path": path}}]}},
        {"respond": {"text": "Listed."}},
    ]}))
    .unwrap();
    tab.turn("what is in the folder?", model.openai_settings())
        .await
        .unwrap();
    assert!(model.failures().is_empty(), "{:?}", model.failures());
    let pilots = tab
        .events()
        .into_iter()
        .find_map(|event| match event {
            Event::ToolFinished { call, outcome, .. } if !call.starts_with("user-") => {
                Some(outcome)
            }
            _ => None,
        })
        .expect("Pilot's list_dir finished");
    assert_eq!(pilots.status, ToolStatus::Ok, "{:?}", pilots.error);
    let result: ListDirResult = serde_json::from_value(pilots.result.unwrap()).unwrap();
    let listed: Vec<String> = result.entries.into_iter().map(|entry| entry.name).collect();
    assert_eq!(
        (listed, result.omitted),
        (expected[..500].to_vec(), (FILES - 500) as u64)
    );
    let told = model.requests().last().unwrap().tool_results();
    assert!(
        told.iter()
            .any(|text| text.contains(": 500 entries,") && text.contains("; 1600 more not shown")),
        "{told:?}"
    );
}

/// The user's upload over an existing server file keeps the old one first, as write_file does:
/// the card, the result and the audit line name the backup, and undo puts the old bytes and
/// mode back.
#[tokio::test(flavor = "multi_thread")]
async fn an_upload_over_a_server_file_keeps_the_old_one_first() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let sshd = Sshd::start().unwrap();
    let (tab, local) = open_with_this_computer(&sshd, "pane_backup").await;
    let new: Vec<u8> = (0..300_000u32).map(|i| (i * 13 % 253) as u8).collect();
    std::fs::write(local.join("app.bin"), &new).unwrap();
    let remote = sshd.writable_folder().unwrap();
    let target = remote.path().join("app.bin");
    let old: Vec<u8> = (0..70_000u32).map(|i| (i * 3 % 241) as u8).collect();
    std::fs::write(&target, &old).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (uid, gid) = super::files::uid_gid(sshd.user());
    std::os::unix::fs::chown(&target, Some(uid), Some(gid)).unwrap();

    let outcome = user_call(
        &tab,
        1,
        "upload",
        json!({
            "local_path": local.join("app.bin").display().to_string(),
            "remote_dir": remote.path().display().to_string(),
        }),
    )
    .await;
    assert_eq!(outcome.status, ToolStatus::Ok, "{:?}", outcome.error);
    assert_eq!(std::fs::read(&target).unwrap(), new);
    let result = outcome.result.unwrap();
    let (id, backup) = super::undo::backup_holding(&result, &old);
    let backup = backup.display().to_string();
    let card = tab.events().into_iter().any(|event| match event {
        Event::ApprovalRequested {
            preview: Some(ApprovalPreview::Operations { lines }),
            ..
        } => lines.iter().any(|line| {
            line.contains("REPLACING") && line.contains(&format!("backup: {backup} (change {id})"))
        }),
        _ => false,
    });
    assert!(card, "the card names the backup");
    let audit = tab.audit().unwrap();
    let line = audit.iter().find(|line| line["tool"] == "upload").unwrap();
    assert_eq!(line["result"]["change"]["change_id"], id.as_str(), "{line}");
    assert_eq!(line["result"]["change"]["backup"], backup.as_str());

    let outcome = user_call(&tab, 2, "undo_change", json!({ "change_id": id })).await;
    assert_eq!(outcome.status, ToolStatus::Ok, "{:?}", outcome.error);
    assert_eq!(std::fs::read(&target).unwrap(), old);
    let meta = std::fs::metadata(&target).unwrap();
    assert_eq!(
        (meta.uid(), meta.gid(), meta.mode() & 0o7777),
        (uid, gid, 0o640)
    );
}
