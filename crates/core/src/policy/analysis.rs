//! What a shell command line would run, found with tree-sitter-bash: every simple command
//! through lists, pipelines, subshells, groups, `if`/`for`/`while`/`case`, functions, command and
//! process substitutions and here-documents fed to a shell; wrappers (`sudo`, `env`, `xargs`,
//! `bash -c`, `find -exec`, `ssh host 'cmd'`, …) unwrapped to the command they run; quoting and
//! path spellings (`\rm`, `'r'm`, `r""m`, `/usr/bin/../bin/rm`) normalised; and the files the
//! line writes (redirections, `tee`, `dd of=`, `sed -i`, `cp`/`mv`/`ln` targets, …).
//!
//! Entry point: [`analyse`] → [`Analysis`]. The rules in [`super::rules`] judge the result.
//!
//! This module must never guess: whatever it cannot read statically (a variable as command name,
//! `eval`, data piped into a shell or interpreter, inline interpreter code, a parse error, a
//! write to a path it cannot resolve) becomes an entry in [`Analysis::unprovable`], which the
//! policy always asks about. Words inside quotes are data, never commands.

use super::paths::normalise_path;
use super::unwrap::{Payload, Shape, classify, writes_of};
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
}

/// Everything the analysis found in one command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    pub commands: Vec<SimpleCommand>,
    pub writes: Vec<Write>,
    /// What could not be proven (each a sentence for the user and the model).
    pub unprovable: Vec<String>,
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

/// Time one whole analysis may spend parsing; past it the line is unprovable (asks).
const PARSE_BUDGET: Duration = Duration::from_millis(100);

fn parse(source: &str, deadline: Instant) -> Option<tree_sitter::Tree> {
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
        let mut past_deadline = |_: &tree_sitter::ParseState| Instant::now() > deadline;
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut past_deadline);
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
        cwd: None,
        deadline: Instant::now() + PARSE_BUDGET,
    };
    walker.script(line, &Frame::default());
    walker.out
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
}

