//! The policy fuzz target under a stable toolchain: feeds the committed corpus
//! (fuzz/corpus/analyse) and random mutations of it to the invariants of fuzz/invariants.rs for
//! a bounded time, and fails on the first broken invariant, panic or hang, printing the input
//! and the seed that reproduces it. `scripts/fuzz.sh` runs it in CI; cargo-fuzz on nightly runs
//! the same invariants with coverage guidance (fuzz/fuzz_targets/analyse.rs).
//!
//! Usage: `policy_fuzz [--seconds N] [--seed N] CORPUS_DIR`
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../../../fuzz/invariants.rs"]
mod invariants;

use std::process::ExitCode;
use std::time::{Duration, Instant};

/// An input that takes longer than this is a hang (a real analysis takes well under 1 ms).
const HANG_GUARD: Duration = Duration::from_secs(10);

/// Pieces of shell the mutator inserts: wrappers, forms and spellings the policy must see
/// through.
const DICTIONARY: &[&str] = &[
    "rm",
    "/bin/rm",
    "\\rm",
    "'r'm",
    "r\\\nm",
    "/bin/r[m]",
    "{rm,-f}",
    "shutdown",
    "sudo ",
    "env X=1 ",
    "nice ",
    "timeout 5 ",
    "xargs ",
    "find . -exec ",
    " \\;",
    "bash -c '",
    "sh -c \"",
    "$(",
    ")",
    "`",
    "eval ",
    "ssh host ",
    "git -c core.pager=",
    "git -c alias.x=!",
    " x",
    "awk 'BEGIN{system(\"",
    "\")}'",
    "docker exec web ",
    "kubectl exec p -- ",
    "vim -c ':!",
    "less '+!",
    "tar --to-command=",
    "rsync -e ",
    "env -S '",
    "parallel ",
    " ::: a",
    "coproc ",
    "<<EOF\n",
    "\nEOF\n",
    "<<'EOF'\n",
    "; ",
    " && ",
    " || ",
    " | ",
    "\n",
    " & ",
    "( ",
    " )",
    "{ ",
    "; }",
    "> s.sh; . s.sh",
    "cp /bin/rm /tmp/d; /tmp/d ",
    "ln -s / /tmp/r",
    "cd /etc/ssh && ",
    "> ",
    ">> ",
    "printf 'rm x' > s.sh; bash s.sh",
    "python3 -c 'import os; os.system(\"",
    "'",
    "\"",
    "\\",
    "${x:-rm}",
    "$'\\x72m'",
];

/// xorshift64*: small, seedable, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, bound: usize) -> usize {
        if bound == 0 {
            0
        } else {
            (self.next() % bound as u64) as usize
        }
    }
}

fn mutate(rng: &mut Rng, input: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(6) {
            0 => {
                let piece = DICTIONARY[rng.below(DICTIONARY.len())].as_bytes();
                out.splice(at..at, piece.iter().copied());
            }
            1 if !out.is_empty() => {
                let end = (at + 1 + rng.below(8)).min(out.len());
                out.drain(at.min(end)..end);
            }
            2 if !out.is_empty() => {
                let index = rng.below(out.len());
                out[index] ^= 1 << rng.below(8);
            }
            3 => {
                let other = &corpus[rng.below(corpus.len())];
                let from = rng.below(other.len() + 1);
                let to = (from + rng.below(32)).min(other.len());
                out.splice(at..at, other[from..to].iter().copied());
            }
            4 => {
                let byte = b";&|(){}<>'\"\\$`*!\n #"[rng.below(19)];
                out.insert(at, byte);
            }
            _ => {
                let wrapper = DICTIONARY[rng.below(DICTIONARY.len())].as_bytes();
                out.splice(0..0, wrapper.iter().copied());
            }
        }
    }
    out.truncate(4096);
    out
}

/// Run one input: `Err` with what broke (an invariant, a panic, a hang).
fn run(input: &[u8]) -> Result<(), String> {
    let started = Instant::now();
    let outcome = std::panic::catch_unwind(|| invariants::check(input));
    let took = started.elapsed();
    match outcome {
        Ok(Ok(())) if took <= HANG_GUARD => Ok(()),
        Ok(Ok(())) => Err(format!("took {took:?}")),
        Ok(Err(broken)) => Err(broken),
        Err(_) => Err("panicked".to_owned()),
    }
}

fn main() -> ExitCode {
    let mut seconds = 60u64;
    let mut seed: Option<u64> = None;
    let mut corpus_dir: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => seconds = args.next().and_then(|v| v.parse().ok()).unwrap_or(seconds),
            "--seed" => seed = args.next().and_then(|v| v.parse().ok()),
            _ => corpus_dir = Some(arg),
        }
    }
    let Some(corpus_dir) = corpus_dir else {
        eprintln!("usage: policy_fuzz [--seconds N] [--seed N] CORPUS_DIR");
        return ExitCode::from(2);
    };
    let mut corpus: Vec<Vec<u8>> = match std::fs::read_dir(&corpus_dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .filter_map(|entry| std::fs::read(entry.path()).ok())
            .collect(),
        Err(error) => {
            eprintln!("policy_fuzz: cannot read {corpus_dir}: {error}");
            return ExitCode::from(2);
        }
    };
    if corpus.is_empty() {
        eprintln!("policy_fuzz: {corpus_dir} holds no inputs");
        return ExitCode::from(2);
    }
    corpus.sort();
    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |since| since.as_nanos() as u64)
            | 1
    });
    // Panics are reported with their input below, not as a bare message.
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = 0usize;
    for input in &corpus {
        if let Err(broken) = run(input) {
            eprintln!(
                "policy_fuzz: corpus input {:?}: {broken}",
                String::from_utf8_lossy(input)
            );
            failures += 1;
        }
    }
    let mut rng = Rng(seed);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut mutated = 0usize;
    while Instant::now() < deadline && failures == 0 {
        let base = &corpus[rng.below(corpus.len())];
        let input = mutate(&mut rng, base, &corpus);
        mutated += 1;
        if let Err(broken) = run(&input) {
            eprintln!(
                "policy_fuzz: seed {seed}, input {:?}: {broken}",
                String::from_utf8_lossy(&input)
            );
            failures += 1;
        }
    }
    let passed = corpus.len() + mutated - failures;
    println!(
        "policy_fuzz: seed {seed}, {} corpus inputs, {mutated} mutations in {seconds} s",
        corpus.len()
    );
    println!("{passed} passed, {failures} failed");
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
