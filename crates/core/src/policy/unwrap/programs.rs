//! Programs as data: what a program does through its options and subcommands beyond its own
//! effect (the idea of Codex's execpolicy program specs: an allowed program is allowed only for
//! its own effect).
//!
//! For each program that can run other programs or write files through its options, this says
//! which options take a **command** (`git -c core.pager=…`, `tar --to-command=…`, `rsync -e …`,
//! `awk 'BEGIN{system("…")}'`, `vim -c ':!…'`, `docker exec CTR cmd…`, `kubectl exec POD -- cmd…`),
//! which take an **output path** (`curl -o`, `wget -O`, `tar -cf`, `less -o`, `openssl -out`,
//! `gcc -o`), and which cannot be followed (**unknown**: `docker run --privileged`, a bind mount of
//! `/`, `apt-get -c FILE`, `vim -S FILE`, an option the spec does not know where knowing matters).
//!
//! [`effects`] returns them; the walker in [`super::super::analysis`] analyses every command as if
//! it had been typed (a forbidden program in it denies, a dangerous or lock-out one asks, and it
//! must itself be on the allowed list for the line to be allowed by that list), checks every
//! output path like a redirection, and asks for every unknown. A program on the allowed list is
//! therefore allowed only for its own effect.
//!
//! Each spec is deliberately small and errs one way: an option that may take a command is read
//! as taking one; a form it cannot read is unknown (ask), never harmless.

use super::super::paths::{lockout_match, normalise_path};

/// A command a program runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Run {
    /// Shell text (`sh -c` style), analysed as if typed.
    Script(String),
    /// Arguments `start..end` (indices into the program's arguments): a command and its
    /// arguments, analysed like the words of a simple command.
    Args(usize, usize),
}

/// One command run through an option or subcommand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Embedded {
    pub run: Run,
    /// The program and option, for the reasons shown (`git -c core.pager`).
    pub how: String,
    /// The program adds arguments of its own (`rsync -e 'ssh'` gets the host and a command).
    pub more_args: bool,
    /// Runs on another host (`rsync --rsync-path`).
    pub remote: Option<String>,
    /// The argument the text came from: when it holds an expansion, the text is not known.
    pub source: Option<usize>,
}

/// A path a program writes through an option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub path: String,
    pub how: String,
    /// A folder written into (`wget -P`, `unzip -d`).
    pub subtree: bool,
}

/// What [`effects`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effects {
    pub runs: Vec<Embedded>,
    pub outputs: Vec<Output>,
    /// Reasons to ask: forms this analysis cannot follow.
    pub unknown: Vec<String>,
    /// Reads commands from its standard input (`vim -es`, `parallel` without a command).
    pub commands_on_stdin: bool,
}

impl Effects {
    fn script(&mut self, text: &str, how: impl Into<String>, source: Option<usize>, more: bool) {
        self.runs.push(Embedded {
            run: Run::Script(text.to_owned()),
            how: how.into(),
            more_args: more,
            remote: None,
            source,
        });
    }

    fn args(&mut self, start: usize, end: usize, how: impl Into<String>) {
        if start < end {
            self.runs.push(Embedded {
                run: Run::Args(start, end),
                how: how.into(),
                more_args: false,
                remote: None,
                source: None,
            });
        }
    }

    fn output(&mut self, path: &str, how: impl Into<String>, subtree: bool) {
        if path.is_empty() || path == "-" {
            return; // standard output
        }
        self.outputs.push(Output {
            path: path.to_owned(),
            how: how.into(),
            subtree,
        });
    }

    fn unknown(&mut self, reason: impl Into<String>) {
        let reason = reason.into();
        if !self.unknown.contains(&reason) {
            self.unknown.push(reason);
        }
    }
}

/// How an option's value is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Use {
    /// A command line the program runs; `more`: it appends arguments of its own.
    Command { more: bool },
    /// A command line run on the other host.
    RemoteCommand,
    /// A file the program writes.
    Output,
    /// A folder the program writes into.
    OutputDir,
    /// Cannot be followed: ask with this reason.
    Unknown(&'static str),
    /// A value of no concern here (listed so the options after it are read right).
    Value,
}

/// One option of a spec: its spellings (`-o`, `--output`; single-dash long names such as
/// openssl's `-out` match only whole) and what its value is.
type Opt = (&'static [&'static str], Use);

/// A program described as data (see the module docs).
struct Spec {
    names: &'static [&'static str],
    options: &'static [Opt],
}

const COMMAND: Use = Use::Command { more: false };
const COMMAND_MORE: Use = Use::Command { more: true };

