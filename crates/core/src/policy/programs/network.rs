//! Network and firewall tools: ip, iptables and its relatives, nft, ufw, firewall-cmd, tc, ipset,
//! ifconfig, route, netplan, nmcli, networkctl, ifup/ifdown, shorewall, csf, apf, and the read-only
//! probes (ss, netstat, ping, dig, …).
//!
//! Changing the firewall or the network can cut off the SSH session: every change asks (lock-out);
//! flushing the firewall or disabling it is dangerous. The listing forms are read-only.
//!
//! The option lists are not complete yet (`@loose`); the forms that change something are found by
//! their verbs and options, and anything that is not a known listing form counts as a change.

use super::args::Call;
use super::common::{has_any, has_short, positional};
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &[
            "iptables",
            "ip6tables",
            "iptables-legacy",
            "iptables-nft",
            "ip6tables-legacy",
            "ip6tables-nft",
            "ebtables",
            "arptables",
        ],
        family: "network",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(iptables),
    },
    Spec {
        names: &[
            "iptables-restore",
            "ip6tables-restore",
            "iptables-legacy-restore",
            "iptables-nft-restore",
            "ip6tables-legacy-restore",
            "ip6tables-nft-restore",
            "ebtables-restore",
            "arptables-restore",
            "iptables-apply",
            "firewall-offline-cmd",
        ],
        family: "network",
        text: "@loose
               @opaque",
        hook: Some(replaces_firewall),
    },
    Spec {
        names: &["nft"],
        family: "network",
        text: "@read-only
               @operands args
               @posix
               -h, --help
               -v, --version
               -V
               -f FILE, --file=FILE : lockout loads firewall rules from a file
               -D NAME, --define=NAME
               -i, --interactive : lockout reads firewall commands interactively
               -I DIR, --includepath=DIR
               -c, --check
               -o, --optimize
               -a, --handle
               -s, --stateless
               -t, --terse
               -S, --service
               -N, --reversedns
               -u, --guid
               -n, --numeric
               -y, --numeric-priority
               -p, --numeric-protocol
               -T, --numeric-time
               -e, --echo
               -j, --json
               -d LEVEL, --debug=LEVEL",
        hook: Some(nft),
    },
    Spec {
        names: &["ufw"],
        family: "network",
        text: "@read-only
               @operands args
               --dry-run
               --force
               --version
               -h, --help
               @sub status, show, version, help : read-only
               @sub app : read-only
               @subs-optional
               @sub enable, disable, default, logging, allow, deny, reject, limit, delete, insert, prepend, route, reload, reset : lockout changes the firewall",
        hook: Some(ufw),
    },
    Spec {
        names: &["firewall-cmd"],
        family: "network",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(firewall_cmd),
    },
    Spec {
        names: &["ip"],
        family: "network",
        // ip takes any unique prefix of these (`-det` is `-details`); the code below reads them.
        text: "@read-only
               @opaque
               -V, -Version
               -h, -human, -human-readable
               -b, -batch FILE : lockout runs network commands from a file
               -force
               -s, -stats, -statistics
               -d, -details
               -l, -loops COUNT
               -f, -family FAMILY
               -4
               -6
               -B
               -M
               -0
               -o, -oneline
               -r, -resolve
               -n, -netns NETNS
               -N, -Numeric
               -a, -all
               -c, -color
               -t, -timestamp
               -ts, -tshort
               -rc, -rcvbuf SIZE
               -iec
               -br, -brief
               -j, -json
               -p, -pretty
               -echo",
        hook: Some(ip),
    },
    Spec {
        names: &[
            "ifdown",
            "ifup",
            "dhclient",
            "ifconfig",
            "route",
            "netplan",
            "nmcli",
            "networkctl",
            "nmtui",
            "wpa_cli",
        ],
        family: "network",
        text: "@loose
               @opaque",
        hook: Some(interfaces),
    },
    Spec {
        names: &["tc", "ipset", "shorewall", "shorewall6", "csf", "apf"],
        family: "network",
        text: "@loose
               @opaque",
        hook: Some(others),
    },
    Spec {
        names: &["ss"],
        family: "network",
        text: "@read-only
               @operands args
               -h, --help
               -V, --version
               -n, --numeric
               -r, --resolve
               -a, --all
               -l, --listening
               -o, --options
               -e, --extended
               -m, --memory
               -p, --processes
               -T, --threads
               -i, --info
               --tipcinfo
               -s, --summary
               --tos
               --cgroup
               -b, --bpf
               -E, --events
               -Z, --context
               -z, --contexts
               -N NAME, --net=NAME
               -4, --ipv4
               -6, --ipv6
               -0, --packet
               -t, --tcp
               -M, --mptcp
               -S, --sctp
               -u, --udp
               -d, --dccp
               -w, --raw
               -x, --unix
               --tipc
               --vsock
               --xdp
               --inet-sockopt
               -f FAMILY, --family=FAMILY
               -K, --kill : lockout closes the sockets it finds, the SSH session's too
               -H, --no-header
               -O, --oneline
               -A QUERY, --query=QUERY, --socket=QUERY
               -D FILE, --diag=FILE : writes
               -F FILE, --filter=FILE : reads",
        hook: None,
    },
    Spec {
        names: &[
            "netstat",
            "ping",
            "ping6",
            "traceroute",
            "tracepath",
            "mtr",
            "dig",
            "nslookup",
            "host",
            "arp",
            "whois",
        ],
        family: "network",
        text: "@read-only
               @loose
               @opaque",
        hook: None,
    },
];

