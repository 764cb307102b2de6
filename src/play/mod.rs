//! `usicheck play`: whole games between the engine and an opponent, driven as a GUI's game
//! loop drives them (one process for all games, `isready` and `usinewgame` before each,
//! the whole history with every `position`, the clocks counted down), refereed by the
//! reference rules, every engine line judged by the same always-on observer as certify.
//!
//! Whole games reveal what scenarios cannot: a clock mishandled once the main time runs low,
//! a declaration a point short, a perpetual check walked into, memory that grows each game, a
//! crash at the third `usinewgame`.

pub mod adjudication;
mod game;
mod openings;
mod player;
pub mod record;
pub mod stats;
mod time_control;

pub use game::{
    GameRecord, GameSpec, Ply, Reason, Seats, UNCLOCKED_PATIENCE, Winner, base_sfen, color_name,
    play_game,
};
pub use openings::{Book, Opening, Order};
pub use player::{Failure, Place, Player, PlayerConfig, Reply, Sample, Violation};
pub use time_control::{Clocks, TimeControl};

use crate::engine::SearchSlots;
use crate::pool::{Pool, Worker};
use crate::rules::{Claims, Profile, Verdict};
use crate::shogi::Color;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The move limit of USI-RULES-005 when none is given (the CSA's 256).
pub const DEFAULT_MAX_MOVES: usize = 256;

/// Resident memory growth over the match (the fitted trend, see [`sustained_growth`]) that is
/// still no leak (hash tables and caches settle within the first games), in KiB.
pub const DEFAULT_LEAK_TOLERANCE_KIB: u64 = 64 * 1024;

/// Threads gained over the match that are still no leak.
const THREAD_TOLERANCE: f64 = 2.0;

/// Child processes gained over the match that are still no leak: none.
const CHILD_TOLERANCE: f64 = 0.5;

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct Settings {
    pub engine: PlayerConfig,
    pub opponent: PlayerConfig,
    pub profile: Profile,
    pub claims: Claims,
    pub control: TimeControl,
    /// The opponent's time control, when not the engine's (`--opponent-tc`).
    pub opponent_control: Option<TimeControl>,
    pub games: usize,
    /// Games `2n` and `2n + 1` (from 0) start from the book's opening of pair `n`, colours
    /// swapped.
    pub book: Book,
    pub max_moves: usize,
    /// The run's time: no game starts after it, and the game in progress is cut short then.
    pub time: Option<Duration>,
    pub leak_tolerance_kib: u64,
    /// The engine ponders (`USI_Ponder` set, `go ponder` on its predicted move).
    pub ponder: bool,
    /// Games played at once, each job with its own engine and opponent processes.
    pub jobs: usize,
    /// The cores all jobs' engines share, one search per core as certify runs them (none:
    /// not limited).
    pub search_slots: Option<Arc<SearchSlots>>,
    /// `--sprt`: no game starts once the test has decided.
    pub sprt: Option<stats::Sprt>,
    /// `--adjudicate-resign`, `--adjudicate-draw`.
    pub adjudication: adjudication::Rules,
}

/// A finished match.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct MatchReport {
    /// The engine's `id name`, if its handshake gave one.
    pub engine_name: Option<String>,
    /// The opponent's `id name`, if its handshake gave one.
    pub opponent_name: Option<String>,
    /// The engine's time control as `--tc` spells it (`1s+100ms`, `60s+1s/inc`,
    /// `movetime=500ms`, `depth=3`, `nodes=100`).
    pub control: String,
    /// The opponent's (`--opponent-tc`), when not the engine's.
    pub opponent_control: Option<String>,
    /// The seed the openings were drawn with (`--seed`), when drawn at random
    /// (`--opening-order random`, `--random-plies`).
    pub seed: Option<u64>,
    /// The adjudication rules the games were played under.
    pub adjudication: adjudication::Rules,
    /// Every game played (a game cut short by `--time` included), by number.
    pub games: Vec<GameRecord>,
    /// The rules the engine broke, each once, where it first showed.
    pub violations: Vec<Violation>,
    /// Every always-on verdict of the engine's lines.
    #[serde(skip)]
    pub verdicts: Vec<Verdict>,
    /// Games not played: interrupted, past `--time`, or after the SPRT decided (a game cut
    /// short is played).
    pub games_skipped: usize,
    /// Ctrl-C (or another signal) stopped the match.
    pub interrupted: bool,
    /// Wall time of the match.
    pub seconds: f64,
    /// The finished games' results, from the engine's side.
    pub results: stats::Results,
    /// What they say about strength, computed as fastchess computes it (over the pairs when
    /// any finished, else over the games); null before a game finished.
    pub estimate: Option<stats::Estimate>,
    /// The `--sprt` test, if one was asked for: where it stood when it stopped the match (the
    /// games in progress then still finish and count in `estimate`), or after the last game.
    pub sprt: Option<SprtOutcome>,
    /// The test's LLR after each finished game, in the order they finished (empty without
    /// `--sprt`).
    pub llr_curve: Vec<LlrPoint>,
}

