//! Services admins run by hand: nginx, apachectl, sshd (their configuration tests read), certbot
//! (its `--*-hook` options run programs: asked), ansible (`-m shell -a CMD` runs CMD on every
//! host, analysed as typed), openssl (`-out` writes), tcpdump (`-w` writes, `-z` runs), gdb.

use super::args::Call;
use super::common::{has_any, has_short, positional};
use super::model::Runs;
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["ansible"],
        family: "services",
        text: "@operands args
               --ask-vault-password, --ask-vault-pass
               --become-password-file=X, --become-pass-file=X : reads
               --connection-password-file=X, --conn-pass-file=X : reads
               --list-hosts
               --playbook-dir=X : harmless
               --task-timeout=X
               --vault-id=X
               --vault-password-file=X, --vault-pass-file=X : unprovable runs the password file when it is a program
               --version
               -B X, --background=X
               -C, --check
               -D, --diff
               -K, --ask-become-pass
               -M X, --module-path=X : unprovable loads modules from another folder
               -P X, --poll=X
               -a X, --args=X
               -e X, --extra-vars=X
               -f X, --forks=X
               -h, --help
               -i X, --inventory=X, --inventory-file=X
               -k, --ask-pass
               -l X, --limit=X
               -m X, --module-name=X
               -o, --one-line
               -t X, --tree=X : writes-into
               -v, --verbose
               --become-method=X
               --become-user=X
               -b, --become
               --private-key=X, --key-file=X : reads
               --scp-extra-args=X
               --sftp-extra-args=X
               --ssh-common-args=X
               --ssh-extra-args=X
               -T X, --timeout=X
               -c X, --connection=X
               -u X, --user=X",
        hook: Some(ansible),
    },
    Spec {
        names: &["certbot", "letsencrypt"],
        family: "services",
        text: "@operands args
               @subs-optional
               -d X
               --standalone
               --webroot
               --manual
               -n
               --test-cert
               --dry-run
               --agree-tos
               -m X
               -h, --help
               -c X, --config=X : unprovable reads settings from a file, which can name hooks to run
               -v, --verbose
               --max-log-backups=X
               --non-interactive, --noninteractive
               --force-interactive
               --domains=X, --domain=X
               --eab-kid=X
               --eab-hmac-key=X
               --cert-name=X
               --debug-challenges
               --preferred-chain=X
               --preferred-challenges=X
               --issuance-timeout=X
               --user-agent=X
               --user-agent-comment=X
               --keep-until-expiring, --keep, --reinstall
               --expand
               --version
               --force-renewal, --renew-by-default
               --renew-with-new-domains
               --reuse-key
               --no-reuse-key
               --new-key
               --allow-subset-of-names
               --duplicate
               -q, --quiet
               --rsa-key-size=X
               --elliptic-curve=X
               --must-staple
               --redirect
               --no-redirect
               --hsts
               --uir
               --staple-ocsp
               --strict-permissions
               --auto-hsts
               --staging
               --debug
               --no-verify-ssl
               --https-port=X
               --break-my-certs
               --cert-path=X
               --key-path=X
               --fullchain-path=X
               --chain-path=X
               --config-dir=X
               --work-dir=X
               --logs-dir=X
               --server=X
               --csr=X
               --pre-hook=X : runs *
               --post-hook=X : runs *
               --deploy-hook=X : runs *
               --disable-hook-validation
               --no-directory-hooks
               --disable-renew-updates
               --no-autorenew
               --delete-after-revoke
               --no-delete-after-revoke
               --register-unsafely-without-email
               --email=X
               --eff-email
               --no-eff-email
               --account=X
               --checkpoints=X
               --init
               --prepare
               --authenticators
               --installers
               --configurator=X
               -a X, --authenticator=X
               -i X, --installer=X
               --apache
               --nginx
               --dns-cloudflare
               --dns-digitalocean
               --dns-dnsimple
               --dns-dnsmadeeasy
               --dns-gehirn
               --dns-google
               --dns-linode
               --dns-luadns
               --dns-nsone
               --dns-ovh
               --dns-rfc2136
               --dns-route53
               --dns-sakuracloud
               --manual-auth-hook=X : runs *
               --manual-cleanup-hook=X : runs *
               --webroot-path=X, -w X
               --webroot-map=X
               --key-type=TYPE
               --http-01-port=PORT
               --http-01-address=ADDRESS
               --reason=REASON
               @sub certificates : read-only
               @sub plugins : read-only
               @sub run : changes
               @sub certonly : changes
               @sub renew : changes
               @sub enhance : changes
               @sub revoke : changes
               @sub delete : changes
               @sub register : changes
               @sub update_account : changes
               @sub unregister : changes
               @sub install : changes
               @sub rollback : changes
               @sub reconfigure : changes
               @sub show_account : changes
               @sub update_symlinks : changes",
        hook: None,
    },
    Spec {
        names: &["nginx"],
        family: "services",
        text: "@read-only
               @operands args
               -?, -h
               -v
               -V
               -t
               -T
               -q
               -s SIGNAL : changes signals the running nginx
               -p PREFIX
               -e FILE : writes
               -c FILE : reads
               -g DIRECTIVES",
        hook: Some(nginx),
    },
    Spec {
        names: &["apachectl", "apache2ctl"],
        family: "services",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(apachectl),
    },
    Spec {
        names: &["sshd"],
        family: "services",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(sshd),
    },
    Spec {
        names: &["openssl"],
        family: "services",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(openssl),
    },
    Spec {
        names: &["tcpdump"],
        family: "services",
        text: "@loose
               -z COMMAND : runs+ gzip bzip2 xz zstd
               -w FILE : writes
               -c N
               -C SIZE
               -E SPEC
               -F FILE : reads
               -G SECONDS
               -i IFACE
               -j TYPE
               -m FILE
               -M SECRET
               -r FILE : reads
               -s LEN
               -T TYPE
               -V FILE : reads
               -W N
               -y TYPE
               -Z USER
               -B SIZE
               -Q DIRECTION
               --interface=IFACE
               --snapshot-length=LEN",
        hook: None,
    },
    Spec {
        names: &["gdb"],
        family: "services",
        text: "@loose
               -ex COMMAND : unprovable runs debugger commands, which can start programs
               --eval-command=COMMAND : unprovable runs debugger commands, which can start programs
               -x FILE : unprovable runs debugger commands, which can start programs
               --command=FILE : unprovable runs debugger commands, which can start programs
               -iex COMMAND : unprovable runs debugger commands, which can start programs
               -ix FILE : unprovable runs debugger commands, which can start programs
               -p PID
               --pid=PID",
        hook: None,
    },
];

