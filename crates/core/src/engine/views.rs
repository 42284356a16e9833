//! The buttons of a server view: a button the user confirmed is typed into their terminal, after
//! the command derived from its action is checked against the one shown and the connection's
//! forbidden commands. Never runs anything the user did not see.

use super::Inner;
use super::tabs::Tab;
use crate::audit::{AuditRecord, now_rfc3339, redact_args};
use crate::tools;
use kaiport_protocol::*;
use std::sync::Arc;
use std::time::Instant;

impl Inner {
    /// A view button the user confirmed (`Op::PressViewButton`): the command derived from its
    /// action must be the one shown, the connection's forbidden commands still apply, and it is
    /// typed into the user's terminal (visible; a sudo prompt is answered there). Audited as
    /// the user's action.
    pub(super) async fn press_view_button(&self, tab_id: &str, call: &str, button: ViewButton) {
        let started = Instant::now();
        let tab = self.tab(tab_id);
        let connection = tab
            .as_ref()
            .map(|t| t.connection.clone())
            .unwrap_or_default();
        let args = serde_json::json!({"action": &button.action, "command": &button.command});
        let (status, verdict, message, reasons) =
            match self.type_view_button(tab.as_ref(), &button).await {
                Ok(()) => (ToolStatus::Ok, Verdict::Allow, None, Vec::new()),
                Err((status, message)) => {
                    let verdict = if status == ToolStatus::Denied {
                        Verdict::Deny
                    } else {
                        Verdict::Allow
                    };
                    (status, verdict, Some(message.clone()), vec![message])
                }
            };
        let record = AuditRecord {
            time: now_rfc3339(),
            tab: tab_id.to_owned(),
            connection,
            tool: "view_button".to_owned(),
            call: call.to_owned(),
            args: redact_args(&args),
            decision: verdict,
            decided_by: Some(DecidedBy::User),
            reasons,
            status,
            result: None,
            error: message.clone(),
            edited_command: None,
            duration_ms: started.elapsed().as_millis() as u64,
            waited_ms: None,
        };
        match self.audit.append(&record) {
            Ok(()) => self.emit(Event::AuditRecorded { entry: record }),
            Err(error) => self.emit(Event::Error {
                tab: Some(tab_id.to_owned()),
                message: error.to_string(),
            }),
        }
        self.emit(Event::ViewButtonFinished {
            tab: tab_id.to_owned(),
            call: call.to_owned(),
            command: button.command,
            status,
            message,
        });
    }

    pub(super) async fn type_view_button(
        &self,
        tab: Option<&Arc<Tab>>,
        button: &ViewButton,
    ) -> Result<(), (ToolStatus, String)> {
        let error = |message: String| (ToolStatus::Error, message);
        let Some(tab) = tab else {
            return Err(error("there is no such tab".to_owned()));
        };
        let derived = button_command(&button.action).map_err(|why| (ToolStatus::Denied, why))?;
        if derived != button.command {
            return Err((
                ToolStatus::Denied,
                format!(
                    "the button's command is {derived:?}, not the {:?} shown",
                    button.command
                ),
            ));
        }
        // The user confirmed it: only what the connection forbids outright still stops it.
        if let Some(reason) = super::forbidden_for_user(&derived, &tab.settings(), tab.kind) {
            return Err((ToolStatus::Denied, reason));
        }
        let Some(session) = self.connected(&tab.id) else {
            return Err(error("the tab is not connected".to_owned()));
        };
        let Some(terminal) = &session.terminal else {
            return Err(error("this tab has no terminal".to_owned()));
        };
        terminal
            .user_input(format!("{derived}\r").as_bytes())
            .await
            .map_err(|e| error(e.to_string()))
    }

    /// Turns a show_view call's whole view into `ViewShown` for the front ends.
    pub(super) fn view_reporter(&self, tab: &str, call: &str) -> tools::ViewReporter {
        let events = self.events.clone();
        let (tab, call) = (tab.to_owned(), call.to_owned());
        Arc::new(move |report| {
            let _ = events.send(Event::ViewShown {
                tab: tab.clone(),
                call: call.clone(),
                report,
            });
        })
    }
}

/// The command a view button types (see `views::buttons`).
#[cfg(feature = "show-view")]
pub(super) fn button_command(action: &ButtonAction) -> Result<String, String> {
    crate::views::buttons::command(action)
}

#[cfg(not(feature = "show-view"))]
pub(super) fn button_command(_action: &ButtonAction) -> Result<String, String> {
    Err("server views are not part of this build".to_owned())
}
