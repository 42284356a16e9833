//! processes: `ps` (pid, user, CPU, memory, RSS, elapsed, state, command line), the load
//! average against the CPUs online, and memory from `/proc/meminfo`. Summary leads with load
//! above the cores, low memory and zombies, then the top CPU and memory users.

use super::text::{Summary, clean_line, human_bytes, shorten};
use super::{Built, Runner};
use kaiport_protocol::{
    LoadAverage, MAX_PROCESS_ROWS, MemoryInfo, ProcessRow, ProcessesView, ViewData,
};

const PS: &str = "ps -eo pid=,user:32=,pcpu=,pmem=,rss=,etimes=,stat=,args=";
const CORES: &str = "getconf _NPROCESSORS_ONLN";
const PROC: &str = "cat /proc/loadavg /proc/meminfo";

pub(super) async fn build(runner: &Runner<'_>) -> Built {
    let ran = runner
        .run_all(&[PS.to_owned(), CORES.to_owned(), PROC.to_owned()])
        .await;
    let [ps, cores, proc_files] = [&ran[0], &ran[1], &ran[2]];
    if ps.missing() {
        return Built::unavailable("there is no `ps` command");
    }
    if !ps.ok() {
        runner.gap(ps.gap("the process list"));
    }
    if !proc_files.ok() {
        runner.gap(proc_files.gap("load and memory (/proc/loadavg, /proc/meminfo)"));
    }
    let mut processes = parse_ps(&ps.stdout);
    let cores = cores.stdout.trim().parse::<u32>().ok();
    let load = parse_load(&proc_files.stdout);
    let memory = parse_meminfo(&proc_files.stdout);
    let summary = summarise(&processes, cores, load, memory);
    let total = u32::try_from(processes.len()).unwrap_or(u32::MAX);
    processes.sort_by(|a, b| b.cpu_percent.total_cmp(&a.cpu_percent));
    processes.truncate(MAX_PROCESS_ROWS);
    Built::new(
        ViewData::Processes(ProcessesView {
            cores,
            load,
            memory,
            total,
            processes,
        }),
        summary,
    )
}

/// Rows of `ps -eo pid=,user=,pcpu=,pmem=,rss=,etimes=,stat=,args=`; the command line is the
/// rest of the line, spaces and all.
pub(super) fn parse_ps(output: &str) -> Vec<ProcessRow> {
    output
        .lines()
        .filter_map(|line| {
            let (fields, command) = leading_fields::<7>(line)?;
            Some(ProcessRow {
                pid: fields[0].parse().ok()?,
                user: clean_line(fields[1]),
                cpu_percent: fields[2].parse().ok()?,
                memory_percent: fields[3].parse().ok()?,
                rss_bytes: fields[4].parse::<u64>().ok()?.saturating_mul(1024),
                elapsed_s: fields[5].parse().ok()?,
                state: clean_line(fields[6]),
                command: clean_line(command.trim()),
            })
        })
        .collect()
}

/// The first `N` whitespace-separated fields of `line` and the rest after them.
pub(super) fn leading_fields<const N: usize>(line: &str) -> Option<([&str; N], &str)> {
    let mut fields = [""; N];
    let mut rest = line;
    for field in &mut fields {
        rest = rest.trim_start();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        if end == 0 {
            return None;
        }
        *field = &rest[..end];
        rest = &rest[end..];
    }
    Some((fields, rest))
}

fn parse_load(output: &str) -> Option<LoadAverage> {
    let line = output.lines().next()?;
    let mut numbers = line.split_whitespace().map(str::parse::<f64>);
    Some(LoadAverage {
        one: numbers.next()?.ok()?,
        five: numbers.next()?.ok()?,
        fifteen: numbers.next()?.ok()?,
    })
}

fn parse_meminfo(output: &str) -> Option<MemoryInfo> {
    let value = |key: &str| {
        output.lines().find_map(|line| {
            let rest = line.strip_prefix(key)?.strip_prefix(':')?;
            let kib: u64 = rest.split_whitespace().next()?.parse().ok()?;
            Some(kib.saturating_mul(1024))
        })
    };
    Some(MemoryInfo {
        total_bytes: value("MemTotal")?,
        available_bytes: value("MemAvailable").or_else(|| value("MemFree"))?,
        swap_total_bytes: value("SwapTotal").unwrap_or(0),
        swap_free_bytes: value("SwapFree").unwrap_or(0),
    })
}

