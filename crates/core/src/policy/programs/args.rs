//! Reads one invocation against a spec's [`Table`]: which subcommand, which options (with their
//! values, GNU style: clusters `-xzf F`, `--long=value`, `--long value`, unique prefixes of long
//! options, single-dash long options such as `-exec`), and which words are operands.
//!
//! This module must never skip a word it cannot place: an option the spec does not list, an
//! ambiguous abbreviation or an unknown subcommand becomes a reason in [`Call::unknown`].

use super::model::{Arity, Level, OptDef, Table};

/// One option found in the arguments.
#[derive(Debug, Clone)]
pub struct Found<'t> {
    pub def: &'t OptDef,
    /// As written (`-f`, `--fi`).
    pub spelling: String,
    pub value: Option<String>,
    /// The argument the value came from (else the option's own).
    pub index: usize,
}

/// One invocation read against its spec.
#[derive(Debug, Clone)]
pub struct Call<'t> {
    /// The program's name as the spec knows it.
    pub name: &'t str,
    pub args: &'t [String],
    pub root: &'t Level,
    /// The subcommands chosen, outermost first.
    pub path: Vec<&'t Level>,
    /// The words that chose them, as typed (`ci` for git's `commit, ci`).
    pub sub_words: Vec<&'t str>,
    pub options: Vec<Found<'t>>,
    /// Indices of the operands in `args`.
    pub operands: Vec<usize>,
    /// Reasons: options, abbreviations or subcommands the spec does not know.
    pub unknown: Vec<String>,
}

impl<'t> Call<'t> {
    /// The deepest level chosen (the program when no subcommand was given).
    pub fn level(&self) -> &'t Level {
        self.path.last().copied().unwrap_or(self.root)
    }

    /// `git rebase`, `docker container ls`, `tar`.
    pub fn display_path(&self) -> String {
        let mut out = self.name.to_owned();
        for word in &self.sub_words {
            out.push(' ');
            out.push_str(word);
        }
        out
    }

    /// The chosen subcommand at `depth` (0: the first), as typed.
    pub fn sub(&self, depth: usize) -> &'t str {
        self.sub_words.get(depth).copied().unwrap_or_default()
    }

    /// An option was given under any of its spellings.
    pub fn has(&self, spelling: &str) -> bool {
        self.options.iter().any(|found| found.def.has(spelling))
    }

    /// The values given to an option (under any of its spellings), with their argument index.
    pub fn values(&self, spelling: &str) -> Vec<(&str, usize)> {
        self.options
            .iter()
            .filter(|found| found.def.has(spelling))
            .filter_map(|found| found.value.as_deref().map(|value| (value, found.index)))
            .collect()
    }

    /// The last value given to an option.
    pub fn value(&self, spelling: &str) -> Option<&str> {
        self.values(spelling).last().map(|(value, _)| *value)
    }

    /// The command as shown in reasons.
    pub fn display(&self) -> String {
        let mut out = self.name.to_owned();
        for arg in self.args {
            out.push(' ');
            out.push_str(arg);
        }
        out
    }

    pub fn operand_texts(&self) -> Vec<&'t str> {
        self.operands
            .iter()
            .filter_map(|index| self.args.get(*index).map(String::as_str))
            .collect()
    }
}

