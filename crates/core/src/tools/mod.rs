//! The tool registry of this build and the typed form of one call.
//!
//! The registry is built in one place from Cargo features: mobile builds compile without
//! `edit-file`, `show-view` and `plan`, and those tools are then absent from the schemas, not
//! merely refused. Arguments are parsed into the protocol's parameter types; a bad argument is
//! the model's to fix, so it becomes a precise message, never a panic.

mod files;
pub mod links;
mod storage;
mod terminal;
#[cfg(feature = "show-view")]
mod view;

pub use files::{PlannedWrite, TabFiles, folder_report_on, search_files_on};
pub use storage::{CheckedOp, MAX_PLAN_OPS, PlannedOps, walk_tree};

/// Receives the progress of a call's file transfers: the file being written, and where it is.
pub type TransferReporter =
    std::sync::Arc<dyn Fn(&str, crate::storage::transfer::Progress) + Send + Sync>;

/// Receives the whole view of a show_view call (the engine turns it into `ViewShown`).
pub type ViewReporter = std::sync::Arc<dyn Fn(kaiport_protocol::ViewReport) + Send + Sync>;

use crate::policy::CallFacts;
use crate::ssh::SshSession;
use crate::terminal::Terminal;
use kaiport_protocol::tools::*;
use kaiport_protocol::{ApprovalPreview, ConnectionSettings, TabKind};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// One tool as this build offers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSpec {
    pub name: ToolName,
    /// What the model is told the tool does.
    pub description: &'static str,
    /// The kinds of tab the tool works in.
    pub tab_kinds: &'static [TabKind],
    /// False while the tool's implementation has not landed: calls get a clear error.
    pub implemented: bool,
}

const TERMINAL: &[TabKind] = &[TabKind::Terminal];
const STORAGE: &[TabKind] = &[TabKind::Storage];
const BOTH: &[TabKind] = &[TabKind::Terminal, TabKind::Storage];

