//! Text tools: sed, awk, grep and its relatives, pagers (less, more), man, rg, ag, jq, xxd.
//!
//! They read; what else they do is decided here: `sed -i` and `sed w FILE` write, a sed `e`
//! command runs a program, awk's `system()`, `print | "cmd"` and `"cmd" | getline` run programs
//! and `print > "file"` writes, `less +!cmd` runs a command and `less -o FILE` writes, `man -P`
//! runs a pager. A program run that way is analysed as if typed, and asks: it is not what the
//! text tool is for.

use super::args::Call;
use super::common::run_any;
use super::model::Runs;
use super::spec::Spec;
use super::verdict::Verdict;

/// Options several text tools share: whatis and apropos (man-db), diff's (colordiff, zdiff), and
/// jq's, which yq passes on to jq.
pub const BLOCKS: &[(&str, &str)] = &[
    (
        "man-db-search",
        "-d, --debug
        -v, --verbose
        -r, --regex
        -w, --wildcard
        -l, --long
        -C FILE, --config-file=FILE : reads
        -L LOCALE, --locale=LOCALE
        -m SYSTEM, --systems=SYSTEM
        -M PATH, --manpath=PATH
        -s LIST, --sections=LIST, --section=LIST
        -?, --help
        --usage
        -V, --version",
    ),
    (
        "diff-options",
        "--normal
        -q, --brief
        -s, --report-identical-files
        -c
        -C NUM
        --context[=NUM]
        -u
        -U NUM
        --unified[=NUM]
        -e, --ed
        -n, --rcs
        -y, --side-by-side
        -W NUM, --width=NUM
        --left-column
        --suppress-common-lines
        -p, --show-c-function
        -F RE, --show-function-line=RE
        --label=LABEL
        -t, --expand-tabs
        -T, --initial-tab
        --tabsize=NUM
        --suppress-blank-empty
        -l, --paginate
        -r, --recursive
        --no-dereference
        -N, --new-file
        --unidirectional-new-file
        --ignore-file-name-case
        --no-ignore-file-name-case
        -x PAT, --exclude=PAT
        -X FILE, --exclude-from=FILE : reads
        -S FILE, --starting-file=FILE
        --from-file=FILE
        --to-file=FILE
        -i, --ignore-case
        -E, --ignore-tab-expansion
        -Z, --ignore-trailing-space
        -b, --ignore-space-change
        -w, --ignore-all-space
        -B, --ignore-blank-lines
        -I RE, --ignore-matching-lines=RE
        -a, --text
        --strip-trailing-cr
        -D NAME, --ifdef=NAME
        --GTYPE-group-format=GFMT
        --old-group-format=GFMT
        --new-group-format=GFMT
        --unchanged-group-format=GFMT
        --changed-group-format=GFMT
        --line-format=LFMT
        --LTYPE-line-format=LFMT
        --old-line-format=LFMT
        --new-line-format=LFMT
        --unchanged-line-format=LFMT
        -d, --minimal
        --horizon-lines=NUM
        --speed-large-files
        --color[=WHEN]
        --palette=PALETTE
        --help
        -v, --version",
    ),
    (
        "jq-options",
        "--version
        -h, --help
        --build-configuration
        --seq
        --stream
        --stream-errors
        -s, --slurp
        -R, --raw-input
        -n, --null-input
        -c, --compact-output
        --tab
        --indent=N
        -C, --color-output
        -M, --monochrome-output
        -a, --ascii-output
        --unbuffered
        -S, --sort-keys
        -r, --raw-output
        --raw-output0
        -j, --join-output
        -b, --binary
        -f FILE, --from-file=FILE : reads
        -L DIR, --library-path=DIR : reads
        -e, --exit-status
        --arg=NAME
        --argjson=NAME
        --slurpfile=NAME
        --rawfile=NAME
        --argfile=NAME
        --args
        --jsonargs
        --run-tests[=FILE]
        --debug-dump-disasm
        --debug-trace",
    ),
];

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
               -V
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
        names: &["less", "more", "pager"],
        family: "text",
        text: "@read-only
               @opaque",
        hook: Some(less),
    },
    Spec {
        names: &["most"],
        family: "text",
        // From `most --help` and `man most`; the `+` switches are operands here, read by the hook.
        text: "@read-only
               @operands files
               -1
               -b
               -C
               -c
               -d
               -M
               -s
               -t[WIDTH]
               -u
               -v
               -w
               -z",
        hook: Some(most),
    },
    Spec {
        names: &["rg"],
        family: "text",
        text: "@read-only
               @operands files
               @negatable
               --pre=COMMAND : runs *
               --hostname-bin=COMMAND : runs *
               -e PATTERN, --regexp=PATTERN
               -f PATTERNFILE, --file=PATTERNFILE : reads
               -A NUM, --after-context=NUM
               --auto-hybrid-regex
               -B NUM, --before-context=NUM
               --binary
               --block-buffered
               -b, --byte-offset
               -s, --case-sensitive
               --color=WHEN
               --colors=SPEC
               --column
               -C NUM, --context=NUM
               --context-separator=SEP
               --no-context-separator
               -c, --count
               --count-matches
               --crlf
               --debug
               --trace
               --dfa-size-limit=NUM
               -E ENCODING, --encoding=ENCODING
               --engine=ENGINE
               --field-context-separator=SEP
               --field-match-separator=SEP
               --files
               -l, --files-with-matches
               --files-without-match
               -F, --fixed-strings
               -L, --follow
               --generate=KIND
               -g GLOB, --glob=GLOB
               --glob-case-insensitive
               -h, --help
               --heading
               --hidden, -.
               --hyperlink-format=FORMAT
               --iglob=GLOB
               -i, --ignore-case
               --ignore-file=PATH : reads
               --ignore-file-case-insensitive
               --include-zero
               -v, --invert-match
               --json
               --line-buffered
               -n, --line-number
               -x, --line-regexp
               -M NUM, --max-columns=NUM
               --max-columns-preview
               -m NUM, --max-count=NUM
               -d NUM, --max-depth=NUM, --maxdepth=NUM
               --max-filesize=NUM
               --mmap
               -U, --multiline
               --multiline-dotall
               --no-config
               -I, --no-filename
               --no-heading
               --no-ignore
               --no-ignore-dot
               --no-ignore-exclude
               --no-ignore-files
               --no-ignore-global
               --no-ignore-messages
               --no-ignore-parent
               --no-ignore-vcs
               -N, --no-line-number
               --no-messages
               --no-mmap
               --no-pcre2-unicode
               --pcre2-unicode
               --no-require-git
               --no-unicode
               --unicode
               -0, --null
               --null-data
               --one-file-system
               -o, --only-matching
               --passthru, --passthrough
               --path-separator=SEP
               -P, --pcre2
               --pcre2-version
               --pre-glob=GLOB
               -p, --pretty
               -q, --quiet
               --regex-size-limit=NUM
               -r REPLACEMENT, --replace=REPLACEMENT
               -z, --search-zip
               -S, --smart-case
               --sort=SORTBY
               --sortr=SORTBY
               --sort-files
               --stats
               --stop-on-nonmatch
               -a, --text
               -j NUM, --threads=NUM
               --trim
               -t TYPE, --type=TYPE
               --type-add=TYPESPEC
               --type-clear=TYPE
               --type-list
               -T TYPE, --type-not=TYPE
               -u, --unrestricted
               -V, --version
               --vimgrep
               -H, --with-filename
               -w, --word-regexp",
        hook: None,
    },
    Spec {
        names: &["ag"],
        family: "text",
        text: "@read-only
               @operands files
               --pager=PAGER : runs less more most cat
               -p PATH, --path-to-ignore=PATH : reads
               --ackmate
               --affinity, --noaffinity
               -a, --all-types
               -A, --after[=LINES]
               -B, --before[=LINES]
               --break, --nobreak
               -c, --count
               --color, --nocolor
               --color-line-number=X
               --color-match=X
               --color-path=X
               --column
               -C, --context[=LINES]
               -D, --debug
               --depth=NUM
               --filename, --nofilename
               -f, --follow, --nofollow
               -F, --fixed-strings
               --group, --nogroup
               -g PATTERN, --filename-pattern=PATTERN
               -G PATTERN, --file-search-regex=PATTERN
               -H, --heading, --noheading
               --hidden
               --ignore=PATTERN
               --ignore-dir=NAME
               -i, --ignore-case
               -l, --files-with-matches
               -L, --files-without-matches
               --list-file-types
               -m NUM, --max-count=NUM
               --mmap, --nommap
               --multiline, --nomultiline
               -n, --norecurse
               --numbers, --nonumbers
               -o, --only-matching
               --one-device
               --pager=COMMAND
               --nopager
               --parallel
               --print-long-lines
               --print-all-files
               --passthrough, --passthru
               -Q, --literal
               -r, --recurse
               -s, --case-sensitive
               -S, --smart-case
               --search-binary
               --silent
               --stats
               --stats-only
               -t, --all-text
               -u, --unrestricted
               -U, --skip-vcs-ignores
               -v, --invert-match
               -V, --version
               --vimgrep
               -w, --word-regexp
               -W NUM, --width=NUM
               --workers=NUM
               -z, --search-zip
               -0, --null, --print0
               -h, --help",
        hook: None,
    },
    Spec {
        names: &["jq"],
        family: "text",
        text: "@read-only
               @operands args
               @use jq-options",
        hook: None,
    },
    Spec {
        names: &["column"],
        family: "text",
        text: "@read-only
               @operands files
               -t, --table
               -n X, --table-name=X
               -O X, --table-order=X
               -N X, --table-columns=X
               -l X, --table-columns-limit=X
               -E X, --table-noextreme=X
               -d, --table-noheadings
               -e, --table-header-repeat
               -H X, --table-hide=X
               -R X, --table-right=X
               -T X, --table-truncate=X
               -W X, --table-wrap=X
               -L, --keep-empty-lines
               -J, --json
               -r X, --tree=X
               -i X, --tree-id=X
               -p X, --tree-parent=X
               -c X, --output-width=X
               -o X, --output-separator=X
               -s X, --separator=X
               -x, --fillrows
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["diff"],
        family: "text",
        text: "@read-only
               @operands files
               @use diff-options",
        hook: None,
    },
    Spec {
        names: &["colordiff"],
        family: "text",
        text: "@read-only
               @operands files
               --difftype=TYPE
               --verifymode
               @use diff-options",
        hook: None,
    },
    Spec {
        names: &["cmp", "zcmp"],
        family: "text",
        text: "@read-only
               @operands files
               -b, --print-bytes
               -i SKIP, --ignore-initial=SKIP
               -l, --verbose
               -n LIMIT, --bytes=LIMIT
               -s, --quiet, --silent
               --help
               -v, --version",
        hook: None,
    },
    Spec {
        names: &["zdiff"],
        family: "text",
        text: "@read-only
               @operands files
               @use diff-options",
        hook: None,
    },
    Spec {
        names: &["hexdump", "hd"],
        family: "text",
        text: "@read-only
               @operands files
               -b, --one-byte-octal
               -X, --one-byte-hex
               -c, --one-byte-char
               -C, --canonical
               -d, --two-bytes-decimal
               -o, --two-bytes-octal
               -x, --two-bytes-hex
               -L, --color[=WHEN]
               -e FORMAT, --format=FORMAT
               -f FILE, --format-file=FILE : reads
               -n LENGTH, --length=LENGTH
               -s OFFSET, --skip=OFFSET
               -v, --no-squeezing
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["strings"],
        family: "text",
        text: "@read-only
               @operands files
               @numeric
               -a, --all
               -d, --data
               -f, --print-file-name
               -n MIN, --bytes=MIN
               -t RADIX, --radix=RADIX
               -w, --include-all-whitespace
               -o
               -T BFDNAME, --target=BFDNAME
               -e ENCODING, --encoding=ENCODING
               --unicode=HOW
               -U HOW
               -s SEP, --output-separator=SEP
               -h, --help
               -v, -V, --version",
        hook: None,
    },
    Spec {
        names: &["rev"],
        family: "text",
        text: "@read-only
               @operands files
               -0, --zero
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["look"],
        family: "text",
        text: "@read-only
               @operands args
               -a, --alternative
               -d, --alphanum
               -f, --ignore-case
               -t CHAR, --terminate=CHAR
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["tree"],
        family: "text",
        text: "@read-only
               @operands files
               -a
               -d
               -l
               -f
               -x
               -L LEVEL
               -R : changes writes an index file in each folder (with -H)
               -P PATTERN
               -I PATTERN
               --gitignore
               --gitfile=FILE : reads
               --ignore-case
               --matchdirs
               --metafirst
               --prune
               --info
               --infofile=FILE : reads
               --noreport
               --charset=CHARSET
               --filelimit=NUM
               -o FILE : writes
               -q
               -N
               -Q
               -p
               -u
               -g
               -s
               -h
               --si
               --du
               -D
               --timefmt=FORMAT
               -F
               --inodes
               --device
               -v
               -t
               -c
               -U
               -r
               --dirsfirst
               --filesfirst
               --sort=TYPE
               -i
               -A
               -S
               -n
               -C
               -X
               -J
               -H BASEHREF
               -T TITLE
               --nolinks
               --hintro=FILE : reads
               --houtro=FILE : reads
               --fromfile
               --fflinks
               --version
               --help",
        hook: None,
    },
    Spec {
        names: &["file"],
        family: "text",
        text: "@read-only
               @operands files
               --help
               -v, --version
               -m LIST, --magic-file=LIST : reads
               -z, --uncompress
               -Z, --uncompress-noreport
               -b, --brief
               -c, --checking-printout
               -e TEST, --exclude=TEST
               --exclude-quiet=TEST
               -f FILE, --files-from=FILE : reads
               -F SEP, --separator=SEP
               -i, --mime
               --apple
               --extension
               --mime-type
               --mime-encoding
               -k, --keep-going
               -l, --list
               -L, --dereference
               -h, --no-dereference
               -n, --no-buffer
               -N, --no-pad
               -0, --print0
               -p, --preserve-date
               -P NAME=VALUE, --parameter=NAME=VALUE
               -r, --raw
               -s, --special-files
               -S, --no-sandbox
               -C, --compile : changes writes a compiled magic file
               -d, --debug
               -E",
        hook: None,
    },
    Spec {
        names: &["namei"],
        family: "text",
        text: "@read-only
               @operands files
               -x, --mountpoints
               -m, --modes
               -o, --owners
               -l, --long
               -n, --nosymlinks
               -v, --vertical
               -Z, --context
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["getent"],
        family: "text",
        text: "@read-only
               @operands args
               -A, --no-addrconfig
               -i, --no-idn
               -s CONFIG, --service=CONFIG
               -?, --help
               --usage
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["getfacl"],
        family: "text",
        text: "@read-only
               @operands files
               -a, --access
               -d, --default
               -c, --omit-header
               -e, --all-effective
               -E, --no-effective
               -s, --skip-base
               -R, --recursive
               -L, --logical
               -P, --physical
               -t, --tabular
               -n, --numeric
               --one-file-system
               -p, --absolute-names
               -v, --version
               -h, --help",
        hook: None,
    },
    Spec {
        names: &["lsattr"],
        family: "text",
        text: "@read-only
               @operands files
               -R
               -V
               -a
               -d
               -l
               -p
               -v",
        hook: None,
    },
    Spec {
        names: &["whatis"],
        family: "text",
        text: "@read-only
               @operands args
               @use man-db-search",
        hook: None,
    },
    Spec {
        names: &["apropos"],
        family: "text",
        text: "@read-only
               @operands args
               @use man-db-search
               -e, --exact
               -a, --and",
        hook: None,
    },
    Spec {
        names: &["info"],
        family: "text",
        text: "@read-only
               @operands args
               -a, --all
               -k STRING, --apropos=STRING
               -d DIR, --directory=DIR
               -f MANUAL, --file=MANUAL
               -h, --help
               --index-search=STRING
               -n NODENAME, --node=NODENAME
               -o FILE, --output=FILE : writes
               -O, --show-options, --usage
               --subnodes
               -v VAR=VALUE, --variable=VAR=VALUE
               --version
               -w, --where, --location
               --dribble=FILE : writes
               --restore=FILE : reads
               --init-file=FILE : reads
               -R, --raw-escapes
               --no-raw-escapes
               --vi-keys
               --strict-node-location
               -x N, --debug=N
               -b, --speech-friendly",
        hook: None,
    },
    Spec {
        names: &["yq"],
        family: "text",
        text: "@read-only
               @operands args
               -h, --help
               --version
               -y, --yaml-output, --yml-output
               -Y, --yaml-roundtrip, --yml-roundtrip
               --yaml-output-grammar-version=VERSION, --yml-out-ver=VERSION
               -w WIDTH, --width=WIDTH
               --indentless-lists, --indentless
               --explicit-start
               --explicit-end
               --xml-output, -x
               --xml-item-depth=DEPTH
               --xml-dtd
               --xml-root=NAME
               --xml-force-list=NAME
               --toml-output, -t
               -o FORMAT, --output-format=FORMAT
               -p FORMAT, --input-format=FORMAT
               -P, --prettyPrint
               -I N, --indent=N
               -N, --no-doc
               -0, --nul-output
               --expression=EXPR
               --front-matter=MODE
               --header-preprocess
               -v, --verbose
               -i, --in-place, --inplace : changes edits the files in place
               --from-file=FILE : reads
               -s EXPR, --split-exp=EXPR : unprovable writes files named by an expression (the Go yq), or reads its input as one array (the Python yq)
               @use jq-options",
        hook: Some(yq),
    },
    Spec {
        names: &["xxd"],
        family: "text",
        text: "@read-only
               @operands files
               -a, -autoskip
               -b, -bits
               -C, -capitalize
               -c COLS, -cols COLS
               -E, -EBCDIC
               -e
               -g BYTES, -groupsize BYTES
               -h, -help
               -i, -include
               -l LEN, -len LEN
               -n NAME, -name NAME
               -o OFFSET
               -p, -ps, -postscript, -plain
               -r, -revert : changes writes the binary form
               -R WHEN
               -d
               -s SEEK, -seek SEEK
               -u
               -v, -version",
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
    let words = call.operand_texts();
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
    // A script from a file may run commands (`e`) and write files (`w`), unless `--sandbox`.
    if call.has("--file") && !call.has("--sandbox") {
        verdict.unprovable(format!(
            "`{display}` reads its script from a file, which can run commands (e) and write files (w)"
        ));
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
    match call.name {
        // Debian's `pager` is less unless the admin chose otherwise.
        "less" | "pager" => pager_options(call.name, &LESS_OPTIONS, call.args, verdict),
        "more" => pager_options(call.name, &MORE_OPTIONS, call.args, verdict),
        _ => {}
    }
}

/// most's `+` switches: a line, a search, UTF-8 on, case-sensitive search and secure mode are
/// harmless; `+d` lets the viewer delete the files it shows (`:D`), which asks like `rm`; any
/// other `+` switch is not known.
fn most(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    for word in call.operand_texts() {
        let Some(switch) = word.strip_prefix('+') else {
            continue;
        };
        let harmless = switch.starts_with('/')
            || switch.chars().all(|c| c.is_ascii_digit())
            || matches!(switch, "s" | "u" | "c");
        if switch == "d" {
            verdict.dangerous(
                &display,
                "most +d lets the viewer delete the files it shows",
            );
            verdict.not_read_only(format!(
                "`{display}` is not read-only: most +d lets the viewer delete files (plan mode allows only reading forms)"
            ));
        } else if !harmless {
            verdict.unprovable(format!(
                "option {word} of most is not known to kaiport's rules"
            ));
        }
    }
}

/// A pager's options: short letters, those of them that take a value (attached or the next
/// word), and long names (`=` marks a value), which may be abbreviated to any unique prefix.
struct PagerOptions {
    flags: &'static str,
    values: &'static str,
    long: &'static [&'static str],
}

