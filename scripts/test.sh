#!/usr/bin/env bash
# Quick start, part two: install everything the test suite needs (build tools, OpenSSH server and
# client, sudo, shells, the storage servers, Chromium, WebKitGTK) and run the whole suite:
# formatting, lints, unit tests, and the end-to-end tests against real servers that the
# fixtures start on 127.0.0.1 and stop by PID.
#
# Budgeted for a 2-core machine from a cold target/ (the README's "Tests" section has the
# figures): every feature set compiles once, in one cargo call each —
#   1. the phone's feature set (`kaiport-cli --no-default-features`, copied aside as
#      target/debug/kaiport-mobile), which compiles the dependencies with the workspace's
#      features (crates/workspace-hack) so that
#   2. the workspace's tests, which also build every binary the later stages run (kaiport,
#      kaiport-app, the fixtures' servers, the fuzz runner), compile only what 1 lacks;
#   3. clippy over the workspace (check only), beside the Rust tests;
#   4. kaiport-core's unit tests and clippy with the phone's feature set;
# and `tauri bundle` packages the kaiport-app that 2 built. The Rust tests run with
# cargo-nextest (.config/nextest.toml). Each stage's time is printed at the end.
#
#   TEST_STAGES="rust browser" scripts/test.sh   runs only the named test stages (after the
#                                                installs and builds): rust, fuzz, browser,
#                                                desktop, mobile, windows, macos
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
# The suite makes its own login users and root-owned files: it runs as root, and says so once
# here rather than letting tests find out one by one.
if [ "$(id -u)" != 0 ]; then
    echo "test.sh: the test suite must run as root (it creates test users and root-owned files): sudo bash scripts/test.sh" >&2
    exit 1
fi
# A cold build in CI gains nothing from incremental compilation and pays for writing it.
if [ "${CI:-}" = true ]; then
    export CARGO_INCREMENTAL=0
fi

# tauri-driver and, where the machine lacks it, cargo-nextest (scripts/install-test-deps.sh).
export PATH="${KAIPORT_TOOLS:-$HOME/.cache/kaiport-tools}/bin:$PATH"

LOGS=target/test-logs
mkdir -p "$LOGS"
# The big-file tests need several GiB free beside the build; a full disk shows up there as
# servers dropping connections, so the free space is on record from the start.
df -h . "${TMPDIR:-/tmp}" | sed 's/^/test.sh: disk: /'
suite_started=$(date +%s)
timings=()
declare -A job_pid job_started

record() { # NAME STARTED
    timings+=("$(printf '%-34s %5d s' "$1" $(($(date +%s) - $2)))")
}

# Runs a stage in the foreground, timed.
stage() { # NAME COMMAND...
    local name=$1 started
    shift
    started=$(date +%s)
    echo "test.sh: -- $name"
    "$@"
    record "$name" "$started"
}

# Starts a stage in the background; its output goes to a log printed when it is joined.
beside() { # NAME COMMAND...
    local name=$1
    shift
    echo "test.sh: -- $name (in the background)"
    "$@" >"$LOGS/$name.log" 2>&1 &
    job_pid[$name]=$!
    job_started[$name]=$(date +%s)
}

# Waits for a background stage, prints its output and fails the suite if it failed.
await_stage() { # NAME
    local name=$1 status=0
    wait "${job_pid[$name]}" || status=$?
    echo "test.sh: -- $name (output)"
    cat "$LOGS/$name.log"
    record "$name" "${job_started[$name]}"
    unset "job_pid[$name]"
    if [ "$status" -ne 0 ]; then
        echo "test.sh: $name failed (exit $status)" >&2
        exit "$status"
    fi
}

# Nothing started in the background outlives a failed suite.
stop_jobs() {
    local pid
    for pid in "${job_pid[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
}
trap stop_jobs EXIT

wanted() { # STAGE
    [ -z "${TEST_STAGES:-}" ] || [[ " $TEST_STAGES " == *" $1 "* ]]
}

install_all() {
    ensure_build_tools
    bash scripts/install-test-deps.sh
    # Shells for the shell-integration tests (bash is always there).
    apt_install_missing zsh fish less procps vim-tiny
    bash scripts/install-storage-test-deps.sh
}

# svelte-check, Vitest, then ESLint and Prettier's check of the UI tree.
ui_checks() {
    (cd ui && npm run check && npm test && npm run lint && npm run format:check)
}

# The phone's `kaiport` (no edit_file, show_view, plan, local terminal) for the phone and tablet
# browser tests (ui/e2e/mobile.mjs). Built before the workspace, whose own `kaiport` then
# takes target/debug/kaiport back. Thanks to crates/workspace-hack it compiles the dependencies
# with the workspace's features, so the workspace build after it reuses them.
build_mobile() {
    cargo build -p kaiport-cli --no-default-features --locked \
        --message-format json-render-diagnostics >"$LOGS/build-mobile.json"
    cp target/debug/kaiport target/debug/kaiport-mobile
}

