//! A conservative, quote-aware split of a shell command line into the simple commands it would
//! run. Whatever this scanner does not model is reported as unprovable, never guessed.

/// One simple command: its words with quoting removed, the command name normalised
/// (`/bin/rm`, `\rm`, `'r'm` → `rm`) and wrappers (`sudo`, `env`, `nohup`, …) unwrapped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    pub words: Vec<String>,
}

impl SimpleCommand {
    pub fn display(&self) -> String {
        self.words.join(" ")
    }
}

/// The result of splitting one command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SplitLine {
    pub commands: Vec<SimpleCommand>,
    /// Why parts of the line could not be proven harmless (substitutions, eval, …).
    pub unprovable: Vec<String>,
}

/// A word as the scanner saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    text: String,
    /// Began with an unquoted `$` (a variable or expansion).
    expansion: bool,
}

const SHELLS: [&str; 7] = ["sh", "bash", "zsh", "dash", "ksh", "fish", "busybox"];
const KEYWORDS: [&str; 10] = [
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!",
];

/// The command name a user means: the last path component, so `/usr/bin/../bin/rm` is `rm`.
pub fn normalise_name(word: &str) -> String {
    word.rsplit('/').next().unwrap_or(word).to_owned()
}

/// Split `line` into simple commands (see the module docs).
pub fn split_command_line(line: &str) -> SplitLine {
    let mut out = SplitLine::default();
    split_into(line, &mut out, 0);
    out
}

/// Nested `bash -c` payloads deeper than this are unprovable.
const MAX_NESTING: usize = 4;

fn split_into(line: &str, out: &mut SplitLine, depth: usize) {
    if depth > MAX_NESTING {
        out.unprovable
            .push("shell commands nested too deeply to analyse".to_owned());
        return;
    }
    let mut previous_separator = String::new();
    let mut chars = line.chars().peekable();
    let mut current = WordBuilder::default();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                current.in_word = true;
                match chars.next() {
                    Some('\n') | None => {}
                    Some(escaped) => current.word.push(escaped),
                }
            }
            '\'' => {
                current.in_word = true;
                for quoted in chars.by_ref() {
                    if quoted == '\'' {
                        break;
                    }
                    current.word.push(quoted);
                }
            }
            '"' => {
                current.in_word = true;
                while let Some(quoted) = chars.next() {
                    match quoted {
                        '"' => break,
                        '\\' => {
                            if let Some(escaped) = chars.next() {
                                current.word.push(escaped);
                            }
                        }
                        '`' => out
                            .unprovable
                            .push("command substitution (backticks)".to_owned()),
                        '$' if chars.peek() == Some(&'(') => {
                            out.unprovable.push("command substitution $(…)".to_owned());
                            current.word.push('$');
                        }
                        other => current.word.push(other),
                    }
                }
            }
            '`' => {
                out.unprovable
                    .push("command substitution (backticks)".to_owned());
                current.in_word = true;
            }
            '$' => {
                if !current.in_word {
                    current.expansion = true;
                }
                current.in_word = true;
                if chars.peek() == Some(&'(') {
                    out.unprovable.push("command substitution $(…)".to_owned());
                }
                current.word.push('$');
            }
            '<' | '>' => {
                if chars.peek() == Some(&'(') {
                    out.unprovable.push("process substitution".to_owned());
                }
                // A redirection: `2>` puts the fd digits in `word` — drop them with the operator.
                if current.in_word && current.word.chars().all(|d| d.is_ascii_digit()) {
                    current.word.clear();
                    current.in_word = false;
                    current.expansion = false;
                } else {
                    current.end_word();
                }
                while matches!(chars.peek(), Some('>') | Some('<') | Some('&') | Some('|')) {
                    chars.next();
                }
                current.pending_redirect = true;
            }
            ';' | '&' | '|' | '\n' | '(' | ')' => {
                current.end_word();
                let mut separator = c.to_string();
                while let Some(&next) = chars.peek() {
                    if matches!(next, '&' | '|' | ';') {
                        separator.push(next);
                        chars.next();
                    } else {
                        break;
                    }
                }
                finish_segment(
                    std::mem::take(&mut current.segment),
                    &previous_separator,
                    out,
                    depth,
                );
                previous_separator = separator;
            }
            c if c.is_whitespace() => current.end_word(),
            '#' if !current.in_word => {
                // A comment runs to the end of the line.
                for skipped in chars.by_ref() {
                    if skipped == '\n' {
                        break;
                    }
                }
                finish_segment(
                    std::mem::take(&mut current.segment),
                    &previous_separator,
                    out,
                    depth,
                );
                previous_separator = "\n".to_owned();
            }
            other => {
                current.in_word = true;
                current.word.push(other);
            }
        }
    }
    current.end_word();
    finish_segment(current.segment, &previous_separator, out, depth);
}

/// The word being scanned and the words of the current simple command.
#[derive(Default)]
struct WordBuilder {
    segment: Vec<Word>,
    word: String,
    in_word: bool,
    expansion: bool,
    /// The next word is a redirection target, not part of the command.
    pending_redirect: bool,
}

impl WordBuilder {
    fn end_word(&mut self) {
        if !self.in_word {
            return;
        }
        let text = std::mem::take(&mut self.word);
        if self.pending_redirect {
            self.pending_redirect = false;
        } else {
            self.segment.push(Word {
                text,
                expansion: self.expansion,
            });
        }
        self.in_word = false;
        self.expansion = false;
    }
}

