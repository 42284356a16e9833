//! list_dir, find_files, search_files and folder_report: folder walks over [`FileAccess`].
//!
//! Walks visit entries in a stable order (by level, then by name) while listing as many folders
//! at once as the transport says it can take (over SFTP every listing is independent on the
//! wire, so this hides round trips). Links are reported, never followed, so a walk cannot leave
//! the tree or loop. search_files hands files to [`FileAccess::read_files`] while the walk is
//! still going, and gets them back in walk order. A name that would be another place once
//! joined to its folder's path (`..`, `a/../../b`: [`refused_name`]) is never visited, entered or
//! listed; list_dir and find_files report it as refused, so a copy built from them can say it is
//! incomplete.

use super::text::looks_binary;
use crate::fs::{DirItem, FileAccess, FsError, Metadata, join, refused_name};
use futures::channel::mpsc;
use futures::stream::{self, FuturesOrdered, StreamExt};
use kaiport_protocol::tools::*;
use std::collections::{HashMap, VecDeque};

/// list_dir returns at most this many entries to Pilot (the model's context).
pub const MAX_LIST_ENTRIES: usize = 500;
/// list_dir returns at most this many entries to the user's own file pane (the protocol's
/// `MAX_USER_LIST_ENTRIES`, which the UI reads too).
pub const MAX_USER_LIST_ENTRIES: usize = kaiport_protocol::tools::MAX_USER_LIST_ENTRIES as usize;

/// How many entries a list_dir returns: the model's cap, or a person's whole folder.
pub(super) fn list_limit(by_user: bool) -> usize {
    if by_user {
        MAX_USER_LIST_ENTRIES
    } else {
        MAX_LIST_ENTRIES
    }
}
/// search_files goes at most this many folder levels deep.
pub const MAX_SEARCH_DEPTH: u32 = 6;
/// search_files returns at most this many matching lines.
pub const MAX_SEARCH_MATCHES: usize = 100;
/// Each matching line is cut to this many characters.
pub const MAX_MATCH_CHARS: usize = 200;
/// folder_report's depth when none is given, and the most it allows.
pub const DEFAULT_REPORT_DEPTH: u32 = 6;
pub const MAX_REPORT_DEPTH: u32 = 12;
/// find_files' depth when none is given, and the most it allows.
pub const DEFAULT_FIND_DEPTH: u32 = 12;
pub const MAX_FIND_DEPTH: u32 = 32;
/// find_files' result limit when none is given, and the most it allows.
pub const DEFAULT_FIND_LIMIT: u32 = 200;
pub const MAX_FIND_LIMIT: u32 = 1000;
/// Symlink targets list_dir reads at the same time.
const CONCURRENCY: usize = 32;

const DAY: i64 = 86_400;

/// One entry met on a walk.
struct Walked<'a> {
    path: String,
    item: &'a DirItem,
}

#[derive(Default)]
struct WalkOutcome {
    /// Some folder at the depth limit was not entered.
    depth_limited: bool,
    /// Folders (below the root) that could not be listed.
    unreadable: Vec<String>,
    /// Folders (below the root) with nothing in them.
    empty: Vec<String>,
    /// Names that were not used (see the module docs).
    refused: Vec<RefusedEntry>,
}

/// `items` without the names that are not used, which go to `refused`.
fn keep_usable(dir: &str, items: Vec<DirItem>, refused: &mut Vec<RefusedEntry>) -> Vec<DirItem> {
    items
        .into_iter()
        .filter(|item| match refused_name(&item.name) {
            None => true,
            Some(reason) => {
                refused.push(RefusedEntry {
                    folder: dir.to_owned(),
                    name: item.name.clone(),
                    reason: reason.to_owned(),
                });
                false
            }
        })
        .collect()
}

fn describe(tool: ToolName, error: &FsError) -> String {
    format!("{tool}: {}", error.for_model())
}

