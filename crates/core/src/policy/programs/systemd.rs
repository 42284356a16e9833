//! systemd and the other service managers: systemctl, journalctl, loginctl, timedatectl,
//! hostnamectl, localectl, resolvectl, `service` and its relatives (`rc-service`, `invoke-rc.d`,
//! `sv`, `initctl`), boot-time switches (`rc-update`, `update-rc.d`, `chkconfig`), run levels and
//! shutdown.
//!
//! Decided here: stopping or restarting sshd, the network or the firewall can lock the user out
//! (asks, and stopping or disabling sshd is dangerous); shutdown, reboot and run-level changes are
//! dangerous; `journalctl --vacuum-*` deletes logs; `systemctl edit`/`link`/`enable PATH` write
//! unit files (`systemctl link /tmp/ssh.service` replaces the ssh unit: a lock-out write).

use super::args::Call;
use super::common::{has_any, has_short, is_access_service, is_ssh_unit, positional};
use super::spec::Spec;
use super::verdict::Verdict;

/// Option lines several of these programs share (`@use NAME` in their text).
pub const BLOCKS: &[(&str, &str)] = &[
    (
        "systemd-1",
        "-h, --help
        --version
        -H X, --host=X
        -M X, --machine=X
        -p X, --property=X
        -P X
        -a, --all
        -l, --full
        --value
        --kill-whom=X
        -s X, --signal=X
        --no-pager
        --no-ask-password
        -n X, --lines=X
        -o X, --output=X",
    ),
    (
        "systemd-2",
        "-h, --help
        --version
        --no-pager
        --no-ask-password
        -H X, --host=X
        -M X, --machine=X",
    ),
];

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["systemctl"],
        family: "systemd",
        text: "@anywhere
               @operands args
               @use systemd-1
               --system
               --user
               -t X, --type=X
               --state=X
               --failed
               -r, --recursive
               --reverse
               --job-mode=X
               -T, --show-transaction
               --show-types
               --check-inhibitors=X
               -i
               --what=X
               --now
               --dry-run
               -q, --quiet
               --wait
               --no-block
               --no-wall
               --no-reload
               --legend=X
               --global
               --runtime
               -f, --force
               --preset-mode=X
               --root=X : harmless
               --image=X : harmless
               --firmware-setup
               --boot-loader-menu=X
               --boot-loader-entry=X
               --plain
               --timestamp=X
               --read-only
               --mkdir
               --marked
               --with-dependencies
               --after
               --before
               --fail
               --message=TEXT
               --reboot-argument=ARG
               --marked
               --drop-in=NAME
               --when=TIME
               @sub list-units, list-automounts, list-paths, list-sockets, list-timers, is-active, is-failed, status, show, cat, help, list-dependencies, list-unit-files, is-enabled, get-default, list-machines, list-jobs, show-environment, is-system-running : read-only
               @sub start, stop, reload, restart, try-restart, reload-or-restart, try-reload-or-restart, kill, clean, freeze, thaw, set-property, bind, mount-image, service-log-level, service-log-target, reset-failed, enable, disable, reenable, preset, preset-all, mask, unmask, link, revert, add-wants, add-requires, edit, daemon-reload, daemon-reexec, log-level, log-target, service-watchdogs, set-environment, unset-environment, import-environment, cancel, suspend, hibernate, hybrid-sleep, suspend-then-hibernate, sleep, condreload, condrestart, condstop, force-reload, whoami : changes
               @sub halt, poweroff, reboot, kexec, soft-reboot, rescue, emergency, exit, switch-root : dangerous shuts down or restarts the server
               @sub isolate, default, set-default : dangerous switches the whole system to another target",
        hook: Some(systemctl),
    },
    Spec {
        names: &["journalctl"],
        family: "systemd",
        text: "@read-only
               @operands args
               @numeric
               -b[ID], --boot[=ID]
               -n[N], --lines[=N]
               --system
               --user
               -M X, --machine=X
               -m, --merge
               -D X, --directory=X : reads
               --file=X : reads
               --root=X
               --image=X
               --namespace=X
               -S X, --since=X
               -U X, --until=X
               -c X, --cursor=X
               --after-cursor=X
               --cursor-file=X : writes
               -u X, --unit=X
               --user-unit=X
               -t X, --identifier=X
               -p X, --priority=X
               --facility=X
               -g X, --grep=X
               --case-sensitive[=X]
               -k, --dmesg
               -o X, --output=X
               --output-fields=X
               -r, --reverse
               --show-cursor
               --utc
               -x, --catalog
               --no-hostname
               --no-full
               -a, --all
               -f, --follow
               --no-tail
               -q, --quiet
               --no-pager
               -e, --pager-end
               --interval=X
               --verify-key=X : harmless
               --force
               -h, --help
               --version
               -N, --fields
               -F X, --field=X
               --list-boots
               --disk-usage
               --vacuum-size=X : deletes deletes journal files
               --vacuum-files=X : deletes deletes journal files
               --vacuum-time=X : deletes deletes journal files
               --verify
               --sync : changes writes the journal to disk
               --relinquish-var : changes moves the journal off /var
               --smart-relinquish-var : changes moves the journal off /var
               --flush : changes moves the journal to disk
               --rotate : changes rotates the journal files
               --header
               --list-catalog
               --dump-catalog
               --update-catalog : changes rebuilds the message catalog
               --setup-keys : changes makes sealing keys
               -l, --full",
        hook: None,
    },
    Spec {
        names: &["loginctl"],
        family: "systemd",
        text: "@anywhere
               @operands args
               @read-only
               @use systemd-1
               --no-legend
               @subs-optional
               @sub list-sessions, session-status, show-session, list-users, user-status, show-user, list-seats, seat-status, show-seat : read-only
               @sub activate, lock-session, unlock-session, lock-sessions, unlock-sessions, enable-linger, disable-linger, attach, flush-devices : changes
               @sub terminate-session, kill-session, terminate-user, kill-user : dangerous ends login sessions, which can be your own
               @sub terminate-seat : dangerous ends login sessions, which can be your own",
        hook: None,
    },
    Spec {
        names: &["timedatectl"],
        family: "systemd",
        text: "@anywhere
               @operands args
               @read-only
               @use systemd-2
               --monitor
               -p X, --property=X
               -a, --all
               --value
               @subs-optional
               --adjust-system-clock
               @sub status, show, list-timezones, timesync-status, show-timesync : read-only
               @sub set-time, set-timezone, set-local-rtc, set-ntp, ntp-servers : changes
               @sub revert : changes",
        hook: None,
    },
    Spec {
        names: &["hostnamectl"],
        family: "systemd",
        text: "@anywhere
               @operands args
               @read-only
               -h, --help
               --version
               --no-ask-password
               -H X, --host=X
               -M X, --machine=X
               --transient
               --static
               --pretty
               --json=X
               @subs-optional
               @sub status : read-only
               @sub hostname, icon-name, chassis, deployment, location, set-hostname, set-icon-name, set-chassis, set-deployment : changes
               @sub set-location : changes",
        hook: None,
    },
    Spec {
        names: &["localectl"],
        family: "systemd",
        text: "@anywhere
               @operands args
               @read-only
               @use systemd-2
               --no-convert
               @subs-optional
               @sub status, list-locales, list-keymaps, list-x11-keymap-models, list-x11-keymap-layouts, list-x11-keymap-variants, list-x11-keymap-options : read-only
               @sub set-locale, set-keymap : changes
               @sub set-x11-keymap : changes",
        hook: None,
    },
    Spec {
        names: &["resolvectl"],
        family: "systemd",
        text: "@read-only
               @operands args
               -4
               -6
               -i X, --interface=X
               -p X, --protocol=X
               -t X, --type=X
               -c X, --class=X
               --service-address=X
               --service-txt=X
               --cname=X
               --validate=X
               --synthesize=X
               --cache=X
               --zone=X
               --trust-anchor=X
               --network=X
               --search=X
               --stale-data=X
               --relax-single-label=X
               --raw[=X]
               --legend=X
               -j
               --json=X
               --no-pager
               -h, --help
               --version",
        hook: Some(resolvectl),
    },
    Spec {
        names: &["service"],
        family: "systemd",
        text: "@read-only
               @operands args
               @posix
               --status-all
               --full-restart
               -h, --help
               --version",
        hook: Some(service),
    },
    Spec {
        names: &["invoke-rc.d"],
        family: "systemd",
        text: "@read-only
               @operands args
               @posix
               --quiet
               --force
               --try-anyway
               --disclose-deny
               --query
               --no-fallback
               --skip-systemd-native
               --help",
        hook: Some(service),
    },
    Spec {
        names: &["rc-service"],
        family: "systemd",
        text: "@read-only
               @operands args
               @posix
               -e, --exists
               -c, --ifcrashed
               -D, --nodeps
               -i, --ifexists
               -I, --ifinactive
               -N, --ifnotstarted
               -s, --ifstarted
               -S, --ifstopped
               -l, --list
               -r, --resolve
               -Z, --dry-run
               -d, --debug
               -C, --nocolor
               -v, --verbose
               -q, --quiet
               -h, --help
               -V, --version",
        hook: Some(service),
    },
    Spec {
        names: &["sv"],
        family: "systemd",
        text: "@read-only
               @operands args
               @posix
               -v
               -w SECONDS",
        hook: Some(service),
    },
    Spec {
        names: &["initctl", "stop", "restart"],
        family: "systemd",
        text: "@read-only
               @operands args
               -n, --no-wait
               --system
               --session
               --user
               --dest=NAME
               -q, --quiet
               -v, --verbose
               --help
               --version",
        hook: Some(service),
    },
    Spec {
        names: &["s6-svc"],
        family: "systemd",
        text: "@read-only
               @operands args
               @posix
               -a
               -b
               -q
               -Q
               -h
               -k
               -t
               -i
               -1
               -2
               -p
               -c
               -y
               -r
               -P
               -C
               -K
               -o
               -d
               -u
               -D
               -U
               -x
               -O
               -T TIMEOUT
               -s SIGNAL
               -w WHAT",
        hook: Some(service),
    },
    Spec {
        names: &["s6-rc"],
        family: "systemd",
        text: "@read-only
               @operands args
               -v VERBOSITY
               -n THROTTLE
               -t TIMEOUT
               -l LIVE
               -b
               -a
               -u
               -d
               -D
               -p
               -E
               -e",
        hook: Some(service),
    },
    Spec {
        names: &["rc-update"],
        family: "systemd",
        text: "@read-only
               @operands args
               -a, --all
               -s, --stack
               -u, --update
               -v, --verbose
               -C, --nocolor
               -q, --quiet
               -h, --help
               -V, --version",
        hook: Some(boot_switch),
    },
    Spec {
        names: &["update-rc.d"],
        family: "systemd",
        text: "@read-only
               @operands args
               -f
               -n
               --help",
        hook: Some(boot_switch),
    },
    Spec {
        names: &["chkconfig"],
        family: "systemd",
        text: "@read-only
               @operands args
               --list
               --add
               --del
               --override
               --level=LEVELS
               --type=TYPE
               --no-redirect
               --help
               --version",
        hook: Some(boot_switch),
    },
    Spec {
        names: &["shutdown"],
        family: "systemd",
        text: "@operands args
               --help
               -H, --halt
               -P, --poweroff
               -r, --reboot
               -h
               -k
               --no-wall
               -c
               --show
               -a
               -t SECONDS
               -f
               -F
               -n
               -q
               -Q",
        hook: Some(shutdown),
    },
    Spec {
        names: &["reboot", "poweroff", "halt"],
        family: "systemd",
        text: "@operands args
               --help
               --halt
               -p, --poweroff
               --reboot
               -f, --force
               -w, --wtmp-only
               -d, --no-wtmp
               --no-wall
               --no-sync
               -n
               -i
               -h",
        hook: Some(shutdown),
    },
    Spec {
        names: &["kexec"],
        family: "systemd",
        text: "@operands args
               -h, --help
               -v, --version
               -f, --force
               -i, --no-checks
               -x, --no-ifdown
               -y, --no-sync
               -l, --load
               -p, --load-panic
               -u, --unload
               -e, --exec
               --exec-live-update
               -t X, --type=X
               --mem-min=X
               --mem-max=X
               --reuseinitrd
               --print-ckr-size
               --load-preserve-context
               --load-jump-back-helper
               --load-live-update
               --entry=X
               -s, --kexec-file-syscall
               -c, --kexec-syscall
               -a, --kexec-syscall-auto
               -d, --debug
               -S, --status
               --command-line=X
               --reuse-cmdline
               --module=X
               --append=X
               --initrd=X : reads
               --ramdisk=X : reads
               --dtb=X : reads
               --args-linux
               --args-elf
               --args-none
               --entry-32bit
               --real-mode
               --reset-vga
               --serial=X
               --serial-baud=X
               --console-vga
               --console-serial
               --pass-memmap-cmdline
               --noefi
               --reuse-video-type
               --elf32-core-headers
               --elf64-core-headers",
        hook: Some(shutdown),
    },
    Spec {
        names: &["init", "telinit"],
        family: "systemd",
        text: "@operands args
               --help
               --no-wall
               -t SECONDS
               -e VAR",
        hook: Some(init),
    },
];

