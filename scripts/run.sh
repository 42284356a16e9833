#!/usr/bin/env bash
# Quick start, part one: install what kaiport needs, build the UI and kaiport, and open the UI in
# the browser (`kaiport serve --open`; it prints the URL when no browser can be opened). Extra
# arguments go to `kaiport` instead (e.g. `scripts/run.sh shell` for a terminal tab in this
# terminal, `scripts/run.sh tool local run_command '{"command":"uptime"}'`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
ensure_build_tools
build_ui
cargo build --release -p kaiport-cli
if [ "$#" -eq 0 ]; then
    set -- serve --open
fi
exec target/release/kaiport "$@"
