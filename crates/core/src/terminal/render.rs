//! Turns a command's raw terminal bytes into the plain text the model gets.
//!
//! [`render_text`] interprets just enough of the terminal language to give the *final* text of
//! each line: printable characters overwrite at the cursor column, `\r` returns to column 0 (so a
//! `\r` progress bar leaves only its last state), backspace and tab move the cursor, `CSI K`
//! erases, `CSI C/D/G` move within the line, `\n` ends the line. Colors, OSC (titles, marks),
//! mode switches and every other sequence are dropped. Lines are unbounded (no wrapping at the
//! screen width) and there is no line limit: capping is the caller's job.
//!
//! It never looks at the screen mirror and keeps no state between calls.
//!
//! [`render_output`] is the variant for a command's output given to the model: OSC 133 marks in
//! it are not kaiport's (those carry the session secret and delimit the output, they are never
//! inside it), so they are shown as text (`\e]133;D;0\a`) — a program printing marks is
//! something the model should see, not something that silently vanishes. A mark that does carry
//! the secret is dropped, and a `kp=` field is never shown with its value.
//!
//! Cursor movement is clamped to [`MAX_COLUMN`]: output is untrusted, and `ESC [ 65535 C`
//! repeated must not make a line of millions of blanks.

/// Tab stops every 8 columns, like every terminal's default.
const TAB_WIDTH: usize = 8;

/// The rightmost column cursor movement can reach (output drawn there still extends the line).
pub const MAX_COLUMN: usize = 4096;

/// Renders raw terminal bytes to text: one `\n`-separated line per terminal line, trailing blanks
/// of each line trimmed.
pub fn render_text(bytes: &[u8]) -> String {
    let mut renderer = LineRenderer::default();
    let mut parser = vte::Parser::new();
    parser.advance(&mut renderer, bytes);
    renderer.finish()
}

/// Like [`render_text`], but OSC 133 marks are shown as text, except marks carrying `secret`
/// (see the module docs; `None` shows them all).
pub fn render_output(bytes: &[u8], secret: Option<&str>) -> String {
    let mut renderer = LineRenderer {
        marks: Some(secret.unwrap_or_default().to_owned()),
        ..LineRenderer::default()
    };
    let mut parser = vte::Parser::new();
    parser.advance(&mut renderer, bytes);
    renderer.finish()
}

/// Renders and splits into lines (the last line is the one the cursor was on at the end).
pub fn render_lines(bytes: &[u8]) -> Vec<String> {
    render_text(bytes).split('\n').map(str::to_owned).collect()
}

#[derive(Default)]
struct LineRenderer {
    done: String,
    line: Vec<char>,
    col: usize,
    /// `Some(secret)`: show OSC 133 marks as text, except those carrying the secret (when it is
    /// not empty).
    marks: Option<String>,
}

impl LineRenderer {
    fn put(&mut self, c: char) {
        if self.col < self.line.len() {
            self.line[self.col] = c;
        } else {
            self.line.resize(self.col, ' ');
            self.line.push(c);
        }
        self.col += 1;
    }

    fn move_to(&mut self, col: usize) {
        self.col = col.min(MAX_COLUMN);
    }

    fn show_mark(&mut self, params: &[&[u8]]) {
        let Some(secret) = &self.marks else { return };
        let field = format!("{}{secret}", super::marks::SECRET_FIELD);
        if !secret.is_empty() && params.contains(&field.as_bytes()) {
            return;
        }
        let mut text = String::from("\\e]133");
        for param in &params[1..] {
            text.push(';');
            if param.starts_with(super::marks::SECRET_FIELD.as_bytes()) {
                text.push_str(super::marks::SECRET_FIELD);
                text.push('…');
            } else {
                text.push_str(&String::from_utf8_lossy(param));
            }
        }
        text.push_str("\\a");
        for c in text.chars() {
            self.put(c);
        }
    }

