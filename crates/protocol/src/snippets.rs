//! Snippets: named command lines with `{{variables}}` that the user keeps beside the saved
//! connections (`Op::ListSnippets`, `Op::SaveSnippet`, `Op::DeleteSnippet`,
//! `Op::ExpandSnippet` and the events that answer them).
//!
//! Plain data, never a secret: a snippet is a command line the user types, and its file
//! (`snippets.toml`) is no place for passwords.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use specta::Type;

/// Where a snippet applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SnippetScope {
    /// Every terminal tab.
    Global,
    /// Tabs of one saved connection.
    Connection { name: String },
    /// Tabs of the saved connections that have this tag (group).
    Group { tag: String },
}

/// One variable of a snippet's command, in the order it first appears.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct SnippetVariable {
    pub name: String,
    /// `{{name:default}}`: the value used when none is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// `host`, `user` or `cwd`: filled in from the tab (asked only when the tab does not know
    /// it, e.g. the current folder without shell integration).
    #[serde(default)]
    pub builtin: bool,
}

/// A saved snippet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct Snippet {
    /// Unique among the snippets (trimmed, at most 64 characters).
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// One line: `{{name}}` is a variable, `{{name:default}}` one with a default, `{{host}}`,
    /// `{{user}}` and `{{cwd}}` are built in, and `\{{` is a literal `{{`.
    pub command: String,
    /// Press Enter after typing it (otherwise the line waits at the prompt for the user).
    #[serde(default)]
    pub enter: bool,
    pub scope: SnippetScope,
    /// The command's variables, as the engine parsed them (filled in by `Event::Snippets`,
    /// ignored by `Op::SaveSnippet`).
    #[serde(default)]
    pub variables: Vec<SnippetVariable>,
}

/// What a tab knows of the built-in variables (`Event::Snippets` for a tab); None is unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct SnippetBuiltins {
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default)]
    pub user: Option<String>,
    /// The shell's current folder as its integration last reported it (OSC 7).
    #[serde(default)]
    pub cwd: Option<String>,
}

/// One value the user gave a variable (`Op::ExpandSnippet`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Type)]
pub struct SnippetValue {
    pub name: String,
    pub value: String,
}
