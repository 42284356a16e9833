//! OSC 133 shell-integration marks (`A` prompt start, `B` prompt end, `C` output start,
//! `D;status` command finished), found in the raw byte stream with their exact byte offsets.
//!
//! [`MarkScanner`] is a tiny incremental state machine: it only looks for `ESC ] 133 ; …`
//! terminated by BEL or ST and keeps its state across chunk boundaries, so a mark split over two
//! reads is still found, and its offsets are positions in the whole stream. The terminal uses the
//! offsets to cut the command's output out of the byte stream and to feed the screen mirror up to
//! each mark (so the cursor position at a mark is known).
//!
//! It never interprets other escape sequences and never allocates per byte; the common case (a
//! chunk without ESC) is one scan for the ESC byte.
//!
//! **Only kaiport's own marks end a command.** Any program can print `ESC ] 133 ; D ; 0 BEL`
//! (`printf`, `cat` of a file holding it), so a mark by itself proves nothing. The marks kaiport
//! injects carry a per-session secret as an extra field, `kp=<secret>` (as VS Code's shell
//! integration carries its nonce); a scanner made with [`MarkScanner::with_secret`] sets
//! [`Mark::authentic`] only on marks whose field matches. The terminal acts on authentic marks
//! alone when it injected the integration; marks without the secret are output like any other.
//!
//! **OSC 7 (`ESC ] 7 ; file://HOST/PATH BEL`, the shell's current folder) counts only right
//! after an authentic `D` or `A` mark.** OSC 7 has no field for the secret, and any output can
//! print one; kaiport's snippets print it in the same write as an authentic `D` (bash, zsh) or
//! `A` (fish) mark, so the scanner takes an OSC 7 only when its ESC is the byte right after such
//! a mark ends ([`MarkScanner::take_cwd`]). A program's output cannot put bytes there: the shell
//! prints those marks after the command ended. Never after `C`: the shell prints it just before
//! the command runs, so the command's first output byte is the one right after it (and after
//! `B` come the typed line's echo).

/// Which OSC 133 mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkKind {
    /// `A`: the prompt starts.
    PromptStart,
    /// `B`: the prompt ends, the user's command line starts.
    CommandStart,
    /// `C`: the command was accepted, its output starts.
    OutputStart,
    /// `D[;status]`: the command finished, with its exit status when the shell told it.
    CommandFinished { exit_code: Option<i32> },
}

/// One mark and where it is in the byte stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub kind: MarkKind,
    /// Offset of the ESC that starts the sequence.
    pub start: u64,
    /// Offset just past the terminator (BEL or ST).
    pub end: u64,
    /// The mark carries the scanner's secret (`kp=<secret>` field); always false for a scanner
    /// without one.
    pub authentic: bool,
}

/// The field name of the secret in kaiport's marks: `ESC ] 133 ; D ; 0 ; kp=<secret> BEL`.
pub const SECRET_FIELD: &str = "kp=";

/// Longest OSC payload kept; OSC 133 payloads are short (with the secret field below 64 bytes),
/// longer OSCs (titles, hyperlinks) are skipped without being stored.
const MAX_PAYLOAD: usize = 96;
/// Longest OSC 7 payload kept: a percent-encoded path of [`MAX_CWD_BYTES`] and a host name.
const MAX_CWD_PAYLOAD: usize = 3 * MAX_CWD_BYTES + 300;
/// Longest current folder taken from OSC 7 (decoded bytes; Linux's `PATH_MAX`).
pub const MAX_CWD_BYTES: usize = 4096;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
const CAN: u8 = 0x18;
const SUB: u8 = 0x1a;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Ground,
    /// Saw ESC.
    Escape,
    /// Inside an OSC body.
    Osc,
    /// Saw ESC inside an OSC body (maybe the start of ST).
    OscEscape,
}

