//! The time-use chart: per time control, one bar per timed search, the time used as a share
//! of the time allowed (the deadline at 100 %, the grace G shaded before it), its margin
//! beside it. Overruns cross the deadline line in red.

use super::super::json::ScenarioEntry;
use super::{attr, esc, ms, shorten};
use crate::observer::{ClockKind, ReplyTiming, TimedSearch};

/// The time controls, in the order shown, with their headings.
const KINDS: [(ClockKind, &str); 7] = [
    (ClockKind::Byoyomi, "Byoyomi"),
    (ClockKind::Increment, "Increment (Fischer)"),
    (ClockKind::SuddenDeath, "Sudden death"),
    (ClockKind::Movetime, "movetime"),
    (ClockKind::Mate, "go mate limits"),
    (ClockKind::Stop, "stop latency"),
    (ClockKind::Ponderhit, "ponderhit (the clock it starts)"),
];

const ROW: f64 = 16.0;
const LABEL_WIDTH: f64 = 330.0;
const PLOT_WIDTH: f64 = 560.0;
const TEXT_WIDTH: f64 = 300.0;
const TOP: f64 = 22.0;

/// One bar: the search and the scenario it was in.
struct Point<'a> {
    search: &'a TimedSearch,
    scenario: &'a str,
    anchor: String,
}

/// Writes the time-use section for `scenarios`, linking each bar to its scenario's element id
/// (`scenario_id`).
pub(super) fn time_use(
    scenarios: &[ScenarioEntry],
    section_id: String,
    scenario_id: impl Fn(usize) -> String,
    out: &mut String,
) {
    let points: Vec<Point> = scenarios
        .iter()
        .enumerate()
        .flat_map(|(i, scenario)| {
            let anchor = scenario_id(i);
            scenario.timed_searches.iter().map(move |search| Point {
                search,
                scenario: &scenario.name,
                anchor: anchor.clone(),
            })
        })
        .collect();
    let omitted: u64 = scenarios.iter().map(|s| s.timed_searches_omitted).sum();
    out.push_str(&format!(
        "<section id=\"{section_id}\" class=\"time-use\" data-timed-searches=\"{}\">\n\
         <h2>Time use</h2>\n<p>Every search with a clock: the time the engine used as a share \
         of the time it was allowed (to the deadline, the grace G shaded), per time control. \
         The red line is the deadline; a bar past it is an overrun. Time controls with an \
         overrun come first. {} searches{}.</p>\n",
        points.len(),
        points.len(),
        if omitted > 0 {
            format!(" ({omitted} more past the 500 a scenario keeps)")
        } else {
            String::new()
        }
    ));
    if points.is_empty() {
        out.push_str("<p class=\"muted\">No search with a clock ran.</p>\n");
    }
    let groups = KINDS.iter().filter_map(|&(kind, heading)| {
        let group: Vec<&Point> = points.iter().filter(|p| p.search.kind == kind).collect();
        (!group.is_empty()).then_some((kind, heading, group))
    });
    // Time controls with an overrun first.
    let (overrun, in_time): (Vec<_>, Vec<_>) =
        groups.partition(|(_, _, group)| group.iter().any(|p| is_over(p.search)));
    for (kind, heading, group) in overrun.into_iter().chain(in_time) {
        chart(kind, heading, &group, out);
    }
    out.push_str("</section>\n");
}

/// A reply late or missing (a load-excused one is neither).
fn is_over(search: &TimedSearch) -> bool {
    matches!(search.timing, ReplyTiming::Late | ReplyTiming::NoReply)
}

