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
# `kaiport serve` and the real sshd fixture. The phone and tablet tests (ui/e2e/mobile.mjs) serve
# the mobile feature set (no edit_file, show_view, plan, local terminal): that `kaiport` is built
# first and copied aside to target/debug/kaiport-mobile, since the default build after it
# replaces target/debug/kaiport (the two builds share every dependency; only kaiport-core and
# kaiport-cli differ).
cargo build -p kaiport-cli --no-default-features --locked
cp target/debug/kaiport target/debug/kaiport-mobile
cargo build -p kaiport-cli -p kaiport-tests --bins --locked
(cd ui && npm run e2e)

# The desktop app: its .deb and .rpm from `tauri build` with the workspace's debug profile and target (no
# release build here; ui/dist is already built), the window under Xvfb driven through WebDriver
# (tauri-driver + WebKitWebDriver), the .deb installed with dpkg and started, the .rpm's files
# unpacked and started.
desktop_start=$(date +%s)
npm --prefix ui run tauri -- build --debug --bundles deb,rpm --ci --config '{"build":{"beforeBuildCommand":null}}'
(cd ui && npm run e2e:desktop)
bash scripts/test-deb.sh
echo "test.sh: the desktop app's build and tests took $(( $(date +%s) - desktop_start )) s"

# The mobile feature set passes its unit tests, and its tool list lacks exactly the tools it
# leaves out (edit_file, show_view, the plan tools).
cargo test -p kaiport-core --no-default-features --locked
mobile_tools=$(target/debug/kaiport-mobile tools --json)
grep -q '"name": "run_command"' <<<"$mobile_tools"
for tool in edit_file show_view propose_plan update_plan; do
    if grep -q "\"name\": \"$tool\"" <<<"$mobile_tools"; then
        echo "test.sh: the mobile build offers $tool" >&2
        exit 1
    fi
done
echo "test.sh: mobile tool set checked"

# The phone app (src-tauri as a library, mobile/README.md): its tool set is chosen by target in
# src-tauri/Cargo.toml, so the iOS and Android targets must resolve kaiport-core without the
# desktop tools and the desktop targets with all four. This host cannot compile for a phone
# (no iOS or Android standard library), so the app is also checked here with the phone's
# feature set, and the files in mobile/ are well-formed.
for target in aarch64-apple-ios aarch64-apple-ios-sim aarch64-linux-android \
    x86_64-unknown-linux-gnu aarch64-apple-darwin x86_64-pc-windows-msvc; do
    desktop_tools=$(cargo tree -q --locked -p kaiport-app --target "$target" -e features -i kaiport-core |
        grep -cE 'kaiport-core feature "(edit-file|show-view|plan|local-terminal)"' || true)
    case "$target" in
        *-ios* | *-android*) want=0 ;;
        *) want=4 ;;
    esac
    if [ "$desktop_tools" != "$want" ]; then
        echo "test.sh: kaiport-app for $target gets $desktop_tools of the 4 desktop tools, not $want" >&2
        exit 1
    fi
done
cargo clippy -p kaiport-app --no-default-features --locked -- -D warnings
for plist in mobile/ios/Info.plist mobile/ios/kaiport_iOS.entitlements; do
    python3 -c 'import plistlib, sys; plistlib.load(open(sys.argv[1], "rb"))' "$plist"
done
echo "test.sh: phone app's tool set by target, feature set and mobile/ files checked"
