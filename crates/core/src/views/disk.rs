//! disk (`df -PT -B1` and `df -Pi`: file systems, space and inodes) and disk_usage
//! (`du -x -d1 -B1` of one folder, largest first, stopped on the server before the view's time
//! limit so what it summed so far still arrives).

use super::processes::leading_fields;
use super::text::{Summary, clean_line, human_bytes, quote};
use super::{Built, Runner, VIEW_TIME_LIMIT};
use kaiport_protocol::{
    DiskUsageEntry, DiskUsageView, DiskView, FilesystemRow, GapReason, ViewData, ViewGap,
};

const DF_SPACE: &str = "df -PT -B1";
const DF_INODES: &str = "df -Pi";
/// A file system this full (space or inodes) leads the summary.
const FULL_PERCENT: f64 = 90.0;
/// `timeout`'s status when it stopped the command.
const TIMED_OUT: u32 = 124;
/// Entries of disk_usage in the summary.
const SUMMARY_ENTRIES: usize = 10;

pub(super) async fn build_disk(runner: &Runner<'_>) -> Built {
    let ran = runner
        .run_all(&[DF_SPACE.to_owned(), DF_INODES.to_owned()])
        .await;
    let (space, inodes) = (&ran[0], &ran[1]);
    if space.missing() {
        return Built::unavailable("there is no `df` command");
    }
    if !space.ok() {
        runner.gap(space.gap("some file systems"));
    }
    if !inodes.ok() && !inodes.stdout.is_empty() {
        runner.gap(inodes.gap("inode counts of some file systems"));
    }
    let filesystems = parse_df(&space.stdout, &inodes.stdout);
    let summary = summarise_disk(&filesystems);
    Built::new(ViewData::Disk(DiskView { filesystems }), summary)
}

pub(super) fn parse_df(space: &str, inodes: &str) -> Vec<FilesystemRow> {
    let mut rows: Vec<FilesystemRow> = space
        .lines()
        .skip(1)
        .filter_map(|line| {
            let (fields, mount) = leading_fields::<6>(line)?;
            let size: u64 = fields[2].parse().ok()?;
            let used: u64 = fields[3].parse().ok()?;
            let available: u64 = fields[4].parse().ok()?;
            let used_percent = match used + available {
                0 => 0.0,
                whole => used as f64 * 100.0 / whole as f64,
            };
            Some(FilesystemRow {
                source: clean_line(fields[0]),
                fs_type: clean_line(fields[1]),
                mount: clean_line(mount.trim()),
                size_bytes: size,
                used_bytes: used,
                available_bytes: available,
                used_percent,
                inodes_total: None,
                inodes_used: None,
                inodes_percent: None,
            })
        })
        .filter(|row| row.size_bytes > 0)
        .collect();
    for line in inodes.lines().skip(1) {
        let Some((fields, mount)) = leading_fields::<5>(line) else {
            continue;
        };
        let mount = clean_line(mount.trim());
        let (Ok(total), Ok(used)) = (fields[1].parse::<u64>(), fields[2].parse::<u64>()) else {
            continue;
        };
        if let Some(row) = rows.iter_mut().find(|row| row.mount == mount) {
            row.inodes_total = Some(total);
            row.inodes_used = Some(used);
            row.inodes_percent = (total > 0).then(|| used as f64 * 100.0 / total as f64);
        }
    }
    rows
}

fn summarise_disk(rows: &[FilesystemRow]) -> Summary {
    let mut summary = Summary::default();
    let full: Vec<&FilesystemRow> = rows
        .iter()
        .filter(|row| {
            row.used_percent >= FULL_PERCENT || row.inodes_percent.unwrap_or(0.0) >= FULL_PERCENT
        })
        .collect();
    for row in &full {
        summary.line(format!(
            "FULL: {} ({}) {:.0}% space used, {} free{}",
            row.mount,
            row.source,
            row.used_percent,
            human_bytes(row.available_bytes),
            row.inodes_percent
                .map(|p| format!(", inodes {p:.0}% used"))
                .unwrap_or_default()
        ));
    }
    summary.line(format!(
        "{} file systems, {} at or above {FULL_PERCENT:.0}% (space or inodes)",
        rows.len(),
        full.len()
    ));
    let mut by_use: Vec<&FilesystemRow> = rows.iter().collect();
    by_use.sort_by(|a, b| b.used_percent.total_cmp(&a.used_percent));
    for row in by_use.iter().filter(|row| !full.contains(row)) {
        summary.line(format!(
            "  {} {} {:.0}% of {} used{}",
            row.mount,
            row.fs_type,
            row.used_percent,
            human_bytes(row.size_bytes),
            row.inodes_percent
                .map(|p| format!(", inodes {p:.0}%"))
                .unwrap_or_default()
        ));
    }
    summary
}

