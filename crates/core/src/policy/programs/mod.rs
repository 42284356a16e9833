//! Program specs: one place that says what each program does through its subcommands and
//! options, one file per family (`tar.rs`, `git.rs`, `coreutils.rs`, …). [`judge`] reads one
//! simple command against its spec and returns a [`Verdict`]: how it runs other commands, what
//! it writes, and the reasons to ask (unprovable, dangerous, lock-out) — the walker
//! (`analysis.rs`) and the rules (`rules.rs`) use nothing else about programs.
//!
//! The rule the specs exist for: an allowed program is allowed only for its own effect. Every
//! option a spec lists has a class (see [`model`]); an option or subcommand a spec does not list
//! is unknown, and unknown asks ("option --x of tar is not known to kaiport's rules"), so a
//! program used for another effect through an option nobody thought of is asked about rather
//! than let through. An option that runs a program runs it as if typed when the value is plainly
//! one of the programs the option is for (`rsync -e ssh`), and asks otherwise
//! (`rsync -e 'sh -c …'`). A program without a spec (a user's `deploy.sh`) is a plain command:
//! it runs what it is, and the allowed list decides.
//!
//! Specs are read once per process ([`registry`]). A spec whose text cannot be read makes its
//! programs ask; this module must never treat a program it cannot judge as harmless.

mod accounts;
pub mod archives;
pub mod args;
mod build;
mod common;
mod containers;
pub mod coreutils;
mod cron;
mod databases;
mod editors;
mod findutils;
pub mod git;
mod gpg;
mod interactive;
mod launchers;
pub mod model;
mod network;
mod packages;
mod patch;
mod processes;
mod remote;
mod services;
mod shells;
pub mod spec;
mod storage;
mod systemd;
mod text;
pub mod verdict;
mod wrappers;

use super::paths::normalise_name;
use args::{Call, read_call};
use model::{Class, Operands, Table, read_table_with};
pub use spec::Spec;
use std::collections::HashMap;
use std::sync::OnceLock;
pub use verdict::{Embedded, Judged, Payload, Prints, Run, Shape, Verdict, WriteSpec};

/// Every family's specs.
const FAMILIES: &[&[Spec]] = &[
    wrappers::SPECS,
    launchers::SPECS,
    shells::SPECS,
    interactive::SPECS,
    findutils::SPECS,
    coreutils::SPECS,
    archives::SPECS,
    remote::SPECS,
    git::SPECS,
    systemd::SPECS,
    packages::SPECS,
    containers::SPECS,
    network::SPECS,
    databases::SPECS,
    text::SPECS,
    editors::SPECS,
    accounts::SPECS,
    storage::SPECS,
    processes::SPECS,
    cron::SPECS,
    build::SPECS,
    services::SPECS,
    patch::SPECS,
    gpg::SPECS,
];

/// Blocks of option lines several specs share (`@use NAME`).
const BLOCKS: &[&[(&str, &str)]] = &[
    coreutils::BLOCKS,
    systemd::BLOCKS,
    wrappers::BLOCKS,
    remote::BLOCKS,
    processes::BLOCKS,
    text::BLOCKS,
    network::BLOCKS,
    databases::BLOCKS,
    interactive::BLOCKS,
];

/// A spec with its text read.
pub struct Entry {
    pub spec: &'static Spec,
    pub table: Result<Table, String>,
}

/// All specs, read once.
pub struct Registry {
    pub entries: Vec<Entry>,
    by_name: HashMap<&'static str, usize>,
}

impl Registry {
    /// The spec for a command name (`/usr/bin/tar` and `gtar` find tar's).
    pub fn find(&self, name: &str) -> Option<&Entry> {
        let name = normalise_name(name);
        let index = self
            .by_name
            .get(name.as_str())
            .or_else(|| self.by_name.get(canonical(&name)))?;
        self.entries.get(*index)
    }
}

/// `python3.11` → `python3` → `python`, `mkfs.ext4` → `mkfs`: the names specs list.
fn canonical(name: &str) -> &str {
    if let Some((base, _)) = name.split_once('.')
        && matches!(base, "mkfs" | "fsck" | "mount")
    {
        return base;
    }
    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
}

