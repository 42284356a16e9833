//! Life in the background: what the engine does with `Op::AppBackground` and
//! `Op::AppForeground` (the glue is in `engine/foreground.rs`; the timing and the words are here).
//!
//! iOS suspends an app soon after it leaves the screen: its threads stop, and its sockets may
//! die meanwhile without a word (the phone changed networks, the server gave up on it). On the
//! way back nothing inside the process knows that by itself: a dead SSH connection looks alive
//! until the keep-alives have missed for a minute, and a Pilot turn would go on typing into a
//! terminal whose screen it last saw minutes ago. So, on `AppForeground`:
//!
//! - every tab's connection is checked at once: the server must answer an SSH request within
//!   [`CHECK_TIMEOUT`], else the connection is given up and the tab reported dropped;
//! - when the engine was suspended since `AppBackground` ([`Heartbeat`]: a task that ticks every
//!   [`HEARTBEAT`] saw a gap of [`SUSPENDED_AFTER`] or more), a running Pilot turn is ended with
//!   a note ([`interrupted_note_for_model`], [`interrupted_note_for_user`]) and a transfer that
//!   does not move again within [`TRANSFER_STALL`] is ended as failed (retryable).
//!
//! A page that was only hidden (a desktop browser tab in the background) keeps running, so its
//! heartbeat never stops and it loses nothing but a round trip per connection.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use tokio_util::sync::CancellationToken;

/// How long a server has to answer the check on the way back to the foreground.
pub const CHECK_TIMEOUT: Duration = Duration::from_millis(1500);
/// How often the heartbeat ticks while in the background.
pub const HEARTBEAT: Duration = Duration::from_millis(500);
/// A heartbeat gap this long means the engine did not run meanwhile (suspended, or the computer
/// slept): far above what a busy machine delays a timer by, far below how long iOS suspends.
pub const SUSPENDED_AFTER: Duration = Duration::from_secs(3);
/// After a suspension, a transfer that was running and does not report progress again within
/// this long counts as cut.
pub const TRANSFER_STALL: Duration = Duration::from_secs(5);

/// The longest gap between ticks, on both clocks: the monotonic one (which some systems stop
/// while asleep) and the wall clock (which keeps going, but may be set).
#[derive(Debug, Clone, Copy)]
pub struct Heartbeat {
    last_tick: Instant,
    last_wall: SystemTime,
    longest: Duration,
}

impl Heartbeat {
    pub fn new(now: Instant, wall: SystemTime) -> Heartbeat {
        Heartbeat {
            last_tick: now,
            last_wall: wall,
            longest: Duration::ZERO,
        }
    }

    /// One tick at `now` / `wall`.
    pub fn tick(&mut self, now: Instant, wall: SystemTime) {
        let gap = now.saturating_duration_since(self.last_tick);
        // A wall clock set back gives no gap.
        let wall_gap = wall.duration_since(self.last_wall).unwrap_or_default();
        self.longest = self.longest.max(gap).max(wall_gap);
        self.last_tick = now;
        self.last_wall = wall;
    }

    /// The longest gap between two ticks so far.
    pub fn longest_gap(&self) -> Duration {
        self.longest
    }

    /// Whether the gaps say the engine was suspended.
    pub fn suspended(&self) -> bool {
        self.longest >= SUSPENDED_AFTER
    }
}

/// The time since `Op::AppBackground`: its heartbeat runs until [`Background::end`] (or drop).
#[derive(Debug)]
pub struct Background {
    heartbeat: Arc<Mutex<Heartbeat>>,
    stop: CancellationToken,
}

