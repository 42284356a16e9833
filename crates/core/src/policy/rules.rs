//! The judgements the policy makes about analysed commands: user patterns (forbidden, allowed,
//! extra dangerous), the built-in dangerous list, commands that can lock the user out
//! (firewall, network, sshd), and the read-only list plan mode allows.
//!
//! Matching is deliberately asymmetric: forbidden and dangerous patterns match loosely (`git push`
//! also matches `git -C /repo push --force`; `rm -rf` matches `rm -f -r`), allowed patterns only
//! as an exact prefix (`systemctl status` allows `systemctl status nginx`, never
//! `systemctl restart status`). Nothing here may widen what runs without asking.
//!
//! The built-in lists follow the effect, not the front end: deletes (`rm`, `unlink`, a move onto
//! `/dev/null`, a copy of `/dev/null` or `/dev/zero` over a file) ask like `rm -rf`; stopping or
//! disabling sshd, the network or the firewall asks through `systemctl`, `service`, `rc-service`,
//! `invoke-rc.d`, `sv`, `initctl`, `/etc/init.d/NAME` (the walker records it as `service NAME`),
//! `pkill`/`killall`/`kill $(pidof sshd)`, `ip … down`, `tc`, `ipset` and the firewall tools. A
//! command name that is a glob (`/bin/r[m]`) matches a forbidden or dangerous pattern when it
//! could expand to it; allowed patterns never match a glob.

use super::analysis::{SimpleCommand, Write, normalise_name};
use super::paths::lockout_match;
use super::unwrap::sed_is_read_only;

/// A pattern in the form a user types it: `rm`, `systemctl restart`, `rm -rf`.
fn pattern_words(pattern: &str) -> Vec<String> {
    let mut words: Vec<String> = pattern.split_whitespace().map(str::to_owned).collect();
    if let Some(first) = words.first_mut() {
        *first = normalise_name(first.trim_start_matches('\\'));
    }
    words
}

/// Short options of a command as one set (`-r -f` and `-rf` both give `rf`).
fn short_flags(args: &[String]) -> String {
    args.iter()
        .filter(|arg| arg.starts_with('-') && !arg.starts_with("--") && arg.len() > 1)
        .flat_map(|arg| arg[1..].chars())
        .collect()
}

/// Loose match for forbidden and dangerous patterns (see the module docs).
pub fn matches_loosely(pattern: &str, words: &[String]) -> bool {
    let want = pattern_words(pattern);
    let Some((name, rest)) = want.split_first() else {
        return false;
    };
    let Some((have_name, args)) = words.split_first() else {
        return false;
    };
    let have = normalise_name(have_name);
    // A command name the shell expands as a glob (`/bin/r[m]`, `/bin/r?`) matches every
    // name it could expand to.
    let is_pattern = have.contains(['*', '?', '[']);
    if have != *name && !(is_pattern && glob_matches(&have, name)) {
        return false;
    }
    let flags = short_flags(args);
    let mut position = 0;
    for word in rest {
        if word.starts_with('-') && !word.starts_with("--") && word.len() > 1 {
            // A short option cluster: every letter present somewhere.
            if !word[1..].chars().all(|letter| flags.contains(letter)) {
                return false;
            }
            continue;
        }
        match args[position..].iter().position(|arg| arg == word) {
            Some(found) => position += found + 1,
            None => return false,
        }
    }
    true
}

/// Shell glob matching of one name: `*`, `?`, `[…]` (with `!`/`^` negation and ranges).
fn glob_matches(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    glob_at(&pattern, &name)
}

fn glob_at(pattern: &[char], name: &[char]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some(('*', rest)) => (0..=name.len()).any(|skip| glob_at(rest, &name[skip..])),
        Some(('?', rest)) => !name.is_empty() && glob_at(rest, &name[1..]),
        Some(('[', rest)) => {
            let Some(close) = rest.iter().skip(1).position(|c| *c == ']').map(|i| i + 1) else {
                return name.first() == Some(&'[') && glob_at(rest, &name[1..]);
            };
            let Some((first, name_rest)) = name.split_first() else {
                return false;
            };
            let class = &rest[..close];
            let (negated, class) = match class.split_first() {
                Some(('!' | '^', class)) => (true, class),
                _ => (false, class),
            };
            let mut found = false;
            let mut index = 0;
            while index < class.len() {
                if index + 2 < class.len() && class[index + 1] == '-' {
                    found |= (class[index]..=class[index + 2]).contains(first);
                    index += 3;
                } else {
                    found |= class[index] == *first;
                    index += 1;
                }
            }
            found != negated && glob_at(&rest[close + 1..], name_rest)
        }
        Some((c, rest)) => name.first() == Some(c) && glob_at(rest, &name[1..]),
    }
}

