//! Shortening text for the model: keep the head and the tail, with a marker line in between that
//! says how much was left out. The terminal itself always shows everything; this only shapes
//! what the model is given.

use kaiport_protocol::tools::Truncation;

/// Limits for text given to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextLimits {
    pub max_bytes: usize,
    pub max_lines: usize,
}

/// `text` within `limits`: unchanged when it fits; otherwise its first and last parts (about
/// half the budget each, cut at line boundaries where possible and always at char boundaries)
/// joined by a marker line.
pub fn cap_text(text: &str, limits: TextLimits) -> (String, Option<Truncation>) {
    cap_text_around(text, limits, None)
}

/// The line a capture puts where it dropped the middle of a huge output (see `terminal`).
pub const GAP_NOTE: &str = "[… output not kept by the terminal …]";

/// [`cap_text`] of a text whose middle was already dropped (`gap`: how much), marked by a
/// [`GAP_NOTE`] line: the one marker line the result gets counts both.
pub fn cap_text_around(
    text: &str,
    limits: TextLimits,
    gap: Option<Truncation>,
) -> (String, Option<Truncation>) {
    let (text, gap) = match gap {
        Some(gap) => match text.find(GAP_NOTE) {
            Some(at) => {
                // The note line goes; its place is the marker's.
                let end = at + GAP_NOTE.len();
                let end = end + usize::from(text[end..].starts_with('\n'));
                (
                    std::borrow::Cow::Owned(format!("{}{}", &text[..at], &text[end..])),
                    gap,
                )
            }
            None => (std::borrow::Cow::Borrowed(text), gap),
        },
        None => (
            std::borrow::Cow::Borrowed(text),
            Truncation {
                omitted_bytes: 0,
                omitted_lines: 0,
            },
        ),
    };
    let text = text.as_ref();
    let total_lines = count_lines(text);
    let no_gap = gap.omitted_bytes == 0;
    if text.len() <= limits.max_bytes && total_lines <= limits.max_lines && no_gap {
        return (text.to_owned(), None);
    }
    // Reserve room for the marker so the result stays within max_bytes.
    let byte_budget = limits.max_bytes.saturating_sub(MARKER_RESERVE);
    let line_budget = limits.max_lines.saturating_sub(1).max(2);
    let head_bytes = byte_budget / 2;
    let tail_bytes = byte_budget - head_bytes;
    let head_lines = line_budget / 2;
    let tail_lines = line_budget - head_lines;

    let head_end = head_end(text, head_bytes, head_lines);
    let tail_start = tail_start(text, tail_bytes, tail_lines).max(head_end);
    let head = &text[..head_end];
    let tail = &text[tail_start..];
    let omitted = &text[head_end..tail_start];
    let truncation = Truncation {
        omitted_bytes: omitted.len() as u64 + gap.omitted_bytes,
        omitted_lines: total_lines.saturating_sub(count_lines(head) + count_lines(tail)) as u64
            + gap.omitted_lines,
    };
    let mut capped = String::with_capacity(head.len() + tail.len() + MARKER_RESERVE);
    capped.push_str(head);
    if !head.is_empty() && !head.ends_with('\n') {
        capped.push('\n');
    }
    capped.push_str(&format!(
        "[… {} lines ({} bytes) left out …]\n",
        truncation.omitted_lines, truncation.omitted_bytes
    ));
    capped.push_str(tail);
    (capped, Some(truncation))
}

const MARKER_RESERVE: usize = 64;

fn count_lines(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let newlines = memchr_count(text.as_bytes());
    if text.ends_with('\n') {
        newlines
    } else {
        newlines + 1
    }
}

fn memchr_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&byte| byte == b'\n').count()
}

/// End of the head: at most `max_bytes` bytes and `max_lines` lines, preferring a line boundary.
fn head_end(text: &str, max_bytes: usize, max_lines: usize) -> usize {
    let mut end = 0;
    for (lines, (index, _)) in text.match_indices('\n').enumerate() {
        if lines >= max_lines || index + 1 > max_bytes {
            break;
        }
        end = index + 1;
    }
    if end == 0 {
        // No whole line fits: cut inside the first line.
        end = floor_char_boundary(text, max_bytes.min(text.len()));
    }
    end
}

