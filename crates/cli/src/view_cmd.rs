//! `kaiport view CONNECTION VIEW [--container|--unit|--path X] [--json]`: one server view without a
//! model. It is a show_view call through the whole engine pipeline (policy, audit), exactly as
//! Pilot's; the view arrives in `ViewShown` and is printed as tables, or as the typed JSON of the
//! protocol's `ViewReport` with `--json`.

use crate::connection::{ConnectionOptions, open_tab};
use crate::tool::{EXIT_FAILED, EXIT_OK};
use kaiport_core::output::human_bytes as bytes;
use kaiport_protocol::tools::ViewKind;
use kaiport_protocol::*;
use std::process::ExitCode;

const TAB: &str = "cli-view";
const CALL: &str = "cli-view-call";

#[derive(Debug, clap::Args)]
pub struct ViewArgs {
    /// `local`, `ssh://user@host:port`, `user@host`, or a saved profile name.
    connection: String,
    /// processes, disk, disk_usage, ports, logs, cron, certificates, services, service_status,
    /// updates, websites, docker, docker_logs.
    #[arg(value_parser = parse_view)]
    view: ViewKind,
    /// The container (docker_logs).
    #[arg(long)]
    container: Option<String>,
    /// The service or unit (service_status).
    #[arg(long)]
    unit: Option<String>,
    /// The folder (disk_usage), log file (logs) or certificate file or folder (certificates).
    #[arg(long)]
    path: Option<String>,
    /// Print the view as the protocol's JSON (`ViewReport`) instead of tables.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    options: ConnectionOptions,
}

fn parse_view(text: &str) -> Result<ViewKind, String> {
    serde_json::from_value(serde_json::Value::String(text.to_owned())).map_err(|_| {
        format!(
            "unknown view {text:?}; the views are processes, disk, disk_usage, ports, logs, cron, \
             certificates, services, service_status, updates, websites, docker, docker_logs"
        )
    })
}

pub async fn run(args: ViewArgs) -> anyhow::Result<ExitCode> {
    let params = tools::ShowViewParams {
        view: args.view,
        container: args.container.clone(),
        unit: args.unit.clone(),
        path: args.path.clone(),
    };
    let call_args = serde_json::to_value(&params)?;
    let (engine, mut events, answerer) =
        open_tab(&args.connection, &args.options, TAB, Some(Mode::Ask), false).await?;
    let mut report = None;
    let mut asked = false;
    let mut interrupts = std::pin::pin!(tokio::signal::ctrl_c());
    loop {
        let event = tokio::select! {
            event = events.recv() => event,
            _ = &mut interrupts => {
                say!("\nkaiport: cancelled");
                engine.handle(Op::CloseTab { tab: TAB.to_owned() }).await;
                return Ok(ExitCode::from(EXIT_FAILED));
            }
        };
        let Some(event) = event else {
            anyhow::bail!("the engine stopped unexpectedly")
        };
        if answerer.respond(&engine, &event).await {
            continue;
        }
        match event {
            // Once: connected again after a drop does not show the view twice.
            Event::ConnectionState {
                state: ConnectionState::Connected,
                ..
            } if !asked => {
                asked = true;
                engine
                    .handle(Op::RunTool {
                        tab: TAB.to_owned(),
                        call: CALL.to_owned(),
                        tool: ToolName::ShowView.as_str().to_owned(),
                        args: call_args.clone(),
                    })
                    .await;
            }
            Event::ConnectionState {
                state: ConnectionState::Failed { error },
                ..
            } => {
                say!("kaiport: could not connect to {}: {error}", args.connection);
                return Ok(ExitCode::from(EXIT_FAILED));
            }
            Event::ViewShown { report: shown, .. } => report = Some(shown),
            Event::ToolFinished { outcome, .. } => {
                engine
                    .handle(Op::CloseTab {
                        tab: TAB.to_owned(),
                    })
                    .await;
                return match (outcome.status, report) {
                    (ToolStatus::Ok, Some(report)) => {
                        if args.json {
                            out!("{}", serde_json::to_string_pretty(&report)?);
                        } else {
                            print_report(&report);
                        }
                        Ok(ExitCode::from(EXIT_OK))
                    }
                    (_, _) => {
                        say!(
                            "kaiport: {}",
                            outcome
                                .error
                                .as_deref()
                                .unwrap_or("the view gave no result")
                        );
                        Ok(ExitCode::from(EXIT_FAILED))
                    }
                };
            }
            Event::Error { message, .. } => say!("kaiport: {message}"),
            _ => {}
        }
    }
}

