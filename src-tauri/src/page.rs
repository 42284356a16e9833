//! What the window sends the page on its one channel ([`PageMessage`]): the hub's frames, and
//! the window's own [`DesktopMessage`]s (menus, links, dropped files).
//!
//! Below both [`crate::ipc`] (the commands, which hand the channel over) and [`crate::desktop`]
//! (which feeds it); it uses neither.

use kaiport_hub::Frame;
use kaiport_protocol::TabId;
use serde::Serialize;
use specta::Type;
use specta::datatype::DataType;
use tauri::ipc::{InvokeResponseBody, IpcResponse};

/// One message on the page's channel.
pub struct PageMessage(InvokeResponseBody);

impl PageMessage {
    pub fn frame(frame: &Frame) -> PageMessage {
        PageMessage(match frame {
            Frame::Text(text) => InvokeResponseBody::Json(text.to_string()),
            Frame::Binary(bytes) => InvokeResponseBody::Raw(bytes.to_vec()),
        })
    }

    pub fn desktop(message: &DesktopMessage) -> Option<PageMessage> {
        serde_json::to_string(message)
            .ok()
            .map(|json| PageMessage(InvokeResponseBody::Json(json)))
    }
}

impl IpcResponse for PageMessage {
    fn body(self) -> tauri::Result<InvokeResponseBody> {
        Ok(self.0)
    }
}

impl Type for PageMessage {
    fn definition(_: &mut specta::Types) -> DataType {
        DataType::Reference(specta_typescript::define(
            "Event | ArrayBuffer | DesktopMessage",
        ))
    }
}

/// What the window tells the page, beside the engine's events (told apart by the `desktop`
/// key, which no event has).
#[derive(Debug, Clone, Serialize, Type)]
#[serde(tag = "desktop", rename_all = "snake_case")]
pub enum DesktopMessage {
    /// The page fell behind: drop what it shows, the replay follows.
    Relink,
    /// A menu item was chosen.
    Menu { action: MenuAction },
    /// An `ssh://` or `sftp://` link to open in a tab (the host key is checked as always), with
    /// the private keys OpenSSH would try (`~/.ssh/id_ed25519`, … those that exist).
    OpenUrl {
        url: String,
        identity_files: Vec<String>,
    },
    /// Files dropped from the OS at this point of the page (CSS pixels).
    FilesDropped { paths: Vec<String>, x: f64, y: f64 },
    /// Bring this tab forward (its notification was answered by focusing the window).
    ShowTab { tab: TabId },
}

/// The menu items the page carries out.
#[derive(Debug, Clone, Copy, Serialize, Type, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MenuAction {
    NewConnection,
    NewLocalTerminal,
    CloseTab,
    Copy,
    Paste,
    Find,
    ZoomIn,
    ZoomOut,
    ZoomReset,
    TogglePilot,
    /// The app's Settings (the page's own dialog).
    OpenSettings,
}
