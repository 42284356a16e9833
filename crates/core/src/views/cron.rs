//! cron: the login user's `crontab -l`, `/etc/crontab`, the files in `/etc/cron.d`, and systemd
//! timers (`systemctl list-timers --all -o json`) where systemd runs. The summary lists the jobs
//! with their next run where it is known (timers say it; for cron lines kaiport works it out
//! from the server's clock).

use super::text::{Summary, clean_line, shorten};
use super::{Built, Runner};
use kaiport_protocol::{CronJob, CronView, TimerRow, ViewData};

const CRONTAB: &str = "crontab -l";
const SYSTEM_CRONTAB: &str = "cat /etc/crontab";
/// Each file of /etc/cron.d after a \x01NAME\x02 line (names are data, never split wrongly).
const CRON_D: &str = "for f in /etc/cron.d/*; do [ -f \"$f\" ] && printf '\\001%s\\002\\n' \"$f\" && cat -- \"$f\"; done; true";
const TIMERS: &str = "systemctl list-timers --all --no-pager -o json";
const CLOCK: &str = "date '+%Y-%m-%d %H:%M %u'";

pub(super) async fn build(runner: &Runner<'_>) -> Built {
    let ran = runner
        .run_all(&[
            CRONTAB.to_owned(),
            SYSTEM_CRONTAB.to_owned(),
            CRON_D.to_owned(),
            TIMERS.to_owned(),
            CLOCK.to_owned(),
        ])
        .await;
    let [user, system, cron_d, timers, clock] = [&ran[0], &ran[1], &ran[2], &ran[3], &ran[4]];
    let now = next_run::Clock::parse(&clock.stdout);
    let mut jobs = Vec::new();
    if user.ok() {
        jobs.extend(parse_crontab("crontab", &user.stdout, false));
    } else if !user.missing() && !user.stderr.contains("no crontab for") {
        runner.gap(user.gap("the login user's crontab"));
    }
    if system.ok() {
        jobs.extend(parse_crontab("/etc/crontab", &system.stdout, true));
    } else if system.denied() {
        runner.gap(system.gap("/etc/crontab"));
    }
    for (name, content) in split_cron_d(&cron_d.stdout) {
        jobs.extend(parse_crontab(&name, &content, true));
    }
    let timer_rows = if timers.ok() {
        parse_timers(&timers.stdout)
    } else {
        Vec::new()
    };
    if user.missing() && !system.ok() && jobs.is_empty() && timer_rows.is_empty() {
        return Built::unavailable(
            "no cron (no crontab command, no /etc/crontab) and no systemd timers",
        );
    }
    if let Some(now) = now {
        for job in &mut jobs {
            job.next_run = next_run::next(&job.schedule, &now);
        }
    }
    let summary = summarise(&jobs, &timer_rows);
    Built::new(
        ViewData::Cron(CronView {
            jobs,
            timers: timer_rows,
        }),
        summary,
    )
}

/// Jobs of one crontab; `with_user`: system crontabs name the user after the schedule.
pub(super) fn parse_crontab(source: &str, content: &str, with_user: bool) -> Vec<CronJob> {
    content
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || is_assignment(line) {
                return None;
            }
            let time_fields = if line.starts_with('@') { 1 } else { 5 };
            let wanted = time_fields + usize::from(with_user);
            let mut rest = line;
            let mut fields = Vec::with_capacity(wanted);
            for _ in 0..wanted {
                rest = rest.trim_start();
                let end = rest.find(char::is_whitespace)?;
                fields.push(&rest[..end]);
                rest = &rest[end..];
            }
            let command = rest.trim();
            if command.is_empty() {
                return None;
            }
            Some(CronJob {
                source: clean_line(source),
                schedule: clean_line(&fields[..time_fields].join(" ")),
                user: with_user.then(|| clean_line(fields[time_fields])),
                command: clean_line(command),
                next_run: None,
            })
        })
        .collect()
}

