//! How individual programs run other programs or write files: the knowledge behind
//! [`super::analysis`]. [`classify`] says whether a command is a wrapper (`sudo`, `env`,
//! `timeout`, `xargs`, …), a shell or interpreter with a payload, `find` with `-exec`, `eval`, or
//! a plain command; [`writes_of`] lists the paths a plain command writes (`tee`, `dd of=`,
//! `sed -i`, `cp`/`mv`/`ln`, `chmod`, editors, `visudo`, account tools, …).
//!
//! Indices returned here are into the command's arguments (the words after its name). This
//! module must never call a command harmless because it did not recognise an option: unknown
//! options of a wrapper are skipped as flags, and the first word that is not an option is taken
//! as the command it runs.
//!
//! What programs do through their options (commands they run, files they write, forms that
//! cannot be followed) is described as data in [`programs`]; `ln` writes its link, and
//! [`link_targets`] gives what it links to for the lock-out check of the walker.

use super::analysis::{SimpleCommand, normalise_name};

pub mod programs;

/// What kind of command a simple command is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// Runs the command starting at argument `inner_starts` (`sudo -u x rm` → 2). `note`: a
    /// reason to ask that the wrapper itself adds (`sudo LD_PRELOAD=… cmd`).
    Wrapper {
        inner_starts: usize,
        note: Option<String>,
    },
    /// A shell that runs a command string.
    Shell {
        payload: Payload,
    },
    /// An interpreter (python, perl, …); `inline`: the flag that gives it inline code.
    Interpreter {
        inline: Option<String>,
    },
    /// `find … -exec cmd … ;`: the argument ranges of each command run.
    Find {
        execs: Vec<(usize, usize)>,
    },
    /// `eval` and the like: the arguments are joined and run as shell code.
    Eval,
    /// Cannot be proven harmless, for this reason.
    Unprovable(String),
    Plain,
}

/// Where a shell's commands come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    /// The argument at this index (`bash -c '…'`).
    Argument(usize),
    /// The arguments from this index joined with spaces (`ssh host cmd args`, `watch cmd`).
    Joined(usize),
    /// Standard input (`… | sh`, `bash <<EOF`).
    Stdin,
}

const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "rbash", "yash", "csh", "tcsh",
];

/// Option parsing for wrappers: the index of the first argument that is not an option.
/// `short_values`: short options that take a value; `long_values`: long options that take one.
fn skip_options(args: &[String], short_values: &str, long_values: &[&str]) -> usize {
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        if arg == "--" {
            return index + 1;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if !long.contains('=') && long_values.contains(&long) {
                index += 1;
            }
            index += 1;
            continue;
        }
        if arg.len() > 1 && arg.starts_with('-') {
            let cluster = &arg[1..];
            for (position, option) in cluster.char_indices() {
                if short_values.contains(option) {
                    // The value is the rest of the cluster, or the next argument.
                    if position + option.len_utf8() == cluster.len() {
                        index += 1;
                    }
                    break;
                }
            }
            index += 1;
            continue;
        }
        return index;
    }
    index
}

/// sudo's options that take a value.
const SUDO_SHORT_VALUES: &str = "ugCDhpRrtTU";
const SUDO_LONG_VALUES: &[&str] = &[
    "user",
    "group",
    "close-from",
    "chdir",
    "host",
    "prompt",
    "role",
    "type",
    "command-timeout",
    "other-user",
    "chroot",
];

/// `sudo -e file` / `sudo --edit file` (sudoedit): only sudo's own options count, not those of
/// the command it runs (`sudo journalctl -xe`).
fn sudo_edits(args: &[String]) -> bool {
    let own = skip_options(
        args,
        "ugCDhpRrtTU",
        &[
            "user",
            "group",
            "close-from",
            "chdir",
            "host",
            "prompt",
            "role",
            "type",
            "command-timeout",
            "other-user",
            "chroot",
        ],
    );
    has_flag(&args[..own.min(args.len())], 'e', "--edit") && own < args.len()
}