fn chart(kind: ClockKind, heading: &str, points: &[&Point], out: &mut String) {
    let late = points.iter().filter(|p| is_over(p.search)).count();
    let tightest = points
        .iter()
        .filter_map(|p| p.search.margin_ms)
        .fold(f64::INFINITY, f64::min);
    let rules: std::collections::BTreeSet<&str> =
        points.iter().map(|p| p.search.rule.as_str()).collect();
    let share = |p: &&Point| {
        let allowed = p.search.allowed_ms;
        let used = p.search.used_ms.unwrap_or(f64::INFINITY);
        if allowed > 0.0 { used / allowed } else { 1.0 }
    };
    // The axis reaches past the deadline to show overruns, up to three times it.
    let most = points.iter().map(share).fold(1.0, f64::max).min(3.0);
    let domain = if most > 1.0 {
        (most * 10.0).ceil() / 10.0
    } else {
        1.1
    };
    let x = |share: f64| LABEL_WIDTH + share.clamp(0.0, domain) / domain * PLOT_WIDTH;
    let width = LABEL_WIDTH + PLOT_WIDTH + TEXT_WIDTH;
    let height = TOP + ROW * points.len() as f64 + 24.0;
    out.push_str(&format!(
        "<figure class=\"time-chart\" data-kind=\"{}\">\n<figcaption><strong>{heading}</strong> \
         ({}) · {} searches · {} over the deadline · tightest margin {}</figcaption>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{heading}: time used against \
         time allowed\">\n",
        kind.as_str(),
        esc(&rules.into_iter().collect::<Vec<_>>().join(", ")),
        points.len(),
        late,
        if tightest.is_finite() {
            ms(tightest)
        } else {
            "none".to_owned()
        },
    ));
    // Axis: 0, 50 %, the deadline (100 %), and the end of the domain.
    let bottom = TOP + ROW * points.len() as f64;
    for tick in [0.0, 0.5, 1.0, domain] {
        out.push_str(&format!(
            "<line class=\"grid\" x1=\"{x:.1}\" y1=\"{}\" x2=\"{x:.1}\" y2=\"{bottom}\"/>\
             <text class=\"tick\" x=\"{x:.1}\" y=\"{}\">{:.0} %</text>\n",
            TOP - 4.0,
            bottom + 14.0,
            tick * 100.0,
            x = x(tick)
        ));
    }
    for (row, point) in points.iter().enumerate() {
        bar(point, row, x, share(point), domain, out);
    }
    out.push_str(&format!(
        "<line class=\"deadline\" x1=\"{d:.1}\" y1=\"{}\" x2=\"{d:.1}\" y2=\"{bottom}\"/>\n\
         <text class=\"deadline-label\" x=\"{d:.1}\" y=\"{}\">deadline</text>\n</svg>\n</figure>\n",
        TOP - 14.0,
        TOP - 4.0,
        d = x(1.0)
    ));
}

fn bar(
    point: &Point,
    row: usize,
    x: impl Fn(f64) -> f64,
    share: f64,
    domain: f64,
    out: &mut String,
) {
    let search = point.search;
    let y = TOP + ROW * row as f64;
    let (allowed, grace, used) = (search.allowed_ms, search.grace_ms, search.used_ms);
    let timing = search.timing.as_str();
    let grace_from = if allowed > 0.0 {
        (allowed - grace) / allowed
    } else {
        1.0
    };
    let detail = match (used, search.margin_ms) {
        (Some(used), Some(margin)) => {
            format!("{} of {} · margin {}", ms(used), ms(allowed), ms(margin))
        }
        _ => format!("no reply · {} allowed", ms(allowed)),
    };
    let title = format!(
        "{}: {} — {detail} · {} · {}{}",
        point.scenario,
        search.limit,
        timing.replace('_', " "),
        search.rule,
        if search.claimed {
            " (judged by the scenario's step)"
        } else {
            ""
        }
    );
    let clipped = share > domain;
    out.push_str(&format!(
        "<a href=\"#{}\"><g class=\"timed-search t-{}\" data-timed-search=\"{row}\" \
         data-kind=\"{}\" data-used-ms=\"{}\" data-allowed-ms=\"{allowed}\">\
         <title>{}</title>\
         <text class=\"label\" x=\"{:.1}\" y=\"{:.1}\">{}</text>\
         <rect class=\"allowed\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>\
         <rect class=\"grace\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>\
         <rect class=\"used\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>\
         <text class=\"value\" x=\"{:.1}\" y=\"{:.1}\">{}{}</text></g></a>\n",
        attr(&point.anchor),
        attr(timing),
        attr(search.kind.as_str()),
        used.map_or("null".to_owned(), |u| u.to_string()),
        esc(&title),
        LABEL_WIDTH - 6.0,
        y + ROW - 4.0,
        esc(&shorten(point.scenario, 48)),
        x(0.0),
        y + 2.0,
        x(1.0) - x(0.0),
        ROW - 4.0,
        x(grace_from),
        y + 2.0,
        x(1.0) - x(grace_from),
        ROW - 4.0,
        x(0.0),
        y + 4.0,
        (x(share) - x(0.0)).max(1.0),
        ROW - 8.0,
        LABEL_WIDTH + PLOT_WIDTH + 8.0,
        y + ROW - 4.0,
        if clipped { "» " } else { "" },
        esc(&detail),
    ));
}
