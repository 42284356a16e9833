//! Where each program spec's options are checked: the commands whose output (`--help`, a manual
//! page) lists a program's options, shared by the spec test (policy_specs.rs), which holds every
//! spec to them, and the property tests (policy_props.rs), which draw options from them. Lists
//! too the programs that cannot be checked on Debian and why, and the names that are another
//! name of a checked program. Must never list a program as checked that it does not read.
#![allow(dead_code)]

use super::help::{help_text, installed};
use kaiport_core::policy::programs::model::Level;
use kaiport_core::policy::programs::registry;
use std::sync::OnceLock;

/// Programs with a spec that Debian does not package, and why (so the test cannot check them on a
/// Debian machine; where one is installed anyway, as kubectl often is, its spec is checked).
pub const NOT_ON_DEBIAN: &[(&str, &str)] = &[
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
    ("stop", "Upstart's link to initctl"),
    ("restart", "Upstart's link to initctl"),
    (
        "mongo",
        "MongoDB's old shell, from MongoDB's own repository",
    ),
    ("s6-rc", "Debian 12 packages s6 but not s6-rc"),
    (
        "docker-compose",
        "Debian 12's docker-compose is Compose v1, which the spec (Compose v2's, compose.spec) \
         does not follow on purpose: an option only v1 had asks",
    ),
];

