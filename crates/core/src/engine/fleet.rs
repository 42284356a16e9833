//! Fleet runs (`Op::FleetCheck`, `Op::FleetRun`): one command line on many saved SSH
//! connections, each judged by `policy::decide` as run_command in a tab of that connection
//! would be (its settings, the run's mode, what the session has seen elsewhere), then where
//! links on that server lead, and run on an exec channel of its own connection, a bounded
//! number of hosts at once. Every host ends with a `FleetHostFinished` and one audit line.
//! `Op::FleetCancel` skips the hosts not started yet and stops the running ones by dropping
//! their connection.
//!
//! This must never run a line on a host whose rules forbid it, or that its rules ask about and
//! the caller did not approve for that host; never type into a user's terminal; never ask
//! about a host key or a password (a host that needs one fails).

use super::prompts::keychain_secret;
use super::{Inner, lock};
use crate::audit::{AuditRecord, now_rfc3339, redact_args};
use crate::connect::profiles::ProfileStore;
use crate::connect::secrets::{key_passphrase_account, ssh_password_account};
use crate::fleet::{FleetHost, hosts_of, output_text, report};
use crate::policy::{CallFacts, Decision, PolicyContext, decide};
use crate::ssh::{ConnectInteraction, SshSession};
use crate::tools::TabResources;
use futures::StreamExt;
use kaiport_protocol::*;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// What `Op::FleetRun` asked.
pub(super) struct FleetAsk {
    pub(super) run: String,
    pub(super) targets: Vec<String>,
    pub(super) command: String,
    pub(super) mode: Mode,
    pub(super) approved: Vec<String>,
    pub(super) automatic: bool,
    pub(super) concurrency: Option<u32>,
}

/// How one host's part ended, before it is reported.
struct HostEnd {
    status: FleetStatus,
    exit_code: Option<i32>,
    reason: Option<String>,
    output: String,
    verdict: Verdict,
    decided_by: Option<DecidedBy>,
    reasons: Vec<String>,
}

impl HostEnd {
    fn failed(reason: String, verdict: Verdict, decided_by: Option<DecidedBy>) -> HostEnd {
        HostEnd {
            status: FleetStatus::Failed,
            exit_code: None,
            reason: Some(reason),
            output: String::new(),
            verdict,
            decided_by,
            reasons: Vec::new(),
        }
    }

    fn cancelled(reason: &str, verdict: Verdict) -> HostEnd {
        HostEnd {
            status: FleetStatus::Cancelled,
            ..HostEnd::failed(reason.to_owned(), verdict, None)
        }
    }
}

/// What a decision lets a host do in this run.
enum Judged {
    Run {
        verdict: Verdict,
        by: DecidedBy,
        reasons: Vec<String>,
    },
    Stop(HostEnd),
}

impl Inner {
    /// The run's line, or why it is not one command line.
    fn fleet_line(&self, command: &str) -> Result<(), String> {
        if command.trim().is_empty() {
            return Err("a fleet run needs a command line".to_owned());
        }
        if command.contains(['\n', '\r']) {
            return Err("a fleet run takes one command line, without line breaks".to_owned());
        }
        Ok(())
    }

    /// The hosts of `targets`, from the saved connections as they are now.
    async fn fleet_hosts(&self, targets: Vec<String>) -> Result<Vec<FleetHost>, String> {
        let profiles = self.config.profiles_path.clone();
        tokio::task::spawn_blocking(move || {
            let store = ProfileStore::load(&profiles).map_err(|error| error.to_string())?;
            hosts_of(&store, &targets)
        })
        .await
        .map_err(|error| format!("the saved connections could not be read: {error}"))?
    }

    /// The policy's answer for `line` on `host`, as for run_command in a tab of it.
    fn fleet_decide(&self, host: &FleetHost, line: &str, mode: Mode) -> Decision {
        let policy = PolicyContext {
            mode,
            settings: &host.settings,
            tab_kind: TabKind::Terminal,
            data_seen: lock(&self.taint).seen_elsewhere(&host.name),
        };
        decide(
            &CallFacts::Command {
                line: line.to_owned(),
            },
            policy,
        )
    }

    /// What `host`'s rules say of `command` in `mode`, for a check or an approval card.
    fn fleet_host_check(&self, host: &FleetHost, command: &str, mode: Mode) -> FleetHostCheck {
        self.fleet_host_judged(host, command, mode).0
    }

