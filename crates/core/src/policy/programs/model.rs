//! The data model of a program spec and the small text format specs are written in.
//!
//! A spec lists a program's subcommands and every option it accepts, each with a [`Class`]:
//! what using it does (harmless, judged by the spec's code, reads a named file, writes one,
//! deletes, runs another program, network, changes, dangerous, lock-out, unprovable). The text
//! looks like a program's `--help`:
//!
//! ```text
//! @read-only                              # the program only reads, unless an option says more
//! @operands files                         # what its operands are (args, files, command, …)
//! -c, --create : changes
//! -f, --file=ARCHIVE : reads              # an option with a value
//! --color[=WHEN]                          # an optional, attached value; harmless by default
//! -v, --volume=X : judged mounts host folders    # the spec's code weighs the value
//! --to-command=COMMAND : runs *           # runs any program: never covered, always asks
//! -I, --use-compress-program=PROG : runs gzip xz zstd   # runs one of these, else asks
//! --remove-files : deletes removes the files it archived
//! @sub status, show : read-only           # a subcommand (with its options below it)
//! @dashdash push                          # `--` before a subcommand chooses this one
//! @root compose                           # the program is this subcommand (docker-compose)
//! ```
//!
//! Specs are read once ([`super::registry`]). This module must never make an option harmless that
//! the text did not declare: an option missing from a spec is unknown, and unknown asks.

/// What using an option, a subcommand or an operand does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Class {
    /// Changes nothing and names nothing read: a flag, a number, a format.
    Harmless,
    /// The spec's code judges the value (a bind mount, an editor command): the table adds
    /// nothing, the hook asks for the values it must (`vim -c ':!cmd'`, `docker run -v /:/h`).
    /// Explanations say so rather than call the option harmless.
    Judged(String),
    /// Reads the file its value names.
    Reads,
    /// Writes the file its value names (the path joins the write and lock-out checks).
    Writes,
    /// Writes into the folder its value names.
    WritesInto,
    /// Deletes data (files, logs, volumes): asks like `rm`.
    Deletes(String),
    /// Runs the program its value names.
    Runs(Runs),
    /// Sends data to or changes another host.
    Network(String),
    /// Changes the system in the program's own way: never read-only, but an allowed rule for the
    /// program covers it.
    Changes(String),
    /// Always asks, marked dangerous.
    Dangerous(String),
    /// Can cut off access to the server: always asks.
    Lockout(String),
    /// Cannot be followed: asks.
    Unprovable(String),
}

impl Class {
    /// Using it leaves the system as it was (plan mode may run it).
    pub fn is_read_only(&self) -> bool {
        matches!(self, Class::Harmless | Class::Judged(_) | Class::Reads)
    }

    /// A short name for explanations.
    pub fn describe(&self) -> String {
        match self {
            Class::Harmless => "harmless".to_owned(),
            Class::Judged(why) => format!("judged by the spec's code: {why}"),
            Class::Reads => "reads a file".to_owned(),
            Class::Writes => "writes a file".to_owned(),
            Class::WritesInto => "writes into a folder".to_owned(),
            Class::Deletes(why) => format!("deletes: {why}"),
            Class::Runs(runs) if runs.expect.is_empty() => "runs any program".to_owned(),
            Class::Runs(runs) => format!("runs one of: {}", runs.expect.join(", ")),
            Class::Network(why) => format!("network: {why}"),
            Class::Changes(why) if why.is_empty() => "changes the system".to_owned(),
            Class::Changes(why) => format!("changes: {why}"),
            Class::Dangerous(why) => format!("dangerous: {why}"),
            Class::Lockout(why) => format!("lock-out: {why}"),
            Class::Unprovable(why) => format!("unprovable: {why}"),
        }
    }
}

/// An option that runs a program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runs {
    /// The programs the option is meant for (`rsync -e`: ssh, rsh). A value that is plainly one
    /// of them is analysed as if typed; anything else asks. Empty: any program, which asks.
    pub expect: Vec<String>,
    /// The program adds arguments of its own (a host, a file name).
    pub more_args: bool,
    /// It runs on the other host.
    pub remote: bool,
}

