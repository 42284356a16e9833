//! Timing two sides of a benchmark fairly, for the benches in `tests/benches/`.

use anyhow::{Context, Result, bail};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Times each side `runs` times after one warm-up run each, interleaved and each first in turn,
/// so a busy moment on the machine falls on both sides rather than on one. The medians.
pub fn compare(
    runs: usize,
    mut ours: impl FnMut() -> Result<()>,
    mut theirs: impl FnMut() -> Result<()>,
) -> Result<(Duration, Duration)> {
    ours().context("warm-up run (kaiport)")?;
    theirs().context("warm-up run (reference)")?;
    let mut ours_times = Vec::with_capacity(runs);
    let mut theirs_times = Vec::with_capacity(runs);
    for round in 0..runs {
        for kaiport_turn in [round % 2 == 0, round % 2 != 0] {
            let started = Instant::now();
            if kaiport_turn {
                ours()?;
                ours_times.push(started.elapsed());
            } else {
                theirs()?;
                theirs_times.push(started.elapsed());
            }
        }
    }
    Ok((median(&mut ours_times), median(&mut theirs_times)))
}

/// The middle time (the upper of the two middles for an even count); zero for none.
pub fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

/// The kaiport binary a bench runs: `KAIPORT_BIN`, else `target/release/kaiport`, which must
/// exist.
pub fn kaiport_bin() -> Result<PathBuf> {
    let kaiport = std::env::var_os("KAIPORT_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/release/kaiport"),
        PathBuf::from,
    );
    if !kaiport.exists() {
        bail!(
            "{} is missing: cargo build --release -p kaiport-cli first",
            kaiport.display()
        );
    }
    Ok(kaiport)
}

/// [`compare`] for any number of sides whose runs each time several moments (the first rows
/// and the last, say), each run timing itself: one warm-up run per side, then `runs` rounds in
/// which every side goes first in turn. Per side, the median of each moment, and every run's
/// times (to print beside the medians).
pub fn compare_moments<const N: usize>(
    runs: usize,
    sides: &mut [&mut dyn FnMut() -> Result<[Duration; N]>],
) -> Result<Vec<Moments<N>>> {
    for (index, side) in sides.iter_mut().enumerate() {
        side().with_context(|| format!("warm-up run of side {index}"))?;
    }
    let count = sides.len();
    let mut runs_of: Vec<Vec<[Duration; N]>> = vec![Vec::with_capacity(runs); count];
    for round in 0..runs {
        for offset in 0..count {
            let index = (round + offset) % count;
            let times = sides[index]().with_context(|| format!("run {round} of side {index}"))?;
            runs_of[index].push(times);
        }
    }
    Ok(runs_of
        .into_iter()
        .map(|runs| Moments {
            medians: std::array::from_fn(|moment| {
                let mut column: Vec<Duration> = runs.iter().map(|times| times[moment]).collect();
                median(&mut column)
            }),
            runs,
        })
        .collect())
}

/// One side's times from [`compare_moments`].
#[derive(Debug, Clone)]
pub struct Moments<const N: usize> {
    /// The median of each moment.
    pub medians: [Duration; N],
    /// Every timed run, in order.
    pub runs: Vec<[Duration; N]>,
}
