//! The page's commands (typed with tauri-specta; `ui/src/lib/desktop.ts` is generated from
//! [`builder`]) and the one channel that carries everything back.
//!
//! - `attach(channel)`: the page's channel. It gets the hub's replay, then every frame: an
//!   `Event` as JSON, terminal output as an `ArrayBuffer` (`[tab id length][tab id][bytes]`,
//!   never JSON numbers), and the window's own [`DesktopMessage`]s (menus, links, drops); those
//!   messages are typed in [`crate::page`].
//! - `send(ops)`: the page's ops, handled in order (the page sends them in batches, one batch at
//!   a time).
//! - `choose_path(request)`: a native file or folder dialog.

use crate::desktop::Desktop;
use crate::page::{DesktopMessage, PageMessage};
use kaiport_protocol::Op;
use serde::Deserialize;
use specta::Type;
use specta::datatype::DataType;
use std::sync::Arc;
use tauri::ipc::Channel;
use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;

/// An `Op` from the page, read by serde as the protocol says (its TypeScript is
/// `ui/src/lib/protocol.ts`'s, imported by the generated file rather than copied into it).
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub struct PageOp(pub Op);

impl Type for PageOp {
    fn definition(_: &mut specta::Types) -> DataType {
        DataType::Reference(specta_typescript::define("Op"))
    }
}

/// What a native dialog is for: its title, and whether it picks a file or a folder.
#[derive(Debug, Clone, Copy, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum PathPurpose {
    /// An SSH private key file.
    KeyFile,
    /// A file of this computer to upload.
    UploadSource,
    /// A folder of this computer to download into.
    DownloadFolder,
}

#[derive(Debug, Clone, Deserialize, Type)]
pub struct PathRequest {
    pub purpose: PathPurpose,
    /// Where the dialog starts.
    #[serde(default)]
    pub start: Option<String>,
}

/// The page's channel: the replay, then every frame, until the page attaches again.
#[tauri::command]
#[specta::specta]
pub fn attach(channel: Channel<PageMessage>, desktop: State<'_, Arc<Desktop>>) {
    desktop.attach(channel);
}

/// The page's ops, in order; replies meant for this page alone come on its channel.
#[tauri::command]
#[specta::specta]
pub async fn send(ops: Vec<PageOp>, desktop: State<'_, Arc<Desktop>>) -> Result<(), String> {
    for PageOp(op) in ops {
        if let Some(reply) = desktop.bridge.op_from_page(op).await {
            desktop.to_page(PageMessage::frame(&reply));
        }
    }
    Ok(())
}

/// A native dialog for a file or folder; None when the user cancelled.
#[tauri::command]
#[specta::specta]
pub async fn choose_path(app: AppHandle, request: PathRequest) -> Result<Option<String>, String> {
    let (title, folder) = match request.purpose {
        PathPurpose::KeyFile => ("Choose a private key file", false),
        PathPurpose::UploadSource => ("Choose a file to upload", false),
        PathPurpose::DownloadFolder => ("Choose a folder to download into", true),
    };
    let mut dialog = app.dialog().file().set_title(title);
    let start = request
        .start
        .map(std::path::PathBuf::from)
        .or_else(|| match request.purpose {
            PathPurpose::KeyFile => std::env::home_dir().map(|home| home.join(".ssh")),
            PathPurpose::UploadSource | PathPurpose::DownloadFolder => std::env::home_dir(),
        });
    if let Some(start) = start.filter(|dir| dir.is_dir()) {
        dialog = dialog.set_directory(start);
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    let answer = move |path: Option<tauri_plugin_dialog::FilePath>| {
        let _ = tx.send(path.and_then(|path| path.into_path().ok()));
    };
    if folder {
        dialog.pick_folder(answer);
    } else {
        dialog.pick_file(answer);
    }
    let path = rx.await.map_err(|_| "the dialog closed".to_owned())?;
    Ok(path.map(|path| path.to_string_lossy().into_owned()))
}

/// The commands and types of the page's bindings.
pub fn builder() -> tauri_specta::Builder<tauri::Wry> {
    tauri_specta::Builder::<tauri::Wry>::new()
        .commands(tauri_specta::collect_commands![attach, send, choose_path])
        .typ::<DesktopMessage>()
        // A failed command rejects its promise, as `invoke` does.
        .error_handling(tauri_specta::ErrorHandlingMode::Throw)
}

/// The header of the generated bindings: the protocol's types come from its own file.
pub const BINDINGS_HEADER: &str = "// Generated from src-tauri/src/ipc.rs by src-tauri/tests/bindings.rs.\n\
// Do not edit: change the Rust commands and run scripts/gen-types.sh.\n\
/* eslint-disable */\n\
import type { Event, Op } from \"./protocol\";";
