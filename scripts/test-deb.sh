#!/usr/bin/env bash
# The desktop app's packages, built by `npm --prefix ui run tauri build -- --debug --bundles
# deb,rpm` (or the release .deb given as $1): the .deb installs with dpkg, its binary starts
# (`--version`), and it is removed again; the .rpm's metadata and files are read with rpm, rpm
# installs it into a temporary root of its own (this Debian machine keeps no rpm database), and
# the binary there starts too. Run as root; used by scripts/test.sh.
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
echo "test-deb.sh: installed, '$version' started, menu entry and ssh:// handler present"

if [ -n "${1:-}" ]; then
    echo "test-deb.sh: 1 passed, 0 failed"
    exit 0
fi
rpm_file=$(ls -t target/debug/bundle/rpm/kaiport-*.rpm 2>/dev/null | head -n 1)
if [ -z "$rpm_file" ]; then
    echo "test-deb.sh: no .rpm to test (build it with: npm --prefix ui run tauri build -- --debug --bundles deb,rpm)" >&2
    exit 1
fi
echo "test-deb.sh: $rpm_file ($(du -h "$rpm_file" | cut -f1))"
rpm -qip "$rpm_file"
files=$(rpm -qlp "$rpm_file")
for wanted in /usr/bin/kaiport-app /usr/share/applications/kaiport.desktop; do
    if ! grep -qx "$wanted" <<<"$files"; then
        echo "test-deb.sh: the .rpm has no $wanted; it has:" >&2
        echo "$files" >&2
        exit 1
    fi
done
unpacked=$(mktemp -d)
trap 'dpkg -r "$package" >/dev/null; rm -rf "$unpacked"' EXIT
# Installed by rpm itself into a root of its own (with its own database; --nodeps: the Fedora
# names of WebKitGTK and GTK are not in that database, --noscripts: nothing to run).
rpm -i --root "$unpacked" --nodeps --noscripts "$rpm_file" 2> >(grep -v 'should not be used directly\|assuming you know' >&2)
installed=$(rpm --root "$unpacked" -q kaiport 2>/dev/null)
rpm_version=$("$unpacked/usr/bin/kaiport-app" --version)
if [ "$rpm_version" != "kaiport-app $(rpm -qp --queryformat '%{VERSION}' "$rpm_file" 2>/dev/null)" ]; then
    echo "test-deb.sh: the .rpm's kaiport-app --version said '$rpm_version'" >&2
    exit 1
fi
grep -q 'x-scheme-handler/ssh' "$unpacked/usr/share/applications/kaiport.desktop"
echo "test-deb.sh: .rpm installed by rpm into a root of its own ($installed), '$rpm_version' started: 2 passed, 0 failed"
