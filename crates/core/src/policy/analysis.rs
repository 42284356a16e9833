//! What a shell command line would run, found with tree-sitter-bash: every simple command
//! through lists, pipelines, subshells, groups, `if`/`for`/`while`/`case`, functions, command and
//! process substitutions and here-documents fed to a shell; wrappers (`sudo`, `env`, `xargs`,
//! `bash -c`, `find -exec`, `ssh host 'cmd'`, …) unwrapped to the command they run; quoting and
//! path spellings (`\rm`, `'r'm`, `r""m`, `/usr/bin/../bin/rm`) normalised; and the files the
//! line writes (redirections, `tee`, `dd of=`, `sed -i`, `cp`/`mv`/`ln` targets, …).
//!
//! Entry point: [`analyse`] → [`Analysis`]. What each program does is its spec's to say
//! ([`super::programs::judge`]); the rules in [`super::rules`] judge the user's patterns and paths.
//!
//! This module must never guess: whatever it cannot read statically (a variable as command name,
//! `eval`, data piped into a shell or interpreter, inline interpreter code, a parse error, a
//! write to a path it cannot resolve) becomes an entry in [`Analysis::unprovable`], which the
//! policy always asks about. Words inside quotes are data, never commands.
//!
//! Rules that close whole classes of bypass (each has table cases in
//! tests/policy_corpus.txt and generated ones in tests/policy_props.rs):
//! - **Read the line as bash reads it.** Backslash-newline is removed before parsing, also inside
//!   a word (`r\⏎m` is `rm`); a redirection after `a && b` or `a | b` belongs to `b` (tree-sitter-bash
//!   hangs it on the whole list); backticks and `$( )` in an unquoted here-document run; `coproc`
//!   runs its command; where parsing fails, the first word after every separator is still
//!   analysed, so a forbidden program in broken syntax is denied.
//! - **A pattern as the command name** (`/bin/r[m]`, `{rm,-f,x}`) asks; brace expansions are
//!   analysed as the words they make, globs match the rules as patterns.
//! - **Deletes and truncations ask** whatever does them: `rm`, `unlink`, `mv … /dev/null`,
//!   `truncate`, `cp /dev/null F`, and `>` after a command that prints nothing (`> F`, `: > F`).
//! - **A file the line writes and then runs** (`./d`, `bash s.sh`, `. s.sh`, a name on the search
//!   path) cannot be proved harmless: it asks, and what was written into it (literal text, or a
//!   copy of or link to a program) is analysed as the commands it is, so a forbidden one denies.
//! - **Programs are judged by their specs** ([`super::programs`]): each simple command gets a
//!   verdict once (its shape as a wrapper, shell or plain command; commands inside its options,
//!   analysed as if typed; files it writes; reasons to ask) and is recorded with it. An allowed
//!   program is allowed only for its own effect: the commands it runs must be allowed
//!   themselves, and an option its spec does not know asks.
//! - **Writes are named as written.** [`Analysis::writes`] lists every target the line writes
//!   (redirections, `tee`, `cp`/`mv`/`install`/`ln` destinations, `dd of=`, `truncate`, output
//!   options) normalised, relative to the folder a literal `cd` moved to, and otherwise relative
//!   as written: the engine resolves them on the server. After a `cd` to a folder only known when
//!   it runs, a relative write asks. A subshell's or pipeline part's `cd` does not carry over.
//! - **A link to `/`, a lock-out path or a folder holding one asks** (`ln -s / /tmp/r`,
//!   `ln -s /root/.ssh l`): writing through it would change the protected file unasked. The link
//!   is the write; its target is checked (a relative target from the link's folder; one that
//!   climbs out of an unknown folder as if it could reach `/`).

use super::paths::lockout_match;
use super::paths::normalise_path;
use super::programs::{self, Judged, Payload, Prints, Run, Shape, Verdict};
use std::cell::RefCell;
use std::time::{Duration, Instant};
use tree_sitter::{Node, Parser};

/// One simple command that would run, after unwrapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The command name (normalised: `rm`, not `/bin/rm`) followed by its arguments with quoting
    /// removed. An argument the analysis cannot know (`$x`, `$(…)`) keeps its source text.
    pub words: Vec<String>,
    /// The wrappers it ran through, outermost first, as invoked (`["sudo", "-u", "x"]`).
    pub wrappers: Vec<Vec<String>>,
    /// Its arguments come partly from elsewhere (`xargs`, `find -exec … {}`).
    pub more_args_unknown: bool,
    /// Runs on another host (`ssh host 'cmd'`).
    pub remote: Option<String>,
    /// What the program's spec decided about it (and about the wrappers around it).
    pub judged: Judged,
}

impl SimpleCommand {
    pub fn name(&self) -> &str {
        self.words.first().map(String::as_str).unwrap_or_default()
    }

    pub fn args(&self) -> &[String] {
        self.words.get(1..).unwrap_or_default()
    }

    pub fn display(&self) -> String {
        self.words.join(" ")
    }
}

/// A path the line writes to (or removes, or changes the permissions of).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    /// Normalised (see [`normalise_path`]).
    pub path: String,
    /// How, for the reasons shown to the user: "`>` redirection", "sed -i", "rm".
    pub how: String,
    /// Affects everything below a folder too (`rm -r`, `chmod -R`, `mv`).
    pub subtree: bool,
    /// Writing it is what the program is for (`cp`'s destination, `tee`'s files), not a side
    /// effect of a redirection or an option: an allowed program writes it unasked.
    pub own: bool,
}

/// Everything the analysis found in one command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    pub commands: Vec<SimpleCommand>,
    pub writes: Vec<Write>,
    /// What could not be proven (each a sentence for the user and the model).
    pub unprovable: Vec<String>,
    /// Why the line runs earlier command lines again from the shell's history (`!!`, `^a^b`,
    /// `fc -s`): each is in `unprovable` too. What they run may be anything the connection
    /// forbids, so the policy refuses them where it forbids commands.
    pub reruns: Vec<String>,
}

/// Longest line analysed; longer lines are unprovable (and take no time).
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// Deepest syntax nesting followed.
const MAX_DEPTH: usize = 64;
/// Most nested payloads (`bash -c`, `ssh host '…'`) parsed for one line.
const MAX_PAYLOADS: usize = 32;

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parser work one whole analysis may spend, counted in tree-sitter's progress checks (one per
/// fixed number of parse operations); past it the line is unprovable (asks). Counted rather
/// than timed, so a line gets the same decision on any machine under any load: an ordinary line
/// of [`MAX_LINE_BYTES`] needs under a thousand checks.
const PARSE_BUDGET: u32 = 20_000;

/// A fuse for what the count does not see: tree-sitter's error recovery on some malformed input
/// (`a)b(c` repeated) takes seconds while counting few checks. Far above any line that parses
/// cleanly, so only such input can end here, and it is asked about either way (a line with a
/// syntax error is unprovable).
const PARSE_FUSE: Duration = Duration::from_secs(1);

fn parse(source: &str, budget: &mut u32, fuse: Instant) -> Option<tree_sitter::Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut()?;
        parser.reset();
        // tree-sitter-bash's scanner passes code points to isdigit()/isalpha(), which is
        // undefined above 255 and crashed the process on some input (found by the property
        // tests). It parses an ASCII stand-in of the same length instead: every non-ASCII byte
        // becomes `a`, a word character like the text it replaces (bash splits words only on
        // ASCII blanks and operators). The walker reads the real text at the same offsets.
        let bytes: Vec<u8> = source
            .bytes()
            .map(|byte| if byte.is_ascii() { byte } else { b'a' })
            .collect();
        let mut read =
            |offset: usize, _: tree_sitter::Point| bytes.get(offset..).unwrap_or_default();
        // Returning true stops the parser: error recovery on hostile input can be slow.
        let mut spent = |_: &tree_sitter::ParseState| {
            *budget = budget.saturating_sub(1);
            *budget == 0 || Instant::now() > fuse
        };
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut spent);
        let tree = parser.parse_with_options(&mut read, None, Some(options));
        if tree.is_none() {
            parser.reset();
        }
        tree
    })
}

/// Analyse one command line (see the module docs).
pub fn analyse(line: &str) -> Analysis {
    let mut walker = Walker {
        out: Analysis::default(),
        depth: 0,
        payloads: 0,
        cwd: Cwd::Start,
        parse_budget: PARSE_BUDGET,
        fuse: Instant::now() + PARSE_FUSE,
        written: Vec::new(),
        file_runs: Vec::new(),
        empties_output: false,
        safe_vars: Vec::new(),
        values: Vec::new(),
    };
    if let Some(reason) = history_expansion(line) {
        walker.unprovable(reason.clone());
        walker.out.reruns.push(reason);
    }
    walker.script(line, &Frame::default());
    walker.check_file_runs();
    walker.out
}

/// The folder relative paths start from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cwd {
    /// The shell's folder when the line starts: relative paths stay relative (the engine
    /// resolves them on the server).
    Start,
    /// Moved there by a literal `cd` in this line.
    Known(String),
    /// Moved by a `cd` whose folder is only known when it runs.
    Unknown,
}

/// What the line wrote into a file, as far as it can be told.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Content {
    /// Literal text (`printf 'rm x' > s.sh`, `cat <<EOF > s.sh`).
    Text(String),
    /// A copy of or link to a program (`cp /bin/rm /tmp/d`): running it runs that program.
    Program(String),
}

/// A file written by the line.
#[derive(Debug, Clone)]
struct Written {
    path: String,
    /// Every content known to have been written to it. A later write does not take an earlier
    /// one back: a run may come between the two, and a wrapper read two ways (`parallel`) writes
    /// the same file once per reading. A run of the file is checked against each.
    contents: Vec<Content>,
}

/// A file the line runs as a program or script (`./x`, `/tmp/d`, `bash s.sh`, `. s.sh`).
#[derive(Debug, Clone)]
struct FileRun {
    /// Normalised, or the bare command name (looked up in PATH).
    path: String,
    /// The words of the command that runs it, normalised name first.
    words: Vec<String>,
    /// Run as a script by a shell (its text is shell code) rather than as a program.
    as_script: bool,
    frame: Frame,
}

/// Where a command's standard input comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum Stdin {
    #[default]
    Terminal,
    /// The output of an earlier command in a pipeline.
    Pipe,
    /// A here-document or here-string with this literal text.
    Literal(String),
    /// A here-document or here-string with expansions in it.
    Dynamic,
}

/// The surroundings a command is analysed in.
#[derive(Debug, Clone, Default)]
struct Frame {
    stdin: Stdin,
    wrappers: Vec<Vec<String>>,
    remote: Option<String>,
    more_args_unknown: bool,
    /// With `stdin: Pipe`: the text piped in, when the command before it prints literal text
    /// (`echo 'rm x' | sh`, `cat <<EOF | sh`).
    piped_text: Option<String>,
    /// What the specs of the wrappers around the command decided (their reasons to ask).
    inherited: Judged,
}

