//! The host probe: one read-only command on its own exec channel (the views' runner: no pty,
//! never sudo, time-limited) that tells what system, user and tools a terminal tab's host has,
//! so Pilot's prompt can say where it is instead of guessing.
//!
//! The probe must never change anything or ask for anything: it reads files every user may read
//! and runs programs that only print. Everything it prints is the server's text: each value is
//! cleaned of control characters and escape sequences and cut to [`MAX_VALUE`] characters
//! before it goes anywhere. What it cannot tell stays `None` ("unknown"), never a guess.

use super::{Runner, ViewHost, text};
use kaiport_protocol::HostFacts;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long the probe may take before it counts as failed.
pub const PROBE_TIME_LIMIT: Duration = Duration::from_secs(8);

/// Longest value kept (characters).
pub const MAX_VALUE: usize = 120;

/// Most groups kept.
const MAX_GROUPS: usize = 32;

/// The probe, one `sh -c` word: it runs the same way whatever the login shell is (bash, zsh,
/// fish, csh), so it holds no single quote, backslash, `!` or newline. Each line it prints is
/// `key=value`; values are raw, [`parse`] decides what they mean.
pub const PROBE: &str = concat!(
    "sh -c '",
    "exec 2>/dev/null; export LC_ALL=C; PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin; ",
    "echo \"kernel=$(uname -srm)\"; echo \"system=$(uname -s)\"; ",
    "echo \"hostname=$(hostname || uname -n)\"; ",
    "u=$(id -un); echo \"user=$u\"; echo \"uid=$(id -u)\"; echo \"groups=$(id -Gn)\"; ",
    "s=$(getent passwd \"$u\" | cut -d: -f7); ",
    "[ -n \"$s\" ] || s=$(dscl . -read \"/Users/$u\" UserShell | sed -n \"s/^UserShell: //p\"); ",
    "echo \"shell=${s:-$SHELL}\"; ",
    "echo \"time=$(date \"+%Y-%m-%d %H:%M:%S %z %Z\")\"; ",
    "if [ -r /etc/os-release ]; then sed -n \"s/^PRETTY_NAME=/os=/p; s/^NAME=/osname=/p; s/^VERSION_ID=/osversion=/p\" /etc/os-release; fi; ",
    "command -v sw_vers >/dev/null && echo \"os=$(sw_vers -productName) $(sw_vers -productVersion)\"; ",
    "echo \"pid1=$(cat /proc/1/comm)\"; [ -d /run/systemd/system ] && echo systemd=yes; ",
    "for p in apt-get dnf yum zypper apk pacman brew port pkg; do command -v $p >/dev/null && echo \"pm=$p\"; done; ",
    "echo \"ls=$(ls --version | head -n 1)\"; l=$(command -v ls); echo \"lslink=$(readlink -f \"$l\")\"; ",
    "[ -f /.dockerenv ] && echo ctr=docker; [ -f /run/.containerenv ] && echo ctr=podman; ",
    "echo \"virt=$(systemd-detect-virt -c)\"; ",
    "echo end=1'",
);

/// Runs [`PROBE`] on `host` and reads what it printed. A probe that fails or times out still
/// gives facts: every field `None` and the reason in `probe_error`.
pub async fn probe(host: ViewHost<'_>, cancel: &CancellationToken) -> HostFacts {
    let runner = Runner::new(host, cancel.clone(), false, PROBE_TIME_LIMIT);
    let ran = runner.run(PROBE).await;
    if let Some(lost) = runner.lost() {
        return failed(format!("the connection could not run it: {lost}"));
    }
    if ran.timed_out {
        return failed(format!(
            "it did not answer within {} s",
            PROBE_TIME_LIMIT.as_secs()
        ));
    }
    let mut facts = parse(&ran.stdout);
    if !ran.stdout.lines().any(|line| line == "end=1") {
        facts.probe_error = Some(match ran.exit {
            Some(127) => "the server has no `sh`".to_owned(),
            _ => format!("it ended early ({})", ran.why()),
        });
    }
    facts
}

fn failed(why: String) -> HostFacts {
    HostFacts {
        probe_error: Some(why),
        ..HostFacts::default()
    }
}

