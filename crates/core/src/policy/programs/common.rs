//! Small readers the spec hooks share: raw option scanning for the forms a table cannot say
//! (`tar czf`, `sudo FOO=1 cmd`), the system folders and the ssh names several families check.
//!
//! Everything here errs towards finding more: an option that may take a value is read as taking
//! one only where that can never hide a command or a path from the checks.

use super::args::Call;
use super::model::{Arity, OptDef, Runs};
use super::verdict::Verdict;

/// The words that are not options (nor option values named in `short_values`/`long_values`).
pub fn positional_args<'a>(
    args: &'a [String],
    short_values: &str,
    long_values: &[&str],
) -> Vec<&'a String> {
    let mut out = Vec::new();
    let mut index = 0;
    let mut options_done = false;
    while index < args.len() {
        let arg = &args[index];
        if options_done || !arg.starts_with('-') || arg == "-" {
            out.push(arg);
        } else if arg == "--" {
            options_done = true;
        } else if let Some(long) = arg.strip_prefix("--") {
            if !long.contains('=') && long_values.contains(&long) {
                index += 1;
            }
        } else if let Some(last) = arg.chars().last()
            && short_values.contains(last)
        {
            index += 1;
        }
        index += 1;
    }
    out
}

/// An opaque reading's options: each `--long` (before `=`), each whole word the spec lists
/// (`-ar`) and each letter of a `-cluster` must be one of the spec's spellings; after one of
/// `extensions` (iptables' `-m`, `-j`, `-p`), long options are that extension's own. Each option
/// found is judged by its class, as the generic reading would (`aptitude --log-file=F` writes F),
/// however the hook then judges the action.
pub fn listed_options(call: &Call<'_>, verdict: &mut Verdict, extensions: &[&str]) {
    let find = |spelling: &str| call.root.options.iter().find(|def| def.has(spelling));
    let display = call.display();
    let unknown = |verdict: &mut Verdict, spelling: &str| {
        verdict.unprovable(format!(
            "option {spelling} of {} is not known to kaiport's rules",
            call.name
        ));
    };
    let mut extended = false;
    for (index, arg) in call.args.iter().enumerate() {
        if arg == "--" {
            break;
        }
        if !arg.starts_with('-') || arg.len() < 2 || arg[1..].chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let (word, attached) = match arg.split_once('=') {
            Some((word, value)) => (word, Some(value)),
            None => (arg.as_str(), None),
        };
        if let Some(def) = find(word) {
            extended |= extensions.contains(&word);
            let next = call.args.get(index + 1).map(String::as_str);
            let value = match def.arity {
                Arity::Flag => None,
                Arity::Optional => attached,
                Arity::Value => attached.or(next),
            };
            let at = if attached.is_some() { index } else { index + 1 };
            judge_class(call, def, value, at, &display, verdict);
            continue;
        }
        if word.starts_with("--") {
            if !extended {
                unknown(verdict, word);
            }
            continue;
        }
        for (position, letter) in arg.char_indices().skip(1) {
            let spelling = format!("-{letter}");
            let Some(def) = find(&spelling) else {
                unknown(verdict, &spelling);
                break;
            };
            extended |= extensions.contains(&spelling.as_str());
            // `-D1000`, `-ofile`: the rest of the word is the value.
            if def.arity != Arity::Flag {
                let rest = &arg[position + letter.len_utf8()..];
                let (value, at) = if rest.is_empty() && def.arity == Arity::Value {
                    (call.args.get(index + 1).map(String::as_str), index + 1)
                } else {
                    (Some(rest).filter(|rest| !rest.is_empty()), index)
                };
                judge_class(call, def, value, at, &display, verdict);
                break;
            }
            judge_class(call, def, None, index, &display, verdict);
        }
    }
}

fn judge_class(
    call: &Call<'_>,
    def: &OptDef,
    value: Option<&str>,
    index: usize,
    display: &str,
    verdict: &mut Verdict,
) {
    let how = format!("{} {}", call.name, def.display());
    super::apply_class(&def.class, &how, value, Some(index), display, verdict);
}

/// Words that do not start with `-`.
pub fn positional(args: &[String]) -> Vec<&str> {
    args.iter()
        .filter(|arg| !arg.starts_with('-'))
        .map(String::as_str)
        .collect()
}

/// Short options of a command as one set (`-r -f` and `-rf` both give `rf`).
pub fn short_flags(args: &[String]) -> String {
    args.iter()
        .filter(|arg| arg.starts_with('-') && !arg.starts_with("--") && arg.len() > 1)
        .flat_map(|arg| arg[1..].chars())
        .collect()
}

pub fn has_short(args: &[String], letters: &str) -> bool {
    short_flags(args).contains(|c| letters.contains(c))
}

pub fn has_any(args: &[String], words: &[&str]) -> bool {
    args.iter().any(|arg| words.contains(&arg.as_str()))
}

/// `-x` in any short cluster, or the long spelling.
pub fn has_flag(args: &[String], short: char, long: &str) -> bool {
    args.iter().any(|arg| {
        arg == long
            || (arg.starts_with('-')
                && !arg.starts_with("--")
                && arg.len() > 1
                && arg[1..].contains(short))
    })
}

pub fn recursive(args: &[String]) -> bool {
    args.iter().any(|arg| {
        arg == "--recursive"
            || (arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(['r', 'R']))
    })
}