/// The tools of this build, in a stable order.
pub fn registry() -> Vec<ToolSpec> {
    let spec = |name, description, tab_kinds, implemented| ToolSpec {
        name,
        description,
        tab_kinds,
        implemented,
    };
    let mut tools = vec![
        spec(
            ToolName::RunCommand,
            "Type a command line into the user's visible terminal, press Enter and wait until the shell shows its \
             prompt again. Returns status (completed, timed_out = still running, awaiting_input = the command asks \
             something: answer with send_input, interrupted), the output without the echoed command and prompt, \
             exit_code (with shell integration only), duration_ms and the detection method. Long output keeps its \
             head and tail. Without an exit code, append `; echo \"exit=$?\"` if you need one.",
            TERMINAL,
            true,
        ),
        spec(
            ToolName::SendInput,
            "Send text and/or one special key to the terminal without waiting for a prompt: answer a question, \
             quit a program, move in a full-screen program. Returns the screen once output settles (at most 2 s).",
            TERMINAL,
            true,
        ),
        spec(
            ToolName::ReadScreen,
            "Return the text visible in the terminal now, after waiting wait_seconds (0-120): follow a \
             long-running command, an interactive program, or something the user did.",
            TERMINAL,
            true,
        ),
    ];
    #[cfg(feature = "show-view")]
    tools.push(spec(
        ToolName::ShowView,
        "Show the user a server view and get a compact summary (what is wrong first). Views: processes, disk, \
         disk_usage (path: folder), ports, logs (path: a log file; default the system journal or syslog), cron, \
         certificates (path: a certificate file or folder; default /etc/letsencrypt/live and nginx's), services, \
         service_status (unit), updates (from the cached lists, never refreshed), websites (nginx), docker, \
         docker_logs (container). Read-only commands on a separate channel, never in the terminal, never sudo; \
         15 s per view.",
        TERMINAL,
        true,
    ));
    #[cfg(feature = "plan")]
    tools.extend([
        spec(
            ToolName::ProposePlan,
            "Plan mode only, once: propose a plan (title, findings, up to 30 steps) for the user to approve.",
            TERMINAL,
            true,
        ),
        spec(
            ToolName::UpdatePlan,
            "Set a plan step to running, done, failed or skipped with a short note, or add a step (the user \
             confirms added steps).",
            TERMINAL,
            true,
        ),
    ]);
    tools.push(spec(
        ToolName::ReadFile,
        "Read a text file, or a range of its lines (start_line + line_count). Needs the connection's permission \
         to send file contents to the AI. Binary files and files over 2 MB are refused.",
        BOTH,
        true,
    ));
    #[cfg(feature = "edit-file")]
    tools.push(spec(
        ToolName::EditFile,
        "Change parts of a text file by exact replacement: each old_text must occur exactly once unless \
         replace_all. All edits apply or none. Prefer this over write_file for existing files; read the file \
         first.",
        BOTH,
        true,
    ));
    tools.extend([
        spec(
            ToolName::WriteFile,
            "Create a file or replace it whole. Read an existing file before replacing it.",
            BOTH,
            true,
        ),
        spec(ToolName::ListDir, "List a folder: name, type, size, modified, permissions (up to 500 entries).", BOTH, true),
        spec(
            ToolName::FindFiles,
            "Find files and folders under a folder by metadata only (name glob, type, size, modified).",
            BOTH,
            true,
        ),
        spec(
            ToolName::SearchFiles,
            "Search text files under a folder for a regex or literal; returns matching lines with path and line \
             number (at most 100), never whole files. Needs the content permission.",
            BOTH,
            true,
        ),
        spec(
            ToolName::FolderReport,
            "Statistics of a folder tree from metadata only: counts, sizes by type and extension, ages, largest, \
             oldest, newest, possible duplicates, empty folders, clean-up candidates.",
            BOTH,
            true,
        ),
        spec(ToolName::MakeDir, "Create a folder (with missing parents where the service can).", STORAGE, true),
        spec(ToolName::Rename, "Rename or move a file or folder within one side.", STORAGE, true),
        spec(
            ToolName::Delete,
            "Delete a file or folder; a non-empty folder only with recursive: true. Always asks the user.",
            STORAGE,
            true,
        ),
        spec(ToolName::Upload, "Copy one file from the user's computer into a storage folder.", STORAGE, true),
        spec(ToolName::Download, "Copy one file from storage into a folder on the user's computer.", STORAGE, true),
        spec(
            ToolName::ExecutePlan,
            "Run up to 200 storage operations after one approval; stops at the first error.",
            STORAGE,
            true,
        ),
        spec(
            ToolName::AskUser,
            "Ask the user a question with up to 5 suggested answers; they may type their own. Never answered \
             automatically.",
            BOTH,
            true,
        ),
    ]);
    tools
}

/// The spec of `name` in this build.
pub fn find(name: &str) -> Option<ToolSpec> {
    registry()
        .into_iter()
        .find(|spec| spec.name.as_str() == name)
}

/// A tool as `kaiport tools --json` and the model see it.
pub fn spec_json(spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name.as_str(),
        "description": spec.description,
        "input_schema": parameters_schema(spec.name),
        "tabs": spec.tab_kinds,
        "implemented": spec.implemented,
    })
}

/// A call with its arguments parsed and checked.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolRequest {
    RunCommand(RunCommandParams),
    SendInput(SendInputParams),
    ReadScreen(ReadScreenParams),
    #[cfg(feature = "show-view")]
    ShowView(ShowViewParams),
    AskUser(AskUserParams),
    ReadFile(ReadFileParams),
    #[cfg(feature = "edit-file")]
    EditFile(EditFileParams),
    WriteFile(WriteFileParams),
    ListDir(ListDirParams),
    FindFiles(FindFilesParams),
    SearchFiles(SearchFilesParams),
    FolderReport(FolderReportParams),
    #[cfg(feature = "plan")]
    ProposePlan(ProposePlanParams),
    #[cfg(feature = "plan")]
    UpdatePlan(UpdatePlanParams),
    MakeDir(MakeDirParams),
    Rename(RenameParams),
    Delete(DeleteParams),
    Upload(UploadParams),
    Download(DownloadParams),
    ExecutePlan(ExecutePlanParams),
}

/// What a connected tab offers its tools.
pub struct TabResources {
    /// The interactive shell (terminal tabs).
    pub terminal: Option<Terminal>,
    /// The SSH connection (SSH terminal tabs): exec channels, SFTP.
    pub ssh: Option<SshSession>,
    /// The tab's files (SFTP for SSH tabs, opened on first use; this computer for the local tab;
    /// the service for storage tabs).
    pub files: Option<TabFiles>,
    /// Storage tabs: this computer, confined to the folders the user opened for the tab.
    pub local_files: Option<TabFiles>,
}

