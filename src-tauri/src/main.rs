//! `kaiport-app`: the desktop window. `--version` and `--help` answer without opening it;
//! `ssh://` and `sftp://` arguments open tabs (in the running window, when there is one).

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::io::Write as _;
use std::process::ExitCode;

const HELP: &str = "kaiport-app: kaiport's desktop window\n\n\
Usage: kaiport-app [ssh://user@host:port | sftp://user@host:port]...\n\n\
Links open in tabs (in the window already open, when there is one); the host key is checked\n\
as always. Settings, connections and the audit log are where `kaiport` keeps them\n\
($KAIPORT_HOME when set). Without a display, use `kaiport serve --open` instead.\n\n\
Options:\n  --version  print the version\n  --help     print this\n";

fn main() -> ExitCode {
    #[cfg(target_os = "linux")]
    pace_javascript_collections();
    let first = std::env::args().nth(1);
    match first.as_deref() {
        Some("--version" | "-V") => {
            let _ = writeln!(
                std::io::stdout(),
                "kaiport-app {}",
                env!("CARGO_PKG_VERSION")
            );
            return ExitCode::SUCCESS;
        }
        Some("--help" | "-h") => {
            let _ = write!(std::io::stdout(), "{HELP}");
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    kaiport_app_lib::start()
}

/// WebKitGTK's web process inherits this environment, and JavaScriptCore reads its options from
/// it. Its full collection runs on a timer paced by how much it expects to free, and on an idle
/// page that pace is minutes: the buffers of terminals that went to sleep (TerminalView) stayed
/// in memory until then. Ten times the default pace (0.0003125) frees them within seconds of the
/// last one falling asleep (BENCHMARKS.md, "Hidden terminals asleep"); JavaScriptCore still caps
/// the timer's collections at 5 % of the time. A value the user set is kept; the one set here is
/// not passed on to local shells.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn pace_javascript_collections() {
    const OPTION: &str = "JSC_percentCPUPerMBForFullTimer";
    if std::env::var_os(OPTION).is_none() {
        // SAFETY: the first thing `main` does, before any thread exists to read the environment.
        unsafe { std::env::set_var(OPTION, "0.003") };
        #[cfg(feature = "desktop-tools")]
        kaiport_core::terminal::keep_from_local_shells(OPTION);
    }
}
