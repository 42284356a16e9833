//! The approval rules: for one tool call, **allow**, **ask** or **deny** (docs/policy.md).
//!
//! Decision order, strictest first:
//! 1. a forbidden command anywhere in the line (after unwrapping `sudo`, `bash -c`, `find -exec`,
//!    `$( )`, …) → deny; so is a re-run of the shell's history (`!!`, `^a^b`, `fc -s`) where the
//!    connection forbids any command;
//! 2. plan mode and the call could change something → deny (plan mode runs only read-only tools
//!    and the forms the program specs call read-only, [`programs`]);
//! 3. dangerous commands (built-in list + `extra_dangerous_commands`), changes that can lock the
//!    user out ([`paths::LOCKOUT_PATHS`], firewall/network/sshd commands), changes to this
//!    computer's start-up, ssh, git, autostart and `PATH` files ([`this_computer`]), deletes and
//!    replacements where the rules say so, data from a more sensitive connection written to a
//!    less sensitive one, and anything [`analysis`] cannot prove → ask, autopilot included;
//! 4. every command on the allowed list → allow; autopilot → allow; otherwise → ask.
//!
//! Links: a change is judged on the path it names **and** on the path the server really writes
//! (file tools: `FileAccess::resolve_write_target`, recorded in [`FileChange::resolved`];
//! commands: `tools::links` resolves the analysis' write targets with `realpath -m` on the server
//! and [`judge_resolved_writes`] adds them), so a link cannot carry a change past the lock-out
//! list. Where the server cannot say where a path leads, the change asks.
//!
//! This module must never let a call through that it does not understand: when in doubt, ask.
//! `kaiport policy check` calls [`decide`] and [`analyse`] directly, so what it prints is what the
//! engine does.

pub mod analysis;
pub mod check;
pub mod paths;
pub mod programs;
pub mod rules;
pub mod this_computer;

pub use analysis::{Analysis, SimpleCommand, Write, analyse, normalise_name};

use kaiport_protocol::tools::Side;
use kaiport_protocol::{ConnectionSettings, DecidedBy, Mode, Risk, Sensitivity, TabKind};

/// What the policy decided for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow {
        by: DecidedBy,
        reasons: Vec<String>,
    },
    Ask {
        reasons: Vec<String>,
        /// What is at stake (dangerous and lock-out calls ask in every mode).
        risk: Risk,
    },
    Deny {
        reason: String,
    },
}

/// What the policy needs to know about a call, gathered before it runs (for file changes: after
/// reading what is there, so "replaces an existing file" is a fact, not a guess).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallFacts {
    /// A command line typed into the terminal (run_command).
    Command { line: String },
    /// Text and keys typed into whatever runs in the terminal (send_input): it can answer a
    /// question, confirm a deletion or type a whole command.
    TerminalInput { text: String },
    /// send_input away from a shell prompt of only `q`, Esc or Ctrl-C: leaves a pager, an
    /// interpreter or a full-screen program (plan mode lets it through; otherwise it is
    /// typed input like any other).
    LeaveProgram { text: String },
    /// send_input at a shell prompt whose keys run a line that cannot be read before it runs
    /// (why in `reason`): asks, also in autopilot; `text` is still checked for forbidden
    /// commands.
    UnreadLine { text: String, reason: String },
    /// Reads only. `contents`: file contents go to the model (read_file, search_files), which
    /// needs the connection's `send_file_contents` permission.
    Read { contents: bool },
    /// A file's contents read as root through sudo (read_file with `sudo`): like a read with
    /// contents, and it asks unless in autopilot (files only root can read often hold secrets).
    ReadAsRoot { path: String },
    /// A folder's names listed as root through sudo (list_dir with `sudo`): no contents, and it
    /// asks unless in autopilot (what a root-only folder holds is root's to show).
    ListAsRoot { path: String },
    /// Needs the user anyway (ask_user): no approval on top.
    Interaction,
    /// Plan bookkeeping (update_plan status changes): changes nothing on any server.
    Plan,
    /// propose_plan: always asks; approving it is the user's approval of the plan.
    ProposePlan { steps: usize },
    /// update_plan adding a step: the user confirms it.
    PlanStepAdded { title: String },
    /// Changes to files or folders.
    Changes { changes: Vec<FileChange> },
    /// A port forward Pilot proposes (open_forward), as `ssh` would take it
    /// (`-L 8080:localhost:80`): asks in every mode, refused in plan mode and where the
    /// connection forbids `ssh` with it.
    Forward { forward: String },
}

/// One change a file tool would make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub side: Side,
    pub kind: ChangeKind,
    /// Where the change really lands when links lead elsewhere, as the server resolved it
    /// (`FileAccess::resolve_write_target`); `None` when it is `path` itself. The rules judge
    /// both paths.
    pub resolved: Option<Resolved>,
}