/// One value as it may be shown: cleaned, trimmed, cut; None when nothing is left.
fn value(raw: &str) -> Option<String> {
    let cleaned = text::clean_line(raw);
    let trimmed = cleaned.trim().trim_matches('"').trim();
    if trimmed.is_empty() {
        return None;
    }
    Some(trimmed.chars().take(MAX_VALUE).collect())
}

/// What the probe's output says (see [`PROBE`]).
pub fn parse(output: &str) -> HostFacts {
    let mut raw: Vec<(&str, &str)> = Vec::new();
    for line in output.lines() {
        if let Some((key, rest)) = line.split_once('=') {
            raw.push((key.trim(), rest));
        }
    }
    let first = |key: &str| -> Option<String> {
        raw.iter()
            .filter(|(k, _)| *k == key)
            .find_map(|(_, v)| value(v))
    };
    let system = first("system");
    let mut facts = HostFacts {
        kernel: first("kernel"),
        hostname: first("hostname"),
        user: first("user"),
        uid: first("uid").and_then(|uid| uid.parse().ok()),
        login_shell: first("shell"),
        server_time: first("time"),
        ..HostFacts::default()
    };
    facts.groups = first("groups")
        .map(|groups| {
            groups
                .split_whitespace()
                .take(MAX_GROUPS)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if facts.user.is_some() {
        let admin_group = facts
            .groups
            .iter()
            .any(|group| matches!(group.as_str(), "sudo" | "wheel" | "admin"));
        facts.may_sudo = Some(facts.uid == Some(0) || admin_group);
    }
    facts.os = first("os").or_else(|| match (first("osname"), first("osversion")) {
        (Some(name), Some(version)) => Some(format!("{name} {version}")),
        (name, _) => name,
    });
    facts.init = init(&raw, system.as_deref());
    facts.package_manager = first("pm").map(|pm| match pm.as_str() {
        "apt-get" => "apt".to_owned(),
        _ => pm,
    });
    facts.userland = userland(
        first("ls").as_deref(),
        first("lslink").as_deref(),
        system.as_deref(),
    );
    facts.container = container(&raw, system.as_deref());
    facts
}

fn init(raw: &[(&str, &str)], system: Option<&str>) -> Option<String> {
    let has = |key: &str| raw.iter().any(|(k, v)| *k == key && !v.trim().is_empty());
    if has("systemd") {
        return Some("systemd".to_owned());
    }
    if system == Some("Darwin") {
        return Some("launchd".to_owned());
    }
    let pid1 = raw
        .iter()
        .find(|(k, _)| *k == "pid1")
        .and_then(|(_, v)| value(v))?;
    Some(
        match pid1.as_str() {
            "systemd" => "systemd",
            "openrc-init" => "openrc",
            "runit" | "runsvdir" => "runit",
            "s6-svscan" => "s6",
            "init" => "sysvinit or busybox init",
            other => return Some(other.to_owned()),
        }
        .to_owned(),
    )
}

fn userland(ls: Option<&str>, ls_link: Option<&str>, system: Option<&str>) -> Option<String> {
    if ls.is_some_and(|version| version.contains("GNU coreutils")) {
        return Some("GNU".to_owned());
    }
    if ls_link.is_some_and(|link| link.ends_with("/busybox")) {
        return Some("BusyBox".to_owned());
    }
    match system {
        Some("Darwin" | "FreeBSD" | "OpenBSD" | "NetBSD" | "DragonFly") => Some("BSD".to_owned()),
        _ => None,
    }
}

fn container(raw: &[(&str, &str)], system: Option<&str>) -> Option<String> {
    if let Some(virt) = raw
        .iter()
        .find(|(k, _)| *k == "virt")
        .and_then(|(_, v)| value(v))
    {
        return Some(virt);
    }
    if let Some(found) = raw
        .iter()
        .find(|(k, _)| *k == "ctr")
        .and_then(|(_, v)| value(v))
    {
        return Some(found);
    }
    // Without systemd-detect-virt the marker files are all there is to go by on Linux.
    (system == Some("Linux")).then(|| "none".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEBIAN: &str = "kernel=Linux 6.1.0-18-amd64 x86_64\nsystem=Linux\nhostname=web1\n\
        user=alice\nuid=1000\ngroups=alice sudo adm\nshell=/bin/bash\n\
        time=2026-12-05 03:10:00 +0000 UTC\nos=\"Debian GNU/Linux 12 (bookworm)\"\n\
        osname=\"Debian GNU/Linux\"\nosversion=\"12\"\npid1=systemd\nsystemd=yes\npm=apt-get\n\
        ls=ls (GNU coreutils) 9.1\nlslink=/usr/bin/ls\nvirt=none\nend=1\n";

    #[test]
    fn reads_a_debian_server() {
        let facts = parse(DEBIAN);
        assert_eq!(facts.os.as_deref(), Some("Debian GNU/Linux 12 (bookworm)"));
        assert_eq!(facts.kernel.as_deref(), Some("Linux 6.1.0-18-amd64 x86_64"));
        assert_eq!(facts.user.as_deref(), Some("alice"));
        assert_eq!(facts.uid, Some(1000));
        assert_eq!(facts.groups, ["alice", "sudo", "adm"]);
        assert_eq!(facts.may_sudo, Some(true));
        assert_eq!(facts.login_shell.as_deref(), Some("/bin/bash"));
        assert_eq!(facts.init.as_deref(), Some("systemd"));
        assert_eq!(facts.package_manager.as_deref(), Some("apt"));
        assert_eq!(facts.userland.as_deref(), Some("GNU"));
        assert_eq!(facts.container.as_deref(), Some("none"));
        assert_eq!(
            facts.server_time.as_deref(),
            Some("2026-12-05 03:10:00 +0000 UTC")
        );
        assert_eq!(facts.probe_error, None);
    }

    #[test]
    fn reads_alpine_in_docker_and_macos() {
        let alpine = parse(
            "system=Linux\nuser=root\nuid=0\ngroups=root\nosname=Alpine Linux\nosversion=3.20.1\n\
             pid1=sh\npm=apk\nls=\nlslink=/bin/busybox\nctr=docker\nvirt=\nend=1\n",
        );
        assert_eq!(alpine.os.as_deref(), Some("Alpine Linux 3.20.1"));
        assert_eq!(alpine.may_sudo, Some(true));
        assert_eq!(alpine.userland.as_deref(), Some("BusyBox"));
        assert_eq!(alpine.container.as_deref(), Some("docker"));
        assert_eq!(alpine.init.as_deref(), Some("sh"));

        let mac = parse(
            "system=Darwin\nuser=bob\nuid=501\ngroups=staff admin\nos=macOS 14.5\npm=brew\n\
             pid1=\nls=\nlslink=/bin/ls\nend=1\n",
        );
        assert_eq!(mac.os.as_deref(), Some("macOS 14.5"));
        assert_eq!(mac.init.as_deref(), Some("launchd"));
        assert_eq!(mac.userland.as_deref(), Some("BSD"));
        assert_eq!(mac.container, None);
        assert_eq!(mac.may_sudo, Some(true));
    }

    #[test]
    fn server_text_is_cleaned_and_cut() {
        let long = "x".repeat(500);
        let facts = parse(&format!(
            "hostname=evil\u{1b}]0;title\u{7}\u{202e}host\nos={long}\nuser=\u{9b}31mroot\n"
        ));
        assert_eq!(facts.hostname.as_deref(), Some("evilhost"));
        assert_eq!(facts.os.map(|os| os.chars().count()), Some(MAX_VALUE));
        assert!(!facts.user.unwrap_or_default().contains('\u{9b}'));
    }

    #[test]
    fn unknown_stays_unknown() {
        let facts = parse("");
        assert_eq!(facts, HostFacts::default());
    }

    #[test]
    fn the_probe_is_one_word_for_every_shell() {
        let body = PROBE
            .strip_prefix("sh -c '")
            .and_then(|rest| rest.strip_suffix('\''))
            .unwrap_or_default();
        assert!(!body.is_empty());
        for bad in ['\'', '\\', '!', '\n'] {
            assert!(!body.contains(bad), "the probe holds {bad:?}");
        }
    }

    #[tokio::test]
    async fn probes_this_computer() {
        let facts = probe(ViewHost::Local, &CancellationToken::new()).await;
        assert_eq!(facts.probe_error, None);
        assert!(facts.user.is_some() && facts.uid.is_some() && facts.kernel.is_some());
        assert!(facts.server_time.is_some());
    }
}
