//! Editors: vim and its relatives, nano, emacs, ed, … The files an editor is given are files it
//! may write (a change to a lock-out file asks); `vim -c`/`+cmd` run editor commands: `:!cmd` is
//! analysed as if typed and asked, other Ex commands it cannot follow ask, script files ask. ed
//! has a complete spec of its own (its `-s` takes no value) and reads its commands from standard
//! input: fed anything but the terminal, it asks.

use super::args::Call;
use super::common::positional_args;
use super::common::run_any;
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &[
            "vi",
            "vim",
            "nvim",
            "view",
            "ex",
            "rvim",
            "rview",
            "vimdiff",
            "vim.tiny",
            "vim.basic",
            "gvim",
        ],
        family: "editors",
        text: "@loose
               @opaque",
        hook: Some(vim_hook),
    },
    Spec {
        names: &["ed", "red"],
        family: "editors",
        text: "@operands files
               -h, --help
               -V, --version
               -E, --extended-regexp
               -G, --traditional
               -l, --loose-exit-status
               -p STRING, --prompt=STRING
               -q, --quiet, --silent
               -r, --restricted
               -s, --script
               -v, --verbose
               --strip-trailing-cr",
        hook: Some(ed),
    },
    Spec {
        names: &[
            "nano", "emacs", "joe", "micro", "mcedit", "pico", "sudoedit", "mg", "jed",
        ],
        family: "editors",
        text: "@loose
               @opaque",
        hook: Some(editor),
    },
];

fn editor(call: &Call<'_>, verdict: &mut Verdict) {
    let how = format!("{} (editor)", call.name);
    for file in positional_args(call.args, "cSsTuUwWiq", &[])
        .into_iter()
        .filter(|arg| !arg.starts_with('+'))
    {
        verdict.output(file, how.clone(), false);
    }
    verdict.not_read_only(format!(
        "`{}` is not on plan mode's list of read-only commands",
        call.display()
    ));
}

/// ed: the file it is given is a file it writes (`w`), its commands come from standard input
/// (`ed -s F < script` runs what the script says, `!cmd` included), and a file name starting with
/// `!` reads a shell command's output.
fn ed(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.commands_on_stdin = true;
    for (file, index) in call.operand_texts().into_iter().zip(call.operands.clone()) {
        match file.strip_prefix('!') {
            Some(command) => run_any(verdict, command, "ed !command", Some(index), false),
            None => verdict.output(file, format!("{} (editor)", call.name), false),
        }
    }
    verdict.not_read_only(format!(
        "`{}` is not on plan mode's list of read-only commands",
        call.display()
    ));
}

fn vim_hook(call: &Call<'_>, verdict: &mut Verdict) {
    vim(call.name, call.args, verdict);
    editor(call, verdict);
}

/// vim and friends: `-c`/`--cmd`/`+` commands (`:!cmd` is analysed as typed; other Ex commands
/// cannot be followed), script files, and Ex mode fed on standard input.
fn vim(name: &str, args: &[String], fx: &mut Verdict) {
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
                        fx.unprovable(format!(
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

fn vim_command(name: &str, command: &str, source: usize, fx: &mut Verdict) {
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
        run_any(fx, shell, format!("{name} -c ':!…'"), Some(source), false);
        return;
    }
    for prefix in ["r !", "r!", "read !", "w !", "write !"] {
        if let Some(shell) = body.strip_prefix(prefix) {
            run_any(
                fx,
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
    fx.unprovable(format!(
        "`{name}` runs the editor command `{text}`, which this analysis cannot follow"
    ));
}
