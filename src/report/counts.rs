//! `counts.txt`: the certificate's counts as `NAME=VALUE` lines, for a shell without a JSON
//! tool (the GitHub Action copies them into its step outputs as they are, so the names are
//! the outputs' names).

use super::aggregate::{Aggregate, LevelCount, level_label};
use crate::rules::Level;

/// Per strength level `LEVEL-pass` and `LEVEL-total` (the applicable rules), then `fail` and
/// `warn` (the rules whose worst verdict is FAIL or WARN, waived ones included), summed over
/// the runs. Every level is listed, with zeros where none of its rules applied, so a reader
/// always finds every name.
pub fn render(aggregate: &Aggregate) -> String {
    let certificates: Vec<_> = aggregate.runs.iter().map(|r| r.certificate()).collect();
    let sum = |level: Option<Level>, field: fn(&LevelCount) -> usize| -> usize {
        certificates
            .iter()
            .flat_map(|c| &c.levels)
            .filter(|(l, _)| level.is_none_or(|level| **l == level))
            .map(|(_, count)| field(count))
            .sum()
    };
    let mut out = String::new();
    for level in Level::ALL {
        let name = level_label(level).to_ascii_lowercase();
        out.push_str(&format!("{name}-pass={}\n", sum(Some(level), |c| c.pass)));
        out.push_str(&format!(
            "{name}-total={}\n",
            sum(Some(level), |c| c.applicable)
        ));
    }
    out.push_str(&format!("fail={}\n", sum(None, |c| c.fail)));
    out.push_str(&format!("warn={}\n", sum(None, |c| c.warn)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixtures::failing_run;

    #[test]
    fn counts_are_the_certificate_of_the_run() {
        let aggregate = Aggregate::from_events(&failing_run());
        let text = render(&aggregate);
        let value = |name: &str| -> usize {
            text.lines()
                .find_map(|line| line.strip_prefix(&format!("{name}=")))
                .unwrap_or_else(|| panic!("no {name} in {text}"))
                .parse()
                .unwrap()
        };
        let certificate = aggregate.runs[0].certificate();
        let must = &certificate.levels[&Level::Must];
        assert_eq!(value("must-pass"), must.pass);
        assert_eq!(value("must-total"), must.applicable);
        // The fixture fails one MUST rule and warns on one SHOULD rule.
        assert_eq!((value("fail"), value("warn")), (1, 1));
        let names: Vec<&str> = text.lines().map(|l| l.split('=').next().unwrap()).collect();
        assert_eq!(
            names,
            [
                "must-pass",
                "must-total",
                "should-pass",
                "should-total",
                "may-pass",
                "may-total",
                "de-facto-pass",
                "de-facto-total",
                "extension-pass",
                "extension-total",
                "fail",
                "warn"
            ]
        );
    }

    #[test]
    fn no_run_counts_zero() {
        let text = render(&Aggregate::default());
        assert!(text.lines().all(|line| line.ends_with("=0")), "{text}");
    }
}
