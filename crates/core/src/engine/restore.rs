//! The open tabs remembered across restarts: a front end that asks ([`Engine::remember_tabs`],
//! `kaiport serve` and the desktop app) has its tabs written to a file of its own in the data
//! folder at every change — what each tab connects to, its kind, title, mode, settings, its
//! place in the order, which one was shown, what the page showed besides (`TabView`) — and,
//! when asked, opened again when it starts, followed by `Event::TabsRestored`.
//!
//! The file is replaced whole (written beside it, then renamed), so a crash leaves the old one
//! or the new one. One that cannot be read is reported (log and `Event::Error`) and the engine
//! starts without tabs. It must never hold a password, passphrase or API key: targets and
//! settings have none; the one value of a kept shell's marks' secret (`ssh::kept`) is the
//! only thing in it not shown anywhere else, kept so a restarted engine still recognises that
//! shell's marks.

use super::{Engine, Inner, lock};
use kaiport_protocol::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file's layout; another version is not read.
const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct SavedTabs {
    version: u32,
    /// In the order every window shows.
    tabs: Vec<SavedTab>,
    #[serde(default)]
    active: Option<TabId>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct SavedTab {
    id: TabId,
    target: TabTarget,
    kind: TabKind,
    title: String,
    #[serde(default)]
    mode: Mode,
    /// The tab's own settings; none for a saved connection's tab (its settings come from it).
    #[serde(default)]
    settings: Option<ConnectionSettings>,
    #[serde(default)]
    view: TabView,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kept_secret: Option<String>,
}

/// What the engine keeps for the file between changes.
#[derive(Debug, Default)]
pub(super) struct Remembered {
    /// Where the tabs are written; None: this engine does not remember its tabs.
    path: Option<PathBuf>,
    active: Option<TabId>,
    views: BTreeMap<TabId, TabView>,
    /// The front end quits ([`Engine::stop_remembering`]): a tab closed now keeps its session
    /// on the server (`ssh::kept`), for the next start to attach to.
    pub(super) quitting: bool,
}

/// Why the remembered tabs could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a list of kaiport's tabs ({message})")]
    Malformed { path: PathBuf, message: String },
}

impl Engine {
    /// From now on the open tabs are written to `<data folder>/tabs-<name>.json` at every
    /// change; with `restore`, the tabs written there by the last run are opened again first.
    /// An unreadable file is reported as an `Error` event (and logged) and the engine goes on
    /// without tabs. Returns how many tabs were opened again.
    pub fn remember_tabs(&self, name: &str, restore: bool) -> usize {
        let inner = &self.inner;
        let path = inner.config.data_dir.join(format!("tabs-{name}.json"));
        let saved = if restore {
            match read(&path) {
                Ok(saved) => saved,
                Err(error) => {
                    tracing::warn!(%error, "the tabs of the last run were not opened again");
                    inner.emit(Event::Error {
                        tab: None,
                        message: format!(
                            "the tabs of the last run could not be opened again: {error}"
                        ),
                    });
                    None
                }
            }
        } else {
            None
        };
        lock(&inner.remembered).path = Some(path);
        let Some(saved) = saved else {
            inner.save_tabs();
            return 0;
        };
        let count = saved.tabs.len();
        let mut views = BTreeMap::new();
        for tab in saved.tabs {
            if tab.view != TabView::default() {
                views.insert(tab.id.clone(), tab.view.clone());
            }
            lock(&inner.remembered)
                .views
                .insert(tab.id.clone(), tab.view);
            inner.open_tab_restored(
                tab.id,
                tab.target,
                tab.settings,
                Some(tab.mode),
                tab.kept_secret,
            );
        }
        let active = saved.active.filter(|active| inner.tab(active).is_some());
        lock(&inner.remembered).active = active.clone();
        inner.save_tabs();
        inner.emit(Event::TabsRestored { active, views });
        count
    }