/// Exact-prefix match for allowed patterns.
pub fn matches_prefix(pattern: &str, words: &[String]) -> bool {
    let want = pattern_words(pattern);
    !want.is_empty()
        && want.len() <= words.len()
        && want
            .iter()
            .zip(words)
            .enumerate()
            .all(|(index, (want, have))| {
                if index == 0 {
                    normalise_name(have) == *want
                } else {
                    want == have
                }
            })
}

/// The first of `patterns` a command (or one of its wrappers) matches loosely.
pub fn first_loose_match<'p>(command: &SimpleCommand, patterns: &'p [String]) -> Option<&'p str> {
    patterns.iter().map(String::as_str).find(|pattern| {
        matches_loosely(pattern, &command.words)
            || command
                .wrappers
                .iter()
                .any(|wrapper| matches_loosely(pattern, wrapper))
    })
}

fn has_short(args: &[String], letters: &str) -> bool {
    short_flags(args).contains(|c| letters.contains(c))
}

/// `crontab -l [-u USER]` and nothing else: a file argument installs a new crontab, `-r` removes
/// it, `-e` edits it, whatever else stands beside the `-l`.
pub(super) fn crontab_lists_only(args: &[String]) -> bool {
    let mut lists = false;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-l" => lists = true,
            "-u" if rest.next().is_some() => {}
            _ => return false,
        }
    }
    lists
}

fn has_any(args: &[String], words: &[&str]) -> bool {
    args.iter().any(|arg| words.contains(&arg.as_str()))
}

fn positional(args: &[String]) -> Vec<&str> {
    args.iter()
        .filter(|arg| !arg.starts_with('-'))
        .map(String::as_str)
        .collect()
}

const SYSTEM_PATHS: &[&str] = &[
    "/",
    "/etc",
    "/usr",
    "/var",
    "/bin",
    "/sbin",
    "/lib",
    "/lib64",
    "/lib32",
    "/boot",
    "/home",
    "/root",
    "/opt",
    "/srv",
    "/dev",
    "/proc",
    "/sys",
    "/run",
    "/usr/bin",
    "/usr/lib",
    "/usr/sbin",
    "/usr/local",
    "/var/lib",
];

fn is_ssh_unit(unit: &str) -> bool {
    let unit = unit
        .trim_end_matches(".service")
        .trim_end_matches(".socket");
    matches!(
        unit,
        "ssh" | "sshd" | "openssh" | "openssh-server" | "ssh@" | "sshd@"
    )
}

fn is_ssh_package(package: &str) -> bool {
    package.starts_with("openssh") || package == "ssh" || package == "sshd" || package == "dropbear"
}

