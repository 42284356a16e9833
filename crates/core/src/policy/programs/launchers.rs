//! Launchers: programs that start another command with other privileges, limits, a sandbox or a
//! fake clock (`setpriv`, `prlimit`, `numactl`, `setarch`, `capsh`, `firejail`, `bwrap`, `cgexec`,
//! `chpst`, `setuidgid`, `daemonize`, `start-stop-daemon`, `schedtool`, `cpulimit`, `trickle`,
//! `torify`, `faketime`, `valgrind`). Like the wrappers (`wrappers.rs`), the command they start
//! is peeled off and judged as if typed; their own options are judged here.
//!
//! This module must never let a launcher's word be taken for the command when the launcher reads
//! it itself (a `setarch` architecture, a `bwrap --bind SRC DEST` pair, the options `cpulimit`
//! takes from after the program's name): where that cannot be told, it asks.

use super::args::Call;
use super::common::skip_assignments;
use super::judge_options_from;
use super::model::Arity;
use super::spec::Spec;
use super::verdict::{Payload, Shape, Verdict};
use super::wrappers::second_operand;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["setpriv"],
        family: "launchers",
        text: "@read-only
               @operands command
               @posix
               -d, --dump
               --nnp, --no-new-privs
               --ambient-caps=CAPS
               --inh-caps=CAPS
               --bounding-set=CAPS
               --ruid=UID
               --euid=UID
               --rgid=GID
               --egid=GID
               --reuid=UID
               --regid=GID
               --clear-groups
               --keep-groups
               --init-groups
               --groups=GROUPS
               --securebits=BITS
               --pdeathsig=SIGNAL
               --selinux-label=LABEL
               --apparmor-profile=PROFILE
               --reset-env
               -L, --list-caps
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["prlimit"],
        family: "launchers",
        text: "@read-only
               @operands command
               @posix
               -p PID, --pid=PID
               -o LIST, --output=LIST
               --noheadings
               --raw
               --verbose
               -h, --help
               -V, --version
               -c[LIMIT], --core[=LIMIT]
               -d[LIMIT], --data[=LIMIT]
               -e[LIMIT], --nice[=LIMIT]
               -f[LIMIT], --fsize[=LIMIT]
               -i[LIMIT], --sigpending[=LIMIT]
               -l[LIMIT], --memlock[=LIMIT]
               -m[LIMIT], --rss[=LIMIT]
               -n[LIMIT], --nofile[=LIMIT]
               -q[LIMIT], --msgqueue[=LIMIT]
               -r[LIMIT], --rtprio[=LIMIT]
               -s[LIMIT], --stack[=LIMIT]
               -t[LIMIT], --cpu[=LIMIT]
               -u[LIMIT], --nproc[=LIMIT]
               -v[LIMIT], --as[=LIMIT]
               -x[LIMIT], --locks[=LIMIT]
               -y[LIMIT], --rttime[=LIMIT]",
        hook: Some(prlimit),
    },
    Spec {
        names: &["numactl"],
        family: "launchers",
        text: "@read-only
               @operands command
               @posix
               -a, --all
               -b, --balancing
               -i NODES, --interleave=NODES
               -p NODE, --preferred=NODE
               -P NODES, --preferred-many=NODES
               -C CPUS, --physcpubind=CPUS
               -c NODES, --cpubind=NODES
               -N NODES, --cpunodebind=NODES
               -m NODES, --membind=NODES
               -l, --localalloc
               -s, --show
               -H, --hardware
               -L LENGTH, --length=LENGTH
               -o OFFSET, --offset=OFFSET
               -M MODE, --shmmode=MODE
               -t, --strict
               -I ID, --shmid=ID
               -S FILE, --shm=FILE : changes sets the memory policy of a shared memory segment
               -f FILE, --file=FILE : changes sets the memory policy of a file in a tmpfs
               -u, --huge
               -T, --touch
               -d, --dump
               -D, --dump-nodes
               -V, --version",
        hook: Some(numactl),
    },
    Spec {
        names: &["setarch", "linux32", "linux64", "i386", "x86_64"],
        family: "launchers",
        text: "@read-only
               @opaque
               -B, --32bit
               -F, --fdpic-funcptrs
               -I, --short-inode
               -L, --addr-compat-layout
               -R, --addr-no-randomize
               -S, --whole-seconds
               -T, --sticky-timeouts
               -X, --read-implies-exec
               -Z, --mmap-page-zero
               -3, --3gb
               --4gb
               --uname-2.6
               -v, --verbose
               --list
               -h, --help
               -V, --version",
        hook: Some(setarch),
    },
    Spec {
        names: &["capsh"],
        family: "launchers",
        text: "@read-only
               @opaque
               --addamb=CAPS
               --cap-uid=UID
               --caps=CAPS
               --chroot=PATH
               --current
               --decode=HEX
               --delamb=CAPS
               --drop=CAPS
               --explain=CAP
               --forkfor=SECONDS
               --gid=GID
               --groups=GROUPS
               --has-a=CAP
               --has-b=CAP
               --has-ambient
               --has-i=CAP
               --has-p=CAP
               --has-no-new-privs
               -h, --help
               --iab=TEXT
               --inh=CAPS
               --inmode=MODE
               --is-uid=UID
               --is-gid=GID
               --keep=N
               --killit=SIGNAL
               --license
               --mode[=MODE]
               --modes
               --no-new-privs
               --noamb
               --noenv
               --print
               --quiet
               --secbits=N
               --shell=PROGRAM : judged the shell `--` runs
               --strict
               --suggest=TEXT
               --supports=CAP
               --uid=UID
               --user=NAME",
        hook: Some(capsh),
    },
    Spec {
        names: &["firejail"],
        family: "launchers",
        text: FIREJAIL,
        hook: Some(firejail),
    },
    Spec {
        names: &["bwrap"],
        family: "launchers",
        text: "@read-only
               @opaque
               --help
               --version
               --args FD : unprovable reads more arguments from a file descriptor
               --argv0 VALUE
               --level-prefix
               --unshare-all
               --share-net
               --unshare-user
               --unshare-user-try
               --unshare-ipc
               --unshare-pid
               --unshare-net
               --unshare-uts
               --unshare-cgroup
               --unshare-cgroup-try
               --userns FD
               --userns2 FD
               --disable-userns
               --assert-userns-disabled
               --pidns FD
               --uid UID
               --gid GID
               --hostname NAME
               --chdir DIR
               --clearenv
               --setenv VAR : judged sets a variable for the command it runs
               --unsetenv VAR
               --lock-file DEST : writes
               --sync-fd FD
               --bind SRC : judged binds a host folder read-write
               --bind-try SRC : judged binds a host folder read-write
               --dev-bind SRC : judged binds a host folder read-write
               --dev-bind-try SRC : judged binds a host folder read-write
               --ro-bind SRC
               --ro-bind-try SRC
               --bind-fd FD : unprovable binds the folder of a file descriptor read-write
               --ro-bind-fd FD
               --remount-ro DEST
               --overlay-src SRC
               --overlay RWSRC : judged writes the changes into a host folder
               --tmp-overlay DEST
               --ro-overlay DEST
               --exec-label LABEL
               --file-label LABEL
               --proc DEST
               --dev DEST
               --tmpfs DEST
               --mqueue DEST
               --dir DEST : writes
               --file FD : judged writes a file
               --bind-data FD : judged writes a file
               --ro-bind-data FD
               --symlink SRC : judged writes a link
               --seccomp FD
               --add-seccomp-fd FD
               --block-fd FD
               --userns-block-fd FD
               --info-fd FD
               --json-status-fd FD
               --new-session
               --die-with-parent
               --as-pid-1
               --cap-add CAP
               --cap-drop CAP
               --perms OCTAL
               --size BYTES
               --chmod OCTAL : judged changes the permissions of a path",
        hook: Some(bwrap),
    },
    Spec {
        names: &["cgexec"],
        family: "launchers",
        text: "@read-only
               @operands command
               @posix
               -g CONTROLLERS
               -h, --help
               --sticky",
        hook: None,
    },
    Spec {
        names: &["chpst"],
        family: "launchers",
        text: "@read-only
               @operands command
               @posix
               -u USER
               -U USER
               -b ARGV0
               -e DIR : unprovable sets the environment of the command it runs from the files in a folder (LD_PRELOAD, PATH)
               -/ ROOT
               -n INC
               -l LOCK : writes
               -L LOCK : writes
               -m BYTES
               -d BYTES
               -o N
               -p N
               -f BYTES
               -c BYTES
               -r BYTES
               -t SECONDS
               -v
               -V
               -P
               -0
               -1
               -2",
        hook: None,
    },
    Spec {
        names: &["setuidgid", "envuidgid"],
        family: "launchers",
        text: "@read-only
               @operands command
               @posix",
        hook: Some(second_operand),
    },
    Spec {
        names: &["envdir"],
        family: "launchers",
        text: "@read-only
               @operands command
               @posix",
        hook: Some(envdir),
    },
    Spec {
        names: &["softlimit"],
        family: "launchers",
        text: "@read-only
               @operands command
               @posix
               -m BYTES
               -d BYTES
               -s BYTES
               -l BYTES
               -a BYTES
               -o N
               -p N
               -f BYTES
               -c BYTES
               -r BYTES
               -t SECONDS",
        hook: None,
    },
    Spec {
        names: &["setlock"],
        family: "launchers",
        text: "@read-only
               @operands command
               @posix
               -n
               -N
               -x
               -X",
        hook: Some(setlock),
    },
    Spec {
        names: &["pgrphack", "fghack"],
        family: "launchers",
        text: "@read-only
               @operands command
               @posix",
        hook: None,
    },
    Spec {
        names: &["daemonize"],
        family: "launchers",
        text: "@operands command
               @posix
               -a
               -c DIR
               -e FILE : writes
               -E NAME : judged sets a variable for the command it runs
               -o FILE : writes
               -p FILE : writes
               -l FILE : writes
               -u USER
               -v",
        hook: Some(daemonize),
    },
    Spec {
        names: &["start-stop-daemon"],
        family: "launchers",
        text: "@read-only
               -S, --start : changes starts a program in the background
               -K, --stop : changes sends a signal to the processes it matches
               -T, --status
               -H, --help
               -V, --version
               --pid=PID
               --ppid=PPID
               -p FILE, --pidfile=FILE : reads
               -x FILE, --exec=FILE : judged the program it starts
               -n NAME, --name=NAME
               -u USER, --user=USER
               -g GROUP, --group=GROUP
               -c USER, --chuid=USER
               -s SIGNAL, --signal=SIGNAL
               -a PATH, --startas=PATH : judged the program it starts
               -r DIR, --chroot=DIR
               -d DIR, --chdir=DIR
               -N INC, --nicelevel=INC
               -P POLICY, --procsched=POLICY
               -I CLASS, --iosched=CLASS
               -k MASK, --umask=MASK
               -b, --background
               --notify-await
               --notify-timeout=SECONDS
               -C, --no-close
               -O FILE, --output=FILE : writes
               -m, --make-pidfile : judged writes the pid file
               --remove-pidfile : judged deletes the pid file
               -R SCHEDULE, --retry=SCHEDULE
               -t, --test
               -o, --oknodo
               -q, --quiet
               -v, --verbose",
        hook: Some(start_stop_daemon),
    },
    Spec {
        names: &["schedtool"],
        family: "launchers",
        text: "@read-only
               @operands command
               @posix
               -N
               -F
               -R
               -B
               -I
               -D
               -M POLICY
               -p PRIORITY
               -n NICE
               -a AFFINITY
               -e
               -r
               -v
               -h",
        hook: Some(schedtool),
    },
    Spec {
        names: &["cpulimit"],
        family: "launchers",
        text: "@read-only
               @operands command
               -p PID, --pid=PID : changes limits a running process
               -e FILE, --exe=FILE : changes limits a running program
               -P PATH, --path=PATH : changes limits a running program
               -b, --background
               -f, --foreground
               -c N, --cpu=N
               -l N, --limit=N
               -m, --monitor-forks
               -q, --quiet
               -k, --kill : changes kills the processes over their limit
               -r, --restore
               -s SIGNAL, --signal=SIGNAL
               -v, --verbose
               -z, --lazy
               -h, --help",
        hook: Some(cpulimit),
    },
    Spec {
        names: &["trickle"],
        family: "launchers",
        text: "@read-only
               @operands command
               @posix
               -h
               -v
               -V
               -s
               -d RATE
               -u RATE
               -w LENGTH
               -t SECONDS
               -l LENGTH
               -n PATH
               -L MS
               -P LIBRARY : unprovable loads a library into the command it runs",
        hook: None,
    },
    Spec {
        names: &["torify"],
        family: "launchers",
        text: "@operands command
               @posix
               -h, --help
               -v, --verbose",
        hook: Some(torify),
    },
    Spec {
        names: &["faketime"],
        family: "launchers",
        text: "@read-only
               @operands command
               @posix
               -m
               -f
               --exclude-monotonic
               -p PID
               --date-prog=PROGRAM : runs date gdate
               --disable-shm
               --help
               --version",
        hook: Some(second_operand),
    },
    Spec {
        names: &["valgrind"],
        family: "launchers",
        text: VALGRIND,
        hook: None,
    },
];

