//! sudo reads and writes (read_file / edit_file / write_file with `sudo: true`, terminal tabs):
//! for files the SSH user cannot read or write.
//!
//! In SSH tabs sudo runs on an exec channel of the tab's connection, never in the user's
//! terminal. When sudo needs a password, the user is asked for it by the app
//! (`ToolContext::sudo_password`) and it goes to sudo's standard input only (`sudo -S`): never
//! into a command line, an event, the audit log, an error or a log. A read is `head -c` of the
//! file as root. A write uploads the new content and a small install script over SFTP as private
//! temp files, then runs `sudo sh <script>`. The script copies the content to a temp file beside
//! the target, gives it the target's owner, group and mode, and renames it over the target — so
//! the change is atomic and the metadata stays. Before that it copies the old file into root's
//! backup area with `cp -p` and, after, prunes that area to its limits (`crate::backup`); an undo
//! installs a backup the same way, or removes the file. No path appears on a write's command line
//! (they are single-quoted inside the script), so names with spaces, quotes, newlines or leading
//! dashes cannot change what runs; a read's path is one single-quoted word after `--`.
//!
//! Without an SSH connection (the local terminal tab) a write's `sudo sh <script>` runs in the
//! user's terminal instead, and a password prompt there is the user's to answer: this module
//! never sees or types it; it waits (within the command time limit) for the script's end marker.

use crate::fs::{FileAccess, join};
use crate::tools::ToolContext;
use kaiport_protocol::tools::{CommandStatus, ToolName};
use std::time::{Duration, Instant};

/// Permission bits of a new file created through sudo.
const NEW_FILE_MODE: u32 = 0o644;
/// How often the screen is checked while a sudo password prompt waits for the user.
const PROMPT_POLL: Duration = Duration::from_secs(1);

/// `text` as one single-quoted sh word.
pub(super) fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// What a sudo job does to its target.
#[derive(Debug, Clone, Copy)]
pub(super) enum Install<'a> {
    /// Installs these bytes (uploaded first as a private temp file).
    Upload(&'a [u8]),
    /// Installs a copy of a file already on the server (a backup, for an undo).
    OnServer(&'a str),
    /// Removes the target (the undo of a change that created it).
    Remove,
}

/// The old content's copy in root's backup area, with that area's limits.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Backup<'a> {
    pub path: &'a str,
    pub limits: crate::backup::Limits,
}

/// One change of a file through sudo.
pub(crate) struct Job<'a> {
    pub tool: ToolName,
    pub target: &'a str,
    pub action: Install<'a>,
    /// Owner, group and mode the installed file gets (those of the file it replaces).
    pub owner: Option<(u32, u32, u32)>,
    /// The target as the approval saw it.
    pub before: Option<crate::fs::Stamp>,
    pub backup: Option<Backup<'a>>,
}

/// The script for `job`; `source`: where the new content is on the server.
pub(super) fn install_script(job: &Job<'_>, source: Option<&str>) -> String {
    let mut script = String::from("set -e\n");
    script.push_str(&format!("dst={}\n", sh_quote(job.target)));
    if let Some(backup) = &job.backup {
        let (area, _) = crate::fs::split_parent(backup.path);
        script.push_str(&format!("area={}\n", sh_quote(area)));
        script.push_str(&format!("bak={}\n", sh_quote(backup.path)));
        // 0711: the login may look at a backup's name, not list or read root's files.
        script.push_str(&format!(
            "mkdir -p -m 711 -- {}\nmkdir -p -m 711 -- \"$area\"\n",
            sh_quote(crate::backup::ROOT_AREAS)
        ));
        // cp -p: the old file's owner, group, mode and times come along.
        script.push_str("if [ -f \"$dst\" ]; then cp -p -- \"$dst\" \"$bak\"; fi\n");
    }
    match (job.action, source) {
        (Install::Remove, _) => script.push_str("rm -f -- \"$dst\"\n"),
        (_, Some(source)) => {
            script.push_str(&format!("src={}\n", sh_quote(source)));
            // mktemp in the target's folder, so the final mv is a rename on one file system.
            script.push_str("tmp=$(mktemp \"$dst.kaiport-XXXXXX\")\n");
            script.push_str("trap 'rm -f -- \"$tmp\"' EXIT\n");
            script.push_str("cat -- \"$src\" > \"$tmp\"\n");
            match job.owner {
                Some((uid, gid, mode)) => {
                    script.push_str(&format!("chown {uid}:{gid} -- \"$tmp\"\n"));
                    script.push_str(&format!("chmod {:o} -- \"$tmp\"\n", mode & 0o7777));
                }
                None => script.push_str(&format!("chmod {NEW_FILE_MODE:o} -- \"$tmp\"\n")),
            }
            script.push_str("mv -f -- \"$tmp\" \"$dst\"\n");
            script.push_str("trap - EXIT\n");
        }
        (_, None) => script.push_str("echo 'no content to install' >&2\nexit 1\n"),
    }
    if let Some(backup) = &job.backup {
        // Root's area keeps to the same limits; the names are change ids, so they sort by
        // time and hold no space or quote. A failed prune does not fail the change.
        let cutoff = chrono::Utc::now() - chrono::Duration::seconds(backup.limits.max_age_s);
        script.push_str(&format!(
            "( total=0\n  for f in $(ls -1r -- \"$area\"); do\n    case \"$f\" in *.data) ;; *) continue ;; esac\n    size=$(wc -c < \"$area/$f\")\n    total=$((total + size))\n    if [ \"$total\" -gt {limit} ] || expr \"$f\" \\< {cutoff} >/dev/null; then rm -f -- \"$area/$f\"; total=$((total - size)); fi\n  done ) || true\n",
            limit = backup.limits.total_bytes,
            cutoff = cutoff.format("%Y%m%dT%H%M%S%3fZ"),
        ));
    }
    script
}

