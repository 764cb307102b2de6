//! The protocol-state coverage table of a campaign's reports: commands sent by state, command
//! and timing, and the share left once the cells behind known findings are set aside.

use crate::fuzzer::Summary;
use crate::fuzzer::coverage::{Coverage, Gap, Sent, State};
use schemars::JsonSchema;
use serde::Serialize;

/// The protocol-state coverage table (`usicheck fuzz --coverage` explains it): commands sent,
/// by the engine's state, the command and the time since the previous command.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CoverageReport {
    /// Reachable cells exercised at least once.
    pub exercised: usize,
    /// Cells a GUI can produce.
    pub reachable: usize,
    /// The same, leaving out the cells the campaign steered away from because a known
    /// finding's trigger is there (e.g. the mate-search row when `go mate` hangs).
    pub apart_from_known: ApartFromKnown,
    /// The timing columns, in order.
    pub gaps: Vec<&'static str>,
    /// One row per state and command reachable in it.
    pub rows: Vec<CoverageRow>,
    /// [`Coverage::table`], as the terminal shows it.
    #[serde(skip)]
    pub(super) table: String,
}

/// Coverage leaving out the cells behind known findings, which the campaign steered away from.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ApartFromKnown {
    /// Reachable cells left out.
    pub left_out: usize,
    /// Cells exercised, of those left in.
    pub exercised: usize,
    /// Cells left in.
    pub reachable: usize,
}

impl ApartFromKnown {
    pub fn of(summary: &Summary) -> ApartFromKnown {
        let ((exercised, reachable), left_out) = summary.reached_apart_from_known();
        ApartFromKnown {
            left_out,
            exercised,
            reachable,
        }
    }

    /// "apart from N cells behind known findings …", when the campaign steered away from any.
    pub fn line(&self) -> Option<String> {
        (self.left_out > 0).then(|| {
            format!(
                "apart from {} cells behind known findings (steered away from): {}/{} cells \
                 ({:.0} %)",
                self.left_out,
                self.exercised,
                self.reachable,
                100.0 * self.exercised as f64 / self.reachable.max(1) as f64
            )
        })
    }
}

/// One row of the table: per gap, how often the cell was exercised (null: unreachable).
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CoverageRow {
    /// The engine's protocol state.
    pub state: &'static str,
    /// The command sent in it.
    pub command: &'static str,
    /// Per timing column: commands sent in the cell; null for an unreachable cell.
    pub counts: Vec<Option<u64>>,
}

impl CoverageReport {
    /// The table of the campaign's coverage, as [`Coverage::table`] lays it out.
    pub fn new(summary: &Summary) -> CoverageReport {
        let coverage = &summary.coverage;
        let (exercised, reachable) = coverage.reached();
        let rows = State::ALL
            .into_iter()
            .flat_map(|state| Sent::ALL.into_iter().map(move |sent| (state, sent)))
            .filter(|&(state, sent)| {
                Gap::ALL
                    .iter()
                    .any(|&g| Coverage::reachable(state, sent, g))
            })
            .map(|(state, sent)| CoverageRow {
                state: state.name(),
                command: sent.name(),
                counts: Gap::ALL
                    .into_iter()
                    .map(|gap| {
                        Coverage::reachable(state, sent, gap)
                            .then(|| coverage.count(state, sent, gap))
                    })
                    .collect(),
            })
            .collect();
        CoverageReport {
            exercised,
            reachable,
            apart_from_known: ApartFromKnown::of(summary),
            gaps: Gap::ALL.into_iter().map(Gap::name).collect(),
            rows,
            table: coverage.table(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzer::Progress;

    #[test]
    fn the_cells_behind_known_findings_are_told_apart() {
        let mut coverage = Coverage::default();
        coverage.note(State::Idle, Sent::Go, Gap::Under1);
        coverage.note(State::MateSearch, Sent::Stop, Gap::Under1);
        let summary = Summary {
            seed: 1,
            progress: Progress::default(),
            findings: Vec::new(),
            waived: Vec::new(),
            coverage,
            steered_away: [crate::fuzzer::plan::Trigger::GoMate].into(),
        };
        let report = CoverageReport::new(&summary);
        // The mate-search row: six commands a GUI sends during a search, six timings each.
        assert_eq!(report.apart_from_known.left_out, 36);
        assert_eq!(report.apart_from_known.exercised, 1);
        assert_eq!(report.apart_from_known.reachable, report.reachable - 36);
        assert_eq!(
            report.apart_from_known.line().unwrap(),
            "apart from 36 cells behind known findings (steered away from): 1/250 cells (0 %)"
        );
        let nothing_known = Summary {
            steered_away: Default::default(),
            ..summary
        };
        assert_eq!(ApartFromKnown::of(&nothing_known).line(), None);
    }
}
