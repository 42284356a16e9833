//! Fuzz the command analysis and the policy decision with arbitrary command lines (the
//! invariants are in fuzz/invariants.rs). Run: `cargo +nightly fuzz run analyse` from the
//! repository root. Without nightly, `scripts/fuzz.sh` runs the same invariants on the committed
//! corpus and its mutations under a stable harness (crates/core/examples/policy_fuzz.rs); CI does,
//! and builds this target on stable to keep it compiling (scripts/test.sh).
#![no_main]

#[path = "../invariants.rs"]
mod invariants;

use libfuzzer_sys::{Corpus, fuzz_target};

fuzz_target!(|data: &[u8]| -> Corpus {
    match invariants::check(data) {
        invariants::Verdict::Passed => Corpus::Keep,
        // Not text: nothing was checked, so it is neither a pass nor worth mutating further.
        invariants::Verdict::NotText => Corpus::Reject,
        invariants::Verdict::Broken(broken) => panic!("{broken}"),
    }
});
