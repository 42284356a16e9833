//! services and service_status. With systemd: `systemctl list-units --type=service --all -o
//! json`, `systemctl show` and the unit's journal. Where systemd does not run (containers, old
//! or other init systems): OpenRC's `rc-status --all` or SysV's `service --status-all`, and
//! `rc-service NAME status` / `service NAME status` for one service. Failed services lead.

use super::logs::parse_journal;
use super::text::{Summary, clean_line, quote, shorten};
use super::{Built, Runner};
use kaiport_protocol::{
    GapReason, LogLine, ServiceManager, ServiceRow, ServiceState, ServiceStatusView, ServicesView,
    ViewData, ViewGap,
};

const LIST_UNITS: &str = "systemctl list-units --type=service --all --no-pager -o json";
const LIST_UNITS_PLAIN: &str =
    "systemctl list-units --type=service --all --no-pager --no-legend --plain";
const RC_STATUS: &str = "rc-status --all";
const SERVICE_ALL: &str = "service --status-all 2>&1";
const SHOW_PROPERTIES: &str = "Id,Description,LoadState,ActiveState,SubState,Result,MainPID,\
     ActiveEnterTimestamp,StateChangeTimestamp,ExecMainStatus,NRestarts,FragmentPath,UnitFileState";
/// Journal lines of service_status.
const UNIT_LOG_LINES: u32 = 50;

/// systemctl's words when systemd is not the running init.
fn systemd_absent(ran: &super::Ran) -> bool {
    ran.missing()
        || ran.stderr.contains("not been booted with systemd")
        || ran.stderr.contains("Failed to connect to bus")
        || ran.stderr.contains("Host is down")
}

pub(super) async fn build_list(runner: &Runner<'_>) -> Built {
    let units = runner.run(LIST_UNITS).await;
    let (manager, mut services) = if !systemd_absent(&units) {
        let mut rows = parse_units_json(&units.stdout);
        if rows.is_none() {
            // systemd before JSON output (< 246).
            let plain = runner.run(LIST_UNITS_PLAIN).await;
            if !plain.ok() {
                runner.gap(plain.gap("the service list"));
            }
            rows = Some(parse_units_plain(&plain.stdout));
        }
        (ServiceManager::Systemd, rows.unwrap_or_default())
    } else {
        let ran = runner
            .run_all(&[RC_STATUS.to_owned(), SERVICE_ALL.to_owned()])
            .await;
        let (openrc, sysv) = (&ran[0], &ran[1]);
        if openrc.ok() {
            (ServiceManager::Openrc, parse_rc_status(&openrc.stdout))
        } else if !sysv.missing() && sysv.stdout.contains("[ ") {
            (ServiceManager::Sysv, parse_status_all(&sysv.stdout))
        } else {
            return Built::unavailable(
                "no service manager: systemd is not running, and there is no rc-status (OpenRC) or \
                 service (SysV init)",
            );
        }
    };
    services.sort_by(|a, b| {
        (a.state != ServiceState::Failed, a.name.as_str())
            .cmp(&(b.state != ServiceState::Failed, b.name.as_str()))
    });
    let summary = summarise_list(manager, &services);
    Built::new(
        ViewData::Services(ServicesView { manager, services }),
        summary,
    )
}

fn systemd_state(active: &str) -> ServiceState {
    match active {
        "active" => ServiceState::Running,
        "inactive" => ServiceState::Stopped,
        "failed" => ServiceState::Failed,
        _ => ServiceState::Other,
    }
}

fn parse_units_json(output: &str) -> Option<Vec<ServiceRow>> {
    let items: Vec<serde_json::Value> = serde_json::from_str(output).ok()?;
    Some(
        items
            .iter()
            .filter_map(|item| {
                let field = |key: &str| item.get(key).and_then(|v| v.as_str()).unwrap_or("");
                let name = field("unit");
                if name.is_empty() {
                    return None;
                }
                Some(ServiceRow {
                    name: clean_line(name),
                    state: systemd_state(field("active")),
                    detail: clean_line(&format!("{} ({})", field("active"), field("sub"))),
                    description: Some(clean_line(field("description"))).filter(|d| !d.is_empty()),
                })
            })
            .collect(),
    )
}