/// The option tables. Programs with subcommands or inline programs (git, docker, kubectl, apt,
/// vim, less, awk, sed, parallel, curl -O, wget, tar -f, interpreters) have functions below.
const SPECS: &[Spec] = &[
    Spec {
        names: &["tar", "gtar", "bsdtar"],
        options: &[
            (&["--to-command"], COMMAND),
            (&["--use-compress-program", "-I"], COMMAND),
            (&["--info-script", "--new-volume-script", "-F"], COMMAND),
            (&["--rsh-command"], COMMAND_MORE),
            (
                &[
                    "-C",
                    "--directory",
                    "-T",
                    "--files-from",
                    "-X",
                    "--exclude-from",
                ],
                Use::Value,
            ),
            (
                &[
                    "-b",
                    "--blocking-factor",
                    "-L",
                    "--tape-length",
                    "-H",
                    "--format",
                ],
                Use::Value,
            ),
            (
                &["-V", "--label", "-N", "--newer", "--after-date", "-g"],
                Use::Value,
            ),
            (
                &["--listed-incremental", "-K", "--starting-file"],
                Use::Value,
            ),
        ],
    },
    Spec {
        names: &["rsync"],
        options: &[
            (&["-e", "--rsh"], COMMAND_MORE),
            (&["--rsync-path"], Use::RemoteCommand),
            (
                &["-M", "--remote-option"],
                Use::Unknown("passes options to the rsync on the other side"),
            ),
            (
                &["--log-file", "--write-batch", "--only-write-batch"],
                Use::Output,
            ),
            (
                &["--backup-dir", "--partial-dir", "-T", "--temp-dir"],
                Use::OutputDir,
            ),
            (
                &[
                    "-f",
                    "--filter",
                    "-B",
                    "--block-size",
                    "--exclude",
                    "--include",
                ],
                Use::Value,
            ),
            (
                &[
                    "--exclude-from",
                    "--include-from",
                    "--files-from",
                    "--chmod",
                ],
                Use::Value,
            ),
            (
                &[
                    "--chown",
                    "--usermap",
                    "--groupmap",
                    "--port",
                    "--password-file",
                ],
                Use::Value,
            ),
        ],
    },
    Spec {
        names: &["sort"],
        options: &[
            (&["--compress-program"], COMMAND),
            (
                &["-S", "--buffer-size", "-T", "--temporary-directory", "-t"],
                Use::Value,
            ),
            (
                &["--field-separator", "-k", "--key", "--parallel"],
                Use::Value,
            ),
        ],
    },
    Spec {
        names: &["rg"],
        options: &[(&["--pre"], COMMAND_MORE), (&["--hostname-bin"], COMMAND)],
    },
    Spec {
        names: &["ag"],
        options: &[(&["--pager"], COMMAND)],
    },
    Spec {
        names: &["man"],
        options: &[
            (&["-P", "--pager"], COMMAND),
            (&["-H", "--html"], COMMAND_MORE),
            (
                &["-C", "--config-file"],
                Use::Unknown("reads man's configuration from a file"),
            ),
            (
                &[
                    "-M",
                    "--manpath",
                    "-S",
                    "-s",
                    "--sections",
                    "-m",
                    "--systems",
                ],
                Use::Value,
            ),
            (
                &["-L", "--locale", "-R", "--recode", "-E", "--encoding", "-p"],
                Use::Value,
            ),
            (
                &["--preprocessor", "-e", "--extension", "-r", "--prompt"],
                Use::Value,
            ),
        ],
    },
    Spec {
        names: &["zip"],
        options: &[
            (&["-TT", "--unzip-command"], COMMAND_MORE),
            (&["-O", "--output-file"], Use::Output),
            (&["-b", "--temp-path"], Use::OutputDir),
        ],
    },
    Spec {
        names: &["unzip"],
        options: &[(&["-d"], Use::OutputDir)],
    },
    Spec {
        names: &["scp"],
        options: &[
            (&["-S"], COMMAND_MORE),
            (
                &["-F"],
                Use::Unknown("reads an ssh configuration file, which can name programs to run"),
            ),
            (
                &["-c", "-i", "-J", "-l", "-P", "-o", "-D", "-X"],
                Use::Value,
            ),
        ],
    },
    Spec {
        names: &["sftp"],
        options: &[
            (&["-S"], COMMAND_MORE),
            (&["-D"], COMMAND),
            (
                &["-b"],
                Use::Unknown(
                    "runs sftp commands from a batch file, which can run local commands (`!`)",
                ),
            ),
            (
                &["-F"],
                Use::Unknown("reads an ssh configuration file, which can name programs to run"),
            ),
            (
                &["-B", "-c", "-i", "-J", "-l", "-o", "-P", "-R", "-s", "-X"],
                Use::Value,
            ),
        ],
    },
    Spec {
        names: &["ssh"],
        options: &[
            (
                &["-F"],
                Use::Unknown("reads an ssh configuration file, which can name programs to run"),
            ),
            (&["-E"], Use::Output),
        ],
    },
    Spec {
        names: &["tcpdump"],
        options: &[
            (&["-z"], COMMAND_MORE),
            (&["-w"], Use::Output),
            (
                &[
                    "-c", "-C", "-E", "-F", "-G", "-i", "-j", "-m", "-M", "-r", "-s", "-T",
                ],
                Use::Value,
            ),
            (
                &[
                    "-V",
                    "-W",
                    "-y",
                    "-Z",
                    "-B",
                    "-Q",
                    "--interface",
                    "--snapshot-length",
                ],
                Use::Value,
            ),
        ],
    },
    Spec {
        names: &["openssl"],
        options: &[(&["-out", "-keyout"], Use::Output)],
    },
    Spec {
        names: &["ssh-keygen"],
        options: &[
            (&["-f"], Use::Output),
            (
                &[
                    "-a", "-b", "-C", "-D", "-E", "-F", "-G", "-I", "-J", "-j", "-K", "-M",
                ],
                Use::Value,
            ),
            (
                &[
                    "-m", "-N", "-n", "-O", "-P", "-r", "-s", "-t", "-V", "-w", "-Y", "-z", "-Z",
                ],
                Use::Value,
            ),
        ],
    },
    Spec {
        names: &["strace", "ltrace"],
        options: &[
            (&["-o", "--output"], Use::Output),
            (
                &[
                    "-a", "-b", "-e", "-E", "-I", "-O", "-p", "-P", "-s", "-S", "-u", "-U", "-X",
                ],
                Use::Value,
            ),
        ],
    },
    Spec {
        names: &["gcc", "g++", "cc", "c++", "clang", "clang++", "rustc"],
        options: &[(&["-o"], Use::Output)],
    },
    Spec {
        names: &["dpkg"],
        options: &[
            (&["--pre-invoke", "--post-invoke"], COMMAND),
            (
                &["--instdir", "--root", "--admindir"],
                Use::Unknown("points dpkg at another system root"),
            ),
        ],
    },
    Spec {
        names: &["gdb"],
        options: &[(
            &["-ex", "--eval-command", "-x", "--command", "-iex", "-ix"],
            Use::Unknown("runs debugger commands, which can start programs"),
        )],
    },
    Spec {
        names: &["nc", "ncat", "netcat", "nc.traditional", "nc.openbsd"],
        options: &[
            (&["-e", "--exec"], COMMAND),
            (&["-c", "--sh-exec"], COMMAND),
            (
                &["--lua-exec"],
                Use::Unknown("runs a Lua program for each connection"),
            ),
        ],
    },
];

/// The effects of one command's options and subcommands (see the module docs).
pub fn effects(name: &str, args: &[String]) -> Effects {
    let mut fx = Effects::default();
    if let Some(spec) = SPECS.iter().find(|spec| spec.names.contains(&name)) {
        scan(name, args, spec.options, &mut fx);
    }
    match name {
        "git" => git(args, &mut fx),
        "docker" | "podman" | "nerdctl" => docker(name, args, &mut fx),
        "kubectl" | "oc" => kubectl(name, args, &mut fx),
        "apt" | "apt-get" | "aptitude" | "apt-cache" | "apt-mark" => apt(name, args, &mut fx),
        "vi" | "vim" | "nvim" | "view" | "ex" | "rvim" | "rview" | "vimdiff" | "vim.tiny"
        | "vim.basic" | "gvim" => vim(name, args, &mut fx),
        "less" | "more" | "most" => less(name, args, &mut fx),
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => awk(name, args, &mut fx),
        "sed" | "gsed" => sed(args, &mut fx),
        "parallel" => parallel(args, &mut fx),
        "curl" => curl(args, &mut fx),
        "wget" => wget(args, &mut fx),
        "tar" | "gtar" | "bsdtar" => tar(name, args, &mut fx),
        "ssh" | "scp" | "sftp" => ssh_options(name, args, &mut fx),
        "env" => env_split(args, &mut fx),
        "sqlite3" => sqlite(args, &mut fx),
        "socat" => socat(args, &mut fx),
        _ => {}
    }
    if let Some(code) = inline_code(name, args) {
        system_calls(name, &code, &mut fx);
    }
    fx
}

/// The value of the option at `index` (`--long=value`, `--long value`, `-xvalue`, `-x value`),
/// with the index of the argument it came from.
fn scan(name: &str, args: &[String], options: &[Opt], fx: &mut Effects) {
    let find = |spelling: &str| {
        options
            .iter()
            .find(|(names, _)| names.contains(&spelling))
            .map(|(_, used)| *used)
    };
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        if arg == "--" {
            break;
        }
        let mut found: Option<(Use, String, String, usize)> = None;
        if let Some(used) = find(arg) {
            // Whole spelling (`-o`, `--output`, `-out`, `-TT`): the value is the next argument.
            if let Some(value) = args.get(index + 1) {
                found = Some((used, arg.clone(), value.clone(), index + 1));
            }
            index += 1;
        } else if arg.starts_with("--") {
            if let Some((option, value)) = arg.split_once('=')
                && let Some(used) = find(option)
            {
                found = Some((used, option.to_owned(), value.to_owned(), index));
            }
        } else if arg.len() > 2 && arg.starts_with('-') {
            // A cluster: the first letter that takes a value takes the rest of the word, or
            // the next argument.
            for (position, letter) in arg.char_indices().skip(1) {
                let spelling = format!("-{letter}");
                let Some(used) = find(&spelling) else {
                    continue;
                };
                let rest = &arg[position + letter.len_utf8()..];
                if rest.is_empty() {
                    if let Some(value) = args.get(index + 1) {
                        found = Some((used, spelling, value.clone(), index + 1));
                    }
                    index += 1;
                } else {
                    found = Some((used, spelling, rest.to_owned(), index));
                }
                break;
            }
        }
        if let Some((used, option, value, source)) = found {
            let how = format!("{name} {option}");
            match used {
                Use::Command { more } => fx.script(&value, how, Some(source), more),
                Use::RemoteCommand => {
                    fx.script(&value, how.clone(), Some(source), true);
                    if let Some(last) = fx.runs.last_mut() {
                        last.remote = Some(format!("the other side of {how}"));
                    }
                }
                Use::Output => fx.output(&value, how, false),
                Use::OutputDir => fx.output(&value, how, true),
                Use::Unknown(reason) => fx.unknown(format!("`{how}` {reason}")),
                Use::Value => {}
            }
        }
        index += 1;
    }
}

/// Values that switch a program-valued setting on or off rather than naming a program.
fn is_switch(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "" | "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0"
    )
}