/// Walks `root` (which must be a folder), calling `visit` for every entry until it returns
/// false. Entries of the root are level 1; entries deeper than `max_depth` are not listed (like
/// `find -maxdepth`).
async fn walk(
    tool: ToolName,
    files: &dyn FileAccess,
    root: &str,
    max_depth: u32,
    mut visit: impl FnMut(Walked<'_>) -> bool,
) -> Result<WalkOutcome, String> {
    let found = files
        .metadata(root)
        .await
        .map_err(|error| describe(tool, &error))?;
    if found.kind != EntryKind::Dir {
        return Err(format!("{tool}: {root} is not a folder"));
    }
    let mut outcome = WalkOutcome::default();
    // Folders wait in walk order (level by level, by name within a folder) and are listed many
    // at once; listings are taken in that same order, so a folder's sub-folders can be listed
    // while the rest of its level still is, without changing the order entries are visited.
    let parallel = files.parallel_requests().max(1);
    let mut waiting = VecDeque::from([(root.to_owned(), 1u32)]);
    let mut listings = FuturesOrdered::new();
    loop {
        while listings.len() < parallel
            && let Some((dir, depth)) = waiting.pop_front()
        {
            listings.push_back(async move {
                let listing = files.read_dir(&dir).await;
                (dir, depth, listing)
            });
        }
        let Some((dir, depth, listing)) = listings.next().await else {
            break;
        };
        let mut items = match listing {
            Ok(items) => keep_usable(&dir, items, &mut outcome.refused),
            Err(error) if dir == root => return Err(describe(tool, &error)),
            Err(_) => {
                outcome.unreadable.push(dir);
                continue;
            }
        };
        if items.is_empty() && dir != root {
            outcome.empty.push(dir.clone());
        }
        items.sort_by(|a, b| a.name.cmp(&b.name));
        for item in &items {
            let path = join(&dir, &item.name);
            if item.metadata.kind == EntryKind::Dir {
                if depth < max_depth {
                    waiting.push_back((path.clone(), depth + 1));
                } else {
                    outcome.depth_limited = true;
                }
            }
            if !visit(Walked { path, item }) {
                return Ok(outcome);
            }
        }
    }
    Ok(outcome)
}

/// RFC 3339 (UTC, seconds) of a Unix time.
fn rfc3339(seconds: Option<i64>) -> Option<String> {
    seconds
        .and_then(|at| chrono::DateTime::from_timestamp(at, 0))
        .map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// `rwxr-xr-x` (with s/t for setuid, setgid and sticky).
fn permission_string(mode: u32) -> String {
    let mut out = String::with_capacity(9);
    let special = [(0o4000, 's'), (0o2000, 's'), (0o1000, 't')];
    for (index, shift) in [6u32, 3, 0].into_iter().enumerate() {
        let bits = (mode >> shift) & 0o7;
        out.push(if bits & 4 != 0 { 'r' } else { '-' });
        out.push(if bits & 2 != 0 { 'w' } else { '-' });
        let (flag, letter) = special[index];
        let exec = bits & 1 != 0;
        out.push(match (mode & flag != 0, exec) {
            (true, true) => letter,
            (true, false) => letter.to_ascii_uppercase(),
            (false, true) => 'x',
            (false, false) => '-',
        });
    }
    out
}

// ---------------------------------------------------------------------------------------------
// list_dir
// ---------------------------------------------------------------------------------------------

/// `login`: who the tab's login is, where known (entries it may not read or replace are marked
/// `root_only`). The first `limit` entries by name are returned, the rest counted.
pub(super) async fn list_dir(
    files: &dyn FileAccess,
    path: &str,
    login: Option<&super::Login>,
    limit: usize,
) -> Result<ListDirResult, String> {
    const TOOL: ToolName = ToolName::ListDir;
    let mut refused = Vec::new();
    let mut items = match files.read_dir(path).await {
        Ok(items) => keep_usable(path, items, &mut refused),
        Err(error) => {
            // Say "not a folder" rather than the server's generic failure.
            if let Ok(found) = files.metadata(path).await
                && found.kind != EntryKind::Dir
            {
                return Err(format!("list_dir: {path} is not a folder; use read_file"));
            }
            if error.kind == crate::fs::FsErrorKind::PermissionDenied && login.is_some() {
                return Err(format!(
                    "list_dir: permission denied: only root may open {path}; list it as root \
                     with sudo: true"
                ));
            }
            return Err(describe(TOOL, &error));
        }
    };
    // A transfer's temp (`fs::temp`) is not a file of the folder yet: the listing shows the
    // file under its real name once it lands. Temps left by an earlier process stay visible,
    // so that they can be deleted.
    items.retain(|item| !crate::fs::temp::in_flight(&item.name));
    items.sort_by(|a, b| a.name.cmp(&b.name));
    let omitted = items.len().saturating_sub(limit) as u64;
    items.truncate(limit);
    let entries = stream::iter(items)
        .map(|item| async move {
            let link_target = match item.metadata.kind {
                EntryKind::Symlink => files.read_link(&join(path, &item.name)).await.ok(),
                EntryKind::File | EntryKind::Dir | EntryKind::Other => None,
            };
            DirEntry {
                kind: item.metadata.kind,
                size: item.metadata.size,
                modified: rfc3339(item.metadata.modified),
                permissions: item.metadata.mode.map(permission_string),
                link_target,
                root_only: login.is_some_and(|login| match item.metadata.kind {
                    EntryKind::File => login.needs_root(&item.metadata),
                    EntryKind::Dir => login.cannot_open(&item.metadata),
                    EntryKind::Symlink | EntryKind::Other => false,
                }),
                name: item.name,
            }
        })
        .buffered(CONCURRENCY)
        .collect()
        .await;
    Ok(ListDirResult {
        path: path.to_owned(),
        entries,
        omitted,
        refused,
    })
}

/// A folder's entries as [`super::sudo::list_as_root`] read them: every one `root_only` (the
/// login may not even open the folder they are in).
pub(super) fn root_listing(
    path: &str,
    listed: &[u8],
    limit: usize,
) -> Result<ListDirResult, String> {
    let fields: Vec<&[u8]> = listed.split(|byte| *byte == 0).collect();
    let mut items = Vec::new();
    // The last piece is what follows the last NUL: nothing.
    for entry in fields.chunks_exact(super::sudo::LIST_FIELDS) {
        let text = |field: &[u8]| String::from_utf8_lossy(field).into_owned();
        let [kind, size, modified, mode, link, name] = *entry else {
            continue;
        };
        let kind = match kind {
            b"d" => EntryKind::Dir,
            b"f" => EntryKind::File,
            b"l" => EntryKind::Symlink,
            _ => EntryKind::Other,
        };
        let name = text(name);
        if name.is_empty() {
            continue;
        }
        let metadata = Metadata {
            kind,
            size: text(size).parse().unwrap_or(0),
            modified: text(modified)
                .split('.')
                .next()
                .and_then(|seconds| seconds.parse().ok()),
            mode: u32::from_str_radix(&text(mode), 8).ok(),
            ..Metadata::bare_folder()
        };
        let link = (kind == EntryKind::Symlink).then(|| text(link));
        items.push((DirItem { name, metadata }, link));
    }
    if fields.len() % super::sudo::LIST_FIELDS != 1 {
        return Err(format!(
            "list_dir: the listing of {path} as root was cut short; try again"
        ));
    }
    let mut refused = Vec::new();
    let (items, links): (Vec<DirItem>, Vec<Option<String>>) = items.into_iter().unzip();
    let links: HashMap<String, Option<String>> = items
        .iter()
        .map(|item| item.name.clone())
        .zip(links)
        .collect();
    let mut items = keep_usable(path, items, &mut refused);
    items.sort_by(|a, b| a.name.cmp(&b.name));
    let omitted = items.len().saturating_sub(limit) as u64;
    items.truncate(limit);
    let entries = items
        .into_iter()
        .map(|item| DirEntry {
            kind: item.metadata.kind,
            size: item.metadata.size,
            modified: rfc3339(item.metadata.modified),
            permissions: item.metadata.mode.map(permission_string),
            link_target: links.get(&item.name).cloned().flatten(),
            root_only: true,
            name: item.name,
        })
        .collect();
    Ok(ListDirResult {
        path: path.to_owned(),
        entries,
        omitted,
        refused,
    })
}

// ---------------------------------------------------------------------------------------------
// find_files
// ---------------------------------------------------------------------------------------------

fn name_glob(tool: ToolName, glob: &str) -> Result<globset::GlobMatcher, String> {
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|error| format!("{tool}: invalid glob {glob:?}: {error}"))
}

/// A time filter: RFC 3339, a date (`2024-05-01`), or an age like `30m`, `12h`, `7d`, `2w`.
fn parse_time(tool: ToolName, text: &str, now: i64) -> Result<i64, String> {
    let text = text.trim();
    if let Ok(at) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(at.timestamp());
    }
    if let Ok(date) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        && let Some(midnight) = date.and_hms_opt(0, 0, 0)
    {
        return Ok(midnight.and_utc().timestamp());
    }
    let unit = text.chars().last().unwrap_or(' ');
    let seconds = match unit {
        'm' => 60,
        'h' => 3600,
        'd' => DAY,
        'w' => 7 * DAY,
        _ => 0,
    };
    match text[..text.len() - unit.len_utf8()].parse::<i64>() {
        Ok(amount) if seconds > 0 && amount >= 0 => Ok(now - amount * seconds),
        _ => Err(format!(
            "{tool}: cannot read the time {text:?}; use RFC 3339 (2024-05-01T12:00:00Z), a date \
             (2024-05-01) or an age like 30m, 12h, 7d, 2w"
        )),
    }
}

