//! Key encoding for send_input: the bytes an xterm-compatible terminal sends for each [`Key`].
//!
//! Only the encoding lives here; whether to send it, and when, is the terminal's business.

use kaiport_protocol::tools::Key;

/// The xterm byte sequence for `key`, in normal cursor-key mode. Ctrl-A … Ctrl-Z are
/// 0x01 … 0x1a; Enter is CR, Backspace is DEL (0x7f), as terminals send them.
pub fn encode_key(key: Key) -> &'static [u8] {
    encode_key_for(key, /* application_cursor */ false)
}

/// Like [`encode_key`], but honours DECCKM: when a program switched the terminal to application
/// cursor keys (`ESC [ ? 1 h`, as less and vim do), arrows, Home and End use `ESC O x`.
pub fn encode_key_for(key: Key, application_cursor: bool) -> &'static [u8] {
    match key {
        Key::Up if application_cursor => b"\x1bOA",
        Key::Down if application_cursor => b"\x1bOB",
        Key::Right if application_cursor => b"\x1bOC",
        Key::Left if application_cursor => b"\x1bOD",
        Key::Home if application_cursor => b"\x1bOH",
        Key::End if application_cursor => b"\x1bOF",
        Key::Enter => b"\r",
        Key::Tab => b"\t",
        Key::Esc => b"\x1b",
        Key::Backspace => b"\x7f",
        Key::Up => b"\x1b[A",
        Key::Down => b"\x1b[B",
        Key::Right => b"\x1b[C",
        Key::Left => b"\x1b[D",
        Key::Home => b"\x1b[H",
        Key::End => b"\x1b[F",
        Key::Pgup => b"\x1b[5~",
        Key::Pgdn => b"\x1b[6~",
        Key::F1 => b"\x1bOP",
        Key::F2 => b"\x1bOQ",
        Key::F3 => b"\x1bOR",
        Key::F4 => b"\x1bOS",
        Key::F5 => b"\x1b[15~",
        Key::F6 => b"\x1b[17~",
        Key::F7 => b"\x1b[18~",
        Key::F8 => b"\x1b[19~",
        Key::F9 => b"\x1b[20~",
        Key::F10 => b"\x1b[21~",
        Key::F11 => b"\x1b[23~",
        Key::F12 => b"\x1b[24~",
        Key::CtrlA => b"\x01",
        Key::CtrlB => b"\x02",
        Key::CtrlC => b"\x03",
        Key::CtrlD => b"\x04",
        Key::CtrlE => b"\x05",
        Key::CtrlF => b"\x06",
        Key::CtrlG => b"\x07",
        Key::CtrlH => b"\x08",
        Key::CtrlI => b"\x09",
        Key::CtrlJ => b"\x0a",
        Key::CtrlK => b"\x0b",
        Key::CtrlL => b"\x0c",
        Key::CtrlM => b"\x0d",
        Key::CtrlN => b"\x0e",
        Key::CtrlO => b"\x0f",
        Key::CtrlP => b"\x10",
        Key::CtrlQ => b"\x11",
        Key::CtrlR => b"\x12",
        Key::CtrlS => b"\x13",
        Key::CtrlT => b"\x14",
        Key::CtrlU => b"\x15",
        Key::CtrlV => b"\x16",
        Key::CtrlW => b"\x17",
        Key::CtrlX => b"\x18",
        Key::CtrlY => b"\x19",
        Key::CtrlZ => b"\x1a",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn ctrl_letters_are_consecutive() {
        let ctrl = [Key::CtrlA, Key::CtrlC, Key::CtrlZ];
        let bytes: Vec<&[u8]> = ctrl.into_iter().map(encode_key).collect();
        assert_eq!(bytes, vec![b"\x01" as &[u8], b"\x03", b"\x1a"]);
    }

    #[test]
    fn cursor_mode() {
        assert_eq!(encode_key(Key::Up), b"\x1b[A");
        assert_eq!(encode_key_for(Key::Up, true), b"\x1bOA");
        assert_eq!(encode_key_for(Key::Pgdn, true), b"\x1b[6~");
        assert_eq!(encode_key(Key::Enter), b"\r");
        assert_eq!(encode_key(Key::F12), b"\x1b[24~");
    }
}