/// The registry, read on first use.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut entries = Vec::new();
        let mut by_name = HashMap::new();
        let shared: Vec<(&str, &str)> = BLOCKS
            .iter()
            .flat_map(|blocks| blocks.iter().copied())
            .collect();
        for family in FAMILIES {
            for spec in family.iter() {
                let index = entries.len();
                entries.push(Entry {
                    spec,
                    table: read_table_with(spec.text, &shared),
                });
                for name in spec.names {
                    by_name.entry(*name).or_insert(index);
                }
            }
        }
        Registry { entries, by_name }
    })
}

/// Judge one simple command (its words, name first) against its spec (see the module docs).
pub fn judge(words: &[String]) -> Verdict {
    let Some((first, args)) = words.split_first() else {
        return Verdict::default();
    };
    let name = normalise_name(first);
    let Some(entry) = registry().find(&name) else {
        let mut verdict = Verdict::default();
        verdict.not_read_only(format!(
            "`{}` is not on plan mode's list of read-only commands",
            words.join(" ")
        ));
        return verdict;
    };
    let mut verdict = Verdict::default();
    verdict.judged.spec = Some(entry.spec.family);
    let table = match &entry.table {
        Ok(table) => table,
        Err(error) => {
            verdict.unprovable(format!(
                "kaiport's rules for {name} could not be read ({error}); it asks"
            ));
            verdict.not_read_only(format!("`{name}` has no readable rules"));
            return verdict;
        }
    };
    let call = read_call(&name, table, args);
    apply_generic(&call, &mut verdict);
    if let Some(hook) = entry.spec.hook {
        hook(&call, &mut verdict);
    }
    verdict
}

/// What one simple command (its words, name first, all literal) prints, where its family knows
/// it from the words alone; `None` when it does not (most programs).
pub fn prints(words: &[String]) -> Option<Prints> {
    let (first, args) = words.split_first()?;
    let name = normalise_name(first);
    shells::prints(&name, args).or_else(|| coreutils::prints(&name, args))
}

/// What the spec text alone says about a call: unknown options, option and subcommand classes,
/// operands.
fn apply_generic(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    for reason in &call.unknown {
        verdict.unprovable(reason.clone());
    }
    let level = call.level();
    if !level.read_only {
        verdict.not_read_only(format!(
            "`{display}` is not read-only with these arguments (plan mode allows only reading forms)"
        ));
    }
    for (depth, sub) in call.path.iter().enumerate() {
        if let Some(class) = &sub.class {
            let mut how = call.name.to_owned();
            for word in &call.sub_words[..=depth] {
                how.push(' ');
                how.push_str(word);
            }
            apply_class(class, &how, None, None, &display, verdict);
        }
    }
    apply_options(call, &display, verdict);
    let operands = call.operand_texts();
    match level.operands {
        Operands::Command => match call.operands.first() {
            Some(first) => {
                verdict.shape = Shape::Wrapper {
                    inner_starts: *first,
                    note: None,
                }
            }
            // A wrapper with options and nothing to run (`sudo -i`) is a session of its own.
            None if !call.args.is_empty() && !matches!(call.name, "env" | "command") => {
                verdict.not_read_only(format!(
                    "`{display}` is not read-only with these arguments (plan mode allows only reading forms)"
                ));
            }
            None => {}
        },
        Operands::Writes => {
            for operand in operands {
                verdict.write(operand, call.name, false, true);
            }
        }
        Operands::Copy => copy_writes(call, verdict),
        Operands::Args | Operands::Files => {}
    }
}

fn apply_options(call: &Call<'_>, display: &str, verdict: &mut Verdict) {
    for found in &call.options {
        let how = format!("{} {}", call.display_path(), found.def.display());
        apply_class(
            &found.def.class,
            &how,
            found.value.as_deref(),
            Some(found.index),
            display,
            verdict,
        );
    }
}

/// For the code of an `@opaque` spec: reads `args[start..]` as the program's options up to the
/// first operand ([`args::read_options_from`]) and judges them by their classes, as the
/// generic reading would (an option the table does not list asks). Returns where the operands
/// start.
pub(super) fn judge_options_from(call: &Call<'_>, start: usize, verdict: &mut Verdict) -> usize {
    let options = args::read_options_from(call.name, call.root, call.args, start);
    for reason in &options.unknown {
        verdict.unprovable(reason.clone());
    }
    apply_options(&options, &call.display(), verdict);
    options.operands.first().copied().unwrap_or(call.args.len())
}

