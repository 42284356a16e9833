//! Processes and the kernel: kill, pkill, killall, ps, top, sysctl, dmesg and the other system
//! probes.
//!
//! Decided here: a signal to PID 1 or to every process (`kill -9 -1`) is dangerous, and so is
//! killing sshd or the init system; signal 0 only checks that a process exists (`kill -0 1` reads).
//! `sysctl -w` of the kernel's panic and SysRq knobs is dangerous; writing other settings changes
//! the system; `dmesg -c` clears the log.

use super::args::Call;
use super::common::{has_any, has_short, positional};
use super::spec::Spec;
use super::verdict::Verdict;

/// The options pkill and pgrep share (`@use processes-pgrep`).
pub const BLOCKS: &[(&str, &str)] = &[(
    "processes-pgrep",
    "-c, --count
        -f, --full
        -g X, --pgroup=X
        -G X, --group=X
        -i, --ignore-case
        -n, --newest
        -o, --oldest
        -O X, --older=X
        -P X, --parent=X
        -s X, --session=X
        -t X, --terminal=X
        -u X, --euid=X
        -U X, --uid=X
        -x, --exact
        -F X, --pidfile=X : reads
        -L, --logpidfile
        -r X, --runstates=X
        -A, --ignore-ancestors
        --cgroup=X
        --ns=X
        --nslist=X
        -h, --help
        -V, --version",
)];

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["kill"],
        family: "processes",
        text: "@read-only
               @opaque",
        hook: Some(kill),
    },
    Spec {
        names: &["pkill"],
        family: "processes",
        text: "@read-only
               @operands args
               @numeric
               @use processes-pgrep
               --signal=X
               -q X, --queue=X
               -e, --echo
               -HUP, -INT, -QUIT, -ILL, -TRAP, -ABRT, -BUS, -FPE
               -KILL, -USR1, -SEGV, -USR2, -PIPE, -ALRM, -TERM, -STKFLT
               -CHLD, -CONT, -STOP, -TSTP, -TTIN, -TTOU, -URG, -XCPU
               -XFSZ, -VTALRM, -PROF, -WINCH, -IO, -POLL, -PWR, -SYS
               -SIGHUP, -SIGINT, -SIGQUIT, -SIGILL, -SIGTRAP, -SIGABRT, -SIGBUS, -SIGFPE
               -SIGKILL, -SIGUSR1, -SIGSEGV, -SIGUSR2, -SIGPIPE, -SIGALRM, -SIGTERM, -SIGSTKFLT
               -SIGCHLD, -SIGCONT, -SIGSTOP, -SIGTSTP, -SIGTTIN, -SIGTTOU, -SIGURG, -SIGXCPU
               -SIGXFSZ, -SIGVTALRM, -SIGPROF, -SIGWINCH, -SIGIO, -SIGPOLL, -SIGPWR, -SIGSYS",
        hook: Some(pkill),
    },
    Spec {
        names: &["pgrep"],
        family: "processes",
        text: "@read-only
               @operands args
               @use processes-pgrep
               -d X, --delimiter=X
               -l, --list-name
               -a, --list-full
               -v, --inverse
               -w, --lightweight",
        hook: None,
    },
    Spec {
        names: &["killall", "killall5", "skill", "slay"],
        family: "processes",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(pkill),
    },
    Spec {
        names: &["sysctl"],
        family: "processes",
        text: "@read-only
               @operands args
               -a, -A, -X, --all
               -b, --binary
               -e, --ignore
               -N, --names
               -n, --values
               -p[FILE], --load[=FILE] : changes loads kernel settings from a file
               -f FILE
               --system : changes loads every kernel settings file
               -r PATTERN, --pattern=PATTERN
               -q, --quiet
               -w, --write : changes writes kernel settings
               -o
               -x
               -d
               -h, --help
               -V, --version
               --deprecated
               --dry-run",
        hook: Some(sysctl),
    },
    Spec {
        names: &["dmesg"],
        family: "processes",
        text: "@read-only
               @operands args
               -C, --clear : changes clears the kernel log
               -c, --read-clear : changes clears the kernel log
               -D, --console-off : changes changes the console log level
               -E, --console-on : changes changes the console log level
               -F X, --file=X : reads
               -f X, --facility=X
               -H, --human
               -J, --json
               -k, --kernel
               -L
               --color[=X]
               -l X, --level=X
               -n X, --console-level=X : changes changes the console log level
               -P, --nopager
               -p, --force-prefix
               -r, --raw
               --noescape
               -S, --syslog
               -s X, --buffer-size=X
               -u, --userspace
               -w, --follow
               -W, --follow-new
               -x, --decode
               -d, --show-delta
               -e, --reltime
               -T, --ctime
               -t, --notime
               --time-format=X
               --since=X
               --until=X
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &[
            "ps", "pidof", "top", "free", "uptime", "vmstat", "iostat", "mpstat", "sensors",
            "lscpu", "lsmod", "lspci", "lsusb", "lsof", "lsns", "lsipc", "lslocks", "lsmem",
            "hostname", "ldd", "locale", "pstree", "iotop", "sar", "pmap",
        ],
        family: "processes",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(probes),
    },
    Spec {
        names: &["htop", "btop", "atop", "glances"],
        family: "processes",
        text: "@loose
               @opaque",
        hook: Some(interactive),
    },
];