/// The SPRT's log-likelihood ratio once `games` games had finished.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct LlrPoint {
    /// Finished games.
    pub games: u64,
    /// The log-likelihood ratio of H1 against H0.
    pub llr: f64,
}

/// Where an SPRT stood when it stopped the match, or at the end of the games.
#[derive(Clone, Copy, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct SprtOutcome {
    #[serde(flatten)]
    pub test: stats::Sprt,
    /// H0 is accepted at or below it: ln(beta / (1 - alpha)).
    pub lower_bound: f64,
    /// H1 is accepted at or above it: ln((1 - beta) / alpha).
    pub upper_bound: f64,
    /// The log-likelihood ratio of H1 against H0.
    pub llr: f64,
    /// `h1` (exit 0), `h0` (exit 3), or `continue`: `--games` ran out first (exit 4).
    pub decision: stats::Decision,
    /// The finished games it counted.
    pub games: u64,
}

impl SprtOutcome {
    fn of(test: stats::Sprt, results: &stats::Results) -> SprtOutcome {
        let llr = test.llr(results);
        let (lower_bound, upper_bound) = test.bounds();
        SprtOutcome {
            test,
            lower_bound,
            upper_bound,
            llr,
            decision: test.decide(llr),
            games: results.win + results.draw + results.loss,
        }
    }
}

/// A finished game's result for the statistics; `None` when it was cut short.
fn result_of(game: &GameRecord) -> Option<(usize, stats::GameResult)> {
    let result = match game.engine_result() {
        "win" => stats::GameResult::Win,
        "draw" => stats::GameResult::Draw,
        "lose" => stats::GameResult::Loss,
        _ => return None,
    };
    Some((game.number, result))
}

/// The games finished so far and the SPRT's decision, shared by the jobs: the first bound
/// crossed stops the match (the games in progress finish and count in the estimate).
struct Sequential {
    sprt: Option<stats::Sprt>,
    state: Mutex<SequentialState>,
}

#[derive(Default)]
struct SequentialState {
    finished: Vec<(usize, stats::GameResult)>,
    decided: Option<SprtOutcome>,
    curve: Vec<LlrPoint>,
}

impl Sequential {
    fn record(&self, game: &GameRecord) {
        let Some(test) = self.sprt else { return };
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let Some(result) = result_of(game) else {
            return;
        };
        state.finished.push(result);
        let results = stats::Results::tally(state.finished.iter().copied());
        let outcome = SprtOutcome::of(test, &results);
        state.curve.push(LlrPoint {
            games: outcome.games,
            llr: outcome.llr,
        });
        if state.decided.is_none() && outcome.decision != stats::Decision::Continue {
            state.decided = Some(outcome);
        }
    }

    fn decided(&self) -> Option<SprtOutcome> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).decided
    }

    fn curve(&self) -> Vec<LlrPoint> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.curve.clone()
    }
}

impl MatchReport {
    /// Games the engine lost by its own fault (time, illegal move, invalid declaration,
    /// crash, hang).
    pub fn faults(&self) -> impl Iterator<Item = &GameRecord> {
        self.games.iter().filter(|g| g.engine_at_fault())
    }
}

/// The spec of game `index` (from 0).
fn spec(settings: &Settings, index: usize) -> GameSpec {
    let opening = settings.book.opening(index / 2);
    GameSpec {
        number: index + 1,
        base: opening.base,
        opening_moves: opening.moves,
        engine_color: if index.is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        },
        control: settings.control,
        opponent_control: settings.opponent_control.unwrap_or(settings.control),
        max_moves: settings.max_moves,
        ponder: settings.ponder,
        adjudication: settings.adjudication,
    }
}

