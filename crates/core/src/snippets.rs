//! Snippets: named command lines with `{{variables}}`, kept in `<config_dir>/snippets.toml`
//! beside the saved connections, and their expansion into the one line a user types.
//!
//! The file is a list of `[[snippet]]` tables:
//! ```toml
//! [[snippet]]
//! name = "follow log"
//! description = "Follow a log file"
//! command = "tail -f {{file:/var/log/syslog}}"
//! enter = true          # press Enter after typing it (default false)
//! connection = "web1"   # or group = "web" (a tag); neither: every terminal tab
//! ```
//! Command syntax: `{{name}}` is a variable the user is asked for, `{{name:default}}` one with
//! a default (everything after the first `:` up to `}}`, kept as written), `{{host}}`,
//! `{{user}}` and `{{cwd}}` are filled in from the tab, and `\{{` is a literal `{{`. Single
//! braces (`${HOME}`, `awk '{print $1}'`) are plain text. A command and every value is one
//! line: no control characters besides tab.
//!
//! Saving is atomic ([`crate::connect::profiles::write_atomic`]). This module never runs or
//! types anything, and the file must never hold a secret (a snippet is a line typed in view).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kaiport_protocol::{Snippet, SnippetBuiltins, SnippetScope, SnippetVariable};
use serde::{Deserialize, Serialize};

/// The file name of the snippet store inside the config dir.
pub const SNIPPETS_FILE: &str = "snippets.toml";
/// The variables filled in from the tab.
pub const BUILTINS: [&str; 3] = ["host", "user", "cwd"];
/// The longest snippet name, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// The longest command or description, in bytes.
pub const MAX_COMMAND_BYTES: usize = 4096;

/// What is wrong with a snippet, its file or an expansion. The messages name the snippet or
/// variable, never a value (which could be anything the user typed).
#[derive(Debug, thiserror::Error)]
pub enum SnippetError {
    #[error("`{{{{` at character {at} has no closing `}}}}` (write `\\{{{{` for a literal `{{{{`)")]
    Unclosed { at: usize },
    #[error(
        "{name:?} is not a variable name: use letters, digits, `_`, `-` and `.`, starting with a letter or `_`"
    )]
    BadVariable { name: String },
    #[error("{what} must be one line without control characters")]
    ControlCharacter { what: String },
    #[error("{what} is longer than {limit}")]
    TooLong { what: String, limit: String },
    #[error("a snippet needs a name")]
    NoName,
    #[error("a snippet needs a command")]
    NoCommand,
    #[error("{kind} scope needs a name")]
    EmptyScope { kind: &'static str },
    #[error("there is no snippet named {0:?}")]
    NotFound(String),
    #[error("a snippet named {0:?} exists already")]
    Exists(String),
    #[error("snippet {snippet:?} has no variable {name:?}")]
    UnknownVariable { snippet: String, name: String },
    #[error("snippet {snippet:?} needs a value for {}", names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", "))]
    Missing { snippet: String, names: Vec<String> },
    #[error("{}:{line}: {message}. Fix or remove that line; kaiport will not overwrite the file until it reads cleanly.", path.display())]
    Malformed {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("snippet {snippet:?} in {}: {source}", path.display())]
    BadSnippet {
        path: PathBuf,
        snippet: String,
        #[source]
        source: Box<SnippetError>,
    },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Write(#[from] crate::connect::profiles::ProfileError),
}

/// One piece of a parsed command.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Variable {
        name: String,
        default: Option<String>,
    },
}

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

/// Refuses control characters (a newline would run half a line) other than tab.
fn one_line(what: &str, text: &str) -> Result<(), SnippetError> {
    if text.chars().any(|c| c.is_control() && c != '\t') {
        return Err(SnippetError::ControlCharacter {
            what: what.to_owned(),
        });
    }
    Ok(())
}

fn valid_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

