//! One game refereed by the reference rules: who moves, what the `go` says, and how the game
//! ends (mate, resignation, declaration, repetition, perpetual check, move limit, time, an
//! illegal move, a crash or a hang).

use super::adjudication::{Adjudicated, Adjudicator, Rules};
use super::player::{Failure, Player, Reply};
use super::time_control::{Clocks, TimeControl};
use crate::shogi::{Color, Game, Move, Repetition, declaration};
use crate::usi::{MoveToken, SpecialMove};
use std::time::{Duration, Instant};

/// How long a search without a clock (depth, nodes) may take before it counts as a hang.
pub const UNCLOCKED_PATIENCE: Duration = Duration::from_secs(60);

/// How long a reply is still awaited past its flag fall: a reply late by less than the
/// machine's load held things up is not judged late (as certify judges it), so the game goes on.
pub const LOAD_PATIENCE: Duration = Duration::from_secs(1);

/// Why a game ended.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// The side to move had no legal move.
    Mate,
    /// A `bestmove resign`.
    Resign,
    /// A valid `bestmove win` (USI-RULES-001).
    Declaration,
    /// The 4th occurrence of a position (USI-RULES-003).
    Repetition,
    /// The 4th occurrence while one side checked with every move (USI-RULES-004).
    PerpetualCheck,
    /// The move limit (USI-RULES-005).
    MoveLimit,
    /// The engines' own scores (`--adjudicate-resign`, `--adjudicate-draw`): a loss or a
    /// draw, never a fault.
    Adjudication,
    /// A `bestmove win` the 27-point rule rejects.
    InvalidDeclaration,
    /// A `bestmove` after the time left plus byoyomi or increment, plus the grace.
    Time,
    /// A move the reference rules reject (USI-RULES-006).
    IllegalMove,
    /// The engine process ended or closed its output.
    Crash,
    /// An owed reply never came (`usiok`, `readyok`, or `bestmove` to a search without clock).
    Hang,
    /// The run's time (`--time`) ended the game: unfinished, judged for neither side.
    CutShort,
}

impl Reason {
    /// Every reason, in the results table's order.
    pub const ALL: [Reason; 13] = [
        Reason::Mate,
        Reason::Resign,
        Reason::Declaration,
        Reason::Repetition,
        Reason::PerpetualCheck,
        Reason::MoveLimit,
        Reason::Adjudication,
        Reason::InvalidDeclaration,
        Reason::Time,
        Reason::IllegalMove,
        Reason::Crash,
        Reason::Hang,
        Reason::CutShort,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Mate => "mate",
            Reason::Resign => "resign",
            Reason::Declaration => "declaration",
            Reason::Repetition => "repetition",
            Reason::PerpetualCheck => "perpetual check",
            Reason::MoveLimit => "move limit",
            Reason::Adjudication => "adjudication",
            Reason::InvalidDeclaration => "invalid declaration",
            Reason::Time => "time",
            Reason::IllegalMove => "illegal move",
            Reason::Crash => "crash",
            Reason::Hang => "hang",
            Reason::CutShort => "cut short",
        }
    }

    /// A loss for this reason is the loser's own fault (the exit code's concern): it broke the
    /// rules or the protocol rather than being outplayed.
    pub fn is_fault(self) -> bool {
        matches!(
            self,
            Reason::InvalidDeclaration
                | Reason::Time
                | Reason::IllegalMove
                | Reason::Crash
                | Reason::Hang
        )
    }
}

/// Which side won, if any.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Winner {
    Black,
    White,
    Draw,
    /// Cut short by the run's time: no result.
    Unfinished,
}

impl Winner {
    fn loss_of(loser: Color) -> Winner {
        match loser {
            Color::Black => Winner::White,
            Color::White => Winner::Black,
        }
    }

    /// `gameover` word for `side` (`unfinished`: no `gameover` is sent).
    pub fn word_for(self, side: Color) -> &'static str {
        match (self, side) {
            (Winner::Draw, _) => "draw",
            (Winner::Unfinished, _) => "unfinished",
            (Winner::Black, Color::Black) | (Winner::White, Color::White) => "win",
            _ => "lose",
        }
    }
}

/// One move played (or the last reply that ended the game) with its time.
#[derive(Clone, Debug, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Ply {
    /// The move in USI spelling, or `resign`, `win`, the illegal text; empty when no reply
    /// came.
    pub usi: String,
    #[serde(serialize_with = "serialize_color")]
    #[schemars(schema_with = "color_schema")]
    pub side: Color,
    /// From `go` (or `ponderhit`) to `bestmove`; null when no reply came.
    pub used_ms: Option<f64>,
    /// What the mover was allowed (time left plus byoyomi or increment, the grace not
    /// included); null without a clock.
    pub allowed_ms: Option<f64>,
}