struct Walker {
    out: Analysis,
    depth: usize,
    payloads: usize,
    /// The folder relative paths start from (see [`Cwd`]).
    cwd: Cwd,
    /// Files written so far, with what was written when known.
    written: Vec<Written>,
    /// Files run as programs or scripts, checked against `written` at the end.
    file_runs: Vec<FileRun>,
    /// The redirections being recorded belong to a command that prints nothing (`: > f`).
    empties_output: bool,
    /// Variables this line set to a literal value with nothing an arithmetic evaluation could
    /// run (`n=5`, `for f in a b`): reading them in `$(( ))` is safe.
    safe_vars: Vec<String>,
    /// Variables this line set to a value known here (`x='$(rm F)'`): where the shell evaluates
    /// a value as code (`${x@P}`, arithmetic, `${!x}`), the commands in it are analysed.
    values: Vec<(String, String)>,
    /// Parser work left for this line (see [`PARSE_BUDGET`]).
    parse_budget: u32,
    /// When parsing stops whatever the count says (see [`PARSE_FUSE`]).
    fuse: Instant,
}

/// One word with quoting removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Word {
    text: String,
    /// Contains an expansion whose value is unknown here.
    dynamic: bool,
    /// Written in a way that hides what it says (`$'\x72m'`).
    obscured: bool,
    /// Unquoted glob characters (the shell expands them to file names).
    glob: bool,
    /// An unquoted `{a,b}` group (the shell expands it into several words).
    braces: bool,
}

impl Walker {
    fn unprovable(&mut self, reason: impl Into<String>) {
        let reason = reason.into();
        if !self.out.unprovable.contains(&reason) {
            self.out.unprovable.push(reason);
        }
    }

    /// Parse and walk a whole script (the line, or a payload such as `bash -c '…'`).
    fn script(&mut self, source: &str, frame: &Frame) {
        if source.len() > MAX_LINE_BYTES {
            self.unprovable(format!(
                "the command line is longer than {} KB and was not analysed",
                MAX_LINE_BYTES / 1024
            ));
            return;
        }
        if self.payloads > MAX_PAYLOADS || self.depth > MAX_DEPTH {
            self.unprovable("shell commands nested too deeply to analyse");
            return;
        }
        self.payloads += 1;
        let joined;
        let source = if source.contains("\\\n") {
            joined = join_continued_lines(source);
            joined.as_str()
        } else {
            source
        };
        // A final newline: bash runs the line on Enter anyway, and without it tree-sitter-bash
        // needs ~20x longer on pipelines of three or more commands (work at end of input).
        let mut text = String::with_capacity(source.len() + 1);
        text.push_str(source);
        if !source.ends_with('\n') {
            text.push('\n');
        }
        let source = text.as_str();
        let Some(tree) = parse(source, &mut self.parse_budget, self.fuse) else {
            self.unprovable("the command line is too complex to analyse");
            return;
        };
        let root = tree.root_node();
        if root.has_error() {
            self.unprovable(
                "the shell syntax could not be parsed completely (unbalanced quotes, brackets or keywords)",
            );
        }
        self.statement(root, source.as_bytes(), frame);
        if root.has_error() {
            self.broken_syntax_commands(source, frame);
            // bash reads a `$(( … ))` or `(( … ))` that is not arithmetic as nested parentheses:
            // a subshell (in a command substitution). That reading is analysed too.
            if source.contains("((") {
                self.script(&source.replace("((", "( ("), frame);
            }
        }
    }

    /// Where the parse failed, tree-sitter-bash may have dropped commands (a `{` inside
    /// backticks, an unbalanced quote): the first words after every separator are analysed too,
    /// so a forbidden program in broken syntax is still denied (the line asks anyway).
    fn broken_syntax_commands(&mut self, source: &str, frame: &Frame) {
        let mut segments: Vec<String> = vec![String::new()];
        let mut quote: Option<char> = None;
        let mut chars = source.chars().peekable();
        while let Some(c) = chars.next() {
            match (quote, c) {
                (Some(open), _) if c == open => quote = None,
                (Some(_), _) => segments.last_mut().into_iter().for_each(|s| s.push(c)),
                (None, '\'' | '"') => quote = Some(c),
                (None, '\\') => {
                    if let Some(next) = chars.next() {
                        segments.last_mut().into_iter().for_each(|s| s.push(next));
                    }
                }
                (None, ';' | '&' | '|' | '(' | ')' | '`' | '\n' | '$' | '<' | '>') => {
                    segments.push(String::new())
                }
                (None, _) => segments.last_mut().into_iter().for_each(|s| s.push(c)),
            }
        }
        for segment in segments.iter().take(MAX_PAYLOADS) {
            let mut words: Vec<Word> = segment
                .split_whitespace()
                .skip_while(|word| word.contains('=') || matches!(*word, "{" | "}" | "!"))
                .map(|word| Word {
                    text: word.trim_start_matches('{').to_owned(),
                    ..Word::default()
                })
                .collect();
            words.retain(|word| !word.text.is_empty());
            let Some(first) = words.first() else {
                continue;
            };
            let expanded = brace_expand(&format!("{{{}", first.text));
            if expanded.len() > 1 {
                let mut with_rest: Vec<Word> = expanded
                    .into_iter()
                    .map(|text| Word {
                        text,
                        ..Word::default()
                    })
                    .collect();
                with_rest.extend(words.into_iter().skip(1));
                words = with_rest;
            }
            if self.payloads > MAX_PAYLOADS {
                return;
            }
            self.simple(words, frame);
        }
    }

    fn statement(&mut self, node: Node<'_>, src: &[u8], frame: &Frame) {
        if self.depth > MAX_DEPTH {
            self.unprovable("shell commands nested too deeply to analyse");
            return;
        }
        self.depth += 1;
        self.statement_inner(node, src, frame);
        self.depth -= 1;
    }

    fn statement_inner(&mut self, node: Node<'_>, src: &[u8], frame: &Frame) {
        match node.kind() {
            "subshell" => {
                // A subshell's `cd` does not move the shell that runs the rest of the line.
                let cwd = self.cwd.clone();
                self.children(node, src, frame);
                self.cwd = cwd;
            }
            "compound_statement" if text(node, src).starts_with("((") => {
                // `(( … ))` evaluates its variables as arithmetic.
                self.arithmetic(node, src);
                self.substitutions(node, src);
            }
            "program" | "list" | "compound_statement" | "do_group" | "else_clause"
            | "elif_clause" | "if_statement" | "while_statement" | "negated_command"
            | "case_item" => self.children(node, src, frame),
            "c_style_for_statement" => {
                // `for ((i=0; i<n; i++))`: what the initializer sets to a number is safe.
                if let Some(init) = node.child_by_field_name("initializer") {
                    self.note_safe_assignments(init, src);
                }
                for child in named_children(node) {
                    match child.kind() {
                        "do_group" | "compound_statement" => self.statement(child, src, frame),
                        "comment" => {}
                        _ => {
                            self.arithmetic(child, src);
                            self.substitutions(child, src);
                        }
                    }
                }
            }
            "for_statement" | "select_statement" => {
                // The loop variable takes the listed words: safe when they all are.
                let literal = fields(node, "value").iter().all(|value| {
                    matches!(value.kind(), "word" | "number" | "raw_string")
                        && !text(*value, src).contains(['[', '$', '`'])
                });
                if let Some(variable) = node.child_by_field_name("variable") {
                    self.set_safe(&text(variable, src), literal);
                }
                for child in named_children(node) {
                    match child.kind() {
                        "do_group" | "compound_statement" => self.statement(child, src, frame),
                        "variable_name" | "comment" => {}
                        _ => self.substitutions(child, src),
                    }
                }
            }
            "test_command" => {
                self.test_expression(node, src);
                self.substitutions(node, src);
            }
            "case_statement" => {
                for child in named_children(node) {
                    match child.kind() {
                        "do_group" | "compound_statement" | "case_item" => {
                            self.statement(child, src, frame)
                        }
                        "variable_name" | "comment" => {}
                        _ => self.substitutions(child, src),
                    }
                }
            }
            "pipeline" => {
                let mut previous: Option<Node<'_>> = None;
                for child in named_children(node) {
                    let mut inner = frame.clone();
                    if let Some(previous) = previous {
                        inner.stdin = Stdin::Pipe;
                        inner.piped_text = literal_output(previous, src);
                    }
                    previous = Some(child);
                    // Each part of a pipeline runs in a subshell of its own.
                    let cwd = self.cwd.clone();
                    self.statement(child, src, &inner);
                    self.cwd = cwd;
                }
            }
            "redirected_statement" => self.redirected(node, src, frame),
            "command" => self.command(node, &[], src, frame),
            "function_definition" => {
                let name = node
                    .child_by_field_name("name")
                    .map(|name| text(name, src))
                    .unwrap_or_default();
                self.unprovable(format!(
                    "defines the shell function `{name}`, which changes what a later command named `{name}` runs"
                ));
                if let Some(body) = node.child_by_field_name("body") {
                    self.statement(body, src, frame);
                }
            }
            "variable_assignment" => self.assignment(node, src, /*prefix*/ false),
            "variable_assignments" => {
                for child in named_children(node) {
                    self.assignment(child, src, false);
                }
            }
            "declaration_command" => self.declaration(node, src, frame),
            // `unset`: no command runs, except substitutions inside.
            "unset_command" | "comment" | "heredoc_body" | "heredoc_start" | "heredoc_end"
            | "number" => self.substitutions(node, src),
            "arithmetic_expansion"
            | "postfix_expression"
            | "binary_expression"
            | "unary_expression"
            | "parenthesized_expression"
            | "ternary_expression" => {
                self.arithmetic(node, src);
                self.substitutions(node, src);
            }
            "ERROR" => {
                self.unprovable("the shell syntax could not be parsed completely");
                self.children(node, src, frame);
            }
            other => {
                self.unprovable(format!(
                    "a shell construct this analysis does not model ({other})"
                ));
                self.substitutions(node, src);
            }
        }
    }

    fn children(&mut self, node: Node<'_>, src: &[u8], frame: &Frame) {
        for child in named_children(node) {
            match child.kind() {
                "comment" => {}
                // `if`/`while` conditions and bodies are statements; anything else (words of a
                // `case` pattern) only matters for substitutions.
                kind if is_statement_kind(kind) => self.statement(child, src, frame),
                _ => self.substitutions(child, src),
            }
        }
    }

