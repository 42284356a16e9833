//! The audit log `ai-audit.jsonl`: one JSON object per tool call, appended and flushed per line.
//!
//! It records what happened (time, tab, connection, tool, arguments, decision, who decided,
//! status, duration) and must never record a secret or a file's contents: arguments pass through
//! [`redact_args`] first. A line is written with a single `write` on an append-only file, and a
//! partial last line left by a crash is cut off when the log is opened again, so the file is
//! always a sequence of whole lines.
//!
//! Text in a line comes from the model and from servers. Characters a terminal acts on or that
//! reorder what it shows — C1 controls (U+009B is CSI to xterm.js), bidirectional overrides,
//! isolates and marks — are never written raw: [`escape_json_line`] writes them as JSON escapes
//! (`\u009b`, the same value to a reader), and [`escape_for_terminal`] shows them as `\u{9b}`
//! wherever the log is printed.

use serde_json::{Map, Value};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The file name inside the app's data folder.
pub const AUDIT_FILE_NAME: &str = "ai-audit.jsonl";

/// String argument values longer than this are shortened in the log.
const MAX_LOGGED_CHARS: usize = 500;

/// Argument names whose values are secrets.
const SECRET_KEYS: [&str; 8] = [
    "password",
    "passphrase",
    "secret",
    "token",
    "api_key",
    "apikey",
    "private_key",
    "authorization",
];

/// Argument names whose values are file contents: logged as their size only.
const CONTENT_KEYS: [&str; 4] = ["content", "old_text", "new_text", "text"];

#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("cannot open the audit log {path}: {source}")]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read the audit log {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write to the audit log {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One line of the audit log (the protocol's type, so a front end reads the lines as written).
pub type AuditRecord = kaiport_protocol::AuditEntry;

/// The fields of a tool result that say how the work ended, and the changes it made to files
/// with their backups (`change`; `changes` for execute_plan's operations); `None` when it has
/// none of them.
pub fn result_summary(result: Option<&Value>) -> Option<Value> {
    let result = result?.as_object()?;
    let mut summary: serde_json::Map<String, Value> = ["status", "exit_code"]
        .into_iter()
        .filter_map(|key| {
            let value = result.get(key)?;
            (value.is_string() || value.is_number()).then(|| (key.to_owned(), value.clone()))
        })
        .collect();
    if let Some(change) = result.get("change").and_then(change_summary) {
        summary.insert("change".to_owned(), change);
    }
    let changes: Vec<Value> = result
        .get("outcomes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|outcome| outcome.get("change").and_then(change_summary))
        .collect();
    if !changes.is_empty() {
        summary.insert("changes".to_owned(), Value::Array(changes));
    }
    (!summary.is_empty()).then_some(Value::Object(summary))
}

/// A result's change note as the audit line keeps it: its id, the backup's path or why there
/// is none (never file contents).
fn change_summary(change: &Value) -> Option<Value> {
    let change = change.as_object()?;
    let kept: serde_json::Map<String, Value> = ["change_id", "backup", "note"]
        .into_iter()
        .filter_map(|key| {
            let value = change.get(key)?.as_str()?;
            Some((key.to_owned(), Value::String(shorten_logged(value))))
        })
        .collect();
    kept.contains_key("change_id")
        .then_some(Value::Object(kept))
}

/// An open audit log. Shared by all tabs of an engine.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    file: Mutex<File>,
}