/// Where a change through links lands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// The real path, which differs from the one given.
    To(String),
    /// The server could not say (the reason, for the user): such a change always asks.
    Unknown(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeKind {
    /// A new file.
    Create,
    /// An existing file replaced whole.
    Replace,
    /// An existing file edited in place.
    Edit,
    Delete {
        recursive: bool,
    },
    Rename {
        to: String,
        target_exists: bool,
    },
    MakeDir,
    /// A file copied between the sides of a storage tab.
    Transfer {
        replaces_existing: bool,
    },
}

impl FileChange {
    fn describe(&self) -> String {
        match &self.resolved {
            Some(Resolved::To(target)) => format!(
                "{} (through a link: the file changed is {target})",
                self.describe_given()
            ),
            Some(Resolved::Unknown(why)) => format!(
                "{} (where links lead could not be checked: {why}; this always asks)",
                self.describe_given()
            ),
            None => self.describe_given(),
        }
    }

    fn describe_given(&self) -> String {
        match &self.kind {
            ChangeKind::Create => format!("creates {}", self.path),
            ChangeKind::Replace => format!("replaces the existing file {}", self.path),
            ChangeKind::Edit => format!("edits {}", self.path),
            ChangeKind::Delete { recursive: true } => {
                format!("deletes {} and everything in it", self.path)
            }
            ChangeKind::Delete { recursive: false } => format!("deletes {}", self.path),
            ChangeKind::Rename {
                to,
                target_exists: true,
            } => {
                format!("renames {} onto the existing {to}", self.path)
            }
            ChangeKind::Rename {
                to,
                target_exists: false,
            } => format!("renames {} to {to}", self.path),
            ChangeKind::MakeDir => format!("creates the folder {}", self.path),
            ChangeKind::Transfer {
                replaces_existing: true,
            } => {
                format!("copies a file onto the existing {}", self.path)
            }
            ChangeKind::Transfer {
                replaces_existing: false,
            } => format!("copies a file to {}", self.path),
        }
    }

    /// The paths this change touches, with whether everything below them is affected.
    fn paths(&self) -> Vec<(String, bool)> {
        let mut paths = match &self.kind {
            ChangeKind::Rename { to, .. } => vec![(self.path.clone(), true), (to.clone(), false)],
            ChangeKind::Delete { recursive } => vec![(self.path.clone(), *recursive)],
            _ => vec![(self.path.clone(), false)],
        };
        if let Some(Resolved::To(target)) = &self.resolved {
            paths.push((target.clone(), false));
        }
        paths
    }

    /// Changes that destroy or overwrite data the user had.
    fn destroys_data(&self) -> bool {
        matches!(
            self.kind,
            ChangeKind::Delete { .. }
                | ChangeKind::Rename {
                    target_exists: true,
                    ..
                }
                | ChangeKind::Transfer {
                    replaces_existing: true
                }
        )
    }

    /// Changes to something that already exists.
    fn touches_existing(&self) -> bool {
        self.destroys_data() || matches!(self.kind, ChangeKind::Replace | ChangeKind::Edit)
    }
}

/// The tab a call runs in, as far as the rules care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PolicyContext<'a> {
    pub mode: Mode,
    pub settings: &'a ConnectionSettings,
    pub tab_kind: TabKind,
    /// The most sensitive label among *other* connections whose data this session has seen
    /// (from [`crate::taint::TaintLedger`]); `None` when it has seen none.
    pub data_seen: Option<Sensitivity>,
}

impl<'a> PolicyContext<'a> {
    /// A context without taint (no other connection's data seen).
    pub fn new(mode: Mode, settings: &'a ConnectionSettings, tab_kind: TabKind) -> Self {
        PolicyContext {
            mode,
            settings,
            tab_kind,
            data_seen: None,
        }
    }
}

/// The permission a call lacks when the connection's settings are all that refuse it (the user
/// may give it: the engine asks them instead of refusing).
pub fn missing_permission(
    facts: &CallFacts,
    settings: &ConnectionSettings,
) -> Option<kaiport_protocol::Permission> {
    match facts {
        CallFacts::Read { contents: true } | CallFacts::ReadAsRoot { .. }
            if !settings.send_file_contents =>
        {
            Some(kaiport_protocol::Permission::FileContents)
        }
        _ => None,
    }
}

/// Decide one call (see the module docs for the order).
pub fn decide(facts: &CallFacts, context: PolicyContext<'_>) -> Decision {
    let PolicyContext {
        mode,
        settings,
        tab_kind,
        ..
    } = context;
    let decision = match facts {
        CallFacts::Read { contents: true } | CallFacts::ReadAsRoot { .. }
            if !settings.send_file_contents =>
        {
            Decision::Deny {
            reason: "this connection does not allow sending file contents to the AI (setting \
                     send_file_contents is off); no file contents were read. Use list_dir, find_files \
                     or folder_report, or ask the user to turn the permission on."
                .to_owned(),
            }
        }
        CallFacts::ReadAsRoot { path } if mode == Mode::Autopilot => Decision::Allow {
            by: DecidedBy::Autopilot,
            reasons: vec![format!("autopilot: reads {path} as root (sudo)")],
        },
        CallFacts::ReadAsRoot { path } => Decision::Ask {
            reasons: vec![format!(
                "reads {path} as root (sudo): files only root can read often hold secrets"
            )],
            risk: Risk::Routine,
        },
        CallFacts::ListAsRoot { path } if mode == Mode::Autopilot => Decision::Allow {
            by: DecidedBy::Autopilot,
            reasons: vec![format!("autopilot: lists {path} as root (sudo)")],
        },
        CallFacts::ListAsRoot { path } => Decision::Ask {
            reasons: vec![format!(
                "lists {path} as root (sudo): only root may open this folder"
            )],
            risk: Risk::Routine,
        },
        CallFacts::Read { .. } => Decision::Allow {
            by: DecidedBy::Rule,
            reasons: vec!["reads only".to_owned()],
        },
        CallFacts::Interaction | CallFacts::Plan => Decision::Allow {
            by: DecidedBy::Rule,
            reasons: vec!["changes nothing on the server".to_owned()],
        },
        CallFacts::ProposePlan { steps } => {
            if mode == Mode::Plan {
                Decision::Ask {
                    reasons: vec![format!(
                        "Pilot proposes a plan with {steps} steps; approving it ends plan mode and lets Pilot carry it out \
                         (in ask mode: each change still asks)"
                    )],
                    risk: Risk::Routine,
                }
            } else {
                Decision::Deny {
                    reason: "propose_plan works in plan mode only; the tab is not in plan mode, so go ahead with \
                             the work (or ask the user to switch to plan mode)"
                        .to_owned(),
                }
            }
        }
        CallFacts::PlanStepAdded { title } => Decision::Ask {
            reasons: vec![format!(
                "Pilot adds a step to the approved plan: {title:?}; it is only part of the plan once you confirm it"
            )],
            risk: Risk::Routine,
        },
        CallFacts::Changes { changes } => decide_changes(changes, mode, tab_kind),
        CallFacts::Forward { forward } => decide_forward(forward, mode, settings),
        CallFacts::Command { line } => decide_command(line, mode, settings),
        CallFacts::TerminalInput { text } => decide_terminal_input(text, mode, settings),
        CallFacts::LeaveProgram { .. } if mode == Mode::Plan => Decision::Allow {
            by: DecidedBy::Rule,
            reasons: vec![
                "plan mode: leaves an interactive program (q, Esc or Ctrl-C away from a shell prompt)"
                    .to_owned(),
            ],
        },
        CallFacts::LeaveProgram { text } => decide_terminal_input(text, mode, settings),
        CallFacts::UnreadLine { text, reason } => {
            match decide_terminal_input(text, mode, settings) {
                deny @ Decision::Deny { .. } => deny,
                // What the typed text itself risks stays on the card with it.
                Decision::Ask {
                    reasons: typed,
                    risk,
                } if risk.is_dangerous() => Decision::Ask {
                    reasons: std::iter::once(reason.clone()).chain(typed).collect(),
                    risk,
                },
                Decision::Allow { .. } | Decision::Ask { .. } => Decision::Ask {
                    reasons: vec![reason.clone()],
                    risk: Risk::Dangerous,
                },
            }
        }
    };
    apply_taint(decision, facts, context)
}

