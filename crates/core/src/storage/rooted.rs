//! A folder of another [`FileAccess`] shown as `/`: how an `sftp://user@host/srv/share` storage
//! tab shows `/srv/share` as its top folder, like every other storage service shows the URL's
//! folder (bucket prefix, WebDAV path, FTP path) as `/`.
//!
//! Paths given in are absolute within the view (`/a/b` → `<root>/a/b`); `..` segments are
//! refused rather than resolved, so a path cannot climb above the root by its spelling. This is
//! a view, not a sandbox: a symlink on the server that points elsewhere is followed by the
//! server, as the SFTP user could anyway. Error messages name the server's real path.

use crate::fs::{
    Capabilities, DirItem, FileAccess, FsError, FsErrorKind, Metadata, Sink, Source, WriteOptions,
};
use async_trait::async_trait;
use std::sync::Arc;

/// `inner`'s folder `root` as `/`.
pub struct RootedFiles {
    inner: Arc<dyn FileAccess>,
    /// No trailing `/`; empty for the inner side's own `/`.
    root: String,
}

impl RootedFiles {
    /// Shows `root` (an absolute folder of `inner`, or empty for all of it) as `/`.
    pub fn new(inner: Arc<dyn FileAccess>, root: &str) -> RootedFiles {
        let root = root.trim_matches('/');
        RootedFiles {
            inner,
            root: if root.is_empty() {
                String::new()
            } else {
                format!("/{root}")
            },
        }
    }

    /// The inner path of the view's `path`.
    fn inner_path(&self, path: &str) -> Result<String, FsError> {
        if !path.starts_with('/') {
            return Err(FsError::new(
                FsErrorKind::Other,
                path,
                "is not an absolute path; paths in this tab start with /",
            ));
        }
        if path.split('/').any(|segment| segment == "..") {
            return Err(FsError::new(
                FsErrorKind::Other,
                path,
                "contains `..`; name the folder directly",
            ));
        }
        if self.root.is_empty() {
            return Ok(path.to_owned());
        }
        let rest = path.trim_end_matches('/');
        Ok(format!("{}{rest}", self.root))
    }
}

#[async_trait]
impl FileAccess for RootedFiles {
    fn unrooted(&self) -> Option<(&dyn FileAccess, &str)> {
        Some((self.inner.as_ref(), &self.root))
    }

    fn location(&self) -> String {
        format!("{}{}", self.inner.location(), self.root)
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    async fn metadata(&self, path: &str) -> Result<Metadata, FsError> {
        self.inner.metadata(&self.inner_path(path)?).await
    }

    async fn symlink_metadata(&self, path: &str) -> Result<Metadata, FsError> {
        self.inner.symlink_metadata(&self.inner_path(path)?).await
    }

    async fn read_dir(&self, path: &str) -> Result<Vec<DirItem>, FsError> {
        self.inner.read_dir(&self.inner_path(path)?).await
    }

    async fn read_link(&self, path: &str) -> Result<String, FsError> {
        self.inner.read_link(&self.inner_path(path)?).await
    }

    async fn read_into(
        &self,
        path: &str,
        offset: u64,
        max_len: u64,
        sink: Sink<'_>,
    ) -> Result<u64, FsError> {
        let path = self.inner_path(path)?;
        self.inner.read_into(&path, offset, max_len, sink).await
    }

    async fn write_atomic(
        &self,
        path: &str,
        source: Source<'_>,
        options: &WriteOptions,
    ) -> Result<u64, FsError> {
        let path = self.inner_path(path)?;
        self.inner.write_atomic(&path, source, options).await
    }

    async fn create_private(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        self.inner
            .create_private(&self.inner_path(path)?, data)
            .await
    }

    async fn remove_file(&self, path: &str) -> Result<(), FsError> {
        self.inner.remove_file(&self.inner_path(path)?).await
    }

    fn temp_dir(&self) -> String {
        // Only meaningful when the server's temp folder is inside the view.
        let inner = self.inner.temp_dir();
        match inner.strip_prefix(&self.root) {
            Some(rest) if self.root.is_empty() || rest.is_empty() || rest.starts_with('/') => {
                if rest.is_empty() {
                    "/".to_owned()
                } else {
                    rest.to_owned()
                }
            }
            _ => "/".to_owned(),
        }
    }

    async fn make_dir(&self, path: &str, parents: bool) -> Result<(), FsError> {
        self.inner.make_dir(&self.inner_path(path)?, parents).await
    }

    async fn rename_file(&self, from: &str, to: &str, replace: bool) -> Result<(), FsError> {
        let (from, to) = (self.inner_path(from)?, self.inner_path(to)?);
        self.inner.rename_file(&from, &to, replace).await
    }

    fn renames_folders(&self) -> bool {
        self.inner.renames_folders()
    }

    fn folders_are_prefixes(&self) -> bool {
        self.inner.folders_are_prefixes()
    }

    async fn rename_dir(&self, from: &str, to: &str) -> Result<(), FsError> {
        let (from, to) = (self.inner_path(from)?, self.inner_path(to)?);
        self.inner.rename_dir(&from, &to).await
    }

    async fn remove_dir(&self, path: &str) -> Result<(), FsError> {
        self.inner.remove_dir(&self.inner_path(path)?).await
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::fs::LocalFiles;
    use pretty_assertions::assert_eq;

    #[tokio::test]
    async fn the_root_is_slash_and_dotdot_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("share")).unwrap();
        std::fs::write(dir.path().join("share/a b.txt"), "in").unwrap();
        std::fs::write(dir.path().join("outside.txt"), "out").unwrap();
        let root = format!("{}/share", dir.path().display());
        let view = RootedFiles::new(Arc::new(LocalFiles), &root);
        let names: Vec<String> = view
            .read_dir("/")
            .await
            .unwrap()
            .into_iter()
            .map(|item| item.name)
            .collect();
        assert_eq!(names, vec!["a b.txt".to_owned()]);
        assert_eq!(view.metadata("/a b.txt").await.unwrap().size, 2);
        let escape = view.metadata("/../outside.txt").await.unwrap_err();
        assert!(escape.to_string().contains("`..`"), "{escape}");
        assert!(view.metadata("a b.txt").await.is_err());
        view.make_dir("/new/deeper", true).await.unwrap();
        assert!(dir.path().join("share/new/deeper").is_dir());
        let whole = RootedFiles::new(Arc::new(LocalFiles), "/");
        assert_eq!(
            whole
                .metadata(&format!("{root}/a b.txt"))
                .await
                .unwrap()
                .size,
            2
        );
    }
}
