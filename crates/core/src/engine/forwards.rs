//! A tab's port forwards as ops and events: `OpenForward`, `CloseForward`, the saved
//! connection's forwards opened with its tab, and an audit line for every forward opened,
//! refused or closed. The forwards themselves run in [`crate::forward`].

use super::tabs::Tab;
use super::{Inner, UserAction};
use crate::forward::{TabForwards, spec};
use kaiport_protocol::*;
use std::sync::{Arc, Weak};

/// A tab's forwards, telling their changes as `ForwardState` events of the tab.
pub(super) fn tab_forwards(inner: Weak<Inner>, tab: TabId) -> Arc<TabForwards> {
    Arc::new(TabForwards::new(Arc::new(move |report| {
        if let Some(inner) = inner.upgrade() {
            inner.emit(Event::ForwardState {
                tab: tab.clone(),
                forward: report,
            });
        }
    })))
}

impl Inner {
    /// `Op::OpenForward`, and each forward of a saved connection as its tab opens.
    pub(super) async fn open_forward(&self, tab: &str, forward: ForwardSpec) {
        let Some(found) = self.tab(tab) else {
            self.no_such_tab(tab);
            return;
        };
        if !is_ssh_terminal(&found) {
            self.emit(Event::Error {
                tab: Some(tab.to_owned()),
                message: "port forwards are for SSH terminal tabs only".to_owned(),
            });
            return;
        }
        let described = spec::describe(&forward);
        match found.forwards.open(forward).await {
            Ok(report) => self.audit_forward(&found, report.id, "open", &described, None),
            Err(error) => {
                let message = error.to_string();
                self.audit_forward(&found, 0, "open", &described, Some(message.clone()));
                self.emit(Event::Error {
                    tab: Some(tab.to_owned()),
                    message,
                });
            }
        }
    }

    /// `Op::CloseForward`.
    pub(super) fn close_forward(&self, tab: &str, id: u32) {
        let Some(found) = self.tab(tab) else {
            self.no_such_tab(tab);
            return;
        };
        match found.forwards.close(id) {
            Some(closed) => self.audit_forward(&found, id, "close", &spec::describe(&closed), None),
            None => self.emit(Event::Error {
                tab: Some(tab.to_owned()),
                message: format!("this tab has no forward {id}"),
            }),
        }
    }

    /// Closes every forward of a tab that is closing, each with its audit line.
    pub(super) fn close_forwards(&self, found: &Tab) {
        for (id, closed) in found.forwards.close_all() {
            self.audit_forward(found, id, "close", &spec::describe(&closed), None);
        }
    }

    /// The forwards a saved connection asks for, opened as its tab opens (builds without
    /// `auto-forwards`, the phone's, open forwards only when the user asks).
    pub(super) async fn open_profile_forwards(&self, tab: &str, profile: &str) {
        if !cfg!(feature = "auto-forwards") {
            return;
        }
        let store = crate::connect::profiles::ProfileStore::load(&self.config.profiles_path);
        let forwards = match store.ok().as_ref().and_then(|store| store.get(profile)) {
            Some(found) => match &found.kind {
                crate::connect::profiles::ProfileKind::Ssh { forwards, .. } => forwards.clone(),
                _ => Vec::new(),
            },
            None => Vec::new(),
        };
        for forward in forwards {
            self.open_forward(tab, forward).await;
        }
    }

    fn audit_forward(
        &self,
        found: &Tab,
        id: u32,
        action: &str,
        described: &str,
        error: Option<String>,
    ) {
        let status = if error.is_some() {
            ToolStatus::Error
        } else {
            ToolStatus::Ok
        };
        self.audit_user_action(UserAction {
            tab: Some(found.id.clone()),
            connection: found.connection.clone(),
            tool: "port_forward",
            call: format!("forward-{id}"),
            args: serde_json::json!({"action": action, "forward": described}),
            status,
            error,
        });
    }
}

/// Whether a tab runs over SSH with a terminal (a local shell or a storage tab has no
/// connection to forward through).
fn is_ssh_terminal(found: &Tab) -> bool {
    found.kind == TabKind::Terminal && !matches!(found.target, TabTarget::Local)
}
