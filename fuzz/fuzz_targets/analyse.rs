//! Fuzz the command analysis and the policy decision with arbitrary command lines.
//! Run: `cargo +nightly fuzz run analyse` (from the repository root). Without nightly, the
//! property tests in crates/core/tests/policy_props.rs exercise the same invariants.
#![no_main]

use kaiport_core::policy::{CallFacts, Decision, PolicyContext, analyse, decide};
use kaiport_protocol::{ConnectionSettings, Mode, TabKind};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let analysis = analyse(line);
    let settings = ConnectionSettings {
        forbidden_commands: vec!["rm".to_owned()],
        ..ConnectionSettings::default()
    };
    for mode in [Mode::Ask, Mode::Autopilot, Mode::Plan] {
        let facts = CallFacts::Command {
            line: line.to_owned(),
        };
        let decision = decide(&facts, PolicyContext::new(mode, &settings, TabKind::Terminal));
        // Nothing unprovable is ever allowed, and a found `rm` is always denied.
        if matches!(decision, Decision::Allow { .. }) {
            assert!(analysis.unprovable.is_empty(), "{line:?} allowed with {:?}", analysis.unprovable);
        }
        if analysis.commands.iter().any(|command| command.name() == "rm") {
            assert!(matches!(decision, Decision::Deny { .. }), "{line:?}: {decision:?}");
        }
    }
});