/// Start of the tail: at most `max_bytes` bytes and `max_lines` lines, preferring a line start.
fn tail_start(text: &str, max_bytes: usize, max_lines: usize) -> usize {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut start = text.len();
    for (lines, (index, _)) in body.rmatch_indices('\n').enumerate() {
        if lines + 1 > max_lines || text.len() - (index + 1) > max_bytes {
            break;
        }
        start = index + 1;
    }
    if start == text.len() {
        let wanted = text.len().saturating_sub(max_bytes);
        start = ceil_char_boundary(text, wanted);
    }
    start
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    while index > 0 && !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

fn ceil_char_boundary(text: &str, mut index: usize) -> usize {
    while index < text.len() && !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

/// `bytes` rounded for reading: `512 bytes`, `1.5 KB`, `2.0 GB` (powers of 1024).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    const LIMITS: TextLimits = TextLimits {
        max_bytes: 16 * 1024,
        max_lines: 400,
    };

    #[test]
    fn a_gap_the_terminal_dropped_counts_in_the_one_marker() {
        // 600 lines kept around a gap of 5,000,000 lines the terminal did not keep.
        let head: String = (1..=300).map(|n| format!("{n}\n")).collect();
        let tail: String = (5_000_301..=5_000_600).map(|n| format!("{n}\n")).collect();
        let text = format!("{head}{GAP_NOTE}\n{tail}");
        let gap = Truncation {
            omitted_bytes: 38_888_890,
            omitted_lines: 5_000_000,
        };
        let (capped, truncation) = cap_text_around(&text, LIMITS, Some(gap));
        let truncation = truncation.unwrap();
        assert!(!capped.contains(GAP_NOTE), "{capped}");
        let kept = capped
            .lines()
            .filter(|line| !line.starts_with("[…"))
            .count() as u64;
        // Every line of the output is either kept or counted as left out.
        assert_eq!(kept + truncation.omitted_lines, 5_000_600);
        assert!(capped.contains(&format!("[… {} lines", truncation.omitted_lines)));
        assert!(truncation.omitted_bytes > gap.omitted_bytes);
    }

    #[test]
    fn short_text_is_unchanged() {
        assert_eq!(cap_text("a\nb\n", LIMITS), ("a\nb\n".to_owned(), None));
    }

    #[test]
    fn many_lines_keep_head_and_tail_with_counts() {
        let text: String = (1..=1000).map(|n| format!("{n}\n")).collect();
        let (capped, truncation) = cap_text(&text, LIMITS);
        let truncation = truncation.unwrap();
        assert!(capped.starts_with("1\n2\n"));
        assert!(capped.ends_with("999\n1000\n"));
        assert!(capped.lines().count() <= 400);
        let kept = capped
            .lines()
            .filter(|line| !line.starts_with("[…"))
            .count() as u64;
        assert_eq!(kept + truncation.omitted_lines, 1000);
        assert!(capped.contains(&format!("[… {} lines", truncation.omitted_lines)));
    }

    #[test]
    fn many_bytes_stay_within_the_byte_limit_and_char_boundaries() {
        let text = "é".repeat(50_000);
        let (capped, truncation) = cap_text(&text, LIMITS);
        assert!(capped.len() <= LIMITS.max_bytes);
        let truncation = truncation.unwrap();
        assert_eq!(truncation.omitted_lines, 0);
        let kept = capped.replace(|c: char| c != 'é', "").len();
        assert_eq!(kept as u64 + truncation.omitted_bytes, text.len() as u64);
    }

    #[test]
    fn long_lines_are_bounded_by_bytes() {
        let text: String = (0..100)
            .map(|n| format!("{n}:{}\n", "x".repeat(1000)))
            .collect();
        let (capped, truncation) = cap_text(&text, LIMITS);
        assert!(capped.len() <= LIMITS.max_bytes, "{}", capped.len());
        assert!(capped.starts_with("0:x"));
        assert!(capped.ends_with(&format!("99:{}\n", "x".repeat(1000))));
        assert!(truncation.unwrap().omitted_lines > 80);
    }
}