/// Modules whose arguments are a command run on the hosts.
const COMMAND_MODULES: &[&str] = &["command", "shell", "raw"];
/// Modules that only read.
const READ_MODULES: &[&str] = &[
    "ping",
    "setup",
    "gather_facts",
    "debug",
    "stat",
    "package_facts",
    "service_facts",
    "slurp",
    "find",
    "getent",
    "wait_for_connection",
    "assert",
    "fail",
    "set_fact",
    "include_vars",
    "uri",
];

fn ansible(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    let hosts = call
        .operand_texts()
        .first()
        .copied()
        .unwrap_or("all")
        .to_owned();
    let module = call.value("--module-name").unwrap_or("command");
    let module = module.rsplit('.').next().unwrap_or(module);
    let remote = format!("every host in {hosts} (ansible)");
    // `--list-hosts` only lists the hosts: nothing runs.
    let lists = call.has("--list-hosts");
    for (args, index) in call.values("--args").into_iter().filter(|_| !lists) {
        if COMMAND_MODULES.contains(&module) {
            verdict.script(args, format!("ansible -m {module}"), Some(index), false);
            if let Some(last) = verdict.runs.last_mut() {
                last.remote = Some(remote.clone());
            }
        } else if matches!(module, "script" | "expect" | "win_shell" | "win_command") {
            let any = Runs {
                expect: Vec::new(),
                more_args: false,
                remote: true,
            };
            verdict.runs_option(args, &format!("ansible -m {module}"), &any, Some(index));
        }
    }
    for (args, _) in call
        .values("--ssh-common-args")
        .into_iter()
        .chain(call.values("--ssh-extra-args"))
    {
        if args.to_ascii_lowercase().contains("command") || args.contains("-F") {
            verdict.unprovable("ansible's ssh arguments name a program to run");
        }
    }
    let reads = call.has("--list-hosts")
        || call.has("--check")
        || (READ_MODULES.contains(&module) && call.values("--module-name").len() == 1);
    if !reads {
        verdict.not_read_only(format!("`{display}` changes the hosts it runs on"));
    }
}

fn not_read_only(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.not_read_only(format!(
        "`{}` is not read-only with these arguments (plan mode allows only reading forms)",
        call.display()
    ));
}

fn nginx(call: &Call<'_>, verdict: &mut Verdict) {
    // Without -t, -T, -v or -V nginx starts a server.
    if !["-t", "-T", "-v", "-V", "-h"]
        .iter()
        .any(|option| call.has(option))
    {
        not_read_only(call, verdict);
    }
}

fn apachectl(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let first = positional(args).first().copied().unwrap_or_default();
    let reads = matches!(first, "configtest" | "status" | "fullstatus")
        || has_any(args, &["-t", "-S", "-M", "-v", "-V"]);
    if !reads {
        not_read_only(call, verdict);
    }
}

fn sshd(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    if !(has_short(args, "tT") || has_any(args, &["-V"])) {
        not_read_only(call, verdict);
    }
}

fn openssl(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    for (index, arg) in args.iter().enumerate() {
        if matches!(arg.as_str(), "-out" | "-keyout")
            && let Some(path) = args.get(index + 1)
        {
            verdict.output(path, format!("openssl {arg}"), false);
        }
        if arg == "-engine" {
            verdict.unprovable("`openssl -engine` loads code into openssl");
        }
    }
    let first = positional(args).first().copied().unwrap_or_default();
    let reads = matches!(
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
            | "list"
            | "help"
            | "errstr"
            | "rand"
            | "sess_id"
            | "prime"
            | "speed"
    ) && !has_any(args, &["-out", "-new", "-keyout", "-signkey"]);
    if !reads {
        not_read_only(call, verdict);
    }
}
