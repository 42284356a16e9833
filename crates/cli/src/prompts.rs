//! Answering the engine's questions at the terminal: approvals, host keys, passwords, ask_user.
//! Prompts go to stderr and answers are read from the controlling terminal, so stdout stays the
//! result alone. Without a terminal nothing is ever assumed: approvals are denied (unless `--yes`),
//! unknown host keys refused (unless `--accept-new-host-key`), questions left unanswered.

use kaiport_core::Engine;
use kaiport_protocol::{
    ApprovalDecision, ApprovalPreview, Event, HostFacts, Op, Permission, Prompt, PromptAnswer,
    Risk, ToolOutcome, Verdict,
};
use std::io::{BufRead, IsTerminal, Write};

#[derive(Debug, Clone)]
pub struct Answerer {
    /// `--yes`: approve what asks (a deny is never overridden: denies never reach here).
    pub yes: bool,
    pub accept_new_host_key: bool,
    /// From `--password-env`.
    pub password: Option<String>,
}

impl Answerer {
    /// Answers what `event` asks of the user (an engine prompt, an approval, an ask_user
    /// question) and tells the engine, or says to touch a security key. False when the event
    /// asks nothing.
    pub async fn respond(&self, engine: &Engine, event: &Event) -> bool {
        let op = match event {
            Event::PromptRequested {
                prompt_id, prompt, ..
            } => Op::AnswerPrompt {
                prompt: prompt_id.clone(),
                answer: self.prompt(prompt).await,
            },
            Event::ApprovalRequested {
                call,
                tool,
                reasons,
                preview,
                permission: Some(permission),
                why,
                ..
            } => {
                let (decision, reason, automatic) = self
                    .permission(tool, reasons, *permission, preview.as_ref(), why.as_deref())
                    .await;
                Op::Approve {
                    call: call.clone(),
                    decision,
                    reason,
                    command: None,
                    automatic,
                }
            }
            Event::ApprovalRequested {
                call,
                tool,
                reasons,
                risk,
                preview,
                why,
                ..
            } => {
                let (decision, reason, automatic) = self
                    .approval(tool, reasons, *risk, preview.as_ref(), why.as_deref())
                    .await;
                Op::Approve {
                    call: call.clone(),
                    decision,
                    reason,
                    command: None,
                    automatic,
                }
            }
            Event::QuestionAsked {
                call,
                question,
                options,
                ..
            } => {
                let answer = self.question(question, options).await;
                if answer.is_none() {
                    say!("  (not answered)");
                }
                Op::AnswerQuestion {
                    call: call.clone(),
                    answer,
                }
            }
            Event::SecurityKeyTouch {
                key_type,
                fingerprint,
                waiting,
                ..
            } => {
                if *waiting {
                    say!("Touch your security key ({key_type} {fingerprint})");
                }
                return true;
            }
            _ => return false,
        };
        engine.handle(op).await;
        true
    }

    /// A call the connection's settings refuse unless the user allows it: once (y), for the
    /// connection (a), or not. `--yes` never gives a permission.
    pub async fn permission(
        &self,
        tool: &str,
        reasons: &[String],
        permission: Permission,
        preview: Option<&ApprovalPreview>,
        why: Option<&str>,
    ) -> (ApprovalDecision, Option<String>, bool) {
        let what = match permission {
            Permission::FileContents => "send file contents to the AI",
        };
        let mut text = format!("\n? {tool} needs your permission to {what}");
        for reason in reasons {
            text.push_str(&format!("\n  - {reason}"));
        }
        push_why(&mut text, why);
        if let Some(ApprovalPreview::Text { text: preview }) = preview {
            text.push_str(&format!("\n  {preview}"));
        }
        if self.yes {
            say!("{text}\n  not allowed: --yes approves calls but never gives a permission");
            return (
                ApprovalDecision::Deny,
                Some("--yes approves calls but never gives a permission".to_owned()),
                true,
            );
        }
        match ask_line(format!(
            "{text}\nAllow? [y = just this once, a = always for this connection, N = no] "
        ))
        .await
        {
            Some(answer) if matches!(answer.trim(), "y" | "Y" | "yes") => {
                (ApprovalDecision::Approve, None, false)
            }
            Some(answer) if matches!(answer.trim(), "a" | "A" | "always") => {
                (ApprovalDecision::AllowForConnection, None, false)
            }
            Some(_) => (ApprovalDecision::Deny, None, false),
            None => {
                say!("{text}\n  not allowed: no terminal to ask");
                (
                    ApprovalDecision::Deny,
                    Some("no one was at the terminal to allow it".to_owned()),
                    true,
                )
            }
        }
    }

