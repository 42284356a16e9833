//! `kaiport policy check` and the policy corpus: decide a command or a tool call under given
//! rules without a connection, through the same [`decide`] the engine uses.
//!
//! A tool call's facts come from the caller (`tools::facts_unseen`: each tool's own facts, with
//! the stricter answer wherever the engine would look at the server first — write_file replaces
//! an existing file, rename lands on an existing name, uploads replace a file). This module never
//! derives a tool's facts itself.

use super::{CallFacts, Decision, PolicyContext, decide};
use kaiport_protocol::{ConnectionSettings, Mode, Risk, TabKind};
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
    /// Ask only: the approval is marked dangerous or lock-out (never answered by autopilot).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dangerous: bool,
    /// Ask only: what is at stake (`routine`, `dangerous`, `lockout`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
}

impl CheckAnswer {
    fn from_decision(decision: Decision) -> Self {
        match decision {
            Decision::Allow { reasons, .. } => CheckAnswer {
                decision: "allow".to_owned(),
                reasons,
                dangerous: false,
                risk: None,
            },
            Decision::Ask { reasons, risk } => CheckAnswer {
                decision: "ask".to_owned(),
                reasons,
                dangerous: risk.is_dangerous(),
                risk: Some(risk),
            },
            Decision::Deny { reason } => CheckAnswer {
                decision: "deny".to_owned(),
                reasons: vec![reason],
                dangerous: false,
                risk: None,
            },
        }
    }
}

/// Decide one request; `facts_of_tool` gives a tool call's facts from its name and arguments.
/// An error is a request that cannot be decided (no command or tool, bad tool arguments), with
/// a message for the user.
pub fn check(
    request: &CheckRequest,
    facts_of_tool: impl Fn(&str, Value) -> Result<CallFacts, String>,
) -> Result<CheckAnswer, String> {
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
        (None, Some(tool)) => facts_of_tool(tool, request.args.clone().unwrap_or(Value::Null))?,
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
    let mut decision = decide(&facts, context);
    // A storage tab's local side is this computer, the one `kaiport policy check` runs on.
    if let CallFacts::Changes { changes } = &facts {
        let here = super::this_computer::ThisComputer::from_env();
        decision = super::this_computer::judge_changes(decision, changes, &here, false);
    }
    Ok(CheckAnswer::from_decision(decision))
}
