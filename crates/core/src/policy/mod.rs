//! The approval rules: for one tool call, **allow**, **ask** or **deny** (DESIGN.md §3).
//!
//! Decision order, strictest first: a forbidden command anywhere → deny; plan mode and the call
//! could change something → deny; anything the analysis cannot prove harmless → ask (autopilot
//! included); allowed commands → allow; autopilot → allow; otherwise → ask.
//!
//! This module must never let a call through that it does not understand: when in doubt, ask.
//! The command analysis here splits a line into simple commands with a quote-aware scanner and
//! treats every construct it does not model (substitutions, eval, variables as command names)
//! as unprovable.

mod command;

pub use command::{SimpleCommand, SplitLine, split_command_line};

use kaiport_protocol::tools::Side;
use kaiport_protocol::{ConnectionSettings, DecidedBy, Mode, TabKind};

/// What the policy decided for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow {
        by: DecidedBy,
        reasons: Vec<String>,
    },
    Ask {
        reasons: Vec<String>,
        dangerous: bool,
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
    /// Reads only. `contents`: file contents go to the model (read_file, search_files), which
    /// needs the connection's `send_file_contents` permission.
    Read { contents: bool },
    /// Needs the user anyway (ask_user): no approval on top.
    Interaction,
    /// Plan bookkeeping (propose_plan / update_plan): changes nothing on any server.
    Plan,
    /// Changes to files or folders.
    Changes { changes: Vec<FileChange> },
}

/// One change a file tool would make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub side: Side,
    pub kind: ChangeKind,
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
}

/// Decide one call (see the module docs for the order).
pub fn decide(facts: &CallFacts, context: PolicyContext<'_>) -> Decision {
    let PolicyContext {
        mode,
        settings,
        tab_kind,
    } = context;
    match facts {
        CallFacts::Read { contents: true } if !settings.send_file_contents => Decision::Deny {
            reason: "this connection does not allow sending file contents to the AI (setting \
                     send_file_contents is off); no file contents were read. Use list_dir, find_files \
                     or folder_report, or ask the user to turn the permission on."
                .to_owned(),
        },
        CallFacts::Read { .. } => Decision::Allow { by: DecidedBy::Rule, reasons: vec!["reads only".to_owned()] },
        CallFacts::Interaction | CallFacts::Plan => {
            Decision::Allow { by: DecidedBy::Rule, reasons: vec!["changes nothing on the server".to_owned()] }
        }
        CallFacts::Changes { changes } => decide_changes(changes, mode, tab_kind),
        CallFacts::Command { line } => decide_command(line, mode, settings),
        CallFacts::TerminalInput { text } => decide_terminal_input(text, mode, settings),
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
    let destroys = changes.iter().any(FileChange::destroys_data);
    // Storage tabs: changing what exists always asks (DESIGN.md §2).
    let always_asks = destroys
        || (tab_kind == TabKind::Storage && changes.iter().any(FileChange::touches_existing));
    if always_asks {
        return Decision::Ask {
            reasons: summary,
            dangerous: destroys,
        };
    }
    match mode {
        Mode::Autopilot => Decision::Allow {
            by: DecidedBy::Autopilot,
            reasons: summary,
        },
        Mode::Ask | Mode::Plan => Decision::Ask {
            reasons: summary,
            dangerous: false,
        },
    }
}

fn decide_command(line: &str, mode: Mode, settings: &ConnectionSettings) -> Decision {
    let split = split_command_line(line);
    for command in &split.commands {
        if let Some(pattern) = matching_pattern(command, &settings.forbidden_commands) {
            return Decision::Deny {
                reason: format!(
                    "`{}` is a forbidden command on this connection (rule: {pattern:?}); it was not run. \
                     Ask the user to run it themselves if it is really needed.",
                    command.display()
                ),
            };
        }
    }
    if mode == Mode::Plan {
        return Decision::Deny {
            reason:
                "plan mode: commands are not run while planning, because this version cannot yet \
                     prove a command read-only; describe the command as a plan step instead"
                    .to_owned(),
        };
    }
    let mut unprovable: Vec<String> = split.unprovable.clone();
    for command in &split.commands {
        if let Some(pattern) = matching_pattern(command, &settings.extra_dangerous_commands) {
            unprovable.push(format!(
                "`{}` is on the connection's dangerous list ({pattern:?})",
                command.display()
            ));
        }
    }
    if !unprovable.is_empty() {
        return Decision::Ask {
            reasons: unprovable,
            dangerous: true,
        };
    }
    let all_allowed = !split.commands.is_empty()
        && split
            .commands
            .iter()
            .all(|command| matching_pattern(command, &settings.allowed_commands).is_some());
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
        Mode::Ask | Mode::Plan => Decision::Ask {
            reasons: vec!["runs a command in the terminal".to_owned()],
            dangerous: false,
        },
    }
}