/// `prlimit --pid PID --nofile=…` changes a running process's limits; with `--pid` it runs
/// nothing.
fn prlimit(call: &Call<'_>, verdict: &mut Verdict) {
    if call.has("--pid") {
        verdict.shape = Shape::Plain;
        let sets = call
            .options
            .iter()
            .any(|found| found.def.arity == Arity::Optional && found.value.is_some());
        if sets {
            verdict.not_read_only(format!(
                "`{}` changes the limits of a running process",
                call.display()
            ));
        }
    }
}

/// `numactl --show`, `--hardware` and the shared memory forms run nothing.
fn numactl(call: &Call<'_>, verdict: &mut Verdict) {
    if ["--show", "--hardware", "--shm", "--file"]
        .iter()
        .any(|option| call.has(option))
    {
        verdict.shape = Shape::Plain;
    }
}

/// `setarch [ARCH] [options] [program [args]]`: the architecture comes first (not for `linux32`
/// and the other names of the same program), the options after it; without a program it starts
/// a shell.
fn setarch(call: &Call<'_>, verdict: &mut Verdict) {
    let start = usize::from(
        call.name == "setarch" && call.args.first().is_some_and(|word| !word.starts_with('-')),
    );
    let program = judge_options_from(call, start, verdict);
    let own = &call.args[start.min(program)..program];
    if own.iter().any(|word| {
        matches!(
            word.as_str(),
            "--list" | "--help" | "-h" | "--version" | "-V"
        )
    }) {
        verdict.shape = Shape::Plain;
        return;
    }
    verdict.shape = if program < call.args.len() {
        Shape::Wrapper {
            inner_starts: program,
            note: None,
        }
    } else {
        Shape::Shell {
            payload: Payload::Stdin,
        }
    };
}

