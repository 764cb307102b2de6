//! Adjudication by the engines' own scores, as fastchess does it (`-resign`, `-draw`; its
//! `ResignTracker` and `DrawTracker`, app/src/matchmaking/adjudication/): a game whose
//! outcome both engines' searches already tell is ended early, so that decided games do not
//! run to the move limit.
//!
//! A move's score is the last `score` its mover reported in that search (`multipv 1`), from
//! its own point of view; a `score mate` counts as beyond any centipawn threshold. A search
//! that reported no score breaks every run it would have counted in.

use crate::shogi::Color;
use crate::usi::{Score, ScoreValue};
use std::fmt;

/// `--adjudicate-resign movecount=N,score=CP[,twosided=true]` (fastchess's `-resign`): a side
/// loses when its own score is at or below `-score` for `movecount` of its moves in a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Resign {
    /// Moves in a row of one side (two-sided: of each side, `2 × N` plies in a row).
    #[schemars(range(min = 1))]
    pub movecount: u32,
    /// The threshold in centipawns.
    pub score: i64,
    /// Both engines' scores count, move after move, not the loser's alone: when both are
    /// beyond ±`score` for `2 × movecount` plies in a row, the side then scoring itself behind
    /// loses.
    pub twosided: bool,
}

/// `--adjudicate-draw movenumber=M,movecount=N,score=CP` (fastchess's `-draw`): a draw once
/// `movenumber` plies are played and both engines' scores have stayed within ±`score` for
/// `2 × movecount` plies in a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Draw {
    /// Plies played (opening included) before a draw can be adjudicated.
    pub movenumber: u32,
    /// Moves of each side in a row (`2 × N` plies).
    #[schemars(range(min = 1))]
    pub movecount: u32,
    /// The threshold in centipawns.
    pub score: i64,
}

/// The adjudication rules of a match (a rule null: off), as fastchess's `-resign` and `-draw`
/// mean them; none by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Rules {
    /// `--adjudicate-resign`.
    pub resign: Option<Resign>,
    /// `--adjudicate-draw`.
    pub draw: Option<Draw>,
}

/// `KEY=VALUE` pairs separated by commas, each key one of `keys`, as `(key, value)`.
fn pairs<'a>(text: &'a str, keys: &[&str]) -> Result<Vec<(&'a str, &'a str)>, String> {
    let mut pairs = Vec::new();
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("`{pair}`: expected KEY=VALUE"))?;
        let key = key.trim();
        if !keys.contains(&key) {
            return Err(format!("`{key}`: expected {}", keys.join(", ")));
        }
        pairs.push((key, value.trim()));
    }
    Ok(pairs)
}

/// The value of `key`, which must be given.
fn required<'a>(pairs: &[(&str, &'a str)], key: &str) -> Result<&'a str, String> {
    pairs
        .iter()
        .rev()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| *v)
        .ok_or_else(|| format!("{key} is required"))
}

/// A whole number from `min` on.
fn number<T: std::str::FromStr + PartialOrd + fmt::Display>(
    key: &str,
    value: &str,
    min: T,
) -> Result<T, String> {
    match value.parse::<T>() {
        Ok(n) if n >= min => Ok(n),
        _ => Err(format!(
            "{key}=`{value}`: expected a whole number from {min}"
        )),
    }
}

impl Resign {
    /// Parses `movecount=N,score=CP[,twosided=true|false]`, both numbers required (fastchess
    /// defaults them to 1 and 0, which would end a level game at once).
    ///
    /// ```
    /// use usicheck::play::adjudication::Resign;
    /// let rule = Resign::parse("movecount=3,score=500,twosided=true").unwrap();
    /// assert_eq!((rule.movecount, rule.score, rule.twosided), (3, 500, true));
    /// assert_eq!(Resign::parse("score=500").unwrap_err(), "movecount is required");
    /// assert!(Resign::parse("movecount=0,score=500").unwrap_err().starts_with("movecount=`0`"));
    /// ```
    pub fn parse(text: &str) -> Result<Resign, String> {
        let pairs = pairs(text, &["movecount", "score", "twosided"])?;
        let twosided = match pairs.iter().rev().find(|(k, _)| *k == "twosided") {
            None | Some((_, "false")) => false,
            Some((_, "true")) => true,
            Some((_, other)) => return Err(format!("twosided=`{other}`: expected true or false")),
        };
        Ok(Resign {
            movecount: number("movecount", required(&pairs, "movecount")?, 1)?,
            score: number("score", required(&pairs, "score")?, 0)?,
            twosided,
        })
    }
}