impl TabResources {
    /// The files of one side (`None`: remote).
    pub fn files_for(&self, side: Option<Side>) -> Result<&TabFiles, String> {
        match side.unwrap_or_default() {
            Side::Remote => self
                .files
                .as_ref()
                .ok_or_else(|| "this tab has no file access".to_owned()),
            Side::Local => self.local_files.as_ref().ok_or_else(|| {
                "side \"local\" exists only in storage tabs (the user's own computer)".to_owned()
            }),
        }
    }
}

/// Everything one call may use.
pub struct ToolContext<'a> {
    pub resources: &'a TabResources,
    pub settings: &'a ConnectionSettings,
    pub tab_kind: TabKind,
    pub cancel: &'a CancellationToken,
    /// Where transfer progress goes (the engine turns it into `TransferProgress` events).
    pub transfers: Option<TransferReporter>,
    /// Where show_view's whole view goes (the engine turns it into `ViewShown`).
    pub views: Option<ViewReporter>,
}

/// A call made ready to decide on: the facts the policy needs, what the user sees in an
/// approval, and the action to run if allowed. Preparing may read (e.g. the file a diff is made
/// against) but never changes anything.
pub struct Prepared {
    pub facts: CallFacts,
    pub preview: Option<ApprovalPreview>,
    pub action: Action,
}

/// What runs once a call is allowed.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    RunCommand(RunCommandParams),
    /// send_input, with the keys already typed at a shell prompt (see [`terminal`]).
    SendInput(Box<terminal::PlannedInput>),
    ReadScreen(ReadScreenParams),
    /// show_view with its parameters checked.
    #[cfg(feature = "show-view")]
    ShowView(crate::views::ViewRequest),
    /// Answered by the user through the engine, not by a tool module.
    AskUser(AskUserParams),
    ReadFile(ReadFileParams),
    /// edit_file or write_file, with the content and the state it was checked against.
    WriteFile(Box<PlannedWrite>),
    ListDir(ListDirParams),
    FindFiles(FindFilesParams),
    SearchFiles(SearchFilesParams),
    FolderReport(FolderReportParams),
    /// Plan bookkeeping, done by the engine's [`crate::plan::PlanBook`].
    #[cfg(feature = "plan")]
    ProposePlan(ProposePlanParams),
    #[cfg(feature = "plan")]
    UpdatePlan(UpdatePlanParams),
    /// make_dir, rename, delete, upload, download, execute_plan, checked against what exists.
    StorageOps(Box<PlannedOps>),
}