/// The shells `capsh --shell=…` may name and still be read as bash is (`-c 'command'`).
const SHELLS: &[&str] = &["bash", "sh", "dash", "zsh"];

/// `capsh [options] [-- ARGS]`: the options act in order; `--` (and `-+`) runs bash (or the
/// `--shell`) with the rest, `==` (and `=+`) runs capsh again with the rest, which reads the same
/// as going on. Only `-- -c 'command'` and a bare `--` are read; other shell arguments ask.
fn capsh(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.shape = Shape::Plain;
    let args = call.args;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        match arg.as_str() {
            "==" | "=+" => index += 1,
            "--" | "-+" => {
                capsh_shell(call, index + 1, verdict);
                return;
            }
            _ => {
                let (name, value) = arg.split_once('=').unwrap_or((arg, ""));
                let known = call.root.options.iter().any(|def| def.has(name));
                if !known || !name.starts_with("--") && name != "-h" {
                    verdict.unprovable(format!(
                        "option {arg} of capsh is not known to kaiport's rules"
                    ));
                    return;
                }
                if name == "--shell" {
                    let system = ["", "/bin/", "/usr/bin/"].iter().any(|folder| {
                        value
                            .strip_prefix(folder)
                            .is_some_and(|shell| SHELLS.contains(&shell))
                    });
                    if !system {
                        verdict.unprovable(format!(
                            "`capsh --shell={value}` runs another program as the shell, which cannot be checked"
                        ));
                    }
                }
                index += 1;
            }
        }
    }
}