fn lockout(call: &Call<'_>, verdict: &mut Verdict, what: &str) {
    let display = call.display();
    verdict.lockout(&display, what);
    verdict.not_read_only(format!(
        "`{display}` is not read-only with these arguments (plan mode allows only reading forms)"
    ));
}

fn iptables(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    if has_any(args, &["-F", "--flush", "-X", "--delete-chain"]) {
        verdict.dangerous(&call.display(), "flushes the firewall rules");
    }
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
                | "-Z"
                | "--append"
                | "--insert"
                | "--delete"
                | "--replace"
                | "--flush"
                | "--delete-chain"
                | "--policy"
                | "--new-chain"
                | "--rename-chain"
                | "--zero"
        )
    });
    let lists = args.iter().any(|arg| {
        matches!(arg.as_str(), "-L" | "-S" | "--list" | "--list-rules")
            || (arg.starts_with('-') && !arg.starts_with("--") && arg.contains(['L', 'S']))
    });
    if changes || !lists {
        lockout(call, verdict, "changes the firewall rules");
    }
}

fn replaces_firewall(call: &Call<'_>, verdict: &mut Verdict) {
    lockout(call, verdict, "replaces the firewall rules");
}

fn nft(call: &Call<'_>, verdict: &mut Verdict) {
    let first = positional(call.args).first().copied().unwrap_or_default();
    if has_any(call.args, &["flush"]) {
        verdict.dangerous(&call.display(), "flushes the firewall rules");
    }
    if !(first == "list"
        || call.args.is_empty()
        || has_any(call.args, &["-v", "--version", "-h", "--help"]))
    {
        lockout(call, verdict, "changes the firewall rules");
    }
}

fn ufw(call: &Call<'_>, verdict: &mut Verdict) {
    if matches!(call.sub(0), "disable" | "reset") {
        verdict.dangerous(&call.display(), "disables or resets the firewall");
    }
    let app = call.operand_texts();
    if call.sub(0) == "app" && matches!(app.first().copied(), Some("update" | "default")) {
        lockout(call, verdict, "changes the firewall");
    }
}

fn firewall_cmd(call: &Call<'_>, verdict: &mut Verdict) {
    let reads = call.args.iter().all(|arg| {
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
    });
    if !reads {
        lockout(call, verdict, "changes the firewall");
    }
}

/// ip's options before the object, each any unique prefix of its name, and whether it takes a
/// value.
const IP_OPTIONS: &[(&str, bool)] = &[
    ("-Version", false),
    ("-human-readable", false),
    ("-batch", true),
    ("-force", false),
    ("-statistics", false),
    ("-details", false),
    ("-loops", true),
    ("-family", true),
    ("-oneline", false),
    ("-resolve", false),
    ("-netns", true),
    ("-Numeric", false),
    ("-all", false),
    ("-color", false),
    ("-timestamp", false),
    ("-tshort", false),
    ("-rcvbuf", true),
    ("-iec", false),
    ("-brief", false),
    ("-json", false),
    ("-pretty", false),
    ("-echo", false),
];

fn ip(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        index += 1;
        if matches!(arg.as_str(), "-4" | "-6" | "-0" | "-B" | "-M") {
            continue;
        }
        let name = arg.split('=').next().unwrap_or(arg);
        // `-c=always`, `-rc4096` carry their value.
        let found = IP_OPTIONS.iter().find(|(option, _)| {
            option.starts_with(name) || (name.starts_with("-rc") && *option == "-rcvbuf")
        });
        match found {
            Some((option, takes_value)) => {
                if *option == "-batch" {
                    lockout(call, verdict, "runs network commands from a file");
                }
                if *takes_value
                    && !arg.contains('=')
                    && !(name.starts_with("-rc") && name.len() > 3)
                {
                    index += 1;
                }
            }
            None => verdict.unprovable(format!(
                "option {arg} of ip is not known to kaiport's rules"
            )),
        }
    }
    let verbs = [
        "add", "del", "delete", "flush", "set", "change", "replace", "append", "down", "up",
        "exec", "attach", "detach", "restore", "save", "prepend", "a", "d", "r", "f",
    ];
    let words = &args[index.min(args.len())..];
    // `ip netns exec NS cmd` runs a command: it is not a listing.
    if words
        .iter()
        .skip(1)
        .any(|word| verbs.contains(&word.as_str()))
    {
        lockout(call, verdict, "changes the network configuration");
    }
}

fn interfaces(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let first = positional(args).first().copied().unwrap_or_default();
    let read_only = match call.name {
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
    if !read_only {
        lockout(call, verdict, "changes the network configuration");
    }
}

fn others(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let first = positional(args).first().copied().unwrap_or_default();
    match call.name {
        "tc" if has_any(args, &["add", "change", "replace", "del", "delete", "link"]) => {
            lockout(call, verdict, "changes the network's traffic control");
        }
        "ipset"
            if has_any(
                args,
                &[
                    "add", "del", "flush", "destroy", "swap", "restore", "-A", "-D", "-F", "-X",
                ],
            ) =>
        {
            lockout(call, verdict, "changes firewall address sets");
        }
        "shorewall" | "shorewall6" | "csf" | "apf"
            if !matches!(first, "status" | "show" | "version" | "check" | "")
                && !has_any(args, &["-l", "-v", "--status"])
                && !has_short(args, "l") =>
        {
            lockout(call, verdict, "changes the firewall");
        }
        _ => {}
    }
}
