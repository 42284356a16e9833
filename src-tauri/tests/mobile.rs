//! The phone and tablet build's files in `mobile/`, checked here where neither Xcode nor the
//! Android SDK exists: the configuration overlays merge into tauri.conf.json and parse as tauri
//! parses them, the Info.plist keys and the keychain entitlement are there, and
//! `mobile/prepare.sh` puts the entitlement and the network permission into a generated
//! project (once, however often it runs). The tool set by target is checked by scripts/test.sh
//! (`cargo tree --target`), the build itself by a Mac following mobile/README.md.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// RFC 7396 merge patch, which is how tauri applies a platform file over tauri.conf.json.
fn merge(base: &mut Value, patch: &Value) {
    match (base, patch) {
        (Value::Object(base), Value::Object(patch)) => {
            for (key, value) in patch {
                if value.is_null() {
                    base.remove(key);
                } else {
                    merge(base.entry(key.clone()).or_insert(Value::Null), value);
                }
            }
        }
        (base, patch) => *base = patch.clone(),
    }
}

/// tauri.conf.json with `overlay` over it, parsed as tauri's own configuration type.
fn merged(overlay: &str) -> (Value, tauri_utils::config::Config) {
    let mut config = json(&root().join("src-tauri/tauri.conf.json"));
    merge(&mut config, &json(&root().join("mobile").join(overlay)));
    if let Value::Object(fields) = &mut config {
        fields.remove("$schema");
    }
    let parsed = serde_json::from_value(config.clone())
        .unwrap_or_else(|error| panic!("tauri.conf.json with mobile/{overlay}: {error}"));
    (config, parsed)
}

#[test]
fn the_ios_overlay_parses_and_names_the_app_and_its_info_plist() {
    let (raw, config) = merged("tauri.ios.conf.json");
    assert_eq!(config.identifier, "dev.kaiport.mobile");
    assert_eq!(config.bundle.ios.minimum_system_version, "16.0");
    // The path is taken from src-tauri, as tauri takes every path of its configuration.
    let plist = raw["bundle"]["iOS"]["infoPlist"].as_str().unwrap();
    let plist = root().join("src-tauri").join(plist);
    let text = read(&plist);
    for key in [
        "NSLocalNetworkUsageDescription",
        "UIFileSharingEnabled",
        "LSSupportsOpeningDocumentsInPlace",
    ] {
        assert!(
            text.contains(&format!("<key>{key}</key>")),
            "{key} missing from {}",
            plist.display()
        );
    }
    // The desktop settings stay as they are.
    assert!(config.app.security.csp.is_some());
}

#[test]
fn the_android_overlay_parses_and_names_the_app() {
    let (_, config) = merged("tauri.android.conf.json");
    assert_eq!(config.identifier, "dev.kaiport.mobile");
    assert!(config.bundle.android.min_sdk_version >= 28);
}

#[test]
fn the_keychain_entitlement_names_kaiports_own_group() {
    let text = read(&root().join("mobile/ios/kaiport_iOS.entitlements"));
    assert!(text.contains("<key>keychain-access-groups</key>"));
    assert!(text.contains("<string>$(AppIdentifierPrefix)dev.kaiport.mobile</string>"));
}

/// A manifest shaped like the one `tauri android init` writes (no INTERNET permission in it).
const MANIFEST: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<manifest xmlns:android="http://schemas.android.com/apk/res/android">
    <application
        android:label="kaiport">
        <activity android:name=".MainActivity" />
    </application>
</manifest>
"#;

fn prepare(gen_dir: &Path) -> std::process::Output {
    Command::new("bash")
        .arg(root().join("mobile/prepare.sh"))
        .arg(gen_dir)
        .output()
        .expect("running mobile/prepare.sh")
}

#[test]
fn prepare_puts_the_entitlement_and_the_permission_in_once() {
    let dir = tempfile::tempdir().unwrap();
    let gen_dir = dir.path();
    std::fs::create_dir_all(gen_dir.join("apple/kaiport_iOS")).unwrap();
    let manifest = gen_dir.join("android/app/src/main/AndroidManifest.xml");
    std::fs::create_dir_all(manifest.parent().unwrap()).unwrap();
    std::fs::write(&manifest, MANIFEST).unwrap();

    for run in 0..2 {
        let out = prepare(gen_dir);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "run {run}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The first run says what it changed; the second has nothing to change.
        assert_eq!(
            stdout.contains("INTERNET added"),
            run == 0,
            "run {run}: {stdout}"
        );
        let text = read(&manifest);
        let permission = r#"<uses-permission android:name="android.permission.INTERNET" />"#;
        assert_eq!(text.matches(permission).count(), 1, "run {run}:\n{text}");
        assert!(text.find(permission) < text.find("<application"), "{text}");
    }
    assert_eq!(
        read(&gen_dir.join("apple/kaiport_iOS/kaiport_iOS.entitlements")),
        read(&root().join("mobile/ios/kaiport_iOS.entitlements"))
    );
}

#[test]
fn prepare_says_what_to_run_first_when_nothing_was_generated() {
    let dir = tempfile::tempdir().unwrap();
    let out = prepare(dir.path());
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("tauri ios init") && stderr.contains("tauri android init"),
        "{stderr}"
    );
}
