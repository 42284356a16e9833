//! Network and firewall tools: ip, iptables and its relatives, nft, ufw, firewall-cmd, tc, ipset,
//! ifconfig, route, netplan, nmcli, networkctl, ifup/ifdown, shorewall, csf, apf, and the read-only
//! probes (ss, netstat, ping, dig, …).
//!
//! Changing the firewall or the network can cut off the SSH session: every change asks (lock-out);
//! flushing the firewall or disabling it is dangerous. The listing forms are read-only.
//!
//! Every program lists its own options (from its help and manual). The firewall tools keep their
//! own reading of the words (iptables' `-m` and `-j` extensions take options of their own, `ip`
//! and `tc` take any unique prefix of an option): an option that is neither listed nor an
//! extension's asks there too. Anything that is not a known listing form counts as a change.

use super::args::Call;
use super::common::{has_any, has_short, listed_options, positional};
use super::spec::Spec;
use super::verdict::Verdict;

/// The commands iptables and arptables share, and firewall-cmd's options, which
/// firewall-offline-cmd shares.
pub const BLOCKS: &[(&str, &str)] = &[
    (
        "xtables-commands",
        "-A, --append
        -C, --check
        -D, --delete
        -I, --insert
        -R, --replace
        -L, --list
        -S, --list-rules
        -F, --flush
        -Z, --zero
        -N, --new, --new-chain
        -X, --delete-chain
        -P, --policy
        -E, --rename-chain
        -h, --help",
    ),
    (
        "firewall-cmd",
        "-h, --help
        -V, --version
        -q, --quiet
        --state
        --reload
        --complete-reload
        --runtime-to-permanent
        --reset-to-defaults
        --check-config
        --get-log-denied
        --set-log-denied=X
        --permanent
        --get-default-zone
        --set-default-zone=X
        --get-active-zones
        --get-zones
        --get-services
        --get-icmptypes
        --get-zone-of-interface=X
        --get-zone-of-source=X
        --list-all-zones
        --new-zone=X
        --new-zone-from-file=X, --name=X
        --delete-zone=X
        --load-zone-defaults=X
        --zone=X
        --info-zone=X
        --path-zone=X
        --get-policies
        --get-active-policies
        --list-all-policies
        --new-policy=X
        --delete-policy=X
        --load-policy-defaults=X
        --policy=X
        --info-policy=X
        --path-policy=X
        --get-ipset-types
        --new-ipset=X, --type=X, --option=X
        --delete-ipset=X
        --load-ipset-defaults=X
        --info-ipset=X
        --path-ipset=X
        --get-ipsets
        --ipset=X, --set-description=X
        --new-icmptype=X
        --delete-icmptype=X
        --load-icmptype-defaults=X
        --info-icmptype=X
        --path-icmptype=X
        --icmptype=X, --get-description=X
        --new-service=X
        --delete-service=X
        --load-service-defaults=X
        --info-service=X
        --path-service=X
        --service=X, --set-short=X
        --list-all
        --add-destination=X
        --add-entry=X
        --add-helper=X
        --add-include=X
        --get-destinations
        --get-entries
        --get-family
        --get-includes
        --get-module
        --get-protocols
        --get-service-helpers
        --get-source-ports
        --query-destination=X
        --query-entry=X
        --query-helper=X
        --query-include=X
        --remove-destination=X
        --remove-entry=X
        --remove-helper=X
        --remove-include=X
        --set-destination=X
        --set-family=X
        --set-module=X
        --add-entries-from-file=FILE : reads
        --remove-entries-from-file=FILE : reads
        --new-helper-from-file=FILE : reads
        --new-icmptype-from-file=FILE : reads
        --new-ipset-from-file=FILE : reads
        --new-policy-from-file=FILE : reads
        --new-service-from-file=FILE : reads
        --timeout=X
        --get-target
        --set-target=X
        --get-short
        --list-services
        --add-service=X
        --remove-service=X
        --query-service=X
        --list-ports
        --add-port=X
        --remove-port=X
        --query-port=X
        --list-protocols
        --add-protocol=X
        --remove-protocol=X
        --query-protocol=X
        --list-source-ports
        --add-source-port=X
        --remove-source-port=X
        --query-source-port=X
        --list-icmp-blocks
        --add-icmp-block=X
        --remove-icmp-block=X
        --query-icmp-block=X
        --list-forward-ports=X
        --add-forward-port=X
        --remove-forward-port=X
        --query-forward-port=X
        --add-masquerade
        --remove-masquerade
        --query-masquerade
        --list-rich-rules
        --add-rich-rule=X
        --remove-rich-rule=X
        --query-rich-rule=X
        --add-icmp-block-inversion
        --remove-icmp-block-inversion
        --query-icmp-block-inversion
        --add-forward
        --remove-forward
        --query-forward
        --get-priority
        --set-priority=X
        --list-ingress-zones
        --add-ingress-zone=X
        --remove-ingress-zone=X
        --query-ingress-zone=X
        --list-egress-zones
        --add-egress-zone=X
        --remove-egress-zone=X
        --query-egress-zone=X
        --list-interfaces
        --add-interface=X
        --change-interface=X
        --query-interface=X
        --remove-interface=X
        --list-sources
        --add-source=X
        --change-source=X
        --query-source=X
        --remove-source=X
        --new-helper=X, --module=X, --family=X
        --delete-helper=X
        --load-helper-defaults=X
        --info-helper=X
        --path-helper=X
        --get-helpers
        --helper=X, --get-ports=X
        --direct
        --get-all-chains
        --get-chains=X
        --add-chain=X
        --remove-chain=X
        --query-chain=X
        --get-all-rules
        --get-rules=X
        --add-rule=X
        --remove-rule=X
        --remove-rules=X
        --query-rule=X
        --passthrough=X
        --get-all-passthroughs
        --get-passthroughs=X
        --add-passthrough=X
        --remove-passthrough=X
        --query-passthrough=X
        --lockdown-on
        --lockdown-off
        --query-lockdown
        --list-lockdown-whitelist-commands
        --add-lockdown-whitelist-command=X
        --remove-lockdown-whitelist-command=X
        --query-lockdown-whitelist-command=X
        --list-lockdown-whitelist-contexts
        --add-lockdown-whitelist-context=X
        --remove-lockdown-whitelist-context=X
        --query-lockdown-whitelist-context=X
        --list-lockdown-whitelist-uids
        --add-lockdown-whitelist-uid=X
        --remove-lockdown-whitelist-uid=X
        --query-lockdown-whitelist-uid=X
        --list-lockdown-whitelist-users
        --add-lockdown-whitelist-user=X
        --remove-lockdown-whitelist-user=X
        --query-lockdown-whitelist-user=X
        --panic-on
        --panic-off
        --query-panic
        --system-config
        --default-config=X
        --migrate-system-config-firewall=X
        --enabled
        --disabled
        --addmodule=X
        --removemodule=X
        -p X, --port=X
        -t X, --trust=X
        -m X, --masq=X
        --custom-rules=X
        --forward-port=X
        --block-icmp=X
        --get-automatic-helpers
        --set-automatic-helpers=X
        --remove-service-from-zone=X
        --remove-service-from-policy=X
        --policy-server
        --policy-desktop",
    ),
];

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["iptables", "ip6tables", "iptables-legacy", "iptables-nft", "ip6tables-legacy", "ip6tables-nft"],
        family: "network",
        text: "@read-only
               @opaque
               @use xtables-commands
               -4, --ipv4
               -6, --ipv6
               -p, --protocol
               -s, --source, --src
               -d, --destination, --dst
               -m, --match
               -j, --jump
               -g, --goto
               -i, --in-interface
               -o, --out-interface
               -f, --fragment
               -c, --set-counters
               -t, --table
               -v, --verbose
               -w, --wait
               -W, --wait-interval
               -n, --numeric
               -x, --exact
               --line-numbers
               -M, --modprobe=COMMAND : runs *
               -V, --version",
        hook: Some(iptables),
    },
    Spec {
        names: &["ebtables"],
        family: "network",
        text: "@read-only
               @opaque
               -A, --append
               -D, --delete
               -C, --change-counters
               -I, --insert
               -L, --list
               -F, --flush
               --init-table
               -Z, --zero
               -P, --policy
               -N, --new-chain
               -E, --rename-chain
               -X, --delete-chain
               -p, --proto, --protocol
               -s, --src, --source
               -d, --dst, --destination
               -i, --in-if, --in-interface
               -o, --out-if, --out-interface
               --logical-in
               --logical-out
               -c, --set-counters
               -M, --modprobe : runs *
               --concurrent
               -v, --verbose
               -V, --version
               -h, --help
               -t, --table
               -j, --jump
               --Ln
               --Lc
               --Lx
               --Lmac2
               --atomic-file
               --atomic-init
               --atomic-commit
               --atomic-save
               # Match and target extensions (ebtables(8)): what the rule matches and does; the
               # command (-A, -D, -P, …) decides what it changes.
               --among-dst-file=FILE : reads
               --among-src-file=FILE : reads
               --802_3-sap
               --802_3-type
               --among-dst
               --among-src
               --arp-htype
               --arp-ip-dst
               --arp-ip-src
               --arp-mac-dst
               --arp-mac-src
               --arp-opcode
               --arp-ptype
               --arpreply-mac
               --arpreply-target
               --dnat-target
               --ip-destination
               --ip-destination-port
               --ip-protocol
               --ip-source
               --ip-source-port
               --ip-tos
               --ip6-destination
               --ip6-destination-port
               --ip6-icmp-type
               --ip6-protocol
               --ip6-source
               --ip6-source-port
               --ip6-tclass
               --limit
               --limit-burst
               --log
               --log-arp
               --log-ip
               --log-ip6
               --log-level
               --log-prefix
               --mark
               --mark-and
               --mark-or
               --mark-set
               --mark-target
               --mark-xor
               --nflog
               --nflog-group
               --nflog-prefix
               --nflog-range
               --nflog-threshold
               --pkttype-type
               --redirect-target
               --set-counter
               --snat-arp
               --snat-target
               --stp-flags
               --stp-forward-delay
               --stp-hello-time
               --stp-max-age
               --stp-msg-age
               --stp-port
               --stp-root-addr
               --stp-root-cost
               --stp-root-prio
               --stp-sender-addr
               --stp-sender-prio
               --stp-type
               --to-destination
               --to-source
               --ulog
               --ulog-cprange
               --ulog-nlgroup
               --ulog-prefix
               --ulog-qthreshold
               --vlan-encap
               --vlan-id
               --vlan-prio",
        hook: Some(iptables),
    },
    Spec {
        names: &["arptables"],
        family: "network",
        text: "@read-only
               @opaque
               @use xtables-commands
               -s, --source-ip, --src-ip
               -d, --destination-ip, --dst-ip
               --source-mac, --src-mac
               --destination-mac, --dst-mac
               -l, --h-length
               --opcode
               --h-type
               --proto-type
               -i, --in-interface
               -o, --out-interface
               -j, --jump
               -c, --set-counters
               -t, --table
               -v, --verbose
               -n, --numeric
               -x, --exact
               --line-numbers
               --modprobe=COMMAND : runs *
               -V, --version
               --wait
               # Targets (arptables(8)): mangle, mark and classify.
               --mangle-ip-s, --mangle-ip-d, --mangle-mac-s, --mangle-mac-d, --mangle-target
               --set-mark, --and-mark, --or-mark, --xor-mark, --set-xmark, --set-class
               --match",
        hook: Some(iptables),
    },
    Spec {
        names: &["iptables-restore", "ip6tables-restore", "iptables-legacy-restore", "iptables-nft-restore", "ip6tables-legacy-restore", "ip6tables-nft-restore", "arptables-restore"],
        family: "network",
        text: "@operands args
               -c, --counters
               -h, --help
               -n, --noflush
               -t, --test
               -v, --verbose
               -V, --version
               -w[SECONDS], --wait[=SECONDS]
               -W X, --wait-interval=X
               -M X, --modprobe=X : runs *
               -T X, --table=X
               -4, --ipv4
               -6, --ipv6",
        hook: Some(replaces_firewall),
    },
    Spec {
        names: &["ebtables-restore"],
        family: "network",
        text: "@operands args
               --noflush
               --verbose",
        hook: Some(replaces_firewall),
    },
    Spec {
        names: &["iptables-apply", "ip6tables-apply"],
        family: "network",
        text: "@operands args
               -t X, --timeout=X
               -w X, --write=X : writes
               -c X, --command=X : runs *
               -h, --help
               -V, --version",
        hook: Some(replaces_firewall),
    },
    Spec {
        names: &["firewall-offline-cmd"],
        family: "network",
        text: "@opaque
               @use firewall-cmd
               -s SERVICE",
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
               @opaque
               @use firewall-cmd",
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
               -n, -net, -netns NETNS
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
        names: &["ifup", "ifdown", "ifquery"],
        family: "network",
        text: "@operands args
               -h, --help
               -V, --version
               -a, --all
               --allow=CLASS
               -i FILE, --interfaces=FILE : reads
               --state-dir=DIR
               -X PATTERN, --exclude=PATTERN
               -n, --no-act
               -v, --verbose
               -o OPTION
               --no-mappings
               --no-scripts
               --no-loopback
               -f, --force
               --ignore-errors
               -l, --list
               --state
               --read-environment",
        hook: Some(interfaces),
    },
    Spec {
        names: &["dhclient"],
        family: "network",
        text: "@operands args
               -4
               -6
               -S
               -N
               -T
               -P
               -R
               -I
               -1
               -d
               -v
               -r : lockout releases the lease
               -x : lockout stops the client
               -i
               -q
               -w
               -nw
               -n
               -g RELAY
               -4o6 PORT
               -p PORT
               -D TYPE
               --dad-wait-time=SECONDS
               --prefix-len-hint=LENGTH
               --decline-wait-time=SECONDS
               --address-prefix-len=LENGTH
               -s ADDRESS
               -cf FILE : reads
               -df FILE
               -lf FILE : writes
               -pf FILE : writes
               --no-pid
               -e VAR
               -sf FILE : runs *
               --version
               --help, -h",
        hook: Some(interfaces),
    },
    Spec {
        names: &["ifconfig"],
        family: "network",
        text: "@read-only
               @operands args
               -a
               -v
               -s
               -h, --help
               -V, --version
               -arp
               -promisc
               -allmulti
               -trailers
               -broadcast
               -pointopoint
               -dynamic",
        hook: Some(interfaces),
    },
    Spec {
        names: &["route"],
        family: "network",
        text: "@read-only
               @operands args
               -A FAMILY
               -C, --cache
               -F, --fib
               -e, -ee, --extend
               -n, --numeric
               -N
               -v, --verbose
               -4
               -6
               --inet
               --inet6
               -h, --help
               -V, --version
               -net
               -host",
        hook: Some(interfaces),
    },
    Spec {
        names: &["netplan"],
        family: "network",
        text: "@read-only
               @operands args
               @anywhere
               -h, --help
               --debug
               @sub help : read-only
               @sub apply
               --sriov-only
               --only-ovs-cleanup
               --state=DIR
               @sub generate
               --root-dir=DIR
               --mapping=IFACE
               @sub get : read-only
               --root-dir=DIR
               @sub info : read-only
               --json
               --yaml
               @sub ip : read-only
               @sub ip/leases : read-only
               --root-dir=DIR
               @sub set
               --origin-hint=NAME
               --root-dir=DIR
               @sub rebind
               @sub status : read-only
               -a, --all
               -f FORMAT, --format=FORMAT
               @sub try
               --config-file=FILE : reads
               --timeout=SECONDS
               --state=DIR",
        hook: Some(interfaces),
    },
    Spec {
        names: &["nmcli"],
        family: "network",
        text: "@read-only
               @operands args
               @posix
               -a, --ask
               --offline
               -c WHEN, --colors=WHEN
               --complete-args
               -e WHEN, --escape=WHEN
               -f FIELDS, --fields=FIELDS
               -g FIELDS, --get-values=FIELDS
               -h, --help
               -m MODE, --mode=MODE
               -o, --overview
               -p, --pretty
               -s, --show-secrets
               -t, --terse
               -v, --version
               -w SECONDS, --wait=SECONDS",
        hook: Some(interfaces),
    },
    Spec {
        names: &["networkctl"],
        family: "network",
        text: "@read-only
               @operands args
               -h, --help
               --version
               --no-pager
               --no-legend
               --no-reload
               --drop-in=NAME
               --runtime
               -a, --all
               -s, --stats
               -l, --full
               -n X, --lines=X
               --json=MODE",
        hook: Some(interfaces),
    },
    Spec {
        names: &["nmtui", "nmtui-edit", "nmtui-connect", "nmtui-hostname"],
        family: "network",
        text: "@operands args
               -h, --help
               -v, --version",
        hook: Some(interfaces),
    },
    Spec {
        names: &["wpa_cli"],
        family: "network",
        text: "@read-only
               @operands args
               @posix
               -p PATH
               -i IFNAME
               -h
               -v
               -B
               -r
               -a FILE : runs *
               -P FILE : writes
               -g PATH
               -G SECONDS
               -s PATH",
        hook: Some(interfaces),
    },
    Spec {
        names: &["tc"],
        family: "network",
        text: "@read-only
               @opaque
               -V, -Version
               -s, -stats, -statistics
               -d, -details
               -r, -raw
               -o, -oneline
               -j, -json
               -p, -pretty
               -c, -color
               -b, -batch FILE : lockout runs traffic control commands from a file
               -force
               -n, -net, -netns NETNS
               -N, -Numeric
               -nm, -name, -names
               -cf, -conf PATH
               -br, -brief
               -t, -timestamp
               -ts, -tshort
               -i, -iec
               -g, -graph
               -h, -help",
        hook: Some(tc),
    },
    Spec {
        names: &["ipset"],
        family: "network",
        text: "@read-only
               @operands args
               -o X, -output X
               -s, -sorted
               -r, -resolve
               -n, -name
               -!, -exist
               -q, -quiet
               -t, -terse
               -f X, -file X
               -h, -help
               -v, -version",
        hook: Some(others),
    },
    Spec {
        names: &["shorewall", "shorewall6"],
        family: "network",
        text: "@read-only
               @operands args
               @posix
               -T
               -D
               -N
               -q
               -v[LEVEL]
               -t",
        hook: Some(others),
    },
    Spec {
        names: &["csf"],
        family: "network",
        text: "@read-only
               @opaque
               -h, --help
               -l, --status
               -l6, --status6
               -s, --start
               -f, --stop
               -r, --restart
               -q, --startq
               -sf, --startf
               -a, --add
               -ar, --addrm
               -d, --deny
               -dr, --denyrm
               -df, --denyf
               -g, --grep
               -i, --iplookup
               -t, --temp
               -tr, --temprm
               -trd, --temprmd
               -td, --tempdeny
               -ta, --tempallow
               -tf, --tempf
               -cp, --cping
               -cd, --cdeny
               -ca, --callow
               -cr, --crm
               --carm
               -cg, --cgrep
               -cc, --cconfig
               -cs, --cfile
               -cf, --cflush
               -x, --disable
               -e, --enable
               -u, --update
               -uf
               -c, --check
               -w, --watch
               -m, --mail
               -lr, --logrun
               -p, --ports
               -v, --version
               --profile
               --graphs
               --lfd",
        hook: Some(others),
    },
    Spec {
        names: &["apf"],
        family: "network",
        text: "@read-only
               @opaque
               -s, --start
               -r, --restart
               -f, --stop, --flush
               -l, --list
               -t, --status
               -e, --refresh
               -a, --allow
               -d, --deny
               -u, --remove, --unban
               -o, --ovars
               -h, --help",
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
        names: &["netstat"],
        family: "network",
        text: "@read-only
               @operands args
               -r, --route
               -i, --interfaces[=X]
               -I[X]
               -g, --groups
               -s, --statistics
               -M, --masquerade
               -v, --verbose
               -W, --wide
               -n, --numeric
               --numeric-hosts
               --numeric-ports
               --numeric-users
               -N, --symbolic
               -e, --extend
               -p, --programs
               -o, --timers
               -c, --continuous
               -l, --listening
               -a, --all
               -F, --fib
               -C, --cache
               -Z, --context
               -T, --notrim
               -t, --tcp
               -u, --udp
               -U, --udplite
               -S, --sctp
               -w, --raw
               -x, --unix
               --ax25
               --ipx
               --netrom
               --inet
               --inet6
               --appletalk
               --x25
               --rose
               --ash
               --bluetooth
               --l2cap, -2
               --rfcomm, -f
               --tcpip, --ip
               --ddp
               --econet
               -4
               -6
               -A X, --protocol=X
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["ping", "ping4", "ping6"],
        family: "network",
        text: "@read-only
               @operands args
               -4
               -6
               -a
               -A
               -b
               -B
               -c COUNT
               -C
               -d
               -D
               -e ID
               -f : network floods the host with packets
               -F FLOWLABEL
               -h
               -H
               -I INTERFACE
               -i INTERVAL
               -L
               -l PRELOAD
               -m MARK
               -M HINT
               -n
               -N OPTION
               -O
               -p PATTERN
               -q
               -Q TOS
               -r
               -R
               -s SIZE
               -S SIZE
               -t TTL
               -T OPTION
               -U
               -v
               -V
               -w DEADLINE
               -W TIMEOUT",
        hook: None,
    },
    Spec {
        names: &["traceroute", "traceroute6"],
        family: "network",
        text: "@read-only
               @operands args
               -4
               -6
               -d, --debug
               -F, --dont-fragment
               -f X, --first=X
               -g X, --gateway=X
               -I, --icmp
               -T, --tcp
               -i X, --interface=X
               -m X, --max-hops=X
               -N X, --sim-queries=X
               -n
               -p X, --port=X
               -t X, --tos=X
               -l X, --flowlabel=X
               -w X, --wait=X
               -q X, --queries=X
               -r
               -s X, --source=X
               -z X, --sendwait=X
               -e, --extensions
               -A, --as-path-lookups
               -M X, --module=X
               -O X, --options=X
               --sport=X
               --fwmark=X
               -U, --udp
               -UL
               -D, --dccp
               -P X, --protocol=X
               --mtu
               --back
               -V, --version
               --help",
        hook: None,
    },
    Spec {
        names: &["tracepath", "tracepath6"],
        family: "network",
        text: "@read-only
               @operands args
               -4
               -6
               -b
               -l LENGTH
               -m HOPS
               -n
               -p PORT
               -V",
        hook: None,
    },
    Spec {
        names: &["mtr"],
        family: "network",
        text: "@read-only
               @operands args
               -4
               -6
               -F X, --filename=X : reads
               -u, --udp
               -T, --tcp
               -S, --sctp
               -I X, --interface=X
               -a X, --address=X
               -f X, --first-ttl=X
               -m X, --max-ttl=X
               -U X, --max-unknown=X
               -P X, --port=X
               -L X, --localport=X
               -s X, --psize=X
               -B X, --bitpattern=X
               -i X, --interval=X
               -G X, --gracetime=X
               -Q X, --tos=X
               -e, --mpls
               -Z X, --timeout=X
               -M X, --mark=X
               -r, --report
               -w, --report-wide
               -c X, --report-cycles=X
               -j, --json
               -x, --xml
               -C, --csv
               -l, --raw
               -p, --split
               -t, --curses
               --displaymode=X
               -n, --no-dns
               -b, --show-ips
               -o X, --order=X
               -y X, --ipinfo=X
               -z, --aslookup
               -h, --help
               -v, --version
               -g, --gtk",
        hook: None,
    },
    Spec {
        names: &["dig"],
        family: "network",
        text: "@read-only
               @operands args
               -4
               -6
               -b ADDRESS
               -c CLASS
               -f FILE : reads
               -h
               -k FILE : reads
               -m
               -p PORT
               -q NAME
               -r
               -t TYPE
               -u
               -v
               -x ADDRESS
               -y KEY",
        hook: None,
    },
    Spec {
        names: &["host"],
        family: "network",
        text: "@read-only
               @operands args
               -4
               -6
               -a
               -A
               -c CLASS
               -C
               -d
               -l
               -n
               -m FLAG
               -N NDOTS
               -p PORT
               -r
               -R NUMBER
               -s
               -t TYPE
               -T
               -U
               -v
               -V
               -w
               -W WAIT",
        hook: None,
    },
    Spec {
        names: &["nslookup"],
        family: "network",
        text: "@read-only
               @opaque",
        hook: Some(nslookup),
    },
    Spec {
        names: &["arp"],
        family: "network",
        text: "@read-only
               @operands args
               -a
               -e
               -s, --set : lockout changes the ARP table
               -d, --delete : lockout changes the ARP table
               -f, --file : lockout loads ARP entries from a file
               -v, --verbose
               -n, --numeric
               -i X, --device=X
               -D, --use-device
               -A X, -p X, --protocol=X
               -H X, --hw-type=X, -t X
               -V, --version
               -h, --help",
        hook: None,
    },
    Spec {
        names: &["whois"],
        family: "network",
        text: "@read-only
               @operands args
               -h X, --host=X
               -p X, --port=X
               -I
               -H
               --verbose
               --no-recursion
               --help
               --version
               -l
               -L
               -m
               -M
               -c
               -x
               -b
               -B
               -G
               -d
               -i X
               -T X
               -K
               -r
               -R
               -a
               -s X
               -g X
               -t X
               -v X
               -q X",
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
    listed_options(
        call,
        verdict,
        &[
            "-m",
            "--match",
            "-j",
            "--jump",
            "-p",
            "--protocol",
            "--proto",
            "-g",
            "--goto",
        ],
    );
    if args
        .iter()
        .any(|arg| arg.starts_with("--modprobe") || arg == "-M")
    {
        verdict.unprovable(format!(
            "`{}` --modprobe runs a program of its choosing",
            call.name
        ));
    }
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
    if call.root.opaque {
        listed_options(call, verdict, &[]);
    }
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
    listed_options(call, verdict, &[]);
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

/// Options before the object, each any unique prefix of a name in `table` (with whether it
/// takes a value) or one of `exact`: ip's and tc's reading. Returns where the object starts.
fn prefix_options(
    call: &Call<'_>,
    verdict: &mut Verdict,
    table: &[(&str, bool)],
    exact: &[&str],
) -> usize {
    let args = call.args;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        index += 1;
        if exact.contains(&arg.as_str()) {
            continue;
        }
        let name = arg.split('=').next().unwrap_or(arg);
        // `-c=always`, `-rc4096` carry their value.
        let found = table.iter().find(|(option, _)| {
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
                "option {arg} of {} is not known to kaiport's rules",
                call.name
            )),
        }
    }
    index
}

