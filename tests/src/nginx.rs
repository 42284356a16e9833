//! A private nginx for tests: its own prefix, configuration, pid file, logs and temp folders in
//! a temp dir, one site on a free port of 127.0.0.1, run as a given user (the sshd fixture's
//! login user, so commands typed in its shell can test and reload it).
//!
//! It must never touch the machine's own nginx: nothing under /etc/nginx, /var/log/nginx or
//! /var/lib/nginx is read or written (every path nginx would default to is set to the temp dir,
//! the error log from the first moment with `-e`). Started in the foreground (`daemon off`), so
//! its master is the fixture's child; stopped by that PID on drop (TERM, which takes the workers
//! with it; KILL to the master and its children if it does not go).

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

const NGINX: &str = "/usr/sbin/nginx";
const READY_TIMEOUT: Duration = Duration::from_secs(20);
const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// What the site answers at `/` before any change.
pub const SITE_ANSWER: &str = "old\n";

/// A running private nginx. See the module docs.
#[derive(Debug)]
pub struct PrivateNginx {
    dir: TempDir,
    port: u16,
    child: Option<Child>,
}

impl PrivateNginx {
    /// Writes the configuration (`nginx.conf` including `sites-enabled/*.conf`, one site
    /// answering [`SITE_ANSWER`] at `/`), gives the folder to `owner`, starts nginx as `owner`
    /// and waits until the site answers.
    pub fn start(owner: &str) -> Result<PrivateNginx> {
        if !Path::new(NGINX).exists() {
            bail!("{NGINX} is missing: run scripts/install-test-deps.sh");
        }
        let dir = tempfile::Builder::new()
            .prefix("kaiport-nginx-")
            .tempdir_in("/tmp")?;
        let d = dir.path().display();
        std::fs::create_dir_all(dir.path().join("sites-enabled"))?;
        std::fs::create_dir_all(dir.path().join("tmp"))?;
        std::fs::write(
            dir.path().join("nginx.conf"),
            format!(
                "worker_processes 1;\n\
                 pid {d}/nginx.pid;\n\
                 error_log {d}/error.log;\n\
                 events {{ worker_connections 64; }}\n\
                 http {{\n\
                 \x20   access_log {d}/access.log;\n\
                 \x20   client_body_temp_path {d}/tmp/body;\n\
                 \x20   proxy_temp_path {d}/tmp/proxy;\n\
                 \x20   fastcgi_temp_path {d}/tmp/fastcgi;\n\
                 \x20   uwsgi_temp_path {d}/tmp/uwsgi;\n\
                 \x20   scgi_temp_path {d}/tmp/scgi;\n\
                 \x20   include {d}/sites-enabled/*.conf;\n\
                 }}\n"
            ),
        )?;
        let port = crate::sshd::free_port()?;
        std::fs::write(
            dir.path().join("sites-enabled/site.conf"),
            format!(
                "server {{\n    listen 127.0.0.1:{port};\n    location / {{\n        return 200 \"old\\n\";\n    }}\n}}\n"
            ),
        )?;
        crate::give_to(dir.path(), owner)?;
        let mut nginx = PrivateNginx {
            port,
            child: None,
            dir,
        };
        let child = crate::command_as(owner, NGINX)?
            .args(nginx.flag_words())
            .args(["-g", "daemon off;"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting nginx")?;
        nginx.child = Some(child);
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Some(child) = nginx.child.as_mut()
                && let Some(status) = child.try_wait()?
            {
                bail!("nginx exited at start ({status}): {}", nginx.error_log());
            }
            if let Ok((200, _)) = nginx.get("/") {
                return Ok(nginx);
            }
            if Instant::now() > deadline {
                bail!(
                    "nginx did not answer within {READY_TIMEOUT:?}: {}",
                    nginx.error_log()
                );
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// The prefix folder (configuration, pid file, logs).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The master's PID (the fixture's child).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The one site's file, loaded through `sites-enabled/*.conf`.
    pub fn site(&self) -> PathBuf {
        self.dir().join("sites-enabled/site.conf")
    }

    fn flag_words(&self) -> Vec<String> {
        let d = self.dir().display();
        vec![
            "-p".to_owned(),
            format!("{d}/"),
            "-c".to_owned(),
            format!("{d}/nginx.conf"),
            "-e".to_owned(),
            format!("{d}/error.log"),
        ]
    }

    /// The options every `nginx` command line for this instance needs (prefix, configuration,
    /// error log), as one string to type.
    pub fn flags(&self) -> String {
        self.flag_words().join(" ")
    }

    /// nginx's error log so far.
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir().join("error.log")).unwrap_or_default()
    }

    /// `GET path` from the site: the status and the body.
    pub fn get(&self, path: &str) -> Result<(u16, String)> {
        crate::http_get(self.port, path)
    }
}

impl Drop for PrivateNginx {
    fn drop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        crate::sshd::signal_pids("-TERM", &[child.id()]);
        let deadline = Instant::now() + STOP_TIMEOUT;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let mut pids = crate::sshd::descendants(child.id());
        pids.push(child.id());
        crate::sshd::signal_pids("-KILL", &pids);
        let _ = child.wait();
    }
}