impl Runs {
    /// Any program: never peeled, so it always asks.
    pub fn any() -> Runs {
        Runs {
            expect: Vec::new(),
            more_args: false,
            remote: false,
        }
    }
}

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    Flag,
    /// The rest of the word or the next argument.
    Value,
    /// Only attached (`-i.bak`, `--color=auto`).
    Optional,
}

/// One option with all its spellings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptDef {
    /// `-f`, `--file`, `-exec` (single-dash long), `-TT`.
    pub names: Vec<String>,
    pub arity: Arity,
    pub class: Class,
}

impl OptDef {
    /// The spelling shown in reasons: the first long name, else the first.
    pub fn display(&self) -> &str {
        self.names
            .iter()
            .find(|name| name.starts_with("--"))
            .or_else(|| self.names.first())
            .map(String::as_str)
            .unwrap_or_default()
    }

    pub fn has(&self, spelling: &str) -> bool {
        self.names.iter().any(|name| name == spelling)
    }
}

/// What a command's operands (the words that are not options) are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Operands {
    /// Values of no concern here (names, numbers, patterns).
    #[default]
    Args,
    /// Files it reads.
    Files,
    /// The first operand starts a command the program runs (a wrapper: `sudo`, `timeout 5`).
    Command,
    /// Files it writes, as its own effect (`touch`, `tee`, `mkdir`).
    Writes,
    /// Sources and a destination it writes, as its own effect (`cp`, `mv`, `install`).
    Copy,
}

/// A program, or one of its subcommands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Level {
    /// The subcommand's names (empty for the program itself).
    pub names: Vec<String>,
    /// What running this subcommand does; `None` for the program level.
    pub class: Option<Class>,
    /// With only read-only options this level changes nothing (plan mode runs it).
    pub read_only: bool,
    pub options: Vec<OptDef>,
    pub subs: Vec<Level>,
    pub operands: Operands,
    /// Options end at the first operand (`sudo cmd -x`: `-x` is cmd's).
    pub posix: bool,
    /// `-5`, `-9`: a number is an option.
    pub numeric: bool,
    /// The generic reading stops here: the spec's own code reads the arguments.
    pub opaque: bool,
    /// The option list is not complete yet: an option it does not list is not a reason to ask
    /// (the spec's code still judges the forms it knows).
    pub loose: bool,
    /// `--no-X` is accepted for every `--X` it lists (and only turns X off).
    pub negatable: bool,
    /// A first operand that is not one of its subcommands is an operand (by default, a level
    /// with subcommands takes it for a subcommand kaiport does not know, and asks).
    pub subs_optional: bool,
    /// `--` before any subcommand chooses this one (`@dashdash push`: `git stash -- f` is
    /// `git stash push -- f`).
    pub dashdash: Option<String>,
    /// Compiler style (`gcc -std=c11 -Idir -Wl,-O1 -fno-pic`): options are single-dash words that
    /// never cluster; an option with a value also takes it joined (the longest listed name that
    /// starts the word), and `-fno-X`, `-Wno-X`, `-mno-X` only turn a listed `-fX`, … off.
    pub joined: bool,
}

impl Level {
    pub fn sub(&self, word: &str) -> Option<&Level> {
        self.subs
            .iter()
            .find(|sub| sub.names.iter().any(|name| name == word))
    }

    /// The first name, for reasons.
    pub fn name(&self) -> &str {
        self.names.first().map(String::as_str).unwrap_or_default()
    }

    /// Every option of this level and the levels below it.
    pub fn all_options(&self) -> Vec<&OptDef> {
        let mut all: Vec<&OptDef> = self.options.iter().collect();
        for sub in &self.subs {
            all.extend(sub.all_options());
        }
        all
    }
}

/// A spec as read from its text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Table {
    pub root: Level,
    /// The program's own options are also accepted after a subcommand (`systemctl status -l`).
    pub anywhere: bool,
    /// The first word may be an option cluster without its dash (`tar czf a.tgz d`).
    pub bundled: bool,
}

/// Read a spec's text (see the module docs). `Err` names the first line it could not read.
pub fn read_table(text: &str) -> Result<Table, String> {
    read_table_with(text, &[])
}