/// What `capsh … --` gives the shell, from `args[start..]`.
fn capsh_shell(call: &Call<'_>, start: usize, verdict: &mut Verdict) {
    let rest = &call.args[start.min(call.args.len())..];
    verdict.shape = match rest {
        [] => Shape::Shell {
            payload: Payload::Stdin,
        },
        [flag, ..] if flag == "-c" && rest.len() > 1 => Shape::Shell {
            payload: Payload::Argument(start + 1),
        },
        _ => Shape::Unprovable(format!(
            "`{}` runs the shell with arguments kaiport's rules cannot follow; write it as `capsh … -- -c 'command'`",
            call.display()
        )),
    };
}

/// firejail: the program is the first operand; `-c 'command'` is a login shell's command line;
/// the options that work on another sandbox (`--cat`, `--ls`, `--get`, `--put`, `--shutdown`,
/// `--bandwidth`, the listings) run no program, and their operands are names and files.
fn firejail(call: &Call<'_>, verdict: &mut Verdict) {
    const ON_ANOTHER: &[&str] = &[
        "--cat",
        "--ls",
        "--get",
        "--put",
        "--shutdown",
        "--bandwidth",
        "--list",
        "--tree",
        "--top",
        "--netstats",
        "--ids-check",
        "--ids-init",
        "--version",
        "--help",
    ];
    let prints = call
        .options
        .iter()
        .any(|found| found.def.display().ends_with(".print"));
    if prints || ON_ANOTHER.iter().any(|option| call.has(option)) {
        verdict.shape = Shape::Plain;
        if call.has("--get") {
            verdict.into_folder(".", "firejail --get");
        }
        return;
    }
    for (value, _) in call.values("--env") {
        environment(value, "firejail --env", verdict);
    }
    if call.has("-c")
        && let Some(first) = call.operands.first()
    {
        verdict.shape = Shape::Shell {
            payload: Payload::Argument(*first),
        };
    }
}

