//! The temporary names [`super::FileAccess::write_atomic`] writes under before the rename
//! (`.NAME.kaiport-<16 hex>.tmp` beside the target), and what this process knows of them:
//! which are being written right now (listings leave those out, see [`in_flight`]) and which a
//! failed or cut write could not remove (the next write to the same target removes them, see
//! [`take_leftovers`]), so that a Retry after a killed connection leaves one final file and no
//! temp.
//!
//! It must never remove a name that is not one of kaiport's own temps of that target.

use super::{join, split_parent};
use std::collections::{HashMap, HashSet};
use std::sync::{LazyLock, Mutex};

/// Names (without their folder) of the temps being written by this process: a listing may see
/// a folder under another path than the writer (a storage tab's root over SFTP), and the random
/// part makes the name alone unique.
static IN_FLIGHT: LazyLock<Mutex<HashSet<String>>> = LazyLock::new(Mutex::default);
/// Target path → temp paths beside it that a failed write may have left on the server.
static LEFTOVERS: LazyLock<Mutex<HashMap<String, Vec<String>>>> = LazyLock::new(Mutex::default);

/// A temp name beside a target, known as in flight while it lives. Dropped without
/// [`TempName::settled`] (the write failed and its temp could not be removed, or the write was
/// cut off), it is remembered as a leftover of its target.
#[derive(Debug)]
pub(crate) struct TempName {
    path: String,
    target: String,
    settled: bool,
}

impl TempName {
    /// A fresh name beside `target`, unlikely to collide with anything.
    pub(crate) fn beside(target: &str) -> TempName {
        let (dir, name) = split_parent(target);
        let nonce: u64 = rand::random();
        // Keep the name short: long targets would otherwise exceed NAME_MAX.
        let short: String = name.chars().take(40).collect();
        let file = format!(".{short}.kaiport-{nonce:016x}.tmp");
        lock(&IN_FLIGHT).insert(file.clone());
        let path = join(dir, &file);
        TempName {
            path,
            target: target.to_owned(),
            settled: false,
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.path
    }

    /// The temp is gone: renamed to the target, or removed after a failure.
    pub(crate) fn settled(&mut self) {
        self.settled = true;
    }
}

impl std::ops::Deref for TempName {
    type Target = str;

    fn deref(&self) -> &str {
        &self.path
    }
}

impl AsRef<str> for TempName {
    fn as_ref(&self) -> &str {
        &self.path
    }
}

impl AsRef<std::path::Path> for TempName {
    fn as_ref(&self) -> &std::path::Path {
        std::path::Path::new(&self.path)
    }
}

impl Drop for TempName {
    fn drop(&mut self) {
        lock(&IN_FLIGHT).remove(split_parent(&self.path).1);
        if !self.settled {
            lock(&LEFTOVERS)
                .entry(std::mem::take(&mut self.target))
                .or_default()
                .push(std::mem::take(&mut self.path));
        }
    }
}

/// A poisoned lock only means a panic elsewhere held it; the sets stay usable.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether `name` is shaped like one of kaiport's temp names.
pub fn is_temp_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.') else {
        return false;
    };
    let Some(rest) = rest.strip_suffix(".tmp") else {
        return false;
    };
    rest.rsplit_once(".kaiport-").is_some_and(|(_, nonce)| {
        nonce.len() == 16 && nonce.bytes().all(|byte| byte.is_ascii_hexdigit())
    })
}

/// Whether `name` (in any folder) is a temp this process is writing right now.
pub fn in_flight(name: &str) -> bool {
    is_temp_name(name) && lock(&IN_FLIGHT).contains(name)
}

/// The temps a failed write to `target` may have left, forgotten here.
fn take_leftovers(target: &str) -> Vec<String> {
    lock(&LEFTOVERS).remove(target).unwrap_or_default()
}

/// Removes through `files` the temps an earlier failed or cut write to `target` may have left
/// (a Retry after a killed connection). Those already gone are forgotten; those that could not
/// be removed now are remembered for the next write. Paths are per process, not per server: a
/// name left on another server with the same path is simply not found here.
pub(crate) async fn remove_leftovers(files: &(impl super::FileAccess + ?Sized), target: &str) {
    let mut kept = Vec::new();
    for temp in take_leftovers(target) {
        match files.remove_file(&temp).await {
            Ok(()) => {}
            Err(error) if error.kind == super::FsErrorKind::NotFound => {}
            Err(_) => kept.push(temp),
        }
    }
    if !kept.is_empty() {
        lock(&LEFTOVERS)
            .entry(target.to_owned())
            .or_default()
            .extend(kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_known_while_written_and_leftovers_when_dropped_unsettled() {
        let mut done = TempName::beside("/srv/a/done.txt");
        let path = done.as_str().to_owned();
        let (dir, name) = split_parent(&path);
        assert!(is_temp_name(name), "{name}");
        assert!(dir == "/srv/a" && in_flight(name));
        done.settled();
        drop(done);
        assert!(!in_flight(name));
        assert_eq!(take_leftovers("/srv/a/done.txt"), Vec::<String>::new());

        let cut = TempName::beside("/srv/a/cut.txt");
        let path = cut.as_str().to_owned();
        drop(cut);
        assert_eq!(take_leftovers("/srv/a/cut.txt"), vec![path]);
        assert_eq!(take_leftovers("/srv/a/cut.txt"), Vec::<String>::new());
    }

    #[test]
    fn only_kaiport_shaped_names_are_temps() {
        assert!(is_temp_name(".big.bin.kaiport-0123456789abcdef.tmp"));
        assert!(!is_temp_name("big.bin.kaiport-0123456789abcdef.tmp"));
        assert!(!is_temp_name(".big.bin.kaiport-0123.tmp"));
        assert!(!is_temp_name(".notes.tmp"));
    }
}