/// How a game is set up.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// Game number, from 1.
    pub number: usize,
    /// The `position` base: `startpos` or `sfen …`.
    pub base: String,
    /// Moves from the base before the game starts (an opening line), USI spelling.
    pub opening_moves: Vec<String>,
    pub engine_color: Color,
    /// The engine's time control, and its opponent's.
    pub control: TimeControl,
    pub opponent_control: TimeControl,
    /// Plies (opening moves included) after which the game is drawn.
    pub max_moves: usize,
    /// The engine ponders on its predicted move (`go ponder`, `ponderhit` or `stop`).
    pub ponder: bool,
    /// When the engines' scores end the game early.
    pub adjudication: Rules,
}

/// A game as played and refereed.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct GameRecord {
    /// From 1; the engine is Black in odd-numbered games.
    #[schemars(range(min = 1))]
    pub number: usize,
    /// The `position` base: `startpos` or `sfen …`.
    pub base: String,
    /// Moves of the opening line before the engines took over, USI spelling.
    pub opening_moves: Vec<String>,
    #[serde(serialize_with = "serialize_color")]
    #[schemars(schema_with = "color_schema")]
    pub engine_color: Color,
    /// Every reply of the game, the last one the one that ended it (when a reply did).
    pub plies: Vec<Ply>,
    pub winner: Winner,
    pub reason: Reason,
    /// The side that lost, when someone did.
    #[serde(skip)]
    pub loser: Option<Color>,
    /// What the referee saw, in words.
    pub detail: String,
    /// Late replies the machine's load excused (the game went on).
    pub notes: Vec<String>,
    /// Wall time of the game.
    pub seconds: f64,
    /// The engine's resident memory after `gameover`, in KiB, from /proc; null when the
    /// process was gone or the game was cut short (as for the next two).
    pub engine_rss_kib: Option<u64>,
    /// The engine's threads after `gameover`.
    pub engine_threads: Option<u64>,
    /// Processes the engine started that are still in its process group after `gameover`.
    pub engine_children: Option<u64>,
}

impl GameRecord {
    /// The engine under test's result: `win`, `lose`, `draw` or `unfinished`.
    pub fn engine_result(&self) -> &'static str {
        self.winner.word_for(self.engine_color)
    }

    /// The engine under test lost by its own fault.
    pub fn engine_at_fault(&self) -> bool {
        self.loser == Some(self.engine_color) && self.reason.is_fault()
    }
}

/// The end of a game, as the referee decides it.
struct Ending {
    winner: Winner,
    reason: Reason,
    loser: Option<Color>,
    detail: String,
}

impl Ending {
    fn loss(loser: Color, reason: Reason, detail: String) -> Ending {
        Ending {
            winner: Winner::loss_of(loser),
            reason,
            loser: Some(loser),
            detail,
        }
    }

    fn draw(reason: Reason, detail: String) -> Ending {
        Ending {
            winner: Winner::Draw,
            reason,
            loser: None,
            detail,
        }
    }

    /// `side`'s failure, unless the run's time was up (`cut`): then the wait was cut short.
    fn of_failure(side: Color, failure: Failure, cut: bool) -> Ending {
        match failure {
            _ if cut => Ending::cut_short(),
            Failure::Crash(how) => Ending::loss(side, Reason::Crash, how),
            Failure::Hang(how) => Ending::loss(side, Reason::Hang, how),
        }
    }

    fn cut_short() -> Ending {
        Ending {
            winner: Winner::Unfinished,
            reason: Reason::CutShort,
            loser: None,
            detail: "the run's time (--time) was up".into(),
        }
    }
}

/// The players of a game: the engine under test and its opponent.
pub struct Seats<'a> {
    pub engine: &'a mut Player,
    pub opponent: &'a mut Player,
}

impl Seats<'_> {
    fn of(&mut self, side: Color, engine_color: Color) -> &mut Player {
        if side == engine_color {
            self.engine
        } else {
            self.opponent
        }
    }
}