fn summarise(
    processes: &[ProcessRow],
    cores: Option<u32>,
    load: Option<LoadAverage>,
    memory: Option<MemoryInfo>,
) -> Summary {
    let mut summary = Summary::default();
    let mut fine = Vec::new();
    if let Some(load) = load {
        let text = format!(
            "load {:.2} / {:.2} / {:.2} (1/5/15 min) on {} cores",
            load.one,
            load.five,
            load.fifteen,
            cores.map_or_else(|| "?".to_owned(), |c| c.to_string())
        );
        match cores {
            Some(cores) if load.one > f64::from(cores) || load.five > f64::from(cores) => {
                summary.line(format!("HIGH LOAD: {text}"));
            }
            _ => fine.push(text),
        }
    }
    if let Some(memory) = memory
        && memory.total_bytes > 0
    {
        let used = 100.0 - memory.available_bytes as f64 * 100.0 / memory.total_bytes as f64;
        let mut text = format!(
            "memory {used:.0}% used ({} available of {})",
            human_bytes(memory.available_bytes),
            human_bytes(memory.total_bytes)
        );
        if memory.swap_total_bytes > 0 {
            text.push_str(&format!(
                ", swap {} used of {}",
                human_bytes(
                    memory.swap_total_bytes - memory.swap_free_bytes.min(memory.swap_total_bytes)
                ),
                human_bytes(memory.swap_total_bytes)
            ));
        }
        if used >= 90.0 {
            summary.line(format!("LOW MEMORY: {text}"));
        } else {
            fine.push(text);
        }
    }
    let zombies = processes
        .iter()
        .filter(|p| p.state.starts_with('Z'))
        .count();
    if zombies > 0 {
        summary.line(format!("{zombies} zombie processes"));
    }
    let mut head = format!("{} processes", processes.len());
    for text in fine {
        head.push_str("; ");
        head.push_str(&text);
    }
    summary.line(head);
    let row = |p: &ProcessRow| {
        format!(
            "  {} {} cpu {:.1}% mem {:.1}% ({}) {}",
            p.pid,
            p.user,
            p.cpu_percent,
            p.memory_percent,
            human_bytes(p.rss_bytes),
            shorten(&p.command, 100)
        )
    };
    let mut by_cpu: Vec<&ProcessRow> = processes.iter().collect();
    by_cpu.sort_by(|a, b| b.cpu_percent.total_cmp(&a.cpu_percent));
    summary.line("Top CPU:");
    by_cpu.iter().take(5).for_each(|p| summary.line(row(p)));
    let mut by_memory = by_cpu;
    by_memory.sort_by_key(|p| std::cmp::Reverse(p.rss_bytes));
    summary.line("Top memory:");
    by_memory.iter().take(5).for_each(|p| summary.line(row(p)));
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn ps_rows_keep_the_command_line_whole() {
        let output = "    1 root                               0.0  0.1 12345     9000 Ss   /sbin/init  splash\n\
                      4242 www-data                          12.5  3.2  2048       61 R+   nginx: worker \u{1b}[31mprocess\n\
                      garbage\n";
        let rows = parse_ps(output);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].command, "/sbin/init  splash");
        assert_eq!(rows[0].rss_bytes, 12345 * 1024);
        assert_eq!(rows[1].user, "www-data");
        assert_eq!(rows[1].command, "nginx: worker process");
        assert_eq!(rows[1].elapsed_s, 61);
    }

    #[test]
    fn load_above_the_cores_leads_the_summary() {
        let load = parse_load("3.50 1.00 0.50 2/300 1234\n");
        let memory = parse_meminfo("MemTotal: 1000 kB\nMemFree: 10 kB\nMemAvailable: 50 kB\n");
        let text = summarise(&[], Some(2), load, memory).finish();
        assert!(
            text.starts_with("HIGH LOAD: load 3.50 / 1.00 / 0.50"),
            "{text}"
        );
        assert!(text.contains("LOW MEMORY: memory 95% used"), "{text}");
    }
}
