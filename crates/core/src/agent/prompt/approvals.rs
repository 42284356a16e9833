//! The prompt's "approvals in this mode" section, worked out from the policy itself: each tool
//! the tab offers is decided on a sample call ([`crate::tools::facts_unseen`] and
//! [`crate::policy::decide`], as `kaiport policy check` does), so what the model is told about
//! asking can never drift from what the engine does.
//!
//! Nothing here may claim more than the samples showed: a sentence about a group of calls is only
//! written when the decision for its sample says so.

use crate::policy::{self, CallFacts, Decision, PolicyContext};
use crate::tools;
use kaiport_protocol::{ConnectionSettings, Mode, TabKind, ToolName};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// What the policy does with a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Runs,
    Asks,
    /// The user may give a missing permission when asked (file contents).
    AsksPermission,
    Refused,
}

/// A sample call for `tool`: ordinary, harmless, on a path no rule singles out.
pub fn sample_args(tool: ToolName) -> Value {
    let file = "/srv/app/notes.txt";
    match tool {
        ToolName::RunCommand => json!({"command": "uptime"}),
        ToolName::SendInput => json!({"text": "y"}),
        ToolName::ReadScreen => json!({}),
        ToolName::ShowView => json!({"view": "disk"}),
        ToolName::ProposePlan => json!({"title": "t", "findings": "f", "steps": [
            {"title": "s", "kind": "command", "detail": "uptime"}]}),
        ToolName::UpdatePlan => json!({"step": 1, "status": "done"}),
        ToolName::ReadFile => json!({"path": file}),
        ToolName::EditFile => json!({"path": file, "edits": [{"old_text": "a", "new_text": "b"}]}),
        ToolName::WriteFile => json!({"path": file, "content": "a\n"}),
        ToolName::ListDir => json!({"path": "/srv/app"}),
        ToolName::FindFiles => json!({"path": "/srv/app", "name": "*.txt"}),
        ToolName::SearchFiles => json!({"path": "/srv/app", "pattern": "error"}),
        ToolName::FolderReport => json!({"path": "/srv/app"}),
        ToolName::MakeDir => json!({"path": "/srv/app/new"}),
        ToolName::Rename => json!({"from": file, "to": "/srv/app/notes.old"}),
        ToolName::Delete => json!({"path": file}),
        ToolName::Upload => json!({"local_path": "notes.txt", "remote_dir": "/srv/app"}),
        ToolName::Download => json!({"remote_path": file, "local_dir": "."}),
        ToolName::ExecutePlan => json!({"ops": [{"op": "make_dir", "path": "/srv/app/new"}]}),
        ToolName::AskUser => json!({"question": "Which site?"}),
        ToolName::ListChanges => json!({}),
        ToolName::UndoChange => json!({"change_id": "20261205T094425123Z-1a2b3c4d"}),
        ToolName::RunOnHosts => json!({"hosts": ["web"], "command": "uptime"}),
        ToolName::OpenForward => json!({"forward": "-L 8080:localhost:80"}),
    }
}

/// What the policy does with `facts` in this tab.
pub fn outcome_of(facts: &CallFacts, context: PolicyContext<'_>) -> Outcome {
    match policy::decide(facts, context) {
        Decision::Allow { .. } => Outcome::Runs,
        Decision::Ask { .. } => Outcome::Asks,
        Decision::Deny { .. } if policy::missing_permission(facts, context.settings).is_some() => {
            Outcome::AsksPermission
        }
        Decision::Deny { .. } => Outcome::Refused,
    }
}

/// What the policy does with the sample call of `tool` (None: the sample is not a valid call of
/// this build, which a test catches).
pub fn tool_outcome(
    tool: ToolName,
    mode: Mode,
    settings: &ConnectionSettings,
    kind: TabKind,
) -> Option<Outcome> {
    let facts = tools::facts_unseen(tool.as_str(), sample_args(tool)).ok()?;
    Some(outcome_of(&facts, PolicyContext::new(mode, settings, kind)))
}