/// The allowed-commands rule that would let `line` run without asking from now on, for the
/// approval card's "Always allow this command on this connection"
/// (`Event::ApprovalRequested::allow_rule`): the program and its subcommands as typed
/// (`systemctl status`, `df`). `None` unless the line is one command and that rule really lets it
/// through under `context` — so never for dangerous, lock-out or unprovable lines, writes that
/// ask, or another connection's data — and never a bare program whose spec has subcommands (the
/// rule would cover all of them).
pub fn allow_rule(line: &str, context: PolicyContext<'_>) -> Option<String> {
    let analysis = analyse(line);
    let [command] = analysis.commands.as_slice() else {
        return None;
    };
    let (name, args) = command.words.split_first()?;
    let plain = |word: &str| {
        !word.is_empty()
            && !word.starts_with('-')
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'))
    };
    if !plain(name) {
        return None;
    }
    let mut rule = vec![name.clone()];
    for ((sub, _), arg) in programs::explain(&command.words)
        .subcommands
        .iter()
        .zip(args)
    {
        if sub != arg || !plain(arg) {
            break;
        }
        rule.push(arg.clone());
    }
    let has_subcommands = programs::registry()
        .find(name)
        .and_then(|entry| entry.table.as_ref().ok())
        .is_some_and(|table| !table.root.subs.is_empty());
    if rule.len() == 1 && has_subcommands {
        return None;
    }
    let rule = rule.join(" ");
    let mut settings = context.settings.clone();
    settings.allowed_commands.push(rule.clone());
    let with_rule = PolicyContext {
        settings: &settings,
        ..context
    };
    let facts = CallFacts::Command {
        line: line.to_owned(),
    };
    matches!(
        decide(&facts, with_rule),
        Decision::Allow {
            by: DecidedBy::Rule,
            ..
        }
    )
    .then_some(rule)
}

/// Adds what the server said about a command's write targets to a decision (see
/// `tools::links`): a target that is really a lock-out path, or whose real place is unknown,
/// asks in every mode. `resolved` holds the targets that lead elsewhere as `(path, subtree,
/// where)`.
pub fn judge_resolved_writes(
    decision: Decision,
    resolved: &[(String, bool, Resolved)],
) -> Decision {
    let found: Vec<(String, Risk)> = resolved
        .iter()
        .filter_map(|(path, subtree, resolved)| match resolved {
            Resolved::To(real) => {
                let real = paths::normalise_path(real, None);
                paths::lockout_match(&real, *subtree).map(|entry| {
                    (
                        format!(
                            "writes to {path}, which is really {real} (links followed on the server); that can lock \
                             you out of the server (protected: {entry}); this always asks"
                        ),
                        Risk::Lockout,
                    )
                })
            }
            Resolved::Unknown(why) => Some((
                format!(
                    "writes to {path}, and where links on the server lead could not be checked ({why}); this always \
                     asks"
                ),
                Risk::Dangerous,
            )),
        })
        .collect();
    escalate(decision, found)
}

/// `decision` made an ask with `found`'s reasons added, as risky as the riskiest of them,
/// unless it denies or nothing was found.
fn escalate(decision: Decision, found: Vec<(String, Risk)>) -> Decision {
    let Some(found_risk) = found.iter().map(|(_, risk)| *risk).max() else {
        return decision;
    };
    let reasons = found.into_iter().map(|(reason, _)| reason);
    match decision {
        Decision::Allow { reasons: own, .. } => Decision::Ask {
            reasons: own.into_iter().chain(reasons).collect(),
            risk: found_risk,
        },
        Decision::Ask { reasons: own, risk } => Decision::Ask {
            reasons: own.into_iter().chain(reasons).collect(),
            risk: risk.max(found_risk),
        },
        deny @ Decision::Deny { .. } => deny,
    }
}

/// Data from a more sensitive connection written to a less sensitive one asks.
fn apply_taint(decision: Decision, facts: &CallFacts, context: PolicyContext<'_>) -> Decision {
    let Some(seen) = context.data_seen else {
        return decision;
    };
    let own = context.settings.sensitivity;
    let writes = matches!(
        facts,
        CallFacts::Command { .. }
            | CallFacts::TerminalInput { .. }
            | CallFacts::UnreadLine { .. }
            | CallFacts::Changes { .. }
    );
    if !writes || seen <= own {
        return decision;
    }
    let reason = format!(
        "this session has seen data from a connection labelled {} and this connection is labelled {}: the call \
         could copy that data here",
        crate::taint::label(seen),
        crate::taint::label(own)
    );
    match decision {
        Decision::Allow { reasons, .. } => {
            let mut reasons = reasons;
            reasons.push(reason);
            Decision::Ask {
                reasons,
                risk: Risk::Routine,
            }
        }
        Decision::Ask { mut reasons, risk } => {
            reasons.push(reason);
            Decision::Ask { reasons, risk }
        }
        deny @ Decision::Deny { .. } => deny,
    }
}