/// git: `-c key=value` settings that name programs, aliases, `ext::` transports, and the
/// subcommands and options that run commands or write files.
fn git(args: &[String], fx: &mut Effects) {
    let mut aliases: Vec<(String, String)> = Vec::new();
    let mut index = 0;
    while index < args.len() {
        let arg = args[index].as_str();
        match arg {
            "-c" => {
                if let Some(setting) = args.get(index + 1) {
                    git_setting(setting, index + 1, &mut aliases, fx);
                }
                index += 2;
            }
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix" => index += 2,
            _ if arg.starts_with("--config-env") => {
                fx.unknown(
                    "`git --config-env` takes a setting from a variable, which can name a program",
                );
                index += 1 + usize::from(!arg.contains('='));
            }
            _ if arg.starts_with("--exec-path=") => {
                fx.unknown("`git --exec-path` makes git run its commands from another folder");
                index += 1;
            }
            _ if arg.starts_with("-c") && arg.len() > 2 => {
                git_setting(&arg[2..], index, &mut aliases, fx);
                index += 1;
            }
            _ if arg.starts_with('-') => index += 1,
            _ => break,
        }
    }
    for (position, arg) in args.iter().enumerate() {
        // `ext::` runs its text as a command (with `%` escapes) on clone, fetch, push, …
        if let Some(command) = arg.strip_prefix("ext::") {
            fx.script(
                &command.replace("% ", " "),
                "git ext:: transport",
                Some(position),
                true,
            );
        }
    }
    let Some(subcommand) = args.get(index) else {
        return;
    };
    let rest = &args[index + 1..];
    let at = |offset: usize| index + 1 + offset;
    if let Some((_, value)) = aliases.iter().find(|(name, _)| name == subcommand) {
        // A git alias (not `!`) expands to another git command line.
        let mut line = format!("git {value}");
        for word in rest {
            line.push(' ');
            line.push_str(word);
        }
        fx.script(&line, format!("git alias {subcommand}"), None, false);
    }
    for (offset, arg) in rest.iter().enumerate() {
        for option in ["--upload-pack", "--receive-pack", "--exec"] {
            if let Some(value) = arg.strip_prefix(option).and_then(|v| v.strip_prefix('=')) {
                fx.script(
                    value,
                    format!("git {subcommand} {option}"),
                    Some(at(offset)),
                    true,
                );
            } else if arg == option
                && let Some(value) = rest.get(offset + 1)
            {
                fx.script(
                    value,
                    format!("git {subcommand} {option}"),
                    Some(at(offset + 1)),
                    true,
                );
            }
        }
        if let Some(path) = arg.strip_prefix("--output=") {
            fx.output(path, format!("git {subcommand} --output"), false);
        }
    }
    let value_of = |options: &[&str]| -> Vec<(String, usize)> {
        let mut values = Vec::new();
        for (offset, arg) in rest.iter().enumerate() {
            for option in options {
                if arg == option {
                    if let Some(value) = rest.get(offset + 1) {
                        values.push((value.clone(), at(offset + 1)));
                    }
                } else if let Some(value) = arg.strip_prefix(&format!("{option}=")) {
                    values.push((value.to_owned(), at(offset)));
                } else if !option.starts_with("--")
                    && arg.len() > 2
                    && let Some(value) = arg.strip_prefix(option)
                {
                    values.push((value.to_owned(), at(offset)));
                }
            }
        }
        values
    };
    match subcommand.as_str() {
        "clone" | "fetch" | "pull" | "ls-remote" | "archive" => {
            for (value, source) in value_of(&["-u"]) {
                fx.script(&value, format!("git {subcommand} -u"), Some(source), true);
            }
        }
        "rebase" => {
            for (value, source) in value_of(&["-x", "--exec"]) {
                fx.script(&value, "git rebase --exec", Some(source), false);
            }
        }
        "difftool" | "mergetool" => {
            for (value, source) in value_of(&["-x", "--extcmd"]) {
                fx.script(
                    &value,
                    format!("git {subcommand} --extcmd"),
                    Some(source),
                    true,
                );
            }
            if !value_of(&["-t", "--tool"]).is_empty() {
                fx.unknown(format!(
                    "`git {subcommand} --tool` runs a tool named in git's configuration"
                ));
            }
        }
        "filter-branch" => {
            let filters = [
                "--env-filter",
                "--tree-filter",
                "--index-filter",
                "--parent-filter",
                "--msg-filter",
                "--commit-filter",
                "--tag-name-filter",
            ];
            for (value, source) in value_of(&filters) {
                fx.script(&value, "git filter-branch", Some(source), false);
            }
        }
        "grep"
            if rest
                .iter()
                .any(|arg| arg.starts_with("-O") || arg.starts_with("--open-files-in-pager")) =>
        {
            fx.unknown("`git grep -O` opens the matches in a pager program");
        }
        "submodule" => {
            if let Some(position) = rest.iter().position(|arg| arg == "foreach") {
                let start = position
                    + 1
                    + rest[position + 1..]
                        .iter()
                        .take_while(|arg| arg.starts_with('-'))
                        .count();
                fx.script(
                    &rest[start..].join(" "),
                    "git submodule foreach",
                    None,
                    false,
                );
            }
        }
        "bisect" if rest.first().is_some_and(|arg| arg == "run") => {
            fx.args(at(1), args.len(), "git bisect run");
        }
        "format-patch" => {
            for (value, _) in value_of(&["-o", "--output-directory"]) {
                fx.output(&value, "git format-patch -o", true);
            }
        }
        "config" => {
            // Setting a program-valued key: a later git command runs it.
            let positional: Vec<&String> =
                rest.iter().filter(|arg| !arg.starts_with('-')).collect();
            if let [key, ..] = positional.as_slice()
                && positional.len() >= 2
                && git_program_key(&key.to_ascii_lowercase()).is_some()
            {
                fx.unknown(format!(
                    "`git config {key}` sets a program that later git commands run"
                ));
            }
        }
        _ => {}
    }
}

/// What a git setting's value is, when it names a program.
enum GitKey {
    Program { more: bool },
    Folder,
}

fn git_program_key(key: &str) -> Option<GitKey> {
    if key == "core.hookspath" {
        return Some(GitKey::Folder);
    }
    if key.starts_with("include.") || key.starts_with("includeif.") {
        return Some(GitKey::Folder);
    }
    if key == "core.pager" || key.starts_with("pager.") {
        return Some(GitKey::Program { more: false });
    }
    let program_suffixes = [
        "sshcommand",
        "gitproxy",
        "editor",
        "fsmonitor",
        ".external",
        ".textconv",
        ".clean",
        ".smudge",
        ".process",
        ".driver",
        ".command",
        ".cmd",
        ".program",
        "askpass",
        ".helper",
        "proxycommand",
        ".sendmailcmd",
        ".smtpserver",
    ];
    program_suffixes
        .iter()
        .any(|suffix| key.ends_with(suffix))
        .then_some(GitKey::Program { more: true })
}

fn git_setting(
    setting: &str,
    source: usize,
    aliases: &mut Vec<(String, String)>,
    fx: &mut Effects,
) {
    let (key, value) = setting.split_once('=').unwrap_or((setting, ""));
    let key = key.to_ascii_lowercase();
    if let Some(alias) = key.strip_prefix("alias.") {
        match value.strip_prefix('!') {
            Some(command) => fx.script(
                command,
                format!("git -c alias.{alias}=!…"),
                Some(source),
                true,
            ),
            None => aliases.push((alias.to_owned(), value.to_owned())),
        }
        return;
    }
    match git_program_key(&key) {
        Some(GitKey::Folder) => fx.unknown(format!(
            "`git -c {key}` makes git read hooks or settings from another place, which can run programs"
        )),
        Some(GitKey::Program { more }) => {
            if key.ends_with(".helper") && !value.starts_with('!') && !value.starts_with('/') {
                if !value.is_empty() {
                    fx.unknown(format!("`git -c {key}={value}` runs a credential helper program"));
                }
                return;
            }
            if !is_switch(value) {
                let command = value.strip_prefix('!').unwrap_or(value);
                fx.script(command, format!("git -c {key}"), Some(source), more);
            }
        }
        None => {}
    }
}

