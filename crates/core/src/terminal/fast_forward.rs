//! Keeping the screen mirror fast when a command floods the terminal (`cat` of a big file).
//!
//! vt100 interprets every byte (tens of MB/s); the mirror only needs the final screen. When a
//! chunk is plain text (no escape sequences, only `\r`, `\n`, `\t` as controls) and long enough
//! that everything before its last screenful scrolls away, feeding "blank the screen, cursor at
//! the bottom" and then only that last screenful gives exactly the same screen. The UI, the
//! history log and command output capture still get every byte; only the mirror skips.
//!
//! The shortcut is taken only when it is provably exact: the previous chunk left the parser in
//! its ground state (it had no escape sequence), no scroll region is set (lines would scroll
//! within it only), the alternate screen is off, the skipped part holds at least a screenful of
//! CRLF-terminated lines, and the part fed starts at a line start in column 0.

/// The bytes that blank a screen of `rows` rows the way a flood of lines does: enough line
/// feeds to bring the cursor to the bottom from anywhere and scroll every old row away, then a
/// carriage return.
pub fn blanking(rows: usize) -> Vec<u8> {
    let mut bytes = vec![b'\n'; 2 * rows + 1];
    bytes.push(b'\r');
    bytes
}

/// If the mirror may skip a prefix of `chunk` (see the module docs for the conditions the
/// caller checks), the offset to feed from after [`blanking`].
pub fn skippable_prefix(chunk: &[u8], rows: usize) -> Option<usize> {
    if rows == 0 {
        return None;
    }
    // The start of the last `rows` lines: just after the (rows + 1)-th newline from the end.
    let mut seen = 0;
    let mut start = None;
    for (index, byte) in chunk.iter().enumerate().rev() {
        if *byte == b'\n' {
            seen += 1;
            if seen == rows + 1 {
                start = Some(index + 1);
                break;
            }
        }
    }
    let start = start?;
    // The line before must end in CRLF so the fed part starts in column 0.
    if start < 2 || chunk[start - 2] != b'\r' {
        return None;
    }
    let prefix = &chunk[..start];
    // A screenful of lines in the skipped part: the cursor reaches the bottom and every later
    // line feed scrolls, so the rows the fed part writes were all scrolled in blank.
    if !is_plain(prefix) || prefix.iter().filter(|&&byte| byte == b'\n').count() < rows {
        return None;
    }
    Some(start)
}

/// Only printable text, UTF-8, and the controls `\t`, `\n`, `\r`.
fn is_plain(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .all(|&byte| byte >= 0x20 && byte != 0x7f || matches!(byte, b'\t' | b'\n' | b'\r'))
}

/// Tracks whether a scroll region (DECSTBM, `CSI top;bottom r`) may be set, across chunks.
#[derive(Debug, Default)]
pub struct ScrollRegionWatch {
    set: bool,
    /// The unfinished escape sequence at the end of the last chunk.
    carry: Vec<u8>,
}

/// Longest escape sequence kept across a chunk boundary; longer ones are not DECSTBM.
const MAX_CARRY: usize = 32;

impl ScrollRegionWatch {
    /// A scroll region may be set: the shortcut must not be taken.
    pub fn may_be_set(&self) -> bool {
        self.set
    }