pub(super) async fn build_usage(runner: &Runner<'_>, path: &str) -> Built {
    // Stopped by the server a little before the view's limit, so the sizes summed so far arrive.
    let seconds = VIEW_TIME_LIMIT.as_secs().saturating_sub(3).max(1);
    let command = format!("timeout {seconds} du -0 -x -d1 -B1 -- {}", quote(path));
    let ran = runner.run(&command).await;
    if ran.missing() {
        return Built::unavailable("there is no `du` (or `timeout`) command");
    }
    let mut gaps = Vec::new();
    let mut complete = ran.ok();
    if ran.exit == Some(TIMED_OUT) || ran.timed_out {
        gaps.push(ViewGap {
            what: "part of the folder tree (sizes are lower bounds)".to_owned(),
            reason: GapReason::TimeLimit,
            detail: format!("du was stopped after {seconds} s"),
        });
        complete = false;
    } else if !ran.ok() {
        let unreadable = ran.stderr.lines().filter(|l| !l.trim().is_empty()).count();
        let mut gap = ran.gap(format!("{unreadable} folders or files du could not read"));
        if ran.denied() {
            gap.reason = GapReason::Permission;
        }
        gaps.push(gap);
    }
    let (total, entries) = parse_du(&ran.stdout, path);
    let mut summary = Summary::default();
    summary.line(format!(
        "{} {}{}, {} entries",
        clean_line(path),
        total.map_or_else(|| "total unknown".to_owned(), human_bytes),
        if complete { "" } else { " (incomplete)" },
        entries.len()
    ));
    summary.line("Largest:");
    for entry in entries.iter().take(SUMMARY_ENTRIES) {
        summary.line(format!("  {} {}", human_bytes(entry.bytes), entry.path));
    }
    Built {
        data: ViewData::DiskUsage(DiskUsageView {
            path: clean_line(path),
            total_bytes: total,
            entries,
            complete,
        }),
        summary,
        gaps,
    }
}

/// `du -0` output: `SIZE\tPATH\0` records. The record of `path` itself is the total; the
/// others are sorted largest first.
pub(super) fn parse_du(output: &str, path: &str) -> (Option<u64>, Vec<DiskUsageEntry>) {
    let given = path.trim_end_matches('/');
    let mut total = None;
    let mut entries = Vec::new();
    for record in output.split('\0') {
        let Some((size, name)) = record.split_once('\t') else {
            continue;
        };
        let Ok(bytes) = size.trim().parse::<u64>() else {
            continue;
        };
        if name.trim_end_matches('/') == given {
            total = Some(bytes);
        } else {
            entries.push(DiskUsageEntry {
                path: clean_line(name),
                bytes,
            });
        }
    }
    entries.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.path.cmp(&b.path)));
    (total, entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn df_rows_join_space_and_inodes() {
        let space = "Filesystem     Type   1-blocks     Used Available Capacity Mounted on\n\
                     /dev/vda       ext4  1000000   950000     50000      95% /\n\
                     tmpfs          tmpfs       0        0         0       -  /dev/x\n\
                     /dev/vdb       xfs   2000000   100000   1900000       5% /srv/my data\n";
        let inodes = "Filesystem Inodes IUsed IFree IUse% Mounted on\n\
                      /dev/vda 100 10 90 10% /\n\
                      /dev/vdb 100 95 5 95% /srv/my data\n";
        let rows = parse_df(space, inodes);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].mount, "/srv/my data");
        assert_eq!(rows[1].inodes_percent, Some(95.0));
        let text = summarise_disk(&rows).finish();
        assert!(
            text.starts_with("FULL: / (/dev/vda) 95% space used"),
            "{text}"
        );
        assert!(
            text.contains("FULL: /srv/my data (/dev/vdb) 5% space used"),
            "{text}"
        );
    }

    #[test]
    fn du_records_keep_odd_names() {
        let output = "4096\t/d/a\nb\u{0}9000\t/d/big\u{0}13096\t/d\u{0}";
        let (total, entries) = parse_du(output, "/d/");
        assert_eq!(total, Some(13096));
        assert_eq!(
            entries,
            vec![
                DiskUsageEntry {
                    path: "/d/big".into(),
                    bytes: 9000
                },
                DiskUsageEntry {
                    path: "/d/a b".into(),
                    bytes: 4096
                },
            ]
        );
    }
}
