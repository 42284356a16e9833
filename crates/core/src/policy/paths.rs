//! Paths as the policy compares them, and the files that can lock a user out of a server.
//!
//! [`normalise_path`] turns what a command or tool names (`//etc/./ssh/../ssh/sshd_config`,
//! `~/.ssh/authorized_keys`, `$HOME/.ssh`, a path relative to a `cd` earlier in the line) into one
//! spelling; [`lockout_match`] says whether changing that path can cut off access (sshd config,
//! authorized_keys, sudoers, PAM, accounts, firewall, network, fstab, the ssh units).
//!
//! This module must never answer "harmless" for a path it could not resolve: a relative path in
//! an unknown folder is compared by its trailing components, a glob by its literal prefix.

/// The files and folders whose change can lock the user out (docs/policy.md). `**` matches any
/// number of folders, `*` any part of one name. `~` is any user's home folder.
pub const LOCKOUT_PATHS: &[&str] = &[
    "/etc/ssh",
    "/etc/ssh/sshd_config",
    "/etc/ssh/sshd_config.d",
    "/etc/ssh/sshd_config.d/**",
    "/etc/ssh/authorized_keys*",
    "/etc/ssh/authorized_keys*/**",
    "~/.ssh",
    "~/.ssh/authorized_keys*",
    "/root/.ssh",
    "/root/.ssh/authorized_keys*",
    "/home/*/.ssh",
    "/home/*/.ssh/authorized_keys*",
    "**/.ssh/authorized_keys*",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/sudoers.d/**",
    "/etc/pam.conf",
    "/etc/pam.d",
    "/etc/pam.d/**",
    "/etc/security",
    "/etc/security/**",
    "/etc/passwd",
    "/etc/passwd-",
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/group",
    "/etc/group-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/nsswitch.conf",
    "/etc/nologin",
    "/run/nologin",
    "/var/run/nologin",
    "/etc/hosts.allow",
    "/etc/hosts.deny",
    "/etc/iptables",
    "/etc/iptables/**",
    "/etc/sysconfig/iptables*",
    "/etc/sysconfig/ip6tables*",
    "/etc/nftables.conf",
    "/etc/nftables.d/**",
    "/etc/nftables/**",
    "/etc/ufw",
    "/etc/ufw/**",
    "/etc/default/ufw",
    "/etc/firewalld",
    "/etc/firewalld/**",
    "/etc/netplan",
    "/etc/netplan/**",
    "/etc/network/interfaces",
    "/etc/network/interfaces.d/**",
    "/etc/NetworkManager/**",
    "/etc/systemd/network/**",
    "/etc/sysconfig/network-scripts/**",
    "/etc/resolv.conf",
    "/etc/fstab",
    "/etc/crypttab",
    // The ssh units, their drop-ins and the links that start them, wherever systemd reads units.
    "/etc/systemd/system/ssh*.service",
    "/etc/systemd/system/ssh*.socket",
    "/etc/systemd/system/ssh*.service.d",
    "/etc/systemd/system/ssh*.service.d/**",
    "/etc/systemd/system/ssh*.socket.d",
    "/etc/systemd/system/ssh*.socket.d/**",
    "/etc/systemd/system/*.wants/ssh*.service",
    "/etc/systemd/system/*.wants/ssh*.socket",
    "/run/systemd/system/ssh*.service",
    "/run/systemd/system/ssh*.socket",
    "/run/systemd/system/ssh*.service.d",
    "/run/systemd/system/ssh*.service.d/**",
    "/run/systemd/system/ssh*.socket.d",
    "/run/systemd/system/ssh*.socket.d/**",
    "/run/systemd/system/*.wants/ssh*.service",
    "/run/systemd/system/*.wants/ssh*.socket",
    "/lib/systemd/system/ssh*.service",
    "/lib/systemd/system/ssh*.socket",
    "/lib/systemd/system/ssh*.service.d/**",
    "/lib/systemd/system/ssh*.socket.d/**",
    "/usr/lib/systemd/system/ssh*.service",
    "/usr/lib/systemd/system/ssh*.socket",
    "/usr/lib/systemd/system/ssh*.service.d/**",
    "/usr/lib/systemd/system/ssh*.socket.d/**",
    "/etc/init.d/ssh",
    "/etc/init.d/sshd",
    "/etc/default/ssh",
];

/// The command name a user means: the last path component, so `/usr/bin/../bin/rm` is `rm`.
pub fn normalise_name(word: &str) -> String {
    let trimmed = word.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_owned()
}

/// A path in one spelling: absolute (`/etc/ssh`), home-relative (`~/.ssh`), or relative to a
/// folder the analysis does not know (`sshd_config`, kept relative).
///
/// `cwd` is the folder relative paths start from, when known (`cd /etc/ssh && …`).
pub fn normalise_path(path: &str, cwd: Option<&str>) -> String {
    let path = path.trim();
    let (root, rest) = if let Some(rest) = strip_home(path) {
        ("~", rest)
    } else if let Some(rest) = path.strip_prefix('/') {
        ("/", rest)
    } else if let Some(cwd) = cwd {
        let joined = format!("{cwd}/{path}");
        return normalise_path(&joined, None);
    } else {
        ("", path)
    };
    let mut parts: Vec<&str> = Vec::new();
    for component in rest.split('/') {
        match component {
            "" | "." => {}
            ".." => {
                // `..` above an unknown folder cannot be resolved: keep it so the caller can see
                // the path is not fully known.
                if parts.last().is_some_and(|last| *last != "..") {
                    parts.pop();
                } else if root.is_empty() {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    match root {
        "/" => format!("/{}", parts.join("/")),
        "~" if parts.is_empty() => "~".to_owned(),
        "~" => format!("~/{}", parts.join("/")),
        _ if parts.is_empty() => ".".to_owned(),
        _ => parts.join("/"),
    }
}

/// `~`, `~user`, `$HOME`, `${HOME}` at the start of a path: the rest after the home folder.
fn strip_home(path: &str) -> Option<&str> {
    for prefix in ["$HOME", "${HOME}"] {
        if let Some(rest) = path.strip_prefix(prefix)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return Some(rest);
        }
    }
    let rest = path.strip_prefix('~')?;
    // `~user/...`: another user's home is still a home folder.
    let end = rest.find('/').unwrap_or(rest.len());
    let user = &rest[..end];
    if user
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        Some(&rest[end..])
    } else {
        None
    }
}

/// Characters that make a path a pattern the shell expands.
fn is_glob(path: &str) -> bool {
    path.contains(['*', '?', '[', '{'])
}

/// The lock-out entry that `path` (already normalised) falls under, if any. With `subtree`,
/// a folder that contains a lock-out path counts too (`rm -r /etc`, `mv /etc/ssh /tmp`).
pub fn lockout_match(path: &str, subtree: bool) -> Option<&'static str> {
    let path_parts = components(path);
    if is_glob(path) {
        return glob_lockout_match(path);
    }
    LOCKOUT_PATHS.iter().copied().find(|entry| {
        let pattern = components(entry);
        if path.starts_with('/') || path.starts_with('~') {
            if glob_components(&pattern, &path_parts) {
                return true;
            }
            // `~/.ssh` patterns also hold for any absolute home folder and vice versa.
            if path.starts_with('~') && entry.starts_with("/home/") {
                return false;
            }
            subtree && is_ancestor(&path_parts, &pattern)
        } else {
            // Relative to an unknown folder: the trailing components decide.
            suffix_matches(&pattern, &path_parts)
        }
    })
}

fn components(path: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = path.split('/').filter(|part| !part.is_empty()).collect();
    if path.starts_with('/') {
        parts.insert(0, "/");
    }
    parts
}

/// The part of a path or entry before its first wildcard.
fn literal_prefix(path: &str) -> &str {
    let end = path.find(['*', '?', '[', '{']).unwrap_or(path.len());
    &path[..end]
}

/// A glob may expand to anything under its literal prefix; a relative glob in an unknown folder
/// is compared by its last name.
fn glob_lockout_match(path: &str) -> Option<&'static str> {
    let literal = literal_prefix(path);
    if path.starts_with('/') || path.starts_with('~') {
        return LOCKOUT_PATHS.iter().copied().find(|entry| {
            let entry_literal = literal_prefix(entry);
            // The pattern can grow into the entry (`/etc/ss*` → `/etc/ssh`), or it lies where the
            // entry's own wildcard reaches (`/etc/sudoers.d/*`); a plain entry names one file or
            // folder, not what is next to it (`/etc/ssh/ssh_config*` is not `/etc/ssh`).
            entry_literal.starts_with(literal)
                || (entry_literal.len() > 1
                    && entry.contains('*')
                    && literal.starts_with(entry_literal))
        });
    }
    let last = path.rsplit('/').next().unwrap_or(path);
    let last = last.replace(['?', '['], "*");
    let last = last.split(['{', ']', '}']).next().unwrap_or("*").to_owned() + "*";
    LOCKOUT_PATHS.iter().copied().find(|entry| {
        let name = entry.rsplit('/').next().unwrap_or(entry);
        !name.contains('*') && glob_name(&last, name)
    })
}

pub(super) fn glob_components(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| glob_components(rest, &path[skip..])),
        Some((first, rest)) => match path.split_first() {
            Some((name, path_rest)) => glob_name(first, name) && glob_components(rest, path_rest),
            None => false,
        },
    }
}

/// `*` in one component: any run of characters.
fn glob_name(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((prefix, rest)) => {
            let Some(after) = name.strip_prefix(prefix) else {
                return false;
            };
            if rest.is_empty() {
                return true;
            }
            (0..=after.len())
                .filter(|index| after.is_char_boundary(*index))
                .any(|index| glob_name(rest, &after[index..]))
        }
    }
}

/// `path` is a folder above something the pattern names (literally, up to its first wildcard).
fn is_ancestor(path: &[&str], pattern: &[&str]) -> bool {
    path.len() < pattern.len()
        && path
            .iter()
            .zip(pattern)
            .all(|(have, want)| !want.contains('*') && have == want)
}

/// A relative path whose components could be the end of the pattern.
fn suffix_matches(pattern: &[&str], path: &[&str]) -> bool {
    let path: Vec<&str> = path.iter().copied().filter(|part| *part != "..").collect();
    if path.is_empty() || path == ["."] {
        return false;
    }
    let pattern: Vec<&str> = pattern
        .iter()
        .copied()
        .filter(|part| *part != "**")
        .collect();
    if path.len() > pattern.len() {
        return false;
    }
    let tail = &pattern[pattern.len() - path.len()..];
    tail.iter()
        .zip(&path)
        .all(|(want, have)| *want != "/" && *want != "~" && glob_name(want, have))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn paths_are_normalised() {
        assert_eq!(
            normalise_path("//etc/./ssh/../ssh//sshd_config", None),
            "/etc/ssh/sshd_config"
        );
        assert_eq!(
            normalise_path("$HOME/.ssh/authorized_keys", None),
            "~/.ssh/authorized_keys"
        );
        assert_eq!(normalise_path("${HOME}/.ssh", None), "~/.ssh");
        assert_eq!(normalise_path("~bob/.ssh", None), "~/.ssh");
        assert_eq!(
            normalise_path("authorized_keys", Some("~/.ssh")),
            "~/.ssh/authorized_keys"
        );
        assert_eq!(
            normalise_path("../ssh/sshd_config", Some("/etc/pam.d")),
            "/etc/ssh/sshd_config"
        );
        assert_eq!(normalise_path("/../../etc/passwd", None), "/etc/passwd");
        assert_eq!(normalise_path("a/../../b", None), "../b");
    }

    #[test]
    fn lockout_paths_are_recognised() {
        for path in [
            "/etc/ssh/sshd_config",
            "/etc/ssh/sshd_config.d/10-x.conf",
            "~/.ssh/authorized_keys",
            "~/.ssh/authorized_keys2",
            "/home/bob/.ssh/authorized_keys",
            "/srv/git/.ssh/authorized_keys",
            "/etc/sudoers.d/90-x",
            "/etc/pam.d/sshd",
            "/etc/shadow",
            "/etc/netplan/01.yaml",
            "/etc/systemd/system/sshd.service.d/override.conf",
            "/run/systemd/system/ssh.service.d/override.conf",
            "/lib/systemd/system/ssh.service.d/10-x.conf",
            "/etc/fstab",
            "/etc/ssh/sshd_config.d/*.conf",
        ] {
            assert!(lockout_match(path, false).is_some(), "{path}");
        }
        for path in [
            "/etc/motd",
            "/etc/nginx/nginx.conf",
            "/tmp/sshd_config.bak",
            "~/.bashrc",
            "/home/bob/notes",
            // The ssh client's settings cannot lock anyone out of this server.
            "/etc/ssh/ssh_config",
            "/etc/ssh/ssh_config.d/10-x.conf",
            "/etc/ssh/ssh_config.d/*.conf",
            "/etc/ssh/ssh_config*",
            "ssh_config",
            "ssh_config.d/x.conf",
        ] {
            assert_eq!(lockout_match(path, false), None, "{path}");
        }
        // Relative to an unknown folder: the name decides.
        assert!(lockout_match("authorized_keys", false).is_some());
        assert!(lockout_match("sshd_config", false).is_some());
        assert!(lockout_match("ssh/sshd_config", false).is_some());
        assert_eq!(lockout_match("notes.txt", false), None);
        // Folders above lock-out files, for recursive changes only.
        assert!(lockout_match("/etc", true).is_some());
        assert_eq!(lockout_match("/etc", false), None);
        assert!(lockout_match("/etc/ss*", false).is_some());
        assert!(lockout_match("/etc/*", false).is_some());
        assert_eq!(lockout_match("/var/log/*.log", false), None);
    }
}
