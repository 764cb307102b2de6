//! Profiles: which rules apply and how hard a violation counts (RULES.md §0.1).

use super::{ExtensionKind, Level, Rule, RuleId, Section, Severity, StrengthPart};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use std::time::Duration;

/// A reading of the USI specification to certify against.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The 2007 draft (Tord Romstad, with the UCI text it inherits).
    Usi1,
    /// The de-facto specification most GUIs follow (Shogidokoro and its successors).
    #[default]
    Shogidokoro,
    /// `shogidokoro` plus the MyShogi USI 2.0 extensions.
    Usi2,
    /// `shogidokoro` with SHOULD and DE-FACTO violations counted as FAIL.
    Strict,
}

/// Rules citing the draft only to contrast with it, or whose subject the draft settles the
/// other way (appendix A): not part of `usi1`.
const NOT_IN_DRAFT: &[&str] = &["USI-READY-007", "USI-ENCODING-002"];

/// Rules that do not cite the draft but follow from draft rules: no duplicate `bestmove`
/// (from one reply per `go`, USI-GO-002) and flushed output (without it no draft timeout can
/// be met).
const FOLLOWS_FROM_DRAFT: &[&str] = &["USI-STOP-003", "USI-ROBUST-006"];

/// Extensions the engine under test claims (from MyShogi `engine_define.xml` or the command
/// line); a claimed extension rule is judged like a MUST.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Claims {
    pub rules: BTreeSet<RuleId>,
}

/// MyShogi `ExtendedProtocol` names (engine_define.xml) and the rule each one claims.
const EXTENDED_PROTOCOL: [(&str, &str); 2] = [
    ("GoCommandTimeExtention", "USI-EXT-013"),
    ("UseHashCommandExtension", "USI-EXT-014"),
];

impl Claims {
    pub fn claims(&self, id: RuleId) -> bool {
        self.rules.contains(&id)
    }

    /// Adds the claim named by a MyShogi `ExtendedProtocol` value (spelled as MyShogi does,
    /// `Extention` included); `false` for a name MyShogi does not define.
    ///
    /// ```
    /// use usicheck::rules::{Claims, RuleId};
    /// let mut claims = Claims::default();
    /// assert!(claims.add_extended_protocol("GoCommandTimeExtention"));
    /// assert!(claims.claims("USI-EXT-013".parse::<RuleId>().unwrap()));
    /// assert!(!claims.add_extended_protocol("TeleportExtension"));
    /// ```
    pub fn add_extended_protocol(&mut self, name: &str) -> bool {
        self.add_named(name)
    }

    /// Adds a claim given by rule ID (`--claim`): only vendor extensions can be claimed (USI
    /// 2.0 proper comes with the `usi2` profile); `Err` says why not.
    ///
    /// ```
    /// use usicheck::rules::{Claims, RuleId};
    /// let mut claims = Claims::default();
    /// let early_ponder: RuleId = "USI-EXT-015".parse().unwrap();
    /// claims.add_rule(early_ponder).unwrap();
    /// assert!(claims.claims(early_ponder));
    /// assert!(claims.add_rule("USI-GO-004".parse().unwrap()).is_err());
    /// ```
    pub fn add_rule(&mut self, id: RuleId) -> Result<(), String> {
        let qualifier = id.rule().strength.primary().qualifier.as_deref();
        if qualifier.is_some_and(|q| q.starts_with("vendor profile")) {
            return Err(format!(
                "{id} is a vendor profile, recognised from the engine's `id name`: nothing to claim"
            ));
        }
        match id.rule().strength.extension_kind() {
            Some(ExtensionKind::Vendor) => {
                self.rules.insert(id);
                Ok(())
            }
            Some(ExtensionKind::Usi2) => Err(format!(
                "{id} is USI 2.0 proper: it is claimed with --profile usi2"
            )),
            _ => Err(format!("{id} is not a vendor extension: nothing to claim")),
        }
    }

    fn add_named(&mut self, name: &str) -> bool {
        let id = EXTENDED_PROTOCOL
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, id)| id.parse::<RuleId>().ok());
        if let Some(id) = id {
            self.rules.insert(id);
        }
        id.is_some()
    }
}