    /// `cmd > file`, `cmd <<EOF`, `{ …; } 2>&1 | …` (heredoc lines may carry the rest of the
    /// pipeline).
    fn redirected(&mut self, node: Node<'_>, src: &[u8], frame: &Frame) {
        let redirects: Vec<Node<'_>> = fields(node, "redirect");
        let mut rest_of_line: Vec<Node<'_>> = Vec::new();
        let mut body = node.child_by_field_name("body");
        // tree-sitter-bash hangs a redirection after `a && b` or `a | b` on the whole list or
        // pipeline; bash applies it to the last command only, after the others ran
        // (`cd /etc/ssh && echo x > sshd_config` writes in /etc/ssh).
        let mut base = frame.clone();
        while let Some(group) = body.filter(|body| matches!(body.kind(), "list" | "pipeline")) {
            let children: Vec<Node<'_>> = named_children(group)
                .into_iter()
                .filter(|child| child.kind() != "comment")
                .collect();
            let Some((last, before)) = children.split_last() else {
                break;
            };
            let pipeline = group.kind() == "pipeline";
            let mut previous: Option<Node<'_>> = None;
            for child in before {
                let mut inner = base.clone();
                if pipeline && let Some(previous) = previous {
                    inner.stdin = Stdin::Pipe;
                    inner.piped_text = literal_output(previous, src);
                }
                let cwd = self.cwd.clone();
                self.statement(*child, src, &inner);
                if pipeline {
                    self.cwd = cwd;
                }
                previous = Some(*child);
            }
            if pipeline && let Some(previous) = previous {
                base.stdin = Stdin::Pipe;
                base.piped_text = literal_output(previous, src);
            }
            body = Some(*last);
        }
        let mut inner = base;
        self.empties_output = body.is_none_or(|body| prints_nothing(body, src));
        let writes_before = self.out.writes.len();
        for redirect in &redirects {
            if let Some(stdin) = self.redirect(*redirect, src, "", &mut rest_of_line) {
                inner.stdin = stdin;
            }
        }
        // Herestrings can also appear as plain children.
        for child in named_children(node) {
            if child.kind() == "herestring_redirect"
                && !redirects.iter().any(|r| r.id() == child.id())
                && let Some(stdin) = self.redirect(child, src, "", &mut rest_of_line)
            {
                inner.stdin = stdin;
            }
        }
        self.empties_output = false;
        // What the redirections write, when the command prints literal text: a script the line
        // runs later is then read (see `check_file_runs`).
        let printed = match (&inner.stdin, body) {
            (Stdin::Literal(text), Some(body)) if prints_stdin(body, src) => Some(text.clone()),
            (_, Some(body)) => literal_output(body, src),
            (_, None) => None,
        };
        let paths: Vec<String> = self.out.writes[writes_before..]
            .iter()
            .map(|write| write.path.clone())
            .collect();
        if let Some(text) = printed {
            for path in paths {
                self.set_content(&path, Content::Text(text.clone()));
            }
        }
        if let Some(body) = body {
            if body.kind() == "command" {
                self.command(body, &[], src, &inner);
            } else {
                self.statement(body, src, &inner);
            }
        }
        let body_output = match (&inner.stdin, body) {
            (Stdin::Literal(text), Some(body)) if prints_stdin(body, src) => Some(text.clone()),
            _ => None,
        };
        for rest in rest_of_line {
            self.rest_of_heredoc_line(rest, src, frame, body_output.clone());
        }
    }

    /// The rest of a line after a here-document start (`cat <<EOF | sh`): a pipeline fed by the
    /// command that took the here-document.
    fn rest_of_heredoc_line(
        &mut self,
        rest: Node<'_>,
        src: &[u8],
        frame: &Frame,
        piped_text: Option<String>,
    ) {
        let piped = Frame {
            stdin: Stdin::Pipe,
            piped_text,
            wrappers: frame.wrappers.clone(),
            remote: frame.remote.clone(),
            more_args_unknown: false,
            inherited: frame.inherited.clone(),
        };
        if rest.kind() == "pipeline" {
            // `| sh` is a pipeline node whose first child is the command fed.
            let mut first = true;
            for child in named_children(rest) {
                let inner = if first {
                    piped.clone()
                } else {
                    Frame {
                        piped_text: None,
                        ..piped.clone()
                    }
                };
                first = false;
                self.statement(child, src, &inner);
            }
        } else {
            self.statement(rest, src, &piped);
        }
    }