/// Plays one game; `None` when it was interrupted (Ctrl-C) before it ended.
pub fn play_game(seats: &mut Seats<'_>, spec: &GameSpec) -> Option<GameRecord> {
    let started = Instant::now();
    let mut plies = Vec::new();
    seats.engine.begin_game(spec.number);
    seats.opponent.begin_game(spec.number);
    let mut notes = Vec::new();
    let ending = referee(seats, spec, &mut plies, &mut notes);
    crate::engine::interrupted().is_none().then_some(())?;
    let engine_color = spec.engine_color;
    for side in Color::ALL {
        let player = seats.of(side, engine_color);
        if ending.reason == Reason::CutShort {
            player.abandon();
        } else if player.pid().is_some() {
            // As ShogiHome does: a search still running (a ponder, one past its time) is
            // stopped first.
            player.end_search();
            player.gameover(ending.winner.word_for(side));
        }
    }
    let sample = seats.engine.sample();
    Some(GameRecord {
        number: spec.number,
        base: spec.base.clone(),
        opening_moves: spec.opening_moves.clone(),
        engine_color,
        plies,
        winner: ending.winner,
        reason: ending.reason,
        loser: ending.loser,
        detail: ending.detail,
        notes,
        seconds: started.elapsed().as_secs_f64(),
        engine_rss_kib: sample.map(|s| s.rss_kib),
        engine_threads: sample.map(|s| s.threads),
        engine_children: sample.map(|s| s.children),
    })
}

