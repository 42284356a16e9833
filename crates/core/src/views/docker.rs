//! docker and docker_logs: containers from `docker ps -a --format '{{json .}}'` with their CPU
//! and memory from `docker stats --no-stream` (exited, restarting and unhealthy first), and the
//! last 200 lines of one container's log with timestamps (stdout and stderr). Only the docker
//! CLI's structured output is parsed; no container is started, stopped or pulled.

use super::logs::{classify, summarise as summarise_log, view_of};
use super::text::{Summary, clean_line, quote};
use super::{Built, Runner};
use kaiport_protocol::{ContainerRow, DockerView, LogLine, ViewData};

const PS: &str = "docker ps -a --no-trunc --format '{{json .}}'";
const STATS: &str = "docker stats --no-stream --no-trunc --format '{{json .}}'";
const LOG_LINES: u32 = super::logs::LOG_LINES;

/// Why docker cannot be asked, from the CLI's error output.
fn engine_problem(ran: &super::Ran) -> Option<String> {
    if ran.missing() {
        return Some("there is no `docker` command".to_owned());
    }
    let text = format!(
        "{}\n{}",
        ran.stderr,
        if ran.ok() { "" } else { &ran.stdout }
    );
    if text.contains("permission denied") && text.contains("docker") {
        return Some(
            "the login user may not use the Docker engine (not in the docker group; views never use sudo)"
                .to_owned(),
        );
    }
    if text.contains("Cannot connect to the Docker daemon")
        || text.contains("Is the docker daemon running")
    {
        return Some("the Docker engine is not running".to_owned());
    }
    None
}

pub(super) async fn build_list(runner: &Runner<'_>) -> Built {
    let ran = runner.run_all(&[PS.to_owned(), STATS.to_owned()]).await;
    let (ps, stats) = (&ran[0], &ran[1]);
    if let Some(reason) = engine_problem(ps) {
        return Built::unavailable(reason);
    }
    if !ps.ok() {
        runner.gap(ps.gap("the container list"));
    }
    if !stats.ok() {
        runner.gap(stats.gap("CPU and memory of the containers"));
    }
    let mut containers = parse_ps(&ps.stdout);
    apply_stats(&mut containers, &stats.stdout);
    containers.sort_by_key(|c| (!needs_attention(c), c.name.clone()));
    let summary = summarise(&containers);
    Built::new(ViewData::Docker(DockerView { containers }), summary)
}

fn needs_attention(container: &ContainerRow) -> bool {
    matches!(container.state.as_str(), "exited" | "restarting" | "dead")
        || container.status.contains("unhealthy")
}

/// One JSON object per line, as `docker ps --format '{{json .}}'` prints them.
pub(super) fn parse_ps(output: &str) -> Vec<ContainerRow> {
    output
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|item| {
            let field =
                |key: &str| clean_line(item.get(key).and_then(|v| v.as_str()).unwrap_or_default());
            let id = field("ID");
            if id.is_empty() {
                return None;
            }
            let status = field("Status");
            let mut state = field("State");
            if state.is_empty() {
                // Docker before 20.10 has no State field: its Status says it.
                state = if status.starts_with("Up") {
                    if status.contains("(Paused)") {
                        "paused"
                    } else {
                        "running"
                    }
                } else if status.starts_with("Exited") {
                    "exited"
                } else if status.starts_with("Restarting") {
                    "restarting"
                } else if status.starts_with("Created") {
                    "created"
                } else {
                    "dead"
                }
                .to_owned();
            }
            Some(ContainerRow {
                id,
                name: field("Names"),
                image: field("Image"),
                state,
                status,
                ports: field("Ports"),
                cpu_percent: None,
                memory: None,
            })
        })
        .collect()
}

/// Adds CPU and memory from `docker stats --no-stream --format '{{json .}}'`.
pub(super) fn apply_stats(containers: &mut [ContainerRow], output: &str) {
    for item in output
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
    {
        let field = |key: &str| item.get(key).and_then(|v| v.as_str()).unwrap_or_default();
        let id = field("ID");
        let name = field("Name");
        let Some(row) = containers
            .iter_mut()
            .find(|c| (!id.is_empty() && c.id.starts_with(id)) || c.name == name)
        else {
            continue;
        };
        row.cpu_percent = field("CPUPerc").trim_end_matches('%').parse().ok();
        row.memory = Some(clean_line(field("MemUsage"))).filter(|m| !m.is_empty());
    }
}

fn summarise(containers: &[ContainerRow]) -> Summary {
    let mut summary = Summary::default();
    let running = containers.iter().filter(|c| c.state == "running").count();
    let attention: Vec<&ContainerRow> = containers.iter().filter(|c| needs_attention(c)).collect();
    for container in &attention {
        summary.line(format!(
            "{}: {} ({}) {}",
            container.state.to_uppercase(),
            container.name,
            container.image,
            container.status
        ));
    }
    summary.line(format!(
        "{} containers: {running} running, {} need attention",
        containers.len(),
        attention.len()
    ));
    for container in containers.iter().filter(|c| !needs_attention(c)) {
        summary.line(format!(
            "  {} ({}) {}{}{}",
            container.name,
            container.image,
            container.status,
            container
                .cpu_percent
                .map(|cpu| format!(", cpu {cpu:.1}%"))
                .unwrap_or_default(),
            container
                .memory
                .as_deref()
                .map(|m| format!(", mem {m}"))
                .unwrap_or_default()
        ));
    }
    summary
}

pub(super) async fn build_logs(runner: &Runner<'_>, container: &str) -> Built {
    let command = format!(
        "docker logs --tail {LOG_LINES} --timestamps -- {} 2>&1",
        quote(container)
    );
    let ran = runner.run(&command).await;
    if let Some(reason) = engine_problem(&ran) {
        return Built::unavailable(reason);
    }
    if !ran.ok() {
        let mut gap = ran.gap(format!("the log of {}", clean_line(container)));
        if let Some(line) = ran.stdout.lines().next() {
            gap.detail = clean_line(line);
        }
        runner.gap(gap);
        let view = view_of(format!("container {}", clean_line(container)), Vec::new());
        let summary = summarise_log(&view, runner.contents_allowed());
        return Built::new(ViewData::Logs(view), summary);
    }
    let lines = parse_log(&ran.stdout);
    let view = view_of(format!("container {}", clean_line(container)), lines);
    let summary = summarise_log(&view, runner.contents_allowed());
    Built::new(ViewData::Logs(view), summary)
}

/// `docker logs --timestamps` lines: an RFC 3339 time, a space, the line.
pub(super) fn parse_log(output: &str) -> Vec<LogLine> {
    output
        .lines()
        .map(|line| {
            let (time, text) = match line.split_once(' ') {
                Some((stamp, rest)) if chrono::DateTime::parse_from_rfc3339(stamp).is_ok() => {
                    (Some(stamp.to_owned()), rest)
                }
                _ => (None, line),
            };
            let text = clean_line(text);
            LogLine {
                time,
                level: classify(&text),
                text,
            }
        })
        .collect()
}
