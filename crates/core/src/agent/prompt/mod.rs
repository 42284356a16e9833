//! What the model is told: the system prompt, in sections — this tab (what the host probe and the
//! engine know, "unknown" where they do not), approvals in the current mode (worked out from the
//! policy, [`approvals`]), the user's rules, the craft of an interactive shell and of changing a
//! server ([`craft`]), sudo and secrets, untrusted data, reporting — and, apart from it, the
//! [`tab_now`] block: what changes from one step to the next (the terminal's state and current
//! folder, the active plan, the ledger of changes this conversation made), which the provider
//! sends after the newest message, so elision can never drop it.
//!
//! The system prompt must stay byte-identical across the steps of a conversation while nothing
//! but live facts change (providers cache it with the tools, [`crate::llm`]): whatever can change
//! within a turn belongs in [`tab_now`].
//!
//! Nothing here may carry a secret: the prompt is built from the tab's facts, mode, settings
//! (rules, limits), plan, ledger and the tool list only. Server-derived facts arrive cleaned and
//! length-capped ([`crate::views::host_facts`]).

pub mod approvals;
pub mod craft;

use super::TabInfo;
use super::ledger::Ledger;
use crate::llm::ToolSchema;
use kaiport_protocol::tools::PlanStepStatus;
use kaiport_protocol::{
    HostFacts, MAX_COMMAND_TIMEOUT_S, PlanPhase, Sensitivity, TabKind, ToolName,
};
use std::fmt::Write as _;

/// Context windows at or below this many tokens get the compact prompt.
pub const COMPACT_AT_TOKENS: u32 = 32_768;

/// Which form of the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Full,
    /// For small context windows: the same rules, fewer words.
    Compact,
}

impl Style {
    pub fn for_context(context_tokens: u32) -> Style {
        if context_tokens <= COMPACT_AT_TOKENS {
            Style::Compact
        } else {
            Style::Full
        }
    }
}

/// The first line of the [`tab_now`] block (the system prompt names it).
pub const TAB_NOW_HEADER: &str = "# The tab now";

/// The system prompt for one step of a turn: the same from step to step unless the mode, the
/// user's rules, the host facts or the detected shell change (live facts go to [`tab_now`]).
/// `nonce` is the conversation's untrusted-data nonce ([`crate::taint::UntrustedFrame`]).
pub fn system_prompt(tab: &TabInfo, tools: &[ToolSchema], nonce: &str, style: Style) -> String {
    let compact = style == Style::Compact;
    let mut prompt = String::from(
        "You are Pilot, the assistant inside kaiport, an app people use to run their servers. You work \
         in one tab through the tools listed below; kaiport runs each call, applies the user's approval \
         rules and records it in an audit log.\n",
    );
    this_tab(&mut prompt, tab, tools);
    let names: Vec<ToolName> = tools
        .iter()
        .filter_map(|tool| {
            ToolName::ALL
                .iter()
                .copied()
                .find(|name| name.as_str() == tool.name)
        })
        .collect();
    prompt.push_str(&approvals::section(
        &names,
        tab.mode,
        &tab.settings,
        tab.kind,
    ));
    rules(&mut prompt, tab);
    if tab.kind == TabKind::Terminal {
        prompt.push_str(&craft::terminal(tab.live.shell, compact));
        prompt.push_str(craft::changes(compact));
        prompt.push_str(craft::secrets(compact));
    } else {
        prompt.push_str(storage_craft(compact));
    }
    prompt.push_str(&craft::data_and_reporting(nonce, compact));
    prompt
}

/// What changes from one step to the next, sent after the newest message of each request:
/// the tab's live state (connection, shell, current folder, size, busy), the active plan and
/// the ledger of changes.
pub fn tab_now(tab: &TabInfo, ledger: &Ledger) -> String {
    let mut out =
        format!("{TAB_NOW_HEADER} (kaiport's live facts at this step, not the user's words)\n");
    if tab.kind == TabKind::Terminal {
        live(&mut out, tab);
    } else if tab.live.connected {
        out.push_str("- Connected.\n");
    } else {
        out.push_str("- Not connected right now: calls wait for the connection.\n");
    }
    plan(&mut out, tab);
    ledger.section(&mut out);
    out
}