impl AuditLog {
    /// Open (creating it and its folder if needed) the log at `path`, repairing a partial last
    /// line left by a crash.
    pub fn open(path: &Path) -> Result<AuditLog, AuditError> {
        let open_error = |source| AuditError::Open {
            path: path.to_owned(),
            source,
        };
        if let Some(parent) = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
        {
            std::fs::create_dir_all(parent).map_err(open_error)?;
        }
        repair_partial_line(path).map_err(open_error)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(open_error)?;
        Ok(AuditLog {
            path: path.to_owned(),
            file: Mutex::new(file),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append one record as one line and flush it to the OS.
    pub fn append(&self, record: &AuditRecord) -> Result<(), AuditError> {
        let write_error = |source| AuditError::Write {
            path: self.path.clone(),
            source,
        };
        let line = serde_json::to_string(record)
            .map_err(|error| write_error(std::io::Error::other(error)))?;
        let mut line = escape_json_line(&line).into_owned().into_bytes();
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // One write call per line: with O_APPEND, concurrent writers never interleave inside it,
        // and the line is with the OS when this returns (a crash of kaiport cannot lose it). No
        // fsync per line: it would cost milliseconds on every tool call.
        file.write_all(&line).map_err(write_error)
    }
}

/// The last `limit` lines of the audit log at `path`, oldest first; a log not written yet is
/// empty. A line that is not a record (written by a newer kaiport) is skipped.
pub fn read_recent(path: &Path, limit: usize) -> Result<Vec<AuditRecord>, AuditError> {
    const BLOCK: u64 = 64 * 1024;
    let read_error = |source| AuditError::Read {
        path: path.to_owned(),
        source,
    };
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(read_error(error)),
    };
    let len = file.metadata().map_err(read_error)?.len();
    // Read whole blocks back from the end until they hold `limit` whole lines.
    let mut start = len;
    let mut tail: Vec<u8> = Vec::new();
    while start > 0 && tail.iter().filter(|&&byte| byte == b'\n').count() <= limit {
        let from = start.saturating_sub(BLOCK);
        let mut block = vec![0; (start - from) as usize];
        file.seek(SeekFrom::Start(from)).map_err(read_error)?;
        file.read_exact(&mut block).map_err(read_error)?;
        block.extend_from_slice(&tail);
        tail = block;
        start = from;
    }
    let text = String::from_utf8_lossy(&tail);
    let mut lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    if start > 0 && !lines.is_empty() {
        // The first line may be cut by the block boundary.
        lines.remove(0);
    }
    let skip = lines.len().saturating_sub(limit);
    Ok(lines[skip..]
        .iter()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect())
}

/// Cut a partial last line (no trailing newline) so the file holds whole lines only.
fn repair_partial_line(path: &Path) -> std::io::Result<()> {
    let mut file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error),
    };
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(());
    }
    let window = len.min(64 * 1024);
    file.seek(SeekFrom::Start(len - window))?;
    let mut tail = Vec::with_capacity(window as usize);
    file.read_to_end(&mut tail)?;
    if tail.last() == Some(&b'\n') {
        return Ok(());
    }
    let keep = match tail.iter().rposition(|&byte| byte == b'\n') {
        Some(index) => len - window + index as u64 + 1,
        None if window == len => 0,
        // A line longer than the window: leave it rather than guess.
        None => return Ok(()),
    };
    tracing::warn!(path = %path.display(), cut = len - keep, "audit log ended in a partial line; cut it");
    file.set_len(keep)
}

/// Arguments as they may be logged: secrets replaced, file contents reduced to their size, long
/// strings shortened.
pub fn redact_args(args: &Value) -> Value {
    match args {
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (key, value) in map {
                let lower = key.to_ascii_lowercase();
                let redacted = if SECRET_KEYS.iter().any(|secret| lower.contains(secret)) {
                    Value::String("[redacted]".to_owned())
                } else if CONTENT_KEYS.contains(&lower.as_str()) {
                    match value {
                        Value::String(text) => Value::String(format!("[{} bytes]", text.len())),
                        other => redact_args(other),
                    }
                } else {
                    redact_args(value)
                };
                out.insert(key.clone(), redacted);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(redact_args).collect()),
        Value::String(text) => Value::String(shorten(text, MAX_LOGGED_CHARS)),
        other => other.clone(),
    }
}

/// What the user changed in a connection's settings, as the arguments of its audit line: each
/// setting that differs, a list as the entries `added` and `removed`, any other value as `from`
/// and `to`. None when nothing changed. (Settings hold no secret.)
pub fn settings_change(
    before: &kaiport_protocol::ConnectionSettings,
    after: &kaiport_protocol::ConnectionSettings,
) -> Option<Value> {
    let (Ok(Value::Object(before)), Ok(Value::Object(after))) =
        (serde_json::to_value(before), serde_json::to_value(after))
    else {
        return None;
    };
    let mut changed = Map::new();
    for (name, new) in &after {
        let old = before.get(name).unwrap_or(&Value::Null);
        if old == new {
            continue;
        }
        let change = match (old, new) {
            (Value::Array(old), Value::Array(new)) => {
                let mut lists = Map::new();
                for (word, from, to) in [("added", old, new), ("removed", new, old)] {
                    let entries: Vec<Value> = to
                        .iter()
                        .filter(|entry| !from.contains(entry))
                        .cloned()
                        .collect();
                    if !entries.is_empty() {
                        lists.insert(word.to_owned(), Value::Array(entries));
                    }
                }
                // Only the order changed: the new order is the change.
                if lists.is_empty() {
                    lists.insert("order".to_owned(), Value::Array(new.clone()));
                }
                Value::Object(lists)
            }
            _ => serde_json::json!({"from": old, "to": new}),
        };
        changed.insert(name.clone(), redact_args(&change));
    }
    (!changed.is_empty()).then_some(Value::Object(changed))
}