    pub fn scan(&mut self, chunk: &[u8]) {
        if self.carry.is_empty() && !chunk.contains(&0x1b) {
            return;
        }
        let mut bytes = std::mem::take(&mut self.carry);
        bytes.extend_from_slice(chunk);
        let mut index = 0;
        while let Some(found) = bytes[index..].iter().position(|&byte| byte == 0x1b) {
            let esc = index + found;
            match bytes.get(esc + 1) {
                None => {
                    self.carry = bytes[esc..].to_vec();
                    return;
                }
                Some(b'c') => self.set = false, // RIS: full reset
                Some(b'[') => {
                    let params_start = esc + 2;
                    let params_len = bytes[params_start..]
                        .iter()
                        .take_while(|&&byte| byte.is_ascii_digit() || matches!(byte, b';' | b'?'))
                        .count();
                    match bytes.get(params_start + params_len) {
                        None if bytes.len() - esc <= MAX_CARRY => {
                            self.carry = bytes[esc..].to_vec();
                            return;
                        }
                        Some(b'r') => self.set = params_len > 0,
                        _ => {}
                    }
                }
                Some(_) => {}
            }
            index = esc + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::num::NonZeroU16;

    /// Feeds `chunks` both ways and compares the screens.
    fn compare(setup: &[u8], chunks: &[Vec<u8>], rows: u16, cols: u16) -> usize {
        let make = || {
            let mut parser = vt100::Parser::new(
                NonZeroU16::new(rows).unwrap(),
                NonZeroU16::new(cols).unwrap(),
                0,
            );
            parser.process(setup);
            parser
        };
        let mut exact = make();
        let mut fast = make();
        let mut watch = ScrollRegionWatch::default();
        watch.scan(setup);
        let mut previous_plain = !setup.contains(&0x1b);
        let mut skipped = 0;
        for chunk in chunks {
            exact.process(chunk);
            let shortcut =
                previous_plain && !watch.may_be_set() && !fast.screen().alternate_screen();
            match skippable_prefix(chunk, rows as usize).filter(|_| shortcut) {
                Some(start) => {
                    fast.process(&blanking(rows as usize));
                    fast.process(&chunk[start..]);
                    skipped += start;
                }
                None => fast.process(chunk),
            }
            watch.scan(chunk);
            previous_plain = !chunk.contains(&0x1b);
            assert_eq!(
                fast.screen().contents_formatted(),
                exact.screen().contents_formatted()
            );
            assert_eq!(
                fast.screen().cursor_position(),
                exact.screen().cursor_position()
            );
        }
        skipped
    }

    /// A small deterministic generator, so failures reproduce.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, below: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % below.max(1)
        }
    }

    fn lines(rng: &mut Lcg, count: usize, cols: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for n in 0..count {
            let len = rng.next(cols * 2);
            for i in 0..len {
                out.push(match rng.next(20) {
                    0 => b'\t',
                    1 => 0xc3, // é, split or whole
                    2 => 0xa9,
                    _ => b'a' + ((n + i) % 26) as u8,
                });
            }
            out.extend_from_slice(if rng.next(10) == 0 { b"\n" } else { b"\r\n" });
        }
        out
    }

    #[test]
    fn the_shortcut_gives_the_exact_screen() {
        let setups: [&[u8]; 5] = [
            b"",
            b"old content\r\nmore\x1b[1;31mred\x1b[0m",
            b"\x1b[5;10Hmid-screen \x1b[44mblue bg",
            b"\x1b[2J\x1b[H\x1b[?7l no autowrap\r\n",
            b"prompt$ ",
        ];
        let mut skipped = 0;
        for (seed, setup) in setups.iter().enumerate() {
            let mut rng = Lcg(seed as u64 + 1);
            for (rows, cols) in [(5u16, 10u16), (24, 80), (3, 200)] {
                let stream = lines(&mut rng, 600, cols as usize);
                let mut chunks = Vec::new();
                let mut at = 0;
                while at < stream.len() {
                    let len = 1 + rng.next(4000);
                    let end = (at + len).min(stream.len());
                    chunks.push(stream[at..end].to_vec());
                    at = end;
                }
                skipped += compare(setup, &chunks, rows, cols);
            }
        }
        assert!(
            skipped > 100_000,
            "the shortcut was hardly taken: {skipped} bytes"
        );
    }

    #[test]
    fn escapes_and_scroll_regions_disable_the_shortcut() {
        let mut watch = ScrollRegionWatch::default();
        watch.scan(b"text \x1b[2;");
        assert!(!watch.may_be_set());
        watch.scan(b"20r more");
        assert!(watch.may_be_set());
        watch.scan(b"\x1b[r");
        assert!(!watch.may_be_set());
        let plain: Vec<u8> = b"line\r\n".repeat(100);
        assert!(skippable_prefix(&plain, 24).is_some());
        let mut colored = plain.clone();
        colored[10] = 0x1b;
        assert_eq!(skippable_prefix(&colored, 24), None);
        assert_eq!(skippable_prefix(&b"line\r\n".repeat(30), 24), None);
        // A region set before a flood keeps the mirror exact (no shortcut).
        let region: &[u8] = b"\x1b[1;3r\x1b[3;1H";
        let mut rng = Lcg(7);
        let chunks = vec![lines(&mut rng, 200, 20), lines(&mut rng, 200, 20)];
        assert_eq!(compare(region, &chunks, 10, 20), 0);
    }
}
