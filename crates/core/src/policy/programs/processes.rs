//! Processes and the kernel: kill, pkill, killall, ps, top, sysctl, dmesg and the other system
//! probes.
//!
//! Decided here: a signal to PID 1 or to every process (`kill -9 -1`) is dangerous, and so is
//! killing sshd or the init system; signal 0 only checks that a process exists (`kill -0 1` reads).
//! `sysctl -w` of the kernel's panic and SysRq knobs is dangerous; writing other settings changes
//! the system; `dmesg -c` clears the log.

use super::super::paths::normalise_path;
use super::args::Call;
use super::common::{has_any, has_short, positional};
use super::spec::Spec;
use super::verdict::Verdict;

/// The options pkill and pgrep share (`@use processes-pgrep`).
pub const BLOCKS: &[(&str, &str)] = &[
    (
        "processes-signals",
        "-HUP, -INT, -QUIT, -ILL, -TRAP, -ABRT, -BUS, -FPE
        -KILL, -USR1, -SEGV, -USR2, -PIPE, -ALRM, -TERM, -STKFLT
        -CHLD, -CONT, -STOP, -TSTP, -TTIN, -TTOU, -URG, -XCPU
        -XFSZ, -VTALRM, -PROF, -WINCH, -IO, -POLL, -PWR, -SYS
        -SIGHUP, -SIGINT, -SIGQUIT, -SIGILL, -SIGTRAP, -SIGABRT, -SIGBUS, -SIGFPE
        -SIGKILL, -SIGUSR1, -SIGSEGV, -SIGUSR2, -SIGPIPE, -SIGALRM, -SIGTERM, -SIGSTKFLT
        -SIGCHLD, -SIGCONT, -SIGSTOP, -SIGTSTP, -SIGTTIN, -SIGTTOU, -SIGURG, -SIGXCPU
        -SIGXFSZ, -SIGVTALRM, -SIGPROF, -SIGWINCH, -SIGIO, -SIGPOLL, -SIGPWR, -SIGSYS",
    ),
    (
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
    ),
];

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
               --inverse : dangerous signals every process the pattern does not match
               @use processes-signals",
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
        names: &["killall"],
        family: "processes",
        text: "@read-only
               @operands args
               @numeric
               -e, --exact
               -I, --ignore-case
               -g, --process-group
               -i, --interactive
               -l, --list
               -n X, --ns=X
               -o X, --older-than=X
               -q, --quiet
               -r, --regexp
               -s X, --signal=X
               -u X, --user=X
               -v, --verbose
               -V, --version
               -w, --wait
               -y X, --younger-than=X
               -Z X, --context=X
               @use processes-signals",
        hook: Some(pkill),
    },
    Spec {
        names: &["killall5"],
        family: "processes",
        text: "@read-only
               @operands args
               @numeric
               -o X
               @use processes-signals",
        hook: Some(pkill),
    },
    Spec {
        names: &["skill"],
        family: "processes",
        text: "@read-only
               @operands args
               @numeric
               -f, --fast
               -i, --interactive
               -l, --list
               -L, --table
               -n, --no-action
               -v, --verbose
               -w, --warnings
               -c X, --command=X
               -p X, --pid=X
               -t X, --tty=X
               -u X, --user=X
               --ns=X
               --nslist=X
               -h, --help
               -V, --version
               @use processes-signals",
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
               -C, --clear : deletes clears the kernel log
               -c, --read-clear : deletes clears the kernel log
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
        names: &["ps"],
        family: "processes",
        text: "@read-only
               @operands args
               -A, -e
               -a
               -d
               -N, --deselect
               -C X
               -G X, --Group=X
               -g X, --group=X
               -p X, --pid=X
               --ppid=X
               -q X, --quick-pid=X
               -s X, --sid=X
               -t X, --tty=X
               -u X, --user=X
               -U X, --User=X
               -F
               -f
               --forest
               -H
               -j
               -l
               -M
               -O X
               -o X, --format=X
               -P
               -y
               --context
               --headers
               --no-headers
               --cols=X, --columns=X, --width=X
               --rows=X, --lines=X
               -L
               -m
               -T
               -c
               --sort=X
               --cumulative
               -V, --version
               -w
               --help[=X]
               --info",
        hook: Some(ps),
    },
    Spec {
        names: &["pidof"],
        family: "processes",
        text: "@read-only
               @operands args
               -s
               -c
               -n
               -q
               -x
               -z
               -d X
               -o X",
        hook: Some(probes),
    },
    Spec {
        names: &["top"],
        family: "processes",
        text: "@read-only
               @operands args
               -b, --batch-mode
               -c, --cmdline-toggle
               -d X, --delay=X
               -E X, --scale-summary-mem=X
               -e X, --scale-task-mem=X
               -H, --threads-show
               -i, --idle-toggle
               -n X, --iterations=X
               -O, --list-fields
               -o X, --sort-override=X
               -p X, --pid=X
               -S, --accum-time-toggle
               -s, --secure-mode
               -U X, --filter-any-user=X
               -u X, --filter-only-euser=X
               -w, --width[=X]
               -1, --single-cpu-toggle
               -h, --help
               -V, --version",
        hook: Some(probes),
    },
    Spec {
        names: &["free"],
        family: "processes",
        text: "@read-only
               @operands args
               -b, --bytes
               --kilo
               --mega
               --giga
               --tera
               --peta
               -k, --kibi
               -m, --mebi
               -g, --gibi
               --tebi
               --pebi
               -h, --human
               --si
               -l, --lohi
               -L, --line
               -t, --total
               -v, --committed
               -s X, --seconds=X
               -c X, --count=X
               -w, --wide
               --help
               -V, --version",
        hook: Some(probes),
    },
    Spec {
        names: &["uptime"],
        family: "processes",
        text: "@read-only
               @operands args
               -p, --pretty
               -s, --since
               -h, --help
               -V, --version",
        hook: Some(probes),
    },
    Spec {
        names: &["vmstat"],
        family: "processes",
        text: "@read-only
               @operands args
               -a, --active
               -f, --forks
               -m, --slabs
               -n, --one-header
               -s, --stats
               -d, --disk
               -D, --disk-sum
               -p X, --partition=X
               -S X, --unit=X
               -w, --wide
               -t, --timestamp
               -y, --no-first
               -h, --help
               -V, --version",
        hook: Some(probes),
    },
    Spec {
        names: &["iostat"],
        family: "processes",
        text: "@read-only
               @operands args
               -c
               -d
               -h
               -k
               -m
               -N
               -s
               -t
               -V
               -x
               -y
               -z
               -f X : reads
               -j X
               --compact
               --dec=X
               --human
               --pretty
               -o X
               -H
               -g X
               -p",
        hook: Some(probes),
    },
    Spec {
        names: &["mpstat"],
        family: "processes",
        text: "@read-only
               @operands args
               -A
               -n
               -T
               -u
               -V
               -I X
               -N X
               --dec=X
               -o X
               -P X",
        hook: Some(probes),
    },
    Spec {
        names: &["sar"],
        family: "processes",
        text: "@read-only
               @operands args
               -A
               -B
               -b
               -C
               -D
               -d
               --dec=X
               --dev=X
               -e X
               -F
               -f X : reads
               --fs=X
               -H
               -h
               --help
               --human
               -I
               -i X
               --iface=X
               --int=X
               -j X
               -m X
               -n X
               -o X : writes
               -P X
               -p, --pretty
               -q
               -r
               -S
               -s X
               --sadc
               -t
               -u
               -V
               -v
               -W
               -w
               -x
               -y
               -z",
        hook: Some(probes),
    },
    Spec {
        names: &["lscpu"],
        family: "processes",
        text: "@read-only
               @operands args
               -a, --all
               -b, --online
               -B, --bytes
               -C, --caches[=X]
               -c, --offline
               -J, --json
               -e, --extended[=X]
               -p, --parse[=X]
               -s X, --sysroot=X
               -x, --hex
               -y, --physical
               -r, --raw
               --hierarchic[=X]
               --output-all
               -h, --help
               -V, --version",
        hook: Some(probes),
    },
    Spec {
        names: &["lsof"],
        family: "processes",
        text: "@read-only
               @operands args
               -?, -h
               -a
               -m X : reads
               -A X : reads
               -b
               -c X
               -C
               -d X
               -D X
               -E
               -e X
               -f
               -F[X]
               -g[X]
               -i[X]
               -K[X]
               -k X : reads
               -l
               -L[X]
               -M
               -n
               -N
               -o[X]
               -O
               -p X
               -P
               -Q
               -r[X]
               -R
               -s[X]
               -S[X]
               -t
               -T[X]
               -u X
               -U
               -v
               -V
               -w
               -x[X]
               -X
               -z
               -Z[X]",
        hook: Some(lsof),
    },
    Spec {
        names: &["lsns"],
        family: "processes",
        text: "@read-only
               @operands args
               -J, --json
               -l, --list
               -n, --noheadings
               -o X, --output=X
               --output-all
               -p X, --task=X
               -r, --raw
               -u, --notruncate
               -W, --nowrap
               -t X, --type=X
               -T[X], --tree[=X]
               -P, --persistent
               -Q X, --filter=X
               -H, --list-columns
               -h, --help
               -V, --version",
        hook: Some(probes),
    },
    Spec {
        names: &["lsipc"],
        family: "processes",
        text: "@read-only
               @operands args
               -m, --shmems
               -q, --queues
               -s, --semaphores
               -g, --global
               -i X, --id=X
               --noheadings
               --notruncate
               --time-format=X
               -b, --bytes
               -c, --creator
               -e, --export
               -J, --json
               -n, --newline
               -l, --list
               -o X, --output=X
               -P, --numeric-perms
               -r, --raw
               -t, --time
               -y, --shell
               -h, --help
               -V, --version",
        hook: Some(probes),
    },
    Spec {
        names: &["lslocks"],
        family: "processes",
        text: "@read-only
               @operands args
               -b, --bytes
               -J, --json
               -i, --noinaccessible
               -n, --noheadings
               -o X, --output=X
               --output-all
               -p X, --pid=X
               -r, --raw
               -u, --notruncate
               -H, --list-columns
               -h, --help
               -V, --version",
        hook: Some(probes),
    },
    Spec {
        names: &["lsmem"],
        family: "processes",
        text: "@read-only
               @operands args
               -J, --json
               -P, --pairs
               -a, --all
               -b, --bytes
               -n, --noheadings
               -o X, --output=X
               --output-all
               -r, --raw
               -S X, --split=X
               -s X, --sysroot=X
               --summary[=X]
               -h, --help
               -V, --version",
        hook: Some(probes),
    },
    Spec {
        names: &["hostname"],
        family: "processes",
        text: "@read-only
               @operands args
               -a, --alias
               -A, --all-fqdns
               -b, --boot
               -d, --domain
               -f, --fqdn, --long
               -F X, --file=X : changes sets the host name from a file
               -i, --ip-address
               -I, --all-ip-addresses
               -s, --short
               -y, --yp, --nis
               -V, --version
               -h, --help",
        hook: Some(probes),
    },
    Spec {
        names: &["ldd"],
        family: "processes",
        text: "@read-only
               @operands args
               --help
               --version
               -d, --data-relocs
               -r, --function-relocs
               -u, --unused
               -v, --verbose",
        hook: Some(probes),
    },
    Spec {
        names: &["locale"],
        family: "processes",
        text: "@read-only
               @operands args
               -a, --all-locales
               -m, --charmaps
               -c, --category-name
               -k, --keyword-name
               -v, --verbose
               -?, --help
               --usage
               -V, --version",
        hook: Some(probes),
    },
    Spec {
        names: &["pstree"],
        family: "processes",
        text: "@read-only
               @operands args
               -a, --arguments
               -A, --ascii
               -c, --compact-not
               -C X, --color=X
               -g, --show-pgids
               -G, --vt100
               -h, --highlight-all
               -H X, --highlight-pid=X
               -l, --long
               -n, --numeric-sort
               -N X, --ns-sort=X
               -p, --show-pids
               -s, --show-parents
               -S, --ns-changes
               -t, --thread-names
               -T, --hide-threads
               -u, --uid-changes
               -U, --unicode
               -V, --version
               -Z, --security-context",
        hook: Some(probes),
    },
    Spec {
        names: &["pmap"],
        family: "processes",
        text: "@read-only
               @operands args
               -x, --extended
               -X
               -XX
               -c, --read-rc
               -C X, --read-rc-from=X : reads
               -n, --create-rc : changes writes its settings file in the home folder
               -N X, --create-rc-to=X : writes
               -d, --device
               -q, --quiet
               -p, --show-path
               -A X, --range=X
               -h, --help
               -V, --version",
        hook: Some(probes),
    },
    Spec {
        names: &["sensors"],
        family: "processes",
        text: "@read-only
               @operands args
               -c X, --config-file=X : reads
               -h, --help
               -s, --set : changes applies the configuration's set statements to the hardware
               -f, --fahrenheit
               -A, --no-adapter
               --bus-list
               -u
               -j
               -v, --version",
        hook: Some(probes),
    },
    Spec {
        names: &["lsmod"],
        family: "processes",
        text: "@read-only
               @operands args
               -h, --help
               -V, --version",
        hook: Some(probes),
    },
    Spec {
        names: &["lspci"],
        family: "processes",
        text: "@read-only
               @operands args
               -m, -mm
               -t
               -v, -vv, -vvv
               -k
               -x, -xxx, -xxxx
               -b
               -D
               -P, -PP
               -n, -nn
               -q, -qq
               -Q
               -s X
               -d X
               -i X : reads
               -p X : reads
               -M
               -A X
               -O X
               -G
               -H X
               -F X : reads
               --version",
        hook: Some(probes),
    },
    Spec {
        names: &["lsusb"],
        family: "processes",
        text: "@read-only
               @operands args
               -v, --verbose
               -s X
               -d X
               -D X
               -t, --tree
               -V, --version
               -h, --help",
        hook: Some(probes),
    },
    Spec {
        names: &["iotop"],
        family: "processes",
        text: "@read-only
               @operands args
               --version
               -h, --help
               -o, --only
               -b, --batch
               -n X, --iter=X
               -d X, --delay=X
               -p X, --pid=X
               -u X, --user=X
               -P, --processes
               -a, --accumulated
               -k, --kilobytes
               -t, --time
               -q, --quiet
               --no-help",
        hook: Some(interactive),
    },
    Spec {
        names: &["htop"],
        family: "processes",
        text: "@operands args
               -C, --no-color, --no-colour
               -d X, --delay=X
               -F X, --filter=X
               -h, --help
               -H, --highlight-changes[=X]
               -M, --no-mouse
               -p X, --pid=X
               --readonly
               -s X, --sort-key=X
               -t, --tree
               -u, --user[=X]
               -U, --no-unicode
               --no-meters
               --no-function-bar
               -V, --version",
        hook: Some(interactive),
    },
    Spec {
        names: &["btop"],
        family: "processes",
        text: "@operands args
               -h, --help
               -v, --version
               -lc, --low-color
               -t, --tty_on
               --tty_off
               -p X, --preset=X
               --utf-force
               --debug",
        hook: Some(interactive),
    },
    Spec {
        names: &["atop"],
        family: "processes",
        text: "@operands args
               -V
               -a
               -R
               -W
               -P X
               -J X
               -Z
               -L X
               -k
               -K
               -f
               -F
               -G
               -l
               -y
               -Y
               -1
               -x
               -g
               -m
               -d
               -n
               -s
               -v
               -c
               -X
               -o
               -u
               -p
               -j
               -C
               -M
               -D
               -N
               -E
               -A
               -w X : writes
               -r X : reads
               -S
               -b X
               -e X
               -B X
               -z",
        hook: Some(interactive),
    },
    Spec {
        names: &["glances"],
        family: "processes",
        text: "@operands args
               -h, --help
               -V, --version
               -d, --debug
               -C X, --config=X : reads
               -P X, --plugin-dir=X : unprovable loads plugins from a folder
               --modules-list, --module-list
               --disable-plugin=X, --disable-plugins=X
               --enable-plugin=X, --enable-plugins=X
               --disable-process
               --enable-process
               --disable-webui
               --light, --enable-light
               -0, --disable-irix
               -1, --percpu
               -2, --disable-left-sidebar
               -3, --disable-quicklook
               -4, --full-quicklook
               -5, --disable-top
               -6, --meangpu
               --disable-history
               --disable-bold
               --disable-bg
               --enable-irq
               --enable-process-extended
               --disable-separator
               --separator, --enable-separator
               --programs, --program
               --enable-history
               --export-graph-path=X : writes-into
               --sort-processes=X
               --export=X : network sends the statistics to another system
               --export-csv-file=X : writes
               --export-json-file=X : writes
               --export-process-filter=X
               --export-csv-overwrite
               -c X, --client=X
               -s, --server : changes starts a server
               --browser
               --disable-autodiscover
               -p X, --port=X
               -B X, --bind=X
               --username
               --password
               -u X
               --snmp-community=X
               --snmp-port=X
               --snmp-version=X
               --snmp-user=X
               --snmp-auth=X
               --snmp-force
               -t X, --time=X
               -w, --webserver : changes starts a web server
               --cached-time=X
               --stop-after=X
               --open-web-browser
               -q, --quiet
               -f X, --process-filter=X
               --process-short-name
               --process-long-name
               --stdout=X
               --stdout-csv=X
               --stdout-json=X
               --issue
               --trace-malloc
               --memory-leak
               --api-doc
               --hide-kernel-threads
               -b, --byte
               --diskio-show-ramfs
               --diskio-iops
               --fahrenheit
               --fs-free-space
               --sparkline
               --disable-unicode
               --theme-white
               --disable-check-update
               --strftime=X
               --fetch",
        hook: Some(interactive),
    },
];

