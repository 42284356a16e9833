//! Builds: make runs the recipes of the project's makefile (its own effect: an allowed `make deploy`
//! covers it); a makefile from standard input (`make -f -`) or text (`--eval`) cannot be read here
//! and asks, as do variables that change the shell recipes run in.
//!
//! Compilers: gcc, g++, cc, c++, clang and clang++ share one complete table (compilers.spec, every
//! option their help lists); `-o`/`-MF` write, `-wrapper`/`-fplugin`/`-B`/`-specs` run programs,
//! `@file` reads more options from a file and asks, and what `-Wl,`/`-Wa,`/`-Wp,` pass on to the
//! linker, assembler or preprocessor must be on a short list of options that only shape the
//! output. rustc: `-o`/`--out-dir`/`--emit` write, `-C linker=` runs a program, `-C link-arg`,
//! `-C llvm-args` and `-Z` cannot be followed.

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
        names: &["gcc", "g++", "cc", "c++", "clang", "clang++"],
        family: "build",
        text: include_str!("compilers.spec"),
        hook: Some(compiler),
    },
    Spec {
        names: &["rustc"],
        family: "build",
        text: "@operands files
               -h, --help
               --cfg=SPEC
               --check-cfg=SPEC
               -L PATH
               -l NAME
               --crate-type=TYPE
               --crate-name=NAME
               --edition=EDITION
               --emit=TYPES
               --print=INFO
               -g
               -O
               -o FILE : writes
               --out-dir=DIR : writes-into
               --explain=CODE
               --test
               --target=TARGET
               -A LINT, --allow=LINT
               -W LINT, --warn=LINT
               --force-warn=LINT
               -D LINT, --deny=LINT
               -F LINT, --forbid=LINT
               --cap-lints=LEVEL
               -C OPT, --codegen=OPT
               -V, --version
               -v, --verbose
               --extern=NAME
               --sysroot=PATH
               --error-format=FORMAT
               --json=CONFIG
               --color=WHEN
               --diagnostic-width=WIDTH
               --remap-path-prefix=MAP
               --remap-path-scope=SCOPES
               -Z OPT : unprovable sets an unstable compiler option (a codegen backend, a linker plugin) kaiport does not read",
        hook: Some(rustc),
    },
];

/// Options of the linker (`-Wl,`, `-Xlinker`) that only shape the program it links; anything else
/// (`--plugin`, `-Map=FILE`, `@FILE`, `-o`) asks.
const LINKER_OPTIONS: &[&str] = &[
    "-O0",
    "-O1",
    "-O2",
    "-O3",
    "--as-needed",
    "--no-as-needed",
    "-z",
    "--gc-sections",
    "--no-gc-sections",
    "--no-undefined",
    "-rpath",
    "--rpath",
    "-rpath-link",
    "-R",
    "-soname",
    "--soname",
    "-h",
    "--build-id",
    "--export-dynamic",
    "-E",
    "--no-export-dynamic",
    "-Bstatic",
    "-Bdynamic",
    "-Bsymbolic",
    "-Bsymbolic-functions",
    "--start-group",
    "--end-group",
    "-(",
    "-)",
    "--whole-archive",
    "--no-whole-archive",
    "--hash-style",
    "--sort-common",
    "--strip-all",
    "-s",
    "--strip-debug",
    "-S",
    "--enable-new-dtags",
    "--disable-new-dtags",
    "--icf",
    "-L",
    "-l",
    "--version-script",
    "--dynamic-list",
    "--exclude-libs",
    "--no-allow-shlib-undefined",
    "--allow-shlib-undefined",
    "--warn-common",
    "--fatal-warnings",
    "--compress-debug-sections",
    "--pie",
    "-pie",
    "--eh-frame-hdr",
    "--copy-dt-needed-entries",
    "--no-copy-dt-needed-entries",
    "--threads",
    "--no-threads",
    "--thinlto-jobs",
    "--push-state",
    "--pop-state",
    "-static",
    "--relax",
    "--no-relax",
    "--undefined",
    "-u",
    "--defsym",
    "--wrap",
    "--unresolved-symbols",
];

/// Options of the assembler (`-Wa,`, `-Xassembler`) that only shape the object it writes.
const ASSEMBLER_OPTIONS: &[&str] = &[
    "--noexecstack",
    "--execstack",
    "-g",
    "--gdwarf-2",
    "--gdwarf-3",
    "--gdwarf-4",
    "--gdwarf-5",
    "--64",
    "--32",
    "--x32",
    "-mrelax-relocations",
    "--compress-debug-sections",
    "--nocompress-debug-sections",
    "-mno-shared",
    "-march",
    "-mtune",
    "--generate-missing-build-notes",
    "--fatal-warnings",
    "--no-warn",
    "-W",
    "--warn",
];

