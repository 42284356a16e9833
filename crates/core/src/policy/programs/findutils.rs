//! findutils: `find` (its expression is read here: `-exec`/`-ok` run commands, peeled like a
//! wrapper's with the file names unknown; `-delete` deletes; `-fprint FILE` writes) and `xargs`
//! (a wrapper whose command gets arguments from its input; with `-I R`, `R` in the command is
//! replaced by input text, so a shell string holding it is only known when it runs).

use super::args::Call;
use super::spec::Spec;
use super::verdict::{Shape, Verdict};

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["find"],
        family: "findutils",
        text: "@opaque
               @read-only
               -H
               -L
               -P
               -D DEBUGOPTS
               --help
               --version
               # The expression (read by the code below; listed so it is known).
               -daystart
               -follow
               -nowarn
               -regextype TYPE
               -warn
               -depth
               -d
               -files0-from FILE : reads
               -maxdepth LEVELS
               -mindepth LEVELS
               -mount
               -noleaf
               -xdev
               -ignore_readdir_race
               -noignore_readdir_race
               -amin N
               -anewer FILE
               -atime N
               -cmin N
               -cnewer FILE
               -context CONTEXT
               -ctime N
               -empty
               -false
               -fstype TYPE
               -gid N
               -group NAME
               -ilname PATTERN
               -iname PATTERN
               -inum N
               -ipath PATTERN
               -iwholename PATTERN
               -iregex PATTERN
               -links N
               -lname PATTERN
               -mmin N
               -mtime N
               -name PATTERN
               -newer FILE
               -nouser
               -nogroup
               -path PATTERN
               -perm MODE
               -regex PATTERN
               -readable
               -writable
               -executable
               -wholename PATTERN
               -samefile FILE
               -size N
               -true
               -type TYPE
               -uid N
               -used N
               -user NAME
               -xtype TYPE
               -delete : deletes deletes every file it matches
               -print
               -print0
               -printf FORMAT
               -fprintf FILE : writes
               -fprint FILE : writes
               -fprint0 FILE : writes
               -ls
               -fls FILE : writes
               -prune
               -quit
               -exec COMMAND
               -execdir COMMAND
               -ok COMMAND
               -okdir COMMAND
               -not
               -a
               -and
               -o
               -or",
        hook: Some(find),
    },
    Spec {
        names: &["xargs"],
        family: "findutils",
        text: "@read-only
               @operands command
               @posix
               -0, --null
               -a FILE, --arg-file=FILE : reads
               -d DELIM, --delimiter=DELIM
               -E END
               -e[END], --eof[=END]
               -I REPLACE
               -i[REPLACE], --replace[=REPLACE]
               -L LINES, --max-lines=LINES
               -l[LINES]
               -n ARGS, --max-args=ARGS
               -o, --open-tty
               -P PROCS, --max-procs=PROCS
               -p, --interactive
               --process-slot-var=VAR
               -r, --no-run-if-empty
               -s CHARS, --max-chars=CHARS
               --show-limits
               -t, --verbose
               -x, --exit
               --help
               --version",
        hook: Some(xargs),
    },
    Spec {
        names: &["locate", "plocate", "mlocate"],
        family: "findutils",
        text: "@read-only
               @operands args
               -A, --all
               -b, --basename
               -c, --count
               -d DBPATH, --database=DBPATH : reads
               -e, --existing
               -L, --follow
               -P, -H, --nofollow
               -i, --ignore-case
               -l LIMIT, -n LIMIT, --limit=LIMIT
               -m, --mmap
               -0, --null
               -N, --literal
               -r, --regexp
               --regex
               -S, --statistics
               -q, --quiet
               -s, --stdio
               -w, --wholename
               -h, --help
               -V, --version",
        hook: None,
    },
];

/// The find primaries that take a value, from the table (`-name PATTERN`).
fn takes_value(call: &Call<'_>, primary: &str) -> Option<usize> {
    if primary == "-fprintf" {
        return Some(2);
    }
    if let Some(rest) = primary.strip_prefix("-newer")
        && rest.len() == 2
    {
        return Some(1);
    }
    call.root
        .options
        .iter()
        .find(|def| def.has(primary))
        .map(|def| usize::from(def.arity == super::model::Arity::Value))
}

fn find(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let display = call.display();
    let mut index = 0;
    // Global options, then the starting points, then the expression.
    while let Some(arg) = args.get(index) {
        match arg.as_str() {
            "-H" | "-L" | "-P" => index += 1,
            "-D" => index += 2,
            _ if arg.starts_with("-O") => index += 1,
            _ => break,
        }
    }
    while let Some(arg) = args.get(index) {
        if arg.starts_with('-') || matches!(arg.as_str(), "(" | "!" | ")" | ",") {
            break;
        }
        index += 1;
    }
    let mut execs = Vec::new();
    while let Some(arg) = args.get(index) {
        let primary = arg.as_str();
        if matches!(primary, "(" | ")" | "!" | ",") || !primary.starts_with('-') {
            index += 1;
            continue;
        }
        match primary {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let start = index + 1;
                let mut end = start;
                while end < args.len() && args[end] != ";" && args[end] != "+" {
                    end += 1;
                }
                if end > start {
                    execs.push((start, end));
                }
                verdict.not_read_only(format!(
                    "`{display}` runs commands for what it finds (plan mode allows only reading forms)"
                ));
                index = end + 1;
                continue;
            }
            "-delete" => {
                verdict.dangerous(&display, "find -delete deletes every match");
                verdict.not_read_only(format!(
                    "`{display}` is not read-only with these arguments (plan mode allows only reading forms)"
                ));
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                if let Some(path) = args.get(index + 1) {
                    verdict.output(path, "find -fprint", false);
                }
                verdict.not_read_only(format!(
                    "`{display}` is not read-only with these arguments (plan mode allows only reading forms)"
                ));
            }
            _ => {}
        }
        match takes_value(call, primary) {
            Some(values) => index += 1 + values,
            None => {
                verdict.unprovable(format!(
                    "option {primary} of find is not known to kaiport's rules"
                ));
                index += 1;
            }
        }
    }
    if !execs.is_empty() {
        verdict.shape = Shape::Find { execs };
        // Plan mode: the commands run are judged themselves; find only hands them names.
        verdict.replace = Some("{}".to_owned());
    }
}

fn xargs(call: &Call<'_>, verdict: &mut Verdict) {
    // `-I R` / `-i[R]`: R in the command is replaced by input text.
    let replace = call.value("-I").map(str::to_owned).or_else(|| {
        call.options
            .iter()
            .find(|found| found.def.has("--replace"))
            .map(|found| found.value.clone().unwrap_or_else(|| "{}".to_owned()))
    });
    // Without a string to replace, it adds the input's words to the command's arguments.
    verdict.adds_args = replace.is_none();
    verdict.replace = replace;
    if call.operands.is_empty() {
        // No command: xargs runs `echo`.
        verdict.shape = Shape::Plain;
    }
}