const LESS_OPTIONS: PagerOptions = PagerOptions {
    flags: LESS_FLAGS,
    values: LESS_VALUES,
    long: LESS_LONG,
};

/// util-linux more's options (its `--help`); `-NUMBER` is `--lines`.
const MORE_OPTIONS: PagerOptions = PagerOptions {
    flags: "dflcpesuhV",
    values: "n",
    long: &[
        "silent",
        "logical",
        "no-pause",
        "print-over",
        "clean-print",
        "exit-on-eof",
        "squeeze",
        "plain",
        "lines=",
        "help",
        "version",
    ],
};

/// less's options (from its `--help` and manual page): short letters, those of them that take a
/// value (attached or the next word), and long names (`=` marks a value). Long names may be
/// abbreviated to any unique prefix; `-+X` and `--+name` reset one.
const LESS_FLAGS: &str = "?aABcCdeEfFgGiIJKLmMnNqQrRsSuUVwWX~";
const LESS_VALUES: &str = "bDhjkoOpPtTxyz\"#";
const LESS_LONG: &[&str] = &[
    "help",
    "search-skip-screen",
    "SEARCH-SKIP-SCREEN",
    "buffers=",
    "auto-buffers",
    "clear-screen",
    "dumb",
    "color=",
    "quit-at-eof",
    "QUIT-AT-EOF",
    "force",
    "quit-if-one-screen",
    "hilite-search",
    "HILITE-SEARCH",
    "max-back-scroll=",
    "ignore-case",
    "IGNORE-CASE",
    "jump-target=",
    "status-column",
    "lesskey-file=",
    "quit-on-intr",
    "no-lessopen",
    "long-prompt",
    "LONG-PROMPT",
    "line-numbers",
    "LINE-NUMBERS",
    "log-file=",
    "LOG-FILE=",
    "pattern=",
    "prompt=",
    "quiet",
    "QUIET",
    "silent",
    "SILENT",
    "raw-control-chars",
    "RAW-CONTROL-CHARS",
    "squeeze-blank-lines",
    "chop-long-lines",
    "tag=",
    "tag-file=",
    "underline-special",
    "UNDERLINE-SPECIAL",
    "version",
    "hilite-unread",
    "HILITE-UNREAD",
    "tabs=",
    "no-init",
    "max-forw-scroll=",
    "window=",
    "quotes=",
    "tilde",
    "shift=",
    "file-size",
    "follow-name",
    "incsearch",
    "line-num-width=",
    "mouse",
    "MOUSE",
    "no-keypad",
    "no-histdups",
    "rscroll=",
    "save-marks",
    "status-col-width=",
    "use-backslash",
    "use-color",
    "wheel-lines=",
    "exit-follow-on-close",
    "header=",
    "intr=",
    "lesskey-src=",
    "lesskey-content=",
    "modelines=",
    "no-number-headers",
    "no-search-headers",
    "no-vbell",
    "proc-backspace",
    "PROC-BACKSPACE",
    "proc-return",
    "PROC-RETURN",
    "proc-tab",
    "PROC-TAB",
    "redraw-on-quit",
    "search-options=",
    "show-preproc-errors",
    "status-line",
    "match-shift=",
    "autosave=",
    "no-edit-warn",
    "no-paste",
    "form-feed",
    "wordwrap",
    "search-header",
    "no-search-header-lines",
    "no-search-header-columns",
];

