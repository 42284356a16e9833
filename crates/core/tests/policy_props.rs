//! Property tests of the command analysis and the policy: never a panic, always quick, and a
//! forbidden command is found wherever it is put in a line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use kaiport_core::policy::{CallFacts, Decision, PolicyContext, analyse, decide};
use kaiport_protocol::{ConnectionSettings, Mode, TabKind};
use proptest::prelude::*;
use std::time::{Duration, Instant};

/// Generous for a debug build on a busy machine; the release median is far lower (BENCHMARKS.md).
const QUICK: Duration = Duration::from_millis(250);

fn shellish() -> impl Strategy<Value = String> {
    // Mostly shell syntax, so the parser sees deep and broken structures, not just words.
    proptest::collection::vec(
        prop_oneof![
            Just("rm".to_owned()),
            Just("sudo".to_owned()),
            Just("bash -c".to_owned()),
            Just("$(".to_owned()),
            Just("`".to_owned()),
            Just("<<EOF\n".to_owned()),
            Just("EOF\n".to_owned()),
            Just("${x:-".to_owned()),
            Just("find . -exec".to_owned()),
            Just("xargs".to_owned()),
            "[ -~\n]{1,6}",
            "[;&|(){}<>'\"\\\\$`*!]{1,3}",
        ],
        0..40,
    )
    .prop_map(|parts| parts.join(" "))
}

fn decide_all_modes(line: &str, settings: &ConnectionSettings) {
    for mode in [Mode::Ask, Mode::Autopilot, Mode::Plan] {
        let facts = CallFacts::Command {
            line: line.to_owned(),
        };
        let _ = decide(
            &facts,
            PolicyContext::new(mode, settings, TabKind::Terminal),
        );
        let facts = CallFacts::TerminalInput {
            text: line.to_owned(),
        };
        let _ = decide(
            &facts,
            PolicyContext::new(mode, settings, TabKind::Terminal),
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_text_never_panics_and_is_quick(line in "\\PC{0,300}") {
        let started = Instant::now();
        let _ = analyse(&line);
        prop_assert!(started.elapsed() < QUICK, "took {:?}", started.elapsed());
        decide_all_modes(&line, &ConnectionSettings::default());
    }

    #[test]
    fn shell_like_text_never_panics_and_is_quick(line in shellish()) {
        let started = Instant::now();
        let _ = analyse(&line);
        prop_assert!(started.elapsed() < QUICK, "took {:?}", started.elapsed());
        let settings = ConnectionSettings {
            forbidden_commands: vec!["rm".to_owned()],
            allowed_commands: vec!["ls".to_owned()],
            ..ConnectionSettings::default()
        };
        decide_all_modes(&line, &settings);
    }

    /// `rm` after any separator, inside any wrapper, after any harmless prefix: always denied.
    #[test]
    fn forbidden_is_found_anywhere(
        prefix in prop::sample::select(vec!["ls -la", "echo hi", "cat /etc/hosts", "true", "grep -r x .", "df -h"]),
        separator in prop::sample::select(vec!["; ", " && ", " || ", " | ", " & ", "\n", " |& "]),
        wrapper in prop::sample::select(vec!["", "sudo ", "sudo -u bob ", "env X=1 ", "nice -n 5 ", "timeout 5 ", "nohup ", "command ", "xargs ", "stdbuf -oL "]),
        spelling in prop::sample::select(vec!["rm", "/bin/rm", "\\rm", "'rm'", "\"rm\"", "r''m", "/usr/bin/../bin/rm"]),
        shape in 0usize..6,
    ) {
        let command = format!("{wrapper}{spelling} -f x");
        let line = match shape {
            0 => format!("{prefix}{separator}{command}"),
            1 => format!("{command}{separator}{prefix}"),
            2 => format!("{prefix}{separator}( {command} )"),
            3 => format!("{prefix}{separator}{{ {command}; }}"),
            4 => format!("{prefix}{separator}echo $({command})"),
            _ => format!("{prefix}{separator}bash -c '{}'", command.replace('\'', "'\\''")),
        };
        let settings = ConnectionSettings {
            forbidden_commands: vec!["rm".to_owned()],
            allowed_commands: vec!["ls".to_owned(), "echo".to_owned(), "cat".to_owned()],
            ..ConnectionSettings::default()
        };
        for mode in [Mode::Ask, Mode::Autopilot, Mode::Plan] {
            let decision = decide(&CallFacts::Command { line: line.clone() }, PolicyContext::new(mode, &settings, TabKind::Terminal));
            prop_assert!(matches!(decision, Decision::Deny { .. }), "{line:?} in {mode:?}: {decision:?}");
        }
    }
}

#[test]
fn deep_nesting_and_long_lines_end_quickly() {
    for line in [
        "(".repeat(20_000),
        format!("{}ls{}", "(".repeat(5_000), ")".repeat(5_000)),
        format!("{}ls{}", "$(".repeat(3_000), ")".repeat(3_000)),
        "bash -c \"".repeat(2_000),
        "{ ".repeat(10_000),
        "a".repeat(200_000),
        "echo x | ".repeat(5_000),
    ] {
        let started = Instant::now();
        let analysis = analyse(&line);
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{} bytes took {:?}",
            line.len(),
            started.elapsed()
        );
        // Whatever it could not follow is reported, never dropped.
        if line.len() > 60_000 || line.contains("((") || line.contains("$($(") {
            assert!(!analysis.unprovable.is_empty(), "{}", &line[..40]);
        }
    }
}