/// What an option's or a subcommand's class adds to the verdict.
pub(super) fn apply_class(
    class: &Class,
    how: &str,
    value: Option<&str>,
    index: Option<usize>,
    display: &str,
    verdict: &mut Verdict,
) {
    let changes = |verdict: &mut Verdict| {
        verdict.not_read_only(format!(
            "`{display}` is not read-only: {how} {} (plan mode allows only reading forms)",
            class.describe()
        ));
    };
    match class {
        // A judged value is the hook's to weigh.
        Class::Harmless | Class::Judged(_) | Class::Reads => {}
        Class::Writes | Class::WritesInto => {
            if let Some(value) = value {
                verdict.output(value, how, *class == Class::WritesInto);
            }
            changes(verdict);
        }
        Class::Deletes(why) => {
            verdict.dangerous(display, &format!("{how} {why}"));
            changes(verdict);
        }
        Class::Runs(runs) => {
            if let Some(value) = value {
                verdict.runs_option(value, how, runs, index);
            }
        }
        Class::Network(_) | Class::Changes(_) => changes(verdict),
        Class::Dangerous(why) => {
            verdict.dangerous(display, why);
            changes(verdict);
        }
        Class::Lockout(what) => {
            verdict.lockout(display, what);
            changes(verdict);
        }
        Class::Unprovable(why) => {
            verdict.unprovable(format!("`{how}` {why}"));
            changes(verdict);
        }
    }
}

/// `cp`/`mv`/`install`/`rsync`/`scp`: the destination (last operand, or `-t DIR`) and, in it, each
/// source's name.
fn copy_writes(call: &Call<'_>, verdict: &mut Verdict) {
    let operands = call.operand_texts();
    let target_dir = call.value("--target-directory");
    let recursive = ["--recursive", "-r", "-R", "--archive", "-a"]
        .iter()
        .any(|flag| call.has(flag))
        || matches!(call.name, "rsync" | "mv");
    let (sources, destination): (Vec<&str>, Option<&str>) = match target_dir {
        Some(dir) => (operands, Some(dir)),
        None => match operands.split_last() {
            Some((last, rest)) if !rest.is_empty() || call.name == "install" => {
                (rest.to_vec(), Some(*last))
            }
            _ => (Vec::new(), None),
        },
    };
    let Some(destination) = destination else {
        return;
    };
    verdict.write(destination, call.name, recursive, true);
    if let ([source], None) = (sources.as_slice(), target_dir) {
        verdict.copied_from = Some((*source).to_owned());
    }
    for source in sources {
        let base = source
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(source);
        if base == "{}" && !recursive {
            // A name `xargs -I {}` or `find -exec` gives: a file copied into the destination,
            // which is judged itself (a folder it might name is not copied without `-r`).
            continue;
        }
        verdict.write(
            &format!("{}/{base}", destination.trim_end_matches('/')),
            call.name,
            recursive,
            true,
        );
    }
}

/// What a program's spec says about one command, for `kaiport policy explain`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Explanation {
    /// The spec family (`archives`), or `None` for a program without a spec.
    pub family: Option<&'static str>,
    /// The program as its spec names it (`tar` for `gtar`).
    pub program: &'static str,
    /// The spec lists every option (not `@loose`).
    pub complete: bool,
    /// Each subcommand as typed, with what it does.
    pub subcommands: Vec<(String, String)>,
    /// Each option as typed, its value, and what it does.
    pub options: Vec<(String, Option<String>, String)>,
    /// What the spec cannot prove harmless: unknown options and subcommands, programs run
    /// through options where they should not be.
    pub unknown: Vec<String>,
}

