//! Text handling for the file tools: binary detection, decoding (lossy UTF-8, reported), line
//! endings, line ranges read with bounded memory, and applying edit_file's edits.

use crate::fs::{FileAccess, FsError};
use crate::output::{TextLimits, cap_text};
use kaiport_protocol::tools::{LineEnding, ReadFileResult, TextEdit};
use std::pin::Pin;
use std::task::{Context, Poll};

/// Whether `data` looks binary: a NUL byte in its first bytes (what grep -I and git decide on).
pub(super) fn looks_binary(data: &[u8]) -> bool {
    let probe = &data[..data.len().min(super::BINARY_PROBE_BYTES)];
    memchr::memchr(0, probe).is_some()
}

/// Lines in `data`: a last line without a newline counts.
pub(super) fn count_lines(data: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', data).count() as u64;
    if data.last().is_some_and(|&last| last != b'\n') {
        newlines + 1
    } else {
        newlines
    }
}

/// The line endings a text uses.
pub(super) struct LineEndingInfo {
    pub ending: LineEnding,
}

impl LineEndingInfo {
    pub fn of(data: &[u8]) -> LineEndingInfo {
        let mut crlf = 0usize;
        let mut lf = 0usize;
        for at in memchr::memchr_iter(b'\n', data) {
            if at > 0 && data[at - 1] == b'\r' {
                crlf += 1;
            } else {
                lf += 1;
            }
        }
        let ending = match (crlf, lf) {
            (0, 0) => LineEnding::None,
            (_, 0) => LineEnding::Crlf,
            (0, _) => LineEnding::Lf,
            _ => LineEnding::Mixed,
        };
        LineEndingInfo { ending }
    }
}

/// A file's bytes as text.
pub(super) struct TextFile {
    pub text: String,
    /// Invalid UTF-8 was replaced by U+FFFD.
    pub lossy: bool,
    pub ending: LineEnding,
}

impl TextFile {
    pub fn decode(raw: &[u8]) -> TextFile {
        let (text, lossy) = match String::from_utf8_lossy(raw) {
            std::borrow::Cow::Borrowed(text) => (text.to_owned(), false),
            std::borrow::Cow::Owned(text) => (text, true),
        };
        TextFile {
            text,
            lossy,
            ending: LineEndingInfo::of(raw).ending,
        }
    }
}

/// The result for the model. `complete`: `file` is the whole file (else just the lines from
/// `start_line`). Content is capped at `limit` bytes keeping head and tail. CRLF files are shown
/// with plain newlines (edit_file maps them back).
#[allow(clippy::too_many_arguments)]
pub(super) fn shape_read_result(
    path: &str,
    file: &TextFile,
    total_lines: u64,
    total_bytes: u64,
    complete: bool,
    start_line: u64,
    line_count: Option<u64>,
    limit: usize,
) -> Result<ReadFileResult, String> {
    if start_line > total_lines.max(1) {
        return Err(format!(
            "start_line {start_line} is past the end of {path}, which has {total_lines} lines"
        ));
    }
    let selected: &str = if complete {
        let skip = (start_line - 1) as usize;
        let take = line_count.map_or(usize::MAX, |count| count as usize);
        let begin = nth_line_start(&file.text, skip);
        let end = begin + nth_line_start(&file.text[begin..], take);
        &file.text[begin..end]
    } else {
        &file.text
    };
    let shown_lines = count_lines(selected.as_bytes());
    let end_line = if shown_lines == 0 {
        start_line.saturating_sub(1)
    } else {
        start_line + shown_lines - 1
    };
    let normalized = if file.ending == LineEnding::Crlf {
        selected.replace("\r\n", "\n")
    } else {
        selected.to_owned()
    };
    let (content, truncated) = cap_text(
        &normalized,
        TextLimits {
            max_bytes: limit,
            max_lines: usize::MAX,
        },
    );
    Ok(ReadFileResult {
        path: path.to_owned(),
        content,
        total_lines,
        total_bytes,
        start_line,
        end_line,
        line_ending: file.ending,
        truncated,
        encoding_note: file.lossy.then(|| {
            "the file is not valid UTF-8; invalid bytes are shown as U+FFFD (edit_file refuses such files)"
                .to_owned()
        }),
    })
}