/// [`read_table`] with blocks several specs share (`@use NAME` finds them after the text's own).
pub fn read_table_with(text: &str, shared: &[(&str, &str)]) -> Result<Table, String> {
    let mut table = Table::default();
    let mut blocks: Vec<(String, Vec<String>)> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    // Blocks (`@block NAME` … `@end`) are lines that `@use NAME` repeats where it stands.
    let mut current_block: Option<(String, Vec<String>)> = None;
    for raw in text.lines() {
        let line = strip_comment(raw).trim().to_owned();
        if line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix("@block ") {
            current_block = Some((name.trim().to_owned(), Vec::new()));
            continue;
        }
        if line == "@end" {
            match current_block.take() {
                Some(block) => blocks.push(block),
                None => return Err("`@end` without `@block`".to_owned()),
            }
            continue;
        }
        match &mut current_block {
            Some((_, block_lines)) => block_lines.push(line),
            None => lines.push(line),
        }
    }
    if let Some((name, _)) = current_block {
        return Err(format!("block {name} has no `@end`"));
    }
    let mut expanded: Vec<String> = Vec::with_capacity(lines.len());
    expand(&lines, &blocks, shared, 0, &mut expanded)?;
    // The path of subcommand indices the lines below a `@sub` belong to.
    let mut path: Vec<usize> = Vec::new();
    let mut root: Option<String> = None;
    for line in &expanded {
        let level = level_at(&mut table.root, &path);
        if let Some(directive) = line.strip_prefix('@') {
            let (word, rest) = directive
                .split_once(char::is_whitespace)
                .unwrap_or((directive, ""));
            let rest = rest.trim();
            match word {
                "sub" => path = declare_sub(&mut table.root, rest)?,
                "root" => root = Some(rest.to_owned()),
                "operands" => level.operands = read_operands(rest)?,
                "read-only" => level.read_only = true,
                "posix" => level.posix = true,
                "numeric" => level.numeric = true,
                "opaque" => level.opaque = true,
                "loose" => level.loose = true,
                "subs-optional" => level.subs_optional = true,
                "dashdash" => level.dashdash = Some(rest.to_owned()),
                "negatable" => level.negatable = true,
                "joined" => level.joined = true,
                "anywhere" => table.anywhere = true,
                "bundled" => table.bundled = true,
                other => return Err(format!("unknown directive @{other}")),
            }
            continue;
        }
        let option = read_option(line)?;
        level_at(&mut table.root, &path).options.push(option);
    }
    if let Some(root) = root {
        table.root = subcommand_as_program(table.root, &root)?;
    }
    Ok(table)
}

/// `@root a/b`: the program is the subcommand `a b` of the text (the standalone `docker-compose`
/// is `docker compose`), with its options, operands and subcommands.
fn subcommand_as_program(mut level: Level, path: &str) -> Result<Level, String> {
    for word in path.split('/') {
        let index = level
            .subs
            .iter()
            .position(|sub| sub.names.iter().any(|name| name == word))
            .ok_or_else(|| format!("@root {path}: no subcommand {word}"))?;
        level = level.subs.swap_remove(index);
    }
    // The program level has no class of its own: only a subcommand that reads or changes
    // (never read-only, as a program level that is not `@read-only`) can be the program.
    match &level.class {
        None => {}
        Some(Class::Changes(_)) => level.read_only = false,
        Some(other) => {
            return Err(format!(
                "@root {path}: a subcommand that {} cannot be a program",
                other.describe()
            ));
        }
    }
    level.names.clear();
    level.class = None;
    Ok(level)
}

/// Lines with `@use NAME` replaced by the block's lines (blocks may use blocks).
fn expand(
    lines: &[String],
    blocks: &[(String, Vec<String>)],
    shared: &[(&str, &str)],
    depth: usize,
    out: &mut Vec<String>,
) -> Result<(), String> {
    if depth > 8 {
        return Err("blocks use each other too deeply".to_owned());
    }
    for line in lines {
        let Some(name) = line.strip_prefix("@use ") else {
            out.push(line.clone());
            continue;
        };
        let name = name.trim();
        let block: Vec<String> =
            if let Some((_, block)) = blocks.iter().find(|(block, _)| block == name) {
                block.clone()
            } else if let Some((_, block)) = shared.iter().find(|(block, _)| *block == name) {
                block
                    .lines()
                    .map(|line| strip_comment(line).trim().to_owned())
                    .filter(|line| !line.is_empty())
                    .collect()
            } else {
                return Err(format!("`@use {name}`: no such block"));
            };
        expand(&block, blocks, shared, depth + 1, out)?;
    }
    Ok(())
}

fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (index, byte) in bytes.iter().enumerate() {
        if *byte == b'#' && (index == 0 || bytes[index - 1].is_ascii_whitespace()) {
            return &line[..index];
        }
    }
    line
}

fn level_at<'t>(root: &'t mut Level, path: &[usize]) -> &'t mut Level {
    let mut level = root;
    for index in path {
        // The indices were made by declare_sub, so they exist; stay put otherwise.
        if *index >= level.subs.len() {
            break;
        }
        level = &mut level.subs[*index];
    }
    level
}

/// `@sub a, b [: CLASS]` or `@sub parent/child, parent/alias [: CLASS]`.
fn declare_sub(root: &mut Level, spec: &str) -> Result<Vec<usize>, String> {
    let (names, class) = match spec.split_once(" : ") {
        Some((names, class)) => (names, Some(class.trim())),
        None => (spec, None),
    };
    let mut parent_path: Option<Vec<String>> = None;
    let mut own_names = Vec::new();
    for name in names
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
    {
        let parts: Vec<String> = name.split('/').map(str::to_owned).collect();
        let (own, parents) = parts
            .split_last()
            .ok_or_else(|| format!("@sub {spec}: empty name"))?;
        match &parent_path {
            None => parent_path = Some(parents.to_vec()),
            Some(existing) if existing.as_slice() == parents => {}
            Some(_) => return Err(format!("@sub {spec}: names under different parents")),
        }
        own_names.push(own.clone());
    }
    if own_names.is_empty() {
        return Err("@sub without a name".to_owned());
    }
    let mut path = Vec::new();
    let mut level = &mut *root;
    for parent in parent_path.unwrap_or_default() {
        let index = level
            .subs
            .iter()
            .position(|sub| sub.names.contains(&parent))
            .ok_or_else(|| format!("@sub {spec}: parent {parent} not declared before"))?;
        path.push(index);
        level = &mut level.subs[index];
    }
    let mut sub = Level {
        names: own_names,
        class: Some(Class::Changes(String::new())),
        ..Level::default()
    };
    if let Some(class) = class {
        match class
            .split_once(char::is_whitespace)
            .map_or(class, |(word, _)| word)
        {
            "read-only" => {
                sub.read_only = true;
                sub.class = None;
            }
            "runs" => {
                sub.operands = Operands::Command;
                sub.posix = true;
            }
            _ => sub.class = Some(read_class(class)?),
        }
    }
    level.subs.push(sub);
    path.push(level.subs.len() - 1);
    Ok(path)
}

fn read_operands(kind: &str) -> Result<Operands, String> {
    Ok(match kind {
        "args" => Operands::Args,
        "files" => Operands::Files,
        "command" => Operands::Command,
        "writes" => Operands::Writes,
        "copy" => Operands::Copy,
        other => return Err(format!("unknown operands kind {other:?}")),
    })
}

/// `harmless`, `reads`, `runs+ ssh rsh`, `deletes removes the sources`, …
pub fn read_class(text: &str) -> Result<Class, String> {
    let text = text.trim();
    let (word, rest) = text
        .split_once(char::is_whitespace)
        .map_or((text, ""), |(word, rest)| (word, rest.trim()));
    let reason = || {
        if rest.is_empty() {
            Err(format!("class {word} needs a reason"))
        } else {
            Ok(rest.to_owned())
        }
    };
    Ok(match word {
        "harmless" => Class::Harmless,
        "judged" => Class::Judged(reason()?),
        "reads" => Class::Reads,
        "writes" => Class::Writes,
        "writes-into" => Class::WritesInto,
        "deletes" => Class::Deletes(reason()?),
        "network" => Class::Network(reason()?),
        "changes" => Class::Changes(rest.to_owned()),
        "dangerous" => Class::Dangerous(reason()?),
        "lockout" => Class::Lockout(reason()?),
        "unprovable" => Class::Unprovable(reason()?),
        "runs" | "runs+" | "runs-remote" => {
            let expect: Vec<String> = rest
                .split_whitespace()
                .filter(|name| *name != "*")
                .map(str::to_owned)
                .collect();
            if rest.is_empty() {
                return Err(format!("{word} needs the programs it runs, or *"));
            }
            Class::Runs(Runs {
                expect,
                more_args: word == "runs+",
                remote: word == "runs-remote",
            })
        }
        other => return Err(format!("unknown class {other:?}")),
    })
}