# The workspace's tests and, with them, every binary the later stages run; then a check that
# no dependency the phone's build compiled was compiled again here with other features.
build_workspace() {
    cargo test --workspace --locked --no-run \
        --message-format json-render-diagnostics >"$LOGS/build-workspace.json"
    local built
    for built in kaiport kaiport-app kaiport-sshd kaiport-model-server examples/policy_fuzz; do
        if [ ! -x "target/debug/$built" ]; then
            echo "test.sh: the workspace's test build left no target/debug/$built" >&2
            exit 1
        fi
    done
    python3 - "$LOGS/build-mobile.json" "$LOGS/build-workspace.json" <<'PYTHON'
import json, sys

def units(path):
    """Each unit a build used (package, target, features, profile) -> (name, compiled now)."""
    found = {}
    for line in open(path, encoding="utf-8"):
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact":
            unit = json.dumps(
                [message["package_id"], message["target"]["kind"], message["target"]["name"],
                 sorted(message["features"]), message["profile"]],
                sort_keys=True,
            )
            name = message["package_id"].split("#")[-1].split("@")[0].split("/")[-1]
            found[unit] = (f"{name} ({message['target']['kind'][0]})", not message["fresh"])
    return found

# Ours, and keyring-core with the stores built on it: the workspace turns on its in-memory
# store for kaiport-core's own tests only, never in a binary.
expected = ("kaiport", "keyring-core", "linux-keyutils-keyring-store", "zbus-secret-service-keyring-store")
phone, workspace = units(sys.argv[1]), units(sys.argv[2])
# What the phone's build compiled that the workspace does not use as it is: compiled twice.
twice = sorted(
    name for unit, (name, compiled) in phone.items()
    if compiled and unit not in workspace and not name.startswith(expected)
)
if twice:
    print("test.sh: the phone's build compiled these with other features or settings than the workspace,",
          "so they were compiled twice:", ", ".join(twice), file=sys.stderr)
    print("test.sh: give crates/workspace-hack/Cargo.toml the workspace's features of these", file=sys.stderr)
    sys.exit(1)
print("test.sh: the workspace build compiled no dependency of the phone's build again")
PYTHON
}

# The phone's feature set: kaiport-core's unit tests, the app checked with the phone's features,
# the tool list of the phone's `kaiport`, and the targets' feature resolution.
mobile_checks() {
    cargo test -p kaiport-core --no-default-features --lib --locked
    local mobile_tools tool
    mobile_tools=$(target/debug/kaiport-mobile tools --json)
    grep -q '"name": "run_command"' <<<"$mobile_tools"
    for tool in edit_file show_view propose_plan update_plan run_on_hosts open_forward; do
        if grep -q "\"name\": \"$tool\"" <<<"$mobile_tools"; then
            echo "test.sh: the mobile build offers $tool" >&2
            exit 1
        fi
    done
    echo "test.sh: mobile tool set checked"
    # The phone app (src-tauri as a library, mobile/README.md): its tool set is chosen by target
    # in src-tauri/Cargo.toml, so the iOS and Android targets must resolve kaiport-core without
    # the desktop tools and the desktop targets with all six. This host cannot compile for a
    # phone (no iOS or Android standard library), so the app is also checked here with the
    # phone's feature set, and the files in mobile/ are well-formed.
    local target tree desktop_tools want
    for target in aarch64-apple-ios aarch64-apple-ios-sim aarch64-linux-android \
        x86_64-unknown-linux-gnu aarch64-apple-darwin x86_64-pc-windows-msvc; do
        tree=$(cargo tree -q --locked -p kaiport-app --target "$target" -e features -i kaiport-core)
        desktop_tools=$(grep -cE 'kaiport-core feature "(edit-file|show-view|plan|run-on-hosts|open-forward|local-terminal)"' <<<"$tree" || true)
        case "$target" in
            *-ios* | *-android*) want=0 ;;
            *) want=6 ;;
        esac
        if [ "$desktop_tools" != "$want" ]; then
            echo "test.sh: kaiport-app for $target gets $desktop_tools of the 6 desktop tools, not $want" >&2
            exit 1
        fi
    done
    # With kaiport-cli beside it, the check shares the workspace's dependency features.
    cargo clippy -p kaiport-app -p kaiport-cli --no-default-features --locked -- -D warnings
    local plist
    for plist in mobile/ios/Info.plist mobile/ios/kaiport_iOS.entitlements; do
        python3 -c 'import plistlib, sys; plistlib.load(open(sys.argv[1], "rb"))' "$plist"
    done
    echo "test.sh: phone app's tool set by target, feature set and mobile/ files checked"
}