fn pager_options(name: &str, table: &PagerOptions, args: &[String], verdict: &mut Verdict) {
    let mut unknown = |spelling: &str| {
        verdict.unprovable(format!(
            "option {spelling} of {name} is not known to kaiport's rules"
        ));
    };
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        index += 1;
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let long = long.strip_prefix('+').unwrap_or(long);
            let (word, attached) = match long.split_once('=') {
                Some((word, _)) => (word, true),
                None => (long, false),
            };
            let found = match table
                .long
                .iter()
                .find(|name| name.trim_end_matches('=') == word)
            {
                Some(name) => Some(*name),
                None => {
                    let mut prefixed = table.long.iter().filter(|name| {
                        !word.is_empty() && name.trim_end_matches('=').starts_with(word)
                    });
                    prefixed
                        .next()
                        .filter(|_| prefixed.next().is_none())
                        .copied()
                }
            };
            match found {
                Some(name) if name.ends_with('=') && !attached => index += 1,
                Some(_) => {}
                None => unknown(&format!("--{word}")),
            }
            continue;
        }
        let Some(letters) = arg.strip_prefix('-').filter(|rest| !rest.is_empty()) else {
            continue; // a file or a `+command`
        };
        let letters = letters.strip_prefix('+').unwrap_or(letters);
        for (position, letter) in letters.char_indices() {
            if table.values.contains(letter) {
                if position + letter.len_utf8() == letters.len() {
                    index += 1; // the value is the next word
                }
                break;
            }
            if !table.flags.contains(letter) && !letter.is_ascii_digit() {
                unknown(&format!("-{letter}"));
                break;
            }
        }
    }
}

