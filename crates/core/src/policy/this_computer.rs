//! The files on this computer whose change runs programs later: the user's shell start-up files,
//! the ssh client's settings, git's settings and hooks, autostart entries, user services, the
//! folders on `PATH` and their system-wide counterparts (docs/policy.md, *This computer's
//! start-up files*).
//!
//! A storage tab's local side and the local terminal tab's file tools change this computer, and a
//! hostile file on a server can talk the model into writing `~/.ssh/config` with a
//! `ProxyCommand`, a `~/.bash_profile` or a `~/.local/bin/sudo`: code that runs the next time the
//! user does something ordinary. A change to such a path therefore asks, in every mode and
//! whatever the allowed list says, like a change to a lock-out path ([`judge_changes`]).
//!
//! A path is compared as named, with the links of its folders resolved (where a write lands) and
//! with every link resolved (where a link leads), and without regard to case (the file systems of
//! macOS and Windows ignore it). This module must never answer "harmless" for a path it could not
//! resolve: what does not exist yet is compared as named.

use super::{ChangeKind, Decision, FileChange, escalate, paths::glob_components};
use kaiport_protocol::Risk;
use kaiport_protocol::tools::Side;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

const SSH: &str = "the ssh client's settings and keys (a ProxyCommand in ~/.ssh/config or a \
                   ~/.ssh/rc runs programs on every ssh)";
const SHELL: &str = "a shell start-up file (its commands run in every new shell)";
const LOGIN: &str =
    "the login session's environment (it runs or redirects programs at the next login)";
const AUTOSTART: &str = "an autostart entry (it runs a program at the next login)";
const SERVICES: &str = "user services and scheduled jobs (they run programs)";
const GIT: &str =
    "git's settings or hooks (core.fsmonitor, core.sshCommand or a hook runs programs)";
const PATH_DIR: &str = "a folder on this computer's PATH (a program there runs instead of the one the \
                        user types, such as sudo, ssh or git)";
const SYSTEM: &str = "system-wide start-up configuration (it runs programs for every user)";

/// Under the user's home folder. `*` is any part of one name, `**` any number of folders (none
/// included), so `.ssh/**` is the folder and everything in it.
const IN_HOME: &[(&str, &str)] = &[
    (".ssh/**", SSH),
    (".bashrc", SHELL),
    (".bash_profile", SHELL),
    (".bash_login", SHELL),
    (".bash_logout", SHELL),
    (".bash_aliases", SHELL),
    (".bashrc.d/**", SHELL),
    (".profile", SHELL),
    (".zshrc", SHELL),
    (".zshenv", SHELL),
    (".zprofile", SHELL),
    (".zlogin", SHELL),
    (".zlogout", SHELL),
    (".kshrc", SHELL),
    (".mkshrc", SHELL),
    (".cshrc", SHELL),
    (".tcshrc", SHELL),
    (".login", SHELL),
    (".logout", SHELL),
    (".inputrc", SHELL),
    (".config/fish/**", SHELL),
    (".config/zsh/**", SHELL),
    (".config/powershell/**", SHELL),
    ("Documents/PowerShell/**", SHELL),
    ("Documents/WindowsPowerShell/**", SHELL),
    (".pam_environment", LOGIN),
    (".xprofile", LOGIN),
    (".xsessionrc", LOGIN),
    (".xsession", LOGIN),
    (".xinitrc", LOGIN),
    (".config/environment.d/**", LOGIN),
    (".config/plasma-workspace/env/**", LOGIN),
    (".config/plasma-workspace/shutdown/**", LOGIN),
    (".config/autostart/**", AUTOSTART),
    (".config/autostart-scripts/**", AUTOSTART),
    (".kde/Autostart/**", AUTOSTART),
    (".kde4/Autostart/**", AUTOSTART),
    ("Library/LaunchAgents/**", AUTOSTART),
    (
        "AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup/**",
        AUTOSTART,
    ),
    (".config/systemd/**", SERVICES),
    (".local/share/systemd/**", SERVICES),
    (".config/upstart/**", SERVICES),
    (".gitconfig", GIT),
    (".config/git/**", GIT),
    // A login shell puts these on PATH once they exist (Debian's and Fedora's ~/.profile).
    (".local/bin/**", PATH_DIR),
    ("bin/**", PATH_DIR),
];

