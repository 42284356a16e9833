//! The invariants the fuzz target checks, shared by the cargo-fuzz target
//! (fuzz_targets/analyse.rs, nightly) and the stable runner that CI uses
//! (crates/core/examples/policy_fuzz.rs, run by scripts/fuzz.sh):
//!
//! 1. nothing the analysis cannot prove harmless is allowed (an allowed line has no unprovable
//!    part and no reason that must ask);
//! 2. a forbidden program found anywhere in the line is denied, in every mode, also typed as
//!    send_input;
//! 3. the analysis never panics and never hangs (the runners time each input).

use kaiport_core::policy::rules::first_loose_match;
use kaiport_core::policy::{CallFacts, Decision, PolicyContext, analyse, decide, must_ask_reasons};
use kaiport_protocol::{ConnectionSettings, Mode, TabKind};

/// Check one input; `Err` names the broken invariant.
pub fn check(data: &[u8]) -> Result<(), String> {
    // A command reaches the policy as text (JSON from the model, keys from the page), so bytes
    // that are not UTF-8 are checked as the text they would decode to, never skipped.
    let line = String::from_utf8_lossy(data);
    let line = line.as_ref();
    let settings = ConnectionSettings {
        forbidden_commands: vec!["rm".to_owned(), "shutdown".to_owned()],
        allowed_commands: vec!["ls".to_owned(), "echo".to_owned(), "git".to_owned()],
        ..ConnectionSettings::default()
    };
    let analysis = analyse(line);
    let must_ask = must_ask_reasons(&analysis, &settings);
    let forbidden = analysis
        .commands
        .iter()
        .any(|command| first_loose_match(command, &settings.forbidden_commands).is_some());
    for mode in [Mode::Ask, Mode::Autopilot, Mode::Plan] {
        let context = PolicyContext::new(mode, &settings, TabKind::Terminal);
        let facts = CallFacts::Command {
            line: line.to_owned(),
        };
        let decision = decide(&facts, context);
        if matches!(decision, Decision::Allow { .. })
            && (!analysis.unprovable.is_empty() || !must_ask.is_empty())
        {
            return Err(format!(
                "{line:?} allowed in {mode:?} with {:?} / {must_ask:?}",
                analysis.unprovable
            ));
        }
        if forbidden && !denied_or_stopped(&decision) {
            return Err(format!(
                "{line:?}: forbidden found but {mode:?} gave {decision:?}"
            ));
        }
        let input = CallFacts::TerminalInput {
            text: line.to_owned(),
        };
        let decision = decide(&input, context);
        if forbidden && !denied_or_stopped(&decision) {
            return Err(format!(
                "{line:?}: forbidden found but send_input in {mode:?} gave {decision:?}"
            ));
        }
    }
    Ok(())
}

/// Denied, or asked because the parse stopped. The parse budget counts work, so the analysis
/// inside `decide` stops where the one before it did; only its one-second fuse (malformed input
/// whose error recovery takes that long) can stop one and not the other, and asking is safe.
fn denied_or_stopped(decision: &Decision) -> bool {
    match decision {
        Decision::Deny { .. } => true,
        Decision::Ask { reasons, .. } => reasons
            .iter()
            .any(|reason| reason.contains("too complex to analyse")),
        Decision::Allow { .. } => false,
    }
}
