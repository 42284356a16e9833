//! `kaiport policy check` and the policy corpus: decide a command or a tool call under given
//! rules without a connection, through the same [`decide`] the engine uses.
//!
//! A tool call's facts are derived from its arguments alone ([`facts_for_tool`]); where the
//! engine would look at the server first (does the file exist?), this assumes the stricter
//! answer: write_file replaces an existing file, rename lands on an existing name, uploads
//! replace a file. It never assumes the lenient one.

use super::{CallFacts, ChangeKind, Decision, FileChange, PolicyContext, decide};
use kaiport_protocol::tools::*;
use kaiport_protocol::{ConnectionSettings, Mode, TabKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One request: rules, mode, and either a command line or a tool call.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {
    #[serde(default)]
    pub forbidden: Vec<String>,
    #[serde(default)]
    pub allowed: Vec<String>,
    #[serde(default)]
    pub dangerous: Vec<String>,
    #[serde(default)]
    pub mode: Mode,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub tool: Option<String>,
    #[serde(default)]
    pub args: Option<Value>,
    /// `terminal` (default) or `storage`.
    #[serde(default)]
    pub tab: Option<TabKind>,
    #[serde(default)]
    pub send_file_contents: bool,
}

/// The answer: one JSON line per request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckAnswer {
    /// `allow`, `ask` or `deny`.
    pub decision: String,
    pub reasons: Vec<String>,
    /// Ask only: the approval is marked dangerous (never answered by autopilot).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dangerous: bool,
}

impl CheckAnswer {
    fn from_decision(decision: Decision) -> Self {
        match decision {
            Decision::Allow { reasons, .. } => CheckAnswer {
                decision: "allow".to_owned(),
                reasons,
                dangerous: false,
            },
            Decision::Ask { reasons, dangerous } => CheckAnswer {
                decision: "ask".to_owned(),
                reasons,
                dangerous,
            },
            Decision::Deny { reason } => CheckAnswer {
                decision: "deny".to_owned(),
                reasons: vec![reason],
                dangerous: false,
            },
        }
    }
}

/// Decide one request. An error is a request that cannot be decided (no command or tool, bad
/// tool arguments), with a message for the user.
pub fn check(request: &CheckRequest) -> Result<CheckAnswer, String> {
    let settings = ConnectionSettings {
        forbidden_commands: request.forbidden.clone(),
        allowed_commands: request.allowed.clone(),
        extra_dangerous_commands: request.dangerous.clone(),
        send_file_contents: request.send_file_contents,
        ..ConnectionSettings::default()
    };
    let facts = match (&request.command, &request.tool) {
        (Some(command), None) => CallFacts::Command {
            line: command.clone(),
        },
        (None, Some(tool)) => facts_for_tool(tool, request.args.clone().unwrap_or(Value::Null))?,
        (Some(_), Some(_)) => {
            return Err("give either \"command\" or \"tool\" with \"args\", not both".to_owned());
        }
        (None, None) => return Err("give \"command\", or \"tool\" with \"args\"".to_owned()),
    };
    let context = PolicyContext::new(
        request.mode,
        &settings,
        request.tab.unwrap_or(TabKind::Terminal),
    );
    Ok(CheckAnswer::from_decision(decide(&facts, context)))
}

fn parse<T: serde::de::DeserializeOwned>(tool: &str, args: Value) -> Result<T, String> {
    let args = if args.is_null() {
        Value::Object(Default::default())
    } else {
        args
    };
    serde_json::from_value(args).map_err(|error| format!("{tool}: invalid arguments: {error}"))
}

fn change(path: String, side: Option<Side>, kind: ChangeKind) -> FileChange {
    FileChange {
        path,
        side: side.unwrap_or_default(),
        kind,
        resolved: None,
    }
}

