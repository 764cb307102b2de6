//! A scenario's timeline: its transcript as report.html draws it, bounded whatever the engine
//! printed. The first and last [`TIMELINE_END`] entries are kept, runs of `info` lines are
//! one entry with their count, the line the evidence quotes is marked, and the windows a
//! step waited in (a check's deadline, a silence) go with them.

use crate::engine::{Direction, TranscriptEntry};
use crate::rules::RuleId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Entries kept at each end of a timeline.
pub const TIMELINE_END: usize = 200;
/// Windows kept per scenario.
pub const MAX_WINDOWS: usize = 100;
/// Consecutive `info` lines from this many on are one entry.
const INFO_RUN: usize = 3;

/// Who wrote a timeline entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Speaker {
    /// usicheck, to the engine's stdin.
    Gui,
    /// The engine's stdout.
    Engine,
    /// The engine's stderr.
    Stderr,
    /// usicheck's own notes (process events).
    Note,
}

impl Speaker {
    /// The name report.json gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            Speaker::Gui => "gui",
            Speaker::Engine => "engine",
            Speaker::Stderr => "stderr",
            Speaker::Note => "note",
        }
    }
}

impl From<Direction> for Speaker {
    fn from(direction: Direction) -> Speaker {
        match direction {
            Direction::ToEngine => Speaker::Gui,
            Direction::FromEngine => Speaker::Engine,
            Direction::Stderr => Speaker::Stderr,
            Direction::Note => Speaker::Note,
        }
    }
}

/// One transcript line, or a run of `info` lines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TimelineEntry {
    /// Session clock, ms (to the microsecond).
    pub at_ms: f64,
    pub from: Speaker,
    /// The line, quoted (raw engine text, at most 200 characters with the length noted); for a
    /// run, its last line.
    pub text: String,
    /// Lines this entry stands for (a run of `info`), when more than one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 2))]
    pub count: Option<u64>,
    /// The time of a run's last line, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until_ms: Option<f64>,
    /// The line the failure's evidence quotes (present only when true).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub evidence: bool,
}

/// What a window is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WindowKind {
    /// A check waited this long for a line.
    Deadline,
    /// A check required silence meanwhile.
    Silence,
}

/// A time window a scenario step waited in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Window {
    pub kind: WindowKind,
    /// Session clock, ms.
    pub from_ms: f64,
    /// Session clock, ms.
    pub to_ms: f64,
    /// The rule the step checks (none for a setup step).
    pub rule: Option<RuleId>,
    /// What was awaited, e.g. "`bestmove` (legal) within 1000 ms".
    pub label: String,
}

/// The transcript of a scenario's (last) engine process as report.html draws it, bounded: the
/// first and last 200 entries, runs of 3 or more `info` lines as one entry with their count,
/// and the windows the checks waited in.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Timeline {
    /// The first entries.
    pub head: Vec<TimelineEntry>,
    /// Transcript lines left out between `head` and `tail` (the transcript file has them).
    pub omitted: u64,
    /// The last entries.
    pub tail: Vec<TimelineEntry>,
    /// Windows a check waited in (the first 100): a deadline for a line, or a silence.
    pub windows: Vec<Window>,
}

impl Timeline {
    /// The timeline of a transcript kept as `head`, `omitted` entries dropped from memory,
    /// then `tail`; `evidence` is the index (in `head` then `tail`) of the line the
    /// evidence quotes.
    pub fn new<'a>(
        head: &'a [TranscriptEntry],
        omitted: u64,
        tail: impl Iterator<Item = &'a TranscriptEntry>,
        evidence: Option<usize>,
        windows: Vec<Window>,
    ) -> Timeline {
        let tail: Vec<&TranscriptEntry> = tail.collect();
        let mut first = collapse(head.iter(), evidence);
        let mut last = collapse(
            tail.into_iter(),
            evidence.and_then(|i| i.checked_sub(head.len())),
        );
        let mut omitted = omitted;
        if omitted == 0 {
            first.append(&mut last);
        }
        // Keep the ends; what lies between is counted.
        if first.len() > TIMELINE_END && (omitted > 0 || first.len() > 2 * TIMELINE_END) {
            let cut = if omitted > 0 {
                first.split_off(TIMELINE_END)
            } else {
                let mut rest = first.split_off(TIMELINE_END);
                last = rest.split_off(rest.len() - TIMELINE_END);
                rest
            };
            omitted += cut.iter().map(lines).sum::<u64>();
        }
        if last.len() > TIMELINE_END {
            let cut: Vec<TimelineEntry> = last.drain(..last.len() - TIMELINE_END).collect();
            omitted += cut.iter().map(lines).sum::<u64>();
        }
        Timeline {
            head: first,
            omitted,
            tail: last,
            windows,
        }
    }

    /// Every entry kept, in order.
    pub fn entries(&self) -> impl Iterator<Item = &TimelineEntry> {
        self.head.iter().chain(&self.tail)
    }
}

