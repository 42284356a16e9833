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
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// The answer to one approval.
pub(super) struct Approval {
    pub(super) decision: ApprovalDecision,
    pub(super) reason: Option<String>,
    /// The command line as the user edited it (`Op::Approve::command`).
    pub(super) command: Option<String>,
    pub(super) by: DecidedBy,
}

/// What an approval card shows of a call besides its tool and `why`
/// (`Event::ApprovalRequested`).
pub(super) struct Card {
    pub(super) reasons: Vec<String>,
    pub(super) risk: Risk,
    pub(super) preview: Option<ApprovalPreview>,
    pub(super) permission: Option<Permission>,
    pub(super) allow_rule: Option<String>,
}

/// How one call was decided and how it ended: what its `ToolFinished` and audit line say.
pub(super) struct Ran {
    pub(super) outcome: ToolOutcome,
    pub(super) verdict: Verdict,
    pub(super) decided_by: Option<DecidedBy>,
    pub(super) reasons: Vec<String>,
    /// The line that ran when the user edited the command on the card.
    pub(super) edited_command: Option<String>,
    /// How long the call waited for the user's approval (not part of its duration).
    pub(super) waited: Option<Duration>,
}

impl Ran {
    /// A call that ended without an approval wait or an edit.
    pub(super) fn ended(
        outcome: ToolOutcome,
        verdict: Verdict,
        decided_by: Option<DecidedBy>,
        reasons: Vec<String>,
    ) -> Ran {
        Ran {
            outcome,
            verdict,
            decided_by,
            reasons,
            edited_command: None,
            waited: None,
        }
    }
}

/// Who asked for a call: the user's own actions (a storage tab's or an SSH tab's file pane's
/// buttons, `kaiport tool`, a retry) may reach tools the model is not offered in that kind of
/// tab (an SSH tab's transfers with this computer: [`tools::AnyTool::user_tabs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Caller {
    User,
    Pilot,
}

/// What "for this connection" (`ApprovalDecision::AllowForConnection`) turns on.
enum Grant {
    Permission(Permission),
    /// An allowed-commands rule (`Event::ApprovalRequested::allow_rule`).
    AllowRule(String),
}

impl Grant {
    /// Applies it to a connection's settings.
    fn apply(&self, settings: &mut ConnectionSettings) {
        match self {
            Grant::Permission(Permission::FileContents) => settings.send_file_contents = true,
            Grant::AllowRule(rule) => {
                if !settings.allowed_commands.contains(rule) {
                    settings.allowed_commands.push(rule.clone());
                }
            }
        }
    }

    /// What was allowed, in the words of the audit line ("… for this tab").
    fn words(&self) -> String {
        match self {
            Grant::Permission(Permission::FileContents) => "file contents".to_owned(),
            Grant::AllowRule(rule) => format!("the command `{rule}`"),
        }
    }
}

