//! Policy evaluation speed for typical command lines (target: median ≤ 200 µs, so it never
//! shows next to a network round trip). Run: `cargo bench -p kaiport-core --bench policy`.

use criterion::{Criterion, criterion_group, criterion_main};
use kaiport_core::policy::{CallFacts, PolicyContext, decide};
use kaiport_protocol::{ConnectionSettings, Mode, TabKind};
use std::hint::black_box;

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

fn policy(c: &mut Criterion) {
    let settings = ConnectionSettings {
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
    };
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

criterion_group!(benches, policy);
criterion_main!(benches);
