//! Archives and compressors: tar, zip, unzip, gzip, xz, zstd, bzip2.
//!
//! Their own effect is reading and writing archives: `tar -cf A` writes A (a write that asks in
//! ask mode, like any option that writes), `tar -x` writes into its folder, `gzip F` replaces F.
//! Another effect through an option asks: `tar --to-command`, `--checkpoint-action=exec`,
//! `-I PROG` other than a compressor, `zip -TT` other than unzip run programs; `tar
//! --remove-files` and `zip -m` delete what they archived (dangerous, and each file deleted is a
//! change the lock-out rules judge).

use super::args::Call;
use super::model::Runs;
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["tar", "gtar"],
        family: "archives",
        text: "@read-only
               @operands files
               @bundled
               -A, --catenate, --concatenate : changes appends archives to the archive
               -c, --create : changes creates an archive
               --delete : changes deletes members from the archive
               -d, --diff, --compare
               -r, --append : changes appends to the archive
               --test-label
               -t, --list
               -u, --update : changes appends to the archive
               -x, --extract, --get : changes extracts files
               --check-device
               -g FILE, --listed-incremental=FILE : writes
               -G, --incremental
               --hole-detection=TYPE
               --ignore-failed-read
               --level=NUMBER
               --no-check-device
               --no-seek
               -n, --seek
               --occurrence[=NUMBER]
               --sparse-version=VERSION
               -S, --sparse
               --add-file=FILE
               -C DIR, --directory=DIR
               --exclude=PATTERN
               --exclude-backups
               --exclude-caches
               --exclude-caches-all
               --exclude-caches-under
               --exclude-ignore=FILE : reads
               --exclude-ignore-recursive=FILE : reads
               --exclude-tag=FILE
               --exclude-tag-all=FILE
               --exclude-tag-under=FILE
               --exclude-vcs
               --exclude-vcs-ignores
               --no-null
               --no-recursion
               --no-unquote
               --no-verbatim-files-from
               --null
               --recursion
               -T FILE, --files-from=FILE : reads
               --unquote
               --verbatim-files-from
               -X FILE, --exclude-from=FILE : reads
               --anchored
               --ignore-case
               --no-anchored
               --no-ignore-case
               --no-wildcards
               --no-wildcards-match-slash
               --wildcards
               --wildcards-match-slash
               --keep-directory-symlink
               --keep-newer-files
               -k, --keep-old-files
               --no-overwrite-dir
               --one-top-level[=DIR]
               --overwrite
               --overwrite-dir
               --recursive-unlink : deletes empties folders before extracting into them
               --remove-files : deletes removes the files it archived
               --skip-old-files
               -U, --unlink-first
               -W, --verify
               --ignore-command-error
               --no-ignore-command-error
               -O, --to-stdout
               --to-command=COMMAND : runs *
               --atime-preserve[=METHOD]
               --clamp-mtime
               --delay-directory-restore
               --group=NAME
               --group-map=FILE : reads
               --mode=CHANGES
               --mtime=DATE
               -m, --touch
               --no-delay-directory-restore
               --no-same-owner
               --no-same-permissions
               --numeric-owner
               --owner=NAME
               --owner-map=FILE : reads
               -p, --preserve-permissions, --same-permissions
               --same-owner
               --sort=ORDER
               -s, --preserve-order, --same-order
               --acls
               --no-acls
               --no-selinux
               --no-xattrs
               --selinux
               --xattrs
               --xattrs-exclude=PATTERN
               --xattrs-include=PATTERN
               --force-local
               -f ARCHIVE, --file=ARCHIVE : judged the archive it reads, or writes with -c, -r, -u, -A or --delete
               -F SCRIPT, --info-script=SCRIPT, --new-volume-script=SCRIPT : runs *
               -L NUMBER, --tape-length=NUMBER
               -M, --multi-volume
               --rmt-command=COMMAND : runs rmt
               --rsh-command=COMMAND : runs+ ssh rsh
               --volno-file=FILE : writes
               -b BLOCKS, --blocking-factor=BLOCKS
               -B, --read-full-records
               -i, --ignore-zeros
               --record-size=NUMBER
               -H FORMAT, --format=FORMAT
               --old-archive, --portability
               --pax-option=OPTIONS
               --posix
               -V TEXT, --label=TEXT
               -a, --auto-compress
               -I PROG, --use-compress-program=PROG : runs gzip gunzip bzip2 bunzip2 xz unxz lzma zstd unzstd lz4 lzop lzip pigz unpigz pbzip2 pixz plzip pzstd brotli compress uncompress
               -j, --bzip2
               -J, --xz
               --lzip
               --lzma
               --lzop
               --no-auto-compress
               --zstd
               -z, --gzip, --gunzip, --ungzip
               -Z, --compress, --uncompress
               --backup[=CONTROL]
               --hard-dereference
               -h, --dereference
               -K MEMBER, --starting-file=MEMBER
               --newer-mtime=DATE
               -N DATE, --newer=DATE, --after-date=DATE
               --one-file-system
               -P, --absolute-names
               --suffix=STRING
               --strip-components=NUMBER
               --transform=EXPRESSION, --xform=EXPRESSION
               --checkpoint[=NUMBER]
               --checkpoint-action=ACTION
               --full-time
               --index-file=FILE : writes
               -l, --check-links
               --no-quote-chars=STRING
               --quote-chars=STRING
               --quoting-style=STYLE
               -R, --block-number
               --show-defaults
               --show-omitted-dirs
               --show-snapshot-field-ranges
               --show-transformed-names, --show-stored-names
               --totals[=SIGNAL]
               --utc
               -v, --verbose
               --warning=KEYWORD
               -w, --interactive, --confirmation
               -o
               -?, --help
               --restrict
               --usage
               --version",
        hook: Some(tar),
    },
    Spec {
        names: &["zip"],
        family: "archives",
        text: "@read-only
               @operands files
               @numeric
               -a, --ascii
               -A, --adjust-sfx : changes changes the archive
               -AC, --archive-clear
               -AS, --archive-set
               -B, --binary
               -b PATH, --temp-path=PATH
               -c, --entry-comments
               -C, --preserve-case
               -C2, --preserve-case-2
               -C5, --preserve-case-5
               -d, --delete : changes deletes entries from the archive
               -db, --display-bytes
               -dc, --display-counts
               -dd, --display-dots
               -df, --datafork
               -dg, --display-globaldots
               -ds SIZE, --dot-size=SIZE
               -du, --display-usize
               -dv, --display-volume
               -D, --no-dir-entries
               -DF, --difference-archive
               -e, --encrypt
               -E, --longnames
               -f, --freshen
               -F, --fix
               -FF, --fixfix
               -FI, --fifo
               -FS, --filesync : changes deletes entries that are gone from the disk
               -g, --grow
               -h, -?, --help
               -h2, --more-help
               -i FILES, --include=FILES
               -I, --no-image
               -ic, --ignore-case
               -j, --junk-paths
               -jj, --absolute-path
               -J, --junk-sfx
               -k, --DOS-names
               -l, --to-crlf
               -la, --log-append
               -lf PATH, --logfile-path=PATH : writes
               -li, --log-info
               -ll, --from-crlf
               -L, --license
               -m, --move : deletes deletes the original files after zipping them
               -MM, --must-match
               -n SUFFIXES, --suffixes=SUFFIXES
               -nw, --no-wild
               -N, --notes
               -o, --latest-time
               -O FILE, --output-file=FILE : writes
               -p, --paths
               -P PASSWORD, --password=PASSWORD
               -q, --quiet
               -Qn, --Q-flag=N
               -r, --recurse-paths
               -R, --recurse-patterns
               -RE, --regex
               -s SIZE, --split-size=SIZE
               -sb, --split-bell
               -sc, --show-command
               -sf, --show-files
               -so, --show-options
               -sp, --split-pause
               -su, --show-unicode
               -sU, --show-just-unicode
               -sv, --split-verbose
               -S, --system-hidden
               -t DATE, --from-date=DATE
               -tt DATE, --before-date=DATE
               -T, --test
               -TT COMMAND, --unzip-command=COMMAND : runs+ unzip
               -u, --update
               -U, --copy-entries
               -UN MODE, --unicode=MODE
               -v, --verbose
               -V, --VMS-portable
               -VV, --VMS-specific
               -w, --VMS-versions
               -ww, --VMS-dot-versions
               -ws, --wild-stop-dirs
               -x FILES, --exclude=FILES
               -X, --no-extra
               -y, --symlinks
               -z, --archive-comment
               -Z METHOD, --compression-method=METHOD
               -@, --names-stdin
               -$, --volume-label
               -!, --use-privileges
               -#",
        hook: Some(zip),
    },
    Spec {
        names: &["unzip"],
        family: "archives",
        text: "@read-only
               @operands files
               -Z
               -A
               -c
               -f : changes replaces existing files
               -l
               -p
               -t
               -T : changes changes the archive's time
               -u : changes extracts files
               -v
               -z
               -a
               -aa
               -b
               -B
               -C
               -D
               -DD
               -e
               -E
               -F
               -i
               -j
               -J
               -K
               -L
               -LL
               -M
               -n
               -N
               -o
               -P PASSWORD
               -q
               -qq
               -s
               -S
               -U
               -UU
               -V
               -W
               -X
               -Y
               -$
               -/ EXTENSIONS
               -: : unprovable lets archive names with ../ write outside the folder
               -^
               -2
               -d DIR : writes-into
               -x FILES
               -O CHARSET
               -I CHARSET
               -h
               -hh
               --help",
        hook: Some(unzip),
    },
    Spec {
        names: &["gzip", "gunzip", "zcat", "pigz", "unpigz"],
        family: "archives",
        text: "@read-only
               @operands files
               @numeric
               -a, --ascii
               -c, --stdout, --to-stdout
               -d, --decompress, --uncompress
               -f, --force
               -h, --help
               -k, --keep
               -l, --list
               -L, --license
               -n, --no-name
               -N, --name
               -q, --quiet, --silent
               -r, --recursive
               --rsyncable
               -S SUFFIX, --suffix=SUFFIX
               --synchronous
               -t, --test
               -v, --verbose
               -V, --version
               --fast
               --best
               # pigz's own
               -A X, --alias=X
               -b X, --blocksize=X
               -C X, --comment=X
               -F, --first
               -H, --huffman
               -i, --independent
               -I X, --iterations=X
               -J X, --maxsplits=X
               -K, --zip
               -m, --no-time
               -M, --time
               -O, --oneblock
               -p X, --processes=X
               -R
               -U, --rle
               -Y
               -z, --zlib",
        hook: Some(compressor),
    },
    Spec {
        names: &["xz", "unxz", "xzcat", "lzma", "unlzma", "lzcat"],
        family: "archives",
        text: "@read-only
               @operands files
               @numeric
               -z, --compress
               -d, --decompress, --uncompress
               -t, --test
               -l, --list
               -k, --keep
               -f, --force
               -c, --stdout, --to-stdout
               --single-stream
               --no-sparse
               -S SUFFIX, --suffix=SUFFIX
               --files[=FILE] : reads
               --files0[=FILE] : reads
               -F FORMAT, --format=FORMAT
               -C CHECK, --check=CHECK
               --ignore-check
               -e, --extreme
               -T N, --threads=N
               --block-size=SIZE
               --block-list=SIZES
               --flush-timeout=MS
               --memlimit-compress=LIMIT
               --memlimit-decompress=LIMIT
               --memlimit-mt-decompress=LIMIT
               -M LIMIT, --memlimit=LIMIT, --memory=LIMIT
               --no-adjust
               --lzma1[=OPTS]
               --lzma2[=OPTS]
               --x86[=OPTS]
               --arm[=OPTS]
               --armthumb[=OPTS]
               --arm64[=OPTS]
               --powerpc[=OPTS]
               --ia64[=OPTS]
               --sparc[=OPTS]
               --riscv[=OPTS]
               --delta[=OPTS]
               -q, --quiet
               -v, --verbose
               -Q, --no-warn
               --robot
               --info-memory
               -h, --help
               -H, --long-help
               -V, --version
               --fast
               --best",
        hook: Some(compressor),
    },
    Spec {
        names: &["zstd", "unzstd", "zstdcat", "zstdmt"],
        family: "archives",
        text: "@read-only
               @operands files
               @numeric
               -o FILE : writes
               -k, --keep
               --rm
               -d, --decompress, --uncompress
               -D DICT : reads
               -f, --force
               -h
               -H, --help
               -V, --version
               -c, --stdout
               -v, --verbose
               -q, --quiet
               --trace=FILE : writes
               -r
               --filelist=FILE : reads
               --output-dir-flat=DIR : writes-into
               --output-dir-mirror=DIR : writes-into
               --ultra
               --fast[=N]
               --adapt[=OPTS]
               --long[=N]
               --patch-from=FILE : reads
               -T N, --threads=N
               --single-thread
               --auto-threads=MODE
               -B SIZE, --block-size=SIZE
               --rsyncable
               --exclude-compressed
               --stream-size=SIZE
               --size-hint=SIZE
               --target-compressed-block-size=SIZE
               --no-dictID
               --format=FORMAT
               -l, --list
               -t, --test
               -M LIMIT, --memory=LIMIT
               --train
               --train-cover[=OPTS]
               --train-fastcover[=OPTS]
               --train-legacy[=OPTS]
               --maxdict=SIZE
               --dictID=ID
               -b
               -e
               -i N
               -S
               --priority=PRIO
               --no-check, --check
               --no-progress, --progress
               --sparse, --no-sparse
               --show-default-cparams
               --memlimit=LIMIT
               --zstd=OPTS
               --no-content-size, --content-size
               --asyncio, --no-asyncio
               --row-match-finder, --no-row-match-finder
               --mmap-dict, --no-mmap-dict
               --pass-through, --no-pass-through
               --verbose
               -z, --compress
               -n, --no-name
               --best
               --no-compress-literals, --compress-literals",
        hook: Some(compressor),
    },
    Spec {
        names: &["bzip2", "bunzip2", "bzcat"],
        family: "archives",
        text: "@read-only
               @operands files
               @numeric
               -h, --help
               -d, --decompress
               -z, --compress
               -k, --keep
               -f, --force
               -t, --test
               -c, --stdout
               -q, --quiet
               -v, --verbose
               -L, --license
               -V, --version
               -s, --small
               --fast
               --best
               --repetitive-fast
               --repetitive-best",
        hook: Some(compressor),
    },
];

