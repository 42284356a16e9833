//! The local side of a storage tab: this computer's files, confined to the folders the user
//! opened for the tab. Every path is checked before it is touched: it must be absolute, may not
//! contain `..`, and once symlinks are resolved (of the path, or of its deepest existing
//! ancestor when it does not exist yet) it must lie inside one of the opened folders. Operations
//! on a link itself (listing, removing, renaming it) check the folder it is in, so a link that
//! points outside can be seen and removed but never followed.
//!
//! Above the opened folders, listing a folder shows only the way down to them (listing `/` with
//! `/home/ann/backups` opened shows `home`, and `/home` shows `ann`): a file browser and Pilot
//! can find the opened folders from `/` without being told where they are, and nothing else
//! outside them is shown.
//!
//! This module must never touch a path it has not checked, and never log file contents.

use super::{
    Capabilities, DirItem, FileAccess, FsError, FsErrorKind, LocalFiles, Metadata, Sink, Source,
    WriteOptions,
};
use async_trait::async_trait;
use std::path::{Component, Path, PathBuf};

/// [`LocalFiles`] limited to some folders.
#[derive(Debug, Clone)]
pub struct ConfinedLocal {
    roots: Vec<PathBuf>,
    inner: LocalFiles,
}

impl ConfinedLocal {
    /// Confines to `roots` (each must exist and be a folder; links in them are resolved now).
    pub fn new(roots: &[PathBuf]) -> Result<ConfinedLocal, FsError> {
        let mut resolved = Vec::new();
        for root in roots {
            let shown = root.display().to_string();
            let canonical = std::fs::canonicalize(root).map_err(|error| {
                FsError::new(
                    FsErrorKind::NotFound,
                    &shown,
                    format!("cannot open this local folder: {error}"),
                )
            })?;
            if !canonical.is_dir() {
                return Err(FsError::new(
                    FsErrorKind::Other,
                    &shown,
                    "is not a folder; the local side must be a folder",
                ));
            }
            resolved.push(canonical);
        }
        if resolved.is_empty() {
            return Err(FsError::new(
                FsErrorKind::Other,
                "",
                "no local folder was opened for this tab",
            ));
        }
        Ok(ConfinedLocal {
            roots: resolved,
            inner: LocalFiles,
        })
    }

    /// The opened folders (resolved).
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn refuse(&self, path: &str, why: &str) -> FsError {
        let roots: Vec<String> = self
            .roots
            .iter()
            .map(|root| root.display().to_string())
            .collect();
        FsError::new(
            FsErrorKind::PermissionDenied,
            path,
            format!(
                "{why}; the local side of this tab is limited to {}",
                roots.join(", ")
            ),
        )
    }

    /// Checks `path` itself, following every link in it.
    fn check(&self, path: &str) -> Result<(), FsError> {
        let candidate = self.lexical(path)?;
        let resolved = resolve_existing(&candidate);
        self.inside(path, &resolved)
    }

    /// Checks the folder `path` is in (for operations on a link itself).
    fn check_parent(&self, path: &str) -> Result<(), FsError> {
        let candidate = self.lexical(path)?;
        let parent = candidate.parent().unwrap_or(&candidate).to_path_buf();
        let resolved = resolve_existing(&parent);
        self.inside(path, &resolved)?;
        if self.roots.contains(&candidate) {
            return Err(self.refuse(path, "an opened folder itself cannot be changed"));
        }
        Ok(())
    }

    fn lexical(&self, path: &str) -> Result<PathBuf, FsError> {
        let candidate = Path::new(path);
        if !candidate.is_absolute() {
            return Err(self.refuse(path, "local paths must be absolute"));
        }
        if candidate
            .components()
            .any(|component| matches!(component, Component::ParentDir))
        {
            return Err(self.refuse(path, "`..` is not allowed in local paths"));
        }
        Ok(candidate.to_path_buf())
    }

