//! Policy evaluation speed for typical command lines (target: median ≤ 200 µs, so it never
//! shows next to a network round trip, and median and p99 within 2x of the figures recorded
//! before the per-program specs, [`BEFORE_SPECS`]). Run: `cargo bench -p kaiport-core --bench
//! policy`; a table of single-call percentiles first, then criterion's estimates.

use criterion::{Criterion, criterion_group};
use kaiport_core::policy::{CallFacts, PolicyContext, decide};
use kaiport_protocol::{ConnectionSettings, Mode, TabKind};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Criterion's middle estimates per line in BENCHMARKS.md of 2026-12-03 (release build), before
/// the per-program specs: the baseline the percentile table compares with.
const BEFORE_SPECS: &[(&str, f64)] = &[
    ("simple", 7.2),
    ("pipeline", 35.4),
    ("wrapped", 46.0),
    ("compound", 80.5),
    ("bash_c", 124.4),
    ("lockout", 19.6),
];

const LINES: &[(&str, &str)] = &[
    ("simple", "ls -la /var/log"),
    (
        "pipeline",
        "journalctl -u nginx --since today | grep -i error | tail -n 50",
    ),
    (
        "wrapped",
        "sudo -u www-data env APP_ENV=prod timeout 30 php artisan migrate --force",
    ),
    (
        "compound",
        "cd /srv/app && git pull && npm ci && sudo systemctl restart app || echo failed >> /tmp/deploy.log",
    ),
    (
        "bash_c",
        "sudo bash -c 'cd /etc/nginx && sed -i \"s/a/b/\" nginx.conf && nginx -t && systemctl reload nginx'",
    ),
    (
        "lockout",
        "echo 'PermitRootLogin no' | sudo tee -a /etc/ssh/sshd_config",
    ),
];

fn settings() -> ConnectionSettings {
    ConnectionSettings {
        forbidden_commands: vec![
            "rm".to_owned(),
            "systemctl stop".to_owned(),
            "docker rm".to_owned(),
        ],
        allowed_commands: vec![
            "ls".to_owned(),
            "grep".to_owned(),
            "tail".to_owned(),
            "journalctl".to_owned(),
        ],
        extra_dangerous_commands: vec!["npm publish".to_owned()],
        ..ConnectionSettings::default()
    }
}

fn policy(c: &mut Criterion) {
    let settings = settings();
    let mut group = c.benchmark_group("policy_decide");
    for (name, line) in LINES {
        let facts = CallFacts::Command {
            line: (*line).to_owned(),
        };
        group.bench_function(*name, |b| {
            b.iter(|| {
                decide(
                    black_box(&facts),
                    PolicyContext::new(Mode::Autopilot, &settings, TabKind::Terminal),
                )
            })
        });
    }
    group.finish();
}

/// Single calls timed one by one: the first (which loads the specs), then the median and p99 of
/// many, against [`BEFORE_SPECS`]. Only medians were recorded then, so p99 is set against the
/// earlier median: within 2x of that is within 2x of the earlier p99, which was no lower.
fn percentiles() {
    const CALLS: usize = 5_000;
    let settings = settings();
    let decide_line = |line: &str| {
        let facts = CallFacts::Command {
            line: line.to_owned(),
        };
        let started = Instant::now();
        black_box(decide(
            black_box(&facts),
            PolicyContext::new(Mode::Autopilot, &settings, TabKind::Terminal),
        ));
        started.elapsed()
    };
    println!();
    println!(
        "{:<9} {:>12} {:>10} {:>10} {:>14} {:>10} {:>10}",
        "line", "first call", "median", "p99", "before specs", "median x", "p99 x"
    );
    for (name, line) in LINES {
        let first = decide_line(line);
        let mut times: Vec<Duration> = (0..CALLS).map(|_| decide_line(line)).collect();
        times.sort_unstable();
        let micros = |d: Duration| d.as_secs_f64() * 1e6;
        let median = micros(times[CALLS / 2]);
        let p99 = micros(times[CALLS * 99 / 100]);
        let before = BEFORE_SPECS
            .iter()
            .find(|(before, _)| before == name)
            .map_or(f64::NAN, |(_, micros)| *micros);
        println!(
            "{name:<9} {:>9.1} µs {median:>7.1} µs {p99:>7.1} µs {before:>11.1} µs {:>9.2}x {:>9.2}x",
            micros(first),
            median / before,
            p99 / before,
        );
    }
}

criterion_group!(benches, policy);

fn main() {
    // First, so that its first call is the one that loads the specs.
    percentiles();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