    /// Record what one redirection does; returns the stdin it gives the command, if any.
    fn redirect<'t>(
        &mut self,
        node: Node<'t>,
        src: &[u8],
        command: &str,
        rest_of_line: &mut Vec<Node<'t>>,
    ) -> Option<Stdin> {
        match node.kind() {
            "file_redirect" => {
                let operator = anonymous_children(node)
                    .into_iter()
                    .map(|child| text(child, src))
                    .find(|op| op.contains(['>', '<']))
                    .unwrap_or_default();
                let destinations = fields(node, "destination");
                for destination in &destinations {
                    self.substitutions(*destination, src);
                }
                let writes = matches!(
                    operator.as_str(),
                    ">" | ">>" | ">|" | "&>" | "&>>" | "<>" | ">&" | "&>|"
                );
                if writes && let Some(destination) = destinations.first() {
                    let word = self.word(*destination, src);
                    let is_fd = destination.kind() == "number"
                        || word.text == "-"
                        || (operator == ">&" && word.text.chars().all(|c| c.is_ascii_digit()));
                    if !is_fd {
                        let how = if command.is_empty() {
                            format!("`{operator}` redirection")
                        } else {
                            format!("`{operator}` redirection of {command}")
                        };
                        let appends = matches!(operator.as_str(), ">>" | "&>>" | "<>");
                        if self.empties_output && !appends && !is_harmless_sink(&word.text) {
                            self.unprovable(format!(
                                "`{operator} {}` empties the file (its contents are lost); truncating asks like a delete",
                                word.text
                            ));
                        }
                        self.write_word(&word, &how, false);
                    }
                }
                if operator == "<" {
                    if let Some(destination) = destinations.first() {
                        let word = self.word(*destination, src);
                        if is_generated_file(&word) {
                            return Some(Stdin::Dynamic);
                        }
                    }
                    // A file as input: its contents are not known here.
                    return Some(Stdin::Pipe);
                }
                None
            }
            "heredoc_redirect" => {
                for child in named_children(node) {
                    match child.kind() {
                        "pipeline" | "command" | "list" | "redirected_statement" => {
                            rest_of_line.push(child)
                        }
                        "file_redirect" | "herestring_redirect" => {
                            self.redirect(child, src, command, rest_of_line);
                        }
                        _ => {}
                    }
                }
                let quoted_delimiter = named_children(node)
                    .into_iter()
                    .find(|child| child.kind() == "heredoc_start")
                    .is_some_and(|start| text(start, src).contains(['\'', '"', '\\']));
                let body = named_children(node)
                    .into_iter()
                    .find(|child| child.kind() == "heredoc_body");
                match body {
                    None => Some(Stdin::Literal(String::new())),
                    Some(body) => {
                        let has_expansion = named_children(body).iter().any(|child| {
                            matches!(
                                child.kind(),
                                "expansion" | "simple_expansion" | "command_substitution"
                            )
                        }) || text(body, src).contains(['`', '$']);
                        if !quoted_delimiter {
                            self.substitutions(body, src);
                            self.heredoc_backticks(body, src);
                        }
                        if has_expansion && !quoted_delimiter {
                            Some(Stdin::Dynamic)
                        } else {
                            Some(Stdin::Literal(text(body, src)))
                        }
                    }
                }
            }
            "herestring_redirect" => {
                let value = named_children(node)
                    .into_iter()
                    .last()
                    .map(|child| self.word(child, src))
                    .unwrap_or_default();
                if value.dynamic || value.obscured {
                    Some(Stdin::Dynamic)
                } else {
                    Some(Stdin::Literal(value.text))
                }
            }
            _ => None,
        }
    }

    fn assignment(&mut self, node: Node<'_>, src: &[u8], prefix: bool) {
        let name_node = node.child_by_field_name("name");
        let name = name_node.map(|name| text(name, src)).unwrap_or_default();
        if let Some(name_node) = name_node {
            // `a[$x]=1`: the subscript is evaluated.
            self.substitutions(name_node, src);
        }
        let value_node = node.child_by_field_name("value");
        if let Some(value) = value_node {
            self.substitutions(value, src);
        }
        let name = name.split('[').next().unwrap_or_default().to_owned();
        let value = value_node.map(|value| word_value(value, src));
        if !prefix {
            let literal = value_node.is_none_or(|value| {
                matches!(value.kind(), "word" | "number" | "raw_string")
                    && !text(value, src).contains(['[', '$', '`', '('])
            });
            self.set_safe(&name, literal);
            let known = match &value {
                None => Some(String::new()),
                Some(value) if !value.dynamic && !value.obscured => Some(value.text.clone()),
                Some(_) => None,
            };
            self.set_value(&name, known);
        }
        if let Some(value) = &value {
            match name.as_str() {
                // Run, or expanded with `$(…)` in them, at every prompt from now on.
                "PROMPT_COMMAND" => self.script(&value.text, &Frame::default()),
                "PS0" | "PS1" | "PS2" | "PS4" => self.code_in_text(&value.text),
                _ => {}
            }
        }
        if is_command_variable(&name)
            && let Some(value) = node.child_by_field_name("value")
        {
            // `LESSOPEN='|cmd %s'`, `GIT_SSH_COMMAND=…`: the value is a command a later program
            // runs; it is analysed as typed (and the assignment still asks below).
            let value = word_value(value, src);
            let command = value.text.trim_start_matches(['|', '-', ' ']).to_owned();
            let frame = Frame {
                stdin: Stdin::Pipe,
                more_args_unknown: true,
                ..Frame::default()
            };
            self.script(&command, &frame);
        }
        if let Some(effect) = dangerous_variable(&name) {
            let when = if prefix {
                "for this command"
            } else {
                "in the shell"
            };
            self.unprovable(format!("sets {name} {when}, which {effect}"));
        }
    }

    fn declaration(&mut self, node: Node<'_>, src: &[u8], frame: &Frame) {
        let _ = frame;
        let keyword = anonymous_children(node)
            .first()
            .map(|child| text(*child, src))
            .unwrap_or_default();
        let integer = named_children(node).iter().any(|child| {
            let word = text(*child, src);
            word.starts_with('-') && word[1..].contains('i')
        });
        for child in named_children(node) {
            match child.kind() {
                "variable_assignment" => {
                    if integer && let Some(value) = child.child_by_field_name("value") {
                        // `declare -i n=VALUE` evaluates VALUE as arithmetic.
                        self.arithmetic_text(&text(value, src));
                    }
                    self.assignment(child, src, false)
                }
                "variable_name" | "word" => {
                    let name = text(child, src);
                    if name == "-f" && keyword == "export" {
                        self.unprovable("exports a shell function to child shells");
                    }
                    if let Some(effect) = dangerous_variable(&name) {
                        self.unprovable(format!("{keyword} {name}, which {effect}"));
                    }
                }
                _ => self.substitutions(child, src),
            }
        }
    }

    /// Walk a word (or anything) only for the commands hidden inside it: `$( )`, backticks,
    /// `<( )`, `>( )`.
    fn substitutions(&mut self, node: Node<'_>, src: &[u8]) {
        if self.depth > MAX_DEPTH {
            self.unprovable("shell commands nested too deeply to analyse");
            return;
        }
        match node.kind() {
            "command_substitution" | "process_substitution" => {
                // tree-sitter-bash can pair backticks across a line end as bash never does
                // (`` echo `a -F`⏎`b` `` became one substitution of `a -F`⏎`b`, hiding both `-F`
                // and the second line's command name): inner backticks that are not escaped
                // mean the parse is not bash's, so the line asks and its commands are read the
                // way broken syntax is.
                let whole = text(node, src);
                if unescaped_inner_backtick(&whole) {
                    self.unprovable("backticks that the analysis cannot pair as the shell does");
                    self.broken_syntax_commands(&whole, &Frame::default());
                }
                self.depth += 1;
                let cwd = self.cwd.clone();
                for child in named_children(node) {
                    if child.kind() == "file_redirect" {
                        self.redirect(child, src, "", &mut Vec::new());
                    } else {
                        self.statement(child, src, &Frame::default());
                    }
                }
                self.cwd = cwd;
                self.depth -= 1;
            }
            kind => {
                match kind {
                    "arithmetic_expansion" => self.arithmetic(node, src),
                    "subscript" => self.subscript(node, src),
                    "expansion" => self.expansion_operators(node, src),
                    _ => {}
                }
                self.depth += 1;
                for child in named_children(node) {
                    self.substitutions(child, src);
                }
                self.depth -= 1;
            }
        }
    }

    /// Bash evaluates arithmetic on the value of every variable it names; a value such as
    /// `a[$(cmd)]` runs cmd there (an array subscript is evaluated too). Only variables this line
    /// set to plain values are known to be safe.
    fn arithmetic(&mut self, node: Node<'_>, src: &[u8]) {
        let mut names = Vec::new();
        arithmetic_names(node, src, &mut names);
        for name in names {
            self.arithmetic_name(&name);
        }
    }

    /// Arithmetic given as text (`let`, `declare -i n=…`).
    fn arithmetic_text(&mut self, expression: &str) {
        if expression.contains(['$', '`', '[']) {
            self.unprovable(format!(
                "arithmetic evaluates `{expression}`, which can run a command (an array subscript in a value is evaluated); what it holds is only known when it runs"
            ));
            return;
        }
        for name in identifiers(expression) {
            self.arithmetic_name(&name);
        }
    }

    fn arithmetic_name(&mut self, name: &str) {
        if !self.is_safe(name) {
            self.unprovable(format!(
                "arithmetic evaluates `{name}`: a value such as `a[$(cmd)]` in it would run cmd, and what it holds is only known when it runs"
            ));
            self.evaluated_value(name);
        }
    }

    fn is_safe(&self, name: &str) -> bool {
        SAFE_SPECIALS.contains(&name) || self.safe_vars.iter().any(|safe| safe == name)
    }

    /// Remember what a variable holds (`None`: only known when it runs).
    fn set_value(&mut self, name: &str, value: Option<String>) {
        self.values.retain(|(known, _)| known != name);
        if let Some(value) = value
            && !name.is_empty()
        {
            self.values.push((name.to_owned(), value));
        }
    }

    /// The shell evaluates a variable's value as code here: when this line set it, the commands
    /// in the value are analysed (so a forbidden one is denied; it asks anyway).
    fn evaluated_value(&mut self, name: &str) {
        let value = self
            .values
            .iter()
            .find(|(known, _)| known == name)
            .map(|(_, value)| value.clone());
        if let Some(value) = value {
            self.code_in_text(&value);
        }
    }

    /// The command substitutions (`$(…)`, backticks) in text the shell expands later, analysed.
    fn code_in_text(&mut self, content: &str) {
        if self.depth > MAX_DEPTH {
            self.unprovable("shell commands nested too deeply to analyse");
            return;
        }
        self.depth += 1;
        let mut open: Option<usize> = None;
        let mut escaped = false;
        for (index, c) in content.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '`' => match open.take() {
                    Some(start) => self.script(&content[start..index], &Frame::default()),
                    None => open = Some(index + 1),
                },
                _ => {}
            }
        }
        let mut rest = content;
        while let Some(start) = rest.find("$(") {
            let after = &rest[start + 2..];
            let mut depth = 1;
            let end = after.char_indices().find_map(|(index, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                (depth == 0).then_some(index)
            });
            match end {
                Some(end) => {
                    self.script(&after[..end], &Frame::default());
                    rest = &after[end..];
                }
                None => {
                    self.unprovable("text the shell expands later has an unterminated `$(`");
                    break;
                }
            }
        }
        self.depth -= 1;
    }

    fn set_safe(&mut self, name: &str, safe: bool) {
        self.safe_vars.retain(|known| known != name);
        if safe && !name.is_empty() {
            self.safe_vars.push(name.to_owned());
        }
    }

    /// `i=0` in a c-style for loop's initializer (and `(( n = 5 ))`).
    fn note_safe_assignments(&mut self, node: Node<'_>, src: &[u8]) {
        if self.depth > MAX_DEPTH {
            return;
        }
        if node.kind() == "variable_assignment"
            && let (Some(name), Some(value)) = (
                node.child_by_field_name("name"),
                node.child_by_field_name("value"),
            )
        {
            let number = value.kind() == "number";
            self.set_safe(&text(name, src), number);
            return;
        }
        self.depth += 1;
        for child in named_children(node) {
            self.note_safe_assignments(child, src);
        }
        self.depth -= 1;
    }

    /// `${a[INDEX]}`, `a[INDEX]=…`: an indexed array's subscript is arithmetic.
    fn subscript(&mut self, node: Node<'_>, src: &[u8]) {
        let Some(index) = node.child_by_field_name("index") else {
            return;
        };
        let index_text = text(index, src);
        if matches!(index_text.as_str(), "@" | "*") {
            return;
        }
        let mut names = Vec::new();
        arithmetic_names(index, src, &mut names);
        for name in names {
            self.arithmetic_name(&name);
        }
    }

    /// `${x@P}` expands the value as a prompt, running any `$(…)` in it; `${!x}` expands the
    /// variable named by x's value, whose subscript is evaluated.
    fn expansion_operators(&mut self, node: Node<'_>, src: &[u8]) {
        let raw = text(node, src);
        let raw = raw.trim();
        if raw.ends_with("@P}") {
            let name: String = raw
                .trim_start_matches("${")
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // A value this line set without `$` or backticks expands to itself.
            let plain = self
                .values
                .iter()
                .any(|(known, value)| *known == name && !value.contains(['$', '`']));
            if !plain {
                self.unprovable(format!(
                    "`{raw}` expands a value as a prompt, which runs any `$(…)` in it"
                ));
            }
            self.evaluated_value(&name);
        }
        if let Some(rest) = raw.strip_prefix("${!") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let after = &rest[name.len()..];
            let lists = after.starts_with("[@]")
                || after.starts_with("[*]")
                || after.starts_with('*')
                || after.starts_with('@');
            if !lists && !self.is_safe(&name) {
                self.unprovable(format!(
                    "`{raw}` expands the variable named by `{name}`'s value; a name such as `a[$(cmd)]` would run cmd"
                ));
                self.evaluated_value(&name);
            }
        }
    }

    /// `[[ A -eq B ]]` evaluates A and B as arithmetic; `[[ -v a[I] ]]` evaluates I.
    fn test_expression(&mut self, node: Node<'_>, src: &[u8]) {
        if self.depth > MAX_DEPTH {
            self.unprovable("shell commands nested too deeply to analyse");
            return;
        }
        self.depth += 1;
        self.test_expression_inner(node, src);
        self.depth -= 1;
    }

    fn test_expression_inner(&mut self, node: Node<'_>, src: &[u8]) {
        for child in named_children(node) {
            match child.kind() {
                "binary_expression" => {
                    let arithmetic = anonymous_children(child)
                        .into_iter()
                        .chain(named_children(child))
                        .filter(|part| part.kind() == "test_operator")
                        .any(|operator| {
                            matches!(
                                text(operator, src).as_str(),
                                "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge"
                            )
                        });
                    if arithmetic {
                        for side in ["left", "right"] {
                            if let Some(operand) = child.child_by_field_name(side) {
                                self.test_operand(operand, src);
                            }
                        }
                    }
                    self.test_expression(child, src);
                }
                "unary_expression" => {
                    let operator = named_children(child)
                        .into_iter()
                        .find(|part| part.kind() == "test_operator")
                        .map(|operator| text(operator, src))
                        .unwrap_or_default();
                    if operator == "-v" {
                        let operand = text(child, src);
                        if let Some((_, index)) = operand.split_once('[') {
                            self.arithmetic_text(index.trim_end_matches([']', ' ']));
                        }
                    }
                    self.test_expression(child, src);
                }
                "parenthesized_expression" | "negated_expression" => {
                    self.test_expression(child, src)
                }
                _ => {}
            }
        }
    }

    fn test_operand(&mut self, operand: Node<'_>, src: &[u8]) {
        match operand.kind() {
            "number" => {}
            "simple_expansion" | "expansion" | "variable_name" | "word" => {
                let mut names = Vec::new();
                arithmetic_names(operand, src, &mut names);
                for name in names {
                    self.arithmetic_name(&name);
                }
            }
            _ => {
                let raw = text(operand, src);
                if raw
                    .chars()
                    .any(|c| c.is_ascii_alphabetic() || c == '$' || c == '[')
                {
                    self.arithmetic_text(&raw);
                }
            }
        }
    }

    /// Backticks and `$( )` in the text of an unquoted here-document run when the shell reads
    /// it; tree-sitter-bash leaves backticks (and some `$( )`) as plain text there.
    fn heredoc_backticks(&mut self, body: Node<'_>, src: &[u8]) {
        for part in children_with_gaps(body, src) {
            let content = match part {
                Part::Gap(gap) => gap,
                Part::Node(child) if child.kind() == "heredoc_content" => text(child, src),
                Part::Node(_) => continue,
            };
            self.code_in_text(&content);
        }
    }

    /// The literal value of a word node, and what is unknown about it. Also walks the commands
    /// inside it.
    fn word(&mut self, node: Node<'_>, src: &[u8]) -> Word {
        self.substitutions(node, src);
        word_value(node, src)
    }

    fn command(&mut self, node: Node<'_>, extra_redirects: &[Node<'_>], src: &[u8], frame: &Frame) {
        let mut words: Vec<Word> = Vec::new();
        let mut redirects: Vec<Node<'_>> = extra_redirects.to_vec();
        let mut rest_of_line = Vec::new();
        let mut previous_end = node.start_byte();
        let mut split_off: Option<usize> = None;
        for child in named_children(node) {
            // An unescaped newline between two words ends a command in bash. tree-sitter-bash
            // sometimes glues the next line onto a pipeline's last command (its issue #347:
            // `a | b | c⏎rm x`); the words from there on are analysed as the script they are.
            if child.start_byte() > previous_end
                && has_unescaped_newline(&src[previous_end..child.start_byte()])
            {
                split_off = Some(child.start_byte());
                break;
            }
            // It can also swallow the line break into the next word (`ls⏎\rm x` gives the word
            // `⏎rm`): a bare newline inside a word ends the command there too. The word is
            // analysed with the rest, as commands of their own (stricter, never looser).
            if matches!(child.kind(), "word" | "concatenation" | "number")
                && has_bare_newline(&src[child.start_byte()..child.end_byte()])
            {
                split_off = Some(child.start_byte());
                break;
            }
            previous_end = previous_end.max(child.end_byte());
            match child.kind() {
                "variable_assignment" => self.assignment(child, src, /*prefix*/ true),
                "command_name" => {
                    if let Some(inner) = child.named_child(0) {
                        words.push(self.word(inner, src));
                    }
                }
                "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {
                    redirects.push(child)
                }
                "subshell" => self.statement(child, src, frame),
                "comment" => {}
                _ => words.push(self.word(child, src)),
            }
        }
        let name = words
            .first()
            .map(|word| normalise_name(&word.text))
            .unwrap_or_default();
        let mut frame = frame.clone();
        self.empties_output = words_print_nothing(&words);
        let writes_before = self.out.writes.len();
        for redirect in redirects {
            if let Some(stdin) = self.redirect(redirect, src, &name, &mut rest_of_line) {
                frame.stdin = stdin;
            }
        }
        self.empties_output = false;
        if let Some(text) = literal_output(node, src) {
            let paths: Vec<String> = self.out.writes[writes_before..]
                .iter()
                .map(|write| write.path.clone())
                .collect();
            for path in paths {
                self.set_content(&path, Content::Text(text.clone()));
            }
        }
        let body_output = match &frame.stdin {
            Stdin::Literal(text) if words_print(&words) == Some(Prints::Stdin) => {
                Some(text.clone())
            }
            _ => None,
        };
        if name == "let" {
            for word in words.iter().skip(1) {
                // `let x=EXPR`: EXPR (and a subscript of x) is arithmetic.
                let expression = match word.text.split_once('=') {
                    Some((target, value)) if !target.contains('[') => value,
                    _ => word.text.as_str(),
                };
                if word.dynamic {
                    self.arithmetic_text("$");
                } else {
                    self.arithmetic_text(expression);
                }
            }
        }
        let words = expand_argument_braces(words);
        self.simple(words, &frame);
        for rest in rest_of_line {
            self.rest_of_heredoc_line(rest, src, &frame, body_output.clone());
        }
        if let Some(start) = split_off {
            let rest = String::from_utf8_lossy(&src[start..node.end_byte()]).into_owned();
            self.script(&rest, &Frame::default());
        }
    }

    /// A simple command's words: unwrap and record.
    fn simple(&mut self, words: Vec<Word>, frame: &Frame) {
        let Some(first) = words.first() else {
            return;
        };
        if first.dynamic || first.obscured {
            self.unprovable(format!(
                "the command name `{}` is a variable or expansion; what it runs cannot be known before it runs",
                first.text
            ));
            // What it might be, so forbidden and dangerous rules see through `${x:-rm}` and
            // `${PWD:0:0}rm`: these only ever make the decision stricter.
            for candidate in name_candidates(&first.text) {
                let mut guessed = vec![normalise_name(&candidate)];
                guessed.extend(words.iter().skip(1).map(|word| word.text.clone()));
                self.record_command(guessed, frame, None);
            }
        }
        if !first.dynamic && !first.obscured && (first.glob || is_brace_pattern(&first.text)) {
            self.unprovable(format!(
                "the command name `{}` is a pattern the shell expands (glob or braces); what it runs depends on what is there",
                first.text
            ));
            // The words brace expansion gives are analysed as the command they make; a glob is
            // matched against the rules as a pattern (see rules::matches_loosely).
            let expanded = brace_expand(&first.text);
            if expanded.len() > 1 {
                let mut expanded_words: Vec<Word> = expanded
                    .into_iter()
                    .map(|text| Word {
                        text,
                        ..Word::default()
                    })
                    .collect();
                expanded_words.extend(words.iter().skip(1).cloned());
                self.simple(expanded_words, frame);
                return;
            }
        }
        let name = normalise_name(&first.text);
        let mut texts: Vec<String> = Vec::with_capacity(words.len());
        texts.push(name.clone());
        texts.extend(words.iter().skip(1).map(|word| word.text.clone()));
        let args = &words[1..];
        let group = args
            .iter()
            .take(2)
            .position(|word| matches!(word.text.as_str(), "{" | "("));
        if name == "coproc"
            && let Some(open) = group
        {
            // `coproc [NAME] { cmd; }`: tree-sitter-bash reads `coproc`, the name, the brace and
            // the group's first command as one command's words (the rest of the group as the
            // commands they are). That first command is analysed like any other.
            let body: Vec<Word> = args[open + 1..]
                .iter()
                .filter(|word| !matches!(word.text.as_str(), "}" | ")"))
                .cloned()
                .collect();
            let mut inner = frame.clone();
            inner.wrappers.push(texts[..open + 1].to_vec());
            self.simple(body, &inner);
            return;
        }
        if !first.dynamic {
            self.note_file_run(&first.text, &texts, false, frame);
        }
        let verdict = programs::judge(&texts);
        self.program_effects(&name, &words, &texts, frame, &verdict);
        match verdict.shape.clone() {
            Shape::Wrapper { inner_starts, note } => {
                if let Some(note) = note {
                    self.unprovable(format!("`{name}` {note}"));
                }
                let inner_starts = inner_starts + 1;
                if inner_starts >= words.len() {
                    // Nothing wrapped (`sudo -i`, `env`): the wrapper is the command.
                    self.record_command(texts, frame, Some(&verdict));
                    return;
                }
                self.apply_writes(&verdict, frame);
                let mut inner = frame.clone();
                inner.wrappers.push(texts[..inner_starts].to_vec());
                inner.inherited.inherit(&verdict.judged);
                inner.more_args_unknown |= verdict.adds_args;
                let mut inner_words = words[inner_starts..].to_vec();
                mark_replaced(&mut inner_words, verdict.replace.as_deref());
                self.simple(inner_words, &inner);
            }
            Shape::Shell { payload } => {
                self.apply_writes(&verdict, frame);
                let wrapper = texts.clone();
                let mut inner = frame.clone();
                inner.wrappers.push(wrapper);
                inner.inherited.inherit(&verdict.judged);
                inner.stdin = Stdin::Terminal;
                match payload {
                    Payload::Argument(index) => {
                        let Some(word) = words.get(index + 1) else {
                            self.unprovable(format!(
                                "`{name}` is missing the command string it should run"
                            ));
                            self.record_command(texts, frame, Some(&verdict));
                            return;
                        };
                        if word.dynamic || word.obscured {
                            self.unprovable(format!(
                                "`{name}` runs a command string that is built when it runs ({}); it cannot be read here",
                                word.text
                            ));
                        }
                        let payload = word.text.clone();
                        self.script(&payload, &inner);
                    }
                    Payload::Joined(from) => {
                        // Option parsing may point past the end (`watch -n`): nothing to join.
                        let from = from.min(args.len());
                        if args[from..]
                            .iter()
                            .any(|word| word.dynamic || word.obscured)
                        {
                            self.unprovable(format!(
                                "`{name}` runs a command string that is built when it runs"
                            ));
                        }
                        let joined = args_text(&args[from..]).join(" ");
                        if verdict.remote.is_some() {
                            inner.remote = verdict.remote.clone();
                        }
                        self.script(&joined, &inner);
                    }
                    Payload::Stdin => match &frame.stdin {
                        Stdin::Terminal => {
                            // An interactive shell in the terminal: the user sees it.
                            self.record_command(texts.clone(), frame, Some(&verdict));
                        }
                        Stdin::Literal(script) => {
                            let script = script.clone();
                            self.script(&script, &inner);
                        }
                        Stdin::Pipe | Stdin::Dynamic => {
                            self.unprovable(format!(
                                "data is piped into `{name}`, which runs it as commands; what it runs cannot be known here"
                            ));
                            // Still read what is visibly piped in, so forbidden commands in it deny.
                            if let Some(text) = frame.piped_text.clone() {
                                self.script(&text, &inner);
                            }
                        }
                    },
                }
            }
            Shape::Interpreter { inline } => {
                if let Some(flag) = inline {
                    self.unprovable(format!(
                        "`{name} {flag}` runs inline program code, which this analysis cannot read"
                    ));
                } else if matches!(
                    frame.stdin,
                    Stdin::Pipe | Stdin::Dynamic | Stdin::Literal(_)
                ) {
                    self.unprovable(format!(
                        "`{name}` runs a program fed on its standard input, which this analysis cannot read"
                    ));
                }
                self.record_command(texts, frame, Some(&verdict));
            }
            Shape::Unprovable(reason) => {
                self.unprovable(reason);
                self.record_command(texts, frame, Some(&verdict));
            }
            Shape::Eval => {
                self.unprovable(format!(
                    "`{name}` builds a command from text when it runs; it is never allowed without asking"
                ));
                let payload = args_text(args).join(" ");
                let inner = frame.clone();
                self.script(&payload, &inner);
                self.record_command(texts, frame, Some(&verdict));
            }
            Shape::Find { execs } => {
                self.record_command(texts.clone(), frame, Some(&verdict));
                for (start, end) in execs {
                    let mut inner = frame.clone();
                    inner.wrappers.push(texts[..start + 1].to_vec());
                    inner.inherited.inherit(&verdict.judged);
                    inner.more_args_unknown = true;
                    let mut exec_words: Vec<Word> = args[start..end].to_vec();
                    mark_replaced(&mut exec_words, verdict.replace.as_deref());
                    self.simple(exec_words, &inner);
                }
            }
            Shape::Plain => {
                if verdict.changes_folder {
                    self.change_folder(args);
                }
                if let Some(index) = verdict.script_file {
                    let file = &args[index.min(args.len().saturating_sub(1))];
                    if is_generated_file(file) || file.text.starts_with("<(") {
                        self.unprovable(format!(
                            "`{name}` runs `{}`, a script produced while the line runs; it cannot be read here",
                            file.text
                        ));
                    } else {
                        self.note_file_run(&file.text, &texts, verdict.script_is_shell, frame);
                    }
                }
                if let Some(service) = init_script(&first.text, self.cwd_path().as_deref()) {
                    // `/etc/init.d/ssh stop` is `service ssh stop`.
                    let mut as_service = vec!["service".to_owned(), service];
                    as_service.extend(texts.iter().skip(1).cloned());
                    self.record_command(as_service, frame, None);
                }
                self.record_command(texts, frame, Some(&verdict));
            }
        }
    }

    fn change_folder(&mut self, args: &[Word]) {
        let target = args
            .iter()
            .find(|word| word.text == "-" || !word.text.starts_with('-'));
        self.cwd = match (target, &self.cwd) {
            (None, _) => Cwd::Known("~".to_owned()),
            (Some(word), _) if word.dynamic || word.obscured || word.glob || word.text == "-" => {
                Cwd::Unknown
            }
            (Some(word), Cwd::Unknown) if !is_absolute(&word.text) => Cwd::Unknown,
            (Some(word), Cwd::Known(dir)) => Cwd::Known(normalise_path(&word.text, Some(dir))),
            (Some(word), _) => Cwd::Known(normalise_path(&word.text, None)),
        };
    }

    /// The folder relative paths start from, when it is known.
    fn cwd_path(&self) -> Option<String> {
        match &self.cwd {
            Cwd::Known(dir) => Some(dir.clone()),
            Cwd::Start | Cwd::Unknown => None,
        }
    }

    /// What the program's spec found beyond its shape: forms it cannot follow, commands read from
    /// standard input, and commands run through options (each analysed as if typed).
    fn program_effects(
        &mut self,
        name: &str,
        words: &[Word],
        texts: &[String],
        frame: &Frame,
        verdict: &Verdict,
    ) {
        let args = &words[1..];
        for reason in &verdict.unprovable {
            self.unprovable(reason.clone());
        }
        if verdict.reruns_history {
            let reason = format!(
                "`{}` runs earlier command lines again from the shell's history",
                texts.join(" ")
            );
            if !self.out.reruns.contains(&reason) {
                self.out.reruns.push(reason);
            }
        }
        if verdict.commands_on_stdin && !matches!(frame.stdin, Stdin::Terminal) {
            self.unprovable(format!(
                "`{name}` reads commands from its standard input, which this analysis cannot read"
            ));
        }
        for embedded in &verdict.runs {
            let mut inner = frame.clone();
            inner.wrappers.push(texts.to_vec());
            inner.inherited.inherit(&verdict.judged);
            inner.more_args_unknown |= embedded.more_args;
            if embedded.remote.is_some() {
                inner.remote = embedded.remote.clone();
            }
            match &embedded.run {
                Run::Script(script) => {
                    let from_unknown = embedded
                        .source
                        .and_then(|index| args.get(index))
                        .is_some_and(|word| word.dynamic || word.obscured)
                        || is_dynamic_text(script);
                    if from_unknown {
                        self.unprovable(format!(
                            "`{}` runs a command that is only known when it runs",
                            embedded.how
                        ));
                    }
                    // What the program feeds it on standard input is not known here.
                    inner.stdin = Stdin::Pipe;
                    inner.piped_text = None;
                    self.script(script, &inner);
                }
                Run::Args(start, end) => {
                    if let Some(run) = args.get(*start..(*end).min(args.len())) {
                        self.simple(run.to_vec(), &inner);
                    }
                }
            }
        }
    }

    /// Remember a file run as a program or script (checked in [`Self::check_file_runs`]).
    fn note_file_run(&mut self, spelled: &str, words: &[String], as_script: bool, frame: &Frame) {
        let path = if spelled.contains('/') || as_script {
            normalise_path(spelled, self.cwd_path().as_deref())
        } else {
            spelled.to_owned()
        };
        self.file_runs.push(FileRun {
            path,
            words: words.to_vec(),
            as_script,
            frame: frame.clone(),
        });
    }

    fn set_content(&mut self, path: &str, content: Content) {
        if let Some(written) = self.written.iter_mut().find(|written| written.path == path)
            && !written.contents.contains(&content)
        {
            written.contents.push(content);
        }
    }

    /// Files the line runs after writing them (`printf 'rm x' > s.sh; bash s.sh`,
    /// `cp /bin/rm /tmp/d && /tmp/d x`): what they run cannot be proved → ask; what was written
    /// into them, when known, is analysed as the commands it is, so a forbidden one denies.
    fn check_file_runs(&mut self) {
        let runs = std::mem::take(&mut self.file_runs);
        for run in runs {
            let found = self
                .written
                .iter()
                .find(|written| {
                    written.path == run.path
                        || (!run.path.contains('/') && is_on_search_path(&written.path, &run.path))
                })
                .cloned();
            let Some(written) = found else {
                continue;
            };
            self.unprovable(format!(
                "runs `{}`, which this command line writes first; what it will run cannot be checked beforehand",
                run.path
            ));
            let mut frame = run.frame.clone();
            frame.wrappers.push(run.words.clone());
            for content in written.contents {
                match content {
                    Content::Text(text) => self.script(&text, &frame),
                    Content::Program(program) if !run.as_script => {
                        let mut words = vec![program];
                        words.extend(run.words.iter().skip(1).cloned());
                        self.record_command(words, &run.frame, None);
                    }
                    Content::Program(_) => {}
                }
            }
        }
    }

    /// Record a command that runs, with what its spec decided (judged here when not given).
    fn record_command(&mut self, words: Vec<String>, frame: &Frame, verdict: Option<&Verdict>) {
        let judged_here;
        let verdict = match verdict {
            Some(verdict) => verdict,
            None => {
                judged_here = programs::judge(&words);
                &judged_here
            }
        };
        let mut judged = verdict.judged.clone();
        judged.inherit(&frame.inherited);
        let command = SimpleCommand {
            words,
            wrappers: frame.wrappers.clone(),
            more_args_unknown: frame.more_args_unknown,
            remote: frame.remote.clone(),
            judged,
        };
        self.apply_writes(verdict, frame);
        for (folder, how) in &verdict.into_folders {
            // After a literal `cd` the folder is known and its writes were judged by path.
            if self.cwd_path().is_none() {
                self.unprovable(format!(
                    "{how} writes files it does not name into `{folder}`, the terminal's current folder, which kaiport does not know (it may be a home folder or /etc/ssh)"
                ));
            }
        }
        if frame.more_args_unknown {
            // Arguments supplied later (`xargs rm`, `find -exec rm {}`) may name any file.
            let mut with_unknown = command.words.clone();
            with_unknown.push("{}".to_owned());
            let later = programs::judge(&with_unknown);
            self.apply_writes(&later, frame);
        }
        if let Some((targets, folder)) = &verdict.links {
            self.check_link_targets(targets, folder.as_deref());
        }
        // The same command twice (e.g. the wrapper and its payload) is recorded once.
        if !self.out.commands.contains(&command) {
            self.out.commands.push(command);
        }
    }

    /// Record the paths a command writes; for `tee` and copies, what ends up in them.
    fn apply_writes(&mut self, verdict: &Verdict, frame: &Frame) {
        let copied = verdict.copied_from.as_ref();
        let piped = frame.piped_text.clone().filter(|_| verdict.writes_stdin);
        for write in &verdict.writes {
            let dynamic = is_dynamic_text(&write.path);
            let Some(path) =
                self.write_text(&write.path, dynamic, &write.how, write.subtree, write.own)
            else {
                continue;
            };
            if let Some(text) = &piped {
                self.set_content(&path, Content::Text(text.clone()));
            }
            if let Some(source) = copied {
                let source_path = normalise_path(source, self.cwd_path().as_deref());
                // A copy of a file the line wrote holds what was written to it; of any other
                // file, the program it is.
                let contents = self
                    .written
                    .iter()
                    .find(|written| written.path == source_path)
                    .map(|written| written.contents.clone())
                    .filter(|contents| !contents.is_empty())
                    .unwrap_or_else(|| vec![Content::Program(normalise_name(source))]);
                for content in contents {
                    self.set_content(&path, content);
                }
            }
        }
    }

    fn write_word(&mut self, word: &Word, how: &str, subtree: bool) {
        self.write_text(
            &word.text,
            word.dynamic || word.obscured,
            how,
            subtree,
            false,
        );
    }

    /// Record a write; returns the normalised path (`None` for `/dev/null` and the like).
    fn write_text(
        &mut self,
        path: &str,
        dynamic: bool,
        how: &str,
        subtree: bool,
        own: bool,
    ) -> Option<String> {
        if is_harmless_sink(path) {
            return None;
        }
        if dynamic {
            self.unprovable(format!(
                "{how} writes to `{path}`, a path that is only known when it runs"
            ));
        }
        if self.cwd == Cwd::Unknown && !is_absolute(path) {
            self.unprovable(format!(
                "{how} writes to `{path}` in the folder a `cd` in this line moved to, which is only known when it runs"
            ));
        }
        let normalised = normalise_path(path, self.cwd_path().as_deref());
        let write = Write {
            path: normalised.clone(),
            how: how.to_owned(),
            subtree,
            own,
        };
        if !self.out.writes.contains(&write) {
            self.out.writes.push(write);
        }
        if !self.written.iter().any(|w| w.path == normalised) {
            self.written.push(Written {
                path: normalised.clone(),
                contents: Vec::new(),
            });
        }
        Some(normalised)
    }

    /// `ln [-s] TARGET… LINK`: a link to `/`, to a lock-out file or folder, or to a folder that
    /// holds one makes every later write through the link a write there: it asks like the
    /// lock-out change itself.
    fn check_link_targets(&mut self, targets: &[String], link_folder: Option<&str>) {
        for target in targets {
            if is_dynamic_text(target) {
                self.unprovable(format!(
                    "`ln` links to `{target}`, a path only known when it runs"
                ));
                continue;
            }
            // A relative symlink target is read from the folder of the link.
            let base = match &link_folder {
                Some(folder) if !is_absolute(target) => {
                    Some(normalise_path(folder, self.cwd_path().as_deref()))
                }
                _ => self.cwd_path(),
            };
            let mut resolved = normalise_path(target, base.as_deref());
            if resolved == ".." || resolved.starts_with("../") {
                // It climbs out of a folder this analysis does not know: it may reach `/`, so
                // what is left is judged as if it started there.
                let rest = resolved.trim_start_matches("../").trim_start_matches("..");
                resolved = normalise_path(&format!("/{rest}"), None);
            }
            let entry = if resolved == "/" {
                Some("/")
            } else {
                lockout_match(&resolved, /*subtree*/ true)
            };
            if let Some(entry) = entry {
                self.unprovable(format!(
                    "`ln` creates a link to {resolved}: writing through the link changes it, which can lock you out of the server (protected: {entry}); this always asks"
                ));
            }
        }
    }
}