/// Prepare a parsed call (see [`Prepared`]). An error is a message for the model.
pub async fn prepare(request: ToolRequest, context: &ToolContext<'_>) -> Result<Prepared, String> {
    Ok(match request {
        ToolRequest::RunCommand(params) => terminal::prepare_run_command(params),
        ToolRequest::SendInput(params) => terminal::prepare_send_input(params, context).await?,
        ToolRequest::ReadScreen(params) => terminal::prepare_read_screen(params),
        #[cfg(feature = "show-view")]
        ToolRequest::ShowView(params) => view::prepare_show_view(params)?,
        ToolRequest::AskUser(params) => Prepared {
            facts: CallFacts::Interaction,
            preview: None,
            action: Action::AskUser(params),
        },
        ToolRequest::ReadFile(params) => files::prepare_read_file(params)?,
        #[cfg(feature = "edit-file")]
        ToolRequest::EditFile(params) => files::prepare_edit_file(params, context).await?,
        ToolRequest::WriteFile(params) => files::prepare_write_file(params, context).await?,
        ToolRequest::ListDir(params) => {
            let path = params.path.clone();
            files::prepare_listing(Action::ListDir(params), &path, ToolName::ListDir)?
        }
        ToolRequest::FindFiles(params) => {
            let path = params.path.clone();
            files::prepare_listing(Action::FindFiles(params), &path, ToolName::FindFiles)?
        }
        ToolRequest::SearchFiles(params) => {
            let path = params.path.clone();
            files::prepare_listing(Action::SearchFiles(params), &path, ToolName::SearchFiles)?
        }
        ToolRequest::FolderReport(params) => {
            let path = params.path.clone();
            files::prepare_listing(Action::FolderReport(params), &path, ToolName::FolderReport)?
        }
        #[cfg(feature = "plan")]
        ToolRequest::ProposePlan(params) => Prepared {
            facts: CallFacts::ProposePlan {
                steps: params.steps.len(),
            },
            preview: Some(ApprovalPreview::Operations {
                lines: params
                    .steps
                    .iter()
                    .enumerate()
                    .map(|(index, step)| format!("{}. {}", index + 1, step.title))
                    .collect(),
            }),
            action: Action::ProposePlan(params),
        },
        #[cfg(feature = "plan")]
        ToolRequest::UpdatePlan(params) => Prepared {
            facts: match &params.add {
                Some(step) => CallFacts::PlanStepAdded {
                    title: step.title.clone(),
                },
                None => CallFacts::Plan,
            },
            preview: params.add.as_ref().map(|step| ApprovalPreview::Text {
                text: match &step.detail {
                    Some(detail) => format!("{}\n{detail}", step.title),
                    None => step.title.clone(),
                },
            }),
            action: Action::UpdatePlan(params),
        },
        ToolRequest::MakeDir(params) => {
            let op = PlanOp::MakeDir {
                path: params.path,
                side: params.side,
            };
            storage::prepare_one(ToolName::MakeDir, op, context).await?
        }
        ToolRequest::Rename(params) => {
            let op = PlanOp::Rename {
                from: params.from,
                to: params.to,
                side: params.side,
            };
            storage::prepare_one(ToolName::Rename, op, context).await?
        }
        ToolRequest::Delete(params) => {
            let op = PlanOp::Delete {
                path: params.path,
                side: params.side,
                recursive: params.recursive,
            };
            storage::prepare_one(ToolName::Delete, op, context).await?
        }
        ToolRequest::Upload(params) => {
            let op = PlanOp::Upload {
                local_path: params.local_path,
                remote_dir: params.remote_dir,
            };
            storage::prepare_one(ToolName::Upload, op, context).await?
        }
        ToolRequest::Download(params) => {
            let op = PlanOp::Download {
                remote_path: params.remote_path,
                local_dir: params.local_dir,
            };
            storage::prepare_one(ToolName::Download, op, context).await?
        }
        ToolRequest::ExecutePlan(params) => storage::prepare_plan(params, context).await?,
    })
}

/// Undo what preparing `action` did when it will not run (denied, refused by the user,
/// cancelled): send_input's keys typed at a shell prompt are taken back. Nothing else prepares
/// with an effect.
pub async fn abandon(action: &Action, context: &ToolContext<'_>) {
    if let Action::SendInput(planned) = action {
        terminal::abandon_send_input(planned, context).await;
    }
}

/// Run an allowed action. The result is the tool's result object; an error is a message for the
/// model.
pub async fn execute(action: Action, context: &ToolContext<'_>) -> Result<Value, String> {
    match action {
        Action::RunCommand(params) => terminal::run_command(params, context).await,
        Action::SendInput(planned) => terminal::send_input(*planned, context).await,
        Action::ReadScreen(params) => terminal::read_screen(params, context).await,
        #[cfg(feature = "show-view")]
        Action::ShowView(request) => view::show_view(request, context).await,
        Action::AskUser(_) => Err("ask_user is answered by the user, not executed".to_owned()),
        Action::ReadFile(params) => files::read_file(params, context).await,
        Action::WriteFile(plan) => files::write(*plan, context).await,
        Action::ListDir(params) => files::list_dir(params, context).await,
        Action::FindFiles(params) => files::find_files(params, context).await,
        Action::SearchFiles(params) => files::search_files(params, context).await,
        Action::FolderReport(params) => files::folder_report(params, context).await,
        #[cfg(feature = "plan")]
        Action::ProposePlan(_) | Action::UpdatePlan(_) => {
            Err("plan calls are kept by the engine's plan book, not executed".to_owned())
        }
        Action::StorageOps(plan) => storage::execute(*plan, context).await,
    }
}

fn to_value(result: &impl serde::Serialize) -> Result<Value, String> {
    serde_json::to_value(result).map_err(|error| format!("could not encode the result: {error}"))
}

/// Maximum ask_user options.
pub const MAX_QUESTION_OPTIONS: usize = 5;
/// Maximum read_screen wait.
pub const MAX_READ_SCREEN_WAIT_S: u32 = 120;