/// Plays until the game ends, recording every ply.
fn referee(
    seats: &mut Seats<'_>,
    spec: &GameSpec,
    plies: &mut Vec<Ply>,
    notes: &mut Vec<String>,
) -> Ending {
    let engine_color = spec.engine_color;
    let mut game = match Game::from_usi(&base_sfen(&spec.base), &spec.opening_moves) {
        Ok(game) => game,
        Err(e) => return Ending::draw(Reason::MoveLimit, format!("bad opening: {e}")),
    };
    for side in Color::ALL {
        let player = seats.of(side, engine_color);
        if let Err(failure) = player.new_game() {
            return Ending::of_failure(side, failure, player.past_cut());
        }
    }
    let mut clocks = match engine_color {
        Color::Black => Clocks::each([spec.control, spec.opponent_control]),
        Color::White => Clocks::each([spec.opponent_control, spec.control]),
    };
    let mut moves: Vec<String> = spec.opening_moves.clone();
    // The engine's predicted move while it ponders on it (`--ponder`).
    let mut pondering: Option<String> = None;
    let mut adjudicator = Adjudicator::new(spec.adjudication);
    loop {
        if seats.engine.past_cut() {
            return Ending::cut_short();
        }
        let side = game.position().side_to_move();
        if !game.position().has_legal_moves() {
            return Ending::loss(side, Reason::Mate, format!("{side:?} has no legal move"));
        }
        if moves.len() >= spec.max_moves {
            return Ending::draw(Reason::MoveLimit, format!("{} plies played", moves.len()));
        }
        let player = seats.of(side, engine_color);
        player.set_ply(plies.len());
        let position = if moves.is_empty() {
            format!("position {}", spec.base)
        } else {
            format!("position {} moves {}", spec.base, moves.join(" "))
        };
        let allowance = clocks.allowance(side);
        let grace = player.grace();
        let patience = allowance.map_or(UNCLOCKED_PATIENCE, |a| a + grace + LOAD_PATIENCE);
        let predicted = if side == engine_color {
            pondering.take()
        } else {
            None
        };
        let reply = match predicted {
            // The predicted move was played: the ponder search goes on, timed from `ponderhit`.
            Some(predicted) if moves.last() == Some(&predicted) => player.ponderhit(patience),
            Some(_) => match player.stop() {
                Ok(()) => player.search(&position, &clocks.go(side), patience),
                Err(failure) => return Ending::of_failure(side, failure, player.past_cut()),
            },
            None => player.search(&position, &clocks.go(side), patience),
        };
        if crate::engine::interrupted().is_some() {
            return Ending::draw(Reason::Hang, "interrupted".into());
        }
        let allowed_ms = allowance.map(|a| a.as_secs_f64() * 1000.0);
        let (best, used, held_up, score) = match reply {
            Reply::Best {
                best,
                used,
                held_up,
                score,
            } => (best, used, held_up, score),
            Reply::NoReply if player.past_cut() => return Ending::cut_short(),
            Reply::NoReply => {
                plies.push(Ply {
                    usi: String::new(),
                    side,
                    used_ms: None,
                    allowed_ms,
                });
                return match allowance {
                    Some(a) => Ending::loss(
                        side,
                        Reason::Time,
                        format!(
                            "no `bestmove` within {} ms (+{} ms grace)",
                            a.as_millis(),
                            grace.as_millis()
                        ),
                    ),
                    None => Ending::loss(
                        side,
                        Reason::Hang,
                        format!("no `bestmove` within {} s", UNCLOCKED_PATIENCE.as_secs()),
                    ),
                };
            }
            Reply::Failed(failure) => return Ending::of_failure(side, failure, player.past_cut()),
        };
        let used_ms = used.as_secs_f64() * 1000.0;
        let text = best.best.to_string();
        plies.push(Ply {
            usi: text.clone(),
            side,
            used_ms: Some(used_ms),
            allowed_ms,
        });
        if let Some(a) = allowance
            && used > a + grace
        {
            let late = used - (a + grace);
            if late > held_up {
                return Ending::loss(
                    side,
                    Reason::Time,
                    format!(
                        "`bestmove` after {used_ms:.0} ms, {} ms allowed (+{} ms grace)",
                        a.as_millis(),
                        grace.as_millis()
                    ),
                );
            }
            notes.push(format!(
                "ply {}: `bestmove` {} ms late, but the machine's load held things up {} ms \
                 meanwhile (not judged: load)",
                plies.len(),
                late.as_millis(),
                held_up.as_millis()
            ));
        }
        clocks.charge(side, used);
        let mv: Move = match best.best {
            MoveToken::Move(mv) => mv,
            MoveToken::Special(SpecialMove::Resign) => {
                return Ending::loss(side, Reason::Resign, format!("{side:?} resigned"));
            }
            MoveToken::Special(SpecialMove::Win) => {
                let claim = declaration(game.position());
                let facts = format!(
                    "king in camp {}, {} pieces in camp, {} points of {}, in check {}",
                    claim.king_in_camp,
                    claim.pieces_in_camp,
                    claim.points,
                    claim.required_points,
                    claim.in_check
                );
                return if claim.is_valid() {
                    Ending::loss(!side, Reason::Declaration, format!("valid: {facts}"))
                } else {
                    Ending::loss(
                        side,
                        Reason::InvalidDeclaration,
                        format!("invalid: {facts}"),
                    )
                };
            }
            other => {
                return Ending::loss(
                    side,
                    Reason::IllegalMove,
                    format!("`bestmove {other}` is not a move"),
                );
            }
        };
        if let Err(e) = game.play(mv) {
            return Ending::loss(
                side,
                Reason::IllegalMove,
                format!("`{mv}` is illegal in {}", e.sfen),
            );
        }
        moves.push(mv.to_string());
        match game.repetition() {
            Some(Repetition::Draw) => {
                return Ending::draw(Reason::Repetition, "the same position a 4th time".into());
            }
            Some(Repetition::PerpetualCheck { loser }) => {
                return Ending::loss(
                    loser,
                    Reason::PerpetualCheck,
                    format!("the same position a 4th time, {loser:?} checking with every move"),
                );
            }
            None => {}
        }
        // A mate on the board ends the game as a mate (at the top of the loop), as fastchess
        // judges the board before the scores.
        if let Some(adjudicated) = adjudicator.after_move(side, score, moves.len())
            && game.position().has_legal_moves()
        {
            return match adjudicated {
                Adjudicated::Lost { loser, detail } => {
                    Ending::loss(loser, Reason::Adjudication, detail)
                }
                Adjudicated::Drawn { detail } => Ending::draw(Reason::Adjudication, detail),
            };
        }
        if let (true, true, Some(_), Some(MoveToken::Move(predicted))) =
            (spec.ponder, side == engine_color, allowance, best.ponder)
            && game.position().is_legal(predicted)
        {
            let position = format!(
                "position {} moves {} {predicted}",
                spec.base,
                moves.join(" ")
            );
            let go_ponder = clocks.go(side).replacen("go ", "go ponder ", 1);
            if let Err(failure) = seats.engine.ponder(&position, &go_ponder) {
                return Ending::of_failure(side, failure, seats.engine.past_cut());
            }
            pondering = Some(predicted.to_string());
        }
    }
}

/// The SFEN of a `position` base (`startpos` or `sfen …`).
pub fn base_sfen(base: &str) -> String {
    match base.strip_prefix("sfen ") {
        Some(sfen) => sfen.trim().to_owned(),
        None => crate::shogi::Position::startpos().to_sfen(),
    }
}

/// Colours in reports: `black`, `white`.
pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn serialize_color<S: serde::Serializer>(color: &Color, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(color_name(*color))
}

/// The schema of a colour as [`serialize_color`] writes it.
fn color_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "enum": [color_name(Color::Black), color_name(Color::White)] })
}