    /// [`Inner::fleet_host_check`], with what decided an allowed line (the rules, or
    /// autopilot); `Rule` for a line that asks or is forbidden.
    fn fleet_host_judged(
        &self,
        host: &FleetHost,
        command: &str,
        mode: Mode,
    ) -> (FleetHostCheck, DecidedBy) {
        let (decision, reasons, by) = match self.fleet_decide(host, command, mode) {
            Decision::Allow { reasons, by } => (Verdict::Allow, reasons, by),
            Decision::Ask { reasons, .. } => (Verdict::Ask, reasons, DecidedBy::Rule),
            Decision::Deny { reason } => {
                // Said to the person choosing hosts, not the model's advice about it.
                let reason = match crate::policy::forbidden_command(command, &host.settings) {
                    Some((command, rule)) => {
                        format!("`{command}` is forbidden on this connection (rule: {rule:?})")
                    }
                    None => reason,
                };
                (Verdict::Deny, vec![reason], DecidedBy::Rule)
            }
        };
        let check = FleetHostCheck {
            host: host.name.clone(),
            decision,
            reasons,
        };
        (check, by)
    }

    /// `Op::FleetCheck`.
    pub(super) async fn fleet_check(
        &self,
        run: String,
        targets: Vec<String>,
        command: String,
        mode: Option<Mode>,
    ) {
        let checked = match self.fleet_line(&command) {
            Ok(()) => self.fleet_hosts(targets).await,
            Err(message) => Err(message),
        };
        let hosts = match checked {
            Ok(hosts) => hosts,
            Err(message) => {
                self.emit(Event::Error { tab: None, message });
                return;
            }
        };
        let mode = mode.unwrap_or_default();
        let hosts = hosts
            .iter()
            .map(|host| self.fleet_host_check(host, &command, mode))
            .collect();
        self.emit(Event::FleetChecked {
            run,
            command,
            hosts,
        });
    }

    /// `Op::FleetCancel`.
    pub(super) fn fleet_cancel(&self, run: &str) {
        if let Some(cancel) = lock(&self.fleet_runs).get(run) {
            cancel.cancel();
        }
    }

    /// `Op::FleetRun`.
    pub(super) async fn fleet_run(self: Arc<Self>, asked: FleetAsk) {
        let cancel = CancellationToken::new();
        lock(&self.fleet_runs).insert(asked.run.clone(), cancel.clone());
        let hosts = match self.fleet_line(&asked.command) {
            Ok(()) => self.fleet_hosts(asked.targets.clone()).await,
            Err(message) => Err(message),
        };
        match hosts {
            Ok(hosts) => {
                self.clone().fleet_run_hosts(&asked, hosts, &cancel).await;
            }
            Err(message) => self.emit(Event::Error { tab: None, message }),
        }
        lock(&self.fleet_runs).remove(&asked.run);
    }

    /// Runs `hosts`, reports each and the whole (`FleetFinished`), and returns the report.
    async fn fleet_run_hosts(
        self: Arc<Self>,
        asked: &FleetAsk,
        hosts: Vec<FleetHost>,
        cancel: &CancellationToken,
    ) -> FleetReport {
        let at_once = asked
            .concurrency
            .map_or(self.config.fleet_concurrency, |asked| asked as usize)
            .clamp(1, crate::fleet::MAX_CONCURRENCY);
        let total = u32::try_from(hosts.len()).unwrap_or(u32::MAX);
        let finished = AtomicU32::new(0);
        let finished = &finished;
        let mut results: Vec<(usize, FleetHostResult, String)> =
            futures::stream::iter(hosts.into_iter().enumerate())
                .map(|(index, host)| {
                    let inner = self.clone();
                    async move {
                        let (result, output) = inner.fleet_host(asked, &host, cancel).await;
                        let done = finished.fetch_add(1, Ordering::SeqCst) + 1;
                        inner.emit(Event::FleetHostFinished {
                            run: asked.run.clone(),
                            result: result.clone(),
                            done,
                            total,
                        });
                        (index, result, output)
                    }
                })
                .buffer_unordered(at_once)
                .collect()
                .await;
        results.sort_by_key(|(index, _, _)| *index);
        let report = report(
            &asked.command,
            results
                .into_iter()
                .map(|(_, result, output)| (result, output))
                .collect(),
        );
        self.emit(Event::FleetFinished {
            run: asked.run.clone(),
            report: report.clone(),
        });
        report
    }