/// Host folders whose bind mount gives a container the host (or a lock-out file).
fn risky_host_path(path: &str) -> bool {
    let path = normalise_path(path, None);
    if !path.starts_with('/') && !path.starts_with('~') {
        return false; // a named volume
    }
    let system = [
        "/",
        "/etc",
        "/root",
        "/home",
        "/boot",
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/lib64",
        "/proc",
        "/sys",
        "/dev",
        "/run",
        "/var/run",
        "/var/lib",
        "/var/spool",
    ];
    system.contains(&path.as_str())
        || path.contains("docker.sock")
        || path.contains("containerd.sock")
        || path.starts_with("/etc/")
        || path.starts_with("/boot/")
        || path.starts_with("/usr/")
        || path.starts_with("/bin/")
        || path.starts_with("/sbin/")
        || path.starts_with("/lib")
        || path.starts_with("/root/")
        || path.starts_with("/proc/")
        || path.starts_with("/sys/")
        || path.starts_with("/dev/")
        || path == "~"
        || lockout_match(&path, true).is_some()
}

/// docker run/create/exec value options (everything else there is a flag or unknown).
const DOCKER_RUN_VALUES: &[&str] = &[
    "-a",
    "--attach",
    "--add-host",
    "--annotation",
    "--blkio-weight",
    "--blkio-weight-device",
    "--cgroup-parent",
    "--cidfile",
    "--cpu-period",
    "--cpu-quota",
    "--cpu-rt-period",
    "--cpu-rt-runtime",
    "-c",
    "--cpu-shares",
    "--cpus",
    "--cpuset-cpus",
    "--cpuset-mems",
    "--detach-keys",
    "--device-cgroup-rule",
    "--device-read-bps",
    "--device-read-iops",
    "--device-write-bps",
    "--device-write-iops",
    "--dns",
    "--dns-option",
    "--dns-search",
    "--domainname",
    "-e",
    "--env",
    "--env-file",
    "--expose",
    "--gpus",
    "--group-add",
    "--health-cmd",
    "--health-interval",
    "--health-retries",
    "--health-start-period",
    "--health-timeout",
    "-h",
    "--hostname",
    "--ip",
    "--ip6",
    "--isolation",
    "--kernel-memory",
    "-l",
    "--label",
    "--label-file",
    "--link",
    "--link-local-ip",
    "--log-driver",
    "--log-opt",
    "--mac-address",
    "-m",
    "--memory",
    "--memory-reservation",
    "--memory-swap",
    "--memory-swappiness",
    "--name",
    "--network",
    "--net",
    "--network-alias",
    "--oom-score-adj",
    "--pids-limit",
    "--platform",
    "-p",
    "--publish",
    "--pull",
    "--restart",
    "--runtime",
    "--shm-size",
    "--stop-signal",
    "--stop-timeout",
    "--storage-opt",
    "--sysctl",
    "--tmpfs",
    "--ulimit",
    "-u",
    "--user",
    "-w",
    "--workdir",
    "--volume-driver",
    "--volumes-from",
    "--log-level",
    "--pod",
    "--arch",
    "--os",
    "--variant",
    "--userns",
    "--uts",
    "--ipc",
    "--pid",
    "--cgroupns",
    "--entrypoint",
    "-v",
    "--volume",
    "--mount",
    "--device",
    "--cap-add",
    "--cap-drop",
    "--security-opt",
];

const DOCKER_RUN_FLAGS: &[&str] = &[
    "-d",
    "--detach",
    "-i",
    "--interactive",
    "-t",
    "--tty",
    "-it",
    "-ti",
    "-dit",
    "-itd",
    "-id",
    "-td",
    "-dt",
    "--rm",
    "--init",
    "-P",
    "--publish-all",
    "--read-only",
    "-q",
    "--quiet",
    "--sig-proxy",
    "--no-healthcheck",
    "--oom-kill-disable",
    "--disable-content-trust",
    "--privileged",
    "--help",
    "--replace",
    "--tls-verify",
];

/// docker/podman: what runs in containers (analysed as typed), bind mounts of the host, and
/// options that give a container the host.
fn docker(name: &str, args: &[String], fx: &mut Effects) {
    // Global options before the subcommand.
    let global_values = [
        "-H",
        "--host",
        "--config",
        "--context",
        "-c",
        "-l",
        "--log-level",
        "--tlscacert",
        "--tlscert",
        "--tlskey",
        "--url",
        "--connection",
        "--identity",
        "--root",
        "--runroot",
    ];
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if global_values.contains(&arg.as_str()) {
            index += 2;
        } else if arg.starts_with('-') {
            index += 1;
        } else {
            break;
        }
    }
    let Some(mut subcommand) = args.get(index).map(String::as_str) else {
        return;
    };
    if matches!(subcommand, "container" | "compose")
        && let Some(next) = args.get(index + 1)
    {
        let compose = subcommand == "compose";
        index += 1;
        subcommand = next.as_str();
        if compose && matches!(subcommand, "exec" | "run") {
            return docker_compose(name, subcommand, args, index + 1, fx);
        }
    }
    let how = format!("{name} {subcommand}");
    match subcommand {
        "run" | "create" | "exec" => {
            let mut position = index + 1;
            while let Some(arg) = args.get(position) {
                if !arg.starts_with('-') || arg == "-" {
                    break;
                }
                if arg == "--" {
                    position += 1;
                    break;
                }
                let (option, attached) = match arg.split_once('=') {
                    Some((option, value)) if option.starts_with("--") => {
                        (option, Some(value.to_owned()))
                    }
                    _ => (arg.as_str(), None),
                };
                let takes_value = DOCKER_RUN_VALUES.contains(&option);
                let value = if takes_value && attached.is_none() {
                    position += 1;
                    args.get(position).cloned()
                } else {
                    attached
                };
                if !takes_value && !DOCKER_RUN_FLAGS.contains(&option) {
                    fx.unknown(format!(
                        "`{how} {option}` is an option this analysis does not know, so what runs cannot be told"
                    ));
                }
                docker_option(&how, option, value.as_deref().unwrap_or_default(), fx);
                position += 1;
            }
            // exec: CONTAINER CMD…; run/create: IMAGE [CMD…].
            if args.get(position).is_some() {
                fx.args(
                    position + 1,
                    args.len(),
                    format!("{how} (in the container)"),
                );
            }
        }
        "cp" => {
            let positional: Vec<&String> = args[index + 1..]
                .iter()
                .filter(|a| !a.starts_with('-'))
                .collect();
            if let Some(destination) = positional.last()
                && positional.len() >= 2
                && !destination.contains(':')
            {
                fx.output(destination, how, true);
            }
        }
        _ => {}
    }
}

fn docker_option(how: &str, option: &str, value: &str, fx: &mut Effects) {
    match option {
        "-v" | "--volume" => {
            let source = value.split(':').next().unwrap_or_default();
            if source.contains('$') || source.contains('`') {
                fx.unknown(format!(
                    "`{how} -v {value}` mounts a host folder only known when it runs"
                ));
            } else if risky_host_path(source) {
                fx.unknown(format!(
                    "`{how} -v {value}` mounts the host's {source} into the container, where anything running can change it"
                ));
            }
        }
        "--mount" => {
            let source = value.split(',').find_map(|part| {
                part.strip_prefix("source=")
                    .or_else(|| part.strip_prefix("src="))
            });
            if let Some(source) = source
                && (risky_host_path(source) || source.contains('$'))
            {
                fx.unknown(format!(
                    "`{how} --mount {value}` mounts the host's {source} into the container"
                ));
            }
        }
        "--privileged" => fx.unknown(format!(
            "`{how} --privileged` gives the container the whole host"
        )),
        "--pid" | "--ipc" | "--uts" | "--userns" | "--cgroupns" | "--network" | "--net"
            if value == "host" && option != "--network" && option != "--net" =>
        {
            fx.unknown(format!(
                "`{how} {option}=host` shares the host's {option} namespace with the container"
            ));
        }
        "--cap-add" | "--device" => fx.unknown(format!(
            "`{how} {option} {value}` gives the container host powers"
        )),
        "--security-opt" if value.contains("unconfined") || value.contains("disable") => {
            fx.unknown(format!(
                "`{how} --security-opt {value}` turns off the container's confinement"
            ));
        }
        "--entrypoint" => fx.script(value, format!("{how} --entrypoint"), None, true),
        _ => {}
    }
}

