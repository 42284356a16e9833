//! Wrappers: programs whose effect is to run another command (`sudo`, `pkexec`, `env`, `nice`,
//! `timeout`, `flock`, `chronic`, `sg`, `newgrp`, `runcon`, …). The command they run is peeled off
//! and judged as if typed; the wrapper's own options are judged here (`time -o FILE` writes,
//! `sudo -e` edits).
//!
//! A wrapper whose options are not all known asks like any other program: an unknown option may
//! take a value, and then the word taken for the command would not be the command.

use super::args::Call;
use super::common::skip_assignments;
use super::model::Arity;
use super::spec::Spec;
use super::verdict::{Payload, Shape, Verdict};

/// Option lines several wrappers share (`@use NAME`).
pub const BLOCKS: &[(&str, &str)] = &[(
    "wrappers-su",
    "-m, -p, --preserve-environment
     -w LIST, --whitelist-environment=LIST
     -g GROUP, --group=GROUP
     -G GROUP, --supp-group=GROUP
     -l, --login
     -c COMMAND, --command=COMMAND
     --session-command=COMMAND
     -f, --fast
     -s SHELL, --shell=SHELL
     -P, --pty
     -T, --no-pty
     -h, --help
     -V, --version",
)];

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["sudo"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -A, --askpass
               -B, --bell
               -b, --background
               -C NUM, --close-from=NUM
               -D DIR, --chdir=DIR
               -E
               --preserve-env[=LIST]
               -e, --edit : changes edits files as another user
               -g GROUP, --group=GROUP
               -H, --set-home
               -h[HOST]
               --help
               --host=HOST
               -i, --login
               -K, --remove-timestamp
               -k, --reset-timestamp
               -l, --list
               -N, --no-update
               -n, --non-interactive
               -P, --preserve-groups
               -p PROMPT, --prompt=PROMPT
               -R DIR, --chroot=DIR
               -r ROLE, --role=ROLE
               -S, --stdin
               -s, --shell
               -t TYPE, --type=TYPE
               -U USER, --other-user=USER
               -T TIMEOUT, --command-timeout=TIMEOUT
               -u USER, --user=USER
               -V, --version
               -v, --validate",
        hook: Some(sudo),
    },
    Spec {
        names: &["doas"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -C CONFIG : reads
               -L
               -n
               -s
               -u USER",
        hook: Some(after_assignments),
    },
    Spec {
        names: &["pkexec"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -u USER, --user=USER
               --keep-cwd
               --disable-internal-agent
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["env"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -i, --ignore-environment
               -0, --null
               -u NAME, --unset=NAME
               -C DIR, --chdir=DIR
               -S STRING, --split-string=STRING
               --block-signal[=SIG]
               --default-signal[=SIG]
               --ignore-signal[=SIG]
               --list-signal-handling
               -v, --debug
               --help
               --version",
        hook: Some(env),
    },
    Spec {
        names: &["nice"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               @numeric
               -n N, --adjustment=N
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["nohup"],
        family: "wrappers",
        text: "@operands command
               @posix
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["timeout"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               --preserve-status
               --foreground
               -k DURATION, --kill-after=DURATION
               -s SIGNAL, --signal=SIGNAL
               -v, --verbose
               --help
               --version",
        hook: Some(second_operand),
    },
    Spec {
        names: &["stdbuf"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -i MODE, --input=MODE
               -o MODE, --output=MODE
               -e MODE, --error=MODE
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["setsid"],
        family: "wrappers",
        text: "@operands command
               @posix
               -c, --ctty
               -f, --fork
               -w, --wait
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["ionice"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -c CLASS, --class=CLASS
               -n LEVEL, --classdata=LEVEL
               -p PID, --pid=PID : changes changes the priority of running processes
               -P PGID, --pgid=PGID : changes changes the priority of running processes
               -u UID, --uid=UID : changes changes the priority of running processes
               -t, --ignore
               -h, --help
               -V, --version",
        hook: Some(ionice),
    },
    Spec {
        names: &["flock"],
        family: "wrappers",
        text: "@operands command
               @posix
               -s, --shared
               -x, -e, --exclusive
               -u, --unlock
               -n, --nb, --nonblock
               -w SECONDS, --wait=SECONDS, --timeout=SECONDS
               -E CODE, --conflict-exit-code=CODE
               -o, --close
               -c COMMAND, --command=COMMAND : runs *
               -F, --no-fork
               --verbose
               -h, --help
               -V, --version",
        hook: Some(flock),
    },
    Spec {
        names: &["chronic"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -e
               -v",
        hook: None,
    },
    Spec {
        names: &["sg"],
        family: "wrappers",
        text: "@opaque",
        hook: Some(sg),
    },
    Spec {
        names: &["newgrp"],
        family: "wrappers",
        text: "@opaque",
        hook: Some(newgrp),
    },
    Spec {
        names: &["taskset"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -a, --all-tasks
               -p, --pid : changes changes the CPU affinity of a running process
               -c, --cpu-list
               -h, --help
               -V, --version",
        hook: Some(taskset),
    },
    Spec {
        names: &["chroot"],
        family: "wrappers",
        text: "@operands command
               @posix
               --groups=GROUPS
               --userspec=USER
               --skip-chdir
               --help
               --version",
        hook: Some(second_operand),
    },
    Spec {
        names: &["watch"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -b, --beep
               -c, --color
               -C, --no-color
               -d
               --differences[=PERMANENT]
               -e, --errexit
               -g, --chgexit
               -q CYCLES, --equexit=CYCLES
               -n SECONDS, --interval=SECONDS
               -p, --precise
               -r, --no-rerun
               -t, --no-title
               -w, --no-wrap
               -x, --exec
               -h, --help
               -v, --version",
        hook: Some(watch),
    },
    Spec {
        names: &["su"],
        family: "wrappers",
        text: "@operands args
               @use wrappers-su",
        hook: Some(su),
    },
    Spec {
        names: &["runuser"],
        family: "wrappers",
        text: "@operands args
               -u USER, --user=USER
               @use wrappers-su",
        hook: Some(su),
    },
    Spec {
        names: &["script"],
        family: "wrappers",
        text: "@operands args
               -I FILE, --log-in=FILE : writes
               -O FILE, --log-out=FILE : writes
               -B FILE, --log-io=FILE : writes
               -T FILE, --log-timing=FILE : writes
               -t[FILE]
               --timing[=FILE] : writes
               -m FORMAT, --logging-format=FORMAT
               -a, --append
               -c COMMAND, --command=COMMAND
               -e, --return
               -f, --flush
               --force
               -E WHEN, --echo=WHEN
               -o SIZE, --output-limit=SIZE
               -q, --quiet
               -h, --help
               -V, --version",
        hook: Some(script),
    },
    Spec {
        names: &["unshare"],
        family: "wrappers",
        text: "@operands command
               @posix
               -m
               --mount[=FILE]
               -u
               --uts[=FILE]
               -i
               --ipc[=FILE]
               -n
               --net[=FILE]
               -p
               --pid[=FILE]
               -U
               --user[=FILE]
               -C
               --cgroup[=FILE]
               -T
               --time[=FILE]
               -f, --fork
               --map-user=UID
               --map-group=GID
               -r, --map-root-user
               -c, --map-current-user
               --map-auto
               --map-users=MAP
               --map-groups=MAP
               --kill-child[=SIGNAL]
               --mount-proc[=DIR]
               --mount-binfmt[=DIR]
               --propagation=MODE
               --setgroups=MODE
               --keep-caps
               -R DIR, --root=DIR
               -w DIR, --wd=DIR
               -S UID, --setuid=UID
               -G GID, --setgid=GID
               --monotonic=OFFSET
               --boottime=OFFSET
               -l, --load-interp=FILE
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["nsenter"],
        family: "wrappers",
        text: "@operands command
               @posix
               -a, --all
               -t PID, --target=PID
               -m[FILE], --mount[=FILE]
               -u[FILE], --uts[=FILE]
               -i[FILE], --ipc[=FILE]
               -n[FILE], --net[=FILE]
               -N, --net-socket=FD
               -p[FILE], --pid[=FILE]
               -C[FILE], --cgroup[=FILE]
               -U[FILE], --user[=FILE]
               --user-parent
               -T[FILE], --time[=FILE]
               -S UID, --setuid=UID
               -G GID, --setgid=GID
               --preserve-credentials
               --keep-caps
               -r[DIR], --root[=DIR]
               -w[DIR], --wd[=DIR]
               -W DIR, --wdns=DIR
               -e, --env
               -F, --no-fork
               -c, --join-cgroup
               -Z, --follow-context
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["chrt"],
        family: "wrappers",
        text: "@operands command
               @posix
               -b, --batch
               -d, --deadline
               -e, --ext
               -f, --fifo
               -i, --idle
               -o, --other
               -r, --rr
               -R, --reset-on-fork
               -T NS, --sched-runtime=NS
               -P NS, --sched-period=NS
               -D NS, --sched-deadline=NS
               -a, --all-tasks
               -m, --max
               -p, --pid : changes changes the scheduling of a running process
               -v, --verbose
               -h, --help
               -V, --version",
        hook: Some(chrt),
    },
    Spec {
        names: &["systemd-run"],
        family: "wrappers",
        text: "@operands command
               @posix
               -h, --help
               --version
               --no-ask-password
               --user
               --system
               -H HOST, --host=HOST
               -M MACHINE, --machine=MACHINE
               -C CAPSULE, --capsule=CAPSULE
               --scope
               -u UNIT, --unit=UNIT
               -p PROP, --property=PROP
               --description=TEXT
               --slice=SLICE
               --slice-inherit
               --expand-environment=BOOL
               --no-block
               -r, --remain-after-exit
               --wait
               --send-sighup
               --service-type=TYPE
               --uid=USER
               --gid=GROUP
               --nice=NICE
               --working-directory=DIR
               -d, --same-dir
               -E NAME, --setenv=NAME
               -t, --pty
               -P, --pipe
               -q, --quiet
               -v, --verbose
               -G, --collect
               -S, --shell
               --job-mode=MODE
               --ignore-failure
               --background=COLOR
               --json=MODE
               --path-property=PROP
               --socket-property=PROP
               --on-active=SECONDS
               --on-boot=SECONDS
               --on-startup=SECONDS
               --on-unit-active=SECONDS
               --on-unit-inactive=SECONDS
               --on-calendar=SPEC
               --on-timezone-change
               --on-clock-change
               --timer-property=PROP",
        hook: None,
    },
    Spec {
        names: &["strace"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -A, --output-append-mode
               -a COLUMN, --columns=COLUMN
               -b SYSCALL, --detach-on=SYSCALL
               -C, --summary
               -c, --summary-only
               -D
               --daemonize[=HOW]
               -d, --debug
               -E VAR, --env=VAR
               -e EXPR
               --trace=SET
               --signal=SET
               --status=SET
               --abbrev=SET
               --verbose=SET
               --raw=SET
               --read=SET
               --write=SET
               --quiet[=SET]
               --kvm=MODE
               --inject=SPEC
               --fault=SPEC
               --decode-fds[=SET]
               --decode-pids[=SET]
               -F
               -f, --follow-forks
               --output-separately
               -h, --help
               -I N, --interruptible=N
               -i, --instruction-pointer
               -k, --stack-traces
               -n, --syscall-number
               -O OVERHEAD, --summary-syscall-overhead=OVERHEAD
               -o FILE, --output=FILE : writes
               -P PATH, --trace-path=PATH
               -p PID, --attach=PID
               -q
               -r
               --relative-timestamps[=PRECISION]
               -S SORTBY, --summary-sort-by=SORTBY
               -s SIZE, --string-limit=SIZE
               -T
               --syscall-times[=PRECISION]
               -t
               --absolute-timestamps[=FORMAT]
               -U COLUMNS, --summary-columns=COLUMNS
               -u USER, --user=USER
               -V, --version
               -v, --no-abbrev
               -w, --summary-wall-clock
               -X FORMAT, --const-print-style=FORMAT
               -x
               --strings-in-hex[=WHICH]
               -Y
               -y
               -Z, --failed-only
               -z, --successful-only
               --seccomp-bpf
               --tips[=OPTIONS]
               --silent=SET, --silence=SET
               --timestamps[=FORMAT]
               --pidns-translation",
        hook: None,
    },
    Spec {
        names: &["ltrace"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -a COLUMN, --align=COLUMN
               -A N
               -b, --no-signals
               -c
               -C, --demangle
               -D MASK, --debug=MASK
               -e FILTER
               -f
               -F FILE, --config=FILE : reads
               -h, --help
               -i
               -l PATTERN, --library=PATTERN
               -L
               -n N, --indent=N
               -o FILE, --output=FILE : writes
               -p PID
               -r
               -s SIZE
               -S
               -t, -tt, -ttt
               -T
               -u USER
               -V, --version
               -w N, --where=N
               -x FILTER",
        hook: None,
    },
    Spec {
        names: &["time"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -a, --append
               -f FORMAT, --format=FORMAT
               -o FILE, --output=FILE : writes
               -p, --portability
               -q, --quiet
               -v, --verbose
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["command"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -p
               -v
               -V",
        hook: Some(command_builtin),
    },
    Spec {
        names: &["builtin"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix",
        hook: None,
    },
    Spec {
        names: &["exec"],
        family: "wrappers",
        text: "@operands command
               @posix
               -a NAME
               -c
               -l",
        hook: None,
    },
    Spec {
        names: &["unbuffer"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -p",
        hook: None,
    },
    Spec {
        names: &["catchsegv", "eatmydata"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix",
        hook: None,
    },
    Spec {
        names: &["torsocks"],
        family: "wrappers",
        text: "@operands command
               @posix
               -h, --help
               --shell : changes opens a shell
               --version
               -d, --debug
               -q, --quiet
               -u NAME, --user=NAME
               -p PASS, --pass=PASS
               -i, --isolate
               -6, --ipv6
               -a HOST, --address=HOST
               -P PORT, --port=PORT",
        hook: Some(torsocks),
    },
    Spec {
        names: &["nocache"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               -n N",
        hook: None,
    },
    Spec {
        names: &["fakeroot"],
        family: "wrappers",
        text: "@operands command
               @posix
               -l LIBRARY, --lib=LIBRARY : unprovable loads a library into the programs it runs
               -f PROGRAM, --faked=PROGRAM : runs *
               -i FILE : reads
               -s FILE : writes
               -u, --unknown-is-real
               -b FD, --fd-base=FD
               -h, --help
               -v, --version",
        hook: None,
    },
    Spec {
        names: &["entr"],
        family: "wrappers",
        text: "@operands command
               @posix
               -a
               -c
               -d
               -n
               -p
               -r
               -s
               -z",
        hook: Some(entr),
    },
    Spec {
        names: &["coproc"],
        family: "wrappers",
        text: "@operands command
               @posix",
        hook: None,
    },
    Spec {
        names: &["busybox"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               --list
               --list-full
               --install : changes installs links to its applets
               -s
               --help",
        hook: Some(busybox),
    },
    Spec {
        names: &["toybox"],
        family: "wrappers",
        text: "@read-only
               @operands command
               @posix
               --long
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["proxychains", "proxychains4"],
        family: "wrappers",
        text: "@operands command
               @posix
               -q
               -f FILE : reads
               --help",
        hook: None,
    },
    Spec {
        names: &["parallel"],
        family: "wrappers",
        text: "@operands args
               @posix
               -0, --null
               -a FILE, --arg-file=FILE : reads
               --arg-file-sep=SEP
               --arg-sep=SEP
               --bar
               --basefile=FILE, --bf=FILE
               --basenamereplace=STR, --bnr=STR
               --basenameextensionreplace=STR, --bner=STR
               --bin=EXPR : unprovable evaluates Perl code
               --bg
               --block=SIZE, --block-size=SIZE
               --block-timeout=DURATION, --bt=DURATION
               --cat
               --cleanup
               --color
               --color-failed, --cf
               --colsep=REGEXP, -C REGEXP
               --compress
               --compress-program=PROGRAM : runs gzip pigz lz4 lzop zstd xz bzip2 pbzip2 pxz plzip lzip
               --decompress-program=PROGRAM : runs gzip pigz lz4 lzop zstd xz bzip2 pbzip2 pxz plzip lzip
               --csv
               --ctag
               --ctagstring=STR
               --delay=DURATION
               -d DELIM, --delimiter=DELIM
               --dirnamereplace=STR, --dnr=STR
               --dry-run
               -E STR
               --eof[=STR], -e[STR]
               --embed
               --env=VAR
               --eta
               --fg
               --fifo
               --filter=FILTER : unprovable evaluates Perl code
               --filter-hosts
               --gnu
               --group
               --group-by=VAL : unprovable may evaluate Perl code
               --help, -h
               --halt-on-error=VAL, --halt=VAL
               --header=REGEXP
               --hostgroups, --hgrp
               -I STR
               --replace[=STR], -i[STR]
               --joblog=FILE, --jl=FILE : writes
               --jobs=N, -j N, --max-procs=N, -P N
               --keep-order, -k
               -L N
               --max-lines[=N], -l[N]
               --limit=COMMAND : runs *
               --latest-line, --ll
               --line-buffer, --lb
               --link, --xapply
               --load=LOAD
               --controlmaster, -M
               -m
               --memfree=SIZE
               --memsuspend=SIZE
               --minversion=VERSION
               --max-args=N, -n N
               --max-replace-args=N, -N N
               --nonall
               --onall
               --open-tty, -o
               --output-as-files, --outputasfiles, --files
               --pipe, --spreadstdin
               --pipe-part
               --plain
               --plus
               --process-slot-var=NAME
               --progress
               --max-line-length-allowed
               --number-of-cpus
               --number-of-cores
               --number-of-sockets
               --number-of-threads
               --no-keep-order
               --nice=N
               --interactive, -p
               --parens=STR
               --profile=NAME, -J NAME : unprovable reads options from a profile file
               --quote, -q
               --no-run-if-empty, -r
               --noswap
               --record-env
               --recstart=STR
               --recend=STR
               --regexp
               --remove-rec-sep, --removerecsep, --rrs
               --results=NAME, --res=NAME : writes-into
               --resume
               --resume-failed
               --retry-failed
               --retries=N
               --return=FILE : writes
               --round-robin, --round
               --rpl=TAG : unprovable evaluates Perl code
               --rsync-opts=OPTIONS
               --max-chars=N, -s N
               --show-limits
               --semaphore
               --semaphore-name=NAME, --id=NAME
               --semaphore-timeout=SECS, --st=SECS
               --seqreplace=STR
               --session
               --shard=EXPR : unprovable may evaluate Perl code
               --shebang, --hashbang
               --shebang-wrap
               --shell-completion=SHELL
               --shell-quote
               --shuf
               --skip-first-line
               --sql=URL : changes writes to a database
               --sql-master=URL : changes writes to a database
               --sql-and-worker=URL : changes writes to a database
               --sql-worker=URL : changes writes to a database
               --ssh=COMMAND : runs+ ssh
               --ssh-delay=DURATION, --sshdelay=DURATION
               --sshlogin=LOGIN, -S LOGIN, --login=LOGIN : network runs the commands on other hosts
               --sshloginfile=FILE, --slf=FILE : network runs the commands on the hosts a file names
               --slotreplace=STR
               --silent
               --template=FILE, --tmpl=FILE : writes
               --tty
               --tag
               --tagstring=STR
               --tee
               --term-seq=SEQ, --termseq=SEQ
               --total-jobs=N, --total=N
               --tmpdir=DIR : writes-into
               --tmux
               --tmuxpane
               --timeout=DURATION
               --verbose, -t
               --transfer
               --transferfile=FILE, --tf=FILE
               --trc=FILE
               --trim=SIDES
               --ungroup, -u
               --extensionreplace=STR, --er=STR
               --use-sockets-instead-of-threads
               --use-cores-instead-of-threads
               --use-cpus-instead-of-cores
               -v
               --version, -V
               --workdir=DIR, --wd=DIR
               --wait
               --exit, -x
               -X
               --xargs
               --no-notice
               --will-cite
               --citation
               --bibtex
               --max-procs-file=FILE : reads
               --_parset=TYPE",
        hook: Some(parallel_hook),
    },
    Spec {
        names: &["runcon"],
        family: "wrappers",
        text: "@operands command
               @posix
               -c, --compute
               -u USER, --user=USER
               -r ROLE, --role=ROLE
               -t TYPE, --type=TYPE
               -l RANGE, --range=RANGE
               --help
               --version",
        hook: Some(runcon),
    },
    Spec {
        names: &["tmux"],
        family: "wrappers",
        text: "@opaque",
        hook: Some(tmux),
    },
    Spec {
        names: &["screen"],
        family: "wrappers",
        text: "@opaque",
        hook: Some(screen),
    },
];

/// The wrapped command starts after `NAME=value` assignments (`sudo FOO=1 cmd`).
fn after_assignments(call: &Call<'_>, verdict: &mut Verdict) {
    let Some(first) = call.operands.first() else {
        return;
    };
    let (inner_starts, note) = skip_assignments(call.args, *first);
    verdict.shape = if inner_starts < call.args.len() {
        Shape::Wrapper { inner_starts, note }
    } else {
        Shape::Plain
    };
}

fn sudo(call: &Call<'_>, verdict: &mut Verdict) {
    if call.has("--edit") {
        // sudoedit: the operands are files it edits.
        verdict.shape = Shape::Plain;
        for file in call.operand_texts() {
            verdict.output(file, "sudo -e (editor)", false);
        }
        return;
    }
    after_assignments(call, verdict);
}

fn env(call: &Call<'_>, verdict: &mut Verdict) {
    if let Some((text, index)) = call.values("--split-string").last().copied() {
        let own_word = call.args.get(index).is_some_and(|arg| arg.starts_with('-'));
        if own_word {
            // `-S'…'` attached: the string and the words after it.
            let mut line = text.to_owned();
            for word in call.args.iter().skip(index + 1) {
                line.push(' ');
                line.push_str(word);
            }
            verdict.shape = Shape::Plain;
            verdict.script(&line, "env -S", Some(index), false);
        } else {
            verdict.shape = Shape::Shell {
                payload: Payload::Joined(index),
            };
        }
        return;
    }
    // `env - cmd` is `env -i cmd`.
    let first = call
        .operands
        .iter()
        .copied()
        .find(|index| call.args.get(*index).is_some_and(|arg| arg != "-"));
    let Some(first) = first else {
        verdict.shape = Shape::Plain;
        return;
    };
    let (inner_starts, note) = skip_assignments(call.args, first);
    verdict.shape = if inner_starts < call.args.len() {
        Shape::Wrapper { inner_starts, note }
    } else {
        Shape::Plain
    };
}

/// `timeout 5 cmd`, `chroot /mnt cmd`: the command is the second operand.
pub(super) fn second_operand(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.shape = match call.operands.get(1) {
        Some(start) => Shape::Wrapper {
            inner_starts: *start,
            note: None,
        },
        None => Shape::Plain,
    };
}

fn ionice(call: &Call<'_>, verdict: &mut Verdict) {
    if call.has("--pid") || call.has("--pgid") || call.has("--uid") {
        verdict.shape = Shape::Plain;
    }
}

fn taskset(call: &Call<'_>, verdict: &mut Verdict) {
    if call.has("--pid") {
        verdict.shape = Shape::Plain;
    } else {
        // `taskset MASK cmd`.
        second_operand(call, verdict);
    }
}

fn chrt(call: &Call<'_>, verdict: &mut Verdict) {
    if call.has("--pid") || call.has("--max") {
        verdict.shape = Shape::Plain;
    } else {
        // `chrt [PRIORITY] cmd`: a number first is the priority.
        let first_is_priority = call
            .operand_texts()
            .first()
            .is_some_and(|word| word.chars().all(|c| c.is_ascii_digit()));
        if first_is_priority {
            second_operand(call, verdict);
        }
    }
}

/// `flock [options] FILE -c 'cmd'` or `flock [options] FILE cmd args…`: only the word right after
/// the lock file can be flock's `-c` (`flock l python3 -c …` runs python3).
fn flock(call: &Call<'_>, verdict: &mut Verdict) {
    let Some(file) = call.operands.first().copied() else {
        return;
    };
    verdict.write(&call.args[file], "flock (lock file)", false, true);
    match call.args.get(file + 1).map(String::as_str) {
        Some("-c" | "--command") => {
            verdict.shape = Shape::Shell {
                payload: Payload::Argument(file + 2),
            }
        }
        Some(_) => {
            verdict.shape = Shape::Wrapper {
                inner_starts: file + 1,
                note: None,
            }
        }
        None => verdict.shape = Shape::Plain,
    }
}

/// `sg [-] GROUP [-c] 'command'`: the command string runs in `/bin/sh -c`; without one, a shell.
fn sg(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let mut index = usize::from(args.first().is_some_and(|arg| arg == "-"));
    // Its only options are `-` and `-c`: a group never starts with `-`.
    if let Some(word) = args.get(index).filter(|word| word.starts_with('-')) {
        verdict.unprovable(format!(
            "option {word} of sg is not known to kaiport's rules"
        ));
    }
    if args.get(index).is_none() {
        verdict.shape = Shape::Shell {
            payload: Payload::Stdin,
        };
        return;
    }
    index += 1; // the group
    if args.get(index).is_some_and(|arg| arg == "-c") {
        index += 1;
    }
    verdict.shape = Shape::Shell {
        payload: if index < args.len() {
            Payload::Joined(index)
        } else {
            Payload::Stdin
        },
    };
}

/// `runcon CONTEXT cmd` or `runcon [-c] [-t TYPE] … cmd`: without an option naming part of the
/// context, the first operand is the context.
fn runcon(call: &Call<'_>, verdict: &mut Verdict) {
    let parts = ["--compute", "--user", "--role", "--type", "--range"];
    if !parts.iter().any(|option| call.has(option)) {
        second_operand(call, verdict);
    }
}

/// `newgrp [-] [GROUP]`: a new shell, reading its commands from standard input.
fn newgrp(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let skip = usize::from(args.first().is_some_and(|arg| arg == "-"));
    let rest = &args[skip.min(args.len())..];
    if rest.len() > 1 || rest.first().is_some_and(|word| word.starts_with('-')) {
        verdict.unprovable(format!(
            "`{}`: newgrp takes only `-` and a group; the rest is not known to kaiport's rules",
            call.display()
        ));
    }
    verdict.shape = Shape::Shell {
        payload: Payload::Stdin,
    };
}

fn watch(call: &Call<'_>, verdict: &mut Verdict) {
    let Some(first) = call.operands.first().copied() else {
        verdict.shape = Shape::Plain;
        return;
    };
    if !call.has("--exec") {
        // Without -x the words are joined and run by `sh -c`.
        verdict.shape = Shape::Shell {
            payload: Payload::Joined(first),
        };
    }
}

fn su(call: &Call<'_>, verdict: &mut Verdict) {
    let missing = call.options.iter().any(|found| {
        (found.def.has("--command") || found.def.has("--session-command")) && found.value.is_none()
    });
    if missing {
        verdict.shape = Shape::Shell {
            payload: Payload::Argument(call.args.len()),
        };
        return;
    }
    for option in ["--command", "--session-command"] {
        if let Some((_, index)) = call.values(option).last().copied() {
            let attached = call.args.get(index).is_some_and(|arg| arg.starts_with('-'));
            verdict.shape = if attached {
                Shape::Unprovable(format!(
                    "`{} --command=…`: write it as `{} -c '…'` so it can be checked",
                    call.name, call.name
                ))
            } else {
                Shape::Shell {
                    payload: Payload::Argument(index),
                }
            };
            return;
        }
    }
    if call.name == "runuser"
        && let Some(index) = call.args.iter().position(|arg| arg == "--")
        && index + 1 < call.args.len()
    {
        verdict.shape = Shape::Wrapper {
            inner_starts: index + 1,
            note: None,
        };
    }
}

fn script(call: &Call<'_>, verdict: &mut Verdict) {
    if let Some((_, index)) = call.values("--command").last().copied() {
        verdict.shape = Shape::Shell {
            payload: Payload::Argument(index),
        };
    }
    let file = call.operand_texts().first().copied();
    let logs = ["--log-out", "--log-io"]
        .iter()
        .any(|option| call.has(option));
    match file {
        Some(file) => verdict.output(file, "script (typescript)", false),
        None if !logs => verdict.output("typescript", "script (typescript)", false),
        None => {}
    }
}

fn command_builtin(call: &Call<'_>, verdict: &mut Verdict) {
    if call.has("-v") || call.has("-V") {
        verdict.shape = Shape::Plain;
    }
}

/// Wrappers whose own options are not listed yet: the first word that is not an option is the
/// command.
/// `torsocks on`, `off`, `show`: its own commands, not programs it runs.
fn torsocks(call: &Call<'_>, verdict: &mut Verdict) {
    let first = call
        .operands
        .first()
        .and_then(|index| call.args.get(*index));
    if first.is_some_and(|word| matches!(word.as_str(), "on" | "off" | "show" | "sh")) {
        verdict.shape = Shape::Plain;
    }
}

/// `entr -s 'make test'`: the utility is a shell command line.
fn entr(call: &Call<'_>, verdict: &mut Verdict) {
    if call.has("-s")
        && let Some(first) = call.operands.first()
    {
        verdict.shape = Shape::Shell {
            payload: Payload::Argument(*first),
        };
    }
}

/// `busybox --install DIR` names a folder, not an applet.
fn busybox(call: &Call<'_>, verdict: &mut Verdict) {
    if call.has("--install") {
        verdict.shape = Shape::Plain;
        if let Some(dir) = call.operand_texts().iter().find(|word| **word != "-s") {
            verdict.output(dir, "busybox --install", true);
        }
    }
}

/// How tmux reads one of its commands: the flags that take a value, and what its operands are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TmuxRuns {
    /// Runs nothing the analysis must see (lists, moves, kills its own panes).
    Nothing,
    /// The first operand is shell text (`run-shell 'cmd'`).
    Shell,
    /// `if-shell CONDITION CMD [CMD]`: shell text, then tmux commands.
    IfShell,
    /// The operands are a command run in a new pane: one word is shell text, more are
    /// a program and its arguments (`new-window 'cmd'`, `split-window top -d`).
    Pane,
    /// Writes the file its operand names (`save-buffer FILE`).
    SavesTo,
}

/// tmux's commands and aliases, the flags of each that take a value, and what it runs. The names
/// not here (`source-file`, `set-hook`, `bind-key`, `send-keys`, `set-option`, `command-prompt`,
/// …) run commands later or from text kaiport cannot read, so they ask.
const TMUX_COMMANDS: &[(&str, &str, &str, TmuxRuns)] = &[
    ("attach-session", "attach", "cft", TmuxRuns::Nothing),
    ("detach-client", "detach", "Est", TmuxRuns::Nothing),
    ("has-session", "has", "t", TmuxRuns::Nothing),
    ("kill-server", "", "", TmuxRuns::Nothing),
    ("kill-session", "", "t", TmuxRuns::Nothing),
    ("kill-window", "killw", "t", TmuxRuns::Nothing),
    ("kill-pane", "killp", "t", TmuxRuns::Nothing),
    ("list-sessions", "ls", "Ff", TmuxRuns::Nothing),
    ("list-windows", "lsw", "Fft", TmuxRuns::Nothing),
    ("list-panes", "lsp", "Fft", TmuxRuns::Nothing),
    ("list-clients", "lsc", "Fft", TmuxRuns::Nothing),
    ("list-buffers", "lsb", "Ff", TmuxRuns::Nothing),
    ("list-commands", "lscm", "F", TmuxRuns::Nothing),
    ("list-keys", "lsk", "PT", TmuxRuns::Nothing),
    ("show-options", "show", "t", TmuxRuns::Nothing),
    ("show-window-options", "showw", "t", TmuxRuns::Nothing),
    ("show-environment", "showenv", "t", TmuxRuns::Nothing),
    ("show-buffer", "showb", "b", TmuxRuns::Nothing),
    ("show-hooks", "", "t", TmuxRuns::Nothing),
    ("show-messages", "showmsgs", "t", TmuxRuns::Nothing),
    ("capture-pane", "capturep", "bEESt", TmuxRuns::Nothing),
    ("display-message", "display", "cdt", TmuxRuns::Nothing),
    ("select-window", "selectw", "t", TmuxRuns::Nothing),
    ("select-pane", "selectp", "Tt", TmuxRuns::Nothing),
    ("select-layout", "selectl", "t", TmuxRuns::Nothing),
    ("rename-session", "rename", "t", TmuxRuns::Nothing),
    ("rename-window", "renamew", "t", TmuxRuns::Nothing),
    ("resize-pane", "resizep", "txy", TmuxRuns::Nothing),
    ("resize-window", "resizew", "txy", TmuxRuns::Nothing),
    ("switch-client", "switchc", "ctT", TmuxRuns::Nothing),
    ("next-window", "next", "t", TmuxRuns::Nothing),
    ("previous-window", "prev", "t", TmuxRuns::Nothing),
    ("last-window", "last", "t", TmuxRuns::Nothing),
    ("last-pane", "lastp", "t", TmuxRuns::Nothing),
    ("swap-pane", "swapp", "st", TmuxRuns::Nothing),
    ("swap-window", "swapw", "st", TmuxRuns::Nothing),
    ("move-window", "movew", "st", TmuxRuns::Nothing),
    ("clear-history", "clearhist", "t", TmuxRuns::Nothing),
    ("start-server", "start", "", TmuxRuns::Nothing),
    ("refresh-client", "refresh", "ACcflt", TmuxRuns::Nothing),
    ("delete-buffer", "deleteb", "b", TmuxRuns::Nothing),
    ("run-shell", "run", "cdt", TmuxRuns::Shell),
    ("if-shell", "if", "t", TmuxRuns::IfShell),
    ("new-session", "new", "cefFnstxy", TmuxRuns::Pane),
    ("new-window", "neww", "ceFnt", TmuxRuns::Pane),
    ("split-window", "splitw", "ceFlt", TmuxRuns::Pane),
    ("respawn-pane", "respawnp", "cet", TmuxRuns::Pane),
    ("respawn-window", "respawnw", "cet", TmuxRuns::Pane),
    ("pipe-pane", "pipep", "t", TmuxRuns::Shell),
    ("save-buffer", "saveb", "b", TmuxRuns::SavesTo),
];

/// A command name as tmux resolves it: a full name, an alias, or a prefix of exactly one name.
fn tmux_command(word: &str) -> Option<(&'static str, &'static str, TmuxRuns)> {
    let exact = TMUX_COMMANDS
        .iter()
        .find(|(name, alias, _, _)| *name == word || (!alias.is_empty() && *alias == word));
    if let Some((name, _, values, runs)) = exact {
        return Some((name, values, *runs));
    }
    // tmux's other commands count too: a prefix of one of them is not one of these.
    const OTHERS: &[&str] = &[
        "bind-key",
        "break-pane",
        "choose-buffer",
        "choose-client",
        "choose-tree",
        "clear-prompt-history",
        "clock-mode",
        "command-prompt",
        "confirm-before",
        "copy-mode",
        "customize-mode",
        "display-menu",
        "display-panes",
        "display-popup",
        "find-window",
        "join-pane",
        "link-window",
        "load-buffer",
        "lock-client",
        "lock-server",
        "lock-session",
        "move-pane",
        "paste-buffer",
        "rotate-window",
        "send-keys",
        "send-prefix",
        "server-access",
        "set-buffer",
        "set-environment",
        "set-hook",
        "set-option",
        "set-window-option",
        "show-prompt-history",
        "source-file",
        "suspend-client",
        "unbind-key",
        "unlink-window",
        "wait-for",
        "next-layout",
        "previous-layout",
    ];
    let mut found = TMUX_COMMANDS
        .iter()
        .map(|(name, ..)| *name)
        .chain(OTHERS.iter().copied())
        .filter(|name| name.starts_with(word));
    let name = found.next()?;
    if found.next().is_some() {
        return None;
    }
    TMUX_COMMANDS
        .iter()
        .find(|(full, ..)| *full == name)
        .map(|(name, _, values, runs)| (*name, *values, *runs))
}

/// `tmux [options] [command [flags] [args]] [; command …]`: the shell commands and programs
/// tmux is told to run are analysed as if typed; the tmux commands nested in them
/// (`if-shell COND 'run-shell …'`) are analysed as a `tmux` line of their own. Configuration
/// files, hooks, key bindings and typed keys run commands kaiport cannot read, so they ask.
fn tmux(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.shape = Shape::Plain;
    verdict.not_read_only("`tmux` is not on plan mode's list of read-only commands");
    let args = call.args;
    if args.iter().any(|arg| arg.contains("#(")) {
        verdict.unprovable("a tmux format `#(…)` runs a shell command that cannot be checked");
    }
    // tmux's own options.
    let mut unknown = None;
    let index = getopt_letters(args, 0, args.len(), "cfLST", |letter, value| {
        match (letter, value) {
            ('c', Some((text, source))) => verdict.script(text, "tmux -c", Some(source), false),
            ('f', _) => verdict.unprovable(
                "`tmux -f` reads a configuration file whose commands cannot be checked",
            ),
            (letter, _) if !"2CDhlNuvVLST".contains(letter) => {
                unknown.get_or_insert(letter);
            }
            _ => {}
        }
    });
    if let Some(letter) = unknown {
        verdict.unprovable(format!(
            "option -{letter} of tmux is not known to kaiport's rules"
        ));
        return;
    }
    // Its commands, split at `;` words.
    let rest = &args[index.min(args.len())..];
    let mut start = index;
    for (offset, word) in rest.iter().enumerate() {
        let at = index + offset;
        if word == ";" {
            tmux_one(call, start, at, verdict);
            start = at + 1;
        }
    }
    tmux_one(call, start, args.len(), verdict);
}

/// Reads getopt-style flags in `args[start..end]`: `seen` gets each letter and, for a letter in
/// `values`, its value and the argument it came from. Returns where the operands start.
fn getopt_letters<'a>(
    args: &'a [String],
    start: usize,
    end: usize,
    values: &str,
    mut seen: impl FnMut(char, Option<(&'a str, usize)>),
) -> usize {
    let mut index = start;
    while index < end {
        let arg = &args[index];
        if arg == "--" {
            return index + 1;
        }
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        for (position, letter) in arg.char_indices().skip(1) {
            if !values.contains(letter) {
                seen(letter, None);
                continue;
            }
            let attached = &arg[position + letter.len_utf8()..];
            if attached.is_empty() {
                index += 1;
                seen(
                    letter,
                    args.get(index)
                        .filter(|_| index < end)
                        .map(|value| (value.as_str(), index)),
                );
            } else {
                seen(letter, Some((attached, index)));
            }
            break;
        }
        index += 1;
    }
    index
}

/// One tmux command, arguments `start..end`.
fn tmux_one(call: &Call<'_>, start: usize, end: usize, verdict: &mut Verdict) {
    let args = call.args;
    let Some(word) = args.get(start).filter(|_| start < end) else {
        return;
    };
    let Some((name, values, runs)) = tmux_command(word.trim_end_matches(';')) else {
        verdict.unprovable(format!(
            "`tmux {word}` runs, binds or types commands kaiport cannot check, so it asks"
        ));
        return;
    };
    let how = format!("tmux {name}");
    // Its flags, then the operands; `run-shell -C`: the operand is a tmux command, not shell text.
    let mut tmux_text = false;
    let index = getopt_letters(args, start + 1, end, values, |letter, _| {
        tmux_text |= name == "run-shell" && letter == 'C';
    });
    let operands = index..end;
    match runs {
        TmuxRuns::Nothing => {}
        TmuxRuns::Shell if tmux_text => {
            if let Some(text) = args.get(operands.start).filter(|_| !operands.is_empty()) {
                verdict.script(&format!("tmux {text}"), how, Some(operands.start), false);
            }
        }
        TmuxRuns::Shell => {
            if let Some(text) = args.get(operands.start).filter(|_| !operands.is_empty()) {
                verdict.script(text, how, Some(operands.start), false);
            }
        }
        TmuxRuns::IfShell => {
            if let Some(text) = args.get(operands.start).filter(|_| !operands.is_empty()) {
                verdict.script(text, how.clone(), Some(operands.start), false);
            }
            for at in operands.start + 1..operands.end {
                if !args[at].trim().is_empty() {
                    // A tmux command string: read as its own tmux line.
                    verdict.script(&format!("tmux {}", args[at]), how.clone(), Some(at), false);
                }
            }
        }
        TmuxRuns::Pane => match operands.len() {
            0 => {}
            1 => verdict.script(&args[operands.start], how, Some(operands.start), false),
            _ => verdict.args(operands.start, operands.end, how),
        },
        TmuxRuns::SavesTo => {
            if let Some(file) = args.get(operands.start).filter(|_| !operands.is_empty()) {
                verdict.output(file, how, false);
            }
        }
    }
}

/// `screen [options] [cmd [args]]`: the program it starts is analysed as if typed; `-Logfile`
/// writes its file; a configuration file (`-c`), another shell (`-s`) and commands sent to a
/// running session (`-X`, `-Q`) cannot be checked, so they ask, as does an option not known.
fn screen(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.shape = Shape::Plain;
    verdict.not_read_only("`screen` is not on plan mode's list of read-only commands");
    let args = call.args;
    let mut reattach = false;
    let mut detached = false;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        match arg.as_str() {
            "--" => {
                index += 1;
                break;
            }
            "-list" | "-ls" | "-wipe" => reattach = true,
            "-fn" | "-fa" | "-ln" => {}
            "-Logfile" | "-logfile" => {
                index += 1;
                if let Some(file) = args.get(index) {
                    verdict.output(file, "screen -Logfile", false);
                }
            }
            cluster => {
                let letters: Vec<char> = cluster[1..].chars().collect();
                for (position, letter) in letters.iter().enumerate() {
                    match letter {
                        'r' | 'R' | 'x' => reattach = true,
                        'd' | 'D' => reattach |= !letters.contains(&'m'),
                        'm' => detached = true,
                        'a' | 'A' | 'f' | 'i' | 'l' | 'L' | 'O' | 'q' | 'U' | 'v' => {}
                        'c' | 'e' | 'h' | 'p' | 's' | 'S' | 't' | 'T' | 'X' | 'Q' => {
                            match letter {
                                'c' => verdict.unprovable(
                                    "`screen -c` reads a configuration file whose commands cannot be checked",
                                ),
                                's' => verdict.unprovable(
                                    "`screen -s` runs another program as the shell, which cannot be checked",
                                ),
                                'X' | 'Q' => verdict.unprovable(
                                    "`screen` runs or types commands in another terminal session",
                                ),
                                _ => {}
                            }
                            if position + 1 == letters.len() {
                                index += 1; // the value is the next word
                            }
                            break;
                        }
                        _ => {
                            verdict.unprovable(format!(
                                "option -{letter} of screen is not known to kaiport's rules"
                            ));
                            return;
                        }
                    }
                }
            }
        }
        index += 1;
    }
    if index < args.len() && (detached || !reattach) {
        verdict.args(index, args.len(), "screen");
    }
}

fn parallel_hook(call: &Call<'_>, verdict: &mut Verdict) {
    parallel(call, verdict);
    verdict.not_read_only(format!(
        "`{}` is not on plan mode's list of read-only commands",
        call.display()
    ));
}

/// Where GNU parallel's command template starts: after its options, each read with the spec's
/// arity, except Perl's optional values (`-i`, `-e`: the next word unless it is an option; `-l`:
/// the next word if it is a number), which the spec cannot say.
fn parallel_template_start(call: &Call<'_>) -> usize {
    let args = call.args;
    let arity = |spelling: &str| {
        call.root
            .options
            .iter()
            .find(|def| def.has(spelling))
            .map(|def| def.arity)
    };
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if arg == "--" || !arg.starts_with('-') || arg == "-" || arg.starts_with(":::") {
            break;
        }
        let next = args.get(index + 1);
        let optional = |number: bool| {
            next.is_some_and(|word| {
                if number {
                    !word.is_empty() && word.chars().all(|c| c.is_ascii_digit())
                } else {
                    !word.starts_with('-')
                }
            })
        };
        let takes_next = match arg.as_str() {
            "-i" | "--replace" | "-e" | "--eof" => optional(false),
            "-l" | "--max-lines" => optional(true),
            long if long.starts_with("--") => {
                !long.contains('=') && arity(long) == Some(Arity::Value)
            }
            word if arity(word).is_some() => arity(word) == Some(Arity::Value),
            cluster => {
                // `-kj 4`: the first letter that takes a value takes the rest, or the next word.
                let letters = &cluster[1..];
                let mut takes = false;
                for (position, letter) in letters.char_indices() {
                    let at_end = position + letter.len_utf8() == letters.len();
                    match letter {
                        'i' | 'e' => {
                            takes = at_end && optional(false);
                            break;
                        }
                        'l' => {
                            takes = at_end && optional(true);
                            break;
                        }
                        _ => match arity(&format!("-{letter}")) {
                            Some(Arity::Value) => {
                                takes = at_end;
                                break;
                            }
                            Some(Arity::Optional) => break,
                            _ => {}
                        },
                    }
                }
                takes
            }
        };
        index += if takes_next { 2 } else { 1 };
    }
    index
}

/// GNU parallel: the command template (with arguments added), commands given after `:::`, or
/// commands read from standard input.
fn parallel(call: &Call<'_>, fx: &mut Verdict) {
    let args = call.args;
    let mut index = parallel_template_start(call);
    if args.get(index).is_some_and(|arg| arg == "--") {
        index += 1;
    }
    let end = args[index.min(args.len())..]
        .iter()
        .position(|arg| arg.starts_with(":::"))
        .map_or(args.len(), |position| index + position);
    if index < end {
        // parallel joins the words into one line for a shell (`-q` quotes them): both readings
        // are analysed, the stricter wins.
        fx.args(index, end, "parallel");
        fx.script(&args[index..end].join(" "), "parallel", None, true);
        fx.runs
            .last_mut()
            .into_iter()
            .for_each(|run| run.source = Some(index));
    } else if end < args.len() && args[end] == ":::" {
        // No template: every argument after `:::` is a command line of its own.
        for (offset, command) in args[end + 1..].iter().enumerate() {
            if command.starts_with(":::") {
                break;
            }
            fx.script(command, "parallel :::", Some(end + 1 + offset), false);
        }
    } else {
        fx.commands_on_stdin = true;
    }
}
