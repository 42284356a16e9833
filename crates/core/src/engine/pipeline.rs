//! The path of one tool call: registry → typed arguments → prepare → policy → approval →
//! execution → events → audit. Every path ends with an outcome, a `ToolFinished` event and an
//! audit line; nothing runs that the policy denied or the user refused.

use super::tabs::Tab;
use super::transfers::Transfers;
use super::{Inner, lock};
use crate::audit::{AuditRecord, now_rfc3339, redact_args};
use crate::pending::NoAnswer;
use crate::policy::{CallFacts, Decision, PolicyContext, decide};
use crate::tools::{self, Action, ToolContext};
use kaiport_protocol::tools::{AskUserParams, AskUserResult};
use kaiport_protocol::*;
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// The answer to one approval.
pub(super) struct Approval {
    pub(super) decision: ApprovalDecision,
    pub(super) reason: Option<String>,
    pub(super) by: DecidedBy,
}

impl Inner {
    /// The whole pipeline for one call.
    pub(super) async fn run_tool(
        self: Arc<Self>,
        tab_id: TabId,
        call: CallId,
        tool: String,
        args: Value,
    ) -> ToolOutcome {
        let started = Instant::now();
        self.emit(Event::ToolRequested {
            tab: tab_id.clone(),
            call: call.clone(),
            tool: tool.clone(),
            args: args.clone(),
        });
        let Some(tab) = self.tab(&tab_id) else {
            let outcome = error_outcome(
                &tool,
                ToolStatus::Error,
                format!("there is no tab {tab_id:?}"),
            );
            return self.finish(
                &tab_id,
                "",
                &call,
                &args,
                outcome,
                Verdict::Deny,
                None,
                Vec::new(),
                started,
            );
        };
        let cancel = tab.closing.child_token();
        lock(&tab.calls).insert(call.clone(), cancel.clone());
        let (outcome, verdict, decided_by, reasons) = self
            .decide_and_execute(&tab, &call, &tool, &args, &cancel)
            .await;
        lock(&tab.calls).remove(&call);
        let outcome = self.transfers.ended(&tab_id, &call, &tool, &args, outcome);
        self.finish(
            &tab_id,
            &tab.connection,
            &call,
            &args,
            outcome,
            verdict,
            decided_by,
            reasons,
            started,
        )
    }