fn docker_compose(name: &str, subcommand: &str, args: &[String], from: usize, fx: &mut Effects) {
    let values = [
        "-e",
        "--env",
        "-u",
        "--user",
        "-w",
        "--workdir",
        "--index",
        "--name",
        "-p",
        "--publish",
        "-l",
        "--label",
        "-v",
        "--volume",
        "--entrypoint",
    ];
    let how = format!("{name} compose {subcommand}");
    let mut position = from;
    while let Some(arg) = args.get(position) {
        if !arg.starts_with('-') {
            break;
        }
        let (option, attached) = match arg.split_once('=') {
            Some((option, value)) => (option, Some(value.to_owned())),
            None => (arg.as_str(), None),
        };
        let value = if values.contains(&option) && attached.is_none() {
            position += 1;
            args.get(position).cloned()
        } else {
            attached
        };
        docker_option(&how, option, value.as_deref().unwrap_or_default(), fx);
        position += 1;
    }
    if args.get(position).is_some() {
        fx.args(
            position + 1,
            args.len(),
            format!("{how} (in the container)"),
        );
    }
}

/// kubectl/oc: commands run in pods (`exec`, `run`, `debug` after `--`), and `cp` to this host.
fn kubectl(name: &str, args: &[String], fx: &mut Effects) {
    let Some(subcommand) = args.iter().find(|arg| {
        matches!(
            arg.as_str(),
            "exec" | "run" | "debug" | "cp" | "attach" | "plugin"
        )
    }) else {
        return;
    };
    let how = format!("{name} {subcommand}");
    let separator = args.iter().position(|arg| arg == "--");
    match subcommand.as_str() {
        "exec" | "run" | "debug" => match separator {
            Some(position) => fx.args(position + 1, args.len(), format!("{how} (in the pod)")),
            None if subcommand == "exec" => fx.unknown(format!(
                "`{how}` without `--`: which words are the command run in the pod cannot be told"
            )),
            None => {}
        },
        "cp" => {
            let positional: Vec<&String> = args
                .iter()
                .filter(|a| !a.starts_with('-'))
                .skip(1)
                .collect();
            if let Some(destination) = positional.last()
                && positional.len() >= 2
                && !destination.contains(':')
            {
                fx.output(destination, how, true);
            }
        }
        _ => {}
    }
}

/// apt-get and friends: `-o Key=Value` settings that run commands (`DPkg::Pre-Invoke`,
/// `APT::Update::Post-Invoke`, `DPkg::Pre-Install-Pkgs`), and settings or files that cannot be
/// followed.
fn apt(name: &str, args: &[String], fx: &mut Effects) {
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        let setting = if arg == "-o" || arg == "--option" {
            index += 1;
            args.get(index).map(|value| (value.clone(), index))
        } else if let Some(value) = arg.strip_prefix("--option=") {
            Some((value.to_owned(), index))
        } else if let Some(value) = arg.strip_prefix("-o").filter(|value| !value.is_empty()) {
            Some((value.to_owned(), index))
        } else {
            if arg == "-c" || arg.starts_with("--config-file") {
                fx.unknown(format!(
                    "`{name} {arg}` reads settings from a file, which can name commands to run"
                ));
            }
            None
        };
        if let Some((setting, source)) = setting {
            let (key, value) = setting.split_once('=').unwrap_or((setting.as_str(), ""));
            let lowered = key.to_ascii_lowercase();
            if lowered.contains("invoke")
                || lowered.contains("pre-install-pkgs")
                || lowered.contains("proxy-auto-detect")
            {
                fx.script(value, format!("{name} -o {key}"), Some(source), false);
            } else if lowered.starts_with("dir")
                || lowered.starts_with("dpkg::path")
                || lowered.starts_with("apt::config")
                || lowered.starts_with("dpkg::tools")
                || (lowered.contains("::options")
                    && ["invoke", "--root", "--instdir", "--admindir"]
                        .iter()
                        .any(|word| value.contains(word)))
            {
                fx.unknown(format!(
                    "`{name} -o {key}=…` changes which programs or files apt uses"
                ));
            }
        }
        index += 1;
    }
}

/// vim and friends: `-c`/`--cmd`/`+` commands (`:!cmd` is analysed as typed; other Ex commands
/// cannot be followed), script files, and Ex mode fed on standard input.
fn vim(name: &str, args: &[String], fx: &mut Effects) {
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        let command = if arg == "-c" || arg == "--cmd" {
            index += 1;
            args.get(index).map(|value| (value.clone(), index))
        } else if let Some(value) = arg.strip_prefix('+') {
            Some((value.to_owned(), index))
        } else {
            match arg.as_str() {
                "-S" | "-u" | "-U" | "-s" | "-i" => {
                    let value = args.get(index + 1).map(String::as_str).unwrap_or_default();
                    if !matches!(value, "NONE" | "NORC") || arg == "-S" || arg == "-s" {
                        fx.unknown(format!(
                            "`{name} {arg} {value}` runs editor commands from a file"
                        ));
                    }
                    index += 1;
                }
                "-w" | "-W" => {
                    if let Some(value) = args.get(index + 1) {
                        fx.output(value, format!("{name} {arg}"), false);
                    }
                    index += 1;
                }
                "-e" | "-E" | "-es" | "-Es" | "-s-" => fx.commands_on_stdin = true,
                _ => {}
            }
            None
        };
        if let Some((command, source)) = command {
            vim_command(name, &command, source, fx);
        }
        index += 1;
    }
    if name == "ex" {
        fx.commands_on_stdin = true;
    }
}

fn vim_command(name: &str, command: &str, source: usize, fx: &mut Effects) {
    let text = command.trim().trim_start_matches(':').trim();
    // Line numbers, searches and the end of the file only move the cursor.
    let moves = text.is_empty()
        || text == "$"
        || text.chars().all(|c| c.is_ascii_digit())
        || text.starts_with('/')
        || text.starts_with('?');
    if moves {
        return;
    }
    let range_end = text
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, ',' | '%' | '.' | '$' | ' ' | '\'')))
        .unwrap_or(text.len());
    let body = &text[range_end..];
    if let Some(shell) = body.strip_prefix('!') {
        // `:!cmd` (and `:.!cmd`, a filter): runs the command as typed.
        fx.script(shell, format!("{name} -c ':!…'"), Some(source), false);
        return;
    }
    for prefix in ["r !", "r!", "read !", "w !", "write !"] {
        if let Some(shell) = body.strip_prefix(prefix) {
            fx.script(
                shell,
                format!("{name} -c ':{prefix}…'"),
                Some(source),
                false,
            );
            return;
        }
    }
    let harmless = [
        "set ",
        "se ",
        "syntax ",
        "syn ",
        "filetype ",
        "colorscheme ",
        "colo ",
        "noh",
    ];
    if harmless.iter().any(|prefix| body.starts_with(prefix))
        && !body.contains(['!', '|'])
        && !body.contains("shell")
        && !body.contains("prg")
        && !body.contains("exrc")
    {
        return;
    }
    fx.unknown(format!(
        "`{name}` runs the editor command `{text}`, which this analysis cannot follow"
    ));
}

/// less/more: `+cmd` start commands (`+!cmd` runs a shell command), log files, lesskey files.
fn less(name: &str, args: &[String], fx: &mut Effects) {
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        if let Some(command) = arg.strip_prefix('+') {
            let command = command.trim_start_matches('+');
            let moves = command.is_empty()
                || command.chars().all(|c| c.is_ascii_digit())
                || command.starts_with('/')
                || command.starts_with('?')
                || matches!(command, "F" | "G" | "g" | "R");
            if let Some(position) = command.find('!') {
                fx.script(
                    &command[position + 1..],
                    format!("{name} +!…"),
                    Some(index),
                    false,
                );
            } else if !moves {
                fx.unknown(format!(
                    "`{name} {arg}` runs a start command this analysis cannot follow"
                ));
            }
        } else if matches!(arg.as_str(), "-o" | "-O" | "--log-file" | "--LOG-FILE") {
            if let Some(path) = args.get(index + 1) {
                fx.output(path, format!("{name} {arg}"), false);
            }
            index += 1;
        } else if let Some(path) = arg
            .strip_prefix("--log-file=")
            .or_else(|| arg.strip_prefix("--LOG-FILE="))
            .or_else(|| arg.strip_prefix("-o").filter(|p| !p.is_empty()))
            .or_else(|| arg.strip_prefix("-O").filter(|p| !p.is_empty()))
        {
            fx.output(path, format!("{name} -o"), false);
        } else if arg == "-k" || arg.starts_with("--lesskey") {
            fx.unknown(format!(
                "`{name} {arg}` reads a lesskey file, which can set programs to run"
            ));
        }
        index += 1;
    }
}

