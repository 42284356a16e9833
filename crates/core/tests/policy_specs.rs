//! Every program spec against the program itself: each option the installed program's `--help`
//! or manual page lists must be known to its spec (policy/programs/), or this test fails, naming
//! the options. An option a spec does not know asks on every use, so a missing option is a false
//! alarm at best; the test keeps the tables complete as the programs change.
//!
//! A program that is not installed here is skipped and said so; the ones Debian does not package
//! at all are listed in [`NOT_ON_DEBIAN`]. Specs still marked `@loose` are not checked (their
//! unknown options do not ask).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kaiport_core::policy::programs::{accepts_option, registry};
use std::process::Command;

/// Programs with a spec that Debian does not package (so the test cannot check them here).
const NOT_ON_DEBIAN: &[&str] = &["dnf", "yum", "mongosh", "helm", "kubectl", "oc"];

/// Where a spec's options are checked: the program, the subcommand path in its spec, and the
/// commands whose output lists the options.
struct Source {
    program: &'static str,
    path: &'static [&'static str],
    help: &'static [&'static [&'static str]],
    /// Words the help text shows like options that are not the program's (examples, values).
    ignore: &'static [&'static str],
}

const fn help(program: &'static str, commands: &'static [&'static [&'static str]]) -> Source {
    Source {
        program,
        path: &[],
        help: commands,
        ignore: &[],
    }
}

/// The help of one program: `PROGRAM --help` and `man PROGRAM`.
macro_rules! gnu {
    ($($program:literal),* $(,)?) => {
        [$(help($program, &[&[$program, "--help"], &["man", $program]])),*]
    };
}

fn sources() -> Vec<Source> {
    let mut all: Vec<Source> = gnu![
        "cat",
        "head",
        "tail",
        "wc",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "pwd",
        "uname",
        "id",
        "who",
        "tty",
        "nproc",
        "printenv",
        "seq",
        "cut",
        "tr",
        "nl",
        "tac",
        "fold",
        "fmt",
        "expand",
        "unexpand",
        "comm",
        "join",
        "paste",
        "md5sum",
        "sha256sum",
        "b2sum",
        "cksum",
        "sum",
        "base64",
        "basenc",
        "numfmt",
        "pathchk",
        "dircolors",
        "df",
        "du",
        "ls",
        "stat",
        "od",
        "pr",
        "ptx",
        "shuf",
        "date",
        "sort",
        "uniq",
        "tee",
        "cp",
        "mv",
        "install",
        "ln",
        "rm",
        "rmdir",
        "shred",
        "truncate",
        "touch",
        "mkdir",
        "mkfifo",
        "mknod",
        "mktemp",
        "split",
        "csplit",
        "chmod",
        "chown",
        "chgrp",
        "sync",
        "env",
        "nice",
        "timeout",
        "stdbuf",
        "chroot",
        "xargs",
        "tar",
        "gzip",
        "xz",
        "zstd",
        "bzip2",
        "rsync",
        "curl",
        "wget",
        "grep",
        "sed",
        "make",
        "flock",
        "setsid",
        "ionice",
        "taskset",
        "unshare",
        "nsenter",
        "chrt",
        "su",
        "runuser",
        "script",
        "watch",
        "psql",
        "dropdb",
        "mysql",
        "ansible",
        "journalctl",
        "systemctl",
        "loginctl",
        "timedatectl",
        "hostnamectl",
        "localectl",
        "systemd-run",
        "strace",
        "sysctl",
    ]
    .into_iter()
    .collect();
    all.extend([
        help("sudo", &[&["man", "sudo"]]),
        Source {
            program: "man",
            path: &[],
            help: &[&["man", "--help"], &["man", "man"]],
            // `-b` appears in the manual as an option of another program.
            ignore: &["-b"],
        },
        help("find", &[&["find", "--help"]]),
        Source {
            program: "zip",
            path: &[],
            help: &[&["man", "zip"]],
            // The manual's own notation for option syntax.
            ignore: &["--longoption", "--some"],
        },
        help("unzip", &[&["man", "unzip"]]),
        help("ssh", &[&["man", "ssh"]]),
        help("scp", &[&["man", "scp"]]),
        help("sftp", &[&["man", "sftp"]]),
        help("ssh-keygen", &[&["man", "ssh-keygen"]]),
        help("apt-get", &[&["man", "apt-get"]]),
        help("certbot", &[&["certbot", "--help", "all"]]),
        help("/usr/bin/time", &[&["/usr/bin/time", "--help"]]),
        help("chronic", &[&["man", "chronic"]]),
        help("crontab", &[&["man", "crontab"]]),
    ]);
    for sub in GIT_SUBCOMMANDS {
        all.push(Source {
            program: "git",
            path: std::slice::from_ref(sub),
            help: git_help(sub),
            // Every git subcommand takes -h for its usage; `--git-path` is rev-parse's, shown
            // in git-worktree's manual.
            ignore: &["-h", "--git-path"],
        });
    }
    all.push(help("git", &[&["git", "--help"]]));
    all
}

const GIT_SUBCOMMANDS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "blame",
    "describe",
    "shortlog",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "cat-file",
    "grep",
    "reflog",
    "show-ref",
    "branch",
    "tag",
    "remote",
    "config",
    "stash",
    "worktree",
    "submodule",
    "bisect",
    "add",
    "commit",
    "checkout",
    "switch",
    "restore",
    "reset",
    "merge",
    "rebase",
    "pull",
    "fetch",
    "push",
    "clone",
    "init",
    "rm",
    "mv",
    "clean",
    "cherry-pick",
    "revert",
    "am",
    "apply",
    "format-patch",
    "archive",
    "gc",
];

