//! A real OpenSSH `sshd` for tests, and a real `ssh-agent`.
//!
//! [`Sshd::start`] makes a temp dir with fresh host keys (ed25519, RSA, ECDSA), client keys
//! ([`ClientKeys`]: ed25519, ECDSA, RSA, and an ed25519 encrypted with [`KEY_PASSPHRASE`]), an
//! `authorized_keys` with all of them, a user CA the server trusts (`TrustedUserCAKeys`, for
//! [`Sshd::certify`]) and an `sshd_config`; then runs `/usr/sbin/sshd -D -e -f`
//! on 127.0.0.1 on a free port and waits until it answers with an SSH banner. Dropping the
//! fixture kills sshd and every process it started (sessions, shells) by PID.
//!
//! When the tests run as root (CI), sshd logs in as [`TEST_USER`], created on first use with
//! password [`TEST_PASSWORD`], bash as shell and passwordless sudo; otherwise as the current user
//! (password and keyboard-interactive tests then cannot pass).
//!
//! Servers listen on 127.0.0.1 only. Each fixture has its own port and temp dir, so tests can run
//! in parallel.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use kaiport_core::backup::{ROOT_AREAS, USER_AREA};
use kaiport_core::ssh::{SshOptions, SshTarget};
use tempfile::TempDir;

/// The unprivileged user sshd logs in as when the tests run as root.
pub const TEST_USER: &str = "kaiport-test";
/// [`TEST_USER`]'s password (set with chpasswd on first use).
pub const TEST_PASSWORD: &str = "kaiport-Test-pw-42";
/// A second login user (as root only) whose `sudo` asks for its password, [`TEST_PASSWORD`],
/// every time: for sudo prompts the user answers in the terminal ([`SshdConfig::sudo_asks_password`]).
pub const SUDO_PASSWORD_USER: &str = "kaiport-sudopw";
/// The passphrase of [`ClientKeys::ed25519_encrypted`].
pub const KEY_PASSPHRASE: &str = "correct horse battery staple";
/// The only address fixtures listen on.
pub const LOCALHOST: &str = "127.0.0.1";

const SSHD: &str = "/usr/sbin/sshd";
/// The user CA's key in the fixture dir; sshd trusts its `.pub` (`TrustedUserCAKeys`).
const USER_CA: &str = "user_ca";
const READY_TIMEOUT: Duration = Duration::from_secs(15);
const START_ATTEMPTS: usize = 5;

/// Client private keys made for one fixture; all are in its `authorized_keys`.
#[derive(Debug, Clone)]
pub struct ClientKeys {
    pub ed25519: PathBuf,
    pub ecdsa: PathBuf,
    pub rsa: PathBuf,
    /// Encrypted with [`KEY_PASSPHRASE`].
    pub ed25519_encrypted: PathBuf,
    /// Not in `authorized_keys`: for "wrong key" tests.
    pub unauthorized: PathBuf,
}

/// What the server allows besides public keys.
#[derive(Debug, Clone, Copy, Default)]
pub struct SshdConfig {
    /// `PasswordAuthentication yes`.
    pub password: bool,
    /// `KbdInteractiveAuthentication yes` (with `UsePAM yes`, which provides the prompts).
    pub keyboard_interactive: bool,
    /// Leave public-key authentication off (to force password / keyboard-interactive).
    pub no_publickey: bool,
    /// Log in as [`SUDO_PASSWORD_USER`] (whose sudo asks for a password) instead of
    /// [`TEST_USER`]. Without root, the current user as always.
    pub sudo_asks_password: bool,
    /// Log in as a user whose login shell is this one (as root only; e.g. [`LoginShell::Zsh`]),
    /// with passwordless sudo like [`TEST_USER`].
    pub login_shell: LoginShell,
    /// Which multiplexers the sessions' `PATH` finds (as root only: for kept sessions).
    pub multiplexers: Multiplexers,
}

/// Which of tmux and screen a session finds on its `PATH`. Other than [`Multiplexers::Both`],
/// the server logs in as a user of its own (bash, passwordless sudo) and its sessions get
/// (sshd's `SetEnv`) a `PATH` of one folder in the fixture's dir, holding a link to every
/// program of the system's `PATH` but the hidden ones. Nothing of the system is changed. A
/// login shell's profile may set its own `PATH` (Debian's /etc/profile does); the lookups on an
/// exec channel and a multiplexer's own shells (not login shells) keep this one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Multiplexers {
    #[default]
    Both,
    /// No tmux: `kaiport-screen` logs in.
    ScreenOnly,
    /// Neither tmux nor screen: `kaiport-nomux` logs in.
    Neither,
}

