//! Fleet runs, the parts that need no connection: which saved connections a run's targets name
//! (a connection by its name, a group by its tag), what a host's kept output reads as, and the
//! report grouped by identical outcome. The engine runs the hosts (`engine/fleet.rs`).
//!
//! This module must never decide whether a line may run (that is [`crate::policy::decide`],
//! per host) and never connect.

use std::collections::HashMap;

use kaiport_protocol::tools::Truncation;
use kaiport_protocol::{ConnectionSettings, FleetGroup, FleetHostResult, FleetReport, FleetStatus};

use crate::connect::profiles::{ProfileKind, ProfileStore};
use crate::output::{GAP_NOTE, TextLimits, cap_text_around};
use crate::ssh::{BoundedOutput, SshTarget};

/// The default of how many hosts a fleet run works on at once.
pub const DEFAULT_CONCURRENCY: usize = 16;
/// The most hosts at once, whatever is asked.
pub const MAX_CONCURRENCY: usize = 256;

/// One host of a run: a saved connection.
#[derive(Debug, Clone)]
pub struct FleetHost {
    pub name: String,
    /// Where to log in, or why this connection cannot run a command (a storage connection, a
    /// broken jump host list).
    pub target: Result<SshTarget, String>,
    pub settings: ConnectionSettings,
}

