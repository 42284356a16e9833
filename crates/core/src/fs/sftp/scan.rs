//! search_files' prefilter on an SSH server: GNU-style `grep` runs on a separate exec channel
//! (never the user's terminal) over the files the walk found, and says for each whether it holds
//! one of the needles or a NUL byte. Only those files are then read over SFTP and searched by
//! kaiport's own matcher, so the result is the same as reading everything; the scan only saves
//! moving files that cannot match across the encrypted channel.
//!
//! Anything unexpected (no shell, no `sh`/`mktemp`/`xargs`/`grep`, a grep that does not know an
//! option, an unreadable file) ends in fewer answers, never in a wrong one: a file without an
//! answer is read. The command is read-only and never uses sudo. This module must never log
//! file contents or the needles.

use crate::ssh::SshSession;
use futures::channel::mpsc::UnboundedSender;
use futures::stream::{BoxStream, StreamExt};
use tokio::io::AsyncWriteExt;

/// Files grep is given at once: small enough that the first answers come while the walk is
/// still listing, large enough that starting grep is a small part of the work.
const FILES_PER_GREP: usize = 512;

/// The command run on the server. `$1` holds the patterns in `printf %b` escapes (one per line,
/// the last a NUL byte), so the needles can be any bytes and the command stays plain ASCII
/// inside single quotes, which every common login shell (sh, bash, zsh, fish, csh) passes on
/// unchanged. Paths arrive on standard input, NUL-terminated; the answers are grep's
/// `path NUL count LF` lines, in input order (`-m 1`: a count of 0 or 1).
fn command(needles: &[Vec<u8>]) -> String {
    let mut patterns = String::new();
    for needle in needles {
        for &byte in needle {
            if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.') {
                patterns.push(char::from(byte));
            } else {
                patterns.push_str(&format!("\\0{byte:03o}"));
            }
        }
        patterns.push_str("\\0012");
    }
    patterns.push_str("\\0000");
    format!(
        "sh -c 'p=$(mktemp) || exit 97; c() {{ rm -f -- \"$p\"; }}; trap c EXIT; \
         trap \"exit 98\" HUP INT TERM PIPE; printf %b \"$1\" >\"$p\" || exit 97; \
         LC_ALL=C xargs -0 -n {FILES_PER_GREP} grep -H -c -m 1 -a -F --null -f \"$p\" --' \
         kaiport-scan '{patterns}'"
    )
}

/// Runs the scan (see [`crate::fs::FileAccess::scan_contents`]).
pub(super) async fn scan(
    ssh: &SshSession,
    needles: &[Vec<u8>],
    mut paths: BoxStream<'_, String>,
    answers: UnboundedSender<(String, bool)>,
) {
    let Ok(mut pipe) = ssh.exec_piped(&command(needles)).await else {
        return;
    };
    let mut input = pipe.input();
    let feeding = async move {
        while let Some(path) = paths.next().await {
            let mut record = path.into_bytes();
            record.push(0);
            if input.write_all(&record).await.is_err() {
                return;
            }
        }
        let _ = input.shutdown().await;
    };
    let answering = async {
        let mut pending = Vec::new();
        let mut listened = true;
        while let Some(data) = pipe.output().await {
            if !listened {
                // Still read to the end: grep blocked on unread output would stop reading the
                // paths the feeding may still be writing.
                continue;
            }
            pending.extend_from_slice(&data);
            let mut used = 0;
            while let Some((answer, length)) = parse_answer(&pending[used..]) {
                used += length;
                if let Some(answer) = answer
                    && answers.unbounded_send(answer).is_err()
                {
                    // Nobody listens any more (the search has enough matches); the paths end
                    // soon after, and with them grep.
                    listened = false;
                    break;
                }
            }
            pending.drain(..used);
        }
    };
    // The answers end when grep is done or the channel is gone; the feeding ends with the paths.
    futures::join!(feeding, answering);
    pipe.close().await;
}

/// The first `path NUL count LF` line in `data`: the answer (`None` for a line that is not
/// one) and the bytes it took; `None` when the line is not complete yet.
fn parse_answer(data: &[u8]) -> Option<(Option<(String, bool)>, usize)> {
    let name_end = memchr::memchr(0, data)?;
    let line_end = name_end + 1 + memchr::memchr(b'\n', &data[name_end + 1..])?;
    let answer = match (
        std::str::from_utf8(&data[..name_end]),
        &data[name_end + 1..line_end],
    ) {
        (Ok(path), b"0") => Some((path.to_owned(), false)),
        (Ok(path), b"1") => Some((path.to_owned(), true)),
        _ => None,
    };
    Some((answer, line_end + 1))
}

#[cfg(test)]
mod tests {
    use super::{command, parse_answer};

    #[test]
    fn answers_are_parsed_line_by_line_and_names_may_hold_newlines() {
        let data = b"/a b\x001\n/c\nd\x000\n/e\x002\n/f\x00";
        let (first, used) = parse_answer(data).unwrap();
        assert_eq!(first, Some(("/a b".to_owned(), true)));
        let (second, more) = parse_answer(&data[used..]).unwrap();
        assert_eq!(second, Some(("/c\nd".to_owned(), false)));
        let (odd, last) = parse_answer(&data[used + more..]).unwrap();
        assert_eq!(odd, None, "a count that is not 0 or 1 is no answer");
        assert_eq!(parse_answer(&data[used + more + last..]), None);
    }

    #[test]
    fn the_command_carries_any_needle_bytes_as_plain_ascii() {
        let text = command(&[
            b"it's \"x\"\n$HOME\\".to_vec(),
            "\u{212A}".as_bytes().to_vec(),
        ]);
        let patterns = text.rsplit_once(" kaiport-scan ").unwrap().1;
        assert!(patterns.is_ascii());
        assert_eq!(patterns.matches('\'').count(), 2, "{patterns}");
        assert!(!patterns.contains('$') && !patterns.contains('"'));
        let output = std::process::Command::new("sh")
            .args(["-c", "printf %b \"$1\"", "x"])
            .arg(patterns.trim_matches('\''))
            .output()
            .unwrap();
        let mut expected = b"it's \"x\"\n$HOME\\\n".to_vec();
        expected.extend_from_slice("\u{212A}\n\0".as_bytes());
        assert_eq!(output.stdout, expected);
    }
}