impl Multiplexers {
    /// The login user and the programs hidden from its `PATH`; None for [`Multiplexers::Both`].
    fn hidden(self) -> Option<(&'static str, &'static [&'static str])> {
        match self {
            Multiplexers::Both => None,
            Multiplexers::ScreenOnly => Some(("kaiport-screen", &["tmux"])),
            Multiplexers::Neither => Some(("kaiport-nomux", &["tmux", "screen"])),
        }
    }
}

/// The login shell of the user sshd logs in as (as root; otherwise the current user's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LoginShell {
    #[default]
    Bash,
    /// `kaiport-zsh`, with an empty `~/.zshrc` (so zsh's first-run menu stays away).
    Zsh,
    /// `kaiport-fish`.
    Fish,
}

/// A running OpenSSH server on 127.0.0.1. See the module docs.
#[derive(Debug)]
pub struct Sshd {
    dir: TempDir,
    /// The address it listens on: 127.0.0.1, or its network namespace's.
    host: String,
    port: u16,
    /// The network namespace it runs in, if any.
    netns: Option<String>,
    child: Option<Child>,
    user: String,
    /// The client keys of this fixture.
    pub keys: ClientKeys,
}

impl Sshd {
    /// Starts a server allowing public keys only.
    pub fn start() -> Result<Sshd> {
        Sshd::start_with(SshdConfig::default())
    }

    /// Starts a server with `config`.
    pub fn start_with(config: SshdConfig) -> Result<Sshd> {
        Sshd::start_with_env(config, &[])
    }

    /// Starts a server with `config` whose sessions get the environment variables `env`
    /// (sshd's `SetEnv`), e.g. `DOCKER_HOST` for a test's own Docker engine.
    pub fn start_with_env(config: SshdConfig, env: &[(&str, &str)]) -> Result<Sshd> {
        Sshd::start_at(config, env, LOCALHOST, None)
    }

    /// Starts a server (public keys only) inside `net`'s namespace, on its address there: the
    /// test can cut the link to it ([`crate::netns::TestNet::link`]).
    pub fn start_in(net: &crate::netns::TestNet) -> Result<Sshd> {
        Sshd::start_at(
            SshdConfig::default(),
            &[],
            &net.inner_addr,
            Some(net.name.as_str()),
        )
    }

    fn start_at(
        config: SshdConfig,
        env: &[(&str, &str)],
        host: &str,
        netns: Option<&str>,
    ) -> Result<Sshd> {
        let user = match (
            config.sudo_asks_password,
            config.login_shell,
            config.multiplexers.hidden(),
        ) {
            (true, _, _) => ensure_sudo_password_user()?,
            (false, LoginShell::Bash, Some((user, _))) => ensure_bash_user(user)?,
            (false, LoginShell::Bash, None) => ensure_test_user()?,
            (false, shell, _) => ensure_shell_user(shell)?,
        };
        std::fs::create_dir_all("/run/sshd").or_else(|e| {
            if is_root() {
                Err(e).context("creating /run/sshd")
            } else {
                Ok(())
            }
        })?;
        let dir = tempfile::Builder::new().prefix("kaiport-sshd-").tempdir()?;
        // sshd reads authorized_keys as the login user: the dir must be traversable.
        set_mode(dir.path(), 0o755)?;
        for kind in ["ed25519", "rsa", "ecdsa"] {
            keygen(&dir.path().join(format!("ssh_host_{kind}_key")), kind, "")?;
        }
        let keys = ClientKeys {
            ed25519: dir.path().join("id_ed25519"),
            ecdsa: dir.path().join("id_ecdsa"),
            rsa: dir.path().join("id_rsa"),
            ed25519_encrypted: dir.path().join("id_ed25519_encrypted"),
            unauthorized: dir.path().join("id_unauthorized"),
        };
        keygen(&keys.ed25519, "ed25519", "")?;
        keygen(&keys.ecdsa, "ecdsa", "")?;
        keygen(&keys.rsa, "rsa", "")?;
        keygen(&keys.ed25519_encrypted, "ed25519", KEY_PASSPHRASE)?;
        keygen(&keys.unauthorized, "ed25519", "")?;
        keygen(&dir.path().join(USER_CA), "ed25519", "")?;
        let mut authorized = String::new();
        for key in [
            &keys.ed25519,
            &keys.ecdsa,
            &keys.rsa,
            &keys.ed25519_encrypted,
        ] {
            authorized.push_str(&std::fs::read_to_string(pub_path(key))?);
        }
        let authorized_keys = dir.path().join("authorized_keys");
        std::fs::write(&authorized_keys, authorized)?;
        set_mode(&authorized_keys, 0o644)?;

        let path = match config.multiplexers.hidden() {
            Some((_, hidden)) if is_root() => {
                Some(programs_without(&dir.path().join("path"), hidden)?)
            }
            _ => None,
        };
        let path = path.map(|path| path.display().to_string());
        let mut env = env.to_vec();
        if let Some(path) = &path {
            env.push(("PATH", path.as_str()));
        }
        let mut last_error = None;
        for _ in 0..START_ATTEMPTS {
            let port = free_port()?;
            write_config(dir.path(), host, port, &user, config, &env)?;
            match spawn_sshd(dir.path(), host, port, netns) {
                Ok(child) => {
                    let sshd = Sshd {
                        dir,
                        host: host.to_owned(),
                        port,
                        netns: netns.map(str::to_owned),
                        child: Some(child),
                        user,
                        keys,
                    };
                    sshd.forget_backups()?;
                    return Ok(sshd);
                }
                // Another process may have taken the port in between: try another one.
                Err(e) => last_error = Some(e),
            }
        }
        Err(last_error.unwrap_or_else(|| anyhow::anyhow!("sshd did not start")))
    }

