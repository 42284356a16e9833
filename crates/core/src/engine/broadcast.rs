//! Broadcast input (`Op::BroadcastLine`): a line the user typed once, typed with Enter into
//! several terminal tabs. Each tab judges the line first by its own connection's rules, as a
//! command typed there; a line one tab forbids is typed nowhere unless the user chose to send
//! it to the tabs that allow it. Every tab gets one audit line (tool `broadcast_input`).
//!
//! This must never type a line into a tab whose rules forbid it, and never type a part of a
//! line (a line with a line break is refused whole).

use super::{Inner, lock};
use crate::audit::{AuditRecord, now_rfc3339, redact_args};
use crate::policy::{CallFacts, Decision, PolicyContext, decide};
use kaiport_protocol::*;
use std::time::Instant;

/// The audit log's tool name for a broadcast line.
const TOOL: &str = "broadcast_input";

impl Inner {
    /// `Op::BroadcastLine`.
    pub(super) async fn broadcast_line(
        &self,
        broadcast: String,
        tabs: Vec<TabId>,
        line: String,
        skip_refused: bool,
    ) {
        if line.contains(['\n', '\r']) {
            self.emit(Event::Error {
                tab: None,
                message: "a broadcast line is one line, without line breaks; nothing was typed"
                    .to_owned(),
            });
            return;
        }
        let mut judged: Vec<BroadcastTabResult> = tabs
            .iter()
            .map(|tab| self.broadcast_judge(tab, &line))
            .collect();
        let refused: Vec<String> = judged
            .iter()
            .filter(|one| one.outcome == BroadcastOutcome::Refused)
            .map(|one| one.connection.clone())
            .collect();
        for one in &mut judged {
            if one.outcome != BroadcastOutcome::Sent {
                continue;
            }
            if !refused.is_empty() && !skip_refused {
                one.outcome = BroadcastOutcome::Held;
                one.reasons = vec![format!(
                    "not typed: refused on {}; send it to the others only if you choose to",
                    refused.join(", ")
                )];
                continue;
            }
            let started = Instant::now();
            let sent = match self.connected(&one.tab) {
                Some(session) => match &session.terminal {
                    Some(terminal) => terminal
                        .user_input(format!("{line}\r").as_bytes())
                        .await
                        .map_err(|error| error.to_string()),
                    None => Err("the tab has no terminal".to_owned()),
                },
                None => Err("the tab is not connected".to_owned()),
            };
            if let Err(reason) = sent {
                one.outcome = BroadcastOutcome::Failed;
                one.reasons = vec![reason];
            }
            self.broadcast_audit(&broadcast, &line, one, started);
        }
        for one in &judged {
            if one.outcome != BroadcastOutcome::Sent && one.outcome != BroadcastOutcome::Failed {
                self.broadcast_audit(&broadcast, &line, one, Instant::now());
            }
        }
        self.emit(Event::BroadcastJudged {
            broadcast,
            line,
            tabs: judged,
        });
    }

    /// What `tab`'s rules say of `line` typed by the user there: `Sent` when it may be typed
    /// (it is not typed yet), `Refused`, or `Failed` for a tab that cannot take it.
    fn broadcast_judge(&self, tab: &str, line: &str) -> BroadcastTabResult {
        let failed = |connection: String, reason: &str| BroadcastTabResult {
            tab: tab.to_owned(),
            connection,
            decision: Verdict::Deny,
            outcome: BroadcastOutcome::Failed,
            reasons: vec![reason.to_owned()],
        };
        let Some(found) = self.tab(tab) else {
            return failed(String::new(), "there is no such tab");
        };
        if found.kind != TabKind::Terminal {
            return failed(found.connection.clone(), "not a terminal tab");
        }
        let settings = found.settings();
        // The user's own line: plan mode is Pilot's, never a limit on the user's typing.
        let policy = PolicyContext {
            mode: Mode::Ask,
            settings: &settings,
            tab_kind: TabKind::Terminal,
            data_seen: lock(&self.taint).seen_elsewhere(&found.connection),
        };
        let decision = if line.trim().is_empty() {
            Decision::Allow {
                by: DecidedBy::Rule,
                reasons: Vec::new(),
            }
        } else {
            decide(
                &CallFacts::Command {
                    line: line.to_owned(),
                },
                policy,
            )
        };
        let (decision, outcome, reasons) = match decision {
            Decision::Allow { reasons, .. } => (Verdict::Allow, BroadcastOutcome::Sent, reasons),
            Decision::Ask { reasons, .. } => (Verdict::Ask, BroadcastOutcome::Sent, reasons),
            Decision::Deny { reason } => {
                // Said to the person who typed it, not to a model: the rule, not advice.
                let reason = match crate::policy::forbidden_command(line, &settings) {
                    Some((command, rule)) => {
                        format!("`{command}` is forbidden on this connection (rule: {rule:?})")
                    }
                    None => reason,
                };
                (Verdict::Deny, BroadcastOutcome::Refused, vec![reason])
            }
        };
        BroadcastTabResult {
            tab: tab.to_owned(),
            connection: found.connection.clone(),
            decision,
            outcome,
            reasons,
        }
    }

    /// The tab's audit line for the broadcast line.
    fn broadcast_audit(
        &self,
        broadcast: &str,
        line: &str,
        one: &BroadcastTabResult,
        started: Instant,
    ) {
        let (status, outcome) = match one.outcome {
            BroadcastOutcome::Sent => (ToolStatus::Ok, "sent"),
            BroadcastOutcome::Refused => (ToolStatus::Denied, "refused"),
            BroadcastOutcome::Held => (ToolStatus::Cancelled, "held"),
            BroadcastOutcome::Failed => (ToolStatus::Error, "failed"),
        };
        // The person typed it: what let it through (or not) is the rule, or the user for a
        // line the rules ask about.
        let decided_by = match (one.outcome, one.decision) {
            (BroadcastOutcome::Failed, _) => None,
            (_, Verdict::Ask) => Some(DecidedBy::User),
            _ => Some(DecidedBy::Rule),
        };
        let record = AuditRecord {
            time: now_rfc3339(),
            tab: one.tab.clone(),
            connection: one.connection.clone(),
            tool: TOOL.to_owned(),
            call: format!("{broadcast}/{}", one.tab),
            args: redact_args(&serde_json::json!({ "line": line })),
            decision: one.decision,
            decided_by,
            reasons: one.reasons.clone(),
            status,
            result: Some(serde_json::json!({ "status": outcome })),
            error: match one.outcome {
                BroadcastOutcome::Sent => None,
                _ => Some(one.reasons.join("; ")),
            },
            edited_command: None,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            waited_ms: None,
        };
        self.record_audit(record, Some(one.tab.clone()));
    }
}