/// Bash removes a backslash-newline (line continuation) before it reads words, also inside a
/// word (`r\⏎m` is `rm`) and inside double quotes; not inside single quotes, and a comment ends
/// at the newline whatever precedes it. tree-sitter-bash splits words there, so the text is
/// joined first.
fn join_continued_lines(source: &str) -> String {
    #[derive(PartialEq)]
    enum State {
        Plain,
        Single,
        AnsiC,
        Double,
        Comment,
    }
    let bytes = source.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut state = State::Plain;
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        let next = bytes.get(index + 1).copied();
        match state {
            State::Plain | State::Double if byte == b'\\' => {
                if next == Some(b'\n') {
                    index += 2;
                    continue;
                }
                out.push(byte);
                out.extend(next);
                index += 2;
                continue;
            }
            State::AnsiC if byte == b'\\' => {
                out.push(byte);
                out.extend(next);
                index += 2;
                continue;
            }
            State::Plain => match byte {
                b'\'' => {
                    state = if out.last() == Some(&b'$') {
                        State::AnsiC
                    } else {
                        State::Single
                    }
                }
                b'"' => state = State::Double,
                b'#' if out.last().is_none_or(|previous| {
                    previous.is_ascii_whitespace() || b";&|()<>".contains(previous)
                }) =>
                {
                    state = State::Comment
                }
                _ => {}
            },
            State::Single | State::AnsiC if byte == b'\'' => state = State::Plain,
            State::Double if byte == b'"' => state = State::Plain,
            State::Comment if byte == b'\n' => state = State::Plain,
            _ => {}
        }
        out.push(byte);
        index += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| source.to_owned())
}