    /// The folders leading from `path` towards the opened folders, when `path` is above them
    /// (not inside any); `None` when it is inside one or on no way to one.
    fn way_down(&self, path: &str) -> Result<Option<Vec<DirItem>>, FsError> {
        let resolved = resolve_existing(&self.lexical(path)?);
        if self.roots.iter().any(|root| resolved.starts_with(root)) {
            return Ok(None);
        }
        let names: std::collections::BTreeSet<String> = self
            .roots
            .iter()
            .filter_map(
                |root| match root.strip_prefix(&resolved).ok()?.components().next() {
                    Some(Component::Normal(name)) => Some(name.to_string_lossy().into_owned()),
                    _ => None,
                },
            )
            .collect();
        if names.is_empty() {
            return Ok(None);
        }
        Ok(Some(
            names
                .into_iter()
                .map(|name| DirItem {
                    name,
                    // Only the kind: facts about folders outside the opened ones stay unread.
                    metadata: Metadata::bare_folder(),
                })
                .collect(),
        ))
    }

    fn inside(&self, path: &str, resolved: &Path) -> Result<(), FsError> {
        if self.roots.iter().any(|root| resolved.starts_with(root)) {
            Ok(())
        } else {
            Err(self.refuse(path, "outside the opened folders (links are resolved)"))
        }
    }
}

/// `path` with links resolved: the deepest existing ancestor canonicalized, the rest appended.
pub(crate) fn resolve_existing(path: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut current = path.to_path_buf();
    loop {
        if let Ok(canonical) = std::fs::canonicalize(&current) {
            let mut resolved = canonical;
            for part in missing.iter().rev() {
                resolved.push(part);
            }
            return resolved;
        }
        match (current.file_name(), current.parent()) {
            (Some(name), Some(parent)) => {
                missing.push(name.to_os_string());
                current = parent.to_path_buf();
            }
            // Nothing exists (not even `/`): compare as given.
            _ => return path.to_path_buf(),
        }
    }
}

#[async_trait]
impl FileAccess for ConfinedLocal {
    fn location(&self) -> String {
        "local".to_owned()
    }

    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    async fn metadata(&self, path: &str) -> Result<Metadata, FsError> {
        self.check(path)?;
        self.inner.metadata(path).await
    }

    async fn symlink_metadata(&self, path: &str) -> Result<Metadata, FsError> {
        self.check_parent(path).or_else(|_| self.check(path))?;
        self.inner.symlink_metadata(path).await
    }

    async fn read_dir(&self, path: &str) -> Result<Vec<DirItem>, FsError> {
        if let Some(way) = self.way_down(path)? {
            return Ok(way);
        }
        self.check(path)?;
        self.inner.read_dir(path).await
    }

    async fn read_link(&self, path: &str) -> Result<String, FsError> {
        self.check_parent(path)?;
        self.inner.read_link(path).await
    }

    async fn resolve_write_target(&self, path: &str) -> Result<String, FsError> {
        self.check(path)?;
        self.inner.resolve_write_target(path).await
    }

    async fn read_into(
        &self,
        path: &str,
        offset: u64,
        max_len: u64,
        sink: Sink<'_>,
    ) -> Result<u64, FsError> {
        self.check(path)?;
        self.inner.read_into(path, offset, max_len, sink).await
    }

    async fn write_atomic(
        &self,
        path: &str,
        source: Source<'_>,
        options: &WriteOptions,
    ) -> Result<u64, FsError> {
        // The temp file goes beside the target and replaces it (never writes through a link).
        self.check_parent(path)?;
        self.inner.write_atomic(path, source, options).await
    }

    fn writes_are_exact(&self) -> bool {
        self.inner.writes_are_exact()
    }

    async fn open_pieces(
        &self,
        path: &str,
        options: &WriteOptions,
    ) -> Result<Option<std::sync::Arc<dyn super::Pieces>>, FsError> {
        // As write_atomic: a temp file beside the target, renamed over it.
        self.check_parent(path)?;
        self.inner.open_pieces(path, options).await
    }

    async fn create_private(&self, path: &str, data: &[u8]) -> Result<(), FsError> {
        self.check_parent(path)?;
        self.inner.create_private(path, data).await
    }

    async fn remove_file(&self, path: &str) -> Result<(), FsError> {
        self.check_parent(path)?;
        self.inner.remove_file(path).await
    }

    fn temp_dir(&self) -> String {
        self.roots
            .first()
            .map(|root| root.display().to_string())
            .unwrap_or_default()
    }

