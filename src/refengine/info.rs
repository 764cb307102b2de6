//! `info` lines as GUIs parse them: depth, seldepth, time, nodes, nps, hashfull, score,
//! multipv, and `pv` last.

use super::faults::{Fault, FaultSet};
use crate::shogi::{Color, Move};
use std::fmt::Write;

/// A search score from the side to move's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (pawn = 100).
    Cp(i32),
    /// Mate distance in plies: positive when the engine mates, negative when it is mated.
    Mate(i32),
}

/// One principal-variation report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvReport {
    pub depth: u32,
    pub seldepth: u32,
    pub time_ms: u64,
    pub nodes: u64,
    /// Permill of the hash table in use.
    pub hashfull: u32,
    pub score: Score,
    /// 1-based; `None` when MultiPV is 1.
    pub multipv: Option<usize>,
    /// Side to move at the root, needed to spell White's drops.
    pub root_side: Color,
    pub pv: Vec<Move>,
}

/// A move as the engine writes it: `7g7f`, `8h2b+`, `P*3d`.
pub fn move_text(m: Move, mover: Color, faults: &FaultSet) -> String {
    let text = m.to_string();
    if let Move::Drop { .. } = m {
        if faults.has(Fault::AtSignDrops) {
            return text.replace('*', "@");
        }
        if faults.has(Fault::LowercaseDrops) && mover == Color::White {
            return text.to_ascii_lowercase();
        }
    }
    text
}

/// Moves in a line from the root, each spelled for the side that plays it.
pub fn line_text(moves: &[Move], root_side: Color, faults: &FaultSet) -> Vec<String> {
    let mut side = root_side;
    moves
        .iter()
        .map(|&m| {
            let t = move_text(m, side, faults);
            side = !side;
            t
        })
        .collect()
}

impl PvReport {
    /// The `info …` line.
    ///
    /// ```
    /// use usicheck::refengine::faults::FaultSet;
    /// use usicheck::refengine::info::{PvReport, Score};
    /// use usicheck::shogi::Color;
    /// let r = PvReport { depth: 1, seldepth: 1, time_ms: 0, nodes: 5, hashfull: 0, score: Score::Mate(1),
    ///     multipv: None, root_side: Color::Black, pv: vec!["G*5b".parse().unwrap()] };
    /// assert_eq!(r.line(&FaultSet::none()),
    ///     "info depth 1 seldepth 1 time 0 nodes 5 nps 5000 hashfull 0 score mate 1 pv G*5b");
    /// ```
    pub fn line(&self, faults: &FaultSet) -> String {
        let mut s = String::from("info");
        if !faults.has(Fault::SeldepthWithoutDepth) {
            let _ = write!(s, " depth {}", self.depth);
        }
        let _ = write!(s, " seldepth {}", self.seldepth.max(self.depth));
        if !faults.has(Fault::PvWithoutTime) {
            let _ = write!(s, " time {}", self.time_ms);
        }
        let nodes_field = format!(" nodes {}", self.nodes);
        if !faults.has(Fault::PvNotLast) {
            s.push_str(&nodes_field);
        }
        let nps = self.nodes * 1000 / self.time_ms.max(1);
        let hashfull = if faults.has(Fault::HashfullOutOfRange) {
            1500
        } else {
            self.hashfull
        };
        let _ = write!(s, " nps {nps} hashfull {hashfull}");
        if faults.has(Fault::ExoticInfoTokens) {
            s.push_str(" cpuload 500 tbhits 0");
        }
        s.push_str(" score ");
        if faults.has(Fault::BoundBeforeScore) {
            s.push_str("lowerbound ");
        }
        s.push_str(&score_text(self.score, faults));
        if let Some(k) = self.multipv {
            let _ = write!(s, " multipv {k}");
        }
        let mut pv = line_text(&self.pv, self.root_side, faults);
        if pv.len() >= 2 && faults.has(Fault::SpecialTokenMidPv) {
            pv.insert(1, "rep_draw".to_string());
        }
        if !pv.is_empty() && faults.has(Fault::IllegalPvMove) {
            // The root move again, now for the other side: its origin is empty or not theirs.
            pv.insert(1, pv[0].clone());
        }
        if !pv.is_empty() {
            s.push_str(" pv ");
            s.push_str(&pv.join(" "));
        }
        if faults.has(Fault::PvNotLast) {
            s.push_str(&nodes_field);
        }
        if faults.has(Fault::StringWithPv) {
            s.push_str(" string searching");
        }
        s
    }
}

fn score_text(score: Score, faults: &FaultSet) -> String {
    match score {
        Score::Cp(cp) if faults.has(Fault::FractionalScore) => format!("cp {cp}.5"),
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(plies) => {
            let plies = if faults.has(Fault::MateSignFlipped) {
                -plies
            } else {
                plies
            };
            let plies = if faults.has(Fault::MateInMoves) {
                plies + plies.signum()
            } else {
                plies
            };
            if faults.has(Fault::MateAsCp) {
                format!("cp {}", plies.signum() * (1_000_000 - plies.abs()))
            } else if faults.has(Fault::UnknownMateDistance) {
                (if plies > 0 { "mate +" } else { "mate -" }).to_owned()
            } else {
                format!("mate {plies}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> PvReport {
        PvReport {
            depth: 3,
            seldepth: 5,
            time_ms: 10,
            nodes: 100,
            hashfull: 2,
            score: Score::Cp(-40),
            multipv: Some(2),
            root_side: Color::White,
            pv: vec!["P*5e".parse().unwrap(), "7g7f".parse().unwrap()],
        }
    }

    #[test]
    fn conformant_line_ends_with_pv() {
        assert_eq!(
            report().line(&FaultSet::none()),
            "info depth 3 seldepth 5 time 10 nodes 100 nps 10000 hashfull 2 score cp -40 multipv 2 pv P*5e 7g7f"
        );
    }

    #[test]
    fn faults_change_only_their_field() {
        let f = |name: &str| report().line(&FaultSet::from_names([name]).unwrap());
        assert!(f("pv-not-last").ends_with("pv P*5e 7g7f nodes 100"));
        assert!(f("lowercase-drops").contains("pv p*5e 7g7f"));
        assert!(f("at-sign-drops").contains("pv P@5e"));
        assert!(f("string-with-pv").ends_with("pv P*5e 7g7f string searching"));
        assert!(f("fractional-score").contains("cp -40.5"));
    }

    #[test]
    fn mate_scores_in_plies_with_sign() {
        let none = FaultSet::none();
        assert_eq!(score_text(Score::Mate(-2), &none), "mate -2");
        let as_cp = FaultSet::from_names(["mate-as-cp"]).unwrap();
        assert_eq!(score_text(Score::Mate(1), &as_cp), "cp 999999");
        let moves = FaultSet::from_names(["mate-in-moves"]).unwrap();
        assert_eq!(score_text(Score::Mate(1), &moves), "mate 2");
        let unknown = FaultSet::from_names(["unknown-mate-distance"]).unwrap();
        assert_eq!(score_text(Score::Mate(3), &unknown), "mate +");
        assert_eq!(score_text(Score::Mate(-2), &unknown), "mate -");
    }
}