fn or_unknown(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("unknown")
}

/// `# This tab`.
fn this_tab(out: &mut String, tab: &TabInfo, tools: &[ToolSchema]) {
    out.push_str("\n# This tab\n");
    let kind = match tab.kind {
        TabKind::Terminal => "a terminal tab: an interactive shell the user sees and can type into",
        TabKind::Storage => {
            "a storage tab: remote storage, with the user's own computer as the local side"
        }
    };
    let _ = writeln!(out, "- Kind: {kind}.");
    let _ = writeln!(out, "- Connection: {}.", tab.connection);
    if tab.kind == TabKind::Terminal {
        host(out, tab.host.as_ref());
        limits(out, tab);
    }
    let _ = writeln!(
        out,
        "- What changes from step to step (the connection, the terminal's state and current folder, the \
         plan, the changes made so far) is in the block \"{TAB_NOW_HEADER}\" that kaiport adds after the \
         newest message: the latest one is true now."
    );
    let sensitivity = match tab.settings.sensitivity {
        Sensitivity::Public => "public",
        Sensitivity::Internal => "internal",
        Sensitivity::Confidential => "confidential",
        Sensitivity::Restricted => "restricted",
    };
    let _ = writeln!(
        out,
        "- The user labelled this connection's data {sensitivity}: bringing data seen in a more sensitive \
         connection into this one asks first. Never copy data out of it that the user did not ask for."
    );
    let _ = writeln!(
        out,
        "- {}",
        if tab.live.watched {
            "A person watches this tab: they see the terminal as you type and each approval card."
        } else {
            "Nobody watches the terminal (kaiport pilot on a command line): the user sees only your \
             messages and the questions kaiport prints; say what you see on screen when it matters."
        }
    );
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    let _ = writeln!(out, "- Tools in this tab: {}.", names.join(", "));
    snippets(out, tab);
}

/// The most snippets listed, and the longest command and description shown of each.
const MAX_PROMPT_SNIPPETS: usize = 20;
const MAX_SNIPPET_CHARS: usize = 160;

/// The user's snippets for the tab, in a few lines: the model may run one with run_command.
fn snippets(out: &mut String, tab: &TabInfo) {
    if tab.kind != TabKind::Terminal || tab.snippets.is_empty() {
        return;
    }
    let cut = |text: &str| -> String {
        let text = text.trim();
        match text.char_indices().nth(MAX_SNIPPET_CHARS) {
            Some((at, _)) => format!("{}…", &text[..at]),
            None => text.to_owned(),
        }
    };
    out.push_str(
        "- The user's snippets for this tab (saved command lines; fill in `{{name}}`, or use the \
         default in `{{name:default}}`; `{{host}}`, `{{user}}`, `{{cwd}}` are this tab's). When one \
         fits, run its filled-in line with run_command (approval as for any command):\n",
    );
    for snippet in tab.snippets.iter().take(MAX_PROMPT_SNIPPETS) {
        let description = cut(&snippet.description);
        let separator = if description.is_empty() { "" } else { ": " };
        let _ = writeln!(
            out,
            "  - {}{separator}{description} — `{}`",
            cut(&snippet.name),
            cut(&snippet.command)
        );
    }
    if tab.snippets.len() > MAX_PROMPT_SNIPPETS {
        let _ = writeln!(
            out,
            "  - and {} more the user can pick from the Snippets palette.",
            tab.snippets.len() - MAX_PROMPT_SNIPPETS
        );
    }
}

