//! The terminal's history (scrollback) kept as the raw bytes the user saw, bounded by a number of
//! lines and of bytes. A vt100 scrollback row costs 32 bytes per column whatever it shows; raw
//! bytes cost what was printed, so 10,000 lines of typical output take well under a megabyte.
//! A front end that attaches later replays these bytes to rebuild its own scrollback; the text
//! is rendered on demand with [`super::render::render_text`].
//!
//! Only bytes shown to the user go in (never the hidden injection of shell integration).

use std::collections::VecDeque;

/// Raw output trimmed from the front, whole lines at a time.
#[derive(Debug)]
pub struct ScrollbackLog {
    bytes: VecDeque<u8>,
    /// Absolute offsets (in all bytes ever pushed) of the newlines still in `bytes`.
    newlines: VecDeque<u64>,
    /// Absolute offset of `bytes[0]`.
    base: u64,
    max_lines: usize,
    max_bytes: usize,
}

/// Bytes allowed per kept line on average before whole lines are dropped anyway (escape
/// sequences and long lines count).
const BYTES_PER_LINE: usize = 400;

impl ScrollbackLog {
    /// A log keeping at most `max_lines` lines (and `max_lines × 400` bytes).
    pub fn new(max_lines: usize) -> ScrollbackLog {
        ScrollbackLog {
            bytes: VecDeque::new(),
            newlines: VecDeque::new(),
            base: 0,
            max_lines,
            max_bytes: max_lines.saturating_mul(BYTES_PER_LINE).max(64 * 1024),
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        let start = self.base + self.bytes.len() as u64;
        for (index, byte) in chunk.iter().enumerate() {
            if *byte == b'\n' {
                self.newlines.push_back(start + index as u64);
            }
        }
        self.bytes.extend(chunk);
        while self.newlines.len() > self.max_lines || self.bytes.len() > self.max_bytes {
            let cut = match self.newlines.pop_front() {
                Some(newline) => (newline + 1 - self.base) as usize,
                // One giant line: keep its end.
                None => self.bytes.len() - self.max_bytes,
            };
            self.bytes.drain(..cut.min(self.bytes.len()));
            self.base += cut as u64;
        }
    }

    /// The kept bytes, oldest first.
    pub fn bytes(&self) -> Vec<u8> {
        let (front, back) = self.bytes.as_slices();
        [front, back].concat()
    }

    /// Number of complete lines kept.
    pub fn lines(&self) -> usize {
        self.newlines.len()
    }

    /// Memory held by the log's buffers.
    pub fn capacity_bytes(&self) -> usize {
        self.bytes.capacity() + self.newlines.capacity() * std::mem::size_of::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn keeps_the_last_lines_whole() {
        let mut log = ScrollbackLog::new(3);
        for n in 1..=10 {
            log.push(format!("line {n}\n").as_bytes());
        }
        log.push(b"partial");
        assert_eq!(
            String::from_utf8(log.bytes()).unwrap(),
            "line 8\nline 9\nline 10\npartial"
        );
        assert_eq!(log.lines(), 3);
    }

    #[test]
    fn chunks_split_anywhere_give_the_same_log() {
        let text: String = (1..=2000)
            .map(|n| format!("\x1b[1m{n}\x1b[0m\r\n"))
            .collect();
        let mut whole = ScrollbackLog::new(100);
        whole.push(text.as_bytes());
        let mut pieces = ScrollbackLog::new(100);
        for piece in text.as_bytes().chunks(7) {
            pieces.push(piece);
        }
        assert_eq!(whole.bytes(), pieces.bytes());
        assert!(
            String::from_utf8(whole.bytes())
                .unwrap()
                .starts_with("\x1b[1m1901")
        );
    }

    #[test]
    fn a_line_without_end_is_bounded_by_bytes() {
        let mut log = ScrollbackLog::new(1);
        log.push(&vec![b'x'; 1_000_000]);
        assert_eq!(log.bytes().len(), 64 * 1024);
    }
}