impl Background {
    /// Starts the heartbeat (on the current tokio runtime).
    pub fn start() -> Background {
        let heartbeat = Arc::new(Mutex::new(Heartbeat::new(
            Instant::now(),
            SystemTime::now(),
        )));
        let stop = CancellationToken::new();
        let ticking = heartbeat.clone();
        let stopped = stop.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = stopped.cancelled() => break,
                    () = tokio::time::sleep(HEARTBEAT) => tick(&ticking),
                }
            }
        });
        Background { heartbeat, stop }
    }

    /// Back in the foreground: the heartbeat stops, with a last tick now (a suspension that
    /// has just ended shows even when the ticking task has not run since). Returns how long
    /// the engine was suspended, when it was.
    pub fn end(self) -> Option<Duration> {
        self.stop.cancel();
        tick(&self.heartbeat);
        let heartbeat = *self
            .heartbeat
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        heartbeat.suspended().then(|| heartbeat.longest_gap())
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

fn tick(heartbeat: &Mutex<Heartbeat>) {
    heartbeat
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .tick(Instant::now(), SystemTime::now());
}

/// Why a connection was given up on the way back to the foreground.
pub fn unanswered_check() -> String {
    format!(
        "the server did not answer within {} s after kaiport came back from the background",
        CHECK_TIMEOUT.as_secs_f32()
    )
}

/// Why a transfer that did not move after a suspension ended.
pub fn stalled_transfer() -> String {
    format!(
        "the transfer was cut while kaiport was in the background (nothing moved for {} s after \
         it came back); retry it",
        TRANSFER_STALL.as_secs()
    )
}

/// Why a transfer over a connection that was given up ended.
pub fn transfer_on_lost_connection() -> String {
    format!("the transfer was cut: {}", unanswered_check())
}

/// What the model is told, in the conversation, when its turn was ended by a suspension.
pub fn interrupted_note_for_model(suspended: Duration) -> String {
    format!(
        "[Note from kaiport, not from the user] Your previous turn was stopped: kaiport was \
         suspended in the background for about {} while you were working, and it does not go \
         on with a screen that may have changed. A command you typed may still be running, or \
         may have ended; the terminal may show something else now. Look again (read_screen, or \
         a read-only command) before you act on anything you saw before.",
        duration_in_words(suspended)
    )
}

/// What the user is told when the turn was ended by a suspension (`extra`: what the turn
/// itself said on ending, e.g. that a command may still be running).
pub fn interrupted_note_for_user(suspended: Duration, extra: Option<&str>) -> String {
    let mut note = format!(
        "kaiport was in the background for about {}, so Pilot did not go on with a screen that \
         may have changed. Send a message to continue.",
        duration_in_words(suspended)
    );
    if let Some(extra) = extra {
        note.push_str(&format!(" ({extra})"));
    }
    note
}

fn duration_in_words(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if seconds < 120 {
        format!("{seconds} s")
    } else if seconds < 2 * 3600 {
        format!("{} min", seconds / 60)
    } else {
        format!("{} h", seconds / 3600)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn regular_ticks_are_no_suspension_and_one_long_gap_is() {
        let start = Instant::now();
        let wall = SystemTime::now();
        let mut heartbeat = Heartbeat::new(start, wall);
        for i in 1..=10 {
            heartbeat.tick(start + HEARTBEAT * i, wall + HEARTBEAT * i);
        }
        assert!(!heartbeat.suspended());
        assert_eq!(heartbeat.longest_gap(), HEARTBEAT);
        let later = start + HEARTBEAT * 10 + Duration::from_secs(40);
        heartbeat.tick(later, wall + HEARTBEAT * 10 + Duration::from_secs(40));
        assert!(heartbeat.suspended());
        assert_eq!(heartbeat.longest_gap(), Duration::from_secs(40));
    }

    #[test]
    fn a_sleep_the_monotonic_clock_missed_shows_on_the_wall_clock() {
        let start = Instant::now();
        let wall = SystemTime::now();
        let mut heartbeat = Heartbeat::new(start, wall);
        heartbeat.tick(start + HEARTBEAT, wall + Duration::from_secs(600));
        assert!(heartbeat.suspended());
        // A wall clock set back is no gap.
        let mut heartbeat = Heartbeat::new(start, wall);
        heartbeat.tick(start + HEARTBEAT, wall - Duration::from_secs(600));
        assert!(!heartbeat.suspended());
    }

    #[test]
    fn the_notes_say_how_long() {
        assert!(interrupted_note_for_model(Duration::from_secs(75)).contains("about 75 s"));
        assert_eq!(
            interrupted_note_for_user(Duration::from_secs(600), Some("x")),
            "kaiport was in the background for about 10 min, so Pilot did not go on with a \
             screen that may have changed. Send a message to continue. (x)"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_blocked_runtime_is_a_suspension_and_a_running_one_is_not() {
        let background = Background::start();
        tokio::time::sleep(HEARTBEAT * 3).await;
        assert_eq!(background.end(), None);
        let background = Background::start();
        tokio::time::sleep(HEARTBEAT * 2).await;
        // Nothing on this runtime runs meanwhile, as in a suspended app.
        std::thread::sleep(SUSPENDED_AFTER + Duration::from_millis(200));
        let gap = background.end();
        assert!(gap.is_some_and(|gap| gap >= SUSPENDED_AFTER), "{gap:?}");
    }
}
