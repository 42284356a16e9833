//! The big cases on every storage service (FTP, FTPS, WebDAV, S3, Azure Blob, SFTP), through the
//! whole engine pipeline against the real servers of `kaiport_tests::storage_servers`:
//!
//! - one 1 GiB file uploaded and downloaded by the tools, its SHA-256 taken while streaming on
//!   this side, on the server's side and of the download, and no temp file left on either side
//!   under any name. The data is generated block by block straight to disk, never held in
//!   memory. `KAIPORT_BIG_FILE_BYTES` sets another size (default 1 GiB).
//! - a folder of 10,000 files put on the server directly (its disk, or Azure's SDK): the
//!   user's list_dir gives every entry (S3 and Azure list in pages of 1,000), find_files and folder_report count all, the folder
//!   is renamed (every file arriving under the new name, none left under the old; not on
//!   Azure, see `ten_thousand_files`), a few are downloaded, and the recursive delete's
//!   approval shows 10,000 files and the exact bytes before everything goes.
//!
//! The 1 GiB tests run one at a time (each needs 2 GiB of disk at its peak, and disk is the
//! scarce thing on the test machines); the folder tests run in parallel with anything.

use kaiport_protocol::*;
use kaiport_tests::engine_harness::EngineHarness;
use kaiport_tests::storage_servers::{StorageKind, StorageServer, sha256_file};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// One 1 GiB test at a time; see the module docs.
static ONE_BIG_FILE_AT_A_TIME: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);

/// The files of the folder test.
const MANY: usize = 10_000;
/// How long one big transfer or one pass over 10,000 files may take in a debug build.
const BIG_STEP: Duration = Duration::from_secs(900);
/// The block the big file is written in.
const BLOCK: usize = 1024 * 1024;

fn big_file_bytes() -> u64 {
    std::env::var("KAIPORT_BIG_FILE_BYTES")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(1024 * 1024 * 1024)
}

/// Writes `size` bytes of data that differs in every block (a block number in each, so a
/// block sent twice or out of order changes the hash) to `path`, one block at a time.
fn write_big_file(path: &Path, size: u64) -> std::io::Result<()> {
    let mut block = vec![0u8; BLOCK];
    // xorshift: cheap data that no transport can compress away.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for byte in block.iter_mut() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *byte = state as u8;
    }
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut left = size;
    let mut number: u64 = 0;
    while left > 0 {
        block[..8].copy_from_slice(&number.to_le_bytes());
        let take = left.min(BLOCK as u64) as usize;
        file.write_all(&block[..take])?;
        left -= take as u64;
        number += 1;
    }
    file.into_inner()
        .map_err(|error| error.into_error())?
        .sync_all()
}

/// A storage tab in autopilot on `server`, its local side confined to `local`.
async fn open(server: &StorageServer, local: &Path) -> EngineHarness {
    EngineHarness::open_storage(
        server,
        local,
        ConnectionSettings::default(),
        Mode::Autopilot,
        Some(server.secret()),
    )
    .await
    .unwrap()
}

/// Runs `tool` to its end (up to [`BIG_STEP`]) and returns its result; panics with the error.
async fn run(harness: &EngineHarness, tool: &str, args: Value) -> Value {
    let started = Instant::now();
    let call = harness.start(tool, args.clone()).await;
    let outcome = harness.outcome(&call, BIG_STEP).await.unwrap();
    // Shown with --nocapture: where the time of these long tests goes.
    eprintln!("{tool} {args}: {:.1?}", started.elapsed());
    assert_eq!(
        outcome.status,
        ToolStatus::Ok,
        "{tool} {args}: {:?}",
        outcome.error
    );
    outcome.result.unwrap()
}

/// Names in a local folder.
fn local_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