/// `git SUB -h` and `man git-SUB`.
fn git_help(sub: &'static str) -> &'static [&'static [&'static str]] {
    let page: &'static str = Box::leak(format!("git-{sub}").into_boxed_str());
    let commands: Vec<&'static [&'static str]> = vec![
        Box::leak(vec!["git", sub, "-h"].into_boxed_slice()),
        Box::leak(vec!["man", page].into_boxed_slice()),
    ];
    Box::leak(commands.into_boxed_slice())
}

fn installed(program: &str) -> bool {
    if program.starts_with('/') {
        return std::path::Path::new(program).exists();
    }
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|folder| folder.join(program).is_file())
    })
}

/// The text a help command prints (man pages without their overstrike formatting).
fn help_text(command: &[&str]) -> String {
    let Some((program, args)) = command.split_first() else {
        return String::new();
    };
    let output = Command::new(program)
        .args(args)
        .env("MANWIDTH", "250")
        .env("COLUMNS", "250")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("LC_ALL", "C.UTF-8")
        .output();
    let Ok(output) = output else {
        return String::new();
    };
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    strip_overstrike(&text)
}

/// `X\bX` (bold) and `_\bX` (underline) as man prints them without a terminal.
fn strip_overstrike(text: &str) -> String {
    let mut out: Vec<char> = Vec::with_capacity(text.len());
    for c in text.chars() {
        if c == '\u{8}' {
            out.pop();
        } else {
            out.push(c);
        }
    }
    out.into_iter().collect()
}

/// The option spellings a help text lists: on lines that start with an option, the words before
/// the description (two spaces or a tab) that look like options; `--[no-]x` gives both.
/// Manual pages put options at 5 (BSD) or 7 (GNU) columns and examples deeper; help texts put
/// them anywhere up to a tab or two.
fn listed_options(text: &str, man: bool) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let deepest = if man { 8 } else { 16 };
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line[..line.len() - trimmed.len()]
            .chars()
            .fold(0, |column, c| {
                if c == '\t' {
                    column / 8 * 8 + 8
                } else {
                    column + 1
                }
            });
        if !trimmed.starts_with('-') || indent > deepest {
            continue;
        }
        let head = trimmed
            .split("  ")
            .next()
            .unwrap_or_default()
            .split('\t')
            .next()
            .unwrap_or_default();
        for raw in head.split([' ', ',', '|']) {
            let token = raw.trim_start_matches('[');
            let (token, negatable) = match token.split_once("[no-]") {
                Some((dashes, rest)) => (format!("{dashes}{rest}"), true),
                None => (token.to_owned(), false),
            };
            let name: String = token
                .chars()
                .enumerate()
                .take_while(|(index, c)| {
                    (*index < 2 && *c == '-')
                        || c.is_ascii_alphanumeric()
                        || matches!(c, '-' | '_' | '.' | '?' | '@')
                })
                .map(|(_, c)| c)
                .collect();
            let name = name.trim_end_matches(['-', '.']).to_owned();
            let body = name.trim_start_matches('-');
            // `-NUM`, `--OPTION`: placeholders, not options.
            let placeholder = body.len() >= 3
                && body
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-');
            if body.is_empty()
                || placeholder
                || !name.starts_with('-')
                || body.chars().all(|c| c.is_ascii_digit())
                || name.starts_with("---")
            {
                continue;
            }
            if negatable && let Some(long) = name.strip_prefix("--") {
                found.push(format!("--no-{long}"));
            }
            if !found.contains(&name) {
                found.push(name);
            }
        }
    }
    found
}

#[test]
fn the_help_reader_finds_options() {
    let text = "Usage: x [OPTION]\n  -a, --all          do it\n      --color[=WHEN]  paint\n    -x, --[no-]exec <cmd>  run\n  -n NUM\tcount\n      --  end\n";
    assert_eq!(
        listed_options(text, false),
        ["-a", "--all", "--color", "-x", "--no-exec", "--exec", "-n"]
    );
}

#[test]
fn every_listed_option_is_known_to_its_spec() {
    let mut missing: Vec<String> = Vec::new();
    let mut skipped: Vec<&str> = Vec::new();
    for source in sources() {
        if !installed(source.program) {
            skipped.push(source.program);
            continue;
        }
        let program = source.program.rsplit('/').next().unwrap_or(source.program);
        for command in source.help {
            let text = help_text(command);
            for option in listed_options(&text, command.first() == Some(&"man")) {
                if source.ignore.contains(&option.as_str()) {
                    continue;
                }
                match accepts_option(program, source.path, &option) {
                    Some(true) => {}
                    Some(false) => {
                        let place = if source.path.is_empty() {
                            program.to_owned()
                        } else {
                            format!("{program} {}", source.path.join(" "))
                        };
                        let line = format!("{place}: {option} (from `{}`)", command.join(" "));
                        if !missing.contains(&line) {
                            missing.push(line);
                        }
                    }
                    None => missing.push(format!("{program}: no spec for {:?}", source.path)),
                }
            }
        }
    }
    skipped.sort_unstable();
    skipped.dedup();
    let unexpected: Vec<&&str> = skipped
        .iter()
        .filter(|program| !NOT_ON_DEBIAN.contains(program))
        .collect();
    if !unexpected.is_empty() {
        eprintln!("not installed here, so not checked: {unexpected:?}");
    }
    assert!(
        missing.is_empty(),
        "{} options the installed programs list are not known to their specs:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn every_spec_reads_and_names_its_family() {
    for entry in &registry().entries {
        assert!(
            entry.table.is_ok(),
            "{}: {:?}",
            entry.spec.family,
            entry.table
        );
        assert!(!entry.spec.names.is_empty());
    }
    assert!(registry().entries.len() >= 100);
}