fn ip(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let index = prefix_options(call, verdict, IP_OPTIONS, &["-4", "-6", "-0", "-B", "-M"]);
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
    if call.root.opaque {
        listed_options(call, verdict, &[]);
    }
    let first = positional(args).first().copied().unwrap_or_default();
    match call.name {
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

/// nslookup's settings are single-dash words with values (`-type=mx`, `-debug`): each must be one
/// of them.
fn nslookup(call: &Call<'_>, verdict: &mut Verdict) {
    const SETTINGS: &[&str] = &[
        "all",
        "class",
        "d2",
        "nod2",
        "debug",
        "nodebug",
        "defname",
        "nodefname",
        "domain",
        "fail",
        "nofail",
        "ignoretc",
        "noignoretc",
        "ndots",
        "port",
        "querytype",
        "type",
        "q",
        "t",
        "recurse",
        "norecurse",
        "retry",
        "root",
        "search",
        "nosearch",
        "srchlist",
        "timeout",
        "vc",
        "novc",
        "version",
        "ver",
        "v",
        "4",
        "6",
    ];
    for arg in call.args {
        let Some(setting) = arg.strip_prefix('-') else {
            continue;
        };
        let name = setting.split('=').next().unwrap_or_default();
        if !setting.is_empty() && !SETTINGS.contains(&name) {
            verdict.unprovable(format!(
                "option {arg} of nslookup is not known to kaiport's rules"
            ));
        }
    }
}

/// tc's options before the object, each any unique prefix of its name, and whether it takes a
/// value.
const TC_OPTIONS: &[(&str, bool)] = &[
    ("-Version", false),
    ("-statistics", false),
    ("-details", false),
    ("-raw", false),
    ("-oneline", false),
    ("-json", false),
    ("-pretty", false),
    ("-color", false),
    ("-batch", true),
    ("-force", false),
    ("-netns", true),
    ("-Numeric", false),
    ("-names", false),
    ("-conf", true),
    ("-brief", false),
    ("-timestamp", false),
    ("-tshort", false),
    ("-iec", false),
    ("-graph", false),
    ("-help", false),
];

fn tc(call: &Call<'_>, verdict: &mut Verdict) {
    let index = prefix_options(call, verdict, TC_OPTIONS, &["-nm", "-cf", "-br", "-ts"]);
    let words = &call.args[index.min(call.args.len())..];
    if words.iter().any(|word| {
        matches!(
            word.as_str(),
            "add" | "change" | "replace" | "del" | "delete" | "link" | "exec"
        )
    }) {
        lockout(call, verdict, "changes the network's traffic control");
    }
}
