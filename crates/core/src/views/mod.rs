//! show_view: the server views (processes, disk, ports, logs, …), one module per view with its
//! commands, its parser and its summary.
//!
//! A view runs **read-only commands on separate exec channels** of the tab's SSH connection
//! (several at once where a view needs several), never in the user's terminal, never through
//! sudo and never with a pty, within [`VIEW_TIME_LIMIT`] for the whole view. Every command runs
//! after [`PRELUDE`] (the C locale, so output parses the same everywhere, and the sbin folders,
//! where tools like `nginx` and `service` live, in PATH). The local tab runs them with `sh -c`
//! on this computer instead.
//!
//! A parameter (container, unit, path) is data: it reaches the server only as one single-quoted
//! word ([`text::quote`]). Everything the server prints is cleaned of escape sequences and
//! control characters ([`text::clean`]) before it goes into a [`ViewReport`] or a summary.
//! A host without the tool gets [`ViewData::Unavailable`]; a view that could see only part of
//! what it wanted says what is missing and why ([`ViewGap`]).
//!
//! This module must never change anything on a server: no command here writes, refreshes
//! package lists, restarts or kills. Buttons that do ([`buttons`]) are the user's: the engine
//! types them into the user's terminal after the user confirmed them, never a view or the model.

pub mod buttons;
mod certificates;
mod cron;
mod disk;
mod docker;
pub mod host_facts;
mod logs;
mod ports;
mod processes;
mod services;
pub mod text;
mod updates;
mod websites;

use crate::ssh::SshSession;
use kaiport_protocol::tools::{ShowViewParams, ViewKind};
use kaiport_protocol::{GapReason, ViewCommand, ViewData, ViewGap, ViewReport};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Time one view may take, all its commands together.
pub const VIEW_TIME_LIMIT: Duration = Duration::from_secs(15);

/// What every command of a view runs after (see the module docs).
pub const PRELUDE: &str = "export LC_ALL=C PATH=\"$PATH:/usr/local/sbin:/usr/sbin:/sbin\"; ";

/// Where a view's commands run.
#[derive(Clone, Copy)]
pub enum ViewHost<'a> {
    /// Exec channels of the tab's SSH connection.
    Ssh(&'a SshSession),
    /// `sh -c` on this computer (the local terminal tab).
    Local,
    /// Unit tests: answers from a script (stdout, stderr, status, how long it takes).
    #[cfg(test)]
    Scripted(&'a (dyn Fn(&str) -> ScriptedRun + Sync)),
}

/// What a scripted command gives: stdout, stderr, status, and how long it takes.
#[cfg(test)]
pub type ScriptedRun = (String, String, Option<u32>, Duration);

/// A show_view call with its parameters checked: the view and the one parameter it uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewRequest {
    pub view: ViewKind,
    pub subject: Option<String>,
}

/// The name the model uses for a view.
pub fn view_name(view: ViewKind) -> &'static str {
    match view {
        ViewKind::Docker => "docker",
        ViewKind::DockerLogs => "docker_logs",
        ViewKind::Services => "services",
        ViewKind::ServiceStatus => "service_status",
        ViewKind::Disk => "disk",
        ViewKind::DiskUsage => "disk_usage",
        ViewKind::Processes => "processes",
        ViewKind::Logs => "logs",
        ViewKind::Updates => "updates",
        ViewKind::Websites => "websites",
        ViewKind::Certificates => "certificates",
        ViewKind::Ports => "ports",
        ViewKind::Cron => "cron",
    }
}

/// Which parameter a view takes, and whether it must be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    Nothing,
    Container,
    Unit,
    /// An absolute path; `true`: required.
    Path(bool),
}

fn takes(view: ViewKind) -> Takes {
    match view {
        ViewKind::Docker
        | ViewKind::Services
        | ViewKind::Disk
        | ViewKind::Processes
        | ViewKind::Updates
        | ViewKind::Websites
        | ViewKind::Ports
        | ViewKind::Cron => Takes::Nothing,
        ViewKind::DockerLogs => Takes::Container,
        ViewKind::ServiceStatus => Takes::Unit,
        ViewKind::DiskUsage => Takes::Path(true),
        ViewKind::Logs | ViewKind::Certificates => Takes::Path(false),
    }
}

