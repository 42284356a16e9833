//! Pilot's conversation of a tab, saved as JSON lines in the app's data folder
//! (`pilot-history/<tab>.jsonl`) so a restarted app can show it.
//!
//! Lines hold what the conversation holds (the user's messages, the model's text and tool
//! calls, tool results as the model saw them) and when turns ended. Never an API key: keys
//! are not part of a conversation. Each line is written with one `write` on an append-only
//! file.

use crate::llm::Message;
use kaiport_protocol::TurnStatus;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder inside the data folder.
pub const HISTORY_DIR: &str = "pilot-history";

/// One line of a history file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HistoryEntry {
    Message {
        time: String,
        turn: u64,
        message: Message,
    },
    TurnFinished {
        time: String,
        turn: u64,
        status: TurnStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
}

/// The history file of `tab` under `data_dir`. Tab ids are chosen by front ends, so anything
/// but letters, digits, `-` and `_` is replaced to keep the file inside the folder.
pub fn history_path(data_dir: &Path, tab: &str) -> PathBuf {
    let name: String = tab
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    data_dir.join(HISTORY_DIR).join(format!("{name}.jsonl"))
}

/// An open history file.
#[derive(Debug)]
pub struct History {
    path: PathBuf,
    file: File,
}

impl History {
    pub fn open(data_dir: &Path, tab: &str) -> std::io::Result<History> {
        let path = history_path(data_dir, tab);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(History { path, file })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn append(&mut self, entry: &HistoryEntry) -> std::io::Result<()> {
        let mut line = serde_json::to_string(entry).map_err(std::io::Error::other)?;
        line.push('\n');
        self.file.write_all(line.as_bytes())?;
        self.file.flush()
    }
}

/// Every whole line of `tab`'s history; a damaged line (a crash mid-write) is skipped.
pub fn load(data_dir: &Path, tab: &str) -> std::io::Result<Vec<HistoryEntry>> {
    let text = match std::fs::read_to_string(history_path(data_dir, tab)) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error),
    };
    Ok(text
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn entries_round_trip_and_names_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            history_path(dir.path(), "../etc/x"),
            dir.path().join(HISTORY_DIR).join("___etc_x.jsonl")
        );
        let entries = vec![
            HistoryEntry::Message {
                time: "t".into(),
                turn: 1,
                message: Message::User { text: "hi".into() },
            },
            HistoryEntry::TurnFinished {
                time: "t".into(),
                turn: 1,
                status: TurnStatus::Completed,
                message: None,
            },
        ];
        let mut history = History::open(dir.path(), "tab/1").unwrap();
        for entry in &entries {
            history.append(entry).unwrap();
        }
        std::fs::OpenOptions::new()
            .append(true)
            .open(history.path())
            .unwrap()
            .write_all(b"{\"kind\":\"mess")
            .unwrap();
        assert_eq!(load(dir.path(), "tab/1").unwrap(), entries);
        assert_eq!(load(dir.path(), "other").unwrap(), vec![]);
    }
}