/// Names of a spec that are another name of a program checked under its own (a link to the same
/// binary, or a name Debian does not use for a program it ships under another): (name, the
/// checked name, why).
pub const SAME_PROGRAM: &[(&str, &str, &str)] = &[
    (
        "gtar",
        "tar",
        "GNU tar's name where tar is another; Debian's tar is GNU tar",
    ),
    (
        "gsed",
        "sed",
        "GNU sed's name where sed is another; Debian's sed is GNU sed",
    ),
    ("gmake", "make", "a link to make"),
    (
        "gpg2",
        "gpg",
        "GnuPG 2's name where gpg is GnuPG 1; Debian's gpg is GnuPG 2",
    ),
    ("unxz", "xz", "a link to xz"),
    ("xzcat", "xz", "a link to xz"),
    ("lzma", "xz", "a link to xz"),
    ("unlzma", "xz", "a link to xz"),
    ("lzcat", "xz", "a link to xz"),
    ("unzstd", "zstd", "a link to zstd"),
    ("zstdcat", "zstd", "a link to zstd"),
    ("zstdmt", "zstd", "a link to zstd"),
    ("bunzip2", "bzip2", "the same file as bzip2"),
    ("bzcat", "bzip2", "the same file as bzip2"),
    ("zegrep", "zgrep", "a script running zgrep -E"),
    ("zfgrep", "zgrep", "a script running zgrep -F"),
    ("cc", "gcc", "the alternative for cc is gcc"),
    ("c++", "g++", "the alternative for c++ is g++"),
    ("clang++", "clang", "a link to clang"),
    ("mkfs.ext2", "mke2fs", "a link to mke2fs"),
    ("mkfs.ext3", "mke2fs", "a link to mke2fs"),
    ("mkfs.ext4", "mke2fs", "a link to mke2fs"),
    ("mkfs.fat", "mkfs.vfat", "mkfs.vfat is a link to it"),
    ("mkfs.msdos", "mkfs.vfat", "a link to mkfs.fat"),
    ("mkdosfs", "mkfs.vfat", "a link to mkfs.fat"),
    (
        "iptables-legacy",
        "iptables",
        "the same xtables multi-call binary",
    ),
    (
        "iptables-nft",
        "iptables",
        "the same xtables multi-call binary",
    ),
    (
        "ip6tables-legacy",
        "ip6tables",
        "the same xtables multi-call binary",
    ),
    (
        "ip6tables-nft",
        "ip6tables",
        "the same xtables multi-call binary",
    ),
    (
        "iptables-legacy-restore",
        "iptables-restore",
        "the same xtables multi-call binary",
    ),
    (
        "iptables-nft-restore",
        "iptables-restore",
        "the same xtables multi-call binary",
    ),
    (
        "ip6tables-legacy-restore",
        "ip6tables-restore",
        "the same xtables multi-call binary",
    ),
    (
        "ip6tables-nft-restore",
        "ip6tables-restore",
        "the same xtables multi-call binary",
    ),
    ("ping4", "ping", "a link to ping"),
    ("ping6", "ping", "a link to ping"),
    ("traceroute6", "traceroute", "a link to traceroute"),
    (
        "tracepath6",
        "tracepath",
        "iputils replaced it with tracepath -6",
    ),
    ("hd", "hexdump", "a link to hexdump"),
    ("pager", "less", "the alternative for pager is less"),
    ("nawk", "mawk", "the alternative for nawk is mawk"),
    ("slogin", "ssh", "a link to ssh"),
    ("netcat", "nc", "a link to nc, as nc is"),
    ("letsencrypt", "certbot", "a link to certbot"),
    ("lastb", "last", "a link to last"),
    ("vigr", "vipw", "a link to vipw"),
    ("addgroup", "adduser", "a link to adduser"),
    ("delgroup", "deluser", "a link to deluser"),
    ("ifdown", "ifup", "a link to ifup"),
    ("ifquery", "ifup", "a link to ifup"),
    ("linux32", "setarch", "a link to setarch"),
    ("linux64", "setarch", "a link to setarch"),
    ("i386", "setarch", "a link to setarch"),
    ("x86_64", "setarch", "a link to setarch"),
    ("vi", "vim", "the alternative for vi is vim"),
    ("view", "vim", "a link to vim"),
    ("ex", "vim", "a link to vim"),
    ("rvim", "vim", "a link to vim"),
    ("rview", "vim", "a link to vim"),
    ("vimdiff", "vim", "a link to vim"),
    ("vim.basic", "vim", "the vim that vim is"),
    (
        "gvim",
        "vim",
        "vim built with a GUI: vim-gtk3, the same options",
    ),
    (
        "emacs-gtk",
        "emacs",
        "emacs built with GTK: the same options",
    ),
    ("pico", "nano", "a link to nano"),
    ("plocate", "locate", "locate's source reads plocate's help"),
    (
        "batch",
        "at",
        "a script running at -qb now, taking no options of its own",
    ),
    (
        "mlocate",
        "locate",
        "Debian's mlocate is a transitional package to plocate",
    ),
    ("nmtui-edit", "nmtui", "a link to nmtui"),
    ("nmtui-connect", "nmtui", "a link to nmtui"),
    ("nmtui-hostname", "nmtui", "a link to nmtui"),
];

/// Specs with no option table: their code reads the words and an option it does not know is
/// not (yet) a reason to ask, so there is nothing to hold against a help text (docs/policy.md,
/// *Program specs*). Named by one name of each such spec, with why.
pub const READ_BY_CODE: &[(&str, &str)] = &[
    (
        "sh",
        "the shells: their options only decide where the command text is",
    ),
    ("eval", "runs its words as shell code, read as typed"),
    ("source", "runs a file as shell code"),
    (
        "trap",
        "the builtins that change what runs later, judged by their words",
    ),
    ("echo", "the shell's plain builtins and small programs"),
    (
        "python",
        "the interpreters: their inline code is what is judged",
    ),
    (
        "r",
        "bash's alias for `fc -s`: its words are a pattern and a command, never options",
    ),
];