struct Walker {
    out: Analysis,
    depth: usize,
    payloads: usize,
    /// The folder relative paths start from, after a literal `cd` in this line.
    cwd: Option<String>,
    /// When parsing must stop (see [`PARSE_BUDGET`]).
    deadline: Instant,
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
        // A final newline: bash runs the line on Enter anyway, and without it tree-sitter-bash
        // needs ~20x longer on pipelines of three or more commands (work at end of input).
        let mut text = String::with_capacity(source.len() + 1);
        text.push_str(source);
        if !source.ends_with('\n') {
            text.push('\n');
        }
        let source = text.as_str();
        let Some(tree) = parse(source, self.deadline) else {
            self.unprovable("the command line is too complex to analyse in time");
            return;
        };
        let root = tree.root_node();
        if root.has_error() {
            self.unprovable(
                "the shell syntax could not be parsed completely (unbalanced quotes, brackets or keywords)",
            );
        }
        self.statement(root, source.as_bytes(), frame);
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
            "program" | "list" | "compound_statement" | "subshell" | "do_group" | "else_clause"
            | "elif_clause" | "if_statement" | "while_statement" | "negated_command"
            | "case_item" => self.children(node, src, frame),
            "for_statement" | "select_statement" | "case_statement" | "c_style_for_statement" => {
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
                    self.statement(child, src, &inner);
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
            // `((i++))`, `[[ … ]]`, `unset`: no command runs, except substitutions inside.
            "unset_command"
            | "test_command"
            | "comment"
            | "heredoc_body"
            | "heredoc_start"
            | "heredoc_end"
            | "arithmetic_expansion"
            | "postfix_expression"
            | "binary_expression"
            | "unary_expression"
            | "parenthesized_expression"
            | "ternary_expression"
            | "number" => self.substitutions(node, src),
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
        let mut inner = frame.clone();
        let mut rest_of_line: Vec<Node<'_>> = Vec::new();
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
        if let Some(body) = node.child_by_field_name("body") {
            if body.kind() == "command" {
                self.command(body, &[], src, &inner);
            } else {
                self.statement(body, src, &inner);
            }
        }
        let body_output = match (&inner.stdin, node.child_by_field_name("body")) {
            (Stdin::Literal(text), Some(body)) if is_plain_cat(body, src) => Some(text.clone()),
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
                        });
                        if !quoted_delimiter {
                            self.substitutions(body, src);
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
        let name = node
            .child_by_field_name("name")
            .map(|name| text(name, src))
            .unwrap_or_default();
        if let Some(value) = node.child_by_field_name("value") {
            self.substitutions(value, src);
        }
        let name = name.split('[').next().unwrap_or_default().to_owned();
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
        for child in named_children(node) {
            match child.kind() {
                "variable_assignment" => self.assignment(child, src, false),
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
                self.depth += 1;
                for child in named_children(node) {
                    if child.kind() == "file_redirect" {
                        self.redirect(child, src, "", &mut Vec::new());
                    } else {
                        self.statement(child, src, &Frame::default());
                    }
                }
                self.depth -= 1;
            }
            _ => {
                self.depth += 1;
                for child in named_children(node) {
                    self.substitutions(child, src);
                }
                self.depth -= 1;
            }
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
        for redirect in redirects {
            if let Some(stdin) = self.redirect(redirect, src, &name, &mut rest_of_line) {
                frame.stdin = stdin;
            }
        }
        let body_output = match &frame.stdin {
            Stdin::Literal(text) if name == "cat" && words.len() == 1 => Some(text.clone()),
            _ => None,
        };
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
                self.record_command(guessed, frame);
            }
        }
        let name = normalise_name(&first.text);
        let mut texts: Vec<String> = Vec::with_capacity(words.len());
        texts.push(name.clone());
        texts.extend(words.iter().skip(1).map(|word| word.text.clone()));
        let args = &words[1..];
        match classify(&name, args_text(args).as_slice()) {
            Shape::Wrapper { inner_starts, note } => {
                if let Some(note) = note {
                    self.unprovable(format!("`{name}` {note}"));
                }
                let inner_starts = inner_starts + 1;
                if inner_starts >= words.len() {
                    // Nothing wrapped (`sudo -i`, `env`): the wrapper is the command.
                    self.record_command(texts, frame);
                    return;
                }
                let mut inner = frame.clone();
                inner.wrappers.push(texts[..inner_starts].to_vec());
                if name == "xargs" {
                    inner.more_args_unknown = true;
                }
                self.simple(words[inner_starts..].to_vec(), &inner);
            }
            Shape::Shell { payload } => {
                let wrapper = texts.clone();
                let mut inner = frame.clone();
                inner.wrappers.push(wrapper);
                inner.stdin = Stdin::Terminal;
                match payload {
                    Payload::Argument(index) => {
                        let Some(word) = words.get(index + 1) else {
                            self.unprovable(format!(
                                "`{name}` is missing the command string it should run"
                            ));
                            self.record_command(texts, frame);
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
                        if name == "ssh" {
                            inner.remote = args_text(args).get(from.saturating_sub(1)).cloned();
                        }
                        self.script(&joined, &inner);
                    }
                    Payload::Stdin => match &frame.stdin {
                        Stdin::Terminal => {
                            // An interactive shell in the terminal: the user sees it.
                            self.record_command(texts.clone(), frame);
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
                self.record_command(texts, frame);
            }
            Shape::Unprovable(reason) => {
                self.unprovable(reason);
                self.record_command(texts, frame);
            }
            Shape::Eval => {
                self.unprovable(format!(
                    "`{name}` builds a command from text when it runs; it is never allowed without asking"
                ));
                let payload = args_text(args).join(" ");
                let inner = frame.clone();
                self.script(&payload, &inner);
                self.record_command(texts, frame);
            }
            Shape::Find { execs } => {
                self.record_command(texts.clone(), frame);
                for (start, end) in execs {
                    let mut inner = frame.clone();
                    inner.wrappers.push(texts[..start + 1].to_vec());
                    inner.more_args_unknown = true;
                    let exec_words: Vec<Word> = args[start..end].to_vec();
                    self.simple(exec_words, &inner);
                }
            }
            Shape::Plain => {
                if name == "cd" || name == "pushd" {
                    self.change_folder(args);
                }
                if matches!(name.as_str(), "source" | ".")
                    && let Some(file) = args.first()
                    && is_generated_file(file)
                {
                    self.unprovable(format!(
                        "`{name}` runs commands from `{}`, which is generated when it runs",
                        file.text
                    ));
                }
                if matches!(name.as_str(), "source" | ".") && args.is_empty() {
                    self.unprovable(format!("`{name}` without a file"));
                }
                self.record_command(texts, frame);
            }
        }
    }

    fn change_folder(&mut self, args: &[Word]) {
        let target = args.iter().find(|word| !word.text.starts_with('-'));
        self.cwd = match target {
            None => Some("~".to_owned()),
            Some(word) if word.dynamic || word.glob || word.text == "-" => None,
            Some(word) => Some(normalise_path(&word.text, self.cwd.as_deref())),
        };
    }

    fn record_command(&mut self, words: Vec<String>, frame: &Frame) {
        let command = SimpleCommand {
            words,
            wrappers: frame.wrappers.clone(),
            more_args_unknown: frame.more_args_unknown,
            remote: frame.remote.clone(),
        };
        // Arguments supplied later (`xargs rm`, `find -exec rm {}`) may name any file.
        let mut with_unknown = command.clone();
        if frame.more_args_unknown {
            with_unknown.words.push("{}".to_owned());
        }
        for write in writes_of(&with_unknown) {
            let dynamic = is_dynamic_text(&write.path);
            self.write_text(&write.path, dynamic, &write.how, write.subtree);
        }
        // The same command twice (e.g. the wrapper and its payload) is recorded once.
        if !self.out.commands.contains(&command) {
            self.out.commands.push(command);
        }
    }

    fn write_word(&mut self, word: &Word, how: &str, subtree: bool) {
        self.write_text(&word.text, word.dynamic || word.obscured, how, subtree);
    }

    fn write_text(&mut self, path: &str, dynamic: bool, how: &str, subtree: bool) {
        if is_harmless_sink(path) {
            return;
        }
        if dynamic {
            self.unprovable(format!(
                "{how} writes to `{path}`, a path that is only known when it runs"
            ));
        }
        let write = Write {
            path: normalise_path(path, self.cwd.as_deref()),
            how: how.to_owned(),
            subtree,
        };
        if !self.out.writes.contains(&write) {
            self.out.writes.push(write);
        }
    }
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

/// `cat` with no arguments (it prints its standard input).
fn is_plain_cat(node: Node<'_>, src: &[u8]) -> bool {
    node.kind() == "command"
        && named_children(node).len() == 1
        && node
            .child_by_field_name("name")
            .is_some_and(|name| normalise_name(&word_value_of_name(name, src)) == "cat")
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
            let name = node.child_by_field_name("name")?;
            let name = normalise_name(&word_value_of_name(name, src));
            let words: Vec<Word> = fields(node, "argument")
                .into_iter()
                .map(|argument| word_value(argument, src))
                .collect();
            if words.iter().any(|word| word.dynamic) {
                return None;
            }
            let texts: Vec<String> = words
                .into_iter()
                .map(|word| word.text)
                .filter(|text| !text.starts_with('-'))
                .collect();
            match name.as_str() {
                "echo" => Some(texts.join(" ")),
                "printf" => texts.first().map(|format| format.replace("\\n", "\n")),
                _ => None,
            }
        }
        "redirected_statement" => {
            let body = node.child_by_field_name("body")?;
            if !is_plain_cat(body, src) {
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
        "EDITOR" | "VISUAL" | "PAGER" | "GIT_SSH_COMMAND" | "GIT_PAGER" | "SUDO_ASKPASS" => {
            Some("changes which program other commands start")
        }
        _ => None,
    }
}

fn args_text(words: &[Word]) -> Vec<String> {
    words.iter().map(|word| word.text.clone()).collect()
}

/// The command name a user means: the last path component, so `/usr/bin/../bin/rm` is `rm`.
pub fn normalise_name(word: &str) -> String {
    let trimmed = word.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_owned()
}

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
            for child in children_with_gaps(node, src) {
                match child {
                    Part::Gap(gap) => word.text.push_str(&unescape_unquoted(&gap)),
                    Part::Node(child) => {
                        let part = word_value(child, src);
                        word.text.push_str(&part.text);
                        word.dynamic |= part.dynamic;
                        word.obscured |= part.obscured;
                        word.glob |= part.glob;
                    }
                }
            }
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
