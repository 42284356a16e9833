//! Fuzz the command analysis and the policy decision with arbitrary command lines (the
//! invariants are in fuzz/invariants.rs). Run: `cargo +nightly fuzz run analyse` from the
//! repository root. Without nightly, `scripts/fuzz.sh` runs the same invariants on the committed
//! corpus and its mutations under a stable harness (crates/core/examples/policy_fuzz.rs); CI does.
#![no_main]

#[path = "../invariants.rs"]
mod invariants;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = invariants::check(data) {
        panic!("{broken}");
    }
});
