//! The tools of this build, one file each (each implements [`tool::Tool`]: its name,
//! description, tabs, arguments and their checks, the facts the policy decides on, and how it is
//! prepared), and the typed form of one call.
//!
//! The registry is built in one place from Cargo features: mobile builds compile without
//! `edit-file`, `show-view`, `plan`, `run-on-hosts` and `open-forward`, and those tools are then
//! absent from the schemas, not merely refused. Arguments are parsed into the protocol's parameter types; a bad argument is
//! the model's to fix, so it becomes a precise message, never a panic.

mod ask_user;
mod files;
pub mod links;
#[cfg(feature = "open-forward")]
mod open_forward;
#[cfg(feature = "plan")]
mod propose_plan;
#[cfg(feature = "run-on-hosts")]
pub mod run_on_hosts;
#[cfg(feature = "show-view")]
mod show_view;
mod storage;
mod terminal;
mod tool;
#[cfg(feature = "plan")]
mod update_plan;

pub use ask_user::MAX_QUESTION_OPTIONS;
pub use files::{PlannedWrite, TabFiles, folder_report_on, search_files_on};
#[cfg(feature = "plan")]
pub use propose_plan::MAX_PLAN_STEPS;
pub use storage::{CheckedOp, MAX_PLAN_OPS, PlannedOps, walk_tree};
pub use terminal::read_screen::MAX_READ_SCREEN_WAIT_S;
pub use tool::AnyTool;

/// Receives the progress of a call's file transfers: the file being written, and where it is.
pub type TransferReporter =
    std::sync::Arc<dyn Fn(&str, crate::storage::transfer::Progress) + Send + Sync>;

/// Receives the whole view of a show_view call (the engine turns it into `ViewShown`).
pub type ViewReporter = std::sync::Arc<dyn Fn(kaiport_protocol::ViewReport) + Send + Sync>;

/// Asks the user for the sudo password of the tab's server, to read or change the given path as
/// root; `None` when they did not give it. The answer goes to sudo's standard input only.
pub type SudoPasswordAsker = std::sync::Arc<
    dyn Fn(String) -> futures::future::BoxFuture<'static, Option<zeroize::Zeroizing<String>>>
        + Send
        + Sync,
>;

use crate::policy::CallFacts;
use crate::ssh::SshSession;
use crate::terminal::Terminal;
use kaiport_protocol::tools::*;
use kaiport_protocol::{ApprovalPreview, ConnectionSettings, TabKind};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tool::Registered;

/// One tool as this build offers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSpec {
    pub name: ToolName,
    /// What the model is told the tool does.
    pub description: &'static str,
    /// The kinds of tab the tool works in.
    pub tab_kinds: &'static [TabKind],
}

/// The tools of this build, in a stable order.
fn tools() -> Vec<&'static dyn AnyTool> {
    let mut tools: Vec<&'static dyn AnyTool> = vec![
        &Registered::<terminal::run_command::RunCommand>::TOOL,
        &Registered::<terminal::send_input::SendInput>::TOOL,
        &Registered::<terminal::read_screen::ReadScreen>::TOOL,
    ];
    #[cfg(feature = "show-view")]
    tools.push(&Registered::<show_view::ShowView>::TOOL);
    #[cfg(feature = "plan")]
    tools.extend([
        &Registered::<propose_plan::ProposePlan>::TOOL as &dyn AnyTool,
        &Registered::<update_plan::UpdatePlan>::TOOL,
    ]);
    tools.push(&Registered::<files::read_file::ReadFile>::TOOL);
    #[cfg(feature = "edit-file")]
    tools.push(&Registered::<files::edit_file::EditFile>::TOOL);
    tools.extend([
        &Registered::<files::write_file::WriteFile>::TOOL as &dyn AnyTool,
        &Registered::<files::list_dir::ListDir>::TOOL,
        &Registered::<files::find_files::FindFiles>::TOOL,
        &Registered::<files::search_files::SearchFiles>::TOOL,
        &Registered::<files::folder_report::FolderReport>::TOOL,
        &Registered::<storage::make_dir::MakeDir>::TOOL,
        &Registered::<storage::rename::Rename>::TOOL,
        &Registered::<storage::delete::Delete>::TOOL,
        &Registered::<storage::upload::Upload>::TOOL,
        &Registered::<storage::download::Download>::TOOL,
        &Registered::<storage::execute_plan::ExecutePlan>::TOOL,
        &Registered::<files::changes::ListChanges>::TOOL,
        &Registered::<files::changes::UndoChange>::TOOL,
        &Registered::<ask_user::AskUser>::TOOL,
    ]);
    #[cfg(feature = "run-on-hosts")]
    tools.push(&Registered::<run_on_hosts::RunOnHosts>::TOOL);
    #[cfg(feature = "open-forward")]
    tools.push(&Registered::<open_forward::OpenForward>::TOOL);
    tools
}

