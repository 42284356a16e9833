//! Runs `policy_corpus.txt`: every line one decision the policy must make (the format is at the
//! top of that file). A failure lists every wrong line with the reasons the policy gave.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kaiport_core::policy::check::CheckRequest;
use kaiport_core::tools::policy_check as check;
use kaiport_protocol::{Mode, TabKind};

const CORPUS: &str = include_str!("policy_corpus.txt");

struct Case {
    line_number: usize,
    expect: String,
    request: CheckRequest,
}

fn patterns(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|pattern| !pattern.is_empty())
        .map(str::to_owned)
        .collect()
}

fn cases() -> Vec<Case> {
    let mut rules = CheckRequest::default();
    let mut cases = Vec::new();
    for (index, line) in CORPUS.lines().enumerate() {
        let line_number = index + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(spec) = trimmed.strip_prefix("@rules") {
            rules = CheckRequest::default();
            for part in spec.split(';') {
                let Some((key, value)) = part.split_once(':') else {
                    continue;
                };
                let value = patterns(value);
                match key.trim() {
                    "forbidden" => rules.forbidden = value,
                    "allowed" => rules.allowed = value,
                    "dangerous" => rules.dangerous = value,
                    other => panic!("line {line_number}: unknown rule kind {other:?}"),
                }
            }
            continue;
        }
        let (head, body) = line
            .split_once(" | ")
            .unwrap_or_else(|| panic!("line {line_number}: no ` | ` in {line:?}"));
        let head: Vec<&str> = head.split_whitespace().collect();
        let mut request = rules.clone();
        request.mode = match head.get(1).copied() {
            Some("ask") => Mode::Ask,
            Some("autopilot") => Mode::Autopilot,
            Some("plan") => Mode::Plan,
            other => panic!("line {line_number}: bad mode {other:?}"),
        };
        if head.contains(&"storage") {
            request.tab = Some(TabKind::Storage);
        }
        if head.contains(&"tool") {
            let call: serde_json::Value = serde_json::from_str(body)
                .unwrap_or_else(|error| panic!("line {line_number}: bad JSON: {error}"));
            request.tool = Some(call["tool"].as_str().unwrap().to_owned());
            request.args = Some(call["args"].clone());
        } else {
            request.command = Some(body.replace('⏎', "\n"));
        }
        cases.push(Case {
            line_number,
            expect: head[0].to_owned(),
            request,
        });
    }
    cases
}

#[test]
fn corpus_is_large_and_covers_look_alikes() {
    let cases = cases();
    assert!(cases.len() >= 300, "only {} cases", cases.len());
    let harmless = cases.iter().filter(|case| case.expect == "allow").count();
    assert!(harmless >= 60, "only {harmless} cases that must be allowed");
}

#[test]
fn corpus_decisions() {
    let mut failures = Vec::new();
    let cases = cases();
    for case in &cases {
        let answer = check(&case.request)
            .unwrap_or_else(|error| panic!("line {}: {error}", case.line_number));
        if answer.decision != case.expect {
            failures.push(format!(
                "line {}: {:?} {:?}: expected {}, got {} ({})",
                case.line_number,
                case.request.mode,
                case.request
                    .command
                    .as_deref()
                    .or(case.request.tool.as_deref())
                    .unwrap_or_default(),
                case.expect,
                answer.decision,
                answer.reasons.join(" / ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