/// Anywhere on this computer.
const ANYWHERE: &[(&str, &str)] = &[
    ("**/.git/config", GIT),
    ("**/.git/hooks/**", GIT),
    ("/etc/gitconfig", GIT),
    ("/etc/ssh/**", SSH),
    ("/etc/profile", SYSTEM),
    ("/etc/profile.d/**", SYSTEM),
    ("/etc/bash.bashrc", SYSTEM),
    ("/etc/bashrc", SYSTEM),
    ("/etc/zsh/**", SYSTEM),
    ("/etc/zshrc", SYSTEM),
    ("/etc/zprofile", SYSTEM),
    ("/etc/zshenv", SYSTEM),
    ("/etc/zlogin", SYSTEM),
    ("/etc/environment", SYSTEM),
    ("/etc/ld.so.preload", SYSTEM),
    ("/etc/xdg/autostart/**", SYSTEM),
    ("/etc/cron*/**", SYSTEM),
    ("/var/spool/cron/**", SYSTEM),
    ("/etc/systemd/**", SYSTEM),
    ("/etc/init.d/**", SYSTEM),
    ("/etc/rc.local", SYSTEM),
    ("/Library/LaunchAgents/**", SYSTEM),
    ("/Library/LaunchDaemons/**", SYSTEM),
    (
        "**/ProgramData/Microsoft/Windows/Start Menu/Programs/StartUp/**",
        SYSTEM,
    ),
];

/// One protected place: its components (lower case), as shown, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Protected {
    parts: Vec<String>,
    shown: String,
    what: &'static str,
}

/// This computer's protected places, for one user (their home folder and `PATH`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThisComputer {
    protected: Vec<Protected>,
}

impl ThisComputer {
    /// For the user kaiport runs as: `$HOME` (or the OS's idea of it) and `$PATH`.
    pub fn from_env() -> ThisComputer {
        ThisComputer::new(dirs::home_dir(), std::env::var_os("PATH"))
    }

    /// For the home folder `home` and the search path `path_var` (as in `$PATH`).
    pub fn new(home: Option<PathBuf>, path_var: Option<OsString>) -> ThisComputer {
        let mut protected = Vec::new();
        let mut add = |base: &[String], pattern: &str, shown: String, what: &'static str| {
            let mut parts = base.to_vec();
            if pattern.starts_with('/') {
                parts.push("/".to_owned());
            }
            parts.extend(
                pattern
                    .split('/')
                    .filter(|part| !part.is_empty())
                    .map(str::to_lowercase),
            );
            let entry = Protected { parts, shown, what };
            if !protected.contains(&entry) {
                protected.push(entry);
            }
        };
        // A home folder reached through a link (`/home` → `/usr/home`) is protected under both
        // names: the paths compared are resolved, the names given are not.
        let homes: Vec<PathBuf> = home
            .into_iter()
            .filter(|home| home.is_absolute())
            .flat_map(|home| {
                let real = std::fs::canonicalize(&home).ok();
                std::iter::once(home).chain(real)
            })
            .collect();
        for home in &homes {
            let base = components(home);
            for (pattern, what) in IN_HOME {
                add(&base, pattern, format!("~/{pattern}"), what);
            }
        }
        for (pattern, what) in ANYWHERE {
            add(&[], pattern, (*pattern).to_owned(), what);
        }
        let folders = path_var
            .map(|value| std::env::split_paths(&value).collect::<Vec<_>>())
            .unwrap_or_default();
        // The root as a PATH entry would make every path protected: left out.
        let folders = folders
            .into_iter()
            .filter(|folder| folder.is_absolute() && folder.parent().is_some());
        for folder in folders {
            let real = std::fs::canonicalize(&folder).ok();
            for folder in std::iter::once(folder).chain(real) {
                let shown = format!("{}/**", folder.display());
                add(&components(&folder), "**", shown, PATH_DIR);
            }
        }
        ThisComputer { protected }
    }

    /// The protected place a change to `path` on this computer touches, as (shown, what); with
    /// `subtree`, a folder holding one counts too (a recursive delete, a folder moved onto it).
    pub fn protected(&self, path: &str, subtree: bool) -> Option<(&str, &'static str)> {
        let given = lexical(Path::new(path));
        if !given.is_absolute() {
            return None;
        }
        let mut candidates = vec![given.clone()];
        // Where a write lands: the folder's links followed, the name itself replaced.
        if let (Some(parent), Some(name)) = (given.parent(), given.file_name()) {
            candidates.push(crate::fs::resolve_existing(parent).join(name));
        }
        // Where a link of that name leads.
        candidates.push(crate::fs::resolve_existing(&given));
        candidates.iter().find_map(|candidate| {
            let parts = components(candidate);
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            self.protected
                .iter()
                .find(|entry| {
                    let pattern: Vec<&str> = entry.parts.iter().map(String::as_str).collect();
                    glob_components(&pattern, &parts) || (subtree && holds(&parts, &pattern))
                })
                .map(|entry| (entry.shown.as_str(), entry.what))
        })
    }
}

