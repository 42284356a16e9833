//! Reading the options a program lists in its `--help` and manual page, shared by the spec test
//! (policy_specs.rs) and the property tests (policy_props.rs).
#![allow(dead_code)]

use std::process::Command;

pub fn installed(program: &str) -> bool {
    if program.starts_with('/') {
        return std::path::Path::new(program).exists();
    }
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|folder| folder.join(program).is_file())
    })
}

/// The text a help command prints (man pages without their overstrike formatting).
pub fn help_text(command: &[&str]) -> String {
    let Some((program, args)) = command.split_first() else {
        return String::new();
    };
    let output = Command::new(program)
        .args(args)
        .env("MANWIDTH", "250")
        .env("COLUMNS", "250")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("LC_ALL", "C.UTF-8")
        .output();
    let Ok(output) = output else {
        return String::new();
    };
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    strip_overstrike(&text)
}

/// `X\bX` (bold) and `_\bX` (underline) as man prints them without a terminal.
pub fn strip_overstrike(text: &str) -> String {
    let mut out: Vec<char> = Vec::with_capacity(text.len());
    for c in text.chars() {
        if c == '\u{8}' {
            out.pop();
        } else {
            out.push(c);
        }
    }
    out.into_iter().collect()
}

/// The option spellings a help text lists: on lines that start with an option, the words before
/// the description (two spaces or a tab) that look like options; `--[no-]x` gives both. And the
/// options of the usage synopsis (`Usage: prog [-abc] [-f FILE] [--foo=X]`, a manual page's
/// SYNOPSIS, bash's `help` line): a bracketed cluster (`[-abc]`) is one option per letter.
/// Manual pages put options at 5 (BSD) or 7 (GNU) columns and examples deeper; help texts put
/// them anywhere up to a tab or two.
pub fn listed_options(text: &str, man: bool) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let deepest = if man { 8 } else { 16 };
    let mut synopsis = false;
    let mut usage = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line[..line.len() - trimmed.len()]
            .chars()
            .fold(0, |column, c| {
                if c == '\t' {
                    column / 8 * 8 + 8
                } else {
                    column + 1
                }
            });
        if man && indent == 0 && !trimmed.is_empty() {
            // A section heading.
            synopsis = trimmed.starts_with("SYNOPSIS");
            continue;
        }
        let lower = trimmed.to_ascii_lowercase();
        let mut words = trimmed.split_whitespace();
        let help_line = matches!(
            (words.next(), words.next()),
            (Some(first), Some(second)) if first.strip_suffix(':') == Some(second)
        );
        if lower.starts_with("usage:") || lower.contains(": usage:") || help_line {
            usage = true;
        } else if trimmed.is_empty() || indent == 0 || trimmed.starts_with('-') {
            usage = false;
        }
        if synopsis || (usage && !trimmed.starts_with('-')) {
            for name in synopsis_options(trimmed) {
                push(&mut found, name);
            }
            continue;
        }
        if !trimmed.starts_with('-') || indent > deepest {
            continue;
        }
        let head = trimmed
            .split("  ")
            .next()
            .unwrap_or_default()
            .split('\t')
            .next()
            .unwrap_or_default();
        for raw in head.split([' ', ',', '|']) {
            let token = raw.trim_start_matches('[');
            let (token, negatable) = match token.split_once("[no-]") {
                Some((dashes, rest)) => (format!("{dashes}{rest}"), true),
                None => (token.to_owned(), false),
            };
            let Some(name) = option_name(&token) else {
                continue;
            };
            if negatable && let Some(long) = name.strip_prefix("--") {
                found.push(format!("--no-{long}"));
            }
            push(&mut found, name);
        }
    }
    found
}

fn push(found: &mut Vec<String>, name: String) {
    if !found.contains(&name) {
        found.push(name);
    }
}

/// The option a word spells (`--color[=WHEN]` → `--color`), if it is one: not a placeholder
/// (`-NUM`, `--OPTION`), a number or a rule of dashes.
fn option_name(token: &str) -> Option<String> {
    let name: String = token
        .chars()
        .enumerate()
        .take_while(|(index, c)| {
            (*index < 2 && *c == '-')
                || c.is_ascii_alphanumeric()
                || matches!(c, '-' | '_' | '.' | '?' | '@')
        })
        .map(|(_, c)| c)
        .collect();
    let name = name.trim_end_matches(['-', '.']).to_owned();
    let body = name.trim_start_matches('-');
    let placeholder = body.len() >= 3
        && body
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-');
    let skip = body.is_empty()
        || placeholder
        || !name.starts_with('-')
        || body.chars().all(|c| c.is_ascii_digit())
        || name.starts_with("---");
    (!skip).then_some(name)
}

/// The options of one synopsis line: in each bracketed group, the first word of each
/// alternative (`[-f FILE]`, `[-h | --help]`, `[-s, --stack]`), a group of one single-dash word
/// with no letter twice being a cluster of one-letter options (`[-abc]`); outside brackets, every word that starts
/// with a dash (`ssh-keygen -l [-v]`).
fn synopsis_options(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut groups: Vec<String> = vec![String::new()];
    let mut closed: Vec<String> = Vec::new();
    for c in line.chars() {
        match c {
            '[' => groups.push(String::new()),
            ']' if groups.len() > 1 => {
                closed.push(groups.pop().unwrap_or_default());
                // The group stands apart from the words around it.
                if let Some(outer) = groups.last_mut() {
                    outer.push(' ');
                }
            }
            _ => {
                if let Some(current) = groups.last_mut() {
                    current.push(c);
                }
            }
        }
    }
    // What was never closed reads as outside brackets.
    let outside = groups.concat();
    for word in outside.split([' ', ',', '|', '\t']) {
        if word.starts_with('-')
            && let Some(name) = option_name(word)
        {
            found.push(name);
        }
    }
    for group in closed {
        let words: Vec<&str> = group
            .split([' ', ',', '|', '\t'])
            .filter(|word| !word.is_empty())
            .collect();
        if let [word] = words.as_slice()
            && let Some(letters) = word.strip_prefix('-')
            && !letters.starts_with('-')
            && letters.len() > 1
            && letters.chars().all(|c| c.is_ascii_alphanumeric())
            // A letter twice is a word with its value (`[-Olevel]`), not a cluster.
            && letters
                .chars()
                .enumerate()
                .all(|(index, c)| !letters[..index].contains(c))
            && option_name(word).is_some()
        {
            found.extend(letters.chars().map(|letter| format!("-{letter}")));
            continue;
        }
        // The first word of each alternative (`|`, `,`) names an option; the rest are values.
        for alternative in group.split(['|', ',']) {
            if let Some(word) = alternative.split_whitespace().next()
                && let Some(name) = option_name(word)
            {
                found.push(name);
            }
        }
    }
    found
}