/// Runs `job` through sudo: on an exec channel in SSH tabs, else in the user's terminal.
pub(crate) async fn run(
    job: &Job<'_>,
    files: &dyn FileAccess,
    context: &ToolContext<'_>,
) -> Result<(), String> {
    let tool = job.tool;
    if context.resources.ssh.is_none() && context.resources.terminal.is_none() {
        return Err(format!("{tool}: sudo works in terminal tabs only"));
    }
    let nonce: u64 = rand::random();
    let dir = files.temp_dir();
    let data_path = join(&dir, &format!(".kaiport-sudo-{nonce:016x}.data"));
    let script_path = join(&dir, &format!(".kaiport-sudo-{nonce:016x}.sh"));
    let mut uploaded = vec![script_path.clone()];
    let result = async {
        let source = match job.action {
            Install::Upload(content) => {
                uploaded.push(data_path.clone());
                files
                    .create_private(&data_path, content)
                    .await
                    .map_err(|error| {
                        format!("{tool}: could not upload the new content: {error}")
                    })?;
                Some(data_path.as_str())
            }
            Install::OnServer(path) => Some(path),
            Install::Remove => None,
        };
        let script = install_script(job, source);
        files
            .create_private(&script_path, script.as_bytes())
            .await
            .map_err(|error| format!("{tool}: could not upload the install script: {error}"))?;
        // Last check before anything is replaced: the file is still as the diff saw it.
        let now = match files.metadata(job.target).await {
            Ok(found) => Some(found.stamp()),
            Err(error) if error.kind == crate::fs::FsErrorKind::NotFound => None,
            // In a folder only root may enter, root looks.
            Err(error)
                if error.kind == crate::fs::FsErrorKind::PermissionDenied
                    && context.resources.ssh.is_some() =>
            {
                look_as_root(job.target, context)
                    .await?
                    .found
                    .map(|found| found.stamp())
            }
            Err(error) => return Err(format!("{tool}: {error}")),
        };
        crate::fs::check_unchanged(job.target, job.before, now)
            .map_err(|error| format!("{tool}: {error}"))?;
        match (&context.resources.ssh, &context.resources.terminal) {
            (Some(ssh), _) => {
                let line = format!("sh {}", sh_quote(&script_path));
                let output = as_root(ssh, &line, job.target, "changed", context).await?;
                match output.exit_status {
                    Some(0) => Ok(()),
                    _ => Err(failure(&String::from_utf8_lossy(&output.stderr), "")),
                }
            }
            (None, Some(terminal)) => run_install(&script_path, nonce, terminal, context).await,
            (None, None) => Err("sudo works in terminal tabs only".to_owned()),
        }
    }
    .await;
    // The temp files are the SSH user's own: remove them whatever happened.
    for path in &uploaded {
        if let Err(error) = files.remove_file(path).await {
            tracing::debug!(path = %path, error = %error, "temp file already gone");
        }
    }
    result.map_err(|message| match message.starts_with(tool.as_str()) {
        true => message,
        false => format!("{tool}: {message}"),
    })
}

