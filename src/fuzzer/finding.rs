//! A finding written out: the shrunk session as a scenario YAML that `usicheck run` replays,
//! and the full transcript of the session that found it.

use super::oracle::{Oracle, Violation};
use super::plan::{Cmd, Kind, Search, When};
use crate::observer::{Conversation, Reply};
use crate::rules::RuleId;
use crate::scenario::{
    BestmoveCheck, CheckmateCheck, Deadline, DeadlineBase, ExitStatus, Expect, ExpectExit,
    Handshake, Matcher, NamedTimeout, OptionSettings, Pattern, PonderCheck, Requirements, Scenario,
    Silence, Step, Template,
};
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

/// The scenario for `cmds` failing with `violation` as YAML for `usicheck run`: [`scenario`],
/// serialised.
pub fn scenario_yaml(
    cmds: &[Cmd],
    violation: &Violation,
    origin: &Origin,
    options: &[(String, Option<String>)],
) -> String {
    crate::scenario::to_yaml(&scenario(cmds, violation, origin, options))
}

/// A whole number of milliseconds, as a scenario writes a fixed duration.
fn millis(d: Duration) -> Deadline {
    Deadline {
        base: DeadlineBase::Fixed(Duration::from_millis(d.as_millis() as u64)),
        plus_grace: false,
    }
}

fn pattern(source: &str) -> Pattern {
    Pattern::new(source).expect("the reproducer's patterns compile")
}

