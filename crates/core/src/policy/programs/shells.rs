//! Shells and interpreters: `bash -c '…'` and `sh` fed on standard input run shell code (the walker
//! analyses it as typed), `bash script.sh` and `. file` run a file, `python3 -c …`/`perl -e …` run
//! inline code this analysis cannot read (their literal `system("…")` strings are still analysed
//! so a forbidden command in them denies), and the builtins that change what later commands run
//! (`eval`, `trap`, `alias`, `hash -p`, `enable -f`).
//!
//! The shells are read by the code below (`@opaque`), not by a table: their options only decide
//! where the command string or script file is, or that startup code runs first (`fish -C`, `bash
//! --rcfile`), which asks. Other options the code does not know are not a reason to ask yet
//! (zsh's long option names are open-ended).

use super::args::Call;
use super::common::has_flag;
use super::spec::Spec;
use super::verdict::{Payload, Prints, Shape, Verdict};

pub const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "rbash", "yash", "csh", "tcsh",
];

pub const SPECS: &[Spec] = &[
    Spec {
        names: SHELLS,
        family: "shells",
        text: "@opaque
               @read-only",
        hook: Some(shell),
    },
    Spec {
        names: &["eval"],
        family: "shells",
        text: "@opaque",
        hook: Some(eval),
    },
    Spec {
        names: &["source", "."],
        family: "shells",
        text: "@opaque",
        hook: Some(source),
    },
    Spec {
        names: &["trap", "alias", "hash", "enable"],
        family: "shells",
        text: "@opaque
               @read-only",
        hook: Some(builtins),
    },
    Spec {
        names: &[
            "echo",
            "printf",
            "true",
            "false",
            "test",
            "[",
            "cd",
            "pushd",
            "popd",
            "dirs",
            "exit",
            "jobs",
            "type",
            "which",
            "whereis",
            "ulimit",
            "tput",
            "stty",
            ":",
            "wait",
            "return",
            "shift",
            "read",
            "fg",
            "bg",
            "disown",
            "times",
            "caller",
            "help",
            "logout",
            "getopts",
            "mapfile",
            "readarray",
            "unalias",
            "suspend",
            "set",
            "shopt",
            "umask",
        ],
        family: "shells",
        text: "@opaque
               @read-only",
        hook: Some(shell_builtins),
    },
    Spec {
        names: &[
            "python",
            "pypy",
            "perl",
            "ruby",
            "php",
            "lua",
            "luajit",
            "node",
            "nodejs",
            "deno",
            "bun",
            "Rscript",
            "R",
            "tclsh",
            "wish",
            "expect",
            "osascript",
            "pwsh",
            "powershell",
            "jshell",
            "groovy",
            "irb",
        ],
        family: "shells",
        text: "@opaque",
        hook: Some(interpreter),
    },
];

