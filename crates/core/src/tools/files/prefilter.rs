//! What search_files can ask the server to look for before any file crosses the wire: byte
//! strings ("needles") of which every match of the pattern contains at least one, on one line.
//! A file holding none of them cannot match, so it need not be read; a file holding one is read
//! and searched as usual, so results never depend on the prefilter.
//!
//! This module must never return needles that some match could lack: when in doubt it returns
//! none, and the search reads every file.

use regex_syntax::hir::literal::{ExtractKind, Extractor};

/// Needles shorter than this pick out too many files to be worth a scan.
const MIN_NEEDLE_BYTES: usize = 2;

/// The needles for `pattern` (a regular expression, already escaped when literal) compiled as
/// search_files compiles it, or `None` when it has no usable set.
pub(super) fn needles(pattern: &str, case_insensitive: bool) -> Option<Vec<Vec<u8>>> {
    // The same syntax options as the search's own `regex::bytes` matcher, so the extracted
    // literals (case variants included) are exactly what it can match.
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(false)
        .case_insensitive(case_insensitive)
        .multi_line(true)
        .crlf(true)
        .build()
        .parse(pattern)
        .ok()?;
    // Every match starts with one of the prefixes and ends with one of the suffixes; take the
    // set whose shortest member is longer.
    [ExtractKind::Prefix, ExtractKind::Suffix]
        .into_iter()
        .filter_map(|kind| {
            let seq = Extractor::new().kind(kind).extract(&hir);
            let literals = seq.literals()?;
            let needles: Vec<Vec<u8>> = literals.iter().map(|l| l.as_bytes().to_vec()).collect();
            let shortest = needles.iter().map(Vec::len).min()?;
            // A needle with a line end would let a match span lines, which the server-side scan
            // (line by line) could miss.
            (shortest >= MIN_NEEDLE_BYTES && !needles.iter().any(|n| n.contains(&b'\n')))
                .then_some((shortest, needles))
        })
        .max_by_key(|(shortest, _)| *shortest)
        .map(|(_, needles)| needles)
}

#[cfg(test)]
mod tests {
    use super::needles;

    fn strings(pattern: &str, case_insensitive: bool) -> Option<Vec<String>> {
        let mut found: Vec<String> = needles(pattern, case_insensitive)?
            .into_iter()
            .map(|n| String::from_utf8(n).unwrap())
            .collect();
        found.sort();
        Some(found)
    }

    #[test]
    fn literals_and_alternations_give_their_text() {
        assert_eq!(
            strings("kaiport-needle", false).unwrap(),
            ["kaiport-needle"]
        );
        assert_eq!(strings("error|warn", false).unwrap(), ["error", "warn"]);
        assert_eq!(strings(r"^\s*fn main", false).unwrap(), ["fn main"]);
        assert_eq!(strings(r"fn \w+\(\) \{", false).unwrap(), ["() {"]);
        assert_eq!(
            strings(r"\d+ errors found", false).unwrap(),
            [" errors found"]
        );
    }

    #[test]
    fn case_insensitive_needles_cover_every_case_variant() {
        let found = strings("ok", true).unwrap();
        // Unicode case folding: the Kelvin sign matches `k` too.
        for variant in ["ok", "oK", "Ok", "OK", "o\u{212A}", "O\u{212A}"] {
            assert!(
                found.iter().any(|n| variant.starts_with(n.as_str())),
                "{variant}"
            );
        }
        let long = needles("kaiport-needle", true).unwrap();
        for text in ["KAIPORT-NEEDLE", "kaiport-needle", "KaIpOrT-nEeDlE"] {
            assert!(
                long.iter()
                    .any(|n| text.as_bytes().windows(n.len()).any(|w| w == n)),
                "{text}"
            );
        }
    }

    #[test]
    fn patterns_without_a_usable_needle_give_none() {
        for pattern in [".*", "a", r"\w+", "(?s)foo\nbar", "x*", "[a-z]{3}", "(", ""] {
            assert_eq!(needles(pattern, false), None, "{pattern:?}");
        }
    }
}