impl Template {
    /// Parses a command (see the module docs for the syntax).
    pub fn parse(command: &str) -> Result<Template, SnippetError> {
        one_line("the command", command)?;
        let mut parts = Vec::new();
        let mut text = String::new();
        let mut rest = command;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix("\\{{") {
                text.push_str("{{");
                rest = after;
            } else if let Some(after) = rest.strip_prefix("{{") {
                let at = command.len() - rest.len();
                let end = after.find("}}").ok_or(SnippetError::Unclosed { at })?;
                let inner = &after[..end];
                let (name, default) = match inner.split_once(':') {
                    Some((name, default)) => (name.trim(), Some(default.to_owned())),
                    None => (inner.trim(), None),
                };
                if !valid_variable_name(name) {
                    return Err(SnippetError::BadVariable {
                        name: name.to_owned(),
                    });
                }
                if !text.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut text)));
                }
                parts.push(Part::Variable {
                    name: name.to_owned(),
                    default,
                });
                rest = &after[end + 2..];
            } else {
                let mut chars = rest.chars();
                if let Some(c) = chars.next() {
                    text.push(c);
                }
                rest = chars.as_str();
            }
        }
        if !text.is_empty() {
            parts.push(Part::Text(text));
        }
        Ok(Template { parts })
    }

    /// The variables, each once, in the order they first appear; the first default written
    /// for a name is its default.
    pub fn variables(&self) -> Vec<SnippetVariable> {
        let mut seen: Vec<SnippetVariable> = Vec::new();
        for part in &self.parts {
            let Part::Variable { name, default } = part else {
                continue;
            };
            match seen.iter_mut().find(|known| &known.name == name) {
                Some(known) => {
                    if known.default.is_none() {
                        known.default.clone_from(default);
                    }
                }
                None => seen.push(SnippetVariable {
                    name: name.clone(),
                    default: default.clone(),
                    builtin: BUILTINS.contains(&name.as_str()),
                }),
            }
        }
        seen
    }

    /// The line: each variable from `values`, else (a built-in) from `builtins`, else its
    /// default. `snippet` names the snippet in errors. A value for a name the command does
    /// not have, a variable left without a value, or a value with a control character is an
    /// error.
    pub fn expand(
        &self,
        snippet: &str,
        values: &BTreeMap<String, String>,
        builtins: &SnippetBuiltins,
    ) -> Result<String, SnippetError> {
        let variables = self.variables();
        if let Some(name) = values
            .keys()
            .find(|name| !variables.iter().any(|v| &v.name == *name))
        {
            return Err(SnippetError::UnknownVariable {
                snippet: snippet.to_owned(),
                name: name.clone(),
            });
        }
        let mut chosen: BTreeMap<&str, String> = BTreeMap::new();
        let mut missing = Vec::new();
        for variable in &variables {
            let builtin = match variable.name.as_str() {
                "host" => builtins.host.clone(),
                "user" => builtins.user.clone(),
                "cwd" => builtins.cwd.clone(),
                _ => None,
            };
            let value = values
                .get(&variable.name)
                .cloned()
                .or(builtin)
                .or_else(|| variable.default.clone());
            match value {
                Some(value) => {
                    one_line(&format!("the value of {:?}", variable.name), &value)?;
                    chosen.insert(&variable.name, value);
                }
                None => missing.push(variable.name.clone()),
            }
        }
        if !missing.is_empty() {
            return Err(SnippetError::Missing {
                snippet: snippet.to_owned(),
                names: missing,
            });
        }
        let mut line = String::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => line.push_str(text),
                Part::Variable { name, .. } => {
                    line.push_str(chosen.get(name.as_str()).map_or("", String::as_str));
                }
            }
        }
        Ok(line)
    }
}

/// Checks a snippet as it would be saved and fills in its variables; the name trimmed.
pub fn checked(mut snippet: Snippet) -> Result<Snippet, SnippetError> {
    snippet.name = snippet.name.trim().to_owned();
    if snippet.name.is_empty() {
        return Err(SnippetError::NoName);
    }
    one_line("the name", &snippet.name)?;
    one_line("the description", &snippet.description)?;
    if snippet.name.chars().count() > MAX_NAME_CHARS {
        return Err(SnippetError::TooLong {
            what: "the name".to_owned(),
            limit: format!("{MAX_NAME_CHARS} characters"),
        });
    }
    for (what, text) in [
        ("the command", &snippet.command),
        ("the description", &snippet.description),
    ] {
        if text.len() > MAX_COMMAND_BYTES {
            return Err(SnippetError::TooLong {
                what: what.to_owned(),
                limit: format!("{MAX_COMMAND_BYTES} bytes"),
            });
        }
    }
    if snippet.command.trim().is_empty() {
        return Err(SnippetError::NoCommand);
    }
    match &mut snippet.scope {
        SnippetScope::Global => {}
        SnippetScope::Connection { name } => {
            *name = name.trim().to_owned();
            if name.is_empty() {
                return Err(SnippetError::EmptyScope {
                    kind: "a connection",
                });
            }
        }
        SnippetScope::Group { tag } => {
            *tag = tag.trim().to_owned();
            if tag.is_empty() {
                return Err(SnippetError::EmptyScope { kind: "a group" });
            }
        }
    }
    snippet.variables = Template::parse(&snippet.command)?.variables();
    Ok(snippet)
}