pub(super) async fn find_files(
    files: &dyn FileAccess,
    params: &FindFilesParams,
) -> Result<FindFilesResult, String> {
    const TOOL: ToolName = ToolName::FindFiles;
    let limit = params.limit.unwrap_or(DEFAULT_FIND_LIMIT);
    if !(1..=MAX_FIND_LIMIT).contains(&limit) {
        return Err(format!(
            "find_files: limit must be from 1 to {MAX_FIND_LIMIT}, not {limit}"
        ));
    }
    let max_depth = params.max_depth.unwrap_or(DEFAULT_FIND_DEPTH);
    if !(1..=MAX_FIND_DEPTH).contains(&max_depth) {
        return Err(format!(
            "find_files: max_depth must be from 1 to {MAX_FIND_DEPTH}, not {max_depth}"
        ));
    }
    let glob = params
        .name
        .as_deref()
        .map(|glob| name_glob(TOOL, glob))
        .transpose()?;
    let now = chrono::Utc::now().timestamp();
    let after = params
        .modified_after
        .as_deref()
        .map(|text| parse_time(TOOL, text, now))
        .transpose()?;
    let before = params
        .modified_before
        .as_deref()
        .map(|text| parse_time(TOOL, text, now))
        .transpose()?;
    let mut matches = Vec::new();
    let mut truncated = false;
    let mut scanned = 0u64;
    let outcome = walk(TOOL, files, &params.path, max_depth, |walked| {
        scanned += 1;
        let meta: &Metadata = &walked.item.metadata;
        let modified = meta.modified.unwrap_or(i64::MIN);
        let fits = params.kind.is_none_or(|kind| kind == meta.kind)
            && glob
                .as_ref()
                .is_none_or(|glob| glob.is_match(&walked.item.name))
            && params.min_size.is_none_or(|min| meta.size >= min)
            && params.max_size.is_none_or(|max| meta.size <= max)
            && after.is_none_or(|after| modified >= after)
            && before.is_none_or(|before| meta.modified.is_some() && modified < before);
        if !fits {
            return true;
        }
        if matches.len() == limit as usize {
            truncated = true;
            return false;
        }
        matches.push(FoundEntry {
            path: walked.path,
            kind: meta.kind,
            size: meta.size,
            modified: rfc3339(meta.modified),
        });
        true
    })
    .await?;
    Ok(FindFilesResult {
        matches,
        truncated,
        entries_scanned: scanned,
        refused: outcome.refused,
    })
}

