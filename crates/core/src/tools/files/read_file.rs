//! read_file: a text file, or a range of its lines. Its contents go to the model only with the
//! connection's permission (the policy denies before anything is read). With `sudo: true` a
//! file the login may not read is read as root ([`super::sudo`]); the policy judges that apart.

use super::super::tool::Tool;
use super::super::{Action, Prepared, ToolContext, to_value};
use super::{
    MAX_READ_BYTES, ReadRecord, TextFile, check_path, fs_message, hash, read_content, tab_files,
    text,
};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{EntryKind, ReadFileParams, ToolName};
use serde_json::Value;

pub(crate) struct ReadFile;

impl Tool for ReadFile {
    const NAME: ToolName = ToolName::ReadFile;
    const DESCRIPTION: &'static str = "Read a text file, or a range of its lines (start_line + line_count). Needs the connection's permission \
         to send file contents to the AI. Binary files and files over 2 MB are refused.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = ReadFileParams;
    type Found = ();

    fn check(params: &ReadFileParams) -> Result<(), String> {
        check_path(Self::NAME, &params.path)?;
        if params.sudo == Some(true) && params.side == Some(kaiport_protocol::tools::Side::Local) {
            return Err("read_file: sudo reads the server's files only".to_owned());
        }
        if params.start_line == Some(0) {
            return Err("read_file: start_line counts from 1".to_owned());
        }
        if params.line_count == Some(0) {
            return Err("read_file: line_count must be at least 1".to_owned());
        }
        Ok(())
    }

    fn facts(params: &ReadFileParams, _: Option<&()>) -> CallFacts {
        match params.sudo {
            Some(true) => CallFacts::ReadAsRoot {
                path: params.path.clone(),
            },
            _ => CallFacts::Read { contents: true },
        }
    }

    async fn prepare(params: ReadFileParams, _: &ToolContext<'_>) -> Result<Prepared, String> {
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: None,
            action: Action::ReadFile(params),
        })
    }
}

pub(crate) async fn execute(
    params: ReadFileParams,
    context: &ToolContext<'_>,
) -> Result<Value, String> {
    const TOOL: ToolName = ToolName::ReadFile;
    let tab = tab_files(context, params.side)?;
    let files = tab.access().await?;
    let path = params.path.as_str();
    let found = match files.metadata(path).await {
        Ok(found) => found,
        // In a folder only root may open, only root can look (and the stamp it sees is what a
        // later sudo write compares).
        Err(error)
            if params.sudo == Some(true)
                && error.kind == crate::fs::FsErrorKind::PermissionDenied =>
        {
            super::sudo::look_as_root(path, context)
                .await
                .map_err(|message| format!("{TOOL}: {message}"))?
                .found
                .ok_or_else(|| format!("{TOOL}: {path} does not exist"))?
        }
        Err(error) => return Err(fs_message(TOOL, &error)),
    };
    if found.kind == EntryKind::Dir {
        return Err(format!("read_file: {path} is a folder; use list_dir"));
    }
    let ranged = params.start_line.is_some() || params.line_count.is_some();
    let whole = found.size <= MAX_READ_BYTES;
    if !whole && !ranged {
        return Err(format!(
            "read_file: {path} is {} bytes, more than read_file reads at once (2 MB). Read a part with \
             start_line and line_count, or find what you need with search_files.",
            found.size
        ));
    }
    let root = params.sudo.unwrap_or(false).then_some(context);
    if !whole && root.is_some() {
        return Err(format!(
            "read_file: {path} is {} bytes; as root, read_file reads whole files of at most 2 MB",
            found.size
        ));
    }
    let start_line = params.start_line.unwrap_or(1);
    let (raw, total_lines, complete) = if whole {
        let raw = read_content(TOOL, files.as_ref(), path, MAX_READ_BYTES + 1, root).await?;
        if raw.len() as u64 > MAX_READ_BYTES {
            return Err(format!(
                "read_file: {path} grew past 2 MB while it was read; read a part with start_line and line_count"
            ));
        }
        let lines = text::count_lines(&raw);
        (raw, lines, true)
    } else {
        text::read_line_range(
            files.as_ref(),
            path,
            start_line,
            params.line_count,
            MAX_READ_BYTES,
        )
        .await
        .map_err(|error| fs_message(TOOL, &error))?
    };
    if text::looks_binary(&raw) {
        return Err(format!(
            "read_file: {path} is a binary file (it has NUL bytes); only text files can be read"
        ));
    }
    tab.remember(
        path,
        ReadRecord {
            stamp: found.stamp(),
            hash: complete.then(|| hash(&raw)),
        },
    );
    let file = TextFile::decode(&raw);
    let limit = context.settings.file_limit_kb as usize * 1024;
    let result = text::shape_read_result(
        path,
        &file,
        total_lines,
        if complete {
            raw.len() as u64
        } else {
            found.size
        },
        complete,
        start_line,
        params.line_count,
        limit,
    )
    .map_err(|message| format!("read_file: {message}"))?;
    to_value(&result)
}
