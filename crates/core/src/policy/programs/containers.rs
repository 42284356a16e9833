//! Containers and clusters: docker, podman, nerdctl, kubectl, oc, helm.
//!
//! What runs in a container or pod (`docker exec CTR cmd`, `docker run IMG cmd`, `kubectl exec POD
//! -- cmd`) is analysed as if typed; options that give a container the host (`--privileged`, a bind
//! mount of `/` or a lock-out path, `--pid=host`, `--cap-add`) ask; `docker cp`/`kubectl cp` to this
//! host write. Dangerous: `docker system prune`, `docker volume rm/prune`, `kubectl delete`,
//! `helm uninstall`.
//!
//! The option lists of these programs are not complete yet (`@loose`): an option they do not list
//! is not a reason to ask, except in `docker run/create/exec`, where an unknown option would hide
//! which word is the image.

use super::super::paths::{lockout_match, normalise_path};
use super::args::Call;
use super::common::{has_any, positional};
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["docker", "podman", "nerdctl"],
        family: "containers",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(docker_hook),
    },
    Spec {
        names: &["kubectl", "oc"],
        family: "containers",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(kubectl_hook),
    },
    Spec {
        names: &["helm"],
        family: "containers",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(helm),
    },
];

fn not_read_only(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.not_read_only(format!(
        "`{}` is not read-only with these arguments (plan mode allows only reading forms)",
        call.display()
    ));
}

fn docker_hook(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    docker(call.name, args, verdict);
    let display = call.display();
    let first = positional(args).first().copied().unwrap_or_default();
    if first == "system" && has_any(args, &["prune"]) {
        verdict.dangerous(
            &display,
            "removes all unused containers, images and networks",
        );
    }
    if first == "volume" && has_any(args, &["rm", "prune", "remove"]) {
        verdict.dangerous(&display, "removes data volumes");
    }
    let reads = matches!(
        first,
        "ps" | "images"
            | "logs"
            | "inspect"
            | "version"
            | "info"
            | "top"
            | "port"
            | "diff"
            | "history"
            | "events"
            | "search"
    ) || (first == "stats" && has_any(args, &["--no-stream"]))
        || (matches!(
            first,
            "container" | "image" | "volume" | "network" | "compose" | "system"
        ) && has_any(
            args,
            &[
                "ls", "ps", "inspect", "logs", "df", "config", "images", "list",
            ],
        ));
    if !reads {
        not_read_only(call, verdict);
    }
}

fn kubectl_hook(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    kubectl(call.name, args, verdict);
    let display = call.display();
    if has_any(args, &["delete"]) {
        verdict.dangerous(&display, "deletes Kubernetes resources");
    }
    let first = positional(args).first().copied().unwrap_or_default();
    let reads = matches!(
        first,
        "get"
            | "describe"
            | "logs"
            | "top"
            | "version"
            | "explain"
            | "api-resources"
            | "api-versions"
            | "cluster-info"
            | "events"
    ) || (first == "config"
        && has_any(args, &["view", "get-contexts", "current-context"]))
        || (first == "auth" && has_any(args, &["can-i"]));
    if !reads {
        not_read_only(call, verdict);
    }
}

fn helm(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    if has_any(args, &["uninstall", "delete"]) {
        verdict.dangerous(&call.display(), "uninstalls a Helm release");
    }
    let first = positional(args).first().copied().unwrap_or_default();
    if !matches!(
        first,
        "list" | "ls" | "status" | "history" | "get" | "show" | "search" | "version" | "env"
    ) {
        not_read_only(call, verdict);
    }
}

/// Host folders whose bind mount gives a container the host (or a lock-out file).
fn risky_host_path(path: &str) -> bool {
    let path = normalise_path(path, None);
    if !path.starts_with('/') && !path.starts_with('~') {
        return false; // a named volume
    }
    let system = [
        "/",
        "/etc",
        "/root",
        "/home",
        "/boot",
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/lib64",
        "/proc",
        "/sys",
        "/dev",
        "/run",
        "/var/run",
        "/var/lib",
        "/var/spool",
    ];
    system.contains(&path.as_str())
        || path.contains("docker.sock")
        || path.contains("containerd.sock")
        || path.starts_with("/etc/")
        || path.starts_with("/boot/")
        || path.starts_with("/usr/")
        || path.starts_with("/bin/")
        || path.starts_with("/sbin/")
        || path.starts_with("/lib")
        || path.starts_with("/root/")
        || path.starts_with("/proc/")
        || path.starts_with("/sys/")
        || path.starts_with("/dev/")
        || path == "~"
        || lockout_match(&path, true).is_some()
}