/// The tools of this build, in a stable order.
pub fn registry() -> Vec<ToolSpec> {
    tools()
        .into_iter()
        .map(|tool| ToolSpec {
            name: tool.name(),
            description: tool.description(),
            tab_kinds: tool.tabs(),
        })
        .collect()
}

/// The spec of `name` in this build.
pub fn find(name: &str) -> Option<ToolSpec> {
    registry()
        .into_iter()
        .find(|spec| spec.name.as_str() == name)
}

/// The tool `name` of this build.
pub fn lookup(name: &str) -> Option<&'static dyn AnyTool> {
    tools()
        .into_iter()
        .find(|tool| tool.name().as_str() == name)
}

/// The facts of a call from its arguments alone, with the stricter answer to every question the
/// engine would ask the server (the target exists, links are not followed): what
/// `kaiport policy check` decides on, from the same [`tool::Tool::facts`] the engine uses.
pub fn facts_unseen(name: &str, args: Value) -> Result<CallFacts, String> {
    match lookup(name) {
        Some(tool) => tool.facts_unseen(args),
        None => match ToolName::ALL.iter().find(|known| known.as_str() == name) {
            Some(known) => Err(format!("{known} is not part of this build of kaiport")),
            None => Err(format!("unknown tool {name:?}")),
        },
    }
}

/// `kaiport policy check`: decides a command line or a tool call under given rules, through the
/// engine's own facts ([`facts_unseen`]) and `policy::decide`.
pub fn policy_check(
    request: &crate::policy::check::CheckRequest,
) -> Result<crate::policy::check::CheckAnswer, String> {
    crate::policy::check::check(request, facts_unseen)
}

/// A tool as `kaiport tools --json` and the model see it.
pub fn spec_json(spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name.as_str(),
        "description": spec.description,
        "input_schema": parameters_schema(spec.name),
        "tabs": spec.tab_kinds,
    })
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
    /// Storage tabs: this computer, confined to the folders the user opened for the tab; SSH
    /// tabs: the home folder, for the file pane's transfers (the user's calls only).
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
                "side \"local\" exists only in storage tabs and SSH tabs' file panes (the user's \
                 own computer)"
                    .to_owned()
            }),
        }
    }
}

/// Everything one call may use.
pub struct ToolContext<'a> {
    pub resources: &'a TabResources,
    pub settings: &'a ConnectionSettings,
    pub tab_kind: TabKind,
    /// The call is the user's own (a file pane's, `kaiport tool`), not Pilot's: a listing is
    /// whole for a person, capped for the model's context (`files::walk::list_limit`).
    pub by_user: bool,
    pub cancel: &'a CancellationToken,
    /// Where transfer progress goes (the engine turns it into `TransferProgress` events).
    pub transfers: Option<TransferReporter>,
    /// Where show_view's whole view goes (the engine turns it into `ViewShown`).
    pub views: Option<ViewReporter>,
    /// Who gives the sudo password when a sudo read or write needs one (`None`: nobody can).
    pub sudo_password: Option<SudoPasswordAsker>,
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
    ListChanges(ListChangesParams),
    /// undo_change, with the change's record and the file as the diff saw it.
    UndoChange(Box<files::changes::PlannedUndo>),
    /// Run by the engine's fleet runs, each host judged by its own rules.
    #[cfg(feature = "run-on-hosts")]
    RunOnHosts(RunOnHostsParams),
    /// Opened by the engine, as the user's own forwards are (`engine/forwards.rs`).
    #[cfg(feature = "open-forward")]
    OpenForward(kaiport_protocol::ForwardSpec),
}

/// Whether only a person may approve `action`, never a standing instruction (`--yes`): a port
/// forward keeps listening after the call, so someone must have seen it.
pub fn needs_a_person(action: &Action) -> bool {
    #[cfg(feature = "open-forward")]
    if matches!(action, Action::OpenForward(_)) {
        return true;
    }
    let _ = action;
    false
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
        Action::RunCommand(params) => terminal::run_command::execute(params, context).await,
        Action::SendInput(planned) => terminal::send_input::execute(*planned, context).await,
        Action::ReadScreen(params) => terminal::read_screen::execute(params, context).await,
        #[cfg(feature = "show-view")]
        Action::ShowView(request) => show_view::execute(request, context).await,
        Action::AskUser(_) => Err("ask_user is answered by the user, not executed".to_owned()),
        Action::ReadFile(params) => files::read_file::execute(params, context).await,
        Action::WriteFile(plan) => files::write(*plan, context).await,
        Action::ListDir(params) => files::list_dir::execute(params, context).await,
        Action::FindFiles(params) => files::find_files::execute(params, context).await,
        Action::SearchFiles(params) => files::search_files::execute(params, context).await,
        Action::FolderReport(params) => files::folder_report::execute(params, context).await,
        #[cfg(feature = "plan")]
        Action::ProposePlan(_) | Action::UpdatePlan(_) => {
            Err("plan calls are kept by the engine's plan book, not executed".to_owned())
        }
        Action::StorageOps(plan) => storage::execute(*plan, context).await,
        Action::ListChanges(params) => files::changes::list(params, context).await,
        Action::UndoChange(plan) => files::changes::undo(*plan, context).await,
        #[cfg(feature = "run-on-hosts")]
        Action::RunOnHosts(_) => {
            Err("run_on_hosts is run by the engine's fleet runs, not executed here".to_owned())
        }
        #[cfg(feature = "open-forward")]
        Action::OpenForward(_) => {
            Err("open_forward is opened by the engine's forwards, not executed here".to_owned())
        }
    }
}