/// A command that prints nothing, so `cmd > file` only empties the file: `:`, `true`, `false`,
/// `cat /dev/null`, `echo -n`, `printf ''` (and no command at all: `> file`).
fn prints_nothing(node: Node<'_>, src: &[u8]) -> bool {
    node.kind() == "command" && words_print_nothing(&command_words(node, src))
}

/// The words of a simple command as written, name first.
fn command_words(node: Node<'_>, src: &[u8]) -> Vec<Word> {
    let name = node
        .child_by_field_name("name")
        .map(|name| normalise_name(&word_value_of_name(name, src)))
        .unwrap_or_default();
    let mut words = vec![Word {
        text: name,
        ..Word::default()
    }];
    words.extend(
        fields(node, "argument")
            .into_iter()
            .map(|argument| word_value(argument, src)),
    );
    words
}

/// What the spec of a command made of these words says it prints (see [`programs::prints`]).
fn words_print(words: &[Word]) -> Option<Prints> {
    let texts: Vec<String> = words.iter().map(|word| word.text.clone()).collect();
    programs::prints(&texts)
}

/// Nothing, or only white space (`echo`, `printf '\n'`): the file it is sent to is emptied.
fn words_print_nothing(words: &[Word]) -> bool {
    match words_print(words) {
        Some(Prints::Nothing) => true,
        Some(Prints::Text(text)) => text.trim().is_empty(),
        Some(Prints::Stdin) | None => false,
    }
}

