#!/usr/bin/env bash
# After `tauri ios init` / `tauri android init` (which write src-tauri/gen/): puts in what those
# templates do not have. iOS: the keychain entitlement (saved secrets in kaiport's own access
# group). Android: the permissions of android/permissions.xml in the app's manifest. The
# Info.plist keys need no step: tauri.ios.conf.json merges ios/Info.plist on every build.
# Safe to run again; says what it changed. Usage: bash mobile/prepare.sh [GEN_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gen="${1:-$here/../src-tauri/gen}"
done_any=no

apple="$gen/apple/kaiport_iOS"
if [ -d "$gen/apple" ]; then
    mkdir -p "$apple"
    if ! cmp -s "$here/ios/kaiport_iOS.entitlements" "$apple/kaiport_iOS.entitlements"; then
        cp "$here/ios/kaiport_iOS.entitlements" "$apple/kaiport_iOS.entitlements"
        echo "prepare.sh: iOS: the keychain entitlement written to $apple/kaiport_iOS.entitlements"
    fi
    done_any=yes
fi

manifest="$gen/android/app/src/main/AndroidManifest.xml"
if [ -d "$gen/android" ]; then
    if [ ! -f "$manifest" ]; then
        echo "prepare.sh: $manifest is missing: run \`npm --prefix ui run tauri -- android init\` first" >&2
        exit 1
    fi
    while IFS= read -r line; do
        permission=$(sed -n 's/.*android:name="\([^"]*\)".*/\1/p' <<<"$line")
        if ! grep -q "android:name=\"$permission\"" "$manifest"; then
            # Before <application: permissions belong directly under <manifest>.
            awk -v add="    $line" '!added && /<application/ { print add; added = 1 } { print }' \
                "$manifest" >"$manifest.new"
            if ! grep -q "android:name=\"$permission\"" "$manifest.new"; then
                rm -f "$manifest.new"
                echo "prepare.sh: $manifest has no <application> element to put $permission before" >&2
                exit 1
            fi
            mv "$manifest.new" "$manifest"
            echo "prepare.sh: Android: $permission added to $manifest"
        fi
    done < <(grep '<uses-permission' "$here/android/permissions.xml")
    done_any=yes
fi

if [ "$done_any" = no ]; then
    echo "prepare.sh: nothing in $gen: run \`tauri ios init\` or \`tauri android init\` first" >&2
    exit 1
fi
