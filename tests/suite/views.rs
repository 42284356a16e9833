//! show_view against the real sshd of the fixtures: every view this machine can show, with
//! data the test writes (a log file, a crontab and an /etc/cron.d file, certificates made with
//! openssl, an nginx site), hostile names that must stay text, and the promise that nothing a
//! view runs appears in the user's terminal or shell history.
//!
//! Files the tests put outside their own temp folders (/etc/cron.d, /etc/nginx/conf.d, the test
//! user's crontab) are removed again by a guard, also when a test fails.

use kaiport_protocol::*;
use kaiport_tests::dockerd::{BUSYBOX_IMAGE, Dockerd};
use kaiport_tests::engine_harness::EngineHarness;
use kaiport_tests::sshd::{Sshd, SshdConfig};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

async fn open(sshd: &Sshd, settings: ConnectionSettings) -> EngineHarness {
    EngineHarness::open_sshd(sshd, settings, Mode::Ask)
        .await
        .unwrap()
}

/// Runs show_view; returns what the model got and the report the UI got.
async fn view(tab: &EngineHarness, args: Value) -> (ToolOutcome, Option<ViewReport>) {
    let call = tab.start("show_view", args).await;
    let outcome = tab.outcome(&call, Duration::from_secs(60)).await.unwrap();
    let report = tab.events().into_iter().find_map(|event| match event {
        Event::ViewShown {
            call: shown,
            report,
            ..
        } if shown == call => Some(report),
        _ => None,
    });
    (outcome, report)
}

/// A view that must work: its report, checked to be what the model was told.
async fn shown(tab: &EngineHarness, args: Value) -> ViewReport {
    let (outcome, report) = view(tab, args.clone()).await;
    assert_eq!(
        outcome.status,
        ToolStatus::Ok,
        "{args}: {:?}",
        outcome.error
    );
    let report = report.unwrap_or_else(|| panic!("{args}: no ViewShown"));
    // The model gets the summary, never the view's data.
    let result = outcome.result.unwrap();
    let keys: Vec<&String> = result.as_object().unwrap().keys().collect();
    assert_eq!(keys, vec!["summary", "view"], "{result}");
    assert_eq!(result["summary"], json!(report.summary));
    assert!(report.summary.len() <= 2048);
    // Nothing from the server reaches a front end raw.
    let text = serde_json::to_string(&report).unwrap();
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "a control character in {text}"
    );
    report
}

