//! An incremental parser for server-sent events (the `text/event-stream` format both model
//! APIs stream in): bytes in, whole events out, however the bytes were split by the network.

/// One event: its `event:` name (empty when absent) and its `data:` lines joined by `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

/// Feed bytes with [`SseParser::push`]; call [`SseParser::finish`] at the end of the stream.
#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of a line not yet ended (kept as bytes: a UTF-8 character may be split).
    partial: Vec<u8>,
    event: String,
    data: Vec<String>,
}

impl SseParser {
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in bytes {
            if byte == b'\n' {
                let mut line = std::mem::take(&mut self.partial);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                self.line(&String::from_utf8_lossy(&line), &mut events);
            } else {
                self.partial.push(byte);
            }
        }
        events
    }

    /// The event left when the stream ended without a final blank line.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.line(&String::from_utf8_lossy(&line), &mut events);
        }
        self.line("", &mut events);
        events
    }

    fn line(&mut self, line: &str, events: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if !self.data.is_empty() {
                events.push(SseEvent {
                    event: std::mem::take(&mut self.event),
                    data: std::mem::take(&mut self.data).join("\n"),
                });
            }
            self.event.clear();
            return;
        }
        if line.starts_with(':') {
            return; // a comment (keep-alive)
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = value.to_owned(),
            "data" => self.data.push(value.to_owned()),
            _ => {} // id, retry: not used by model APIs
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn events_survive_any_split() {
        let stream =
            "event: a\r\ndata: {\"x\":\"é\"}\r\n\r\n: ping\n\ndata: one\ndata: two\n\ndata: [DONE]";
        let whole = {
            let mut parser = SseParser::default();
            let mut events = parser.push(stream.as_bytes());
            events.extend(parser.finish());
            events
        };
        assert_eq!(
            whole,
            vec![
                SseEvent {
                    event: "a".into(),
                    data: "{\"x\":\"é\"}".into()
                },
                SseEvent {
                    event: String::new(),
                    data: "one\ntwo".into()
                },
                SseEvent {
                    event: String::new(),
                    data: "[DONE]".into()
                },
            ]
        );
        for size in 1..7 {
            let mut parser = SseParser::default();
            let mut events = Vec::new();
            for chunk in stream.as_bytes().chunks(size) {
                events.extend(parser.push(chunk));
            }
            events.extend(parser.finish());
            assert_eq!(events, whole, "chunks of {size}");
        }
    }
}