/// A double-quoted awk string starting at `start` (just after the quote): its value and the
/// index after the closing quote.
fn awk_string(chars: &[char], start: usize) -> Option<(String, usize)> {
    let mut value = String::new();
    let mut index = start;
    while let Some(&c) = chars.get(index) {
        match c {
            '"' => return Some((value, index + 1)),
            '\\' => {
                match chars.get(index + 1) {
                    Some('n') => value.push('\n'),
                    Some('t') => value.push('\t'),
                    Some(&other) => value.push(other),
                    None => return None,
                }
                index += 2;
            }
            _ => {
                value.push(c);
                index += 1;
            }
        }
    }
    None
}

fn skip_blanks(chars: &[char], mut index: usize) -> usize {
    while chars.get(index).is_some_and(|c| c.is_whitespace()) {
        index += 1;
    }
    index
}

/// The program text of an awk call (not `-f FILE`), and the index of its argument.
fn awk_program(args: &[String]) -> Option<(String, usize)> {
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        if arg == "--" {
            index += 1;
            break;
        }
        if arg == "-f" || arg.starts_with("--file") || arg.starts_with("-f") && arg.len() > 2 {
            return None;
        }
        if matches!(
            arg.as_str(),
            "-F" | "-v" | "--field-separator" | "--assign" | "-i" | "--include" | "-l" | "--load"
        ) {
            index += 2;
            continue;
        }
        if arg.starts_with('-') && arg.len() > 1 {
            index += 1;
            continue;
        }
        break;
    }
    args.get(index).map(|program| (program.clone(), index))
}

/// awk: `system("…")`, `print | "…"`, `"…" | getline` run commands; `print > "…"` writes; the
/// same with a computed string cannot be followed. `-i inplace` writes the input files.
fn awk(name: &str, args: &[String], fx: &mut Effects) {
    let in_place = args
        .windows(2)
        .any(|pair| (pair[0] == "-i" || pair[0] == "--include") && pair[1] == "inplace")
        || args
            .iter()
            .any(|arg| arg == "-iinplace" || arg == "--include=inplace");
    let Some((program, source)) = awk_program(args) else {
        return;
    };
    if in_place {
        for file in args[source + 1..].iter().filter(|arg| !arg.contains('=')) {
            fx.output(file, format!("{name} -i inplace"), false);
        }
    }
    let chars: Vec<char> = program.chars().collect();
    let mut last_string: Option<String> = None;
    let mut in_print = false;
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        match c {
            '"' => {
                let Some((value, next)) = awk_string(&chars, index + 1) else {
                    fx.unknown(format!("the {name} program has an unterminated string"));
                    return;
                };
                last_string = Some(value);
                index = next;
                continue;
            }
            '#' => {
                while index < chars.len() && chars[index] != '\n' {
                    index += 1;
                }
                continue;
            }
            // A regular expression starts where an operand may (`/re/`, `$1 ~ /re/`); after an
            // operand `/` divides (`1/2`), and skipping to the next `/` would hide code.
            '/' if !in_print
                && chars[..index]
                    .iter()
                    .rev()
                    .find(|c| !c.is_whitespace())
                    .is_none_or(|previous| "(,~!{};&|\n".contains(*previous)) =>
            {
                // A regular expression: its characters are not operators.
                index += 1;
                while index < chars.len() && chars[index] != '/' {
                    index += if chars[index] == '\\' { 2 } else { 1 };
                }
            }
            ';' | '}' | '{' | '\n' => in_print = false,
            '|' if chars.get(index + 1) == Some(&'|') => {
                index += 2;
                continue;
            }
            '|' => {
                let next = skip_blanks(
                    &chars,
                    index + 1 + usize::from(chars.get(index + 1) == Some(&'&')),
                );
                let rest: String = chars[next..].iter().take(7).collect();
                if rest.starts_with("getline") {
                    match last_string.take() {
                        Some(command) => fx.script(
                            &command,
                            format!("{name} \"…\" | getline"),
                            Some(source),
                            false,
                        ),
                        None => fx.unknown(format!(
                            "the {name} program reads from a command built when it runs"
                        )),
                    }
                } else if chars.get(next) == Some(&'"') {
                    if let Some((command, after)) = awk_string(&chars, next + 1) {
                        fx.script(
                            &command,
                            format!("{name} print | \"…\""),
                            Some(source),
                            false,
                        );
                        index = after;
                        continue;
                    }
                } else {
                    fx.unknown(format!(
                        "the {name} program pipes into a command built when it runs"
                    ));
                }
            }
            '>' if in_print => {
                let next = skip_blanks(
                    &chars,
                    index + 1 + usize::from(chars.get(index + 1) == Some(&'>')),
                );
                match chars.get(next) {
                    Some('"') => {
                        if let Some((path, after)) = awk_string(&chars, next + 1) {
                            fx.output(&path, format!("{name} print >"), false);
                            index = after;
                            continue;
                        }
                    }
                    _ => fx.unknown(format!(
                        "the {name} program writes to a file named when it runs"
                    )),
                }
            }
            _ if c.is_ascii_alphabetic() => {
                let word: String = chars[index..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                    .collect();
                let after = index + word.len();
                match word.as_str() {
                    "print" | "printf" => in_print = true,
                    "system" => {
                        let open = skip_blanks(&chars, after);
                        let quote = skip_blanks(&chars, open + 1);
                        let literal =
                            chars.get(open) == Some(&'(') && chars.get(quote) == Some(&'"');
                        match literal.then(|| awk_string(&chars, quote + 1)).flatten() {
                            Some((command, end))
                                if chars.get(skip_blanks(&chars, end)) == Some(&')') =>
                            {
                                fx.script(
                                    &command,
                                    format!("{name} system()"),
                                    Some(source),
                                    false,
                                );
                            }
                            _ => fx.unknown(format!(
                                "the {name} program runs a command built when it runs (system())"
                            )),
                        }
                    }
                    _ => {}
                }
                index = after;
                continue;
            }
            _ => {}
        }
        index += 1;
    }
}

/// sed: the `e command` runs its text; `e` alone and `s///e` run text only known when it runs.
fn sed(args: &[String], fx: &mut Effects) {
    for script in super::sed_scripts(args) {
        for command in super::sed_script_effects(&script).0 {
            match command {
                Some(command) if !command.trim().is_empty() => {
                    fx.script(&command, "sed e", None, false);
                }
                _ => fx.unknown(
                    "the sed script runs its pattern space as a shell command (`e`), which is only known when it runs",
                ),
            }
        }
    }
}

/// GNU parallel: the command template (with arguments added), commands given after `:::`, or
/// commands read from standard input.
fn parallel(args: &[String], fx: &mut Effects) {
    let values = [
        "-j",
        "-P",
        "--jobs",
        "-S",
        "--sshlogin",
        "--slf",
        "--sshloginfile",
        "-a",
        "--arg-file",
        "-d",
        "--delimiter",
        "-I",
        "-N",
        "-n",
        "--max-args",
        "-L",
        "-l",
        "--max-lines",
        "--colsep",
        "-C",
        "--results",
        "--res",
        "--joblog",
        "--tmpdir",
        "--delay",
        "--timeout",
        "--retries",
        "--halt",
        "--memfree",
        "--load",
        "-E",
        "--eof",
        "--basefile",
        "--bf",
        "--return",
        "--workdir",
        "--wd",
        "--env",
        "--tagstring",
        "--block",
        "--seqreplace",
        "--shebang-wrap",
        "--termseq",
        "--sshdelay",
        "--limit",
        "--rpl",
        "--plus",
    ];
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if arg == "--" || !arg.starts_with('-') || arg.starts_with(":::") {
            break;
        }
        if values.contains(&arg.as_str()) {
            index += 2;
            continue;
        }
        if arg.starts_with("--") && !arg.contains('=') && !PARALLEL_FLAGS.contains(&arg.as_str()) {
            fx.unknown(format!(
                "`parallel {arg}` is an option this analysis does not know, so which words are the command cannot be told"
            ));
        }
        index += 1;
    }
    if args.get(index).is_some_and(|arg| arg == "--") {
        index += 1;
    }
    let end = args[index.min(args.len())..]
        .iter()
        .position(|arg| arg.starts_with(":::"))
        .map_or(args.len(), |position| index + position);
    if index < end {
        // parallel joins the words into one line for a shell (`-q` quotes them): both readings
        // are analysed, the stricter wins.
        fx.args(index, end, "parallel");
        fx.script(&args[index..end].join(" "), "parallel", None, true);
        fx.runs
            .last_mut()
            .into_iter()
            .for_each(|run| run.source = Some(index));
    } else if end < args.len() && args[end] == ":::" {
        // No template: every argument after `:::` is a command line of its own.
        for (offset, command) in args[end + 1..].iter().enumerate() {
            if command.starts_with(":::") {
                break;
            }
            fx.script(command, "parallel :::", Some(end + 1 + offset), false);
        }
    } else {
        fx.commands_on_stdin = true;
    }
}