/// `kill [-s SIG | -SIG | -n N] PID…`, `kill -l`: what is signalled, and with which signal.
/// A signal as kill spells it: a number, or a name with or without `SIG` (`RTMIN+3` too).
fn is_signal(word: &str) -> bool {
    const NAMES: &[&str] = &[
        "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "IOT", "BUS", "FPE", "KILL", "USR1", "SEGV",
        "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CLD", "CONT", "STOP", "TSTP", "TTIN",
        "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "POLL", "PWR", "SYS",
        "UNUSED", "EXIT", "RTMIN", "RTMAX",
    ];
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_digit()) {
        return true;
    }
    let upper = word.to_ascii_uppercase();
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    let base = name.split(['+', '-']).next().unwrap_or(name);
    let offset_ok = name[base.len()..]
        .get(1..)
        .is_none_or(|number| !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()));
    NAMES.contains(&base) && offset_ok && (base.starts_with("RT") || base.len() == name.len())
}

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
        } else if text == "--timeout" {
            // `--timeout MS SIGNAL`: a follow-up signal, as strong as the first.
            index += 2;
        } else if matches!(
            text,
            "-l" | "-L"
                | "--list"
                | "--table"
                | "-h"
                | "--help"
                | "-V"
                | "--version"
                | "-p"
                | "--pid"
        ) || text.starts_with("--list=")
        {
            lists = true;
        } else if matches!(
            text,
            "-a" | "--all" | "--verbose" | "-r" | "--require-handler"
        ) {
            // util-linux's: which processes match, what it prints, whether it sends.
        } else if signal.is_none() && targets.is_empty() && is_signal(&text[1..]) {
            // `-9`, `-KILL`, `-SIGTERM`: the signal (only before the first PID).
            signal = Some(text[1..].to_owned());
        } else if text[1..].chars().all(|c| c.is_ascii_digit()) {
            // `-1` after the signal: every process; `-123`: a process group.
            targets.push(text);
        } else {
            verdict.unprovable(format!(
                "option {text} of kill is not known to kaiport's rules"
            ));
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
    // `-p FILE`/`-f FILE` load settings from a file, which may set the panic knobs below; the
    // system's own settings files are what `sysctl --system` loads anyway.
    if call.has("--load") || call.has("-f") {
        let files: Vec<&str> = call
            .options
            .iter()
            .filter(|found| found.def.has("--load") || found.def.has("-f"))
            .filter_map(|found| found.value.as_deref())
            .chain(
                call.operand_texts()
                    .into_iter()
                    .filter(|word| !word.contains('=')),
            )
            .collect();
        let system = |file: &str| {
            let file = normalise_path(file, None);
            file == "/etc/sysctl.conf"
                || [
                    "/etc/sysctl.d/",
                    "/usr/lib/sysctl.d/",
                    "/lib/sysctl.d/",
                    "/run/sysctl.d/",
                ]
                .iter()
                .any(|folder| file.starts_with(folder))
        };
        if let Some(file) = files.iter().find(|file| !system(file)) {
            verdict.unprovable(format!(
                "`{display}` loads kernel settings from {file}, which can set knobs that crash or take over the machine"
            ));
        }
    }
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

/// ps's BSD options are words without a dash (`ps aux`, `ps o pid,cmd p 1`): each must be known.
fn ps(call: &Call<'_>, verdict: &mut Verdict) {
    // The BSD letters, and those that take the next word as their value.
    const LETTERS: &str = "arTxpqtUfjlZOosuvXHmcekLnSVwg";
    const VALUED: &str = "pqtUOok";
    let mut value_next = false;
    for word in call.operand_texts() {
        if value_next {
            value_next = false;
            continue;
        }
        if word.chars().all(|c| LETTERS.contains(c)) {
            value_next = word.chars().last().is_some_and(|c| VALUED.contains(c));
            continue;
        }
        verdict.unprovable(format!(
            "option {word} of ps is not known to kaiport's rules"
        ));
    }
    probes(call, verdict);
}

/// lsof's `+` options (`+D DIR`, `+L1`) are read as operands: each must be known.
fn lsof(call: &Call<'_>, verdict: &mut Verdict) {
    for word in call.operand_texts() {
        let Some(rest) = word.strip_prefix('+') else {
            continue;
        };
        if !rest.starts_with(['c', 'd', 'D', 'e', 'E', 'f', 'L', 'm', 'M', 'r', 'w']) {
            verdict.unprovable(format!(
                "option {word} of lsof is not known to kaiport's rules"
            ));
        }
    }
}