/// The report as text: the summary, the view's tables, what is missing, the commands.
fn print_report(report: &ViewReport) {
    out!("{}", report.summary);
    out!();
    for line in tables(&report.data) {
        out!("{line}");
    }
    if !report.gaps.is_empty() {
        out!();
        for gap in &report.gaps {
            out!("missing: {} ({:?}: {})", gap.what, gap.reason, gap.detail);
        }
    }
    out!();
    out!("commands (each after `{}`):", report.prelude);
    for command in &report.commands {
        let status = command
            .exit_code
            .map_or_else(|| "no status".to_owned(), |code| format!("exit {code}"));
        out!(
            "  $ {}   ({status}, {} ms)",
            command.command,
            command.duration_ms
        );
    }
}

fn opt<T: ToString>(value: &Option<T>) -> String {
    value.as_ref().map(T::to_string).unwrap_or_default()
}

/// The rows of a view as aligned columns.
fn tables(data: &ViewData) -> Vec<String> {
    let (headers, rows): (&[&str], Vec<Vec<String>>) = match data {
        ViewData::Unavailable { reason } => {
            return vec![format!("Not available on this server: {reason}")];
        }
        ViewData::Processes(view) => (
            &[
                "PID", "USER", "CPU%", "MEM%", "RSS", "ELAPSED", "STATE", "COMMAND",
            ],
            view.processes
                .iter()
                .map(|p| {
                    vec![
                        p.pid.to_string(),
                        p.user.clone(),
                        format!("{:.1}", p.cpu_percent),
                        format!("{:.1}", p.memory_percent),
                        bytes(p.rss_bytes),
                        format!("{}s", p.elapsed_s),
                        p.state.clone(),
                        p.command.clone(),
                    ]
                })
                .collect(),
        ),
        ViewData::Disk(view) => (
            &[
                "MOUNT", "TYPE", "SIZE", "USED", "FREE", "USE%", "INODES%", "SOURCE",
            ],
            view.filesystems
                .iter()
                .map(|f| {
                    vec![
                        f.mount.clone(),
                        f.fs_type.clone(),
                        bytes(f.size_bytes),
                        bytes(f.used_bytes),
                        bytes(f.available_bytes),
                        format!("{:.0}", f.used_percent),
                        f.inodes_percent
                            .map(|p| format!("{p:.0}"))
                            .unwrap_or_default(),
                        f.source.clone(),
                    ]
                })
                .collect(),
        ),
        ViewData::DiskUsage(view) => (
            &["SIZE", "PATH"],
            view.entries
                .iter()
                .map(|e| vec![bytes(e.bytes), e.path.clone()])
                .collect(),
        ),
        ViewData::Ports(view) => (
            &["PROTO", "ADDRESS", "PORT", "PUBLIC", "PROGRAM", "PID"],
            view.sockets
                .iter()
                .map(|s| {
                    vec![
                        format!("{:?}", s.transport).to_lowercase(),
                        s.address.clone(),
                        s.port.to_string(),
                        if s.public { "yes" } else { "no" }.to_owned(),
                        s.process.clone().unwrap_or_else(|| "-".to_owned()),
                        opt(&s.pid),
                    ]
                })
                .collect(),
        ),
        ViewData::Logs(view) => (
            &["TIME", "LEVEL", "LINE"],
            view.lines
                .iter()
                .map(|l| {
                    vec![
                        opt(&l.time),
                        format!("{:?}", l.level).to_lowercase(),
                        l.text.clone(),
                    ]
                })
                .collect(),
        ),
        ViewData::Cron(view) => {
            let mut rows: Vec<Vec<String>> = view
                .jobs
                .iter()
                .map(|j| {
                    vec![
                        j.source.clone(),
                        j.schedule.clone(),
                        opt(&j.user),
                        opt(&j.next_run),
                        j.command.clone(),
                    ]
                })
                .collect();
            rows.extend(view.timers.iter().map(|t| {
                vec![
                    "systemd timer".to_owned(),
                    t.unit.clone(),
                    String::new(),
                    opt(&t.next),
                    t.activates.clone(),
                ]
            }));
            (&["SOURCE", "SCHEDULE", "USER", "NEXT RUN", "COMMAND"], rows)
        }
        ViewData::Certificates(view) => (
            &["DAYS LEFT", "NOT AFTER", "SUBJECT", "NAMES", "PATH"],
            view.certificates
                .iter()
                .map(|c| {
                    vec![
                        c.days_left.to_string(),
                        c.not_after.clone(),
                        c.subject.clone(),
                        c.names.join(","),
                        c.path.clone(),
                    ]
                })
                .collect(),
        ),
        ViewData::Services(view) => (
            &["SERVICE", "STATE", "DETAIL", "DESCRIPTION"],
            view.services
                .iter()
                .map(|s| {
                    vec![
                        s.name.clone(),
                        format!("{:?}", s.state).to_lowercase(),
                        s.detail.clone(),
                        opt(&s.description),
                    ]
                })
                .collect(),
        ),
        ViewData::ServiceStatus(view) => {
            let mut lines: Vec<String> = view
                .properties
                .iter()
                .map(|(key, value)| format!("{key}: {value}"))
                .collect();
            lines.extend(
                view.log
                    .iter()
                    .map(|l| format!("{} {}", opt(&l.time), l.text)),
            );
            return lines;
        }
        ViewData::Updates(view) => (
            &["PACKAGE", "INSTALLED", "NEW", "SOURCE", "SECURITY"],
            view.updates
                .iter()
                .map(|u| {
                    vec![
                        u.package.clone(),
                        opt(&u.installed),
                        u.version.clone(),
                        opt(&u.source),
                        if u.security { "yes" } else { "" }.to_owned(),
                    ]
                })
                .collect(),
        ),
        ViewData::Websites(view) => (
            &["NAMES", "LISTEN", "TLS", "CERTIFICATE", "TARGET", "FILE"],
            view.sites
                .iter()
                .map(|s| {
                    vec![
                        s.names.join(" "),
                        s.listen.join(", "),
                        if s.tls { "yes" } else { "no" }.to_owned(),
                        opt(&s.certificate),
                        s.proxies
                            .first()
                            .cloned()
                            .or_else(|| s.root.clone())
                            .unwrap_or_default(),
                        s.file.clone(),
                    ]
                })
                .collect(),
        ),
        ViewData::Docker(view) => (
            &[
                "NAME", "IMAGE", "STATE", "STATUS", "CPU%", "MEMORY", "PORTS",
            ],
            view.containers
                .iter()
                .map(|c| {
                    vec![
                        c.name.clone(),
                        c.image.clone(),
                        c.state.clone(),
                        c.status.clone(),
                        c.cpu_percent.map(|p| format!("{p:.1}")).unwrap_or_default(),
                        opt(&c.memory),
                        c.ports.clone(),
                    ]
                })
                .collect(),
        ),
    };
    align(headers, &rows)
}