/// Incremental OSC 133 finder. Feed every byte of the stream, in order, through [`scan`].
///
/// [`scan`]: MarkScanner::scan
#[derive(Debug)]
pub struct MarkScanner {
    state: State,
    osc_start: u64,
    payload: Vec<u8>,
    payload_overflow: bool,
    /// Total bytes scanned so far: the stream offset of the next byte.
    offset: u64,
    /// The session secret authentic marks carry, if any.
    secret: Option<Vec<u8>>,
    /// Where the last authentic `D` or `A` mark ended: an OSC 7 starting right there is the
    /// shell's.
    authentic_end: Option<u64>,
    /// The last current folder an authentic OSC 7 reported, not yet taken.
    cwd: Option<String>,
}

impl Default for MarkScanner {
    fn default() -> Self {
        Self::new()
    }
}

impl MarkScanner {
    pub fn new() -> Self {
        MarkScanner {
            state: State::Ground,
            osc_start: 0,
            payload: Vec::with_capacity(MAX_PAYLOAD),
            payload_overflow: false,
            offset: 0,
            secret: None,
            authentic_end: None,
            cwd: None,
        }
    }

    /// A scanner that marks as [`Mark::authentic`] the marks carrying `kp=<secret>`.
    pub fn with_secret(secret: &str) -> Self {
        MarkScanner {
            secret: Some(secret.as_bytes().to_vec()),
            ..MarkScanner::new()
        }
    }

    /// From now on, marks are authentic only with `secret`.
    pub fn set_secret(&mut self, secret: &str) {
        self.secret = Some(secret.as_bytes().to_vec());
    }

    /// The current folder the last authentic OSC 7 reported since the last call (see the
    /// module docs), percent-decoded.
    pub fn take_cwd(&mut self) -> Option<String> {
        self.cwd.take()
    }

    /// Stream offset of the next byte to be scanned.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Scans `chunk` (the next bytes of the stream) and appends the marks that end in it to `out`.
    pub fn scan(&mut self, chunk: &[u8], out: &mut Vec<Mark>) {
        let base = self.offset;
        let mut i = 0;
        while i < chunk.len() {
            match self.state {
                State::Ground => match chunk[i..].iter().position(|&b| b == ESC) {
                    Some(pos) => {
                        i += pos + 1;
                        self.state = State::Escape;
                        self.osc_start = base + (i as u64) - 1;
                    }
                    None => break,
                },
                State::Escape => {
                    let b = chunk[i];
                    i += 1;
                    match b {
                        b']' => {
                            self.state = State::Osc;
                            self.payload.clear();
                            self.payload_overflow = false;
                        }
                        ESC => self.osc_start = base + (i as u64) - 1,
                        _ => self.state = State::Ground,
                    }
                }
                State::Osc => {
                    let b = chunk[i];
                    i += 1;
                    match b {
                        BEL => {
                            self.dispatch(base + i as u64, out);
                            self.state = State::Ground;
                        }
                        ESC => self.state = State::OscEscape,
                        CAN | SUB => self.state = State::Ground,
                        _ => {
                            let limit = if self.payload.starts_with(b"7;") {
                                MAX_CWD_PAYLOAD
                            } else {
                                MAX_PAYLOAD
                            };
                            if self.payload.len() < limit {
                                self.payload.push(b);
                            } else {
                                self.payload_overflow = true;
                            }
                        }
                    }
                }
                State::OscEscape => {
                    let b = chunk[i];
                    if b == b'\\' {
                        i += 1;
                        self.dispatch(base + i as u64, out);
                        self.state = State::Ground;
                    } else {
                        // The OSC was cut short by another escape sequence: that ESC starts it.
                        self.osc_start = base + i as u64 - 1;
                        self.state = State::Escape;
                    }
                }
            }
        }
        self.offset = base + chunk.len() as u64;
    }

    fn dispatch(&mut self, end: u64, out: &mut Vec<Mark>) {
        if self.payload_overflow {
            return;
        }
        let payload = &self.payload[..];
        if let Some(rest) = payload.strip_prefix(b"7;") {
            if self.authentic_end == Some(self.osc_start)
                && let Some(cwd) = parse_osc7(rest)
            {
                self.cwd = Some(cwd);
            }
            return;
        }
        if let Some(kind) = parse_osc133(payload) {
            let authentic = self
                .secret
                .as_deref()
                .is_some_and(|secret| mark_secret(payload) == Some(secret));
            if authentic
                && matches!(
                    kind,
                    MarkKind::CommandFinished { .. } | MarkKind::PromptStart
                )
            {
                self.authentic_end = Some(end);
            }
            out.push(Mark {
                kind,
                start: self.osc_start,
                end,
                authentic,
            });
        }
    }
}

