//! What judging one simple command yields ([`Verdict`]): how it runs other commands (its
//! [`Shape`] and the commands inside its options), the files it writes, and the reasons to ask —
//! unprovable, dangerous, lock-out — and whether plan mode may run it.
//!
//! Specs fill it in ([`super::judge`]); the walker in `analysis.rs` and the rules in `rules.rs`
//! only read it. Everything here errs one way: a form that is not understood is a reason to ask.

use super::model::Runs;

/// What kind of command a simple command is, for the walker.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Shape {
    /// Runs the command starting at argument `inner_starts` (`sudo -u x rm` → 2). `note`: a
    /// reason to ask that the wrapper itself adds (`sudo LD_PRELOAD=… cmd`).
    Wrapper {
        inner_starts: usize,
        note: Option<String>,
    },
    /// A shell that runs a command string.
    Shell { payload: Payload },
    /// An interpreter (python, perl, …); `inline`: the flag that gives it inline code.
    Interpreter { inline: Option<String> },
    /// `find … -exec cmd … ;`: the argument ranges of each command run.
    Find { execs: Vec<(usize, usize)> },
    /// `eval` and the like: the arguments are joined and run as shell code.
    Eval,
    /// Cannot be proven harmless, for this reason.
    Unprovable(String),
    #[default]
    Plain,
}

/// Where a shell's commands come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Payload {
    /// The argument at this index (`bash -c '…'`).
    Argument(usize),
    /// The arguments from this index joined with spaces (`ssh host cmd args`, `watch cmd`).
    Joined(usize),
    /// Standard input (`… | sh`, `bash <<EOF`).
    Stdin,
}

/// What a command prints, when its words alone say it (`echo text`, `printf ''`, `cat` with no
/// files): the walker follows literal text into pipes and files, and `cmd > file` that prints
/// nothing only empties the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prints {
    Nothing,
    /// Its standard input, unchanged (`cat` with no arguments).
    Stdin,
    /// This text (newlines written as `\n` in a format already turned into line breaks).
    Text(String),
}

/// A command a program runs through an option or subcommand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Run {
    /// Shell text (`sh -c` style), analysed as if typed.
    Script(String),
    /// Arguments `start..end` (indices into the program's arguments): a command and its
    /// arguments, analysed like the words of a simple command.
    Args(usize, usize),
}

/// One command run through an option or subcommand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Embedded {
    pub run: Run,
    /// The program and option, for the reasons shown (`git -c core.pager`).
    pub how: String,
    /// The program adds arguments of its own (`rsync -e 'ssh'` gets the host and a command).
    pub more_args: bool,
    /// Runs on another host.
    pub remote: Option<String>,
    /// The argument the text came from: when it holds an expansion, the text is not known.
    pub source: Option<usize>,
}

/// A path a command writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteSpec {
    pub path: String,
    /// For the reasons shown: `cp`, `tar --file`, `sed -i`.
    pub how: String,
    /// Everything below a folder too (`rm -r`, `mv`, `wget -P`).
    pub subtree: bool,
    /// Writing it is what the program is for (`cp`'s destination, `tee`'s files), not a side
    /// effect of an option (`sort -o`, `sed -i`): an allowed program writes it unasked.
    pub own: bool,
}

/// What the decision needs to know about one command after the walk: the spec that judged it,
/// the reasons it asks, and whether plan mode may run it. Wrappers hand theirs down to the
/// command they run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    /// The spec family that decided (`tar`, `git`), or `None` for a program kaiport has no spec
    /// for.
    pub spec: Option<&'static str>,
    pub dangerous: Vec<String>,
    pub lockout: Vec<String>,
    /// Plan mode: `Err` says why this form could change something.
    pub read_only: Result<(), String>,
}

impl Default for Judged {
    fn default() -> Self {
        Judged {
            spec: None,
            dangerous: Vec::new(),
            lockout: Vec::new(),
            read_only: Ok(()),
        }
    }
}