/// What the spec says about each subcommand and option of one command (its words, name first).
pub fn explain(words: &[String]) -> Explanation {
    let Some((first, args)) = words.split_first() else {
        return Explanation::default();
    };
    let name = normalise_name(first);
    let Some(entry) = registry().find(&name) else {
        return Explanation::default();
    };
    let mut explanation = Explanation {
        family: Some(entry.spec.family),
        program: entry.spec.names.first().copied().unwrap_or_default(),
        ..Explanation::default()
    };
    let Ok(table) = &entry.table else {
        return explanation;
    };
    explanation.complete = !table.root.loose;
    let call = read_call(&name, table, args);
    for (word, level) in call.sub_words.iter().zip(&call.path) {
        let what = match (&level.class, level.read_only) {
            (Some(class), _) => class.describe(),
            (None, true) => "reads only".to_owned(),
            (None, false) => "changes the system".to_owned(),
        };
        explanation.subcommands.push(((*word).to_owned(), what));
    }
    for found in &call.options {
        explanation.options.push((
            found.spelling.clone(),
            found.value.clone(),
            found.def.class.describe(),
        ));
    }
    // What the spec's code found beyond the table (unknown forms, programs run where they should
    // not be), as the decision saw it.
    explanation.unknown = judge(words).unprovable;
    explanation
}