fn finish_segment(words: Vec<Word>, previous_separator: &str, out: &mut SplitLine, depth: usize) {
    let mut words: &[Word] = &words;
    // Group braces and keywords introduce commands; they are not commands themselves.
    while let Some(first) = words.first() {
        if first.text == "{" || first.text == "}" || KEYWORDS.contains(&first.text.as_str()) {
            words = &words[1..];
        } else {
            break;
        }
    }
    let Some(first) = words.first() else { return };
    if matches!(
        first.text.as_str(),
        "for" | "case" | "select" | "in" | "esac" | ";;"
    ) {
        // Loop headers and case patterns name no command.
        return;
    }
    let words = unwrap_wrappers(words, out, depth);
    let Some(first) = words.first() else { return };
    if first.expansion {
        out.unprovable.push(format!(
            "the command name `{}` is a variable or expansion",
            first.text
        ));
        return;
    }
    let name = normalise_name(&first.text);
    match name.as_str() {
        "eval" => out
            .unprovable
            .push("eval runs text as a command".to_owned()),
        "source" | "." => out
            .unprovable
            .push(format!("`{name}` runs the commands of a file")),
        shell
            if SHELLS.contains(&shell)
                && previous_separator.starts_with('|')
                && command_flag(words).is_none() =>
        {
            out.unprovable
                .push(format!("data piped into `{shell}` runs as commands"));
        }
        _ => {}
    }
    let mut command = SimpleCommand {
        words: words.iter().map(|word| word.text.clone()).collect(),
    };
    if let Some(first) = command.words.first_mut() {
        *first = name;
    }
    out.commands.push(command);
}

/// Skip assignments and wrapper commands to reach the command that really runs. `bash -c`
/// payloads are split recursively.
fn unwrap_wrappers<'w>(mut words: &'w [Word], out: &mut SplitLine, depth: usize) -> &'w [Word] {
    loop {
        let Some(first) = words.first() else {
            return words;
        };
        if !first.expansion && is_assignment(&first.text) {
            words = &words[1..];
            continue;
        }
        let name = normalise_name(&first.text);
        let skip_options = |words: &'w [Word], with_value: &[&str]| -> &'w [Word] {
            let mut index = 1;
            while let Some(word) = words.get(index) {
                if word.text == "--" {
                    index += 1;
                    break;
                }
                if !word.text.starts_with('-') {
                    break;
                }
                index += if with_value.contains(&word.text.as_str()) {
                    2
                } else {
                    1
                };
            }
            &words[index.min(words.len())..]
        };
        words = match name.as_str() {
            "sudo" | "doas" => skip_options(
                words,
                &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"],
            ),
            "env" => {
                let rest = skip_options(words, &["-u", "-C", "-S"]);
                let assignments = rest
                    .iter()
                    .take_while(|word| is_assignment(&word.text))
                    .count();
                &rest[assignments..]
            }
            "nice" => skip_options(words, &["-n"]),
            "nohup" | "time" | "command" | "builtin" | "exec" | "setsid" | "stdbuf" => {
                skip_options(words, &[])
            }
            "timeout" => {
                let rest = skip_options(words, &["-s", "-k", "--signal", "--kill-after"]);
                rest.get(1..).unwrap_or(&[])
            }
            "xargs" => skip_options(
                words,
                &["-I", "-i", "-n", "-P", "-d", "-E", "-L", "-s", "-a"],
            ),
            shell if SHELLS.contains(&shell) => {
                if let Some(index) = command_flag(words) {
                    match words.get(index + 1) {
                        Some(payload) if !payload.expansion && !payload.text.contains('$') => {
                            split_into(&payload.text, out, depth + 1);
                        }
                        Some(payload) => out.unprovable.push(format!(
                            "`{shell} -c` runs `{}`, which is only known at run time",
                            payload.text
                        )),
                        None => out
                            .unprovable
                            .push(format!("`{shell} -c` without a command")),
                    }
                }
                return words;
            }
            _ => return words,
        };
    }
}

/// The index of a shell's `-c` flag (alone or in a cluster like `-lc`), if it has one.
fn command_flag(words: &[Word]) -> Option<usize> {
    words.iter().position(|word| {
        word.text == "-c"
            || (word.text.starts_with('-')
                && !word.text.starts_with("--")
                && word.text.contains('c'))
    })
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn names(line: &str) -> Vec<String> {
        split_command_line(line)
            .commands
            .into_iter()
            .map(|command| command.display())
            .collect()
    }

    #[test]
    fn splits_compound_lines_and_unwraps() {
        assert_eq!(
            names("ls -la; echo hi && cat x | grep y"),
            vec!["ls -la", "echo hi", "cat x", "grep y"]
        );
        assert_eq!(
            names("sudo -u root /usr/bin/systemctl restart nginx"),
            vec!["systemctl restart nginx"]
        );
        assert_eq!(
            names("FOO=1 env -i BAR=2 nohup nice -n 5 \\rm -rf x"),
            vec!["rm -rf x"]
        );
        assert_eq!(
            names("bash -c 'rm -rf /; ls'"),
            vec!["rm -rf /", "ls", "bash -c rm -rf /; ls"]
        );
        assert_eq!(names("echo hi > /tmp/out 2>&1"), vec!["echo hi"]);
        assert_eq!(
            names("grep -r \"rm -rf\" /var/log # rm"),
            vec!["grep -r rm -rf /var/log"]
        );
        assert_eq!(names("if true; then r\"\"m x; fi"), vec!["true", "rm x"]);
        assert_eq!(names("timeout 5 rm x"), vec!["rm x"]);
    }

    #[test]
    fn reports_what_it_cannot_prove() {
        assert!(!split_command_line("echo $(rm x)").unprovable.is_empty());
        assert!(!split_command_line("$X").unprovable.is_empty());
        assert!(!split_command_line("curl x | sh").unprovable.is_empty());
        assert!(!split_command_line("eval foo").unprovable.is_empty());
        assert!(
            split_command_line("echo $HOME; ls \"$PWD\"")
                .unprovable
                .is_empty()
        );
    }
}