/// A string as the audit log keeps it (cut like the arguments' strings).
pub fn shorten_logged(text: &str) -> String {
    shorten(text, MAX_LOGGED_CHARS)
}

/// `text` cut to `max_chars` characters, with a note of how much was cut.
pub fn shorten(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_owned(),
        Some((cut, _)) => {
            let rest = text[cut..].chars().count();
            format!("{}… [{rest} more chars]", &text[..cut])
        }
    }
}

/// Characters that act on a terminal or reorder text on screen although JSON carries them raw:
/// DEL, the C1 controls, the bidirectional embeddings, overrides and isolates, and the direction
/// marks (LRM, RLM, ALM).
fn hides_or_acts(c: char) -> bool {
    matches!(
        c,
        '\u{7f}'..='\u{9f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{61c}'
    )
}

/// A line of JSON with [`hides_or_acts`] characters written as JSON escapes (`\u009b`): the
/// same JSON value, but nothing in the text a terminal or an editor acts on. (Raw, they can only
/// be inside strings in valid JSON, where an escape means the same.)
pub fn escape_json_line(line: &str) -> std::borrow::Cow<'_, str> {
    escape_where(line, hides_or_acts, |c| format!("\\u{:04x}", u32::from(c)))
}

/// Text from the log as a terminal may print it: every control character (C0, DEL, C1) and
/// every bidirectional override, isolate or mark shown as `\u{9b}`.
pub fn escape_for_terminal(text: &str) -> std::borrow::Cow<'_, str> {
    escape_where(
        text,
        |c| c.is_control() || hides_or_acts(c),
        |c| format!("\\u{{{:x}}}", u32::from(c)),
    )
}