/// Reads one option spelling alone (under a subcommand path) with the program's spec, as the
/// spec tests and `kaiport policy explain` ask about options.
fn read_alone<R>(
    program: &str,
    path: &[&str],
    option: &str,
    look: impl FnOnce(&Call<'_>) -> Option<R>,
) -> Option<R> {
    let entry = registry().find(program)?;
    let table = entry.table.as_ref().ok()?;
    let mut args: Vec<String> = path.iter().map(|word| (*word).to_owned()).collect();
    args.push(option.to_owned());
    let name = normalise_name(program);
    let call = read_call(&name, table, &args);
    if call.path.len() != path.len() {
        return None;
    }
    look(&call)
}

/// Whether a program's spec accepts an option spelling (under a subcommand path), as the reader
/// would when the program is run (`-b20`, `--remove-f` and `--no-perms` count when the spec
/// takes them): `None` when there is no spec or the path is not one of its subcommands.
pub fn accepts_option(program: &str, path: &[&str], option: &str) -> Option<bool> {
    read_alone(program, path, option, |call| {
        let level = call.level();
        if level.loose {
            return Some(true);
        }
        if level.opaque && level.options.is_empty() && level.subs.is_empty() {
            // The spec's code alone reads the words (kill, awk, less, tmux): it knows the option
            // when judging it alone gives no "not known" reason.
            let mut words = vec![program.to_owned()];
            words.extend(path.iter().map(|word| (*word).to_owned()));
            words.push(option.to_owned());
            let unknown = judge(&words)
                .unprovable
                .iter()
                .any(|reason| reason.contains("not known to kaiport's rules"));
            return Some(!unknown);
        }
        if level.opaque {
            // The spec's code reads these arguments with its table: only a listed spelling counts.
            return Some(level.options.iter().any(|def| def.has(option)));
        }
        Some(call.unknown.is_empty())
    })
}

/// The class of an option spelling as the spec reads it (under a subcommand path), with whether
/// it takes a value; `None` when the spec does not take it.
pub fn option_class(program: &str, path: &[&str], option: &str) -> Option<(Class, model::Arity)> {
    read_alone(program, path, option, |call| {
        if !call.unknown.is_empty() {
            return None;
        }
        // An opaque level's code reads the words with its table (`listed_options`), by spelling.
        let level = call.level();
        if level.opaque
            && let Some(def) = level.options.iter().find(|def| def.has(option))
        {
            return Some((def.class.clone(), def.arity));
        }
        // `--no-X` of a known option only turns it off.
        Some(
            call.options
                .last()
                .map_or((Class::Harmless, model::Arity::Flag), |found| {
                    (found.def.class.clone(), found.def.arity)
                }),
        )
    })
}

/// Whether a program's spec is complete (every option listed) rather than `@loose`.
pub fn is_complete(program: &str) -> bool {
    registry()
        .find(program)
        .and_then(|entry| entry.table.as_ref().ok())
        .is_some_and(|table| !table.root.loose)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn shape(line: &str) -> Shape {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        judge(&words).shape
    }

    #[test]
    fn wrappers_find_their_command() {
        let wrapper = |inner_starts| Shape::Wrapper {
            inner_starts,
            note: None,
        };
        assert_eq!(shape("sudo -u bob -- rm x"), wrapper(3));
        assert_eq!(shape("timeout -s KILL 5 rm x"), wrapper(3));
        assert_eq!(shape("flock -n /tmp/l git push"), wrapper(2));
        assert_eq!(shape("chronic rm -rf x"), wrapper(0));
        assert_eq!(shape("nice -n 5 ls"), wrapper(2));
        assert_eq!(
            shape("bash -lc x"),
            Shape::Shell {
                payload: Payload::Argument(1)
            }
        );
        assert_eq!(shape("bash script.sh"), Shape::Plain);
        assert_eq!(
            shape("sh"),
            Shape::Shell {
                payload: Payload::Stdin
            }
        );
        assert_eq!(
            shape("sg docker -c x"),
            Shape::Shell {
                payload: Payload::Joined(2)
            }
        );
        assert_eq!(
            shape("ssh -p 22 host rm -rf x"),
            Shape::Shell {
                payload: Payload::Joined(3)
            }
        );
        assert_eq!(
            shape("find . -name x -exec rm {} ;"),
            Shape::Find {
                execs: vec![(4, 6)]
            }
        );
        assert!(matches!(
            shape("python3 -c x"),
            Shape::Interpreter { inline: Some(_) }
        ));
        assert_eq!(shape("python3 manage.py migrate"), Shape::Plain);
    }

    #[test]
    fn unknown_options_and_subcommands_are_unprovable() {
        let words =
            |line: &str| -> Vec<String> { line.split_whitespace().map(str::to_owned).collect() };
        assert_eq!(
            judge(&words("tar --frobnicate -cf a.tar d")).unprovable,
            ["option --frobnicate of tar is not known to kaiport's rules"]
        );
        assert_eq!(
            judge(&words("git frobnicate")).unprovable,
            ["subcommand frobnicate of git is not known to kaiport's rules"]
        );
        // A program without a spec is a plain command.
        let plain = judge(&words("./deploy.sh --anything"));
        assert!(plain.unprovable.is_empty());
        assert_eq!(plain.judged.spec, None);
    }

    #[test]
    fn explain_names_what_the_code_judges() {
        let words =
            |line: &str| -> Vec<String> { line.split_whitespace().map(str::to_owned).collect() };
        let is = |line: &str, option: &str| -> String {
            explain(&words(line))
                .options
                .into_iter()
                .find(|(spelling, _, _)| spelling == option)
                .map(|(_, _, what)| what)
                .unwrap_or_default()
        };
        // The hook asks for these values: the table calls them judged, never harmless.
        for (line, option) in [
            ("docker run -v /:/host alpine sh", "-v"),
            ("docker run --privileged alpine sh", "--privileged"),
            ("podman run --device /dev/sda alpine", "--device"),
            (
                "nerdctl run --mount type=bind,src=/,dst=/h alpine",
                "--mount",
            ),
            ("docker-compose run -v /:/h web sh", "-v"),
            ("vim -c :!id x", "-c"),
            ("emacs --file=/etc/ssh/sshd_config", "--file"),
            ("mcedit --edit=/etc/ssh/sshd_config", "--edit"),
        ] {
            let what = is(line, option);
            assert!(
                what.starts_with("judged by the spec's code: "),
                "{line}: {option} is {what:?}"
            );
        }
        assert_eq!(is("docker run -t alpine", "-t"), "harmless");
        // tar's archive is read or, when tar makes or changes it, written: the code tells.
        for line in ["tar -cf /tmp/a.tar /srv", "tar -xf /tmp/a.tar"] {
            let what = is(line, "-f");
            assert!(what.contains("writes with -c"), "{line}: -f is {what:?}");
        }
        let writes_archive = |line: &str| {
            judge(&words(line))
                .writes
                .iter()
                .any(|write| write.path == "/tmp/a.tar")
        };
        assert!(writes_archive("tar -cf /tmp/a.tar /srv"));
        assert!(!writes_archive("tar -xf /tmp/a.tar"));
        // A judged value adds nothing of its own: the hook decides.
        assert!(
            judge(&words("docker run -v /srv/data:/data alpine ls"))
                .unprovable
                .is_empty()
        );
        assert!(
            !judge(&words("docker run -v /:/host alpine ls"))
                .unprovable
                .is_empty()
        );
    }
}
