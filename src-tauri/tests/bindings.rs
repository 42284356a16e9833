//! The desktop window's TypeScript bindings (`ui/src/lib/desktop.ts`) are generated from the
//! commands in src/ipc.rs by tauri-specta; this test fails when the committed file is stale
//! (`scripts/gen-types.sh` rewrites it, running this test with `KAIPORT_WRITE_TYPES=1`). The
//! capability file must grant exactly the commands there are, each used by the page.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn bindings() -> String {
    // One folder per call: the tests run side by side.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("kaiport-bindings-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|error| panic!("creating {}: {error}", dir.display()));
    let path = dir.join("desktop.ts");
    kaiport_app_lib::ipc::builder()
        .export(
            specta_typescript::Typescript::default().header(kaiport_app_lib::ipc::BINDINGS_HEADER),
            &path,
        )
        .unwrap_or_else(|error| panic!("exporting the desktop bindings: {error}"));
    let text = read(&path);
    let _ = std::fs::remove_dir_all(&dir);
    text
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[test]
fn the_committed_desktop_bindings_match_the_commands() {
    let generated = bindings();
    let path = root().join("ui/src/lib/desktop.ts");
    if std::env::var_os("KAIPORT_WRITE_TYPES").is_some() {
        std::fs::write(&path, &generated)
            .unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is stale (or missing): run scripts/gen-types.sh and commit the result",
        path.display()
    );
}

/// The command names the bindings invoke.
fn commands(bindings: &str) -> Vec<String> {
    // `__TAURI_INVOKE<Result>("name", …)`
    bindings
        .split("__TAURI_INVOKE<")
        .skip(1)
        .filter_map(|rest| rest.split_once(">(\"").map(|(_, name)| name))
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_capability_grants_each_command_once_and_nothing_else() {
    let generated = bindings();
    let mut commands = commands(&generated);
    commands.sort();
    assert!(!commands.is_empty(), "no command found in the bindings");
    let capability: serde_json::Value =
        serde_json::from_str(&read(&root().join("src-tauri/capabilities/main.json"))).unwrap();
    let mut granted: Vec<String> = capability["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|permission| permission.as_str().unwrap().to_owned())
        .collect();
    granted.sort();
    let expected: Vec<String> = commands
        .iter()
        .map(|command| format!("allow-{}", command.replace('_', "-")))
        .collect();
    assert_eq!(
        granted, expected,
        "the capability must grant exactly the commands"
    );
    // The permissions tauri-build made are the same commands (build.rs's list).
    let build = read(&root().join("src-tauri/build.rs"));
    for command in &commands {
        assert!(
            build.contains(&format!("\"{command}\"")),
            "{command} is not in build.rs"
        );
    }
    // And the page calls each of them.
    let transport = read(&root().join("ui/src/lib/transport/desktop-link.ts"));
    for command in &commands {
        let accessor = camel(command);
        assert!(
            transport.contains(&format!("commands.{accessor}(")),
            "the page never calls {command}"
        );
    }
    // No shell or fs plugin, and no plugin command granted to the page.
    let manifest = read(&root().join("src-tauri/Cargo.toml"));
    for plugin in ["tauri-plugin-shell", "tauri-plugin-fs"] {
        assert!(!manifest.contains(plugin), "{plugin} must not be used");
    }
}

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn the_csp_allows_no_remote_script_and_no_eval() {
    let config: serde_json::Value =
        serde_json::from_str(&read(&root().join("src-tauri/tauri.conf.json"))).unwrap();
    let csp = &config["app"]["security"]["csp"];
    let script = csp["script-src"].as_str().unwrap();
    assert_eq!(script, "'self'");
    assert_eq!(csp["default-src"].as_str(), Some("'self'"));
    for (directive, value) in csp.as_object().unwrap() {
        let value = value.as_str().unwrap();
        assert!(!value.contains("unsafe-eval"), "{directive}: {value}");
        assert!(
            !value.contains("https:") && !value.contains('*'),
            "{directive}: {value}"
        );
    }
}