fn awk(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let writes_before = verdict.writes.len();
    awk_effects(call.name, args, verdict);
    // Program text from a file (`-f`, `-i LIB`, gawk's `-E`) or an extension library (`-l`) can
    // run commands and write files unseen; gawk's `--sandbox` turns both off for the text.
    let sandbox = args.iter().any(|arg| arg == "--sandbox" || arg == "-S");
    let mut sources = 0;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if arg == "--" || !arg.starts_with('-') || arg == "-" {
            break;
        }
        // Each option as (its long name, its value and whether the value is its own word).
        let mut found: Vec<(&str, Option<&str>, bool)> = Vec::new();
        if let Some(long) = arg.strip_prefix("--") {
            let (word, value) = match long.split_once('=') {
                Some((word, value)) => (word, Some(value)),
                None => (long, None),
            };
            let Some(&(name, arity)) = awk_long(word) else {
                verdict.unprovable(format!(
                    "option --{word} of {} is not known to kaiport's rules",
                    call.name
                ));
                return;
            };
            match (arity, value) {
                (AwkArity::Value, None) => {
                    index += 1;
                    found.push((name, args.get(index).map(String::as_str), true));
                }
                (_, value) => found.push((name, value, false)),
            }
        } else {
            for (position, letter) in arg.char_indices().skip(1) {
                let Some(&(name, _, arity)) =
                    AWK_OPTIONS.iter().find(|(_, short, _)| *short == letter)
                else {
                    verdict.unprovable(format!(
                        "option -{letter} of {} is not known to kaiport's rules",
                        call.name
                    ));
                    return;
                };
                let rest = &arg[position + letter.len_utf8()..];
                match arity {
                    AwkArity::Flag => {
                        found.push((name, None, false));
                        continue;
                    }
                    AwkArity::Value if rest.is_empty() => {
                        index += 1;
                        found.push((name, args.get(index).map(String::as_str), true));
                    }
                    _ => found.push((name, (!rest.is_empty()).then_some(rest), false)),
                }
                break;
            }
        }
        for (name, value, own_word) in found {
            awk_option(call, verdict, name, value, sandbox);
            if name == "source" {
                // The first `-e TEXT` with the text as its own word is the program read above;
                // the others are read here.
                if (sources > 0 || !own_word)
                    && let Some(text) = value
                {
                    awk_effects(call.name, &[text.to_owned()], verdict);
                }
                sources += 1;
            }
        }
        index += 1;
    }
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum AwkArity {
    Flag,
    Value,
    /// An optional value, only in the same word (`-dFILE`, `--profile=FILE`).
    Optional,
}