    pub(super) async fn decide_and_execute(
        self: &Arc<Self>,
        tab: &Arc<Tab>,
        call: &CallId,
        tool: &str,
        args: &Value,
        cancel: &CancellationToken,
    ) -> (ToolOutcome, Verdict, Option<DecidedBy>, Vec<String>) {
        let fail = |message: String| {
            (
                error_outcome(tool, ToolStatus::Error, message),
                Verdict::Deny,
                None,
                Vec::new(),
            )
        };
        // 1. Registry: known in this build, for this kind of tab?
        let Some(found) = tools::lookup(tool) else {
            let known: Vec<&str> = tools::registry()
                .iter()
                .map(|spec| spec.name.as_str())
                .collect();
            return fail(format!(
                "unknown tool {tool:?}; the tools are: {}",
                known.join(", ")
            ));
        };
        if !found.tabs().contains(&tab.kind) {
            return fail(format!("{tool} does not work in this kind of tab"));
        }
        // 2. Typed arguments, checked before waiting for the tab.
        if let Err(message) = found.check_args(args) {
            return fail(message);
        }
        // 3. Prepare (reads only) on the connected tab, then the policy.
        let resources = match tab.session(cancel).await {
            Ok(resources) => resources,
            Err(message) => return fail(message),
        };
        let settings = tab.settings();
        let context = ToolContext {
            resources: &resources,
            settings: &settings,
            tab_kind: tab.kind,
            cancel,
            transfers: Some(self.transfers.reporter(&self.events, &tab.id, call)),
            views: Some(self.view_reporter(&tab.id, call)),
        };
        let prepared = match found.prepare(args.clone(), &context).await {
            Ok(prepared) => prepared,
            Err(message) => return fail(message),
        };
        let policy = PolicyContext {
            mode: tab.mode(),
            settings: &settings,
            tab_kind: tab.kind,
            data_seen: lock(&self.taint).seen_elsewhere(&tab.connection),
        };
        let mut decision = decide(&prepared.facts, policy);
        // A command line's write targets (run_command, or the line send_input's Enter runs) are
        // judged where links on the server make them land.
        if let (CallFacts::Command { line }, false) =
            (&prepared.facts, matches!(decision, Decision::Deny { .. }))
        {
            let resolved = tools::links::resolve_command_writes(line, &resources).await;
            decision = crate::policy::judge_resolved_writes(decision, &resolved);
        }
        // Changes to this computer (a storage tab's local side, the local terminal tab's files)
        // are judged against its start-up, ssh, git and PATH files.
        if let CallFacts::Changes { changes } = &prepared.facts {
            let whole_tab_here = matches!(tab.target, TabTarget::Local);
            decision = crate::policy::this_computer::judge_changes(
                decision,
                changes,
                &self.config.this_computer,
                whole_tab_here,
            );
        }
        // Plan calls that may go ahead get their cards before the approval is asked.
        #[cfg(feature = "plan")]
        if !matches!(decision, Decision::Deny { .. }) {
            match self.plans.before_decision(&tab.id, call, &prepared.action) {
                Ok(events) => events.into_iter().for_each(|event| self.emit(event)),
                Err(message) => {
                    tools::abandon(&prepared.action, &context).await;
                    return fail(message);
                }
            }
        }
        // A call only the connection's settings refuse is the user's to allow: ask them.
        let permission = match &decision {
            Decision::Deny { .. } => crate::policy::missing_permission(&prepared.facts, &settings),
            _ => None,
        };
        if let Some(permission) = permission {
            decision = Decision::Ask {
                reasons: vec![permission_reason(permission, tab.profile.is_some())],
                dangerous: false,
            };
        }
        let (decided_by, reasons) = match decision {
            Decision::Deny { reason } => {
                // What preparing did (send_input's staged line) is taken back on every refusal.
                tools::abandon(&prepared.action, &context).await;
                let outcome = error_outcome(tool, ToolStatus::Denied, reason.clone());
                return (outcome, Verdict::Deny, Some(DecidedBy::Rule), vec![reason]);
            }
            Decision::Allow { by, reasons } => (by, reasons),
            Decision::Ask { reasons, dangerous } => {
                // 4. Approval: waits for the user, without a time limit; cancel ends it.
                let preview = prepared.preview.clone();
                let answer = self
                    .approvals
                    .ask(call.clone(), cancel, || {
                        self.emit(Event::ApprovalRequested {
                            tab: tab.id.clone(),
                            call: call.clone(),
                            tool: tool.to_owned(),
                            reasons: reasons.clone(),
                            dangerous,
                            preview,
                            permission,
                            why: why_of(args),
                        });
                    })
                    .await;
                match answer {
                    // Only a person gives a permission, never a standing instruction.
                    Ok(Approval {
                        decision: ApprovalDecision::Approve | ApprovalDecision::AllowForConnection,
                        by: DecidedBy::Automatic,
                        ..
                    }) if permission.is_some() => {
                        let outcome = error_outcome(
                            tool,
                            ToolStatus::Denied,
                            "the connection does not allow sending file contents to the AI, and only a person \
                             can allow it (an automatic approval cannot); use list_dir, find_files or \
                             folder_report, or ask the user to allow file contents"
                                .to_owned(),
                        );
                        return (outcome, Verdict::Ask, Some(DecidedBy::Automatic), reasons);
                    }
                    Ok(Approval {
                        decision: ApprovalDecision::Approve,
                        by,
                        ..
                    }) => (by, reasons),
                    Ok(Approval {
                        decision: ApprovalDecision::AllowForConnection,
                        by,
                        ..
                    }) => {
                        let mut reasons = reasons;
                        if let Some(permission) = permission {
                            reasons.push(self.grant(tab, permission));
                        }
                        (by, reasons)
                    }
                    Ok(Approval {
                        decision: ApprovalDecision::Deny,
                        reason,
                        by,
                    }) => {
                        let message = match reason {
                            Some(reason) if !reason.trim().is_empty() => {
                                format!("the user denied this call: {reason}")
                            }
                            _ => "the user denied this call".to_owned(),
                        };
                        #[cfg(feature = "plan")]
                        self.plan_refused(&tab.id, &prepared.action);
                        tools::abandon(&prepared.action, &context).await;
                        let outcome = error_outcome(tool, ToolStatus::Denied, message);
                        return (outcome, Verdict::Ask, Some(by), reasons);
                    }
                    Err(NoAnswer::Cancelled | NoAnswer::Abandoned) => {
                        #[cfg(feature = "plan")]
                        self.plan_refused(&tab.id, &prepared.action);
                        tools::abandon(&prepared.action, &context).await;
                        let outcome = error_outcome(
                            tool,
                            ToolStatus::Cancelled,
                            "cancelled while waiting for approval".to_owned(),
                        );
                        return (outcome, Verdict::Ask, None, reasons);
                    }
                }
            }
        };
        let verdict = match decided_by {
            DecidedBy::User | DecidedBy::Automatic => Verdict::Ask,
            DecidedBy::Rule | DecidedBy::Autopilot => Verdict::Allow,
        };
        // 5. Execution.
        if Transfers::is_transfer(tool) {
            // Watched from now on (not while it waited for approval): see `foreground`.
            self.transfers.started(&tab.id, call);
        }
        self.emit(Event::ToolRunning {
            tab: tab.id.clone(),
            call: call.clone(),
        });
        let outcome = match prepared.action {
            Action::AskUser(params) => self.ask_user(tab, call, tool, params, cancel).await,
            #[cfg(feature = "plan")]
            action @ (Action::ProposePlan(_) | Action::UpdatePlan(_)) => {
                self.plan_call(tab, tool, &action, decided_by)
            }
            action => match tools::execute(action, &context).await {
                Ok(result) => ToolOutcome {
                    tool: tool.to_owned(),
                    status: ToolStatus::Ok,
                    result: Some(result),
                    error: None,
                },
                // A cancelled call says so, whatever the tool made of the cancellation.
                Err(message) if cancel.is_cancelled() => {
                    error_outcome(tool, ToolStatus::Cancelled, message)
                }
                Err(message) => error_outcome(tool, ToolStatus::Error, message),
            },
        };
        if outcome.result.is_some() {
            lock(&self.taint).record(&tab.connection, settings.sensitivity);
        }
        (outcome, verdict, Some(decided_by), reasons)
    }