/// One option line: `-f, --file=ARCHIVE : reads`.
fn read_option(line: &str) -> Result<OptDef, String> {
    let (spellings, class) = match line.split_once(" : ") {
        Some((spellings, class)) => (spellings, read_class(class)?),
        None => (line, Class::Harmless),
    };
    let mut names: Vec<String> = Vec::new();
    let mut arity = Arity::Flag;
    let mut raise = |found: Arity| {
        arity = match (arity, found) {
            (Arity::Value, _) | (_, Arity::Value) => Arity::Value,
            (Arity::Optional, _) | (_, Arity::Optional) => Arity::Optional,
            _ => Arity::Flag,
        }
    };
    for token in spellings
        .split([',', ' ', '\t'])
        .filter(|token| !token.is_empty())
    {
        if !token.starts_with('-') {
            // A value name after a spelling: `-f FILE`.
            if names.is_empty() {
                return Err(format!("{line:?}: a value name before any option"));
            }
            raise(if token.starts_with('[') {
                Arity::Optional
            } else {
                Arity::Value
            });
            continue;
        }
        let (name, found) = if let Some(open) = token.find('[') {
            (&token[..open], Arity::Optional)
        } else if let Some((name, _)) = token.split_once('=') {
            (name, Arity::Value)
        } else {
            (token, Arity::Flag)
        };
        if name.len() < 2 || name == "--" {
            return Err(format!("{line:?}: {token:?} is not an option"));
        }
        raise(found);
        names.push(name.to_owned());
    }
    if names.is_empty() {
        return Err(format!("{line:?}: no option"));
    }
    Ok(OptDef {
        names,
        arity,
        class,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn options_and_subcommands_are_read() {
        let table = read_table(
            "@read-only
             -a, --all
             -f, --file=FILE : reads   # a comment
             --color[=WHEN]
             -I PROG, --use=PROG : runs+ gzip xz
             @block shared
             -v, --verbose
             @end
             @sub status, st : read-only
             @use shared
             @sub stop : lockout stops it
             @sub container
             @sub container/ls, container/ps : read-only
             -q",
        )
        .unwrap();
        let root = &table.root;
        assert!(root.read_only);
        assert_eq!(root.options.len(), 4);
        assert_eq!(root.options[1].arity, Arity::Value);
        assert_eq!(root.options[1].class, Class::Reads);
        assert_eq!(root.options[2].arity, Arity::Optional);
        assert_eq!(
            root.options[3].class,
            Class::Runs(Runs {
                expect: vec!["gzip".to_owned(), "xz".to_owned()],
                more_args: true,
                remote: false
            })
        );
        let status = root.sub("st").unwrap();
        assert!(status.read_only);
        assert_eq!(status.options[0].names, ["-v", "--verbose"]);
        assert_eq!(
            root.sub("stop").unwrap().class,
            Some(Class::Lockout("stops it".to_owned()))
        );
        let ls = root.sub("container").unwrap().sub("ps").unwrap();
        assert!(ls.read_only);
        assert_eq!(ls.options[0].names, ["-q"]);
    }

    #[test]
    fn bad_lines_are_errors() {
        assert!(read_table("-x : frobnicates").is_err());
        assert!(read_table("@sub a/b").is_err());
        assert!(read_table("@use nothing").is_err());
        assert!(read_table("FILE").is_err());
        assert!(read_table("-x : deletes").is_err());
        assert!(read_table("@sub a\n@root b").is_err());
        assert!(read_table("@sub a : dangerous wipes\n@root a").is_err());
    }

    #[test]
    fn a_subcommand_can_be_the_program() {
        let table = read_table(
            "-x
             @sub compose : read-only
             -f X, --file=X : reads
             @sub compose/down : changes
             -v, --volumes : deletes removes volumes
             @root compose",
        )
        .unwrap();
        assert!(table.root.names.is_empty());
        assert!(table.root.read_only);
        assert!(table.root.class.is_none());
        assert!(table.root.options.iter().any(|def| def.has("--file")));
        assert!(!table.root.options.iter().any(|def| def.has("-x")));
        assert_eq!(table.root.sub("down").map(|sub| sub.options.len()), Some(1));
    }
}