/// Runs the script with sudo in the terminal and waits for its end marker.
async fn run_install(
    script_path: &str,
    nonce: u64,
    terminal: &crate::terminal::Terminal,
    context: &ToolContext<'_>,
) -> Result<(), String> {
    let marker = format!("kaiport-sudo-{nonce:016x}-");
    // The quotes keep the echoed command line from containing the finished markers.
    let command = format!("sudo sh {script_path} && echo {marker}'done' || echo {marker}'failed'");
    let timeout = Duration::from_secs(u64::from(context.settings.command_timeout_s));
    let started = Instant::now();
    let result = terminal
        .run_command(&command, timeout, context.cancel.clone())
        .await
        .map_err(|error| error.to_string())?;
    let done = format!("{marker}done");
    let failed = format!("{marker}failed");
    let verdict = |text: &str| {
        if text.contains(&done) {
            Some(Ok(()))
        } else if text.contains(&failed) {
            Some(Err(text.to_owned()))
        } else {
            None
        }
    };
    match result.status {
        CommandStatus::Completed => match verdict(&result.output) {
            Some(Ok(())) => Ok(()),
            Some(Err(output)) => Err(failure(&output, &marker)),
            None => Err(format!(
                "the install command ended without saying whether it worked; check the file. Output: {}",
                crate::audit::shorten(&result.output, 400)
            )),
        },
        CommandStatus::AwaitingInput | CommandStatus::AwaitingSecret => {
            // Most likely sudo's password prompt: the user answers it in the terminal.
            loop {
                if started.elapsed() >= timeout {
                    return Err(format!(
                        "sudo is still waiting for input in the terminal (a password prompt?) after {} s; \
                         the file was not changed. Ask the user to answer it, or press ctrl-c with send_input.",
                        timeout.as_secs()
                    ));
                }
                let screen = terminal
                    .read_screen(PROMPT_POLL, context.cancel.clone())
                    .await
                    .map_err(|error| error.to_string())?;
                if let Some(outcome) = verdict(&screen.screen) {
                    return outcome.map_err(|output| failure(&output, &marker));
                }
            }
        }
        CommandStatus::TimedOut => Err(format!(
            "the sudo install command did not finish within {} s; it is still running in the terminal",
            timeout.as_secs()
        )),
        CommandStatus::Interrupted => {
            Err("the sudo install command was interrupted; check the file".to_owned())
        }
    }
}

/// Reads at most `limit` bytes of `path` as root (read_file and the diff of a sudo write, for a
/// file the login cannot read).
pub(super) async fn read_as_root(
    path: &str,
    limit: u64,
    context: &ToolContext<'_>,
) -> Result<Vec<u8>, String> {
    let line = format!("head -c {limit} -- {}", sh_quote(path));
    stdout_as_root(&line, path, ["reading", "read", "read"], context).await
}

/// `find`'s fields of one entry, each ended by NUL (a name cannot hold one): type, size,
/// modified (seconds, with a fraction), mode (octal), link target, name.
pub(super) const LIST_FIELDS: usize = 6;

/// Lists the folder `path` as root (list_dir with `sudo`, for a folder the login may not
/// open): `find`'s NUL-separated fields of each entry ([`LIST_FIELDS`]; GNU find).
pub(super) async fn list_as_root(path: &str, context: &ToolContext<'_>) -> Result<Vec<u8>, String> {
    let line = format!(
        "find {} -mindepth 1 -maxdepth 1 -printf '%y\\0%s\\0%T@\\0%m\\0%l\\0%f\\0'",
        sh_quote(path)
    );
    stdout_as_root(&line, path, ["listing", "list", "listed"], context).await
}

/// What root sees of `path`, for a file in a folder the login may not enter: where a write to
/// it lands (`readlink -f`: links followed) and its facts (links followed; `None`: it does not
/// exist).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RootLook {
    pub real: String,
    pub found: Option<crate::fs::Metadata>,
}

/// The sh script of [`look_as_root`]: the real path, then (if it exists) `find`'s fields of
/// it, each ended by NUL: type, size, modified, mode (octal), uid, gid.
const LOOK_SCRIPT: &str = r#"r=$(readlink -f -- "$1") || exit 3
printf '%s\0' "$r"
[ -e "$1" ] || exit 0
exec find -L "$1" -maxdepth 0 -printf '%y\0%s\0%T@\0%m\0%U\0%G\0'"#;

