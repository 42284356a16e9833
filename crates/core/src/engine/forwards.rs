//! A tab's port forwards as ops and events: `OpenForward`, `CloseForward`, the saved
//! connection's forwards opened with its tab, the forwards Pilot's open_forward opens once the
//! user approved them (the same path, the audit line saying Pilot asked), and an audit line for
//! every forward opened, refused or closed. The forwards themselves run in [`crate::forward`].

use super::tabs::Tab;
use super::{Inner, UserAction};
use crate::forward::{TabForwards, spec};
use kaiport_protocol::*;
use std::sync::{Arc, Weak};

/// How long open_forward waits for its forward to listen (a remote forward waits for the
/// server's answer) before it tells the model it is still starting.
#[cfg(feature = "open-forward")]
const PILOT_FORWARD_SETTLES: std::time::Duration = std::time::Duration::from_secs(15);

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
        match found.forwards.open(forward, None).await {
            Ok(report) => self.audit_forward(&found, report.id, "open", &described, None, None),
            Err(error) => {
                let message = error.to_string();
                self.audit_forward(&found, 0, "open", &described, Some(message.clone()), None);
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
            Some(closed) => {
                self.audit_forward(&found, id, "close", &spec::describe(&closed), None, None)
            }
            None => self.emit(Event::Error {
                tab: Some(tab.to_owned()),
                message: format!("this tab has no forward {id}"),
            }),
        }
    }

    /// Closes every forward of a tab that is closing, each with its audit line.
    pub(super) fn close_forwards(&self, found: &Tab) {
        for (id, closed) in found.forwards.close_all() {
            self.audit_forward(found, id, "close", &spec::describe(&closed), None, None);
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

    /// open_forward once the user approved it: opened as `Op::OpenForward` opens a forward
    /// (so it is in the tab's Forwards list, where the user closes it), its audit line naming
    /// Pilot's call; the model gets the forward once it listens, or why it does not.
    #[cfg(feature = "open-forward")]
    pub(super) async fn pilot_forward(
        &self,
        found: &Tab,
        call: &str,
        tool: &str,
        forward: ForwardSpec,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> ToolOutcome {
        use super::pipeline::{error_outcome, ok_outcome};
        if !is_ssh_terminal(found) {
            let message = "port forwards are for SSH terminal tabs only".to_owned();
            return error_outcome(tool, ToolStatus::Error, message);
        }
        let described = spec::describe(&forward);
        let report = match found.forwards.open(forward, Some(call)).await {
            Ok(report) => report,
            Err(error) => {
                let message = error.to_string();
                self.audit_forward(
                    found,
                    0,
                    "open",
                    &described,
                    Some(message.clone()),
                    Some(call),
                );
                return error_outcome(
                    tool,
                    ToolStatus::Error,
                    format!("the forward {described} was not opened: {message}"),
                );
            }
        };
        self.audit_forward(found, report.id, "open", &described, None, Some(call));
        let settled = tokio::select! {
            settled = found.forwards.settled(report.id, PILOT_FORWARD_SETTLES) => settled,
            () = cancel.cancelled() => None,
        };
        let settled = settled.unwrap_or(report);
        match settled.status {
            ForwardStatus::Failed { error } => error_outcome(
                tool,
                ToolStatus::Error,
                format!(
                    "the forward {described} could not be set up: {error}; it stays in the tab's Forwards \
                     list as failed until the user closes it"
                ),
            ),
            ForwardStatus::Closed => error_outcome(
                tool,
                ToolStatus::Error,
                format!("the forward {described} was closed before it was set up"),
            ),
            status => ok_outcome(
                tool,
                &kaiport_protocol::tools::OpenForwardResult {
                    id: settled.id,
                    forward: described,
                    status,
                },
            ),
        }
    }

    /// One forward's audit line; `pilot_call`: the open_forward call that asked for it.
    fn audit_forward(
        &self,
        found: &Tab,
        id: u32,
        action: &str,
        described: &str,
        error: Option<String>,
        pilot_call: Option<&str>,
    ) {
        let status = if error.is_some() {
            ToolStatus::Error
        } else {
            ToolStatus::Ok
        };
        let mut args = serde_json::json!({"action": action, "forward": described});
        if let Some(call) = pilot_call {
            args["opened_by"] = "pilot".into();
            args["pilot_call"] = call.into();
        }
        self.audit_user_action(UserAction {
            tab: Some(found.id.clone()),
            connection: found.connection.clone(),
            tool: "port_forward",
            call: match pilot_call {
                Some(call) => format!("{call}-forward-{id}"),
                None => format!("user-forward-{id}"),
            },
            args,
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
