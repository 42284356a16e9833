//! Turns kaiport-core's desktop tools on for whoever depends on this crate.
//!
//! The desktop app depends on it for desktop targets only (src-tauri/Cargo.toml), so an iPhone or
//! Android build of the same app resolves kaiport-core without edit_file, show_view, the plan
//! mode and the local terminal. Cargo cannot take one crate twice under two names in one
//! package, hence a crate of its own. It must never hold code: features only.
