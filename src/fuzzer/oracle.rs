//! The oracles: every engine line judged against the reference rules and the GUI's view of
//! the protocol state.

use super::plan::Search;
use crate::observer::{MATE_CHECK_NODES, MATE_CHECK_TIME};
use crate::shogi::mate::{self, Limits, MateResult};
use crate::shogi::{Move, Position, Square, declaration};
use crate::usi::{BestMove, Checkmate, Command, Message, MoveToken, SpecialMove, StartPosition};
use std::fmt;

/// Which oracle a violation comes from; with the rule it is the key that groups findings.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Oracle {
    /// A move in `bestmove`, `ponder`, `pv` or `checkmate` that the rules reject.
    Legality,
    /// A reply missing, doubled or out of place for the protocol state.
    Protocol,
    /// A line that breaks the output grammar.
    Output,
    /// Killed by a signal.
    Crash,
    /// Exited by itself (with status and last message), not after `quit`.
    Exit,
    /// A deadline passed without the reply.
    Hang,
}

impl Oracle {
    pub const fn name(self) -> &'static str {
        match self {
            Oracle::Legality => "legality",
            Oracle::Protocol => "protocol",
            Oracle::Output => "output",
            Oracle::Crash => "crash",
            Oracle::Exit => "exit",
            Oracle::Hang => "hang",
        }
    }
}

impl fmt::Display for Oracle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One failed check: the oracle, the rule it breaks, what was seen, and after which command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub oracle: Oracle,
    pub rule: &'static str,
    pub detail: String,
    /// Index of the last command sent when it was seen (`None`: before any, i.e. the handshake;
    /// the command count: the closing `isready` or `quit`).
    pub step: Option<usize>,
}

impl Violation {
    /// The grouping key of findings.
    pub fn key(&self) -> (Oracle, &'static str) {
        (self.oracle, self.rule)
    }
}

/// A search the engine owes an answer for, and the position it was given.
#[derive(Clone, Debug)]
pub struct Pending {
    pub search: Search,
    pub position: Option<Position>,
}

/// The GUI's view of the engine: position given, search outstanding, `readyok`s owed.
#[derive(Clone, Debug, Default)]
pub struct Checker {
    /// The position of the last `position` line (`None` if illegal, malformed or none yet).
    pub position: Option<Position>,
    pub pending: Option<Pending>,
    /// `isready`s not yet answered.
    pub readyok_owed: u32,
    /// The last terminal reply answered a `go` (so a further one is a double answer).
    last_was_terminal: bool,
    /// `go` commands answered.
    pub answered: u64,
    /// A search `gameover` ended without its reply may still be running (an engine that
    /// ignores `gameover` keeps searching the old position): `pv`s are not judged until a
    /// terminal reply settles it, and a reply that fits only this search is its own.
    pub abandoned: Option<Pending>,
}

