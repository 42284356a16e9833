//! Paths as the user writes them in kaiport's files and forms: a leading `~` is the home folder.
//!
//! The lowest module of `connect`: it uses none of the others, so every one of them may use it.
//! It must never touch the file system.

use std::path::PathBuf;

/// Expands a leading `~` / `~/` to the home folder.
pub fn expand_tilde(path: &str) -> PathBuf {
    if path == "~" {
        return dirs::home_dir().unwrap_or_else(|| PathBuf::from(path));
    }
    if let Some(rest) = path.strip_prefix("~/")
        && let Some(home) = dirs::home_dir()
    {
        return home.join(rest);
    }
    PathBuf::from(path)
}