/// Read `args` (the words after the program name) against `table`.
pub fn read_call<'t>(name: &'t str, table: &'t Table, args: &'t [String]) -> Call<'t> {
    let mut call = Call {
        name,
        args,
        root: &table.root,
        path: Vec::new(),
        sub_words: Vec::new(),
        options: Vec::new(),
        operands: Vec::new(),
        unknown: Vec::new(),
    };
    let mut index = 0;
    if table.bundled
        && let Some(first) = args.first()
        && !first.starts_with('-')
        && !first.is_empty()
        && first
            .chars()
            .all(|letter| short(&[&table.root], letter).is_some())
    {
        // `tar czf a.tgz dir`: the letters are options; those taking a value take the next words
        // in order.
        let mut next = 1;
        for letter in first.chars() {
            let Some(def) = short(&[&table.root], letter) else {
                continue;
            };
            let value = (def.arity == Arity::Value).then(|| {
                next += 1;
                args.get(next - 1).cloned()
            });
            call.options.push(Found {
                def,
                spelling: format!("-{letter}"),
                value: value.flatten(),
                index: if def.arity == Arity::Value {
                    next - 1
                } else {
                    0
                },
            });
        }
        index = next;
    }
    let mut options_done = false;
    let mut subs_open = !table.root.subs.is_empty();
    let mut level_operands = 0;
    while index < args.len() {
        let level = call.level();
        let arg = &args[index];
        if level.opaque {
            call.operands.extend(index..args.len());
            break;
        }
        let is_option = !options_done && arg.len() > 1 && arg.starts_with('-');
        if is_option && arg == "--" {
            options_done = true;
            index += 1;
            if subs_open
                && level_operands == 0
                && let Some(name) = &level.dashdash
                && let Some(sub) = level.sub(name)
            {
                call.path.push(sub);
                call.sub_words.push(name);
                subs_open = !sub.subs.is_empty();
            }
            continue;
        }
        if is_option {
            let mut levels: Vec<&Level> = vec![level];
            if table.anywhere {
                levels.extend(call.path.iter().rev().skip(1).copied());
                if !call.path.is_empty() {
                    levels.push(&table.root);
                }
            }
            let loose = level.loose;
            index = read_option(&mut call, &levels, index, loose);
            continue;
        }
        if subs_open && level_operands == 0 {
            if let Some(sub) = level.sub(arg) {
                call.path.push(sub);
                call.sub_words.push(arg);
                subs_open = !sub.subs.is_empty();
                level_operands = 0;
                index += 1;
                continue;
            }
            if !level.subs_optional && !level.loose {
                call.unknown.push(format!(
                    "subcommand {arg} of {} is not known to kaiport's rules",
                    call.display_path()
                ));
            }
            subs_open = false;
        }
        call.operands.push(index);
        level_operands += 1;
        if level.posix {
            options_done = true;
        }
        index += 1;
    }
    call
}

/// `args[start..]` read as options of `level` up to its first operand, as getopt with `+` reads
/// them, for the code of an `@opaque` spec that reads the words before `start` itself
/// (`setarch ARCH -R cmd`): the operands are every word from the first one on.
pub fn read_options_from<'t>(
    name: &'t str,
    level: &'t Level,
    args: &'t [String],
    start: usize,
) -> Call<'t> {
    let mut call = Call {
        name,
        args,
        root: level,
        path: Vec::new(),
        sub_words: Vec::new(),
        options: Vec::new(),
        operands: Vec::new(),
        unknown: Vec::new(),
    };
    let mut index = start;
    while let Some(arg) = args.get(index) {
        if arg == "--" {
            index += 1;
            break;
        }
        if arg.len() < 2 || !arg.starts_with('-') {
            break;
        }
        index = read_option(&mut call, &[level], index, level.loose);
    }
    call.operands.extend(index..args.len());
    call
}

fn short<'t>(levels: &[&'t Level], letter: char) -> Option<&'t OptDef> {
    let mut buffer = [0u8; 4];
    let spelling = format!("-{}", letter.encode_utf8(&mut buffer));
    levels
        .iter()
        .flat_map(|level| level.options.iter())
        .find(|def| def.has(&spelling))
}

/// A long option by name or unique prefix (`--remove-f` is `--remove-files`).
fn long<'t>(levels: &[&'t Level], name: &str) -> Result<&'t OptDef, bool> {
    let all = || levels.iter().flat_map(|level| level.options.iter());
    if let Some(def) = all().find(|def| def.has(name)) {
        return Ok(def);
    }
    let mut candidates: Vec<&OptDef> = Vec::new();
    for def in all().filter(|def| {
        def.names
            .iter()
            .any(|spelling| spelling.starts_with("--") && spelling.starts_with(name))
    }) {
        // The same option listed at two levels is one candidate.
        if !candidates.contains(&def) {
            candidates.push(def);
        }
    }
    match candidates.as_slice() {
        [def] => Ok(def),
        [] => Err(false),
        _ => Err(true),
    }
}