fn parse_units_plain(output: &str) -> Vec<ServiceRow> {
    output
        .lines()
        .filter_map(|line| {
            let (fields, description) =
                super::processes::leading_fields::<4>(line.trim_start_matches(['●', '*', ' ']))?;
            Some(ServiceRow {
                name: clean_line(fields[0]),
                state: systemd_state(fields[2]),
                detail: clean_line(&format!("{} ({})", fields[2], fields[3])),
                description: Some(clean_line(description.trim())).filter(|d| !d.is_empty()),
            })
        })
        .collect()
}

/// `service --status-all`: ` [ + ]  cron`, ` [ - ]  nginx`, ` [ ? ]  hwclock.sh`.
pub(super) fn parse_status_all(output: &str) -> Vec<ServiceRow> {
    output
        .lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("[ ")?;
            let (mark, name) = rest.split_once(" ]")?;
            let state = match mark.trim() {
                "+" => ServiceState::Running,
                "-" => ServiceState::Stopped,
                _ => ServiceState::Other,
            };
            let name = clean_line(name.trim());
            (!name.is_empty()).then(|| ServiceRow {
                name,
                state,
                detail: format!("[ {} ]", mark.trim()),
                description: None,
            })
        })
        .collect()
}

/// `rc-status --all`: ` sshd   [  started  ]` under `Runlevel:` headers.
fn parse_rc_status(output: &str) -> Vec<ServiceRow> {
    let mut rows: Vec<ServiceRow> = output
        .lines()
        .filter_map(|line| {
            let (name, rest) = line.trim().split_once(char::is_whitespace)?;
            let word = rest.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
            let state = match word {
                "started" => ServiceState::Running,
                "stopped" => ServiceState::Stopped,
                "crashed" => ServiceState::Failed,
                _ => ServiceState::Other,
            };
            Some(ServiceRow {
                name: clean_line(name),
                state,
                detail: clean_line(word),
                description: None,
            })
        })
        .collect();
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    rows.dedup_by(|a, b| a.name == b.name);
    rows
}

fn manager_name(manager: ServiceManager) -> &'static str {
    match manager {
        ServiceManager::Systemd => "systemd",
        ServiceManager::Openrc => "OpenRC",
        ServiceManager::Sysv => "SysV init (service --status-all)",
    }
}