// ---------------------------------------------------------------------------------------------
// search_files
// ---------------------------------------------------------------------------------------------

pub(super) async fn search_files(
    files: &dyn FileAccess,
    params: &SearchFilesParams,
    file_limit: u64,
) -> Result<SearchFilesResult, String> {
    const TOOL: ToolName = ToolName::SearchFiles;
    if params.pattern.is_empty() {
        return Err("search_files: `pattern` is empty".to_owned());
    }
    let pattern = if params.literal.unwrap_or(false) {
        regex::escape(&params.pattern)
    } else {
        params.pattern.clone()
    };
    let regex = regex::bytes::RegexBuilder::new(&pattern)
        .case_insensitive(params.case_insensitive.unwrap_or(false))
        .multi_line(true)
        .crlf(true)
        .size_limit(1 << 22)
        .build()
        .map_err(|error| {
            format!("search_files: invalid regular expression (set literal: true for plain text): {error}")
        })?;
    let glob = params
        .glob
        .as_deref()
        .map(|glob| name_glob(TOOL, glob))
        .transpose()?;
    // The walk hands files on as it finds them, so reading starts with the first folder listed;
    // the transport keeps many reads in flight and returns them in walk order. Where the
    // transport can scan files where they are (grep on an SSH server), files that hold none of
    // the pattern's needles are searched there and never cross the wire (see `route`).
    let (found, candidates) = mpsc::unbounded::<(String, u64)>();
    let (to_scan, scan_paths) = mpsc::unbounded::<String>();
    let (answer, answers) = mpsc::unbounded::<(String, bool)>();
    let (to_read, read_paths) = mpsc::unbounded::<(String, u64)>();
    let (to_order, order) = mpsc::unbounded::<Routed>();
    let needles = super::prefilter::needles(&pattern, params.case_insensitive.unwrap_or(false));
    let scanning = async {
        match &needles {
            Some(needles) => {
                files
                    .scan_contents(needles, scan_paths.boxed(), answer)
                    .await
            }
            None => drop((scan_paths, answer)),
        }
    };
    let routing = route(
        candidates,
        needles.is_some().then_some(to_scan),
        answers,
        to_read,
        to_order,
    );
    // Over-limit files met by the walk (all of them, even past a truncation), then files the
    // reads skipped.
    let mut skipped = Vec::new();
    let walking = async {
        let found = found;
        // Folders down to MAX_SEARCH_DEPTH levels below the root are searched: their files are
        // one level deeper.
        walk(TOOL, files, &params.path, MAX_SEARCH_DEPTH + 1, |walked| {
            let meta = &walked.item.metadata;
            if meta.kind == EntryKind::File
                && glob
                    .as_ref()
                    .is_none_or(|glob| glob.is_match(&walked.item.name))
            {
                if meta.size > file_limit {
                    skipped.push(SkippedFile {
                        path: walked.path,
                        reason: format!("over the per-file limit ({} KB)", file_limit / 1024),
                    });
                } else if found.unbounded_send((walked.path, meta.size)).is_err() {
                    // The reads already stopped (enough matches); the walk goes on only to
                    // list every over-limit file.
                }
            }
            true
        })
        .await
    };
    let reading = async {
        let mut reads = files.read_files(read_paths.boxed(), file_limit + 1);
        let mut order = order;
        let mut read = SearchFilesResult {
            matches: Vec::new(),
            truncated: false,
            files_read: Vec::new(),
            skipped: Vec::new(),
        };
        while let Some(next) = order.next().await {
            match next {
                Routed::SearchedThere(path) => read.files_read.push(path),
                Routed::Read => {
                    let Some((path, data)) = reads.next().await else {
                        break;
                    };
                    if search_one(&regex, path, data, file_limit, &mut read) {
                        break;
                    }
                }
            }
        }
        read
    };
    let (walked, read, (), ()) = futures::join!(walking, reading, scanning, routing);
    walked?;
    skipped.extend(read.skipped);
    let SearchFilesResult {
        matches,
        truncated,
        files_read,
        ..
    } = read;
    Ok(SearchFilesResult {
        matches,
        truncated,
        files_read,
        skipped,
    })
}