async fn one_gib_file(kind: StorageKind) {
    let _turn = ONE_BIG_FILE_AT_A_TIME.acquire().await.unwrap();
    let size = big_file_bytes();
    let server = StorageServer::start(kind).unwrap();
    let local = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(local.path()).unwrap();
    let (src, down) = (root.join("src"), root.join("down"));
    std::fs::create_dir(&src).unwrap();
    std::fs::create_dir(&down).unwrap();
    let name = "big file #1.bin";
    // The file here, the server's copy and the one downloaded, with room to spare.
    kaiport_tests::require_free_disk(&root, 3 * size + (512 << 20));
    write_big_file(&src.join(name), size).unwrap();
    let expected = sha256_file(&src.join(name)).unwrap();
    let harness = open(&server, &root).await;

    let started = Instant::now();
    run(
        &harness,
        "upload",
        json!({"local_path": src.join(name), "remote_dir": "/"}),
    )
    .await;
    let upload_took = started.elapsed();
    // Only the file, under its name: no part or temp file left on the server.
    assert_eq!(
        server.stored_files("").unwrap(),
        vec![name.to_owned()],
        "{kind:?}"
    );
    assert_eq!(server.stored_sha256(name).unwrap(), expected, "{kind:?}");
    let listed = run(&harness, "list_dir", json!({"path": "/"})).await;
    assert_eq!(listed["entries"][0]["size"], size, "{kind:?} {listed}");
    // The source is no longer needed: half the disk for the download.
    std::fs::remove_file(src.join(name)).unwrap();

    let started = Instant::now();
    run(
        &harness,
        "download",
        json!({"remote_path": format!("/{name}"), "local_dir": down}),
    )
    .await;
    let download_took = started.elapsed();
    assert_eq!(local_names(&down), vec![name.to_owned()], "{kind:?}");
    assert_eq!(sha256_file(&down.join(name)).unwrap(), expected, "{kind:?}");
    assert_eq!(
        local_names(&root),
        vec!["down".to_owned(), "src".to_owned()]
    );
    let progress = harness
        .events()
        .iter()
        .filter(|event| matches!(event, Event::TransferProgress { total, .. } if *total == size))
        .count();
    assert!(
        progress >= 2,
        "{kind:?}: no progress events for the transfers"
    );
    eprintln!(
        "{kind:?}: {size} bytes uploaded in {upload_took:.1?}, downloaded in {download_took:.1?}"
    );
}

/// File `index` of the folder test: its name and content (100 to 149 bytes, numbered).
fn numbered_file(index: usize) -> (String, Vec<u8>) {
    let mut content = format!("file {index:05} ").into_bytes();
    content.resize(99 + index % 50, b'x');
    content.push(b'\n');
    (format!("f{index:05}.txt"), content)
}

