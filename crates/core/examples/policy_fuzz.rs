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

/// The nearest char boundary of `text` at or before `at`.
fn boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A few edits of `input`, at char boundaries, so that the result is text like every command
/// the policy judges (inputs that are not are not checked: `invariants::Verdict::NotText`).
fn mutate(rng: &mut Rng, input: &str, corpus: &[String]) -> String {
    let mut out = input.to_owned();
    for _ in 0..=rng.below(4) {
        let at = boundary(&out, rng.below(out.len() + 1));
        match rng.below(6) {
            0 => out.insert_str(at, DICTIONARY[rng.below(DICTIONARY.len())]),
            1 if !out.is_empty() => {
                let end = boundary(&out, at + 1 + rng.below(8));
                out.replace_range(at..end.max(at), "");
            }
            2 if !out.is_empty() => {
                // A bit of an ASCII character flipped, staying ASCII.
                let bytes: Vec<(usize, u8)> = out
                    .bytes()
                    .enumerate()
                    .filter(|(_, byte)| byte.is_ascii())
                    .collect();
                if !bytes.is_empty() {
                    let (index, byte) = bytes[rng.below(bytes.len())];
                    let flipped = char::from(byte ^ (1 << rng.below(7)));
                    out.replace_range(index..index + 1, flipped.encode_utf8(&mut [0; 4]));
                }
            }
            3 => {
                let other = &corpus[rng.below(corpus.len())];
                let from = boundary(other, rng.below(other.len() + 1));
                let to = boundary(other, from + rng.below(32));
                out.insert_str(at, &other[from..to]);
            }
            4 => {
                let byte = b";&|(){}<>'\"\\$`*!\n #"[rng.below(19)];
                out.insert(at, char::from(byte));
            }
            _ => out.insert_str(0, DICTIONARY[rng.below(DICTIONARY.len())]),
        }
    }
    let end = boundary(&out, 4096);
    out.truncate(end);
    out
}

/// Run one input: whether it was text, or `Err` with what broke (an invariant, a panic, a hang).
fn run(input: &[u8]) -> Result<bool, String> {
    let started = Instant::now();
    let outcome = std::panic::catch_unwind(|| invariants::check(input));
    let took = started.elapsed();
    match outcome {
        Ok(invariants::Verdict::NotText) => Ok(false),
        Ok(invariants::Verdict::Passed) if took <= HANG_GUARD => Ok(true),
        Ok(invariants::Verdict::Passed) => Err(format!("took {took:?}")),
        Ok(invariants::Verdict::Broken(broken)) => Err(broken),
        Err(_) => Err("panicked".to_owned()),
    }
}

/// How the inputs came out; an input that is not text is counted apart, never as passed.
#[derive(Default)]
struct Tally {
    passed: usize,
    not_text: usize,
    failed: usize,
}

impl Tally {
    fn count(&mut self, outcome: Result<bool, String>, input: impl FnOnce() -> String) {
        match outcome {
            Ok(true) => self.passed += 1,
            Ok(false) => self.not_text += 1,
            Err(broken) => {
                eprintln!("policy_fuzz: {}: {broken}", input());
                self.failed += 1;
            }
        }
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
    let mut tally = Tally::default();
    for input in &corpus {
        tally.count(run(input), || {
            format!("corpus input {:?}", String::from_utf8_lossy(input))
        });
    }
    // Mutations start from the inputs that are text, and stay text.
    let texts: Vec<String> = corpus
        .iter()
        .filter_map(|input| String::from_utf8(input.clone()).ok())
        .collect();
    let mut rng = Rng(seed);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut mutated = 0usize;
    while !texts.is_empty() && Instant::now() < deadline && tally.failed == 0 {
        let base = &texts[rng.below(texts.len())];
        let input = mutate(&mut rng, base, &texts);
        mutated += 1;
        tally.count(run(input.as_bytes()), || {
            format!("seed {seed}, input {input:?}")
        });
    }
    println!(
        "policy_fuzz: seed {seed}, {} corpus inputs, {mutated} mutations in {seconds} s",
        corpus.len()
    );
    let Tally {
        passed,
        not_text,
        failed,
    } = tally;
    println!("{passed} passed, {not_text} not UTF-8 (not checked), {failed} failed");
    if passed == 0 {
        eprintln!("policy_fuzz: no input was checked");
        return ExitCode::FAILURE;
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
