//! `kaiport policy check`: explain the decision for a command line or a tool call under given
//! rules, with the same code the engine runs ([`kaiport_core::tools::policy_check`]: the tools' own
//! facts and the policy's `decide`).
//!
//! - `kaiport policy check [--forbidden P]… [--allowed P]… [--dangerous P]… [--mode M] -- 'command'`
//!   prints `{"decision", "reasons", "commands"}`: the decision and the simple commands found, for
//!   people debugging their rules.
//! - `kaiport policy check --batch` reads JSON lines (`{"forbidden": […], "allowed": […],
//!   "mode": "…", "command": "…"}` or with `"tool"` and `"args"`) and writes one
//!   `{"decision", "reasons"}` line per input, in order. A line that cannot be read gets
//!   `{"error": "…"}` in its place, so outputs stay aligned with inputs.
//!
//! - `kaiport policy explain [--allowed P]… [--mode M] -- 'command'` prints, for each simple
//!   command the line runs, which program spec judged it and what each subcommand and option is
//!   to that spec (harmless, writes, runs a program, unknown, …), which rule allowed or forbade
//!   it, and the decision with its reasons; `--json` gives the same as JSON.
//!
//! This command never connects anywhere and never runs anything it checks.

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use kaiport_core::policy::check::{CheckAnswer, CheckRequest};
use kaiport_core::policy::programs::explain;
use kaiport_core::policy::rules::{first_loose_match, matches_prefix};
use kaiport_core::policy::{Analysis, SimpleCommand, analyse};
use kaiport_core::tools::policy_check as check;
use kaiport_protocol::Mode;
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::process::ExitCode;

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Decide a command line or tool call under the given rules and explain why.
    Check(CheckArgs),
    /// Show which program spec and which option decided each part of a command line.
    Explain(ExplainArgs),
}

/// The rules a line is checked under.
#[derive(Debug, Args)]
pub struct RuleArgs {
    /// A forbidden command pattern (repeatable), e.g. `rm` or `systemctl restart`.
    #[arg(long, value_name = "PATTERN")]
    forbidden: Vec<String>,
    /// An allowed command pattern (repeatable).
    #[arg(long, value_name = "PATTERN")]
    allowed: Vec<String>,
    /// An extra dangerous command pattern (repeatable).
    #[arg(long, value_name = "PATTERN")]
    dangerous: Vec<String>,
    /// The tab's mode.
    #[arg(long, default_value = "ask", value_parser = parse_mode)]
    mode: Mode,
}

/// The decision for a line under the rules, and what the analysis found in it.
fn decide_line(rules: &RuleArgs, line: &str) -> Result<(CheckAnswer, Analysis)> {
    let answer = check(&rules.request(line)).map_err(anyhow::Error::msg)?;
    Ok((answer, analyse(line)))
}