/// `ssh` → `ssh.service`.
fn unit_name(unit: &str) -> String {
    if unit.contains('.') {
        unit.to_owned()
    } else {
        format!("{unit}.service")
    }
}

fn systemctl(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    let verb = call.sub(0);
    let units = call.operand_texts();
    let base = match (call.value("--root"), call.has("--runtime")) {
        (Some(root), _) => format!("{}/etc/systemd/system", root.trim_end_matches('/')),
        (None, true) => "/run/systemd/system".to_owned(),
        (None, false) if call.has("--user") || call.has("--global") => {
            "~/.config/systemd/user".to_owned()
        }
        (None, false) => "/etc/systemd/system".to_owned(),
    };
    match verb {
        "stop"
        | "restart"
        | "reload"
        | "disable"
        | "mask"
        | "kill"
        | "try-restart"
        | "reload-or-restart"
        | "try-reload-or-restart"
        | "freeze"
        | "isolate"
        | "clean"
        | "condrestart"
        | "condstop"
        | "force-reload"
            if units.iter().any(|unit| is_access_service(unit)) =>
        {
            verdict.lockout(
                &display,
                "stops or restarts sshd, the network or the firewall",
            );
            if matches!(verb, "stop" | "disable" | "mask" | "kill" | "freeze")
                && units.iter().any(|unit| is_ssh_unit(unit))
            {
                verdict.dangerous(
                    &display,
                    "stops or disables sshd: nobody can log in over SSH afterwards",
                );
            }
        }
        "edit" | "revert" | "set-property" => {
            let full = call.has("--full");
            for unit in units
                .iter()
                .filter(|unit| !unit.contains('=') || verb != "set-property")
            {
                let unit = unit_name(unit);
                let path = if full {
                    format!("{base}/{unit}")
                } else {
                    format!("{base}/{unit}.d/override.conf")
                };
                verdict.output(&path, format!("systemctl {verb}"), false);
                if verb == "revert" {
                    verdict.output(&format!("{base}/{unit}.d"), "systemctl revert", true);
                }
            }
        }
        "link" | "enable" | "reenable" | "add-wants" | "add-requires" | "preset" | "mask" => {
            for unit in &units {
                if unit.contains('/') {
                    // A unit file given by path is linked into the unit folder under its name.
                    let name = unit.rsplit('/').next().unwrap_or(unit);
                    verdict.output(
                        &format!("{base}/{name}"),
                        format!("systemctl {verb}"),
                        false,
                    );
                } else if verb == "mask" {
                    verdict.output(
                        &format!("{base}/{}", unit_name(unit)),
                        "systemctl mask",
                        false,
                    );
                }
            }
        }
        _ => {}
    }
}

