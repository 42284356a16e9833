//! The user's buttons of a view (docker start/stop/restart, service start/stop/restart/reload,
//! kill TERM, follow a log) and the one command line each types into the user's terminal.
//!
//! A button's command is derived from its [`ButtonAction`] alone ([`command`]); the engine
//! derives it again when the user presses it and types it only when it is what the user was
//! shown. Names are quoted as data like every view parameter. Buttons are never offered to the
//! model: they are in the report for the UI, not in the summary.

use super::ViewRequest;
use super::text::quote;
use kaiport_protocol::tools::ViewKind;
use kaiport_protocol::{
    ButtonAction, ContainerVerb, ServiceManager, ServiceState, ServiceVerb, ViewButton, ViewData,
};

/// Lines of a log shown before following it.
const FOLLOW_LINES: u32 = 50;

fn container_verb(verb: ContainerVerb) -> &'static str {
    match verb {
        ContainerVerb::Start => "start",
        ContainerVerb::Stop => "stop",
        ContainerVerb::Restart => "restart",
    }
}

fn service_verb(verb: ServiceVerb) -> &'static str {
    match verb {
        ServiceVerb::Start => "start",
        ServiceVerb::Stop => "stop",
        ServiceVerb::Restart => "restart",
        ServiceVerb::Reload => "reload",
    }
}

/// A name that goes after the program's options; an init script name never holds a slash.
fn checked_name(name: &str, what: &str) -> Result<(), String> {
    if name.is_empty() || name.starts_with('-') || name.contains('/') || name.contains('\0') {
        return Err(format!("{what} {name:?} is not a name a button can use"));
    }
    Ok(())
}

/// The command line a button types (see the module docs).
pub fn command(action: &ButtonAction) -> Result<String, String> {
    Ok(match action {
        ButtonAction::Container { verb, container } => {
            checked_name(container, "container")?;
            format!("docker {} -- {}", container_verb(*verb), quote(container))
        }
        ButtonAction::Service {
            verb,
            manager,
            name,
        } => {
            checked_name(name, "service")?;
            let verb = service_verb(*verb);
            match manager {
                ServiceManager::Systemd => format!("sudo systemctl {verb} -- {}", quote(name)),
                ServiceManager::Openrc => format!("sudo rc-service {} {verb}", quote(name)),
                ServiceManager::Sysv => format!("sudo service {} {verb}", quote(name)),
            }
        }
        ButtonAction::Kill { pid } => {
            if *pid <= 1 {
                return Err(format!("process {pid} cannot be killed from a view"));
            }
            format!("kill -TERM {pid}")
        }
        ButtonAction::FollowFile { path } => {
            if !path.starts_with('/') || path.contains('\0') {
                return Err(format!("{path:?} is not an absolute path"));
            }
            format!("tail -F -n {FOLLOW_LINES} -- {}", quote(path))
        }
        ButtonAction::FollowJournal { unit: None } => format!("journalctl -f -n {FOLLOW_LINES}"),
        ButtonAction::FollowJournal { unit: Some(unit) } => {
            checked_name(unit, "unit")?;
            format!("journalctl -f -n {FOLLOW_LINES} -u {}", quote(unit))
        }
        ButtonAction::FollowContainer { container } => {
            checked_name(container, "container")?;
            format!(
                "docker logs -f --tail {FOLLOW_LINES} -- {}",
                quote(container)
            )
        }
    })
}

fn button(label: String, action: ButtonAction) -> Option<ViewButton> {
    let command = command(&action).ok()?;
    Some(ViewButton {
        label,
        action,
        command,
    })
}

fn service_buttons(
    manager: ServiceManager,
    name: &str,
    state: ServiceState,
) -> impl Iterator<Item = ViewButton> {
    let verbs: &[ServiceVerb] = match state {
        ServiceState::Running => &[ServiceVerb::Restart, ServiceVerb::Reload, ServiceVerb::Stop],
        ServiceState::Stopped | ServiceState::Failed => &[ServiceVerb::Start, ServiceVerb::Restart],
        ServiceState::Other => &[ServiceVerb::Start, ServiceVerb::Stop, ServiceVerb::Restart],
    };
    let name = name.to_owned();
    verbs.iter().filter_map(move |verb| {
        button(
            format!("{} {name}", service_verb(*verb)),
            ButtonAction::Service {
                verb: *verb,
                manager,
                name: name.clone(),
            },
        )
    })
}