/// Every option of gawk, mawk and busybox awk: long name, short letter (`' '`: none), arity.
/// A long option may be abbreviated to any unique prefix, as getopt allows.
const AWK_OPTIONS: &[(&str, char, AwkArity)] = &[
    ("characters-as-bytes", 'b', AwkArity::Flag),
    ("traditional", 'c', AwkArity::Flag),
    ("copyright", 'C', AwkArity::Flag),
    ("dump-variables", 'd', AwkArity::Optional),
    ("debug", 'D', AwkArity::Optional),
    ("source", 'e', AwkArity::Value),
    ("exec", 'E', AwkArity::Value),
    ("file", 'f', AwkArity::Value),
    ("field-separator", 'F', AwkArity::Value),
    ("gen-pot", 'g', AwkArity::Flag),
    ("help", 'h', AwkArity::Flag),
    ("include", 'i', AwkArity::Value),
    ("trace", 'I', AwkArity::Flag),
    ("csv", 'k', AwkArity::Flag),
    ("load", 'l', AwkArity::Value),
    ("lint", 'L', AwkArity::Optional),
    ("bignum", 'M', AwkArity::Flag),
    ("use-lc-numeric", 'N', AwkArity::Flag),
    ("non-decimal-data", 'n', AwkArity::Flag),
    ("pretty-print", 'o', AwkArity::Optional),
    ("optimize", 'O', AwkArity::Flag),
    ("profile", 'p', AwkArity::Optional),
    ("posix", 'P', AwkArity::Flag),
    ("re-interval", 'r', AwkArity::Flag),
    ("no-optimize", 's', AwkArity::Flag),
    ("sandbox", 'S', AwkArity::Flag),
    ("lint-old", 't', AwkArity::Flag),
    ("version", 'V', AwkArity::Flag),
    ("assign", 'v', AwkArity::Value),
    ("", 'W', AwkArity::Value),
    ("usage", ' ', AwkArity::Flag),
];

