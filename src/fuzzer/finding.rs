//! A finding written out: the shrunk session as a scenario YAML that `usicheck run` replays,
//! and the full transcript of the session that found it.

use super::oracle::{Oracle, Violation};
use super::plan::{Cmd, Kind, Search, When};
use crate::rules::RuleId;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where a failing session came from, for the scenario's description.
#[derive(Clone, Debug)]
pub struct Origin {
    /// What found it, e.g. "`usicheck fuzz --seed 1` (session 7)".
    pub found_by: String,
    pub original_len: usize,
}

impl Origin {
    /// Session `session` of the campaign seeded `seed`.
    pub fn campaign(seed: u64, session: u64, original_len: usize) -> Origin {
        Origin {
            found_by: format!("`usicheck fuzz --seed {seed}` (session {session})"),
            original_len,
        }
    }
}

/// A YAML double-quoted scalar: a JSON string, with the characters JSON leaves raw and YAML
/// does not take raw (DEL, the C1 controls, U+FFFE and U+FFFF) escaped too.
fn quoted(text: &str) -> String {
    let json = serde_json::to_string(text).expect("strings serialise");
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if matches!(c, '\u{7f}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}') {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

/// `send` text with `$` escaped for the scenario template syntax.
fn template(text: &str) -> String {
    quoted(&text.replace('$', "$$"))
}

fn millis(d: Duration) -> String {
    format!("{}ms", d.as_millis())
}

/// The scenario for `cmds` failing with `violation`: the same prelude, every command, and an
/// expectation wherever the fuzzer waited; the failing wait carries the violated rule.
/// `options` (name, value; `None` for a button) are set in its handshake after the prelude's,
/// for a replay that is given no `--option`.
pub fn scenario_yaml(
    cmds: &[Cmd],
    violation: &Violation,
    origin: &Origin,
    options: &[(String, Option<String>)],
) -> String {
    let failing = violation.step.unwrap_or(usize::MAX);
    let mut rules = vec![violation.rule];
    let mut steps = String::new();
    let mut step = |text: String| {
        steps.push_str("  - ");
        steps.push_str(&text);
        steps.push('\n');
    };
    let prelude = super::exec::PRELUDE_OPTIONS
        .iter()
        .map(|(name, value)| format!("{name}: {value}"));
    let given = options.iter().map(|(name, value)| match value {
        Some(value) => format!("{}: {}", quoted(name), quoted(value)),
        None => format!("{}: null", quoted(name)),
    });
    let options: Vec<String> = prelude.chain(given).collect();
    step(format!(
        "handshake: {{options: {{{}}}}}",
        options.join(", ")
    ));
    let mut pending: Option<(Search, bool)> = None;
    // The failing wait checks the finding's rule; every other wait is setup, as the fuzzer
    // charged nothing there.
    let rule_at = |i: usize| (i == failing).then_some(violation.rule);
    let used = |rule: Option<RuleId>, rules: &mut Vec<RuleId>| {
        if let Some(rule) = rule
            && !rules.contains(&rule)
        {
            rules.push(rule);
        }
        rule
    };
    let mut known_position = false;
    // A timed reply raced by the next command: (search, within, rule), expected after it (its
    // rule listed then, as it may become the failing command's).
    let mut raced: Option<(Search, Duration, Option<RuleId>)> = None;
    // A search `gameover` released without its reply, until the next `go`.
    let mut released = false;
    for (i, cmd) in cmds.iter().enumerate() {
        if let Kind::Sleep(d) = cmd.kind {
            step(format!("sleep: {}", millis(d)));
            continue;
        }
        if cmd.is_go() {
            // The fuzzer's check before a `go` after a search `gameover` released: idle by
            // T-STOP, no output then, none to a `stop` either.
            if std::mem::take(&mut released)
                && i == failing
                && violation.rule == crate::blame::runs_on_after_gameover()
            {
                let silent = format!(
                    "expect_silence: {{for: {}, pattern: '^(info|bestmove)', ignore: \
                     '^info string', rule: {}}}",
                    millis(super::exec::RELEASED_WATCH),
                    violation.rule
                );
                step("sleep: T-STOP".into());
                step(silent.clone());
                step("send: stop".into());
                step(silent);
            }
        }
        let in_write = |c: &Cmd| c.when == When::SameWrite;
        if in_write(cmd) {
            // Written with the command before it, in that command's `send_raw`.
        } else if cmds.get(i + 1).is_some_and(in_write) {
            let mut bytes = String::new();
            for c in std::iter::once(cmd).chain(cmds[i + 1..].iter().take_while(|c| in_write(c))) {
                bytes.push_str(&c.text);
                if !c.raw {
                    bytes.push('\n');
                }
            }
            step(format!("send_raw: {}", quoted(&bytes)));
        } else if cmd.raw {
            step(format!("send_raw: {}", quoted(&cmd.text)));
        } else {
            step(format!("send: {}", template(&cmd.text)));
        }
        let raced_by_next = super::plan::raced(cmds, i);
        let expect_terminal = |search, within, rule| {
            terminal_expect(
                search,
                within,
                rule,
                i == failing,
                violation,
                known_position,
            )
        };
        match &cmd.kind {
            Kind::Position(p) => known_position = p.is_some(),
            Kind::Go(search) => match *search {
                Search::Timed(d) | Search::Mate(Some(d)) if raced_by_next => {
                    raced = Some((*search, d, rule_at(i)));
                }
                Search::Timed(d) | Search::Mate(Some(d)) => {
                    let rule = used(rule_at(i), &mut rules);
                    step(expect_terminal(*search, d, rule));
                }
                _ => pending = Some((*search, known_position)),
            },
            Kind::Stop => {
                if let Some((search, _, _)) = raced.take() {
                    let rule = used(rule_at(i), &mut rules);
                    step(expect_terminal(search, Duration::from_secs(3), rule));
                } else if let Some((search, _)) = pending.take() {
                    let rule = used(rule_at(i), &mut rules);
                    step(expect_terminal(search, Duration::from_secs(3), rule));
                }
            }
            Kind::PonderHit => {
                if let Some((Search::Ponder(d), _)) = pending {
                    pending = None;
                    let rule = rule_at(i);
                    if raced_by_next {
                        raced = Some((Search::Timed(d), d, rule));
                    } else {
                        step(expect_terminal(Search::Timed(d), d, used(rule, &mut rules)));
                    }
                }
            }
            Kind::Quit => {
                let rule = used(rule_at(i), &mut rules);
                step(format!("expect_exit: {{within: T-QUIT{}}}", checks(rule)));
                pending = None;
                raced = None;
            }
            Kind::IsReady => {
                let rule = used(rule_at(i), &mut rules);
                step(format!("expect: {{readyok: true{}}}", checks(rule)));
            }
            Kind::GameOver => {
                released |= pending.is_some() || raced.is_some();
                pending = None;
                raced = None;
            }
            _ => {}
        }
        if !raced_by_next && let Some((search, within, rule)) = raced.take() {
            let failing = i == failing;
            // The reply is awaited after the command that raced it: when that one failed (a
            // death on the line written with a `ponderhit`), its wait carries the rule.
            let rule = used(
                if failing { Some(violation.rule) } else { rule },
                &mut rules,
            );
            step(terminal_expect(
                search,
                within,
                rule,
                failing,
                violation,
                known_position,
            ));
        }
    }
    if matches!(cmds.last().map(|c| &c.kind), Some(Kind::Quit)) {
        return finish(violation, origin, cmds.len(), &rules, &steps);
    }
    if let Some((search, known)) = pending {
        step("send: stop".into());
        let at_end = failing == cmds.len();
        let rule = used(at_end.then_some(violation.rule), &mut rules);
        step(terminal_expect(
            search,
            Duration::from_secs(3),
            rule,
            at_end,
            violation,
            known,
        ));
    }
    // The closing barrier: a late extra reply shows before `readyok`.
    step("send: isready".into());
    let rule = used(
        (failing >= cmds.len()).then_some(violation.rule),
        &mut rules,
    );
    step(format!(
        "expect: {{readyok: true, forbid: '^(bestmove|checkmate)'{}}}",
        checks(rule)
    ));
    finish(violation, origin, cmds.len(), &rules, &steps)
}

/// The scenario around its `steps`.
fn finish(
    violation: &Violation,
    origin: &Origin,
    len: usize,
    rules: &[RuleId],
    steps: &str,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "name: {}",
        quoted(&format!("fuzz {} {}", violation.oracle, violation.rule))
    );
    let _ = writeln!(
        out,
        "description: {}",
        quoted(&format!(
            "Found by {}, shrunk from {} to {} commands: {}",
            origin.found_by, origin.original_len, len, violation.detail
        ))
    );
    let rules: Vec<&str> = rules.iter().map(|rule| rule.as_str()).collect();
    let _ = writeln!(out, "rules: [{}]", rules.join(", "));
    out.push_str("steps:\n");
    out.push_str(steps);
    out
}

/// The `expect` step for a terminal reply; the failing one states the violated legality.
fn terminal_expect(
    search: Search,
    within: Duration,
    rule: Option<RuleId>,
    failing: bool,
    violation: &Violation,
    known_position: bool,
) -> String {
    let matcher = match search {
        Search::Mate(_) => "checkmate: any".to_string(),
        _ if failing && violation.oracle == Oracle::Legality && known_position => {
            let ponder = if violation.rule == crate::rule!("USI-PONDER-001") {
                "legal"
            } else {
                "legal-if-present"
            };
            format!("bestmove: legal, ponder: {ponder}")
        }
        _ => "bestmove: any".to_string(),
    };
    // A misread position (an illegal move that is legal on the board misread) is charged to
    // the position rule through `legality_rule`, as the bundled POSITION scenarios do.
    let misread = failing
        && violation.oracle == Oracle::Legality
        && !crate::observer::LEGALITY_RULES.contains(&violation.rule);
    let legality = match rule {
        Some(rule) if misread => format!(", legality_rule: {rule}"),
        _ => String::new(),
    };
    format!(
        "expect: {{{matcher}, within: {}{}{legality}}}",
        millis(within),
        checks(rule)
    )
}

/// The `rule` entry of a step that checks `rule`; none for setup.
fn checks(rule: Option<RuleId>) -> String {
    rule.map_or(String::new(), |rule| format!(", rule: {rule}"))
}

/// The file stem of a finding group: `ORACLE-RULE`.
pub fn stem(violation: &Violation) -> String {
    format!("{}-{}", violation.oracle, violation.rule)
}

/// Writes `STEM.yaml` and `STEM.transcript` into `dir`; returns the YAML path.
pub fn write(dir: &Path, stem: &str, yaml: &str, transcript: &str) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{stem}.yaml"));
    std::fs::write(&path, yaml)?;
    std::fs::write(dir.join(format!("{stem}.transcript")), transcript)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::Position;

    #[test]
    fn a_finding_loads_as_a_scenario() {
        let cmds = vec![
            Cmd {
                raw: false,
                ..Cmd::line(
                    "position startpos",
                    Kind::Position(Some(Box::new(Position::startpos()))),
                )
            },
            Cmd {
                raw: false,
                ..Cmd::line(
                    "go depth 1",
                    Kind::Go(Search::Timed(Duration::from_secs(10))),
                )
            },
            Cmd {
                raw: true,
                ..Cmd::line("debug $x\r\n", Kind::Other)
            },
            Cmd {
                raw: false,
                ..Cmd::line("go infinite", Kind::Go(Search::Infinite))
            },
        ];
        let detail = "ponder 1a1b is \"illegal\"".into();
        let v = Violation::graded(
            Oracle::Legality,
            crate::rule!("USI-PONDER-001"),
            detail,
            Some(1),
        );
        let origin = Origin::campaign(1, 2, 9);
        let yaml = scenario_yaml(&cmds, &v, &origin, &[]);
        let scenario = crate::scenario::load_str("finding.yaml", &yaml)
            .unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        assert!(
            scenario
                .rules
                .iter()
                .any(|r| *r == crate::rule!("USI-PONDER-001"))
        );
        assert!(yaml.contains("bestmove: legal, ponder: legal"), "{yaml}");
    }

    /// Every byte the fuzzer sends reads back from the reproducer as sent: DEL and the C1
    /// controls, which JSON leaves raw, are escaped for YAML too.
    #[test]
    fn a_line_of_any_characters_reads_back_as_sent() {
        let text = "\u{7f}\u{1}\u{85}\u{9f}\u{fffe}é\"\\ $x";
        let yaml = format!("send: {}", quoted(text));
        let value: std::collections::BTreeMap<String, String> =
            serde_saphyr::from_str(&yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        assert_eq!(value["send"], text, "{yaml}");
    }

    /// A death on a line written with a `ponderhit` (gpsusi aborts on `setoption name`): the
    /// reply the `ponderhit` owes is awaited after that line, and its wait carries the death's
    /// rule, so the reproducer loads (every rule listed is checked by a step).
    #[test]
    fn a_failure_in_a_write_with_a_ponderhit_is_awaited_under_its_rule() {
        let line = |text: &str, kind| Cmd {
            raw: false,
            ..Cmd::line(text, kind)
        };
        let cmds = vec![
            line(
                "position startpos",
                Kind::Position(Some(Box::new(Position::startpos()))),
            ),
            line(
                "go ponder btime 0 wtime 0 byoyomi 79",
                Kind::Go(Search::Ponder(Duration::from_millis(79))),
            ),
            line("ponderhit", Kind::PonderHit),
            Cmd {
                when: When::SameWrite,
                ..line("setoption name", Kind::SetOption)
            },
        ];
        let death = crate::rule!("USI-OPTION-010");
        let v = Violation::graded(Oracle::Crash, death, "SIGABRT".into(), Some(3));
        let yaml = scenario_yaml(&cmds, &v, &Origin::campaign(1, 1, 4), &[]);
        let scenario = crate::scenario::load_str("finding.yaml", &yaml)
            .unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        assert_eq!(scenario.rules[0], death, "{yaml}");
        assert!(
            yaml.contains("send_raw: \"ponderhit\\nsetoption name\\n\"\n  - expect: {bestmove: any, within: 79ms, rule: USI-OPTION-010}"),
            "{yaml}"
        );
    }

    /// The in-process harness sets its options in every session: the reproducer does too.
    #[test]
    fn given_options_follow_the_prelude_in_the_handshake() {
        let cmds = [Cmd {
            raw: false,
            ..Cmd::line(
                "go depth 1",
                Kind::Go(Search::Timed(Duration::from_secs(5))),
            )
        }];
        let v = Violation::graded(
            Oracle::Protocol,
            crate::rule!("USI-GO-002"),
            "two".into(),
            Some(0),
        );
        let options = [
            ("USI_Hash".to_owned(), Some("1".to_owned())),
            ("Clear_Hash".to_owned(), None),
        ];
        let yaml = scenario_yaml(&cmds, &v, &Origin::campaign(1, 2, 1), &options);
        let scenario = crate::scenario::load_str("finding.yaml", &yaml)
            .unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        let crate::scenario::Step::Handshake(handshake) = &scenario.steps[0] else {
            panic!("{yaml}")
        };
        let set: Vec<_> = handshake
            .options
            .0
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_deref()))
            .collect();
        assert_eq!(
            set,
            [
                ("USI_Ponder", Some("true")),
                ("USI_Hash", Some("1")),
                ("Clear_Hash", None)
            ]
        );
    }
}
