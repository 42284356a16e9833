//! Every program spec against the program itself: each option the installed program's `--help`
//! or manual page lists must be known to its spec (policy/programs/), or this test fails, naming
//! the options. An option a spec does not know asks on every use, so a missing option is a false
//! alarm at best; the test keeps the tables complete as the programs change.
//!
//! A program that is not installed here is skipped and said so; the ones Debian does not package
//! at all are listed in [`NOT_ON_DEBIAN`]. Specs still marked `@loose` are not checked (their
//! unknown options do not ask).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use kaiport_core::policy::programs::model::Level;
use kaiport_core::policy::programs::{accepts_option, is_complete, registry};
use support::help::{help_text, installed, listed_options};

/// Programs with a spec that Debian does not package, and why (so the test cannot check them on a
/// Debian machine; where one is installed anyway, as kubectl often is, its spec is checked).
const NOT_ON_DEBIAN: &[(&str, &str)] = &[
    ("dnf", "Fedora's and RHEL's package manager"),
    ("yum", "RHEL's older package manager"),
    ("mongosh", "MongoDB's shell, from MongoDB's own repository"),
    (
        "helm",
        "spec from the upstream reference (helm-www docs, Helm 3 and 4)",
    ),
    ("kubectl", "Kubernetes' own packages"),
    (
        "oc",
        "OpenShift's client; spec from kubectl's and oc's source",
    ),
    ("authconfig", "RHEL's"),
    ("authselect", "RHEL's"),
    ("chkconfig", "RHEL's"),
    ("catchsegv", "dropped from glibc's packages"),
    (
        "nerdctl",
        "containerd's client; spec from its command reference and source",
    ),
    ("csf", "ConfigServer's firewall, from its own site"),
    ("apf", "R-fx Networks' firewall, from its own site"),
    ("zfs", "OpenZFS is in contrib, not main"),
    ("zpool", "OpenZFS is in contrib, not main"),
    ("apk", "Alpine's package manager"),
    ("initctl", "Upstart's, gone from Debian"),
];

/// Subcommands with a spec whose program Debian does not package, though the program they belong
/// to is installed here (checked where the plugin is installed after all).
const SUBCOMMANDS_NOT_ON_DEBIAN: &[(&str, &str, &str)] = &[(
    "docker",
    "compose",
    "the Compose v2 plugin is not packaged by Debian 12 (its docker-compose is v1, which shares the spec but not all the options); its spec is from the upstream reference",
)];

/// Whether a subcommand path can be checked here: not one of [`SUBCOMMANDS_NOT_ON_DEBIAN`], or
/// that plugin is installed after all (`docker compose version` answers).
fn checkable(program: &str, path: &[&str]) -> bool {
    let Some((_, sub, _)) = SUBCOMMANDS_NOT_ON_DEBIAN
        .iter()
        .find(|(owner, sub, _)| *owner == program && path.first() == Some(sub))
    else {
        return true;
    };
    std::process::Command::new(program)
        .args([sub, "version"])
        .output()
        .is_ok_and(|output| output.status.success())
}

/// Where a spec's options are checked: the program, the subcommand path in its spec, and the
/// commands whose output lists the options.
struct Source {
    program: &'static str,
    path: &'static [&'static str],
    help: &'static [&'static [&'static str]],
    /// Words the help text shows like options that are not the program's (examples, values).
    ignore: &'static [&'static str],
}

const fn help(program: &'static str, commands: &'static [&'static [&'static str]]) -> Source {
    Source {
        program,
        path: &[],
        help: commands,
        ignore: &[],
    }
}

/// The help of one program: `PROGRAM --help` and `man PROGRAM`.
macro_rules! gnu {
    ($($program:literal),* $(,)?) => {
        [$(help($program, &[&[$program, "--help"], &["man", $program]])),*]
    };
}