/// Byte offset where line `n` (0-based) starts; the text's length if it has fewer lines.
fn nth_line_start(text: &str, n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    memchr::memchr_iter(b'\n', text.as_bytes())
        .nth(n - 1)
        .map_or(text.len(), |at| at + 1)
}

/// Streams a file of any size and keeps only lines `start_line..start_line+line_count` (at most
/// `max_bytes` of them). Returns (kept bytes, total lines, false) — false: not the whole file.
pub(super) async fn read_line_range(
    files: &dyn FileAccess,
    path: &str,
    start_line: u64,
    line_count: Option<u64>,
    max_bytes: u64,
) -> Result<(Vec<u8>, u64, bool), FsError> {
    let mut sink = LineRangeSink {
        line: 1,
        start: start_line,
        end: line_count.map(|count| start_line.saturating_add(count)),
        kept: Vec::new(),
        max: max_bytes as usize,
        probe: Vec::new(),
        newlines: 0,
        last_was_newline: true,
    };
    files.read_into(path, 0, u64::MAX, &mut sink).await?;
    let total = sink.newlines + u64::from(!sink.last_was_newline);
    // A NUL anywhere near the start makes the whole file binary.
    if looks_binary(&sink.probe) {
        return Ok((sink.probe, total, false));
    }
    Ok((sink.kept, total, false))
}

struct LineRangeSink {
    /// 1-based line the next byte belongs to.
    line: u64,
    start: u64,
    end: Option<u64>,
    kept: Vec<u8>,
    max: usize,
    probe: Vec<u8>,
    newlines: u64,
    last_was_newline: bool,
}