    /// Another server like this one (its host keys, `authorized_keys` and login user, so one
    /// known_hosts and one client key serve both) on a port of its own, with `env` for its
    /// sessions (sshd's `SetEnv`). Starting one makes no keys: twenty start in a moment, for
    /// fleet runs. Its client keys stay in this fixture's dir: keep this one running.
    pub fn start_sibling(&self, env: &[(&str, &str)]) -> Result<Sshd> {
        let dir = tempfile::Builder::new().prefix("kaiport-sshd-").tempdir()?;
        set_mode(dir.path(), 0o755)?;
        for kind in ["ed25519", "rsa", "ecdsa"] {
            for file in [
                format!("ssh_host_{kind}_key"),
                format!("ssh_host_{kind}_key.pub"),
            ] {
                // std::fs::copy keeps the private key's 0600.
                std::fs::copy(self.dir().join(&file), dir.path().join(&file))?;
            }
        }
        std::fs::copy(
            self.dir().join("authorized_keys"),
            dir.path().join("authorized_keys"),
        )?;
        let mut last_error = None;
        for _ in 0..START_ATTEMPTS {
            let port = free_port()?;
            write_config(
                dir.path(),
                &self.host,
                port,
                &self.user,
                SshdConfig::default(),
                env,
            )?;
            match spawn_sshd(dir.path(), &self.host, port, None) {
                Ok(child) => {
                    let sshd = Sshd {
                        dir,
                        host: self.host.clone(),
                        port,
                        netns: None,
                        child: Some(child),
                        user: self.user.clone(),
                        keys: self.keys.clone(),
                    };
                    sshd.forget_backups()?;
                    return Ok(sshd);
                }
                Err(e) => last_error = Some(e),
            }
        }
        Err(last_error.unwrap_or_else(|| anyhow::anyhow!("sshd did not start")))
    }

    /// The port sshd listens on (on 127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The user sshd logs in as.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The fixture's temp dir (keys, config, log).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// sshd's PID while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// A tab on this server, logging in as [`Sshd::user`] with the ed25519 key.
    pub fn tab_target(&self) -> kaiport_protocol::TabTarget {
        kaiport_protocol::TabTarget::Ssh {
            host: self.host.clone(),
            port: self.port,
            user: self.user.clone(),
            identity_files: vec![self.keys.ed25519.display().to_string()],
            jump_hosts: Vec::new(),
            keep_session: false,
            certificate_files: Vec::new(),
            identity_agent: None,
            forward_agent: false,
        }
    }

    /// A target for this server as the test user with the ed25519 client key.
    pub fn target(&self) -> SshTarget {
        let mut target = SshTarget::new(&self.host, self.port, self.user.clone());
        target.identity_files = vec![self.keys.ed25519.clone()];
        target
    }

    /// A folder in /tmp that the login user may write to (removed on drop): the server side
    /// of an SFTP storage tab.
    pub fn writable_folder(&self) -> Result<TempDir> {
        let folder = tempfile::Builder::new()
            .prefix("kaiport-sftp-")
            .tempdir_in("/tmp")?;
        set_mode(folder.path(), 0o777)?;
        Ok(folder)
    }

    /// An SFTP storage tab on this server with `folder` as its `/`, logging in with the
    /// ed25519 key, its local side asked for in `local_roots`.
    pub fn sftp_storage(
        &self,
        folder: &Path,
        local_roots: Vec<String>,
    ) -> kaiport_protocol::TabTarget {
        kaiport_protocol::TabTarget::Storage {
            url: format!(
                "sftp://{}@{}:{}{}",
                self.user,
                self.host,
                self.port,
                folder.display()
            ),
            user: None,
            local_roots,
            identity_files: vec![self.keys.ed25519.display().to_string()],
        }
    }