/// bwrap's options that take two values (`--bind SRC DEST`, `--setenv VAR VALUE`); `--overlay`
/// takes three.
const BWRAP_PAIRS: &[&str] = &[
    "--setenv",
    "--bind",
    "--bind-try",
    "--dev-bind",
    "--dev-bind-try",
    "--ro-bind",
    "--ro-bind-try",
    "--bind-fd",
    "--ro-bind-fd",
    "--file",
    "--bind-data",
    "--ro-bind-data",
    "--symlink",
    "--chmod",
];

/// `bwrap [options] [--] COMMAND [ARGS]`: options are whole words, some with two values. A
/// read-write bind of one host path onto another is unprovable (what the command does to DEST is
/// done to SRC, under another name); files and folders it makes are writes.
fn bwrap(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.shape = Shape::Plain;
    let args = call.args;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if arg == "--" {
            index += 1;
            break;
        }
        if !arg.starts_with("--") {
            break;
        }
        let Some(def) = call.root.options.iter().find(|def| def.has(arg)) else {
            verdict.unprovable(format!(
                "option {arg} of bwrap is not known to kaiport's rules"
            ));
            return;
        };
        let count = if arg == "--overlay" {
            3 // RWSRC WORKDIR DEST
        } else if BWRAP_PAIRS.contains(&arg.as_str()) {
            2
        } else {
            usize::from(def.arity == Arity::Value)
        };
        let Some(values) = args.get(index + 1..index + 1 + count) else {
            return; // bwrap refuses an option without its values
        };
        bwrap_option(arg, values, verdict);
        index += 1 + count;
    }
    if index < args.len() {
        verdict.shape = Shape::Wrapper {
            inner_starts: index,
            note: None,
        };
    }
}

fn bwrap_option(option: &str, values: &[String], verdict: &mut Verdict) {
    let how = format!("bwrap {option}");
    match (option, values) {
        ("--args" | "--bind-fd", _) => {
            verdict.unprovable(format!(
                "`{how}` reads what it does from a file descriptor, which cannot be checked"
            ));
        }
        ("--bind" | "--bind-try" | "--dev-bind" | "--dev-bind-try", [source, dest]) => {
            if source.trim_end_matches('/') != dest.trim_end_matches('/') {
                verdict.unprovable(format!(
                    "`{how} {source} {dest}` puts the host's {source} at {dest}: what the command does to {dest} is done to {source}, which cannot be checked"
                ));
            }
            verdict.not_read_only(format!(
                "`{how}` lets the command write to the host's {source}"
            ));
        }
        ("--overlay", [source, work, _]) => {
            verdict.output(source, how.clone(), true);
            verdict.output(work, how, true);
        }
        ("--setenv", [name, value]) => {
            environment(&format!("{name}={value}"), &how, verdict);
        }
        ("--dir" | "--lock-file", [dest]) | ("--file" | "--bind-data" | "--symlink", [_, dest]) => {
            verdict.output(dest, how, false);
        }
        ("--chmod", [_, path]) => verdict.output(path, how, false),
        _ => {}
    }
}

