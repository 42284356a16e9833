//! `kaiport fleet run GROUP|CONNECTION… -- 'command'`: one command line on many saved
//! connections (a tag names every connection that has it), each under its own rules, through
//! the engine's `FleetCheck` and `FleetRun`. Hosts whose rules ask are approved by `--yes`, by
//! the person at the terminal when asked once for all of them, or not at all (then they are
//! reported as needing approval). Progress on stderr, the grouped result on stdout.

use anyhow::{Context, bail};
use kaiport_core::{Engine, EngineConfig};
use kaiport_protocol::{Event, FleetReport, FleetStatus, Mode, Op, Verdict};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// The run id of `kaiport fleet run` (the audit line's tab is `fleet:<run>`).
const RUN: &str = "cli-fleet";

#[derive(Debug, clap::Subcommand)]
pub enum FleetCommand {
    /// Run one command line on saved connections and tags: `kaiport fleet run web db1 -- 'uptime'`.
    /// Exits 1 when any host failed, was refused, was not approved or exited non-zero.
    Run(FleetRunArgs),
}

#[derive(Debug, clap::Args)]
pub struct FleetRunArgs {
    /// Saved connections and tags (a tag means every connection that has it).
    #[arg(required = true)]
    targets: Vec<String>,
    /// The command line, after `--` (several words are joined with spaces).
    #[arg(last = true, required = true)]
    command: Vec<String>,
    /// Hosts at once (default KAIPORT_FLEET_CONCURRENCY, else 16).
    #[arg(long)]
    concurrency: Option<u32>,
    #[command(flatten)]
    options: RunOptions,
}

/// How a line runs on saved connections: `kaiport fleet run` and `kaiport snippets run`.
#[derive(Debug, clap::Args)]
pub struct RunOptions {
    /// Print the whole report as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// ask (default), autopilot or plan: judged for each host as in a tab of it.
    #[arg(long, value_parser = crate::tool::parse_mode, default_value = "ask")]
    mode: Mode,
    /// Approve the hosts whose rules ask. Never overrides a forbidden rule.
    #[arg(long)]
    yes: bool,
    /// Another audit log file.
    #[arg(long)]
    audit: Option<PathBuf>,
    /// Another known_hosts file.
    #[arg(long)]
    known_hosts: Option<PathBuf>,
}

pub async fn run(command: FleetCommand) -> anyhow::Result<ExitCode> {
    let FleetCommand::Run(args) = command;
    run_line(
        RUN,
        args.targets,
        args.command.join(" "),
        &args.options,
        args.concurrency,
    )
    .await
}

/// Runs `line` on `targets` as run `run` through the engine's `FleetCheck` and `FleetRun`: each host under
/// its own rules, audited; the report on stdout.
pub async fn run_line(
    run: &str,
    targets: Vec<String>,
    line: String,
    args: &RunOptions,
    concurrency: Option<u32>,
) -> anyhow::Result<ExitCode> {
    let mut config = EngineConfig::from_environment()?;
    if let Some(audit) = &args.audit {
        config.audit_path = audit.clone();
    }
    if let Some(known_hosts) = &args.known_hosts {
        config.known_hosts = known_hosts.clone();
    }
    let (engine, mut events) = Engine::new(config).context("cannot start the engine")?;
    engine
        .handle(Op::FleetCheck {
            run: run.to_owned(),
            targets: targets.clone(),
            command: line.clone(),
            mode: Some(args.mode),
        })
        .await;
    let checked = loop {
        match events.recv().await {
            Some(Event::FleetChecked { hosts, .. }) => break hosts,
            Some(Event::Error { message, .. }) => bail!("{message}"),
            Some(_) => {}
            None => bail!("the engine stopped"),
        }
    };
    let asking: Vec<_> = checked
        .iter()
        .filter(|host| host.decision == Verdict::Ask)
        .collect();
    let mut approved = Vec::new();
    if !asking.is_empty() {
        if args.yes {
            approved = asking.iter().map(|host| host.host.clone()).collect();
        } else if std::io::stdin().is_terminal() {
            say!(
                "The rules of {} host(s) ask before `{line}` runs:",
                asking.len()
            );
            for host in &asking {
                say!("  {}: {}", host.host, host.reasons.join("; "));
            }
            say_inline!("Run it on these hosts too? [y/N] ");
            let mut answer = String::new();
            std::io::stdin().read_line(&mut answer)?;
            if matches!(answer.trim(), "y" | "Y" | "yes") {
                approved = asking.iter().map(|host| host.host.clone()).collect();
            }
        }
    }
    engine
        .handle(Op::FleetRun {
            run: run.to_owned(),
            targets,
            command: line,
            mode: Some(args.mode),
            approved,
            automatic: args.yes,
            concurrency,
        })
        .await;
    let live = std::io::stderr().is_terminal();
    let mut tally = [0u32; 5];
    let report = loop {
        match events.recv().await {
            Some(Event::FleetHostFinished {
                result,
                done,
                total,
                ..
            }) => {
                tally[status_index(result.status)] += 1;
                let counts = format!(
                    "[{done}/{total}] {} done, {} failed, {} refused, {} not approved",
                    tally[0], tally[1], tally[2], tally[3]
                );
                if live {
                    say_inline!("\r\x1b[2K{counts}");
                } else {
                    say!("{counts} ({} {})", result.host, status_word(result.status));
                }
            }
            Some(Event::FleetFinished { report, .. }) => break report,
            Some(Event::Error { message, .. }) => bail!("{message}"),
            Some(_) => {}
            None => bail!("the engine stopped"),
        }
    };
    if live {
        say!("");
    }
    if args.json {
        out!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_table(&report);
    }
    let bad = report.failed
        + report.refused
        + report.needs_approval
        + report.cancelled
        + report.nonzero_exit;
    Ok(if bad > 0 {
        ExitCode::from(crate::tool::EXIT_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

fn status_index(status: FleetStatus) -> usize {
    match status {
        FleetStatus::Done => 0,
        FleetStatus::Failed => 1,
        FleetStatus::Refused => 2,
        FleetStatus::NeedsApproval => 3,
        FleetStatus::Cancelled => 4,
    }
}

fn status_word(status: FleetStatus) -> &'static str {
    match status {
        FleetStatus::Done => "done",
        FleetStatus::Failed => "failed",
        FleetStatus::Refused => "refused",
        FleetStatus::NeedsApproval => "not approved",
        FleetStatus::Cancelled => "cancelled",
    }
}

/// The groups as people read them: a heading per group, its output or reason indented.
fn print_table(report: &FleetReport) {
    out!(
        "{} hosts: {} done, {} failed, {} refused, {} not approved",
        report.total,
        report.done,
        report.failed,
        report.refused,
        report.needs_approval
    );
    for group in &report.groups {
        let exit = match (group.status, group.exit_code) {
            (FleetStatus::Done, Some(code)) => format!(", exit {code}"),
            _ => String::new(),
        };
        out!(
            "\n{} host(s) {}{exit}: {}",
            group.hosts.len(),
            status_word(group.status),
            group.hosts.join(", ")
        );
        if let Some(reason) = &group.reason {
            out!("  {reason}");
        }
        for line in group.output.lines() {
            out!("  | {line}");
        }
    }
}
