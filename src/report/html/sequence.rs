//! A scenario's timeline as a sequence diagram: one row per transcript entry in time order
//! (times on the left, a pause of [`PAUSE_MS`] or more as a row of its own), usicheck's
//! lines as arrows to the engine's lifeline and the engine's back, and beside them the
//! windows the checks waited in (each timed search's clock, a step's deadline, a silence),
//! their ends drawn across the rows where they fall.

use super::super::timeline::{Speaker, Timeline, TimelineEntry, WindowKind};
use super::{attr, esc, shorten};
use crate::observer::TimedSearch;

const ROW: f64 = 18.0;
const TOP: f64 = 34.0;
const TIME_RIGHT: f64 = 74.0;
const GUI_X: f64 = 96.0;
const ENGINE_X: f64 = 880.0;
const LANES_X: f64 = 900.0;
const LANE_WIDTH: f64 = 78.0;
const LANES: usize = 4;
const WIDTH: f64 = LANES_X + LANE_WIDTH * LANES as f64 + 8.0;
/// Characters of a line shown on its arrow (the whole quote is its tooltip).
const SHOWN_CHARS: usize = 108;
/// A silence this long between two entries gets a row: waiting shows.
const PAUSE_MS: f64 = 100.0;

/// One row: an entry, a pause (ms), or the lines left out between head and tail.
enum Row<'a> {
    Entry(&'a TimelineEntry),
    Pause(f64),
    Omitted(u64),
}

/// A window beside the rows.
struct Band {
    kind: &'static str,
    from_ms: f64,
    to_ms: f64,
    label: String,
    title: String,
}

/// Writes the diagram of `timeline`, with the clocks of `timed_searches`.
pub(super) fn diagram(
    timeline: &Timeline,
    timed_searches: &[TimedSearch],
    transcript: Option<&str>,
    out: &mut String,
) {
    let omitted = timeline.omitted;
    let mut rows = with_pauses(&timeline.head);
    if omitted > 0 {
        rows.push(Row::Omitted(omitted));
    }
    rows.extend(with_pauses(&timeline.tail));
    // Row centres and times, for placing a time between rows.
    let times: Vec<(f64, f64)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, row)| match row {
            Row::Entry(entry) => Some((entry.at_ms, centre(i))),
            Row::Pause(_) | Row::Omitted(_) => None,
        })
        .collect();
    let entries = rows.iter().filter(|r| matches!(r, Row::Entry(_))).count();
    let height = TOP + ROW * rows.len() as f64 + 16.0;
    out.push_str(&format!(
        "<figure class=\"timeline\" data-entries=\"{}\" data-omitted=\"{omitted}\">\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"sequence diagram\">\n\
         <text class=\"head\" x=\"{TIME_RIGHT}\" y=\"14\" text-anchor=\"end\">time (s)</text>\
         <text class=\"head\" x=\"{GUI_X}\" y=\"14\">usicheck (GUI)</text>\
         <text class=\"head\" x=\"{ENGINE_X}\" y=\"14\" text-anchor=\"end\">engine</text>\
         <text class=\"head\" x=\"{LANES_X}\" y=\"14\">deadlines, silences</text>\n\
         <line class=\"lifeline\" x1=\"{GUI_X}\" y1=\"20\" x2=\"{GUI_X}\" y2=\"{height}\"/>\
         <line class=\"lifeline\" x1=\"{ENGINE_X}\" y1=\"20\" x2=\"{ENGINE_X}\" y2=\"{height}\"/>\n",
        entries,
    ));
    bands(timeline, timed_searches, &times, out);
    for (i, row) in rows.iter().enumerate() {
        match row {
            Row::Entry(entry) => entry_row(entry, centre(i), out),
            Row::Pause(ms) => out.push_str(&format!(
                "<text class=\"pause\" x=\"{TIME_RIGHT}\" y=\"{:.1}\" text-anchor=\"end\">\
                 ⋮ {:.2} s</text>\n",
                centre(i) + 4.0,
                ms / 1000.0
            )),
            Row::Omitted(count) => out.push_str(&format!(
                "<g class=\"omitted\" data-omitted=\"{count}\"><text x=\"{:.1}\" y=\"{:.1}\" \
                 text-anchor=\"middle\">… {count} lines left out{} …</text></g>\n",
                (GUI_X + ENGINE_X) / 2.0,
                centre(i) + 4.0,
                transcript.map_or(String::new(), |t| format!(": see {}", esc(t)))
            )),
        }
    }
    out.push_str("</svg>\n</figure>\n");
}