/// What the host probe found.
fn host(out: &mut String, facts: Option<&HostFacts>) {
    let Some(facts) = facts else {
        out.push_str(
            "- The host: not probed yet (unknown). Find out with `uname -a; cat /etc/os-release; id` when \
             it matters.\n",
        );
        return;
    };
    if let Some(error) = &facts.probe_error {
        let _ = writeln!(
            out,
            "- The host: kaiport's probe failed ({error}), so the system is unknown; find out with \
             `uname -a; id` when it matters."
        );
        if facts.user.is_none() {
            return;
        }
    }
    let _ = writeln!(
        out,
        "- System: {} (kernel {}), host name {}, server time when connected {}.",
        or_unknown(&facts.os),
        or_unknown(&facts.kernel),
        or_unknown(&facts.hostname),
        or_unknown(&facts.server_time),
    );
    let sudo = match (facts.uid, facts.may_sudo) {
        (Some(0), _) => "root: no sudo needed (every command runs with full rights; be careful)".to_owned(),
        (_, Some(true)) => {
            "in a sudo group, so sudo probably works; it may ask for a password, which only the user types"
                .to_owned()
        }
        // A sudoers rule may name the user outside any group, and the probe never runs sudo
        // (it must not ask or log anything): it cannot tell.
        (_, Some(false)) => {
            "in no sudo/wheel/admin group, so sudo works only if a sudoers rule names this user \
             (kaiport cannot see that); when a task needs sudo, say so and try it once: a refusal \
             (`not in the sudoers file`, `not allowed`) is final"
                .to_owned()
        }
        _ => "sudo rights unknown".to_owned(),
    };
    let groups = if facts.groups.is_empty() {
        "unknown".to_owned()
    } else {
        facts.groups.join(" ")
    };
    let uid = facts
        .uid
        .map_or_else(|| "unknown".to_owned(), |uid| uid.to_string());
    let _ = writeln!(
        out,
        "- Logged in as {} (uid {uid}, groups {groups}): {sudo}. Login shell {}.",
        or_unknown(&facts.user),
        or_unknown(&facts.login_shell),
    );
    let container = match facts.container.as_deref() {
        Some("none") => "not in a container".to_owned(),
        Some(kind) => {
            format!("inside a container ({kind}): services and the kernel may be the host's")
        }
        None => "container unknown".to_owned(),
    };
    let _ = writeln!(
        out,
        "- Init system {}, package manager {}, {} command-line tools (their options differ), {container}.",
        or_unknown(&facts.init),
        or_unknown(&facts.package_manager),
        facts.userland.as_deref().unwrap_or("unknown"),
    );
}

/// What the engine knows of the terminal now.
fn live(out: &mut String, tab: &TabInfo) {
    let live = &tab.live;
    if live.reconnecting {
        out.push_str(
            "- The connection dropped and kaiport is reconnecting by itself: calls fail until it is \
             back. Tell the user; do not retry in a loop.\n",
        );
        return;
    }
    if !live.connected {
        out.push_str(
            "- The terminal is not connected right now: calls wait for it (or fail if it cannot connect).\n",
        );
        return;
    }
    if live.integration_pending {
        out.push_str(
            "- Terminal: the shell is not detected yet: the user was typing at the first prompt, so \
             kaiport's detection and shell integration go in, unseen, just before your first \
             run_command; from then on kaiport sees where each command ends and its exit code.\n",
        );
    } else {
        let shell = match live.shell {
            Some(shell) => format!("the interactive shell is {shell}"),
            None => {
                "the interactive shell is unknown (it did not answer kaiport's detection: csh, a \
                     router's shell, or a program holding the terminal)"
                    .to_owned()
            }
        };
        let integration = if live.integration {
            "shell integration is on: kaiport sees where each command ends and its exit code"
                .to_owned()
        } else {
            "shell integration is off: kaiport guesses a command's end from a quiet screen and a \
             prompt, so there is no exit code (append `; echo \"exit=$?\"`, or \
             `; echo \"exit=$status\"` in fish)"
                .to_owned()
        };
        let _ = writeln!(out, "- Terminal: {shell}; {integration}.");
    }
    match &live.cwd {
        // A folder name comes from the server: quoted, so it reads as a name, not as words.
        Some(cwd) => {
            let _ = writeln!(
                out,
                "- The shell's current folder is {cwd:?} (as the shell reported at its last prompt); \
                 relative paths in commands start there."
            );
        }
        None => out.push_str("- The shell's current folder is unknown; `pwd` tells.\n"),
    }
    if let Some((cols, rows)) = live.size {
        let _ = writeln!(
            out,
            "- The terminal is {cols} columns by {rows} rows; programs cut or wrap their output to it."
        );
    }
    if live.alternate_screen {
        out.push_str(
            "- A full-screen program holds the terminal now (an editor, a pager, top): read_screen to see \
             it, leave it with send_input before you run anything.\n",
        );
    } else if live.busy {
        out.push_str(
            "- A command you started may still be running or waiting for input: read_screen before you \
             type anything else.\n",
        );
    }
}

