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
/// the description (two spaces or a tab) that look like options; `--[no-]x` gives both.
/// Manual pages put options at 5 (BSD) or 7 (GNU) columns and examples deeper; help texts put
/// them anywhere up to a tab or two.
pub fn listed_options(text: &str, man: bool) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let deepest = if man { 8 } else { 16 };
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
            // `-NUM`, `--OPTION`: placeholders, not options.
            let placeholder = body.len() >= 3
                && body
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-');
            if body.is_empty()
                || placeholder
                || !name.starts_with('-')
                || body.chars().all(|c| c.is_ascii_digit())
                || name.starts_with("---")
            {
                continue;
            }
            if negatable && let Some(long) = name.strip_prefix("--") {
                found.push(format!("--no-{long}"));
            }
            if !found.contains(&name) {
                found.push(name);
            }
        }
    }
    found
}