pub fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// Variable assignments at `from`: the index after them, and a note if one of them changes what
/// programs run (`LD_PRELOAD=…`, `PATH=…`).
pub fn skip_assignments(args: &[String], from: usize) -> (usize, Option<String>) {
    let mut index = from;
    let mut note = None;
    while index < args.len() && is_assignment(&args[index]) {
        let name = args[index].split('=').next().unwrap_or_default();
        if matches!(
            name,
            "PATH"
                | "LESSOPEN"
                | "LESSCLOSE"
                | "PAGER"
                | "MANPAGER"
                | "EDITOR"
                | "VISUAL"
                | "GIT_SSH_COMMAND"
                | "GIT_PAGER"
                | "GIT_CONFIG_PARAMETERS"
                | "LD_PRELOAD"
                | "LD_LIBRARY_PATH"
                | "LD_AUDIT"
                | "BASH_ENV"
                | "ENV"
                | "PROMPT_COMMAND"
                | "IFS"
        ) {
            note = Some(format!(
                "sets {name} for the command it runs, which changes what that command does"
            ));
        }
        index += 1;
    }
    (index, note)
}

/// Top-level system folders (and a few below them) whose recursive owner or mode change breaks
/// the system.
pub const SYSTEM_PATHS: &[&str] = &[
    "/",
    "/etc",
    "/usr",
    "/var",
    "/bin",
    "/sbin",
    "/lib",
    "/lib64",
    "/lib32",
    "/boot",
    "/home",
    "/root",
    "/opt",
    "/srv",
    "/dev",
    "/proc",
    "/sys",
    "/run",
    "/tmp",
    "/usr/bin",
    "/usr/lib",
    "/usr/sbin",
    "/usr/local",
    "/var/lib",
];

/// `/`, a top-level folder, or one of [`SYSTEM_PATHS`] (however many slashes it is written with).
pub fn is_system_folder(path: &str) -> bool {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return path.starts_with('/');
    }
    let normal = super::super::paths::normalise_path(trimmed, None);
    SYSTEM_PATHS.contains(&normal.as_str())
        || (normal.starts_with('/') && normal[1..].find('/').is_none() && normal.len() > 1)
}

pub fn is_ssh_unit(unit: &str) -> bool {
    let unit = unit
        .trim_end_matches(".service")
        .trim_end_matches(".socket");
    matches!(
        unit,
        "ssh" | "sshd" | "openssh" | "openssh-server" | "ssh@" | "sshd@"
    )
}

pub fn is_ssh_package(package: &str) -> bool {
    package.starts_with("openssh") || package == "ssh" || package == "sshd" || package == "dropbear"
}

/// Services whose stop or restart can cut off the network or SSH.
pub fn is_access_service(unit: &str) -> bool {
    let unit = unit.rsplit('/').next().unwrap_or(unit);
    is_ssh_unit(unit)
        || matches!(
            unit.trim_end_matches(".service"),
            "networking"
                | "network"
                | "NetworkManager"
                | "systemd-networkd"
                | "firewalld"
                | "ufw"
                | "nftables"
                | "iptables"
                | "ip6tables"
                | "netfilter-persistent"
                | "systemd-resolved"
                | "shorewall"
        )
}

/// Files that swallow what is written or moved to them.
pub fn is_sink(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/zero" | "/dev/full")
}

/// Sources that make a copy empty (or all zeros).
pub fn is_empty_source(path: &str) -> bool {
    matches!(path, "/dev/null" | "/dev/zero")
}

/// `cp`/`install`/`scp`/`rsync`: a copy of `/dev/null` or `/dev/zero` over a file empties it.
pub fn empties_destination(call: &Call<'_>, verdict: &mut Verdict) {
    let operands = positional(call.args);
    if operands.len() >= 2
        && operands
            .iter()
            .rev()
            .skip(1)
            .any(|path| is_empty_source(path))
    {
        verdict.dangerous(
            &call.display(),
            "copies an empty file over the destination, emptying it",
        );
    }
}

/// A command a program runs that running commands is not what the program is for (awk
/// `system()`, `less +!`, `vim -c ':!…'`): analysed as if typed, and asked.
pub fn run_any(
    verdict: &mut Verdict,
    text: &str,
    how: impl Into<String>,
    source: Option<usize>,
    _more: bool,
) {
    let how = how.into();
    verdict.runs_option(text, &how, &Runs::any(), source);
}

/// Values that switch a program-valued setting on or off rather than naming a program.
pub fn is_switch(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "" | "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0"
    )
}

/// SQL that destroys a database or table (`DROP DATABASE`, `TRUNCATE TABLE`, `DROP SCHEMA`).
pub fn destroys_data(sql: &str) -> bool {
    let words: Vec<String> = sql
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '(' | ')' | '`' | '"'))
        .filter(|word| !word.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    words.windows(2).any(|pair| {
        matches!(pair[0].as_str(), "drop" | "truncate")
            && matches!(
                pair[1].as_str(),
                "database" | "table" | "schema" | "owned" | "tablespace" | "collection"
            )
    }) || words
        .windows(2)
        .any(|pair| pair[0] == "truncate" && pair[1] != "table" && !pair[1].is_empty())
        || words.iter().any(|word| {
            word.starts_with("dropdatabase") || word.contains(".drop") || word == "flushall"
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_folders_and_sql() {
        for path in ["/", "//", "/etc", "/usr/", "/srv", "/var/lib"] {
            assert!(is_system_folder(path), "{path}");
        }
        for path in ["/srv/app", "app", "/etc/nginx"] {
            assert!(!is_system_folder(path), "{path}");
        }
        assert!(destroys_data("drop database app"));
        assert!(destroys_data("DROP TABLE users;"));
        assert!(destroys_data("truncate users"));
        assert!(destroys_data("db.dropDatabase()"));
        assert!(!destroys_data("select * from drops"));
    }
}