/// open_forward: something would listen on this computer or the server until the user closes
/// it, so the user is asked in every mode; plan mode changes nothing, and a connection that
/// forbids the `ssh` line that would open it forbids the forward.
fn decide_forward(forward: &str, mode: Mode, settings: &ConnectionSettings) -> Decision {
    if mode == Mode::Plan {
        return Decision::Deny {
            reason: format!(
                "plan mode: the port forward {forward} would make something listen on this computer or the \
                 server; nothing is opened while planning. Propose it as a plan step instead."
            ),
        };
    }
    if let Some((command, pattern)) = forbidden_command(&format!("ssh {forward}"), settings) {
        return Decision::Deny {
            reason: format!(
                "`{command}` is a forbidden command on this connection (rule: {pattern:?}), and this port \
                 forward is what it opens; nothing was opened. Ask the user to open it themselves if it is \
                 really needed."
            ),
        };
    }
    Decision::Ask {
        reasons: vec![format!(
            "opens the port forward {forward}; it stays open until the user closes it"
        )],
        risk: Risk::Routine,
    }
}

fn decide_changes(changes: &[FileChange], mode: Mode, tab_kind: TabKind) -> Decision {
    let summary: Vec<String> = changes.iter().map(FileChange::describe).collect();
    if mode == Mode::Plan {
        return Decision::Deny {
            reason: format!(
                "plan mode: this call {}; nothing is changed while planning. Propose it as a plan step instead.",
                summary.join(", ")
            ),
        };
    }
    // Lock-out paths ask in every mode, whichever tool changes them.
    let lockout: Vec<String> = changes
        .iter()
        .flat_map(FileChange::paths)
        .filter_map(|(path, subtree)| {
            let path = paths::normalise_path(&path, None);
            paths::lockout_match(&path, subtree).map(|entry| {
                format!("changes {path}, which can lock you out of the server (protected: {entry}); this always asks")
            })
        })
        .collect();
    let destroys = changes.iter().any(FileChange::destroys_data);
    if !lockout.is_empty() {
        let mut reasons = summary;
        reasons.extend(lockout);
        return Decision::Ask {
            reasons,
            risk: Risk::Lockout,
        };
    }
    let unresolved = changes
        .iter()
        .any(|change| matches!(change.resolved, Some(Resolved::Unknown(_))));
    if unresolved {
        return Decision::Ask {
            reasons: summary,
            risk: Risk::Dangerous,
        };
    }
    // Storage tabs: changing what exists always asks.
    let always_asks = destroys
        || (tab_kind == TabKind::Storage && changes.iter().any(FileChange::touches_existing));
    if always_asks {
        return Decision::Ask {
            reasons: summary,
            risk: if destroys {
                Risk::Dangerous
            } else {
                Risk::Routine
            },
        };
    }
    match mode {
        Mode::Autopilot => Decision::Allow {
            by: DecidedBy::Autopilot,
            reasons: summary,
        },
        Mode::Ask | Mode::Plan => Decision::Ask {
            reasons: summary,
            risk: Risk::Routine,
        },
    }
}

/// The reasons a command line must ask whatever the mode — unprovable parts, dangerous commands,
/// dangerous writes and lock-out changes — with what is at stake (`Routine` when there are none).
pub fn must_ask_reasons(analysis: &Analysis, settings: &ConnectionSettings) -> (Vec<String>, Risk) {
    let mut reasons: Vec<String> = analysis.unprovable.clone();
    let mut lockout = false;
    for command in &analysis.commands {
        reasons.extend(command.judged.dangerous.iter().cloned());
        if let Some(pattern) = rules::first_loose_match(command, &settings.extra_dangerous_commands)
        {
            reasons.push(format!(
                "`{}` is on this connection's dangerous list (rule: {pattern:?})",
                command.display()
            ));
        }
        lockout |= !command.judged.lockout.is_empty();
        reasons.extend(command.judged.lockout.iter().cloned());
        if let Some(reason) = forbidden_inside_unknown(command, settings) {
            reasons.push(reason);
        }
    }
    for write in &analysis.writes {
        if let Some(reason) = rules::lockout_write(write) {
            lockout = true;
            reasons.push(reason);
        } else if let Some(reason) = rules::dangerous_write(write) {
            reasons.push(reason);
        }
    }
    let mut seen = std::collections::HashSet::new();
    reasons.retain(|reason| seen.insert(reason.clone()));
    let risk = if lockout {
        Risk::Lockout
    } else if reasons.is_empty() {
        Risk::Routine
    } else {
        Risk::Dangerous
    };
    (reasons, risk)
}

/// Plan mode: `Err` with the reason when something in the line could change anything.
pub fn plan_mode_check(analysis: &Analysis) -> Result<(), String> {
    if let Some(reason) = analysis.unprovable.first() {
        return Err(format!(
            "{reason}; plan mode runs only commands it can prove read-only"
        ));
    }
    if let Some(write) = analysis.writes.first() {
        return Err(format!("{} writes to {}", write.how, write.path));
    }
    // Each command's spec (and the specs of the wrappers around it) says whether it only reads.
    for command in &analysis.commands {
        command.judged.read_only.clone()?;
    }
    Ok(())
}