    /// Stops writing the open tabs (before closing them all when the front end quits, so the
    /// file keeps them for the next start).
    pub fn stop_remembering(&self) {
        let mut remembered = lock(&self.inner.remembered);
        remembered.path = None;
        remembered.quitting = true;
    }
}

/// The file at `path`: None when there is none.
fn read(path: &Path) -> Result<Option<SavedTabs>, RestoreError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(RestoreError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    let malformed = |message: String| RestoreError::Malformed {
        path: path.to_owned(),
        message,
    };
    let saved: SavedTabs =
        serde_json::from_str(&text).map_err(|error| malformed(error.to_string()))?;
    if saved.version != VERSION {
        return Err(malformed(format!("version {} is unknown", saved.version)));
    }
    Ok(Some(saved))
}

/// Writes `saved` to `path` whole: into a file beside it, then renamed over it.
fn write(path: &Path, saved: &SavedTabs) -> std::io::Result<()> {
    let text = serde_json::to_vec_pretty(saved).map_err(std::io::Error::other)?;
    let mut part = path.as_os_str().to_owned();
    part.push(".part");
    let part = PathBuf::from(part);
    {
        use std::io::Write;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&part)?;
        file.write_all(&text)?;
        file.sync_all()?;
    }
    std::fs::rename(&part, path)
}

impl Inner {
    /// `Op::ShowTab`.
    pub(super) fn show_tab(&self, tab: &str) {
        if self.tab(tab).is_none() {
            self.no_such_tab(tab);
            return;
        }
        lock(&self.remembered).active = Some(tab.to_owned());
        self.save_tabs();
    }

    /// `Op::RememberTabView`.
    pub(super) fn remember_tab_view(&self, tab: &str, view: TabView) {
        if self.tab(tab).is_none() {
            self.no_such_tab(tab);
            return;
        }
        lock(&self.remembered).views.insert(tab.to_owned(), view);
        self.save_tabs();
    }

    /// Whether `event` changes what is remembered of the tabs.
    pub(super) fn changes_tabs(event: &Event) -> bool {
        matches!(
            event,
            Event::TabOpened { .. }
                | Event::TabClosed { .. }
                | Event::TabsReordered { .. }
                | Event::ModeChanged { .. }
                | Event::SettingsChanged { .. }
                | Event::ConnectionState {
                    state: ConnectionState::Connected,
                    ..
                }
        )
    }