/// What one job (an engine and an opponent process, games one after another) came to.
struct JobResult {
    engine_name: Option<String>,
    opponent_name: Option<String>,
    games: Vec<GameRecord>,
    violations: Vec<Violation>,
    verdicts: Vec<Verdict>,
}

/// Plays the match, calling `on_game` after each game with its record and the engine's and the
/// opponent's transcripts of it. Each of the `jobs` keeps its engine and opponent processes
/// for all its games (restarted only after a crash), taking the next game not yet started.
pub fn play_match(
    settings: &Settings,
    on_game: impl FnMut(&GameRecord, &str, &str) + Send,
) -> MatchReport {
    let started = Instant::now();
    let on_game = Mutex::new(on_game);
    let sequential = Sequential {
        sprt: settings.sprt,
        state: Mutex::default(),
    };
    // No game starts once the time is up or the SPRT has decided.
    let over = || {
        settings
            .time
            .is_some_and(|limit| started.elapsed() >= limit)
            || sequential.decided().is_some()
    };
    let mut results: Vec<(usize, JobResult)> = Vec::new();
    Pool::new(settings.jobs)
        .items(settings.games)
        .stop_when(&over)
        .run(
            |worker| {
                worker.send((
                    worker.number(),
                    run_job(settings, started, worker, &on_game, &sequential),
                ))
            },
            |finished| results.push(finished),
        );
    // The jobs in their order, whichever finished first, as the merge below has always taken them.
    results.sort_by_key(|(number, _)| *number);
    let mut games: Vec<GameRecord> = Vec::new();
    let mut violations: Vec<Violation> = Vec::new();
    let mut verdicts = Vec::new();
    let (mut engine_name, mut opponent_name) = (None, None);
    for (_, result) in results {
        engine_name = engine_name.or(result.engine_name);
        opponent_name = opponent_name.or(result.opponent_name);
        games.extend(result.games);
        violations.extend(result.violations);
        verdicts.extend(result.verdicts);
    }
    games.sort_by_key(|g| g.number);
    // Each rule once, where it showed first.
    violations.sort_by_key(|v| (v.verdict.rule, v.place.game, v.place.ply));
    violations.dedup_by_key(|v| v.verdict.rule);
    violations.sort_by_key(|v| (v.place.game, v.place.ply));
    let results = stats::Results::tally(games.iter().filter_map(result_of));
    let sprt = sequential
        .decided()
        .or_else(|| settings.sprt.map(|test| SprtOutcome::of(test, &results)));
    MatchReport {
        engine_name,
        opponent_name,
        control: settings.control.to_string(),
        opponent_control: settings.opponent_control.map(|c| c.to_string()),
        seed: settings.book.seed(),
        adjudication: settings.adjudication,
        games_skipped: settings.games - games.len(),
        games,
        violations,
        verdicts,
        interrupted: crate::engine::interrupted().is_some(),
        seconds: started.elapsed().as_secs_f64(),
        estimate: stats::estimate(&results),
        results,
        sprt,
        llr_curve: sequential.curve(),
    }
}

/// One job: its own engine and opponent, games claimed from `worker` until none is left, the
/// time is up, the SPRT has decided or the run is interrupted.
fn run_job(
    settings: &Settings,
    started: Instant,
    worker: &Worker<'_, (usize, JobResult)>,
    on_game: &Mutex<impl FnMut(&GameRecord, &str, &str)>,
    sequential: &Sequential,
) -> JobResult {
    let player = |config: &PlayerConfig| {
        let mut player = Player::new(config.clone(), settings.profile, settings.claims.clone());
        player.set_cut_at(settings.time.map(|limit| started + limit));
        player.share_cores(settings.search_slots.clone());
        // The engine's own referee agrees with this one (USI-RULES-005, USI-EXT-019).
        player.set_if_declared("MaxMovesToDraw", &settings.max_moves.to_string());
        player.set_if_declared("EnteringKingRule", "CSARule27");
        player
    };
    let mut engine = player(&settings.engine);
    if settings.ponder {
        engine.set_if_declared("USI_Ponder", "true");
    }
    let mut opponent = player(&settings.opponent);
    let mut games = Vec::new();
    for index in worker.claims() {
        let mut seats = Seats {
            engine: &mut engine,
            opponent: &mut opponent,
        };
        let Some(record) = play_game(&mut seats, &spec(settings, index)) else {
            break;
        };
        if let Ok(mut on_game) = on_game.lock() {
            on_game(
                &record,
                &engine.game_transcript(),
                &opponent.game_transcript(),
            );
        }
        sequential.record(&record);
        games.push(record);
    }
    judge_leaks(&mut engine, &games, settings.leak_tolerance_kib);
    engine.quit();
    opponent.quit();
    JobResult {
        engine_name: engine.name.clone(),
        opponent_name: opponent.name.clone(),
        games,
        violations: engine.violations().to_vec(),
        verdicts: engine.take_verdicts(),
    }
}