    pub async fn approval(
        &self,
        tool: &str,
        reasons: &[String],
        risk: Risk,
        preview: Option<&ApprovalPreview>,
        why: Option<&str>,
    ) -> (ApprovalDecision, Option<String>, bool) {
        let mark = match risk {
            Risk::Routine => "?",
            Risk::Dangerous => "⚠ DANGEROUS:",
            Risk::Lockout => "⚠ CAN LOCK YOU OUT:",
        };
        let mut text = format!("\n{mark} {tool} needs your approval");
        for reason in reasons {
            text.push_str(&format!("\n  - {reason}"));
        }
        push_why(&mut text, why);
        match preview {
            Some(ApprovalPreview::Command { command }) => {
                text.push_str(&format!("\n  $ {command}"))
            }
            Some(ApprovalPreview::Diff {
                path,
                unified,
                backup,
                ..
            }) => {
                text.push_str(&format!("\n  {path}:\n{unified}"));
                if let Some(backup) = backup {
                    text.push_str(&format!("\n  {backup}"));
                }
            }
            Some(ApprovalPreview::Operations { lines }) => {
                for line in lines {
                    text.push_str(&format!("\n  • {line}"));
                }
            }
            Some(ApprovalPreview::Text { text: preview }) => {
                text.push_str(&format!("\n  {preview:?}"))
            }
            Some(ApprovalPreview::Fleet { command, hosts }) => {
                text.push_str(&format!("\n  {command}"));
                for host in hosts {
                    let word = match host.decision {
                        Verdict::Allow => "allows it",
                        Verdict::Ask => "asks (approving runs it there)",
                        Verdict::Deny => "forbids it (refused)",
                    };
                    text.push_str(&format!("\n  • {}: {word}", host.host));
                }
            }
            Some(ApprovalPreview::Forward { forward }) => text.push_str(&format!(
                "\n  {}",
                kaiport_core::forward::spec::describe(forward)
            )),
            None => {}
        }
        if self.yes {
            say!("{text}\n  approved by --yes");
            return (ApprovalDecision::Approve, None, true);
        }
        match ask_line(format!("{text}\nApprove? [y/N] ")).await {
            Some(answer) if matches!(answer.trim(), "y" | "Y" | "yes") && risk == Risk::Lockout => {
                // A change that can cut the user off is confirmed twice.
                let again = ask_line(
                    "This can lock you out of the server. Type yes to make the change: ".to_owned(),
                )
                .await;
                if again.as_deref().map(str::trim) == Some("yes") {
                    (ApprovalDecision::Approve, None, false)
                } else {
                    (ApprovalDecision::Deny, None, false)
                }
            }
            Some(answer) if matches!(answer.trim(), "y" | "Y" | "yes") => {
                (ApprovalDecision::Approve, None, false)
            }
            Some(_) => (ApprovalDecision::Deny, None, false),
            None => {
                say!("{text}\n  denied: no terminal to ask (use --yes to approve what asks)");
                (
                    ApprovalDecision::Deny,
                    Some("no one was at the terminal to approve it".to_owned()),
                    true,
                )
            }
        }
    }

    pub async fn prompt(&self, prompt: &Prompt) -> PromptAnswer {
        match prompt {
            Prompt::UnknownHostKey {
                host,
                port,
                key_type,
                fingerprint,
            } => {
                let text = format!(
                    "The authenticity of host '{host}' (port {port}) can't be established.\n\
                     {key_type} key fingerprint is {fingerprint}."
                );
                if self.accept_new_host_key {
                    say!("{text}\nTrusted because of --accept-new-host-key.");
                    return PromptAnswer::Confirm { accept: true };
                }
                let answer = ask_line(format!(
                    "{text}\nAre you sure you want to continue connecting (yes/no)? "
                ))
                .await;
                match answer {
                    Some(answer) => PromptAnswer::Confirm {
                        accept: answer.trim() == "yes",
                    },
                    None => {
                        say!(
                            "{text}\nRefused: no terminal to ask; pass --accept-new-host-key to trust it."
                        );
                        PromptAnswer::Confirm { accept: false }
                    }
                }
            }
            Prompt::Password { user, host } => match &self.password {
                Some(password) => PromptAnswer::Secret {
                    value: password.clone(),
                },
                None => secret(format!("{user}@{host}'s password: ")).await,
            },
            Prompt::Passphrase { key_path } => match &self.password {
                Some(password) => PromptAnswer::Secret {
                    value: password.clone(),
                },
                None => secret(format!("Enter passphrase for key '{key_path}': ")).await,
            },
            // Asked of the person at the terminal only: --password-env is the login's password.
            Prompt::SudoPassword { user, host, path } => {
                secret(format!(
                    "[sudo] password for {user} on {host} (for {path}): "
                ))
                .await
            }
            Prompt::KeyboardInteractive {
                name,
                instructions,
                prompts,
            } => {
                if !name.is_empty() || !instructions.is_empty() {
                    say!("{name}\n{instructions}");
                }
                let mut values = Vec::new();
                for (index, prompt) in prompts.iter().enumerate() {
                    // A single password-like prompt is answered from --password-env.
                    if let (Some(password), 0, 1) = (&self.password, index, prompts.len()) {
                        values.push(password.clone());
                        continue;
                    }
                    match secret(prompt.clone()).await {
                        PromptAnswer::Secret { value } => values.push(value),
                        _ => return PromptAnswer::Dismissed,
                    }
                }
                PromptAnswer::Responses { values }
            }
        }
    }