    /// A target with no identity files (for password / agent tests).
    pub fn target_without_keys(&self) -> SshTarget {
        SshTarget::new(&self.host, self.port, self.user.clone())
    }

    /// `known_hosts` lines (one per host key: ed25519, RSA, ECDSA) for this server.
    pub fn known_hosts_lines(&self) -> Result<String> {
        let mut out = String::new();
        for kind in ["ed25519", "rsa", "ecdsa"] {
            let public =
                std::fs::read_to_string(self.dir().join(format!("ssh_host_{kind}_key.pub")))?;
            let mut fields = public.split_whitespace();
            let (Some(algo), Some(blob)) = (fields.next(), fields.next()) else {
                bail!("malformed host public key for {kind}");
            };
            writeln!(out, "[{}]:{} {algo} {blob}", self.host, self.port)?;
        }
        Ok(out)
    }

    /// Appends this server's `known_hosts` lines to `path` (created if missing), e.g. to trust
    /// both servers of a jump-host pair in one file.
    pub fn trust_in(&self, path: &Path) -> Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        file.write_all(self.known_hosts_lines()?.as_bytes())?;
        Ok(())
    }

    /// Two servers, e.g. a jump host and the target behind it.
    pub fn start_pair() -> Result<(Sshd, Sshd)> {
        Ok((Sshd::start()?, Sshd::start()?))
    }

    /// Writes a `known_hosts` file trusting this server to `path`.
    pub fn write_known_hosts(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.known_hosts_lines()?)?;
        Ok(())
    }

    /// Options for connecting to this server: a `known_hosts` in the fixture dir that already
    /// trusts it, a 10 s connect timeout, no agent, short keepalive.
    pub fn options(&self) -> Result<SshOptions> {
        let known_hosts = self.dir().join("client_known_hosts");
        self.write_known_hosts(&known_hosts)?;
        let mut options = SshOptions::with_known_hosts(known_hosts);
        options.connect_timeout = Duration::from_secs(10);
        options.keepalive_interval = Duration::from_secs(2);
        options.keepalive_max = 3;
        options.use_agent = false;
        Ok(options)
    }

    /// Writes an authorized ECDSA P-256 key named `name` whose private scalar starts with a zero
    /// byte, saved by `ssh-keygen` (which writes that scalar in 31 bytes), encrypted with
    /// `passphrase` with `cipher` unless the passphrase is empty. About one P-256 key in 256 is
    /// like this.
    pub fn add_short_scalar_p256_key(
        &self,
        name: &str,
        passphrase: &str,
        cipher: &str,
    ) -> Result<PathBuf> {
        use russh::keys::ssh_key::private::{EcdsaKeypair, KeypairData};
        use russh::keys::ssh_key::{LineEnding, PrivateKey};

        let mut scalar = [0u8; 32];
        for (i, byte) in scalar.iter_mut().enumerate().skip(1) {
            *byte = (i as u8).wrapping_mul(37) ^ 0x5a;
        }
        let secret = p256::SecretKey::from_slice(&scalar).context("making a P-256 scalar")?;
        let keypair = EcdsaKeypair::NistP256 {
            public: secret.public_key().into(),
            private: secret.into(),
        };
        let key = PrivateKey::new(KeypairData::Ecdsa(keypair), "kaiport-test")?;
        let path = self.dir().join(name);
        std::fs::write(&path, key.to_openssh(LineEnding::LF)?.as_bytes())?;
        set_mode(&path, 0o600)?;
        // ssh-key wrote the scalar at full width; OpenSSH's own encoding is what users have.
        ssh_keygen(|cmd| {
            cmd.args(["-p", "-P", "", "-N", passphrase, "-Z", cipher, "-f"])
                .arg(&path)
        })?;
        let public = key.public_key().to_openssh()?;
        let mut authorized = std::fs::OpenOptions::new()
            .append(true)
            .open(self.dir().join("authorized_keys"))?;
        writeln!(authorized, "{public}")?;
        Ok(path)
    }

    /// Signs the public key of the private key `key` with the fixture's user CA (which sshd
    /// trusts) for the login user, and writes the certificate to `cert` (OpenSSH's own place
    /// for it is `KEY-cert.pub`).
    pub fn certify(&self, key: &Path, cert: &Path) -> Result<()> {
        let signed = self.dir().join(format!("signing-{}", std::process::id()));
        std::fs::copy(pub_path(key), pub_path(&signed))?;
        ssh_keygen(|cmd| {
            cmd.arg("-s")
                .arg(self.dir().join(USER_CA))
                .args(["-I", "kaiport-test-cert", "-n", &self.user, "-V", "-5m:+1h"])
                .arg(pub_path(&signed))
        })?;
        let mut made = signed.into_os_string();
        made.push("-cert.pub");
        std::fs::rename(&made, cert)?;
        Ok(())
    }

    /// Adds a public key line (`TYPE BASE64 COMMENT`) to `authorized_keys`.
    pub fn authorize(&self, public_line: &str) -> Result<()> {
        let mut authorized = std::fs::OpenOptions::new()
            .append(true)
            .open(self.dir().join("authorized_keys"))?;
        writeln!(authorized, "{public_line}")?;
        Ok(())
    }

    /// sshd's log so far (its stderr), for failure messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir().join("sshd.log")).unwrap_or_default()
    }

    /// Stops (SIGSTOP) every process sshd started — connection handlers and shells — and closes
    /// nothing: to its clients the server is now one behind a network that died silently (no
    /// FIN, no answer), as a phone finds its connections after a while in the background.
    /// [`Sshd::kill`] (or dropping the fixture) ends them; sshd itself still takes new logins.
    pub fn freeze_connections(&self) {
        if let Some(child) = &self.child {
            signal_pids("-STOP", &descendants(child.id()));
        }
    }

    /// Kills every process sshd started (connection handlers and shells) but not sshd itself:
    /// clients see their connections drop, and can log in again.
    pub fn kill_connections(&self) {
        if let Some(child) = &self.child {
            kill_pids(&descendants(child.id()));
        }
    }

    /// Kills the connection handlers sshd started (its `sshd` processes) and nothing else, as
    /// a network drop ends them: the kernel hangs up their terminals, so what a shell left
    /// running in its own session (a screen or tmux server) goes on. Clients can log in again.
    pub fn drop_connections(&self) {
        if let Some(child) = &self.child {
            let handlers: Vec<u32> = descendants(child.id())
                .into_iter()
                .filter(|pid| {
                    std::fs::read_to_string(format!("/proc/{pid}/comm"))
                        .is_ok_and(|comm| comm.trim() == "sshd")
                })
                .collect();
            kill_pids(&handlers);
        }
    }

    /// The SHA256 fingerprint of the server's ed25519 host key, as `ssh-keygen -l` prints it.
    pub fn host_fingerprint(&self) -> Result<String> {
        let out = Command::new("ssh-keygen")
            .arg("-lf")
            .arg(self.dir().join("ssh_host_ed25519_key.pub"))
            .output()
            .context("running ssh-keygen")?;
        let text = String::from_utf8_lossy(&out.stdout);
        match text.split_whitespace().nth(1) {
            Some(fingerprint) => Ok(fingerprint.to_owned()),
            None => bail!("ssh-keygen -l printed no fingerprint: {text}"),
        }
    }

    /// Stops sshd, gives it new host keys (as a reinstalled server has) and starts it again on
    /// the same port: clients that trusted the old keys now see them changed.
    pub fn restart_with_new_host_keys(&mut self) -> Result<()> {
        self.kill();
        for kind in ["ed25519", "rsa", "ecdsa"] {
            let key = self.dir().join(format!("ssh_host_{kind}_key"));
            std::fs::remove_file(&key)?;
            std::fs::remove_file(pub_path(&key))?;
            keygen(&key, kind, "")?;
        }
        self.child = Some(spawn_sshd(
            self.dir.path(),
            &self.host,
            self.port,
            self.netns.as_deref(),
        )?);
        Ok(())
    }

    /// The backup areas kaiport keeps on this server for its connection (the login user's, and
    /// root's for that user), named after host and port: every fixture logs in as the same user,
    /// so an area an earlier server on this port left would show its changes as this one's.
    pub fn backup_areas(&self) -> Result<Vec<PathBuf>> {
        let slug = format!("{}_{}", self.host, self.port);
        let home = passwd_field(&self.user, 5)?;
        let mut areas = vec![PathBuf::from(home).join(USER_AREA).join(&slug)];
        if is_root() {
            let uid = passwd_field(&self.user, 2)?;
            areas.push(Path::new(ROOT_AREAS).join(format!("uid-{uid}")).join(&slug));
        }
        Ok(areas)
    }

    /// Removes [`Sshd::backup_areas`]: at start (a test that crashed left them) and on drop.
    fn forget_backups(&self) -> Result<()> {
        for area in self.backup_areas()? {
            match std::fs::remove_dir_all(&area) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(e).with_context(|| format!("removing {}", area.display()));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Kills sshd and every process it started (connection handlers, shells) at once, as if the
    /// server died: clients see their TCP connections drop. Idempotent.
    pub fn kill(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let mut pids = descendants(child.id());
        pids.push(child.id());
        kill_pids(&pids);
        // Reaped so no zombie is left; an error means it was already reaped.
        let _ = child.wait();
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        self.kill();
        // Nothing to do about a failure here; the next server on this port clears it again.
        let _ = self.forget_backups();
    }
}

/// A running `ssh-agent` on a socket in its own temp dir, stopped by PID on drop.
#[derive(Debug)]
pub struct SshAgent {
    dir: TempDir,
    child: Child,
}

impl SshAgent {
    /// Starts `ssh-agent -D -a <socket>` and waits until its socket takes connections (the
    /// file exists from `bind`, a moment before the agent listens: `ssh-add` then fails).
    pub fn start() -> Result<SshAgent> {
        let dir = tempfile::Builder::new()
            .prefix("kaiport-agent-")
            .tempdir()?;
        let socket = dir.path().join("agent.sock");
        let child = Command::new("ssh-agent")
            .arg("-D")
            .arg("-a")
            .arg(&socket)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("starting ssh-agent (install openssh-client)")?;
        let agent = SshAgent { dir, child };
        let deadline = Instant::now() + READY_TIMEOUT;
        while std::os::unix::net::UnixStream::connect(agent.socket()).is_err() {
            if Instant::now() > deadline {
                bail!("ssh-agent did not listen on {}", agent.socket().display());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(agent)
    }

    /// The agent's socket (what `SSH_AUTH_SOCK` should point to).
    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("agent.sock")
    }

    /// `ssh-add`s a private key (unencrypted) to the agent.
    pub fn add(&self, key: &Path) -> Result<()> {
        let status = Command::new("ssh-add")
            .arg(key)
            .env("SSH_AUTH_SOCK", self.socket())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .context("running ssh-add")?;
        if !status.success() {
            bail!("ssh-add {} failed: {status}", key.display());
        }
        Ok(())
    }
}

impl Drop for SshAgent {
    fn drop(&mut self) {
        kill_pids(&[self.child.id()]);
        let _ = self.child.wait();
    }
}

pub(crate) fn is_root() -> bool {
    static ROOT: OnceLock<bool> = OnceLock::new();
    *ROOT.get_or_init(|| {
        Command::new("id")
            .arg("-u")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
            .unwrap_or(false)
    })
}

/// Makes sure the login user exists; returns its name. As root: creates [`TEST_USER`] once per
/// machine (under a file lock, so parallel test processes do not race) and once per process.
fn ensure_test_user() -> Result<String> {
    static USER: OnceLock<std::result::Result<String, String>> = OnceLock::new();
    let result = USER.get_or_init(|| create_test_user().map_err(|e| format!("{e:#}")));
    result.clone().map_err(|e| anyhow::anyhow!(e))
}

/// Like [`ensure_test_user`], for [`SUDO_PASSWORD_USER`]: its sudoers rule asks for the
/// password on every use (no cached timestamp, no lecture).
fn ensure_sudo_password_user() -> Result<String> {
    static USER: OnceLock<std::result::Result<String, String>> = OnceLock::new();
    let rule = format!(
        "Defaults:{user} timestamp_timeout=0, lecture=never\\n{user} ALL=(ALL) ALL",
        user = SUDO_PASSWORD_USER
    );
    let result =
        USER.get_or_init(|| create_user(SUDO_PASSWORD_USER, &rule).map_err(|e| format!("{e:#}")));
    result.clone().map_err(|e| anyhow::anyhow!(e))
}

fn create_test_user() -> Result<String> {
    create_user(TEST_USER, &format!("{TEST_USER} ALL=(ALL) NOPASSWD:ALL"))
}

/// Like [`ensure_test_user`], for `user` (of [`Multiplexers::hidden`]): bash, passwordless sudo.
fn ensure_bash_user(user: &'static str) -> Result<String> {
    static USERS: std::sync::Mutex<Vec<(&str, std::result::Result<String, String>)>> =
        std::sync::Mutex::new(Vec::new());
    let mut users = USERS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, made)) = users.iter().find(|(name, _)| *name == user) {
        return made.clone().map_err(|e| anyhow::anyhow!(e));
    }
    let made =
        create_user(user, &format!("{user} ALL=(ALL) NOPASSWD:ALL")).map_err(|e| format!("{e:#}"));
    users.push((user, made.clone()));
    made.map_err(|e| anyhow::anyhow!(e))
}