/// Tester timeouts of RULES.md §0.3 under a profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// T-USIOK: `usi` → `usiok`.
    pub usiok: Duration,
    /// T-READY: silence allowed between `isready` and `readyok` (any line restarts it).
    pub ready_silence: Duration,
    /// Hard cap on `isready` → `readyok`.
    pub ready_cap: Duration,
    /// T-STOP: `stop` → `bestmove`/`checkmate`.
    pub stop: Duration,
    /// T-QUIT: `quit` or stdin EOF → exit.
    pub quit: Duration,
    /// T-SILENT: window in which no output is asserted.
    pub silent: Duration,
    /// G: added to every time-control bound.
    pub grace: Duration,
}

impl Profile {
    pub const ALL: [Profile; 4] = [
        Profile::Usi1,
        Profile::Shogidokoro,
        Profile::Usi2,
        Profile::Strict,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Usi1 => "usi1",
            Profile::Shogidokoro => "shogidokoro",
            Profile::Usi2 => "usi2",
            Profile::Strict => "strict",
        }
    }

    /// Whether the profile applies `rule` at all.
    ///
    /// `usi1`: rules citing the draft or UCI (`[TR]`, `[UCI]`) outside §15, minus two that cite
    /// it only in contrast, plus two that follow from draft rules; `shogidokoro` and
    /// `strict`: everything but MyShogi USI 2.0 proper (vendor extensions stay, as INFO unless
    /// claimed); `usi2`: everything.
    ///
    /// ```
    /// use usicheck::rules::{Profile, RuleId};
    /// let mate: RuleId = "USI-MATE-002".parse().unwrap();
    /// assert!(!Profile::Usi1.applies(mate.rule()));
    /// assert!(Profile::Shogidokoro.applies(mate.rule()));
    /// ```
    pub fn applies(self, rule: &Rule) -> bool {
        let extension = rule.strength.extension_kind();
        match self {
            Profile::Usi1 => {
                let id = rule.id.as_str();
                FOLLOWS_FROM_DRAFT.contains(&id)
                    || (rule.section != Section::Ext
                        && (rule.cites("TR") || rule.cites("UCI"))
                        && !NOT_IN_DRAFT.contains(&id))
            }
            Profile::Shogidokoro | Profile::Strict => !matches!(
                extension,
                Some(ExtensionKind::Usi2 | ExtensionKind::Historic)
            ),
            Profile::Usi2 => true,
        }
    }

    /// What a violation of `part` of `rule` counts as (RULES.md §0.1).
    ///
    /// MUST → FAIL; SHOULD → WARN; MAY → INFO; DE-FACTO → WARN, or FAIL where RULES.md notes
    /// it; EXTENSION-USI2.0 → INFO unless claimed (FAIL), with USI 2.0 proper counted as
    /// claimed under `usi2` and historic proposals never judged. `strict` turns SHOULD and
    /// DE-FACTO into FAIL.
    ///
    /// ```
    /// use usicheck::rules::{Claims, Profile, RuleId, Severity};
    /// let rule = "USI-POSITION-004".parse::<RuleId>().unwrap().rule();
    /// let any_order = rule.strength.part("any order").unwrap();
    /// let none = Claims::default();
    /// assert_eq!(Profile::Shogidokoro.severity(rule, any_order, &none), Severity::Warn);
    /// assert_eq!(Profile::Strict.severity(rule, any_order, &none), Severity::Fail);
    /// ```
    pub fn severity(self, rule: &Rule, part: &StrengthPart, claims: &Claims) -> Severity {
        if !self.applies(rule) {
            return Severity::NotApplicable;
        }
        let strict = self == Profile::Strict;
        match part.level {
            Level::Must => Severity::Fail,
            Level::Should if strict => Severity::Fail,
            Level::Should => Severity::Warn,
            Level::May => Severity::Info,
            Level::DeFacto if strict || part.noted_as_fail() => Severity::Fail,
            Level::DeFacto => Severity::Warn,
            Level::Extension => match rule.strength.extension_kind() {
                Some(ExtensionKind::Historic) => Severity::NotApplicable,
                Some(ExtensionKind::Usi2) if self == Profile::Usi2 => Severity::Fail,
                _ if claims.claims(rule.rule_id) => Severity::Fail,
                _ => Severity::Info,
            },
        }
    }

    /// The severity of the rule's primary strength part.
    pub fn primary_severity(self, rule: &Rule, claims: &Claims) -> Severity {
        self.severity(rule, rule.strength.primary(), claims)
    }

    /// The §0.3 default timeouts (strict: `usiok` within 2 s).
    pub fn timeouts(self) -> Timeouts {
        let ms = Duration::from_millis;
        Timeouts {
            usiok: if self == Profile::Strict {
                ms(2_000)
            } else {
                ms(10_000)
            },
            ready_silence: ms(30_000),
            ready_cap: ms(300_000),
            stop: ms(1_000),
            quit: ms(5_000),
            silent: ms(500),
            grace: ms(100),
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::catalogue;

    fn rule(id: &str) -> &'static Rule {
        id.parse::<RuleId>().unwrap().rule()
    }

    fn count(profile: Profile) -> usize {
        catalogue()
            .rules()
            .iter()
            .filter(|r| profile.applies(r))
            .count()
    }

    #[test]
    fn profile_sizes_nest() {
        let (usi1, sd, usi2) = (
            count(Profile::Usi1),
            count(Profile::Shogidokoro),
            count(Profile::Usi2),
        );
        assert!(usi1 < sd && sd < usi2, "{usi1} {sd} {usi2}");
        assert_eq!(usi2, 148);
        assert_eq!(count(Profile::Strict), sd);
        for r in catalogue().rules() {
            if Profile::Usi1.applies(r) {
                assert!(Profile::Shogidokoro.applies(r), "{}", r.id);
            }
        }
    }

    #[test]
    fn verdict_table_of_section_0_1() {
        let none = Claims::default();
        let sev = |p: Profile, id: &str| p.primary_severity(rule(id), &none);
        assert_eq!(sev(Profile::Shogidokoro, "USI-READY-001"), Severity::Fail);
        assert_eq!(sev(Profile::Shogidokoro, "USI-STOP-002"), Severity::Warn);
        assert_eq!(sev(Profile::Strict, "USI-STOP-002"), Severity::Fail);
        assert_eq!(sev(Profile::Shogidokoro, "USI-GO-009"), Severity::Info);
        assert_eq!(sev(Profile::Strict, "USI-GO-009"), Severity::Info);
        assert_eq!(
            sev(Profile::Shogidokoro, "USI-ENCODING-003"),
            Severity::Warn
        );
        assert_eq!(sev(Profile::Strict, "USI-ENCODING-003"), Severity::Fail);
        assert_eq!(sev(Profile::Shogidokoro, "USI-ROBUST-005"), Severity::Fail);
        assert_eq!(
            sev(Profile::Shogidokoro, "USI-EXT-004"),
            Severity::NotApplicable
        );
        assert_eq!(sev(Profile::Usi2, "USI-EXT-004"), Severity::Fail);
        assert_eq!(sev(Profile::Usi2, "USI-EXT-014"), Severity::NotApplicable);
        assert_eq!(sev(Profile::Shogidokoro, "USI-EXT-017"), Severity::Info);
        assert_eq!(sev(Profile::Usi1, "USI-MATE-002"), Severity::NotApplicable);
        assert_eq!(sev(Profile::Usi1, "USI-READY-007"), Severity::NotApplicable);
        assert_eq!(sev(Profile::Usi1, "USI-READY-001"), Severity::Fail);
    }

    #[test]
    fn claimed_vendor_extension_fails() {
        let id: RuleId = "USI-EXT-015".parse().unwrap();
        let claims = Claims {
            rules: BTreeSet::from([id]),
        };
        assert_eq!(
            Profile::Shogidokoro.primary_severity(id.rule(), &claims),
            Severity::Fail
        );
    }

    #[test]
    fn split_strength_parts_map_separately() {
        let r = rule("USI-OPTION-005");
        let none = Claims::default();
        let p = Profile::Shogidokoro;
        assert_eq!(
            p.severity(r, r.strength.part("default∈vars").unwrap(), &none),
            Severity::Warn
        );
        let r = rule("USI-HANDSHAKE-008");
        assert_eq!(
            p.severity(r, r.strength.part("engine").unwrap(), &none),
            Severity::Info
        );
        assert_eq!(
            p.severity(r, r.strength.part("ignore (GUI)").unwrap(), &none),
            Severity::Fail
        );
    }
}