/// The buttons of a built view. Row names come from the server's structured output; the
/// subject (the path, container or unit asked for) is used as given, not as cleaned for show.
pub fn for_view(request: &ViewRequest, data: &ViewData) -> Vec<ViewButton> {
    let subject = request.subject.as_deref();
    match data {
        ViewData::Docker(view) => view
            .containers
            .iter()
            .flat_map(|c| {
                let verbs: &[ContainerVerb] = if c.state == "running" {
                    &[ContainerVerb::Restart, ContainerVerb::Stop]
                } else {
                    &[ContainerVerb::Start]
                };
                verbs.iter().filter_map(|verb| {
                    button(
                        format!("{} {}", container_verb(*verb), c.name),
                        ButtonAction::Container {
                            verb: *verb,
                            container: c.name.clone(),
                        },
                    )
                })
            })
            .collect(),
        ViewData::Services(view) => view
            .services
            .iter()
            .flat_map(|s| service_buttons(view.manager, &s.name, s.state))
            .collect(),
        ViewData::ServiceStatus(view) => {
            let unit = subject.unwrap_or(&view.unit);
            let mut buttons: Vec<ViewButton> =
                service_buttons(view.manager, unit, view.state).collect();
            if view.manager == ServiceManager::Systemd {
                buttons.extend(button(
                    format!("follow the log of {unit}"),
                    ButtonAction::FollowJournal {
                        unit: Some(unit.to_owned()),
                    },
                ));
            }
            buttons
        }
        ViewData::Processes(view) => view
            .processes
            .iter()
            .filter_map(|p| {
                button(
                    format!(
                        "kill (TERM) {} {}",
                        p.pid,
                        super::text::shorten(&p.command, 40)
                    ),
                    ButtonAction::Kill { pid: p.pid },
                )
            })
            .collect(),
        ViewData::Logs(view) => {
            let action = match (request.view, subject) {
                (ViewKind::DockerLogs, Some(container)) => ButtonAction::FollowContainer {
                    container: container.to_owned(),
                },
                (_, Some(path)) => ButtonAction::FollowFile {
                    path: path.to_owned(),
                },
                (_, None) if view.source.starts_with('/') => ButtonAction::FollowFile {
                    path: view.source.clone(),
                },
                (_, None) => ButtonAction::FollowJournal { unit: None },
            };
            button(format!("follow {}", view.source), action)
                .into_iter()
                .collect()
        }
        ViewData::Unavailable { .. }
        | ViewData::Disk(_)
        | ViewData::DiskUsage(_)
        | ViewData::Ports(_)
        | ViewData::Cron(_)
        | ViewData::Certificates(_)
        | ViewData::Updates(_)
        | ViewData::Websites(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn button_commands_quote_names_and_refuse_paths() {
        assert_eq!(
            command(&ButtonAction::Container {
                verb: ContainerVerb::Restart,
                container: "web".into()
            })
            .unwrap(),
            "docker restart -- 'web'"
        );
        assert_eq!(
            command(&ButtonAction::Service {
                verb: ServiceVerb::Reload,
                manager: ServiceManager::Sysv,
                name: "x'$(id)".into()
            })
            .unwrap(),
            r"sudo service 'x'\''$(id)' reload"
        );
        assert!(
            command(&ButtonAction::Service {
                verb: ServiceVerb::Start,
                manager: ServiceManager::Sysv,
                name: "../../tmp/evil".into()
            })
            .is_err()
        );
        assert!(command(&ButtonAction::Kill { pid: 1 }).is_err());
        assert_eq!(
            command(&ButtonAction::FollowJournal { unit: None }).unwrap(),
            "journalctl -f -n 50"
        );
    }
}
