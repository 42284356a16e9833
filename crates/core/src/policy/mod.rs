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

use kaiport_protocol::{ConnectionSettings, DecidedBy, Mode};

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

/// What the policy needs to know about a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallFacts<'a> {
    /// A command line typed into the terminal (run_command).
    Command { line: &'a str },
    /// Text and keys typed into whatever runs in the terminal (send_input): it can answer a
    /// question, confirm a deletion or type a whole command.
    TerminalInput { text: &'a str },
    /// Reads only (read_screen, list_dir, …).
    ReadOnly,
    /// Needs the user anyway (ask_user): no approval on top.
    Interaction,
    /// Changes something; `summary` names what, for the reason text.
    Change { summary: String },
}

/// Decide one call under a tab's mode and connection settings.
pub fn decide(facts: &CallFacts<'_>, mode: Mode, settings: &ConnectionSettings) -> Decision {
    match facts {
        CallFacts::ReadOnly | CallFacts::Interaction => Decision::Allow {
            by: DecidedBy::Rule,
            reasons: vec!["reads only".to_owned()],
        },
        CallFacts::Change { summary } => match mode {
            Mode::Plan => Decision::Deny {
                reason: format!(
                    "plan mode: {summary} would change something; propose it as a plan step instead"
                ),
            },
            Mode::Autopilot => Decision::Allow {
                by: DecidedBy::Autopilot,
                reasons: Vec::new(),
            },
            Mode::Ask => Decision::Ask {
                reasons: vec![format!("{summary} changes something")],
                dangerous: false,
            },
        },
        CallFacts::Command { line } => decide_command(line, mode, settings),
        CallFacts::TerminalInput { text } => decide_terminal_input(text, mode, settings),
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
        match decide(&CallFacts::Command { line }, mode, settings) {
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
        let input = decide(&CallFacts::TerminalInput { text: "y" }, Mode::Plan, &rules);
        assert!(matches!(input, Decision::Deny { .. }));
    }
}
