//! Editors: vim and its relatives, nano, emacs, ed, … Editors are interactive: every file an editor
//! is given (operands, emacs `--file`) is a file it may write (a change to a lock-out file asks).
//! `vim -c`/`+cmd` run editor commands: `:!cmd` is analysed as if typed and asked, other Ex
//! commands it cannot follow ask, script files ask; emacs `--eval`/`-l`/`-f`/`--script` run Lisp
//! and ask; nano's `--speller` and `--rcfile` can name programs and ask. vim, nano and emacs
//! list every option; joe, micro, mcedit, mg and jed are still read loosely by their files. ed
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
        text: "@operands files
               # +CMD and +N are operands. The editor commands of -c, --cmd and +CMD and the files
               # of -u, -U and -i (NONE is harmless) are judged by the hook (vim below).
               --clean
               --cmd=COMMAND
               -c COMMAND
               -S FILE : unprovable runs the editor commands in a file
               -s FILE : unprovable types the keys in a file
               -u VIMRC
               -U GVIMRC
               -i VIMINFO
               -w FILE : writes
               -W FILE : writes
               -V[N] : harmless verbose; -V20FILE writes a log (the hook reads it)
               --log=FILE : writes
               --startuptime=FILE : writes
               -T TERMINAL
               -q ERRORFILE : reads
               -t TAG
               -o[N]
               -O[N]
               -p[N]
               -A, -b, -C, -d, -D, -e, -E, -f, -F, -g, -h, -H, -l, -L, -m, -M, -n, -N, -r, -R, -v, -x, -X, -y, -Z
               -nb[=X] : network connects to a NetBeans server
               --echo-wid
               --help
               --literal
               --nofork
               --noplugin
               --not-a-term
               --ttyfail
               --version
               --remote, --remote-silent, --remote-wait, --remote-wait-silent : unprovable edits files in another running vim
               --remote-send=KEYS : unprovable types keys into another running vim
               --remote-expr=EXPR : unprovable evaluates an expression in another running vim
               --remote-tab, --remote-tab-silent, --remote-tab-wait, --remote-tab-wait-silent : unprovable edits files in another running vim
               --serverlist
               --servername=NAME
               --socketid=ID",
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
        names: &["nano", "pico"],
        family: "editors",
        text: "@operands files
               # +LINE,COLUMN is an operand.
               -A, --smarthome
               -B, --backup
               -C DIR, --backupdir=DIR : writes-into
               -D, --boldtext
               -E, --tabstospaces
               -F, --multibuffer
               -G, --locking
               -H, --historylog
               -I, --ignorercfiles
               -J NUMBER, --guidestripe=NUMBER
               -K, --rawsequences
               -L, --nonewlines
               -M, --trimblanks
               -N, --noconvert
               -O, --bookstyle
               -P, --positionlog
               -Q REGEX, --quotestr=REGEX
               -R, --restricted
               -S, --softwrap
               -T NUMBER, --tabsize=NUMBER
               -U, --quickblank
               -V, --version
               -W, --wordbounds
               -X CHARS, --wordchars=CHARS
               -Y NAME, --syntax=NAME
               -Z, --zap
               -_, --minibar
               -0, --zero
               -a, --atblanks
               -b, --breaklonglines
               -c, --constantshow
               -d, --rebinddelete
               -e, --emptyline
               -f FILE, --rcfile=FILE : unprovable reads settings that can name programs it runs (speller, formatter, linter)
               -g, --showcursor
               -h, --help
               -i, --autoindent
               -j, --jumpyscrolling
               -k, --cutfromcursor
               -l, --linenumbers
               -m, --mouse
               -n, --noread
               -o DIR, --operatingdir=DIR
               -p, --preserve
               -q, --indicator
               -r NUMBER, --fill=NUMBER
               -s PROGRAM, --speller=PROGRAM : runs * runs the program it names as the spell checker
               -t, --saveonexit
               -u, --unix
               -v, --view
               -w, --nowrap
               -x, --nohelp
               -y, --afterends
               -%, --stateflags
               -!, --magic",
        hook: Some(editor),
    },
    Spec {
        names: &["emacs", "emacs-nox", "emacs-gtk"],
        family: "editors",
        text: "@operands files
               # +LINE[:COLUMN] is an operand; --file and its kin name files it edits (the hook).
               --batch, -batch
               --chdir=DIR, -chdir DIR
               --daemon[=NAME], -daemon[=NAME] : changes starts an editor server
               --bg-daemon[=NAME], -bg-daemon[=NAME] : changes starts an editor server
               --fg-daemon[=NAME], -fg-daemon[=NAME] : changes starts an editor server
               --debug-init, -debug-init
               --display=DISPLAY, -display DISPLAY
               --module-assertions, -module-assertions
               --no-build-details, -no-build-details
               --no-desktop, -no-desktop
               --no-init-file, -no-init-file
               --no-loadup, -no-loadup
               --no-site-file, -no-site-file
               --no-site-lisp, -no-site-lisp
               --no-splash, -no-splash
               --no-window-system, -no-window-system
               --no-x-resources, -no-x-resources
               --quick, -quick
               --script=FILE, -script FILE : unprovable runs the Lisp code in a file
               --terminal=DEVICE, -terminal DEVICE
               --user=USER, -user USER : unprovable loads another user's init file (Lisp code)
               --directory=DIR, -directory DIR : unprovable adds a folder Lisp code is loaded from
               --eval=EXPR, -eval EXPR : unprovable evaluates Lisp code
               --execute=EXPR, -execute EXPR : unprovable evaluates Lisp code
               --file=FILE, -file FILE
               --find-file=FILE, -find-file FILE
               --visit=FILE, -visit FILE
               --funcall=FUNC, -funcall FUNC : unprovable calls a Lisp function
               --insert=FILE, -insert FILE : reads
               --kill, -kill
               --load=FILE, -load FILE : unprovable runs the Lisp code in a file
               --dump-file=FILE, -dump-file FILE : unprovable loads Lisp state from a file
               --sandbox, -sandbox
               --background-color=COLOR, -background-color COLOR
               --basic-display, -basic-display
               --border-color=COLOR, -border-color COLOR
               --border-width=WIDTH, -border-width WIDTH
               --color[=MODE], -color[=MODE]
               --cursor-color=COLOR, -cursor-color COLOR
               --font=FONT, -font FONT
               --foreground-color=COLOR, -foreground-color COLOR
               --fullheight, -fullheight
               --fullscreen, -fullscreen
               --fullwidth, -fullwidth
               --maximized, -maximized
               --geometry=GEOMETRY, -geometry GEOMETRY
               --no-bitmap-icon, -no-bitmap-icon
               --iconic, -iconic
               --internal-border=WIDTH, -internal-border WIDTH
               --line-spacing=PIXELS, -line-spacing PIXELS
               --mouse-color=COLOR, -mouse-color COLOR
               --name=NAME, -name NAME
               --no-blinking-cursor, -no-blinking-cursor
               --reverse-video, -reverse-video
               --title=TITLE, -title TITLE
               --vertical-scroll-bars, -vertical-scroll-bars
               --xrm=XRESOURCES, -xrm XRESOURCES
               --parent-id=ID, -parent-id ID
               --help, -help
               --version, -version
               -L DIR : unprovable adds a folder Lisp code is loaded from
               -l FILE : unprovable runs the Lisp code in a file
               -f FUNC : unprovable calls a Lisp function
               -t DEVICE
               -u USER : unprovable loads another user's init file (Lisp code)
               -d DISPLAY
               -T TITLE
               -q
               -Q
               -D
               -nw
               -nl
               -nsl
               -bg COLOR
               -bd COLOR
               -bw WIDTH
               -cr COLOR
               -fn FONT
               -fg COLOR
               -fh
               -fs
               -fw
               -mm
               -g GEOMETRY
               -ib WIDTH
               -lsp PIXELS
               -ms COLOR
               -nbc
               -nbi
               -r
               -rv
               -vb",
        hook: Some(emacs),
    },
    Spec {
        names: &["joe", "micro", "mcedit", "sudoedit", "mg", "jed"],
        family: "editors",
        text: "@loose
               @opaque",
        hook: Some(editor),
    },
];

fn editor(call: &Call<'_>, verdict: &mut Verdict) {
    let how = format!("{} (editor)", call.name);
    // A complete spec has read the options; the loose ones are read here by letter.
    let files: Vec<&str> = if call.level().opaque {
        positional_args(call.args, "cSsTuUwWiq", &[])
            .into_iter()
            .map(String::as_str)
            .collect()
    } else {
        call.operand_texts()
    };
    for file in files.into_iter().filter(|arg| !arg.starts_with('+')) {
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

/// emacs: the files `--file`, `--find-file` and `--visit` name are edited like its operands.
fn emacs(call: &Call<'_>, verdict: &mut Verdict) {
    for spelling in ["--file", "--find-file", "--visit"] {
        for (file, _) in call.values(spelling) {
            verdict.output(file, format!("{} {spelling}", call.name), false);
        }
    }
    editor(call, verdict);
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
                // `-V20/tmp/log`: the verbose messages go to a file.
                verbose if verbose.starts_with("-V") => {
                    let file = verbose[2..].trim_start_matches(|c: char| c.is_ascii_digit());
                    if !file.is_empty() {
                        fx.output(file, format!("{name} -V"), false);
                    }
                }
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