/// Where a file found by search_files' walk goes next, in walk order.
enum Routed {
    /// Searched where it is and found to hold none of the needles: counts as read, no match.
    SearchedThere(String),
    /// Its contents come next from the reads.
    Read,
}

/// Sends every candidate of the walk on, in walk order: to the scan first when there is one
/// (`to_scan`), then, once the scan answered, either straight to the result (no needle in it)
/// or to the reads. A candidate the scan passes over (it could not read the file) or never gets
/// to (the scan ended) is read, so the scan can save reads but never lose a match.
async fn route(
    mut candidates: mpsc::UnboundedReceiver<(String, u64)>,
    mut to_scan: Option<mpsc::UnboundedSender<String>>,
    mut answers: mpsc::UnboundedReceiver<(String, bool)>,
    to_read: mpsc::UnboundedSender<(String, u64)>,
    to_order: mpsc::UnboundedSender<Routed>,
) {
    let read = |(path, size): (String, u64)| {
        to_order.unbounded_send(Routed::Read).is_ok()
            && to_read.unbounded_send((path, size)).is_ok()
    };
    // Candidates sent to the scan and not yet answered, in walk order.
    let mut waiting: VecDeque<(String, u64)> = VecDeque::new();
    let mut walk_done = false;
    loop {
        if walk_done && (to_scan.is_none() || waiting.is_empty()) {
            break;
        }
        tokio::select! {
            candidate = candidates.next(), if !walk_done => match candidate {
                Some(candidate) => match &to_scan {
                    Some(scan) if scan.unbounded_send(candidate.0.clone()).is_ok() => {
                        waiting.push_back(candidate);
                    }
                    _ => {
                        if !read(candidate) {
                            return;
                        }
                    }
                },
                None => {
                    walk_done = true;
                    // End of input lets the scan finish its last files.
                    if let Some(scan) = &to_scan {
                        scan.close_channel();
                    }
                }
            },
            answer = answers.next(), if to_scan.is_some() => match answer {
                Some((path, may_match)) => {
                    let Some(at) = waiting.iter().position(|(waiting, _)| *waiting == path) else {
                        continue;
                    };
                    for skipped_by_scan in waiting.drain(..at) {
                        if !read(skipped_by_scan) {
                            return;
                        }
                    }
                    let Some(candidate) = waiting.pop_front() else {
                        continue;
                    };
                    let sent = if may_match {
                        read(candidate)
                    } else {
                        to_order.unbounded_send(Routed::SearchedThere(candidate.0)).is_ok()
                    };
                    if !sent {
                        return;
                    }
                }
                None => {
                    // The scan is over: whatever it did not answer is read.
                    to_scan = None;
                    for candidate in waiting.drain(..) {
                        if !read(candidate) {
                            return;
                        }
                    }
                }
            },
        }
    }
}

