//! run_on_hosts: one command line on many saved SSH connections (connection names and groups),
//! each under its own connection's rules, on exec channels of their own. The engine judges,
//! asks once for the hosts whose rules ask, runs and groups the outcome (`engine/fleet.rs`);
//! this file only declares the tool and checks its arguments.
//!
//! It must never decide for a host here: the tab's own rules say nothing about other hosts.

use super::tool::Tool;
use super::{Action, Prepared, ToolContext};
use crate::policy::CallFacts;
use kaiport_protocol::TabKind;
use kaiport_protocol::tools::{RunOnHostsParams, ToolName};

/// At most this many targets in one call (a group counts once).
pub const MAX_TARGETS: usize = 64;
/// What the model gets of one group's output, at most (the rest is cut with a marker).
pub const MAX_GROUP_OUTPUT_BYTES: usize = 4096;

pub(crate) struct RunOnHosts;

impl Tool for RunOnHosts {
    const NAME: ToolName = ToolName::RunOnHosts;
    const DESCRIPTION: &'static str = "Run one command line on many saved SSH connections at once: `hosts` are saved connection \
         names or group (tag) names. Each host runs it on a channel of its own (not the user's terminal) under \
         its own connection's rules: hosts whose rules forbid it are refused, hosts whose rules ask run it only \
         if the user approves (one approval for all of them). Returns counts and groups of hosts with the same \
         outcome and output (failures, refusals and non-zero exits first), each group's output capped. One \
         line only, no interaction (no sudo password, no pager). `why`: one sentence for the approval card.";
    const TABS: &'static [TabKind] = &[TabKind::Terminal, TabKind::Storage];
    type Params = RunOnHostsParams;
    type Found = ();

    fn check(params: &RunOnHostsParams) -> Result<(), String> {
        if params.command.trim().is_empty() {
            return Err("run_on_hosts: `command` is empty".to_owned());
        }
        if params.command.contains(['\n', '\r']) {
            return Err("run_on_hosts: `command` is one line, without line breaks".to_owned());
        }
        if params.hosts.is_empty() {
            return Err(
                "run_on_hosts: `hosts` is empty; name saved connections or groups".to_owned(),
            );
        }
        if params.hosts.len() > MAX_TARGETS {
            return Err(format!(
                "run_on_hosts: at most {MAX_TARGETS} names in `hosts`, not {}; name a group instead",
                params.hosts.len()
            ));
        }
        Ok(())
    }

    /// The line, as `kaiport policy check` judges it; the engine judges it per host instead.
    fn facts(params: &RunOnHostsParams, _: Option<&()>) -> CallFacts {
        CallFacts::Command {
            line: params.command.clone(),
        }
    }

    async fn prepare(params: RunOnHostsParams, _: &ToolContext<'_>) -> Result<Prepared, String> {
        Ok(Prepared {
            facts: Self::facts(&params, Some(&())),
            preview: None,
            action: Action::RunOnHosts(params),
        })
    }
}