/// Looks at `path` as root ([`RootLook`]): one sudo command, the path a single-quoted
/// argument.
pub(super) async fn look_as_root(
    path: &str,
    context: &ToolContext<'_>,
) -> Result<RootLook, String> {
    let line = format!("sh -c {} sh {}", sh_quote(LOOK_SCRIPT), sh_quote(path));
    let raw = stdout_as_root(&line, path, ["looking at", "look at", "looked at"], context).await?;
    parse_look(path, &raw)
}

/// Reads [`LOOK_SCRIPT`]'s output.
fn parse_look(path: &str, raw: &[u8]) -> Result<RootLook, String> {
    let fields: Vec<String> = raw
        .split(|byte| *byte == 0)
        .map(|field| String::from_utf8_lossy(field).into_owned())
        .collect();
    let cut = || format!("what root sees of {path} came cut short; try again");
    match fields.as_slice() {
        [real, rest] if rest.is_empty() && real.starts_with('/') => Ok(RootLook {
            real: real.clone(),
            found: None,
        }),
        [real, kind, size, modified, mode, uid, gid, rest]
            if rest.is_empty() && real.starts_with('/') =>
        {
            let kind = match kind.as_str() {
                "d" => kaiport_protocol::tools::EntryKind::Dir,
                "f" => kaiport_protocol::tools::EntryKind::File,
                "l" => kaiport_protocol::tools::EntryKind::Symlink,
                _ => kaiport_protocol::tools::EntryKind::Other,
            };
            Ok(RootLook {
                real: real.clone(),
                found: Some(crate::fs::Metadata {
                    kind,
                    size: size.parse().map_err(|_| cut())?,
                    // Whole seconds, as SFTP gives them.
                    modified: modified
                        .split('.')
                        .next()
                        .and_then(|seconds| seconds.parse().ok()),
                    mode: u32::from_str_radix(mode, 8).ok(),
                    uid: uid.parse().ok(),
                    gid: gid.parse().ok(),
                    ..crate::fs::Metadata::bare_folder()
                }),
            })
        }
        _ => Err(cut()),
    }
}

/// What `line` (about `path`) printed, run as root; `[doing, verb, done]`: the words for it in
/// the errors ("listing", "list", "listed").
async fn stdout_as_root(
    line: &str,
    path: &str,
    [doing, verb, done]: [&str; 3],
    context: &ToolContext<'_>,
) -> Result<Vec<u8>, String> {
    let ssh = context
        .resources
        .ssh
        .as_ref()
        .ok_or_else(|| format!("{doing} as root (sudo) works in SSH tabs only"))?;
    let output = as_root(ssh, line, path, done, context).await?;
    match output.exit_status {
        Some(0) => Ok(output.stdout),
        _ => Err(format!(
            "sudo could not {verb} {path}: {}",
            crate::taint::server_text(&crate::audit::shorten(
                String::from_utf8_lossy(&output.stderr).trim(),
                400
            ))
        )),
    }
}

/// What sudo said when it needs a password and `-n` forbade asking.
fn needs_password(stderr: &str) -> bool {
    stderr.contains("password is required") || stderr.contains("a terminal is required")
}

/// What sudo says when the password it read was wrong or missing.
fn password_refused(stderr: &str) -> bool {
    [
        "incorrect password",
        "Sorry, try again",
        "no password was provided",
    ]
    .iter()
    .any(|said| stderr.contains(said))
}

/// Runs `line` (already quoted for sh) as root on an exec channel: without a password when sudo
/// lets it, else with the one the user gives for `path` (asked through the app). `undone`: what
/// did not happen to the file when it fails ("read", "changed"). Within the command time limit
/// (the time the user takes to answer is not counted); cancel ends it.
async fn as_root(
    ssh: &crate::ssh::SshSession,
    line: &str,
    path: &str,
    undone: &str,
    context: &ToolContext<'_>,
) -> Result<crate::ssh::ExecOutput, String> {
    let limit = Duration::from_secs(u64::from(context.settings.command_timeout_s));
    let exec = |command: String, input: zeroize::Zeroizing<Vec<u8>>| async move {
        tokio::select! {
            () = context.cancel.cancelled() => Err("cancelled".to_owned()),
            ran = tokio::time::timeout(limit, ssh.exec_with_input(&command, &input)) => match ran {
                Ok(Ok(output)) => Ok(output),
                Ok(Err(error)) => Err(error.to_string()),
                Err(_) => Err(format!(
                    "sudo did not finish within {} s; the file was not {undone}",
                    limit.as_secs()
                )),
            },
        }
    };
    let quiet = zeroize::Zeroizing::new(Vec::new());
    let first = exec(format!("sudo -n -- {line}"), quiet).await?;
    let said = String::from_utf8_lossy(&first.stderr).into_owned();
    if first.exit_status == Some(0) || !needs_password(&said) {
        return Ok(first);
    }
    let ask = context.sudo_password.as_ref().ok_or_else(|| {
        format!("sudo asks for a password here and nobody can give it; the file was not {undone}")
    })?;
    let Some(password) = ask(path.to_owned()).await else {
        return Err(format!(
            "the user did not give the sudo password; the file was not {undone}"
        ));
    };
    let mut input = zeroize::Zeroizing::new(Vec::with_capacity(password.len() + 1));
    input.extend_from_slice(password.as_bytes());
    input.push(b'\n');
    drop(password);
    // -p '': sudo's prompt would only land in the output; -S: the password from standard input.
    let output = exec(format!("sudo -S -p '' -- {line}"), input).await?;
    let said = String::from_utf8_lossy(&output.stderr);
    if output.exit_status != Some(0) && password_refused(&said) {
        return Err(format!(
            "sudo did not accept the password; the file was not {undone}"
        ));
    }
    Ok(output)
}