/// docker run/create/exec value options (everything else there is a flag or unknown).
const DOCKER_RUN_VALUES: &[&str] = &[
    "-a",
    "--attach",
    "--add-host",
    "--annotation",
    "--blkio-weight",
    "--blkio-weight-device",
    "--cgroup-parent",
    "--cidfile",
    "--cpu-period",
    "--cpu-quota",
    "--cpu-rt-period",
    "--cpu-rt-runtime",
    "-c",
    "--cpu-shares",
    "--cpus",
    "--cpuset-cpus",
    "--cpuset-mems",
    "--detach-keys",
    "--device-cgroup-rule",
    "--device-read-bps",
    "--device-read-iops",
    "--device-write-bps",
    "--device-write-iops",
    "--dns",
    "--dns-option",
    "--dns-search",
    "--domainname",
    "-e",
    "--env",
    "--env-file",
    "--expose",
    "--gpus",
    "--group-add",
    "--health-cmd",
    "--health-interval",
    "--health-retries",
    "--health-start-period",
    "--health-timeout",
    "-h",
    "--hostname",
    "--ip",
    "--ip6",
    "--isolation",
    "--kernel-memory",
    "-l",
    "--label",
    "--label-file",
    "--link",
    "--link-local-ip",
    "--log-driver",
    "--log-opt",
    "--mac-address",
    "-m",
    "--memory",
    "--memory-reservation",
    "--memory-swap",
    "--memory-swappiness",
    "--name",
    "--network",
    "--net",
    "--network-alias",
    "--oom-score-adj",
    "--pids-limit",
    "--platform",
    "-p",
    "--publish",
    "--pull",
    "--restart",
    "--runtime",
    "--shm-size",
    "--stop-signal",
    "--stop-timeout",
    "--storage-opt",
    "--sysctl",
    "--tmpfs",
    "--ulimit",
    "-u",
    "--user",
    "-w",
    "--workdir",
    "--volume-driver",
    "--volumes-from",
    "--log-level",
    "--pod",
    "--arch",
    "--os",
    "--variant",
    "--userns",
    "--uts",
    "--ipc",
    "--pid",
    "--cgroupns",
    "--entrypoint",
    "-v",
    "--volume",
    "--mount",
    "--device",
    "--cap-add",
    "--cap-drop",
    "--security-opt",
];

const DOCKER_RUN_FLAGS: &[&str] = &[
    "-d",
    "--detach",
    "-i",
    "--interactive",
    "-t",
    "--tty",
    "-it",
    "-ti",
    "-dit",
    "-itd",
    "-id",
    "-td",
    "-dt",
    "--rm",
    "--init",
    "-P",
    "--publish-all",
    "--read-only",
    "-q",
    "--quiet",
    "--sig-proxy",
    "--no-healthcheck",
    "--oom-kill-disable",
    "--disable-content-trust",
    "--privileged",
    "--help",
    "--replace",
    "--tls-verify",
];

/// docker/podman: what runs in containers (analysed as typed), bind mounts of the host, and
/// options that give a container the host.
fn docker(name: &str, args: &[String], fx: &mut Verdict) {
    // Global options before the subcommand.
    let global_values = [
        "-H",
        "--host",
        "--config",
        "--context",
        "-c",
        "-l",
        "--log-level",
        "--tlscacert",
        "--tlscert",
        "--tlskey",
        "--url",
        "--connection",
        "--identity",
        "--root",
        "--runroot",
    ];
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if global_values.contains(&arg.as_str()) {
            index += 2;
        } else if arg.starts_with('-') {
            index += 1;
        } else {
            break;
        }
    }
    let Some(mut subcommand) = args.get(index).map(String::as_str) else {
        return;
    };
    if matches!(subcommand, "container" | "compose")
        && let Some(next) = args.get(index + 1)
    {
        let compose = subcommand == "compose";
        index += 1;
        subcommand = next.as_str();
        if compose && matches!(subcommand, "exec" | "run") {
            return docker_compose(name, subcommand, args, index + 1, fx);
        }
    }
    let how = format!("{name} {subcommand}");
    match subcommand {
        "run" | "create" | "exec" => {
            let mut position = index + 1;
            while let Some(arg) = args.get(position) {
                if !arg.starts_with('-') || arg == "-" {
                    break;
                }
                if arg == "--" {
                    position += 1;
                    break;
                }
                let (option, attached) = match arg.split_once('=') {
                    Some((option, value)) if option.starts_with("--") => {
                        (option, Some(value.to_owned()))
                    }
                    _ => (arg.as_str(), None),
                };
                let takes_value = DOCKER_RUN_VALUES.contains(&option);
                let value = if takes_value && attached.is_none() {
                    position += 1;
                    args.get(position).cloned()
                } else {
                    attached
                };
                if !takes_value && !DOCKER_RUN_FLAGS.contains(&option) {
                    fx.unprovable(format!(
                        "`{how} {option}` is an option this analysis does not know, so what runs cannot be told"
                    ));
                }
                docker_option(&how, option, value.as_deref().unwrap_or_default(), fx);
                position += 1;
            }
            // exec: CONTAINER CMD…; run/create: IMAGE [CMD…].
            in_container(args, position, &how, fx);
        }
        "cp" => {
            let positional: Vec<&String> = args[index + 1..]
                .iter()
                .filter(|a| !a.starts_with('-'))
                .collect();
            copies_here(&positional, &how, fx);
        }
        _ => {}
    }
}