/// Parse `args` for `name`; the error is a message for the model.
pub fn parse_request(name: ToolName, args: Value) -> Result<ToolRequest, String> {
    // No path, name or command line can hold a NUL byte; SFTP would cut the request short and
    // the terminal would read it as a key. Only send_input types raw keys (Ctrl-@ is one).
    if name != ToolName::SendInput
        && let Some(field) = nul_field(&args, "")
    {
        return Err(format!(
            "{name}: `{field}` contains a NUL byte (\\u0000), which no file name, path or command \
             line can hold; remove it and retry"
        ));
    }
    let request = match name {
        ToolName::RunCommand => {
            let params: RunCommandParams = parse(name, args)?;
            if params.command.trim().is_empty() {
                return Err(
                    "run_command: `command` is empty; give the command line to type".to_owned(),
                );
            }
            if let Some(timeout) = params.timeout_s
                && !(1..=kaiport_protocol::MAX_COMMAND_TIMEOUT_S).contains(&timeout)
            {
                return Err(format!(
                    "run_command: timeout_s must be from 1 to {}, not {timeout}",
                    kaiport_protocol::MAX_COMMAND_TIMEOUT_S
                ));
            }
            ToolRequest::RunCommand(params)
        }
        ToolName::SendInput => {
            let params: SendInputParams = parse(name, args)?;
            if params.text.as_deref().is_none_or(str::is_empty) && params.key.is_none() {
                return Err("send_input: give `text`, `key`, or both".to_owned());
            }
            ToolRequest::SendInput(params)
        }
        ToolName::ReadScreen => {
            let params: ReadScreenParams = parse(name, args)?;
            if let Some(wait) = params.wait_seconds
                && wait > MAX_READ_SCREEN_WAIT_S
            {
                return Err(format!(
                    "read_screen: wait_seconds must be from 0 to {MAX_READ_SCREEN_WAIT_S}, not {wait}"
                ));
            }
            ToolRequest::ReadScreen(params)
        }
        ToolName::AskUser => {
            let params: AskUserParams = parse(name, args)?;
            if params.question.trim().is_empty() {
                return Err("ask_user: `question` is empty".to_owned());
            }
            if params.options.len() > MAX_QUESTION_OPTIONS {
                return Err(format!(
                    "ask_user: at most {MAX_QUESTION_OPTIONS} options, not {}; the user can always type their own answer",
                    params.options.len()
                ));
            }
            ToolRequest::AskUser(params)
        }
        #[cfg(feature = "show-view")]
        ToolName::ShowView => ToolRequest::ShowView(parse(name, args)?),
        ToolName::ReadFile => ToolRequest::ReadFile(parse(name, args)?),
        #[cfg(feature = "edit-file")]
        ToolName::EditFile => ToolRequest::EditFile(parse(name, args)?),
        ToolName::WriteFile => ToolRequest::WriteFile(parse(name, args)?),
        ToolName::ListDir => ToolRequest::ListDir(parse(name, args)?),
        ToolName::FindFiles => ToolRequest::FindFiles(parse(name, args)?),
        ToolName::SearchFiles => ToolRequest::SearchFiles(parse(name, args)?),
        ToolName::FolderReport => ToolRequest::FolderReport(parse(name, args)?),
        #[cfg(feature = "plan")]
        ToolName::ProposePlan => {
            let params: ProposePlanParams = parse(name, args)?;
            crate::plan::validate_proposal(&params)?;
            ToolRequest::ProposePlan(params)
        }
        #[cfg(feature = "plan")]
        ToolName::UpdatePlan => {
            let params: UpdatePlanParams = parse(name, args)?;
            crate::plan::validate_update(&params)?;
            ToolRequest::UpdatePlan(params)
        }
        ToolName::MakeDir => ToolRequest::MakeDir(parse(name, args)?),
        ToolName::Rename => ToolRequest::Rename(parse(name, args)?),
        ToolName::Delete => ToolRequest::Delete(parse(name, args)?),
        ToolName::Upload => ToolRequest::Upload(parse(name, args)?),
        ToolName::Download => ToolRequest::Download(parse(name, args)?),
        ToolName::ExecutePlan => ToolRequest::ExecutePlan(parse(name, args)?),
        // Reached by the tools a build leaves out (mobile: edit_file, show_view, the plan).
        #[allow(unreachable_patterns)]
        other => {
            return Err(format!(
                "{other} is not available in this version of kaiport yet"
            ));
        }
    };
    Ok(request)
}