/// The terminal tools' limits (from the settings).
fn limits(out: &mut String, tab: &TabInfo) {
    let settings = &tab.settings;
    let timeout = settings.command_timeout_s.min(MAX_COMMAND_TIMEOUT_S);
    let _ = writeln!(
        out,
        "- run_command waits {timeout} s by default (timeout_s up to {MAX_COMMAND_TIMEOUT_S}); output you get \
         is cut to {} KB / {} lines (head and tail kept); read_file reads up to {} KB.",
        settings.output_limit_kb, settings.output_limit_lines, settings.file_limit_kb
    );
}

/// The user's lists and the file-contents permission.
fn rules(out: &mut String, tab: &TabInfo) {
    let settings = &tab.settings;
    out.push_str("\n# The user's rules for this connection\n");
    let list = |items: &[String]| {
        if items.is_empty() {
            "none".to_owned()
        } else {
            items.join("; ")
        }
    };
    let _ = writeln!(
        out,
        "- Forbidden commands (always refused): {}.",
        list(&settings.forbidden_commands)
    );
    let _ = writeln!(
        out,
        "- Allowed commands (run without asking in ask mode): {}.",
        list(&settings.allowed_commands)
    );
    if !settings.extra_dangerous_commands.is_empty() {
        let _ = writeln!(
            out,
            "- Also dangerous (always ask): {}.",
            settings.extra_dangerous_commands.join("; ")
        );
    }
    if settings.send_file_contents {
        out.push_str(
            "- File contents may be sent to you: read_file, search_files and log lines in views work.\n",
        );
    } else {
        out.push_str(
            "- File contents may not be sent to you yet: read_file and search_files ask the user for that \
             permission first (they may refuse), and views give counts instead of log lines. Commands \
             that print files (`cat`, `grep`, `journalctl`, `tail`) are terminal output the user can see: \
             the permission does not stop them, but respect it — do not use run_command to print a file's \
             contents to get around it; prefer list_dir, find_files, folder_report and counts (`wc -l`, \
             `grep -c`). edit_file needs no permission: it sends you nothing but the result.\n",
        );
    }
}

/// Storage tabs: what matters when moving files.
fn storage_craft(compact: bool) -> &'static str {
    if compact {
        "\n# Working with storage\n\
         - Look before you change: list_dir, find_files, folder_report. Never overwrite or delete what \
         the user did not name; say what a transfer will replace.\n"
    } else {
        "\n# Working with storage\n\
         - Look before you change: list_dir, find_files and folder_report run without asking. Check sizes \
         and whether a target exists before a transfer.\n\
         - Never overwrite, rename over or delete what the user did not name; say what a transfer would \
         replace and let the user decide. Prefer execute_plan for many operations so the user sees them \
         all at once.\n\
         - The local side is the user's own computer: only the folders opened for this tab.\n"
    }
}

/// The active plan, step by step.
fn plan(out: &mut String, tab: &TabInfo) {
    let Some(card) = &tab.plan else {
        return;
    };
    let total = card.steps.len();
    let phase = match card.phase {
        PlanPhase::Proposed => "proposed, waiting for the user's approval",
        PlanPhase::Approved => "approved: carry it out step by step, marking each with update_plan",
        PlanPhase::Rejected => "not approved by the user: do not carry it out",
    };
    let _ = writeln!(out, "\n# The plan: {} ({phase})", card.title);
    let current = card.steps.iter().position(|step| {
        matches!(
            step.status,
            PlanStepStatus::Pending | PlanStepStatus::Running
        )
    });
    if let Some(index) = current {
        let _ = writeln!(out, "- You are at step {} of {total}.", index + 1);
    }
    for (index, step) in card.steps.iter().enumerate() {
        let status = match step.status {
            PlanStepStatus::Pending => "pending",
            PlanStepStatus::Running => "running",
            PlanStepStatus::Done => "done",
            PlanStepStatus::Failed => "failed",
            PlanStepStatus::Skipped => "skipped",
        };
        let _ = writeln!(out, "{}. [{status}] {}", index + 1, step.title);
    }
}

#[cfg(test)]
mod tests;
