//! Every program spec against the program itself: each option the installed program's `--help`
//! or manual page lists (in its option lines or its usage synopsis) must be known to its spec
//! (policy/programs/), or this test fails, naming the options. An option a spec does not know
//! asks on every use, so a missing option is a false alarm at best; the test keeps the tables
//! complete as the programs change.
//!
//! Where each program's help comes from is support/sources.rs, shared with the property tests.
//! Every name of every spec is checked there, or listed there with the reason it cannot be: the
//! same program under another name, not packaged by Debian, or a spec without an option table.
//! A program that is not installed here is skipped and said so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use kaiport_core::policy::programs::{accepts_option, is_complete, registry};
use support::help::listed_options;
use support::sources::{
    NOT_ON_DEBIAN, READ_BY_CODE, SAME_PROGRAM, Source, sources, subcommand_paths, texts,
};

#[test]
fn the_help_reader_finds_options() {
    let text = "Usage: x [OPTION]\n  -a, --all          do it\n      --color[=WHEN]  paint\n    -x, --[no-]exec <cmd>  run\n  -n NUM\tcount\n      --  end\n";
    assert_eq!(
        listed_options(text, false),
        ["-a", "--all", "--color", "-x", "--no-exec", "--exec", "-n"]
    );
}

#[test]
fn the_help_reader_reads_the_usage_synopsis() {
    // A usage line and its continuation: clusters, values, alternatives, nested brackets.
    let help = "usage: nc [-46dh] [-I length] [-h | --help] [--color[=WHEN]] host\n          [-s, --stack] [-NUM] [--] file\nEverything else.\n  -x  an option line\n";
    assert_eq!(
        listed_options(help, false),
        [
            "-4", "-6", "-d", "-h", "-I", "--help", "--color", "-s", "--stack", "-x"
        ]
    );
    // A manual page's SYNOPSIS section, a bare option outside brackets; not its other sections.
    let page = "NAME\n       k - keys\nSYNOPSIS\n       k -l [-v] [-E hash]\n         [-Ab] file\nDESCRIPTION\n       Use k [-q] to be quiet.\n";
    assert_eq!(listed_options(page, true), ["-l", "-v", "-E", "-A", "-b"]);
    // bash's `help NAME` starts with NAME's synopsis.
    assert_eq!(
        listed_options("fc: fc [-e ename] [-lnr] [first]\n    Display.\n", false),
        ["-e", "-l", "-n", "-r"]
    );
}

#[test]
fn every_listed_option_is_known_to_its_spec() {
    let mut missing: Vec<String> = Vec::new();
    let mut skipped: Vec<&str> = Vec::new();
    let sources = sources();
    for source in sources {
        if !source.installed() {
            skipped.push(source.program);
        }
        // A spec checked here claims to list every option; a `@loose` one would pass anything.
        if !is_complete(source.name()) {
            missing.push(format!(
                "{}: the spec is @loose, so its options are not checked",
                source.name()
            ));
        }
    }
    // A source whose help commands all print nothing checks nothing (a missing manual page, a
    // program that is not there).
    let mut printed = vec![false; sources.len()];
    for text in texts() {
        let source = &sources[text.source];
        let program = source.name();
        if text.text.trim().is_empty() || text.text.contains("No manual entry for") {
            continue;
        }
        printed[text.source] = true;
        let man = text.command.first() == Some(&"man");
        for option in listed_options(&text.text, man) {
            if source.ignore.contains(&option.as_str()) {
                continue;
            }
            match accepts_option(program, source.path, &option) {
                Some(true) => {}
                // A command's usage lists its subcommands' options too (`git remote add -t`).
                Some(false) if known_below(source, &option) => {}
                Some(false) => {
                    let place = if source.path.is_empty() {
                        program.to_owned()
                    } else {
                        format!("{program} {}", source.path.join(" "))
                    };
                    let line = format!("{place}: {option} (from `{}`)", text.command.join(" "));
                    if !missing.contains(&line) {
                        missing.push(line);
                    }
                }
                None => missing.push(format!("{program}: no spec for {:?}", source.path)),
            }
        }
    }
    for (source, printed) in sources.iter().zip(printed) {
        if !printed && source.installed() {
            missing.push(format!(
                "{}: its help commands {:?} printed nothing",
                source.name(),
                source.help
            ));
        }
    }
    skipped.sort_unstable();
    skipped.dedup();
    let unexpected: Vec<&&str> = skipped
        .iter()
        .filter(|program| !NOT_ON_DEBIAN.iter().any(|(name, _)| name == *program))
        .collect();
    if !unexpected.is_empty() {
        eprintln!("not installed here, so not checked: {unexpected:?}");
    }
    assert!(
        missing.is_empty(),
        "{} options the installed programs list are not known to their specs:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// Whether a subcommand under the source's path takes the option.
fn known_below(source: &Source, option: &str) -> bool {
    subcommand_paths(source.name())
        .into_iter()
        .filter(|path| path.len() > source.path.len() && path.starts_with(source.path))
        .any(|path| accepts_option(source.name(), path, option) == Some(true))
}

/// Every name of every spec is checked against its program's help: by a source of its own, by
/// another name of the same program ([`SAME_PROGRAM`]), or not at all because Debian does not
/// package it ([`NOT_ON_DEBIAN`]) or the spec has no option table to check ([`READ_BY_CODE`]).
#[test]
fn every_program_with_a_spec_is_checked() {
    let checked: Vec<&str> = sources().iter().map(|source| source.name()).collect();
    let mut unchecked = Vec::new();
    for entry in &registry().entries {
        let by_code = READ_BY_CODE
            .iter()
            .any(|(name, _)| entry.spec.names.contains(name));
        if by_code {
            // Only a spec whose own code reads every word may say so: a table it lists is checked.
            let table = entry.table.as_ref().expect("the spec reads");
            assert!(
                table.root.opaque && table.root.options.is_empty() && table.root.subs.is_empty(),
                "{:?} lists options, so they must be checked",
                entry.spec.names
            );
            assert_eq!(
                accepts_option(entry.spec.names[0], &[], "--kaiport-made-up"),
                Some(true),
                "{:?} asks about options it does not know, so its help must be checked",
                entry.spec.names
            );
            continue;
        }
        for name in entry.spec.names {
            // Held to its help only if the spec can refuse an option at all.
            let refuses = accepts_option(name, &[], "--kaiport-made-up") == Some(false);
            assert!(
                refuses,
                "{name}: an option nobody listed is taken, so its help checks nothing"
            );
            let same = SAME_PROGRAM
                .iter()
                .find(|(alias, _, _)| alias == name)
                .map(|(_, program, _)| *program);
            if let Some(program) = same {
                assert!(
                    checked.contains(&program) && entry.spec.names.contains(&program),
                    "{name}: {program} is not checked or not in the same spec"
                );
                continue;
            }
            if !checked.contains(name) && !NOT_ON_DEBIAN.iter().any(|(other, _)| other == name) {
                unchecked.push(*name);
            }
        }
    }
    assert!(
        unchecked.is_empty(),
        "{} programs with a spec are not checked against their help (add a source in \
         tests/support/sources.rs, or say why not there): {}",
        unchecked.len(),
        unchecked.join(" ")
    );
}

#[test]
fn every_spec_reads_and_names_its_family() {
    for entry in &registry().entries {
        assert!(
            entry.table.is_ok(),
            "{}: {:?}",
            entry.spec.family,
            entry.table
        );
        assert!(!entry.spec.names.is_empty());
    }
    assert!(registry().entries.len() >= 100);
}