/// Why a command is on the built-in dangerous list, if it is.
pub fn builtin_dangerous(command: &SimpleCommand) -> Option<String> {
    let name = command.name();
    let args = command.args();
    let first = positional(args).first().copied().unwrap_or_default();
    let reason = match name {
        "rm" if has_short(args, "rRf")
            || has_any(args, &["--recursive", "--force", "--no-preserve-root"]) =>
        {
            "rm -r/-f deletes without asking and cannot be undone"
        }
        // Deletes and truncations always ask, whatever program does them.
        "rm" | "unlink" => "deletes files",
        "mv" if positional(args).last().is_some_and(|path| is_sink(path)) => {
            "moves files onto a device such as /dev/null: they are gone"
        }
        "cp" | "install" | "rsync"
            if positional(args).len() >= 2
                && positional(args)
                    .iter()
                    .rev()
                    .skip(1)
                    .any(|path| is_empty_source(path)) =>
        {
            "copies an empty file over the destination, emptying it"
        }
        "dd" if args
            .iter()
            .any(|arg| arg.strip_prefix("if=").is_some_and(is_empty_source))
            && args
                .iter()
                .any(|arg| arg.strip_prefix("of=").is_some_and(|path| !is_sink(path))) =>
        {
            "dd from /dev/null or /dev/zero empties or overwrites the file"
        }
        _ if name.starts_with("mkfs") || matches!(name, "mke2fs" | "mkswap" | "mkdosfs") => {
            "formats a file system"
        }
        "dd" if args.iter().any(|arg| {
            arg.strip_prefix("of=").is_some_and(|path| {
                path.starts_with("/dev/")
                    && !matches!(path, "/dev/null" | "/dev/stdout" | "/dev/stderr")
            })
        }) =>
        {
            "dd writes straight to a device"
        }
        "shred" | "wipe" | "srm" => "destroys file contents for good",
        "wipefs" | "blkdiscard" => "erases file system signatures or blocks of a device",
        "fdisk" | "sfdisk" | "cfdisk" | "parted" | "sgdisk" | "gdisk" | "cgdisk"
            if !has_short(args, "l")
                || has_any(args, &["--delete", "--zap-all"])
                || name == "sgdisk" =>
        {
            "changes a disk's partition table"
        }
        "chmod" | "chown" | "chgrp"
            if (has_short(args, "R") || has_any(args, &["--recursive"]))
                && positional(args).iter().any(|path| {
                    SYSTEM_PATHS.contains(&path.trim_end_matches('/'))
                        || path.trim_end_matches('/').is_empty()
                }) =>
        {
            "changes permissions or owners recursively on a system folder"
        }
        "shutdown" | "reboot" | "poweroff" | "halt" | "kexec" => {
            "shuts down or restarts the server"
        }
        "init" | "telinit" if matches!(first, "0" | "6" | "1" | "s" | "S") => {
            "changes the run level (shutdown, reboot or single-user)"
        }
        "systemctl"
            if matches!(
                first,
                "poweroff" | "reboot" | "halt" | "kexec" | "rescue" | "emergency" | "soft-reboot"
            ) =>
        {
            "shuts down or restarts the server"
        }
        "systemctl" if matches!(first, "isolate" | "default") => {
            "switches the whole system to another target"
        }
        "systemctl"
            if matches!(first, "stop" | "disable" | "mask" | "kill")
                && positional(args)
                    .iter()
                    .skip(1)
                    .any(|unit| is_ssh_unit(unit)) =>
        {
            "stops or disables sshd: nobody can log in over SSH afterwards"
        }
        _ if service_verb(name, args)
            .is_some_and(|(unit, verb)| is_ssh_unit(unit) && is_stopping_verb(verb)) =>
        {
            "stops or disables sshd: nobody can log in over SSH afterwards"
        }
        "rc-update"
            if has_any(args, &["del", "delete"])
                && positional(args).iter().any(|unit| is_ssh_unit(unit)) =>
        {
            "disables sshd at boot"
        }
        "update-rc.d" | "chkconfig"
            if positional(args)
                .first()
                .is_some_and(|unit| is_ssh_unit(unit))
                && has_any(args, &["disable", "remove", "off"]) =>
        {
            "disables sshd at boot"
        }
        "apt" | "apt-get" | "aptitude" | "yum" | "dnf" | "zypper" | "apk" | "pacman" | "dpkg"
        | "rpm" | "snap"
            if (has_any(
                args,
                &[
                    "remove",
                    "purge",
                    "erase",
                    "autoremove",
                    "del",
                    "-R",
                    "-Rs",
                    "-Rns",
                    "-e",
                    "-P",
                    "--purge",
                    "--remove",
                ],
            )) && positional(args)
                .iter()
                .any(|package| is_ssh_package(package)) =>
        {
            "removes the SSH server"
        }
        "kill" if args.iter().any(|arg| arg == "1" || arg == "-1") => {
            "signals PID 1 or every process"
        }
        // `kill $(pidof sshd)`, `kill -9 $(cat /run/sshd.pid)`.
        "kill" if args.iter().any(|arg| arg.contains("sshd")) => "kills sshd",
        "pkill" | "killall" | "killall5" | "skill" | "slay"
            if name == "killall5"
                || args.iter().any(|arg| {
                    arg.contains("sshd")
                        || arg == "ssh"
                        || arg == "systemd"
                        || arg == "init"
                        || arg.ends_with("/systemd")
                }) =>
        {
            "kills sshd or the init system"
        }
        "iptables" | "ip6tables" | "iptables-legacy" | "iptables-nft" | "ip6tables-legacy"
        | "ip6tables-nft"
            if has_any(args, &["-F", "--flush", "-X", "--delete-chain"]) =>
        {
            "flushes the firewall rules"
        }
        "nft" if has_any(args, &["flush"]) => "flushes the firewall rules",
        "ufw" if matches!(first, "disable" | "reset") => "disables or resets the firewall",
        "userdel" | "deluser" => "deletes a user account",
        "usermod" if has_short(args, "L") || has_any(args, &["--lock", "--expiredate", "-e"]) => {
            "locks a user account"
        }
        "passwd" if !has_short(args, "S") && !has_any(args, &["--status"]) => {
            "changes or locks a password"
        }
        "truncate" => "cuts files to a size, losing their contents",
        "docker" | "podman" if matches!(first, "system") && has_any(args, &["prune"]) => {
            "removes all unused containers, images and networks"
        }
        "docker" | "podman" if matches!(first, "volume") && has_any(args, &["rm", "prune"]) => {
            "removes data volumes"
        }
        "kubectl" | "oc" if has_any(args, &["delete"]) => "deletes Kubernetes resources",
        "helm" if has_any(args, &["uninstall", "delete"]) => "uninstalls a Helm release",
        "crontab" if has_short(args, "r") => "removes the whole crontab",
        "find" if has_any(args, &["-delete"]) => "find -delete deletes every match",
        "rsync"
            if args
                .iter()
                .any(|arg| arg.starts_with("--delete") || arg == "--remove-source-files") =>
        {
            "rsync --delete removes files at the destination"
        }
        "zpool" | "zfs" if matches!(first, "destroy") => "destroys a storage pool or dataset",
        "lvremove" | "vgremove" | "pvremove" => "removes a logical volume",
        "mdadm" if has_any(args, &["--zero-superblock", "--stop", "-S"]) => {
            "stops or erases a RAID array"
        }
        _ => return None,
    };
    Some(format!("`{}` is dangerous: {reason}", command.display()))
}

