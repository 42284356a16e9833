//! Text tools: sed, awk, grep and its relatives, pagers (less, more), man, rg, ag, jq, xxd.
//!
//! They read; what else they do is decided here: `sed -i` and `sed w FILE` write, a sed `e`
//! command runs a program, awk's `system()`, `print | "cmd"` and `"cmd" | getline` run programs
//! and `print > "file"` writes, `less +!cmd` runs a command and `less -o FILE` writes, `man -P`
//! runs a pager. A program run that way is analysed as if typed, and asks: it is not what the
//! text tool is for.

use super::args::Call;
use super::common::positional;
use super::common::run_any;
use super::model::Runs;
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["grep", "egrep", "fgrep", "rgrep", "zgrep", "zegrep", "zfgrep"],
        family: "text",
        text: "@read-only
               @operands args
               @numeric
               -E, --extended-regexp
               -F, --fixed-strings
               -G, --basic-regexp
               -P, --perl-regexp
               -e X, --regexp=X
               -f X, --file=X : reads
               -i, --ignore-case
               --no-ignore-case
               -w, --word-regexp
               -x, --line-regexp
               -z, --null-data
               -s, --no-messages
               -v, --invert-match
               -V, --version
               --help
               -m X, --max-count=X
               -b, --byte-offset
               -n, --line-number
               --line-buffered
               -H, --with-filename
               -h, --no-filename
               --label=X
               -o, --only-matching
               -q, --quiet, --silent
               --binary-files=X
               -a, --text
               -I
               -d X, --directories=X
               -D X, --devices=X
               -r, --recursive
               -R, --dereference-recursive
               --include=X
               --exclude=X
               --exclude-from=X : reads
               --exclude-dir=X
               -L, --files-without-match
               -l, --files-with-matches
               -c, --count
               -T, --initial-tab
               -Z, --null
               -B X, --before-context=X
               -A X, --after-context=X
               -C X, --context=X
               --group-separator=X
               --no-group-separator
               --colour[=X]
               -U, --binary
               --color[=WHEN]",
        hook: None,
    },
    Spec {
        names: &["sed", "gsed"],
        family: "text",
        text: "@read-only
               @operands args
               -e SCRIPT, --expression=SCRIPT
               -f FILE, --file=FILE : reads
               -n, --quiet, --silent
               --debug
               --follow-symlinks
               -i[X], --in-place[=X]
               -l X, --line-length=X
               --posix
               -E, -r, --regexp-extended
               -s, --separate
               --sandbox
               -u, --unbuffered
               -z, --null-data
               --help
               --version",
        hook: Some(sed),
    },
    Spec {
        names: &["man"],
        family: "text",
        text: "@read-only
               @operands args
               -C X, --config-file=X : unprovable reads man's configuration from a file, which can name programs
               -d, --debug
               -D, --default
               --warnings[=X]
               -f, --whatis
               -k, --apropos
               -K, --global-apropos
               -l, --local-file
               -w, --where, --path, --location
               -W, --where-cat, --location-cat
               -c, --catman
               -R X, --recode=X
               -L X, --locale=X
               -m X, --systems=X
               -M X, --manpath=X
               -S X, -s X, --sections=X
               -e X, --extension=X
               -i, --ignore-case
               -I, --match-case
               --regex
               --wildcard
               --names-only
               -a, --all
               -u, --update
               --no-subpages
               -P X, --pager=X : runs less more most cat bat
               -r X, --prompt=X
               -7, --ascii
               -E X, --encoding=X
               --no-justification
               -p X, --preprocessor=X
               -t, --troff
               -T
               --troff-device[=X]
               -X
               --gxditview[=X] : harmless
               -Z, --ditroff
               -?, --help
               --usage
               -V, --version
               -H[BROWSER] : runs+ firefox lynx w3m links elinks chromium x-www-browser
               --html[=BROWSER] : runs+ firefox lynx w3m links elinks chromium x-www-browser
               --nh, --no-hyphenation
               --nj",
        hook: None,
    },
    Spec {
        names: &["awk", "gawk", "mawk", "nawk", "busybox-awk"],
        family: "text",
        text: "@read-only
               @opaque",
        hook: Some(awk),
    },
    Spec {
        names: &["less", "more", "most", "pager"],
        family: "text",
        text: "@read-only
               @opaque",
        hook: Some(less),
    },
    Spec {
        names: &["rg"],
        family: "text",
        text: "@read-only
               @loose
               --pre=COMMAND : runs *
               --hostname-bin=COMMAND : runs *
               -f PATTERNFILE, --file=PATTERNFILE : reads
               --ignore-file=PATH : reads
               -e PATTERN, --regexp=PATTERN
               -g GLOB, --glob=GLOB
               -t TYPE, --type=TYPE
               -T TYPE, --type-not=TYPE
               -A NUM, --after-context=NUM
               -B NUM, --before-context=NUM
               -C NUM, --context=NUM
               -m NUM, --max-count=NUM
               -d NUM, --max-depth=NUM
               -j NUM, --threads=NUM
               -r REPLACEMENT, --replace=REPLACEMENT
               -M NUM, --max-columns=NUM
               -E ENCODING, --encoding=ENCODING
               --type-add=TYPESPEC
               --color=WHEN
               --colors=SPEC
               --sort=SORTBY
               --sortr=SORTBY
               --max-filesize=NUM
               --path-separator=SEP
               --field-match-separator=SEP
               --field-context-separator=SEP
               --context-separator=SEP
               --pre-glob=GLOB
               --iglob=GLOB
               --engine=ENGINE
               --generate=KIND
               --dfa-size-limit=NUM
               --regex-size-limit=NUM
               --hyperlink-format=FORMAT",
        hook: None,
    },
    Spec {
        names: &["ag"],
        family: "text",
        text: "@read-only
               @loose
               --pager=PAGER : runs less more most cat
               -p PATH, --path-to-ignore=PATH : reads
               -G PATTERN, --file-search-regex=PATTERN
               -A NUM, --after=NUM
               -B NUM, --before=NUM
               -C NUM, --context=NUM
               -m NUM, --max-count=NUM
               --depth=NUM
               --ignore=PATTERN
               --workers=NUM",
        hook: None,
    },
    Spec {
        names: &[
            "jq", "column", "diff", "cmp", "hexdump", "strings", "rev", "look", "tree", "file",
            "namei", "getent", "getfacl", "lsattr", "whatis", "apropos", "info", "numfmt", "od",
            "colordiff", "zdiff", "zcmp",
        ],
        family: "text",
        text: "@read-only
               @loose
               @operands files",
        hook: None,
    },
    Spec {
        names: &["yq"],
        family: "text",
        text: "@read-only
               @loose
               -i, --inplace : changes edits the files in place
               --from-file=FILE : reads",
        hook: Some(yq),
    },
    Spec {
        names: &["xxd"],
        family: "text",
        text: "@read-only
               @loose
               -r, -revert : changes writes the binary form
               -c COLS, -cols COLS
               -g BYTES, -groupsize BYTES
               -l LEN, -len LEN
               -n NAME, -name NAME
               -o OFFSET
               -s SEEK, -seek SEEK",
        hook: Some(xxd),
    },
];