fn to_value(result: &impl serde::Serialize) -> Result<Value, String> {
    serde_json::to_value(result).map_err(|error| format!("could not encode the result: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// Parses and checks `args` as the engine does before it prepares a call.
    fn parse_request(tool: ToolName, args: Value) -> Result<(), String> {
        lookup(tool.as_str())
            .ok_or_else(|| format!("{tool} is not in this build"))?
            .check_args(&args)
    }

    #[cfg(feature = "plan")]
    #[test]
    fn plan_arguments_are_checked() {
        let steps = |count: usize| -> Vec<Value> {
            (1..=count)
                .map(|i| json!({"title": format!("step {i}"), "kind": "command"}))
                .collect()
        };
        let proposal = |count: usize| json!({"title": "Fix nginx", "findings": "config error", "steps": steps(count)});
        assert!(parse_request(ToolName::ProposePlan, proposal(30)).is_ok());
        assert_eq!(
            parse_request(ToolName::ProposePlan, proposal(31)).unwrap_err(),
            "propose_plan: at most 30 steps, not 31; merge small steps"
        );
        assert!(parse_request(ToolName::ProposePlan, proposal(0)).is_err());
        let update = |args: Value| parse_request(ToolName::UpdatePlan, args);
        assert!(update(json!({"step": 1, "status": "done", "note": "n"})).is_ok());
        assert!(update(json!({"add": {"title": "x", "kind": "command"}})).is_ok());
        assert!(
            update(json!({"step": 1, "status": "done", "add": {"title": "x", "kind": "command"}}))
                .is_err()
        );
        assert!(update(json!({"step": 0, "status": "done"})).is_err());
        assert!(update(json!({"note": "n"})).is_err());
    }

    #[test]
    fn unseen_facts_take_the_stricter_answer() {
        let facts = facts_unseen(
            "upload",
            json!({"local_path": "/home/u/site.tar", "remote_dir": "/backups"}),
        )
        .unwrap();
        let CallFacts::Changes { changes } = facts else {
            panic!("{facts:?}")
        };
        assert_eq!(changes[0].path, "/backups/site.tar");
        assert_eq!(
            changes[0].kind,
            crate::policy::ChangeKind::Transfer {
                replaces_existing: true
            }
        );
        let facts =
            facts_unseen("write_file", json!({"path": "/etc/motd", "content": "hi"})).unwrap();
        assert!(
            matches!(&facts, CallFacts::Changes { changes } if changes[0].kind == crate::policy::ChangeKind::Replace),
            "{facts:?}"
        );
        assert_eq!(
            facts_unseen("no_such_tool", Value::Null).unwrap_err(),
            "unknown tool \"no_such_tool\""
        );
    }

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
        assert_eq!(
            names.contains(&ToolName::RunOnHosts),
            cfg!(feature = "run-on-hosts")
        );
        assert_eq!(
            names.contains(&ToolName::OpenForward),
            cfg!(feature = "open-forward")
        );
        assert!(names.contains(&ToolName::RunCommand));
        assert!(names.contains(&ToolName::AskUser));
    }

    /// Phones (built without `open-forward`) offer no open_forward at all: not in the
    /// registry, so not in the schemas the model gets; the user alone opens forwards there.
    #[test]
    fn open_forward_is_in_the_desktop_registry_only() {
        let offered = registry()
            .iter()
            .any(|spec| spec.name == ToolName::OpenForward);
        assert_eq!(offered, cfg!(feature = "open-forward"));
        let unseen = facts_unseen("open_forward", json!({"forward": "-D 1080"}));
        if cfg!(feature = "open-forward") {
            assert!(unseen.is_ok(), "{unseen:?}");
            let spec = find("open_forward").unwrap();
            assert_eq!(spec.tab_kinds, &[TabKind::Terminal]);
            assert!(lookup("open_forward").unwrap().always_asks());
        } else {
            assert_eq!(
                unseen.unwrap_err(),
                "open_forward is not part of this build of kaiport"
            );
            assert!(lookup("open_forward").is_none());
        }
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