impl fmt::Display for Resign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "movecount={},score={}", self.movecount, self.score)?;
        if self.twosided {
            f.write_str(",twosided=true")?;
        }
        Ok(())
    }
}

impl Draw {
    /// Parses `movenumber=M,movecount=N,score=CP`, all three required.
    ///
    /// ```
    /// use usicheck::play::adjudication::Draw;
    /// let rule = Draw::parse("movenumber=80,movecount=8,score=10").unwrap();
    /// assert_eq!((rule.movenumber, rule.movecount, rule.score), (80, 8, 10));
    /// assert_eq!(Draw::parse("movenumber=80,movecount=8,cp=10").unwrap_err(),
    ///     "`cp`: expected movenumber, movecount, score");
    /// ```
    pub fn parse(text: &str) -> Result<Draw, String> {
        let pairs = pairs(text, &["movenumber", "movecount", "score"])?;
        Ok(Draw {
            movenumber: number("movenumber", required(&pairs, "movenumber")?, 0)?,
            movecount: number("movecount", required(&pairs, "movecount")?, 1)?,
            score: number("score", required(&pairs, "score")?, 0)?,
        })
    }
}

impl fmt::Display for Draw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "movenumber={},movecount={},score={}",
            self.movenumber, self.movecount, self.score
        )
    }
}

/// The mover thinks it is lost: `cp ≤ -threshold`, or it is mated.
fn losing(score: ScoreValue, threshold: i64) -> bool {
    match score {
        ScoreValue::Cp(cp) => cp <= -threshold,
        ScoreValue::Mate(plies) => plies < 0,
        ScoreValue::EngineMated => true,
        ScoreValue::EngineMates => false,
    }
}

/// Beyond `±threshold` either way, a mate either way included.
fn decided(score: ScoreValue, threshold: i64) -> bool {
    match score {
        ScoreValue::Cp(cp) => cp.abs() >= threshold,
        _ => true,
    }
}

/// Below zero: the mover is the side behind.
fn negative(score: ScoreValue) -> bool {
    match score {
        ScoreValue::Cp(cp) => cp < 0,
        other => losing(other, 0),
    }
}

/// Within `±threshold` centipawns (a mate never is).
fn level(score: ScoreValue, threshold: i64) -> bool {
    matches!(score, ScoreValue::Cp(cp) if cp.abs() <= threshold)
}

/// How an adjudicated game ended, with what the referee saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Adjudicated {
    Lost { loser: Color, detail: String },
    Drawn { detail: String },
}

/// One game's runs of scores, fed move by move.
///
/// ```
/// use usicheck::play::adjudication::{Adjudicated, Adjudicator, Resign, Rules};
/// use usicheck::shogi::Color;
/// use usicheck::usi::{Score, ScoreValue};
/// let resign = Resign::parse("movecount=2,score=500").unwrap();
/// let mut game = Adjudicator::new(Rules { resign: Some(resign), draw: None });
/// let cp = |cp| Some(Score { value: ScoreValue::Cp(cp), bound: None });
/// assert_eq!(game.after_move(Color::Black, cp(-600), 1), None);
/// assert_eq!(game.after_move(Color::White, cp(600), 2), None);
/// let ended = game.after_move(Color::Black, cp(-700), 3);
/// assert!(matches!(ended, Some(Adjudicated::Lost { loser: Color::Black, .. })));
/// ```
#[derive(Clone, Debug)]
pub struct Adjudicator {
    rules: Rules,
    /// Each side's own moves in a row scoring it lost (one-sided resign), Black's first.
    losing: [u32; 2],
    /// Plies in a row whose mover scored beyond the threshold either way (two-sided resign).
    decided: u32,
    /// Plies in a row whose mover scored within the draw threshold.
    level: u32,
}

impl Adjudicator {
    pub fn new(rules: Rules) -> Adjudicator {
        Adjudicator {
            rules,
            losing: [0; 2],
            decided: 0,
            level: 0,
        }
    }

