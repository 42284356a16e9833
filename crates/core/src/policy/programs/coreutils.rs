//! coreutils: the file tools admins type most. Most only read (`cat`, `ls`, `wc`, …); the rest
//! write what they are for (`cp`'s destination, `tee`'s files, `touch`, `mkdir`) or delete
//! (`rm`, `unlink`, `shred`, `truncate`), and a few have options with another effect (`sort -o`
//! writes, `sort --compress-program` runs a program, `split --filter` runs a shell).
//!
//! Dangerous forms decided here: `rm -r`/`-f`, every delete and truncation, `mv` onto
//! `/dev/null`, a copy of `/dev/null` or `/dev/zero` over a file, `dd` onto a device or from
//! `/dev/zero`, and `chmod`/`chown`/`chgrp` of `/` or a top-level system folder (any mode).
//! Lock-out: `chmod`/`chown`/`chgrp` of a home or `.ssh` folder (any mode).

use super::args::Call;
use super::common::{
    empties_destination, is_empty_source, is_sink, is_system_folder, positional_args, recursive,
};
use super::spec::Spec;
use super::verdict::{Prints, Verdict};
use crate::policy::paths::{is_home_root, is_key_folder, normalise_path};

/// Option lines several of these programs share (`@use NAME` in their text).
pub const BLOCKS: &[(&str, &str)] = &[
    (
        "coreutils-1",
        "-c, --changes
        -f, --silent, --quiet
        -v, --verbose
        --dereference
        -h, --no-dereference
        --no-preserve-root
        --preserve-root
        --reference=X : reads
        -R, --recursive
        -H
        -L
        -P
        --help
        --version",
    ),
    (
        "coreutils-2",
        "--backup[=X]
        -b
        -f, --force
        -i, --interactive
        -n, --no-clobber
        --strip-trailing-slashes
        -S X, --suffix=X
        -t X, --target-directory=X
        -T, --no-target-directory
        -u, --update
        -v, --verbose
        --help
        --version",
    ),
    (
        "coreutils-3",
        "-b, --binary
        -c, --check
        --tag
        -t, --text
        -z, --zero
        --ignore-missing
        --quiet
        --status
        --strict
        -w, --warn
        --help
        --version",
    ),
    (
        "coreutils-4",
        "-a, --all
        -h, --human-readable
        --si
        -L, --dereference
        -m
        --time-style=X
        --help
        --version",
    ),
    (
        "coreutils-5",
        "--backup[=X]
        -b
        -S X, --suffix=X
        -t X, --target-directory=X
        -T, --no-target-directory
        -v, --verbose
        --help
        --version",
    ),
    (
        "coreutils-6",
        "-c X, --bytes=X
        -n X, --lines=X
        -q, --quiet, --silent
        -v, --verbose
        -z, --zero-terminated
        --help
        --version",
    ),
    (
        "coreutils-7",
        "-e, --canonicalize-existing
        -m, --canonicalize-missing
        -q, --quiet
        -z, --zero
        --help
        --version",
    ),
    (
        "coreutils-8",
        "-d X, --delimiter=X
        -z, --zero-terminated
        --help
        --version
        -M",
    ),
    (
        "coreutils-9",
        "--check-order
        --nocheck-order
        -z, --zero-terminated
        --help
        --version",
    ),
    (
        "coreutils-10",
        "-d, --decode
        -i, --ignore-garbage
        -w X, --wrap=X
        --help
        --version",
    ),
    (
        "coreutils-11",
        "-c
        -f
        -l
        -o
        -x",
    ),
    (
        "coreutils-12",
        "-o X, --output=X : writes
        --random-source=X : reads
        -z, --zero-terminated
        --help
        --version",
    ),
    (
        "coreutils-13",
        "-m X, --mode=X
        -Z
        --context[=X]
        --help
        --version",
    ),
];