fn yq(call: &Call<'_>, verdict: &mut Verdict) {
    if call.has("--inplace") {
        for file in call.operand_texts().iter().skip(1) {
            verdict.output(file, "yq -i", false);
        }
    }
}

/// `xxd IN OUT` writes OUT.
fn xxd(call: &Call<'_>, verdict: &mut Verdict) {
    let words = positional(call.args);
    if let Some(output) = words.get(1) {
        verdict.output(output, "xxd output", false);
        verdict.not_read_only(format!(
            "`{}` is not read-only: it writes {output} (plan mode allows only reading forms)",
            call.display()
        ));
    }
}

fn sed(call: &Call<'_>, verdict: &mut Verdict) {
    let parsed = sed_call(call.args);
    let display = call.display();
    for script in &parsed.scripts {
        let (runs, writes) = sed_script_effects(script);
        for command in runs {
            match command {
                Some(command) if !command.trim().is_empty() => {
                    verdict.runs_option(&command, "sed e", &Runs::any(), None);
                }
                _ => verdict.unprovable(
                    "the sed script runs its pattern space as a shell command (`e`), which is only known when it runs",
                ),
            }
        }
        for path in writes.iter().filter(|path| !path.is_empty()) {
            verdict.output(path, "sed w", false);
        }
        if !writes.is_empty() {
            verdict.not_read_only(format!("`{display}` writes files (sed `w`)"));
        }
    }
    if parsed.in_place {
        for file in &parsed.files {
            verdict.output(file, "sed -i", false);
        }
        verdict.not_read_only(format!("`{display}` edits files in place (sed -i)"));
    }
    // Plan mode has asked for `-n` (print only what is asked) since before the specs.
    if !call.has("--quiet") {
        verdict.not_read_only(format!(
            "`{display}` is not read-only with these arguments (plan mode allows only reading forms)"
        ));
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
fn sed_script_effects(script: &str) -> (Vec<Option<String>>, Vec<String>) {
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

/// less/more: `+cmd` start commands (`+!cmd` runs a shell command), log files, lesskey files.
fn less_effects(name: &str, args: &[String], fx: &mut Verdict) {
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
                run_any(
                    fx,
                    &command[position + 1..],
                    format!("{name} +!…"),
                    Some(index),
                    false,
                );
            } else if !moves {
                fx.unprovable(format!(
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
            fx.unprovable(format!(
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
fn awk_effects(name: &str, args: &[String], fx: &mut Verdict) {
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
                    fx.unprovable(format!("the {name} program has an unterminated string"));
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
                        Some(command) => run_any(
                            fx,
                            &command,
                            format!("{name} \"…\" | getline"),
                            Some(source),
                            false,
                        ),
                        None => fx.unprovable(format!(
                            "the {name} program reads from a command built when it runs"
                        )),
                    }
                } else if chars.get(next) == Some(&'"') {
                    if let Some((command, after)) = awk_string(&chars, next + 1) {
                        run_any(
                            fx,
                            &command,
                            format!("{name} print | \"…\""),
                            Some(source),
                            false,
                        );
                        index = after;
                        continue;
                    }
                } else {
                    fx.unprovable(format!(
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
                    _ => fx.unprovable(format!(
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
                                run_any(
                                    fx,
                                    &command,
                                    format!("{name} system()"),
                                    Some(source),
                                    false,
                                );
                            }
                            _ => fx.unprovable(format!(
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

fn less(call: &Call<'_>, verdict: &mut Verdict) {
    less_effects(call.name, call.args, verdict);
}

fn awk(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let writes_before = verdict.writes.len();
    awk_effects(call.name, args, verdict);
    let runs = !verdict.runs.is_empty()
        || args
            .iter()
            .any(|arg| arg.contains("system") || arg.contains('|') || arg.contains('>'));
    if runs
        || verdict.writes.len() > writes_before
        || args.iter().any(|arg| arg == "-i" || arg == "--inplace")
    {
        verdict.not_read_only(format!(
            "`{}` is not read-only with these arguments (plan mode allows only reading forms)",
            call.display()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

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
    }
}