/// Whether `snippet` applies to a tab of saved connection `profile` (none: a connection not
/// saved, or this computer) with `tags`.
pub fn applies(snippet: &Snippet, profile: Option<&str>, tags: &[String]) -> bool {
    match &snippet.scope {
        SnippetScope::Global => true,
        SnippetScope::Connection { name } => profile == Some(name.as_str()),
        SnippetScope::Group { tag } => profile.is_some() && tags.iter().any(|t| t == tag),
    }
}

/// A snippet as the file keeps it: the scope as `connection` or `group`, never both.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    description: String,
    command: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    enter: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    connection: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    group: Option<String>,
}

impl From<&Snippet> for Stored {
    fn from(snippet: &Snippet) -> Stored {
        let (connection, group) = match &snippet.scope {
            SnippetScope::Global => (None, None),
            SnippetScope::Connection { name } => (Some(name.clone()), None),
            SnippetScope::Group { tag } => (None, Some(tag.clone())),
        };
        Stored {
            name: snippet.name.clone(),
            description: snippet.description.clone(),
            command: snippet.command.clone(),
            enter: snippet.enter,
            connection,
            group,
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StoredFile {
    #[serde(default, rename = "snippet", skip_serializing_if = "Vec::is_empty")]
    snippets: Vec<Stored>,
}

#[derive(Debug, Default, Deserialize)]
struct RawFile {
    #[serde(default, rename = "snippet")]
    snippets: Vec<toml::Spanned<toml::Table>>,
}

/// The saved snippets and the file they live in.
#[derive(Debug, Clone)]
pub struct SnippetStore {
    path: PathBuf,
    snippets: Vec<Snippet>,
}

impl SnippetStore {
    /// `<config_dir>/snippets.toml`.
    pub fn path_in(config_dir: &Path) -> PathBuf {
        config_dir.join(SNIPPETS_FILE)
    }

    /// Loads the file at `path` (empty when it does not exist yet); a malformed file or
    /// snippet is an error naming the file and line or snippet.
    pub fn load(path: impl Into<PathBuf>) -> Result<SnippetStore, SnippetError> {
        let path = path.into();
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => return Err(SnippetError::Read { path, source }),
        };
        let line_of = |offset: usize| text[..offset.min(text.len())].lines().count().max(1);
        let raw: RawFile = toml::from_str(&text).map_err(|error| SnippetError::Malformed {
            path: path.clone(),
            line: error.span().map_or(1, |span| line_of(span.start)),
            message: error.message().to_owned(),
        })?;
        let mut snippets: Vec<Snippet> = Vec::new();
        for entry in raw.snippets {
            let line = line_of(entry.span().start);
            let stored: Stored = toml::Value::Table(entry.into_inner()).try_into().map_err(
                |error: toml::de::Error| SnippetError::Malformed {
                    path: path.clone(),
                    line,
                    message: error.message().to_owned(),
                },
            )?;
            let scope = match (stored.connection, stored.group) {
                (None, None) => SnippetScope::Global,
                (Some(name), None) => SnippetScope::Connection { name },
                (None, Some(tag)) => SnippetScope::Group { tag },
                (Some(_), Some(_)) => {
                    return Err(SnippetError::Malformed {
                        path,
                        line,
                        message: "a snippet has `connection` or `group`, not both".to_owned(),
                    });
                }
            };
            let name = stored.name.clone();
            let snippet = checked(Snippet {
                name: stored.name,
                description: stored.description,
                command: stored.command,
                enter: stored.enter,
                scope,
                variables: Vec::new(),
            })
            .map_err(|source| SnippetError::BadSnippet {
                path: path.clone(),
                snippet: name.clone(),
                source: Box::new(source),
            })?;
            if snippets.iter().any(|known| known.name == snippet.name) {
                return Err(SnippetError::Malformed {
                    path,
                    line,
                    message: format!("a second snippet is named {name:?}"),
                });
            }
            snippets.push(snippet);
        }
        Ok(SnippetStore { path, snippets })
    }

    pub fn snippets(&self) -> &[Snippet] {
        &self.snippets
    }

    pub fn get(&self, name: &str) -> Option<&Snippet> {
        self.snippets.iter().find(|s| s.name == name)
    }

    /// Adds `snippet` (checked), replacing the one called `previous` (an edit that may
    /// rename it) or else the one of its name. Renaming onto another snippet's name is
    /// refused.
    pub fn upsert(&mut self, snippet: Snippet, previous: Option<&str>) -> Result<(), SnippetError> {
        let snippet = checked(snippet)?;
        let replaced = previous.unwrap_or(&snippet.name);
        if replaced != snippet.name && self.get(&snippet.name).is_some() {
            return Err(SnippetError::Exists(snippet.name));
        }
        match self.snippets.iter_mut().find(|s| s.name == replaced) {
            Some(existing) => *existing = snippet,
            None => self.snippets.push(snippet),
        }
        Ok(())
    }

    /// Removes the snippet called `name`.
    pub fn remove(&mut self, name: &str) -> Result<(), SnippetError> {
        let index = self
            .snippets
            .iter()
            .position(|s| s.name == name)
            .ok_or_else(|| SnippetError::NotFound(name.to_owned()))?;
        self.snippets.remove(index);
        Ok(())
    }

    /// Writes the file atomically.
    pub fn save(&self) -> Result<(), SnippetError> {
        let file = StoredFile {
            snippets: self.snippets.iter().map(Stored::from).collect(),
        };
        let text = toml::to_string_pretty(&file)
            .map_err(|error| crate::connect::profiles::ProfileError::Encode(error.to_string()))?;
        crate::connect::profiles::write_atomic(&self.path, &text)?;
        Ok(())
    }

    /// Expands snippet `name` with `values` and `builtins`: the line and its Enter flag.
    pub fn expand(
        &self,
        name: &str,
        values: &BTreeMap<String, String>,
        builtins: &SnippetBuiltins,
    ) -> Result<(String, bool), SnippetError> {
        let snippet = self
            .get(name)
            .ok_or_else(|| SnippetError::NotFound(name.to_owned()))?;
        let line = Template::parse(&snippet.command)?.expand(name, values, builtins)?;
        Ok((line, snippet.enter))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn expand(command: &str, pairs: &[(&str, &str)], builtins: &SnippetBuiltins) -> String {
        match Template::parse(command).and_then(|t| t.expand("t", &values(pairs), builtins)) {
            Ok(line) => line,
            Err(error) => format!("error: {error}"),
        }
    }

    #[test]
    fn variables_defaults_and_builtins_expand() {
        let none = SnippetBuiltins::default();
        assert_eq!(
            expand(
                "tail -n {{lines:50}} {{file}}",
                &[("file", "/var/log/x")],
                &none
            ),
            "tail -n 50 /var/log/x"
        );
        assert_eq!(
            expand("tail -n {{lines:50}}", &[("lines", "7")], &none),
            "tail -n 7"
        );
        // A default keeps colons and spaces after the first colon.
        assert_eq!(
            expand("curl {{url:http://h:80/a b}}", &[], &none),
            "curl http://h:80/a b"
        );
        let tab = SnippetBuiltins {
            host: Some("web1".into()),
            user: Some("deploy".into()),
            cwd: Some("/srv/app".into()),
        };
        assert_eq!(
            expand("scp f {{user}}@{{host}}:{{cwd}}/ # {{ host }}", &[], &tab),
            "scp f deploy@web1:/srv/app/ # web1"
        );
        let template = Template::parse("cd {{cwd:/tmp}} && {{x}} {{x:ignored}} {{host}}").unwrap();
        let names: Vec<_> = template
            .variables()
            .into_iter()
            .map(|v| (v.name, v.default, v.builtin))
            .collect();
        assert_eq!(
            names,
            vec![
                ("cwd".to_owned(), Some("/tmp".to_owned()), true),
                ("x".to_owned(), Some("ignored".to_owned()), false),
                ("host".to_owned(), None, true),
            ]
        );
    }

    #[test]
    fn an_unknown_cwd_is_asked_for_or_defaulted() {
        let no_cwd = SnippetBuiltins {
            host: Some("h".into()),
            ..SnippetBuiltins::default()
        };
        assert_eq!(
            expand("ls {{cwd}}", &[], &no_cwd),
            "error: snippet \"t\" needs a value for \"cwd\""
        );
        assert_eq!(expand("ls {{cwd}}", &[("cwd", "/etc")], &no_cwd), "ls /etc");
        assert_eq!(expand("ls {{cwd:/}}", &[], &no_cwd), "ls /");
    }

    #[test]
    fn unknown_and_missing_variables_are_refused() {
        let none = SnippetBuiltins::default();
        assert_eq!(
            expand("echo {{a}}", &[("a", "1"), ("b", "2")], &none),
            "error: snippet \"t\" has no variable \"b\""
        );
        assert_eq!(
            expand("echo {{a}} {{b}}", &[], &none),
            "error: snippet \"t\" needs a value for \"a\", \"b\""
        );
        assert_eq!(
            expand("echo {{a}}", &[("a", "1\nreboot")], &none),
            "error: the value of \"a\" must be one line without control characters"
        );
    }

    #[test]
    fn literal_braces_stay() {
        let none = SnippetBuiltins::default();
        assert_eq!(
            expand("awk '{print $1}' ${HOME} \\{{a}} }}", &[], &none),
            "awk '{print $1}' ${HOME} {{a}} }}"
        );
        assert!(matches!(
            Template::parse("echo {{a"),
            Err(SnippetError::Unclosed { at: 5 })
        ));
        assert!(matches!(
            Template::parse("echo {{ }}"),
            Err(SnippetError::BadVariable { .. })
        ));
        assert!(matches!(
            Template::parse("echo {{1a}}"),
            Err(SnippetError::BadVariable { .. })
        ));
        assert!(matches!(
            Template::parse("echo a\nb"),
            Err(SnippetError::ControlCharacter { .. })
        ));
    }

    fn snippet(name: &str, scope: SnippetScope) -> Snippet {
        Snippet {
            name: name.to_owned(),
            description: String::new(),
            command: "echo {{what:hi}}".to_owned(),
            enter: false,
            scope,
            variables: Vec::new(),
        }
    }

    #[test]
    fn scopes_choose_the_tabs() {
        let tags = ["web".to_owned()];
        let global = snippet("g", SnippetScope::Global);
        let web1 = snippet(
            "c",
            SnippetScope::Connection {
                name: "web1".into(),
            },
        );
        let web = snippet("w", SnippetScope::Group { tag: "web".into() });
        assert!(applies(&global, None, &[]));
        assert!(applies(&web1, Some("web1"), &[]));
        assert!(!applies(&web1, Some("db1"), &tags));
        assert!(applies(&web, Some("db1"), &tags));
        assert!(!applies(&web, None, &[]));
    }

    #[test]
    fn the_store_round_trips_and_refuses_bad_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = SnippetStore::path_in(dir.path());
        let mut store = SnippetStore::load(&path).unwrap();
        assert!(store.snippets().is_empty());
        store
            .upsert(snippet(" a ", SnippetScope::Global), None)
            .unwrap();
        store
            .upsert(
                snippet("b", SnippetScope::Group { tag: "web".into() }),
                None,
            )
            .unwrap();
        assert!(matches!(
            store.upsert(snippet("b", SnippetScope::Global), Some("a")),
            Err(SnippetError::Exists(_))
        ));
        store
            .upsert(snippet("c", SnippetScope::Global), Some("a"))
            .unwrap();
        store.save().unwrap();
        let loaded = SnippetStore::load(&path).unwrap();
        let names: Vec<_> = loaded.snippets().iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["c", "b"]);
        assert_eq!(
            loaded.snippets()[1].scope,
            SnippetScope::Group { tag: "web".into() }
        );
        assert_eq!(
            loaded.snippets()[0].variables[0].default.as_deref(),
            Some("hi")
        );
        let (line, enter) = loaded
            .expand("c", &BTreeMap::new(), &SnippetBuiltins::default())
            .unwrap();
        assert_eq!((line.as_str(), enter), ("echo hi", false));

        std::fs::write(&path, "[[snippet]]\nname = \"x\"\ncommand = \"a {{b\"\n").unwrap();
        let error = SnippetStore::load(&path).unwrap_err().to_string();
        assert!(error.contains("snippet \"x\""), "{error}");
        std::fs::write(
            &path,
            "[[snippet]]\nname = \"x\"\npassword = \"p\"\ncommand = \"a\"\n",
        )
        .unwrap();
        let error = SnippetStore::load(&path).unwrap_err().to_string();
        assert!(
            error.contains(":1:") && error.contains("password"),
            "{error}"
        );
    }
}
