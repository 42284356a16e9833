//! `kaiport audit`: where the audit log is and what its last lines say, one line per tool call.
//!
//! The log holds text from the model and from servers: nothing from it reaches the terminal raw.
//! Control characters and bidirectional overrides are shown as `\u{9b}` in the summary, and as
//! JSON escapes with `--json` (lines written raw by an older kaiport included).

use crate::connection::ConnectionOptions;
use kaiport_core::audit::{escape_for_terminal, escape_json_line};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// How many of the latest calls to show.
    #[arg(long, short = 'n', default_value_t = 20)]
    lines: usize,
    /// Print the raw JSON lines instead of a summary.
    #[arg(long)]
    json: bool,
    /// Only print the log's path.
    #[arg(long)]
    path: bool,
    /// Read this audit log instead of the one in the data folder.
    #[arg(long, value_name = "FILE")]
    audit: Option<std::path::PathBuf>,
}

pub fn run(args: AuditArgs) -> anyhow::Result<ExitCode> {
    let options = ConnectionOptions {
        audit: args.audit.clone(),
        ..ConnectionOptions::default()
    };
    let path = options.engine_config()?.audit_path;
    if args.path {
        out!("{}", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            say!("no audit log yet at {}", path.display());
            return Ok(ExitCode::SUCCESS);
        }
        Err(error) => anyhow::bail!("cannot read {}: {error}", path.display()),
    };
    let lines: Vec<&str> = text.lines().collect();
    for line in &lines[lines.len().saturating_sub(args.lines)..] {
        let record = serde_json::from_str::<serde_json::Value>(line);
        let Ok(record) = record else {
            let shown = escape_for_terminal(line);
            if args.json {
                out!("{shown}");
            } else {
                out!("(unreadable line) {shown}");
            }
            continue;
        };
        if args.json {
            out!("{}", escape_json_line(line));
            continue;
        }
        let field =
            |name: &str| escape_for_terminal(record[name].as_str().unwrap_or("-")).into_owned();
        let args = escape_for_terminal(&record["args"].to_string()).into_owned();
        let args = if args.chars().count() > 80 {
            format!("{}…", args.chars().take(80).collect::<String>())
        } else {
            args
        };
        out!(
            "{}  {:<24} {:<13} {:<6} by {:<10} {:<9} {} {args}",
            field("time"),
            field("connection"),
            field("tool"),
            field("decision"),
            field("decided_by"),
            field("status"),
            format_args!("{}ms", record["duration_ms"].as_u64().unwrap_or(0)),
        );
    }
    Ok(ExitCode::SUCCESS)
}
