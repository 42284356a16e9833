#!/usr/bin/env bash
# The policy fuzz target for a bounded time, on the stable toolchain: the
# committed corpus in fuzz/corpus/analyse and random mutations of it go through the invariants
# of fuzz/invariants.rs (a planted forbidden or dangerous payload is judged as the generator knows
# it; the decision agrees with the analysis; no panic, no hang). With a nightly toolchain and cargo-fuzz, `cargo +nightly fuzz run analyse`
# runs the same invariants with coverage guidance.
#   scripts/fuzz.sh [SECONDS] [SEED]       default 60 s and a seed from the clock (printed)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
seed_args=()
if [ -n "${2:-}" ]; then
    seed_args=(--seed "$2")
fi
cargo run -q --example policy_fuzz --locked -- \
    --seconds "$seconds" "${seed_args[@]}" fuzz/corpus/analyse
