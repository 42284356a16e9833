//! Fleet benchmark: `kaiport fleet run` as a whole process on 20, 50 and 100 loopback sshd
//! instances (siblings of one fixture: same keys, a port each), against `parallel-ssh`
//! (Debian's pssh) and `ansible all -m command` (Debian's ansible) with the same parallelism,
//! for `uname -a` and for a command printing 1 MB; and kaiport's peak memory per host at the
//! largest size (`/usr/bin/time`). A reference that is not installed is skipped, saying so.
//!
//! Run: `KAIPORT_BIN=target/release/kaiport cargo bench -p kaiport-tests --bench fleet` (as
//! root, after scripts/test.sh has installed sshd; `apt-get install pssh ansible`), or with a
//! debug build through `cargo test --bench fleet`; `FLEET_BENCH_SIZES` and `FLEET_BENCH_RUNS`
//! choose fewer sizes and runs (ansible takes seconds per host). Prints medians and ratios;
//! the numbers go into BENCHMARKS.md.

use anyhow::{Context, Result, bail};
use kaiport_tests::bench_timing::{compare, kaiport_bin};
use kaiport_tests::sshd::Sshd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Host counts measured, unless `FLEET_BENCH_SIZES` lists others (`20,50`).
const SIZES: [usize; 3] = [20, 50, 100];
/// kaiport's default, given to every tool.
const PARALLEL: usize = 16;
/// Timed runs per side, unless `FLEET_BENCH_RUNS` says (ansible takes seconds per host).
const RUNS: usize = 5;
/// Without a pipe: ansible's command module runs a program, not a shell line. The second
/// prints 142857 lines of 7 bytes, 999999 bytes.
const COMMANDS: [(&str, &str); 2] = [("uname -a", "uname -a"), ("1 MB output", "seq -w 1 142857")];

/// `name`'s value as a list of numbers, else `default`.
fn numbers(name: &str, default: &[usize]) -> Result<Vec<usize>> {
    match std::env::var(name) {
        Ok(value) => value
            .split(',')
            .map(|one| {
                one.trim()
                    .parse()
                    .with_context(|| format!("{name}={value}"))
            })
            .collect(),
        Err(_) => Ok(default.to_vec()),
    }
}

/// Everything one size needs: the servers and each tool's host list.
struct Fleet {
    _servers: Vec<Sshd>,
    dir: tempfile::TempDir,
    hosts: usize,
    key: PathBuf,
}

impl Fleet {
    fn start(base: &Sshd, hosts: usize) -> Result<Fleet> {
        let dir = tempfile::tempdir()?;
        let known_hosts = dir.path().join("known_hosts");
        let key = base.keys.ed25519.display().to_string();
        let (mut profiles, mut pssh, mut inventory) = (String::new(), String::new(), String::new());
        let mut servers = Vec::new();
        for index in 0..hosts {
            let server = base.start_sibling(&[])?;
            server.trust_in(&known_hosts)?;
            let (port, user) = (server.port(), server.user().to_owned());
            profiles.push_str(&format!(
                "[[connection]]\nname = \"h{index}\"\nkind = \"ssh\"\nhost = \"127.0.0.1\"\n\
                 port = {port}\nuser = \"{user}\"\nidentity_files = [\"{key}\"]\ntags = [\"bench\"]\n\
                 [connection.settings]\noutput_limit_kb = 1024\noutput_limit_lines = 100000\n"
            ));
            pssh.push_str(&format!("{user}@127.0.0.1:{port}\n"));
            inventory.push_str(&format!(
                "h{index} ansible_host=127.0.0.1 ansible_port={port} ansible_user={user} \
                 ansible_ssh_private_key_file={key}\n"
            ));
            servers.push(server);
        }
        std::fs::write(dir.path().join("connections.toml"), profiles)?;
        std::fs::write(dir.path().join("pssh-hosts"), pssh)?;
        std::fs::write(dir.path().join("inventory"), format!("[all]\n{inventory}"))?;
        Ok(Fleet {
            _servers: servers,
            dir,
            hosts,
            key: base.keys.ed25519.clone(),
        })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn kaiport(&self, kaiport: &Path, command: &str) -> Command {
        let mut run = Command::new(kaiport);
        run.env("KAIPORT_HOME", self.dir.path())
            .args(["fleet", "run", "bench", "--yes", "--json", "--concurrency"])
            .arg(PARALLEL.to_string())
            .arg("--known-hosts")
            .arg(self.path("known_hosts"))
            .args(["--", command]);
        run
    }

    fn pssh(&self, command: &str) -> Command {
        let mut run = Command::new("parallel-ssh");
        run.arg("-h")
            .arg(self.path("pssh-hosts"))
            .args(["-p", &PARALLEL.to_string(), "-i", "-t", "0", "-x"])
            .arg(format!(
                "-o UserKnownHostsFile={} -o BatchMode=yes -i {}",
                self.path("known_hosts").display(),
                self.key.display()
            ))
            .arg(command);
        run
    }

    fn ansible(&self, command: &str) -> Command {
        let mut run = Command::new("ansible");
        run.arg("all")
            .arg("-i")
            .arg(self.path("inventory"))
            .args(["-m", "command", "-a", command, "-f", &PARALLEL.to_string()])
            .env(
                "ANSIBLE_SSH_ARGS",
                format!(
                    "-o UserKnownHostsFile={} -o BatchMode=yes",
                    self.path("known_hosts").display()
                ),
            );
        run
    }
}

/// Runs `command` to its end, its output thrown away; an exit other than 0 is an error.
fn quiet(mut command: Command) -> Result<()> {
    let status = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("running {command:?}"))?;
    if !status.success() {
        bail!("{command:?} exited with {status}");
    }
    Ok(())
}