/// `daemonize -E NAME=VALUE` sets the command's environment.
fn daemonize(call: &Call<'_>, verdict: &mut Verdict) {
    for (value, _) in call.values("-E") {
        environment(value, "daemonize -E", verdict);
    }
}

/// `NAME=VALUE` set for the command a launcher starts: one that changes what programs run
/// (`LD_PRELOAD`, `PATH`) asks.
fn environment(assignment: &str, how: &str, verdict: &mut Verdict) {
    if let (_, Some(note)) = skip_assignments(&[assignment.to_owned()], 0) {
        verdict.unprovable(format!("`{how} {assignment}` {note}"));
    }
}

/// Words quoted for `sh`, one by one.
fn quoted(words: &[&str]) -> String {
    words
        .iter()
        .map(|word| format!("'{}'", word.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `start-stop-daemon --start --exec PROGRAM [--startas PATH] -- ARGS`: it runs `--startas`
/// (else `--exec`) with the operands; `--stop` signals the processes it matches and runs nothing.
/// The pid file `--make-pidfile` writes and `--remove-pidfile` deletes is a write.
fn start_stop_daemon(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.shape = Shape::Plain;
    if (call.has("--make-pidfile") || call.has("--remove-pidfile"))
        && let Some(pidfile) = call.value("--pidfile")
    {
        verdict.output(pidfile, "start-stop-daemon --pidfile", false);
    }
    if !call.has("--start") || call.has("--test") {
        return;
    }
    let program = call
        .values("--startas")
        .last()
        .copied()
        .or_else(|| call.values("--exec").last().copied());
    let Some((program, index)) = program else {
        return; // it refuses to start without one
    };
    let mut words = vec![program];
    words.extend(call.operand_texts());
    verdict.script(
        &quoted(&words),
        "start-stop-daemon --start",
        Some(index),
        false,
    );
}

/// `schedtool [options] -e COMMAND`: without `-e` the operands are process IDs, whose
/// scheduling the options change.
fn schedtool(call: &Call<'_>, verdict: &mut Verdict) {
    if call.has("-e") {
        return;
    }
    verdict.shape = Shape::Plain;
    let sets = ["-N", "-F", "-R", "-B", "-I", "-D", "-M", "-p", "-n", "-a"]
        .iter()
        .any(|option| call.has(option));
    if sets && !call.operands.is_empty() {
        verdict.not_read_only(format!(
            "`{}` changes the scheduling of running processes",
            call.display()
        ));
    }
}

/// `cpulimit [options] [--] PROGRAM [ARGS]`: cpulimit takes options from anywhere before a
/// `--`, even after the program's name, so the program's words must come last and together.
fn cpulimit(call: &Call<'_>, verdict: &mut Verdict) {
    let Some(first) = call.operands.first().copied() else {
        return;
    };
    let together = call
        .operands
        .iter()
        .enumerate()
        .all(|(offset, index)| *index == first + offset)
        && call.operands.len() == call.args.len() - first;
    if !together {
        verdict.shape = Shape::Unprovable(format!(
            "`{}`: cpulimit takes the options after the program's name as its own; put `--` before the program",
            call.display()
        ));
    }
}

/// `torify on`, `off`, `show`, `sh`: torsocks' own commands, not programs it runs.
fn torify(call: &Call<'_>, verdict: &mut Verdict) {
    let first = call.operand_texts().first().copied();
    if first.is_some_and(|word| matches!(word, "on" | "off" | "show" | "sh")) {
        verdict.shape = Shape::Plain;
    }
}

/// firejail 0.9.72's options, from its `--help` and manual page.
const FIREJAIL: &str = "@read-only
@operands command
@posix
--allow-debuggers
--allusers
--apparmor[=X]
--apparmor.print=X
--appimage
--bandwidth=X : changes changes another sandbox's network bandwidth
--bind=X : unprovable mounts one host file or folder over another, so what the command does to one is done to the other
--blacklist=X
--build[=X] : writes
-c
--caps
--caps.drop=X
--caps.keep=X
--caps.print=X
--cat=X : reads
--chroot=X
--cpu=X
--cpu.print=X
--dbus-log=X : writes
--dbus-system=X
--dbus-system.broadcast=X
--dbus-system.call=X
--dbus-system.log
--dbus-system.own=X
--dbus-system.see=X
--dbus-system.talk=X
--dbus-user=X
--dbus-user.broadcast=X
--dbus-user.call=X
--dbus-user.log
--dbus-user.own=X
--dbus-user.see=X
--dbus-user.talk=X
--debug
--debug-blacklists
--debug-caps
--debug-errnos
--debug-private-lib
--debug-protocols
--debug-syscalls
--debug-syscalls32
--debug-whitelists
--defaultgw=X
--deterministic-exit-code
--deterministic-shutdown
--disable-mnt
--dns=X
--dns.print=X
--dnstrace[=X]
--env=X : judged sets a variable for the command it runs
--fs.print=X
--get=X : changes copies a file out of another sandbox into the current folder
-?, --help
--hostname=X
--hosts-file=X : reads
--icmptrace[=X]
--ids-check : reads
--ids-init : changes writes the intrusion detection database
--ignore=X
--include=X : unprovable reads options from a profile file, which can set the environment (LD_PRELOAD) of what it runs
--interface=X
--ip=X
--ip6=X
--ipc-namespace
--iprange=X
--join=X
--join-filesystem=X
--join-network=X
--join-or-start=X
--keep-config-pulse
--keep-dev-shm
--keep-fd[=X]
--keep-var-tmp
--list
--ls=X : reads
--mac=X
--machine-id
--memory-deny-write-execute
--mkdir=X : writes
--mkfile=X : writes
--mtu=X
--name=X
--net=X
--net.print=X
--netfilter[=X] : reads
--netfilter.print=X
--netfilter6=X : reads
--netfilter6.print=X
--netlock
--netmask=X
--netns=X
--netstats
--nettrace[=X]
--nice=X
--no3d
--noautopulse
--noblacklist=X
--nodbus
--nodvd
--noexec=X
--nogroups
--noinput
--nonewprivs
--noprinters
--noprofile
--noroot
--nosound
--notv
--nou2f
--novideo
--nowhitelist=X
--oom=X
--output=X : writes
--output-stderr=X : writes
--private[=X] : writes-into
--private-bin=X
--private-cache
--private-cwd[=X]
--private-dev
--private-etc=X
--private-home=X
--private-lib=X
--private-opt=X
--private-srv=X
--private-tmp
--profile=X : unprovable reads options from a profile file, which can set the environment (LD_PRELOAD) of what it runs
--profile.print=X
--protocol=X
--protocol.print=X
--put=X : unprovable copies a file into another sandbox, whose folders may be the host's
--quiet
--read-only=X
--read-write=X
--restrict-namespaces[=X]
--rlimit-as=X
--rlimit-cpu=X
--rlimit-fsize=X
--rlimit-nofile=X
--rlimit-nproc=X
--rlimit-sigpending=X
--rmenv=X
--scan
--seccomp[=X]
--seccomp-error-action=X
--seccomp.32
--seccomp.block-secondary
--seccomp.drop=X
--seccomp.keep=X
--seccomp.print=X
--shutdown=X : changes stops another sandbox
--snitrace[=X]
--tab
--timeout=X
--tmpfs=X
--top
--trace[=X] : writes
--tracelog
--tree
--tunnel[=X]
--version
--veth-name=X
--whitelist=X
--writable-etc
--writable-run-user
--writable-var
--writable-var-log
--x11[=X]
--xephyr-screen=X";

/// valgrind 3.19's core and tool options, from its `--help` and manual page.
const VALGRIND: &str = "@read-only
@operands command
@posix
--alignment=X
--alloc-fn=X
--allow-mismatched-debuginfo=X
--aspace-minaddr=X
--avg-transtab-entry-size=X
--basic-counts=X
--bb-out-file=X : writes
--branch-sim=X
--cache-sim=X
--cachegrind-out-file=X : writes
--callgrind-out-file=X : writes
--check-stack-refs=X
--check-stack-var=X
--child-silent-after-fork=X
--collect-atstart=X
--collect-bus=X
--collect-jumps=X
--collect-systime=X
--combine-dumps=X
--compress-pos=X
--compress-strings=X
--conflict-cache-size=X
--D1=X
--debuginfo-server=X : network reads debug information from a server
--default-suppressions=X
--delta-stacktrace=X
--demangle=X
--depth=X
--detailed-counts=X
--detailed-freq=X
--dhat-out-file=X : writes
--dsymutil=X
--dump-after=X
--dump-before=X
--dump-every-bb=X
--dump-instr=X
--dump-line=X
--error-exitcode=X
--error-limit=X
--error-markers=X
--errors-for-leak-kinds=X
--exclusive-threshold=X
--exit-on-first-error=X
--expensive-definedness-checks=X
--extra-debuginfo-path=X : reads
--fair-sched=X
--first-race-only=X
--fnname=X
--free-fill=X
--free-is-write=X
--freelist-big-blocks=X
--freelist-vol=X
--fullpath-after=X
--fullpath-after-specified
--gen-suppressions=X
--heap=X
--heap-admin=X
-h, --help
--help-debug
--help-dyn-options
--hg-sanity-flags
--history-level=X
--I1=X
--ignore-fn=X
--ignore-range-below-sp=X
--ignore-ranges=X
--ignore-thread-creation=X
--input-fd=X
--instr-atstart=X
--instr-count-only
--interval-size=X
--join-list-vol=X
--keep-debuginfo=X
--keep-stacktraces=X
--kernel-variant=X
--leak-check=X
--leak-check-heuristics=X
--leak-resolution=X
--LL=X
--log-fd=X
--log-file=X : writes
--log-socket=X : network sends its log to another host
--main-stacksize=X
--malloc-fill=X
--massif-out-file=X : writes
--max-snapshots=X
--max-stackframe=X
--max-threads=X
--merge-recursive-frames=X
--num-callers=X
--num-transtab-sectors=X
--pages-as-heap=X
--partial-loads-ok=X
--pc-out-file=X : writes
--peak-inaccuracy=X
--progress-interval=X
--ptrace-addr=X
-q, --quiet
--read-inline-info=X
--read-var-info=X
--redzone-size=X
--report-signal-unlocked=X
--require-text-symbol=X
--resync-filter=X
--run-cxx-freeres=X
--run-libc-freeres=X
--segment-merging=X
--segment-merging-interval=X
--shared-threshold=X
--show-below-main=X
--show-confl-seg=X
--show-emwarns=X
--show-error-list=X
--show-leak-kinds=X
--show-mismatched-frees=X
--show-possibly-lost=X
--show-reachable=X
--show-stack-usage=X
--sigill-diagnostics=X
--sim-hints=X
--smc-check=X
--soname-synonyms=X
--stacks=X
--suppressions=X : reads
--threshold=X
--time-stamp=X
--time-unit=X
--toggle-collect=X
--tool=X
--trace-addr=X
--trace-alloc=X
--trace-barrier=X
--trace-children=X
--trace-children-skip=X
--trace-children-skip-by-arg=X
--trace-cond=X
--trace-fork-join=X
--trace-hb=X
--trace-mem=X
--trace-mutex=X
--trace-rwlock=X
--trace-semaphore=X
--trace-superblocks=X
--track-fds=X
--track-lockorders=X
--track-origins=X
--undef-value-errors=X
--unw-stack-scan-frames=X
--unw-stack-scan-thresh=X
--valgrind-stacksize=X
-v, --verbose
--version
--vgdb=X
--vgdb-error=X
--vgdb-poll=X
--vgdb-prefix=X : writes
--vgdb-shadow-registers=X
--vgdb-stop-at=X
--workaround-gcc296-bugs=X
--xml=X
--xml-fd=X
--xml-file=X : writes
--xml-socket=X : network sends its log to another host
--xml-user-comment=X
--xtree-leak=X
--xtree-leak-file=X : writes
--xtree-memory=X
--xtree-memory-file=X : writes
--zero-before=X
-s";

/// `envdir DIR child`: runs child with variables read from the files in DIR, which may set
/// `LD_PRELOAD` or `PATH` — what runs is not known from the line.
fn envdir(call: &Call<'_>, verdict: &mut Verdict) {
    second_operand(call, verdict);
    if let Some(folder) = call.operand_texts().first() {
        verdict.unprovable(format!(
            "`envdir` sets the environment of the command it runs from the files in `{folder}` (LD_PRELOAD, PATH), which this analysis cannot read"
        ));
    }
}

/// `setlock [-nNxX] FILE child`: creates and locks FILE, then runs child.
fn setlock(call: &Call<'_>, verdict: &mut Verdict) {
    second_operand(call, verdict);
    if let Some(file) = call.operand_texts().first() {
        verdict.write(file, "setlock (lock file)", false, true);
    }
}