impl Judged {
    /// Adds what a wrapper around this command found (its own reasons to ask, its writes in
    /// plan mode).
    pub fn inherit(&mut self, wrapper: &Judged) {
        for reason in &wrapper.dangerous {
            if !self.dangerous.contains(reason) {
                self.dangerous.push(reason.clone());
            }
        }
        for reason in &wrapper.lockout {
            if !self.lockout.contains(reason) {
                self.lockout.push(reason.clone());
            }
        }
        if self.read_only.is_ok()
            && let Err(why) = &wrapper.read_only
        {
            self.read_only = Err(why.clone());
        }
    }
}

/// Everything judging one command found (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Verdict {
    pub shape: Shape,
    pub runs: Vec<Embedded>,
    pub writes: Vec<WriteSpec>,
    /// Reasons to ask: forms this analysis cannot follow.
    pub unprovable: Vec<String>,
    /// Reads commands from its standard input (`vim -es`, `parallel` without a command).
    pub commands_on_stdin: bool,
    /// The argument (index) that is a script file it runs (`bash s.sh`, `. s.sh`, `python3 x.py`).
    pub script_file: Option<usize>,
    /// That script is shell code (`bash s.sh`, `. s.sh`), read as if typed when kaiport knows it.
    pub script_is_shell: bool,
    /// The shell moves to the folder its operand names (`cd`, `pushd`).
    pub changes_folder: bool,
    /// In the command it runs, this text is replaced by input when it runs (`xargs -I {}`,
    /// `find -exec … {}`): a word holding it is only known then.
    pub replace: Option<String>,
    /// `ln`: what the links point to, and the folder a relative target is read from.
    pub links: Option<(Vec<String>, Option<String>)>,
    /// The one file whose content its destination gets (`cp /bin/rm /tmp/d`, `mv`, `install`,
    /// `ln`, `rsync`): the destination then holds that file, or the program it is.
    pub copied_from: Option<String>,
    /// Its files get what is piped into it (`tee`).
    pub writes_stdin: bool,
    /// The command it runs gets more arguments when it runs (`xargs` without `-I`).
    pub adds_args: bool,
    /// Its command string runs on this host (`ssh host 'cmd'`).
    pub remote: Option<String>,
    /// Runs earlier command lines again from the shell's history (`fc -s`, zsh's `r`).
    pub reruns_history: bool,
    /// Folders (as spelled: `.`, `..`) it writes files into whose names it does not say
    /// (`tar -x`, `git checkout .`): when the line has not moved to a known folder, the write set
    /// is unknown and may be a home or /etc/ssh, so it asks.
    pub into_folders: Vec<(String, String)>,
    pub judged: Judged,
}

impl Verdict {
    pub fn unprovable(&mut self, reason: impl Into<String>) {
        let reason = reason.into();
        if !self.unprovable.contains(&reason) {
            self.unprovable.push(reason);
        }
    }

    /// A reason the command is dangerous (always asks); `display` is the command as shown.
    pub fn dangerous(&mut self, display: &str, why: &str) {
        let reason = format!("`{display}` is dangerous: {why}");
        if !self.judged.dangerous.contains(&reason) {
            self.judged.dangerous.push(reason);
        }
    }

    /// A reason the command can lock the user out (always asks).
    pub fn lockout(&mut self, display: &str, what: &str) {
        let reason =
            format!("`{display}` {what}, which can lock you out of the server; this always asks");
        if !self.judged.lockout.contains(&reason) {
            self.judged.lockout.push(reason);
        }
    }

    /// Plan mode may not run this form (the first reason stays).
    pub fn not_read_only(&mut self, reason: impl Into<String>) {
        if self.judged.read_only.is_ok() {
            self.judged.read_only = Err(reason.into());
        }
    }

    /// Files whose names it does not say written into `folder` (see [`Verdict::into_folders`]);
    /// only the current folder and those above it count (a named folder is judged by its name).
    pub fn into_folder(&mut self, folder: &str, how: impl Into<String>) {
        let folder = folder.trim_end_matches('/');
        let folder = if folder.is_empty() { "." } else { folder };
        let here = folder
            .split('/')
            .all(|part| matches!(part, "." | ".." | ""));
        if here {
            self.into_folders.push((folder.to_owned(), how.into()));
        }
    }

