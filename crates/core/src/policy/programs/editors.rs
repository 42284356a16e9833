//! Editors: vim and its relatives, nano, emacs, joe, micro, mcedit, mg, jed, ed. Editors are
//! interactive: every file an editor is given (operands, emacs `--file`, mcedit `--edit`, joe's
//! `>>FILE`, micro's and mcedit's `FILE:LINE`) is a file it may write (a change to a lock-out file
//! asks). `vim -c`/`+cmd` run editor commands: `:!cmd` is analysed as if typed and asked, other
//! Ex commands it cannot follow ask, script files ask; emacs `--eval`/`-l`/`-f`/`--script`, jed's
//! `-l`/`-f`/`-hook`/`-script`, mg's `-b`/`-u` and micro's `-config-dir` run editor code and ask;
//! nano's `--speller` and `--rcfile` and micro's `-sucmd` can name programs and ask; joe's
//! `!cmd` file runs the command, analysed as typed. Each lists every option (sudoedit's `-D` and
//! `-R` move where its files are, and ask). ed has a complete spec of its own (its `-s`
//! takes no value) and reads its commands from standard input: fed anything but the terminal, it
//! asks.

use super::args::Call;
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
               # +CMD and +N are operands; the editor commands of +CMD are judged by the hook too.
               --clean
               --cmd=COMMAND : judged `:!cmd` is analysed as typed; other commands it cannot follow ask
               -c COMMAND : judged `:!cmd` is analysed as typed; other commands it cannot follow ask
               -S FILE : unprovable runs the editor commands in a file
               -s FILE : unprovable types the keys in a file
               -u VIMRC : judged a settings file (NONE and NORC are harmless; any other asks)
               -U GVIMRC : judged a settings file (NONE and NORC are harmless; any other asks)
               -i VIMINFO : judged a state file (NONE is harmless; any other asks)
               -w FILE : writes
               -W FILE : writes
               -V[N] : judged verbose; -V20FILE writes the log FILE
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
               --socketid=ID
               -es, -Es : unprovable runs the editor commands it reads on standard input
               # nvim's own
               --headless
               --api-info
               --embed : unprovable takes its editor commands from standard input
               --listen=ADDRESS : unprovable takes editor commands from whatever connects to the address
               --server=ADDRESS : unprovable sends editor commands to another running nvim",
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
               # +LINE[:COLUMN] is an operand.
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
               --file=FILE, -file FILE : judged a file it edits (a lock-out file asks)
               --find-file=FILE, -find-file FILE : judged a file it edits (a lock-out file asks)
               --visit=FILE, -visit FILE : judged a file it edits (a lock-out file asks)
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
        names: &["joe"],
        family: "editors",
        text: "@operands files
               # Options are single-dash words (`-wordwrap`); a double dash turns a flag off (`--wordwrap`).
               # +N is an operand; `!cmd`, `>>FILE` and `FILE,START,SIZE` operands are read by the hook.
               -asis, --asis
               -assume_256color, --assume_256color
               -assume_color, --assume_color
               -autoswap, --autoswap
               -beep, --beep
               -break_links, --break_links
               -break_hardlinks, --break_hardlinks
               -brpaste, --brpaste
               -csmode, --csmode
               -dopadding, --dopadding
               -exask, --exask
               -floatmouse, --floatmouse
               -guess_crlf, --guess_crlf
               -guess_indent, --guess_indent
               -guess_non_utf8, --guess_non_utf8
               -guess_utf8, --guess_utf8
               -guess_utf16, --guess_utf16
               -helpon, --helpon
               -help_is_utf8, --help_is_utf8
               -icase, --icase
               -joe_state, --joe_state
               -joexterm, --joexterm
               -keepup, --keepup
               -lightoff, --lightoff
               -marking, --marking
               -menu_above, --menu_above
               -menu_explorer, --menu_explorer
               -menu_jump, --menu_jump
               -mid, --mid
               -mouse, --mouse
               -nobackups, --nobackups
               -nocurdir, --nocurdir
               -noexmsg, --noexmsg
               -nolinefeeds, --nolinefeeds
               -nolocks, --nolocks
               -nomodcheck, --nomodcheck
               -nonotice, --nonotice
               -nosta, --nosta
               -notagsmenu, --notagsmenu
               -notite, --notite
               -pastehack, --pastehack
               -noxon, --noxon
               -orphan, --orphan
               -regex, --regex
               -restore, --restore
               -rtbutton, --rtbutton
               -search_prompting, --search_prompting
               -square, --square
               -transpose, --transpose
               -title, --title
               -usetabs, --usetabs
               -wrap, --wrap
               -autoindent, --autoindent
               -c_comment, --c_comment
               -cpp_comment, --cpp_comment
               -crlf, --crlf
               -flowed, --flowed
               -force, --force
               -french, --french
               -hex, --hex
               -highlight, --highlight
               -highlighter_context, --highlighter_context
               -indentfirst, --indentfirst
               -linums, --linums
               -overwrite, --overwrite
               -picture, --picture
               -pound_comment, --pound_comment
               -purify, --purify
               -rdonly, --rdonly
               -semi_comment, --semi_comment
               -single_quoted, --single_quoted
               -smartbacks, --smartbacks
               -smarthome, --smarthome
               -spaces, --spaces
               -vhdl_comment, --vhdl_comment
               -wordwrap, --wordwrap
               -text_color COLOR
               -status_color COLOR
               -help_color COLOR
               -menu_color COLOR
               -prompt_color COLOR
               -msg_color COLOR
               -baud N
               -columns N
               -language LANGUAGE
               -lines N
               -left N
               -right N
               -pg N
               -skiptop N
               -type TYPE
               -undo_keep N
               -cpara CHARS
               -cnotpara CHARS
               -encoding ENCODING
               -indentc N
               -istep N
               -lmargin N
               -lmsg STRING
               -rmargin N
               -rmsg STRING
               -smsg STRING
               -syntax SYNTAX
               -tab N
               -text_delimiters WORDS
               -zmsg STRING
               -xmsg STRING
               -aborthint STRING
               -helphint STRING
               -backpath DIR : writes-into",
        hook: Some(joe),
    },
    Spec {
        names: &["micro"],
        family: "editors",
        text: "@operands files
               # Options are single-dash words; every setting is `-NAME VALUE`. +LINE:COL is an operand,
               # FILE:LINE:COL names FILE (the hook).
               -clean
               -config-dir DIR : unprovable loads settings and plugins (Lua code) from a folder
               -options
               -debug : changes writes log.txt in the current folder
               -version
               -help, -h
               -plugin ACTION : unprovable manages plugins (install and update download code micro runs)
               -autosu VALUE : changes saves files it cannot write through sudo (or the program -sucmd names)
               -sucmd PROGRAM : runs sudo doas
               -backupdir DIR : writes-into
               -basename VALUE
               -autoindent VALUE
               -autosave VALUE
               -backup VALUE
               -clipboard VALUE
               -colorcolumn VALUE
               -colorscheme VALUE
               -cursorline VALUE
               -diffgutter VALUE
               -divchars VALUE
               -divreverse VALUE
               -encoding VALUE
               -eofnewline VALUE
               -fastdirty VALUE
               -fileformat VALUE
               -filetype VALUE
               -hlsearch VALUE
               -ignorecase VALUE
               -incsearch VALUE
               -indentchar VALUE
               -infobar VALUE
               -keepautoindent VALUE
               -keymenu VALUE
               -matchbrace VALUE
               -mkparents VALUE
               -mouse VALUE
               -parsecursor VALUE
               -paste VALUE
               -permbackup VALUE
               -pluginchannels VALUE
               -pluginrepos VALUE
               -readonly VALUE
               -relativeruler VALUE
               -rmtrailingws VALUE
               -ruler VALUE
               -savecursor VALUE
               -savehistory VALUE
               -saveundo VALUE
               -scrollbar VALUE
               -scrollmargin VALUE
               -scrollspeed VALUE
               -smartpaste VALUE
               -softwrap VALUE
               -splitbottom VALUE
               -splitright VALUE
               -statusformatl VALUE
               -statusformatr VALUE
               -statusline VALUE
               -syntax VALUE
               -tabhighlight VALUE
               -tabmovement VALUE
               -tabreverse VALUE
               -tabsize VALUE
               -tabstospaces VALUE
               -useprimary VALUE
               -wordwrap VALUE
               -xterm VALUE",
        hook: Some(editor),
    },
    Spec {
        names: &["mcedit"],
        family: "editors",
        text: "@operands files
               # +N is an operand; FILE:N names FILE (the hook).
               -h, --help
               --help-all
               --help-terminal
               --help-color
               -x, --xterm
               -X, --no-x11
               -g, --oldmouse
               -d, --nomouse
               -t, --termcap
               -s, --slow
               -a, --stickchars
               -k, --resetsoft
               -K FILE, --keymap=FILE : reads
               --nokeymap
               -b, --nocolor
               -c, --color
               -C STRING, --colors=STRING
               -S SKIN, --skin=SKIN
               -V, --version
               -f, --datadir
               -F, --datadir-info
               --configure-options
               -P FILE, --printwd=FILE : writes
               -U, --subshell
               -u, --nosubshell
               -l FILE, --ftplog=FILE : writes
               -v FILE, --view=FILE : reads
               -e, --edit[=FILE] : judged a file it edits (a lock-out file asks)",
        hook: Some(mcedit),
    },
    Spec {
        names: &["mg"],
        family: "editors",
        text: "@operands files
               # +N is an operand.
               -b FILE : unprovable runs the editor commands in a file
               -f MODE
               -n
               -R
               -u FILE : unprovable reads a startup file of editor commands (which can run shell commands)",
        hook: Some(editor),
    },
    Spec {
        names: &["jed"],
        family: "editors",
        text: "@operands files
               # Any other --NAME calls the S-Lang function NAME: unknown, it asks.
               --version
               --help
               --batch
               -n
               -e EMULATION
               -a FILE : unprovable reads another startup file (S-Lang code)
               -g LINE
               -s STRING
               -l FILE : unprovable runs the S-Lang code in a file
               -f FUNCTION : unprovable calls an S-Lang function
               -i FILE : reads
               -2
               -tmp
               -hook FUNCTION : unprovable calls an S-Lang function with the rest of the arguments
               -script FILE : unprovable runs the S-Lang code in a file",
        hook: Some(editor),
    },
    Spec {
        names: &["sudoedit"],
        family: "editors",
        text: "@posix
               -A, --askpass
               -B, --bell
               -C NUM, --close-from=NUM
               -D DIR, --chdir=DIR : unprovable relative files are found from another folder
               -g GROUP, --group=GROUP
               -h[HOST]
               --help
               --host=HOST
               -k, --reset-timestamp
               -N, --no-update
               -n, --non-interactive
               -p PROMPT, --prompt=PROMPT
               -R DIR, --chroot=DIR : unprovable the files are under another root
               -r ROLE, --role=ROLE
               -S, --stdin
               -t TYPE, --type=TYPE
               -T TIMEOUT, --command-timeout=TIMEOUT
               -u USER, --user=USER
               -V, --version",
        hook: Some(editor),
    },
];