/// A program kaiport has no spec for may run its arguments as a command, as wrappers do
/// (`setpriv … rm -rf /srv`): where its arguments name a command this connection forbids, it is
/// not run unasked. A program with a spec has its commands found by the spec.
fn forbidden_inside_unknown(
    command: &SimpleCommand,
    settings: &ConnectionSettings,
) -> Option<String> {
    if settings.forbidden_commands.is_empty() || programs::registry().find(command.name()).is_some()
    {
        return None;
    }
    (1..command.words.len()).find_map(|start| {
        let inner = &command.words[start..];
        settings
            .forbidden_commands
            .iter()
            .find(|pattern| rules::matches_loosely(pattern, inner))
            .map(|pattern| {
                format!(
                    "`{}` is not known to kaiport's rules and its arguments name `{}`, a forbidden \
                     command on this connection (rule: {pattern:?}), which it may run",
                    command.name(),
                    inner.join(" ")
                )
            })
    })
}

/// The first command of `line` the connection's forbidden-commands rules match, with the rule:
/// how a refusal is worded for the person who typed the line.
pub fn forbidden_command(line: &str, settings: &ConnectionSettings) -> Option<(String, String)> {
    forbidden(&analyse(line), settings)
}

fn forbidden(analysis: &Analysis, settings: &ConnectionSettings) -> Option<(String, String)> {
    analysis.commands.iter().find_map(|command| {
        rules::first_loose_match(command, &settings.forbidden_commands)
            .map(|pattern| (command.display(), pattern.to_owned()))
    })
}

/// A re-run of the shell's history where the connection forbids commands: what it runs is not
/// in the line and may be one of them (`echo rm F` first, then `^echo ^`), so it is refused.
fn forbidden_rerun(analysis: &Analysis, settings: &ConnectionSettings) -> Option<String> {
    if settings.forbidden_commands.is_empty() {
        return None;
    }
    analysis.reruns.first().map(|why| {
        format!(
            "{why}; this connection forbids some commands, and an earlier line run again could be one of them, \
             so re-running the history is refused here. Write the command out in full instead."
        )
    })
}

fn decide_command(line: &str, mode: Mode, settings: &ConnectionSettings) -> Decision {
    let analysis = analyse(line);
    if let Some((command, pattern)) = forbidden(&analysis, settings) {
        return Decision::Deny {
            reason: format!(
                "`{command}` is a forbidden command on this connection (rule: {pattern:?}); it was not run. \
                 Do not try another way to run it; ask the user to run it themselves if it is really needed."
            ),
        };
    }
    if let Some(reason) = forbidden_rerun(&analysis, settings) {
        return Decision::Deny { reason };
    }
    if mode == Mode::Plan {
        return match plan_mode_check(&analysis) {
            Ok(()) => Decision::Allow {
                by: DecidedBy::Rule,
                reasons: vec!["plan mode: reads only".to_owned()],
            },
            Err(reason) => Decision::Deny {
                reason: format!(
                    "plan mode: {reason}. While planning only read-only commands run; put this in a plan step \
                     (propose_plan) instead."
                ),
            },
        };
    }
    let (must_ask, risk) = must_ask_reasons(&analysis, settings);
    if !must_ask.is_empty() {
        return Decision::Ask {
            reasons: must_ask,
            risk,
        };
    }
    let all_allowed = !analysis.commands.is_empty()
        && analysis.commands.iter().all(|command| {
            settings
                .allowed_commands
                .iter()
                .any(|pattern| rules::matches_prefix(pattern, &command.words))
        });
    // In ask mode every change asks: an allowed command only writes without asking when writing
    // is what that command is (`cp`, `tee`), not through a redirection or a flag (`>`, `sed -i`).
    let changes: Vec<String> = analysis
        .writes
        .iter()
        .filter(|write| !write.own)
        .map(|write| format!("{} writes to {}", write.how, write.path))
        .collect();
    if all_allowed && !changes.is_empty() && mode == Mode::Ask {
        return Decision::Ask {
            reasons: changes,
            risk: Risk::Routine,
        };
    }
    if all_allowed {
        return Decision::Allow {
            by: DecidedBy::Rule,
            reasons: vec!["every command is on the allowed list".to_owned()],
        };
    }
    match mode {
        Mode::Autopilot => Decision::Allow {
            by: DecidedBy::Autopilot,
            reasons: Vec::new(),
        },
        // The plain ask-mode reason: the approval card leaves it out
        // (ui/src/lib/state/pilot-cards.ts, `ROUTINE_REASONS`).
        Mode::Ask | Mode::Plan => Decision::Ask {
            reasons: vec!["runs a command in the terminal".to_owned()],
            risk: Risk::Routine,
        },
    }
}

/// Line ends of typed text tried, from the last, for a part that parses (see
/// [`decide_terminal_input`]).
const MAX_TYPED_LINES: usize = 64;