/// Searches one file's bytes (or records why it was skipped) into `into`; true once the match
/// limit is reached and the search stops.
fn search_one(
    regex: &regex::bytes::Regex,
    path: String,
    data: Result<Vec<u8>, FsError>,
    file_limit: u64,
    into: &mut SearchFilesResult,
) -> bool {
    let data = match data {
        Ok(data) => data,
        Err(error) => {
            into.skipped.push(SkippedFile {
                path,
                reason: error.message,
            });
            return false;
        }
    };
    if data.len() as u64 > file_limit {
        into.skipped.push(SkippedFile {
            path,
            reason: format!("grew over the per-file limit ({} KB)", file_limit / 1024),
        });
        return false;
    }
    if looks_binary(&data) {
        into.skipped.push(SkippedFile {
            path,
            reason: "binary".to_owned(),
        });
        return false;
    }
    into.files_read.push(path.clone());
    for (line, text) in matching_lines(regex, &data) {
        if into.matches.len() == MAX_SEARCH_MATCHES {
            into.truncated = true;
            return true;
        }
        into.matches.push(SearchMatch {
            path: path.clone(),
            line,
            text: String::from_utf8_lossy(text)
                .chars()
                .take(MAX_MATCH_CHARS)
                .collect(),
        });
    }
    false
}

/// The lines of `data` (1-based number, text without its line end) that match, as grep would
/// find them: the whole buffer is searched, and a match must lie within one line.
fn matching_lines<'a>(regex: &regex::bytes::Regex, data: &'a [u8]) -> Vec<(u64, &'a [u8])> {
    let mut found = Vec::new();
    let mut from = 0;
    let mut line_number = 1u64;
    let mut counted_to = 0;
    while from <= data.len() {
        let Some(hit) = regex.find_at(data, from) else {
            break;
        };
        let start = memchr::memrchr(b'\n', &data[..hit.start()]).map_or(0, |at| at + 1);
        let end =
            memchr::memchr(b'\n', &data[hit.start()..]).map_or(data.len(), |at| hit.start() + at);
        let mut line = &data[start..end];
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        // A match reaching past the line end (`\s` eating the newline) counts only if the line
        // matches on its own.
        if hit.end() <= end || regex.is_match(line) {
            line_number += memchr::memchr_iter(b'\n', &data[counted_to..start]).count() as u64;
            counted_to = start;
            found.push((line_number, line));
        }
        if end >= data.len() {
            break;
        }
        from = end + 1;
    }
    found
}

// ---------------------------------------------------------------------------------------------
// folder_report
// ---------------------------------------------------------------------------------------------

const LARGEST: usize = 10;
const OLDEST: usize = 5;
const NEWEST: usize = 5;
const MAX_LISTED: usize = 20;
const MAX_EXTENSIONS: usize = 30;
const BIG_FILE: u64 = 10 * 1024 * 1024;

struct FileSeen {
    path: String,
    name: String,
    size: u64,
    modified: Option<i64>,
}

/// The lowercase extension of a file name (`None` for none or a leading-dot name).
fn extension(name: &str) -> Option<String> {
    let at = name.rfind('.')?;
    (at > 0 && at + 1 < name.len()).then(|| name[at + 1..].to_ascii_lowercase())
}

fn is_log(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".log") || lower.contains(".log.")
}

fn is_backup(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".bak", ".old", ".orig", ".backup"]
        .iter()
        .any(|suffix| lower.ends_with(suffix) || lower.contains(&format!("{suffix}.")))
}

fn is_temp(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with('~')
        || [".tmp", ".temp", ".swp", ".swo", ".part"]
            .iter()
            .any(|suffix| lower.ends_with(suffix))
}

fn category(name: &str) -> &'static str {
    if is_log(name) {
        return "logs";
    }
    if is_backup(name) {
        return "backups";
    }
    if is_temp(name) {
        return "temporary";
    }
    let Some(ext) = extension(name) else {
        return "other";
    };
    match ext.as_str() {
        "txt" | "md" | "rst" | "pdf" | "doc" | "docx" | "odt" | "rtf" | "csv" | "xls" | "xlsx" => {
            "documents"
        }
        "rs" | "py" | "js" | "ts" | "go" | "c" | "h" | "cc" | "cpp" | "java" | "rb" | "php"
        | "sh" | "pl" | "lua" | "css" | "scss" | "html" | "htm" | "vue" | "svelte" => "code",
        "json" | "yaml" | "yml" | "toml" | "xml" | "ini" | "conf" | "cfg" | "env" | "service" => {
            "configuration"
        }
        "png" | "jpg" | "jpeg" | "gif" | "svg" | "webp" | "bmp" | "ico" | "tif" | "tiff" => {
            "images"
        }
        "mp3" | "wav" | "flac" | "ogg" | "m4a" | "mp4" | "mkv" | "avi" | "mov" | "webm" => "media",
        "zip" | "tar" | "gz" | "tgz" | "bz2" | "xz" | "zst" | "7z" | "rar" => "archives",
        "db" | "sqlite" | "sqlite3" | "sql" | "dump" => "databases",
        "so" | "a" | "o" | "bin" | "exe" | "dll" | "jar" | "whl" | "deb" | "rpm" => "binaries",
        _ => "other",
    }
}