impl RuleArgs {
    fn request(&self, line: &str) -> CheckRequest {
        CheckRequest {
            forbidden: self.forbidden.clone(),
            allowed: self.allowed.clone(),
            dangerous: self.dangerous.clone(),
            mode: self.mode,
            command: Some(line.to_owned()),
            ..CheckRequest::default()
        }
    }
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// The command line to explain (after `--`).
    #[arg(last = true, value_name = "COMMAND", required = true)]
    command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Read JSON lines from standard input and answer each with one JSON line.
    #[arg(long, conflicts_with_all = ["forbidden", "allowed", "dangerous", "command"])]
    batch: bool,
    #[command(flatten)]
    rules: RuleArgs,
    /// The command line to check (after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

fn parse_mode(text: &str) -> Result<Mode, String> {
    serde_json::from_value(Value::String(text.to_owned()))
        .map_err(|_| format!("mode must be ask, autopilot or plan, not {text:?}"))
}

pub fn run(command: PolicyCommand) -> Result<ExitCode> {
    match command {
        PolicyCommand::Check(args) if args.batch => batch(),
        PolicyCommand::Check(args) => single(args),
        PolicyCommand::Explain(args) => explain_line(args),
    }
}

/// One simple command as `policy explain` shows it.
fn command_report(command: &SimpleCommand, args: &ExplainArgs) -> Value {
    let explanation = explain(&command.words);
    let allowed_by: Vec<&String> = args
        .rules
        .allowed
        .iter()
        .filter(|pattern| matches_prefix(pattern, &command.words))
        .collect();
    let forbidden_by = first_loose_match(command, &args.rules.forbidden);
    let subcommands: Vec<Value> = explanation
        .subcommands
        .iter()
        .map(|(word, what)| json!({"subcommand": word, "is": what}))
        .collect();
    let options: Vec<Value> = explanation
        .options
        .iter()
        .map(|(spelling, value, what)| json!({"option": spelling, "value": value, "is": what}))
        .collect();
    json!({
        "command": command.display(),
        "run_by": command.wrappers.iter().map(|wrapper| wrapper.join(" ")).collect::<Vec<_>>(),
        "remote": command.remote,
        "spec": explanation.family,
        "program": explanation.program,
        "spec_complete": explanation.complete,
        "subcommands": subcommands,
        "options": options,
        "unknown": explanation.unknown,
        "dangerous": command.judged.dangerous,
        "lockout": command.judged.lockout,
        "read_only": command.judged.read_only.as_ref().err(),
        "allowed_by": allowed_by,
        "forbidden_by": forbidden_by,
    })
}

fn explain_line(args: ExplainArgs) -> Result<ExitCode> {
    let line = args.command.join(" ");
    let (answer, analysis) = decide_line(&args.rules, &line)?;
    let commands: Vec<Value> = analysis
        .commands
        .iter()
        .map(|command| command_report(command, &args))
        .collect();
    let writes: Vec<Value> = analysis
        .writes
        .iter()
        .map(|write| json!({"path": write.path, "how": write.how, "own": write.own}))
        .collect();
    let report = json!({
        "decision": answer.decision,
        "dangerous": answer.dangerous,
        "risk": answer.risk,
        "reasons": answer.reasons,
        "commands": commands,
        "writes": writes,
        "unprovable": analysis.unprovable,
    });
    if args.json {
        out!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        out!("{}", explanation_text(&report, args.rules.mode));
    }
    Ok(ExitCode::SUCCESS)
}

/// The report as lines a person reads.
fn explanation_text(report: &Value, mode: Mode) -> String {
    let text = |value: &Value| value.as_str().unwrap_or_default().to_owned();
    let list = |value: &Value| -> Vec<String> {
        value
            .as_array()
            .map(|items| items.iter().map(text).collect())
            .unwrap_or_default()
    };
    let mut lines = Vec::new();
    let dangerous = if report["risk"] == "lockout" {
        " (can lock you out)"
    } else if report["dangerous"].as_bool() == Some(true) {
        " (dangerous)"
    } else {
        ""
    };
    let mode = serde_json::to_value(mode)
        .ok()
        .map(|mode| text(&mode))
        .unwrap_or_default();
    lines.push(format!(
        "{}{dangerous} in {mode} mode",
        text(&report["decision"])
    ));
    for reason in list(&report["reasons"]) {
        lines.push(format!("  because {reason}"));
    }
    for command in report["commands"].as_array().into_iter().flatten() {
        lines.push(String::new());
        lines.push(text(&command["command"]));
        for wrapper in list(&command["run_by"]) {
            lines.push(format!("  run by: {wrapper}"));
        }
        match command["spec"].as_str() {
            Some(family) => {
                let complete = if command["spec_complete"].as_bool() == Some(true) {
                    ""
                } else {
                    ", option list not complete yet"
                };
                lines.push(format!(
                    "  spec: {} ({family}{complete})",
                    text(&command["program"])
                ));
            }
            None => lines.push(
                "  spec: none (a plain command: what it does is up to the allowed list)".to_owned(),
            ),
        }
        for sub in command["subcommands"].as_array().into_iter().flatten() {
            lines.push(format!(
                "  subcommand {}: {}",
                text(&sub["subcommand"]),
                text(&sub["is"])
            ));
        }
        for option in command["options"].as_array().into_iter().flatten() {
            let value = option["value"]
                .as_str()
                .map(|value| format!(" {value:?}"))
                .unwrap_or_default();
            lines.push(format!(
                "  option {}{value}: {}",
                text(&option["option"]),
                text(&option["is"])
            ));
        }
        for unknown in list(&command["unknown"]) {
            lines.push(format!("  asks: {unknown}"));
        }
        for reason in list(&command["dangerous"])
            .into_iter()
            .chain(list(&command["lockout"]))
        {
            lines.push(format!("  asks: {reason}"));
        }
        match (
            command["forbidden_by"].as_str(),
            list(&command["allowed_by"]).first(),
        ) {
            (Some(pattern), _) => lines.push(format!("  forbidden by the rule {pattern:?}")),
            (None, Some(pattern)) => lines.push(format!("  allowed by the rule {pattern:?}")),
            (None, None) => lines.push("  no allowed rule matches".to_owned()),
        }
    }
    let writes = report["writes"].as_array().cloned().unwrap_or_default();
    if !writes.is_empty() {
        lines.push(String::new());
        for write in writes {
            lines.push(format!(
                "writes {} ({})",
                text(&write["path"]),
                text(&write["how"])
            ));
        }
    }
    lines.join("\n")
}

fn single(args: CheckArgs) -> Result<ExitCode> {
    if args.command.is_empty() {
        anyhow::bail!(
            "give the command line to check after `--`, e.g. kaiport policy check --forbidden rm -- 'ls; rm x', \
             or use --batch"
        );
    }
    let line = args.command.join(" ");
    let (answer, analysis) = decide_line(&args.rules, &line)?;
    let commands: Vec<Value> = analysis
        .commands
        .iter()
        .map(|command| {
            json!({
                "words": command.words,
                "wrappers": command.wrappers,
                "remote": command.remote,
            })
        })
        .collect();
    let writes: Vec<Value> = analysis
        .writes
        .iter()
        .map(|write| json!({"path": write.path, "how": write.how}))
        .collect();
    let mut output = serde_json::to_value(&answer)?;
    if let Value::Object(map) = &mut output {
        map.insert("commands".to_owned(), Value::Array(commands));
        map.insert("writes".to_owned(), Value::Array(writes));
        map.insert("unprovable".to_owned(), json!(analysis.unprovable));
    }
    out!("{}", serde_json::to_string_pretty(&output)?);
    Ok(ExitCode::SUCCESS)
}

fn batch() -> Result<ExitCode> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut all_read = true;
    for (index, line) in stdin.lock().lines().enumerate() {
        let line = line.context("cannot read standard input")?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = serde_json::from_str::<CheckRequest>(&line)
            .map_err(|error| format!("line {}: not a check request: {error}", index + 1))
            .and_then(|request| {
                check(&request).map_err(|error| format!("line {}: {error}", index + 1))
            });
        let value = match answer {
            Ok(answer) => serde_json::to_value(&answer)?,
            Err(error) => {
                all_read = false;
                json!({ "error": error })
            }
        };
        writeln!(out, "{}", serde_json::to_string(&value)?)?;
    }
    out.flush()?;
    Ok(if all_read {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::tool::EXIT_FAILED)
    })
}