/// The rows of `entries`, a pause row wherever [`PAUSE_MS`] or more passed between two.
fn with_pauses(entries: &[TimelineEntry]) -> Vec<Row<'_>> {
    let mut rows = Vec::with_capacity(entries.len());
    let mut last: Option<f64> = None;
    for entry in entries {
        let at = entry.at_ms;
        if let Some(before) = last
            && at - before >= PAUSE_MS
        {
            rows.push(Row::Pause(at - before));
        }
        // A run of `info` lines ends at its last line.
        last = Some(entry.until_ms.unwrap_or(at));
        rows.push(Row::Entry(entry));
    }
    rows
}

fn centre(row: usize) -> f64 {
    TOP + ROW * row as f64 + ROW / 2.0
}

/// Where time `at_ms` falls among the rows' `times`.
fn y_at(times: &[(f64, f64)], at_ms: f64) -> f64 {
    let Some(&(first_t, first_y)) = times.first() else {
        return TOP;
    };
    if at_ms <= first_t {
        return first_y - ROW / 2.0;
    }
    match times.iter().position(|&(t, _)| t >= at_ms) {
        Some(k) => {
            let ((t0, y0), (t1, y1)) = (times[k - 1], times[k]);
            if t1 > t0 {
                y0 + (y1 - y0) * (at_ms - t0) / (t1 - t0)
            } else {
                y1
            }
        }
        None => times[times.len() - 1].1 + ROW / 2.0,
    }
}

fn bands(
    timeline: &Timeline,
    timed_searches: &[TimedSearch],
    times: &[(f64, f64)],
    out: &mut String,
) {
    let mut bands: Vec<Band> = timed_searches
        .iter()
        .map(|search| Band {
            kind: "clock",
            from_ms: search.at_ms,
            to_ms: search.at_ms + search.allowed_ms,
            label: format!(
                "{} {:.0}ms",
                search.kind.as_str().replace('_', " "),
                search.allowed_ms
            ),
            title: format!(
                "{}: {} ({})",
                search.rule,
                search.limit,
                search.timing.as_str().replace('_', " ")
            ),
        })
        .collect();
    bands.extend(timeline.windows.iter().map(|window| {
        let kind = match window.kind {
            WindowKind::Silence => "silence",
            WindowKind::Deadline => "deadline",
        };
        let rule = window.rule.map_or("setup", |r| r.as_str());
        let (from_ms, to_ms) = (window.from_ms, window.to_ms);
        Band {
            kind,
            from_ms,
            to_ms,
            label: format!(
                "{} {:.0}ms",
                rule.trim_start_matches("USI-"),
                to_ms - from_ms
            ),
            title: format!("{rule}: {}", window.label),
        }
    }));
    bands.sort_by(|a, b| a.from_ms.total_cmp(&b.from_ms));
    // Each band takes the first lane free at its start.
    let mut lane_ends = [f64::NEG_INFINITY; LANES];
    for band in &bands {
        let lane = lane_ends
            .iter()
            .position(|&end| end <= band.from_ms)
            .unwrap_or(LANES - 1);
        lane_ends[lane] = band.to_ms;
        let (y0, y1) = (y_at(times, band.from_ms), y_at(times, band.to_ms));
        let x = LANES_X + LANE_WIDTH * lane as f64;
        let end_line = if band.kind == "silence" {
            String::new()
        } else {
            format!(
                "<line class=\"due\" x1=\"{GUI_X}\" y1=\"{y1:.1}\" x2=\"{:.1}\" y2=\"{y1:.1}\"/>",
                x + LANE_WIDTH - 4.0
            )
        };
        out.push_str(&format!(
            "<g class=\"band {}\" data-window=\"{}\"><title>{}</title>{end_line}\
             <rect x=\"{x:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\">{}</text></g>\n",
            band.kind,
            band.kind,
            esc(&band.title),
            LANE_WIDTH - 4.0,
            (y1 - y0).max(2.0),
            x + 3.0,
            y0 + 10.0,
            esc(&shorten(&band.label, 15)),
        ));
    }
}