    /// The run_on_hosts tool: each host judged by its own rules in the tab's mode, ONE approval
    /// (its card lists which hosts allow, ask and forbid the line) for the hosts that ask, then
    /// a fleet run whose id is the call's; the model gets the grouped report, capped.
    #[cfg(feature = "run-on-hosts")]
    pub(super) async fn run_on_hosts(
        self: &Arc<Self>,
        tab: &Arc<super::tabs::Tab>,
        call: &CallId,
        tool: &str,
        args: &serde_json::Value,
        cancel: &CancellationToken,
    ) -> super::pipeline::Ran {
        use super::pipeline::{Approval, Card, Ran, error_outcome, ok_outcome};
        let ended = |status, message: String, verdict, by, reasons| {
            Ran::ended(error_outcome(tool, status, message), verdict, by, reasons)
        };
        let params: tools::RunOnHostsParams = match serde_json::from_value(args.clone()) {
            Ok(params) => params,
            Err(error) => {
                let message = format!("run_on_hosts: invalid arguments: {error}");
                return ended(ToolStatus::Error, message, Verdict::Deny, None, Vec::new());
            }
        };
        let hosts = match self.fleet_hosts(params.hosts.clone()).await {
            Ok(hosts) => hosts,
            Err(message) => {
                let message = format!("run_on_hosts: {message}");
                return ended(ToolStatus::Error, message, Verdict::Deny, None, Vec::new());
            }
        };
        let mode = tab.mode();
        let judged: Vec<(FleetHostCheck, DecidedBy)> = hosts
            .iter()
            .map(|host| self.fleet_host_judged(host, &params.command, mode))
            .collect();
        // Without a host that asks, what let the line run: autopilot where it let through a
        // line that would ask in ask mode, else the rules themselves.
        let unasked = if judged.iter().any(|(_, by)| *by == DecidedBy::Autopilot) {
            DecidedBy::Autopilot
        } else {
            DecidedBy::Rule
        };
        let checks: Vec<FleetHostCheck> = judged.into_iter().map(|(check, _)| check).collect();
        let asking: Vec<String> = checks
            .iter()
            .filter(|check| check.decision == Verdict::Ask)
            .map(|check| check.host.clone())
            .collect();
        let forbidding = checks
            .iter()
            .filter(|check| check.decision == Verdict::Deny)
            .count();
        let mut reasons = vec![format!(
            "{} of {} hosts ask, {forbidding} forbid it",
            asking.len(),
            checks.len()
        )];
        let mut waited = None;
        let (verdict, by) = if asking.is_empty() {
            (Verdict::Allow, unasked)
        } else {
            reasons.push(format!("asked for {}", asking.join(", ")));
            let card = Card {
                reasons: reasons.clone(),
                risk: Risk::Routine,
                preview: Some(ApprovalPreview::Fleet {
                    command: params.command.clone(),
                    hosts: checks.clone(),
                }),
                permission: None,
                allow_rule: None,
            };
            let (answer, asked_for) = self.ask_approval(tab, call, tool, args, card, cancel).await;
            waited = Some(asked_for);
            let refused = |status, message: String, by| Ran {
                waited,
                ..ended(status, message, Verdict::Ask, by, reasons.clone())
            };
            match answer {
                Ok(Approval {
                    decision: ApprovalDecision::Approve | ApprovalDecision::AllowForConnection,
                    by,
                    ..
                }) => (Verdict::Ask, by),
                Ok(Approval { by, reason, .. }) => {
                    let message = match reason {
                        Some(reason) => format!("the user denied this call: {reason}"),
                        None => "the user denied this call; nothing ran".to_owned(),
                    };
                    return refused(ToolStatus::Denied, message, Some(by));
                }
                Err(_) => {
                    let message = "cancelled while waiting for approval".to_owned();
                    return refused(ToolStatus::Cancelled, message, None);
                }
            }
        };
        self.emit(Event::ToolRunning {
            tab: tab.id.clone(),
            call: call.clone(),
        });
        let asked = FleetAsk {
            run: call.clone(),
            targets: params.hosts,
            command: params.command,
            mode,
            approved: if verdict == Verdict::Ask {
                asking
            } else {
                Vec::new()
            },
            automatic: by == DecidedBy::Automatic,
            concurrency: None,
        };
        let report = self.clone().fleet_run_hosts(&asked, hosts, cancel).await;
        Ran {
            waited,
            ..Ran::ended(
                ok_outcome(tool, &report_for_model(report)),
                verdict,
                Some(by),
                reasons,
            )
        }
    }