/// The hosts `targets` name, each once, in the order named (a tag's members in the file's
/// order). A target is a saved connection's name, else a tag; one that is neither is an error.
pub fn hosts_of(store: &ProfileStore, targets: &[String]) -> Result<Vec<FleetHost>, String> {
    let mut names: Vec<&str> = Vec::new();
    for target in targets {
        let target = target.trim();
        let named: Vec<&str> = match store.get(target) {
            Some(profile) => vec![profile.name.as_str()],
            None => store
                .profiles()
                .iter()
                .filter(|profile| profile.tags.iter().any(|tag| tag == target))
                .map(|profile| profile.name.as_str())
                .collect(),
        };
        if named.is_empty() {
            return Err(format!(
                "{target:?} is neither a saved connection nor a tag of one"
            ));
        }
        for name in named {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
        .into_iter()
        .map(|name| {
            let profile = store
                .get(name)
                .ok_or_else(|| format!("there is no saved connection {name:?}"))?;
            let settings = profile
                .connection_settings()
                .map_err(|error| error.to_string())?;
            let target = match &profile.kind {
                ProfileKind::Ssh { .. } => store
                    .resolve_target(name)
                    .map_err(|error| error.to_string()),
                other => Err(format!(
                    "{name} is a storage connection ({}), which runs no commands",
                    other.kind_name()
                )),
            };
            Ok(FleetHost {
                name: name.to_owned(),
                target,
                settings,
            })
        })
        .collect()
}

/// The output a host's command printed, as the report shows it: lossy UTF-8, the part not
/// kept marked, within the connection's output limits.
pub fn output_text(output: &BoundedOutput, settings: &ConnectionSettings) -> String {
    let mut bytes = output.head.clone();
    let gap = (output.left_out > 0).then(|| {
        if !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(GAP_NOTE.as_bytes());
        bytes.push(b'\n');
        Truncation {
            omitted_bytes: output.left_out,
            omitted_lines: 0,
        }
    });
    bytes.extend(output.tail.iter());
    let text = String::from_utf8_lossy(&bytes);
    let limits = TextLimits {
        max_bytes: settings.output_limit_kb as usize * 1024,
        max_lines: settings.output_limit_lines as usize,
    };
    cap_text_around(&text, limits, gap).0
}

/// Where a group goes in the report: refusals, failures, hosts waiting for approval and hosts
/// cancelled first, then commands that exited with another code than 0, then the rest.
fn rank(status: FleetStatus, exit_code: Option<i32>) -> u8 {
    match status {
        FleetStatus::Refused => 0,
        FleetStatus::Failed => 1,
        FleetStatus::NeedsApproval => 2,
        FleetStatus::Cancelled => 3,
        FleetStatus::Done if exit_code != Some(0) => 4,
        FleetStatus::Done => 5,
    }
}

/// The report of a run: each host with its output (in the order named), grouped by status,
/// exit code, reason and output; groups by rank, then the larger first, then as first seen.
pub fn report(command: &str, results: Vec<(FleetHostResult, String)>) -> FleetReport {
    type Key = (FleetStatus, Option<i32>, Option<String>, String);
    let mut groups: Vec<FleetGroup> = Vec::new();
    let mut index: HashMap<Key, usize> = HashMap::new();
    let count = |status: FleetStatus| {
        let found = results.iter().filter(|(r, _)| r.status == status).count();
        u32::try_from(found).unwrap_or(u32::MAX)
    };
    let mut report = FleetReport {
        command: command.to_owned(),
        total: u32::try_from(results.len()).unwrap_or(u32::MAX),
        done: count(FleetStatus::Done),
        failed: count(FleetStatus::Failed),
        refused: count(FleetStatus::Refused),
        needs_approval: count(FleetStatus::NeedsApproval),
        cancelled: count(FleetStatus::Cancelled),
        nonzero_exit: u32::try_from(
            results
                .iter()
                .filter(|(r, _)| r.status == FleetStatus::Done && r.exit_code != Some(0))
                .count(),
        )
        .unwrap_or(u32::MAX),
        groups: Vec::new(),
        hosts: Vec::new(),
    };
    for (result, output) in results {
        let key = (
            result.status,
            result.exit_code,
            result.reason.clone(),
            output,
        );
        match index.get(&key) {
            Some(&at) => groups[at].hosts.push(result.host.clone()),
            None => {
                index.insert(key.clone(), groups.len());
                let (status, exit_code, reason, output) = key;
                groups.push(FleetGroup {
                    status,
                    exit_code,
                    reason,
                    output,
                    hosts: vec![result.host.clone()],
                });
            }
        }
        report.hosts.push(result);
    }
    // A stable sort keeps groups of equal rank and size as first seen.
    groups.sort_by_key(|group| {
        (
            rank(group.status, group.exit_code),
            std::cmp::Reverse(group.hosts.len()),
        )
    });
    report.groups = groups;
    report
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn result(host: &str, status: FleetStatus, exit_code: Option<i32>) -> FleetHostResult {
        FleetHostResult {
            host: host.to_owned(),
            status,
            exit_code,
            reason: None,
            duration_ms: 5,
        }
    }

    #[test]
    fn groups_identical_outcomes_with_failures_and_refusals_first() {
        let done = |host: &str, output: &str| {
            (result(host, FleetStatus::Done, Some(0)), output.to_owned())
        };
        let refused = FleetHostResult {
            reason: Some("`nginx` is forbidden".to_owned()),
            ..result("db", FleetStatus::Refused, None)
        };
        let report = report(
            "nginx -v",
            vec![
                done("w1", "nginx/1.24.0\n"),
                done("w2", "nginx/1.22.1\n"),
                done("w3", "nginx/1.24.0\n"),
                (refused, String::new()),
                (
                    result("w4", FleetStatus::Done, Some(127)),
                    "not found\n".to_owned(),
                ),
                (
                    FleetHostResult {
                        reason: Some("connection refused".to_owned()),
                        ..result("w5", FleetStatus::Failed, None)
                    },
                    String::new(),
                ),
            ],
        );
        let summary: Vec<(FleetStatus, Option<i32>, &str, Vec<&str>)> = report
            .groups
            .iter()
            .map(|group| {
                (
                    group.status,
                    group.exit_code,
                    group.output.as_str(),
                    group.hosts.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (FleetStatus::Refused, None, "", vec!["db"]),
                (FleetStatus::Failed, None, "", vec!["w5"]),
                (FleetStatus::Done, Some(127), "not found\n", vec!["w4"]),
                (
                    FleetStatus::Done,
                    Some(0),
                    "nginx/1.24.0\n",
                    vec!["w1", "w3"]
                ),
                (FleetStatus::Done, Some(0), "nginx/1.22.1\n", vec!["w2"]),
            ]
        );
        assert_eq!(
            (
                report.total,
                report.done,
                report.failed,
                report.refused,
                report.nonzero_exit
            ),
            (6, 4, 1, 1, 1)
        );
        let hosts: Vec<&str> = report.hosts.iter().map(|h| h.host.as_str()).collect();
        assert_eq!(hosts, vec!["w1", "w2", "w3", "db", "w4", "w5"]);
    }

    #[test]
    fn targets_are_connections_or_tags_each_host_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("connections.toml");
        std::fs::write(
            &path,
            "[[connection]]\nname = \"w1\"\nkind = \"ssh\"\nhost = \"h1\"\nuser = \"u\"\ntags = [\"web\"]\n\
             [[connection]]\nname = \"w2\"\nkind = \"ssh\"\nhost = \"h2\"\nuser = \"u\"\ntags = [\"web\"]\n\
             [[connection]]\nname = \"files\"\nkind = \"ftp\"\nhost = \"h3\"\ntags = [\"web\"]\n",
        )
        .unwrap();
        let store = ProfileStore::load(&path).unwrap();
        let hosts = hosts_of(&store, &["w2".into(), "web".into()]).unwrap();
        let names: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, vec!["w2", "w1", "files"]);
        assert_eq!(hosts[1].target.as_ref().unwrap().host, "h1");
        assert!(
            hosts[2]
                .target
                .as_ref()
                .unwrap_err()
                .contains("storage connection")
        );
        let error = hosts_of(&store, &["nope".into()]).unwrap_err();
        assert!(
            error.contains("neither a saved connection nor a tag"),
            "{error}"
        );
    }
}