/// Makes `folder` (in a fixture's dir) with a link to every program of the system's `PATH`
/// but those named `hidden`, the first of a name winning as in a `PATH` lookup; returns it.
fn programs_without(folder: &Path, hidden: &[&str]) -> Result<PathBuf> {
    std::fs::create_dir_all(folder)?;
    set_mode(folder, 0o755)?;
    let mut seen = std::collections::HashSet::new();
    for dir in [
        "/usr/local/sbin",
        "/usr/local/bin",
        "/usr/sbin",
        "/usr/bin",
        "/sbin",
        "/bin",
    ] {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if hidden.iter().any(|h| name == *h) || !seen.insert(name.clone()) {
                continue;
            }
            std::os::unix::fs::symlink(entry.path(), folder.join(&name))
                .with_context(|| format!("linking {}", entry.path().display()))?;
        }
    }
    Ok(folder.to_path_buf())
}

/// Like [`ensure_test_user`], for the user whose login shell is `shell` (zsh or fish).
fn ensure_shell_user(shell: LoginShell) -> Result<String> {
    static ZSH: OnceLock<std::result::Result<String, String>> = OnceLock::new();
    static FISH: OnceLock<std::result::Result<String, String>> = OnceLock::new();
    let (cell, user, path) = match shell {
        LoginShell::Zsh => (&ZSH, "kaiport-zsh", "/usr/bin/zsh"),
        LoginShell::Fish | LoginShell::Bash => (&FISH, "kaiport-fish", "/usr/bin/fish"),
    };
    let result = cell.get_or_init(|| {
        create_user_with_shell(user, &format!("{user} ALL=(ALL) NOPASSWD:ALL"), path)
            .map_err(|e| format!("{e:#}"))
    });
    result.clone().map_err(|e| anyhow::anyhow!(e))
}