fn failure(output: &str, marker: &str) -> String {
    let cleaned: Vec<&str> = output
        .lines()
        .filter(|line| marker.is_empty() || !line.contains(marker))
        .collect();
    format!(
        "the sudo write failed; the file was not changed. sudo said: {}",
        crate::taint::server_text(&crate::audit::shorten(cleaned.join("\n").trim(), 400))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn quoting_survives_hostile_names() {
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(sh_quote("-rf\nx"), "'-rf\nx'");
        let job = Job {
            tool: ToolName::WriteFile,
            target: "/etc/x'y",
            action: Install::Upload(b""),
            owner: Some((0, 0, 0o640)),
            before: None,
            backup: None,
        };
        let script = install_script(&job, Some("/tmp/s"));
        assert!(script.contains(r"dst='/etc/x'\''y'"), "{script}");
        assert!(script.contains("chown 0:0 -- \"$tmp\""), "{script}");
        assert!(script.contains("chmod 640 -- \"$tmp\""), "{script}");
    }

    #[test]
    fn what_root_sees_is_read_back() {
        let look = parse_look(
            "/v/a",
            b"/v/a\0f\x0012\x001733480000.5\x00600\x000\x0042\x00",
        )
        .unwrap();
        assert_eq!(look.real, "/v/a");
        let found = look.found.unwrap();
        assert_eq!(
            (found.size, found.modified, found.mode, found.uid, found.gid),
            (12, Some(1_733_480_000), Some(0o600), Some(0), Some(42))
        );
        assert_eq!(parse_look("/v/b", b"/v/b\0").unwrap().found, None);
        assert!(parse_look("/v/c", b"/v/c\0f\x0012").is_err(), "cut short");
        assert!(parse_look("/v/d", b"").is_err());
    }

    /// The look runs under a real sh (as root or not): the real path and the facts, or the
    /// real path alone for a file that does not exist.
    #[cfg(unix)]
    #[test]
    fn the_look_script_runs_with_real_sh() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("it's x");
        std::fs::write(&file, "12345").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let run = |path: &std::path::Path| {
            let output = std::process::Command::new("sh")
                .arg("-c")
                .arg(LOOK_SCRIPT)
                .arg("sh")
                .arg(path)
                .output()
                .unwrap();
            assert!(output.status.success());
            parse_look(&path.display().to_string(), &output.stdout).unwrap()
        };
        let real = std::fs::canonicalize(&file).unwrap().display().to_string();
        let look = run(&link);
        assert_eq!(look.real, real);
        let found = look.found.unwrap();
        assert_eq!((found.size, found.mode), (5, Some(0o640)));
        let gone = run(&dir.path().join("gone"));
        assert_eq!(gone.found, None);
    }

    /// The script runs under a real sh: names with spaces, quotes and newlines land intact.
    #[cfg(unix)]
    #[test]
    fn script_installs_with_real_sh() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("src");
        std::fs::write(&source, "new\n").unwrap();
        let target = dir.path().join("a b'c\nd -x");
        std::fs::write(&target, "old\n").unwrap();
        let target_text = target.display().to_string();
        let job = Job {
            tool: ToolName::WriteFile,
            target: &target_text,
            action: Install::Upload(b""),
            owner: None,
            before: None,
            backup: None,
        };
        let script = install_script(&job, Some(&source.display().to_string()));
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(&script)
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 2, "no temp file left behind");
    }
}