fn tar(call: &Call<'_>, verdict: &mut Verdict) {
    let name = call.name;
    for (action, index) in call.values("--checkpoint-action") {
        if let Some(command) = action.strip_prefix("exec=") {
            let any = Runs::any();
            verdict.runs_option(
                command,
                &format!("{name} --checkpoint-action=exec"),
                &any,
                Some(index),
            );
        }
    }
    let creates = ["--create", "--append", "--update", "--catenate", "--delete"]
        .iter()
        .any(|mode| call.has(mode));
    if creates && let Some(archive) = call.value("--file") {
        verdict.output(archive, format!("{name} --file"), false);
    }
    if call.has("--remove-files") {
        // The files it archives are deleted: each is a change like `rm -r` of it, read from each
        // `-C` folder given (or the current one).
        let mut folders: Vec<&str> = call
            .values("--directory")
            .into_iter()
            .map(|(folder, _)| folder)
            .collect();
        if folders.is_empty() {
            folders.push(".");
        }
        for file in call.operand_texts() {
            for folder in &folders {
                verdict.output(
                    &in_folder(folder, file),
                    format!("{name} --remove-files"),
                    true,
                );
            }
        }
    }
    if call.has("--extract") {
        let folder = call.value("--directory").unwrap_or(".");
        match call.value("--one-top-level") {
            Some(top) => verdict.output(
                &format!("{folder}/{top}"),
                format!("{name} (extract)"),
                true,
            ),
            None => {
                verdict.output(folder, format!("{name} (extract)"), true);
                verdict.into_folder(folder, format!("`{name} -x`"));
            }
        }
    }
}

