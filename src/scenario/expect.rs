//! The `expect` step: what engine line to wait for, how long, and which rule a miss violates.

use super::{Deadline, NamedTimeout, Pattern};
use crate::rules::RuleId;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use std::borrow::Cow;
use std::fmt;

/// What the `bestmove` token must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum BestmoveCheck {
    /// Any `bestmove` line (its grammar is still checked on every line).
    Any,
    /// A move legal in the current position (`resign`/`win` do not qualify).
    Legal,
    /// Exactly `bestmove resign`.
    Resign,
    /// Exactly `bestmove win` (an entering-king declaration).
    Win,
}

/// What the `ponder` part of a `bestmove` line must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PonderCheck {
    /// Present and legal in the position after the best move.
    Legal,
    /// Legal if present; absence is fine.
    LegalIfPresent,
    /// No `ponder` part.
    Absent,
}

/// What the `checkmate` reply to `go mate` must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CheckmateCheck {
    /// Any of the four forms (moves, `nomate`, `timeout`, `notimplemented`).
    Any,
    /// A correct reply: a mating line verified by the mate verifier, `nomate` where the
    /// reference solver agrees (or cannot decide), or `timeout`; `notimplemented` makes the
    /// runner SKIP the scenario's mate rules.
    Valid,
    /// A mating line that the verifier confirms.
    Mate,
    Nomate,
    Timeout,
    Notimplemented,
}

/// What the principal variation of an `info` line must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PvCheck {
    /// A `pv` field is present.
    Present,
    /// A `pv` field is present and a legal sequence from the searched position.
    Legal,
}

/// Constraints on an `info` line; every given field must hold (`info: {}` = any non-`string`
/// info line).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InfoCheck {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pv: Option<PvCheck>,
    /// The line carries `multipv <n>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multipv: Option<u32>,
    /// The line carries `score mate <n>` (`+n` accepted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_mate: Option<i64>,
    /// The whole line also matches this regex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<Pattern>,
}

/// Which line an `expect` step waits for. Serialises as the keys an `expect` map writes it
/// with (`readyok: true`, `bestmove: legal, ponder: legal-if-present`, `line: ^info`), which
/// [`Expect`] flattens into its own map.
#[derive(Clone, Debug, PartialEq)]
pub enum Matcher {
    /// Exactly `usiok`.
    Usiok,
    /// Exactly `readyok`.
    Readyok,
    /// A `bestmove` line; `ponder` constrains its ponder part when given.
    Bestmove {
        bestmove: BestmoveCheck,
        ponder: Option<PonderCheck>,
    },
    Checkmate(CheckmateCheck),
    Info(InfoCheck),
    /// Any line matching the regex.
    Line(Pattern),
}

impl Serialize for Matcher {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        match self {
            Matcher::Usiok => map.serialize_entry("usiok", &true)?,
            Matcher::Readyok => map.serialize_entry("readyok", &true)?,
            Matcher::Bestmove { bestmove, ponder } => {
                map.serialize_entry("bestmove", bestmove)?;
                if let Some(ponder) = ponder {
                    map.serialize_entry("ponder", ponder)?;
                }
            }
            Matcher::Checkmate(check) => map.serialize_entry("checkmate", check)?,
            Matcher::Info(check) => map.serialize_entry("info", check)?,
            Matcher::Line(pattern) => map.serialize_entry("line", pattern)?,
        }
        map.end()
    }
}

impl Matcher {
    /// Whether the line awaited is a search's `bestmove`: the `bestmove` matcher, a regex that
    /// starts with `bestmove `, or one that some `bestmove` line matches.
    ///
    /// ```
    /// use usicheck::scenario::{Matcher, Pattern};
    /// let line = |p: &str| Matcher::Line(Pattern::new(p).unwrap());
    /// assert!(line("^bestmove resign( |$)").awaits_bestmove());
    /// assert!(line("^bestmove (1g1f|9g9f)( |$)").awaits_bestmove());
    /// assert!(line("^bestmove \\S+( ponder \\S+)?$").awaits_bestmove());
    /// assert!(!line("^info").awaits_bestmove());
    /// assert!(!Matcher::Readyok.awaits_bestmove());
    /// ```
    pub fn awaits_bestmove(&self) -> bool {
        const BESTMOVES: [&str; 5] = [
            "bestmove 7g7f",
            "bestmove 7g7f ponder 3c3d",
            "bestmove P*5e",
            "bestmove resign",
            "bestmove win",
        ];
        match self {
            Matcher::Bestmove { .. } => true,
            Matcher::Line(pattern) => {
                pattern
                    .regex()
                    .as_str()
                    .trim_start_matches('^')
                    .starts_with("bestmove ")
                    || BESTMOVES.iter().any(|line| pattern.is_match(line))
            }
            _ => false,
        }
    }