    /// Writes the open tabs, when this engine remembers them; a failed write is logged.
    pub(super) fn save_tabs(&self) {
        let Some(path) = lock(&self.remembered).path.clone() else {
            return;
        };
        let order = lock(&self.order).clone();
        let tabs: Vec<SavedTab> = {
            let mut remembered = lock(&self.remembered);
            remembered.views.retain(|id, _| order.contains(id));
            if remembered
                .active
                .as_ref()
                .is_some_and(|active| !order.contains(active))
            {
                remembered.active = None;
            }
            order
                .iter()
                .filter_map(|id| self.tab(id))
                .map(|tab| SavedTab {
                    id: tab.id.clone(),
                    target: tab.target.clone(),
                    kind: tab.kind,
                    title: tab.connection.clone(),
                    mode: tab.mode(),
                    settings: match tab.target {
                        TabTarget::Profile { .. } => None,
                        _ => Some(tab.settings()),
                    },
                    view: remembered.views.get(&tab.id).cloned().unwrap_or_default(),
                    kept_secret: lock(&tab.kept_secret).clone(),
                })
                .collect()
        };
        let saved = SavedTabs {
            version: VERSION,
            tabs,
            active: lock(&self.remembered).active.clone(),
        };
        if let Err(error) = write(&path, &saved) {
            tracing::warn!(%error, path = %path.display(), "the open tabs were not written");
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Engine, EngineConfig};
    use kaiport_protocol::{Event, Op, TabTarget, TabView};
    use pretty_assertions::assert_eq;

    fn open(tab: &str) -> Op {
        Op::OpenTab {
            tab: tab.to_owned(),
            // A saved connection that does not exist: the tab opens (and fails) offline.
            target: TabTarget::Profile {
                name: format!("nowhere-{tab}"),
            },
            cols: 80,
            rows: 24,
            settings: None,
            mode: None,
        }
    }

    /// What the stream says up to `TabsRestored`: the tabs opened, in order, and that event.
    async fn restored(events: &mut crate::EventStream) -> (Vec<(String, String)>, Event) {
        let mut opened = Vec::new();
        loop {
            match events.recv().await {
                Some(Event::TabOpened { tab, title, .. }) => opened.push((tab, title)),
                Some(event @ Event::TabsRestored { .. }) => return (opened, event),
                Some(_) => {}
                None => panic!("the stream ended"),
            }
        }
    }

    /// Tabs written by one engine open again in the next, in their order, with the tab that
    /// was shown and what the page showed; closing them all at the end keeps the file.
    #[tokio::test(flavor = "current_thread")]
    async fn open_tabs_come_back_in_the_next_engine() {
        let dir = tempfile::tempdir().unwrap();
        {
            let (engine, _events) = Engine::new(EngineConfig::in_dir(dir.path())).unwrap();
            assert_eq!(engine.remember_tabs("test", true), 0);
            for tab in ["a", "b", "c"] {
                engine.handle(open(tab)).await;
            }
            engine
                .handle(Op::MoveTab {
                    tab: "c".into(),
                    index: 0,
                })
                .await;
            engine.handle(Op::ShowTab { tab: "b".into() }).await;
            let view = TabView {
                pilot_open: true,
                folder: Some("/logs".into()),
                local_folder: None,
            };
            engine
                .handle(Op::RememberTabView {
                    tab: "a".into(),
                    view,
                })
                .await;
            engine.stop_remembering();
            for tab in ["a", "b", "c"] {
                engine.handle(Op::CloseTab { tab: tab.into() }).await;
            }
        }
        // No file part is left beside it.
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("tabs-"))
            .collect();
        assert_eq!(names, ["tabs-test.json"]);
        let (engine, mut events) = Engine::new(EngineConfig::in_dir(dir.path())).unwrap();
        assert_eq!(engine.remember_tabs("test", true), 3);
        let (opened, event) = restored(&mut events).await;
        let ids: Vec<&str> = opened.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["c", "a", "b"]);
        assert_eq!(opened[1].1, "nowhere-a");
        let Event::TabsRestored { active, views } = event else {
            unreachable!()
        };
        assert_eq!(active.as_deref(), Some("b"));
        assert_eq!(views.len(), 1);
        assert!(views["a"].pilot_open);
        assert_eq!(views["a"].folder.as_deref(), Some("/logs"));
    }

    /// A file that is not kaiport's tabs is reported, and the engine starts without tabs (and
    /// writes a good file again).
    #[tokio::test(flavor = "current_thread")]
    async fn a_broken_file_is_reported_and_the_engine_starts_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tabs-test.json");
        for broken in [
            "{\"version\": 1, \"tabs\": [",
            "[]",
            "{\"version\": 99, \"tabs\": []}",
        ] {
            std::fs::write(&path, broken).unwrap();
            let (engine, mut events) = Engine::new(EngineConfig::in_dir(dir.path())).unwrap();
            assert_eq!(engine.remember_tabs("test", true), 0);
            let message = loop {
                match events.recv().await {
                    Some(Event::Error { tab: None, message }) => break message,
                    Some(Event::TabOpened { .. }) => panic!("a tab was opened"),
                    Some(_) => {}
                    None => panic!("no error"),
                }
            };
            assert!(
                message.contains("could not be opened again") && message.contains("tabs-test.json"),
                "{message}"
            );
            let written: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(written["tabs"], serde_json::json!([]));
        }
    }
}