    fn end_line(&mut self) {
        let len = self
            .line
            .iter()
            .rposition(|c| *c != ' ')
            .map_or(0, |i| i + 1);
        self.done.extend(&self.line[..len]);
        self.done.push('\n');
        self.line.clear();
        self.col = 0;
    }

    fn finish(mut self) -> String {
        let len = self
            .line
            .iter()
            .rposition(|c| *c != ' ')
            .map_or(0, |i| i + 1);
        self.done.extend(&self.line[..len]);
        self.done
    }
}

impl vte::Perform for LineRenderer {
    fn print(&mut self, c: char) {
        self.put(c);
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], _bell_terminated: bool) {
        if params.first() == Some(&b"133".as_slice()) {
            self.show_mark(params);
        }
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' | 0x0b | 0x0c => self.end_line(),
            b'\r' => self.col = 0,
            0x08 => self.col = self.col.saturating_sub(1),
            b'\t' => self.move_to((self.col / TAB_WIDTH + 1) * TAB_WIDTH),
            _ => {}
        }
    }

    fn csi_dispatch(
        &mut self,
        params: &vte::Params,
        intermediates: &[u8],
        _ignore: bool,
        action: char,
    ) {
        if !intermediates.is_empty() {
            return;
        }
        let first = params
            .iter()
            .next()
            .and_then(|p| p.first().copied())
            .unwrap_or(0);
        let count = usize::from(first.max(1));
        match action {
            'K' => match first {
                0 => self.line.truncate(self.col),
                1 => {
                    let end = (self.col + 1).min(self.line.len());
                    self.line[..end].fill(' ');
                }
                _ => self.line.clear(),
            },
            'C' => self.move_to(self.col + count),
            'D' => self.col = self.col.saturating_sub(count),
            'G' | '`' => self.move_to(count - 1),
            'X' => {
                let end = (self.col + count).min(self.line.len());
                if self.col < end {
                    self.line[self.col..end].fill(' ');
                }
            }
            'P' if self.col < self.line.len() => {
                let end = (self.col + count).min(self.line.len());
                self.line.drain(self.col..end);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn strips_colors_and_handles_crlf() {
        assert_eq!(
            render_text(b"\x1b[1;31mred\x1b[0m\r\nplain  \r\n"),
            "red\nplain\n"
        );
    }

    #[test]
    fn progress_bar_keeps_final_state() {
        let bytes = b"  0%\r 50%\r100%\r\ndone\r\n";
        assert_eq!(render_text(bytes), "100%\ndone\n");
        assert_eq!(
            render_text(b"[#####     ]\r\x1b[K[##########] ok\r\n"),
            "[##########] ok\n"
        );
    }

    #[test]
    fn drops_osc_and_modes() {
        let bytes = b"\x1b]0;title\x07\x1b[?2004ha\tb\x1b]133;C\x1b\\\x08\x08x\n";
        assert_eq!(render_text(bytes), "a      xb\n");
    }

    #[test]
    fn utf8_split_is_kept() {
        assert_eq!(render_text("grün ❯ ok".as_bytes()), "grün ❯ ok");
    }

    #[test]
    fn output_shows_foreign_marks_and_hides_the_secret() {
        let bytes = b"a\x1b]133;D;0\x07b\x1b]133;A;kp=s3\x07c\x1b]133;D;1;kp=guess\x1b\\\n";
        assert_eq!(render_text(bytes), "abc\n");
        assert_eq!(
            render_output(bytes, Some("s3")),
            "a\\e]133;D;0\\abc\\e]133;D;1;kp=…\\a\n"
        );
        assert_eq!(
            render_output(bytes, None),
            "a\\e]133;D;0\\ab\\e]133;A;kp=…\\ac\\e]133;D;1;kp=…\\a\n"
        );
    }

    #[test]
    fn cursor_movement_is_clamped() {
        let bytes = b"\x1b[65535C".repeat(1000);
        let text = render_text(&[bytes.as_slice(), b"x"].concat());
        assert_eq!(text.len(), MAX_COLUMN + 1);
    }
}