/// The growth of `samples` (one per game, in order) over the match when it is sustained:
/// the least-squares slope times the games spanned, provided every sample of the last third
/// is above every sample of the first third. One noisy sample, at the end or in the middle,
/// does not make a trend (it can raise the slope, but not all of the last third); memory that
/// grows game after game does. `None` under three samples or without a sustained rise.
///
/// ```
/// use usicheck::play::sustained_growth;
/// assert_eq!(sustained_growth(&[100.0, 110.0, 120.0, 130.0]), Some(30.0));
/// // A spike in the last sample alone, or a middle one, is noise.
/// assert_eq!(sustained_growth(&[100.0, 100.0, 100.0, 100.0, 100.0, 200.0]), None);
/// assert_eq!(sustained_growth(&[100.0, 100.0, 300.0, 100.0, 100.0, 100.0]), None);
/// assert_eq!(sustained_growth(&[100.0, 200.0]), None);
/// ```
pub fn sustained_growth(samples: &[f64]) -> Option<f64> {
    let n = samples.len();
    if n < 3 {
        return None;
    }
    let third = n / 3;
    let first_max = samples[..third].iter().copied().fold(f64::MIN, f64::max);
    let last_min = samples[n - third..]
        .iter()
        .copied()
        .fold(f64::MAX, f64::min);
    if last_min <= first_max {
        return None;
    }
    let mean_x = (n - 1) as f64 / 2.0;
    let mean_y = samples.iter().sum::<f64>() / n as f64;
    let (mut covariance, mut variance) = (0.0, 0.0);
    for (x, y) in samples.iter().enumerate() {
        let dx = x as f64 - mean_x;
        covariance += dx * (y - mean_y);
        variance += dx * dx;
    }
    Some(covariance / variance * (n - 1) as f64)
}

/// USI-ROBUST-011: resident memory, threads or child processes that grow over the match as a
/// sustained trend (see [`sustained_growth`]) by more than their tolerance, judged on the
/// samples taken after each `gameover` (three games at least).
fn judge_leaks(engine: &mut Player, games: &[GameRecord], tolerance_kib: u64) {
    let rule = crate::rule!("USI-ROBUST-011");
    let sampled: Vec<&GameRecord> = games
        .iter()
        .filter(|g| g.engine_rss_kib.is_some())
        .collect();
    let (Some(first), Some(last)) = (sampled.first(), sampled.last()) else {
        return;
    };
    let span = format!("games {} to {}", first.number, last.number);
    let series = |field: fn(&GameRecord) -> Option<u64>| -> Vec<f64> {
        sampled
            .iter()
            .map(|g| field(g).unwrap_or(0) as f64)
            .collect()
    };
    let rss = series(|g| g.engine_rss_kib);
    if let Some(growth) = sustained_growth(&rss)
        && growth > tolerance_kib as f64
    {
        engine.charge(
            rule,
            format!(
                "resident memory grew {growth:.0} KiB over {span} (trend of {} samples, from \
                 {:.0} to {:.0} KiB; tolerance {tolerance_kib} KiB)",
                rss.len(),
                rss[0],
                rss[rss.len() - 1]
            ),
        );
    }
    for (what, values, tolerance) in [
        ("threads", series(|g| g.engine_threads), THREAD_TOLERANCE),
        (
            "child processes",
            series(|g| g.engine_children),
            CHILD_TOLERANCE,
        ),
    ] {
        if let Some(growth) = sustained_growth(&values)
            && growth > tolerance
        {
            engine.charge(
                rule,
                format!(
                    "{what} grew by {growth:.1} over {span} (from {:.0} to {:.0})",
                    values[0],
                    values[values.len() - 1]
                ),
            );
        }
    }
}
