//! The engine's own opening book, used when the GUI turns `USI_OwnBook` on (off by default, so
//! every other scenario sees searched moves): one line from the start position. A book move is
//! played at once, without a search, and still reported with an `info … pv` line giving the
//! book line, as USI 2.0 asks (USI-EXT-006).

use super::info::{PvReport, Score};
use crate::shogi::{Move, Position};

/// The book: the start position's first move and the reply it expects (the ponder move).
const START_LINE: [&str; 2] = ["2g2f", "8c8d"];

/// The book line for `position`, when the book has one: the start position only (by its key,
/// so whatever moves led back to it).
///
/// ```
/// use usicheck::refengine::book;
/// use usicheck::shogi::Position;
/// let line = book::line_for(&Position::startpos()).unwrap();
/// assert_eq!(line[0].to_string(), "2g2f");
/// assert!(book::line_for(&Position::startpos().after(line[0])).is_none());
/// ```
pub fn line_for(position: &Position) -> Option<Vec<Move>> {
    (position.key() == Position::startpos().key()).then(|| {
        START_LINE
            .iter()
            .map(|text| text.parse().expect("a valid book move"))
            .collect()
    })
}

/// The report of a book move: depth 1, no nodes searched, a level score, the book line as
/// its `pv`.
pub fn report(line: Vec<Move>, root: &Position) -> PvReport {
    PvReport {
        depth: 1,
        seldepth: 1,
        time_ms: 0,
        nodes: 0,
        hashfull: 0,
        score: Score::Cp(0),
        multipv: None,
        root_side: root.side_to_move(),
        pv: line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refengine::faults::FaultSet;

    #[test]
    fn the_book_line_is_legal_and_reported_with_its_pv() {
        let root = Position::startpos();
        let line = line_for(&root).unwrap();
        let mut position = root.clone();
        for &m in &line {
            assert!(position.is_legal(m), "{m}");
            position = position.after(m);
        }
        assert_eq!(
            report(line, &root).line(&FaultSet::none()),
            "info depth 1 seldepth 1 time 0 nodes 0 nps 0 hashfull 0 score cp 0 pv 2g2f 8c8d"
        );
    }
}