    /// Counts a move of `mover`, whose search last reported `score` (`None`: no score), that
    /// brought the game to `plies` plies (opening included); the end of the game when a rule
    /// says so. Resignation is judged first, as fastchess does.
    pub fn after_move(
        &mut self,
        mover: Color,
        score: Option<Score>,
        plies: usize,
    ) -> Option<Adjudicated> {
        let value = score.map(|s| s.value);
        let count = |run: &mut u32, counts: bool| *run = if counts { *run + 1 } else { 0 };
        let said = score.map_or("no score".to_owned(), |s| s.to_string());
        if let Some(rule) = self.rules.resign {
            if rule.twosided {
                count(
                    &mut self.decided,
                    value.is_some_and(|v| decided(v, rule.score)),
                );
                if self.decided >= 2 * rule.movecount && value.is_some_and(negative) {
                    return Some(Adjudicated::Lost {
                        loser: mover,
                        detail: format!(
                            "both engines scored beyond +-{} for {} plies in a row, \
                             {mover:?} last ({said})",
                            rule.score, self.decided
                        ),
                    });
                }
            } else {
                let run = &mut self.losing[mover.index()];
                count(run, value.is_some_and(|v| losing(v, rule.score)));
                if *run >= rule.movecount {
                    return Some(Adjudicated::Lost {
                        loser: mover,
                        detail: format!(
                            "{mover:?} scored itself at or below -{} for {} moves in a row \
                             (last: {said})",
                            rule.score, *run
                        ),
                    });
                }
            }
        }
        if let Some(rule) = self.rules.draw {
            count(&mut self.level, value.is_some_and(|v| level(v, rule.score)));
            if self.level >= 2 * rule.movecount && plies >= rule.movenumber as usize {
                return Some(Adjudicated::Drawn {
                    detail: format!(
                        "both engines scored within +-{} for {} plies in a row, at ply {plies}",
                        rule.score, self.level
                    ),
                });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Color::{Black, White};

    fn cp(cp: i64) -> Option<Score> {
        Some(Score {
            value: ScoreValue::Cp(cp),
            bound: None,
        })
    }

    fn mate(value: ScoreValue) -> Option<Score> {
        Some(Score { value, bound: None })
    }

    fn resign(text: &str) -> Adjudicator {
        Adjudicator::new(Rules {
            resign: Some(Resign::parse(text).unwrap()),
            draw: None,
        })
    }

    fn draw(text: &str) -> Adjudicator {
        Adjudicator::new(Rules {
            resign: None,
            draw: Some(Draw::parse(text).unwrap()),
        })
    }

    /// Feeds alternate moves from Black, from ply 1; the ply and verdict of the first ending.
    fn feed(game: &mut Adjudicator, scores: &[Option<Score>]) -> Option<(usize, Adjudicated)> {
        scores.iter().enumerate().find_map(|(i, score)| {
            let mover = if i % 2 == 0 { Black } else { White };
            game.after_move(mover, *score, i + 1)
                .map(|end| (i + 1, end))
        })
    }

    fn loser(end: Option<(usize, Adjudicated)>) -> Option<(usize, Color)> {
        match end? {
            (ply, Adjudicated::Lost { loser, .. }) => Some((ply, loser)),
            (_, Adjudicated::Drawn { .. }) => panic!("a draw, not a loss"),
        }
    }

    #[test]
    fn one_sided_the_losing_side_alone_decides() {
        // White's own score counts; Black's (however it scores) does not.
        let scores = [cp(0), cp(-500), cp(0), cp(-900), cp(-50), cp(-501)];
        assert_eq!(
            loser(feed(&mut resign("movecount=3,score=500"), &scores)),
            Some((6, White))
        );
        // The threshold is inclusive, and a move above it starts the run again.
        let scores = [cp(-500), cp(0), cp(-499), cp(0), cp(-500), cp(0), cp(-600)];
        assert_eq!(
            loser(feed(&mut resign("movecount=2,score=500"), &scores)),
            Some((7, Black))
        );
    }

    #[test]
    fn a_search_without_a_score_breaks_the_run() {
        let scores = [cp(-600), cp(0), None, cp(0), cp(-600), cp(0), cp(-600)];
        assert_eq!(
            loser(feed(&mut resign("movecount=2,score=500"), &scores)),
            Some((7, Black))
        );
        let mut game = resign("movecount=2,score=500");
        assert_eq!(feed(&mut game, &[cp(-600), cp(0), None, cp(0)]), None);
    }

    #[test]
    fn mate_scores_are_beyond_any_threshold() {
        let scores = [
            mate(ScoreValue::Mate(-7)),
            cp(0),
            mate(ScoreValue::EngineMated),
        ];
        assert_eq!(
            loser(feed(&mut resign("movecount=2,score=30000"), &scores)),
            Some((3, Black))
        );
        // The side that mates is not losing.
        let scores = [
            mate(ScoreValue::Mate(5)),
            cp(0),
            mate(ScoreValue::EngineMates),
        ];
        assert_eq!(feed(&mut resign("movecount=2,score=500"), &scores), None);
    }

    #[test]
    fn two_sided_counts_both_engines_and_the_side_behind_loses() {
        // The fourth ply in a row beyond ±500 is White's, scoring itself behind: it loses.
        let scores = [cp(600), cp(-600), cp(700), cp(-800)];
        assert_eq!(
            loser(feed(
                &mut resign("movecount=2,score=500,twosided=true"),
                &scores
            )),
            Some((4, White))
        );
        // The run complete on the winner's move: the loser's next move ends the game.
        let scores = [cp(-600), cp(600), cp(-600), cp(600), cp(-600)];
        assert_eq!(
            loser(feed(
                &mut resign("movecount=2,score=500,twosided=true"),
                &scores
            )),
            Some((5, Black))
        );
        // One engine disagreeing (level) breaks the run.
        let scores = [cp(600), cp(-600), cp(100), cp(-800), cp(600), cp(-600)];
        assert_eq!(
            feed(&mut resign("movecount=2,score=500,twosided=true"), &scores),
            None
        );
    }

    #[test]
    fn a_draw_needs_both_engines_level_after_the_move_number() {
        let level = [cp(5), cp(-10), cp(0), cp(10), cp(3), cp(-2)];
        let end = feed(&mut draw("movenumber=0,movecount=2,score=10"), &level);
        assert!(
            matches!(end, Some((4, Adjudicated::Drawn { .. }))),
            "{end:?}"
        );
        // Not before ply 6.
        let end = feed(&mut draw("movenumber=6,movecount=2,score=10"), &level);
        assert!(
            matches!(end, Some((6, Adjudicated::Drawn { .. }))),
            "{end:?}"
        );
        // A score beyond, a mate or no score starts the run again.
        for breaker in [cp(11), mate(ScoreValue::Mate(3)), None] {
            let scores = [cp(0), cp(0), cp(0), breaker, cp(0), cp(0), cp(0)];
            let end = feed(&mut draw("movenumber=0,movecount=2,score=10"), &scores);
            assert_eq!(end, None, "{breaker:?}");
        }
    }

    #[test]
    fn resignation_is_judged_before_the_draw() {
        let mut game = Adjudicator::new(Rules {
            resign: Some(Resign::parse("movecount=1,score=0").unwrap()),
            draw: Some(Draw::parse("movenumber=0,movecount=1,score=5").unwrap()),
        });
        // White's level score both loses (≤ -0) and completes the level run.
        assert_eq!(game.after_move(Black, cp(5), 1), None);
        let end = game.after_move(White, cp(0), 2);
        assert!(
            matches!(end, Some(Adjudicated::Lost { loser: White, .. })),
            "{end:?}"
        );
    }

    #[test]
    fn malformed_rules_are_one_line_errors() {
        for (text, error) in [
            ("movecount=3", "score is required"),
            (
                "movecount=3,score=-5",
                "score=`-5`: expected a whole number from 0",
            ),
            (
                "movecount=3,score=5,twosided=yes",
                "twosided=`yes`: expected true or false",
            ),
            ("movecount 3", "`movecount 3`: expected KEY=VALUE"),
        ] {
            assert_eq!(Resign::parse(text).unwrap_err(), error, "{text}");
        }
        assert_eq!(
            Draw::parse("movecount=3,score=5").unwrap_err(),
            "movenumber is required"
        );
        assert_eq!(
            Resign::parse("movecount=3,score=500,twosided=true")
                .unwrap()
                .to_string(),
            "movecount=3,score=500,twosided=true"
        );
    }
}