fn lines(entry: &TimelineEntry) -> u64 {
    entry.count.unwrap_or(1)
}

fn is_info(entry: &TranscriptEntry) -> bool {
    entry.direction == Direction::FromEngine && entry.text.trim_start().starts_with("info")
}

/// The entries as timeline entries, runs of [`INFO_RUN`] or more `info` lines as one (the
/// evidence line stays on its own).
fn collapse<'a>(
    entries: impl Iterator<Item = &'a TranscriptEntry>,
    evidence: Option<usize>,
) -> Vec<TimelineEntry> {
    let entries: Vec<&TranscriptEntry> = entries.collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let run = entries[i..]
            .iter()
            .enumerate()
            .take_while(|(k, e)| is_info(e) && evidence != Some(i + k))
            .count();
        if run >= INFO_RUN {
            let (first, last) = (entries[i], entries[i + run - 1]);
            let mut entry = timeline_entry(last, false);
            entry.at_ms = ms(first.at_micros);
            entry.until_ms = Some(ms(last.at_micros));
            entry.count = Some(run as u64);
            out.push(entry);
            i += run;
        } else {
            out.push(timeline_entry(entries[i], evidence == Some(i)));
            i += 1;
        }
    }
    out
}

fn timeline_entry(entry: &TranscriptEntry, evidence: bool) -> TimelineEntry {
    TimelineEntry {
        at_ms: ms(entry.at_micros),
        from: entry.direction.into(),
        text: crate::quote::quote(&entry.text).into_owned(),
        count: None,
        until_ms: None,
        evidence,
    }
}

/// Session µs as ms.
pub fn ms(micros: u64) -> f64 {
    micros as f64 / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(at_micros: u64, direction: Direction, text: &str) -> TranscriptEntry {
        TranscriptEntry {
            at_micros,
            direction,
            text: text.to_owned(),
        }
    }

    #[test]
    fn info_runs_are_counted_and_the_evidence_stays_marked() {
        let mut entries = vec![entry(0, Direction::ToEngine, "go infinite")];
        for k in 1..=5 {
            entries.push(entry(
                k * 1000,
                Direction::FromEngine,
                &format!("info depth {k}"),
            ));
        }
        entries.push(entry(6000, Direction::FromEngine, "info depth 6 pv 7g7e"));
        entries.push(entry(7000, Direction::FromEngine, "info depth 7"));
        let timeline = Timeline::new(&entries, 0, std::iter::empty(), Some(6), Vec::new());
        let shown: Vec<(&str, Option<u64>, bool)> = timeline
            .entries()
            .map(|e| (e.text.as_str(), e.count, e.evidence))
            .collect();
        assert_eq!(
            shown,
            [
                ("go infinite", None, false),
                ("info depth 5", Some(5), false),
                ("info depth 6 pv 7g7e", None, true),
                ("info depth 7", None, false),
            ]
        );
        assert_eq!(timeline.head[1].until_ms, Some(5.0));
    }

    #[test]
    fn a_long_transcript_keeps_its_ends_and_counts_the_middle() {
        let entries: Vec<TranscriptEntry> = (0..1000)
            .map(|k| entry(k, Direction::ToEngine, &format!("isready {k}")))
            .collect();
        let timeline = Timeline::new(&entries, 0, std::iter::empty(), None, Vec::new());
        assert_eq!((timeline.head.len(), timeline.tail.len()), (200, 200));
        assert_eq!(timeline.omitted, 600);
        assert_eq!(timeline.tail.last().unwrap().text, "isready 999");
        let (head, tail) = entries.split_at(300);
        let timeline = Timeline::new(head, 5000, tail.iter(), None, Vec::new());
        assert_eq!((timeline.head.len(), timeline.tail.len()), (200, 200));
        assert_eq!(timeline.omitted, 5000 + 100 + 500);
    }
}