/// Files that swallow what is written or moved to them.
fn is_sink(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/zero" | "/dev/full")
}

/// Sources that make a copy empty (or all zeros).
fn is_empty_source(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/zero")
}

/// The service and verb of a service front end: `service ssh stop`, `rc-service sshd stop`,
/// `invoke-rc.d ssh stop`, `sv down sshd`, `initctl stop ssh`, `stop ssh` (upstart).
fn service_verb<'a>(name: &'a str, args: &'a [String]) -> Option<(&'a str, &'a str)> {
    let positional = positional(args);
    match name {
        "service" | "rc-service" | "invoke-rc.d" => Some((
            *positional.first()?,
            positional.get(1).copied().unwrap_or_default(),
        )),
        "sv" | "initctl" | "s6-rc" => Some((*positional.get(1)?, *positional.first()?)),
        "stop" | "restart" => Some((*positional.first()?, name)),
        "s6-svc" if has_short(args, "dkx") => Some((*positional.first()?, "stop")),
        _ => None,
    }
}

fn is_stopping_verb(verb: &str) -> bool {
    matches!(
        verb,
        "stop" | "down" | "kill" | "force-stop" | "disable" | "mask" | "zap" | "exit" | "d" | "x"
    )
}

/// Why writing to a path is dangerous on its own (beyond lock-out), if it is.
pub fn dangerous_write(write: &Write) -> Option<String> {
    let path = write.path.as_str();
    let device = [
        "/dev/sd",
        "/dev/nvme",
        "/dev/vd",
        "/dev/xvd",
        "/dev/hd",
        "/dev/mmcblk",
        "/dev/md",
        "/dev/dm-",
        "/dev/mapper/",
        "/dev/disk/",
        "/dev/loop",
    ];
    let name = path.rsplit('/').next().unwrap_or(path);
    let startup = [
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".profile",
        ".bash_logout",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".kshrc",
        ".cshrc",
        ".tcshrc",
        ".inputrc",
    ];
    let what = if startup.contains(&name)
        || path.starts_with("~/.config/fish/")
        || path.starts_with("~/.config/systemd/")
        || path.starts_with("~/.ssh/rc")
        || path.starts_with("~/.ssh/environment")
        || path.starts_with("/var/spool/cron")
    {
        "a file whose commands run later (shell start-up file, scheduled job or user service)"
    } else if device.iter().any(|prefix| path.starts_with(prefix)) {
        "a disk device"
    } else if path.starts_with("/proc/") || path.starts_with("/sys/") {
        "kernel settings"
    } else if path == "/etc" || path.starts_with("/etc/") {
        "system configuration in /etc"
    } else if path.starts_with("/boot") {
        "the boot files"
    } else if [
        "/bin",
        "/sbin",
        "/lib",
        "/usr/bin",
        "/usr/sbin",
        "/usr/lib",
        "/lib64",
    ]
    .iter()
    .any(|dir| path == *dir || path.starts_with(&format!("{dir}/")))
    {
        "system programs"
    } else {
        return None;
    };
    Some(format!("{} writes to {path}: {what}", write.how))
}