/// Checks a call's parameters; the error is a message for the model that names the parameter.
pub fn check(params: &ShowViewParams) -> Result<ViewRequest, String> {
    let name = view_name(params.view);
    let given: Vec<(&str, &String)> = [
        ("container", params.container.as_ref()),
        ("unit", params.unit.as_ref()),
        ("path", params.path.as_ref()),
    ]
    .into_iter()
    .filter_map(|(key, value)| value.map(|value| (key, value)))
    .collect();
    let wanted = match takes(params.view) {
        Takes::Nothing => None,
        Takes::Container => Some(("container", true)),
        Takes::Unit => Some(("unit", true)),
        Takes::Path(required) => Some(("path", required)),
    };
    if let Some((extra, _)) = given
        .iter()
        .find(|(key, _)| wanted.is_none_or(|(want, _)| want != *key))
    {
        return Err(match wanted {
            Some((want, _)) => format!("show_view: the {name} view takes `{want}`, not `{extra}`"),
            None => format!("show_view: the {name} view takes no `{extra}`"),
        });
    }
    let Some((key, required)) = wanted else {
        return Ok(ViewRequest {
            view: params.view,
            subject: None,
        });
    };
    let value = given.first().map(|(_, value)| value.as_str());
    let value = match value {
        Some(value) if !value.trim().is_empty() => value,
        _ if required => {
            let example = match key {
                "container" => "a container name or id",
                "unit" => "a service or unit name, e.g. nginx or nginx.service",
                _ => "an absolute folder path, e.g. /var",
            };
            return Err(format!(
                "show_view: the {name} view needs `{key}`: {example}"
            ));
        }
        _ => {
            return Ok(ViewRequest {
                view: params.view,
                subject: None,
            });
        }
    };
    match key {
        "path" if !value.starts_with('/') => {
            return Err(format!(
                "show_view: `path` must be absolute (start with /), not {value:?}"
            ));
        }
        "container" | "unit" if value.starts_with('-') => {
            return Err(format!(
                "show_view: `{key}` cannot start with '-' (it would be read as an option): {value:?}"
            ));
        }
        // An init script is found by name under /etc/init.d: a slash could reach any file.
        "unit" if value.contains('/') => {
            return Err(format!(
                "show_view: `unit` is a name, not a path; it cannot contain '/': {value:?}"
            ));
        }
        _ => {}
    }
    Ok(ViewRequest {
        view: params.view,
        subject: Some(value.to_owned()),
    })
}

/// Builds the view `request` asks for on `host`. An error only when the call was cancelled or
/// the connection is unusable; everything else (no such tool, no permission, time limit) is
/// part of the report.
/// `contents_allowed`: the connection lets file contents (log lines) go to the model; without
/// it the summary has counts, and the lines stay in the report for the user.
pub async fn show(
    request: &ViewRequest,
    host: ViewHost<'_>,
    cancel: &CancellationToken,
    contents_allowed: bool,
) -> Result<ViewReport, String> {
    let runner = Runner::new(host, cancel.clone(), contents_allowed, VIEW_TIME_LIMIT);
    report(request, &runner).await
}

/// The view `request` asks for, built with `runner`'s host and time limit.
async fn report(request: &ViewRequest, runner: &Runner<'_>) -> Result<ViewReport, String> {
    let cancel = &runner.cancel;
    let subject = request.subject.as_deref();
    let built = match request.view {
        ViewKind::Processes => processes::build(runner).await,
        ViewKind::Disk => disk::build_disk(runner).await,
        ViewKind::DiskUsage => disk::build_usage(runner, subject.unwrap_or("/")).await,
        ViewKind::Ports => ports::build(runner).await,
        ViewKind::Logs => logs::build(runner, subject).await,
        ViewKind::Cron => cron::build(runner).await,
        ViewKind::Certificates => certificates::build(runner, subject).await,
        ViewKind::Services => services::build_list(runner).await,
        ViewKind::ServiceStatus => services::build_status(runner, subject.unwrap_or("")).await,
        ViewKind::Updates => updates::build(runner).await,
        ViewKind::Websites => websites::build(runner).await,
        ViewKind::Docker => docker::build_list(runner).await,
        ViewKind::DockerLogs => docker::build_logs(runner, subject.unwrap_or("")).await,
    };
    if cancel.is_cancelled() {
        return Err("cancelled".to_owned());
    }
    if let Some(lost) = runner.lost() {
        return Err(lost);
    }
    let mut gaps = runner.take_gaps();
    gaps.extend(built.gaps);
    let mut summary = built.summary;
    for gap in &gaps {
        summary.closing(format!(
            "Missing: {} ({}: {})",
            gap.what,
            gap_words(gap.reason),
            text::shorten(&gap.detail, 160)
        ));
    }
    if let ViewData::Unavailable { reason } = &built.data {
        summary.line(format!("Not available on this server: {reason}"));
    }
    let buttons = buttons::for_view(request, &built.data);
    Ok(ViewReport {
        buttons,
        view: request.view,
        subject: request.subject.as_ref().map(|s| text::clean_line(s)),
        summary: summary.finish(),
        prelude: PRELUDE.trim_end().to_owned(),
        commands: runner.commands(),
        gaps,
        data: built.data,
    })
}