# macOS: no Apple SDK here, so only a crate without C build scripts compiles for the Apple
# targets — kaiport-protocol, linted for aarch64-apple-darwin; kaiport-core stops at aws-lc-sys's
# and tree-sitter's C (docs/windows-macos.md). Where rustup cannot fetch that target's standard
# library, the stage says so and checks nothing.
macos_check() {
    local target=aarch64-apple-darwin
    if ! rustup target list --installed 2>/dev/null | grep -qx "$target" &&
        ! rustup target add "$target"; then
        echo "test.sh: macos: NOT CHECKED — rustup could not add the standard library for $target" >&2
        return 0
    fi
    cargo clippy --target "$target" -p kaiport-protocol --locked -- -D warnings
    echo "test.sh: macos: kaiport-protocol linted for $target"
}

# The libFuzzer target (fuzz/: a workspace of its own, for cargo-fuzz's nightly and sanitizer
# flags) built on stable without them, so that it keeps compiling, and run once over its corpus.
# With the workspace's lock file, dev profile and dependency features (fuzz/Cargo.toml) in the
# shared target/, every dependency from crates.io is the workspace's; it compiles libFuzzer (25 s
# of C++), itself, and its own kaiport-protocol, kaiport-core and workspace-hack (cargo hashes a
# path package by where it sits in its workspace, so those are never shared; about 30 s). Fails,
# naming them, if it compiled anything else.
build_fuzz_target() {
    # fuzz/Cargo.lock is not committed: the workspace's, plus libFuzzer.
    cp Cargo.lock fuzz/Cargo.lock
    cargo build --manifest-path fuzz/Cargo.toml --target-dir target \
        --message-format json-render-diagnostics >"$LOGS/build-fuzz.json"
    python3 - "$LOGS/build-fuzz.json" <<'PYTHON'
import json, sys

own = ("kaiport-fuzz", "libfuzzer-sys", "arbitrary", "kaiport-protocol", "kaiport-core",
       "kaiport-workspace-hack")
again = set()
for line in open(sys.argv[1], encoding="utf-8"):
    message = json.loads(line)
    if message.get("reason") == "compiler-artifact" and not message["fresh"]:
        name = message["package_id"].split("#")[-1].split("@")[0].split("/")[-1]
        if name not in own:
            again.add(name)
if again:
    print("test.sh: the fuzz target's build compiled these again:", ", ".join(sorted(again)), file=sys.stderr)
    print("test.sh: fuzz/Cargo.toml must have the workspace's profile and crates/workspace-hack", file=sys.stderr)
    sys.exit(1)
print("test.sh: the fuzz target's build compiled no dependency the workspace had compiled")
PYTHON
    if ! target/debug/analyse fuzz/corpus/analyse/seed-* >"$LOGS/fuzz-target.log" 2>&1; then
        cat "$LOGS/fuzz-target.log"
        exit 1
    fi
    echo "test.sh: the libFuzzer target ran its corpus"
}

# The desktop app: its .deb and .rpm packaged from the kaiport-app the workspace build made (no
# second build, no release build), the window under Xvfb driven through WebDriver (tauri-driver
# + WebKitWebDriver), the .deb installed with dpkg and started, the .rpm's files unpacked and
# started.
desktop_tests() {
    npm --prefix ui run tauri -- bundle --debug --bundles deb,rpm --ci
    (cd ui && npm run e2e:desktop)
    bash scripts/test-deb.sh
}

stage install install_all
# The UI first: kaiport and kaiport-app embed ui/dist.
stage ui-build build_ui
beside ui-checks ui_checks
stage fmt cargo fmt --all --check
stage build-mobile build_mobile
stage build-workspace build_workspace
await_stage ui-checks

# The Rust tests mostly wait on servers: the lints and the phone's checks compile beside them.
if wanted rust; then
    beside rust-tests cargo nextest run --workspace --locked --no-fail-fast
fi
stage clippy cargo clippy --workspace --all-targets --locked -- -D warnings
if wanted mobile; then
    stage mobile-checks mobile_checks
fi
if wanted rust; then
    await_stage rust-tests
fi
if wanted browser; then
    # Debian's Chromium (playwright-core, no browser download) against the debug `kaiport
    # serve`, the real sshd fixture and the storage servers. Alone: a page that falls behind
    # its events under load is disconnected and reconnects, which some tests cannot tell from a
    # failure.
    stage browser-tests bash -c 'cd ui && npm run e2e'
fi
if wanted fuzz; then
    stage fuzz-build build_fuzz_target
    # The policy fuzz runner for a minute (scripts/fuzz.sh).
    stage fuzz target/debug/examples/policy_fuzz --seconds 60 fuzz/corpus/analyse
fi
if wanted desktop; then
    stage desktop-tests desktop_tests
fi
if wanted macos; then
    stage macos macos_check
fi
if wanted windows; then
    # kaiport for Windows: cross-built with MinGW-w64, linted, and run under Wine against the
    # loopback sshd and an S3 server (docs/windows-macos.md).
    stage windows bash scripts/test-windows.sh
fi

echo "test.sh: stage times (wall clock; a stage marked in the background ran beside others)"
printf '  %s\n' "${timings[@]}"
echo "test.sh: the whole suite took $(($(date +%s) - suite_started)) s"