    /// A command Pilot ran waits for a secret: the person types it here, hidden, and it goes to
    /// the server's prompt as their own keystrokes (never to the model, the audit log or the
    /// history). Without a terminal nobody can: the command keeps waiting and Pilot is told by
    /// its own result.
    pub async fn type_secret(&self, engine: &Engine, tab: &str, asked: &str) {
        if !terminal_available() {
            say!(
                "kaiport: the command on the server asks for a secret ({asked}) and there is no \
                 terminal to type it in; it keeps waiting"
            );
            return;
        }
        let prompt = format!(
            "\nThe command on the server asks: {asked}\nType it here (hidden; it goes to the server \
             only, never to Pilot), or press Enter alone to leave it: "
        );
        let typed = tokio::task::spawn_blocking(move || rpassword::prompt_password(prompt).ok())
            .await
            .ok()
            .flatten();
        let Some(mut secret) = typed.filter(|typed| !typed.is_empty()) else {
            say!("  (not typed)");
            return;
        };
        secret.push('\r');
        engine
            .handle(Op::TerminalInput {
                tab: tab.to_owned(),
                data: secret.into_bytes(),
            })
            .await;
    }

    pub async fn question(&self, question: &str, options: &[String]) -> Option<String> {
        let mut text = format!("\nPilot asks: {question}");
        for (index, option) in options.iter().enumerate() {
            text.push_str(&format!("\n  {}. {option}", index + 1));
        }
        text.push_str("\nAnswer (a number, your own words, or empty to not answer): ");
        let answer = ask_line(text).await?;
        let answer = answer.trim();
        if answer.is_empty() {
            return None;
        }
        match answer.parse::<usize>() {
            Ok(number) if (1..=options.len()).contains(&number) => {
                Some(options[number - 1].clone())
            }
            _ => Some(answer.to_owned()),
        }
    }
}

/// Pilot's own reason for a call (its `why`), marked as the model's words rather than kaiport's
/// (the policy's reasons above it are kaiport's).
fn push_why(text: &mut String, why: Option<&str>) {
    if let Some(why) = why.map(|why| plain(why, 300)).filter(|why| !why.is_empty()) {
        text.push_str(&format!("\n  Pilot's reason: \u{201c}{why}\u{201d}"));
    }
}

/// The prompt line of a command that stopped at a password prompt (`awaiting_secret`), as plain
/// text; None for any other outcome.
pub fn secret_asked(outcome: &ToolOutcome) -> Option<String> {
    let result = outcome.result.as_ref()?;
    if result.get("status").and_then(|status| status.as_str()) != Some("awaiting_secret") {
        return None;
    }
    let screen = result
        .get("screen")
        .and_then(|screen| screen.as_str())
        .unwrap_or_default();
    let line = screen
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("a password");
    Some(plain(line, 160))
}

/// Server text for a line of stderr: no control characters, at most `max` characters.
fn plain(text: &str, max: usize) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .take(max)
        .collect::<String>()
        .trim()
        .to_owned()
}

/// What the host probe found, in one line for stderr.
pub fn host_line(facts: &HostFacts) -> String {
    if let Some(error) = &facts.probe_error
        && facts.user.is_none()
    {
        return format!("unknown ({})", plain(error, 200));
    }
    let sudo = match (facts.uid, facts.may_sudo) {
        (Some(0), _) => "root",
        (_, Some(true)) => "in a sudo group",
        (_, Some(false)) => "no sudo group",
        _ => "sudo unknown",
    };
    let part = |value: &Option<String>| plain(value.as_deref().unwrap_or("unknown"), 120);
    format!(
        "{} · {} ({sudo}) · {} · {}",
        part(&facts.os),
        part(&facts.user),
        part(&facts.init),
        part(&facts.package_manager)
    )
}

/// Whether a person can be asked: a controlling terminal exists.
pub fn terminal_available() -> bool {
    std::io::stderr().is_terminal() && open_tty().is_some()
}

fn open_tty() -> Option<std::fs::File> {
    #[cfg(unix)]
    {
        std::fs::File::open("/dev/tty").ok()
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Print `prompt` to stderr and read one line from the terminal; None without a terminal.
async fn ask_line(prompt: String) -> Option<String> {
    if !terminal_available() {
        return None;
    }
    tokio::task::spawn_blocking(move || {
        say_inline!("{prompt}");
        let _ = std::io::stderr().flush();
        let tty = open_tty()?;
        let mut line = String::new();
        std::io::BufReader::new(tty).read_line(&mut line).ok()?;
        Some(line)
    })
    .await
    .ok()
    .flatten()
}

async fn secret(prompt: String) -> PromptAnswer {
    if !terminal_available() {
        say!("{prompt}no terminal to ask; use --password-env VAR");
        return PromptAnswer::Dismissed;
    }
    let answer = tokio::task::spawn_blocking(move || rpassword::prompt_password(prompt).ok())
        .await
        .ok()
        .flatten();
    match answer {
        Some(value) => PromptAnswer::Secret { value },
        None => PromptAnswer::Dismissed,
    }
}