/// Reads the option at `index`; returns the index of the next word.
fn read_option<'t>(call: &mut Call<'t>, levels: &[&'t Level], index: usize, loose: bool) -> usize {
    let args = call.args;
    let arg = &args[index];
    let level_name = call.display_path();
    let unknown = |call: &mut Call<'t>, spelling: &str, ambiguous: bool| {
        if !loose {
            let what = if ambiguous {
                format!(
                    "option {spelling} of {level_name} is ambiguous (an abbreviation of several options)"
                )
            } else {
                format!("option {spelling} of {level_name} is not known to kaiport's rules")
            };
            if !call.unknown.contains(&what) {
                call.unknown.push(what);
            }
        }
    };
    if let Some(rest) = arg.strip_prefix("--") {
        let (name, attached) = match rest.split_once('=') {
            Some((name, value)) => (format!("--{name}"), Some(value.to_owned())),
            None => (arg.clone(), None),
        };
        return match long(levels, &name) {
            Ok(def) => {
                let (value, value_index, next) = match (def.arity, attached) {
                    (Arity::Value, None) => (args.get(index + 1).cloned(), index + 1, index + 2),
                    (_, attached) => (attached, index, index + 1),
                };
                call.options.push(Found {
                    def,
                    spelling: name,
                    value,
                    index: value_index,
                });
                next
            }
            Err(_)
                if levels.iter().any(|level| level.negatable)
                    && name.strip_prefix("--no-").is_some_and(|rest| {
                        long(levels, &format!("--{rest}")).is_ok()
                            || (rest.chars().count() == 1
                                && rest.chars().next().and_then(|c| short(levels, c)).is_some())
                    }) =>
            {
                // `--no-X` only turns a known option off.
                index + 1
            }
            Err(ambiguous) => {
                unknown(call, &name, ambiguous);
                index + 1
            }
        };
    }
    // A whole word first: single-dash long options (`-exec`, `-TT`, `-out`) and `-x` itself.
    let all = || levels.iter().flat_map(|level| level.options.iter());
    if let Some(def) = all().find(|def| def.has(arg)) {
        let (value, value_index, next) = match def.arity {
            Arity::Value => (args.get(index + 1).cloned(), index + 1, index + 2),
            _ => (None, index, index + 1),
        };
        call.options.push(Found {
            def,
            spelling: arg.clone(),
            value,
            index: value_index,
        });
        return next;
    }
    if levels.first().is_some_and(|level| level.joined) {
        return read_joined(call, levels, index, unknown);
    }
    if levels.first().is_some_and(|level| level.numeric)
        && arg[1..].chars().all(|c| c.is_ascii_digit())
    {
        return index + 1;
    }
    let cluster = &arg[1..];
    for (position, letter) in cluster.char_indices() {
        let Some(def) = short(levels, letter) else {
            unknown(call, &format!("-{letter}"), false);
            return index + 1;
        };
        let rest = &cluster[position + letter.len_utf8()..];
        match def.arity {
            Arity::Flag => call.options.push(Found {
                def,
                spelling: format!("-{letter}"),
                value: None,
                index,
            }),
            Arity::Value if rest.is_empty() => {
                call.options.push(Found {
                    def,
                    spelling: format!("-{letter}"),
                    value: args.get(index + 1).cloned(),
                    index: index + 1,
                });
                return index + 2;
            }
            Arity::Value | Arity::Optional => {
                call.options.push(Found {
                    def,
                    spelling: format!("-{letter}"),
                    value: (!rest.is_empty()).then(|| rest.to_owned()),
                    index,
                });
                return index + 1;
            }
        }
    }
    index + 1
}