/// `folder` holds what `pattern` names: its components are a shorter start of the pattern's
/// literal components (a pattern starting with `**` is held by no folder in particular).
fn holds(folder: &[&str], pattern: &[&str]) -> bool {
    let literal = pattern
        .iter()
        .take_while(|part| !part.contains('*'))
        .count();
    !folder.is_empty()
        && folder.len() < literal
        && folder.iter().zip(pattern).all(|(have, want)| have == want)
}

/// `path` with `.` and `..` worked out, without looking at the disk.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A path's components in lower case, the root as `/`.
fn components(path: &Path) -> Vec<String> {
    lexical(path)
        .components()
        .map(|component| match component {
            Component::RootDir => "/".to_owned(),
            other => other.as_os_str().to_string_lossy().to_lowercase(),
        })
        .collect()
}

/// Adds to `decision` the changes among `changes` that touch a protected place on this computer:
/// they ask, marked dangerous, in every mode. `whole_tab_here`: every side of the tab is this
/// computer (the local terminal tab); otherwise only a storage tab's local side is.
pub fn judge_changes(
    decision: Decision,
    changes: &[FileChange],
    here: &ThisComputer,
    whole_tab_here: bool,
) -> Decision {
    let mut reasons: Vec<String> = Vec::new();
    for change in changes
        .iter()
        .filter(|change| whole_tab_here || change.side == Side::Local)
    {
        let mut paths = change.paths();
        // A folder moved onto a name brings everything in it there.
        if let ChangeKind::Rename { to, .. } = &change.kind {
            paths.push((to.clone(), true));
        }
        for (path, subtree) in paths {
            if let Some((shown, what)) = here.protected(&path, subtree) {
                let reason = format!(
                    "changes {path} on this computer: {what} (protected: {shown}); this always asks"
                );
                if !reasons.contains(&reason) {
                    reasons.push(reason);
                }
            }
        }
    }
    // Like lock-out files they ask in every mode, but they run programs rather than cut the user
    // off from a server: dangerous, not a lock-out (a card would say "Can lock you out").
    escalate(
        decision,
        reasons
            .into_iter()
            .map(|reason| (reason, Risk::Dangerous))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kaiport_protocol::DecidedBy;

    fn here(home: &Path) -> ThisComputer {
        let path = std::env::join_paths([home.join(".cargo/bin"), PathBuf::from("/usr/bin")]).ok();
        ThisComputer::new(Some(home.to_path_buf()), path)
    }

    #[test]
    fn start_up_files_are_protected_and_ordinary_files_are_not() {
        let home = tempfile::tempdir().unwrap();
        let computer = here(home.path());
        let at = |rest: &str| home.path().join(rest).display().to_string();
        for rest in [
            ".ssh/config",
            ".ssh/rc",
            ".ssh",
            ".bash_profile",
            ".bashrc",
            ".zshenv",
            ".config/fish/config.fish",
            ".config/autostart/evil.desktop",
            ".config/systemd/user/x.service",
            ".gitconfig",
            ".config/git/config",
            ".local/bin/sudo",
            ".local/bin",
            "bin/ssh",
            ".cargo/bin/cargo",
            ".pam_environment",
            ".xprofile",
            ".config/environment.d/10.conf",
            "Library/LaunchAgents/x.plist",
            "AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup/x.lnk",
            "src/repo/.git/config",
            "src/repo/.git/hooks/pre-commit",
            // Case variants: macOS and Windows file systems ignore case.
            ".SSH/Config",
            ".Bash_Profile",
            "./Downloads/../.profile",
        ] {
            assert!(computer.protected(&at(rest), false).is_some(), "{rest}");
        }
        assert!(computer.protected("/usr/bin/sudo", false).is_some());
        assert!(computer.protected("/etc/profile.d/x.sh", false).is_some());
        for rest in [
            "Downloads/report.pdf",
            "Downloads/.bashrc.txt",
            "notes/.ssh.txt",
            ".config/other/settings.json",
            ".local/share/file",
            "binaries/x",
        ] {
            assert_eq!(computer.protected(&at(rest), false), None, "{rest}");
        }
        // Folders holding protected places, for changes to everything in them.
        assert!(computer.protected(&at(".config"), true).is_some());
        assert_eq!(computer.protected(&at(".config"), false), None);
        assert_eq!(computer.protected(&at("Downloads"), true), None);
    }

    #[cfg(unix)]
    #[test]
    fn links_lead_to_what_they_name() {
        let home = tempfile::tempdir().unwrap();
        let computer = here(home.path());
        std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
        std::fs::create_dir_all(home.path().join("Downloads")).unwrap();
        std::fs::write(home.path().join(".bashrc"), "# mine\n").unwrap();
        std::os::unix::fs::symlink(home.path().join(".ssh"), home.path().join("Downloads/keys"))
            .unwrap();
        std::os::unix::fs::symlink(
            home.path().join(".bashrc"),
            home.path().join("Downloads/rc"),
        )
        .unwrap();
        let at = |rest: &str| home.path().join(rest).display().to_string();
        assert!(
            computer
                .protected(&at("Downloads/keys/config"), false)
                .is_some()
        );
        assert!(computer.protected(&at("Downloads/rc"), false).is_some());
    }

    #[test]
    fn changes_here_ask_in_autopilot_and_elsewhere_do_not() {
        let home = tempfile::tempdir().unwrap();
        let computer = here(home.path());
        let allow = || Decision::Allow {
            by: DecidedBy::Autopilot,
            reasons: Vec::new(),
        };
        let change = |path: &Path, side| FileChange {
            path: path.display().to_string(),
            side,
            kind: ChangeKind::Transfer {
                replaces_existing: false,
            },
            resolved: None,
        };
        let config = home.path().join(".ssh/config");
        let asked = judge_changes(allow(), &[change(&config, Side::Local)], &computer, false);
        assert!(
            matches!(&asked, Decision::Ask { risk: Risk::Dangerous, reasons } if reasons[0].contains("ProxyCommand")),
            "{asked:?}"
        );
        // The server's own ~/.ssh is the server's business (and its lock-out rules').
        let remote = judge_changes(allow(), &[change(&config, Side::Remote)], &computer, false);
        assert_eq!(remote, allow());
        // In the local terminal tab every side is this computer.
        let local_tab = judge_changes(allow(), &[change(&config, Side::Remote)], &computer, true);
        assert!(matches!(
            local_tab,
            Decision::Ask {
                risk: Risk::Dangerous,
                ..
            }
        ));
        let download = home.path().join("Downloads/report.pdf");
        let fine = judge_changes(allow(), &[change(&download, Side::Local)], &computer, false);
        assert_eq!(fine, allow());
        // A folder renamed onto ~/.config brings whatever it holds there.
        let rename = FileChange {
            path: home.path().join("Downloads/x").display().to_string(),
            side: Side::Local,
            kind: ChangeKind::Rename {
                to: home.path().join(".config").display().to_string(),
                target_exists: false,
            },
            resolved: None,
        };
        assert!(matches!(
            judge_changes(allow(), &[rename], &computer, false),
            Decision::Ask {
                risk: Risk::Dangerous,
                ..
            }
        ));
        let deny = Decision::Deny {
            reason: "plan mode".to_owned(),
        };
        assert_eq!(
            judge_changes(
                deny.clone(),
                &[change(&config, Side::Local)],
                &computer,
                false
            ),
            deny
        );
    }
}
