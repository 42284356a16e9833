//! Text helpers of the views: quoting a parameter as one shell word, cleaning what the server
//! printed, and the summary the model gets.

/// `word` as one single-quoted sh word: the shell reads every byte of it as data (quotes,
/// `$(…)`, backticks, newlines, escapes included).
pub fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// `text` without escape sequences (CSI, OSC, DCS, …) and without control characters other than
/// tab, so a server's output can never drive a terminal or a UI it is shown in. Bidirectional
/// overrides go too: they can make a shown line read differently from what it is. Invalid UTF-8
/// becomes U+FFFD. Newlines are kept only when `keep_newlines`.
pub fn clean(text: &str, keep_newlines: bool) -> String {
    let mut cleaner = Cleaner {
        out: String::with_capacity(text.len()),
        keep_newlines,
    };
    let mut parser = vte::Parser::new();
    parser.advance(&mut cleaner, text.as_bytes());
    cleaner.out
}

/// [`clean`] of one line (newlines become spaces).
pub fn clean_line(text: &str) -> String {
    clean(text, false)
}

struct Cleaner {
    out: String,
    keep_newlines: bool,
}

fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

impl vte::Perform for Cleaner {
    fn print(&mut self, c: char) {
        if !is_hidden(c) {
            self.out.push(c);
        }
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\t' => self.out.push('\t'),
            b'\n' if self.keep_newlines => self.out.push('\n'),
            b'\n' => self.out.push(' '),
            _ => {}
        }
    }
}

/// Most bytes of the summary the model gets.
pub const MAX_SUMMARY_BYTES: usize = 2048;

/// The model's summary of a view: lines in order of importance, cut at [`MAX_SUMMARY_BYTES`]
/// with a marker, the closing line (what is missing) always kept.
#[derive(Debug, Default)]
pub struct Summary {
    lines: Vec<String>,
    closing: Vec<String>,
}

impl Summary {
    pub fn line(&mut self, line: impl Into<String>) {
        self.lines.push(line.into());
    }

    /// A line that stays however long the rest is (what the view could not see).
    pub fn closing(&mut self, line: impl Into<String>) {
        self.closing.push(line.into());
    }

    pub fn finish(self) -> String {
        let marker = "[… more in the view shown to the user]";
        let closing = self.closing.join("\n");
        let budget = MAX_SUMMARY_BYTES
            .saturating_sub(closing.len() + marker.len() + 2)
            .max(MAX_SUMMARY_BYTES / 2);
        let mut text = String::new();
        let mut cut = false;
        for line in &self.lines {
            let line = shorten(line, MAX_SUMMARY_BYTES / 4);
            if text.len() + line.len() + 1 > budget {
                cut = true;
                break;
            }
            text.push_str(&line);
            text.push('\n');
        }
        if cut {
            text.push_str(marker);
            text.push('\n');
        }
        text.push_str(&closing);
        let text = text.trim_end().to_owned();
        shorten(&text, MAX_SUMMARY_BYTES)
    }
}

/// `text` cut to at most `max` bytes at a char boundary, with `…` when cut.
pub fn shorten(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

pub use crate::output::human_bytes;

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn quoting_keeps_every_byte_data() {
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(
            quote("x'$(id)'\n`y`"),
            r"'x'\''$(id)'\''
`y`'"
        );
    }

    #[test]
    fn cleaning_drops_escapes_and_controls() {
        assert_eq!(
            clean_line("\u{1b}[31mred\u{1b}[0m \u{1b}]0;title\u{7}ok\u{7}\r\u{8}\u{202e}x"),
            "red okx"
        );
        assert_eq!(clean("a\nb\tc\u{9b}2J", true), "a\nb\tc2J");
        assert_eq!(clean_line("a\nb"), "a b");
    }

    #[test]
    fn summaries_stay_within_their_budget_and_keep_the_closing_line() {
        let mut summary = Summary::default();
        for index in 0..500 {
            summary.line(format!("row {index} with some text"));
        }
        summary.closing("Missing: something");
        let text = summary.finish();
        assert!(text.len() <= MAX_SUMMARY_BYTES, "{}", text.len());
        assert!(text.starts_with("row 0 "));
        assert!(text.ends_with("[… more in the view shown to the user]\nMissing: something"));
        assert_eq!(shorten("ééé", 4), "…");
        assert_eq!(human_bytes(1536), "1.5 KB");
    }
}