/// The first argument (as a dotted path) whose text holds a NUL byte.
fn nul_field(value: &Value, at: &str) -> Option<String> {
    let name = |key: &str| match at {
        "" => key.to_owned(),
        _ => format!("{at}.{key}"),
    };
    match value {
        Value::String(text) if text.contains('\0') => Some(at.to_owned()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(index, item)| nul_field(item, &format!("{at}[{index}]"))),
        Value::Object(fields) => fields.iter().find_map(|(key, item)| {
            if key.contains('\0') {
                Some(name(key))
            } else {
                nul_field(item, &name(key))
            }
        }),
        _ => None,
    }
}

fn parse<T: DeserializeOwned>(name: ToolName, args: Value) -> Result<T, String> {
    let args = match args {
        // Some models send no arguments at all for parameterless calls.
        Value::Null => json!({}),
        other => other,
    };
    if !args.is_object() {
        return Err(format!(
            "{name}: arguments must be a JSON object, not {}",
            json_kind(&args)
        ));
    }
    serde_json::from_value(args).map_err(|error| format!("{name}: invalid arguments: {error}"))
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn nul_bytes_are_refused_before_anything_runs() {
        for (tool, args, field) in [
            (ToolName::ReadFile, json!({"path": "/tmp/a\u{0}b"}), "path"),
            (
                ToolName::RunCommand,
                json!({"command": "r\u{0}m x"}),
                "command",
            ),
            (
                ToolName::ListDir,
                json!({"path": "/tmp", "side": "remote", "x": ["ok", "n\u{0}"]}),
                "x[1]",
            ),
        ] {
            let error = parse_request(tool, args).map(|_| ()).unwrap_err();
            assert!(
                error.contains(&format!("`{field}` contains a NUL byte")),
                "{error}"
            );
        }
        // send_input types keys: Ctrl-@ is NUL.
        assert!(parse_request(ToolName::SendInput, json!({"text": "\u{0}"})).is_ok());
    }

    #[test]
    fn registry_follows_features() {
        let names: Vec<ToolName> = registry().iter().map(|spec| spec.name).collect();
        assert_eq!(
            names.contains(&ToolName::EditFile),
            cfg!(feature = "edit-file")
        );
        assert_eq!(
            names.contains(&ToolName::ShowView),
            cfg!(feature = "show-view")
        );
        assert_eq!(
            names.contains(&ToolName::ProposePlan),
            cfg!(feature = "plan")
        );
        assert_eq!(
            names.contains(&ToolName::UpdatePlan),
            cfg!(feature = "plan")
        );
        assert!(names.contains(&ToolName::RunCommand));
        assert!(names.contains(&ToolName::AskUser));
    }

    #[test]
    fn bad_arguments_become_messages() {
        assert_eq!(
            parse_request(ToolName::RunCommand, json!({})).unwrap_err(),
            "run_command: invalid arguments: missing field `command`"
        );
        assert!(
            parse_request(
                ToolName::RunCommand,
                json!({"command": "ls", "timout_s": 5})
            )
            .unwrap_err()
            .contains("unknown field `timout_s`")
        );
        assert_eq!(
            parse_request(
                ToolName::RunCommand,
                json!({"command": "ls", "timeout_s": 601})
            )
            .unwrap_err(),
            "run_command: timeout_s must be from 1 to 600, not 601"
        );
        assert_eq!(
            parse_request(ToolName::RunCommand, json!("ls")).unwrap_err(),
            "run_command: arguments must be a JSON object, not a string"
        );
        assert!(parse_request(ToolName::SendInput, json!({"key": "ctrl-q"})).is_ok());
        assert!(
            parse_request(ToolName::SendInput, json!({"key": "ctrl-shift-q"}))
                .unwrap_err()
                .contains("unknown variant")
        );
        assert!(parse_request(ToolName::ReadScreen, Value::Null).is_ok());
        assert!(
            parse_request(
                ToolName::AskUser,
                json!({"question": "q", "options": ["1","2","3","4","5","6"]})
            )
            .is_err()
        );
    }
}