fn docker_option(how: &str, option: &str, value: &str, fx: &mut Verdict) {
    match option {
        "-v" | "--volume" => {
            let source = value.split(':').next().unwrap_or_default();
            if source.contains('$') || source.contains('`') {
                fx.unprovable(format!(
                    "`{how} -v {value}` mounts a host folder only known when it runs"
                ));
            } else if risky_host_path(source) {
                fx.unprovable(format!(
                    "`{how} -v {value}` mounts the host's {source} into the container, where anything running can change it"
                ));
            }
        }
        "--mount" => {
            let source = value.split(',').find_map(|part| {
                part.strip_prefix("source=")
                    .or_else(|| part.strip_prefix("src="))
            });
            if let Some(source) = source
                && (risky_host_path(source) || source.contains('$'))
            {
                fx.unprovable(format!(
                    "`{how} --mount {value}` mounts the host's {source} into the container"
                ));
            }
        }
        "--privileged" => fx.unprovable(format!(
            "`{how} --privileged` gives the container the whole host"
        )),
        "--pid" | "--ipc" | "--uts" | "--userns" | "--cgroupns" | "--network" | "--net"
            if value == "host" && option != "--network" && option != "--net" =>
        {
            fx.unprovable(format!(
                "`{how} {option}=host` shares the host's {option} namespace with the container"
            ));
        }
        "--cap-add" | "--device" => fx.unprovable(format!(
            "`{how} {option} {value}` gives the container host powers"
        )),
        "--security-opt" if value.contains("unconfined") || value.contains("disable") => {
            fx.unprovable(format!(
                "`{how} --security-opt {value}` turns off the container's confinement"
            ));
        }
        "--entrypoint" => fx.script(value, format!("{how} --entrypoint"), None, true),
        _ => {}
    }
}

fn docker_compose(name: &str, subcommand: &str, args: &[String], from: usize, fx: &mut Verdict) {
    let values = [
        "-e",
        "--env",
        "-u",
        "--user",
        "-w",
        "--workdir",
        "--index",
        "--name",
        "-p",
        "--publish",
        "-l",
        "--label",
        "-v",
        "--volume",
        "--entrypoint",
    ];
    let how = format!("{name} compose {subcommand}");
    let mut position = from;
    while let Some(arg) = args.get(position) {
        if !arg.starts_with('-') {
            break;
        }
        let (option, attached) = match arg.split_once('=') {
            Some((option, value)) => (option, Some(value.to_owned())),
            None => (arg.as_str(), None),
        };
        let value = if values.contains(&option) && attached.is_none() {
            position += 1;
            args.get(position).cloned()
        } else {
            attached
        };
        docker_option(&how, option, value.as_deref().unwrap_or_default(), fx);
        position += 1;
    }
    in_container(args, position, &how, fx);
}

/// The command after the container or image at `position` runs in the container.
fn in_container(args: &[String], position: usize, how: &str, fx: &mut Verdict) {
    if args.get(position).is_some() {
        fx.args(
            position + 1,
            args.len(),
            format!("{how} (in the container)"),
        );
    }
}

/// kubectl/oc: commands run in pods (`exec`, `run`, `debug` after `--`), and `cp` to this host.
fn kubectl(name: &str, args: &[String], fx: &mut Verdict) {
    let Some(subcommand) = args.iter().find(|arg| {
        matches!(
            arg.as_str(),
            "exec" | "run" | "debug" | "cp" | "attach" | "plugin"
        )
    }) else {
        return;
    };
    let how = format!("{name} {subcommand}");
    let separator = args.iter().position(|arg| arg == "--");
    match subcommand.as_str() {
        "exec" | "run" | "debug" => match separator {
            Some(position) => fx.args(position + 1, args.len(), format!("{how} (in the pod)")),
            None if subcommand == "exec" => fx.unprovable(format!(
                "`{how}` without `--`: which words are the command run in the pod cannot be told"
            )),
            None => {}
        },
        "cp" => {
            let positional: Vec<&String> = args
                .iter()
                .filter(|a| !a.starts_with('-'))
                .skip(1)
                .collect();
            copies_here(&positional, &how, fx);
        }
        _ => {}
    }
}

/// `docker cp`/`kubectl cp SRC… DEST`: a destination on this host (no `CONTAINER:`) is written.
fn copies_here(positional: &[&String], how: &str, fx: &mut Verdict) {
    if let Some(destination) = positional.last()
        && positional.len() >= 2
        && !destination.contains(':')
    {
        fx.output(destination, how, true);
    }
}
