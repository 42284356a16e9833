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
