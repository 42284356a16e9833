//! The phone's storage tabs (`EngineConfig::documents_dir`): whatever folders a front end asks
//! for, the local side is the documents folder and nothing else — against a real SFTP server
//! (the sshd fixture).

use kaiport_protocol::*;
use kaiport_tests::engine_harness::{Approvals, EngineHarness};
use kaiport_tests::sshd::Sshd;
use pretty_assertions::assert_eq;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn a_storage_tabs_local_side_is_the_documents_folder_whatever_was_asked() {
    let sshd = Sshd::start().unwrap();
    let known_hosts = sshd.dir().join("documents_known_hosts");
    sshd.write_known_hosts(&known_hosts).unwrap();
    let shared = sshd.writable_folder().unwrap();
    // Asked for the whole disk: not given.
    let target = sshd.sftp_storage(shared.path(), vec!["/".to_owned()]);
    let mut documents = None;
    let tab = EngineHarness::open_configured(
        target,
        Some(known_hosts),
        ConnectionSettings::default(),
        Mode::Autopilot,
        None,
        |config, home| {
            let folder = home.join("Documents");
            documents = Some(folder.clone());
            config.documents_dir = Some(folder);
        },
    )
    .await
    .unwrap();
    tab.set_approvals(Approvals::Approve);
    let documents = documents.unwrap();
    // Created by the engine, and told to front ends.
    assert!(documents.is_dir());
    let hello = tab.events().into_iter().find_map(|event| match event {
        Event::Hello { documents, .. } => Some(documents),
        _ => None,
    });
    assert_eq!(hello, Some(Some(documents.display().to_string())));

    std::fs::write(documents.join("note.txt"), "from the phone\n").unwrap();
    let listed = tab
        .ok(
            "list_dir",
            json!({"path": documents.display().to_string(), "side": "local"}),
        )
        .await
        .unwrap();
    assert_eq!(listed["entries"][0]["name"], "note.txt");
    tab.ok(
        "upload",
        json!({"local_path": documents.join("note.txt").display().to_string(), "remote_dir": "/"}),
    )
    .await
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(shared.path().join("note.txt")).unwrap(),
        "from the phone\n"
    );

    // Outside the documents folder there is nothing to read or list.
    let outcome = tab
        .call(
            "upload",
            json!({"local_path": "/etc/hostname", "remote_dir": "/"}),
        )
        .await
        .unwrap();
    assert_ne!(outcome.status, ToolStatus::Ok, "{outcome:?}");
    let outcome = tab
        .call("list_dir", json!({"path": "/etc", "side": "local"}))
        .await
        .unwrap();
    assert_ne!(outcome.status, ToolStatus::Ok, "{outcome:?}");
    assert!(!shared.path().join("hostname").exists());
}