    /// propose_plan / update_plan once allowed: the plan book records it; approving a proposal
    /// (by a person) switches the tab from plan to ask mode.
    #[cfg(feature = "plan")]
    pub(super) fn plan_call(
        &self,
        tab: &Arc<Tab>,
        tool: &str,
        action: &Action,
        by: DecidedBy,
    ) -> ToolOutcome {
        match self.plans.approved(&tab.id, action, by == DecidedBy::User) {
            Ok((result, events, leaves_plan_mode)) => {
                events.into_iter().for_each(|event| self.emit(event));
                if leaves_plan_mode {
                    let mut mode = lock(&tab.mode);
                    if *mode == Mode::Plan {
                        *mode = Mode::Ask;
                        drop(mode);
                        self.emit(Event::ModeChanged {
                            tab: tab.id.clone(),
                            mode: Mode::Ask,
                        });
                    }
                }
                ok_outcome(tool, &result)
            }
            Err(message) => {
                if let Some(plan) = self.plans.card(&tab.id) {
                    self.emit(Event::PlanUpdated {
                        tab: tab.id.clone(),
                        plan,
                    });
                }
                error_outcome(tool, ToolStatus::Error, message)
            }
        }
    }

    #[cfg(feature = "plan")]
    pub(super) fn plan_refused(&self, tab: &str, action: &Action) {
        for event in self.plans.refused(tab, action) {
            self.emit(event);
        }
    }

    /// Turns `permission` on for the tab, and for the saved connection it was opened from through
    /// the same queue as `Op::UpdateConnectionSettings`. Returns the line for the audit record.
    fn grant(self: &Arc<Self>, tab: &Tab, permission: Permission) -> String {
        let settings = {
            let mut settings = lock(&tab.settings);
            match permission {
                Permission::FileContents => settings.send_file_contents = true,
            }
            settings.clone()
        };
        self.emit(Event::SettingsChanged {
            tab: tab.id.clone(),
            settings,
        });
        let Some(profile) = &tab.profile else {
            return "the user allowed file contents for this tab".to_owned();
        };
        match crate::connect::profiles::ProfileStore::load(&self.config.profiles_path)
            .map_err(|error| error.to_string())
            .and_then(|store| {
                store
                    .get(profile)
                    .ok_or_else(|| format!("there is no saved connection {profile:?}"))?
                    .connection_settings()
                    .map_err(|error| error.to_string())
            }) {
            Ok(mut saved) => {
                match permission {
                    Permission::FileContents => saved.send_file_contents = true,
                }
                self.saved_op(Op::UpdateConnectionSettings {
                    name: profile.clone(),
                    settings: saved,
                });
                format!("the user allowed file contents for the saved connection {profile}")
            }
            Err(error) => {
                self.emit(Event::Error {
                    tab: Some(tab.id.clone()),
                    message: format!(
                        "file contents are allowed in this tab, but the saved connection {profile} \
                         could not be changed: {error}"
                    ),
                });
                "the user allowed file contents for this tab".to_owned()
            }
        }
    }