    /// One host: judged, connected, judged again where links lead, run, audited; or cancelled.
    async fn fleet_host(
        &self,
        asked: &FleetAsk,
        host: &FleetHost,
        cancel: &CancellationToken,
    ) -> (FleetHostResult, String) {
        let started = Instant::now();
        let verdict = || match self.fleet_decide(host, &asked.command, asked.mode) {
            Decision::Allow { .. } => Verdict::Allow,
            Decision::Ask { .. } => Verdict::Ask,
            Decision::Deny { .. } => Verdict::Deny,
        };
        let end = if cancel.is_cancelled() {
            HostEnd::cancelled("the run was cancelled before this host started", verdict())
        } else {
            self.emit(Event::FleetHostRunning {
                run: asked.run.clone(),
                host: host.name.clone(),
            });
            // Dropping the host's future drops its connection, which stops the command.
            tokio::select! {
                biased;
                () = cancel.cancelled() => HostEnd::cancelled(
                    "the run was cancelled while this host ran; its connection was closed",
                    verdict(),
                ),
                end = self.fleet_host_end(asked, host) => end,
            }
        };
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let result = FleetHostResult {
            host: host.name.clone(),
            status: end.status,
            exit_code: end.exit_code,
            reason: end.reason.clone(),
            duration_ms,
        };
        self.fleet_audit(asked, host, &end, duration_ms);
        (result, end.output)
    }

    async fn fleet_host_end(&self, asked: &FleetAsk, host: &FleetHost) -> HostEnd {
        let decision = self.fleet_decide(host, &asked.command, asked.mode);
        let failed = match self.fleet_judged(asked, host, decision.clone()) {
            Judged::Stop(end) => return end,
            Judged::Run {
                verdict,
                by,
                reasons,
            } => move |reason: String| HostEnd {
                reasons,
                ..HostEnd::failed(reason, verdict, Some(by))
            },
        };
        let target = match &host.target {
            Ok(target) => target,
            Err(reason) => return failed(reason.clone()),
        };
        let prompts = Arc::new(FleetPrompts);
        let session = match SshSession::connect(target, &self.ssh_options(), prompts).await {
            Ok(session) => session,
            Err(error) => return failed(error.to_string()),
        };
        let end = self.fleet_on_server(asked, host, decision, &session).await;
        session.disconnect().await;
        end
    }

    /// Whether `decision` lets `host` run the line in this run.
    fn fleet_judged(&self, asked: &FleetAsk, host: &FleetHost, decision: Decision) -> Judged {
        let stop = |status, reason: String, verdict, decided_by, reasons| {
            Judged::Stop(HostEnd {
                status,
                exit_code: None,
                reason: Some(reason),
                output: String::new(),
                verdict,
                decided_by,
                reasons,
            })
        };
        match decision {
            Decision::Deny { reason } => stop(
                FleetStatus::Refused,
                reason.clone(),
                Verdict::Deny,
                Some(DecidedBy::Rule),
                vec![reason],
            ),
            Decision::Allow { by, reasons } => Judged::Run {
                verdict: Verdict::Allow,
                by,
                reasons,
            },
            Decision::Ask { reasons, .. } if asked.approved.contains(&host.name) => Judged::Run {
                verdict: Verdict::Ask,
                by: if asked.automatic {
                    DecidedBy::Automatic
                } else {
                    DecidedBy::User
                },
                reasons,
            },
            Decision::Ask { reasons, .. } => {
                let why = if reasons.is_empty() {
                    "this connection's rules ask before the line runs".to_owned()
                } else {
                    reasons.join("; ")
                };
                stop(
                    FleetStatus::NeedsApproval,
                    format!("needs approval, not given for this host: {why}"),
                    Verdict::Ask,
                    None,
                    reasons,
                )
            }
        }
    }

    /// On the connected host: where the line's writes land, judged again; then the command.
    async fn fleet_on_server(
        &self,
        asked: &FleetAsk,
        host: &FleetHost,
        decision: Decision,
        session: &SshSession,
    ) -> HostEnd {
        let line = asked.command.as_str();
        let resources = TabResources {
            terminal: None,
            ssh: Some(session.clone()),
            files: None,
            local_files: None,
        };
        let resolved = crate::tools::links::resolve_command_writes(line, &resources).await;
        let decision = crate::policy::judge_resolved_writes(decision, &resolved);
        let (verdict, by, reasons) = match self.fleet_judged(asked, host, decision) {
            Judged::Run {
                verdict,
                by,
                reasons,
            } => (verdict, by, reasons),
            Judged::Stop(end) => return end,
        };
        let settings = &host.settings;
        let keep = settings.output_limit_kb as usize * 1024;
        let timeout = Duration::from_secs(u64::from(settings.command_timeout_s));
        let ran = tokio::time::timeout(timeout, session.exec_bounded(line, keep)).await;
        let failed = |reason: String| HostEnd {
            reasons: reasons.clone(),
            ..HostEnd::failed(reason, verdict, Some(by))
        };
        let output = match ran {
            Ok(Ok(output)) => output,
            Ok(Err(error)) => return failed(error.to_string()),
            Err(_) => {
                return failed(format!(
                    "still running after {} s (the connection's command timeout); it was \
                     stopped by closing the connection",
                    settings.command_timeout_s
                ));
            }
        };
        lock(&self.taint).record(&host.name, settings.sensitivity);
        HostEnd {
            status: FleetStatus::Done,
            exit_code: output
                .exit_status
                .map(|code| i32::try_from(code).unwrap_or(i32::MAX)),
            reason: output
                .signal
                .as_ref()
                .map(|signal| format!("ended by signal {signal}")),
            output: output_text(&output, settings),
            verdict,
            decided_by: Some(by),
            reasons,
        }
    }