impl tokio::io::AsyncWrite for LineRangeSink {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = &mut *self;
        if this.probe.len() < super::BINARY_PROBE_BYTES {
            let room = super::BINARY_PROBE_BYTES - this.probe.len();
            this.probe.extend_from_slice(&buf[..buf.len().min(room)]);
        }
        let mut rest = buf;
        while !rest.is_empty() {
            let (piece, newline) = match memchr::memchr(b'\n', rest) {
                Some(at) => (&rest[..=at], true),
                None => (rest, false),
            };
            let wanted = this.line >= this.start && this.end.is_none_or(|end| this.line < end);
            if wanted && this.kept.len() < this.max {
                let room = this.max - this.kept.len();
                this.kept.extend_from_slice(&piece[..piece.len().min(room)]);
            }
            if newline {
                this.line += 1;
                this.newlines += 1;
            }
            this.last_was_newline = newline;
            rest = &rest[piece.len()..];
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Applies `edits` in order to `before`; all or none. Each old_text must occur exactly once unless
/// replace_all. In a CRLF file, edits written with plain newlines match and insert CRLF.
#[cfg_attr(not(feature = "edit-file"), allow(dead_code))] // edit_file is not in mobile builds
pub(super) fn apply_edits(before: &str, edits: &[TextEdit]) -> Result<String, String> {
    let crlf = LineEndingInfo::of(before.as_bytes()).ending == LineEnding::Crlf;
    let total = edits.len();
    let mut text = before.to_owned();
    for (index, edit) in edits.iter().enumerate() {
        let number = index + 1;
        let (old, new) = if crlf && !edit.old_text.contains('\r') {
            (
                edit.old_text.replace('\n', "\r\n"),
                edit.new_text.replace('\n', "\r\n"),
            )
        } else {
            (edit.old_text.clone(), edit.new_text.clone())
        };
        if old.is_empty() {
            return Err(format!(
                "edit_file: edit {number} of {total}: old_text is empty; nothing was changed"
            ));
        }
        let matches = text.matches(old.as_str()).count();
        text = match (matches, edit.replace_all.unwrap_or(false)) {
            (0, _) => {
                return Err(format!(
                    "edit_file: edit {number} of {total}: old_text matched 0 times (it must match the file \
                     exactly, whitespace included; edits apply in order, so earlier edits may have changed \
                     the text); nothing was changed"
                ));
            }
            (1, _) => text.replacen(old.as_str(), &new, 1),
            (_, true) => text.replace(old.as_str(), &new),
            (many, false) => {
                return Err(format!(
                    "edit_file: edit {number} of {total}: old_text matched {many} times; include more \
                     surrounding text so it is unique, or set replace_all: true; nothing was changed"
                ));
            }
        };
    }
    if text == before {
        return Err(
            "edit_file: the edits leave the file unchanged; nothing was written".to_owned(),
        );
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn edit(old: &str, new: &str, all: bool) -> TextEdit {
        TextEdit {
            old_text: old.to_owned(),
            new_text: new.to_owned(),
            replace_all: all.then_some(true),
        }
    }

    #[test]
    fn edits_apply_in_order_all_or_none() {
        let before = "a = 1\nb = 2\nb = 2\nend";
        assert_eq!(
            apply_edits(
                before,
                &[edit("a = 1", "a = 10", false), edit("b = 2", "b = 3", true)]
            )
            .unwrap(),
            "a = 10\nb = 3\nb = 3\nend"
        );
        let twice = apply_edits(
            before,
            &[edit("a = 1", "x", false), edit("b = 2", "y", false)],
        )
        .unwrap_err();
        assert!(
            twice.contains("edit 2 of 2: old_text matched 2 times"),
            "{twice}"
        );
        let none = apply_edits(before, &[edit("zzz", "y", false)]).unwrap_err();
        assert!(
            none.contains("edit 1 of 1: old_text matched 0 times"),
            "{none}"
        );
        // Edits see the text as earlier edits left it.
        assert_eq!(
            apply_edits("x", &[edit("x", "yy", false), edit("yy", "z", false)]).unwrap(),
            "z"
        );
    }

    #[test]
    fn crlf_files_keep_their_endings() {
        let before = "one\r\ntwo\r\nthree";
        assert_eq!(
            apply_edits(before, &[edit("one\ntwo", "1\n2", false)]).unwrap(),
            "1\r\n2\r\nthree"
        );
        assert_eq!(
            LineEndingInfo::of(before.as_bytes()).ending,
            LineEnding::Crlf
        );
        assert_eq!(LineEndingInfo::of(b"a\nb\r\n").ending, LineEnding::Mixed);
        assert_eq!(LineEndingInfo::of(b"abc").ending, LineEnding::None);
    }

    #[test]
    fn lines_and_binary() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"a"), 1);
        assert_eq!(count_lines(b"a\n"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
        assert!(looks_binary(b"ab\0c"));
        assert!(!looks_binary("é\n".as_bytes()));
        let mut late = vec![b'a'; super::super::BINARY_PROBE_BYTES];
        late.push(0);
        assert!(!looks_binary(&late), "decided on the first bytes only");
    }

    #[test]
    fn ranges_and_caps() {
        let file = TextFile::decode(b"l1\nl2\nl3\nl4\n");
        let result = shape_read_result("/f", &file, 4, 12, true, 2, Some(2), 1024).unwrap();
        assert_eq!(
            (result.content.as_str(), result.start_line, result.end_line),
            ("l2\nl3\n", 2, 3)
        );
        assert!(shape_read_result("/f", &file, 4, 12, true, 5, None, 1024).is_err());
        let big = TextFile::decode("x\n".repeat(10_000).as_bytes());
        let capped = shape_read_result("/f", &big, 10_000, 20_000, true, 1, None, 1024).unwrap();
        assert!(capped.content.len() <= 1024);
        let truncation = capped.truncated.unwrap();
        assert!(truncation.omitted_lines > 9000, "{truncation:?}");
        assert!(capped.content.contains("lines ("), "{}", capped.content);
        let lossy = TextFile::decode(b"ok\xff\n");
        assert!(lossy.lossy);
    }
}