/// Age buckets, youngest first: (label, upper bound in days).
const AGE_BUCKETS: [(&str, i64); 6] = [
    ("under 1 day", 1),
    ("1-7 days", 7),
    ("7-30 days", 30),
    ("30-90 days", 90),
    ("90-365 days", 365),
    ("over 1 year", i64::MAX),
];

fn age_bucket(modified: Option<i64>, now: i64) -> &'static str {
    let Some(modified) = modified else {
        return "unknown";
    };
    let days = (now - modified).max(0) / DAY;
    AGE_BUCKETS
        .iter()
        .find(|(_, upper)| days < *upper)
        .map_or("over 1 year", |(label, _)| label)
}

fn add_to(groups: &mut HashMap<String, SizeGroup>, name: &str, size: u64) {
    let group = groups.entry(name.to_owned()).or_insert_with(|| SizeGroup {
        name: name.to_owned(),
        files: 0,
        bytes: 0,
    });
    group.files += 1;
    group.bytes += size;
}

fn sorted_groups(groups: HashMap<String, SizeGroup>) -> Vec<SizeGroup> {
    let mut groups: Vec<SizeGroup> = groups.into_values().collect();
    groups.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.name.cmp(&b.name)));
    groups
}

fn fact(file: &FileSeen) -> FileFact {
    FileFact {
        path: file.path.clone(),
        size: file.size,
        modified: rfc3339(file.modified),
    }
}

fn cleanup_reason(file: &FileSeen, now: i64) -> Option<String> {
    let days = file.modified.map(|at| (now - at) / DAY);
    let older = |limit: i64| days.is_some_and(|days| days > limit);
    if is_temp(&file.name) {
        Some("temporary file".to_owned())
    } else if is_log(&file.name) && older(30) {
        Some(format!("log not changed for {} days", days.unwrap_or(0)))
    } else if is_backup(&file.name) && older(90) {
        Some(format!("backup not changed for {} days", days.unwrap_or(0)))
    } else if file.size > BIG_FILE && older(365) {
        Some(format!(
            "{} MB, unchanged for over a year",
            file.size / (1024 * 1024)
        ))
    } else {
        None
    }
}

