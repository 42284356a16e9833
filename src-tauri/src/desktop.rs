//! The window's state: the engine's bridge, the page's channel, and what the window does on its
//! own (notifications while unfocused, asking before closing, ending connections on quit).

use crate::page::{DesktopMessage, PageMessage};
use anyhow::Context as _;
use kaiport_core::EngineConfig;
use kaiport_hub::Bridge;
use kaiport_protocol::{Event, TabId};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tauri::async_runtime::JoinHandle;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_notification::NotificationExt;
use tokio::sync::broadcast::error::RecvError;

/// Where the engine keeps its files: the standard places on a desktop, the app's sandbox on a
/// phone (see [`phone_config`]).
fn engine_config<R: Runtime>(app: &AppHandle<R>) -> anyhow::Result<EngineConfig> {
    if cfg!(mobile) {
        phone_config(app)
    } else {
        Ok(EngineConfig::from_environment()?)
    }
}

/// A phone app lives in its sandbox: connections, the audit log and known hosts in the app's
/// data folder, and the local side of every storage tab is the app's own documents folder
/// (which the Files app shows on iOS), never the whole device. Compiled on every target so
/// the desktop build checks it too.
fn phone_config<R: Runtime>(app: &AppHandle<R>) -> anyhow::Result<EngineConfig> {
    let paths = app.path();
    let data = paths
        .app_data_dir()
        .context("the app's data folder is unknown")?;
    let documents = if cfg!(target_os = "ios") {
        paths
            .document_dir()
            .context("the app's Documents folder is unknown")?
    } else {
        data.join("Documents")
    };
    let mut config = EngineConfig::in_dir(&data);
    config.documents_dir = Some(documents);
    Ok(config)
}

/// The label of the one window.
pub const MAIN_WINDOW: &str = "main";

/// The page's channel and the task that feeds it.
struct Attachment {
    channel: Channel<PageMessage>,
    feeder: JoinHandle<()>,
}

pub struct Desktop {
    pub bridge: Arc<Bridge>,
    page: Mutex<Option<Attachment>>,
    /// The window's messages from before the page attached (links given at start).
    early: Mutex<Vec<DesktopMessage>>,
    /// The tab of the last notification, brought forward when the window is focused again.
    noticed: Arc<Mutex<Option<TabId>>>,
    /// Set once the user agreed to close while work was under way.
    closing: Mutex<bool>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Desktop {
    /// Starts the engine (inside tauri's runtime); notifications go through `app`.
    pub fn start<R: Runtime>(app: &AppHandle<R>) -> anyhow::Result<Desktop> {
        let config = engine_config(app)?;
        let noticed: Arc<Mutex<Option<TabId>>> = Arc::default();
        let watch = {
            let app = app.clone();
            let noticed = noticed.clone();
            move |event: &Event| notify_when_waiting(&app, &noticed, event)
        };
        let restore = config.restore_tabs;
        let bridge = tauri::async_runtime::block_on(async {
            let bridge = Bridge::start(config, None, watch)?;
            // The tabs of the last run open again (KAIPORT_RESTORE_TABS).
            bridge.engine.remember_tabs("app", restore);
            Ok::<_, kaiport_core::EngineError>(bridge)
        })?;
        Ok(Desktop {
            bridge,
            page: Mutex::new(None),
            early: Mutex::new(Vec::new()),
            noticed,
            closing: Mutex::new(false),
        })
    }

    /// The page (re)attached: it gets the replay, then every frame, on `channel`.
    pub fn attach(&self, channel: Channel<PageMessage>) {
        let hub = self.bridge.hub.clone();
        let feed = channel.clone();
        let feeder = tauri::async_runtime::spawn(async move {
            let mut follow = hub.follow();
            loop {
                match follow.next().await {
                    Ok(frames) => {
                        for frame in &frames {
                            if feed.send(PageMessage::frame(frame)).is_err() {
                                return;
                            }
                        }
                    }
                    Err(RecvError::Lagged(_)) => {
                        // Too far behind: the page drops what it shows; the replay comes next.
                        if let Some(relink) = PageMessage::desktop(&DesktopMessage::Relink) {
                            let _ = feed.send(relink);
                        }
                    }
                    Err(RecvError::Closed) => return,
                }
            }
        });
        if let Some(old) = lock(&self.page).replace(Attachment { channel, feeder }) {
            old.feeder.abort();
        }
        for message in std::mem::take(&mut *lock(&self.early)) {
            self.tell_page(&message);
        }
    }

    /// A message for the page, when one is attached.
    pub fn to_page(&self, message: PageMessage) {
        if let Some(page) = lock(&self.page).as_ref() {
            let _ = page.channel.send(message);
        }
    }

    /// A message of the window for the page; kept until the page attaches when it has not yet.
    pub fn tell_page(&self, message: &DesktopMessage) {
        let page = lock(&self.page);
        let Some(page) = page.as_ref() else {
            lock(&self.early).push(message.clone());
            return;
        };
        if let Some(message) = PageMessage::desktop(message) {
            let _ = page.channel.send(message);
        }
    }

    /// The window got the focus back: the tab of the last notification comes forward.
    pub fn focused(&self) {
        if let Some(tab) = lock(&self.noticed).take() {
            self.tell_page(&DesktopMessage::ShowTab { tab });
        }
    }

    /// What is under way that closing would stop, in words; None when nothing is.
    pub fn work_under_way(&self) -> Option<String> {
        if *lock(&self.closing) {
            return None;
        }
        let busy = self.bridge.hub.busy();
        let mut parts = Vec::new();
        match busy.turns.len() {
            0 => {}
            1 => parts.push("Pilot is working in a tab".to_owned()),
            n => parts.push(format!("Pilot is working in {n} tabs")),
        }
        match busy.transfers.len() {
            0 => {}
            1 => parts.push("a transfer is running".to_owned()),
            n => parts.push(format!("{n} transfers are running")),
        }
        (!parts.is_empty()).then(|| parts.join(" and "))
    }

    pub fn agree_to_close(&self) {
        *lock(&self.closing) = true;
    }

    /// Quitting: every tab closes (its connection ends, a running turn is cancelled and its
    /// audit lines written); waits a moment for the turns to say they ended.
    pub fn shut_down(&self) {
        let bridge = self.bridge.clone();
        tauri::async_runtime::block_on(async move {
            bridge.close_all().await;
            for _ in 0..40 {
                if bridge.hub.busy().is_idle() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        });
        if let Some(page) = lock(&self.page).take() {
            page.feeder.abort();
        }
    }
}

/// A system notification when Pilot waits for the user and the window is not focused.
fn notify_when_waiting<R: Runtime>(
    app: &AppHandle<R>,
    noticed: &Mutex<Option<TabId>>,
    event: &Event,
) {
    let (tab, body) = match event {
        Event::ApprovalRequested { tab, tool, .. } => {
            (tab, format!("Pilot waits for your approval: {tool}"))
        }
        Event::QuestionAsked { tab, question, .. } => {
            (tab, format!("Pilot asks: {}", shorten(question, 160)))
        }
        _ => return,
    };
    let focused = app
        .get_webview_window(MAIN_WINDOW)
        .and_then(|window| window.is_focused().ok())
        .unwrap_or(false);
    if focused {
        return;
    }
    *lock(noticed) = Some(tab.clone());
    if let Err(error) = app
        .notification()
        .builder()
        .title("kaiport")
        .body(body)
        .show()
    {
        tracing::warn!("kaiport: could not show a notification: {error}");
    }
}

fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}