/// Creates `user` (as root; else returns the current user) with [`TEST_PASSWORD`], bash and the
/// sudoers drop-in `rule` (`\n` between lines).
fn create_user(user: &str, rule: &str) -> Result<String> {
    create_user_with_shell(user, rule, "/bin/bash")
}

/// [`create_user`] with `shell` as the login shell.
fn create_user_with_shell(user: &str, rule: &str, shell: &str) -> Result<String> {
    if !is_root() {
        let out = Command::new("id")
            .arg("-un")
            .output()
            .context("running id -un")?;
        return Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned());
    }
    let script = format!(
        r#"set -e
if ! id -u {user} >/dev/null 2>&1; then
    useradd --create-home --shell {shell} {user}
fi
[ "$(getent passwd {user} | cut -d: -f7)" = {shell} ] || usermod --shell {shell} {user}
touch ~{user}/.zshrc
chown {user}: ~{user}/.zshrc
echo '{user}:{password}' | chpasswd
rule="$(printf '{rule}')"
if [ "$(cat /etc/sudoers.d/{user} 2>/dev/null)" != "$rule" ]; then
    mkdir -p /etc/sudoers.d
    printf '%s\n' "$rule" > /etc/sudoers.d/.{user}.tmp
    chmod 0440 /etc/sudoers.d/.{user}.tmp
    mv /etc/sudoers.d/.{user}.tmp /etc/sudoers.d/{user}
fi
"#,
        password = TEST_PASSWORD,
    );
    let status = Command::new("flock")
        .arg("/tmp/kaiport-test-user.lock")
        .arg("bash")
        .arg("-c")
        .arg(&script)
        .status()
        .context("creating the test user (needs flock, useradd, chpasswd: run scripts/install-test-deps.sh)")?;
    if !status.success() {
        bail!("creating the test user {user} failed: {status}");
    }
    Ok(user.to_owned())
}