fn awk_long(word: &str) -> Option<&'static (&'static str, AwkArity)> {
    static LONG: std::sync::OnceLock<Vec<(&'static str, AwkArity)>> = std::sync::OnceLock::new();
    let long = LONG.get_or_init(|| {
        AWK_OPTIONS
            .iter()
            .filter(|(name, ..)| !name.is_empty())
            .map(|(name, _, arity)| (*name, *arity))
            .collect()
    });
    if let Some(exact) = long.iter().find(|(name, _)| *name == word) {
        return Some(exact);
    }
    let mut prefixed = long
        .iter()
        .filter(|(name, _)| !word.is_empty() && name.starts_with(word));
    let first = prefixed.next()?;
    prefixed.next().is_none().then_some(first)
}

/// What one awk option does: code from files asks, the dump, profile and pretty-print files are
/// written (their defaults in the current folder), the debugger and `-W` forms other than
/// `version`/`usage` ask.
fn awk_option(
    call: &Call<'_>,
    verdict: &mut Verdict,
    name: &str,
    value: Option<&str>,
    sandbox: bool,
) {
    let code = match name {
        "file" | "exec" => !sandbox,
        "include" => !sandbox && value != Some("inplace"),
        "load" | "debug" => true,
        "" => !matches!(
            value,
            Some("version" | "v" | "usage" | "help" | "interactive" | "i")
        ),
        _ => false,
    };
    if code {
        let spelled = if name.is_empty() {
            "-W".to_owned()
        } else {
            format!("--{name}")
        };
        verdict.unprovable(format!(
            "`{} {spelled}` runs awk code or debugger commands from a file or library, or a form kaiport cannot check",
            call.name
        ));
    }
    let default = match name {
        "dump-variables" => "awkvars.out",
        "profile" | "pretty-print" => "awkprof.out",
        _ => return,
    };
    verdict.output(
        value.unwrap_or(default),
        format!("{} --{name}", call.name),
        false,
    );
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

    /// Each option the installed less and more list in their help is in their table (where they
    /// are installed), and a made-up one is not.
    #[test]
    fn the_pagers_tables_hold_the_options_of_their_help() {
        for (program, table) in [("less", &LESS_OPTIONS), ("more", &MORE_OPTIONS)] {
            let Ok(out) = std::process::Command::new(program).arg("--help").output() else {
                continue;
            };
            let help = String::from_utf8_lossy(&out.stdout);
            let options: Vec<&str> = help
                .split(|c: char| c.is_whitespace() || c == ',' || c == '=' || c == '[')
                .filter(|word| {
                    let name = word.trim_start_matches('-');
                    (word.starts_with("--") && name.len() > 1
                        || word.len() == 2 && word.starts_with('-'))
                        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                })
                .collect();
            assert!(options.len() > 10, "{program}: {options:?}");
            for option in options {
                let mut verdict = Verdict::default();
                pager_options(
                    program,
                    table,
                    &[option.to_owned(), "1".to_owned()],
                    &mut verdict,
                );
                assert_eq!(
                    verdict.unprovable,
                    Vec::<String>::new(),
                    "{program} {option}"
                );
            }
            let mut verdict = Verdict::default();
            pager_options(program, table, &["--frobnicate".to_owned()], &mut verdict);
            assert_eq!(verdict.unprovable.len(), 1, "{program}");
        }
    }
}
