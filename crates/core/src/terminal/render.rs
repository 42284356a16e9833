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

/// Tab stops every 8 columns, like every terminal's default.
const TAB_WIDTH: usize = 8;

/// Renders raw terminal bytes to text: one `\n`-separated line per terminal line, trailing blanks
/// of each line trimmed.
pub fn render_text(bytes: &[u8]) -> String {
    let mut renderer = LineRenderer::default();
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

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' | 0x0b | 0x0c => self.end_line(),
            b'\r' => self.col = 0,
            0x08 => self.col = self.col.saturating_sub(1),
            b'\t' => self.col = (self.col / TAB_WIDTH + 1) * TAB_WIDTH,
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
            'C' => self.col += count,
            'D' => self.col = self.col.saturating_sub(count),
            'G' | '`' => self.col = count - 1,
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
}