/// Options of the preprocessor (`-Wp,`, `-Xpreprocessor`) that only define and find names.
const PREPROCESSOR_OPTIONS: &[&str] = &["-D", "-U", "-I", "-isystem", "-iquote"];

/// The linkers `-fuse-ld=` may name without a path.
const LINKERS: &[&str] = &["bfd", "gold", "lld", "mold", "ld"];

/// gcc and clang: what the table's classes cannot say (see the module docs).
fn compiler(call: &Call<'_>, verdict: &mut Verdict) {
    for operand in call.operand_texts() {
        if operand.starts_with('@') {
            verdict.unprovable(format!(
                "`{} {operand}` reads more options from a file, which this analysis cannot follow",
                call.name
            ));
        }
    }
    for found in &call.options {
        let Some(value) = found.value.as_deref() else {
            continue;
        };
        let (tool, known, parts): (&str, &[&str], Vec<&str>) = match found.spelling.as_str() {
            "-Wl" => ("linker", LINKER_OPTIONS, split_joined(value)),
            "-Xlinker" => ("linker", LINKER_OPTIONS, vec![value]),
            "-Wa" => ("assembler", ASSEMBLER_OPTIONS, split_joined(value)),
            "-Xassembler" => ("assembler", ASSEMBLER_OPTIONS, vec![value]),
            "-Wp" => ("preprocessor", PREPROCESSOR_OPTIONS, split_joined(value)),
            "-Xpreprocessor" => ("preprocessor", PREPROCESSOR_OPTIONS, vec![value]),
            "-fuse-ld" => {
                if !LINKERS.contains(&value) {
                    verdict.unprovable(format!(
                        "`{} -fuse-ld={value}` runs a linker other than bfd, gold, lld or mold",
                        call.name
                    ));
                }
                continue;
            }
            _ => continue,
        };
        for part in parts {
            if passed_option_known(part, known) {
                continue;
            }
            verdict.unprovable(format!(
                "`{} {}{value}` passes {part} to the {tool}, which kaiport's rules do not know",
                call.name, found.spelling
            ));
        }
    }
}

/// `-Wl,-rpath,/opt/lib`: the words after the comma.
fn split_joined(value: &str) -> Vec<&str> {
    value
        .strip_prefix(',')
        .unwrap_or(value)
        .split(',')
        .filter(|part| !part.is_empty())
        .collect()
}

/// A word passed on to another tool: a value (no dash) or a listed option, alone, with `=value`
/// or, for one-letter options, joined (`-lm`, `-DX=1`).
fn passed_option_known(part: &str, known: &[&str]) -> bool {
    if part.starts_with('@') {
        return false;
    }
    if !part.starts_with('-') {
        return true;
    }
    let name = part.split_once('=').map_or(part, |(name, _)| name);
    known.iter().any(|option| {
        *option == name
            || (option.len() == 2 && !option.starts_with("--") && part.starts_with(option))
    })
}

/// rustc: `@file`, `-C` settings that run or pass on, and paths in `--emit`/`--print`.
fn rustc(call: &Call<'_>, verdict: &mut Verdict) {
    for operand in call.operand_texts() {
        if operand.starts_with('@') {
            verdict.unprovable(format!(
                "`rustc {operand}` reads more options from a file, which this analysis cannot follow"
            ));
        }
    }
    for (setting, _) in call.values("--codegen") {
        let (key, value) = setting.split_once('=').unwrap_or((setting, ""));
        match key.replace('_', "-").as_str() {
            "linker" | "ar" | "dlltool" => verdict.unprovable(format!(
                "`rustc -C {key}={value}` runs the program it names"
            )),
            "link-arg" | "link-args" | "llvm-args" | "passes" | "linker-plugin-lto"
            | "linker-flavor" | "linker-features" | "link-self-contained" => {
                verdict.unprovable(format!(
                    "`rustc -C {key}=…` passes options on to the linker or LLVM, which kaiport's rules do not follow"
                ))
            }
            "incremental" => verdict.output(value, "rustc -C incremental", true),
            _ => {}
        }
    }
    for spelling in ["--emit", "--print"] {
        for (list, _) in call.values(spelling) {
            for item in list.split(',') {
                // `--emit link=out`, `--print cfg=out`: a path written.
                if let Some((_, path)) = item.split_once('=') {
                    verdict.output(path, format!("rustc {spelling}"), false);
                    verdict.not_read_only(format!("`rustc {spelling} {list}` writes {path}"));
                }
            }
        }
    }
}

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
