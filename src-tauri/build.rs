//! tauri-build: the app's context (config, icons, capabilities) and a permission for each of
//! kaiport's own commands (`allow-attach`, …), so the capability file grants them by name.
//! tests/bindings.rs checks this list against the commands and the capability file.
//!
//! The window embeds `ui/dist` at compile time. Where the UI was not built yet (a fresh clone
//! running `cargo check`), a page saying how to build it stands in, as `kaiport serve` does.

use std::path::Path;

/// The commands of src/ipc.rs.
const COMMANDS: [&str; 3] = ["attach", "send", "choose_path"];

const UI_NOT_BUILT: &str = "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\">\
<title>kaiport: the UI was not built</title>\
<body style=\"font-family:system-ui,sans-serif;max-width:40em;margin:4em auto;line-height:1.5\">\
<h1>The UI was not built into this kaiport</h1>\
<p>Build the UI, then the app: <code>npm --prefix ui ci &amp;&amp; npm --prefix ui run tauri build</code>.</p>\
</body></html>\n";

fn main() {
    let dist = Path::new("../ui/dist");
    if !dist.join("index.html").exists()
        && let Err(error) = std::fs::create_dir_all(dist)
            .and_then(|()| std::fs::write(dist.join("index.html"), UI_NOT_BUILT))
    {
        panic!("writing a stand-in ui/dist: {error}");
    }
    let manifest = tauri_build::AppManifest::new().commands(&COMMANDS);
    if let Err(error) =
        tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest))
    {
        panic!("tauri-build: {error:#}");
    }
}
