//! Where the bundled suite and a fault's own rule list disagree, and why.
//!
//! Each fault of the catalogue names the rules it breaks. `usicheck selftest --exact` runs the
//! whole bundled suite against each fault: a named rule that the suite does not flag is
//! `missed`, and a flagged rule outside the list is `extra`. The sweep writes the table
//! (fault_gaps.tsv beside this file, embedded at build time); a fault not listed fails exactly
//! its named rules. `usicheck rules` counts a rule as proven by a fault only when the fault
//! names it and does not miss it.

use super::faults::Fault;
use crate::rules::RuleId;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::OnceLock;

/// The committed table, as `usicheck selftest --exact --write` left it.
pub const TABLE: &str = include_str!("fault_gaps.tsv");

/// What `--write` puts in the why column of an entry nobody has explained yet; a test refuses
/// it in the committed table.
pub const UNEXPLAINED: &str = "UNEXPLAINED";

/// A fault whose verdicts differ from its rule list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultGap {
    pub fault: String,
    /// Rules the fault names that the suite does not flag.
    pub missed: BTreeSet<RuleId>,
    /// Rules the suite flags beyond the fault's list.
    pub extra: BTreeSet<RuleId>,
    /// Why the suite differs from the fault's list.
    pub why: String,
}

/// Why a gap table does not parse: the line and what is wrong with it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("fault_gaps.tsv line {line}: {problem}")]
pub struct TableError {
    pub line: usize,
    pub problem: String,
}

fn rule_list(cell: &str, line: usize) -> Result<BTreeSet<RuleId>, TableError> {
    cell.split(',')
        .filter(|id| !id.is_empty())
        .map(|id| {
            id.parse().map_err(|e| TableError {
                line,
                problem: format!("{id}: {e}"),
            })
        })
        .collect()
}

/// Parses a gap table: `fault TAB missed TAB extra TAB why`, rules comma-separated, `#`
/// lines are comments.
///
/// ```
/// use usicheck::refengine::fault_gaps::parse;
/// let gaps = parse("slow-usiok\tUSI-READY-003\t\tno scenario tells them apart\n").unwrap();
/// assert_eq!(gaps[0].missed.len(), 1);
/// assert!(parse("slow-usiok\tUSI-NOPE-1\t\twhy\n").is_err());
/// ```
pub fn parse(text: &str) -> Result<Vec<FaultGap>, TableError> {
    let mut gaps = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        if raw.starts_with('#') || raw.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = raw.split('\t').collect();
        let [fault, missed, extra, why] = cells[..] else {
            return Err(TableError {
                line,
                problem: format!("expected 4 tab-separated cells, found {}", cells.len()),
            });
        };
        if Fault::ALL.iter().all(|f| f.name() != fault) {
            return Err(TableError {
                line,
                problem: format!("no fault named {fault}"),
            });
        }
        gaps.push(FaultGap {
            fault: fault.to_owned(),
            missed: rule_list(missed, line)?,
            extra: rule_list(extra, line)?,
            why: why.to_owned(),
        });
    }
    Ok(gaps)
}

/// Writes a gap table in the format [`parse`] reads, with the committed table's header.
pub fn render(gaps: &[FaultGap]) -> String {
    let mut text: String =
        TABLE
            .lines()
            .take_while(|l| l.starts_with('#'))
            .fold(String::new(), |mut text, line| {
                text.push_str(line);
                text.push('\n');
                text
            });
    let join =
        |set: &BTreeSet<RuleId>| set.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(",");
    for gap in gaps {
        let _ = writeln!(
            text,
            "{}\t{}\t{}\t{}",
            gap.fault,
            join(&gap.missed),
            join(&gap.extra),
            gap.why
        );
    }
    text
}

/// The committed table.
pub fn fault_gaps() -> &'static [FaultGap] {
    static GAPS: OnceLock<Vec<FaultGap>> = OnceLock::new();
    GAPS.get_or_init(|| parse(TABLE).expect("the committed fault_gaps.tsv parses (unit test)"))
}

/// The committed entry of `fault`, if it has one.
pub fn gap_of(fault: Fault) -> Option<&'static FaultGap> {
    fault_gaps().iter().find(|gap| gap.fault == fault.name())
}

/// The rules the bundled suite is known to flag for `fault`: its named rules minus the
/// missed ones.
///
/// ```
/// use usicheck::refengine::faults::Fault;
/// use usicheck::refengine::fault_gaps::proven_rules;
/// assert_eq!(proven_rules(Fault::NoIdName), [usicheck::rule!("USI-HANDSHAKE-002")]);
/// ```
pub fn proven_rules(fault: Fault) -> Vec<RuleId> {
    let missed = gap_of(fault).map(|gap| &gap.missed);
    fault
        .rules()
        .iter()
        .copied()
        .filter(|rule| missed.is_none_or(|m| !m.contains(rule)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_table_parses_and_every_entry_is_explained() {
        let gaps = parse(TABLE).unwrap();
        assert!(!gaps.is_empty());
        for gap in &gaps {
            assert!(
                !gap.why.trim().is_empty() && !gap.why.contains(UNEXPLAINED),
                "{}: the why column says nothing",
                gap.fault
            );
            assert!(
                !gap.missed.is_empty() || !gap.extra.is_empty(),
                "{}: an entry without a difference",
                gap.fault
            );
            let fault = Fault::ALL.iter().find(|f| f.name() == gap.fault).unwrap();
            for missed in &gap.missed {
                assert!(
                    fault.rules().contains(missed),
                    "{}: misses {missed}, which it does not name",
                    gap.fault
                );
            }
            for extra in &gap.extra {
                assert!(
                    !fault.rules().contains(extra),
                    "{}: {extra} is named, not extra",
                    gap.fault
                );
            }
        }
        let mut faults: Vec<&str> = gaps.iter().map(|g| g.fault.as_str()).collect();
        faults.sort_unstable();
        faults.dedup();
        assert_eq!(faults.len(), gaps.len(), "one entry per fault");
    }

    #[test]
    fn render_writes_what_parse_reads() {
        let gaps = parse(TABLE).unwrap();
        assert_eq!(parse(&render(&gaps)).unwrap(), gaps);
    }

    #[test]
    fn a_malformed_line_names_its_place() {
        let error = parse("# header\nslow-usiok\tUSI-READY-003\n").unwrap_err();
        assert_eq!(error.line, 2);
        assert!(error.to_string().contains("4 tab-separated cells"));
        assert!(parse("no-such-fault\t\t\twhy\n").is_err());
    }
}