fn editor(call: &Call<'_>, verdict: &mut Verdict) {
    let how = format!("{} (editor)", call.name);
    for file in call
        .operand_texts()
        .into_iter()
        .filter(|arg| !arg.starts_with('+'))
    {
        edits(call.name, file, &how, verdict);
    }
    verdict.not_read_only(format!(
        "`{}` is not on plan mode's list of read-only commands",
        call.display()
    ));
}

/// One file an editor is given: micro and mcedit also read `FILE:LINE[:COLUMN]` as FILE at a line,
/// so both the word and the file it may name are files it writes.
fn edits(name: &str, file: &str, how: &str, verdict: &mut Verdict) {
    verdict.output(file, how, false);
    if matches!(name, "micro" | "mcedit") {
        let mut named = file;
        for _ in 0..2 {
            match named.rsplit_once(':') {
                Some((before, number))
                    if !before.is_empty()
                        && !number.is_empty()
                        && number.chars().all(|c| c.is_ascii_digit()) =>
                {
                    named = before;
                }
                _ => break,
            }
        }
        if named != file {
            verdict.output(named, how, false);
        }
    }
}

/// joe: a file operand `!cmd` runs the command (its output is edited, or the file written to it),
/// `>>FILE` appends to FILE and `FILE,START,SIZE` edits part of FILE.
fn joe(call: &Call<'_>, verdict: &mut Verdict) {
    let how = format!("{} (editor)", call.name);
    for (file, index) in call.operand_texts().into_iter().zip(call.operands.clone()) {
        if file.starts_with('+') || file == "-" {
            continue;
        }
        if let Some(command) = file.strip_prefix('!') {
            run_any(verdict, command, "joe !command", Some(index), false);
            continue;
        }
        let file = file.strip_prefix(">>").unwrap_or(file);
        verdict.output(file, &how, false);
        // `FILE,START,SIZE`: the part of FILE from START, SIZE bytes long.
        let mut parts = file.rsplitn(3, ',');
        if let (Some(size), Some(start), Some(named)) = (parts.next(), parts.next(), parts.next())
            && [size, start].iter().all(|number| {
                !number.is_empty() && number.chars().all(|c| c.is_ascii_hexdigit() || c == 'x')
            })
        {
            verdict.output(named, &how, false);
        }
    }
    verdict.not_read_only(format!(
        "`{}` is not on plan mode's list of read-only commands",
        call.display()
    ));
}

/// mcedit: the files `--edit` names are edited like its operands.
fn mcedit(call: &Call<'_>, verdict: &mut Verdict) {
    let how = format!("{} (editor)", call.name);
    for (file, _) in call.values("--edit") {
        edits(call.name, file, &how, verdict);
    }
    editor(call, verdict);
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
