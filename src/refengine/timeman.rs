//! Time management with Shogidokoro semantics: `byoyomi` and `binc`/`winc` are usable on the
//! move being searched, on top of the remaining main time.

use super::faults::{Fault, FaultSet};
use crate::shogi::Color;
use crate::usi::Go;
use std::time::Duration;

/// How long one search may run: it stops starting new iterations after `soft` and aborts at
/// `hard`; a `soft` of zero (no time to spare) aborts as soon as an iteration is done. Both
/// count from the start of the timed search (`go`, or `ponderhit` for a ponder).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    pub soft: Duration,
    pub hard: Duration,
}

/// Shortest hard limit we ever give ourselves; a search stopped inside depth 1 answers with the
/// best move searched so far. The soft limit has no floor, so under a clock of a millisecond or
/// two the engine answers as soon as depth 1 is done instead of deepening for a fixed 5 ms.
const FLOOR_MS: u64 = 1;

/// How far past its byoyomi `overrun-byoyomi-by-10ms` answers: the GUI's grace G (100 ms,
/// RULES.md §0.3) and 10 ms, so that its `bestmove` is late by a hair.
const OVERRUN_PAST_GRACE_MS: u64 = 110;

/// The budget for `side` under `go`'s clock, keeping `margin_ms` back for pipe latency; `None`
/// when the clock sets no limit (`go` with no time fields).
///
/// ```
/// use usicheck::refengine::faults::FaultSet;
/// use usicheck::refengine::timeman::budget;
/// use usicheck::shogi::Color;
/// use usicheck::usi::Go;
/// let b = budget(&Go::byoyomi(0, 0, 1000), Color::Black, 100, &FaultSet::none()).unwrap();
/// assert_eq!(b.hard.as_millis(), 900);
/// ```
pub fn budget(go: &Go, side: Color, margin_ms: u64, faults: &FaultSet) -> Option<Budget> {
    let ms = |v: Option<i64>| v.map(|v| v.max(0) as u64);
    let clock = &go.clock;
    if let Some(movetime) = ms(go.movetime) {
        let ms = if faults.has(Fault::IgnoreMovetime) {
            movetime * 3
        } else {
            movetime.saturating_sub(margin_ms)
        };
        return Some(Budget {
            soft: ms_to(ms),
            hard: ms_to(ms.max(FLOOR_MS)),
        });
    }
    let (own, inc) = match (side, faults.has(Fault::SwappedClocks)) {
        (Color::Black, _) | (Color::White, true) => (ms(clock.btime), ms(clock.binc)),
        (Color::White, false) => (ms(clock.wtime), ms(clock.winc)),
    };
    let byoyomi = if faults.has(Fault::IgnoreByoyomi) {
        None
    } else {
        ms(clock.byoyomi)
    };
    if own.is_none() && byoyomi.is_none() && inc.is_none() {
        return None;
    }
    let own = own.unwrap_or(0);
    let mut inc = inc.unwrap_or(0);
    if faults.has(Fault::DoubleIncrement) {
        inc *= 2;
    }
    let byoyomi = byoyomi.unwrap_or(0);
    // GUIs send byoyomi or increment, not both; if both come, only the larger is counted on
    // (USI-GO-006).
    let per_move = if faults.has(Fault::ByoyomiPlusIncrement) {
        byoyomi + inc
    } else {
        byoyomi.max(inc)
    };
    let mut usable = own + per_move;
    if faults.has(Fault::OverrunByoyomi) && byoyomi > 0 {
        usable += 1000;
    }
    if faults.has(Fault::OverrunByoyomiBy10ms) && byoyomi > 0 {
        usable += OVERRUN_PAST_GRACE_MS;
    }
    if faults.has(Fault::OverrunSuddenDeath) && byoyomi == 0 && inc == 0 {
        usable += 1000;
    }
    let low_clock_ignored =
        faults.has(Fault::ClockIgnoredBelow1s) && byoyomi > 0 && (1..1000).contains(&own);
    if low_clock_ignored {
        usable += 1000;
    }
    let overrunning = low_clock_ignored
        || faults.has(Fault::OverrunByoyomi)
        || faults.has(Fault::OverrunByoyomiBy10ms)
        || faults.has(Fault::OverrunSuddenDeath)
        || faults.has(Fault::DoubleIncrement)
        || faults.has(Fault::ByoyomiPlusIncrement);
    let safe = if overrunning {
        usable
    } else {
        usable.saturating_sub(margin_ms)
    };
    let (soft, hard) = if overrunning {
        let all = safe.max(FLOOR_MS);
        (all, all)
    } else {
        let moves_left = go.movestogo.filter(|&n| n > 0).map_or(30, u64::from);
        // Byoyomi and increment are lost if unused, so the target spends them whole; a clock
        // that the margin eats whole gets depth 1 only, not the floor's deepening.
        let soft = (own / moves_left + per_move).min(safe);
        // An iteration still running at the target may finish on a tenth of the main time,
        // not on all of it: one move must not spend the clock the rest of the game needs.
        (soft, (soft + own / 10).min(safe).max(FLOOR_MS))
    };
    Some(Budget {
        soft: ms_to(soft),
        hard: ms_to(hard),
    })
}

fn ms_to(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(btime: i64, wtime: i64) -> Go {
        let mut go = Go::default();
        go.clock.btime = Some(btime);
        go.clock.wtime = Some(wtime);
        go
    }

    #[test]
    fn colours_are_absolute() {
        let c = clock(600_000, 1000);
        let white = budget(&c, Color::White, 100, &FaultSet::none()).unwrap();
        assert!(white.hard <= Duration::from_millis(900));
        let black = budget(&c, Color::Black, 100, &FaultSet::none()).unwrap();
        assert!(black.soft > Duration::from_secs(10));
    }

    #[test]
    fn increment_is_usable_on_this_move() {
        let mut c = clock(1000, 1000);
        c.clock.binc = Some(1000);
        c.clock.winc = Some(1000);
        let b = budget(&c, Color::Black, 100, &FaultSet::none()).unwrap();
        assert!(b.soft >= Duration::from_millis(1000));
        assert!(b.hard <= Duration::from_millis(1900));
    }

    #[test]
    fn one_move_spends_a_tenth_of_the_main_time_beyond_its_target() {
        let b = budget(
            &Go::byoyomi(2000, 2000, 1000),
            Color::Black,
            120,
            &FaultSet::none(),
        )
        .unwrap();
        assert_eq!((b.soft.as_millis(), b.hard.as_millis()), (1066, 1266));
        let overrun = FaultSet::from_names(["overrun-byoyomi"]).unwrap();
        let b = budget(&Go::byoyomi(2000, 2000, 1000), Color::Black, 120, &overrun).unwrap();
        assert_eq!((b.soft.as_millis(), b.hard.as_millis()), (4000, 4000));
    }

    #[test]
    fn a_clock_the_margin_eats_gives_depth_one_only() {
        let b = budget(
            &Go::byoyomi(0, 0, 100),
            Color::Black,
            120,
            &FaultSet::none(),
        )
        .unwrap();
        assert_eq!((b.soft.as_millis(), b.hard.as_millis()), (0, 1));
    }

    #[test]
    fn sudden_death_and_no_clock() {
        let b = budget(&clock(500, 500), Color::Black, 100, &FaultSet::none()).unwrap();
        assert_eq!(b.hard, Duration::from_millis(66));
        assert_eq!(
            budget(&Go::default(), Color::Black, 100, &FaultSet::none()),
            None
        );
    }
}
