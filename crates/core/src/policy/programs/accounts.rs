//! User accounts, passwords, sudo rules and PAM: the files they change are lock-out files
//! (`/etc/passwd`, `/etc/shadow`, `/etc/sudoers`, …), so their changes ask; deleting or locking an
//! account and changing a password are dangerous. Adding supplementary groups (`usermod -aG`)
//! cannot lock anyone out and is an ordinary change.
//!
//! Every account tool lists its options. authconfig and authselect (Red Hat's, not packaged by
//! Debian) are written from their manuals; whatever they are given, they ask (lock-out).

use super::args::Call;
use super::common::{has_any, has_flag, has_short};
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["useradd"],
        family: "accounts",
        text: "@operands args
               --badname
               -b X, --base-dir=X
               --btrfs-subvolume-home
               -c X, --comment=X
               -d X, --home-dir=X
               -D, --defaults
               -e X, --expiredate=X
               -f X, --inactive=X
               -F, --add-subids-for-system
               -g X, --gid=X
               -G X, --groups=X
               -h, --help
               -k X, --skel=X : reads
               -K X, --key=X
               -l, --no-log-init
               -m, --create-home
               -M, --no-create-home
               -N, --no-user-group
               -o, --non-unique
               -p X, --password=X
               -r, --system
               -R X, --root=X : unprovable changes another system root
               -P X, --prefix=X : unprovable changes another system root
               -s X, --shell=X
               -u X, --uid=X
               -U, --user-group
               -Z X, --selinux-user=X",
        hook: Some(accounts),
    },
    Spec {
        names: &["usermod"],
        family: "accounts",
        text: "@operands args
               -a, --append
               -b, --badname
               -c X, --comment=X
               -d X, --home=X
               -e X, --expiredate=X
               -f X, --inactive=X
               -g X, --gid=X
               -G X, --groups=X
               -h, --help
               -l X, --login=X
               -L, --lock
               -m, --move-home
               -o, --non-unique
               -p X, --password=X
               -P X, --prefix=X : unprovable changes another system root
               -r, --remove
               -R X, --root=X : unprovable changes another system root
               -s X, --shell=X
               -u X, --uid=X
               -U, --unlock
               -v X, --add-subuids=X
               -V X, --del-subuids=X
               -w X, --add-subgids=X
               -W X, --del-subgids=X
               -Z X, --selinux-user=X",
        hook: Some(accounts),
    },
    Spec {
        names: &["userdel"],
        family: "accounts",
        text: "@operands args
               -f, --force
               -h, --help
               -r, --remove
               -R X, --root=X : unprovable changes another system root
               -P X, --prefix=X : unprovable changes another system root
               -Z, --selinux-user",
        hook: Some(accounts),
    },
    Spec {
        names: &["passwd"],
        family: "accounts",
        text: "@operands args
               -a, --all
               -d, --delete
               -e, --expire
               -h, --help
               -k, --keep-tokens
               -i X, --inactive=X
               -l, --lock
               -n X, --mindays=X
               -q, --quiet
               -r X, --repository=X
               -R X, --root=X : unprovable changes another system root
               -S, --status
               -u, --unlock
               -w X, --warndays=X
               -x X, --maxdays=X",
        hook: Some(accounts),
    },
    Spec {
        names: &["chage"],
        family: "accounts",
        text: "@operands args
               -d X, --lastday=X
               -E X, --expiredate=X
               -h, --help
               -i, --iso8601
               -I X, --inactive=X
               -l, --list
               -m X, --mindays=X
               -M X, --maxdays=X
               -R X, --root=X : unprovable changes another system root
               -W X, --warndays=X",
        hook: Some(accounts),
    },
    Spec {
        names: &["groupadd"],
        family: "accounts",
        text: "@operands args
               -f, --force
               -g X, --gid=X
               -h, --help
               -K X, --key=X
               -o, --non-unique
               -p X, --password=X
               -r, --system
               -R X, --root=X : unprovable changes another system root
               -P X, --prefix=X : unprovable changes another system root
               -U X, --users=X",
        hook: Some(accounts),
    },
    Spec {
        names: &["chpasswd"],
        family: "accounts",
        text: "@operands args
               -c X, --crypt-method=X
               -e, --encrypted
               -h, --help
               -m, --md5
               -R X, --root=X : unprovable changes another system root
               -P X, --prefix=X : unprovable changes another system root
               -s X, --sha-rounds=X",
        hook: Some(accounts),
    },
    Spec {
        names: &["groupdel"],
        family: "accounts",
        text: "@operands args
               -h, --help
               -R X, --root=X : unprovable changes another system root
               -P X, --prefix=X : unprovable changes another system root
               -f, --force",
        hook: Some(accounts),
    },
    Spec {
        names: &["groupmod"],
        family: "accounts",
        text: "@operands args
               -a, --append
               -g X, --gid=X
               -h, --help
               -n X, --new-name=X
               -o, --non-unique
               -p X, --password=X
               -R X, --root=X : unprovable changes another system root
               -P X, --prefix=X : unprovable changes another system root
               -U X, --users=X",
        hook: Some(accounts),
    },
    Spec {
        names: &["gpasswd"],
        family: "accounts",
        text: "@operands args
               -a X, --add=X
               -d X, --delete=X
               -h, --help
               -Q X, --root=X : unprovable changes another system root
               -r, --remove-password
               -R, --restrict
               -M X, --members=X
               -A X, --administrators=X",
        hook: Some(accounts),
    },
    Spec {
        names: &["chsh"],
        family: "accounts",
        text: "@operands args
               -h, --help
               -R X, --root=X : unprovable changes another system root
               -s X, --shell=X
               -l, --list-shells",
        hook: Some(accounts),
    },
    Spec {
        names: &["chfn"],
        family: "accounts",
        text: "@operands args
               -f X, --full-name=X
               -h X, --home-phone=X
               -o X, --other=X
               -r X, --room=X
               -R X, --root=X : unprovable changes another system root
               -u, --help
               -w X, --work-phone=X",
        hook: Some(accounts),
    },
    Spec {
        names: &["adduser", "addgroup"],
        family: "accounts",
        text: "@operands args
               --add-extra-groups
               --allow-all-names
               --allow-bad-names, --allow-badname, --force-badname
               --comment=X, --gecos=X
               --conf=X : unprovable reads its settings from another file
               --debug
               --disabled-login
               --disabled-password
               --firstuid=X
               --lastuid=X
               --firstgid=X
               --lastgid=X
               --gid=X
               --group
               -h, --help
               --home=X
               --ingroup=X
               --no-create-home
               -q, --quiet
               --shell=X
               --system
               --uid=X
               --verbose
               -v, --version",
        hook: Some(accounts),
    },
    Spec {
        names: &["deluser", "delgroup"],
        family: "accounts",
        text: "@operands args
               --backup
               --backup-suffix=X
               --backup-to=X : writes-into
               --conf=X : unprovable reads its settings from another file
               --debug
               --group
               -h, --help
               --only-if-empty
               -q, --quiet
               --remove-all-files : deletes removes every file the user owns
               --remove-home : deletes removes the home folder
               --system
               --verbose
               -v, --version",
        hook: Some(accounts),
    },
    Spec {
        names: &["newusers"],
        family: "accounts",
        text: "@operands args
               -b, --badname
               -c X, --crypt-method=X
               -h, --help
               -r, --system
               -R X, --root=X : unprovable changes another system root
               -s X, --sha-rounds=X",
        hook: Some(accounts),
    },
    Spec {
        names: &["pwconv", "grpconv"],
        family: "accounts",
        text: "@operands args
               -h, --help
               -R X, --root=X : unprovable changes another system root
               -P X, --prefix=X : unprovable changes another system root",
        hook: Some(accounts),
    },
    Spec {
        names: &["visudo"],
        family: "accounts",
        text: "@read-only
               @operands args
               -c, --check
               -f X, --file=X
               -h, --help
               -I, --no-includes
               -q, --quiet
               -s, --strict
               -V, --version
               -O, --owner
               -P, --perms",
        hook: Some(vi_files),
    },
    Spec {
        names: &["vipw", "vigr"],
        family: "accounts",
        text: "@read-only
               @operands args
               -g, --group
               -h, --help
               -p, --passwd
               -q, --quiet
               -R X, --root=X : unprovable changes another system root
               -s, --shadow",
        hook: Some(vi_files),
    },
    Spec {
        names: &["pam-auth-update"],
        family: "accounts",
        text: "@operands args
               --package
               --enable=X
               --disable=X
               --remove=X
               --force
               -h, --help",
        hook: Some(pam),
    },
    Spec {
        names: &["authselect"],
        family: "accounts",
        text: "@operands args
               @subs-optional
               -f, --force
               --nobackup
               -b X, --backup=X
               -q, --quiet
               --raw
               --debug
               --trace
               --warn
               -h, --help
               --version",
        hook: Some(pam),
    },
    Spec {
        names: &["authconfig"],
        family: "accounts",
        text: "@operands args
               --enableshadow, --useshadow
               --disableshadow
               --enablemd5, --usemd5
               --disablemd5
               --passalgo=X
               --enablenis
               --disablenis
               --nisdomain=X
               --nisserver=X
               --enableldap
               --disableldap
               --enableldaptls, --enableldapstarttls
               --disableldaptls, --disableldapstarttls
               --enablerfc2307bis
               --disablerfc2307bis
               --enableldapauth
               --disableldapauth
               --ldapserver=X
               --ldapbasedn=X
               --ldaploadcacert=X
               --enablekrb5
               --disablekrb5
               --krb5kdc=X
               --krb5adminserver=X
               --krb5realm=X
               --enablekrb5kdcdns
               --disablekrb5kdcdns
               --enablekrb5realmdns
               --disablekrb5realmdns
               --enablewinbind
               --disablewinbind
               --enablewinbindauth
               --disablewinbindauth
               --smbsecurity=X
               --smbrealm=X
               --smbworkgroup=X
               --smbservers=X
               --smbidmaprange=X
               --smbidmapuid=X
               --smbidmapgid=X
               --winbindseparator=X
               --winbindtemplatehomedir=X
               --winbindtemplateshell=X
               --enablewinbindusedefaultdomain
               --disablewinbindusedefaultdomain
               --enablewinbindoffline
               --disablewinbindoffline
               --enablewinbindkrb5
               --disablewinbindkrb5
               --winbindjoin=X
               --enableipav2
               --disableipav2
               --ipav2domain=X
               --ipav2realm=X
               --ipav2server=X
               --ipav2join=X
               --enableipav2nontp
               --disableipav2nontp
               --enablewins
               --disablewins
               --enablepreferdns
               --disablepreferdns
               --enablehesiod
               --disablehesiod
               --hesiodlhs=X
               --hesiodrhs=X
               --enablesssd
               --disablesssd
               --enablesssdauth
               --disablesssdauth
               --enableforcelegacy
               --disableforcelegacy
               --enablecachecreds
               --disablecachecreds
               --enablecache
               --disablecache
               --enablelocauthorize
               --disablelocauthorize
               --enablepamaccess
               --disablepamaccess
               --enablesysnetauth
               --disablesysnetauth
               --enablemkhomedir
               --disablemkhomedir
               --enablesmartcard
               --disablesmartcard
               --enablerequiresmartcard
               --disablerequiresmartcard
               --smartcardmodule=X
               --smartcardaction=X
               --enablefingerprint
               --disablefingerprint
               --enableecryptfs
               --disableecryptfs
               --passminlen=X
               --passminclass=X
               --passmaxrepeat=X
               --passmaxclassrepeat=X
               --enablereqlower
               --disablereqlower
               --enablerequpper
               --disablerequpper
               --enablereqdigit
               --disablereqdigit
               --enablereqother
               --disablereqother
               --enablefaillock
               --disablefaillock
               --faillockargs=X
               --nostart
               --test
               --update
               --updateall
               --probe
               --savebackup=X
               --restorebackup=X
               --restorelastbackup
               --kickstart
               -h, --help",
        hook: Some(pam),
    },
    Spec {
        names: &["last", "lastb"],
        family: "accounts",
        text: "@read-only
               @operands args
               @numeric
               -a, --hostlast
               -d, --dns
               -f X, --file=X : reads
               -F, --fulltimes
               -i, --ip
               -n X, --limit=X
               -R, --nohostname
               -s X, --since=X
               -t X, --until=X
               -p X, --present=X
               -w, --fullnames
               -x, --system
               --time-format=X
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["lastlog"],
        family: "accounts",
        text: "@read-only
               @operands args
               -b X, --before=X
               -C, --clear : changes clears a user's record
               -h, --help
               -R X, --root=X : unprovable changes another system root
               -S, --set : changes sets a user's record to now
               -t X, --time=X
               -u X, --user=X",
        hook: None,
    },
    Spec {
        names: &["w"],
        family: "accounts",
        text: "@read-only
               @operands args
               -h, --no-header
               -u, --no-current
               -s, --short
               -f, --from
               -o, --old-style
               -i, --ip-addr
               -p, --pids
               --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["finger"],
        family: "accounts",
        text: "@read-only
               @operands args
               -s
               -l
               -p
               -m",
        hook: None,
    },
];

