//! The judgements the policy makes about analysed commands that are not about one program: user
//! patterns (forbidden, allowed, extra dangerous) and paths whose change is dangerous or can lock
//! the user out. What each program does (its dangerous forms, lock-out commands, read-only forms)
//! is in its spec under `policy/programs/`.
//!
//! Matching is deliberately asymmetric: forbidden and dangerous patterns match loosely (`git push`
//! also matches `git -C /repo push --force`; `rm -rf` matches `rm -f -r`), allowed patterns only
//! as an exact prefix (`systemctl status` allows `systemctl status nginx`, never
//! `systemctl restart status`). Nothing here may widen what runs without asking.
//!
//! A command name that is a glob (`/bin/r[m]`) matches a forbidden or dangerous pattern when it
//! could expand to it; allowed patterns never match a glob.

use super::analysis::{SimpleCommand, Write, normalise_name};
use super::paths::{glob_matches, lockout_match};

/// A pattern in the form a user types it: `rm`, `systemctl restart`, `rm -rf`.
fn pattern_words(pattern: &str) -> Vec<String> {
    let mut words: Vec<String> = pattern.split_whitespace().map(str::to_owned).collect();
    if let Some(first) = words.first_mut() {
        *first = normalise_name(first.trim_start_matches('\\'));
    }
    words
}

/// Short options of a command as one set (`-r -f` and `-rf` both give `rf`).
fn short_flags(args: &[String]) -> String {
    args.iter()
        .filter(|arg| arg.starts_with('-') && !arg.starts_with("--") && arg.len() > 1)
        .flat_map(|arg| arg[1..].chars())
        .collect()
}

/// Loose match for forbidden and dangerous patterns (see the module docs).
pub fn matches_loosely(pattern: &str, words: &[String]) -> bool {
    let want = pattern_words(pattern);
    let Some((name, rest)) = want.split_first() else {
        return false;
    };
    let Some((have_name, args)) = words.split_first() else {
        return false;
    };
    let have = normalise_name(have_name);
    // A command name the shell expands as a glob (`/bin/r[m]`, `/bin/r?`) matches every
    // name it could expand to.
    let is_pattern = have.contains(['*', '?', '[']);
    if have != *name && !(is_pattern && glob_matches(&have, name)) {
        return false;
    }
    let flags = short_flags(args);
    let mut position = 0;
    for word in rest {
        if word.starts_with('-') && !word.starts_with("--") && word.len() > 1 {
            // A short option cluster: every letter present somewhere.
            if !word[1..].chars().all(|letter| flags.contains(letter)) {
                return false;
            }
            continue;
        }
        match args[position..].iter().position(|arg| arg == word) {
            Some(found) => position += found + 1,
            None => return false,
        }
    }
    true
}

/// Exact-prefix match for allowed patterns.
pub fn matches_prefix(pattern: &str, words: &[String]) -> bool {
    let want = pattern_words(pattern);
    !want.is_empty()
        && want.len() <= words.len()
        && want
            .iter()
            .zip(words)
            .enumerate()
            .all(|(index, (want, have))| {
                if index == 0 {
                    normalise_name(have) == *want
                } else {
                    want == have
                }
            })
}

/// The first of `patterns` a command (or one of its wrappers) matches loosely.
pub fn first_loose_match<'p>(command: &SimpleCommand, patterns: &'p [String]) -> Option<&'p str> {
    patterns.iter().map(String::as_str).find(|pattern| {
        matches_loosely(pattern, &command.words)
            || command
                .wrappers
                .iter()
                .any(|wrapper| matches_loosely(pattern, wrapper))
    })
}

/// Why writing to a path is dangerous on its own (beyond lock-out), if it is.
pub fn dangerous_write(write: &Write) -> Option<String> {
    let path = write.path.as_str();
    let device = [
        "/dev/sd",
        "/dev/nvme",
        "/dev/vd",
        "/dev/xvd",
        "/dev/hd",
        "/dev/mmcblk",
        "/dev/md",
        "/dev/dm-",
        "/dev/mapper/",
        "/dev/disk/",
        "/dev/loop",
    ];
    let name = path.rsplit('/').next().unwrap_or(path);
    let startup = [
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".profile",
        ".bash_logout",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".kshrc",
        ".cshrc",
        ".tcshrc",
        ".inputrc",
    ];
    let what = if startup.contains(&name)
        || path.starts_with("~/.config/fish/")
        || path.starts_with("~/.config/systemd/")
        || path.starts_with("~/.ssh/rc")
        || path.starts_with("~/.ssh/environment")
        || path.starts_with("/var/spool/cron")
    {
        "a file whose commands run later (shell start-up file, scheduled job or user service)"
    } else if device.iter().any(|prefix| path.starts_with(prefix)) {
        "a disk device"
    } else if path.starts_with("/proc/") || path.starts_with("/sys/") {
        "kernel settings"
    } else if path == "/etc" || path.starts_with("/etc/") {
        "system configuration in /etc"
    } else if path.starts_with("/boot") {
        "the boot files"
    } else if [
        "/bin",
        "/sbin",
        "/lib",
        "/usr/bin",
        "/usr/sbin",
        "/usr/lib",
        "/lib64",
    ]
    .iter()
    .any(|dir| path == *dir || path.starts_with(&format!("{dir}/")))
    {
        "system programs"
    } else {
        return None;
    };
    Some(format!("{} writes to {path}: {what}", write.how))
}

/// A write to a lock-out path: the reason.
pub fn lockout_write(write: &Write) -> Option<String> {
    lockout_match(&write.path, write.subtree).map(|entry| {
        format!(
            "{} changes {}, which can lock you out of the server (protected: {entry}); this always asks",
            write.how, write.path
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn loose_and_prefix_matching() {
        assert!(matches_loosely(
            "git push",
            &words("git -C /repo push --force")
        ));
        assert!(matches_loosely("rm -rf", &words("rm -f -r x")));
        assert!(!matches_loosely("rm -rf", &words("rm -r x")));
        assert!(matches_loosely("/bin/rm", &words("rm x")));
        assert!(!matches_loosely(
            "docker rm",
            &words("docker run --rm alpine")
        ));
        assert!(matches_prefix(
            "systemctl status",
            &words("systemctl status nginx")
        ));
        assert!(!matches_prefix(
            "systemctl status",
            &words("systemctl restart status")
        ));
        assert!(!matches_prefix("ls", &words("lsof")));
    }
}