/// A compiler-style option (see [`Level::joined`]) that is not a whole listed word: `-fno-X` of a
/// listed `-fX`, or a listed option with its value joined (`-Idir`, `-std=c11`, `-Wl,-O1`).
fn read_joined<'t>(
    call: &mut Call<'t>,
    levels: &[&'t Level],
    index: usize,
    unknown: impl Fn(&mut Call<'t>, &str, bool),
) -> usize {
    let arg = &call.args[index];
    let all = || levels.iter().flat_map(|level| level.options.iter());
    for family in ["-f", "-W", "-m"] {
        if let Some(rest) = arg
            .strip_prefix(family)
            .and_then(|rest| rest.strip_prefix("no-"))
        {
            let positive = format!("{family}{rest}");
            let base = positive
                .split_once('=')
                .map_or(positive.as_str(), |(name, _)| name);
            if all().any(|def| def.has(base)) {
                // It only turns a known option off.
                return index + 1;
            }
        }
    }
    // The longest listed name with a value that starts the word: `-fplugin-arg-…` is not
    // `-fplugin`, and a listed flag never takes a joined value.
    let best = all()
        .filter(|def| def.arity != Arity::Flag)
        .flat_map(|def| def.names.iter().map(move |name| (def, name)))
        .filter(|(_, name)| !name.starts_with("--") && arg.starts_with(name.as_str()))
        .max_by_key(|(_, name)| name.len());
    match best {
        Some((def, name)) => {
            // `-std=c11`, `-fuse-ld=lld`: the value is what follows the `=`.
            let joined = &arg[name.len()..];
            let value = joined.strip_prefix('=').unwrap_or(joined).to_owned();
            call.options.push(Found {
                def,
                spelling: name.clone(),
                value: Some(value),
                index,
            });
        }
        None => unknown(call, arg, false),
    }
    index + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::programs::model::read_table;
    use pretty_assertions::assert_eq;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn clusters_values_prefixes_and_subcommands() {
        let table = read_table(
            "@bundled
             -c, --create
             -z, --gzip
             -f, --file=ARCHIVE
             --remove-files
             --record-size=N
             -exec CMD",
        )
        .unwrap();
        let args = words("-czf a.tgz --remove-f d");
        let call = read_call("tar", &table, &args);
        assert_eq!(call.value("--file"), Some("a.tgz"));
        assert!(call.has("--remove-files"));
        assert_eq!(call.operand_texts(), ["d"]);
        assert!(call.unknown.is_empty());
        let args = words("czf a.tgz d");
        let call = read_call("tar", &table, &args);
        assert_eq!(call.values("-f"), [("a.tgz", 1)]);
        assert_eq!(call.operand_texts(), ["d"]);
        let args = words("-x --re=1 -exec id d");
        let call = read_call("tar", &table, &args);
        assert_eq!(
            call.unknown,
            [
                "option -x of tar is not known to kaiport's rules",
                "option --re of tar is ambiguous (an abbreviation of several options)"
            ]
        );
        assert_eq!(call.value("-exec"), Some("id"));

        let table = read_table(
            "-C DIR
             @sub log : read-only
             --oneline
             @sub remote
             @sub remote/add",
        )
        .unwrap();
        let args = words("-C /r log --oneline x");
        let call = read_call("git", &table, &args);
        assert_eq!(call.display_path(), "git log");
        assert!(call.level().read_only);
        assert_eq!(call.operand_texts(), ["x"]);
        let args = words("remote add o u");
        let call = read_call("git", &table, &args);
        assert_eq!(call.display_path(), "git remote add");
        let args = words("frob --oneline");
        let call = read_call("git", &table, &args);
        assert_eq!(
            call.unknown,
            [
                "subcommand frob of git is not known to kaiport's rules",
                "option --oneline of git is not known to kaiport's rules"
            ]
        );
    }
}
