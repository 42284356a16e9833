#!/usr/bin/env bash
# The desktop app's .deb (built by `npm --prefix ui run tauri build -- --debug --bundles deb`, or
# the release one given as $1) installs with dpkg, its binary starts (`--version`), and it is
# removed again. Run as root; used by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
deb="${1:-$(ls -t target/debug/bundle/deb/kaiport_*.deb 2>/dev/null | head -n 1)}"
if [ -z "$deb" ] || [ ! -f "$deb" ]; then
    echo "test-deb.sh: no .deb to test (build it with: npm --prefix ui run tauri build -- --debug --bundles deb)" >&2
    exit 1
fi
package=$(dpkg-deb -f "$deb" Package)
echo "test-deb.sh: $deb ($(du -h "$deb" | cut -f1)), package $package"
dpkg -i "$deb"
trap 'dpkg -r "$package" >/dev/null' EXIT
version=$(/usr/bin/kaiport-app --version)
expected="kaiport-app $(dpkg-deb -f "$deb" Version)"
if [ "$version" != "$expected" ]; then
    echo "test-deb.sh: /usr/bin/kaiport-app --version said '$version', not '$expected'" >&2
    exit 1
fi
test -f /usr/share/applications/kaiport.desktop
grep -q '^Exec=kaiport-app' /usr/share/applications/kaiport.desktop
grep -q 'x-scheme-handler/ssh' /usr/share/applications/kaiport.desktop
echo "test-deb.sh: installed, '$version' started, menu entry and ssh:// handler present: 1 passed, 0 failed"
