#!/usr/bin/env bash
# Writes ui/src/lib/protocol.ts, the TypeScript bindings of kaiport-protocol, from the Rust types
# (specta). crates/protocol/tests/typescript.rs fails while the committed file is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
KAIPORT_WRITE_TYPES=1 cargo test -q -p kaiport-protocol --test typescript --locked \
    the_committed_typescript_bindings_match_the_rust_types
echo "gen-types.sh: wrote ui/src/lib/protocol.ts"
