//! logs: the last warnings and errors of the system journal (`journalctl -n 200 -p warning -o
//! json`), or where there is no journal the last lines of `/var/log/syslog` or
//! `/var/log/messages`, or the last 200 lines of a file the call names. Lines are classified as
//! error / warning / other; the summary leads with the counts and the last error lines.
//!
//! Line texts reach the model only where the connection allows file contents to be sent to the
//! AI; otherwise the summary has the counts and the user sees the lines.

use super::text::{Summary, clean_line, quote, shorten};
use super::{Built, Runner};
use kaiport_protocol::{GapReason, LogLevel, LogLine, LogsView, ViewData, ViewGap};
use regex::Regex;
use std::sync::LazyLock;

/// Lines a log view reads.
pub(super) const LOG_LINES: u32 = 200;
/// Error lines in the summary.
const SUMMARY_ERRORS: usize = 8;
/// Last lines in the summary.
const SUMMARY_LAST: usize = 5;

const SYSLOG_FILES: [&str; 2] = ["/var/log/syslog", "/var/log/messages"];

pub(super) async fn build(runner: &Runner<'_>, path: Option<&str>) -> Built {
    let view = match path {
        Some(path) => {
            let ran = runner
                .run(&format!("tail -n {LOG_LINES} -- {}", quote(path)))
                .await;
            if ran.missing() {
                return Built::unavailable("there is no `tail` command");
            }
            if !ran.ok() {
                runner.gap(ran.gap(format!("the file {}", clean_line(path))));
            }
            file_view(clean_line(path), &ran.stdout)
        }
        None => {
            let mut commands = vec![format!(
                "journalctl -n {LOG_LINES} -p warning --no-pager -o json"
            )];
            commands.extend(
                SYSLOG_FILES
                    .iter()
                    .map(|file| format!("tail -n {LOG_LINES} -- {file}")),
            );
            let ran = runner.run_all(&commands).await;
            let journal = parse_journal(&ran[0].stdout);
            if !journal.is_empty() {
                if ran[0]
                    .stderr
                    .contains("not seeing messages from other users")
                {
                    runner.gap(ViewGap {
                        what: "messages of the system and other users".to_owned(),
                        reason: GapReason::Permission,
                        detail: "the login user is not in the adm or systemd-journal group"
                            .to_owned(),
                    });
                }
                view_of("journal (warnings and worse)".to_owned(), journal)
            } else if let Some((file, out)) = SYSLOG_FILES
                .iter()
                .zip(&ran[1..])
                .find(|(_, out)| out.ok() && !out.stdout.is_empty())
            {
                file_view((*file).to_owned(), &out.stdout)
            } else {
                let denied = ran[1..].iter().find(|out| out.denied());
                if let Some(out) = denied {
                    runner.gap(out.gap("the system log"));
                }
                if ran
                    .iter()
                    .all(|out| out.missing() || !out.ok() || out.stdout.is_empty())
                    && denied.is_none()
                {
                    return Built::unavailable(
                        "no system journal with entries, and no /var/log/syslog or /var/log/messages; \
                         name a log file with `path`",
                    );
                }
                view_of("system log".to_owned(), Vec::new())
            }
        }
    };
    let summary = summarise(&view, runner.contents_allowed());
    Built::new(ViewData::Logs(view), summary)
}

fn file_view(source: String, output: &str) -> LogsView {
    let lines = output
        .lines()
        .map(|line| {
            let text = clean_line(line);
            LogLine {
                time: None,
                level: classify(&text),
                text,
            }
        })
        .collect();
    view_of(source, lines)
}

pub(super) fn view_of(source: String, lines: Vec<LogLine>) -> LogsView {
    let count = |level| {
        let n = lines.iter().filter(|line| line.level == level).count();
        u32::try_from(n).unwrap_or(u32::MAX)
    };
    LogsView {
        source,
        errors: count(LogLevel::Error),
        warnings: count(LogLevel::Warning),
        lines,
    }
}

static ERROR: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(emerg(ency)?|alert|crit(ical)?|fatal|panic|err(or)?|fail(ed|ure|s)?|exception|traceback|denied|segfault|oom|killed)\b").ok()
});
static WARNING: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\b(warn(ing)?|deprecated)\b").ok());

/// The level a line looks like it has, from its words.
pub(super) fn classify(text: &str) -> LogLevel {
    let matches = |re: &LazyLock<Option<Regex>>| re.as_ref().is_some_and(|re| re.is_match(text));
    if matches(&ERROR) {
        LogLevel::Error
    } else if matches(&WARNING) {
        LogLevel::Warning
    } else {
        LogLevel::Other
    }
}

