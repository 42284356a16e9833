#!/usr/bin/env bash
# Quick start, part one: install what kaiport needs, build the UI and kaiport, and open it: the
# desktop window (src-tauri) where there is a display, otherwise the UI in the browser
# (`kaiport serve --open`; it prints the URL when no browser can be opened). Extra arguments go
# to `kaiport` instead (e.g. `scripts/run.sh shell` for a terminal tab in this terminal,
# `scripts/run.sh tool local run_command '{"command":"uptime"}'`); `scripts/run.sh serve --open`
# picks the browser where there is a display too.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
ensure_build_tools
build_ui
if [ "$#" -eq 0 ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
    # The window builds against WebKitGTK and GTK.
    apt_install_missing libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev
    cargo build --release -p kaiport-app
    exec target/release/kaiport-app
fi
cargo build --release -p kaiport-cli
if [ "$#" -eq 0 ]; then
    set -- serve --open
fi
exec target/release/kaiport "$@"