/// A command line's outcome in this tab.
pub fn command_outcome(
    line: &str,
    mode: Mode,
    settings: &ConnectionSettings,
    kind: TabKind,
) -> Outcome {
    let facts = CallFacts::Command {
        line: line.to_owned(),
    };
    outcome_of(&facts, PolicyContext::new(mode, settings, kind))
}

/// Lines that show the built-in rules at work, each decided by the policy when the section is
/// written: (what it stands for, the sample).
const DANGEROUS_SAMPLE: &str = "rm -rf /var/www/html";
const LOCKOUT_SAMPLE: &str = "sed -i s/yes/no/ /etc/ssh/sshd_config";
const WRITE_SAMPLE: &str = "touch /srv/app/ready";
const READ_SAMPLE: &str = "df -h";

/// The section (see the module docs). `tools`: the names the tab offers.
pub fn section(
    tools: &[ToolName],
    mode: Mode,
    settings: &ConnectionSettings,
    kind: TabKind,
) -> String {
    // The baseline is decided without the user's allowed list: what the list adds is said apart.
    let baseline = ConnectionSettings {
        allowed_commands: Vec::new(),
        ..settings.clone()
    };
    let mut groups: [(Outcome, Vec<&str>); 4] = [
        (Outcome::Runs, Vec::new()),
        (Outcome::Asks, Vec::new()),
        (Outcome::AsksPermission, Vec::new()),
        (Outcome::Refused, Vec::new()),
    ];
    for tool in tools {
        if let Some(outcome) = tool_outcome(*tool, mode, &baseline, kind)
            && let Some((_, names)) = groups.iter_mut().find(|(o, _)| *o == outcome)
        {
            names.push(tool.as_str());
        }
    }
    let mut out = String::from("\n# Approvals in this mode\n");
    let mode_name = match mode {
        Mode::Ask => "ask",
        Mode::Autopilot => "autopilot",
        Mode::Plan => "plan",
    };
    let _ = writeln!(
        out,
        "The tab is in {mode_name} mode (the user switches modes, not you). For an ordinary call:"
    );
    for (outcome, names) in &groups {
        if names.is_empty() {
            continue;
        }
        let how = match outcome {
            Outcome::Runs => "Run without asking",
            Outcome::Asks => "Wait for the user's approval (they may deny)",
            Outcome::AsksPermission => {
                "Need the permission to send file contents to you, which this connection has not \
                 given: kaiport asks the user for it first"
            }
            Outcome::Refused => "Refused in this mode",
        };
        let _ = writeln!(out, "- {how}: {}.", names.join(", "));
    }
    if tools.contains(&ToolName::RunCommand) {
        command_lines(&mut out, mode, settings, &baseline, kind);
    }
    if kind == TabKind::Storage && mode != Mode::Plan {
        out.push_str(
            "- Changes on this computer to its start-up, ssh, shell, git, autostart and PATH files \
             (`~/.ssh/`, `~/.bashrc`, `~/.profile`, `~/.gitconfig`, `~/.config/autostart/`, \
             `~/.local/bin/`, …) always ask, in every mode.\n",
        );
    }
    let (runs, asks) = (&groups[0].1, &groups[1].1);
    if asks.contains(&"run_command")
        && runs
            .iter()
            .any(|name| matches!(*name, "read_screen" | "list_dir" | "show_view"))
    {
        let quiet: Vec<&str> = runs
            .iter()
            .copied()
            .filter(|name| !matches!(*name, "ask_user" | "update_plan"))
            .collect();
        let _ = writeln!(
            out,
            "- So look around with the tools that run without asking ({}) before you reach for \
             run_command, and gather what must be asked into few, clear calls.",
            quiet.join(", ")
        );
    }
    if tools.contains(&ToolName::OpenForward) && mode != Mode::Plan {
        out.push_str(
            "- open_forward always asks, in every mode and whatever the allowed list says: the user \
             approves each port forward (loopback only) and closes it in the Forwards list.\n",
        );
    }
    out.push_str(
        "- A denied call is the user's decision or a rule: do not try it again in another form; say what \
         you could not do, or ask.\n",
    );
    out
}