fn decide_terminal_input(text: &str, mode: Mode, settings: &ConnectionSettings) -> Decision {
    // Typed text may be a whole command line: the rules for commands apply to it too.
    let analysis = if text.trim().is_empty() {
        Analysis::default()
    } else {
        analyse(text)
    };
    if let Some((command, pattern)) = forbidden(&analysis, settings) {
        return Decision::Deny {
            reason: format!(
                "the input contains `{command}`, a forbidden command on this connection (rule: {pattern:?})"
            ),
        };
    }
    if mode == Mode::Plan {
        return Decision::Deny {
            reason: "plan mode: typing into the terminal could change something; use read_screen to look"
                .to_owned(),
        };
    }
    let unparsed = |analysis: &Analysis| {
        analysis
            .unprovable
            .iter()
            .any(|reason| reason.contains("could not be parsed"))
    };
    let mut typed = analysis.clone();
    if unparsed(&analysis) && text.contains('\n') {
        // The shell runs each line that is whole when its line end is typed, whatever half line
        // follows: the longest part up to a line end that parses is judged on its own too. With
        // none found among the last lines, what runs is unknown and the parse error stays.
        let head = text
            .match_indices('\n')
            .rev()
            .take(MAX_TYPED_LINES)
            .map(|(end, _)| &text[..=end])
            .find(|head| !unparsed(&analyse(head)));
        match head {
            Some(head) => {
                let decision = decide_terminal_input(head, mode, settings);
                if !matches!(decision, Decision::Allow { .. }) {
                    return decision;
                }
            }
            None => {
                let (reasons, risk) = must_ask_reasons(&analysis, settings);
                return Decision::Ask { reasons, risk };
            }
        }
    }
    // Input is often not a whole line (`y`, `:wq`, half a quote): a parse error alone does not
    // ask; everything else that would ask for run_command does.
    typed
        .unprovable
        .retain(|reason| !reason.contains("could not be parsed"));
    let (must_ask, risk) = must_ask_reasons(&typed, settings);
    if !must_ask.is_empty() {
        return Decision::Ask {
            reasons: must_ask,
            risk,
        };
    }
    match mode {
        Mode::Autopilot => Decision::Allow {
            by: DecidedBy::Autopilot,
            reasons: Vec::new(),
        },
        // The plain ask-mode reason: the approval card leaves it out.
        Mode::Ask | Mode::Plan => Decision::Ask {
            reasons: vec!["types into the terminal".to_owned()],
            risk: Risk::Routine,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn settings(forbidden: &[&str], allowed: &[&str]) -> ConnectionSettings {
        ConnectionSettings {
            forbidden_commands: forbidden.iter().map(|s| s.to_string()).collect(),
            allowed_commands: allowed.iter().map(|s| s.to_string()).collect(),
            ..ConnectionSettings::default()
        }
    }

    fn verdict(line: &str, mode: Mode, settings: &ConnectionSettings) -> &'static str {
        let context = PolicyContext::new(mode, settings, TabKind::Terminal);
        match decide(
            &CallFacts::Command {
                line: line.to_owned(),
            },
            context,
        ) {
            Decision::Allow { .. } => "allow",
            Decision::Ask { .. } => "ask",
            Decision::Deny { .. } => "deny",
        }
    }

    #[test]
    fn forbidden_anywhere_denies_even_in_autopilot() {
        let rules = settings(&["rm", "systemctl restart"], &["ls"]);
        for line in [
            "rm -rf /tmp/x",
            "ls; rm x",
            "ls && /bin/rm x",
            "sudo systemctl restart nginx",
            "echo ok | \\rm x",
            "'r'm x",
            "ls\nrm x",
            "(cd /tmp && rm x)",
        ] {
            assert_eq!(verdict(line, Mode::Autopilot, &rules), "deny", "{line}");
        }
        assert_eq!(
            verdict("systemctl status nginx", Mode::Autopilot, &rules),
            "allow"
        );
        assert_eq!(
            verdict("grep -r \"rm -rf\" /var/log", Mode::Autopilot, &rules),
            "allow"
        );
    }

    #[test]
    fn the_always_allow_rule_is_the_program_and_its_subcommand() {
        let rule = |line: &str, mode, rules: &ConnectionSettings| {
            allow_rule(line, PolicyContext::new(mode, rules, TabKind::Terminal))
        };
        let none = settings(&[], &[]);
        for (line, want) in [
            ("systemctl status nginx", Some("systemctl status")),
            ("df -h /", Some("df")),
            ("git log --oneline -5", Some("git log")),
            ("ls -la /etc", Some("ls")),
            // A program with subcommands, given none: a rule would cover every one.
            ("systemctl", None),
            // Dangerous, lock-out, unprovable, several commands, writes that ask.
            ("rm -rf /tmp/x", None),
            ("ufw disable", None),
            ("eval \"$x\"", None),
            ("ls | grep x", None),
            ("echo hi > /tmp/x", None),
        ] {
            assert_eq!(rule(line, Mode::Ask, &none).as_deref(), want, "{line}");
        }
        // Taint asks whatever the rule says: no rule is offered then.
        let tainted = PolicyContext {
            data_seen: Some(Sensitivity::Restricted),
            ..PolicyContext::new(Mode::Ask, &none, TabKind::Terminal)
        };
        assert_eq!(allow_rule("df -h", tainted), None);
        // What the rule is offered for runs without asking once it is there.
        let with = settings(&[], &["systemctl status"]);
        assert_eq!(verdict("systemctl status nginx", Mode::Ask, &with), "allow");
        // A forbidden line gets no rule.
        assert_eq!(rule("df -h", Mode::Ask, &settings(&["df"], &[])), None);
    }

    #[test]
    fn risk_tells_lockout_from_dangerous() {
        let rules = settings(&[], &[]);
        let risk = |line: &str| match decide(
            &CallFacts::Command {
                line: line.to_owned(),
            },
            PolicyContext::new(Mode::Ask, &rules, TabKind::Terminal),
        ) {
            Decision::Ask { risk, .. } => Some(risk),
            _ => None,
        };
        assert_eq!(risk("df -h"), Some(Risk::Routine));
        assert_eq!(risk("rm -rf /tmp/x"), Some(Risk::Dangerous));
        assert_eq!(
            risk("echo 'PermitRootLogin yes' >> /etc/ssh/sshd_config"),
            Some(Risk::Lockout)
        );
        assert_eq!(risk("ufw disable"), Some(Risk::Lockout));
        // The ssh client's settings are a change to /etc, not a lock-out file; the server's
        // drop-ins and units are, however they are reached; the dangerous additions are
        // dangerous (never merely routine).
        let expected: [(Risk, &[&str]); 2] = [
            (
                Risk::Lockout,
                &[
                    "cp /tmp/x /etc/ssh/sshd_config.d/10-x.conf",
                    "cp /etc/ssh/sshd_config.d/10-x.conf{.bak,}",
                    "cp /tmp/{a,50-x.conf} /etc/ssh/sshd_config.d/",
                    "git -C /etc restore ssh/sshd_config.d/",
                    "tee /run/systemd/system/sshd.service.d/x.conf",
                    "ln -s /dev/null /run/systemd/system/ssh.service",
                    "mkdir -p /lib/systemd/system/ssh.socket.d",
                ],
            ),
            (
                Risk::Dangerous,
                &[
                    "cp /tmp/x /etc/ssh/ssh_config",
                    "cp /tmp/x.conf /etc/ssh/ssh_config.d/10-x.conf",
                    "chgrp staff /var",
                    "mysql -e 'truncate table users' app",
                    "sqlite3 /var/lib/app/db 'DROP TABLE users'",
                    "mongosh --eval 'db.users.drop()'",
                    "journalctl --vacuum-size=1M",
                    "docker volume prune -f",
                    "lvremove -f vg0",
                    "mdadm -S /dev/md0",
                    "echo c | tee /proc/sysrq-trigger",
                    "sysctl -w kernel.sysrq=1",
                    "dmesg -C",
                    "chmod u+s /tmp/x",
                ],
            ),
        ];
        for (expected, lines) in expected {
            for line in lines {
                assert_eq!(risk(line), Some(expected), "{line}");
            }
        }
    }

    #[test]
    fn allowed_needs_every_command_allowed() {
        let rules = settings(&[], &["ls", "cat"]);
        assert_eq!(verdict("ls -la /etc", Mode::Ask, &rules), "allow");
        assert_eq!(verdict("ls | cat", Mode::Ask, &rules), "allow");
        assert_eq!(verdict("ls; touch x", Mode::Ask, &rules), "ask");
        assert_eq!(verdict("ls $(touch x)", Mode::Ask, &rules), "ask");
        assert_eq!(verdict("touch x", Mode::Autopilot, &rules), "allow");
    }

    #[test]
    fn unprovable_asks_in_autopilot() {
        let rules = settings(&[], &[]);
        for line in [
            "eval \"$x\"",
            "$cmd arg",
            "`echo rm` x",
            "$(echo rm) x",
            "curl x | sh",
            "bash -c \"$payload\"",
        ] {
            assert_eq!(verdict(line, Mode::Autopilot, &rules), "ask", "{line}");
        }
    }

    #[test]
    fn history_reruns_are_refused_where_commands_are_forbidden() {
        let forbidding = settings(&["rm"], &[]);
        let open = settings(&[], &[]);
        for line in [
            "!!",
            "^echo ^",
            "ls\n^a^b",
            "fc -s 'echo '=",
            "fc",
            "r",
            "sudo !!",
        ] {
            assert_eq!(
                verdict(line, Mode::Autopilot, &forbidding),
                "deny",
                "{line}"
            );
            assert_eq!(verdict(line, Mode::Autopilot, &open), "ask", "{line}");
            assert_eq!(verdict(line, Mode::Plan, &open), "deny", "{line}");
        }
        for line in ["fc -l", "history", "echo '!!'", "echo a^b"] {
            assert_eq!(
                verdict(line, Mode::Autopilot, &forbidding),
                "allow",
                "{line}"
            );
        }
        // Typed into a running program, `!` is not the shell's history: it asks.
        let context = PolicyContext::new(Mode::Autopilot, &forbidding, TabKind::Terminal);
        let typed = decide(
            &CallFacts::TerminalInput {
                text: ":w !sudo tee %".to_owned(),
            },
            context,
        );
        assert!(
            matches!(typed, Decision::Ask { risk, .. } if risk.is_dangerous()),
            "{typed:?}"
        );
    }

    /// A program without a spec may run what its arguments name, as a wrapper would.
    #[test]
    fn a_forbidden_command_inside_an_unknown_program_asks() {
        let rules = settings(&["rm", "systemctl stop"], &[]);
        for line in [
            "my-jail --uid=1000 rm -rf /srv",
            "my-sandbox --quiet /bin/rm -rf /srv",
            "my-wrapper systemctl stop ssh",
        ] {
            assert_eq!(verdict(line, Mode::Autopilot, &rules), "ask", "{line}");
        }
        // A launcher with a spec has the command it starts judged as typed: refused.
        for line in [
            "setpriv --reuid=1000 rm -rf /srv",
            "firejail --quiet /bin/rm -rf /srv",
        ] {
            assert_eq!(verdict(line, Mode::Autopilot, &rules), "deny", "{line}");
        }
        // Not named: as before, the user's own program runs.
        assert_eq!(
            verdict("./deploy.sh web1 --fast", Mode::Autopilot, &rules),
            "allow"
        );
        assert_eq!(
            verdict("my-wrapper systemctl status ssh", Mode::Autopilot, &rules),
            "allow"
        );
        // A program with a spec is judged by it: an echoed word is only text.
        assert_eq!(
            verdict("echo rm -rf /srv", Mode::Autopilot, &rules),
            "allow"
        );
    }

    /// The shell runs a whole first line when its line end is typed, even when the text goes on
    /// with half a line that does not parse.
    #[test]
    fn typed_lines_before_a_half_line_are_judged() {
        let rules = settings(&["rm"], &[]);
        let typed = |text: &str| {
            decide(
                &CallFacts::TerminalInput {
                    text: text.to_owned(),
                },
                PolicyContext::new(Mode::Autopilot, &rules, TabKind::Terminal),
            )
        };
        let lockout =
            typed("echo `echo 'PermitRootLogin yes' >> /etc/ssh/sshd_config`\n$(cho ls` -la");
        assert!(matches!(lockout, Decision::Ask { .. }), "{lockout:?}");
        let forbidden = typed("rm -rf /srv\necho 'half");
        assert!(matches!(forbidden, Decision::Deny { .. }), "{forbidden:?}");
        // Half a line alone, or after a harmless line, is still typed unasked.
        assert!(matches!(typed("it's"), Decision::Allow { .. }));
        let harmless = typed("ls -l\necho 'half");
        assert!(matches!(harmless, Decision::Allow { .. }), "{harmless:?}");
    }

    #[test]
    fn plan_mode_refuses_commands_and_input() {
        let rules = settings(&[], &[]);
        assert_eq!(verdict("ls", Mode::Plan, &rules), "allow");
        assert_eq!(verdict("touch x", Mode::Plan, &rules), "deny");
        let context = PolicyContext::new(Mode::Plan, &rules, TabKind::Terminal);
        let input = decide(
            &CallFacts::TerminalInput {
                text: "y".to_owned(),
            },
            context,
        );
        assert!(matches!(input, Decision::Deny { .. }));
    }

    #[test]
    fn file_contents_need_the_permission() {
        let verdict = |send_file_contents: bool, contents: bool| {
            let rules = ConnectionSettings {
                send_file_contents,
                ..ConnectionSettings::default()
            };
            let context = PolicyContext::new(Mode::Autopilot, &rules, TabKind::Terminal);
            matches!(
                decide(&CallFacts::Read { contents }, context),
                Decision::Allow { .. }
            )
        };
        assert!(!verdict(false, true));
        assert!(verdict(false, false));
        assert!(verdict(true, true));
    }

    #[test]
    fn changes_through_links_are_judged_where_they_land() {
        let rules = settings(&[], &[]);
        let context = PolicyContext::new(Mode::Autopilot, &rules, TabKind::Terminal);
        let edit = |resolved| CallFacts::Changes {
            changes: vec![FileChange {
                resolved,
                path: "/tmp/l/notes".to_owned(),
                side: Side::Remote,
                kind: ChangeKind::Edit,
            }],
        };
        assert!(matches!(
            decide(&edit(None), context),
            Decision::Allow { .. }
        ));
        let harmless = Some(Resolved::To("/srv/notes".to_owned()));
        assert!(matches!(
            decide(&edit(harmless), context),
            Decision::Allow { .. }
        ));
        for target in [
            "/root/.ssh/authorized_keys",
            "/etc/ssh/sshd_config",
            "/etc/sudoers.d/new",
            "/srv/x/.ssh/authorized_keys2",
        ] {
            let through = Some(Resolved::To(target.to_owned()));
            match decide(&edit(through), context) {
                Decision::Ask { reasons, risk } => {
                    assert_eq!(risk, Risk::Lockout);
                    let reasons = reasons.join(" ");
                    assert!(
                        reasons.contains("through a link") && reasons.contains(target),
                        "{reasons}"
                    );
                }
                other => panic!("{target}: {other:?}"),
            }
        }
        let unknown = Some(Resolved::Unknown("permission denied".to_owned()));
        assert!(matches!(
            decide(&edit(unknown), context),
            Decision::Ask {
                risk: Risk::Dangerous,
                ..
            }
        ));
    }

    #[test]
    fn command_writes_through_links_ask() {
        let allow = || Decision::Allow {
            by: DecidedBy::Autopilot,
            reasons: vec!["autopilot".to_owned()],
        };
        assert_eq!(judge_resolved_writes(allow(), &[]), allow());
        let harmless = [(
            "/tmp/a".to_owned(),
            false,
            Resolved::To("/srv/a".to_owned()),
        )];
        assert_eq!(judge_resolved_writes(allow(), &harmless), allow());
        let lockout = [(
            "/tmp/l/authorized_keys".to_owned(),
            false,
            Resolved::To("/root/.ssh/authorized_keys".to_owned()),
        )];
        assert!(matches!(
            judge_resolved_writes(allow(), &lockout),
            Decision::Ask {
                risk: Risk::Lockout,
                ..
            }
        ));
        let unknown = [(
            "/x".to_owned(),
            false,
            Resolved::Unknown("no realpath".to_owned()),
        )];
        assert!(matches!(
            judge_resolved_writes(allow(), &unknown),
            Decision::Ask {
                risk: Risk::Dangerous,
                ..
            }
        ));
        let deny = Decision::Deny {
            reason: "forbidden".to_owned(),
        };
        assert_eq!(judge_resolved_writes(deny.clone(), &lockout), deny);
    }

    #[test]
    fn changes_to_existing_data_ask_where_the_rules_say_always() {
        let rules = settings(&[], &[]);
        let change = |kind| CallFacts::Changes {
            changes: vec![FileChange {
                resolved: None,
                path: "/srv/a".to_owned(),
                side: Side::Remote,
                kind,
            }],
        };
        let verdict = |facts: &CallFacts, mode, tab_kind| match decide(
            facts,
            PolicyContext::new(mode, &rules, tab_kind),
        ) {
            Decision::Allow { .. } => "allow",
            Decision::Ask {
                risk: Risk::Dangerous,
                ..
            } => "ask-dangerous",
            Decision::Ask { .. } => "ask",
            Decision::Deny { .. } => "deny",
        };
        use TabKind::{Storage, Terminal};
        assert_eq!(
            verdict(&change(ChangeKind::Edit), Mode::Autopilot, Terminal),
            "allow"
        );
        assert_eq!(
            verdict(&change(ChangeKind::Edit), Mode::Autopilot, Storage),
            "ask"
        );
        assert_eq!(
            verdict(&change(ChangeKind::Create), Mode::Autopilot, Storage),
            "allow"
        );
        assert_eq!(
            verdict(&change(ChangeKind::Create), Mode::Ask, Storage),
            "ask"
        );
        assert_eq!(
            verdict(
                &change(ChangeKind::Delete { recursive: false }),
                Mode::Autopilot,
                Storage
            ),
            "ask-dangerous"
        );
        assert_eq!(
            verdict(
                &change(ChangeKind::Transfer {
                    replaces_existing: true
                }),
                Mode::Autopilot,
                Storage
            ),
            "ask-dangerous"
        );
        assert_eq!(
            verdict(&change(ChangeKind::Create), Mode::Plan, Terminal),
            "deny"
        );
    }
}