fn accounts(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let display = call.display();
    let name = call.name;
    match name {
        "userdel" | "deluser" => verdict.dangerous(&display, "deletes a user account"),
        "usermod" if has_short(args, "L") || has_any(args, &["--lock", "--expiredate", "-e"]) => {
            verdict.dangerous(&display, "locks a user account")
        }
        "passwd" if !has_short(args, "S") && !has_any(args, &["--status"]) => {
            verdict.dangerous(&display, "changes or locks a password")
        }
        _ => {}
    }
    let reads = (name == "passwd" && has_flag(args, 'S', "--status"))
        || (name == "chage" && has_flag(args, 'l', "--list"));
    // Adding supplementary groups (`usermod -aG docker bob`) cannot lock anyone out.
    let adds_groups = name == "usermod"
        && args.iter().filter(|arg| arg.starts_with('-')).all(|arg| {
            arg.starts_with("--") && matches!(arg.as_str(), "--append" | "--groups" | "--comment")
                || (!arg.starts_with("--")
                    && arg[1..].chars().all(|c| matches!(c, 'a' | 'G' | 'c')))
        })
        && has_flag(args, 'a', "--append");
    if !reads && !adds_groups {
        verdict.write("/etc/passwd", name, false, true);
        verdict.write("/etc/shadow", name, false, true);
    }
    if !reads {
        verdict.not_read_only(format!("`{display}` changes user accounts"));
    }
}

fn vi_files(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let display = call.display();
    match call.name {
        "visudo" if has_flag(args, 'c', "--check") => return,
        "visudo" => {
            let file = args
                .windows(2)
                .find(|pair| pair[0] == "-f" || pair[0] == "--file")
                .map(|pair| pair[1].clone())
                .unwrap_or_else(|| "/etc/sudoers".to_owned());
            verdict.write(&file, "visudo", false, true);
        }
        "vipw" if has_flag(args, 's', "--shadow") => {
            verdict.write("/etc/shadow", "vipw", false, true)
        }
        "vipw" => verdict.write("/etc/passwd", "vipw", false, true),
        _ => verdict.write("/etc/group", "vigr", false, true),
    }
    verdict.not_read_only(format!("`{display}` edits account or sudo files"));
}

fn pam(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    verdict.lockout(&display, "changes the PAM login configuration");
    verdict.not_read_only(format!("`{display}` changes the PAM login configuration"));
}