const PARALLEL_FLAGS: &[&str] = &[
    "--pipe",
    "--keep-order",
    "--group",
    "--ungroup",
    "--line-buffer",
    "--tag",
    "--progress",
    "--bar",
    "--eta",
    "--dry-run",
    "--verbose",
    "--null",
    "--quote",
    "--no-notice",
    "--will-cite",
    "--xargs",
    "--nonall",
    "--onall",
    "--halt-on-error",
    "--trim",
    "--shuf",
    "--citation",
    "--version",
    "--help",
    "--lb",
    "--silent",
    "--files",
    "--compress",
    "--fg",
    "--bg",
    "--semaphore",
    "--linebuffer",
    "--header",
    "--transfer",
    "--cleanup",
    "--trc",
];

/// curl: `-O`/`--remote-name` writes the URL's file name in the current folder; `-J` lets the
/// server choose it.
fn curl(args: &[String], fx: &mut Effects) {
    scan(
        "curl",
        args,
        &[
            (&["-o", "--output"], Use::Output),
            (&["--output-dir"], Use::OutputDir),
            (
                &[
                    "-D",
                    "--dump-header",
                    "-c",
                    "--cookie-jar",
                    "--trace",
                    "--trace-ascii",
                ],
                Use::Output,
            ),
            (
                &[
                    "--libcurl",
                    "--stderr",
                    "--etag-save",
                    "--hsts",
                    "--alt-svc",
                ],
                Use::Output,
            ),
            (
                &["-K", "--config"],
                Use::Unknown("reads more options from a file"),
            ),
            (
                &[
                    "-A", "-b", "-C", "-d", "-E", "-e", "-F", "-H", "-m", "-P", "-Q", "-r",
                ],
                Use::Value,
            ),
            (
                &[
                    "-T", "-t", "-u", "-U", "-w", "-x", "-X", "-Y", "-y", "-z", "--data",
                ],
                Use::Value,
            ),
        ],
        fx,
    );
    let remote_name = args.iter().any(|arg| {
        arg == "--remote-name"
            || arg == "--remote-name-all"
            || (arg.starts_with('-')
                && !arg.starts_with("--")
                && curl_short_flags(arg).contains('O'))
    });
    if !remote_name {
        return;
    }
    if args.iter().any(|arg| {
        arg == "--remote-header-name"
            || (arg.starts_with('-')
                && !arg.starts_with("--")
                && curl_short_flags(arg).contains('J'))
    }) {
        fx.unknown("`curl -J` writes to a file name the server chooses");
    }
    let folder = args
        .windows(2)
        .find(|pair| pair[0] == "--output-dir")
        .map(|pair| pair[1].clone());
    for url in args.iter().filter(|arg| arg.contains("://")) {
        let name = url_file_name(url);
        match (name, &folder) {
            (Some(name), Some(folder)) => fx.output(&format!("{folder}/{name}"), "curl -O", false),
            (Some(name), None) => fx.output(&name, "curl -O", false),
            (None, _) => fx.unknown(format!("`curl -O {url}`: the URL names no file")),
        }
    }
}

/// The flag letters of a short-option cluster before the first one that takes a value.
fn curl_short_flags(arg: &str) -> String {
    let takes_value = "AbCdDEeFHKmoPQrTtuUwxXYyz";
    arg.chars()
        .skip(1)
        .take_while(|c| !takes_value.contains(*c))
        .collect()
}

/// The last path component of a URL, without query or fragment.
fn url_file_name(url: &str) -> Option<String> {
    let without_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = without_scheme.split(['?', '#']).next().unwrap_or_default();
    let (_, path) = path.split_once('/')?;
    let name = path.rsplit('/').next().unwrap_or_default();
    (!name.is_empty() && name != "." && name != "..").then(|| name.to_owned())
}

/// wget: `-O`, `-o`, `-a`, `-P`, `--save-cookies`; without `-O` it writes each URL's file name
/// (or a whole tree with `-r`) in the folder it runs in.
fn wget(args: &[String], fx: &mut Effects) {
    let options: &[Opt] = &[
        (&["-O", "--output-document"], Use::Output),
        (
            &[
                "-o",
                "--output-file",
                "-a",
                "--append-output",
                "--save-cookies",
            ],
            Use::Output,
        ),
        (&["-P", "--directory-prefix"], Use::OutputDir),
        (
            &["-e", "--execute", "--config"],
            Use::Unknown("runs wgetrc commands, which can set where it writes"),
        ),
        (
            &[
                "-i",
                "--input-file",
                "-B",
                "--base",
                "-t",
                "--tries",
                "-T",
                "--timeout",
            ],
            Use::Value,
        ),
        (
            &[
                "-w",
                "--wait",
                "-Q",
                "--quota",
                "-U",
                "--user-agent",
                "-D",
                "--domains",
            ],
            Use::Value,
        ),
        (
            &[
                "-I", "-X", "-l", "--level", "-A", "--accept", "-R", "--reject",
            ],
            Use::Value,
        ),
        (
            &[
                "--header",
                "--user",
                "--password",
                "--post-data",
                "--post-file",
                "--method",
            ],
            Use::Value,
        ),
    ];
    scan("wget", args, options, fx);
    let chooses_name = !args.iter().any(|arg| {
        arg.starts_with("-O")
            || arg.starts_with("--output-document")
            || arg == "--spider"
            || (arg.starts_with('-')
                && !arg.starts_with("--")
                && arg.contains('O')
                && arg.len() > 2)
    });
    if !chooses_name {
        return;
    }
    let folder = args
        .windows(2)
        .find(|pair| pair[0] == "-P" || pair[0] == "--directory-prefix")
        .map(|pair| pair[1].clone())
        .or_else(|| {
            args.iter()
                .find_map(|arg| arg.strip_prefix("--directory-prefix=").map(str::to_owned))
        });
    let recursive = args
        .iter()
        .any(|arg| matches!(arg.as_str(), "-r" | "--recursive" | "-m" | "--mirror"));
    let join = |name: &str| match &folder {
        Some(folder) => format!("{folder}/{name}"),
        None => name.to_owned(),
    };
    for url in args.iter().filter(|arg| arg.contains("://")) {
        if recursive {
            fx.output(&join("."), "wget -r", true);
        } else {
            let name = url_file_name(url).unwrap_or_else(|| "index.html".to_owned());
            fx.output(&join(&name), "wget", false);
        }
    }
}

