//! User accounts, passwords, sudo rules and PAM: the files they change are lock-out files
//! (`/etc/passwd`, `/etc/shadow`, `/etc/sudoers`, …), so their changes ask; deleting or locking an
//! account and changing a password are dangerous. Adding supplementary groups (`usermod -aG`)
//! cannot lock anyone out and is an ordinary change.
//!
//! useradd, usermod, userdel, passwd, chage and groupadd list every option; the other account
//! tools are not complete yet (`@loose`).

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
               -o, --non-unique
               -p X, --password=X
               -r, --system
               -R X, --root=X : unprovable changes another system root
               -P X, --prefix=X : unprovable changes another system root
               -U X, --users=X",
        hook: Some(accounts),
    },
    Spec {
        names: &[
            "chpasswd", "groupdel", "groupmod", "gpasswd", "chsh", "chfn", "adduser", "deluser",
            "addgroup", "delgroup", "newusers", "pwconv", "grpconv",
        ],
        family: "accounts",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(accounts),
    },
    Spec {
        names: &["visudo", "vipw", "vigr"],
        family: "accounts",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(vi_files),
    },
    Spec {
        names: &["pam-auth-update", "authconfig", "authselect"],
        family: "accounts",
        text: "@loose
               @opaque",
        hook: Some(pam),
    },
    Spec {
        names: &["last", "lastlog", "lastb", "w", "finger"],
        family: "accounts",
        text: "@read-only
               @loose
               @opaque",
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