/// The scenario for `cmds` failing with `violation`: the same prelude, every command, and an
/// expectation wherever the fuzzer waited; the failing wait carries the violated rule.
/// `options` (name, value; `None` for a button) are set in its handshake after the prelude's,
/// for a replay that is given no `--option`.
pub fn scenario(
    cmds: &[Cmd],
    violation: &Violation,
    origin: &Origin,
    options: &[(String, Option<String>)],
) -> Scenario {
    let failing = violation.step.unwrap_or(usize::MAX);
    let mut rules = vec![violation.rule];
    let mut steps = Vec::new();
    let prelude = crate::fuzzer::exec::PRELUDE_OPTIONS
        .iter()
        .map(|(name, value)| ((*name).to_owned(), Some((*value).to_owned())));
    steps.push(Step::Handshake(Handshake {
        options: OptionSettings(prelude.chain(options.iter().cloned()).collect()),
        isready: true,
        usinewgame: true,
    }));
    // The protocol state as the replay leaves it: each command sent, each reply it awaits.
    let mut conversation = Conversation::default();
    // The last `go`'s search as planned, and whether its position was known: what the reply
    // the conversation's search still owes is expected as.
    let mut last_go: Option<(Search, bool)> = None;
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
    for (i, cmd) in cmds.iter().enumerate() {
        if let Kind::Sleep(d) = cmd.kind {
            steps.push(Step::Sleep(millis(d)));
            continue;
        }
        if cmd.is_go() {
            // The fuzzer's check before a `go` after a search `gameover` released: idle by
            // T-STOP, no output then, none to a `stop` either.
            if conversation.released_search_sent_at().is_some()
                && i == failing
                && violation.rule == crate::blame::runs_on_after_gameover()
            {
                let silent = Step::ExpectSilence(Silence {
                    duration: millis(super::exec::RELEASED_WATCH),
                    pattern: Some(pattern("^(info|bestmove)")),
                    ignore: Some(pattern("^info string")),
                    rule: Some(violation.rule),
                });
                steps.push(Step::Sleep(Deadline::named(NamedTimeout::Stop)));
                steps.push(silent.clone());
                steps.push(Step::Send(Template::literal("stop")));
                steps.push(silent);
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
            steps.push(Step::SendRaw(bytes));
        } else if cmd.raw {
            steps.push(Step::SendRaw(cmd.text.clone()));
        } else {
            steps.push(Step::Send(Template::literal(cmd.text.clone())));
        }
        // A search that owes its reply and is not raced: open until `stop` (or `ponderhit`).
        let open = conversation.owed_search().is_some() && raced.is_none();
        let lines = match cmd.raw {
            true => crate::observer::complete_lines(&cmd.text).collect(),
            false => vec![cmd.text.as_str()],
        };
        for line in lines {
            conversation.on_send(&crate::usi::Command::parse(line), 0);
        }
        let raced_by_next = crate::fuzzer::plan::raced(cmds, i);
        // The terminal reply awaited now, if one is.
        let mut awaited = None;
        match &cmd.kind {
            Kind::Position(p) => known_position = p.is_some(),
            Kind::Go(search) => {
                last_go = Some((*search, known_position));
                match *search {
                    Search::Timed(d) | Search::Mate(Some(d)) if raced_by_next => {
                        raced = Some((*search, d, rule_at(i)));
                    }
                    Search::Timed(d) | Search::Mate(Some(d)) => {
                        awaited = Some((*search, d, used(rule_at(i), &mut rules)));
                    }
                    _ => {}
                }
            }
            Kind::Stop => {
                let stopped = match raced.take() {
                    Some((search, _, _)) => Some(search),
                    None => last_go.filter(|_| open).map(|(search, _)| search),
                };
                if let Some(search) = stopped {
                    let rule = used(rule_at(i), &mut rules);
                    awaited = Some((search, Duration::from_secs(3), rule));
                }
            }
            Kind::PonderHit => {
                if let Some((Search::Ponder(d), _)) = last_go.filter(|_| open) {
                    let rule = rule_at(i);
                    if raced_by_next {
                        raced = Some((Search::Timed(d), d, rule));
                    } else {
                        awaited = Some((Search::Timed(d), d, used(rule, &mut rules)));
                    }
                }
            }
            Kind::Quit => {
                steps.push(Step::ExpectExit(ExpectExit {
                    within: Deadline::named(NamedTimeout::Quit),
                    status: ExitStatus::Any,
                    rule: used(rule_at(i), &mut rules),
                }));
                raced = None;
            }
            Kind::IsReady => {
                let rule = used(rule_at(i), &mut rules);
                // The failing wait is as long as the fuzzer's, where that was shorter.
                let within = match violation.waited {
                    Some(waited) if i == failing => millis(waited),
                    _ => Deadline::named(NamedTimeout::Ready),
                };
                steps.push(Step::Expect(Expect::plain(Matcher::Readyok, within, rule)));
                conversation.on_reply(Reply::ReadyOk);
            }
            // The search it released owes no reply: none is awaited.
            Kind::GameOver => raced = None,
            _ => {}
        }
        let failing_here = i == failing;
        let mut await_reply = |search, within, rule| {
            steps.push(terminal_expect(
                search,
                within,
                rule,
                failing_here,
                violation,
                known_position,
            ));
            conversation.on_reply(Reply::Terminal);
        };
        if let Some((search, within, rule)) = awaited {
            await_reply(search, within, rule);
        }
        if !raced_by_next && let Some((search, within, rule)) = raced.take() {
            // The reply is awaited after the command that raced it: when that one failed (a
            // death on the line written with a `ponderhit`), its wait carries the rule.
            let rule = used(
                if failing_here {
                    Some(violation.rule)
                } else {
                    rule
                },
                &mut rules,
            );
            await_reply(search, within, rule);
        }
    }
    if !matches!(cmds.last().map(|c| &c.kind), Some(Kind::Quit)) {
        // A search still open is stopped, its reply awaited.
        if let Some((search, known)) = last_go.filter(|_| conversation.owed_search().is_some()) {
            steps.push(Step::Send(Template::literal("stop")));
            let at_end = failing == cmds.len();
            let rule = used(at_end.then_some(violation.rule), &mut rules);
            steps.push(terminal_expect(
                search,
                Duration::from_secs(3),
                rule,
                at_end,
                violation,
                known,
            ));
        }
        // The closing barrier: a late extra reply shows before `readyok`.
        steps.push(Step::Send(Template::literal("isready")));
        let rule = used(
            (failing >= cmds.len()).then_some(violation.rule),
            &mut rules,
        );
        steps.push(Step::Expect(Expect {
            forbid: Some(pattern("^(bestmove|checkmate)")),
            ..Expect::plain(Matcher::Readyok, Deadline::named(NamedTimeout::Ready), rule)
        }));
    }
    Scenario {
        name: format!("fuzz {} {}", violation.oracle, violation.rule),
        description: format!(
            "Found by {} in a session of {} commands, {} of them kept: {}",
            origin.found_by,
            origin.original_len,
            cmds.len(),
            violation.detail
        ),
        rules,
        profiles: Vec::new(),
        requires: Requirements::default(),
        steps,
        alone: false,
        fresh: false,
        gui_deviations: Vec::new(),
        step_sources: Vec::new(),
    }
}

/// The `expect` step for a terminal reply; the failing one states the violated legality.
fn terminal_expect(
    search: Search,
    within: Duration,
    rule: Option<RuleId>,
    failing: bool,
    violation: &Violation,
    known_position: bool,
) -> Step {
    let matcher = match search {
        Search::Mate(_) => Matcher::Checkmate(CheckmateCheck::Any),
        _ if failing && violation.oracle == Oracle::Legality && known_position => {
            let ponder = if violation.rule == crate::rule!("USI-PONDER-001") {
                PonderCheck::Legal
            } else {
                PonderCheck::LegalIfPresent
            };
            Matcher::Bestmove {
                bestmove: BestmoveCheck::Legal,
                ponder: Some(ponder),
            }
        }
        _ => Matcher::Bestmove {
            bestmove: BestmoveCheck::Any,
            ponder: None,
        },
    };
    // A misread position (an illegal move that is legal on the board misread) is charged to
    // the position rule through `legality_rule`, as the bundled POSITION scenarios do.
    let misread = failing
        && violation.oracle == Oracle::Legality
        && !crate::observer::LEGALITY_RULES.contains(&violation.rule);
    Step::Expect(Expect {
        legality_rule: rule.filter(|_| misread),
        ..Expect::plain(matcher, millis(within), rule)
    })
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
        let legal = Matcher::Bestmove {
            bestmove: BestmoveCheck::Legal,
            ponder: Some(PonderCheck::Legal),
        };
        assert!(
            scenario
                .steps
                .iter()
                .any(|step| matches!(step, Step::Expect(e) if e.matcher == legal)),
            "{yaml}"
        );
    }

    /// Every byte the fuzzer sends reads back from the reproducer as sent: DEL, the C1
    /// controls and the noncharacters are escaped for YAML too.
    #[test]
    fn a_line_of_any_characters_reads_back_as_sent() {
        let text = "\u{7f}\u{1}\u{85}\u{9f}\u{fffe}é\"\\ $x";
        let cmds = [
            Cmd {
                raw: true,
                ..Cmd::line(text, Kind::Other)
            },
            Cmd::line(text, Kind::Other),
        ];
        let v = Violation::graded(
            Oracle::Protocol,
            crate::rule!("USI-GO-002"),
            "x".into(),
            None,
        );
        let yaml = scenario_yaml(&cmds, &v, &Origin::campaign(1, 1, 2), &[]);
        let scenario = crate::scenario::load_str("finding.yaml", &yaml)
            .unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        assert_eq!(scenario.steps[1], Step::SendRaw(text.into()), "{yaml}");
        assert_eq!(
            scenario.steps[2],
            Step::Send(Template::literal(text)),
            "{yaml}"
        );
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
        let raw = Step::SendRaw("ponderhit\nsetoption name\n".into());
        let at = scenario.steps.iter().position(|s| *s == raw);
        let awaited = Step::Expect(Expect::plain(
            Matcher::Bestmove {
                bestmove: BestmoveCheck::Any,
                ponder: None,
            },
            millis(Duration::from_millis(79)),
            Some(death),
        ));
        assert_eq!(
            at.and_then(|at| scenario.steps.get(at + 1)),
            Some(&awaited),
            "{yaml}"
        );
    }

    /// Fairy-Stockfish runs a search on past a `gameover` it does not know and answers no
    /// `isready` behind it: the fuzzer waited T-STOP and a second for that `readyok`. Its
    /// reproducer waits as long, not T-READY, which every `info` of the search running on
    /// restarts (the replay took four minutes).
    #[test]
    fn a_readyok_missed_after_a_released_search_is_awaited_as_long_as_the_fuzzer_did() {
        let line = |text: &str, kind| Cmd {
            raw: false,
            ..Cmd::line(text, kind)
        };
        let cmds = [
            line(
                "position startpos",
                Kind::Position(Some(Box::new(Position::startpos()))),
            ),
            line("go infinite", Kind::Go(Search::Infinite)),
            line("gameover win", Kind::GameOver),
            line("isready", Kind::IsReady),
            line("usinewgame", Kind::Other),
            line("isready", Kind::IsReady),
        ];
        let rule = crate::rule!("USI-GO-012");
        let hang = Violation::graded(Oracle::Hang, rule, "no `readyok`".into(), Some(5));
        let waits = |violation: &Violation| -> Vec<(Deadline, Option<RuleId>)> {
            scenario(&cmds, violation, &Origin::campaign(1, 2, 6), &[])
                .steps
                .into_iter()
                .filter_map(|step| match step {
                    Step::Expect(e) if e.matcher == Matcher::Readyok => Some((e.within, e.rule)),
                    _ => None,
                })
                .collect()
        };
        let ready = Deadline::named(NamedTimeout::Ready);
        let waited = Violation {
            waited: Some(Duration::from_millis(2000)),
            ..hang.clone()
        };
        assert_eq!(
            waits(&waited),
            [
                (ready, None),
                (millis(Duration::from_millis(2000)), Some(rule)),
                (ready, None)
            ]
        );
        assert_eq!(
            waits(&hang),
            [(ready, None), (ready, Some(rule)), (ready, None)]
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

    fn line(text: &str, kind: Kind) -> Cmd {
        Cmd::line(text, kind)
    }

    fn startpos() -> Cmd {
        line(
            "position startpos",
            Kind::Position(Some(Box::new(Position::startpos()))),
        )
    }

    fn timed(text: &str, ms: u64) -> Cmd {
        line(text, Kind::Go(Search::Timed(Duration::from_millis(ms))))
    }

    fn when(cmd: Cmd, when: When) -> Cmd {
        Cmd { when, ..cmd }
    }

    /// Options with characters YAML gives meanings to, and values it would read as another
    /// type, as the in-process harness may be given them.
    fn odd_options() -> Vec<(String, Option<String>)> {
        [
            ("USI_Hash", Some("1")),
            ("Clear_Hash", None),
            ("Odd:#{}[],&*!|>'\"%@`", Some("a, b}: #c ${position} $$")),
            ("Null", Some("null")),
            ("Tilde", Some("~")),
            ("Empty", Some("")),
            ("Yes", Some("yes")),
            ("Octal", Some("010")),
            ("Float", Some("1.50")),
            ("Hex", Some("0x1F")),
            ("Blanks", Some("  lead and trail  ")),
            ("Dash", Some("- item")),
            ("Controls", Some("\u{7f}\u{85}\t\u{fffe}é")),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value.map(str::to_owned)))
        .collect()
    }

    /// A case of the writer: its name, the commands, their violation, the handshake's options.
    type Case = (
        &'static str,
        Vec<Cmd>,
        Violation,
        Vec<(String, Option<String>)>,
    );

    /// Command lists covering every branch of the writer, each with the violation it ends in
    /// and the options of its handshake.
    fn cases() -> Vec<Case> {
        let graded = |oracle, rule, step| Violation::graded(oracle, rule, "seen".into(), step);
        let ponder = |ms| {
            line(
                "go ponder btime 0 wtime 0 byoyomi 79",
                Kind::Go(Search::Ponder(Duration::from_millis(ms))),
            )
        };
        vec![
            (
                "timed, raw, infinite left open",
                vec![
                    startpos(),
                    timed("go depth 1", 10_000),
                    Cmd {
                        raw: true,
                        ..line("debug $x\r\n", Kind::Other)
                    },
                    line("go infinite", Kind::Go(Search::Infinite)),
                ],
                graded(Oracle::Legality, crate::rule!("USI-PONDER-001"), Some(1)),
                vec![],
            ),
            (
                "misread position: legality_rule",
                vec![startpos(), timed("go byoyomi 1000", 1000)],
                graded(Oracle::Legality, crate::rule!("USI-POSITION-001"), Some(1)),
                vec![],
            ),
            (
                "legality without a known position",
                vec![
                    line("position sfen garbage", Kind::Position(None)),
                    timed("go byoyomi 1000", 1000),
                ],
                graded(Oracle::Legality, crate::rule!("USI-BESTMOVE-002"), Some(1)),
                vec![],
            ),
            (
                "ponder, ponderhit awaited",
                vec![startpos(), ponder(79), line("ponderhit", Kind::PonderHit)],
                graded(Oracle::Hang, crate::rule!("USI-PONDER-002"), Some(2)),
                vec![],
            ),
            (
                "ponderhit raced in its write",
                vec![
                    startpos(),
                    ponder(79),
                    line("ponderhit", Kind::PonderHit),
                    when(line("setoption name", Kind::SetOption), When::SameWrite),
                ],
                graded(Oracle::Crash, crate::rule!("USI-OPTION-010"), Some(3)),
                vec![],
            ),
            (
                "ponder stopped",
                vec![startpos(), ponder(500), line("stop", Kind::Stop)],
                graded(Oracle::Hang, crate::rule!("USI-STOP-001"), Some(2)),
                vec![],
            ),
            (
                "timed search raced by a stop",
                vec![
                    startpos(),
                    timed("go byoyomi 1000", 1000),
                    when(line("stop", Kind::Stop), When::DuringSearch),
                ],
                graded(Oracle::Protocol, crate::rule!("USI-GO-002"), Some(2)),
                vec![],
            ),
            (
                "timed search raced by isready after a pause",
                vec![
                    startpos(),
                    timed("go byoyomi 1000", 1000),
                    line("", Kind::Sleep(Duration::from_millis(250))),
                    when(line("isready", Kind::IsReady), When::DuringSearch),
                ],
                graded(Oracle::Hang, crate::rule!("USI-READY-001"), Some(3)),
                vec![],
            ),
            (
                "mate searches",
                vec![
                    startpos(),
                    line(
                        "go mate 1000",
                        Kind::Go(Search::Mate(Some(Duration::from_secs(1)))),
                    ),
                    line("go mate infinite", Kind::Go(Search::Mate(None))),
                    line("stop", Kind::Stop),
                ],
                graded(Oracle::Protocol, crate::rule!("USI-MATE-001"), Some(1)),
                vec![],
            ),
            (
                "mate left open, failing at the end",
                vec![
                    startpos(),
                    line("go mate infinite", Kind::Go(Search::Mate(None))),
                ],
                graded(Oracle::Hang, crate::rule!("USI-STOP-001"), Some(2)),
                vec![],
            ),
            (
                "released search, then a go",
                vec![
                    startpos(),
                    line("go infinite", Kind::Go(Search::Infinite)),
                    line("gameover win", Kind::GameOver),
                    startpos(),
                    timed("go byoyomi 100", 100),
                ],
                graded(
                    Oracle::Protocol,
                    crate::blame::runs_on_after_gameover(),
                    Some(4),
                ),
                vec![],
            ),
            (
                "released raced search, another rule",
                vec![
                    startpos(),
                    timed("go byoyomi 1000", 1000),
                    when(line("gameover lose", Kind::GameOver), When::DuringSearch),
                    timed("go byoyomi 100", 100),
                ],
                graded(Oracle::Protocol, crate::rule!("USI-GO-002"), Some(3)),
                vec![],
            ),
            (
                "sleeps, isready, new game and quit",
                vec![
                    line("usinewgame", Kind::NewGame),
                    line("", Kind::Sleep(Duration::from_millis(1500))),
                    line("isready", Kind::IsReady),
                    line("go infinite", Kind::Go(Search::Infinite)),
                    line("quit", Kind::Quit),
                ],
                graded(Oracle::Exit, crate::rule!("USI-QUIT-001"), Some(4)),
                vec![],
            ),
            (
                "failing at the closing barrier, no step",
                vec![startpos(), timed("go byoyomi 1000", 1000)],
                graded(Oracle::Protocol, crate::rule!("USI-GO-001"), None),
                vec![],
            ),
            (
                "odd lines and options",
                vec![
                    line(
                        "setoption name X value ${position} $$ # : - [x]",
                        Kind::SetOption,
                    ),
                    line("null", Kind::Other),
                    line("010", Kind::Other),
                    line("- a: b", Kind::Other),
                    line("", Kind::Other),
                    line("\u{7f}\u{85}\u{9f}\u{fffe}é\"\\ 'q' \t", Kind::Other),
                    Cmd {
                        raw: true,
                        ..line(" isready \r\n\r\n\u{0}\u{1b}[0m", Kind::Other)
                    },
                    line("isready", Kind::IsReady),
                ],
                graded(Oracle::Hang, crate::rule!("USI-READY-001"), Some(7)),
                odd_options(),
            ),
        ]
    }

    /// `scenario` without what loading fills in from the text.
    fn typed(mut scenario: Scenario) -> Scenario {
        scenario.step_sources.clear();
        scenario
    }

    /// The reproducer of every case loads back as the scenario it was serialised from.
    #[test]
    fn every_reproducer_loads_back_as_built() {
        for (case, cmds, violation, options) in cases() {
            let built = scenario(&cmds, &violation, &Origin::campaign(1, 2, 9), &options);
            let yaml = crate::scenario::to_yaml(&built);
            let loaded = crate::scenario::load_str("finding.yaml", &yaml)
                .unwrap_or_else(|e| panic!("{case}: {e}\n{yaml}"));
            assert_eq!(typed(loaded), built, "{case}:\n{yaml}");
        }
    }

    proptest::proptest! {
        /// Any line, raw bytes and option the fuzzer or the harness may write reads back.
        #[test]
        fn any_text_reads_back(
            send in "[^\r\n]{0,24}",
            raw in "\\PC{0,24}|[\u{0}-\u{a0}]{0,12}",
            name in "[!-~]{1,12}",
            value in proptest::option::of("\\PC{0,16}|[\u{0}-\u{a0}]{0,8}"),
        ) {
            let cmds = vec![
                line(&send, Kind::Other),
                Cmd { raw: true, ..line(&raw, Kind::Other) },
                line("isready", Kind::IsReady),
            ];
            let v = Violation::graded(
                Oracle::Hang,
                crate::rule!("USI-READY-001"),
                raw.clone(),
                Some(2),
            );
            let built = scenario(&cmds, &v, &Origin::campaign(3, 4, 5), &[(name, value)]);
            let yaml = crate::scenario::to_yaml(&built);
            let loaded = crate::scenario::load_str("finding.yaml", &yaml)
                .map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}\n{yaml}")))?;
            proptest::prop_assert_eq!(typed(loaded), built, "{}", yaml);
        }
    }
}