/// Most characters of a cell other than the last column.
const MAX_CELL: usize = 48;
/// Most characters of the last column (command lines, log lines); `--json` has them whole.
const MAX_LAST_CELL: usize = 240;

fn align(headers: &[&str], rows: &[Vec<String>]) -> Vec<String> {
    let cut = |text: &str, max: usize| -> String {
        if text.chars().count() <= max {
            text.to_owned()
        } else {
            let mut short: String = text.chars().take(max.saturating_sub(1)).collect();
            short.push('…');
            short
        }
    };
    let last = headers.len().saturating_sub(1);
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (index, cell) in row.iter().enumerate().take(last) {
            widths[index] = widths[index].max(cell.chars().count().min(MAX_CELL));
        }
    }
    let line = |cells: Vec<String>| {
        let mut text = String::new();
        for (index, cell) in cells.iter().enumerate() {
            if index == last {
                text.push_str(&cut(cell, MAX_LAST_CELL));
            } else {
                let cell = cut(cell, MAX_CELL);
                text.push_str(&format!("{cell:<width$}  ", width = widths[index]));
            }
        }
        text.trim_end().to_owned()
    };
    let mut out = vec![line(headers.iter().map(|h| (*h).to_owned()).collect())];
    out.extend(rows.iter().map(|row| line(row.clone())));
    out
}