/// Subcommands with a spec whose program Debian does not package, though the program they belong
/// to is installed here (checked where the plugin is installed after all).
pub const SUBCOMMANDS_NOT_ON_DEBIAN: &[(&str, &str, &str)] = &[(
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
pub struct Source {
    pub program: &'static str,
    pub path: &'static [&'static str],
    pub help: &'static [&'static [&'static str]],
    /// Words the help text shows like options that are not the program's (examples, values).
    pub ignore: &'static [&'static str],
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

fn build() -> Vec<Source> {
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
        "pmap",
        "hostname",
        "ldd",
        "locale",
        "iotop",
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
        // coreutils' smaller programs and the other names of the checksums, ls and base64
        "whoami",
        "groups",
        "users",
        "sleep",
        "tsort",
        "factor",
        "arch",
        "hostid",
        "logname",
        "sha1sum",
        "sha224sum",
        "sha384sum",
        "sha512sum",
        "base32",
        "dir",
        "vdir",
        "link",
        "unlink",
        "dd",
        "nohup",
        "runcon",
        // gzip's scripts with options of their own
        "gunzip",
        "zcat",
        "zgrep",
        "zcmp",
        "zdiff",
        // grep under its other names (scripts running grep -E, -F, -r)
        "egrep",
        "fgrep",
        "rgrep",
        // the other personalities of systemctl and systemd
        "poweroff",
        "halt",
        "telinit",
        // util-linux and procps
        "kill",
        "dmesg",
        "umount",
        "mkfs",
        "more",
        // the packaging tools' own help and manual pages
        "apt",
        "apt-cache",
        "apt-mark",
        "dpkg-query",
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
        Source {
            program: "find",
            path: &[],
            help: &[&["find", "--help"]],
            // `-O` with its value, as the usage line writes it.
            ignore: &["-Olevel"],
        },
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
        Source {
            program: "ip",
            path: &[],
            help: &[&["man", "ip"]],
            // Abbreviations in the manual's notation, which ip takes as unique prefixes.
            ignore: &["-e", "-times"],
        },
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
        Source {
            program: "tc",
            path: &[],
            help: &[&["man", "tc"]],
            // Abbreviations in the manual's notation (`-nam[es]`, `-col[or]`), which tc takes as unique prefixes.
            ignore: &["-f", "-e", "-nam", "-col"],
        },
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
        Source {
            program: "killall5",
            path: &[],
            help: &[&["man", "killall5"]],
            // The manual's placeholder for a signal number.
            ignore: &["-signalnumber"],
        },
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
            program: "htop",
            path: &[],
            help: &[&["htop", "--help"], &["man", "htop"]],
            // pcp htop's options, in the same manual.
            ignore: &["-v", "--host"],
        },
        Source {
            program: "prlimit",
            path: &[],
            help: &[&["prlimit", "--help"], &["man", "prlimit"]],
            // The manual's name for any one of the resource options.
            ignore: &["--resource"],
        },
        Source {
            program: "pkill",
            path: &[],
            help: &[&["pkill", "--help"], &["man", "pkill"]],
            // pgrep's own options, in the manual they share; pkill refuses them (and `-v`, for
            // `--inverse`).
            ignore: &[
                "-d",
                "--delimiter",
                "-l",
                "--list-name",
                "-a",
                "--list-full",
                "-v",
                "-w",
                "--lightweight",
            ],
        },
        Source {
            program: "pgrep",
            path: &[],
            help: &[&["pgrep", "--help"], &["man", "pgrep"]],
            // pkill's own options, in the manual they share; pgrep refuses them.
            ignore: &["--signal", "-e", "--echo", "-q", "--queue"],
        },
        Source {
            program: "mount",
            path: &[],
            help: &[&["mount", "--help"], &["man", "mount"]],
            // The manual's `--make-*` for the propagation options, each listed.
            ignore: &["--make"],
        },
        Source {
            program: "less",
            path: &[],
            help: &[&["less", "--help"], &["man", "less"]],
            // The manual's examples of abbreviating long options.
            ignore: &["--quit", "--qui"],
        },
        Source {
            program: "pstree",
            path: &[],
            help: &[&["pstree", "--help"], &["man", "pstree"]],
            // `--ns-changes`, hyphenated across the synopsis' lines.
            ignore: &["--ns"],
        },
        Source {
            program: "dpkg",
            path: &[],
            help: &[&["dpkg", "--help"], &["man", "dpkg"]],
            // The manual's placeholders for `-D` values and the `--force-` options.
            ignore: &[
                "-Dh",
                "-Doctal",
                "--force-things",
                "--no-force-things",
                "--refuse-things",
            ],
        },
        Source {
            program: "traceroute",
            path: &[],
            help: &[&["traceroute", "--help"], &["man", "traceroute"]],
            // `[-UL]` is one option of two letters (UDP-Lite), not a cluster; it asks.
            ignore: &["-L"],
        },
        // The accounts tools (passwd's), from their --help and manual pages.
        help("useradd", &[&["useradd", "--help"], &["man", "useradd"]]),
        help("usermod", &[&["usermod", "--help"], &["man", "usermod"]]),
        help("userdel", &[&["userdel", "--help"], &["man", "userdel"]]),
        help("passwd", &[&["passwd", "--help"], &["man", "passwd"]]),
        help("chage", &[&["chage", "--help"], &["man", "chage"]]),
        help("groupadd", &[&["groupadd", "--help"], &["man", "groupadd"]]),
        help("pam-auth-update", &[&["man", "pam-auth-update"]]),
        // Other names with a help of their own.
        help("g++", &[&["g++", "--help"]]),
        help("vim.tiny", &[&["vim.tiny", "--help"]]),
        help("red", &[&["red", "--help"]]),
        // Its manual page is sudo's; its usage is its own.
        help("sudoedit", &[&["sudoedit", "-h"]]),
        // at's atrm takes -V alone; its usage text and manual page are at's.
        help("atrm", &[&["atrm", "-V"]]),
        help("mariadb", &[&["mariadb", "--help"]]),
        help("mariadb-admin", &[&["mariadb-admin", "--help"]]),
        help("redis-cli", &[&["redis-cli", "--help"]]),
        help("emacs-nox", &[&["emacs-nox", "--help"]]),
        help(
            "ip6tables-restore",
            &[&["ip6tables-restore", "-h"], &["man", "ip6tables-restore"]],
        ),
        help(
            "arptables-restore",
            &[&["arptables-restore", "-h"], &["man", "arptables-restore"]],
        ),
        help("ebtables-restore", &[&["ebtables-restore", "-h"]]),
        help("ip6tables-apply", &[&["man", "ip6tables-apply"]]),
        Source {
            program: "nslookup",
            path: &[],
            help: &[&["man", "nslookup"]],
            // The manual's placeholder for `-type=mx` and the like.
            ignore: &["-option"],
        },
        help("rpm", &[&["rpm", "--help"], &["man", "rpm"]]),
        help("gdisk", &[&["man", "gdisk"]]),
        help("cgdisk", &[&["man", "cgdisk"]]),
        help("service", &[&["man", "service"]]),
        help("sv", &[&["man", "sv"]]),
        help("init", &[&["init", "--help"]]),
        help("lsattr", &[&["man", "lsattr"]]),
        Source {
            program: "sg",
            path: &[],
            help: &[&["man", "sg"]],
            // `-c` comes after the group (`sg GROUP -c CMD`); its code reads it there.
            ignore: &["-c"],
        },
        help("newgrp", &[&["man", "newgrp"]]),
        help("mawk", &[&["mawk", "-W", "usage"], &["man", "mawk"]]),
        help("awk", &[&["man", "awk"]]),
        Source {
            program: "tmux",
            path: &[],
            help: &[&["man", "tmux"]],
            // `-c COMMAND` runs its command; the code reads it only with one.
            ignore: &["-c"],
        },
        Source {
            program: "busybox",
            path: &[],
            help: &[&["busybox", "--help"]],
            // `--list-full`, broken at its dashes in the help's columns.
            ignore: &["-full"],
        },
        // Installed for this test alone (scripts/install-test-deps.sh).
        Source {
            program: "pigz",
            path: &[],
            help: &[&["pigz", "--help"], &["man", "pigz"]],
            // The manual's summary of the one-letter options, each listed.
            ignore: &["-cdfhikKlLmMnNqrRtz0..9"],
        },
        help("unpigz", &[&["unpigz", "--help"]]),
        help("gawk", &[&["gawk", "--help"], &["man", "gawk"]]),
        Source {
            program: "most",
            path: &[],
            help: &[&["most", "--help"], &["man", "most"]],
            // In most 5's usage line but neither described there nor in the manual: it asks.
            ignore: &["-k"],
        },
        Source {
            program: "screen",
            path: &[],
            help: &[&["screen", "-help"], &["man", "screen"]],
            // The manual's placeholder for screen's options.
            ignore: &["-options"],
        },
        help(
            "nc.openbsd",
            &[&["nc.openbsd", "-h"], &["man", "nc.openbsd"]],
        ),
        Source {
            program: "nc.traditional",
            path: &[],
            help: &[&["nc.traditional", "-h"], &["man", "nc.traditional"]],
            // The usage's placeholder for its options, each listed.
            ignore: &["-options"],
        },
        help("s6-svc", &[&["s6-svc", "-h"]]),
        help("doas", &[&["doas", "-h"], &["man", "doas"]]),
        help("pkexec", &[&["pkexec", "--help"], &["man", "pkexec"]]),
        help("unbuffer", &[&["man", "unbuffer"]]),
        help("eatmydata", &[&["man", "eatmydata"]]),
        help("nocache", &[&["man", "nocache"]]),
        help("proxychains", &[&["proxychains"], &["man", "proxychains"]]),
        help("proxychains4", &[&["man", "proxychains4"]]),
        help(
            "apache2ctl",
            &[&["apache2ctl", "-h"], &["man", "apache2ctl"]],
        ),
        help("apachectl", &[&["apachectl", "-h"]]),
        help("nmtui", &[&["nmtui", "--help"], &["man", "nmtui"]]),
        help("glances", &[&["glances", "--help"], &["man", "glances"]]),
        Source {
            program: "zypper",
            path: &[],
            help: &[&["zypper", "--help"], &["man", "zypper"]],
            // The manual's placeholders.
            ignore: &["--global-opts", "--command-opts"],
        },
        help("aptitude", &[&["aptitude", "--help"], &["man", "aptitude"]]),
        help("pacman", &[&["man", "pacman"]]),
        help("nvim", &[&["nvim", "--help"], &["man", "nvim"]]),
        Source {
            program: "shorewall",
            path: &[],
            help: &[&["man", "shorewall"]],
            // The options of its commands (`shorewall check -e`): after the command word, operands to the spec.
            ignore: &[
                "-l", "-i", "-e", "-d", "-p", "-r", "-f", "-c", "-x", "-m", "-n", "-C", "-s", "-R",
                "-b", "-a", "-A", "-options",
            ],
        },
        Source {
            program: "shorewall6",
            path: &[],
            help: &[&["man", "shorewall6"]],
            // The options of its commands (`shorewall6 check -e`): after the command word, operands to the spec.
            ignore: &["-options", "-o", "-p", "-i", "-n", "-s"],
        },
        help("busybox-awk", &[&["busybox", "awk", "--help"]]),
        // The manual pages of packages whose installing would change how this machine starts
        // or resolves names (openrc, systemd-resolved): only their pages are taken, into
        // /usr/local/share/kaiport-test/man by scripts/install-test-deps.sh.
        Source {
            program: "resolvectl",
            path: &[],
            help: &[&["man", "/usr/local/share/kaiport-test/man/resolvectl.1.gz"]],
            // resolvconf's options, which it takes only when run as resolvconf.
            ignore: &[
                "-a",
                "-d",
                "-f",
                "-x",
                "-m",
                "-u",
                "-I",
                "-l",
                "-R",
                "-r",
                "-v",
                "-V",
                "--enable-updates",
                "--disable-updates",
                "--are-updates-enabled",
            ],
        },
        Source {
            program: "rc-service",
            path: &[],
            help: &[&["man", "/usr/local/share/kaiport-test/man/rc-service.8.gz"]],
            // The manual's words on -d: it "sets -x" in the service script.
            ignore: &["-x"],
        },
        help(
            "rc-update",
            &[&["man", "/usr/local/share/kaiport-test/man/rc-update.8.gz"]],
        ),
        // The shell's builtins, from bash's own help.
        help("fc", &[&["bash", "-c", "help fc"]]),
        help("history", &[&["bash", "-c", "help history"]]),
        help("bind", &[&["bash", "-c", "help bind"]]),
        help("compgen", &[&["bash", "-c", "help compgen"]]),
        help("complete", &[&["bash", "-c", "help complete"]]),
        help("command", &[&["bash", "-c", "help command"]]),
        help("builtin", &[&["bash", "-c", "help builtin"]]),
        help("exec", &[&["bash", "-c", "help exec"]]),
        help("coproc", &[&["bash", "-c", "help coproc"]]),
        Source {
            program: "gpg",
            path: &[],
            help: &[&["gpg", "--help"], &["man", "gpg"]],
            // Operators of `--import-filter` expressions, listed in the manual like options.
            ignore: &["-le", "-lt", "-gt", "-ge"],
        },
    ]);
    // git: every subcommand its spec lists, with its own help. A sub-subcommand (`stash drop`)
    // has no help of its own: its options are in its subcommand's, checked there against the
    // subcommand and everything below it.
    for path in subcommand_paths("git") {
        let [sub] = path else {
            continue;
        };
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
pub fn subcommand_paths(program: &str) -> Vec<&'static [&'static str]> {
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

impl Source {
    /// Whether its help can be read here: the program is installed, or its help comes from
    /// another installed program (bash's `help`, `busybox awk`) or a manual page file.
    pub fn installed(&self) -> bool {
        installed(self.program)
            || self.help.iter().all(|command| match command {
                ["man", page] if page.starts_with('/') => std::path::Path::new(page).exists(),
                [runner, ..] => *runner != "man" && *runner != self.program && installed(runner),
                [] => false,
            })
    }

    /// The program's name as its spec knows it (`time` for `/usr/bin/time`).
    pub fn name(&self) -> &'static str {
        self.program.rsplit('/').next().unwrap_or(self.program)
    }
}

/// Every source, built once.
pub fn sources() -> &'static [Source] {
    static SOURCES: OnceLock<Vec<Source>> = OnceLock::new();
    SOURCES.get_or_init(build)
}

/// One help command's output: which source (an index into [`sources`]), the command, its text.
pub struct Text {
    pub source: usize,
    pub command: &'static [&'static str],
    pub text: String,
}

/// The help texts of every installed source, read once, side by side (a few hundred program and
/// manual runs).
pub fn texts() -> &'static [Text] {
    static TEXTS: OnceLock<Vec<Text>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        let jobs: Vec<(usize, &'static [&'static str])> = sources()
            .iter()
            .enumerate()
            .filter(|(_, source)| source.installed())
            .flat_map(|(index, source)| source.help.iter().map(move |command| (index, *command)))
            .collect();
        std::thread::scope(|scope| {
            let workers: Vec<_> = jobs
                .chunks(jobs.len().div_ceil(8).max(1))
                .map(|chunk| {
                    scope.spawn(move || {
                        chunk
                            .iter()
                            .map(|(source, command)| Text {
                                source: *source,
                                command,
                                text: help_text(command),
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|worker| worker.join().unwrap_or_default())
                .collect()
        })
    })
}
