//! What a match says about strength, computed as fastchess computes it (so that a shogi author
//! reads the figures a chess author knows): the score, the Elo difference with its 95 %
//! interval, the likelihood of superiority, the pentanomial counts of colour-swapped pairs,
//! and the SPRT's log-likelihood ratio.
//!
//! Sources: fastchess `app/src/matchmaking/elo/elo_wdl.cpp`, `elo_pentanomial.cpp` (score,
//! variance, interval, LOS) and `app/src/matchmaking/sprt/sprt.cpp` (the generalised SPRT);
//! the maximum-likelihood distributions are those of Michel Van den Bergh, "Comments on
//! Normalized Elo" (<https://www.cantate.be/Fishtest/normalized_elo_practical.pdf>),
//! proposition 1.1 (logistic) and section 4.1 (normalised).
//!
//! Here the tally and the Elo estimate; `sprt` is the test that stops a match.

mod sprt;

pub use sprt::{Decision, Model, Sprt};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The z-score of a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;
/// Elo per unit of normalised score: 800 / ln 10.
const NELO_SCALE: f64 = 800.0 / std::f64::consts::LN_10;
/// A count of zero is taken as this much, so that no outcome has probability zero.
const REGULARISED: f64 = 1e-3;

/// Wins, draws and losses of the engine under test (a game cut short is not counted), and the
/// pentanomial counts of the pairs of games that share an opening with colours swapped (games
/// 1 and 2, 3 and 4, …).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Results {
    pub win: u64,
    pub draw: u64,
    pub loss: u64,
    /// Pairs by their score, from two losses to two wins: `[LL, LD, WL+DD, WD, WW]`.
    pub pairs: [u64; 5],
}

/// The score per game of each pentanomial class.
const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
const GAME_SCORES: [f64; 3] = [0.0, 0.5, 1.0];

/// A finished game from the engine's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    Win,
    Draw,
    Loss,
}

impl Results {
    /// The results of finished games `(number, result)`, numbered from 1: games 1 and 2, 3 and
    /// 4, … share an opening with colours swapped, so a pair whose two games are both in
    /// counts in the pentanomial classes too.
    ///
    /// ```
    /// use usicheck::play::stats::{GameResult::*, Results};
    /// let results = Results::tally([(1, Win), (2, Draw), (3, Loss), (5, Win), (6, Win)]);
    /// assert_eq!((results.win, results.draw, results.loss), (3, 1, 1));
    /// assert_eq!(results.pairs, [0, 0, 0, 1, 1]); // WD and WW; game 4 is missing
    /// ```
    pub fn tally(games: impl IntoIterator<Item = (usize, GameResult)>) -> Results {
        let mut results = Results::default();
        let mut halves: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        for (number, result) in games {
            let half_points = match result {
                GameResult::Win => {
                    results.win += 1;
                    2
                }
                GameResult::Draw => {
                    results.draw += 1;
                    1
                }
                GameResult::Loss => {
                    results.loss += 1;
                    0
                }
            };
            halves
                .entry(number.saturating_sub(1) / 2)
                .or_default()
                .push(half_points);
        }
        for pair in halves.values().filter(|pair| pair.len() == 2) {
            results.pairs[pair.iter().sum::<usize>()] += 1;
        }
        results
    }

    fn games(&self) -> u64 {
        self.win + self.draw + self.loss
    }

    fn paired(&self) -> bool {
        self.pairs.iter().sum::<u64>() > 0
    }

    /// The empirical distribution to judge by: the pairs when there are any (their variance is
    /// the honest one: colour and opening bias cancel within a pair), else the games.
    fn distribution(&self, regularise: bool) -> (f64, Vec<f64>, &'static [f64]) {
        let counts: Vec<u64> = match self.paired() {
            true => self.pairs.to_vec(),
            false => vec![self.loss, self.draw, self.win],
        };
        let counts: Vec<f64> = counts
            .iter()
            .map(|&n| match (n, regularise) {
                (0, true) => REGULARISED,
                (n, _) => n as f64,
            })
            .collect();
        let total: f64 = counts.iter().sum();
        let probabilities = counts.iter().map(|n| n / total).collect();
        let scores: &[f64] = match self.paired() {
            true => &PAIR_SCORES,
            false => &GAME_SCORES,
        };
        (total, probabilities, scores)
    }
}