/// A write to a lock-out path: the reason.
pub fn lockout_write(write: &Write) -> Option<String> {
    lockout_match(&write.path, write.subtree).map(|entry| {
        format!(
            "{} changes {}, which can lock you out of the server (protected: {entry}); this always asks",
            write.how, write.path
        )
    })
}

/// A command that changes firewall, network or sshd state and can cut off SSH access.
pub fn lockout_command(command: &SimpleCommand) -> Option<String> {
    let name = command.name();
    let args = command.args();
    let first = positional(args).first().copied().unwrap_or_default();
    let what = match name {
        "iptables" | "ip6tables" | "iptables-legacy" | "iptables-nft" | "ip6tables-legacy"
        | "ip6tables-nft" | "ebtables" | "arptables" => {
            let changes = args.iter().any(|arg| {
                matches!(
                    arg.as_str(),
                    "-A" | "-I"
                        | "-D"
                        | "-R"
                        | "-F"
                        | "-X"
                        | "-P"
                        | "-N"
                        | "-E"
                        | "--append"
                        | "--insert"
                        | "--delete"
                        | "--replace"
                        | "--flush"
                        | "--delete-chain"
                        | "--policy"
                        | "--new-chain"
                        | "--rename-chain"
                )
            });
            if !changes {
                return None;
            }
            "changes the firewall rules"
        }
        _ if name.ends_with("tables-restore") || name == "iptables-apply" => {
            "replaces the firewall rules"
        }
        "nft" if !(first == "list" || (args.is_empty())) => "changes the firewall rules",
        "ufw" if !matches!(first, "status" | "show" | "version" | "") => "changes the firewall",
        "firewall-cmd"
            if !args.iter().all(|arg| {
                [
                    "--list",
                    "--get",
                    "--query",
                    "--state",
                    "--info",
                    "--zone",
                    "--permanent",
                    "-q",
                    "--help",
                    "--version",
                ]
                .iter()
                .any(|read| arg.starts_with(read))
            }) =>
        {
            "changes the firewall"
        }
        "firewall-offline-cmd" => "changes the firewall",
        "ip" => {
            let verbs = [
                "add", "del", "delete", "flush", "set", "change", "replace", "append", "down",
            ];
            if !args.iter().any(|arg| verbs.contains(&arg.as_str())) {
                return None;
            }
            "changes the network configuration"
        }
        "ifdown" | "ifup" | "dhclient" | "ifconfig" | "route" | "netplan" | "nmcli"
        | "networkctl" | "nmtui" | "wpa_cli" => {
            let read_only = match name {
                "ifconfig" => positional(args).len() <= 1,
                "route" => !has_any(args, &["add", "del", "delete", "flush"]),
                "netplan" => matches!(first, "get" | "info" | "status" | "--help" | ""),
                "nmcli" => !has_any(
                    args,
                    &[
                        "down",
                        "up",
                        "delete",
                        "modify",
                        "disconnect",
                        "reload",
                        "off",
                        "set",
                        "add",
                        "connect",
                        "import",
                    ],
                ),
                "networkctl" => matches!(first, "list" | "status" | "lldp" | "label" | ""),
                _ => false,
            };
            if read_only {
                return None;
            }
            "changes the network configuration"
        }
        "systemctl"
            if matches!(
                first,
                "stop"
                    | "restart"
                    | "reload"
                    | "disable"
                    | "mask"
                    | "kill"
                    | "try-restart"
                    | "reload-or-restart"
            ) && positional(args).iter().skip(1).any(|unit| {
                is_ssh_unit(unit)
                    || matches!(
                        unit.trim_end_matches(".service"),
                        "networking"
                            | "NetworkManager"
                            | "systemd-networkd"
                            | "network"
                            | "firewalld"
                            | "ufw"
                            | "nftables"
                            | "iptables"
                            | "netfilter-persistent"
                            | "systemd-resolved"
                    )
            }) =>
        {
            "stops or restarts sshd, the network or the firewall"
        }
        _ if service_verb(name, args).is_some_and(|(unit, verb)| {
            let unit = unit.rsplit('/').next().unwrap_or(unit);
            (is_ssh_unit(unit)
                || matches!(
                    unit.trim_end_matches(".service"),
                    "networking"
                        | "network"
                        | "NetworkManager"
                        | "systemd-networkd"
                        | "ufw"
                        | "firewalld"
                        | "iptables"
                        | "ip6tables"
                        | "nftables"
                        | "netfilter-persistent"
                        | "shorewall"
                ))
                && !matches!(verb, "status" | "" | "check" | "describe")
        }) =>
        {
            "stops or restarts sshd, the network or the firewall"
        }
        "tc" if has_any(args, &["add", "change", "replace", "del", "delete", "link"]) => {
            "changes the network's traffic control"
        }
        "ipset"
            if has_any(
                args,
                &[
                    "add", "del", "flush", "destroy", "swap", "restore", "-A", "-D", "-F", "-X",
                ],
            ) =>
        {
            "changes firewall address sets"
        }
        "shorewall" | "shorewall6" | "csf" | "apf"
            if !matches!(first, "status" | "show" | "version" | "check" | "")
                && !has_any(args, &["-l", "-v", "--status"]) =>
        {
            "changes the firewall"
        }
        "pam-auth-update" | "authconfig" | "authselect" => "changes the PAM login configuration",
        _ => return None,
    };
    Some(format!(
        "`{}` {what}, which can lock you out of the server; this always asks",
        command.display()
    ))
}