    /// Whether the line awaited ends a search: its `bestmove` ([`Matcher::awaits_bestmove`]) or
    /// a `go mate`'s `checkmate`.
    ///
    /// ```
    /// use usicheck::scenario::{CheckmateCheck, Matcher};
    /// assert!(Matcher::Checkmate(CheckmateCheck::Any).awaits_terminal_reply());
    /// assert!(!Matcher::Readyok.awaits_terminal_reply());
    /// ```
    pub fn awaits_terminal_reply(&self) -> bool {
        self.awaits_bestmove() || matches!(self, Matcher::Checkmate(_))
    }

    /// Whether the line awaited is `readyok`: the `readyok` matcher, or a regex it matches.
    ///
    /// ```
    /// use usicheck::scenario::{Matcher, Pattern};
    /// assert!(Matcher::Line(Pattern::new("^readyok").unwrap()).awaits_readyok());
    /// assert!(!Matcher::Usiok.awaits_readyok());
    /// ```
    pub fn awaits_readyok(&self) -> bool {
        match self {
            Matcher::Readyok => true,
            Matcher::Line(pattern) => pattern.is_match("readyok"),
            _ => false,
        }
    }
}

/// Wait for one engine line.
///
/// The runner reads lines until one satisfies `matcher` (PASS), a line matches `forbid`
/// (FAIL), the deadline `within` passes (FAIL: "expected …, got …" with the lines seen), or the
/// engine exits (FAIL). Lines read while waiting are consumed; every line still goes through
/// the always-on checks (grammar, move legality, one terminal reply per `go`). A failure is
/// charged to `rule` (and its strength `part`, if given), else to every rule of the scenario;
/// `usiok` and `readyok` without a `rule` are charged like the handshake macro's
/// (USI-HANDSHAKE-004, USI-READY-001).
///
/// `legality_rule` names the rule a misread position is charged to while the step waits when
/// the observer cannot name the misreading: an illegal move (`bestmove`, ponder move, `pv`,
/// `currmove`, or a `checkmate` line that does not mate) that is legal in the previous
/// position (the line rejected, for a cause the step knows), or on two boards the engine may
/// have read, goes to the given rule, not to the legality rules (USI-BESTMOVE-002/007,
/// USI-PONDER-001, USI-INFO-011, USI-INFO-005, USI-MATE-003). A misreading the observer names
/// (see [`crate::observer::Misreading`]: files mirrored, hand counts, White to move read as
/// Black, declined promotions skipped, continuity assumed) goes to its own rule whatever the
/// step names. An illegal move no misread board explains stays with the legality rules. A
/// scenario that sends a position the engine may misread names the rule for reading it. The
/// rule applies only when the engine has made no illegal move earlier in the scenario (a
/// control search in an unambiguous position should come first); otherwise its move
/// generation is suspect and the legality rules keep the blame.
///
/// `untimed` exempts the reply this step waits for from the always-on reply clock: for a
/// scenario that sends an odd clock to probe something else (e.g. `go mate 1` to see how the
/// argument is read), whose timing another scenario judges with a realistic limit.
///
/// `times_reply` makes the step's check own the timing of the `bestmove`/`checkmate` it waits
/// for: a reply later than `within` is the step's `rule`'s, not the reply clock's. For a check
/// whose point is the timing of a search in one circumstance (right after `usinewgame`, after
/// a setting, with two allowances), after a control search with the same clock. Any other
/// check leaves a late reply to the clock, so the reply is charged once.
///
/// `keep_alive` makes `within` a limit on each silence rather than on the wait: every engine
/// line restarts it (up to T-READY's hard cap), as T-READY itself is restarted, for a budget
/// that is not the configurable T-READY (USI 2.0's fixed 30 s for `isready`, USI-EXT-003).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Expect {
    #[serde(flatten)]
    pub matcher: Matcher,
    /// Deadline from the previous step's end; defaults: `usiok` T-USIOK, `readyok` T-READY.
    pub within: Deadline,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleId>,
    /// The qualifier of the rule's strength part this expectation tests (e.g. `any order`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// A line matching this regex while waiting fails the step at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forbid: Option<Pattern>,
    /// The rule a `forbid`den line breaks, when it is not the step's own `rule` (e.g. a step
    /// that waits for optional output as setup, but forbids a wrong form of it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forbid_rule: Option<RuleId>,
    /// The rule an illegal move seen during this step is charged to (see above).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legality_rule: Option<RuleId>,
    /// The reply's timing is not judged (see above).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub untimed: bool,
    /// `within` bounds each silence, restarted by every line (see above).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub keep_alive: bool,
    /// The step's `rule` judges the reply's timing, not the reply clock (see above).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub times_reply: bool,
}