/// What the rules do with command lines (run_command, and send_input at a shell prompt).
fn command_lines(
    out: &mut String,
    mode: Mode,
    settings: &ConnectionSettings,
    baseline: &ConnectionSettings,
    kind: TabKind,
) {
    let read = command_outcome(READ_SAMPLE, mode, baseline, kind);
    let write = command_outcome(WRITE_SAMPLE, mode, baseline, kind);
    match (read, write) {
        (Outcome::Asks, Outcome::Asks) => out.push_str(
            "- Every command line asks, reading ones too (`df -h` as much as `touch`), unless each command \
             in it is covered by the user's allowed list below; even then a line that writes through a \
             redirection or an option (`>`, `sed -i`) asks.\n",
        ),
        (Outcome::Runs, Outcome::Runs) => out.push_str(
            "- Command lines run without asking, except the ones below.\n",
        ),
        (Outcome::Runs, Outcome::Refused) => out.push_str(
            "- Only command lines that read run (`df -h`); anything that could change something is refused \
             (`touch`): put it in a plan step instead. An interactive program left open (a pager, `top`) \
             can still be left: send_input with `q`, Esc or Ctrl-C when the terminal is not at a shell \
             prompt.\n",
        ),
        _ => {}
    }
    if command_outcome(DANGEROUS_SAMPLE, mode, baseline, kind) == Outcome::Asks
        && read == Outcome::Runs
    {
        out.push_str(
            "- Dangerous commands (deleting recursively, formatting, stopping the machine, firewall flushes, \
             …; e.g. `rm -rf /var/www/html`) still ask.\n",
        );
    }
    if mode != Mode::Plan && command_outcome(LOCKOUT_SAMPLE, mode, baseline, kind) != Outcome::Runs
    {
        out.push_str(
            "- Changes that could lock the user out (sshd's configuration, authorized_keys, PAM, sudoers, \
             the firewall, the network configuration, login users) ask in every mode.\n",
        );
    }
    if !settings.forbidden_commands.is_empty() {
        out.push_str(
            "- Forbidden commands are refused in every mode, in any spelling, behind wrappers (`sudo`, \
             `env`, `sh -c`) too.\n",
        );
    }
    if !settings.allowed_commands.is_empty() && mode != Mode::Plan {
        out.push_str(
            "- The allowed list covers a command only when kaiport knows every option it is given; an \
             option it does not know makes the line ask.\n",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_a_valid_sample() {
        for tool in ToolName::ALL {
            if tools::lookup(tool.as_str()).is_none() {
                continue; // not in this build
            }
            let facts = tools::facts_unseen(tool.as_str(), sample_args(tool));
            assert!(facts.is_ok(), "{tool:?}: {facts:?}");
        }
    }

    /// The prompt says open_forward always asks where it does (ask and autopilot, with every
    /// command allowed), and lists it as refused in plan mode.
    #[cfg(feature = "open-forward")]
    #[test]
    fn open_forward_is_said_to_ask_in_every_mode_but_plan() {
        let settings = ConnectionSettings {
            allowed_commands: vec!["ssh".to_owned()],
            ..ConnectionSettings::default()
        };
        let tools = [ToolName::RunCommand, ToolName::OpenForward];
        for mode in [Mode::Ask, Mode::Autopilot, Mode::Plan] {
            let text = section(&tools, mode, &settings, TabKind::Terminal);
            assert_eq!(
                text.contains("- open_forward always asks, in every mode"),
                mode != Mode::Plan,
                "{mode:?}:\n{text}"
            );
            let expected = if mode == Mode::Plan {
                Outcome::Refused
            } else {
                Outcome::Asks
            };
            assert_eq!(
                tool_outcome(ToolName::OpenForward, mode, &settings, TabKind::Terminal),
                Some(expected),
                "{mode:?}"
            );
        }
    }
}