fn shell(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let mut index = 0;
    let mut command_string = false;
    let mut read_stdin = false;
    // Startup code given on the command line (`fish -C CMD`, `bash --rcfile FILE`) runs before
    // anything else and cannot be followed here.
    let mut startup: Option<String> = None;
    while index < args.len() {
        let arg = &args[index];
        if arg == "--" || arg == "-" {
            index += 1;
            break;
        }
        if call.name == "fish" && (arg == "-C" || arg.starts_with("--init-command")) {
            startup = Some(format!(
                "`fish {arg}` runs a command line as the shell starts"
            ));
        }
        if let Some(long) = arg.strip_prefix("--") {
            if matches!(long, "rcfile" | "init-file") {
                startup = Some(format!("`{} --{long}` runs a startup file", call.name));
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
    if let Some(reason) = startup {
        verdict.shape = Shape::Unprovable(reason);
        return;
    }
    verdict.shape = if command_string {
        if index < args.len() {
            Shape::Shell {
                payload: Payload::Argument(index),
            }
        } else {
            Shape::Unprovable("a shell `-c` without a command string".to_owned())
        }
    } else if index < args.len() && !read_stdin {
        // A script file: like running any program.
        verdict.script_file = Some(index);
        verdict.script_is_shell = true;
        Shape::Plain
    } else {
        Shape::Shell {
            payload: Payload::Stdin,
        }
    };
}

fn eval(_call: &Call<'_>, verdict: &mut Verdict) {
    verdict.shape = Shape::Eval;
}

fn source(call: &Call<'_>, verdict: &mut Verdict) {
    if call.args.is_empty() {
        verdict.unprovable(format!("`{}` without a file", call.name));
    } else {
        verdict.script_file = Some(0);
        verdict.script_is_shell = true;
    }
}

fn builtins(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let reason = match call.name {
        "trap" if args.iter().any(|arg| !arg.starts_with('-')) => {
            "`trap` sets commands that run later, when a signal arrives"
        }
        "alias" if args.iter().any(|arg| arg.contains('=')) => {
            "`alias` changes what a later command name runs"
        }
        "hash" if has_flag(args, 'p', "") => "`hash -p` changes which program a command name runs",
        "enable" if has_flag(args, 'f', "") => "`enable -f` loads code into the shell",
        _ => {
            let changes = match call.name {
                "hash" => !args.is_empty(),
                "enable" => true,
                _ => false,
            };
            if changes {
                verdict.not_read_only(format!(
                    "`{}` is not read-only with these arguments (plan mode allows only reading forms)",
                    call.display()
                ));
            }
            return;
        }
    };
    verdict.shape = Shape::Unprovable(reason.to_owned());
    verdict.not_read_only(format!("`{}` {reason}", call.display()));
}

/// The interpreter family of a name (`python3.11` → python), as the registry found it.
fn family(name: &str) -> &'static str {
    if name.starts_with("python") || name.starts_with("pypy") {
        "python"
    } else if name.starts_with("perl") {
        "perl"
    } else if name.starts_with("ruby") {
        "ruby"
    } else if name.starts_with("php") {
        "php"
    } else if name.starts_with("lua") {
        "lua"
    } else if matches!(name, "node" | "nodejs" | "deno" | "bun") {
        "node"
    } else if matches!(name, "Rscript" | "R") {
        "r"
    } else {
        "other"
    }
}

/// Interpreters and the flags that give them inline code.
fn interpreter(call: &Call<'_>, verdict: &mut Verdict) {
    let name = call.name;
    let args = call.args;
    let family = family(name);
    verdict.not_read_only(format!(
        "`{}` is not on plan mode's list of read-only commands",
        call.display()
    ));
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
        verdict.shape = Shape::Interpreter {
            inline: Some("eval".to_owned()),
        };
        return;
    }
    if let Some(code) = inline_code(family, args) {
        system_calls(name, &code, verdict);
    }
    if inline.is_some() {
        verdict.shape = Shape::Interpreter { inline };
        return;
    }
    // `python -m module` and a script file run code from files; only stdin is unreadable.
    if args.iter().any(|arg| arg == "-m") {
        return;
    }
    if let Some(index) = script_argument(args) {
        verdict.script_file = Some(index);
        return;
    }
    verdict.shape = Shape::Interpreter { inline: None };
}

/// The first word that is not an option: the script an interpreter runs.
fn script_argument(args: &[String]) -> Option<usize> {
    let mut index = 0;
    while let Some(word) = args.get(index) {
        if word == "--" {
            return (index + 1 < args.len()).then_some(index + 1);
        }
        if (word.starts_with('-') || word.starts_with('+')) && word.len() > 1 {
            index += 1;
            continue;
        }
        return Some(index);
    }
    None
}

/// Inline program code of an interpreter (`python3 -c CODE`, `perl -e CODE`, `node -e CODE`).
fn inline_code(family: &str, args: &[String]) -> Option<String> {
    let letters = match family {
        "python" => "c",
        "perl" | "ruby" | "node" => "eE",
        "php" => "r",
        _ => return None,
    };
    let position = args.iter().position(|arg| {
        arg.starts_with('-')
            && !arg.starts_with("--")
            && arg.len() > 1
            && arg.ends_with(|c: char| letters.contains(c))
    })?;
    args.get(position + 1).cloned()
}

/// Command strings an inline program passes to `system`, `popen`, `exec`, `subprocess.*`,
/// backticks and `qx`: analysed as typed so a forbidden program in them is denied. (The inline
/// code itself still asks: the analysis cannot read a program.)
pub fn system_calls(name: &str, code: &str, verdict: &mut Verdict) {
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
                verdict.script(&command, format!("{name} {call}…)"), None, false);
            }
            rest = after;
        }
    }
    // Backticks (perl, ruby, php) and perl's qx.
    let mut parts = code.split('`');
    parts.next();
    while let (Some(command), Some(_)) = (parts.next(), parts.clone().next()) {
        verdict.script(command, format!("{name} `…`"), None, false);
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
                verdict.script(&after[..end], format!("{name} qx"), None, false);
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

/// The shell's own commands: they read, except the forms below.
/// What the printing builtins print (see [`super::prints`]): `:`, `true` and `false` nothing;
/// `echo` its arguments after its leading options (`echo -n rm -f x` prints `rm -f x`), nothing
/// with `-n` and no text; `printf` its format, nothing when the format is empty, unknown with an
/// option (`printf -v var`).
pub(super) fn prints(name: &str, args: &[String]) -> Option<Prints> {
    match name {
        ":" | "true" | "false" => Some(Prints::Nothing),
        "echo" => {
            let is_option = |text: &str| {
                text.len() > 1
                    && text.starts_with('-')
                    && text[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
            };
            let options = args.iter().take_while(|arg| is_option(arg));
            let no_newline = options.clone().any(|option| option.contains('n'));
            let text = args[options.count()..].join(" ");
            Some(if no_newline && text.is_empty() {
                Prints::Nothing
            } else {
                Prints::Text(text)
            })
        }
        "printf" => {
            let format = match args.first().map(String::as_str) {
                Some("--") => args.get(1)?,
                Some(format) if !format.starts_with('-') => args.first()?,
                _ => return None,
            };
            Some(if format.is_empty() {
                Prints::Nothing
            } else {
                Prints::Text(format.replace("\\n", "\n"))
            })
        }
        _ => None,
    }
}

fn shell_builtins(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    verdict.changes_folder = matches!(call.name, "cd" | "pushd");
    let positional = || {
        args.iter()
            .filter(|arg| !arg.starts_with('-') && !arg.starts_with('+'))
    };
    let changes = match call.name {
        "set" => !(args.is_empty() || args.iter().all(|arg| arg == "-o" || arg == "+o")),
        "shopt" => !(args.is_empty() || has_flag(args, 'p', "")),
        "umask" | "ulimit" => positional().next().is_some(),
        _ => false,
    };
    if changes {
        verdict.not_read_only(format!(
            "`{}` is not read-only with these arguments (plan mode allows only reading forms)",
            call.display()
        ));
    }
    if matches!(call.name, "mapfile" | "readarray")
        && let Some(callback) = mapfile_callback(args)
    {
        verdict.unprovable(format!(
            "`{} -C {callback}` runs the callback (shell code) as it reads lines; what it does cannot be checked here",
            call.name
        ));
    }
}

/// The callback of `mapfile -C CALLBACK` (also `-tC cb`, `-Ccb`); its other options with a value
/// are `-d -n -O -s -u -c`.
fn mapfile_callback(args: &[String]) -> Option<String> {
    let mut index = 0;
    while index < args.len() {
        let arg = &args[index];
        if arg == "--" || !arg.starts_with('-') || arg == "-" {
            return None;
        }
        for (position, letter) in arg.char_indices().skip(1) {
            if "dnOsucC".contains(letter) {
                let rest = &arg[position + 1..];
                let value = if rest.is_empty() {
                    index += 1;
                    args.get(index).cloned().unwrap_or_default()
                } else {
                    rest.to_owned()
                };
                if letter == 'C' {
                    return Some(value);
                }
                break;
            }
        }
        index += 1;
    }
    None
}