fn installed(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// kaiport's peak resident memory in KiB for one run (`/usr/bin/time -f %M`).
fn peak_kib(run: Command) -> Result<u64> {
    let mut timed = Command::new("/usr/bin/time");
    timed
        .args(["-f", "%M"])
        .arg(run.get_program())
        .args(run.get_args());
    for (name, value) in run.get_envs() {
        if let Some(value) = value {
            timed.env(name, value);
        }
    }
    let output = timed.stdout(Stdio::null()).output()?;
    let text = String::from_utf8_lossy(&output.stderr);
    text.lines()
        .last()
        .and_then(|line| line.trim().parse().ok())
        .with_context(|| format!("/usr/bin/time printed no peak: {text}"))
}

fn main() -> Result<()> {
    let kaiport = kaiport_bin()?;
    let base = Sshd::start()?;
    let pssh = installed("parallel-ssh");
    let ansible = installed("ansible");
    for (name, present) in [
        ("parallel-ssh (apt-get install pssh)", pssh),
        ("ansible", ansible),
    ] {
        if !present {
            println!("{name} is not installed: its comparison is skipped");
        }
    }
    let sizes = numbers("FLEET_BENCH_SIZES", &SIZES)?;
    let runs = numbers("FLEET_BENCH_RUNS", &[RUNS])?
        .first()
        .copied()
        .unwrap_or(RUNS);
    for &hosts in &sizes {
        let fleet = Fleet::start(&base, hosts)?;
        for (what, command) in COMMANDS {
            let ours = || quiet(fleet.kaiport(&kaiport, command));
            if pssh {
                let (k, p) = compare(runs, ours, || quiet(fleet.pssh(command)))?;
                println!(
                    "{hosts:>3} hosts, {what:<11}: kaiport {k:>8.2?}  parallel-ssh {p:>8.2?}  ratio {:.2}",
                    k.as_secs_f64() / p.as_secs_f64()
                );
            }
            if ansible {
                let (k, a) = compare(runs, ours, || quiet(fleet.ansible(command)))?;
                println!(
                    "{hosts:>3} hosts, {what:<11}: kaiport {k:>8.2?}  ansible      {a:>8.2?}  ratio {:.2}",
                    k.as_secs_f64() / a.as_secs_f64()
                );
            }
        }
        if sizes.last() == Some(&fleet.hosts) {
            let peak = peak_kib(fleet.kaiport(&kaiport, COMMANDS[1].1))?;
            println!(
                "{hosts} hosts, 1 MB output: kaiport peak {peak} KiB, {:.0} KiB per host",
                peak as f64 / hosts as f64
            );
        }
    }
    Ok(())
}
