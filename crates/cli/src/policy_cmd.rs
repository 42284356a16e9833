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
//! This command never connects anywhere and never runs anything it checks.

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use kaiport_core::policy::analyse;
use kaiport_core::policy::check::CheckRequest;
use kaiport_core::tools::policy_check as check;
use kaiport_protocol::Mode;
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::process::ExitCode;

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Decide a command line or tool call under the given rules and explain why.
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Read JSON lines from standard input and answer each with one JSON line.
    #[arg(long, conflicts_with_all = ["forbidden", "allowed", "dangerous", "command"])]
    batch: bool,
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
    }
}

fn single(args: CheckArgs) -> Result<ExitCode> {
    if args.command.is_empty() {
        anyhow::bail!(
            "give the command line to check after `--`, e.g. kaiport policy check --forbidden rm -- 'ls; rm x', \
             or use --batch"
        );
    }
    let line = args.command.join(" ");
    let request = CheckRequest {
        forbidden: args.forbidden,
        allowed: args.allowed,
        dangerous: args.dangerous,
        mode: args.mode,
        command: Some(line.clone()),
        ..CheckRequest::default()
    };
    let answer = check(&request).map_err(anyhow::Error::msg)?;
    let analysis = analyse(&line);
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