impl Expect {
    /// A wait `within` for `matcher`, charged to `rule` (setup when none), with none of the
    /// optional checks.
    pub fn plain(matcher: Matcher, within: Deadline, rule: Option<RuleId>) -> Expect {
        Expect {
            matcher,
            within,
            rule,
            part: None,
            forbid: None,
            forbid_rule: None,
            legality_rule: None,
            untimed: false,
            keep_alive: false,
            times_reply: false,
        }
    }

    /// Whether every engine line restarts the deadline: `keep_alive`, or a wait of T-READY,
    /// which is restarted by any line (RULES.md §0.3).
    pub fn restarts_on_every_line(&self) -> bool {
        self.keep_alive || self.within == Deadline::named(NamedTimeout::Ready)
    }
}

/// The written form of `expect` as a map (exactly one matcher key).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "ExpectMap")]
struct ExpectMap {
    /// `true`: wait for exactly `usiok`.
    #[serde(default)]
    usiok: Option<bool>,
    /// `true`: wait for exactly `readyok`.
    #[serde(default)]
    readyok: Option<bool>,
    #[serde(default)]
    bestmove: Option<BestmoveCheck>,
    /// Only together with `bestmove`.
    #[serde(default)]
    ponder: Option<PonderCheck>,
    #[serde(default)]
    checkmate: Option<CheckmateCheck>,
    #[serde(default)]
    info: Option<InfoCheck>,
    /// Any line matching this regex.
    #[serde(default)]
    line: Option<Pattern>,
    /// Required except for `usiok` (default T-USIOK) and `readyok` (default T-READY).
    #[serde(default)]
    within: Option<Deadline>,
    #[serde(default)]
    rule: Option<RuleId>,
    #[serde(default)]
    part: Option<String>,
    #[serde(default)]
    forbid: Option<Pattern>,
    /// The rule a forbidden line breaks, when it is not `rule` (which may then be absent: the
    /// wait itself is setup).
    #[serde(default)]
    forbid_rule: Option<RuleId>,
    /// Charge a misread position seen during this step that the observer cannot name (an
    /// illegal move in bestmove, ponder, pv, currmove or a checkmate line that is legal in the
    /// previous position, or on two misread boards) to this rule, unless the engine already
    /// made an illegal move in the scenario: for positions the engine may misread
    /// (USI-POSITION-*).
    #[serde(default)]
    legality_rule: Option<RuleId>,
    /// `true`: the always-on reply clock does not judge the `bestmove`/`checkmate` this step
    /// waits for (the search's clock probes something else; another scenario judges timing).
    #[serde(default)]
    untimed: Option<bool>,
    /// `true`: `within` bounds each silence, restarted by every engine line (as T-READY is),
    /// for a fixed keep-alive budget such as USI 2.0's 30 s for `isready`.
    #[serde(default)]
    keep_alive: Option<bool>,
    /// `true`: a reply later than `within` is this step's `rule`'s, not the reply clock's
    /// (a check of the search's timing in one circumstance, after a control search).
    #[serde(default)]
    times_reply: Option<bool>,
}

impl TryFrom<ExpectMap> for Expect {
    type Error = String;