fn sources() -> Vec<Source> {
    let mut all: Vec<Source> = gnu![
        "cat",
        "head",
        "tail",
        "wc",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "pwd",
        "uname",
        "id",
        "who",
        "tty",
        "nproc",
        "printenv",
        "seq",
        "cut",
        "tr",
        "nl",
        "tac",
        "fold",
        "fmt",
        "expand",
        "unexpand",
        "comm",
        "join",
        "paste",
        "md5sum",
        "sha256sum",
        "b2sum",
        "cksum",
        "sum",
        "base64",
        "basenc",
        "numfmt",
        "pathchk",
        "dircolors",
        "df",
        "du",
        "ls",
        "stat",
        "od",
        "pr",
        "ptx",
        "shuf",
        "date",
        "sort",
        "uniq",
        "tee",
        "cp",
        "mv",
        "install",
        "ln",
        "rm",
        "rmdir",
        "shred",
        "truncate",
        "touch",
        "mkdir",
        "mkfifo",
        "mknod",
        "mktemp",
        "split",
        "csplit",
        "chmod",
        "chown",
        "chgrp",
        "sync",
        "env",
        "nice",
        "timeout",
        "stdbuf",
        "chroot",
        "xargs",
        "tar",
        "gzip",
        "xz",
        "zstd",
        "bzip2",
        "rsync",
        "curl",
        "wget",
        "grep",
        "sed",
        "make",
        "flock",
        "setsid",
        "ionice",
        "taskset",
        "unshare",
        "nsenter",
        "chrt",
        "su",
        "runuser",
        "script",
        "watch",
        "psql",
        "dropdb",
        "mysql",
        "ansible",
        "journalctl",
        "systemctl",
        "loginctl",
        "timedatectl",
        "hostnamectl",
        "localectl",
        "systemd-run",
        "strace",
        "sysctl",
        // processes
        "killall",
        "skill",
        "free",
        "uptime",
        "vmstat",
        "lscpu",
        "lsns",
        "lsipc",
        "lslocks",
        "lsmem",
        "pstree",
        "pmap",
        "hostname",
        "ldd",
        "locale",
        "iotop",
        "htop",
        "lsusb",
        "sensors",
        // text
        "column",
        "diff",
        "cmp",
        "hexdump",
        "rev",
        "look",
        "namei",
        "getent",
        "getfacl",
        "whatis",
        "apropos",
        "info",
        "rg",
        "tree",
        "file",
        "yq",
        // storage
        "lsblk",
        "blkid",
        "findmnt",
        "mountpoint",
        "wipefs",
        "blkdiscard",
        "fdisk",
        "sfdisk",
        "cfdisk",
        "mkswap",
        "mkfs.btrfs",
        "lvremove",
        "vgremove",
        "pvremove",
        // network, remote, services
        "netstat",
        "traceroute",
        "mtr",
        "whois",
        "ncat",
        "tcpdump",
        "gdb",
        // accounts
        "adduser",
        "deluser",
        "chpasswd",
        "groupdel",
        "groupmod",
        "gpasswd",
        "chsh",
        "chfn",
        "newusers",
        "pwconv",
        "grpconv",
        "visudo",
        "vipw",
        "last",
        "lastlog",
        "w",
        // wrappers, databases, systemd
        "parallel",
        "ltrace",
        "torsocks",
        "setpriv",
        "prlimit",
        "setarch",
        "capsh",
        "firejail",
        "bwrap",
        "cgexec",
        "start-stop-daemon",
        "cpulimit",
        "faketime",
        "valgrind",
        "mysqladmin",
        "shutdown",
        "reboot",
        "kexec",
        "invoke-rc.d",
        "patch",
        "ed",
    ]
    .into_iter()
    .collect();
    all.extend([
        help("sudo", &[&["man", "sudo"]]),
        Source {
            program: "man",
            path: &[],
            help: &[&["man", "--help"], &["man", "man"]],
            // `-b` appears in the manual as an option of another program.
            ignore: &["-b"],
        },
        help("find", &[&["find", "--help"]]),
        Source {
            program: "zip",
            path: &[],
            help: &[&["man", "zip"]],
            // The manual's own notation for option syntax.
            ignore: &["--longoption", "--some"],
        },
        help("unzip", &[&["man", "unzip"]]),
        help("ssh", &[&["man", "ssh"]]),
        help("scp", &[&["man", "scp"]]),
        help("sftp", &[&["man", "sftp"]]),
        help("ssh-keygen", &[&["man", "ssh-keygen"]]),
        help("apt-get", &[&["man", "apt-get"]]),
        help("certbot", &[&["certbot", "--help", "all"]]),
        help("/usr/bin/time", &[&["/usr/bin/time", "--help"]]),
        help("chronic", &[&["man", "chronic"]]),
        help("crontab", &[&["man", "crontab"]]),
        help("nginx", &[&["nginx", "-h"]]),
        help(
            "logrotate",
            &[&["logrotate", "--help"], &["man", "logrotate"]],
        ),
        help("ip", &[&["man", "ip"]]),
        help("at", &[&["man", "at"]]),
        help("ufw", &[&["man", "ufw"]]),
        // Firewalls and interfaces.
        help("iptables", &[&["iptables", "-h"], &["man", "iptables"]]),
        help("ip6tables", &[&["ip6tables", "-h"], &["man", "ip6tables"]]),
        help("ebtables", &[&["ebtables", "-h"], &["man", "ebtables"]]),
        help("arptables", &[&["arptables", "-h"], &["man", "arptables"]]),
        help(
            "iptables-restore",
            &[&["iptables-restore", "-h"], &["man", "iptables-restore"]],
        ),
        help("iptables-apply", &[&["man", "iptables-apply"]]),
        help("nft", &[&["nft", "--help"], &["man", "nft"]]),
        help("firewall-cmd", &[&["firewall-cmd", "--help"]]),
        help(
            "firewall-offline-cmd",
            &[&["firewall-offline-cmd", "--help"]],
        ),
        help("ipset", &[&["ipset", "-h"], &["man", "ipset"]]),
        help("ss", &[&["ss", "--help"], &["man", "ss"]]),
        help("tc", &[&["man", "tc"]]),
        help("ifconfig", &[&["man", "ifconfig"]]),
        help("route", &[&["route", "--help"], &["man", "route"]]),
        help("ifup", &[&["ifup", "--help"], &["man", "ifup"]]),
        help("dhclient", &[&["man", "dhclient"]]),
        help("netplan", &[&["netplan", "--help"]]),
        help(
            "networkctl",
            &[&["networkctl", "--help"], &["man", "networkctl"]],
        ),
        help("nmcli", &[&["nmcli", "--help"], &["man", "nmcli"]]),
        help("wpa_cli", &[&["man", "wpa_cli"]]),
        Source {
            program: "strings",
            path: &[],
            help: &[&["strings", "--help"], &["man", "strings"]],
            // The manual's name for `-NUMBER`.
            ignore: &["-min-len"],
        },
        Source {
            program: "fakeroot",
            path: &[],
            help: &[&["fakeroot", "--help"], &["man", "fakeroot"]],
            // A file mode in the manual's example listing.
            ignore: &["-rw-r--r"],
        },
        Source {
            program: "lspci",
            path: &[],
            help: &[&["lspci", "--help"], &["man", "lspci"]],
            // A field of the machine-readable output.
            ignore: &["-rrev"],
        },
        help("ps", &[&["ps", "--help", "all"], &["man", "ps"]]),
        help("top", &[&["top", "-h"], &["man", "top"]]),
        help("pidof", &[&["man", "pidof"]]),
        help("killall5", &[&["man", "killall5"]]),
        help("iostat", &[&["man", "iostat"]]),
        help("mpstat", &[&["man", "mpstat"]]),
        help("sar", &[&["sar", "--help"], &["man", "sar"]]),
        help("lsof", &[&["man", "lsof"]]),
        help("lsmod", &[&["man", "lsmod"]]),
        help("atop", &[&["atop", "-h"]]),
        help("btop", &[&["btop", "--help"]]),
        help("jq", &[&["jq", "--help"]]),
        help("xxd", &[&["xxd", "--help"], &["man", "xxd"]]),
        help("ag", &[&["ag", "--help"], &["man", "ag"]]),
        help("colordiff", &[&["man", "colordiff"]]),
        help("locate", &[&["plocate", "--help"], &["man", "plocate"]]),
        help("atq", &[&["atq", "-V"]]),
        help("wipe", &[&["wipe", "-h"]]),
        help("srm", &[&["srm", "--help"], &["man", "srm"]]),
        help("sqlite3", &[&["sqlite3", "-help"]]),
        help("nc", &[&["nc", "-h"], &["man", "nc"]]),
        help("socat", &[&["socat", "-h"]]),
        help("ping", &[&["ping", "-h"], &["man", "ping"]]),
        help("tracepath", &[&["man", "tracepath"]]),
        help("dig", &[&["dig", "-h"], &["man", "dig"]]),
        help("host", &[&["man", "host"]]),
        help("arp", &[&["arp", "--help"], &["man", "arp"]]),
        help("sshd", &[&["man", "sshd"]]),
        help("mdadm", &[&["mdadm", "--help-options"], &["man", "mdadm"]]),
        help("mke2fs", &[&["man", "mke2fs"]]),
        help(
            "mkfs.vfat",
            &[&["mkfs.vfat", "--help"], &["man", "mkfs.vfat"]],
        ),
        help("mkfs.xfs", &[&["man", "mkfs.xfs"]]),
        help("sgdisk", &[&["sgdisk", "--help"], &["man", "sgdisk"]]),
        help("parted", &[&["parted", "--help"], &["man", "parted"]]),
        help("finger", &[&["man", "finger"]]),
        help("entr", &[&["man", "entr"]]),
        help("toybox", &[&["toybox", "--help"]]),
        help("update-rc.d", &[&["man", "update-rc.d"]]),
        Source {
            program: "gcc",
            path: &[],
            help: &[
                &["gcc", "--help"],
                &["gcc", "--help=common"],
                &["gcc", "--help=optimizers"],
                &["gcc", "--help=warnings"],
                &["gcc", "--help=target"],
                &["gcc", "--help=params"],
                &["gcc", "--help=c"],
                &["gcc", "--help=c++"],
                &["gcc", "--help=undocumented"],
                &["gcc", "--help=joined"],
                &["gcc", "--help=separate"],
                &["man", "gcc"],
            ],
            // A value of -finit-real, listed on a line of its own.
            ignore: &["-inf"],
        },
        Source {
            program: "clang",
            path: &[],
            help: &[&["clang", "--help-hidden"], &["man", "clang"]],
            // The help reader stops at `+` (`-fc++-abi`, listed in full in the spec) and at a
            // folder name in a description (`gcc{,-cross}`).
            ignore: &[
                "-fc",
                "-fno-c",
                "-fexperimental-relative-c",
                "-fno-experimental-relative-c",
                "-cross",
            ],
        },
        help("rustc", &[&["rustc", "--help", "-v"], &["man", "rustc"]]),
        help("vim", &[&["vim", "--help"], &["man", "vim"]]),
        help("nano", &[&["nano", "--help"], &["man", "nano"]]),
        help("emacs", &[&["emacs", "--help"], &["man", "emacs"]]),
        Source {
            program: "joe",
            path: &[],
            help: &[&["man", "joe"]],
            // xterm's configure option, in the manual's notes on mouse support.
            ignore: &["--enable-paste64"],
        },
        Source {
            program: "micro",
            path: &[],
            help: &[&["micro", "-help"], &["micro", "-options"]],
            // The help's own placeholder for `-SETTING VALUE`.
            ignore: &["-option"],
        },
        help("mcedit", &[&["mcedit", "--help-all"]]),
        help("mg", &[&["man", "mg"]]),
        help("jed", &[&["jed", "--help"]]),
        // Launchers whose help is not `--help`.
        help("numactl", &[&["man", "numactl"]]),
        help("chpst", &[&["man", "chpst"]]),
        help("envdir", &[&["man", "envdir"]]),
        help("envuidgid", &[&["man", "envuidgid"]]),
        help("softlimit", &[&["man", "softlimit"]]),
        help("setlock", &[&["man", "setlock"]]),
        help("pgrphack", &[&["man", "pgrphack"]]),
        help("fghack", &[&["man", "fghack"]]),
        help("setuidgid", &[&["man", "setuidgid"]]),
        help("daemonize", &[&["man", "daemonize"]]),
        help("schedtool", &[&["schedtool", "-h"], &["man", "schedtool"]]),
        help("trickle", &[&["trickle", "-h"], &["man", "trickle"]]),
        help("torify", &[&["torify", "--help"], &["man", "torify"]]),
        Source {
            program: "gpg",
            path: &[],
            help: &[&["gpg", "--help"], &["man", "gpg"]],
            // Operators of `--import-filter` expressions, listed in the manual like options.
            ignore: &["-le", "-lt", "-gt", "-ge"],
        },
    ]);
    // git: every subcommand its spec lists, with its own help.
    for path in subcommand_paths("git") {
        let sub = path.first().copied().unwrap_or_default();
        all.push(Source {
            program: "git",
            help: git_help(sub),
            path,
            // Every git subcommand takes -h for its usage; `--git-path` is rev-parse's, shown
            // in git-worktree's manual.
            ignore: &["-h", "--git-path"],
        });
    }
    // kubectl, docker and openssl: every subcommand path with its own help.
    all.extend(per_subcommand("kubectl", "--help"));
    all.push(help("kubectl", &[&["kubectl", "options"]]));
    all.extend(per_subcommand("docker", "--help"));
    all.extend(per_subcommand("podman", "--help"));
    // Not on Debian (see NOT_ON_DEBIAN): checked where installed all the same.
    for program in ["helm", "nerdctl", "oc"] {
        all.extend(per_subcommand(program, "--help"));
    }
    all.push(help("helm", &[&["helm", "--help"]]));
    all.push(help("nerdctl", &[&["nerdctl", "--help"]]));
    all.push(help("oc", &[&["oc", "options"]]));
    all.push(help("podman", &[&["podman", "--help"]]));
    all.extend(per_subcommand("openssl", "-help"));
    all.extend(per_subcommand("snap", "--help"));
    all.push(help("snap", &[&["snap", "help", "--all"]]));
    all.push(help("git", &[&["git", "--help"]]));
    all
}