/// `NAME=value` lines set the environment of the jobs after them.
fn is_assignment(line: &str) -> bool {
    match line.split_once('=') {
        Some((name, _)) => {
            let name = name.trim();
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

fn split_cron_d(output: &str) -> Vec<(String, String)> {
    output
        .split('\u{1}')
        .filter_map(|part| {
            let (name, content) = part.split_once("\u{2}\n")?;
            Some((name.to_owned(), content.to_owned()))
        })
        .collect()
}

/// `systemctl list-timers -o json`: objects with `unit`, `activates`, `next`, `last` (µs since
/// the epoch, or null).
fn parse_timers(output: &str) -> Vec<TimerRow> {
    let Ok(serde_json::Value::Array(items)) = serde_json::from_str(output) else {
        return Vec::new();
    };
    let time = |value: Option<&serde_json::Value>| {
        value
            .and_then(serde_json::Value::as_i64)
            .filter(|us| *us > 0)
            .and_then(chrono::DateTime::from_timestamp_micros)
            .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
    };
    items
        .iter()
        .filter_map(|item| {
            Some(TimerRow {
                unit: clean_line(item.get("unit")?.as_str()?),
                activates: clean_line(item.get("activates").and_then(|a| a.as_str()).unwrap_or("")),
                next: time(item.get("next")),
                last: time(item.get("last")),
            })
        })
        .collect()
}

fn summarise(jobs: &[CronJob], timers: &[TimerRow]) -> Summary {
    let mut summary = Summary::default();
    summary.line(format!(
        "{} cron jobs, {} systemd timers",
        jobs.len(),
        timers.len()
    ));
    let mut ordered: Vec<&CronJob> = jobs.iter().collect();
    // Known next runs first, soonest first.
    ordered.sort_by(|a, b| match (&a.next_run, &b.next_run) {
        (Some(x), Some(y)) => x.cmp(y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    for job in ordered {
        summary.line(format!(
            "  [{}] {}{} next: {} | {}",
            job.source,
            job.schedule,
            job.user
                .as_deref()
                .map(|u| format!(" as {u}"))
                .unwrap_or_default(),
            job.next_run.as_deref().unwrap_or("unknown"),
            shorten(&job.command, 120)
        ));
    }
    for timer in timers {
        summary.line(format!(
            "  timer {} → {} next: {}",
            timer.unit,
            timer.activates,
            timer.next.as_deref().unwrap_or("none")
        ));
    }
    summary
}

/// The next run of a cron schedule after the server's clock.
mod next_run {
    use chrono::{Datelike, Duration, NaiveDateTime, Timelike};

    /// The server's local time, from `date '+%Y-%m-%d %H:%M %u'`.
    pub struct Clock(NaiveDateTime);

    impl Clock {
        pub fn parse(output: &str) -> Option<Clock> {
            let text = output.trim();
            let stamp = text.get(..16)?;
            NaiveDateTime::parse_from_str(stamp, "%Y-%m-%d %H:%M")
                .ok()
                .map(Clock)
        }
    }

    /// Days searched ahead; a schedule with no run in them (Feb 30) has none.
    const HORIZON_DAYS: i64 = 366 * 4;

    /// `YYYY-MM-DD HH:MM` of the next run strictly after `now`; `None` for `@reboot` and for
    /// what kaiport cannot read.
    pub fn next(schedule: &str, now: &Clock) -> Option<String> {
        let expanded = match schedule {
            "@yearly" | "@annually" => "0 0 1 1 *",
            "@monthly" => "0 0 1 * *",
            "@weekly" => "0 0 * * 0",
            "@daily" | "@midnight" => "0 0 * * *",
            "@hourly" => "0 * * * *",
            other if other.starts_with('@') => return None,
            other => other,
        };
        let fields: Vec<&str> = expanded.split_whitespace().collect();
        let [minute, hour, day, month, weekday] = fields.as_slice() else {
            return None;
        };
        let minutes = set(minute, 0, 59, &[])?;
        let hours = set(hour, 0, 23, &[])?;
        let days = set(day, 1, 31, &[])?;
        let months = set(month, 1, 12, &MONTHS)?;
        let mut weekdays = set(weekday, 0, 7, &WEEKDAYS)?;
        if weekdays[7] {
            weekdays[0] = true;
        }
        // Vixie cron: when both day fields are restricted, either may match.
        let day_any = day.starts_with('*');
        let weekday_any = weekday.starts_with('*');
        let start = now.0.with_second(0)? + Duration::minutes(1);
        let mut date = start.date();
        let last = date + Duration::days(HORIZON_DAYS);
        while date <= last {
            let day_ok = days[date.day() as usize];
            let weekday_ok = weekdays[date.weekday().num_days_from_sunday() as usize];
            let matches_day = match (day_any, weekday_any) {
                (true, true) => true,
                (true, false) => weekday_ok,
                (false, true) => day_ok,
                (false, false) => day_ok || weekday_ok,
            };
            if months[date.month() as usize] && matches_day {
                for h in 0..24u32 {
                    if !hours[h as usize] {
                        continue;
                    }
                    for m in 0..60u32 {
                        if !minutes[m as usize] {
                            continue;
                        }
                        let at = date.and_hms_opt(h, m, 0)?;
                        if at >= start {
                            return Some(at.format("%Y-%m-%d %H:%M").to_string());
                        }
                    }
                }
            }
            date = date.succ_opt()?;
        }
        None
    }

    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    const WEEKDAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

    /// A field (`*`, `*/5`, `1-5`, `1,3`, `mon-fri`) as a table indexed by value.
    fn set(field: &str, low: u32, high: u32, names: &[&str]) -> Option<Vec<bool>> {
        let mut table = vec![false; high as usize + 1];
        let value = |text: &str| -> Option<u32> {
            if let Ok(n) = text.parse::<u32>() {
                return Some(n);
            }
            let lower = text.to_ascii_lowercase();
            let index = names.iter().position(|name| *name == lower)?;
            // Month names count from 1, weekday names from 0.
            Some(index as u32 + if names.len() == 12 { 1 } else { 0 })
        };
        for part in field.split(',') {
            let (range, step) = match part.split_once('/') {
                Some((range, step)) => (range, step.parse::<u32>().ok().filter(|s| *s > 0)?),
                None => (part, 1),
            };
            let (from, to) = if range == "*" {
                (low, high)
            } else if let Some((a, b)) = range.split_once('-') {
                (value(a)?, value(b)?)
            } else {
                let single = value(range)?;
                (single, if part.contains('/') { high } else { single })
            };
            if from < low || to > high || from > to {
                return None;
            }
            let mut at = from;
            while at <= to {
                table[at as usize] = true;
                at += step;
            }
        }
        Some(table)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn next_runs_follow_the_fields() {
            let now = Clock::parse("2026-12-03 10:58 4\n").unwrap();
            assert_eq!(
                next("*/15 * * * *", &now).as_deref(),
                Some("2026-12-03 11:00")
            );
            assert_eq!(
                next("30 2 * * *", &now).as_deref(),
                Some("2026-12-04 02:30")
            );
            assert_eq!(
                next("0 0 * * mon", &now).as_deref(),
                Some("2026-12-07 00:00")
            );
            assert_eq!(
                next("0 0 1 jan *", &now).as_deref(),
                Some("2027-01-01 00:00")
            );
            assert_eq!(next("@daily", &now).as_deref(), Some("2026-12-04 00:00"));
            assert_eq!(next("0 0 30 2 *", &now), None);
            assert_eq!(next("@reboot", &now), None);
            assert_eq!(next("61 * * * *", &now), None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn crontab_lines_become_jobs() {
        let system = "SHELL=/bin/sh\n# m h dom mon dow user command\n17 * * * * root cd / && run-parts --report /etc/cron.hourly\n@reboot www-data /srv/start.sh\n\n";
        let jobs = parse_crontab("/etc/crontab", system, true);
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].schedule, "17 * * * *");
        assert_eq!(jobs[0].user.as_deref(), Some("root"));
        assert_eq!(
            jobs[0].command,
            "cd / && run-parts --report /etc/cron.hourly"
        );
        assert_eq!(jobs[1].schedule, "@reboot");
        let user = parse_crontab("crontab", "*/5 * * * * echo \"$(date)\" >> /tmp/x\n", false);
        assert_eq!(user[0].user, None);
        assert_eq!(user[0].command, "echo \"$(date)\" >> /tmp/x");
        let files =
            split_cron_d("\u{1}/etc/cron.d/a\u{2}\n1 1 * * * root x\n\u{1}/etc/cron.d/b\u{2}\n");
        assert_eq!(
            files,
            vec![
                ("/etc/cron.d/a".into(), "1 1 * * * root x\n".into()),
                ("/etc/cron.d/b".into(), String::new())
            ]
        );
    }
}
