#!/usr/bin/env bash
# Writes ui/src/lib/protocol.ts, the TypeScript bindings of kaiport-protocol, from the Rust types
# (specta), and ui/src/lib/desktop.ts, the desktop window's commands (tauri-specta).
# crates/protocol/tests/typescript.rs and src-tauri/tests/bindings.rs fail while a committed file
# is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
KAIPORT_WRITE_TYPES=1 cargo test -q -p kaiport-protocol --test typescript --locked \
    the_committed_typescript_bindings_match_the_rust_types
echo "gen-types.sh: wrote ui/src/lib/protocol.ts"
KAIPORT_WRITE_TYPES=1 cargo test -q -p kaiport-app --test bindings --locked \
    the_committed_desktop_bindings_match_the_commands
echo "gen-types.sh: wrote ui/src/lib/desktop.ts"