/// Parses an OSC payload (between `ESC ]` and the terminator); `None` unless it is OSC 133.
pub fn parse_osc133(payload: &[u8]) -> Option<MarkKind> {
    let rest = payload.strip_prefix(b"133;")?;
    let mut fields = rest.split(|&b| b == b';');
    let kind = fields.next()?;
    match kind {
        b"A" => Some(MarkKind::PromptStart),
        b"B" => Some(MarkKind::CommandStart),
        b"C" => Some(MarkKind::OutputStart),
        b"D" => {
            let exit_code = fields
                .next()
                .and_then(|status| std::str::from_utf8(status).ok())
                .and_then(|status| status.trim().parse::<i32>().ok());
            Some(MarkKind::CommandFinished { exit_code })
        }
        _ => None,
    }
}

/// The path of an OSC 7 payload after `7;` (`file://HOST/PATH`, percent-encoded), decoded;
/// `None` when it is not a `file:` URL with an absolute path, is too long, or holds control
/// characters (a folder name cannot carry a terminal sequence into the model's facts).
pub fn parse_osc7(url: &[u8]) -> Option<String> {
    let rest = url.strip_prefix(b"file://")?;
    let path = &rest[rest.iter().position(|&b| b == b'/')?..];
    let mut bytes = Vec::with_capacity(path.len());
    let mut i = 0;
    while i < path.len() {
        let byte = path[i];
        if byte == b'%' {
            let hex = std::str::from_utf8(path.get(i + 1..i + 3)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            bytes.push(byte);
            i += 1;
        }
    }
    if bytes.len() > MAX_CWD_BYTES {
        return None;
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    (!text.chars().any(char::is_control)).then_some(text)
}

/// The value of the `kp=` field of an OSC 133 payload, if it has one.
pub fn mark_secret(payload: &[u8]) -> Option<&[u8]> {
    payload
        .split(|&b| b == b';')
        .skip(2)
        .find_map(|field| field.strip_prefix(SECRET_FIELD.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn scan_all(chunks: &[&[u8]]) -> Vec<Mark> {
        let mut scanner = MarkScanner::new();
        let mut out = Vec::new();
        for chunk in chunks {
            scanner.scan(chunk, &mut out);
        }
        out
    }

    #[test]
    fn finds_marks_with_offsets() {
        let stream = b"ab\x1b]133;A\x07$ \x1b]133;B\x1b\\ls\r\n\x1b]133;C\x07out\x1b]133;D;3\x07";
        let marks = scan_all(&[stream]);
        assert_eq!(
            marks,
            vec![
                Mark {
                    kind: MarkKind::PromptStart,
                    start: 2,
                    end: 10,
                    authentic: false,
                },
                Mark {
                    kind: MarkKind::CommandStart,
                    start: 12,
                    end: 21,
                    authentic: false,
                },
                Mark {
                    kind: MarkKind::OutputStart,
                    start: 25,
                    end: 33,
                    authentic: false,
                },
                Mark {
                    kind: MarkKind::CommandFinished { exit_code: Some(3) },
                    start: 36,
                    end: 46,
                    authentic: false,
                },
            ]
        );
    }

    #[test]
    fn split_across_every_byte_boundary() {
        let stream: &[u8] = b"x\x1b[1mhi\x1b]0;title\x07\x1b]133;D;127\x1b\\y";
        let whole = scan_all(&[stream]);
        assert_eq!(whole.len(), 1);
        for cut in 0..stream.len() {
            let (a, b) = stream.split_at(cut);
            assert_eq!(scan_all(&[a, b]), whole, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(scan_all(&bytes), whole);
    }

    #[test]
    fn ignores_other_and_aborted_osc() {
        let marks = scan_all(&[b"\x1b]1337;x\x07\x1b]133;A\x18\x1b]133;Z\x07\x1b]133;D\x07"]);
        assert_eq!(
            marks,
            vec![Mark {
                kind: MarkKind::CommandFinished { exit_code: None },
                start: 25,
                end: 33,
                authentic: false,
            }]
        );
    }

    #[test]
    fn osc_interrupted_by_escape_restarts() {
        let marks = scan_all(&[b"\x1b]133;A\x1b]133;B\x07"]);
        assert_eq!(
            marks,
            vec![Mark {
                kind: MarkKind::CommandStart,
                start: 7,
                end: 15,
                authentic: false,
            }]
        );
    }

    #[test]
    fn only_marks_with_the_secret_are_authentic() {
        let stream: &[u8] = b"\x1b]133;D;0\x07\x1b]133;D;0;kp=wrong\x07\x1b]133;D;3;kp=s3cr3t\x07\
              \x1b]133;A;kp=s3cr3t\x1b\\\x1b]133;B;kp=s3cr3tX\x07";
        let mut scanner = MarkScanner::with_secret("s3cr3t");
        let mut marks = Vec::new();
        for byte in stream.chunks(1) {
            scanner.scan(byte, &mut marks);
        }
        let seen: Vec<(MarkKind, bool)> = marks.iter().map(|m| (m.kind, m.authentic)).collect();
        assert_eq!(
            seen,
            vec![
                (MarkKind::CommandFinished { exit_code: Some(0) }, false),
                (MarkKind::CommandFinished { exit_code: Some(0) }, false),
                (MarkKind::CommandFinished { exit_code: Some(3) }, true),
                (MarkKind::PromptStart, true),
                (MarkKind::CommandStart, false),
            ]
        );
        // Without a secret nothing is authentic.
        let mut plain = Vec::new();
        MarkScanner::new().scan(stream, &mut plain);
        assert!(plain.iter().all(|m| !m.authentic));
    }

    #[test]
    fn osc7_counts_only_right_after_an_authentic_mark() {
        let cwd_after = |stream: &[u8]| {
            let mut scanner = MarkScanner::with_secret("s3cr3t");
            let mut marks = Vec::new();
            let mut found = None;
            for byte in stream.chunks(1) {
                scanner.scan(byte, &mut marks);
                found = scanner.take_cwd().or(found);
            }
            found
        };
        let real = b"\x1b]133;D;0;kp=s3cr3t\x07\x1b]7;file://web1/tmp/a%20b/%C3%BCn\x07";
        assert_eq!(cwd_after(real).as_deref(), Some("/tmp/a b/\u{fc}n"));
        // Printed by output: alone, after a mark without the secret, or not right after it.
        for fake in [
            &b"\x1b]7;file://x/etc\x07"[..],
            b"\x1b]133;D;0\x07\x1b]7;file://x/etc\x07",
            b"\x1b]133;D;0;kp=s3cr3t\x07 \x1b]7;file://x/etc\x07",
            b"\x1b]133;D;0;kp=s3cr3t\x07\x1b]7;file://x/etc%0Aevil\x07",
            b"\x1b]133;D;0;kp=s3cr3t\x07\x1b]7;http://x/etc\x07",
            // The command's own first bytes come right after the shell's `C` (bash's PS0,
            // zsh's preexec); the typed line's echo right after `B`.
            b"\x1b]133;C;kp=s3cr3t\x07\x1b]7;file://x/etc\x07",
            b"\x1b]133;B;kp=s3cr3t\x07\x1b]7;file://x/etc\x07",
        ] {
            assert_eq!(cwd_after(fake), None, "{}", String::from_utf8_lossy(fake));
        }
        // A long path is kept whole.
        let long = format!("/{}", "d/".repeat(1000));
        let stream = format!("\x1b]133;A;kp=s3cr3t\x07\x1b]7;file://h{long}\x1b\\");
        assert_eq!(cwd_after(stream.as_bytes()), Some(long));
    }
}