pub(super) async fn folder_report(
    files: &dyn FileAccess,
    params: &FolderReportParams,
    now: i64,
) -> Result<FolderReportResult, String> {
    const TOOL: ToolName = ToolName::FolderReport;
    let max_depth = params.max_depth.unwrap_or(DEFAULT_REPORT_DEPTH);
    if !(1..=MAX_REPORT_DEPTH).contains(&max_depth) {
        return Err(format!(
            "folder_report: max_depth must be from 1 to {MAX_REPORT_DEPTH}, not {max_depth}"
        ));
    }
    let mut seen: Vec<FileSeen> = Vec::new();
    let mut folders = 0u64;
    let mut by_type = HashMap::new();
    let mut by_extension = HashMap::new();
    let mut by_age = HashMap::new();
    // max_depth counts folder levels below the root; the entries in them are one level deeper.
    let outcome = walk(TOOL, files, &params.path, max_depth + 1, |walked| {
        let meta = &walked.item.metadata;
        match meta.kind {
            EntryKind::Dir => folders += 1,
            EntryKind::Symlink => add_to(&mut by_type, "symlinks", 0),
            EntryKind::Other => add_to(&mut by_type, "special files", 0),
            EntryKind::File => {
                let name = walked.item.name.clone();
                add_to(&mut by_type, category(&name), meta.size);
                let ext = extension(&name).unwrap_or_else(|| "(none)".to_owned());
                add_to(&mut by_extension, &ext, meta.size);
                add_to(&mut by_age, age_bucket(meta.modified, now), meta.size);
                seen.push(FileSeen {
                    path: walked.path,
                    name,
                    size: meta.size,
                    modified: meta.modified,
                });
            }
        }
        true
    })
    .await?;
    let total_bytes = seen.iter().map(|file| file.size).sum();
    let mut by_extension = sorted_groups(by_extension);
    if by_extension.len() > MAX_EXTENSIONS {
        let rest = by_extension.split_off(MAX_EXTENSIONS - 1);
        by_extension.push(SizeGroup {
            name: format!("({} more extensions)", rest.len()),
            files: rest.iter().map(|group| group.files).sum(),
            bytes: rest.iter().map(|group| group.bytes).sum(),
        });
    }
    let mut by_age_sorted = Vec::new();
    for label in AGE_BUCKETS
        .iter()
        .map(|(label, _)| *label)
        .chain(["unknown"])
    {
        if let Some(group) = by_age.remove(label) {
            by_age_sorted.push(group);
        }
    }

    let mut order: Vec<&FileSeen> = seen.iter().collect();
    order.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.path.cmp(&b.path)));
    let largest = order.iter().take(LARGEST).map(|file| fact(file)).collect();
    let cleanup_candidates = order
        .iter()
        .filter_map(|file| {
            cleanup_reason(file, now).map(|reason| CleanupCandidate {
                path: file.path.clone(),
                size: file.size,
                reason,
            })
        })
        .take(MAX_LISTED)
        .collect();
    let mut dated: Vec<&FileSeen> = seen.iter().filter(|file| file.modified.is_some()).collect();
    dated.sort_by(|a, b| {
        a.modified
            .cmp(&b.modified)
            .then_with(|| a.path.cmp(&b.path))
    });
    let oldest = dated.iter().take(OLDEST).map(|file| fact(file)).collect();
    let newest = dated
        .iter()
        .rev()
        .take(NEWEST)
        .map(|file| fact(file))
        .collect();

    let mut same: HashMap<(&str, u64), Vec<&str>> = HashMap::new();
    for file in seen.iter().filter(|file| file.size > 0) {
        same.entry((&file.name, file.size))
            .or_default()
            .push(&file.path);
    }
    let mut possible_duplicates: Vec<DuplicateGroup> = same
        .into_iter()
        .filter(|(_, paths)| paths.len() > 1)
        .map(|((name, size), paths)| DuplicateGroup {
            name: name.to_owned(),
            size,
            paths: paths.into_iter().map(str::to_owned).collect(),
        })
        .collect();
    // The groups wasting the most space first.
    possible_duplicates.sort_by(|a, b| {
        (b.size * (b.paths.len() as u64 - 1))
            .cmp(&(a.size * (a.paths.len() as u64 - 1)))
            .then_with(|| a.name.cmp(&b.name))
    });
    possible_duplicates.truncate(MAX_LISTED);
    let mut empty_folders = outcome.empty;
    empty_folders.sort();
    empty_folders.truncate(MAX_LISTED);
    Ok(FolderReportResult {
        path: params.path.clone(),
        files: seen.len() as u64,
        folders,
        total_bytes,
        by_type: sorted_groups(by_type),
        by_extension,
        by_age: by_age_sorted,
        largest,
        oldest,
        newest,
        possible_duplicates,
        empty_folders,
        cleanup_candidates,
        depth_limited: outcome.depth_limited,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn permissions_read_like_ls() {
        assert_eq!(permission_string(0o755), "rwxr-xr-x");
        assert_eq!(permission_string(0o640), "rw-r-----");
        assert_eq!(permission_string(0o4755), "rwsr-xr-x");
        assert_eq!(permission_string(0o1777), "rwxrwxrwt");
    }

    #[test]
    fn matching_lines_like_grep() {
        let regex = regex::bytes::RegexBuilder::new("b+")
            .multi_line(true)
            .crlf(true)
            .build()
            .unwrap();
        let data = b"a\nbb\nc\r\nb\r\nbbb";
        let found: Vec<(u64, &[u8])> = matching_lines(&regex, data);
        assert_eq!(
            found,
            vec![(2, &b"bb"[..]), (4, &b"b"[..]), (5, &b"bbb"[..])]
        );
        let spanning = regex::bytes::Regex::new(r"a\sb").unwrap();
        assert!(matching_lines(&spanning, b"a\nb").is_empty());
        let anchored = regex::bytes::RegexBuilder::new("^c$")
            .multi_line(true)
            .crlf(true)
            .build()
            .unwrap();
        assert_eq!(matching_lines(&anchored, data), vec![(3, &b"c"[..])]);
    }

    #[test]
    fn times_and_names() {
        let now = 1_700_000_000;
        assert_eq!(
            parse_time(ToolName::FindFiles, "7d", now).unwrap(),
            now - 7 * DAY
        );
        assert_eq!(
            parse_time(ToolName::FindFiles, "2024-05-01", now).unwrap(),
            1_714_521_600
        );
        assert!(parse_time(ToolName::FindFiles, "soon", now).is_err());
        assert_eq!(extension("a.TAR.GZ").as_deref(), Some("gz"));
        assert_eq!(extension(".bashrc"), None);
        assert_eq!(category("app.log.2.gz"), "logs");
        assert_eq!(category("db.sql.bak"), "backups");
        assert_eq!(age_bucket(Some(now - 40 * DAY), now), "30-90 days");
    }
}