fn gap_words(reason: GapReason) -> &'static str {
    match reason {
        GapReason::NotInstalled => "not installed",
        GapReason::Permission => "no permission",
        GapReason::TimeLimit => "time limit",
        GapReason::Failed => "failed",
    }
}

/// What a view module returns.
pub(crate) struct Built {
    pub data: ViewData,
    pub summary: text::Summary,
    pub gaps: Vec<ViewGap>,
}

impl Built {
    fn new(data: ViewData, summary: text::Summary) -> Built {
        Built {
            data,
            summary,
            gaps: Vec::new(),
        }
    }

    fn unavailable(reason: impl Into<String>) -> Built {
        Built::new(
            ViewData::Unavailable {
                reason: reason.into(),
            },
            text::Summary::default(),
        )
    }
}

/// What one command produced.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ran {
    pub stdout: String,
    /// Cleaned, at most a few lines.
    pub stderr: String,
    pub exit: Option<u32>,
    /// Stopped by the view's time limit.
    pub timed_out: bool,
}

/// The shell's status for "command not found".
const NOT_FOUND: u32 = 127;

impl Ran {
    pub fn ok(&self) -> bool {
        self.exit == Some(0)
    }

    /// The program is not there.
    pub fn missing(&self) -> bool {
        self.exit == Some(NOT_FOUND)
    }

    /// The error output says the login user may not do this.
    pub fn denied(&self) -> bool {
        let lower = self.stderr.to_lowercase();
        lower.contains("permission denied")
            || lower.contains("operation not permitted")
            || lower.contains("access denied")
    }

    /// The first line of the error output, or a description of the status.
    pub fn why(&self) -> String {
        if self.timed_out {
            return format!(
                "stopped after the view's {} s limit",
                VIEW_TIME_LIMIT.as_secs()
            );
        }
        match self.stderr.lines().find(|line| !line.trim().is_empty()) {
            Some(line) => text::shorten(line.trim(), 200),
            None => match self.exit {
                Some(code) => format!("exit status {code}"),
                None => "ended without a status".to_owned(),
            },
        }
    }

    /// The gap this command leaves when it did not succeed: time limit, permission, missing
    /// program or failure.
    pub fn gap(&self, what: impl Into<String>) -> ViewGap {
        let reason = if self.timed_out {
            GapReason::TimeLimit
        } else if self.missing() {
            GapReason::NotInstalled
        } else if self.denied() {
            GapReason::Permission
        } else {
            GapReason::Failed
        };
        ViewGap {
            what: what.into(),
            reason,
            detail: self.why(),
        }
    }
}

/// Runs a view's commands and records them (see the module docs).
pub(crate) struct Runner<'a> {
    host: ViewHost<'a>,
    cancel: CancellationToken,
    deadline: tokio::time::Instant,
    log: Mutex<Vec<Option<ViewCommand>>>,
    gaps: Mutex<Vec<ViewGap>>,
    lost: Mutex<Option<String>>,
    contents_allowed: bool,
}

/// Most bytes of one command's output kept (a view that needs more reads less).
const MAX_OUTPUT: usize = 8 * 1024 * 1024;

