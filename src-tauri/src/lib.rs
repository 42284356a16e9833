//! kaiport's desktop app: `ui/` in a native window (Tauri 2) around one kaiport engine.
//!
//! A thin shell. [`desktop::Desktop`] owns the engine through [`kaiport_hub::Bridge`], the same
//! bridge `kaiport serve` uses: the page's ops go to the engine ([`ipc`]'s commands), the engine's
//! events come back on one channel. Besides that the window only does what a desktop app is
//! expected to: menus ([`menu`]), remembered size and position, one instance, native file
//! dialogs, files dropped from the OS, notifications when Pilot waits, `ssh://` / `sftp://`
//! links, asking before closing on running work, and ending every connection on quit. It knows
//! nothing of SSH, policy or storage.

pub mod desktop;
pub mod ipc;
#[cfg(desktop)]
pub mod menu;
pub mod page;

use desktop::{Desktop, MAIN_WINDOW};
use page::DesktopMessage;
use std::sync::Arc;
use tauri::{DragDropEvent, Manager, RunEvent, WindowEvent};
use tauri_plugin_deep_link::DeepLinkExt;
use tauri_plugin_dialog::{DialogExt, MessageDialogButtons, MessageDialogKind};

// A desktop build without the desktop tools is only for checking the phone's tool set on a
// desktop host (scripts/test.sh, a debug `cargo check`); never ship one.
#[cfg(all(desktop, not(feature = "desktop-tools"), not(debug_assertions)))]
compile_error!(
    "a release desktop build of kaiport-app needs the default feature `desktop-tools` \
     (edit_file, show_view, the plan mode, the local terminal)"
);

/// The link schemes the app opens (also in tauri.conf.json's deep-link plugin settings).
const LINK_SCHEMES: [&str; 2] = ["ssh://", "sftp://"];

/// The app's start on every platform: the desktop `main` (after its `--version` and `--help`)
/// and, through the entry point Xcode and Gradle call, the phone and tablet build.
#[cfg_attr(mobile, tauri::mobile_entry_point)]
pub fn start() -> std::process::ExitCode {
    kaiport_hub::init_logging();
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            // A phone has no terminal to read stderr: the log (Xcode's console, logcat) has it.
            tracing::error!("kaiport-app: {error:#}");
            eprintln!("kaiport-app: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Opens the window and runs until the user quits.
pub fn run() -> anyhow::Result<()> {
    let commands = ipc::builder();
    let builder = tauri::Builder::default();
    // Desktop only: one instance (first, so a second start hands its links over and ends), the
    // window's remembered size and place, and the menus. A phone has one app instance, one
    // full-screen window and no menu bar.
    #[cfg(desktop)]
    let builder = builder
        .plugin(tauri_plugin_single_instance::init(|app, args, _cwd| {
            if let Some(window) = app.get_webview_window(MAIN_WINDOW) {
                let _ = window.unminimize();
                let _ = window.show();
                let _ = window.set_focus();
            }
            open_links(app, args.iter().map(String::as_str));
        }))
        .plugin(tauri_plugin_window_state::Builder::new().build())
        .menu(menu::build)
        .on_menu_event(|app, event| {
            if let Some(action) = menu::action(event.id().as_ref()) {
                tell_page(app, &DesktopMessage::Menu { action });
            }
        });
    let app = builder
        .plugin(tauri_plugin_deep_link::init())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_notification::init())
        .invoke_handler(commands.invoke_handler())
        .setup(move |app| {
            commands.mount_events(app);
            let desktop = Desktop::start(app.handle())?;
            app.manage(Arc::new(desktop));
            // Links this start was given, and the ones the OS hands over later.
            let handle = app.handle().clone();
            app.deep_link().on_open_url(move |event| {
                let urls: Vec<String> = event.urls().iter().map(ToString::to_string).collect();
                open_links(&handle, urls.iter().map(String::as_str));
            });
            #[cfg(any(target_os = "linux", windows))]
            if let Err(error) = app.deep_link().register_all() {
                tracing::warn!("kaiport: ssh:// and sftp:// links not registered: {error}");
            }
            let args: Vec<String> = std::env::args().skip(1).collect();
            open_links(app.handle(), args.iter().map(String::as_str));
            Ok(())
        })
        .on_window_event(|window, event| match event {
            WindowEvent::Focused(true) => {
                if let Some(desktop) = window.try_state::<Arc<Desktop>>() {
                    desktop.focused();
                }
            }
            WindowEvent::CloseRequested { api, .. } => {
                let Some(desktop) = window.try_state::<Arc<Desktop>>() else {
                    return;
                };
                if let Some(work) = desktop.work_under_way() {
                    api.prevent_close();
                    let desktop = desktop.inner().clone();
                    let window = window.clone();
                    window
                        .dialog()
                        .message(format!("{work}. Closing kaiport stops it. Close anyway?"))
                        .title("Close kaiport?")
                        .kind(MessageDialogKind::Warning)
                        .buttons(MessageDialogButtons::OkCancelCustom(
                            "Close".to_owned(),
                            "Keep open".to_owned(),
                        ))
                        .show(move |close| {
                            if close {
                                desktop.agree_to_close();
                                let _ = window.close();
                            }
                        });
                }
            }
            WindowEvent::DragDrop(DragDropEvent::Drop { paths, position }) => {
                let scale = window.scale_factor().unwrap_or(1.0);
                let at = position.to_logical::<f64>(scale);
                let paths = paths
                    .iter()
                    .map(|path| path.to_string_lossy().into_owned())
                    .collect();
                tell_page(
                    window.app_handle(),
                    &DesktopMessage::FilesDropped {
                        paths,
                        x: at.x,
                        y: at.y,
                    },
                );
            }
            _ => {}
        })
        .build(tauri::generate_context!())?;
    app.run(|app, event| {
        if let RunEvent::Exit = event
            && let Some(desktop) = app.try_state::<Arc<Desktop>>()
        {
            desktop.shut_down();
        }
    });
    Ok(())
}

fn tell_page<R: tauri::Runtime>(app: &tauri::AppHandle<R>, message: &DesktopMessage) {
    if let Some(desktop) = app.try_state::<Arc<Desktop>>() {
        desktop.tell_page(message);
    }
}

/// The `ssh://` and `sftp://` links among `args`, each opened in a tab by the page.
fn open_links<'a, R: tauri::Runtime>(
    app: &tauri::AppHandle<R>,
    args: impl Iterator<Item = &'a str>,
) {
    let identity_files: Vec<String> = kaiport_core::ssh::default_identity_files()
        .iter()
        .map(|path| path.to_string_lossy().into_owned())
        .collect();
    for url in args.filter(|arg| is_link(arg)) {
        tell_page(
            app,
            &DesktopMessage::OpenUrl {
                url: url.to_owned(),
                identity_files: identity_files.clone(),
            },
        );
    }
}

fn is_link(arg: &str) -> bool {
    LINK_SCHEMES
        .iter()
        .any(|scheme| arg.len() > scheme.len() && arg[..scheme.len()].eq_ignore_ascii_case(scheme))
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_ssh_and_sftp_links_are_opened() {
        assert!(super::is_link("ssh://alice@web1:2222"));
        assert!(super::is_link("SFTP://web1"));
        assert!(!super::is_link("ssh://"));
        assert!(!super::is_link("https://example.invalid"));
        assert!(!super::is_link("--version"));
    }
}