/// `PROGRAM PATH… HELP` for every subcommand path of a program's spec.
fn per_subcommand(program: &'static str, help_option: &'static str) -> Vec<Source> {
    subcommand_paths(program)
        .into_iter()
        .filter(|path| {
            let checked = checkable(program, path);
            if !checked && path.len() == 1 {
                eprintln!("{program} {}: not checked, not on Debian", path.join(" "));
            }
            checked
        })
        .map(|path| {
            let mut command: Vec<&'static str> = vec![program];
            command.extend(path.iter().copied());
            command.push(help_option);
            Source {
                program,
                path,
                help: Box::leak(vec![&*Box::leak(command.into_boxed_slice())].into_boxed_slice()),
                ignore: &[],
            }
        })
        .collect()
}

/// Every subcommand path a program's spec lists (`["container", "ls"]`), except those still
/// `@loose` (their options are not all listed yet).
fn subcommand_paths(program: &str) -> Vec<&'static [&'static str]> {
    let Some(table) = registry()
        .find(program)
        .and_then(|entry| entry.table.as_ref().ok())
    else {
        return Vec::new();
    };
    let mut paths = Vec::new();
    let mut stack: Vec<(Vec<&'static str>, &Level)> = vec![(Vec::new(), &table.root)];
    while let Some((path, level)) = stack.pop() {
        for sub in &level.subs {
            if sub.loose {
                continue;
            }
            let mut next = path.clone();
            next.push(Box::leak(sub.name().to_owned().into_boxed_str()) as &'static str);
            paths.push(&*Box::leak(next.clone().into_boxed_slice()));
            stack.push((next, sub));
        }
    }
    paths
}

/// `git SUB -h` and `man git-SUB`.
fn git_help(sub: &'static str) -> &'static [&'static [&'static str]] {
    let page: &'static str = Box::leak(format!("git-{sub}").into_boxed_str());
    let commands: Vec<&'static [&'static str]> = vec![
        Box::leak(vec!["git", sub, "-h"].into_boxed_slice()),
        Box::leak(vec!["man", page].into_boxed_slice()),
    ];
    Box::leak(commands.into_boxed_slice())
}

#[test]
fn the_help_reader_finds_options() {
    let text = "Usage: x [OPTION]\n  -a, --all          do it\n      --color[=WHEN]  paint\n    -x, --[no-]exec <cmd>  run\n  -n NUM\tcount\n      --  end\n";
    assert_eq!(
        listed_options(text, false),
        ["-a", "--all", "--color", "-x", "--no-exec", "--exec", "-n"]
    );
}

#[test]
fn every_listed_option_is_known_to_its_spec() {
    let mut missing: Vec<String> = Vec::new();
    let mut skipped: Vec<&str> = Vec::new();
    let sources = sources();
    // The help texts, read side by side (a few hundred program and manual runs).
    let jobs: Vec<(usize, &[&str])> = sources
        .iter()
        .enumerate()
        .filter(|(_, source)| installed(source.program))
        .flat_map(|(index, source)| source.help.iter().map(move |command| (index, *command)))
        .collect();
    let texts: Vec<(usize, &[&str], String)> = std::thread::scope(|scope| {
        let workers: Vec<_> = jobs
            .chunks(jobs.len().div_ceil(8).max(1))
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|(index, command)| (*index, *command, help_text(command)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap_or_default())
            .collect()
    });
    for source in &sources {
        if !installed(source.program) {
            skipped.push(source.program);
        }
        // A spec checked here claims to list every option; a `@loose` one would pass anything.
        let program = source.program.rsplit('/').next().unwrap_or(source.program);
        if !is_complete(program) {
            missing.push(format!(
                "{program}: the spec is @loose, so its options are not checked"
            ));
        }
    }
    for (index, command, text) in texts {
        let source = &sources[index];
        let program = source.program.rsplit('/').next().unwrap_or(source.program);
        for option in listed_options(&text, command.first() == Some(&"man")) {
            if source.ignore.contains(&option.as_str()) {
                continue;
            }
            match accepts_option(program, source.path, &option) {
                Some(true) => {}
                Some(false) => {
                    let place = if source.path.is_empty() {
                        program.to_owned()
                    } else {
                        format!("{program} {}", source.path.join(" "))
                    };
                    let line = format!("{place}: {option} (from `{}`)", command.join(" "));
                    if !missing.contains(&line) {
                        missing.push(line);
                    }
                }
                None => missing.push(format!("{program}: no spec for {:?}", source.path)),
            }
        }
    }
    skipped.sort_unstable();
    skipped.dedup();
    let unexpected: Vec<&&str> = skipped
        .iter()
        .filter(|program| !NOT_ON_DEBIAN.iter().any(|(name, _)| name == *program))
        .collect();
    if !unexpected.is_empty() {
        eprintln!("not installed here, so not checked: {unexpected:?}");
    }
    assert!(
        missing.is_empty(),
        "{} options the installed programs list are not known to their specs:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn every_spec_reads_and_names_its_family() {
    for entry in &registry().entries {
        assert!(
            entry.table.is_ok(),
            "{}: {:?}",
            entry.spec.family,
            entry.table
        );
        assert!(!entry.spec.names.is_empty());
    }
    assert!(registry().entries.len() >= 100);
}