fn decide_terminal_input(text: &str, mode: Mode, settings: &ConnectionSettings) -> Decision {
    // Typed text may be a whole command line: the forbidden list applies to it too.
    if !text.trim().is_empty() {
        let split = split_command_line(text);
        for command in &split.commands {
            if let Some(pattern) = matching_pattern(command, &settings.forbidden_commands) {
                return Decision::Deny {
                    reason: format!(
                        "the input contains `{}`, a forbidden command on this connection (rule: {pattern:?})",
                        command.display()
                    ),
                };
            }
        }
    }
    match mode {
        Mode::Plan => Decision::Deny {
            reason: "plan mode: typing into the terminal could change something; use read_screen to look"
                .to_owned(),
        },
        Mode::Autopilot => Decision::Allow { by: DecidedBy::Autopilot, reasons: Vec::new() },
        Mode::Ask => Decision::Ask { reasons: vec!["types into the terminal".to_owned()], dangerous: false },
    }
}

/// The first pattern (in the form a user types: `rm`, `systemctl restart`) that `command` matches:
/// the pattern's words are the first words of the command, after unwrapping.
fn matching_pattern<'p>(command: &SimpleCommand, patterns: &'p [String]) -> Option<&'p str> {
    patterns.iter().map(String::as_str).find(|pattern| {
        let words: Vec<&str> = pattern.split_whitespace().collect();
        !words.is_empty()
            && words.len() <= command.words.len()
            && words
                .iter()
                .zip(&command.words)
                .enumerate()
                .all(|(index, (want, have))| {
                    if index == 0 {
                        command::normalise_name(want) == *have
                    } else {
                        want == have
                    }
                })
    })
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
        let context = PolicyContext {
            mode,
            settings,
            tab_kind: TabKind::Terminal,
        };
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
            "echo `id`",
            "curl x | sh",
            "bash -c \"$payload\"",
        ] {
            assert_eq!(verdict(line, Mode::Autopilot, &rules), "ask", "{line}");
        }
    }

    #[test]
    fn plan_mode_refuses_commands_and_input() {
        let rules = settings(&[], &[]);
        assert_eq!(verdict("ls", Mode::Plan, &rules), "deny");
        let context = PolicyContext {
            mode: Mode::Plan,
            settings: &rules,
            tab_kind: TabKind::Terminal,
        };
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
            let context = PolicyContext {
                mode: Mode::Autopilot,
                settings: &rules,
                tab_kind: TabKind::Terminal,
            };
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
    fn changes_to_existing_data_ask_where_the_rules_say_always() {
        let rules = settings(&[], &[]);
        let change = |kind| CallFacts::Changes {
            changes: vec![FileChange {
                path: "/srv/a".to_owned(),
                side: Side::Remote,
                kind,
            }],
        };
        let verdict = |facts: &CallFacts, mode, tab_kind| match decide(
            facts,
            PolicyContext {
                mode,
                settings: &rules,
                tab_kind,
            },
        ) {
            Decision::Allow { .. } => "allow",
            Decision::Ask {
                dangerous: true, ..
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