fn is_assignment(word: &str) -> bool {
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
fn skip_assignments(args: &[String], from: usize) -> (usize, Option<String>) {
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

fn has_flag(args: &[String], short: char, long: &str) -> bool {
    args.iter().any(|arg| {
        arg == long
            || (arg.starts_with('-')
                && !arg.starts_with("--")
                && arg.len() > 1
                && arg[1..].contains(short))
    })
}

/// Classify one command by its name and arguments.
pub fn classify(name: &str, args: &[String]) -> Shape {
    let wrapper = |inner_starts: usize| Shape::Wrapper {
        inner_starts,
        note: None,
    };
    match name {
        "sudo" => {
            if sudo_edits(args) {
                return Shape::Plain; // sudoedit: see writes_of
            }
            let start = skip_options(args, SUDO_SHORT_VALUES, SUDO_LONG_VALUES);
            let (inner_starts, note) = skip_assignments(args, start);
            Shape::Wrapper { inner_starts, note }
        }
        "doas" => wrapper(skip_options(args, "uC", &[])),
        "env" => {
            if let Some(index) = args
                .iter()
                .position(|arg| arg == "-S" || arg == "--split-string")
            {
                return if index + 1 < args.len() {
                    Shape::Shell {
                        payload: Payload::Argument(index + 1),
                    }
                } else {
                    Shape::Plain
                };
            }
            if args.iter().any(|arg| {
                arg.starts_with("--split-string=") || (arg.starts_with("-S") && arg.len() > 2)
            }) {
                // The attached string is analysed as typed (programs::effects).
                return Shape::Plain;
            }
            let start = skip_options(args, "uC", &["unset", "chdir"]);
            let (inner_starts, note) = skip_assignments(args, start);
            Shape::Wrapper { inner_starts, note }
        }
        "nice" => {
            let mut index = 0;
            while index < args.len() {
                let arg = &args[index];
                if arg == "-n" || arg == "--adjustment" {
                    index += 2;
                } else if arg.starts_with('-') && arg != "-" {
                    index += 1;
                } else {
                    break;
                }
            }
            wrapper(index)
        }
        "nohup" | "builtin" | "unbuffer" | "catchsegv" | "torsocks" | "busybox" | "toybox"
        | "eatmydata" | "nocache" | "fakeroot" | "entr" | "coproc" => {
            wrapper(skip_options(args, "", &[]))
        }
        "time" => wrapper(skip_options(args, "fo", &["format", "output"])),
        "command" => {
            if has_flag(args, 'v', "") || has_flag(args, 'V', "") {
                Shape::Plain
            } else {
                wrapper(skip_options(args, "", &[]))
            }
        }
        "exec" => wrapper(skip_options(args, "a", &[])),
        "setsid" | "strace" | "ltrace" => wrapper(skip_options(args, "oepsuEaSIXbP", &["output"])),
        "stdbuf" => wrapper(skip_options(args, "ioe", &["input", "output", "error"])),
        "ionice" => wrapper(skip_options(args, "cnp", &["class", "classdata", "pid"])),
        "nsenter" => wrapper(skip_options(
            args,
            "tSG",
            &["target", "setuid", "setgid", "user-parent", "env"],
        )),
        "unshare" => wrapper(skip_options(
            args,
            "SGRw",
            &[
                "map-user",
                "map-group",
                "map-users",
                "map-groups",
                "propagation",
                "setgroups",
                "setuid",
                "setgid",
                "root",
                "wd",
            ],
        )),
        "chrt" => {
            let start = skip_options(
                args,
                "T",
                &["sched-runtime", "sched-period", "sched-deadline"],
            );
            // `chrt -p PRIO PID` changes a running process; otherwise `chrt PRIO cmd…`.
            if has_flag(args, 'p', "--pid") {
                Shape::Plain
            } else {
                wrapper(start + 1)
            }
        }
        "chroot" => {
            let start = skip_options(args, "", &["userspec", "groups"]);
            wrapper(start + 1)
        }
        "timeout" => {
            let start = skip_options(args, "sk", &["signal", "kill-after"]);
            wrapper(start + 1)
        }
        "taskset" => {
            let start = skip_options(args, "", &[]);
            wrapper(start + 1)
        }
        "flock" => {
            // `flock [options] FILE -c 'cmd'` or `flock [options] FILE cmd args…`: only the
            // word right after the lock file can be flock's `-c` (`flock l python3 -c …` runs
            // python3).
            let start = skip_options(args, "wEn", &["timeout", "conflict-exit-code"]);
            match args.get(start + 1).map(String::as_str) {
                Some("-c" | "--command") => Shape::Shell {
                    payload: Payload::Argument(start + 2),
                },
                _ => wrapper(start + 1),
            }
        }
        "systemd-run" => wrapper(skip_options(
            args,
            "pMuEHS",
            &[
                "unit",
                "property",
                "description",
                "slice",
                "uid",
                "gid",
                "setenv",
                "working-directory",
                "machine",
                "on-calendar",
            ],
        )),
        "proxychains" | "proxychains4" => wrapper(skip_options(args, "f", &[])),
        "xargs" => wrapper(skip_options(
            args,
            "IEeLnPsda",
            &[
                "replace",
                "eof",
                "max-lines",
                "max-args",
                "max-procs",
                "max-chars",
                "delimiter",
                "arg-file",
            ],
        )),
        "watch" => {
            let start = skip_options(args, "nqd", &["interval", "differences"]);
            if has_flag(&args[..start.min(args.len())], 'x', "--exec") {
                wrapper(start)
            } else {
                Shape::Shell {
                    payload: Payload::Joined(start),
                }
            }
        }
        "su" | "runuser" => {
            for (index, arg) in args.iter().enumerate() {
                if arg == "-c" || arg == "--command" || arg == "--session-command" {
                    return Shape::Shell {
                        payload: Payload::Argument(index + 1),
                    };
                }
                if let Some(_command) = arg.strip_prefix("--command=") {
                    return Shape::Unprovable(format!(
                        "`{name} --command=…`: write it as `{name} -c '…'` so it can be checked"
                    ));
                }
            }
            if name == "runuser"
                && let Some(index) = args.iter().position(|arg| arg == "--")
            {
                return wrapper(index + 1);
            }
            Shape::Plain
        }
        "script" => match args.iter().position(|arg| {
            arg == "--command"
                || (arg.starts_with('-') && !arg.starts_with("--") && arg.ends_with('c'))
        }) {
            Some(index) => Shape::Shell {
                payload: Payload::Argument(index + 1),
            },
            None => Shape::Plain,
        },
        "ssh" => {
            let start = skip_options(args, "bcDEeFIiJLlmOoPpQRSWwB", &[]);
            if start + 1 < args.len() {
                Shape::Shell {
                    payload: Payload::Joined(start + 1),
                }
            } else {
                Shape::Plain
            }
        }
        "eval" => Shape::Eval,
        "find" => find_execs(args),
        "trap" if args.iter().any(|arg| !arg.starts_with('-')) => Shape::Unprovable(
            "`trap` sets commands that run later, when a signal arrives".to_owned(),
        ),
        "alias" if args.iter().any(|arg| arg.contains('=')) => {
            Shape::Unprovable("`alias` changes what a later command name runs".to_owned())
        }
        "hash" if has_flag(args, 'p', "") => {
            Shape::Unprovable("`hash -p` changes which program a command name runs".to_owned())
        }
        "enable" if has_flag(args, 'f', "") => {
            Shape::Unprovable("`enable -f` loads code into the shell".to_owned())
        }
        "at" | "batch" => {
            if has_flag(args, 'f', "")
                || has_flag(args, 'l', "")
                || has_flag(args, 'r', "")
                || has_flag(args, 'd', "")
                || has_flag(args, 'c', "")
            {
                Shape::Plain
            } else {
                Shape::Shell {
                    payload: Payload::Stdin,
                }
            }
        }
        "crontab" => {
            let installs = args.iter().any(|arg| arg == "-" || !arg.starts_with('-'))
                && !super::rules::crontab_lists_only(args);
            if installs {
                Shape::Unprovable(
                    "`crontab` installs commands from a file or standard input that run later; they cannot be checked here"
                        .to_owned(),
                )
            } else {
                Shape::Plain
            }
        }
        "tmux" => {
            let sends = args.iter().any(|arg| {
                matches!(
                    arg.as_str(),
                    "send-keys"
                        | "send"
                        | "run-shell"
                        | "run"
                        | "new-session"
                        | "new"
                        | "new-window"
                        | "neww"
                        | "split-window"
                        | "splitw"
                        | "respawn-pane"
                        | "pipe-pane"
                )
            });
            if sends {
                Shape::Unprovable(
                    "`tmux` runs or types commands in another terminal session".to_owned(),
                )
            } else {
                Shape::Plain
            }
        }
        "screen"
            if args
                .iter()
                .any(|arg| arg == "-X" || arg == "-dm" || arg == "-dmS") =>
        {
            Shape::Unprovable(
                "`screen` runs or types commands in another terminal session".to_owned(),
            )
        }
        _ if SHELLS.contains(&name) => shell(args),
        _ => match interpreter_inline_flag(name, args) {
            Some(shape) => shape,
            None => Shape::Plain,
        },
    }
}

fn shell(args: &[String]) -> Shape {
    let mut index = 0;
    let mut command_string = false;
    let mut read_stdin = false;
    while index < args.len() {
        let arg = &args[index];
        if arg == "--" || arg == "-" {
            index += 1;
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if matches!(long, "rcfile" | "init-file") {
                index += 1;
            }
            if long == "command" {
                command_string = true;
            }
            index += 1;
            continue;
        }
        if arg.len() > 1 && (arg.starts_with('-') || arg.starts_with('+')) {
            let cluster = &arg[1..];
            if cluster.contains('c') {
                command_string = true;
            }
            if cluster.contains('s') {
                read_stdin = true;
            }
            if cluster.ends_with('o') || cluster.ends_with('O') {
                index += 1;
            }
            index += 1;
            continue;
        }
        break;
    }
    if command_string {
        return if index < args.len() {
            Shape::Shell {
                payload: Payload::Argument(index),
            }
        } else {
            Shape::Unprovable("a shell `-c` without a command string".to_owned())
        };
    }
    if index < args.len() && !read_stdin {
        // A script file: like running any program.
        return Shape::Plain;
    }
    Shape::Shell {
        payload: Payload::Stdin,
    }
}

/// Interpreters and the flags that give them inline code.
fn interpreter_inline_flag(name: &str, args: &[String]) -> Option<Shape> {
    let family = if name.starts_with("python") || name.starts_with("pypy") {
        "python"
    } else if name.starts_with("perl") {
        "perl"
    } else if name.starts_with("ruby") {
        "ruby"
    } else if name.starts_with("php") {
        "php"
    } else if name.starts_with("lua") {
        "lua"
    } else {
        match name {
            "node" | "nodejs" | "deno" | "bun" => "node",
            "Rscript" | "R" => "r",
            "tclsh" | "wish" | "expect" | "osascript" | "pwsh" | "powershell" | "jshell"
            | "groovy" | "irb" => "other",
            _ => return None,
        }
    };
    let inline = args
        .iter()
        .take_while(|arg| arg.starts_with('-'))
        .find_map(|arg| {
            let long = matches!(
                arg.as_str(),
                "--eval" | "--print" | "--command" | "-Command" | "--execute" | "--expr"
            );
            let short = !arg.starts_with("--")
                && arg.len() > 1
                && match family {
                    "python" => arg[1..].contains('c'),
                    "perl" | "ruby" => arg[1..].contains(['e', 'E']),
                    "php" => arg[1..].contains(['r', 'R', 'B', 'E', 'F']),
                    "node" => arg[1..].contains(['e', 'p']),
                    _ => arg[1..].contains(['e', 'c']),
                };
            (long || short).then(|| arg.clone())
        });
    if family == "node" && name == "deno" && args.first().is_some_and(|arg| arg == "eval") {
        return Some(Shape::Interpreter {
            inline: Some("eval".to_owned()),
        });
    }
    if inline.is_some() {
        return Some(Shape::Interpreter { inline });
    }
    // `python -m module` and a script file run code from files; only stdin is unreadable.
    let has_program =
        args.iter().any(|arg| !arg.starts_with('-')) || args.iter().any(|arg| arg == "-m");
    if has_program {
        return Some(Shape::Plain);
    }
    Some(Shape::Interpreter { inline: None })
}

fn find_execs(args: &[String]) -> Shape {
    let mut execs = Vec::new();
    let mut index = 0;
    while index < args.len() {
        if matches!(
            args[index].as_str(),
            "-exec" | "-execdir" | "-ok" | "-okdir"
        ) {
            let start = index + 1;
            let mut end = start;
            while end < args.len() && args[end] != ";" && args[end] != "+" {
                end += 1;
            }
            if end > start {
                execs.push((start, end));
            }
            index = end + 1;
        } else {
            index += 1;
        }
    }
    if execs.is_empty() {
        Shape::Plain
    } else {
        Shape::Find { execs }
    }
}

/// sed's scripts, files and in-place flag.
struct SedCall {
    scripts: Vec<String>,
    files: Vec<String>,
    in_place: bool,
}

fn sed_call(args: &[String]) -> SedCall {
    let mut call = SedCall {
        scripts: Vec::new(),
        files: Vec::new(),
        in_place: false,
    };
    let mut explicit_script = false;
    let mut positional = Vec::new();
    let mut index = 0;
    let mut options_done = false;
    while index < args.len() {
        let arg = &args[index];
        if options_done || !arg.starts_with('-') || arg == "-" {
            positional.push(arg.clone());
            index += 1;
            continue;
        }
        if arg == "--" {
            options_done = true;
        } else if arg == "-e" || arg == "--expression" {
            explicit_script = true;
            if let Some(script) = args.get(index + 1) {
                call.scripts.push(script.clone());
            }
            index += 1;
        } else if let Some(script) = arg.strip_prefix("--expression=") {
            explicit_script = true;
            call.scripts.push(script.to_owned());
        } else if arg == "-f" || arg == "--file" {
            explicit_script = true;
            call.scripts.push(String::new());
            index += 1;
        } else if arg.starts_with("--in-place") {
            call.in_place = true;
        } else if arg == "-l" || arg == "--line-length" {
            index += 1;
        } else if !arg.starts_with("--") {
            let cluster = &arg[1..];
            // `-i` takes an optional suffix attached: `-i.bak`; `-e` in a cluster takes the next
            // word as the script (`-ne 'p'`).
            if let Some(position) = cluster.find(['i', 'e', 'f']) {
                match cluster.as_bytes()[position] {
                    b'i' => call.in_place = true,
                    b'e' => {
                        explicit_script = true;
                        let attached = &cluster[position + 1..];
                        if attached.is_empty() {
                            if let Some(script) = args.get(index + 1) {
                                call.scripts.push(script.clone());
                            }
                            index += 1;
                        } else {
                            call.scripts.push(attached.to_owned());
                        }
                    }
                    _ => {
                        explicit_script = true;
                        call.scripts.push(String::new());
                        if cluster[position + 1..].is_empty() {
                            index += 1;
                        }
                    }
                }
            }
        }
        index += 1;
    }
    let mut positional = positional.into_iter();
    if !explicit_script && let Some(script) = positional.next() {
        call.scripts.push(script);
    }
    call.files = positional.collect();
    call
}

/// sed commands in a script: `e command` (runs it; `None` for `e` alone and `s///e`, which run
/// the pattern space) and `w file` (writes), also as `s///w`.
pub(super) fn sed_script_effects(script: &str) -> (Vec<Option<String>>, Vec<String>) {
    let mut runs = Vec::new();
    let mut writes = Vec::new();
    let bytes: Vec<char> = script.chars().collect();
    let mut index = 0;
    while index < bytes.len() {
        // Skip an address: numbers, `$`, `/re/`, `\cREc`, ranges, `!`, spaces.
        loop {
            match bytes.get(index) {
                Some(c)
                    if c.is_ascii_digit()
                        || matches!(c, '$' | ',' | '!' | ' ' | '~' | '+' | '\t') =>
                {
                    index += 1
                }
                Some('/') => {
                    index += 1;
                    while let Some(c) = bytes.get(index) {
                        index += 1;
                        if *c == '\\' {
                            index += 1;
                        } else if *c == '/' {
                            break;
                        }
                    }
                }
                _ => break,
            }
        }
        let Some(command) = bytes.get(index).copied() else {
            break;
        };
        index += 1;
        match command {
            'e' => {
                let text: String = bytes[index..].iter().take_while(|c| **c != '\n').collect();
                index += text.len();
                let text = text.trim();
                runs.push((!text.is_empty()).then(|| text.to_owned()));
            }
            'w' | 'W' => {
                let file: String = bytes[index..].iter().take_while(|c| **c != '\n').collect();
                writes.push(file.trim().to_owned());
                index += file.len();
            }
            'r' | 'R' | 'a' | 'i' | 'c' | 'b' | 't' | 'T' | ':' => {
                // Their argument runs to the end of the line (or `;` for labels): no commands in it.
                while let Some(c) = bytes.get(index) {
                    if *c == '\n' || (matches!(command, 'b' | 't' | 'T' | ':') && *c == ';') {
                        break;
                    }
                    index += 1;
                }
            }
            's' | 'y' => {
                let Some(delimiter) = bytes.get(index).copied() else {
                    break;
                };
                index += 1;
                let mut parts = 0;
                while parts < 2 && index < bytes.len() {
                    if bytes[index] == '\\' {
                        index += 2;
                        continue;
                    }
                    if bytes[index] == delimiter {
                        parts += 1;
                    }
                    index += 1;
                }
                if command == 's' {
                    while let Some(flag) = bytes.get(index).copied() {
                        match flag {
                            'e' => {
                                runs.push(None);
                                index += 1;
                            }
                            'w' => {
                                let file: String = bytes[index + 1..]
                                    .iter()
                                    .take_while(|c| **c != '\n')
                                    .collect();
                                writes.push(file.trim().to_owned());
                                index += file.len() + 1;
                            }
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' => index += 1,
                            c if c.is_ascii_digit() => index += 1,
                            _ => break,
                        }
                    }
                }
            }
            _ => {}
        }
        // To the next command.
        while let Some(c) = bytes.get(index) {
            if matches!(c, ';' | '\n' | '{' | '}') {
                index += 1;
                break;
            }
            if !c.is_whitespace() {
                break;
            }
            index += 1;
        }
    }
    (runs, writes)
}

/// The scripts of a sed call (`-e`, `--expression`, or the first operand).
pub(super) fn sed_scripts(args: &[String]) -> Vec<String> {
    sed_call(args).scripts
}

/// Is this sed call read-only (no -i, no `w`, no `e`)? For plan mode.
pub fn sed_is_read_only(args: &[String]) -> bool {
    let call = sed_call(args);
    !call.in_place
        && call.scripts.iter().all(|script| {
            let (runs, writes) = sed_script_effects(script);
            runs.is_empty() && writes.is_empty()
        })
}

/// A path a command writes, as found in its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteSpec {
    pub path: String,
    pub how: String,
    pub subtree: bool,
}

fn positional_args<'a>(
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

fn recursive(args: &[String]) -> bool {
    args.iter().any(|arg| {
        arg == "--recursive"
            || (arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(['r', 'R']))
    })
}

fn ln_target_directory(args: &[String]) -> Option<String> {
    args.windows(2)
        .find(|pair| pair[0] == "-t" || pair[0] == "--target-directory")
        .map(|pair| pair[1].clone())
        .or_else(|| {
            args.iter()
                .find_map(|arg| arg.strip_prefix("--target-directory=").map(str::to_owned))
        })
}

fn base_name(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

/// The links `ln` creates: `ln T L` → `L` (and `L/T` when `L` is a folder), `ln T` → `./T`,
/// `ln -t DIR T…` → `DIR/T…`.
fn link_paths(args: &[String]) -> Vec<String> {
    let positional = positional_args(args, "tS", &["target-directory", "suffix"]);
    if let Some(folder) = ln_target_directory(args) {
        return positional
            .iter()
            .map(|target| format!("{}/{}", folder.trim_end_matches('/'), base_name(target)))
            .collect();
    }
    match positional.split_last() {
        Some((only, [])) => vec![base_name(only).to_owned()],
        Some((link, targets)) => {
            let mut links = vec![(*link).clone()];
            links.extend(
                targets
                    .iter()
                    .map(|target| format!("{}/{}", link.trim_end_matches('/'), base_name(target))),
            );
            links
        }
        None => Vec::new(),
    }
}

/// What `ln` links to, and for a symbolic link the folder a relative target is read from (the
/// link's own folder).
pub fn link_targets(args: &[String]) -> (Vec<String>, Option<String>) {
    let symbolic = args.iter().any(|arg| {
        arg == "--symbolic" || (arg.starts_with('-') && !arg.starts_with("--") && arg.contains('s'))
    });
    let positional = positional_args(args, "tS", &["target-directory", "suffix"]);
    let (targets, link): (Vec<String>, Option<String>) = match ln_target_directory(args) {
        Some(folder) => (
            positional.into_iter().cloned().collect(),
            Some(format!("{folder}/")),
        ),
        None => match positional.split_last() {
            Some((only, [])) => (vec![(*only).clone()], None),
            Some((link, targets)) => (
                targets.iter().map(|target| (*target).clone()).collect(),
                Some((*link).clone()),
            ),
            None => (Vec::new(), None),
        },
    };
    let folder = link.filter(|_| symbolic).map(|link| {
        if link.ends_with('/') {
            link
        } else {
            match link.rsplit_once('/') {
                Some(("", _)) => "/".to_owned(),
                Some((folder, _)) => folder.to_owned(),
                None => ".".to_owned(),
            }
        }
    });
    (targets, folder)
}

/// The paths a (plain) command writes, removes or changes the permissions of.
pub fn writes_of(command: &SimpleCommand) -> Vec<WriteSpec> {
    let name = normalise_name(command.name());
    let args = command.args();
    let spec = |path: &str, how: &str, subtree: bool| WriteSpec {
        path: path.to_owned(),
        how: how.to_owned(),
        subtree,
    };
    let all = |how: &str, subtree: bool, paths: Vec<&String>| -> Vec<WriteSpec> {
        paths
            .into_iter()
            .map(|path| spec(path, how, subtree))
            .collect()
    };
    match name.as_str() {
        "tee" => all("tee", false, positional_args(args, "", &[])),
        "dd" => args
            .iter()
            .filter_map(|arg| arg.strip_prefix("of="))
            .map(|path| spec(path, "dd of=", false))
            .collect(),
        "sed" | "gsed" => {
            let call = sed_call(args);
            let mut writes: Vec<WriteSpec> = call
                .scripts
                .iter()
                .flat_map(|script| sed_script_effects(script).1)
                .filter(|path| !path.is_empty())
                .map(|path| spec(&path, "sed w", false))
                .collect();
            if call.in_place {
                writes.extend(call.files.iter().map(|path| spec(path, "sed -i", false)));
            }
            writes
        }
        "perl"
            if args.iter().any(|arg| {
                arg.starts_with("-i")
                    || (arg.starts_with('-') && !arg.starts_with("--") && arg.contains('i'))
            }) =>
        {
            all("perl -i", false, positional_args(args, "eEIlMmx", &[]))
        }
        "cp" | "install" | "rsync" | "scp" => {
            let target_dir = args
                .windows(2)
                .find(|pair| pair[0] == "-t" || pair[0] == "--target-directory")
                .map(|pair| pair[1].clone())
                .or_else(|| {
                    args.iter()
                        .find_map(|arg| arg.strip_prefix("--target-directory=").map(str::to_owned))
                });
            let positional = positional_args(
                args,
                "tSgmoeTB",
                &[
                    "suffix",
                    "mode",
                    "owner",
                    "group",
                    "target-directory",
                    "rsh",
                    "exclude",
                    "include",
                    "filter",
                    "chmod",
                    "chown",
                ],
            );
            let (sources, destination): (Vec<&String>, Option<String>) = match target_dir {
                Some(dir) => (positional.clone(), Some(dir)),
                None => match positional.split_last() {
                    Some((last, rest)) if !rest.is_empty() || name == "install" => {
                        (rest.to_vec(), Some((*last).clone()))
                    }
                    _ => (Vec::new(), None),
                },
            };
            let mut writes = Vec::new();
            if let Some(destination) = destination {
                let subtree = recursive(args) || name == "rsync";
                writes.push(spec(&destination, &name, subtree));
                for source in sources {
                    let base = source
                        .trim_end_matches('/')
                        .rsplit('/')
                        .next()
                        .unwrap_or(source);
                    writes.push(spec(
                        &format!("{}/{base}", destination.trim_end_matches('/')),
                        &name,
                        subtree,
                    ));
                }
            }
            writes
        }
        "mv" => all(
            "mv",
            true,
            positional_args(args, "tS", &["target-directory", "suffix"]),
        ),
        // The link is written, not its target (checked by analysis: a link to a lock-out path
        // asks).
        "ln" => link_paths(args)
            .iter()
            .map(|path| spec(path, "ln", false))
            .collect(),
        "rm" | "shred" | "unlink" | "rmdir" | "wipe" | "srm" => all(
            &name,
            recursive(args) || name == "rmdir",
            positional_args(args, "nu", &["iterations", "size", "remove"]),
        ),
        "sort" => {
            let mut outputs = Vec::new();
            for (index, arg) in args.iter().enumerate() {
                if let Some((_, path)) = arg.split_once('=').filter(|_| arg.starts_with("--o")) {
                    outputs.push(path.to_owned());
                } else if arg.starts_with("--o") {
                    outputs.extend(args.get(index + 1).cloned());
                } else if arg.starts_with('-')
                    && !arg.starts_with("--")
                    && let Some(position) = arg.find('o')
                {
                    let attached = &arg[position + 1..];
                    if attached.is_empty() {
                        outputs.extend(args.get(index + 1).cloned());
                    } else {
                        outputs.push(attached.to_owned());
                    }
                }
            }
            outputs
                .iter()
                .map(|path| spec(path, "sort -o", false))
                .collect()
        }
        "uniq" => positional_args(args, "fsw", &["skip-fields", "skip-chars", "check-chars"])
            .get(1)
            .map(|path| vec![spec(path, "uniq output", false)])
            .unwrap_or_default(),
        "truncate" => all(
            "truncate",
            false,
            positional_args(args, "sr", &["size", "reference"]),
        ),
        "touch" => all(
            "touch",
            false,
            positional_args(args, "dtr", &["date", "reference"]),
        ),
        "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => {
            let positional =
                positional_args(args, "mMxXv", &["reference", "from", "modify", "set"]);
            let skip = usize::from(
                matches!(name.as_str(), "chmod" | "chown" | "chgrp" | "chattr")
                    && !args.iter().any(|arg| arg.starts_with("--reference")),
            );
            all(
                &name,
                recursive(args),
                positional.into_iter().skip(skip).collect(),
            )
        }
        "vi" | "vim" | "nvim" | "nano" | "emacs" | "ed" | "ex" | "joe" | "micro" | "mcedit"
        | "pico" | "sudoedit" | "vim.tiny" | "vim.basic" | "rvim" => all(
            &format!("{name} (editor)"),
            false,
            positional_args(args, "cSsTuUwWiq", &[])
                .into_iter()
                .filter(|arg| !arg.starts_with('+'))
                .collect(),
        ),
        "sudo" if sudo_edits(args) => all(
            "sudo -e (editor)",
            false,
            positional_args(args, "ugCDhpRrtTU", &[]),
        ),
        "visudo" => {
            if has_flag(args, 'c', "--check") {
                Vec::new()
            } else {
                let file = args
                    .windows(2)
                    .find(|pair| pair[0] == "-f" || pair[0] == "--file")
                    .map(|pair| pair[1].clone())
                    .unwrap_or_else(|| "/etc/sudoers".to_owned());
                vec![spec(&file, "visudo", false)]
            }
        }
        "vipw" => {
            if has_flag(args, 's', "--shadow") {
                vec![spec("/etc/shadow", "vipw", false)]
            } else {
                vec![spec("/etc/passwd", "vipw", false)]
            }
        }
        "vigr" => vec![spec("/etc/group", "vigr", false)],
        "passwd" if has_flag(args, 'S', "--status") => Vec::new(),
        // Adding supplementary groups (`usermod -aG docker bob`) cannot lock anyone out.
        "usermod"
            if args.iter().filter(|arg| arg.starts_with('-')).all(|arg| {
                arg.starts_with("--")
                    && matches!(arg.as_str(), "--append" | "--groups" | "--comment")
                    || (!arg.starts_with("--")
                        && arg[1..].chars().all(|c| matches!(c, 'a' | 'G' | 'c')))
            }) && has_flag(args, 'a', "--append") =>
        {
            Vec::new()
        }
        "chage" if has_flag(args, 'l', "--list") => Vec::new(),
        "passwd" | "chpasswd" | "usermod" | "useradd" | "userdel" | "groupadd" | "groupdel"
        | "groupmod" | "gpasswd" | "chage" | "chsh" | "chfn" | "adduser" | "deluser"
        | "addgroup" | "delgroup" | "newusers" | "pwconv" | "grpconv" => {
            vec![
                spec("/etc/passwd", &name, false),
                spec("/etc/shadow", &name, false),
            ]
        }
        "tar" => {
            let extracts = args
                .first()
                .is_some_and(|first| !first.starts_with('-') && first.contains('x'))
                || args.iter().any(|arg| {
                    arg == "--extract"
                        || arg == "--get"
                        || (arg.starts_with('-') && !arg.starts_with("--") && arg.contains('x'))
                });
            if !extracts {
                return Vec::new();
            }
            let directory = args
                .windows(2)
                .find(|pair| pair[0] == "-C" || pair[0] == "--directory")
                .map(|pair| pair[1].clone())
                .or_else(|| {
                    args.iter()
                        .find_map(|arg| arg.strip_prefix("--directory=").map(str::to_owned))
                })
                .unwrap_or_else(|| ".".to_owned());
            vec![spec(&directory, "tar (extract)", true)]
        }
        "systemctl" => {
            let positional = positional_args(
                args,
                "tHMps",
                &[
                    "type", "host", "machine", "property", "signal", "state", "root",
                ],
            );
            match positional.split_first() {
                Some((verb, units))
                    if *verb == "edit" || *verb == "revert" || *verb == "set-property" =>
                {
                    units
                        .iter()
                        .map(|unit| {
                            let unit = if unit.contains('.') {
                                (*unit).clone()
                            } else {
                                format!("{unit}.service")
                            };
                            spec(
                                &format!("/etc/systemd/system/{unit}.d/override.conf"),
                                &format!("systemctl {verb}"),
                                false,
                            )
                        })
                        .collect()
                }
                _ => Vec::new(),
            }
        }
        "find" => args
            .windows(2)
            .filter(|pair| {
                matches!(
                    pair[0].as_str(),
                    "-fprint" | "-fprint0" | "-fls" | "-fprintf"
                )
            })
            .map(|pair| spec(&pair[1], "find -fprint", false))
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn sed_scripts_are_read() {
        assert_eq!(sed_script_effects("s/a/b/e"), (vec![None], Vec::new()));
        assert_eq!(
            sed_script_effects("1e id"),
            (vec![Some("id".to_owned())], Vec::new())
        );
        assert_eq!(
            sed_script_effects("s/a/b/w /tmp/x"),
            (Vec::new(), vec!["/tmp/x".to_owned()])
        );
        assert_eq!(
            sed_script_effects("/foo/d;s/x/y/g"),
            (Vec::new(), Vec::new())
        );
        assert_eq!(sed_script_effects("s/e/E/g"), (Vec::new(), Vec::new()));
        assert!(sed_is_read_only(&words("-n 1,5p /etc/hosts")));
        assert!(!sed_is_read_only(&words("-i s/a/b/ /etc/hosts")));
        assert!(!sed_is_read_only(&words("-ni p x")));
    }

    #[test]
    fn wrappers_find_their_command() {
        assert_eq!(
            classify("sudo", &words("-u bob -- rm x")),
            Shape::Wrapper {
                inner_starts: 3,
                note: None
            }
        );
        assert_eq!(
            classify("timeout", &words("-s KILL 5 rm x")),
            Shape::Wrapper {
                inner_starts: 3,
                note: None
            }
        );
        assert_eq!(
            classify("bash", &words("-lc x")),
            Shape::Shell {
                payload: Payload::Argument(1)
            }
        );
        assert_eq!(classify("bash", &words("script.sh")), Shape::Plain);
        assert_eq!(
            classify("sh", &Vec::new()),
            Shape::Shell {
                payload: Payload::Stdin
            }
        );
        assert_eq!(
            classify("ssh", &words("-p 22 host rm -rf x")),
            Shape::Shell {
                payload: Payload::Joined(3)
            }
        );
        assert_eq!(
            classify("find", &words(". -name x -exec rm {} ;")),
            Shape::Find {
                execs: vec![(4, 6)]
            }
        );
        assert!(matches!(
            classify("python3", &words("-c x")),
            Shape::Interpreter { inline: Some(_) }
        ));
        assert_eq!(
            classify("python3", &words("manage.py migrate")),
            Shape::Plain
        );
    }
}