async fn ten_thousand_files(kind: StorageKind) {
    let server = StorageServer::start(kind).unwrap();
    let files: Vec<(String, Vec<u8>)> = (0..MANY).map(numbered_file).collect();
    let total: u64 = files.iter().map(|(_, content)| content.len() as u64).sum();
    let started = Instant::now();
    server.seed_files("many", &files).unwrap();
    let seeded_in = started.elapsed();
    let local = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(local.path()).unwrap();
    let harness = open(&server, &root).await;
    let started = Instant::now();

    let listed = run(&harness, "list_dir", json!({"path": "/many"})).await;
    // The user's own listing is whole (S3 and Azure answer in pages of 1,000).
    let entries = listed["entries"].as_array().unwrap();
    let names: Vec<&str> = entries.iter().filter_map(|e| e["name"].as_str()).collect();
    let expected: Vec<String> = (0..MANY).map(|index| numbered_file(index).0).collect();
    assert_eq!(
        (names, listed["omitted"].as_u64()),
        (expected.iter().map(String::as_str).collect(), Some(0)),
        "{kind:?}"
    );

    // find_files stops at its limit and says so; a name found once needs the whole walk.
    let found = run(
        &harness,
        "find_files",
        json!({"path": "/many", "name": "*.txt", "limit": 1000}),
    )
    .await;
    assert_eq!(
        (
            found["matches"].as_array().unwrap().len(),
            found["truncated"].as_bool()
        ),
        (1000, Some(true)),
        "{kind:?}"
    );
    let last = run(
        &harness,
        "find_files",
        json!({"path": "/many", "name": "f09999.txt"}),
    )
    .await;
    assert_eq!(
        (
            last["matches"].as_array().unwrap().len(),
            last["entries_scanned"].as_u64()
        ),
        (1, Some(MANY as u64)),
        "{kind:?} {last}"
    );
    let ten = run(
        &harness,
        "find_files",
        json!({"path": "/many", "name": "f0424?.txt"}),
    )
    .await;
    assert_eq!(
        ten["matches"].as_array().unwrap().len(),
        10,
        "{kind:?} {ten}"
    );

    let report = run(&harness, "folder_report", json!({"path": "/many"})).await;
    assert_eq!(
        (
            report["files"].as_u64(),
            report["folders"].as_u64(),
            report["total_bytes"].as_u64()
        ),
        (Some(MANY as u64), Some(0), Some(total)),
        "{kind:?}"
    );

    // The folder renamed whole: in one step where the service can (FTP, WebDAV, SFTP), else
    // every file copied on the server (S3), checked, then the originals deleted. Azure copies
    // every blob through kaiport (its Copy Blob may finish asynchronously, and opendal does
    // not show its status): three requests a blob, 11 minutes for 10,000 on azurite here, so
    // its folder rename is tested on the small folders of `storage::all_tools` only.
    let folder = if kind == StorageKind::Azure {
        "/many"
    } else {
        let renaming = Instant::now();
        run(
            &harness,
            "rename",
            json!({"from": "/many", "to": "/renamed"}),
        )
        .await;
        eprintln!(
            "{kind:?}: {MANY} files renamed in {:.1?}",
            renaming.elapsed()
        );
        let mut names: Vec<String> = files.iter().map(|(name, _)| name.clone()).collect();
        names.sort();
        assert_eq!(server.stored_files("renamed").unwrap(), names, "{kind:?}");
        assert_eq!(
            server.stored_files("many").unwrap(),
            Vec::<String>::new(),
            "{kind:?}"
        );
        "/renamed"
    };

    for index in [0, 4_999, MANY - 1] {
        let (name, content) = &files[index];
        run(
            &harness,
            "download",
            json!({"remote_path": format!("{folder}/{name}"), "local_dir": root}),
        )
        .await;
        assert_eq!(
            &std::fs::read(root.join(name)).unwrap(),
            content,
            "{kind:?}"
        );
    }

    run(
        &harness,
        "delete",
        json!({"path": folder, "recursive": true}),
    )
    .await;
    let approval = harness
        .events()
        .into_iter()
        .find_map(|event| match event {
            Event::ApprovalRequested {
                tool,
                preview: Some(ApprovalPreview::Operations { lines }),
                ..
            } if tool == "delete" => Some(lines),
            _ => None,
        })
        .unwrap();
    let [line] = approval.as_slice() else {
        panic!("{kind:?}: one line, not {approval:?}");
    };
    let (said, kept) = line.split_once(" — ").unwrap_or((line, ""));
    assert_eq!(
        said,
        format!("delete folder {folder} (remote) with {MANY} files, 1.2 MB ({total} bytes)"),
        "{kind:?}"
    );
    // Where the folder is kept first: kaiport's area on an SFTP server; elsewhere what the
    // service keeps, or "no backup".
    let named = match kind {
        StorageKind::Sftp => kept.starts_with("backup: "),
        _ => kept.starts_with("no backup: ") || kept.contains("kept by"),
    };
    assert!(named, "{kind:?}: {line}");
    assert_eq!(server.stored_files(folder).unwrap(), Vec::<String>::new());
    assert!(!server.stored_folder_exists("many"), "{kind:?}");
    assert!(!server.stored_folder_exists("renamed"), "{kind:?}");
    let top = run(&harness, "list_dir", json!({"path": "/"})).await;
    assert_eq!(top["entries"], json!([]), "{kind:?} {top}");
    eprintln!(
        "{kind:?}: {MANY} files seeded in {seeded_in:.1?}, listed, found, reported, downloaded \
         and deleted in {:.1?}",
        started.elapsed()
    );
}

macro_rules! big_cases {
    ($($service:ident => $kind:expr),* $(,)?) => {$(
        mod $service {
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn one_gib_file_up_and_down() {
                one_gib_file($kind).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn folder_of_ten_thousand_files() {
                ten_thousand_files($kind).await;
            }
        }
    )*};
}

big_cases! {
    ftp => StorageKind::Ftp,
    ftps => StorageKind::Ftps,
    webdav => StorageKind::Webdav,
    s3 => StorageKind::S3,
    azure => StorageKind::Azure,
    sftp => StorageKind::Sftp,
}