/// Commands that only read, for plan mode; with the flags that would make them write excluded.
/// `Err` says why a command is not read-only, in words the model can act on.
pub fn read_only(command: &SimpleCommand) -> Result<(), String> {
    let name = command.name();
    let args = command.args();
    let first = positional(args).first().copied().unwrap_or_default();
    let refuse = |why: &str| Err(format!("`{}` {why}", command.display()));
    let always = [
        "ls",
        "cat",
        "head",
        "tail",
        "grep",
        "egrep",
        "fgrep",
        "zgrep",
        "rg",
        "ag",
        "wc",
        "stat",
        "file",
        "df",
        "du",
        "free",
        "uptime",
        "uname",
        "id",
        "whoami",
        "who",
        "w",
        "last",
        "lastlog",
        "ps",
        "pgrep",
        "pidof",
        "pwd",
        "echo",
        "printf",
        "printenv",
        "which",
        "type",
        "whereis",
        "lsblk",
        "blkid",
        "lscpu",
        "lsmod",
        "lspci",
        "lsusb",
        "lsof",
        "ss",
        "netstat",
        "cut",
        "tr",
        "column",
        "jq",
        "yq",
        "diff",
        "cmp",
        "md5sum",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "test",
        "[",
        "true",
        "false",
        "nproc",
        "getent",
        "dig",
        "nslookup",
        "host",
        "tree",
        "vmstat",
        "iostat",
        "mpstat",
        "hexdump",
        "od",
        "strings",
        "nl",
        "tac",
        "rev",
        "fold",
        "fmt",
        "expand",
        "unexpand",
        "comm",
        "join",
        "paste",
        "locate",
        "zcat",
        "bzcat",
        "xzcat",
        "zless",
        "getfacl",
        "lsattr",
        "groups",
        "findmnt",
        "seq",
        "sleep",
        "date",
        "cal",
        "arch",
        "env",
        "locale",
        "ldd",
        "apt-cache",
        "dpkg-query",
        "namei",
        "ulimit",
        "umask",
        "history",
        "cd",
        "pushd",
        "popd",
        "dirs",
        "exit",
        "set",
        "shopt",
        "hash",
        "alias",
        "jobs",
        "lsns",
        "lsipc",
        "mountpoint",
        "ping",
        "traceroute",
        "tracepath",
        "mtr",
        "nc",
        "whatis",
        "apropos",
        "man",
        "info",
        "sensors",
        "numfmt",
        "tput",
        "stty",
        "tty",
        "nginx",
        "apachectl",
        "apache2ctl",
        "sshd",
        "timedatectl",
        "hostnamectl",
        "localectl",
        "loginctl",
        "resolvectl",
        "journalctl",
        "dmesg",
        "sysctl",
        "uniq",
        "sort",
        "xxd",
        "awk",
        "gawk",
        "mawk",
        "sed",
        "find",
        "systemctl",
        "docker",
        "podman",
        "kubectl",
        "git",
        "apt",
        "dpkg",
        "rpm",
        "yum",
        "dnf",
        "snap",
        "crontab",
        "ip",
        "iptables",
        "ip6tables",
        "nft",
        "ufw",
        "firewall-cmd",
        "mount",
        "hostname",
        "top",
        "htop",
        "openssl",
        "curl",
        "wget",
        "command",
        "ssh",
        "sudo",
        "less",
        "more",
        "xargs",
        "time",
        "timeout",
        "nice",
        "stdbuf",
        "watch",
    ];
    if !always.contains(&name) {
        return refuse("is not on plan mode's list of read-only commands");
    }
    let ok = match name {
        "date" => !has_short(args, "s") && !has_any(args, &["--set"]),
        "sort" => !has_short(args, "o") && !args.iter().any(|arg| arg.starts_with("--o")),
        "uniq" => positional(args).len() <= 1,
        "xxd" => !has_short(args, "r") && positional(args).len() <= 1,
        "sed" => has_short(args, "n") && sed_is_read_only(args),
        "awk" | "gawk" | "mawk" => {
            !args
                .iter()
                .any(|arg| arg.contains("system") || arg.contains('|') || arg.contains('>'))
                && !has_any(args, &["-i", "--inplace"])
        }
        "find" => !has_any(
            args,
            &[
                "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf",
                "-fls",
            ],
        ),
        "sysctl" => {
            !has_short(args, "wp")
                && !args.iter().any(|arg| arg.contains('='))
                && !has_any(args, &["--write", "--load", "--system"])
        }
        "dmesg" => {
            !has_short(args, "cCDEn")
                && !has_any(
                    args,
                    &[
                        "--clear",
                        "--read-clear",
                        "--console-off",
                        "--console-on",
                        "--console-level",
                    ],
                )
        }
        "journalctl" => !args.iter().any(|arg| {
            arg.starts_with("--vacuum")
                || arg == "--rotate"
                || arg == "--flush"
                || arg == "--sync"
                || arg == "--relinquish-var"
                || arg.starts_with("--setup-keys")
        }),
        "systemctl" => matches!(
            first,
            "status"
                | "show"
                | "cat"
                | "is-active"
                | "is-enabled"
                | "is-failed"
                | "is-system-running"
                | "list-units"
                | "list-unit-files"
                | "list-timers"
                | "list-sockets"
                | "list-dependencies"
                | "list-jobs"
                | "get-default"
                | "help"
                | ""
        ),
        "docker" | "podman" => {
            matches!(
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
                ))
        }
        "kubectl" => {
            matches!(
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
            ) || (first == "config" && has_any(args, &["view", "get-contexts", "current-context"]))
                || (first == "auth" && has_any(args, &["can-i"]))
        }
        "git" => {
            matches!(
                first,
                "status"
                    | "log"
                    | "diff"
                    | "show"
                    | "rev-parse"
                    | "ls-files"
                    | "blame"
                    | "describe"
                    | "shortlog"
                    | "ls-tree"
                    | "cat-file"
                    | "grep"
                    | "reflog"
            ) || (first == "remote"
                && (positional(args).len() == 1 || has_any(args, &["-v", "show", "get-url"])))
                || (first == "branch" && positional(args).len() == 1)
                || (first == "config" && has_any(args, &["--get", "--list", "-l", "--get-all"]))
        }
        "apt" => matches!(
            first,
            "list" | "show" | "policy" | "search" | "depends" | "rdepends" | "changelog"
        ),
        "dpkg" => args.iter().all(|arg| {
            !arg.starts_with('-')
                || matches!(
                    arg.as_str(),
                    "-l" | "-L"
                        | "-s"
                        | "-S"
                        | "-p"
                        | "--list"
                        | "--listfiles"
                        | "--status"
                        | "--search"
                        | "--print-avail"
                        | "--get-selections"
                        | "--audit"
                        | "--verify"
                        | "-V"
                )
        }),
        "rpm" => {
            args.iter().any(|arg| {
                arg.starts_with("-q") || arg == "--query" || arg == "-V" || arg == "--verify"
            }) && !has_any(
                args,
                &["-e", "-i", "-U", "-F", "--erase", "--install", "--upgrade"],
            )
        }
        "yum" | "dnf" => matches!(
            first,
            "list"
                | "info"
                | "search"
                | "provides"
                | "repolist"
                | "history"
                | "check-update"
                | "repoquery"
        ),
        "snap" => matches!(
            first,
            "list" | "info" | "find" | "services" | "changes" | "version"
        ),
        "crontab" => crontab_lists_only(args),
        "ip" => lockout_command(command).is_none(),
        "iptables" | "ip6tables" => {
            args.iter().any(|arg| {
                matches!(arg.as_str(), "-L" | "-S" | "--list" | "--list-rules")
                    || arg.starts_with("-nL")
                    || arg.starts_with("-L")
                    || arg.starts_with("-vL")
                    || arg.starts_with("-nvL")
            }) && lockout_command(command).is_none()
        }
        "nft" => first == "list",
        "ufw" => matches!(first, "status" | "show" | "version"),
        "firewall-cmd" => lockout_command(command).is_none(),
        "mount" => {
            args.is_empty()
                || (args.len() == 1 && matches!(args[0].as_str(), "-l" | "--show-labels"))
                || (has_any(args, &["-t"])
                    && positional(args).len() <= 1
                    && !args.iter().any(|arg| arg.starts_with('/')))
        }
        "hostname" => {
            positional(args).is_empty()
                && !has_short(args, "bF")
                && !has_any(args, &["--file", "--boot"])
        }
        "top" => has_short(args, "b"),
        "htop" => false,
        "openssl" => {
            matches!(
                first,
                "x509"
                    | "s_client"
                    | "version"
                    | "verify"
                    | "crl"
                    | "req"
                    | "rsa"
                    | "pkey"
                    | "asn1parse"
                    | "ciphers"
                    | "dgst"
            ) && !has_any(args, &["-out", "-new", "-keyout", "-signkey"])
        }
        "curl" => !args.iter().any(|arg| {
            matches!(
                arg.as_str(),
                "-o" | "-O"
                    | "--output"
                    | "--remote-name"
                    | "-T"
                    | "--upload-file"
                    | "-d"
                    | "--data"
                    | "--data-binary"
                    | "--data-raw"
                    | "--data-urlencode"
                    | "-F"
                    | "--form"
                    | "-X"
                    | "--request"
                    | "-K"
                    | "--config"
                    | "-c"
                    | "--cookie-jar"
                    | "-D"
                    | "--dump-header"
            ) || arg.starts_with("--data")
                || (arg.starts_with('-')
                    && !arg.starts_with("--")
                    && arg[1..].contains(['o', 'O', 'T', 'd', 'F', 'X', 'K', 'c', 'D']))
        }),
        "wget" => {
            has_any(args, &["-O-", "--spider", "-qO-", "-O"])
                && args
                    .windows(2)
                    .all(|pair| !(pair[0] == "-O" && pair[1] != "-"))
                && !args.iter().any(|arg| {
                    arg.starts_with("--post")
                        || arg == "--method"
                        || arg.starts_with("--method=")
                        || arg.starts_with("--body")
                })
        }
        "nginx" => has_short(args, "tTvV") && !has_short(args, "s"),
        "apachectl" | "apache2ctl" => {
            matches!(
                first,
                "configtest" | "-t" | "-S" | "-M" | "-v" | "-V" | "status" | "fullstatus"
            ) || has_any(args, &["-t", "-S", "-M", "-v", "-V"])
        }
        "sshd" => has_short(args, "tT") || has_any(args, &["-V"]),
        "timedatectl" | "hostnamectl" | "localectl" => matches!(
            first,
            "status"
                | "show"
                | "list-timezones"
                | "list-locales"
                | "timesync-status"
                | "show-timesync"
                | ""
        ),
        "loginctl" => {
            first.starts_with("list")
                || first.starts_with("show")
                || matches!(first, "user-status" | "session-status" | "seat-status" | "")
        }
        "resolvectl" => {
            matches!(
                first,
                "status" | "query" | "statistics" | "dns" | "domain" | ""
            ) && positional(args).len() <= 2
        }
        "ssh" => false,
        "alias" => !args.iter().any(|arg| arg.contains('=')),
        "set" => args.is_empty() || args.iter().all(|arg| arg == "-o" || arg == "+o"),
        "shopt" => args.is_empty() || has_short(args, "p"),
        "hash" => args.is_empty(),
        "history" => !has_short(args, "cdrwans"),
        "less" | "more" | "man" => true,
        "nc" => has_short(args, "z") && !has_short(args, "lec"),
        "sudo" | "command" | "xargs" | "time" | "timeout" | "nice" | "stdbuf" | "watch" | "env" => {
            args.is_empty()
                || name == "command"
                || name == "env" && args.iter().all(|arg| arg.starts_with('-'))
        }
        "umask" => positional(args).is_empty(),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        refuse("is not read-only with these arguments (plan mode allows only reading forms)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn loose_and_prefix_matching() {
        assert!(matches_loosely(
            "git push",
            &words("git -C /repo push --force")
        ));
        assert!(matches_loosely("rm -rf", &words("rm -f -r x")));
        assert!(!matches_loosely("rm -rf", &words("rm -r x")));
        assert!(matches_loosely("/bin/rm", &words("rm x")));
        assert!(!matches_loosely(
            "docker rm",
            &words("docker run --rm alpine")
        ));
        assert!(matches_prefix(
            "systemctl status",
            &words("systemctl status nginx")
        ));
        assert!(!matches_prefix(
            "systemctl status",
            &words("systemctl restart status")
        ));
        assert!(!matches_prefix("ls", &words("lsof")));
    }
}
