#!/usr/bin/env bash
# Quick start, part one: install what kaiport needs, build it, and open kaiport's embedded
# default — a local terminal tab, driven through the engine — in this terminal. Extra arguments go
# to `kaiport` (e.g. `scripts/run.sh tool local run_command '{"command":"uptime"}'`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
ensure_build_tools
cargo build --release -p kaiport-cli
exec target/release/kaiport "$@"