fn entry_row(entry: &TimelineEntry, y: f64, out: &mut String) {
    let at = entry.at_ms;
    let line = &entry.text;
    let (evidence, count) = (entry.evidence, entry.count);
    let shown = match count {
        Some(n) => format!(
            "info ×{n} until {:.3} s, last: {}",
            entry.until_ms.unwrap_or(at) / 1000.0,
            line
        ),
        None if entry.from == Speaker::Stderr => format!("stderr: {line}"),
        None => line.clone(),
    };
    let cut = shorten(&shown, SHOWN_CHARS);
    let title = if cut.len() < shown.len() || count.is_some() {
        format!("<title>{}</title>", esc(&shown))
    } else {
        String::new()
    };
    let class = format!(
        "entry {}{}{}",
        entry.from.as_str(),
        if count.is_some() { " run" } else { "" },
        if evidence { " evidence" } else { "" }
    );
    out.push_str(&format!(
        "<g class=\"{}\"{}>{title}",
        attr(&class),
        if evidence {
            " data-evidence=\"true\""
        } else {
            ""
        }
    ));
    if evidence {
        out.push_str(&format!(
            "<rect class=\"mark\" x=\"0\" y=\"{:.1}\" width=\"{ENGINE_X}\" height=\"{ROW}\"/>",
            y - ROW / 2.0
        ));
    }
    out.push_str(&format!(
        "<text class=\"time\" x=\"{TIME_RIGHT}\" y=\"{:.1}\" text-anchor=\"end\">{}{:.3}</text>",
        y + 4.0,
        if evidence { "▶ " } else { "" },
        at / 1000.0
    ));
    let arrow_y = y + 6.0;
    let text_y = y + 2.0;
    let shown = esc(&cut);
    match entry.from {
        Speaker::Gui => out.push_str(&format!(
            "<line class=\"arrow\" x1=\"{GUI_X}\" y1=\"{arrow_y:.1}\" x2=\"{:.1}\" y2=\"{arrow_y:.1}\"/>\
             <path class=\"head\" d=\"M{ENGINE_X} {arrow_y:.1} l-6 -3 v6 z\"/>\
             <text x=\"{:.1}\" y=\"{text_y:.1}\">{shown}</text>",
            ENGINE_X - 6.0,
            GUI_X + 6.0,
        )),
        Speaker::Engine | Speaker::Stderr => out.push_str(&format!(
            "<line class=\"arrow\" x1=\"{ENGINE_X}\" y1=\"{arrow_y:.1}\" x2=\"{:.1}\" y2=\"{arrow_y:.1}\"/>\
             <path class=\"head\" d=\"M{GUI_X} {arrow_y:.1} l6 -3 v6 z\"/>\
             <text x=\"{:.1}\" y=\"{text_y:.1}\" text-anchor=\"end\">{shown}</text>",
            GUI_X + 6.0,
            ENGINE_X - 6.0,
        )),
        Speaker::Note => out.push_str(&format!(
            "<text class=\"note\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{shown}</text>",
            (GUI_X + ENGINE_X) / 2.0,
            y + 4.0
        )),
    }
    out.push_str("</g>\n");
}