/// tar: the archive written by `-c`/`-r`/`-u` (`-f FILE`, also the old `czf FILE` form), and
/// `--checkpoint-action=exec=…`.
fn tar(name: &str, args: &[String], fx: &mut Effects) {
    for (index, arg) in args.iter().enumerate() {
        if let Some(action) = arg.strip_prefix("--checkpoint-action=") {
            if let Some(command) = action.strip_prefix("exec=") {
                fx.script(
                    command,
                    format!("{name} --checkpoint-action=exec"),
                    Some(index),
                    false,
                );
            }
        } else if arg == "--checkpoint-action"
            && let Some(command) = args.get(index + 1).and_then(|a| a.strip_prefix("exec="))
        {
            fx.script(
                command,
                format!("{name} --checkpoint-action=exec"),
                Some(index + 1),
                false,
            );
        }
    }
    let old_style = args.first().filter(|first| !first.starts_with('-'));
    let letters: String = old_style
        .into_iter()
        .chain(
            args.iter()
                .filter(|arg| arg.starts_with('-') && !arg.starts_with("--")),
        )
        .flat_map(|arg| arg.trim_start_matches('-').chars())
        .collect();
    let creates = letters.contains(['c', 'r', 'u', 'A'])
        || args.iter().any(|arg| {
            matches!(
                arg.as_str(),
                "--create" | "--append" | "--update" | "--concatenate"
            )
        });
    if !creates {
        return;
    }
    let mut archive: Option<String> = None;
    if let Some(first) = old_style
        && first.contains('f')
    {
        archive = args.get(1).cloned();
    }
    for (index, arg) in args.iter().enumerate() {
        if let Some(path) = arg.strip_prefix("--file=") {
            archive = Some(path.to_owned());
        } else if arg == "--file" {
            archive = args.get(index + 1).cloned();
        } else if arg.starts_with('-')
            && !arg.starts_with("--")
            && let Some(position) = arg.find('f')
        {
            let rest = &arg[position + 1..];
            archive = if rest.is_empty() {
                args.get(index + 1).cloned()
            } else {
                Some(rest.to_owned())
            };
        }
    }
    if let Some(archive) = archive {
        fx.output(&archive, format!("{name} -f"), false);
    }
}

/// ssh/scp/sftp `-o Key=Value` (or `-o "Key Value"`) settings that run commands.
fn ssh_options(name: &str, args: &[String], fx: &mut Effects) {
    for (index, arg) in args.iter().enumerate() {
        let (setting, source) = if arg == "-o" {
            match args.get(index + 1) {
                Some(value) => (value.as_str(), index + 1),
                None => continue,
            }
        } else if let Some(value) = arg.strip_prefix("-o").filter(|v| !v.is_empty()) {
            (value, index)
        } else {
            continue;
        };
        let setting = setting.trim();
        let split = setting
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(setting.len());
        let key = setting[..split].to_ascii_lowercase();
        let value = setting[split..].trim_start_matches(|c: char| c == '=' || c.is_whitespace());
        match key.as_str() {
            "proxycommand" | "localcommand" | "knownhostscommand"
                if !value.eq_ignore_ascii_case("none") =>
            {
                fx.script(value, format!("{name} -o {key}"), Some(source), false);
            }
            "remotecommand" => {
                fx.script(
                    value,
                    format!("{name} -o RemoteCommand"),
                    Some(source),
                    false,
                );
                if let Some(last) = fx.runs.last_mut() {
                    last.remote = Some("the ssh host".to_owned());
                }
            }
            "include" | "sshconfig" => fx.unknown(format!(
                "`{name} -o {key}` reads another configuration file"
            )),
            _ => {}
        }
    }
}

/// `env -S'…'` / `env --split-string=…` with the string attached (the separate form is a shell
/// payload, see `classify`).
fn env_split(args: &[String], fx: &mut Effects) {
    for (index, arg) in args.iter().enumerate() {
        if arg == "--" || (!arg.starts_with('-') && !arg.contains('=')) {
            break;
        }
        let attached = arg
            .strip_prefix("--split-string=")
            .or_else(|| arg.strip_prefix("-S").filter(|rest| !rest.is_empty()));
        if let Some(text) = attached {
            let mut line = text.to_owned();
            for word in &args[index + 1..] {
                line.push(' ');
                line.push_str(word);
            }
            fx.script(&line, "env -S", Some(index), false);
            break;
        }
    }
}

/// sqlite3 dot-commands that run shell commands.
fn sqlite(args: &[String], fx: &mut Effects) {
    for (index, arg) in args.iter().enumerate() {
        let text = arg.trim_start();
        for command in [".shell", ".system"] {
            if let Some(rest) = text.strip_prefix(command) {
                fx.script(rest, format!("sqlite3 {command}"), Some(index), false);
            }
        }
        if text.starts_with(".once") || text.starts_with(".output") || text.starts_with(".load") {
            fx.unknown(format!("`sqlite3 {text}` writes a file or loads code"));
        }
    }
}

/// socat `EXEC:` and `SYSTEM:` addresses.
fn socat(args: &[String], fx: &mut Effects) {
    for (index, arg) in args.iter().enumerate() {
        let lowered = arg.to_ascii_lowercase();
        for prefix in ["exec:", "system:"] {
            if lowered.starts_with(prefix) {
                let command = arg[prefix.len()..].split(',').next().unwrap_or_default();
                fx.script(
                    command,
                    format!("socat {}", prefix.trim_end_matches(':')),
                    Some(index),
                    false,
                );
            }
        }
    }
}

/// Inline program code of an interpreter (`python3 -c CODE`, `perl -e CODE`, `node -e CODE`).
fn inline_code(name: &str, args: &[String]) -> Option<String> {
    let family = if name.starts_with("python") || name.starts_with("pypy") {
        "c"
    } else if name.starts_with("perl")
        || name.starts_with("ruby")
        || matches!(name, "node" | "nodejs")
    {
        "eE"
    } else if name.starts_with("php") {
        "r"
    } else {
        return None;
    };
    let position = args.iter().position(|arg| {
        arg.starts_with('-')
            && !arg.starts_with("--")
            && arg.len() > 1
            && arg.ends_with(|c: char| family.contains(c))
    })?;
    args.get(position + 1).cloned()
}

/// Command strings an inline program passes to `system`, `popen`, `exec`, `subprocess.*`,
/// backticks and `qx`: analysed as typed so a forbidden program in them is denied. (The inline
/// code itself still asks: the analysis cannot read a program.)
fn system_calls(name: &str, code: &str, fx: &mut Effects) {
    let calls = [
        "system(",
        "popen(",
        "exec(",
        "execl(",
        "execlp(",
        "execvp(",
        "execv(",
        "spawn(",
        "execSync(",
        "spawnSync(",
        "check_output(",
        "check_call(",
        "call(",
        "run(",
        "Popen(",
        "getoutput(",
        "getstatusoutput(",
        "shell_exec(",
        "passthru(",
        "proc_open(",
    ];
    for call in calls {
        let mut rest = code;
        while let Some(position) = rest.find(call) {
            let after = &rest[position + call.len()..];
            if let Some(command) = leading_literal(after) {
                fx.script(&command, format!("{name} {}…)", call), None, false);
            }
            rest = after;
        }
    }
    // Backticks (perl, ruby, php) and perl's qx.
    let mut parts = code.split('`');
    parts.next();
    while let (Some(command), Some(_)) = (parts.next(), parts.clone().next()) {
        fx.script(command, format!("{name} `…`"), None, false);
        parts.next();
    }
    for open in ["qx{", "qx(", "qx/", "%x("] {
        if let Some(position) = code.find(open) {
            let close = match open.chars().last() {
                Some('{') => '}',
                Some('(') => ')',
                _ => '/',
            };
            let after = &code[position + open.len()..];
            if let Some(end) = after.find(close) {
                fx.script(&after[..end], format!("{name} qx"), None, false);
            }
        }
    }
}

/// A string literal (or a list of string literals, joined as words) at the start of `text`.
fn leading_literal(text: &str) -> Option<String> {
    let text = text.trim_start();
    let quoted = |text: &str| -> Option<(String, usize)> {
        let quote = text.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
        let mut value = String::new();
        let mut chars = text.char_indices().skip(1);
        while let Some((index, c)) = chars.next() {
            if c == '\\' {
                if let Some((_, escaped)) = chars.next() {
                    value.push(escaped);
                }
            } else if c == quote {
                return Some((value, index + 1));
            } else {
                value.push(c);
            }
        }
        None
    };
    if let Some((value, _)) = quoted(text) {
        return Some(value);
    }
    let list = text.strip_prefix('[').or_else(|| text.strip_prefix('('))?;
    let mut words = Vec::new();
    let mut rest = list.trim_start();
    while let Some((word, used)) = quoted(rest) {
        words.push(format!("'{}'", word.replace('\'', "'\\''")));
        rest = rest[used..]
            .trim_start()
            .trim_start_matches(',')
            .trim_start();
    }
    (!words.is_empty()).then(|| words.join(" "))
}
