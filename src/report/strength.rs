//! What a match says about strength, in every report of `usicheck play`: the score, Elo with
//! its interval, LOS, the pentanomial counts, the SPRT's standing, and the chart of its LLR
//! over the games with both bounds.

use crate::play::{LlrPoint, MatchReport, SprtOutcome};
use std::fmt::Write as _;

/// The lines under the results table: score, Elo and normalised Elo with their 95 %
/// intervals, LOS and draw ratio; the pentanomial counts when pairs finished; the SPRT.
/// Nothing before a game finished.
pub fn strength_lines(report: &MatchReport) -> Vec<String> {
    let mut lines = Vec::new();
    let Some(estimate) = report.estimate else {
        return lines;
    };
    let signed = |value: Option<f64>, error: Option<f64>| match (value, error) {
        (Some(v), Some(e)) => format!("{v:+.1} ± {e:.1}"),
        (Some(v), None) => format!("{v:+.1}"),
        (None, _) => "—".to_owned(),
    };
    lines.push(format!(
        "score {:.3} · Elo {} (95 %) · nElo {} · LOS {:.1} % · draw ratio {:.1} %",
        estimate.score,
        signed(estimate.elo, estimate.elo_error),
        signed(estimate.nelo, estimate.nelo_error),
        estimate.los * 100.0,
        estimate.draw_ratio * 100.0
    ));
    let pairs = report.results.pairs;
    if pairs.iter().sum::<u64>() > 0 {
        lines.push(format!(
            "pentanomial [LL, LD, WL+DD, WD, WW] = {pairs:?} (colour-swapped pairs)"
        ));
    }
    if let Some(sprt) = report.sprt {
        lines.push(sprt_line(&sprt));
    }
    lines
}

/// The SPRT's test, its LLR against the bounds, and its decision.
pub fn sprt_line(sprt: &SprtOutcome) -> String {
    let test = sprt.test;
    format!(
        "SPRT elo0={} elo1={} alpha={} beta={} ({}): LLR {:.2} ({:.2}, {:.2}) after {} games: {}",
        test.elo0,
        test.elo1,
        test.alpha,
        test.beta,
        test.model.as_str(),
        sprt.llr,
        sprt.lower_bound,
        sprt.upper_bound,
        sprt.games,
        sprt.decision.as_str()
    )
}

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 220.0;
const MARGIN: f64 = 36.0;

/// The SPRT's LLR after each finished game as an inline SVG line chart, with the H1 bound
/// above and the H0 bound below; `None` without an SPRT or a finished game.
///
/// ```
/// use usicheck::play::LlrPoint;
/// use usicheck::report::llr_chart;
/// let curve = [LlrPoint { games: 1, llr: 0.4 }, LlrPoint { games: 2, llr: 1.1 }];
/// let svg = llr_chart(&curve, (-2.94, 2.94)).unwrap();
/// assert!(svg.starts_with("<svg") && svg.contains("H1 accepted at 2.94"));
/// assert!(llr_chart(&[], (-2.94, 2.94)).is_none());
/// ```
pub fn llr_chart(curve: &[LlrPoint], (lower, upper): (f64, f64)) -> Option<String> {
    let last = curve.last()?;
    let games = last.games.max(1) as f64;
    let low = curve.iter().map(|p| p.llr).fold(lower, f64::min) - 0.25;
    let high = curve.iter().map(|p| p.llr).fold(upper, f64::max) + 0.25;
    let x = |n: f64| MARGIN + n / games * (WIDTH - 2.0 * MARGIN);
    let y = |llr: f64| MARGIN / 2.0 + (high - llr) / (high - low) * (HEIGHT - MARGIN);
    let mut svg = format!(
        "<svg viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         role=\"img\"><title>the SPRT's log-likelihood ratio after each of {} games, \
         between its bounds {lower:.2} and {upper:.2}</title>",
        last.games
    );
    for (bound, colour, label) in [
        (upper, "#4e9a06", format!("H1 accepted at {upper:.2}")),
        (0.0, "#bbbbbb", "0".to_owned()),
        (lower, "#cc0000", format!("H0 accepted at {lower:.2}")),
    ] {
        let _ = write!(
            svg,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" \
             stroke-dasharray=\"4 3\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" \
             fill=\"{colour}\">{label}</text>",
            x(0.0),
            y(bound),
            x(games),
            y(bound),
            x(0.0) + 4.0,
            y(bound) - 3.0
        );
    }
    let points: Vec<String> = std::iter::once((0.0, 0.0))
        .chain(curve.iter().map(|p| (p.games as f64, p.llr)))
        .map(|(n, llr)| format!("{:.1},{:.1}", x(n), y(llr)))
        .collect();
    let _ = write!(
        svg,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#3465a4\" stroke-width=\"1.5\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{} games</text></svg>",
        points.join(" "),
        x(games),
        HEIGHT - 4.0,
        last.games
    );
    Some(svg)
}