/// `text` with each character `unsafe_char` picks replaced by `escape` of it.
fn escape_where(
    text: &str,
    unsafe_char: impl Fn(char) -> bool,
    escape: impl Fn(char) -> String,
) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(&unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&escape(c));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The current time as the audit log writes it.
pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_settings_change_names_what_was_added_removed_and_set() {
        let before = kaiport_protocol::ConnectionSettings {
            allowed_commands: vec!["df".to_owned(), "uptime".to_owned()],
            ..Default::default()
        };
        assert_eq!(settings_change(&before, &before), None);
        let after = kaiport_protocol::ConnectionSettings {
            allowed_commands: vec!["uptime".to_owned(), "free".to_owned()],
            command_timeout_s: 30,
            ..before.clone()
        };
        assert_eq!(
            settings_change(&before, &after),
            Some(serde_json::json!({
                "allowed_commands": {"added": ["free"], "removed": ["df"]},
                "command_timeout_s": {"from": 60, "to": 30},
            }))
        );
        let reordered = kaiport_protocol::ConnectionSettings {
            allowed_commands: vec!["uptime".to_owned(), "df".to_owned()],
            ..before.clone()
        };
        assert_eq!(
            settings_change(&before, &reordered),
            Some(serde_json::json!({"allowed_commands": {"order": ["uptime", "df"]}}))
        );
    }
    use kaiport_protocol::{DecidedBy, ToolStatus, Verdict};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn record(tool: &str) -> AuditRecord {
        AuditRecord {
            time: now_rfc3339(),
            tab: "t1".to_owned(),
            connection: "local".to_owned(),
            tool: tool.to_owned(),
            call: "c1".to_owned(),
            args: json!({}),
            decision: Verdict::Allow,
            decided_by: Some(DecidedBy::Rule),
            reasons: Vec::new(),
            status: ToolStatus::Ok,
            result: None,
            error: None,
            edited_command: None,
            duration_ms: 3,
            waited_ms: None,
        }
    }

    #[test]
    fn the_result_summary_keeps_how_it_ended_and_never_the_output() {
        let result = serde_json::json!({
            "status": "interrupted", "exit_code": 4, "output": "secret-ish text", "detection": "heuristic"
        });
        assert_eq!(
            result_summary(Some(&result)),
            Some(serde_json::json!({"status": "interrupted", "exit_code": 4}))
        );
        assert_eq!(
            result_summary(Some(&serde_json::json!({"entries": []}))),
            None
        );
        assert_eq!(result_summary(Some(&serde_json::json!("text"))), None);
        assert_eq!(result_summary(None), None);
    }

    #[test]
    fn the_result_summary_names_changes_and_their_backups() {
        let change = serde_json::json!({"change_id": "20261205T094425123Z-1a2b3c4d",
            "backup": "/home/u/.local/state/kaiport/backups/h_22/20261205T094425123Z-1a2b3c4d.data"});
        let edited = serde_json::json!({"path": "/etc/x", "bytes_written": 9, "change": change});
        assert_eq!(
            result_summary(Some(&edited)),
            Some(serde_json::json!({"change": change}))
        );
        let plan = serde_json::json!({"dropped": [], "outcomes": [
            {"index": 0, "status": "done", "message": "m", "change": {"change_id": "a", "note": "no backup: file too large (9 MB; the limit is 1 MB)"}},
            {"index": 1, "status": "done", "message": "m"}
        ]});
        assert_eq!(
            result_summary(Some(&plan)),
            Some(serde_json::json!({"changes": [
                {"change_id": "a", "note": "no backup: file too large (9 MB; the limit is 1 MB)"}
            ]}))
        );
    }

    #[test]
    fn secrets_and_contents_never_reach_the_log() {
        let args = json!({
            "path": "/etc/hosts",
            "content": "top secret file body",
            "edits": [{"old_text": "a", "new_text": "bc"}],
            "db_password": "hunter2",
            "command": "x".repeat(600),
        });
        let redacted = redact_args(&args);
        assert_eq!(redacted["path"], "/etc/hosts");
        assert_eq!(redacted["content"], "[20 bytes]");
        assert_eq!(redacted["edits"][0]["new_text"], "[2 bytes]");
        assert_eq!(redacted["db_password"], "[redacted]");
        assert_eq!(
            redacted["command"],
            format!("{}… [100 more chars]", "x".repeat(500))
        );
        assert!(!redacted.to_string().contains("hunter2"));
    }

    #[test]
    fn lines_are_appended_whole_and_a_partial_line_is_repaired() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs/ai-audit.jsonl");
        let log = AuditLog::open(&path).unwrap();
        log.append(&record("run_command")).unwrap();
        log.append(&record("read_screen")).unwrap();
        drop(log);
        // Simulate a crash in the middle of a line.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"time\":\"20")
            .unwrap();
        let log = AuditLog::open(&path).unwrap();
        log.append(&record("send_input")).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let tools: Vec<String> = text
            .lines()
            .map(|line| {
                serde_json::from_str::<Value>(line).unwrap()["tool"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(tools, vec!["run_command", "read_screen", "send_input"]);
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn terminal_controls_and_bidi_overrides_are_never_written_or_shown_raw() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ai-audit.jsonl");
        let log = AuditLog::open(&path).unwrap();
        let hostile = "a\u{9b}31mb\u{202e}txt.exe\u{2066}c\u{200f}d\u{61c}e\u{1b}[2Jf\u{85}g";
        let mut line = record("run_command");
        line.connection = format!("host{hostile}");
        line.args = json!({"command": hostile});
        log.append(&line).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        for raw in [
            '\u{9b}', '\u{202e}', '\u{2066}', '\u{200f}', '\u{61c}', '\u{1b}', '\u{85}',
        ] {
            assert!(!text.contains(raw), "{raw:?} raw in {text:?}");
        }
        assert!(text.contains(r"a\u009b31mb\u202etxt.exe"), "{text}");
        // The same value to a reader.
        let back: AuditRecord = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(back.args["command"], hostile);
        assert_eq!(read_recent(&path, 1).unwrap(), vec![line]);
        // Printed: visible, one escape per character; plain text stays as it is.
        assert_eq!(
            escape_for_terminal(hostile),
            r"a\u{9b}31mb\u{202e}txt.exe\u{2066}c\u{200f}d\u{61c}e\u{1b}[2Jf\u{85}g"
        );
        assert!(matches!(
            escape_for_terminal("ls -la /tmp — ünïcode"),
            std::borrow::Cow::Borrowed(_)
        ));
        // A line an older kaiport wrote raw is still valid JSON once escaped.
        let old = json!({ "tool": format!("x{hostile}") }).to_string();
        assert!(old.contains('\u{9b}'));
        let escaped = escape_json_line(&old);
        assert!(!escaped.contains('\u{9b}'));
        let value: Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(value["tool"], format!("x{hostile}"));
    }

    #[test]
    fn the_recent_lines_are_read_back_oldest_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ai-audit.jsonl");
        assert_eq!(read_recent(&path, 10).unwrap(), vec![]);
        let log = AuditLog::open(&path).unwrap();
        // Enough lines to span several read blocks.
        for index in 0..3000 {
            log.append(&record(&format!("tool{index}"))).unwrap();
        }
        let recent = read_recent(&path, 3).unwrap();
        let tools: Vec<&str> = recent.iter().map(|entry| entry.tool.as_str()).collect();
        assert_eq!(tools, vec!["tool2997", "tool2998", "tool2999"]);
        assert_eq!(
            recent[2],
            AuditRecord {
                time: recent[2].time.clone(),
                ..record("tool2999")
            }
        );
        assert_eq!(read_recent(&path, 5000).unwrap().len(), 3000);
    }
}