fn resolvectl(call: &Call<'_>, verdict: &mut Verdict) {
    let words = positional(call.args);
    let first = words.first().copied().unwrap_or_default();
    let reads = matches!(
        first,
        "status" | "query" | "statistics" | "dns" | "domain" | ""
    ) && words.len() <= 2;
    if !reads {
        verdict.not_read_only(format!(
            "`{}` is not read-only with these arguments (plan mode allows only reading forms)",
            call.display()
        ));
    }
}

/// The service and verb of a service front end: `service ssh stop`, `rc-service sshd stop`,
/// `invoke-rc.d ssh stop`, `sv down sshd`, `initctl stop ssh`, `stop ssh` (upstart).
fn service_verb<'a>(name: &str, call: &Call<'a>) -> Option<(&'a str, &'a str)> {
    let args = call.args;
    let positional = call.operand_texts();
    match name {
        "service" | "rc-service" | "invoke-rc.d" => Some((
            *positional.first()?,
            positional.get(1).copied().unwrap_or_default(),
        )),
        "sv" | "initctl" | "s6-rc" => Some((*positional.get(1)?, *positional.first()?)),
        "stop" => Some((*positional.first()?, "stop")),
        "restart" => Some((*positional.first()?, "restart")),
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

fn service(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    let Some((unit, verb)) = service_verb(call.name, call) else {
        if !(call.name == "service" && has_any(call.args, &["--status-all"])) {
            verdict.not_read_only(format!(
                "`{display}` is not on plan mode's list of read-only commands"
            ));
        }
        return;
    };
    let unit = unit.rsplit('/').next().unwrap_or(unit);
    if !matches!(verb, "status" | "" | "check" | "describe") {
        verdict.not_read_only(format!(
            "`{display}` is not read-only with these arguments (plan mode allows only reading forms)"
        ));
        if is_access_service(unit) {
            verdict.lockout(
                &display,
                "stops or restarts sshd, the network or the firewall",
            );
        }
    }
    if is_ssh_unit(unit) && is_stopping_verb(verb) {
        verdict.dangerous(
            &display,
            "stops or disables sshd: nobody can log in over SSH afterwards",
        );
    }
}

fn boot_switch(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let display = call.display();
    let words = positional(args);
    let disables = match call.name {
        "rc-update" => {
            has_any(args, &["del", "delete"]) && words.iter().any(|unit| is_ssh_unit(unit))
        }
        _ => {
            words.first().is_some_and(|unit| is_ssh_unit(unit))
                && has_any(args, &["disable", "remove", "off"])
        }
    };
    if disables {
        verdict.dangerous(&display, "disables sshd at boot");
    }
    let lists = call.name == "chkconfig" && (words.is_empty() || has_any(args, &["--list"]))
        || call.name == "rc-update" && matches!(words.first().copied(), Some("show") | None);
    if !lists {
        verdict.not_read_only(format!(
            "`{display}` is not read-only with these arguments (plan mode allows only reading forms)"
        ));
    }
}

fn shutdown(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.dangerous(&call.display(), "shuts down or restarts the server");
    verdict.not_read_only(format!(
        "`{}` shuts down or restarts the server",
        call.display()
    ));
}

fn init(call: &Call<'_>, verdict: &mut Verdict) {
    let level = positional(call.args).first().copied().unwrap_or_default();
    if matches!(level, "0" | "6" | "1" | "s" | "S") {
        verdict.dangerous(
            &call.display(),
            "changes the run level (shutdown, reboot or single-user)",
        );
    }
    verdict.not_read_only(format!(
        "`{}` is not on plan mode's list of read-only commands",
        call.display()
    ));
}