/// `file` as seen from `folder` (an absolute or home path stays itself).
fn in_folder(folder: &str, file: &str) -> String {
    if folder == "." || file.starts_with('/') || file.starts_with('~') {
        file.to_owned()
    } else {
        format!("{}/{file}", folder.trim_end_matches('/'))
    }
}

fn zip(call: &Call<'_>, verdict: &mut Verdict) {
    let read_only = call.has("--show-files") || (call.operands.len() <= 1 && call.has("--test"));
    if read_only {
        return;
    }
    if call.has("--move") {
        // The files it zips are deleted.
        let subtree = call.has("--recurse-paths") || call.has("--recurse-patterns");
        for file in call.operand_texts().iter().skip(1) {
            verdict.output(file, "zip --move", subtree);
        }
    }
    if let Some(archive) = call.operand_texts().first() {
        verdict.output(archive, "zip (archive)", false);
        verdict.not_read_only(format!(
            "`{}` is not read-only: it writes {archive} (plan mode allows only reading forms)",
            call.display()
        ));
    }
}

fn unzip(call: &Call<'_>, verdict: &mut Verdict) {
    let reads = ["-l", "-t", "-v", "-p", "-c", "-z", "-Z"]
        .iter()
        .any(|option| call.has(option));
    if reads {
        return;
    }
    let folder = call.value("-d").unwrap_or(".");
    verdict.output(folder, "unzip (extract)", true);
    verdict.not_read_only(format!(
        "`{}` is not read-only: it extracts files (plan mode allows only reading forms)",
        call.display()
    ));
}

/// gzip & co.: without `-c`, `-l` or `-t` each file is replaced by its (de)compressed form.
fn compressor(call: &Call<'_>, verdict: &mut Verdict) {
    let to_stdout = matches!(call.name, "zcat" | "xzcat" | "lzcat" | "zstdcat" | "bzcat")
        || ["--stdout", "--list", "--test"]
            .iter()
            .any(|option| call.has(option));
    if to_stdout || call.operands.is_empty() {
        return;
    }
    for file in call.operand_texts() {
        verdict.write(file, call.name, false, true);
    }
    verdict.not_read_only(format!(
        "`{}` is not read-only: it replaces the files it compresses (plan mode allows only reading forms)",
        call.display()
    ));
}