fn keygen(path: &Path, kind: &str, passphrase: &str) -> Result<()> {
    ssh_keygen(|cmd| {
        cmd.args(["-t", kind, "-N", passphrase, "-C", "kaiport-test"]);
        if kind == "rsa" {
            cmd.args(["-b", "3072"]);
        }
        cmd.arg("-f").arg(path)
    })
}

/// Runs `ssh-keygen -q` with the arguments `args` adds.
fn ssh_keygen(args: impl FnOnce(&mut Command) -> &mut Command) -> Result<()> {
    let mut cmd = Command::new("ssh-keygen");
    cmd.arg("-q").stdin(Stdio::null());
    let output = args(&mut cmd)
        .output()
        .context("running ssh-keygen (install openssh-client)")?;
    if !output.status.success() {
        // Not the command line: it may hold a passphrase.
        bail!(
            "ssh-keygen failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

fn pub_path(key: &Path) -> PathBuf {
    let mut name = key.as_os_str().to_owned();
    name.push(".pub");
    PathBuf::from(name)
}

fn set_mode(path: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("chmod {mode:o} {}", path.display()))
}

/// Field `index` (0-based) of `user`'s line in the password database.
fn passwd_field(user: &str, index: usize) -> Result<String> {
    let out = Command::new("getent")
        .args(["passwd", user])
        .output()
        .context("running getent passwd")?;
    let line = String::from_utf8_lossy(&out.stdout);
    match line.trim_end().split(':').nth(index) {
        Some(field) if out.status.success() && !field.is_empty() => Ok(field.to_owned()),
        _ => bail!("getent passwd {user} printed no field {index}: {line:?}"),
    }
}

/// A port on 127.0.0.1 that was free a moment ago.
pub(crate) fn free_port() -> Result<u16> {
    let listener = TcpListener::bind((LOCALHOST, 0))?;
    Ok(listener.local_addr()?.port())
}

fn write_config(
    dir: &Path,
    host: &str,
    port: u16,
    user: &str,
    config: SshdConfig,
    env: &[(&str, &str)],
) -> Result<()> {
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let d = dir.display();
    let text = format!(
        "Port {port}
ListenAddress {host}
HostKey {d}/ssh_host_ed25519_key
HostKey {d}/ssh_host_rsa_key
HostKey {d}/ssh_host_ecdsa_key
PidFile {d}/sshd.pid
AuthorizedKeysFile {d}/authorized_keys
StrictModes no
UsePAM {pam}
PubkeyAuthentication {pubkey}
PasswordAuthentication {password}
KbdInteractiveAuthentication {kbd}
PermitRootLogin no
AllowUsers {user}
AllowTcpForwarding yes
AllowAgentForwarding yes
TrustedUserCAKeys {d}/{USER_CA}.pub
MaxAuthTries 20
MaxStartups 100:30:200
MaxSessions 50
PrintMotd no
LogLevel VERBOSE
Subsystem sftp internal-sftp
",
        pam = yes_no(config.keyboard_interactive),
        pubkey = yes_no(!config.no_publickey),
        password = yes_no(config.password),
        kbd = yes_no(config.keyboard_interactive),
    );
    let mut text = text;
    if !env.is_empty() {
        let pairs: Vec<String> = env
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        writeln!(text, "SetEnv {}", pairs.join(" "))?;
    }
    std::fs::write(dir.join("sshd_config"), text)?;
    Ok(())
}

fn spawn_sshd(dir: &Path, host: &str, port: u16, netns: Option<&str>) -> Result<Child> {
    let log = std::fs::File::create(dir.join("sshd.log"))?;
    // `ip netns exec` runs sshd in place (same process), so its children stay its descendants.
    let mut command = match netns {
        Some(name) => {
            let mut command = Command::new("ip");
            command.args(["netns", "exec", name, SSHD]);
            command
        }
        None => Command::new(SSHD),
    };
    let mut child = command
        .arg("-D")
        .arg("-e")
        .arg("-f")
        .arg(dir.join("sshd_config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .context("starting /usr/sbin/sshd (run scripts/install-test-deps.sh)")?;
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        if let Some(status) = child.try_wait()? {
            let log = std::fs::read_to_string(dir.join("sshd.log")).unwrap_or_default();
            bail!("sshd exited at start ({status}): {log}");
        }
        if banner_ok(host, port) {
            return Ok(child);
        }
        if Instant::now() > deadline {
            kill_pids(&[child.id()]);
            let _ = child.wait();
            bail!("sshd did not answer on port {port} within {READY_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Whether an SSH server answers on the port.
fn banner_ok(host: &str, port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect((host, port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut buf = [0u8; 8];
    let ok = stream.read_exact(&mut buf).is_ok() && buf.starts_with(b"SSH-2.0");
    // Politely end the probe connection so sshd does not log a long pre-auth wait.
    let _ = stream.write_all(b"SSH-2.0-probe\r\n");
    ok
}

/// All processes below `pid` (children, grandchildren, …), from /proc.
pub(crate) fn descendants(pid: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(child) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // Format: "pid (comm) state ppid ..." where comm may contain spaces and parens.
            let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                continue;
            };
            let Some(ppid) = after
                .split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<u32>().ok())
            else {
                continue;
            };
            parents.push((child, ppid));
        }
    }
    let mut found = Vec::new();
    let mut frontier = vec![pid];
    while let Some(p) = frontier.pop() {
        for &(child, ppid) in &parents {
            if ppid == p && !found.contains(&child) {
                found.push(child);
                frontier.push(child);
            }
        }
    }
    found
}

pub(crate) fn kill_pids(pids: &[u32]) {
    signal_pids("-KILL", pids);
}

/// Sends `signal` (as `kill` takes it: `-KILL`, `-STOP`) to `pids`.
pub(crate) fn signal_pids(signal: &str, pids: &[u32]) {
    if pids.is_empty() {
        return;
    }
    // Errors ignored: a process may have exited in between.
    let _ = Command::new("kill")
        .arg(signal)
        .args(pids.iter().map(u32::to_string))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}