/// `journalctl -o json` lines (one object each); MESSAGE may be a string, bytes or absent.
pub(super) fn parse_journal(output: &str) -> Vec<LogLine> {
    output
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .map(|entry| {
            let field = |key: &str| entry.get(key).and_then(|v| v.as_str()).map(str::to_owned);
            let message = match entry.get("MESSAGE") {
                Some(serde_json::Value::String(text)) => text.clone(),
                Some(serde_json::Value::Array(bytes)) => {
                    let bytes: Vec<u8> = bytes
                        .iter()
                        .filter_map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                        .collect();
                    String::from_utf8_lossy(&bytes).into_owned()
                }
                _ => String::new(),
            };
            let who = field("SYSLOG_IDENTIFIER")
                .or_else(|| field("_COMM"))
                .unwrap_or_default();
            let text = clean_line(&if who.is_empty() {
                message
            } else {
                format!("{who}: {message}")
            });
            let level = match field("PRIORITY").and_then(|p| p.parse::<u8>().ok()) {
                Some(0..=3) => LogLevel::Error,
                Some(4) => LogLevel::Warning,
                Some(_) => LogLevel::Other,
                None => classify(&text),
            };
            let time = field("__REALTIME_TIMESTAMP")
                .and_then(|us| us.parse::<i64>().ok())
                .and_then(chrono::DateTime::from_timestamp_micros)
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
            LogLine { time, level, text }
        })
        .collect()
}

/// The summary of a log view: counts, then (where allowed) the last error lines and the last
/// lines.
pub(super) fn summarise(view: &LogsView, contents_allowed: bool) -> Summary {
    let mut summary = Summary::default();
    summary.line(format!(
        "{}: {} lines, {} errors, {} warnings",
        view.source,
        view.lines.len(),
        view.errors,
        view.warnings
    ));
    if !contents_allowed {
        summary.line(
            "The lines are shown to the user only: this connection does not send file contents \
             to the AI (setting send_file_contents).",
        );
        return summary;
    }
    let line = |l: &LogLine| {
        format!(
            "  {}{}",
            l.time
                .as_deref()
                .map(|t| format!("{t} "))
                .unwrap_or_default(),
            shorten(&l.text, 200)
        )
    };
    let errors: Vec<&LogLine> = view
        .lines
        .iter()
        .filter(|l| l.level == LogLevel::Error)
        .collect();
    if !errors.is_empty() {
        summary.line("Last errors:");
        let skip = errors.len().saturating_sub(SUMMARY_ERRORS);
        errors.iter().skip(skip).for_each(|l| summary.line(line(l)));
    }
    summary.line("Last lines:");
    let skip = view.lines.len().saturating_sub(SUMMARY_LAST);
    view.lines
        .iter()
        .skip(skip)
        .for_each(|l| summary.line(line(l)));
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn journal_entries_keep_level_time_and_text() {
        let output = concat!(
            r#"{"PRIORITY":"3","MESSAGE":"disk \u001b[31mfull","SYSLOG_IDENTIFIER":"app","__REALTIME_TIMESTAMP":"1700000000000000"}"#,
            "\n",
            r#"{"PRIORITY":"4","MESSAGE":[104,105]}"#,
            "\nnot json\n"
        );
        let lines = parse_journal(output);
        assert_eq!(
            lines,
            vec![
                LogLine {
                    time: Some("2023-11-14T22:13:20Z".into()),
                    level: LogLevel::Error,
                    text: "app: disk full".into()
                },
                LogLine {
                    time: None,
                    level: LogLevel::Warning,
                    text: "hi".into()
                },
            ]
        );
    }

    #[test]
    fn lines_are_classified_by_their_words() {
        assert_eq!(classify("nginx: [error] connect() failed"), LogLevel::Error);
        assert_eq!(classify("WARNING: low space"), LogLevel::Warning);
        assert_eq!(classify("terror of errands"), LogLevel::Other);
        let view = file_view("/x".into(), "ok\nERROR one\nwarn two\n");
        assert_eq!((view.errors, view.warnings), (1, 1));
        let hidden = summarise(&view, false).finish();
        assert!(!hidden.contains("ERROR one"), "{hidden}");
        assert!(
            summarise(&view, true)
                .finish()
                .contains("Last errors:\n  ERROR one")
        );
    }
}