/// An unquoted `{a,b}` brace expansion in a word (tree-sitter-bash does not always mark it).
fn is_brace_pattern(text: &str) -> bool {
    text.contains(',') && (text.contains('{') || text.ends_with('}'))
}

/// Bash's brace expansion of one word with one `{a,b,…}` group: `{rm,-f,x}` → `rm -f x`,
/// `/bin/{rm,ls}` → `/bin/rm /bin/ls`. A word without a group is itself.
fn brace_expand(text: &str) -> Vec<String> {
    let (prefix, rest) = match text.find('{') {
        Some(open) => (&text[..open], &text[open + 1..]),
        // tree-sitter-bash took the `{` as a group: `rm,-f,x}`.
        None if text.ends_with('}') => ("", text),
        None => return vec![text.to_owned()],
    };
    let Some(close) = rest.find('}') else {
        return vec![text.to_owned()];
    };
    let (inner, suffix) = (&rest[..close], &rest[close + 1..]);
    if !inner.contains(',') {
        return vec![text.to_owned()];
    }
    inner
        .split(',')
        .map(|part| format!("{prefix}{part}{suffix}"))
        .filter(|word| !word.is_empty())
        .collect()
}

/// Special parameters and shell variables whose value is always a plain number.
const SAFE_SPECIALS: &[&str] = &[
    "#",
    "?",
    "$",
    "!",
    "-",
    "RANDOM",
    "SECONDS",
    "LINENO",
    "BASHPID",
    "PPID",
    "UID",
    "EUID",
    "EPOCHSECONDS",
    "SHLVL",
    "HISTCMD",
    "OPTIND",
];

/// The names an arithmetic expression reads: variables, bare words that are names, and the
/// names inside `$x`/`${x}`. Command substitutions are commands, analysed on their own.
fn arithmetic_names(node: Node<'_>, src: &[u8], out: &mut Vec<String>) {
    arithmetic_names_at(node, src, out, 0);
}

fn arithmetic_names_at(node: Node<'_>, src: &[u8], out: &mut Vec<String>, depth: usize) {
    if depth > MAX_DEPTH {
        // Too deep to read: an unknown name, so the expression asks.
        out.push("(an expression nested too deeply)".to_owned());
        return;
    }
    match node.kind() {
        "command_substitution" | "process_substitution" | "number" | "test_operator" => {}
        "variable_name" | "word" | "special_variable_name" => {
            out.extend(identifiers(&text(node, src)));
        }
        "simple_expansion" | "expansion" => {
            let raw = text(node, src);
            let inner = raw
                .trim()
                .trim_start_matches('$')
                .trim_start_matches('{')
                .trim_start_matches('!');
            let name: String = inner
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let name = if name.is_empty() {
                inner.chars().next().map(String::from).unwrap_or_default()
            } else {
                name
            };
            out.push(name);
            for child in named_children(node) {
                if child.kind() != "variable_name" {
                    arithmetic_names_at(child, src, out, depth + 1);
                }
            }
        }
        _ => {
            for child in named_children(node) {
                arithmetic_names_at(child, src, out, depth + 1);
            }
        }
    }
}

/// The names in an arithmetic text (`x+y*2` → x, y); numbers (`0x1f`, `2#101`) are not names.
fn identifiers(expression: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut current = String::new();
    let mut in_number = false;
    for c in expression.chars().chain([' ']) {
        if c.is_ascii_alphanumeric() || c == '_' || (in_number && c == '#') {
            if current.is_empty() {
                in_number = c.is_ascii_digit();
            }
            current.push(c);
        } else {
            if !current.is_empty() && !in_number {
                names.push(std::mem::take(&mut current));
            }
            current.clear();
            in_number = false;
        }
    }
    names
}

/// Bash's brace expansion of the arguments (`cp F{.bak,}` is `cp F.bak F`), so a program's spec
/// sees the words it gets. At most a few hundred words; beyond that the word stays as written.
fn expand_argument_braces(words: Vec<Word>) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::with_capacity(words.len());
    for (index, word) in words.into_iter().enumerate() {
        if index == 0 || !word.braces || !is_brace_pattern(&word.text) {
            out.push(word);
            continue;
        }
        let mut texts = vec![word.text.clone()];
        for _ in 0..8 {
            let next: Vec<String> = texts.iter().flat_map(|text| brace_expand(text)).collect();
            if next == texts || next.len() > 256 {
                break;
            }
            texts = next;
        }
        out.extend(texts.into_iter().map(|text| Word {
            glob: has_unquoted_glob(&text),
            braces: false,
            text,
            ..word.clone()
        }));
    }
    out
}

/// History expansion in an interactive bash (`!!`, `!rm`, `cat !$`, `^old^new`) runs or inserts
/// an earlier command line, which this line does not show. `!` is expanded anywhere but inside
/// single quotes or after a backslash, unless a blank, `=`, `(` or the end follows it.
fn history_expansion(line: &str) -> Option<String> {
    // The terminal's shell reads each line of the text by itself: `^` may start any of them.
    if line.lines().any(|line| line.trim_start().starts_with('^')) {
        return Some(
            "`^old^new` repeats the previous command line with a change (history expansion); what it runs is not in this line"
                .to_owned(),
        );
    }
    let chars: Vec<char> = line.chars().collect();
    let mut single = false;
    let mut double = false;
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        match c {
            '\\' if !single => {
                index += 2;
                continue;
            }
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            // The history comment character: the rest of the line is not expanded.
            '#' if !single
                && !double
                && index
                    .checked_sub(1)
                    .is_none_or(|at| chars[at].is_whitespace()) =>
            {
                while index < chars.len() && chars[index] != '\n' {
                    index += 1;
                }
                continue;
            }
            '!' if !single => {
                let next = chars.get(index + 1).copied();
                let previous = index.checked_sub(1).and_then(|at| chars.get(at)).copied();
                let quiet = match next {
                    None => true,
                    Some(next) => {
                        next.is_whitespace() || matches!(next, '=' | '(') || (double && next == '"')
                    }
                };
                let parameter = matches!(previous, Some('$'))
                    || (previous == Some('{') && index >= 2 && chars[index - 2] == '$');
                if !quiet && !parameter {
                    let word: String = chars[index..]
                        .iter()
                        .take_while(|c| !c.is_whitespace())
                        .collect();
                    return Some(format!(
                        "`{word}` is history expansion in an interactive shell: it runs or inserts an earlier command line, which this line does not show"
                    ));
                }
            }
            _ => {}
        }
        index += 1;
    }
    None
}

/// Words holding text a wrapper replaces with its input when it runs (`xargs -I {}`, `find -exec
/// … {}`) are only known then.
fn mark_replaced(words: &mut [Word], replace: Option<&str>) {
    let Some(replace) = replace.filter(|replace| !replace.is_empty()) else {
        return;
    };
    for word in words.iter_mut() {
        if word.text.contains(replace) {
            word.dynamic = true;
        }
    }
}

/// `/etc/init.d/ssh` (also after `cd /etc/init.d`: `./ssh`): the service it controls.
fn init_script(spelled: &str, cwd: Option<&str>) -> Option<String> {
    if !spelled.contains('/') {
        return None;
    }
    let path = normalise_path(spelled, cwd);
    let (folder, service) = path.rsplit_once('/')?;
    let init_folders = [
        "/etc/init.d",
        "/etc/rc.d",
        "/etc/rc.d/init.d",
        "init.d",
        "rc.d",
    ];
    (init_folders.contains(&folder) || folder.ends_with("/init.d")).then(|| service.to_owned())
}

fn is_absolute(path: &str) -> bool {
    path.starts_with('/')
        || path.starts_with('~')
        || path.starts_with("$HOME")
        || path.starts_with("${HOME}")
}

/// A file written into a folder on the usual search path runs under its bare name.
fn is_on_search_path(written: &str, name: &str) -> bool {
    let Some((folder, base)) = written.rsplit_once('/') else {
        return false;
    };
    let folders = [
        "/usr/local/sbin",
        "/usr/local/bin",
        "/usr/sbin",
        "/usr/bin",
        "/sbin",
        "/bin",
        "~/bin",
        "~/.local/bin",
    ];
    base == name && folders.contains(&folder)
}

/// Names a dynamic command name might have: the literal text without its expansions, and the
/// default values of `${x:-word}`-style expansions.
fn name_candidates(text: &str) -> Vec<String> {
    let mut candidates = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('$') {
        literal.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        if let Some(inner) = after.strip_prefix('{') {
            let end = inner.find('}').unwrap_or(inner.len());
            let body = &inner[..end];
            for operator in [":-", ":=", ":+", "-", "=", "+"] {
                if let Some((_, word)) = body.split_once(operator) {
                    candidates.push(word.to_owned());
                    break;
                }
            }
            rest = inner.get(end + 1..).unwrap_or_default();
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            // `$` before something that is not a name (`$1`, `$é`): skip that one character.
            let end = if end == 0 {
                after.chars().next().map_or(0, char::len_utf8)
            } else {
                end
            };
            rest = &after[end..];
        }
    }
    literal.push_str(rest);
    candidates.push(literal);
    candidates.retain(|candidate| !candidate.is_empty() && !candidate.contains(['$', '`', '(']));
    candidates
}

/// Whether a backtick substitution's text (`` `…` ``) holds a backtick that is not escaped
/// between its first and last one: bash would have ended the substitution there.
fn unescaped_inner_backtick(whole: &str) -> bool {
    let Some(inner) = whole
        .strip_prefix('`')
        .and_then(|rest| rest.strip_suffix('`'))
    else {
        return false;
    };
    let mut escaped = false;
    for c in inner.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '`' => return true,
            _ => {}
        }
    }
    false
}

/// A word's text that still holds an expansion (`$x`, `$(…)`, backticks); `$HOME` is known.
fn is_dynamic_text(text: &str) -> bool {
    let without_home = text.replacen("$HOME", "", 1).replacen("${HOME}", "", 1);
    without_home.contains('$') || without_home.contains('`')
}

/// A newline that ends a command: not escaped by a backslash (line continuation).
fn has_unescaped_newline(gap: &[u8]) -> bool {
    gap.iter()
        .enumerate()
        .any(|(index, byte)| *byte == b'\n' && (index == 0 || gap[index - 1] != b'\\'))
}

/// A newline outside quotes and not escaped: in a word, the shell ends the command there.
fn has_bare_newline(raw: &[u8]) -> bool {
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for &byte in raw {
        match (quote, byte) {
            (_, _) if escaped => escaped = false,
            (None | Some(b'"'), b'\\') => escaped = true,
            (None, b'\'' | b'"') => quote = Some(byte),
            (Some(open), _) if byte == open => quote = None,
            (None, b'\n') => return true,
            _ => {}
        }
    }
    false
}

/// Node kinds that run or contain commands (everything else in a body is a word).
fn is_statement_kind(kind: &str) -> bool {
    matches!(
        kind,
        "program"
            | "list"
            | "compound_statement"
            | "subshell"
            | "do_group"
            | "else_clause"
            | "elif_clause"
            | "if_statement"
            | "while_statement"
            | "negated_command"
            | "case_item"
            | "for_statement"
            | "select_statement"
            | "case_statement"
            | "c_style_for_statement"
            | "pipeline"
            | "redirected_statement"
            | "command"
            | "function_definition"
            | "variable_assignment"
            | "variable_assignments"
            | "declaration_command"
            | "unset_command"
            | "test_command"
            | "ERROR"
            | "arithmetic_expansion"
            | "postfix_expression"
            | "binary_expression"
            | "unary_expression"
            | "parenthesized_expression"
            | "ternary_expression"
    )
}

