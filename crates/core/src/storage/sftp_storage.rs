//! SFTP as a storage service: [`SftpFiles`] over an SSH session that is opened again when it
//! was lost (the server restarted, the network dropped), as FTP and the HTTP services do on
//! their next request. A storage tab on SFTP has no terminal that would need the old session.
//!
//! After a lost connection, operations that only read or that are safe to repeat (metadata,
//! listings, make_dir, checksums) are tried once more on a new session; writes, renames and
//! deletes are not repeated (a repeat could act twice): they fail, and the next call
//! reconnects. Reconnecting authenticates like the first connection (keychain, else a prompt).
//!
//! Nothing here logs a path's contents or a secret.

use crate::fs::{
    Capabilities, DirItem, FileAccess, FsError, FsErrorKind, Metadata, SftpFiles, Sink, Source,
    WriteOptions,
};
use crate::ssh::SshSession;
use async_trait::async_trait;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// Opens a new SSH session and its SFTP channel (the error says what to fix).
pub type SftpConnector = Arc<
    dyn Fn() -> Pin<Box<dyn Future<Output = Result<(SshSession, SftpFiles), String>> + Send>>
        + Send
        + Sync,
>;

/// An SFTP side that reconnects after a lost connection. See the module docs.
pub struct ReconnectingSftp {
    connect: SftpConnector,
    location: String,
    /// The same server after a reconnect, so what the first session found.
    capabilities: Capabilities,
    current: tokio::sync::Mutex<Option<(SshSession, Arc<SftpFiles>)>>,
}

impl ReconnectingSftp {
    /// Starts with the already open `session` and `files`; `connect` makes new ones.
    pub fn new(session: SshSession, files: SftpFiles, connect: SftpConnector) -> ReconnectingSftp {
        ReconnectingSftp {
            connect,
            location: files.location(),
            capabilities: files.capabilities(),
            current: tokio::sync::Mutex::new(Some((session, Arc::new(files)))),
        }
    }

    async fn files(&self) -> Result<(SshSession, Arc<SftpFiles>), FsError> {
        let mut current = self.current.lock().await;
        if let Some((session, files)) = current.as_ref() {
            return Ok((session.clone(), files.clone()));
        }
        let (session, files) = (self.connect)().await.map_err(|message| {
            FsError::new(
                FsErrorKind::ConnectionLost,
                "/",
                format!("reconnecting to {} failed: {message}", self.location),
            )
        })?;
        let files = Arc::new(files);
        *current = Some((session.clone(), files.clone()));
        Ok((session, files))
    }

    /// `call`, ended early when the SSH session closes: SFTP requests in flight are otherwise
    /// only failed by their time limit.
    async fn watched<T>(
        &self,
        session: &SshSession,
        call: impl Future<Output = Result<T, FsError>>,
    ) -> Result<T, FsError> {
        let result = tokio::select! {
            result = call => result,
            () = session.closed() => Err(FsError::new(
                FsErrorKind::ConnectionLost,
                "/",
                format!(
                    "the connection to {} was lost: {}",
                    self.location,
                    session.close_reason().unwrap_or_else(|| "closed".to_owned())
                ),
            )),
        };
        self.note(result).await
    }

    /// Drops the session after `result` shows it was lost, so the next call reconnects.
    async fn note<T>(&self, result: Result<T, FsError>) -> Result<T, FsError> {
        if let Err(error) = &result
            && error.kind == FsErrorKind::ConnectionLost
            && let Some((session, _)) = self.current.lock().await.take()
        {
            session.disconnect().await;
        }
        result
    }
}

/// Runs `$call` with `$files` bound to the current SFTP side; after a lost connection, once
/// more on a new one.
macro_rules! repeatable {
    ($self:ident, $files:ident => $call:expr) => {{
        let (session, $files) = $self.files().await?;
        match $self.watched(&session, $call).await {
            Err(error) if error.kind == FsErrorKind::ConnectionLost => {
                let (session, $files) = $self.files().await?;
                $self.watched(&session, $call).await
            }
            other => other,
        }
    }};
}

/// Runs `$call` once; a lost connection is noted for the next call.
macro_rules! once {
    ($self:ident, $files:ident => $call:expr) => {{
        let (session, $files) = $self.files().await?;
        $self.watched(&session, $call).await
    }};
}

#[async_trait]
impl FileAccess for ReconnectingSftp {
    fn location(&self) -> String {
        self.location.clone()
    }

    fn capabilities(&self) -> Capabilities {
        self.capabilities
    }

    async fn metadata(&self, path: &str) -> Result<Metadata, FsError> {
        repeatable!(self, files => files.metadata(path))
    }

    async fn symlink_metadata(&self, path: &str) -> Result<Metadata, FsError> {
        repeatable!(self, files => files.symlink_metadata(path))
    }

    async fn read_dir(&self, path: &str) -> Result<Vec<DirItem>, FsError> {
        repeatable!(self, files => files.read_dir(path))
    }

    async fn read_link(&self, path: &str) -> Result<String, FsError> {
        repeatable!(self, files => files.read_link(path))
    }

    async fn read_into(
        &self,
        path: &str,
        offset: u64,
        max_len: u64,
        sink: Sink<'_>,
    ) -> Result<u64, FsError> {
        // Not repeated: part of the data may already be in the sink.
        once!(self, files => files.read_into(path, offset, max_len, sink))
    }

    async fn write_atomic(
        &self,
        path: &str,
        source: Source<'_>,
        options: &WriteOptions,
    ) -> Result<u64, FsError> {
        once!(self, files => files.write_atomic(path, source, options))
    }

    async fn create_private(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        once!(self, files => files.create_private(path, data))
    }

    async fn remove_file(&self, path: &str) -> Result<(), FsError> {
        once!(self, files => files.remove_file(path))
    }

    fn temp_dir(&self) -> String {
        "/tmp".to_owned()
    }

    async fn home_dir(&self) -> Option<String> {
        let (_, files) = self.files().await.ok()?;
        files.home_dir().await
    }

    async fn hard_link(&self, from: &str, to: &str) -> Result<(), FsError> {
        once!(self, files => files.hard_link(from, to))
    }

    async fn copy_on_server(&self, from: &str, to: &str, size: u64) -> Result<bool, FsError> {
        once!(self, files => files.copy_on_server(from, to, size))
    }

    async fn make_symlink(&self, target: &str, link: &str) -> Result<(), FsError> {
        once!(self, files => files.make_symlink(target, link))
    }

    async fn set_attributes(
        &self,
        path: &str,
        mode: Option<u32>,
        owner: Option<(u32, u32)>,
    ) -> Result<(), FsError> {
        once!(self, files => files.set_attributes(path, mode, owner))
    }

    async fn make_dir(&self, path: &str, parents: bool) -> Result<(), FsError> {
        // An existing folder is not an error, so a repeat is harmless.
        repeatable!(self, files => files.make_dir(path, parents))
    }

    async fn rename_file(&self, from: &str, to: &str, replace: bool) -> Result<(), FsError> {
        once!(self, files => files.rename_file(from, to, replace))
    }

    fn renames_folders(&self) -> bool {
        true
    }

    async fn rename_dir(&self, from: &str, to: &str) -> Result<(), FsError> {
        once!(self, files => files.rename_dir(from, to))
    }

    async fn remove_dir(&self, path: &str) -> Result<(), FsError> {
        once!(self, files => files.remove_dir(path))
    }
}
