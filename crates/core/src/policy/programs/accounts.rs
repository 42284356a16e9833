//! User accounts, passwords, sudo rules and PAM: the files they change are lock-out files
//! (`/etc/passwd`, `/etc/shadow`, `/etc/sudoers`, …), so their changes ask; deleting or locking an
//! account and changing a password are dangerous. Adding supplementary groups (`usermod -aG`)
//! cannot lock anyone out and is an ordinary change.
//!
//! The option lists are not complete yet (`@loose`).

use super::args::Call;
use super::common::{has_any, has_flag, has_short};
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &[
            "passwd", "chpasswd", "usermod", "useradd", "userdel", "groupadd", "groupdel",
            "groupmod", "gpasswd", "chage", "chsh", "chfn", "adduser", "deluser", "addgroup",
            "delgroup", "newusers", "pwconv", "grpconv",
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