type Found = Option<(Oracle, &'static str, String)>;

impl Checker {
    /// Records a `go`.
    pub fn start(&mut self, search: Search) {
        self.pending = Some(Pending {
            search,
            position: self.position.clone(),
        });
        self.last_was_terminal = false;
    }

    /// Judges one stdout line; returns the first violation it shows.
    pub fn line(&mut self, text: &str) -> Found {
        let (message, diagnostics) = Message::parse(text);
        match message {
            Message::BestMove(b) => self
                .abandoned_reply(Some(&b))
                .unwrap_or_else(|| self.terminal(false).or_else(|| self.bestmove(&b))),
            Message::Checkmate(c) => self
                .abandoned_reply(None)
                .unwrap_or_else(|| self.terminal(true).or_else(|| self.checkmate(&c))),
            Message::ReadyOk => {
                if self.readyok_owed == 0 {
                    return Some((
                        Oracle::Protocol,
                        "USI-READY-001",
                        "`readyok` without `isready`".into(),
                    ));
                }
                self.readyok_owed -= 1;
                None
            }
            Message::Info(info) => {
                let pv = info.pv.as_ref().filter(|_| self.abandoned.is_none())?;
                let pos = self.pending.as_ref()?.position.as_ref()?;
                pv_violation(pos, pv).map(|d| (Oracle::Legality, "USI-INFO-011", d))
            }
            _ => None,
        }
        .or_else(|| {
            diagnostics.first().map(|d| {
                (
                    Oracle::Output,
                    d.rule,
                    format!("{}: {}", d.message, crate::engine::sanitise(text)),
                )
            })
        })
    }

    /// Accounts for a terminal reply (`bestmove`, or `checkmate` when `mate`).
    /// A `gameover` during a search: the search is abandoned, its reply no longer owed.
    pub fn game_over(&mut self) {
        if let Some(search) = self.pending.take() {
            self.abandoned = Some(search);
        }
    }

    /// A terminal reply while an abandoned search is unsettled: `Some` when it is that
    /// search's (a stray reply, tolerated while no `go` waits; after the next `go`, a move
    /// legal only in the abandoned position shows `gameover` did not end it), `None` when it
    /// answers the current search.
    fn abandoned_reply(&mut self, best: Option<&BestMove>) -> Option<Found> {
        let abandoned = self.abandoned.take()?;
        let Some(current) = &self.pending else {
            return Some(None);
        };
        let Some(MoveToken::Move(mv)) = best.map(|b| &b.best) else {
            return None;
        };
        let legal_there = abandoned.position.as_ref().is_some_and(|p| p.is_legal(*mv));
        let illegal_here = current.position.as_ref().is_some_and(|p| !p.is_legal(*mv));
        (legal_there && illegal_here).then(|| {
            Some((
                Oracle::Protocol,
                "USI-GAMEOVER-004",
                format!("`bestmove {mv}` answers the search `gameover` should have ended"),
            ))
        })
    }

    fn terminal(&mut self, mate: bool) -> Found {
        let what = if mate { "checkmate" } else { "bestmove" };
        let Some(pending) = &self.pending else {
            let (rule, why) = if self.last_was_terminal {
                ("USI-GO-002", "a second terminal reply for one `go`")
            } else {
                ("USI-GO-001", "a terminal reply without a `go`")
            };
            return Some((Oracle::Protocol, rule, format!("`{what}`: {why}")));
        };
        let is_mate_search = matches!(pending.search, Search::Mate(_));
        if is_mate_search != mate {
            self.pending = None;
            self.last_was_terminal = true;
            let rule = if is_mate_search {
                "USI-MATE-002"
            } else {
                "USI-GO-002"
            };
            return Some((
                Oracle::Protocol,
                rule,
                format!("`{what}` answers the wrong kind of `go`"),
            ));
        }
        None
    }

    fn bestmove(&mut self, b: &BestMove) -> Found {
        let pending = self.pending.take().expect("checked by terminal");
        self.last_was_terminal = true;
        self.answered += 1;
        let pos = pending.position.as_ref()?;
        let sfen = || pos.to_sfen();
        match &b.best {
            MoveToken::Move(m) => {
                if !pos.is_legal(*m) {
                    return Some((
                        Oracle::Legality,
                        "USI-BESTMOVE-002",
                        format!("bestmove {m} is illegal in {}", sfen()),
                    ));
                }
                let after = pos.after(*m);
                match &b.ponder {
                    Some(MoveToken::Move(p)) if after.is_legal(*p) => None,
                    None => None,
                    Some(p) => Some((
                        Oracle::Legality,
                        "USI-PONDER-001",
                        format!("ponder {p} is illegal after {m} in {}", sfen()),
                    )),
                }
            }
            MoveToken::Special(SpecialMove::Resign) => b.ponder.as_ref().map(|p| {
                (
                    Oracle::Protocol,
                    "USI-BESTMOVE-005",
                    format!("ponder {p} after resign"),
                )
            }),
            MoveToken::Special(SpecialMove::Win) => (!declaration(pos).is_valid()).then(|| {
                (
                    Oracle::Legality,
                    "USI-BESTMOVE-004",
                    format!("bestmove win but the declaration is invalid in {}", sfen()),
                )
            }),
            other => Some((
                Oracle::Legality,
                "USI-BESTMOVE-002",
                format!("bestmove {other} is not a move in {}", sfen()),
            )),
        }
    }

    fn checkmate(&mut self, c: &Checkmate) -> Found {
        let pending = self.pending.take()?;
        self.last_was_terminal = true;
        self.answered += 1;
        let pos = pending.position.as_ref()?;
        // The same budget as the scenario runner's always-on check, so a finding replays to
        // the same verdict.
        let limits = Limits::new()
            .with_nodes(MATE_CHECK_NODES)
            .with_time(MATE_CHECK_TIME);
        let tokens = match c {
            Checkmate::Mate(tokens) => tokens,
            Checkmate::NoMate => {
                return match mate::solve(pos, &limits) {
                    MateResult::Mate(line) => {
                        let line: Vec<String> = line.iter().map(ToString::to_string).collect();
                        Some((
                            Oracle::Legality,
                            "USI-MATE-004",
                            format!("`checkmate nomate`, but `{}` mates", line.join(" ")),
                        ))
                    }
                    MateResult::NoMate | MateResult::Unknown => None,
                };
            }
            Checkmate::Timeout | Checkmate::NotImplemented => return None,
        };
        // A token that is no move is the grammar check's (USI-MATE-010).
        let line: Option<Vec<Move>> = tokens.iter().map(MoveToken::as_move).collect();
        let line = line?;
        mate::verify(pos, &line, &limits).err().map(|e| {
            (
                Oracle::Legality,
                "USI-MATE-003",
                format!("checkmate line is not a mate in {}: {e}", pos.to_sfen()),
            )
        })
    }
}

/// Why a `pv` is not a legal sequence from `pos`, if it is not (a special word ends it).
fn pv_violation(pos: &Position, pv: &[MoveToken]) -> Option<String> {
    let mut p = pos.clone();
    for (i, t) in pv.iter().enumerate() {
        match t {
            MoveToken::Move(m) if p.is_legal(*m) => p.play_unchecked(*m),
            MoveToken::Special(_) => return None,
            other => {
                return Some(format!(
                    "pv move {} ({other}) is illegal from {}",
                    i + 1,
                    pos.to_sfen()
                ));
            }
        }
    }
    None
}

/// Whether `reply` (an engine line answering a `search`) is legal in the board an engine that
/// reads SFEN files mirrored (9 as 1) would have set up from `position_line`. Such a reply,
/// illegal in the real position, shows a misread `position sfen` (USI-POSITION-001), not a
/// broken move generator. `None` when the line is not an SFEN form the misreading changes.
pub fn legal_when_sfen_mirrored(position_line: &str, search: Search, reply: &str) -> Option<bool> {
    let Command::Position(cmd) = Command::parse(position_line) else {
        return None;
    };
    let StartPosition::Sfen(text) = &cmd.start else {
        return None;
    };
    // A drop's square does not move with the mirror while the pieces that made it illegal
    // (a nifu pawn, a king a pawn drop mates) do: a drop alone is no evidence.
    if let (Message::BestMove(best), _) = Message::parse(reply)
        && matches!(best.best, MoveToken::Move(Move::Drop { .. }))
    {
        return None;
    }
    let base = Position::from_sfen(text).ok()?;
    let mut misread = mirrored(&base);
    if misread == base {
        return None;
    }
    for &m in cmd.moves.iter().flatten() {
        if !misread.is_legal(m) {
            // The misreading engine would reject the line, not search a position.
            return None;
        }
        misread.play_unchecked(m);
    }
    let mut probe = Checker {
        position: Some(misread),
        ..Checker::default()
    };
    probe.start(search);
    Some(
        probe
            .line(reply)
            .is_none_or(|(oracle, ..)| oracle != Oracle::Legality),
    )
}

/// `pos` with its board's files read right to left (hands and side unchanged).
fn mirrored(pos: &Position) -> Position {
    let mut m = pos.clone();
    for sq in Square::all() {
        let file = 10 - sq.file();
        m.set_piece(
            sq,
            pos.piece_at(Square::new(file, sq.rank()).expect("on the board")),
        );
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn searching(sfen: &str) -> Checker {
        let mut c = Checker {
            position: Some(Position::from_sfen(sfen).unwrap()),
            ..Checker::default()
        };
        c.start(Search::Timed(Duration::from_secs(1)));
        c
    }

    #[test]
    fn a_legal_bestmove_and_ponder_pass_and_close_the_search() {
        let mut c = searching("startpos");
        assert_eq!(c.line("info depth 1 time 1 score cp 0 pv 7g7f 3c3d"), None);
        assert_eq!(c.line("bestmove 7g7f ponder 3c3d"), None);
        assert!(c.pending.is_none());
        let again = c.line("bestmove 7g7f").unwrap();
        assert_eq!((again.0, again.1), (Oracle::Protocol, "USI-GO-002"));
    }

    /// An engine that ignores `gameover` keeps searching the old position: its `pv`s are not
    /// charged to the next search, whatever `readyok`s come between, until a terminal reply.
    #[test]
    fn a_search_abandoned_by_gameover_is_not_judged_until_a_reply_settles_it() {
        let mut c = searching("startpos");
        c.game_over();
        c.readyok_owed += 1;
        assert_eq!(c.line("readyok"), None);
        c.start(Search::Infinite);
        assert_eq!(c.line("info depth 9 time 1 pv 7g7e"), None);
        assert_eq!(c.line("bestmove 7g7f"), None);
        c.start(Search::Infinite);
        let judged = c.line("info depth 1 time 1 pv 7g7e").map(|v| v.1);
        assert_eq!(judged, Some("USI-INFO-011"));
    }

    /// The abandoned search's own reply is no illegal move of the next search: a stray one is
    /// tolerated, one that comes after the next `go` shows `gameover` did not end the search.
    #[test]
    fn a_reply_of_the_abandoned_search_is_charged_to_gameover() {
        let white = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2";
        let mut c = searching(white);
        c.game_over();
        assert_eq!(c.line("bestmove 3c3d"), None, "stray, no `go` waiting");
        let mut c = searching(white);
        c.game_over();
        c.position = Some(Position::from_sfen("startpos").unwrap());
        c.start(Search::Infinite);
        let found = c.line("bestmove 3c3d").map(|v| (v.0, v.1));
        assert_eq!(found, Some((Oracle::Protocol, "USI-GAMEOVER-004")));
        assert!(
            c.pending.is_some(),
            "the new search is still owed its reply"
        );
    }

    #[test]
    fn illegal_moves_are_charged_to_their_rule() {
        let rule = |line: &str| searching("startpos").line(line).map(|v| v.1);
        assert_eq!(rule("bestmove 7g7e"), Some("USI-BESTMOVE-002"));
        assert_eq!(rule("bestmove 7g7f ponder 7g7f"), Some("USI-PONDER-001"));
        assert_eq!(
            rule("info depth 1 time 1 pv 7g7f 7g7f"),
            Some("USI-INFO-011")
        );
        assert_eq!(rule("bestmove win"), Some("USI-BESTMOVE-004"));
        assert_eq!(rule("bestmove resign"), None);
    }

    #[test]
    fn unprompted_replies_and_readyok_are_protocol_violations() {
        let mut c = Checker::default();
        assert_eq!(c.line("bestmove 7g7f").map(|v| v.1), Some("USI-GO-001"));
        assert_eq!(c.line("readyok").map(|v| v.1), Some("USI-READY-001"));
        c.readyok_owed = 1;
        assert_eq!(c.line("readyok"), None);
    }

    #[test]
    fn replies_legal_only_on_the_mirrored_board_show_a_misread_sfen() {
        let start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
        let sfen = format!("position sfen {start}");
        let legal = |line: &str, reply: &str| {
            legal_when_sfen_mirrored(line, Search::Timed(Duration::from_secs(1)), reply)
        };
        // Mirrored, the rook stands on 8h, where the bishop really is.
        assert_eq!(legal(&sfen, "bestmove 8h7h"), Some(true));
        assert_eq!(legal(&sfen, "info depth 1 pv 7g7f 8c8d 8h7h"), Some(true));
        assert_eq!(legal(&sfen, "bestmove 7g7e"), Some(false));
        assert_eq!(legal(&format!("{sfen} moves 2h3h"), "bestmove 8h7h"), None);
        assert_eq!(legal("position startpos", "bestmove 8h7h"), None);
        let symmetric = "position sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1";
        assert_eq!(legal(symmetric, "bestmove 5i5h"), None);
        // Nifu: a pawn on 2g, so P*2e is illegal; mirrored, the pawn stands on 8g and the
        // drop looks legal. A drop is no evidence of a misread board.
        let nifu = "position sfen 4k4/9/9/9/9/9/7P1/9/4K4 b P 1";
        assert_eq!(legal(nifu, "bestmove P*2e"), None);
    }

    #[test]
    fn checkmate_lines_are_verified() {
        let sfen = "4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1";
        let mut c = searching(sfen);
        c.pending.as_mut().unwrap().search = Search::Mate(None);
        assert_eq!(c.line("checkmate G*5b"), None);
        let mut c = searching(sfen);
        c.pending.as_mut().unwrap().search = Search::Mate(None);
        assert_eq!(c.line("checkmate G*5d").map(|v| v.1), Some("USI-MATE-003"));
    }
}