    /// ask_user: shown to the user and answered only by them, in every mode.
    pub(super) async fn ask_user(
        &self,
        tab: &Arc<Tab>,
        call: &CallId,
        tool: &str,
        params: AskUserParams,
        cancel: &CancellationToken,
    ) -> ToolOutcome {
        let answer = self
            .questions
            .ask(call.clone(), cancel, || {
                self.emit(Event::QuestionAsked {
                    tab: tab.id.clone(),
                    call: call.clone(),
                    question: params.question.clone(),
                    options: params.options.clone(),
                });
            })
            .await;
        match answer {
            Ok(answer) => ok_outcome(
                tool,
                &AskUserResult {
                    answered: answer.is_some(),
                    answer,
                },
            ),
            Err(_) => error_outcome(
                tool,
                ToolStatus::Cancelled,
                "the user did not answer".to_owned(),
            ),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn finish(
        &self,
        tab: &str,
        connection: &str,
        call: &str,
        args: &Value,
        outcome: ToolOutcome,
        verdict: Verdict,
        decided_by: Option<DecidedBy>,
        reasons: Vec<String>,
        started: Instant,
    ) -> ToolOutcome {
        let duration_ms = started.elapsed().as_millis() as u64;
        let record = AuditRecord {
            time: now_rfc3339(),
            tab: tab.to_owned(),
            connection: connection.to_owned(),
            tool: outcome.tool.clone(),
            call: call.to_owned(),
            args: redact_args(args),
            decision: verdict,
            decided_by,
            reasons,
            status: outcome.status,
            result: crate::audit::result_summary(outcome.result.as_ref()),
            error: outcome.error.as_deref().map(plain_text),
            duration_ms,
        };
        let recorded = self.audit.append(&record);
        if let Err(error) = &recorded {
            // The call happened; the user must learn that its record is missing.
            self.emit(Event::Error {
                tab: Some(tab.to_owned()),
                message: error.to_string(),
            });
        }
        // People read the error without the marks around server text; the model (the caller)
        // gets them, to frame that text.
        let shown = ToolOutcome {
            error: outcome.error.as_deref().map(plain_text),
            ..outcome.clone()
        };
        self.emit(Event::ToolFinished {
            tab: tab.to_owned(),
            call: call.to_owned(),
            outcome: shown,
            verdict,
            decided_by,
            duration_ms,
        });
        if recorded.is_ok() {
            self.emit(Event::AuditRecorded { entry: record });
        }
        outcome
    }
}

fn plain_text(message: &str) -> String {
    crate::taint::plain(message).into_owned()
}

/// Why a permission is asked for, in the user's words.
fn permission_reason(permission: Permission, saved: bool) -> String {
    let scope = if saved {
        "This saved connection"
    } else {
        "This tab"
    };
    match permission {
        Permission::FileContents => format!(
            "{scope} does not send file contents to the AI; allow it just this once, or for the connection"
        ),
    }
}

pub(super) fn ok_outcome(tool: &str, result: &impl serde::Serialize) -> ToolOutcome {
    match serde_json::to_value(result) {
        Ok(value) => ToolOutcome {
            tool: tool.to_owned(),
            status: ToolStatus::Ok,
            result: Some(value),
            error: None,
        },
        Err(error) => error_outcome(
            tool,
            ToolStatus::Error,
            format!("could not encode the result: {error}"),
        ),
    }
}

pub(super) fn error_outcome(tool: &str, status: ToolStatus, message: String) -> ToolOutcome {
    ToolOutcome {
        tool: tool.to_owned(),
        status,
        result: None,
        error: Some(message),
    }
}

/// Longest `why` shown on an approval card (characters).
const MAX_WHY: usize = 300;

/// The call's `why` argument as a card may show it (see `Event::ApprovalRequested::why`).
fn why_of(args: &Value) -> Option<String> {
    let raw = args.get("why")?.as_str()?;
    // The model's words go on a card: no control characters (escapes), no bidi overrides.
    let cleaned: String = raw
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .filter(|c| !matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
        .collect();
    let trimmed = cleaned.trim();
    (!trimmed.is_empty()).then(|| trimmed.chars().take(MAX_WHY).collect())
}
