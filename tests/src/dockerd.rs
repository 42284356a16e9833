//! A real Docker engine (Debian's `docker.io`) for the show_view tests, private to one test.
//!
//! [`Dockerd::start`] runs `dockerd` as root with its data, state and socket in its own temp dir
//! (no bridge network, no iptables rules: containers run with `--network none`), the socket
//! owned by the group of the sshd login user, so the view's `docker` on the server reaches it
//! through `DOCKER_HOST` ([`crate::sshd::Sshd::start_with_env`]). Images come from a local
//! tarball of `/bin/busybox` (`docker import`), never pulled. Dropping the fixture removes its
//! containers and stops dockerd and every process it started by PID.

use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

const DOCKERD: &str = "/usr/sbin/dockerd";
const BUSYBOX: &str = "/bin/busybox";
const READY_TIMEOUT: Duration = Duration::from_secs(30);
const STOP_TIMEOUT: Duration = Duration::from_secs(15);
/// The image [`Dockerd::import_busybox`] makes.
pub const BUSYBOX_IMAGE: &str = "kaiport/busybox:test";

#[derive(Debug)]
pub struct Dockerd {
    dir: TempDir,
    child: Option<Child>,
}

impl Dockerd {
    /// Starts dockerd (as root) with its socket's group `group`; fails with what to install
    /// when dockerd or busybox is missing.
    pub fn start(group: &str) -> Result<Dockerd> {
        if !Path::new(DOCKERD).exists() || !Path::new(BUSYBOX).exists() {
            bail!(
                "dockerd or busybox is missing: run scripts/install-test-deps.sh (docker.io, busybox-static)"
            );
        }
        let dir = tempfile::Builder::new()
            .prefix("kaiport-dockerd-")
            .tempdir_in("/tmp")?;
        // The login user reaches the socket through this folder.
        Command::new("chmod").arg("755").arg(dir.path()).status()?;
        let d = dir.path().display();
        let log = std::fs::File::create(dir.path().join("dockerd.log"))?;
        let child = Command::new(DOCKERD)
            .arg(format!("--data-root={d}/root"))
            .arg(format!("--exec-root={d}/exec"))
            .arg(format!("--pidfile={d}/docker.pid"))
            .arg(format!("--host=unix://{d}/docker.sock"))
            .arg(format!("--group={group}"))
            .args(["--iptables=false", "--ip6tables=false", "--bridge=none"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .context("starting dockerd")?;
        let dockerd = Dockerd {
            dir,
            child: Some(child),
        };
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if dockerd
                .docker(&["info", "--format", "{{.ServerVersion}}"])?
                .status
                .success()
            {
                return Ok(dockerd);
            }
            if Instant::now() > deadline {
                bail!(
                    "dockerd did not answer within {READY_TIMEOUT:?}: {}",
                    dockerd.log()
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// `unix://…/docker.sock`, for `DOCKER_HOST`.
    pub fn host(&self) -> String {
        format!("unix://{}/docker.sock", self.dir.path().display())
    }

    /// The engine's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("dockerd.log")).unwrap_or_default()
    }

    /// Runs the docker CLI against this engine.
    pub fn docker(&self, args: &[&str]) -> Result<Output> {
        Command::new("docker")
            .args(args)
            .env("DOCKER_HOST", self.host())
            .stdin(Stdio::null())
            .output()
            .context("running the docker CLI")
    }

    /// Like [`Dockerd::docker`], failing unless it succeeds; returns its standard output.
    pub fn docker_ok(&self, args: &[&str]) -> Result<String> {
        let output = self.docker(args)?;
        if !output.status.success() {
            bail!(
                "docker {args:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Imports [`BUSYBOX_IMAGE`] from a tarball of this machine's static busybox.
    pub fn import_busybox(&self) -> Result<()> {
        let rootfs = self.dir.path().join("rootfs");
        std::fs::create_dir_all(rootfs.join("bin"))?;
        std::fs::copy(BUSYBOX, rootfs.join("bin/busybox"))?;
        std::os::unix::fs::symlink("busybox", rootfs.join("bin/sh"))?;
        let tarball = self.dir.path().join("rootfs.tar");
        let status = Command::new("tar")
            .arg("-C")
            .arg(&rootfs)
            .arg("-cf")
            .arg(&tarball)
            .arg(".")
            .status()?;
        if !status.success() {
            bail!("tar of the busybox root failed");
        }
        self.docker_ok(&["import", &tarball.display().to_string(), BUSYBOX_IMAGE])?;
        Ok(())
    }
}

impl Drop for Dockerd {
    fn drop(&mut self) {
        if let Ok(ids) = self.docker_ok(&["ps", "-aq"]) {
            let ids: Vec<&str> = ids.split_whitespace().collect();
            if !ids.is_empty() {
                let mut args = vec!["rm", "-f"];
                args.extend(ids);
                let _ = self.docker(&args);
            }
        }
        let Some(mut child) = self.child.take() else {
            return;
        };
        let pid = child.id();
        // Found before the stop: once dockerd is gone, containerd is no longer its child.
        let mut pids = crate::sshd::descendants(pid);
        pids.push(pid);
        // A graceful stop unmounts its layers; what is left after the wait is killed.
        let _ = Command::new("kill").arg(pid.to_string()).status();
        let deadline = Instant::now() + STOP_TIMEOUT;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let alive: Vec<u32> = pids
            .into_iter()
            .filter(|pid| Path::new(&format!("/proc/{pid}")).exists())
            .collect();
        crate::sshd::kill_pids(&alive);
        let _ = child.wait();
    }
}