/// The facts of a tool call from its arguments alone (see the module docs).
pub fn facts_for_tool(tool: &str, args: Value) -> Result<CallFacts, String> {
    let Some(name) = ToolName::ALL
        .iter()
        .copied()
        .find(|name| name.as_str() == tool)
    else {
        return Err(format!("unknown tool {tool:?}"));
    };
    let changes = |changes: Vec<FileChange>| CallFacts::Changes { changes };
    Ok(match name {
        ToolName::RunCommand => {
            let params: RunCommandParams = parse(tool, args)?;
            CallFacts::Command {
                line: params.command,
            }
        }
        ToolName::SendInput => {
            let params: SendInputParams = parse(tool, args)?;
            CallFacts::TerminalInput {
                text: params.text.unwrap_or_default(),
            }
        }
        ToolName::ReadScreen
        | ToolName::ShowView
        | ToolName::ListDir
        | ToolName::FindFiles
        | ToolName::FolderReport => CallFacts::Read { contents: false },
        ToolName::ReadFile | ToolName::SearchFiles => CallFacts::Read { contents: true },
        ToolName::AskUser => CallFacts::Interaction,
        ToolName::ProposePlan => {
            let params: ProposePlanParams = parse(tool, args)?;
            CallFacts::ProposePlan {
                steps: params.steps.len(),
            }
        }
        ToolName::UpdatePlan => {
            let params: UpdatePlanParams = parse(tool, args)?;
            match params.add {
                Some(step) => CallFacts::PlanStepAdded { title: step.title },
                None => CallFacts::Plan,
            }
        }
        ToolName::EditFile => {
            let params: EditFileParams = parse(tool, args)?;
            changes(vec![change(params.path, params.side, ChangeKind::Edit)])
        }
        ToolName::WriteFile => {
            let params: WriteFileParams = parse(tool, args)?;
            changes(vec![change(params.path, params.side, ChangeKind::Replace)])
        }
        ToolName::MakeDir => {
            let params: MakeDirParams = parse(tool, args)?;
            changes(vec![change(params.path, params.side, ChangeKind::MakeDir)])
        }
        ToolName::Rename => {
            let params: RenameParams = parse(tool, args)?;
            changes(vec![change(
                params.from,
                params.side,
                ChangeKind::Rename {
                    to: params.to,
                    target_exists: true,
                },
            )])
        }
        ToolName::Delete => {
            let params: DeleteParams = parse(tool, args)?;
            changes(vec![change(
                params.path,
                params.side,
                ChangeKind::Delete {
                    recursive: params.recursive.unwrap_or(false),
                },
            )])
        }
        ToolName::Upload => {
            let params: UploadParams = parse(tool, args)?;
            changes(vec![change(
                params.remote_dir,
                Some(Side::Remote),
                ChangeKind::Transfer {
                    replaces_existing: true,
                },
            )])
        }
        ToolName::Download => {
            let params: DownloadParams = parse(tool, args)?;
            changes(vec![change(
                params.local_dir,
                Some(Side::Local),
                ChangeKind::Transfer {
                    replaces_existing: true,
                },
            )])
        }
        ToolName::ExecutePlan => {
            let params: ExecutePlanParams = parse(tool, args)?;
            let mut list = Vec::new();
            for op in params.ops {
                let op: PlanOp = serde_json::from_value(op)
                    .map_err(|error| format!("execute_plan: invalid operation: {error}"))?;
                list.push(match op {
                    PlanOp::MakeDir { path, side } => change(path, side, ChangeKind::MakeDir),
                    PlanOp::Rename { from, to, side } => change(
                        from,
                        side,
                        ChangeKind::Rename {
                            to,
                            target_exists: true,
                        },
                    ),
                    PlanOp::Delete {
                        path,
                        side,
                        recursive,
                    } => change(
                        path,
                        side,
                        ChangeKind::Delete {
                            recursive: recursive.unwrap_or(false),
                        },
                    ),
                    PlanOp::Upload { remote_dir, .. } => change(
                        remote_dir,
                        Some(Side::Remote),
                        ChangeKind::Transfer {
                            replaces_existing: true,
                        },
                    ),
                    PlanOp::Download { local_dir, .. } => change(
                        local_dir,
                        Some(Side::Local),
                        ChangeKind::Transfer {
                            replaces_existing: true,
                        },
                    ),
                });
            }
            changes(list)
        }
    })
}
