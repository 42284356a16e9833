//! Where a command line's writes really land. The analysis names the paths a line writes
//! (redirections, `tee`, `cp`/`mv`/`install`/`ln`/`dd of=`/`truncate` destinations, …); a link on
//! the server can make any of them another file: `/tmp/l/authorized_keys` is
//! `/root/.ssh/authorized_keys` once `/tmp/l` links there. Before the decision, every absolute
//! or home-relative target is resolved **on the server** in one exec-channel command (`realpath
//! -m`, one answer per path), and the policy judges the real path too
//! ([`crate::policy::judge_resolved_writes`]). A target the server cannot resolve asks.
//!
//! Paths relative to a folder the line does not name (`> out.txt` after an earlier `cd`) are not
//! resolved: kaiport does not know the shell's folder. The analysis compares them by their
//! trailing names, and creating a link to a protected place asks, so the link such a write would
//! need cannot be made unasked.
//!
//! This module must never run anything but `realpath` on the server, and never in the user's
//! terminal.

use super::TabResources;
use crate::policy::{Resolved, analyse};
use std::time::Duration;

/// Most targets resolved for one line; past it the rest are unknown (and ask).
const MAX_TARGETS: usize = 64;
/// Time the server gets to answer; past it every target is unknown (and asks).
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(10);
/// What the resolver prints for a path it could not resolve (a name never starts with it).
const FAILED: &str = "\u{1}";

/// One write target of a line (as the analysis normalised it), whether the write reaches
/// everything below it, and where it really lands, when that differs or is unknown.
pub type ResolvedWrite = (String, bool, Resolved);

/// Resolves the write targets of `line` on the tab's server (SSH tabs) or this computer (the
/// local tab). Only targets that lead elsewhere, or could not be resolved, are returned.
pub async fn resolve_command_writes(line: &str, resources: &TabResources) -> Vec<ResolvedWrite> {
    let analysis = analyse(line);
    let mut targets: Vec<(String, bool)> = Vec::new();
    for write in &analysis.writes {
        let absolute = write.path.starts_with('/') || write.path.starts_with('~');
        if absolute && !targets.iter().any(|(path, _)| *path == write.path) {
            targets.push((write.path.clone(), write.subtree));
        }
    }
    if targets.is_empty() {
        return Vec::new();
    }
    let mut unknown = Vec::new();
    if targets.len() > MAX_TARGETS {
        for (path, subtree) in targets.split_off(MAX_TARGETS) {
            unknown.push((
                path,
                subtree,
                Resolved::Unknown(format!("the line writes to more than {MAX_TARGETS} paths")),
            ));
        }
    }
    let answers = match (&resources.ssh, &resources.terminal) {
        (Some(ssh), _) => on_server(ssh, &targets).await,
        (None, Some(_)) => on_this_computer(&targets).await,
        // Storage tabs have no command lines.
        (None, None) => return Vec::new(),
    };
    let mut found: Vec<ResolvedWrite> = targets
        .into_iter()
        .zip(answers)
        .filter_map(|((path, subtree), answer)| {
            let resolved = match answer {
                Ok(real) if same_place(&path, &real) => return None,
                Ok(real) => Resolved::To(real),
                Err(why) => Resolved::Unknown(why),
            };
            Some((path, subtree, resolved))
        })
        .collect();
    found.extend(unknown);
    found
}

/// Home-relative targets always come back absolute, and are then judged by the real path too.
fn same_place(given: &str, real: &str) -> bool {
    given == real
}

/// The path as one sh word for the server, `~` becoming `"$HOME"`.
fn server_word(path: &str) -> String {
    let quote = |text: &str| format!("'{}'", text.replace('\'', r"'\''"));
    match path.strip_prefix('~') {
        Some("") => "\"$HOME\"".to_owned(),
        Some(rest) => format!("\"$HOME\"{}", quote(rest)),
        None => quote(path),
    }
}

async fn on_server(
    ssh: &crate::ssh::SshSession,
    targets: &[(String, bool)],
) -> Vec<Result<String, String>> {
    // One exec channel for all targets; each answer ends with NUL, a failure is \x01.
    let words: Vec<String> = targets.iter().map(|(path, _)| server_word(path)).collect();
    let script = format!(
        "for p in {}; do realpath -mz -- \"$p\" 2>/dev/null || printf '\\001\\000'; done",
        words.join(" ")
    );
    let all_unknown = |why: String| targets.iter().map(|_| Err(why.clone())).collect();
    let output = match tokio::time::timeout(RESOLVE_TIMEOUT, ssh.exec(&script)).await {
        Ok(Ok(output)) => output,
        Ok(Err(error)) => return all_unknown(format!("the server did not run realpath: {error}")),
        Err(_) => {
            return all_unknown(format!(
                "the server did not answer within {} s",
                RESOLVE_TIMEOUT.as_secs()
            ));
        }
    };
    let answers: Vec<&[u8]> = output
        .stdout
        .strip_suffix(b"\0")
        .unwrap_or(&output.stdout)
        .split(|byte| *byte == 0)
        .collect();
    if output.stdout.is_empty() || answers.len() != targets.len() {
        return all_unknown(
            "the server's realpath gave no usable answer (it needs GNU coreutils' realpath -m)"
                .to_owned(),
        );
    }
    answers
        .into_iter()
        .map(|answer| match std::str::from_utf8(answer) {
            Ok(FAILED) => Err(
                "realpath could not resolve it (a folder on the way may not be readable)"
                    .to_owned(),
            ),
            Ok(real) if real.starts_with('/') => Ok(real.to_owned()),
            Ok(_) | Err(_) => Err("realpath gave an answer that is not a path".to_owned()),
        })
        .collect()
}

async fn on_this_computer(targets: &[(String, bool)]) -> Vec<Result<String, String>> {
    let paths: Vec<String> = targets.iter().map(|(path, _)| path.clone()).collect();
    let resolved = tokio::task::spawn_blocking(move || {
        paths
            .iter()
            .map(|path| {
                let expanded = match path.strip_prefix('~') {
                    Some(rest) => match dirs::home_dir() {
                        Some(home) => format!("{}{rest}", home.display()),
                        None => return Err("this computer has no home folder".to_owned()),
                    },
                    None => path.clone(),
                };
                crate::fs::local_write_target(std::path::Path::new(&expanded))
                    .map(|real| real.to_string_lossy().into_owned())
                    .map_err(|error| error.to_string())
            })
            .collect::<Vec<_>>()
    })
    .await;
    resolved.unwrap_or_else(|error| {
        targets
            .iter()
            .map(|_| Err(format!("resolving links stopped: {error}")))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_words_quote_everything_but_home() {
        assert_eq!(server_word("/tmp/a b'c"), r"'/tmp/a b'\''c'");
        assert_eq!(server_word("~"), "\"$HOME\"");
        assert_eq!(server_word("~/.ssh/x"), "\"$HOME\"'/.ssh/x'");
    }
}
