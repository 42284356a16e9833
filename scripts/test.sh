#!/usr/bin/env bash
# Quick start, part two: install everything the test suite needs (build tools, OpenSSH server and
# client, sudo, shells) and run the whole suite: formatting, lints, unit tests, and the end-to-end
# tests against real servers that the fixtures start on 127.0.0.1 and stop by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
# The suite makes its own login users and root-owned files: it runs as root, and says so once
# here rather than letting tests find out one by one.
if [ "$(id -u)" != 0 ]; then
    echo "test.sh: the test suite must run as root (it creates test users and root-owned files): sudo bash scripts/test.sh" >&2
    exit 1
fi
ensure_build_tools
as_root bash scripts/install-test-deps.sh
# The UI first: kaiport embeds ui/dist, and its checks are quick.
build_ui
(cd ui && npm run check && npm test)
bash scripts/install-storage-test-deps.sh
# Shells for the shell-integration tests (bash is always there).
apt_install_missing zsh fish less procps vim-tiny

cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
bash scripts/fuzz.sh 60

# The browser tests: Debian's Chromium (playwright-core, no browser download) against the debug
# `kaiport serve` and the real sshd fixture. Built here with default features, before the mobile
# build below replaces target/debug/kaiport.
cargo build -p kaiport-cli -p kaiport-tests --bins --locked
(cd ui && npm run e2e)

# The mobile feature set (no edit_file, show_view, plan, local terminal) builds, passes its unit
# tests, and its tool list lacks exactly those tools.
cargo test -p kaiport-core --no-default-features --locked
mobile_tools=$(cargo run -q -p kaiport-cli --no-default-features --locked -- tools --json)
grep -q '"name": "run_command"' <<<"$mobile_tools"
for tool in edit_file show_view propose_plan update_plan; do
    if grep -q "\"name\": \"$tool\"" <<<"$mobile_tools"; then
        echo "test.sh: the mobile build offers $tool" >&2
        exit 1
    fi
done
echo "test.sh: mobile tool set checked"
