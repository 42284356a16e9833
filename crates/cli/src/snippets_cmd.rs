//! `kaiport snippets list [--connection NAME]` and `kaiport snippets run NAME --connection
//! CONN [--var k=v]…`: the user's snippets (`snippets.toml` in the config folder) on the
//! command line. A run expands the snippet here, then runs the line on the connection the way
//! `kaiport fleet run` does (its rules, approval, one audit line); it never bypasses them.

use crate::connection::ConnectionOptions;
use crate::fleet_cmd::{RunOptions, run_line};
use anyhow::{Context, bail};
use kaiport_core::connect::profiles::{ProfileKind, ProfileStore};
use kaiport_core::snippets::{SnippetStore, applies};
use kaiport_protocol::{SnippetBuiltins, SnippetScope};
use std::collections::BTreeMap;
use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub enum SnippetsCommand {
    /// List the snippets (with --connection: those that apply to that saved connection).
    List {
        #[arg(long, value_name = "NAME")]
        connection: Option<String>,
        /// Print them as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Expand a snippet and run it on a saved connection, under its rules (like `fleet run`):
    /// `kaiport snippets run "follow log" --connection web1 --var file=/var/log/nginx.log`.
    Run {
        name: String,
        #[arg(long, value_name = "CONN", required = true)]
        connection: String,
        /// A variable's value, `name=value` (repeat for more). `cwd` has no tab here: give it
        /// when the snippet uses `{{cwd}}` without a default.
        #[arg(long = "var", value_name = "NAME=VALUE", value_parser = parse_var)]
        vars: Vec<(String, String)>,
        #[command(flatten)]
        options: RunOptions,
    },
}

fn parse_var(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.to_owned()))
        }
        _ => Err(format!("{text:?} is not NAME=VALUE")),
    }
}

fn scope_words(scope: &SnippetScope) -> String {
    match scope {
        SnippetScope::Global => "every connection".to_owned(),
        SnippetScope::Connection { name } => format!("connection {name}"),
        SnippetScope::Group { tag } => format!("group {tag}"),
    }
}

pub async fn run(command: SnippetsCommand) -> anyhow::Result<ExitCode> {
    let config = ConnectionOptions::default().engine_config()?;
    let store = SnippetStore::load(SnippetStore::path_in(&config.config_dir))?;
    let profiles = || ProfileStore::load(&config.profiles_path);
    match command {
        SnippetsCommand::List { connection, json } => {
            let shown: Vec<_> = match &connection {
                None => store.snippets().to_vec(),
                Some(name) => {
                    let profiles = profiles()?;
                    let profile = profiles
                        .get(name)
                        .with_context(|| format!("there is no saved connection named {name:?}"))?;
                    store
                        .snippets()
                        .iter()
                        .filter(|s| applies(s, Some(name), &profile.tags))
                        .cloned()
                        .collect()
                }
            };
            if json {
                out!("{}", serde_json::to_string_pretty(&shown)?);
            } else {
                if shown.is_empty() {
                    say!(
                        "no snippets in {}",
                        SnippetStore::path_in(&config.config_dir).display()
                    );
                }
                for snippet in &shown {
                    let enter = if snippet.enter { ", presses Enter" } else { "" };
                    out!("{} ({}{enter})", snippet.name, scope_words(&snippet.scope));
                    if !snippet.description.is_empty() {
                        out!("  {}", snippet.description);
                    }
                    out!("  $ {}", snippet.command);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        SnippetsCommand::Run {
            name,
            connection,
            vars,
            options,
        } => {
            let profiles = profiles()?;
            let Some(profile) = profiles.get(&connection) else {
                bail!("there is no saved connection named {connection:?}");
            };
            let Some(snippet) = store.get(&name) else {
                bail!("there is no snippet named {name:?}");
            };
            if !applies(snippet, Some(&connection), &profile.tags) {
                bail!(
                    "snippet {name:?} is for {}, not for connection {connection:?}",
                    scope_words(&snippet.scope)
                );
            }
            let mut builtins = SnippetBuiltins::default();
            if let ProfileKind::Ssh { host, user, .. } = &profile.kind {
                builtins.host = Some(host.clone());
                builtins.user = Some(user.clone());
            }
            let mut values = BTreeMap::new();
            for (key, value) in vars {
                if values.insert(key.clone(), value).is_some() {
                    bail!("--var {key} is given twice");
                }
            }
            let (line, _enter) = store.expand(&name, &values, &builtins)?;
            say!("{connection}: {line}");
            // The audit line's call is `snippet:<name>/<connection>`.
            run_line(
                &format!("snippet:{name}"),
                vec![connection],
                line,
                &options,
                None,
            )
            .await
        }
    }
}