    async fn make_dir(&self, path: &str, parents: bool) -> Result<(), FsError> {
        self.check(path)?;
        self.inner.make_dir(path, parents).await
    }

    async fn rename_file(&self, from: &str, to: &str, replace: bool) -> Result<(), FsError> {
        self.check_parent(from)?;
        self.check_parent(to)?;
        self.inner.rename_file(from, to, replace).await
    }

    fn renames_folders(&self) -> bool {
        true
    }

    async fn rename_dir(&self, from: &str, to: &str) -> Result<(), FsError> {
        self.check_parent(from)?;
        self.check_parent(to)?;
        self.inner.rename_dir(from, to).await
    }

    async fn remove_dir(&self, path: &str) -> Result<(), FsError> {
        self.check_parent(path)?;
        self.inner.remove_dir(path).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::split_parent;

    #[tokio::test]
    async fn above_the_opened_folders_only_the_way_down_shows() {
        let top = tempfile::tempdir().unwrap();
        let root = top.path().join("a").join("opened");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(top.path().join("a").join("other")).unwrap();
        std::fs::write(top.path().join("a").join("private"), b"p").unwrap();
        std::fs::write(root.join("file"), b"f").unwrap();
        let files = ConfinedLocal::new(std::slice::from_ref(&root)).unwrap();
        let canonical = files.roots()[0].clone();
        let names = |items: Vec<DirItem>| -> Vec<String> {
            items.into_iter().map(|item| item.name).collect()
        };
        // Every folder above the opened one lists only the next step down.
        let mut path = PathBuf::from("/");
        for part in canonical.components().skip(1) {
            let Component::Normal(part) = part else {
                panic!("{canonical:?}")
            };
            let listed = names(files.read_dir(&path.display().to_string()).await.unwrap());
            assert_eq!(
                listed,
                vec![part.to_string_lossy().into_owned()],
                "{path:?}"
            );
            path.push(part);
        }
        // The opened folder lists what it holds; its sibling stays out of reach.
        assert_eq!(
            names(
                files
                    .read_dir(&canonical.display().to_string())
                    .await
                    .unwrap()
            ),
            vec!["file".to_owned()]
        );
        let parent = canonical.parent().unwrap();
        let other = parent.join("other").display().to_string();
        let error = files.read_dir(&other).await.unwrap_err();
        assert_eq!(error.kind, FsErrorKind::PermissionDenied);
        let error = files
            .metadata(&parent.join("private").display().to_string())
            .await
            .unwrap_err();
        assert_eq!(error.kind, FsErrorKind::PermissionDenied);
        assert!(
            files
                .make_dir(&parent.join("new").display().to_string(), false)
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn escapes_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), b"s").unwrap();
        std::fs::write(root.path().join("ok"), b"fine").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), root.path().join("link")).unwrap();
        let files = ConfinedLocal::new(&[root.path().to_path_buf()]).unwrap();
        let base = files.roots()[0].display().to_string();
        let mut data = Vec::new();
        files
            .read_into(&format!("{base}/ok"), 0, 100, &mut data)
            .await
            .unwrap();
        assert_eq!(data, b"fine");
        for bad in [
            format!("{base}/../secret"),
            outside.path().join("secret").display().to_string(),
            "relative/path".to_owned(),
            #[cfg(unix)]
            format!("{base}/link/secret"),
        ] {
            let error = files.read_into(&bad, 0, 100, &mut data).await.unwrap_err();
            assert_eq!(error.kind, FsErrorKind::PermissionDenied, "{bad}: {error}");
        }
        #[cfg(unix)]
        {
            let mut source: &[u8] = b"x";
            let error = files
                .write_atomic(
                    &format!("{base}/link/new"),
                    &mut source,
                    &WriteOptions::default(),
                )
                .await
                .unwrap_err();
            assert_eq!(error.kind, FsErrorKind::PermissionDenied);
            assert!(!outside.path().join("new").exists());
        }
        let (parent, _) = split_parent(&base);
        assert!(
            files
                .make_dir(&format!("{parent}/elsewhere"), true)
                .await
                .is_err()
        );
    }
}