/// Score to logistic Elo.
fn elo_of(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

fn mean_and_variance(scores: &[f64], probabilities: &[f64]) -> (f64, f64) {
    let mean: f64 = scores.iter().zip(probabilities).map(|(a, p)| a * p).sum();
    let variance = scores
        .iter()
        .zip(probabilities)
        .map(|(a, p)| p * (a - mean) * (a - mean))
        .sum();
    (mean, variance)
}

/// The match's strength figures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Estimate {
    /// Points per game of the engine under test (a draw is half a point).
    pub score: f64,
    /// Logistic Elo difference (positive: the engine under test is stronger); null when every
    /// game was won or every game lost.
    pub elo: Option<f64>,
    /// Half the width of `elo`'s 95 % interval; null when the interval is unbounded.
    pub elo_error: Option<f64>,
    /// Normalised Elo (fastchess's nElo); null when the results have no variance.
    pub nelo: Option<f64>,
    /// Half the width of `nelo`'s 95 % interval.
    pub nelo_error: Option<f64>,
    /// Likelihood of superiority: the probability that the engine under test is the stronger.
    pub los: f64,
    /// Draws per game (pairs scored one point of two, for paired results).
    pub draw_ratio: f64,
}

/// The Elo estimate of `results` (trinomial, or pentanomial when games were paired); `None`
/// with no game.
///
/// ```
/// use usicheck::play::stats::{Results, estimate};
/// // fastchess's own test: 136 wins, 111 draws, 96 losses.
/// let e = estimate(&Results { win: 136, draw: 111, loss: 96, pairs: [0; 5] }).unwrap();
/// assert!((e.elo.unwrap() - 40.70).abs() < 0.01 && (e.elo_error.unwrap() - 30.43).abs() < 0.01);
/// assert!((e.los - 0.9960).abs() < 0.0001);
/// ```
pub fn estimate(results: &Results) -> Option<Estimate> {
    if results.games() == 0 && !results.paired() {
        return None;
    }
    let (total, probabilities, scores) = results.distribution(false);
    let (score, variance) = mean_and_variance(scores, &probabilities);
    let deviation = (variance / total).sqrt();
    let (low, high) = (score - Z95 * deviation, score + Z95 * deviation);
    let finite = |elo: f64| Some(elo).filter(|e| e.is_finite());
    let elo = finite(elo_of(score));
    let elo_error = elo
        .and_then(|_| finite((elo_of(high.min(1.0)) - elo_of(low.max(0.0))) / 2.0))
        .filter(|_| low > 0.0 && high < 1.0);
    // A pair's variance is of two games' mean: nElo scales it back to one game.
    let per_game = match results.paired() {
        true => 2.0 * variance,
        false => variance,
    };
    let nelo_of = |s: f64| (s - 0.5) / per_game.sqrt() * NELO_SCALE;
    let (nelo, nelo_error) = match per_game > 0.0 {
        true => (
            Some(nelo_of(score)),
            Some((nelo_of(high) - nelo_of(low)) / 2.0),
        ),
        false => (None, None),
    };
    let los = match deviation > 0.0 {
        true => (1.0 - libm::erf(-(score - 0.5) / (std::f64::consts::SQRT_2 * deviation))) / 2.0,
        false => match score {
            s if s > 0.5 => 1.0,
            s if s < 0.5 => 0.0,
            _ => 0.5,
        },
    };
    let draw_ratio = match results.paired() {
        true => results.pairs[2] as f64 / total,
        false => results.draw as f64 / total,
    };
    Some(Estimate {
        score,
        elo,
        elo_error,
        nelo,
        nelo_error,
        los,
        draw_ratio,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn pairs(ll: u64, ld: u64, wl: u64, dd: u64, wd: u64, ww: u64) -> Results {
        Results {
            pairs: [ll, ld, wl + dd, wd, ww],
            ..Results::default()
        }
    }

    pub(super) fn games(win: u64, loss: u64, draw: u64) -> Results {
        Results {
            win,
            draw,
            loss,
            pairs: [0; 5],
        }
    }

    pub(super) fn close(actual: f64, expected: f64) -> bool {
        (actual - expected).abs() <= 0.01 * expected.abs().max(1.0)
    }

    /// fastchess's test cases (app/tests/elo_test.cpp), their counts in its argument order.
    #[test]
    fn elo_and_los_as_fastchess_computes_them() {
        let e = estimate(&games(76, 89, 123)).unwrap();
        assert!(close(e.nelo.unwrap(), -20.76) && close(e.nelo_error.unwrap(), 40.13));
        assert!((e.los - 0.1553).abs() < 0.0001, "{e:?}");
        let e = estimate(&games(136, 96, 111)).unwrap();
        assert!(close(e.nelo.unwrap(), 49.77) && close(e.nelo_error.unwrap(), 36.77));
        let e = estimate(&pairs(34, 54, 31, 32, 64, 75)).unwrap();
        assert!(
            close(e.elo.unwrap(), 55.58) && close(e.elo_error.unwrap(), 27.65),
            "{e:?}"
        );
        assert!(
            close(e.nelo.unwrap(), 57.94) && close(e.nelo_error.unwrap(), 28.28),
            "{e:?}"
        );
        let e = estimate(&pairs(332, 433, 457, 41, 333, 334)).unwrap();
        assert!(
            close(e.elo.unwrap(), -8.64) && close(e.elo_error.unwrap(), 10.33),
            "{e:?}"
        );
        assert!((e.los - 0.0505).abs() < 0.0001, "{e:?}");
    }

    /// The formulas computed by hand (double precision, a bisection for the maximum-likelihood
    /// roots): the same figures to three decimals.
    #[test]
    fn hand_computed_values_to_three_decimals() {
        let near = |actual: f64, expected: f64| (actual - expected).abs() < 5e-4;
        let e = estimate(&games(136, 96, 111)).unwrap();
        assert!(
            near(e.score, 0.558_309) && near(e.elo.unwrap(), 40.702_458),
            "{e:?}"
        );
        assert!(
            near(e.elo_error.unwrap(), 30.427_218) && near(e.los, 0.996_010),
            "{e:?}"
        );
        assert!(near(e.nelo.unwrap(), 49.768_415) && near(e.nelo_error.unwrap(), 36.768_451));
        let e = estimate(&pairs(34, 54, 31, 32, 64, 75)).unwrap();
        assert!(
            near(e.score, 0.579_310) && near(e.elo.unwrap(), 55.579_780),
            "{e:?}"
        );
        assert!(
            near(e.elo_error.unwrap(), 27.653_430) && near(e.los, 0.999_970),
            "{e:?}"
        );
        assert!(near(e.nelo.unwrap(), 57.935_600) && near(e.nelo_error.unwrap(), 28.275_376));
        let e = estimate(&games(5, 3, 4)).unwrap();
        assert!(
            near(e.elo.unwrap(), 58.451_214) && near(e.los, 0.764_950),
            "{e:?}"
        );
        let sprt = |text: &str| Sprt::parse(text).unwrap();
        let llr = [
            sprt("elo0=0,elo1=2").llr(&games(36433, 36027, 68692)),
            sprt("elo0=0.5,elo1=2.5,model=logistic").llr(&games(21404, 21184, 40708)),
            sprt("elo0=0,elo1=2").llr(&pairs(365, 16618, 36029, 200, 16974, 390)),
            sprt("elo0=0.5,elo1=2.5,model=logistic")
                .llr(&pairs(223, 9863, 20279, 1000, 10037, 246)),
        ];
        let expected = [0.923_293, -1.571_889, 2.250_368, -3.074_126];
        for (actual, expected) in llr.into_iter().zip(expected) {
            assert!(near(actual, expected), "{actual} ≠ {expected}");
        }
    }

    #[test]
    fn every_game_won_has_no_finite_elo_but_a_score() {
        let e = estimate(&games(10, 0, 0)).unwrap();
        assert_eq!((e.score, e.elo, e.los), (1.0, None, 1.0));
        assert_eq!(estimate(&Results::default()), None);
    }
}
