//! `kaiport audit`: where the audit log is and what its last lines say, one line per tool call.

use crate::connection::ConnectionOptions;
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
        if args.json {
            out!("{line}");
            continue;
        }
        let Ok(record) = serde_json::from_str::<serde_json::Value>(line) else {
            out!("(unreadable line) {line}");
            continue;
        };
        let field = |name: &str| record[name].as_str().unwrap_or("-").to_owned();
        let args = record["args"].to_string();
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