fn summarise_list(manager: ServiceManager, services: &[ServiceRow]) -> Summary {
    let mut summary = Summary::default();
    let count = |state| services.iter().filter(|s| s.state == state).count();
    let failed: Vec<&ServiceRow> = services
        .iter()
        .filter(|s| s.state == ServiceState::Failed)
        .collect();
    if !failed.is_empty() {
        summary.line(format!(
            "FAILED: {}",
            failed
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    summary.line(format!(
        "{}: {} services, {} running, {} stopped, {} failed, {} other",
        manager_name(manager),
        services.len(),
        count(ServiceState::Running),
        count(ServiceState::Stopped),
        count(ServiceState::Failed),
        count(ServiceState::Other)
    ));
    let running: Vec<&str> = services
        .iter()
        .filter(|s| s.state == ServiceState::Running)
        .map(|s| s.name.as_str())
        .collect();
    if !running.is_empty() {
        summary.line(format!("Running: {}", running.join(", ")));
    }
    summary
}

pub(super) async fn build_status(runner: &Runner<'_>, unit: &str) -> Built {
    let word = quote(unit);
    let ran = runner
        .run_all(&[
            format!("systemctl show --no-pager -p {SHOW_PROPERTIES} -- {word}"),
            format!("journalctl -u {word} -n {UNIT_LOG_LINES} --no-pager -o json"),
        ])
        .await;
    let (show, journal) = (&ran[0], &ran[1]);
    let view = if !systemd_absent(show) {
        if !show.ok() {
            runner.gap(show.gap("the unit's properties"));
        }
        let properties: Vec<(String, String)> = show
            .stdout
            .lines()
            .filter_map(|line| line.split_once('='))
            .map(|(key, value)| (clean_line(key), clean_line(value)))
            .collect();
        let get = |key: &str| {
            properties
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str())
                .unwrap_or("")
        };
        let state = systemd_state(get("ActiveState"));
        let since = Some(get("StateChangeTimestamp").to_owned()).filter(|s| !s.is_empty());
        let log = parse_journal(&journal.stdout);
        if journal.stderr.contains("not seeing messages") || (log.is_empty() && journal.denied()) {
            runner.gap(ViewGap {
                what: "the unit's journal lines".to_owned(),
                reason: GapReason::Permission,
                detail:
                    "the login user may not read the system journal (groups adm, systemd-journal)"
                        .to_owned(),
            });
        }
        ServiceStatusView {
            unit: clean_line(unit),
            manager: ServiceManager::Systemd,
            state,
            properties,
            since,
            log,
        }
    } else {
        let ran = runner
            .run_all(&[
                format!("rc-service {word} status 2>&1"),
                format!("service {word} status 2>&1"),
            ])
            .await;
        let (openrc, sysv) = (&ran[0], &ran[1]);
        let (manager, out) = if !openrc.missing() {
            (ServiceManager::Openrc, openrc)
        } else if !sysv.missing() {
            (ServiceManager::Sysv, sysv)
        } else {
            return Built::unavailable(
                "no service manager: systemd is not running, and there is no rc-service or service command",
            );
        };
        // LSB status codes: 0 running, 1–3 not running, 4 unknown.
        let state = match out.exit {
            Some(0) => ServiceState::Running,
            Some(1..=3) => ServiceState::Stopped,
            _ => ServiceState::Other,
        };
        let text: Vec<String> = out
            .stdout
            .lines()
            .map(clean_line)
            .filter(|l| !l.trim().is_empty())
            .take(40)
            .collect();
        ServiceStatusView {
            unit: clean_line(unit),
            manager,
            state,
            properties: vec![("status".to_owned(), text.join("\n"))],
            since: None,
            log: Vec::<LogLine>::new(),
        }
    };
    let summary = summarise_status(&view, runner.contents_allowed());
    Built::new(ViewData::ServiceStatus(view), summary)
}

fn summarise_status(view: &ServiceStatusView, contents_allowed: bool) -> Summary {
    let mut summary = Summary::default();
    let state = match view.state {
        ServiceState::Running => "running",
        ServiceState::Stopped => "stopped",
        ServiceState::Failed => "FAILED",
        ServiceState::Other => "in another state",
    };
    let get = |key: &str| {
        view.properties
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    if get("LoadState") == Some("not-found") {
        summary.line(format!("{}: no such unit", view.unit));
        return summary;
    }
    summary.line(format!(
        "{} is {state}{} ({})",
        view.unit,
        view.since
            .as_deref()
            .map(|s| format!(" since {s}"))
            .unwrap_or_default(),
        manager_name(view.manager)
    ));
    for key in [
        "SubState",
        "Result",
        "MainPID",
        "ExecMainStatus",
        "NRestarts",
        "UnitFileState",
    ] {
        if let Some(value) = get(key) {
            summary.line(format!("  {key}={value}"));
        }
    }
    if let Some(status) = get("status") {
        summary.line(format!("  {}", shorten(status, 400)));
    }
    if !view.log.is_empty() {
        if contents_allowed {
            summary.line("Last log lines:");
            let skip = view.log.len().saturating_sub(8);
            for line in view.log.iter().skip(skip) {
                summary.line(format!("  {}", shorten(&line.text, 200)));
            }
        } else {
            summary.line(format!(
                "{} journal lines are shown to the user only (setting send_file_contents is off)",
                view.log.len()
            ));
        }
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn service_lists_of_each_manager_parse() {
        let rows = parse_status_all(" [ + ]  cron\n [ - ]  nginx\n [ ? ]  hwclock.sh\nnoise\n");
        assert_eq!(
            rows.iter()
                .map(|r| (r.name.as_str(), r.state))
                .collect::<Vec<_>>(),
            vec![
                ("cron", ServiceState::Running),
                ("nginx", ServiceState::Stopped),
                ("hwclock.sh", ServiceState::Other)
            ]
        );
        let json = r#"[{"unit":"ssh.service","load":"loaded","active":"active","sub":"running","description":"OpenBSD Secure Shell server"},{"unit":"bad.service","load":"loaded","active":"failed","sub":"failed","description":""}]"#;
        let rows = parse_units_json(json).unwrap();
        assert_eq!(rows[1].state, ServiceState::Failed);
        let text = summarise_list(ServiceManager::Systemd, &rows).finish();
        assert!(text.starts_with("FAILED: bad.service"), "{text}");
        let rc = parse_rc_status(
            "Runlevel: default\n sshd     [  started  ]\n crond    [  crashed  ]\n",
        );
        assert_eq!(
            rc.iter().map(|r| r.state).collect::<Vec<_>>(),
            vec![ServiceState::Failed, ServiceState::Running]
        );
        let plain =
            parse_units_plain("ssh.service loaded active running OpenBSD Secure Shell server\n");
        assert_eq!(
            plain[0].description.as_deref(),
            Some("OpenBSD Secure Shell server")
        );
    }
}