/// `kill [-s SIG | -SIG | -n N] PID…`, `kill -l`: what is signalled, and with which signal.
fn kill(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let display = call.display();
    let mut signal: Option<String> = None;
    let mut targets: Vec<&str> = Vec::new();
    let mut index = 0;
    let mut options_done = false;
    let mut lists = false;
    while let Some(arg) = args.get(index) {
        let text = arg.as_str();
        if options_done || !text.starts_with('-') || text == "-" {
            targets.push(text);
        } else if text == "--" {
            options_done = true;
        } else if matches!(text, "-s" | "--signal" | "-n" | "-q" | "--queue") {
            if text != "-q" && text != "--queue" {
                signal = args.get(index + 1).cloned();
            }
            index += 1;
        } else if matches!(
            text,
            "-l" | "-L" | "--list" | "--table" | "-h" | "--help" | "-V" | "--version"
        ) || text.starts_with("--list=")
        {
            lists = true;
        } else if signal.is_none() && targets.is_empty() {
            // `-9`, `-KILL`, `-SIGTERM`: the signal (only before the first PID).
            signal = Some(text[1..].to_owned());
        } else {
            // `-1` after the signal: every process; `-123`: a process group.
            targets.push(text);
        }
        index += 1;
    }
    let checks_only = signal
        .as_deref()
        .is_some_and(|signal| matches!(signal, "0" | "SIG0" | "EXIT"));
    if lists || checks_only {
        return;
    }
    verdict.not_read_only(format!("`{display}` sends a signal to processes"));
    if targets.iter().any(|pid| matches!(*pid, "1" | "-1")) {
        verdict.dangerous(&display, "signals PID 1 or every process");
    }
    // `kill $(pidof sshd)`, `kill -9 $(cat /run/sshd.pid)`.
    if targets.iter().any(|pid| pid.contains("sshd")) {
        verdict.dangerous(&display, "kills sshd");
    }
}

fn pkill(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let display = call.display();
    if call.name == "killall5"
        || args.iter().any(|arg| {
            arg.contains("sshd")
                || arg == "ssh"
                || arg == "systemd"
                || arg == "init"
                || arg.ends_with("/systemd")
        })
    {
        verdict.dangerous(&display, "kills sshd or the init system");
    }
    let checks_only = args.iter().any(|arg| arg == "-0" || arg == "--signal=0")
        || args
            .windows(2)
            .any(|pair| pair[0] == "--signal" && pair[1] == "0");
    if !checks_only {
        verdict.not_read_only(format!("`{display}` sends a signal to processes"));
    }
}

/// Kernel settings whose change can stop or crash the machine on purpose.
fn panic_knob(key: &str) -> bool {
    let key = key.replace('/', ".");
    key.starts_with("kernel.panic")
        || key.ends_with("_panic")
        || key.contains("panic_on")
        || key == "kernel.sysrq"
        || key == "vm.panic_on_oom"
        || key == "kernel.hung_task_panic"
        || key == "kernel.ctrl-alt-del"
        || key == "kernel.poweroff_cmd"
        || key == "kernel.modprobe"
        || key == "kernel.core_pattern"
}

fn sysctl(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    for operand in call.operand_texts() {
        if let Some((key, _)) = operand.split_once('=') {
            verdict.not_read_only(format!("`{display}` writes kernel settings"));
            if panic_knob(key) {
                verdict.dangerous(
                    &display,
                    &format!("sets {key}, a kernel setting that can crash, reboot or take over the machine"),
                );
            }
        }
    }
}

fn probes(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let changes = match call.name {
        "hostname" => {
            !positional(args).is_empty()
                || has_short(args, "bF")
                || has_any(args, &["--file", "--boot"])
        }
        "top" => !has_short(args, "b"),
        _ => false,
    };
    if changes {
        verdict.not_read_only(format!(
            "`{}` is not read-only with these arguments (plan mode allows only reading forms)",
            call.display()
        ));
    }
}

fn interactive(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.not_read_only(format!(
        "`{}` is interactive; plan mode runs only commands that end by themselves",
        call.display()
    ));
}