/// A command that prints its standard input unchanged (`cat` with no arguments).
fn prints_stdin(node: Node<'_>, src: &[u8]) -> bool {
    node.kind() == "command" && words_print(&command_words(node, src)) == Some(Prints::Stdin)
}

fn word_value_of_name(name: Node<'_>, src: &[u8]) -> String {
    name.named_child(0)
        .map(|inner| word_value(inner, src).text)
        .unwrap_or_default()
}

/// The text a pipeline element prints, when it is literal: `echo …`, `printf '…'`, `cat <<EOF`.
fn literal_output(node: Node<'_>, src: &[u8]) -> Option<String> {
    match node.kind() {
        "command" => {
            let words = command_words(node, src);
            if words.iter().any(|word| word.dynamic) {
                return None;
            }
            match words_print(&words)? {
                Prints::Nothing => Some(String::new()),
                Prints::Text(text) => Some(text),
                Prints::Stdin => None,
            }
        }
        "redirected_statement" => {
            let body = node.child_by_field_name("body")?;
            if !prints_stdin(body, src) {
                return None;
            }
            let heredoc = fields(node, "redirect")
                .into_iter()
                .find(|redirect| redirect.kind() == "heredoc_redirect")?;
            named_children(heredoc)
                .into_iter()
                .find(|child| child.kind() == "heredoc_body")
                .map(|body| text(body, src))
        }
        _ => None,
    }
}

/// Files that take output without keeping it anywhere that matters.
fn is_harmless_sink(path: &str) -> bool {
    matches!(
        path,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty"
    ) || path.starts_with("/dev/fd/")
}

/// A file produced while the line runs, or a pipe: `<(…)`, `/dev/stdin`, `/proc/self/fd/…`.
fn is_generated_file(word: &Word) -> bool {
    word.dynamic
        || word.obscured
        || word.text.starts_with("/dev/stdin")
        || word.text.starts_with("/dev/fd/")
        || word.text.starts_with("/proc/")
        || word.text == "-"
}

/// Variables whose change alters what later commands do.
fn dangerous_variable(name: &str) -> Option<&'static str> {
    match name {
        "PATH" => Some("changes which program a command name runs"),
        "PROMPT_COMMAND" | "PS0" | "PS1" | "PS2" | "PS4" => {
            Some("runs commands every time the shell shows a prompt")
        }
        "BASH_ENV" | "ENV" => Some("makes every new shell run a file first"),
        "LD_PRELOAD" | "LD_LIBRARY_PATH" | "LD_AUDIT" => {
            Some("loads other code into every program started")
        }
        "IFS" => Some("changes how the shell splits words"),
        "SHELLOPTS" | "BASHOPTS" | "GLOBIGNORE" | "BASH_FUNC" => {
            Some("changes how the shell reads later commands")
        }
        _ if is_command_variable(name) => Some("changes which program other commands start"),
        "GIT_CONFIG_PARAMETERS"
        | "GIT_CONFIG_COUNT"
        | "GIT_EXEC_PATH"
        | "GIT_DIR"
        | "GIT_CONFIG_GLOBAL"
        | "GIT_CONFIG_SYSTEM"
        | "PERL5OPT"
        | "PERL5LIB"
        | "PYTHONPATH"
        | "PYTHONSTARTUP"
        | "NODE_OPTIONS"
        | "RUBYOPT"
        | "LESSKEY"
        | "LESSKEYIN" => Some("changes what programs load or run"),
        _ if name.starts_with("GIT_CONFIG_KEY_") || name.starts_with("GIT_CONFIG_VALUE_") => {
            Some("sets git settings, which can name programs git runs")
        }
        _ => None,
    }
}

/// Variables whose value is a command that other programs run.
fn is_command_variable(name: &str) -> bool {
    matches!(
        name,
        "EDITOR"
            | "VISUAL"
            | "PAGER"
            | "MANPAGER"
            | "SYSTEMD_PAGER"
            | "GIT_PAGER"
            | "GIT_EDITOR"
            | "GIT_SSH"
            | "GIT_SSH_COMMAND"
            | "GIT_EXTERNAL_DIFF"
            | "GIT_PROXY_COMMAND"
            | "GIT_ASKPASS"
            | "SSH_ASKPASS"
            | "SUDO_ASKPASS"
            | "LESSOPEN"
            | "LESSCLOSE"
            | "LESSEDIT"
            | "BROWSER"
            | "RSYNC_RSH"
    )
}

fn args_text(words: &[Word]) -> Vec<String> {
    words.iter().map(|word| word.text.clone()).collect()
}

pub use super::paths::normalise_name;

fn text(node: Node<'_>, src: &[u8]) -> String {
    node.utf8_text(src).unwrap_or_default().to_owned()
}

fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

fn anonymous_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .filter(|child| !child.is_named())
        .collect()
}

fn fields<'t>(node: Node<'t>, field: &str) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.children_by_field_name(field, &mut cursor).collect()
}

/// The value of a word node with quoting removed.
fn word_value(node: Node<'_>, src: &[u8]) -> Word {
    let raw = text(node, src);
    match node.kind() {
        "word"
        | "number"
        | "extglob_pattern"
        | "regex"
        | "special_variable_name"
        | "variable_name" => Word {
            glob: has_unquoted_glob(&raw),
            braces: is_brace_pattern(&raw),
            text: unescape_unquoted(&raw),
            ..Word::default()
        },
        "raw_string" => Word {
            text: raw
                .strip_prefix('\'')
                .and_then(|r| r.strip_suffix('\''))
                .unwrap_or(&raw)
                .to_owned(),
            ..Word::default()
        },
        "ansi_c_string" => Word {
            text: decode_ansi_c(&raw),
            obscured: raw.contains('\\'),
            ..Word::default()
        },
        "string" | "translated_string" => string_value(node, src),
        "concatenation" => {
            let mut word = Word::default();
            // The unquoted text, with quoted parts as a placeholder: brace groups are unquoted.
            let mut unquoted = String::new();
            for child in children_with_gaps(node, src) {
                match child {
                    Part::Gap(gap) => {
                        unquoted.push_str(&gap);
                        word.text.push_str(&unescape_unquoted(&gap));
                    }
                    Part::Node(child) => {
                        if matches!(child.kind(), "word" | "number" | "brace_expression") {
                            unquoted.push_str(&text(child, src));
                        } else {
                            unquoted.push('Q');
                        }
                        let part = word_value(child, src);
                        word.text.push_str(&part.text);
                        word.dynamic |= part.dynamic;
                        word.obscured |= part.obscured;
                        word.glob |= part.glob;
                        word.braces |= part.braces;
                    }
                }
            }
            word.braces |= is_brace_pattern(&unquoted);
            word
        }
        "simple_expansion" | "expansion" => {
            let trimmed = raw.trim_start();
            if matches!(trimmed, "$HOME" | "${HOME}") {
                // The home folder: paths below it are still known (`$HOME/.ssh` is `~/.ssh`).
                Word {
                    text: "$HOME".to_owned(),
                    ..Word::default()
                }
            } else {
                Word {
                    text: trimmed.to_owned(),
                    dynamic: true,
                    ..Word::default()
                }
            }
        }
        "brace_expression" => Word {
            text: raw,
            glob: true,
            braces: true,
            ..Word::default()
        },
        _ => Word {
            text: raw,
            dynamic: true,
            ..Word::default()
        },
    }
}

enum Part<'t> {
    Gap(String),
    Node(Node<'t>),
}

/// A node's named children with the source text between them.
fn children_with_gaps<'t>(node: Node<'t>, src: &[u8]) -> Vec<Part<'t>> {
    let mut parts = Vec::new();
    let mut position = node.start_byte();
    for child in named_children(node) {
        if child.start_byte() > position {
            let gap = String::from_utf8_lossy(&src[position..child.start_byte()]).into_owned();
            parts.push(Part::Gap(gap));
        }
        parts.push(Part::Node(child));
        position = child.end_byte().max(position);
    }
    if node.end_byte() > position {
        let gap = String::from_utf8_lossy(&src[position..node.end_byte()]).into_owned();
        parts.push(Part::Gap(gap));
    }
    parts
}

fn string_value(node: Node<'_>, src: &[u8]) -> Word {
    let mut word = Word::default();
    let start = node.start_byte();
    let end = node.end_byte();
    // Skip the quotes: `"…"` or `$"…"`.
    let open = src[start..end]
        .iter()
        .position(|b| *b == b'"')
        .map_or(start, |i| start + i + 1);
    let close = if end > open && src[end - 1] == b'"' {
        end - 1
    } else {
        end
    };
    let mut position = open;
    for child in named_children(node) {
        if child.start_byte() < position || child.end_byte() > close {
            continue;
        }
        if child.start_byte() > position {
            word.text
                .push_str(&unescape_double(&src[position..child.start_byte()]));
        }
        match child.kind() {
            "string_content" => word
                .text
                .push_str(&unescape_double(&src[child.start_byte()..child.end_byte()])),
            _ => {
                // The node may start with whitespace that belongs to the string.
                let raw = text(child, src);
                let leading = raw.len() - raw.trim_start().len();
                word.text.push_str(&raw[..leading]);
                let part = word_value(child, src);
                word.text.push_str(&part.text);
                word.dynamic |= part.dynamic;
                word.obscured |= part.obscured;
            }
        }
        position = child.end_byte();
    }
    if close > position {
        word.text.push_str(&unescape_double(&src[position..close]));
    }
    word
}

/// Backslash escapes outside quotes: `\x` is `x`, a backslash-newline disappears.
fn unescape_unquoted(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(escaped) => out.push(escaped),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Inside double quotes only `\$ \` \" \\` and backslash-newline are escapes.
fn unescape_double(raw: &[u8]) -> String {
    let raw = String::from_utf8_lossy(raw);
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(escaped) = chars.next() {
                        out.push(escaped);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn has_unquoted_glob(raw: &str) -> bool {
    let mut escaped = false;
    for c in raw.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if matches!(c, '*' | '?' | '[') {
            return true;
        }
    }
    false
}

/// Up to two more digits of `radix` after `value` (`\x41`, `\101`).
fn read_digits(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    radix: u32,
    mut value: u32,
) -> u32 {
    for _ in 0..2 {
        match chars.peek().and_then(|digit| digit.to_digit(radix)) {
            Some(digit) => {
                value = value * radix + digit;
                chars.next();
            }
            None => break,
        }
    }
    value
}

/// `$'…'`: the common escapes, so `$'\x72m'` is seen as `rm` (and still marked obscured).
fn decode_ansi_c(raw: &str) -> String {
    let inner = raw
        .strip_prefix("$'")
        .and_then(|r| r.strip_suffix('\''))
        .unwrap_or(raw);
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('e' | 'E') => out.push('\u{1b}'),
            Some('x') => out.extend(char::from_u32(read_digits(&mut chars, 16, 0))),
            Some(digit @ '0'..='7') => {
                let first = digit.to_digit(8).unwrap_or(0);
                out.extend(char::from_u32(read_digits(&mut chars, 8, first)));
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}