/// Presses a view button as the UI does after the user confirmed it; returns how it ended.
async fn press(
    tab: &EngineHarness,
    call: &str,
    button: ViewButton,
) -> (ToolStatus, Option<String>) {
    tab.engine
        .handle(Op::PressViewButton {
            tab: tab.tab.clone(),
            call: call.to_owned(),
            button,
        })
        .await;
    for _ in 0..500 {
        let finished = tab.events().into_iter().find_map(|event| match event {
            Event::ViewButtonFinished {
                call: done,
                status,
                message,
                ..
            } if done == call => Some((status, message)),
            _ => None,
        });
        if let Some(finished) = finished {
            return finished;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no ViewButtonFinished for {call}");
}

/// A folder under /tmp the test user can read.
fn shared_dir(prefix: &str) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in("/tmp")
        .unwrap();
    chmod(dir.path(), "755");
    dir
}

fn chmod(path: &Path, mode: &str) {
    let status = Command::new("chmod").arg(mode).arg(path).status().unwrap();
    assert!(status.success());
}

fn run(program: &str, args: &[&str]) {
    let output = Command::new(program).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Removes a file outside the test's folders when dropped.
struct Placed(PathBuf);

impl Drop for Placed {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Removes the test user's crontab when dropped.
struct Crontab(String);

impl Drop for Crontab {
    fn drop(&mut self) {
        let _ = Command::new("crontab").args(["-u", &self.0, "-r"]).output();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn processes_disk_and_ports_run_beside_the_terminal_not_in_it() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default()).await;
    // The shell's history of this session only, written on exit to a file of this test's own
    // (other tests' shells share the login user's ~/.bash_history).
    let history_dir = shared_dir("kaiport-views-history-");
    chmod(history_dir.path(), "777");
    let history = history_dir.path().join("history");
    tab.ok(
        "run_command",
        json!({"command": format!("history -c; HISTFILE={}", history.display())}),
    )
    .await
    .unwrap();

    let report = shown(&tab, json!({"view": "processes"})).await;
    let ViewData::Processes(processes) = &report.data else {
        panic!("{report:?}")
    };
    assert!(processes.total > 3, "{processes:?}");
    assert!(processes.cores.is_some_and(|c| c >= 1));
    assert!(processes.memory.is_some() && processes.load.is_some());
    // The view's own ps, on its exec channel.
    assert!(
        processes
            .processes
            .iter()
            .any(|p| p.user == sshd.user() && p.command.starts_with("ps -eo")),
        "{:?}",
        processes.processes
    );
    assert_eq!(
        report
            .commands
            .iter()
            .map(|c| c.command.as_str())
            .collect::<Vec<_>>(),
        vec![
            "ps -eo pid=,user:32=,pcpu=,pmem=,rss=,etimes=,stat=,args=",
            "getconf _NPROCESSORS_ONLN",
            "cat /proc/loadavg /proc/meminfo"
        ]
    );
    assert!(report.summary.contains("Top CPU:"), "{}", report.summary);

    let report = shown(&tab, json!({"view": "disk"})).await;
    let ViewData::Disk(disk) = &report.data else {
        panic!("{report:?}")
    };
    let root = disk.filesystems.iter().find(|f| f.mount == "/").unwrap();
    assert!(
        root.size_bytes > 0 && root.inodes_total.is_some(),
        "{root:?}"
    );

    let report = shown(&tab, json!({"view": "ports"})).await;
    let ViewData::Ports(ports) = &report.data else {
        panic!("{report:?}")
    };
    let own = ports
        .sockets
        .iter()
        .find(|s| s.port == sshd.port())
        .unwrap_or_else(|| panic!("sshd's port missing: {ports:?}"));
    assert_eq!((own.address.as_str(), own.public), ("127.0.0.1", false));
    // sshd runs as root: the test user may not see its program, and the view says so.
    assert_eq!(own.process, None);
    assert!(
        report
            .gaps
            .iter()
            .any(|g| g.reason == GapReason::Permission),
        "{:?}",
        report.gaps
    );

    // Nothing of it went through the user's terminal or into the shell's history.
    let terminal = tab.terminal_text();
    for command in ["ps -eo", "df -PT", "ss -tulpnH", "LC_ALL=C"] {
        assert!(
            !terminal.contains(command),
            "{command} in the terminal: {terminal}"
        );
    }
    // A line the user typed and the shell ran: the history file holds it once it is written.
    tab.marker_round_trip("views-history").await.unwrap();
    let marker = "echo views-history-$((6 * 7))";
    tab.engine
        .handle(Op::CloseTab {
            tab: tab.tab.clone(),
        })
        .await;
    let written = || std::fs::read_to_string(&history).unwrap_or_default();
    for _ in 0..3000 {
        if written().contains(marker) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let history = written();
    assert!(
        history.contains(marker),
        "the shell wrote no history: {history:?}"
    );
    assert!(
        !history.contains("ps -eo") && !history.contains("LC_ALL=C"),
        "{history}"
    );
    // And the audit log has each call, as reads decided by rule.
    let audit = tab.audit().unwrap();
    let views: Vec<&Value> = audit.iter().filter(|l| l["tool"] == "show_view").collect();
    assert_eq!(views.len(), 3, "{audit:?}");
    assert!(
        views
            .iter()
            .all(|l| l["decided_by"] == "rule" && l["status"] == "ok")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_names_stay_text_and_are_never_run() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default()).await;
    let scratch = shared_dir("kaiport-views-hostile-");
    // Run, these would create the file in the login user's home (a name has no slash).
    let name = format!("kaiport-pwned-{}", std::process::id());
    let marker = PathBuf::from(format!("/home/{}/{name}", sshd.user()));
    let hostile = format!(
        "a'b\"c $(touch {name}) `touch {name}` ;touch {name}\n\u{1b}]0;t\u{7}\u{1b}[31mred\\x"
    );
    // disk_usage of a folder whose name and entries are hostile.
    let root = scratch.path().join(&hostile);
    std::fs::create_dir_all(root.join(&hostile)).unwrap();
    std::fs::write(root.join(&hostile).join("f"), vec![7u8; 300_000]).unwrap();
    std::fs::create_dir_all(root.join("small")).unwrap();
    std::fs::write(root.join("small/f"), b"x").unwrap();
    run(
        "chmod",
        &["-R", "a+rX", &scratch.path().display().to_string()],
    );
    let report = shown(
        &tab,
        json!({"view": "disk_usage", "path": root.display().to_string()}),
    )
    .await;
    let ViewData::DiskUsage(usage) = &report.data else {
        panic!("{report:?}")
    };
    assert!(usage.complete, "{report:?}");
    assert!(usage.total_bytes.unwrap() >= 300_000);
    assert_eq!(usage.entries.len(), 2, "{usage:?}");
    // Largest first, its name shown as text: the newline a space, the escapes gone.
    assert!(usage.entries[0].path.ends_with("red\\x"), "{usage:?}");
    assert!(
        usage.entries[0]
            .path
            .contains(&format!("$(touch {name}) `touch {name}` ;touch {name} "))
    );
    assert!(
        report.commands[0]
            .command
            .starts_with("timeout 12 du -0 -x -d1 -B1 -- '")
    );

    // A container and a unit with the same name: refused as data or shown as text.
    for args in [
        json!({"view": "service_status", "unit": hostile}),
        json!({"view": "docker_logs", "container": hostile}),
        json!({"view": "logs", "path": root.join(&hostile).join("f").display().to_string()}),
        json!({"view": "certificates", "path": root.display().to_string()}),
    ] {
        let (outcome, report) = view(&tab, args.clone()).await;
        assert_eq!(
            outcome.status,
            ToolStatus::Ok,
            "{args}: {:?}",
            outcome.error
        );
        let text = serde_json::to_string(&report).unwrap();
        assert!(!text.contains('\u{1b}'), "{text}");
    }
    // A unit name with a slash could reach any file as an init script: refused.
    let (outcome, _) = view(
        &tab,
        json!({"view": "service_status", "unit": format!("../../..{}", marker.display())}),
    )
    .await;
    assert_eq!(outcome.status, ToolStatus::Error);
    assert!(outcome.error.unwrap().contains("cannot contain '/'"));
    assert!(!marker.exists(), "a hostile name was executed");
    assert!(!tab.terminal_text().contains("touch"));
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_parameters_are_named() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default()).await;
    for (args, expected) in [
        (
            json!({"view": "service_status"}),
            "show_view: the service_status view needs `unit`",
        ),
        (
            json!({"view": "docker_logs"}),
            "show_view: the docker_logs view needs `container`",
        ),
        (
            json!({"view": "disk_usage"}),
            "show_view: the disk_usage view needs `path`",
        ),
        (
            json!({"view": "disk", "path": "/"}),
            "show_view: the disk view takes no `path`",
        ),
    ] {
        let (outcome, report) = view(&tab, args.clone()).await;
        assert_eq!(outcome.status, ToolStatus::Error, "{args}");
        assert!(
            outcome.error.as_deref().unwrap_or("").starts_with(expected),
            "{args}: {:?}",
            outcome.error
        );
        assert!(report.is_none());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn logs_count_errors_and_keep_lines_from_the_model_unless_allowed() {
    let sshd = Sshd::start().unwrap();
    let scratch = shared_dir("kaiport-views-logs-");
    let log = scratch.path().join("app.log");
    std::fs::write(
        &log,
        "start ok\nWARNING low disk\nERROR \u{1b}]0;title\u{7}database connection failed\n\
         \u{1b}[2Jplain line\nfatal: out of memory\n",
    )
    .unwrap();
    chmod(&log, "644");
    let path = log.display().to_string();

    let tab = open(&sshd, ConnectionSettings::default()).await;
    let report = shown(&tab, json!({"view": "logs", "path": path})).await;
    let ViewData::Logs(logs) = &report.data else {
        panic!("{report:?}")
    };
    assert_eq!((logs.lines.len(), logs.errors, logs.warnings), (5, 2, 1));
    assert_eq!(logs.lines[2].text, "ERROR database connection failed");
    assert_eq!(logs.lines[3].text, "plain line");
    assert!(!report.summary.contains("database"), "{}", report.summary);
    assert!(report.summary.contains("2 errors, 1 warnings"));

    let allowed = ConnectionSettings {
        send_file_contents: true,
        ..ConnectionSettings::default()
    };
    let tab = open(&sshd, allowed).await;
    let report = shown(&tab, json!({"view": "logs", "path": path})).await;
    assert!(
        report
            .summary
            .contains("Last errors:\n  ERROR database connection failed\n  fatal: out of memory"),
        "{}",
        report.summary
    );

    // The system log: this machine's journal or syslog, or a clear "not available".
    let (outcome, report) = view(&tab, json!({"view": "logs"})).await;
    assert_eq!(outcome.status, ToolStatus::Ok);
    match report.unwrap().data {
        ViewData::Logs(logs) => assert!(!logs.source.is_empty()),
        ViewData::Unavailable { reason } => {
            assert!(reason.contains("no system journal"), "{reason}")
        }
        other => panic!("{other:?}"),
    }

    // A file the login user may not read is a gap that says so.
    let secret = scratch.path().join("secret.log");
    std::fs::write(&secret, "ERROR hidden\n").unwrap();
    chmod(&secret, "600");
    let report = shown(
        &tab,
        json!({"view": "logs", "path": secret.display().to_string()}),
    )
    .await;
    assert_eq!(report.gaps[0].reason, GapReason::Permission, "{report:?}");
    assert!(
        report.summary.contains("Missing: the file"),
        "{}",
        report.summary
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn cron_reads_the_users_crontab_and_cron_d_with_next_runs() {
    let sshd = Sshd::start().unwrap();
    let scratch = shared_dir("kaiport-views-cron-");
    let table = scratch.path().join("crontab");
    std::fs::write(
        &table,
        "MAILTO=\"\"\n*/5 * * * * echo \"$(id)\" > /dev/null # kaiport-views\n@reboot /bin/true\n",
    )
    .unwrap();
    run(
        "crontab",
        &["-u", sshd.user(), &table.display().to_string()],
    );
    let _crontab = Crontab(sshd.user().to_owned());
    let cron_d = Placed(PathBuf::from(format!(
        "/etc/cron.d/kaiport-views-test-{}",
        std::process::id()
    )));
    std::fs::write(&cron_d.0, "30 4 * * 1 root /usr/bin/kaiport-views-weekly\n").unwrap();

    let tab = open(&sshd, ConnectionSettings::default()).await;
    let report = shown(&tab, json!({"view": "cron"})).await;
    let ViewData::Cron(cron) = &report.data else {
        panic!("{report:?}")
    };
    let mine = cron
        .jobs
        .iter()
        .find(|j| j.source == "crontab" && j.schedule == "*/5 * * * *")
        .unwrap_or_else(|| panic!("{cron:?}"));
    assert_eq!(mine.command, "echo \"$(id)\" > /dev/null # kaiport-views");
    assert!(mine.next_run.is_some());
    let reboot = cron.jobs.iter().find(|j| j.schedule == "@reboot").unwrap();
    assert_eq!(reboot.next_run, None);
    let weekly = cron
        .jobs
        .iter()
        .find(|j| j.source == cron_d.0.display().to_string())
        .unwrap_or_else(|| panic!("{cron:?}"));
    assert_eq!(weekly.user.as_deref(), Some("root"));
    assert!(
        weekly
            .next_run
            .as_deref()
            .is_some_and(|n| n.ends_with("04:30"))
    );
    assert!(report.summary.contains("kaiport-views-weekly"));
}

/// Makes `name`.pem in `dir`: valid for `days`, or (days None) expired in 2020.
pub(super) fn certificate(dir: &Path, name: &str, days: Option<u32>) -> PathBuf {
    let key = dir.join(format!("{name}.key"));
    let pem = dir.join(format!("{name}.pem"));
    let subject = format!("/CN={name}.kaiport.invalid");
    let san = format!("subjectAltName=DNS:{name}.kaiport.invalid");
    let (key_s, pem_s) = (key.display().to_string(), pem.display().to_string());
    match days {
        Some(days) => run(
            "openssl",
            &[
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                &key_s,
                "-out",
                &pem_s,
                "-days",
                &days.to_string(),
                "-subj",
                &subject,
                "-addext",
                &san,
            ],
        ),
        None => {
            // `openssl req` cannot date a certificate in the past; `openssl ca` can.
            let ca = dir.join("ca");
            std::fs::create_dir_all(ca.join("new")).unwrap();
            std::fs::write(ca.join("index.txt"), "").unwrap();
            std::fs::write(ca.join("serial"), "01\n").unwrap();
            let config = ca.join("ca.cnf");
            std::fs::write(
                &config,
                format!(
                    "[ca]\ndefault_ca=kp\n[kp]\ndatabase={d}/index.txt\nnew_certs_dir={d}/new\nserial={d}/serial\n\
                     default_md=sha256\npolicy=any\ncopy_extensions=copy\n[any]\ncommonName=supplied\n",
                    d = ca.display()
                ),
            )
            .unwrap();
            let csr = dir.join(format!("{name}.csr")).display().to_string();
            run(
                "openssl",
                &[
                    "req",
                    "-new",
                    "-newkey",
                    "ec",
                    "-pkeyopt",
                    "ec_paramgen_curve:prime256v1",
                    "-nodes",
                    "-keyout",
                    &key_s,
                    "-out",
                    &csr,
                    "-subj",
                    &subject,
                    "-addext",
                    &san,
                ],
            );
            run(
                "openssl",
                &[
                    "ca",
                    "-batch",
                    "-notext",
                    "-config",
                    &config.display().to_string(),
                    "-selfsign",
                    "-keyfile",
                    &key_s,
                    "-in",
                    &csr,
                    "-out",
                    &pem_s,
                    "-startdate",
                    "20200101000000Z",
                    "-enddate",
                    "20200201000000Z",
                ],
            );
            std::fs::remove_file(&csr).unwrap();
            std::fs::remove_dir_all(&ca).unwrap();
        }
    }
    chmod(&pem, "644");
    pem
}

#[tokio::test(flavor = "multi_thread")]
async fn certificates_expired_and_expiring_lead() {
    let sshd = Sshd::start().unwrap();
    let scratch = shared_dir("kaiport-views-certs-");
    certificate(scratch.path(), "long", Some(200));
    certificate(scratch.path(), "soon", Some(5));
    certificate(scratch.path(), "old", None);
    let tab = open(&sshd, ConnectionSettings::default()).await;
    let report = shown(
        &tab,
        json!({"view": "certificates", "path": scratch.path().display().to_string()}),
    )
    .await;
    let ViewData::Certificates(certs) = &report.data else {
        panic!("{report:?}")
    };
    let names: Vec<(&str, bool)> = certs
        .certificates
        .iter()
        .map(|c| (c.subject.as_str(), c.expired))
        .collect();
    assert_eq!(
        names,
        vec![
            ("CN=old.kaiport.invalid", true),
            ("CN=soon.kaiport.invalid", false),
            ("CN=long.kaiport.invalid", false),
        ]
    );
    assert!((4..=5).contains(&certs.certificates[1].days_left));
    assert_eq!(certs.certificates[0].not_after, "2020-02-01T00:00:00Z");
    assert_eq!(
        certs.certificates[1].names,
        vec!["DNS:soon.kaiport.invalid"]
    );
    assert!(report.summary.starts_with("EXPIRED "), "{}", report.summary);
    assert!(
        report.summary.contains("\nEXPIRES in "),
        "{}",
        report.summary
    );
    // The keys are root's: the view read what it could and says what it could not.
    assert!(
        report
            .gaps
            .iter()
            .any(|g| g.reason == GapReason::Permission),
        "{:?}",
        report.gaps
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn websites_read_nginx_and_certificates_follow_its_sites() {
    let sshd = Sshd::start().unwrap();
    if !Path::new("/usr/sbin/nginx").exists() {
        panic!("nginx is missing: run scripts/install-test-deps.sh");
    }
    let scratch = shared_dir("kaiport-views-nginx-");
    let cert = certificate(scratch.path(), "shop", Some(3));
    let site = Placed(PathBuf::from(format!(
        "/etc/nginx/conf.d/kaiport-views-test-{}.conf",
        std::process::id()
    )));
    std::fs::write(
        &site.0,
        format!(
            "server {{\n  listen 127.0.0.1:18443 ssl;\n  server_name shop-{pid}.kaiport.invalid;\n  \
             ssl_certificate {cert};\n  ssl_certificate_key {key};\n  location / {{ proxy_pass http://127.0.0.1:9; }}\n}}\n",
            pid = std::process::id(),
            cert = cert.display(),
            key = scratch.path().join("shop.key").display()
        ),
    )
    .unwrap();
    let tab = open(&sshd, ConnectionSettings::default()).await;
    let report = shown(&tab, json!({"view": "websites"})).await;
    let ViewData::Websites(websites) = &report.data else {
        panic!("{report:?}")
    };
    let shop = websites
        .sites
        .iter()
        .find(|s| s.file == site.0.display().to_string())
        .unwrap_or_else(|| panic!("{websites:?}"));
    assert_eq!(
        shop.names,
        vec![format!("shop-{}.kaiport.invalid", std::process::id())]
    );
    assert!(shop.tls);
    assert_eq!(
        shop.certificate.as_deref(),
        Some(cert.display().to_string().as_str())
    );
    assert_eq!(shop.proxies, vec!["http://127.0.0.1:9"]);
    assert!(websites.files.contains(&"/etc/nginx/nginx.conf".to_owned()));

    let report = shown(&tab, json!({"view": "certificates"})).await;
    let ViewData::Certificates(certs) = &report.data else {
        panic!("{report:?}")
    };
    let named = certs
        .certificates
        .iter()
        .find(|c| c.path == cert.display().to_string())
        .unwrap_or_else(|| panic!("{certs:?}"));
    assert!((2..=3).contains(&named.days_left));
}

#[tokio::test(flavor = "multi_thread")]
async fn services_updates_and_docker_say_what_this_machine_has() {
    let sshd = Sshd::start().unwrap();
    let tab = open(&sshd, ConnectionSettings::default()).await;

    // No systemd runs here: the SysV fallback lists the init scripts.
    let report = shown(&tab, json!({"view": "services"})).await;
    let ViewData::Services(services) = &report.data else {
        panic!("{report:?}")
    };
    assert_eq!(services.manager, ServiceManager::Sysv);
    let cron = services.services.iter().find(|s| s.name == "cron").unwrap();
    assert_eq!(cron.state, ServiceState::Stopped, "{services:?}");
    let report = shown(&tab, json!({"view": "service_status", "unit": "cron"})).await;
    let ViewData::ServiceStatus(status) = &report.data else {
        panic!("{report:?}")
    };
    assert_eq!(
        (status.manager, status.state),
        (ServiceManager::Sysv, ServiceState::Stopped)
    );
    assert!(
        report.summary.starts_with("cron is stopped"),
        "{}",
        report.summary
    );

    // Updates from apt's cache, which the view must not refresh.
    let lists = std::fs::metadata("/var/lib/apt/lists")
        .unwrap()
        .modified()
        .unwrap();
    let report = shown(&tab, json!({"view": "updates"})).await;
    let ViewData::Updates(updates) = &report.data else {
        panic!("{report:?}")
    };
    assert_eq!(updates.manager, PackageManager::Apt);
    let direct = Command::new("su")
        .args([
            "-s",
            "/bin/sh",
            sshd.user(),
            "-c",
            "apt list --upgradable 2>/dev/null",
        ])
        .output()
        .unwrap();
    let expected = String::from_utf8_lossy(&direct.stdout)
        .lines()
        .filter(|l| l.contains("[upgradable from:"))
        .count();
    assert_eq!(updates.updates.len(), expected);
    assert_eq!(
        std::fs::metadata("/var/lib/apt/lists")
            .unwrap()
            .modified()
            .unwrap(),
        lists
    );

    // The docker CLI is here, its engine is not: a clear "not available", never a parse error.
    for args in [
        json!({"view": "docker"}),
        json!({"view": "docker_logs", "container": "web"}),
    ] {
        let report = shown(&tab, args).await;
        let ViewData::Unavailable { reason } = &report.data else {
            panic!("{report:?}")
        };
        assert!(
            reason.contains("Docker engine is not running") || reason.contains("no `docker`"),
            "{reason}"
        );
        assert!(report.summary.contains("Not available on this server: "));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn docker_views_on_a_real_engine() {
    // The login user (created by the first fixture) owns the engine's socket.
    let user = Sshd::start().unwrap().user().to_owned();
    let dockerd = Dockerd::start(&user).unwrap();
    dockerd.import_busybox().unwrap();
    let ticker = "i=0; while true; do i=$((i+1)); echo \"tick $i\"; echo \"ERROR failed $i\" >&2; \
                  printf '\\033[31mred\\033]0;title\\007 done\\n'; sleep 1; done";
    dockerd
        .docker_ok(&[
            "run",
            "-d",
            "--network",
            "none",
            "--name",
            "kp-running",
            BUSYBOX_IMAGE,
            "/bin/busybox",
            "sh",
            "-c",
            ticker,
        ])
        .unwrap();
    let exited = dockerd.docker(&[
        "run",
        "--network",
        "none",
        "--name",
        "kp-exited",
        BUSYBOX_IMAGE,
        "/bin/busybox",
        "sh",
        "-c",
        "echo bye; exit 3",
    ]);
    assert_eq!(exited.unwrap().status.code(), Some(3));
    let host = dockerd.host();
    let sshd = Sshd::start_with_env(SshdConfig::default(), &[("DOCKER_HOST", &host)]).unwrap();
    let tab = open(&sshd, ConnectionSettings::default()).await;
    // The running container has printed its first round (the logs view reads it below).
    for _ in 0..300 {
        let logs = dockerd.docker(&["logs", "kp-running"]).unwrap();
        if String::from_utf8_lossy(&logs.stdout).contains(" done")
            && String::from_utf8_lossy(&logs.stderr).contains("ERROR failed 1")
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let report = shown(&tab, json!({"view": "docker"})).await;
    let ViewData::Docker(docker) = &report.data else {
        panic!("{report:?}\n{}", dockerd.log())
    };
    let names: Vec<(&str, &str)> = docker
        .containers
        .iter()
        .map(|c| (c.name.as_str(), c.state.as_str()))
        .collect();
    assert_eq!(
        names,
        vec![("kp-exited", "exited"), ("kp-running", "running")]
    );
    assert!(docker.containers[0].status.starts_with("Exited (3)"));
    assert!(docker.containers[1].cpu_percent.is_some() && docker.containers[1].memory.is_some());
    assert!(
        report.summary.starts_with("EXITED: kp-exited"),
        "{}",
        report.summary
    );

    let report = shown(
        &tab,
        json!({"view": "docker_logs", "container": "kp-running"}),
    )
    .await;
    let ViewData::Logs(logs) = &report.data else {
        panic!("{report:?}")
    };
    let error = logs
        .lines
        .iter()
        .find(|l| l.text == "ERROR failed 1")
        .unwrap();
    assert_eq!(error.level, LogLevel::Error);
    assert!(error.time.is_some());
    assert!(logs.lines.iter().any(|l| l.text == "red done"), "{logs:?}");
    assert!(logs.errors >= 1);

    // The user's restart button: exactly the shown command, typed into the terminal.
    let started_at = || {
        dockerd
            .docker_ok(&["inspect", "--format", "{{.State.StartedAt}}", "kp-running"])
            .unwrap()
    };
    let before = started_at();
    let report = shown(&tab, json!({"view": "docker"})).await;
    let restart = report
        .buttons
        .iter()
        .find(|b| b.label == "restart kp-running")
        .cloned()
        .unwrap_or_else(|| panic!("{:?}", report.buttons));
    assert_eq!(restart.command, "docker restart -- 'kp-running'");
    assert!(report.buttons.iter().any(|b| b.label == "start kp-exited"));
    // A button whose command is not the one its action makes is refused.
    let mut tampered = restart.clone();
    tampered.command.push_str("; touch /tmp/kaiport-tampered");
    let (status, message) = press(&tab, "button-1", tampered).await;
    assert_eq!(status, ToolStatus::Denied, "{message:?}");
    let (status, message) = press(&tab, "button-2", restart.clone()).await;
    assert_eq!(status, ToolStatus::Ok, "{message:?}");
    let mut restarted = false;
    for _ in 0..100 {
        if started_at() != before {
            restarted = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        restarted,
        "the container was not restarted: {}",
        tab.terminal_text()
    );
    assert!(
        tab.terminal_text()
            .contains("docker restart -- 'kp-running'")
    );
    assert!(!tab.terminal_text().contains("kaiport-tampered"));
    // A connection that forbids `docker restart` refuses the same button.
    let forbidding = ConnectionSettings {
        forbidden_commands: vec!["docker restart".to_owned()],
        ..ConnectionSettings::default()
    };
    let strict = open(&sshd, forbidding).await;
    let (status, message) = press(&strict, "button-3", restart.clone()).await;
    assert_eq!(status, ToolStatus::Denied);
    assert!(message.unwrap_or_default().contains("forbidden"));
    // Anything the refused press typed would have come out before the marker's output.
    strict.marker_round_trip("after-refusal").await.unwrap();
    assert!(!strict.terminal_text().contains("docker restart"));
    // Each press is in the audit log as the user's action.
    for (tab, call, status) in [
        (&tab, "button-1", "denied"),
        (&tab, "button-2", "ok"),
        (&strict, "button-3", "denied"),
    ] {
        let audit = tab.audit().unwrap();
        let line = audit
            .iter()
            .find(|l| l["call"] == call)
            .unwrap_or_else(|| panic!("{call}: {audit:?}"));
        assert_eq!(
            (&line["tool"], &line["decided_by"], &line["status"]),
            (&json!("view_button"), &json!("user"), &json!(status)),
            "{line}"
        );
    }

    // A hostile container name is an argument docker looks up, never a command.
    let marker = format!(
        "/home/{}/kaiport-docker-pwned-{}",
        sshd.user(),
        std::process::id()
    );
    let report = shown(
        &tab,
        json!({"view": "docker_logs", "container": format!("x'$(touch {marker})'")}),
    )
    .await;
    assert!(matches!(&report.data, ViewData::Logs(logs) if logs.lines.is_empty()));
    assert!(
        report.gaps[0].detail.contains("No such container"),
        "{:?}",
        report.gaps
    );
    assert!(!Path::new(&marker).exists());
}