    /// A path written as a side effect of an option (asks in ask mode even when allowed).
    pub fn output(&mut self, path: &str, how: impl Into<String>, subtree: bool) {
        self.write(path, how, subtree, false);
    }

    pub fn write(&mut self, path: &str, how: impl Into<String>, subtree: bool, own: bool) {
        if path.is_empty() || path == "-" {
            return; // standard output
        }
        let write = WriteSpec {
            path: path.to_owned(),
            how: how.into(),
            subtree,
            own,
        };
        if !self.writes.contains(&write) {
            self.writes.push(write);
        }
    }

    /// Shell text the program runs, analysed as if typed (`more`: it adds arguments).
    pub fn script(
        &mut self,
        text: &str,
        how: impl Into<String>,
        source: Option<usize>,
        more: bool,
    ) {
        self.runs.push(Embedded {
            run: Run::Script(text.to_owned()),
            how: how.into(),
            more_args: more,
            remote: None,
            source,
        });
    }

    /// Arguments `start..end` the program runs as a command.
    pub fn args(&mut self, start: usize, end: usize, how: impl Into<String>) {
        if start < end {
            self.runs.push(Embedded {
                run: Run::Args(start, end),
                how: how.into(),
                more_args: false,
                remote: None,
                source: None,
            });
        }
    }

    /// A program named by an option's value (`rsync -e VALUE`): analysed as if typed, and
    /// unprovable unless it is plainly one of the programs the option is meant for.
    pub fn runs_option(&mut self, value: &str, how: &str, runs: &Runs, source: Option<usize>) {
        if value.trim().is_empty() {
            return;
        }
        if !plainly_one_of(value, &runs.expect) {
            let expected = if runs.expect.is_empty() {
                String::new()
            } else {
                format!(
                    ", not plainly one of the programs that option is for ({})",
                    runs.expect.join(", ")
                )
            };
            self.unprovable(format!(
                "`{how}` runs `{value}`{expected}; what that does cannot be checked, so it asks"
            ));
        }
        self.runs.push(Embedded {
            run: Run::Script(value.to_owned()),
            how: how.to_owned(),
            more_args: runs.more_args,
            remote: runs.remote.then(|| format!("the other side of {how}")),
            source,
        });
    }
}

/// `value` is one simple command whose program is one of `expect`, named plainly (a bare name
/// or a system program folder), with nothing the shell would expand or chain.
pub fn plainly_one_of(value: &str, expect: &[String]) -> bool {
    if expect.is_empty() || value.contains([';', '&', '|', '`', '$', '(', ')', '<', '>', '\n']) {
        return false;
    }
    let Some(first) = value.split_whitespace().next() else {
        return false;
    };
    if first.contains(['=', '\'', '"', '\\', '*', '?', '[', '{']) {
        return false;
    }
    let (folder, name) = match first.rsplit_once('/') {
        Some((folder, name)) => (Some(folder), name),
        None => (None, first),
    };
    let system_folder = folder.is_none_or(|folder| {
        matches!(
            folder,
            "/bin" | "/usr/bin" | "/usr/local/bin" | "/sbin" | "/usr/sbin" | "/usr/local/sbin"
        )
    });
    system_folder && expect.iter().any(|program| program == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn only_plain_expected_programs_are_peeled() {
        let ssh = expect(&["ssh", "rsh"]);
        assert!(plainly_one_of("ssh -p 2222", &ssh));
        assert!(plainly_one_of("/usr/bin/ssh -i key", &ssh));
        assert!(!plainly_one_of("sh -c id", &ssh));
        assert!(!plainly_one_of("/tmp/ssh", &ssh));
        assert!(!plainly_one_of("ssh; id", &ssh));
        assert!(!plainly_one_of("ssh $(id)", &ssh));
        assert!(!plainly_one_of("X=1 ssh", &ssh));
        assert!(!plainly_one_of("ssh", &[]));
    }
}