    /// The host's audit line: tool `fleet_run`, the run's id as the tab.
    fn fleet_audit(&self, asked: &FleetAsk, host: &FleetHost, end: &HostEnd, duration_ms: u64) {
        let status = match end.status {
            FleetStatus::Done => ToolStatus::Ok,
            FleetStatus::Failed => ToolStatus::Error,
            FleetStatus::Refused | FleetStatus::NeedsApproval => ToolStatus::Denied,
            FleetStatus::Cancelled => ToolStatus::Cancelled,
        };
        let outcome = match end.status {
            FleetStatus::Done => "done",
            FleetStatus::Failed => "failed",
            FleetStatus::Refused => "refused",
            FleetStatus::NeedsApproval => "needs_approval",
            FleetStatus::Cancelled => "cancelled",
        };
        let mut result = serde_json::json!({ "status": outcome });
        if let Some(code) = end.exit_code {
            result["exit_code"] = code.into();
        }
        let record = AuditRecord {
            time: now_rfc3339(),
            tab: format!("fleet:{}", asked.run),
            connection: host.name.clone(),
            tool: "fleet_run".to_owned(),
            call: format!("{}/{}", asked.run, host.name),
            args: redact_args(&serde_json::json!({ "command": asked.command })),
            decision: end.verdict,
            decided_by: end.decided_by,
            reasons: end.reasons.clone(),
            status,
            result: Some(result),
            error: match end.status {
                FleetStatus::Done => None,
                _ => end.reason.clone(),
            },
            edited_command: None,
            duration_ms,
            waited_ms: None,
        };
        self.record_audit(record, None);
    }

    /// Appends `record` to the audit log and tells the front ends (`AuditRecorded`), or tells
    /// them it could not be written (on `tab`).
    pub(super) fn record_audit(&self, record: AuditRecord, tab: Option<TabId>) {
        match self.audit.append(&record) {
            Ok(()) => self.emit(Event::AuditRecorded { entry: record }),
            Err(error) => self.emit(Event::Error {
                tab,
                message: error.to_string(),
            }),
        }
    }
}

/// The report as the model gets it: no per-host list (the groups name the hosts), each group's
/// output cut to [`crate::tools::run_on_hosts::MAX_GROUP_OUTPUT_BYTES`].
#[cfg(feature = "run-on-hosts")]
fn report_for_model(mut report: FleetReport) -> FleetReport {
    let keep = crate::tools::run_on_hosts::MAX_GROUP_OUTPUT_BYTES;
    report.hosts.clear();
    for group in &mut report.groups {
        if group.output.len() > keep {
            let mut cut = keep;
            while !group.output.is_char_boundary(cut) {
                cut -= 1;
            }
            let left_out = group.output.len() - cut;
            group.output.truncate(cut);
            group
                .output
                .push_str(&format!("\n[{left_out} more bytes of output left out]\n"));
        }
    }
    report
}

/// A fleet host logs in without a person: keys and the ssh-agent, and secrets already in the
/// keychain; an unknown host key is refused (open the connection once in a tab to trust it).
struct FleetPrompts;

#[async_trait::async_trait]
impl ConnectInteraction for FleetPrompts {
    async fn confirm_unknown_host(&self, _: &str, _: u16, _: &str, _: &str) -> bool {
        false
    }

    async fn password(&self, user: &str, host: &str, port: u16) -> Option<String> {
        keychain_secret(ssh_password_account(user, host, port)).await
    }

    async fn passphrase(&self, key_path: &Path) -> Option<String> {
        keychain_secret(key_passphrase_account(key_path)).await
    }

    async fn keyboard_interactive(
        &self,
        _: &str,
        _: &str,
        _: &[(String, bool)],
    ) -> Option<Vec<String>> {
        None
    }
}