impl<'a> Runner<'a> {
    fn new(
        host: ViewHost<'a>,
        cancel: CancellationToken,
        contents_allowed: bool,
        limit: Duration,
    ) -> Runner<'a> {
        Runner {
            contents_allowed,
            host,
            cancel,
            deadline: tokio::time::Instant::now() + limit,
            log: Mutex::default(),
            gaps: Mutex::default(),
            lost: Mutex::default(),
        }
    }

    /// Runs `command` (after [`PRELUDE`]) and waits for it, within what is left of the view's
    /// time limit.
    pub async fn run(&self, command: &str) -> Ran {
        let slot = {
            let mut log = lock(&self.log);
            log.push(None);
            log.len() - 1
        };
        let started = Instant::now();
        let line = format!("{PRELUDE}{command}");
        let work = async {
            match self.host {
                ViewHost::Ssh(ssh) => ssh
                    .exec(&line)
                    .await
                    .map(|out| (out.stdout, out.stderr, out.exit_status))
                    .map_err(|error| error.to_string()),
                ViewHost::Local => run_locally(&line).await,
                #[cfg(test)]
                ViewHost::Scripted(script) => {
                    let (stdout, stderr, exit, delay) = script(command);
                    tokio::time::sleep(delay).await;
                    Ok((stdout.into_bytes(), stderr.into_bytes(), exit))
                }
            }
        };
        let mut ran = Ran::default();
        tokio::select! {
            result = tokio::time::timeout_at(self.deadline, work) => match result {
                Ok(Ok((stdout, stderr, exit))) => {
                    let keep = stdout.len().min(MAX_OUTPUT);
                    ran.stdout = String::from_utf8_lossy(&stdout[..keep]).into_owned();
                    let stderr = String::from_utf8_lossy(&stderr[..stderr.len().min(4096)]).into_owned();
                    ran.stderr = text::clean(&stderr, true);
                    ran.exit = exit;
                }
                Ok(Err(error)) => {
                    lock(&self.lost).get_or_insert(error.clone());
                    ran.stderr = error;
                }
                Err(_) => ran.timed_out = true,
            },
            () = self.cancel.cancelled() => ran.timed_out = false,
        }
        let entry = ViewCommand {
            command: command.to_owned(),
            exit_code: ran.exit,
            duration_ms: started.elapsed().as_millis() as u64,
        };
        if let Some(place) = lock(&self.log).get_mut(slot) {
            *place = Some(entry);
        }
        ran
    }

    /// Runs `commands` at the same time, each on its own channel; answers in the same order.
    pub async fn run_all(&self, commands: &[String]) -> Vec<Ran> {
        futures::future::join_all(commands.iter().map(|command| self.run(command))).await
    }

    /// Whether log lines may go into the model's summary.
    pub fn contents_allowed(&self) -> bool {
        self.contents_allowed
    }

    /// Notes something the view could not show.
    pub fn gap(&self, gap: ViewGap) {
        lock(&self.gaps).push(gap);
    }

    fn take_gaps(&self) -> Vec<ViewGap> {
        std::mem::take(&mut *lock(&self.gaps))
    }

    fn commands(&self) -> Vec<ViewCommand> {
        lock(&self.log).iter().flatten().cloned().collect()
    }

    /// Why the connection failed, if it did.
    fn lost(&self) -> Option<String> {
        lock(&self.lost).clone()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

type LocalOutput = Result<(Vec<u8>, Vec<u8>, Option<u32>), String>;

async fn run_locally(line: &str) -> LocalOutput {
    let output = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(line)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|error| format!("could not run sh on this computer: {error}"))?;
    let exit = output
        .status
        .code()
        .and_then(|code| u32::try_from(code).ok());
    Ok((output.stdout, output.stderr, exit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn params(
        view: ViewKind,
        container: Option<&str>,
        unit: Option<&str>,
        path: Option<&str>,
    ) -> ShowViewParams {
        ShowViewParams {
            view,
            container: container.map(str::to_owned),
            unit: unit.map(str::to_owned),
            path: path.map(str::to_owned),
        }
    }

    /// A host where nothing is installed but what `answer` knows (else "not found", 127).
    async fn scripted(
        view: ViewKind,
        subject: Option<&str>,
        limit: Duration,
        answer: &(dyn Fn(&str) -> Option<ScriptedRun> + Sync),
    ) -> ViewReport {
        let script = |command: &str| {
            answer(command).unwrap_or_else(|| {
                let program = command.split_whitespace().next().unwrap_or_default();
                (
                    String::new(),
                    format!("sh: 1: {program}: not found\n"),
                    Some(NOT_FOUND),
                    Duration::ZERO,
                )
            })
        };
        let runner = Runner::new(
            ViewHost::Scripted(&script),
            CancellationToken::new(),
            false,
            limit,
        );
        let request = ViewRequest {
            view,
            subject: subject.map(str::to_owned),
        };
        report(&request, &runner).await.unwrap()
    }

    #[tokio::test]
    async fn a_server_without_the_tools_gets_not_available() {
        // systemctl is installed but systemd does not run; no rc-status, no service.
        let no_systemd = |command: &str| {
            command.starts_with("systemctl").then(|| {
                (
                    String::new(),
                    "System has not been booted with systemd as init system (PID 1). Can't operate.\n\
                     Failed to connect to bus: Host is down\n"
                        .to_owned(),
                    Some(1),
                    Duration::ZERO,
                )
            })
        };
        for (view, subject, reason) in [
            (
                ViewKind::Services,
                None,
                "no service manager: systemd is not running",
            ),
            (
                ViewKind::ServiceStatus,
                Some("nginx"),
                "no service manager: systemd is not running",
            ),
            (ViewKind::Docker, None, "there is no `docker` command"),
            (
                ViewKind::DockerLogs,
                Some("web"),
                "there is no `docker` command",
            ),
            (ViewKind::Updates, None, "no apt, dnf, apk or pacman"),
            (ViewKind::Ports, None, "there is no `ss` command"),
            (ViewKind::Websites, None, "no nginx configuration"),
        ] {
            let report = scripted(view, subject, VIEW_TIME_LIMIT, &no_systemd).await;
            let ViewData::Unavailable { reason: said } = &report.data else {
                panic!("{view:?}: {report:?}")
            };
            assert!(said.starts_with(reason), "{view:?}: {said}");
            assert!(
                report.summary.contains("Not available on this server: "),
                "{}",
                report.summary
            );
        }
    }

    #[tokio::test]
    async fn what_the_time_limit_stopped_is_named() {
        let slow_ps = |command: &str| {
            let quick = |out: &str| Some((out.to_owned(), String::new(), Some(0), Duration::ZERO));
            match command {
                c if c.starts_with("ps ") => Some((
                    "1 root 0.0 0.0 1 1 S init\n".to_owned(),
                    String::new(),
                    Some(0),
                    Duration::from_secs(5),
                )),
                "getconf _NPROCESSORS_ONLN" => quick("2\n"),
                c if c.starts_with("cat /proc") => {
                    quick("0.10 0.20 0.30 1/50 9\nMemTotal: 1000 kB\nMemAvailable: 900 kB\n")
                }
                _ => None,
            }
        };
        let report = scripted(
            ViewKind::Processes,
            None,
            Duration::from_millis(200),
            &slow_ps,
        )
        .await;
        assert_eq!(report.gaps.len(), 1, "{report:?}");
        assert_eq!(report.gaps[0].reason, GapReason::TimeLimit);
        assert_eq!(report.gaps[0].what, "the process list");
        assert_eq!(report.commands[0].exit_code, None);
        assert!(
            report.summary.ends_with(
                "Missing: the process list (time limit: stopped after the view's 15 s limit)"
            ),
            "{}",
            report.summary
        );
        let ViewData::Processes(view) = &report.data else {
            panic!("{report:?}")
        };
        assert_eq!(view.cores, Some(2));
        assert!(view.processes.is_empty());
    }

    #[test]
    fn parameters_are_checked_and_named() {
        assert_eq!(
            check(&params(ViewKind::DockerLogs, None, None, None)).unwrap_err(),
            "show_view: the docker_logs view needs `container`: a container name or id"
        );
        assert_eq!(
            check(&params(ViewKind::ServiceStatus, None, None, Some("/x"))).unwrap_err(),
            "show_view: the service_status view takes `unit`, not `path`"
        );
        assert_eq!(
            check(&params(ViewKind::Disk, None, Some("x"), None)).unwrap_err(),
            "show_view: the disk view takes no `unit`"
        );
        assert!(
            check(&params(ViewKind::DiskUsage, None, None, Some("var")))
                .unwrap_err()
                .contains("must be absolute")
        );
        assert!(
            check(&params(
                ViewKind::ServiceStatus,
                None,
                Some("../../tmp/x"),
                None
            ))
            .unwrap_err()
            .contains("cannot contain '/'")
        );
        assert!(
            check(&params(ViewKind::DockerLogs, Some("--help"), None, None))
                .unwrap_err()
                .contains("cannot start with '-'")
        );
        assert_eq!(
            check(&params(ViewKind::Logs, None, None, None)).unwrap(),
            ViewRequest {
                view: ViewKind::Logs,
                subject: None
            }
        );
        let hostile = "x'$(touch /tmp/p)`id`\n\u{1b}[2J";
        assert_eq!(
            check(&params(ViewKind::DockerLogs, Some(hostile), None, None))
                .unwrap()
                .subject
                .as_deref(),
            Some(hostile)
        );
    }
}
