//! Builds: make runs the recipes of the project's makefile (its own effect: an allowed `make deploy`
//! covers it); a makefile from standard input (`make -f -`) or text (`--eval`) cannot be read here
//! and asks, as do variables that change the shell recipes run in. Compilers write their output
//! (`-o FILE`).
//!
//! The compilers (gcc, g++, cc, c++, clang, clang++, rustc) stay `@loose`: their options are
//! thousands of open-ended families (`-f…`, `-W…`, `-m…`, `--param`, `-Wl,…` passed on to the
//! linker, `-C key=value`) that the spec format cannot list; only `-o` is judged.

use super::args::Call;
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["make", "gmake"],
        family: "build",
        text: "@operands args
               -b, -m
               -B, --always-make
               -C DIR, --directory=DIR
               -d
               --debug[=FLAGS]
               -e, --environment-overrides
               -E STRING, --eval=STRING : unprovable adds makefile text given on the command line
               -f FILE, --file=FILE, --makefile=FILE
               -h, --help
               -i, --ignore-errors
               -I DIR, --include-dir=DIR
               -j[N], --jobs[=N]
               --jobserver-style=STYLE
               -k, --keep-going
               -l[N], --load-average[=N], --max-load[=N]
               -L, --check-symlink-times
               -n, --just-print, --dry-run, --recon
               -o FILE, --old-file=FILE, --assume-old=FILE
               -O[TYPE], --output-sync[=TYPE]
               -p, --print-data-base
               -q, --question
               -r, --no-builtin-rules
               -R, --no-builtin-variables
               --shuffle[=MODE]
               -s, --silent, --quiet
               --no-silent
               -S, --no-keep-going, --stop
               -t, --touch
               --trace
               -v, --version
               -w, --print-directory
               --no-print-directory
               -W FILE, --what-if=FILE, --new-file=FILE, --assume-new=FILE
               --warn-undefined-variables
               --jobserver-fds=FDS
               --jobserver-auth=FDS",
        hook: Some(make),
    },
    Spec {
        names: &["gcc", "g++", "cc", "c++", "clang", "clang++", "rustc"],
        family: "build",
        text: "@loose
               -o FILE : writes",
        hook: None,
    },
];

fn make(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    for (file, _) in call.values("--file") {
        if file == "-" || file.starts_with("/dev/") || file.starts_with("/proc/") {
            verdict.unprovable(format!(
                "`make -f {file}` reads its makefile from standard input; the recipes it runs cannot be checked here"
            ));
        }
    }
    for operand in call.operand_texts() {
        if let Some((name, _)) = operand.split_once('=') {
            let name = name.trim_end_matches([':', '+', '?', '!']);
            if matches!(
                name,
                "SHELL" | "MAKESHELL" | ".SHELLFLAGS" | "MAKEFLAGS" | "MAKEFILES" | "MAKE"
            ) {
                verdict.unprovable(format!(
                    "`make {name}=…` changes the program every recipe runs through"
                ));
            }
        }
    }
    let dry = ["--just-print", "--question", "--help", "--version"]
        .iter()
        .any(|option| call.has(option));
    if !dry {
        verdict.not_read_only(format!("`{display}` runs the makefile's recipes"));
    }
}