impl Inner {
    /// The whole pipeline for one call.
    pub(super) async fn run_tool(
        self: Arc<Self>,
        tab_id: TabId,
        call: CallId,
        tool: String,
        args: Value,
        by: Caller,
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
                Ran::ended(outcome, Verdict::Deny, None, Vec::new()),
                started,
            );
        };
        let cancel = tab.closing.child_token();
        lock(&tab.calls).insert(call.clone(), cancel.clone());
        let mut ran = self
            .decide_and_execute(&tab, &call, &tool, &args, &cancel, by)
            .await;
        lock(&tab.calls).remove(&call);
        ran.outcome = self
            .transfers
            .ended(&tab_id, &call, &tool, &args, ran.outcome);
        self.finish(&tab_id, &tab.connection, &call, &args, ran, started)
    }

    pub(super) async fn decide_and_execute(
        self: &Arc<Self>,
        tab: &Arc<Tab>,
        call: &CallId,
        tool: &str,
        args: &Value,
        cancel: &CancellationToken,
        by: Caller,
    ) -> Ran {
        let fail = |message: String| {
            Ran::ended(
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
        let tabs = match by {
            Caller::User => found.user_tabs(),
            Caller::Pilot => found.tabs(),
        };
        if !tabs.contains(&tab.kind) {
            return fail(format!("{tool} does not work in this kind of tab"));
        }
        // This computer's side of an SSH tab is there for the user's own transfers in its file
        // pane: Pilot works on the tab's server only.
        if by == Caller::Pilot
            && tab.kind == TabKind::Terminal
            && args.get("side").and_then(Value::as_str) == Some("local")
        {
            return fail(format!(
                "{tool}: side \"local\" exists only in storage tabs (the user's own computer)"
            ));
        }
        // 2. Typed arguments, checked before waiting for the tab.
        if let Err(message) = found.check_args(args) {
            return fail(message);
        }
        // Many hosts, each judged by its own rules rather than this tab's.
        #[cfg(feature = "run-on-hosts")]
        if found.name() == kaiport_protocol::tools::ToolName::RunOnHosts {
            return self.run_on_hosts(tab, call, tool, args, cancel).await;
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
            by_user: by == Caller::User,
            cancel,
            transfers: Some(self.transfers.reporter(&self.events, &tab.id, call)),
            views: Some(self.view_reporter(&tab.id, call)),
            sudo_password: Some(self.sudo_password_asker(tab)),
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
        // Some calls are confirmed by the user whatever the mode (an undo, with its diff).
        if found.always_asks()
            && let Decision::Allow { reasons, .. } = &decision
        {
            let mut reasons = reasons.clone();
            reasons.push(format!("{tool} always shows what it will do and asks"));
            decision = Decision::Ask {
                reasons,
                risk: Risk::Routine,
            };
        }
        // A call only the connection's settings refuse is the user's to allow: ask them.
        let permission = match &decision {
            Decision::Deny { .. } => crate::policy::missing_permission(&prepared.facts, &settings),
            _ => None,
        };
        if let Some(permission) = permission {
            decision = Decision::Ask {
                reasons: vec![permission_reason(permission, tab.profile.is_some())],
                risk: Risk::Routine,
            };
        }
        let mut waited = None;
        let mut edited_command = None;
        let mut action = prepared.action;
        let (decided_by, reasons) = match decision {
            Decision::Deny { reason } => {
                // What preparing did (send_input's staged line) is taken back on every refusal.
                tools::abandon(&action, &context).await;
                let outcome = error_outcome(tool, ToolStatus::Denied, reason.clone());
                return Ran::ended(outcome, Verdict::Deny, Some(DecidedBy::Rule), vec![reason]);
            }
            Decision::Allow { by, reasons } => (by, reasons),
            Decision::Ask { reasons, risk } => {
                // "Always allow" is offered for a routine command line alone.
                let allow_rule = match (&prepared.facts, risk, permission) {
                    (CallFacts::Command { line }, Risk::Routine, None)
                        if matches!(action, Action::RunCommand(_)) =>
                    {
                        crate::policy::allow_rule(line, policy)
                    }
                    _ => None,
                };
                // 4. Approval: waits for the user, without a time limit; cancel ends it.
                let card = Card {
                    reasons: reasons.clone(),
                    risk,
                    preview: prepared.preview.clone(),
                    permission,
                    allow_rule: allow_rule.clone(),
                };
                let (answer, asked_for) =
                    self.ask_approval(tab, call, tool, args, card, cancel).await;
                waited = Some(asked_for);
                let ended = |outcome, verdict, decided_by, reasons| Ran {
                    waited,
                    ..Ran::ended(outcome, verdict, decided_by, reasons)
                };
                // The user's own line, when they edited the command (a person only).
                let edit = match &answer {
                    Ok(Approval {
                        decision: ApprovalDecision::Approve | ApprovalDecision::AllowForConnection,
                        command: Some(line),
                        by,
                        ..
                    }) => Some((line.clone(), *by)),
                    _ => None,
                };
                if let Some((line, by)) = edit {
                    match user_command(&mut action, line, by, &settings, tab.kind) {
                        Ok(line) => edited_command = line,
                        Err(message) => {
                            tools::abandon(&action, &context).await;
                            let outcome = error_outcome(tool, ToolStatus::Denied, message);
                            return ended(outcome, Verdict::Ask, Some(by), reasons);
                        }
                    }
                }
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
                        return ended(outcome, Verdict::Ask, Some(DecidedBy::Automatic), reasons);
                    }
                    Ok(Approval {
                        decision: ApprovalDecision::Approve | ApprovalDecision::AllowForConnection,
                        by: DecidedBy::Automatic,
                        ..
                    }) if tools::needs_a_person(&action) => {
                        let outcome = error_outcome(
                            tool,
                            ToolStatus::Denied,
                            format!(
                                "only a person can approve {tool} (an automatic approval cannot); \
                                 nothing was opened. Ask the user to approve it in the app"
                            ),
                        );
                        return ended(outcome, Verdict::Ask, Some(DecidedBy::Automatic), reasons);
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
                        // The rule was shown for the model's line: an edited line gets no rule,
                        // nor does an answer no person gave.
                        let grant = match (permission, allow_rule) {
                            (Some(permission), _) => Some(Grant::Permission(permission)),
                            (None, Some(rule))
                                if edited_command.is_none() && by == DecidedBy::User =>
                            {
                                Some(Grant::AllowRule(rule))
                            }
                            _ => None,
                        };
                        if let Some(grant) = grant {
                            reasons.push(self.grant(tab, &grant));
                        }
                        (by, reasons)
                    }
                    Ok(Approval {
                        decision: ApprovalDecision::Deny,
                        reason,
                        by,
                        ..
                    }) => {
                        let message = match reason.as_deref().and_then(user_words) {
                            Some(reason) => format!("the user denied this call: {reason}"),
                            None => "the user denied this call".to_owned(),
                        };
                        #[cfg(feature = "plan")]
                        self.plan_refused(&tab.id, &action);
                        tools::abandon(&action, &context).await;
                        let outcome = error_outcome(tool, ToolStatus::Denied, message);
                        return ended(outcome, Verdict::Ask, Some(by), reasons);
                    }
                    Err(NoAnswer::Cancelled | NoAnswer::Abandoned) => {
                        #[cfg(feature = "plan")]
                        self.plan_refused(&tab.id, &action);
                        tools::abandon(&action, &context).await;
                        let outcome = error_outcome(
                            tool,
                            ToolStatus::Cancelled,
                            "cancelled while waiting for approval".to_owned(),
                        );
                        return ended(outcome, Verdict::Ask, None, reasons);
                    }
                }
            }
        };
        let mut reasons = reasons;
        if edited_command.is_some() {
            reasons.push("the user edited the command before approving it".to_owned());
        }
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
        let outcome = match action {
            Action::AskUser(params) => self.ask_user(tab, call, tool, params, cancel).await,
            #[cfg(feature = "plan")]
            action @ (Action::ProposePlan(_) | Action::UpdatePlan(_)) => {
                self.plan_call(tab, tool, &action, decided_by)
            }
            #[cfg(feature = "open-forward")]
            Action::OpenForward(forward) => {
                self.pilot_forward(tab, call, tool, forward, cancel).await
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
        let mut outcome = outcome;
        if let (Some(line), Some(Value::Object(result))) = (&edited_command, &mut outcome.result) {
            result.insert("edited_by_user".to_owned(), Value::String(line.clone()));
        }
        if outcome.result.is_some() {
            lock(&self.taint).record(&tab.connection, settings.sensitivity);
        }
        Ran {
            outcome,
            verdict,
            decided_by: Some(decided_by),
            reasons,
            edited_command,
            waited,
        }
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

    /// Turns `grant` on for the tab, and for the saved connection it was opened from through the
    /// same queue as `Op::UpdateConnectionSettings` (so Connection settings shows it and takes it
    /// back). Returns the line for the audit record.
    fn grant(self: &Arc<Self>, tab: &Tab, grant: &Grant) -> String {
        let what = grant.words();
        let settings = {
            let mut settings = lock(&tab.settings);
            grant.apply(&mut settings);
            settings.clone()
        };
        self.emit(Event::SettingsChanged {
            tab: tab.id.clone(),
            settings,
        });
        let Some(profile) = &tab.profile else {
            return format!("the user allowed {what} for this tab");
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
                grant.apply(&mut saved);
                self.saved_op(Op::UpdateConnectionSettings {
                    name: profile.clone(),
                    settings: saved,
                });
                format!("the user allowed {what} for the saved connection {profile}")
            }
            Err(error) => {
                self.emit(Event::Error {
                    tab: Some(tab.id.clone()),
                    message: format!(
                        "{what} allowed in this tab, but the saved connection {profile} could not be \
                         changed: {error}"
                    ),
                });
                format!("the user allowed {what} for this tab")
            }
        }
    }

    /// ask_user: shown to the user and answered only by them, in every mode.
    /// Asks the user to approve `call` (its card: `ApprovalRequested`) and waits, without a
    /// time limit, for the answer or `cancel`; also how long it waited.
    pub(super) async fn ask_approval(
        &self,
        tab: &Tab,
        call: &CallId,
        tool: &str,
        args: &Value,
        card: Card,
        cancel: &CancellationToken,
    ) -> (Result<Approval, crate::pending::NoAnswer>, Duration) {
        let asked = Instant::now();
        let answer = self
            .approvals
            .ask(call.clone(), cancel, || {
                self.emit(Event::ApprovalRequested {
                    tab: tab.id.clone(),
                    call: call.clone(),
                    tool: tool.to_owned(),
                    reasons: card.reasons,
                    risk: card.risk,
                    preview: card.preview,
                    permission: card.permission,
                    why: why_of(args),
                    allow_rule: card.allow_rule,
                });
            })
            .await;
        (answer, asked.elapsed())
    }

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
        ran: Ran,
        started: Instant,
    ) -> ToolOutcome {
        let Ran {
            outcome,
            verdict,
            decided_by,
            reasons,
            edited_command,
            waited,
        } = ran;
        // The card's duration counts the work, not the time the approval card waited.
        let duration_ms = millis(started.elapsed().saturating_sub(waited.unwrap_or_default()));
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
            edited_command: edited_command.map(|line| crate::audit::shorten_logged(&line)),
            duration_ms,
            waited_ms: waited.map(millis),
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

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Longest `why` shown on an approval card, and longest deny reason passed on (characters).
const MAX_WHY: usize = 300;

/// The call's `why` argument as a card may show it (see `Event::ApprovalRequested::why`).
pub(super) fn why_of(args: &Value) -> Option<String> {
    user_words(args.get("why")?.as_str()?)
}

/// One line of someone's words (the model's `why`, the user's deny reason) cleaned of control
/// characters and cut; `None` when nothing is left.
fn user_words(raw: &str) -> Option<String> {
    // Shown on a card: no control characters (escapes), no bidi overrides. Line breaks and tabs
    // separate words; a bell or an escape between them is dropped, not turned into a space.
    let cleaned: String = raw
        .chars()
        .filter_map(|c| match c {
            '\n' | '\r' | '\t' => Some(' '),
            c if c.is_control() => None,
            '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => None,
            c => Some(c),
        })
        .collect();
    let words = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    (!words.is_empty()).then(|| words.chars().take(MAX_WHY).collect())
}

/// The user's edited command line put in place of the model's (run_command only): `Ok(None)`
/// when it is the same line, `Ok(Some(line))` when it replaced it, `Err` (for the model) when it
/// may not run. The user approved their own line, so only what the connection forbids outright
/// stops it, as for a view button.
fn user_command(
    action: &mut Action,
    line: String,
    by: DecidedBy,
    settings: &ConnectionSettings,
    tab_kind: TabKind,
) -> Result<Option<String>, String> {
    let Action::RunCommand(params) = action else {
        return Err(
            "the approval came with an edited command, but only run_command's line can be edited; nothing ran"
                .to_owned(),
        );
    };
    if line == params.command {
        return Ok(None);
    }
    if by != DecidedBy::User {
        return Err("an automatic approval cannot edit the command; nothing ran".to_owned());
    }
    if line.trim().is_empty() || line.contains(['\n', '\r']) {
        return Err(
            "the user edited the command into something that is not one command line; nothing ran"
                .to_owned(),
        );
    }
    if let Some(reason) = super::forbidden_for_user(&line, settings, tab_kind) {
        return Err(format!(
            "the user edited the command to `{line}`, which was refused: {reason}"
        ));
    }
    params.command = line.clone();
    Ok(Some(line))
}