    fn try_from(map: ExpectMap) -> Result<Self, String> {
        let mut matchers = Vec::new();
        let mut flag = |name: &str, value: Option<bool>, matcher: Matcher| match value {
            Some(true) => {
                matchers.push(matcher);
                Ok(())
            }
            Some(false) => Err(format!("`{name}: false` is meaningless; remove it")),
            None => Ok(()),
        };
        flag("usiok", map.usiok, Matcher::Usiok)?;
        flag("readyok", map.readyok, Matcher::Readyok)?;
        if let Some(bestmove) = map.bestmove {
            matchers.push(Matcher::Bestmove {
                bestmove,
                ponder: map.ponder,
            });
        } else if map.ponder.is_some() {
            return Err("`ponder` needs `bestmove` in the same expect".into());
        }
        matchers.extend(map.checkmate.map(Matcher::Checkmate));
        matchers.extend(map.info.map(Matcher::Info));
        matchers.extend(map.line.map(Matcher::Line));
        let matcher = match matchers.len() {
            1 => matchers.remove(0),
            0 => {
                return Err(
                    "expect needs one matcher: usiok, readyok, bestmove, checkmate, \
                            info or line"
                        .into(),
                );
            }
            _ => return Err("expect takes exactly one matcher; split it into steps".into()),
        };
        let terminal = matches!(matcher, Matcher::Bestmove { .. } | Matcher::Checkmate(_));
        let within = match (map.within, &matcher) {
            (Some(within), _) => within,
            (None, Matcher::Usiok) => Deadline::named(NamedTimeout::Usiok),
            (None, Matcher::Readyok) => Deadline::named(NamedTimeout::Ready),
            (None, _) => return Err("`within` is required for this matcher".into()),
        };
        if let Some(part) = &map.part {
            // The step's own rule, else the rule its forbidden line breaks.
            let rule = map
                .rule
                .or(map.forbid_rule)
                .ok_or("`part` needs `rule` or `forbid_rule`")?
                .rule();
            if rule.part(part).is_none() {
                let known: Vec<String> = rule
                    .strength
                    .parts()
                    .iter()
                    .filter_map(|p| p.qualifier.clone())
                    .collect();
                return Err(format!(
                    "`{}` has no strength part `{part}`; its parts: {}",
                    rule.id,
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ));
            }
        }
        Ok(Expect {
            matcher,
            within,
            rule: map.rule,
            part: map.part,
            forbid_rule: match (&map.forbid, map.forbid_rule) {
                (None, Some(_)) => return Err("`forbid_rule` needs `forbid`".into()),
                (_, forbid_rule) => forbid_rule,
            },
            forbid: map.forbid,
            legality_rule: map.legality_rule,
            untimed: match (map.untimed, terminal) {
                (Some(false), _) => return Err("`untimed: false` is meaningless; remove it".into()),
                (Some(true), false) => {
                    return Err("`untimed` needs a `bestmove` or `checkmate` matcher".into());
                }
                (untimed, _) => untimed.is_some(),
            },
            keep_alive: match map.keep_alive {
                Some(false) => {
                    return Err("`keep_alive: false` is meaningless; remove it".into());
                }
                keep_alive => keep_alive.is_some(),
            },
            times_reply: match (map.times_reply, terminal && map.rule.is_some()) {
                (Some(false), _) => {
                    return Err("`times_reply: false` is meaningless; remove it".into());
                }
                (Some(true), false) => {
                    return Err(
                        "`times_reply` needs a `rule` and a `bestmove` or `checkmate` matcher"
                            .into(),
                    );
                }
                (times_reply, _) => times_reply.is_some(),
            },
        })
    }
}

impl<'de> Deserialize<'de> for Expect {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Expect;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("`usiok`, `readyok` or a map such as {bestmove: legal, within: 2s}")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Expect, E> {
                let matcher = match v {
                    "usiok" => Matcher::Usiok,
                    "readyok" => Matcher::Readyok,
                    _ => {
                        return Err(E::custom(format!(
                            "unknown matcher `{v}`; the short form is `usiok` or `readyok`, \
                             others need a map such as {{bestmove: legal, within: 2s}}"
                        )));
                    }
                };
                Expect::try_from(ExpectMap {
                    usiok: (matcher == Matcher::Usiok).then_some(true),
                    readyok: (matcher == Matcher::Readyok).then_some(true),
                    ..ExpectMap::empty()
                })
                .map_err(E::custom)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Expect, A::Error> {
                let map =
                    ExpectMap::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Expect::try_from(map).map_err(serde::de::Error::custom)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl ExpectMap {
    fn empty() -> ExpectMap {
        ExpectMap {
            usiok: None,
            readyok: None,
            bestmove: None,
            ponder: None,
            checkmate: None,
            info: None,
            line: None,
            within: None,
            rule: None,
            part: None,
            forbid: None,
            forbid_rule: None,
            legality_rule: None,
            untimed: None,
            keep_alive: None,
            times_reply: None,
        }
    }
}

impl JsonSchema for Expect {
    fn schema_name() -> Cow<'static, str> {
        "Expect".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let map = generator.subschema_for::<ExpectMap>();
        schemars::json_schema!({
            "description": "Wait for one engine line: `usiok`, `readyok`, or a map with exactly one matcher (usiok, readyok, bestmove, checkmate, info, line) plus within, rule, part, forbid, forbid_rule, legality_rule, untimed, keep_alive, times_reply.",
            "anyOf": [
                { "type": "string", "enum": ["usiok", "readyok"] },
                map,
            ],
        })
    }
}
