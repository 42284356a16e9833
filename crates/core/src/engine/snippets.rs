//! The snippet ops (`ListSnippets`, `SaveSnippet`, `DeleteSnippet`, `ExpandSnippet`): the
//! files of [`crate::snippets`] and [`crate::connect::profiles`] read and written on the
//! blocking pool, with what a tab knows of the built-in variables (`host`, `user`, `cwd`).
//!
//! Nothing here types into a terminal: `ExpandSnippet` answers with the line, and the front
//! end sends it as the user's own input.

use super::{Inner, lock};
use crate::connect::profiles::{ProfileKind, ProfileStore};
use crate::snippets::{self, SnippetStore};
use kaiport_protocol::{Event, Op, Snippet, SnippetBuiltins, TabKind, TabTarget};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// What a tab is, for choosing its snippets and filling in built-ins.
#[derive(Debug, Clone, Default)]
pub(super) struct TabContext {
    kind: Option<TabKind>,
    /// The saved connection it was opened from.
    profile: Option<String>,
    target: Option<TabTarget>,
    cwd: Option<String>,
    /// What the host probe found (this computer's tabs use its user and host name).
    probed_user: Option<String>,
    probed_host: Option<String>,
}

/// A tab's saved connection's tags and its built-ins, from the profile file (blocking).
fn resolve(profiles: &Path, context: &TabContext) -> (Vec<String>, SnippetBuiltins) {
    let mut builtins = SnippetBuiltins {
        cwd: context.cwd.clone(),
        ..SnippetBuiltins::default()
    };
    let mut tags = Vec::new();
    match &context.target {
        Some(TabTarget::Ssh { host, user, .. }) => {
            builtins.host = Some(host.clone());
            builtins.user = Some(user.clone());
        }
        Some(TabTarget::Local) => {
            builtins.host = context.probed_host.clone();
            builtins.user = context.probed_user.clone();
        }
        _ => {}
    }
    if let Some(name) = &context.profile
        && let Ok(store) = ProfileStore::load(profiles)
        && let Some(profile) = store.get(name)
    {
        tags.clone_from(&profile.tags);
        if let ProfileKind::Ssh { host, user, .. } = &profile.kind {
            builtins.host = Some(host.clone());
            builtins.user = Some(user.clone());
        }
    }
    (tags, builtins)
}

/// The snippets that apply to a tab (terminal tabs only), with its built-ins (blocking).
pub(super) fn for_tab(
    snippets: &Path,
    profiles: &Path,
    context: &TabContext,
) -> Result<(Vec<Snippet>, SnippetBuiltins), String> {
    let store = SnippetStore::load(snippets).map_err(|e| e.to_string())?;
    let (tags, builtins) = resolve(profiles, context);
    if context.kind != Some(TabKind::Terminal) {
        return Ok((Vec::new(), builtins));
    }
    let chosen = store
        .snippets()
        .iter()
        .filter(|s| snippets::applies(s, context.profile.as_deref(), &tags))
        .cloned()
        .collect();
    Ok((chosen, builtins))
}

impl Inner {
    /// What the engine knows of `tab` now (none: no such tab).
    pub(super) fn snippet_context(&self, tab: &str) -> Option<TabContext> {
        let found = self.tab(tab)?;
        let mut context = TabContext {
            kind: Some(found.kind),
            profile: found.profile.clone(),
            target: Some(found.target.clone()),
            ..TabContext::default()
        };
        if let Some(facts) = lock(&found.host_facts).as_ref() {
            context.probed_user.clone_from(&facts.user);
            context.probed_host.clone_from(&facts.hostname);
        }
        if let Some(Ok(resources)) = found.session.borrow().as_ref()
            && let Some(terminal) = resources.terminal.as_ref()
        {
            context.cwd = terminal.cwd();
        }
        Some(context)
    }

    /// One snippet op, answered with `Snippets` or `SnippetExpanded` (a failure in their
    /// `problem`), or an `Error` when the tab is gone.
    pub(super) async fn snippet_op(self: &Arc<Self>, op: Op) {
        let path = SnippetStore::path_in(&self.config.config_dir);
        let profiles = self.config.profiles_path.clone();
        // The list as it stands, beside a failure: what the palette keeps showing.
        let all = move |path: &Path, problem: Option<String>| {
            let snippets = SnippetStore::load(path)
                .map(|store| store.snippets().to_vec())
                .unwrap_or_default();
            Event::Snippets {
                tab: None,
                snippets,
                builtins: SnippetBuiltins::default(),
                problem,
            }
        };
        let work: Box<dyn FnOnce() -> Event + Send> = match op {
            Op::ListSnippets { tab: None } => Box::new(move || match SnippetStore::load(&path) {
                Ok(_) => all(&path, None),
                Err(error) => all(&path, Some(error.to_string())),
            }),
            Op::ListSnippets { tab: Some(tab) } => {
                let Some(context) = self.snippet_context(&tab) else {
                    self.no_such_tab(&tab);
                    return;
                };
                Box::new(move || {
                    let (snippets, builtins, problem) = match for_tab(&path, &profiles, &context) {
                        Ok((snippets, builtins)) => (snippets, builtins, None),
                        Err(problem) => (Vec::new(), SnippetBuiltins::default(), Some(problem)),
                    };
                    Event::Snippets {
                        tab: Some(tab),
                        snippets,
                        builtins,
                        problem,
                    }
                })
            }
            Op::SaveSnippet { snippet, previous } => Box::new(move || {
                let saved = SnippetStore::load(&path).and_then(|mut store| {
                    store.upsert(snippet, previous.as_deref())?;
                    store.save()
                });
                all(&path, saved.err().map(|e| e.to_string()))
            }),
            Op::DeleteSnippet { name } => Box::new(move || {
                let deleted = SnippetStore::load(&path).and_then(|mut store| {
                    store.remove(&name)?;
                    store.save()
                });
                all(&path, deleted.err().map(|e| e.to_string()))
            }),
            Op::ExpandSnippet { tab, name, values } => {
                let Some(context) = self.snippet_context(&tab) else {
                    self.no_such_tab(&tab);
                    return;
                };
                Box::new(move || {
                    let values: BTreeMap<String, String> =
                        values.into_iter().map(|v| (v.name, v.value)).collect();
                    let expanded = expand_for_tab(&path, &profiles, &context, &name, &values);
                    let (line, enter, problem) = match expanded {
                        Ok((line, enter)) => (line, enter, None),
                        Err(problem) => (String::new(), false, Some(problem)),
                    };
                    Event::SnippetExpanded {
                        tab,
                        name,
                        line,
                        enter,
                        problem,
                    }
                })
            }
            // The engine routes only the ops above here.
            _ => return,
        };
        match tokio::task::spawn_blocking(work).await {
            Ok(event) => self.emit(event),
            Err(error) => self.emit(Event::Error {
                tab: None,
                message: format!("the snippets could not be read or changed: {error}"),
            }),
        }
    }
}

/// Snippet `name` expanded for a tab: only one that applies to it (blocking).
fn expand_for_tab(
    path: &Path,
    profiles: &Path,
    context: &TabContext,
    name: &str,
    values: &BTreeMap<String, String>,
) -> Result<(String, bool), String> {
    let (applying, builtins) = for_tab(path, profiles, context)?;
    // A snippet of another connection is not offered here, so not expanded here either.
    if !applying.iter().any(|s| s.name == name) {
        return Err(format!("there is no snippet named {name:?} for this tab"));
    }
    let store = SnippetStore::load(path).map_err(|e| e.to_string())?;
    store
        .expand(name, values, &builtins)
        .map_err(|e| e.to_string())
}
