//! The native menus. On macOS the app menu comes first, as the platform expects; elsewhere File,
//! Edit, View, Window, Help. Items the page carries out are sent to it as
//! [`DesktopMessage::Menu`]; the window's own (quit, minimize, full screen) are the platform's.
//! Settings… (⌘, / Ctrl+,) is in the app menu on macOS and at the end of Edit elsewhere, where
//! GNOME and KDE keep Preferences.
//!
//! Copy and Paste are Ctrl+Shift+C / V outside macOS, as in terminals: Ctrl+C belongs to the
//! shell.

use crate::page::MenuAction;
use tauri::menu::{AboutMetadata, Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::{AppHandle, Runtime};

/// (id, label, accelerator, action) of the page's items, by menu.
const FILE: &[(&str, &str, &str, MenuAction)] = &[
    (
        "new-connection",
        "New Connection…",
        "CmdOrCtrl+Shift+N",
        MenuAction::NewConnection,
    ),
    (
        "new-local-terminal",
        "New Local Terminal",
        "CmdOrCtrl+Shift+T",
        MenuAction::NewLocalTerminal,
    ),
    (
        "close-tab",
        "Close Tab",
        "CmdOrCtrl+Shift+W",
        MenuAction::CloseTab,
    ),
];
const EDIT: &[(&str, &str, &str, MenuAction)] = &[
    ("copy", "Copy", COPY_KEYS, MenuAction::Copy),
    ("paste", "Paste", PASTE_KEYS, MenuAction::Paste),
    ("find", "Find…", "CmdOrCtrl+Shift+F", MenuAction::Find),
];
const VIEW: &[(&str, &str, &str, MenuAction)] = &[
    ("zoom-in", "Zoom In", "CmdOrCtrl+=", MenuAction::ZoomIn),
    ("zoom-out", "Zoom Out", "CmdOrCtrl+-", MenuAction::ZoomOut),
    (
        "zoom-reset",
        "Actual Size",
        "CmdOrCtrl+0",
        MenuAction::ZoomReset,
    ),
    (
        "toggle-pilot",
        "Toggle Pilot Panel",
        "CmdOrCtrl+Shift+P",
        MenuAction::TogglePilot,
    ),
];

/// The app's Settings: the page opens its dialog.
const SETTINGS: (&str, &str, &str, MenuAction) = (
    "settings",
    "Settings…",
    "CmdOrCtrl+,",
    MenuAction::OpenSettings,
);

#[cfg(target_os = "macos")]
const COPY_KEYS: &str = "Cmd+C";
#[cfg(not(target_os = "macos"))]
const COPY_KEYS: &str = "Ctrl+Shift+C";
#[cfg(target_os = "macos")]
const PASTE_KEYS: &str = "Cmd+V";
#[cfg(not(target_os = "macos"))]
const PASTE_KEYS: &str = "Ctrl+Shift+V";

/// The page's action for a menu item id.
pub fn action(id: &str) -> Option<MenuAction> {
    [FILE, EDIT, VIEW, std::slice::from_ref(&SETTINGS)]
        .iter()
        .flat_map(|items| items.iter())
        .find(|(item, ..)| *item == id)
        .map(|(.., action)| *action)
}

fn settings_item<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<MenuItem<R>> {
    let (id, label, keys, _) = SETTINGS;
    MenuItem::with_id(app, id, label, true, Some(keys))
}

fn submenu<R: Runtime>(
    app: &AppHandle<R>,
    title: &str,
    items: &[(&str, &str, &str, MenuAction)],
    extra: Vec<PredefinedMenuItem<R>>,
) -> tauri::Result<Submenu<R>> {
    let submenu = Submenu::new(app, title, true)?;
    for (id, label, keys, _) in items {
        submenu.append(&MenuItem::with_id(app, *id, *label, true, Some(*keys))?)?;
    }
    if !extra.is_empty() {
        submenu.append(&PredefinedMenuItem::separator(app)?)?;
        for item in &extra {
            submenu.append(item)?;
        }
    }
    Ok(submenu)
}

pub fn build<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<Menu<R>> {
    let about = AboutMetadata {
        name: Some("kaiport".to_owned()),
        version: Some(env!("CARGO_PKG_VERSION").to_owned()),
        comments: Some(
            "SSH terminals and storage with an AI assistant that follows your rules".to_owned(),
        ),
        ..AboutMetadata::default()
    };
    let menu = Menu::new(app)?;
    #[cfg(target_os = "macos")]
    {
        let app_menu = Submenu::new(app, "kaiport", true)?;
        app_menu.append(&PredefinedMenuItem::about(app, None, Some(about.clone()))?)?;
        app_menu.append(&PredefinedMenuItem::separator(app)?)?;
        app_menu.append(&settings_item(app)?)?;
        app_menu.append(&PredefinedMenuItem::separator(app)?)?;
        app_menu.append(&PredefinedMenuItem::hide(app, None)?)?;
        app_menu.append(&PredefinedMenuItem::hide_others(app, None)?)?;
        app_menu.append(&PredefinedMenuItem::separator(app)?)?;
        app_menu.append(&PredefinedMenuItem::quit(app, None)?)?;
        menu.append(&app_menu)?;
    }
    let file_extra = if cfg!(target_os = "macos") {
        vec![PredefinedMenuItem::close_window(app, None)?]
    } else {
        vec![PredefinedMenuItem::quit(app, None)?]
    };
    menu.append(&submenu(app, "File", FILE, file_extra)?)?;
    let edit = submenu(app, "Edit", EDIT, vec![])?;
    if !cfg!(target_os = "macos") {
        edit.append(&PredefinedMenuItem::separator(app)?)?;
        edit.append(&settings_item(app)?)?;
    }
    menu.append(&edit)?;
    menu.append(&submenu(
        app,
        "View",
        VIEW,
        vec![PredefinedMenuItem::fullscreen(app, None)?],
    )?)?;
    let window = Submenu::new(app, "Window", true)?;
    window.append(&PredefinedMenuItem::minimize(app, None)?)?;
    window.append(&PredefinedMenuItem::maximize(app, None)?)?;
    menu.append(&window)?;
    let help = Submenu::new(app, "Help", true)?;
    help.append(&PredefinedMenuItem::about(app, None, Some(about))?)?;
    menu.append(&help)?;
    Ok(menu)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::DesktopMessage;

    #[test]
    fn every_item_has_one_action_and_ids_are_unique() {
        let ids: Vec<&str> = [FILE, EDIT, VIEW, std::slice::from_ref(&SETTINGS)]
            .iter()
            .flat_map(|items| items.iter().map(|(id, ..)| *id))
            .collect();
        let mut unique = ids.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), ids.len());
        assert_eq!(action("toggle-pilot"), Some(MenuAction::TogglePilot));
        assert_eq!(action("settings"), Some(MenuAction::OpenSettings));
        // The page reads the action by its snake_case name (ui/src/App.svelte).
        let message = serde_json::to_value(DesktopMessage::Menu {
            action: MenuAction::OpenSettings,
        })
        .unwrap();
        assert_eq!(
            message,
            serde_json::json!({"desktop": "menu", "action": "open_settings"})
        );
        assert_eq!(action("quit"), None);
    }
}
