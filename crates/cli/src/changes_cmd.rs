//! `kaiport changes CONNECTION` and `kaiport undo CONNECTION [CHANGE-ID]`: the changes kaiport
//! made to files on a server, and putting one back. Both are tool calls (list_changes,
//! undo_change) through the whole engine pipeline, so an undo is shown as a diff, confirmed,
//! audited and backed up like any other change.

use crate::connection::ConnectionOptions;
use crate::tool::{EXIT_FAILED, exit_code, run_calls};
use kaiport_protocol::tools::{ChangeAction, ChangeRecord, ListChangesResult, UndoChangeResult};
use kaiport_protocol::{Mode, ToolOutcome, ToolStatus};
use serde_json::json;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct ChangesArgs {
    /// `ssh://user@host:port`, `user@host`, or a saved profile name.
    connection: String,
    /// Only the changes of this file.
    #[arg(long)]
    path: Option<String>,
    /// Print the list as JSON (the list_changes result).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    options: ConnectionOptions,
}

#[derive(Debug, clap::Args)]
pub struct UndoArgs {
    /// `ssh://user@host:port`, `user@host`, or a saved profile name.
    connection: String,
    /// The change to undo (see `kaiport changes`); default: the newest that can be undone.
    change_id: Option<String>,
    /// Undo without asking (for scripts). The diff is still printed.
    #[arg(long)]
    yes: bool,
    #[command(flatten)]
    options: ConnectionOptions,
}

fn failed(outcome: &ToolOutcome) -> ExitCode {
    say!(
        "kaiport: {}",
        outcome
            .error
            .as_deref()
            .unwrap_or("the call did not succeed")
    );
    ExitCode::from(EXIT_FAILED)
}

pub async fn changes(args: ChangesArgs) -> anyhow::Result<ExitCode> {
    let mut call = Some(("list_changes".to_owned(), json!({ "path": args.path })));
    let Some(outcome) = run_calls(&args.connection, &args.options, Mode::Ask, false, |_| {
        call.take()
    })
    .await?
    else {
        return Ok(ExitCode::from(EXIT_FAILED));
    };
    if outcome.status != ToolStatus::Ok {
        return Ok(failed(&outcome));
    }
    let result = outcome.result.clone().unwrap_or_default();
    if args.json {
        out!("{}", serde_json::to_string_pretty(&result)?);
        return Ok(exit_code(&outcome));
    }
    let list: ListChangesResult = serde_json::from_value(result)?;
    if list.changes.is_empty() {
        say!(
            "kaiport: no changes recorded (backups are kept in {})",
            list.area
        );
    }
    for change in &list.changes {
        out!("{}", change_line(change));
    }
    Ok(exit_code(&outcome))
}

/// One change as a line: id, time, tool, what, file, and its backup or why none.
fn change_line(change: &ChangeRecord) -> String {
    let action = match change.action {
        ChangeAction::Created => "created",
        ChangeAction::Replaced => "replaced",
        ChangeAction::Deleted => "deleted",
    };
    let kept = match (&change.backup, &change.note) {
        (_, Some(note)) => note.clone(),
        (Some(backup), None) => format!("backup {backup}"),
        (None, None) => "nothing to keep".to_owned(),
    };
    let undo = if change.undoable {
        ""
    } else {
        " (cannot be undone)"
    };
    let sudo = if change.sudo { " [sudo]" } else { "" };
    let folder = if change.folder { " (folder)" } else { "" };
    let undoes = change
        .undoes
        .as_deref()
        .map_or_else(String::new, |id| format!(" (undid {id})"));
    format!(
        "{}  {}  {:<12} {:<8} {}{folder}{sudo}{undoes} — {kept}{undo}",
        change.id, change.time, change.tool, action, change.path
    )
}

pub async fn undo(args: UndoArgs) -> anyhow::Result<ExitCode> {
    let mut listed = false;
    let mut undoing = false;
    let wanted = args.change_id.clone();
    let mut nothing = None::<String>;
    // Without an id, the list first; then the undo of the newest change that can be undone.
    let outcome = run_calls(
        &args.connection,
        &args.options,
        Mode::Ask,
        args.yes,
        |before: Option<&ToolOutcome>| {
            if undoing {
                return None;
            }
            let id = match (&wanted, before) {
                (Some(id), _) => id.clone(),
                (None, None) if !listed => {
                    listed = true;
                    return Some(("list_changes".to_owned(), json!({})));
                }
                (None, Some(outcome)) if outcome.status == ToolStatus::Ok => {
                    let list: Option<ListChangesResult> = outcome
                        .result
                        .clone()
                        .and_then(|result| serde_json::from_value(result).ok());
                    match list
                        .into_iter()
                        .flat_map(|list| list.changes)
                        .find(|change| change.undoable)
                    {
                        Some(change) => {
                            say!(
                                "kaiport: undoing the newest change: {}",
                                change_line(&change)
                            );
                            change.id
                        }
                        None => {
                            nothing = Some("no change on this server can be undone".to_owned());
                            return None;
                        }
                    }
                }
                _ => return None,
            };
            undoing = true;
            Some(("undo_change".to_owned(), json!({ "change_id": id })))
        },
    )
    .await?;
    if let Some(message) = nothing {
        say!("kaiport: {message}");
        return Ok(ExitCode::from(EXIT_FAILED));
    }
    let Some(outcome) = outcome else {
        return Ok(ExitCode::from(EXIT_FAILED));
    };
    if outcome.status != ToolStatus::Ok {
        return Ok(failed(&outcome));
    }
    if let Some(result) = outcome
        .result
        .clone()
        .and_then(|result| serde_json::from_value::<UndoChangeResult>(result).ok())
    {
        let what = if result.restored {
            "put back"
        } else {
            "removed (the change had created it)"
        };
        out!(
            "{} {what}; this undo is change {} (undo it with `kaiport undo {} {}`)",
            result.path,
            result.change.change_id,
            args.connection,
            result.change.change_id
        );
        if let Some(warning) = result.warning {
            say!("kaiport: {warning}");
        }
    }
    Ok(exit_code(&outcome))
}