/// What `cat` prints (see [`super::prints`]): its standard input with no arguments, nothing when
/// every file is `/dev/null`.
pub(super) fn prints(name: &str, args: &[String]) -> Option<Prints> {
    match name {
        "cat" if args.is_empty() => Some(Prints::Stdin),
        "cat" if args.iter().all(|arg| arg == "/dev/null") => Some(Prints::Nothing),
        _ => None,
    }
}

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["cat"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -A, --show-all
               -b, --number-nonblank
               -e
               -E, --show-ends
               -n, --number
               -s, --squeeze-blank
               -t
               -T, --show-tabs
               -u
               -v, --show-nonprinting
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["head"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-6",
        hook: None,
    },
    Spec {
        names: &["wc"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -c, --bytes
               -m, --chars
               -l, --lines
               --files0-from=X : reads
               -L, --max-line-length
               -w, --words
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["basename"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -a, --multiple
               -s X, --suffix=X
               -z, --zero
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["dirname"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -z, --zero
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["realpath"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-7
               -L, --logical
               -P, --physical
               --relative-to=X
               --relative-base=X
               -s, --strip, --no-symlinks",
        hook: None,
    },
    Spec {
        names: &["readlink"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-7
               -f, --canonicalize
               -n, --no-newline
               -s, --silent
               -v, --verbose",
        hook: None,
    },
    Spec {
        names: &["pwd"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -L, --logical
               -P, --physical
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["uname"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -a, --all
               -s, --kernel-name
               -n, --nodename
               -r, --kernel-release
               -v, --kernel-version
               -m, --machine
               -p, --processor
               -i, --hardware-platform
               -o, --operating-system
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["id"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -a
               -Z, --context
               -g, --group
               -G, --groups
               -n, --name
               -r, --real
               -u, --user
               -z, --zero
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["whoami", "groups", "users", "sleep", "tsort", "factor", "arch", "hostid", "logname"],
        family: "coreutils",
        text: "@read-only
               @operands files
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["who"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -a, --all
               -b, --boot
               -d, --dead
               -H, --heading
               --ips
               -l, --login
               --lookup
               -m
               -p, --process
               -q, --count
               -r, --runlevel
               -s, --short
               -t, --time
               -T, -w, --mesg
               -u, --users
               --message
               --writable
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["tty"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -s, --silent, --quiet
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["nproc"],
        family: "coreutils",
        text: "@read-only
               @operands files
               --all
               --ignore=X
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["printenv"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -0, --null
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["seq"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -f X, --format=X
               -s X, --separator=X
               -w, --equal-width
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["cut"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-8
               -b X, --bytes=X
               -c X, --characters=X
               -f X, --fields=X
               -n
               --complement
               -s, --only-delimited
               --output-delimiter=X",
        hook: None,
    },
    Spec {
        names: &["tr"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -c, -C, --complement
               -d, --delete
               -s, --squeeze-repeats
               -t, --truncate-set1
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["nl"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -b X, --body-numbering=X
               -d X, --section-delimiter=X
               -f X, --footer-numbering=X
               -h X, --header-numbering=X
               -i X, --line-increment=X
               -l X, --join-blank-lines=X
               -n X, --number-format=X
               -p, --no-renumber
               -s X, --number-separator=X
               -v X, --starting-line-number=X
               -w X, --number-width=X
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["tac"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -b, --before
               -r, --regex
               -s X, --separator=X
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["fold"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -b, --bytes
               -s, --spaces
               -w X, --width=X
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["fmt"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -c, --crown-margin
               -p X, --prefix=X
               -s, --split-only
               -t, --tagged-paragraph
               -u, --uniform-spacing
               -w X, --width=X
               -g X, --goal=X
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["expand"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -i, --initial
               -t X, --tabs=X
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["unexpand"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -a, --all
               --first-only
               -t X, --tabs=X
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["comm"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-9
               -1
               -2
               -3
               --output-delimiter=X
               --total",
        hook: None,
    },
    Spec {
        names: &["join"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-9
               -a X
               -e X
               -i, --ignore-case
               -j X
               -o X
               -t X
               -v X
               -1 X
               -2 X
               --header",
        hook: None,
    },
    Spec {
        names: &["paste"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -d X, --delimiters=X
               -s, --serial
               -z, --zero-terminated
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-3",
        hook: None,
    },
    Spec {
        names: &["b2sum"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-3
               -l X, --length=X",
        hook: None,
    },
    Spec {
        names: &["cksum"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -a X, --algorithm=X
               -c, --check
               -l X, --length=X
               --tag
               --untagged
               -z, --zero
               --ignore-missing
               --quiet
               --status
               --strict
               -w, --warn
               --debug
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["sum"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -r
               -s, --sysv
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["base32", "base64"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-10",
        hook: None,
    },
    Spec {
        names: &["basenc"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-10
               --base64
               --base64url
               --base32
               --base32hex
               --base16
               --base2msbf
               --base2lsbf
               --z85",
        hook: None,
    },
    Spec {
        names: &["numfmt"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-8
               --debug
               --field=X
               --format=X
               --from=X
               --from-unit=X
               --grouping
               --header[=X]
               --invalid=X
               --padding=X
               --round=X
               --suffix=X
               --to=X
               --to-unit=X",
        hook: None,
    },
    Spec {
        names: &["pathchk"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -p
               -P
               --portability
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["dircolors"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -b, --sh, --bourne-shell
               -c, --csh, --c-shell
               -p, --print-database
               --print-ls-colors
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["df"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -a, --all
               -B X, --block-size=X
               -h, --human-readable
               -H, --si
               -i, --inodes
               -k
               -l, --local
               --no-sync
               --output[=X]
               -P, --portability
               --sync
               --total
               -t X, --type=X
               -T, --print-type
               -x X, --exclude-type=X
               -v
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["sync"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -d, --data
               -f, --file-system
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["ls", "dir", "vdir"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-4
               @use coreutils-11
               -p
               --indicator-style=WORD
               -A, --almost-all
               --author
               -b, --escape
               --block-size=X
               -B, --ignore-backups
               -C
               --color[=X]
               -d, --directory
               -D, --dired
               -F
               --classify[=X]
               --file-type
               --format=X
               --full-time
               -g
               --group-directories-first
               -G, --no-group
               -H, --dereference-command-line
               --dereference-command-line-symlink-to-dir
               --hide=X
               --hyperlink[=X]
               -i, --inode
               -I X, --ignore=X
               -k, --kibibytes
               -n, --numeric-uid-gid
               -N, --literal
               -q, --hide-control-chars
               --show-control-chars
               -Q, --quote-name
               --quoting-style=X
               -r, --reverse
               -R, --recursive
               -s, --size
               -S
               --sort=X
               --time=X
               -t
               -T X, --tabsize=X
               -u
               -U
               -v
               -w X, --width=X
               -X
               -Z, --context
               --zero
               -1",
        hook: None,
    },
    Spec {
        names: &["tail"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-6
               -f
               --follow[=X]
               -F
               --max-unchanged-stats=X
               --pid=X
               --retry
               -s X, --sleep-interval=X",
        hook: None,
    },
    Spec {
        names: &["du"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-4
               -0, --null
               --apparent-size
               -B X, --block-size=X
               -b, --bytes
               -c, --total
               -D, --dereference-args
               -d X, --max-depth=X
               --files0-from=X : reads
               -H
               --inodes
               -k
               -l, --count-links
               -P, --no-dereference
               -S, --separate-dirs
               -s, --summarize
               -t X, --threshold=X
               --time
               -X X, --exclude-from=X : reads
               --exclude=X
               -x, --one-file-system",
        hook: None,
    },
    Spec {
        names: &["stat"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -c FORMAT, --format=FORMAT
               -L, --dereference
               -f, --file-system
               --cached=X
               --printf=X
               -t, --terse
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["od"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-11
               -A X, --address-radix=X
               --endian=X
               -j X, --skip-bytes=X
               -N X, --read-bytes=X
               -S X
               --strings[=X]
               -t X, --format=X
               -v, --output-duplicates
               -w[X], --width[=X]
               --traditional
               --help
               --version
               -a
               -b
               -d
               -i
               -s",
        hook: None,
    },
    Spec {
        names: &["pr"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -COLUMN X, --columns=X
               -a, --across
               -c, --show-control-chars
               -d, --double-space
               -D X, --date-format=X
               -e[X], --expand-tabs[=X]
               -F, -f, --form-feed
               -h X, --header=X
               -i[X], --output-tabs[=X]
               -J, --join-lines
               -l X, --length=X
               -m, --merge
               -n[X], --number-lines[=X]
               -N X, --first-line-number=X
               -o X, --indent=X
               -r, --no-file-warnings
               -s[X], --separator[=X]
               -S[X], --sep-string[=X]
               -t, --omit-header
               -T, --omit-pagination
               -v, --show-nonprinting
               -w X, --width=X
               -W X, --page-width=X
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["ptx"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -A, --auto-reference
               -G, --traditional
               -F X, --flag-truncation=X
               -M X, --macro-name=X
               -O X, --format=X : harmless
               -R, --right-side-refs
               -S X, --sentence-regexp=X
               -T X
               -W X, --word-regexp=X
               -b X, --break-file=X
               -f, --ignore-case
               -g X, --gap-size=X
               -i X, --ignore-file=X
               -o X, --only-file=X
               -r, --references
               -t, --typeset-mode
               -w X, --width=X
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["shuf"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-12
               -e, --echo
               -i X, --input-range=X
               -n X, --head-count=X
               -r, --repeat",
        hook: None,
    },
    Spec {
        names: &["date"],
        family: "coreutils",
        text: "@read-only
               @operands args
               -d X, --date=X
               --debug
               -f X, --file=X : reads
               -I[X], --iso-8601[=X]
               --resolution
               -R, --rfc-email
               --rfc-3339=X
               -r X, --reference=X : reads
               -s X, --set=X : changes sets the system clock
               -u, --utc, --universal
               --help
               --version",
        hook: Some(date),
    },
    Spec {
        names: &["sort"],
        family: "coreutils",
        text: "@read-only
               @operands files
               @use coreutils-12
               -c, --check[=MODE]
               -C
               -b, --ignore-leading-blanks
               -d, --dictionary-order
               -f, --ignore-case
               -g, --general-numeric-sort
               -i, --ignore-nonprinting
               -M, --month-sort
               -h, --human-numeric-sort
               -n, --numeric-sort
               -R, --random-sort
               -r, --reverse
               --sort=X
               -V, --version-sort
               --batch-size=X
               --compress-program=X : runs gzip bzip2 xz zstd lz4 lzop pigz pbzip2 pixz pzstd
               --debug
               --files0-from=X : reads
               -k X, --key=X
               -m, --merge
               -s, --stable
               -S X, --buffer-size=X
               -t X, --field-separator=X
               -T X, --temporary-directory=X
               --parallel=X
               -u, --unique",
        hook: None,
    },
    Spec {
        names: &["uniq"],
        family: "coreutils",
        text: "@read-only
               @operands files
               -c, --count
               -d, --repeated
               -D
               --all-repeated[=X]
               -f X, --skip-fields=X
               --group[=X]
               -i, --ignore-case
               -s X, --skip-chars=X
               -u, --unique
               -z, --zero-terminated
               -w X, --check-chars=X
               --help
               --version",
        hook: Some(uniq),
    },
    Spec {
        names: &["tee"],
        family: "coreutils",
        text: "@operands writes
               -a, --append
               -i, --ignore-interrupts
               -p
               --output-error[=X]
               --help
               --version",
        hook: Some(tee),
    },
    Spec {
        names: &["cp"],
        family: "coreutils",
        text: "@operands copy
               @use coreutils-2
               -a, --archive
               --attributes-only
               --copy-contents
               -d
               -H
               -l, --link : unprovable makes hard links to the sources instead of copies, which later writes would go through
               -L, --dereference
               -P, --no-dereference
               -p
               --preserve[=X]
               --no-preserve=X
               --parents
               -R, -r, --recursive
               --reflink[=X]
               --remove-destination
               --sparse=X
               -s, --symbolic-link : unprovable makes links to the sources instead of copies, which later writes would go through
               -x, --one-file-system
               -Z
               --context[=X]",
        hook: Some(cp),
    },
    Spec {
        names: &["mv"],
        family: "coreutils",
        text: "@operands args
               @use coreutils-2
               -Z, --context",
        hook: Some(mv),
    },
    Spec {
        names: &["install"],
        family: "coreutils",
        text: "@operands copy
               @use coreutils-5
               -c
               -C, --compare
               -d, --directory
               -D
               -g X, --group=X
               -m X, --mode=X
               -o X, --owner=X
               -p, --preserve-timestamps
               -s, --strip
               --strip-program=X : runs strip llvm-strip
               --preserve-context
               -Z
               --context[=X]",
        hook: Some(install),
    },
    Spec {
        names: &["ln"],
        family: "coreutils",
        text: "@operands args
               @use coreutils-5
               -d, -F, --directory : unprovable makes hard links to folders
               -f, --force
               -i, --interactive
               -L, --logical
               -n, --no-dereference
               -P, --physical
               -r, --relative
               -s, --symbolic",
        hook: Some(ln),
    },
    Spec {
        names: &["link"],
        family: "coreutils",
        text: "@operands args
               --help
               --version",
        hook: Some(ln),
    },
    Spec {
        names: &["rm"],
        family: "coreutils",
        text: "@operands args
               -f, --force
               -i
               -I
               --interactive[=X]
               --one-file-system
               --no-preserve-root
               --preserve-root[=X]
               -r, -R, --recursive
               -d, --dir
               -v, --verbose
               --help
               --version",
        hook: Some(rm),
    },
    Spec {
        names: &["unlink"],
        family: "coreutils",
        text: "@operands args
               --help
               --version",
        hook: Some(rm),
    },
    Spec {
        names: &["rmdir"],
        family: "coreutils",
        text: "@operands args
               --ignore-fail-on-non-empty
               -p, --parents
               -v, --verbose
               --help
               --version",
        hook: Some(rm),
    },
    Spec {
        names: &["shred"],
        family: "coreutils",
        text: "@operands args
               -f, --force
               -n X, --iterations=X
               --random-source=X
               -s X, --size=X
               -u
               --remove[=X]
               -v, --verbose
               -x, --exact
               -z, --zero
               --help
               --version",
        hook: Some(rm),
    },
    Spec {
        names: &["truncate"],
        family: "coreutils",
        text: "@operands args
               -c, --no-create
               -o, --io-blocks
               -r X, --reference=X : reads
               -s X, --size=X
               --help
               --version",
        hook: Some(truncate),
    },
    Spec {
        names: &["touch"],
        family: "coreutils",
        text: "@operands writes
               -a
               -c, --no-create
               -d X, --date=X
               -f
               -h, --no-dereference
               -m
               -r X, --reference=X : reads
               -t X
               --time=X
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["mkdir"],
        family: "coreutils",
        text: "@operands writes
               @use coreutils-13
               -p, --parents
               -v, --verbose",
        hook: None,
    },
    Spec {
        names: &["mkfifo"],
        family: "coreutils",
        text: "@operands writes
               @use coreutils-13",
        hook: None,
    },
    Spec {
        names: &["mknod"],
        family: "coreutils",
        text: "@operands args
               @use coreutils-13",
        hook: Some(mknod),
    },
    Spec {
        names: &["mktemp"],
        family: "coreutils",
        text: "@operands args
               -d, --directory
               -u, --dry-run
               -q, --quiet
               --suffix=X
               -p X
               --tmpdir[=X]
               -t
               --help
               --version",
        hook: None,
    },
    Spec {
        names: &["split"],
        family: "coreutils",
        text: "@operands args
               -a X, --suffix-length=X
               --additional-suffix=X
               -b X, --bytes=X
               -C X, --line-bytes=X
               -d
               --numeric-suffixes[=X]
               -x
               --hex-suffixes[=X]
               -e, --elide-empty-files
               --filter=X : runs *
               -l X, --lines=X
               -n X, --number=X
               -t X, --separator=X
               -u, --unbuffered
               --verbose
               --help
               --version",
        hook: Some(split),
    },
    Spec {
        names: &["csplit"],
        family: "coreutils",
        text: "@operands files
               -b X, --suffix-format=X
               -f X, --prefix=X
               -k, --keep-files
               --suppress-matched
               -n X, --digits=X
               -s, --quiet, --silent
               -z, --elide-empty-files
               --help
               --version",
        hook: Some(csplit),
    },
    Spec {
        names: &["chmod"],
        family: "coreutils",
        text: "@opaque
               -c, --changes
               -f, --silent, --quiet
               -v, --verbose
               --no-preserve-root
               --preserve-root
               --reference=X
               -R, --recursive
               --help
               --version",
        hook: Some(chmod),
    },
    Spec {
        names: &["chown"],
        family: "coreutils",
        text: "@operands args
               @use coreutils-1
               --from=X",
        hook: Some(chown),
    },
    Spec {
        names: &["chgrp"],
        family: "coreutils",
        text: "@operands args
               @use coreutils-1",
        hook: Some(chown),
    },
    Spec {
        names: &["dd"],
        family: "coreutils",
        text: "@opaque
               --help
               --version",
        hook: Some(dd),
    },
    Spec {
        names: &["wipe"],
        family: "coreutils",
        text: "@operands args
               -a
               -b N
               -c
               -D
               -e
               -f
               -F
               -h
               -i
               -k
               -l LENGTH
               -M ALGORITHM
               -o OFFSET
               -P PASSES
               -Q PASSES
               -q
               -r
               -R DEVICE : unprovable names a random device, or with -S c a command it runs
               -S METHOD
               -s
               -T TRIES
               -v
               -Z
               -X PASSES
               -x ORDER",
        hook: Some(destroys),
    },
    Spec {
        names: &["srm"],
        family: "coreutils",
        text: "@operands args
               -d
               -f
               -l
               -r
               -v
               -z",
        hook: Some(destroys),
    },
];

fn plain_args<'a>(call: &Call<'a>) -> &'a [String] {
    call.args
}

/// `date MMDDhhmm`: an operand that is not `+FORMAT` sets the clock.
fn date(call: &Call<'_>, verdict: &mut Verdict) {
    if call
        .operand_texts()
        .iter()
        .any(|word| !word.starts_with('+'))
    {
        verdict.not_read_only(format!(
            "`{}` is not read-only: it sets the system clock (plan mode allows only reading forms)",
            call.display()
        ));
    }
}

/// `uniq IN OUT` writes OUT.
fn uniq(call: &Call<'_>, verdict: &mut Verdict) {
    if let Some(output) = call.operand_texts().get(1) {
        verdict.output(output, "uniq output", false);
        verdict.not_read_only(format!(
            "`{}` is not read-only: it writes {output} (plan mode allows only reading forms)",
            call.display()
        ));
    }
}

fn cp(call: &Call<'_>, verdict: &mut Verdict) {
    empties_destination(call, verdict);
}

/// Its files get what is piped in.
fn tee(_call: &Call<'_>, verdict: &mut Verdict) {
    verdict.writes_stdin = true;
}

fn install(call: &Call<'_>, verdict: &mut Verdict) {
    empties_destination(call, verdict);
    if let Some(mode) = call.value("--mode")
        && setuid(mode)
    {
        verdict.dangerous(&call.display(), SETUID);
    }
    if call.has("--directory") {
        // `install -d DIR…`: every operand is a folder it makes.
        verdict.writes.retain(|write| write.how != "install");
        verdict.copied_from = None;
        for folder in call.operand_texts() {
            verdict.write(folder, "install -d", false, true);
        }
    }
}

fn mv(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    let operands = call.operand_texts();
    if operands.last().is_some_and(|path| is_sink(path)) {
        verdict.dangerous(
            &display,
            "moves files onto a device such as /dev/null: they are gone",
        );
    }
    // Sources disappear and the destination is written: all of them, with what is below them.
    if let ([source, _], None) = (operands.as_slice(), call.value("--target-directory")) {
        verdict.copied_from = Some((*source).to_owned());
    }
    for path in operands {
        verdict.write(path, "mv", true, true);
    }
    if let Some(folder) = call.value("--target-directory") {
        verdict.write(folder, "mv", true, true);
    }
}

fn rm(call: &Call<'_>, verdict: &mut Verdict) {
    let args = plain_args(call);
    let display = call.display();
    let forced = ["--recursive", "--force", "--no-preserve-root"]
        .iter()
        .any(|option| call.has(option))
        || super::common::has_short(args, "rRf");
    let subtree = recursive(args) || call.name == "rmdir";
    match call.name {
        "rm" if forced => verdict.dangerous(
            &display,
            "rm -r/-f deletes without asking and cannot be undone",
        ),
        "rm" | "unlink" => verdict.dangerous(&display, "deletes files"),
        "shred" => verdict.dangerous(&display, "destroys file contents for good"),
        _ => {}
    }
    for path in positional_args(args, "nu", &["iterations", "size", "remove"]) {
        verdict.write(path, call.name, subtree, true);
    }
}

/// `wipe` and `srm` overwrite and delete their operands for good.
fn destroys(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.dangerous(&call.display(), "destroys file contents for good");
    let subtree = call.has("-r");
    for path in call.operand_texts() {
        verdict.write(path, call.name, subtree, true);
    }
}

fn truncate(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.dangerous(
        &call.display(),
        "cuts files to a size, losing their contents",
    );
    for path in call.operand_texts() {
        verdict.write(path, "truncate", false, true);
    }
}

fn mknod(call: &Call<'_>, verdict: &mut Verdict) {
    if let Some(path) = call.operand_texts().first() {
        verdict.write(path, "mknod", false, true);
    }
}

/// `split [FILE [PREFIX]]`: writes PREFIXaa, PREFIXab, … (default `x`).
fn split(call: &Call<'_>, verdict: &mut Verdict) {
    let prefix = call.operand_texts().get(1).copied().unwrap_or("x");
    verdict.output(&format!("{prefix}*"), "split", false);
}

fn csplit(call: &Call<'_>, verdict: &mut Verdict) {
    let prefix = call.value("--prefix").unwrap_or("xx");
    verdict.output(&format!("{prefix}*"), "csplit", false);
    verdict.not_read_only(format!(
        "`{}` is not read-only: it writes {prefix}00, {prefix}01, … (plan mode allows only reading forms)",
        call.display()
    ));
}

/// chmod's own reading: a mode such as `-w` or `-x` looks like an option.
fn chmod(call: &Call<'_>, verdict: &mut Verdict) {
    let args = plain_args(call);
    let display = call.display();
    let mut options_done = false;
    let mut reference = false;
    let mut words: Vec<&str> = Vec::new();
    let mut recursive_change = false;
    for arg in args {
        let text = arg.as_str();
        if options_done || !text.starts_with('-') || text == "-" {
            words.push(text);
            continue;
        }
        match text {
            "--" => options_done = true,
            "-R" | "--recursive" => recursive_change = true,
            "-c" | "--changes" | "-f" | "--silent" | "--quiet" | "-v" | "--verbose"
            | "--no-preserve-root" | "--preserve-root" | "--help" | "--version" => {}
            _ if text.starts_with("--reference=") => reference = true,
            _ if is_mode(text) => words.push(text),
            _ if text[1..].chars().all(|c| "Rcfv".contains(c)) => {
                recursive_change |= text.contains('R');
            }
            _ => verdict.unprovable(format!(
                "option {text} of chmod is not known to kaiport's rules"
            )),
        }
    }
    if !reference && words.first().is_some_and(|mode| setuid(mode)) {
        verdict.dangerous(&display, SETUID);
    }
    let files: Vec<&str> = if reference {
        words
    } else {
        words.into_iter().skip(1).collect()
    };
    permissions(&display, "chmod", &files, recursive_change, verdict);
}

const SETUID: &str =
    "sets the set-user-ID bit: the program then runs as its owner (often root) for whoever runs it";

/// A mode that sets the set-user-ID bit (`u+s`, `+s`, `a=rwxs`, `4755`); set-group-ID alone
/// (`g+s`, common on shared folders) does not count.
fn setuid(mode: &str) -> bool {
    if mode.chars().all(|c| c.is_ascii_digit()) {
        return mode.len() >= 4
            && mode
                .chars()
                .rev()
                .nth(3)
                .and_then(|digit| digit.to_digit(8))
                .is_some_and(|digit| digit & 4 != 0);
    }
    mode.split(',').any(|clause| {
        let who: String = clause.chars().take_while(|c| "ugoa".contains(*c)).collect();
        let rest = &clause[who.len()..];
        (who.is_empty() || who.contains('u') || who.contains('a'))
            && (rest.starts_with('+') || rest.starts_with('='))
            && rest.contains('s')
    })
}

/// `-w`, `-x`, `+x`, `u-w,go=`: a symbolic mode.
fn is_mode(text: &str) -> bool {
    text.len() > 1 && text.chars().all(|c| "ugoa+-=rwxXst,01234567".contains(c))
}

fn chown(call: &Call<'_>, verdict: &mut Verdict) {
    let operands = call.operand_texts();
    let files: Vec<&str> = if call.has("--reference") {
        operands
    } else {
        operands.into_iter().skip(1).collect()
    };
    let recursive_change = call.has("--recursive");
    permissions(
        &call.display(),
        call.name,
        &files,
        recursive_change,
        verdict,
    );
}

/// Mode and owner changes: each file is written; `/` or a top-level system folder, with any mode,
/// breaks the system (`chmod 000 /`, `chown -R nobody /usr`); a home or `.ssh` folder's mode or
/// owner decides whether sshd still trusts the keys in it (`chmod 777 /home/alice`).
fn permissions(display: &str, how: &str, files: &[&str], recursive: bool, verdict: &mut Verdict) {
    for file in files {
        verdict.write(file, how, recursive, true);
        let path = normalise_path(file, None);
        if is_key_folder(&path) {
            let what = if path == "." || path == ".." || path.ends_with("/..") {
                "the terminal's folder or one above it, which may be a home folder"
            } else {
                "a home or .ssh folder"
            };
            verdict.lockout(
                display,
                &format!(
                    "changes the mode or owner of {file}, {what} (sshd stops trusting the keys in a folder others can write to)"
                ),
            );
        }
    }
    for file in files {
        if recursive && is_home_root(&normalise_path(file, None)) {
            verdict.lockout(
                display,
                &format!(
                    "changes the mode or owner of every folder in {file}, which holds home folders (sshd stops trusting the keys in a folder others can write to)"
                ),
            );
        }
    }
    if files.iter().any(|file| is_system_folder(file)) {
        verdict.dangerous(
            display,
            "changes permissions or owners of / or a system folder, which can break the system and every login",
        );
    }
}

fn dd(call: &Call<'_>, verdict: &mut Verdict) {
    let args = plain_args(call);
    let display = call.display();
    let operand = |key: &str| {
        args.iter()
            .find_map(|arg| arg.strip_prefix(key).map(str::to_owned))
    };
    let output = operand("of=");
    if let Some(path) = &output {
        verdict.write(path, "dd of=", false, false);
    }
    if operand("if=").is_some_and(|path: String| is_empty_source(&path))
        && output.as_deref().is_some_and(|path| !is_sink(path))
    {
        verdict.dangerous(
            &display,
            "dd from /dev/null or /dev/zero empties or overwrites the file",
        );
    }
    if output.as_deref().is_some_and(|path| {
        path.starts_with("/dev/") && !matches!(path, "/dev/null" | "/dev/stdout" | "/dev/stderr")
    }) {
        verdict.dangerous(&display, "dd writes straight to a device");
    }
    for arg in args {
        let known = [
            "if=", "of=", "bs=", "ibs=", "obs=", "cbs=", "count=", "skip=", "seek=", "iseek=",
            "oseek=", "conv=", "iflag=", "oflag=", "status=",
        ];
        if !known.iter().any(|key| arg.starts_with(key))
            && !matches!(arg.as_str(), "--help" | "--version")
        {
            verdict.unprovable(format!(
                "operand {arg} of dd is not known to kaiport's rules"
            ));
        }
    }
    if output.is_none() {
        // To standard output: a read.
        verdict.judged.read_only = Ok(());
    }
}

/// `ln [-s] TARGET… LINK`, `link TARGET LINK`: the link is written; what it links to is checked
/// by the walker (a link to `/` or a lock-out path asks).
fn ln(call: &Call<'_>, verdict: &mut Verdict) {
    let args = plain_args(call);
    for path in link_paths(args) {
        verdict.write(&path, "ln", false, true);
    }
    verdict.links = Some(link_targets(args));
    if let ([target, _], None) = (call.operand_texts().as_slice(), ln_target_directory(args)) {
        verdict.copied_from = Some((*target).to_owned());
    }
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
fn link_targets(args: &[String]) -> (Vec<String>, Option<String>) {
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
