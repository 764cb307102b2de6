//! `info` lines: search statistics, score, principal variation and free text.

use super::lex::Tokens;
use super::move_token::MoveToken;
use super::{Diagnostic, rule};
use crate::rules::RuleId;
use std::fmt;
use std::str::FromStr;

/// Centipawn values at or beyond this magnitude are mate scores in disguise: Stockfish-family
/// engines encode mate near 32000 (YaneuraOu `VALUE_MATE`), and GUIs expect `score mate`.
pub const MATE_LIKE_CP: i64 = 30_000;

/// The value of `score`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ScoreValue {
    /// `cp <x>`, side to move's view, pawn = 100 (USI-INFO-006).
    Cp(i64),
    /// `mate <n>`: plies to mate, positive when the engine mates (USI-INFO-007).
    Mate(i64),
    /// `mate +`: the engine mates, distance unknown (USI-INFO-008).
    EngineMates,
    /// `mate -`: the engine is mated, distance unknown.
    EngineMated,
}

/// `lowerbound` / `upperbound` after the score value (USI-INFO-009).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    Lower,
    Upper,
}

impl Bound {
    pub const fn as_str(self) -> &'static str {
        match self {
            Bound::Lower => "lowerbound",
            Bound::Upper => "upperbound",
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Score {
    pub value: ScoreValue,
    pub bound: Option<Bound>,
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value {
            ScoreValue::Cp(cp) => write!(f, "score cp {cp}")?,
            ScoreValue::Mate(n) => write!(f, "score mate {n}")?,
            ScoreValue::EngineMates => f.write_str("score mate +")?,
            ScoreValue::EngineMated => f.write_str("score mate -")?,
        }
        if let Some(bound) = self.bound {
            write!(f, " {}", bound.as_str())?;
        }
        Ok(())
    }
}

/// `currline [cpunr] <moves…>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CurrLine {
    pub cpu: Option<u32>,
    pub moves: Vec<MoveToken>,
}

/// One `info` line. Every field is optional; `string` holds the rest of the line after `string`.
///
/// ```
/// use usicheck::usi::{Message, ScoreValue, rule};
/// let (msg, diags) = Message::parse("info depth 3 score cp 42 pv 7g7f 3c3d nodes 100");
/// let Message::Info(info) = msg else { panic!() };
/// assert_eq!(info.score.unwrap().value, ScoreValue::Cp(42));
/// assert_eq!(info.pv.as_ref().unwrap().len(), 2);
/// assert_eq!(info.nodes, Some(100));
/// assert!(diags.iter().any(|d| d.rule == rule::INFO_011));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Info {
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    pub time: Option<u64>,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    pub hashfull: Option<u64>,
    pub cpuload: Option<u64>,
    pub multipv: Option<u32>,
    pub score: Option<Score>,
    pub currmove: Option<MoveToken>,
    pub currmovenumber: Option<u32>,
    pub currline: Option<CurrLine>,
    pub refutation: Option<Vec<MoveToken>>,
    pub pv: Option<Vec<MoveToken>>,
    pub string: Option<String>,
}

/// The words that start an info field.
fn is_field(token: &str) -> bool {
    matches!(
        token,
        "depth"
            | "seldepth"
            | "time"
            | "nodes"
            | "nps"
            | "hashfull"
            | "cpuload"
            | "multipv"
            | "score"
            | "lowerbound"
            | "upperbound"
            | "currmove"
            | "currmovenumber"
            | "currline"
            | "refutation"
            | "pv"
            | "string"
    )
}

/// Reads the number after a field keyword. A missing value (end of line or the next field) is
/// left alone; a malformed one is consumed. Both are reported under `rule`.
fn number<T: FromStr>(
    field: &str,
    tokens: &mut Tokens<'_>,
    rule: RuleId,
    diags: &mut Vec<Diagnostic>,
) -> Option<T> {
    match tokens.peek() {
        Some(tok) if !is_field(tok) => {
            tokens.next();
            let value = tok.parse().ok();
            if value.is_none() {
                diags.push(Diagnostic::new(
                    rule,
                    format!("`{field} {tok}`: not an integer in range"),
                ));
            }
            value
        }
        _ => {
            diags.push(Diagnostic::new(rule, format!("`{field}` without a value")));
            None
        }
    }
}

/// Reads move tokens up to the next field keyword, reporting the first malformed one.
fn move_list(tokens: &mut Tokens<'_>, diags: &mut Vec<Diagnostic>) -> Vec<MoveToken> {
    let mut moves = Vec::new();
    let mut reported = false;
    while let Some(tok) = tokens.peek().filter(|t| !is_field(t)) {
        tokens.next();
        let mv = MoveToken::parse(tok);
        if let MoveToken::Invalid(bad) = &mv
            && !reported
        {
            diags.push(Diagnostic::new(
                rule::POSITION_006,
                MoveToken::invalid_reason(bad),
            ));
            reported = true;
        }
        moves.push(mv);
    }
    moves
}

impl Info {
    /// Parses the tokens after `info`.
    pub(crate) fn parse_args(mut tokens: Tokens<'_>, diags: &mut Vec<Diagnostic>) -> Info {
        let mut info = Info::default();
        while let Some(tok) = tokens.next() {
            match tok {
                "depth" => info.depth = number(tok, &mut tokens, rule::INFO_002, diags),
                "seldepth" => {
                    if info.depth.is_none() {
                        diags.push(Diagnostic::new(
                            rule::INFO_002,
                            "`seldepth` without a preceding `depth`",
                        ));
                    }
                    info.seldepth = number(tok, &mut tokens, rule::INFO_002, diags);
                }
                "time" => info.time = number(tok, &mut tokens, rule::INFO_003, diags),
                "nodes" => info.nodes = number(tok, &mut tokens, rule::INFO_004, diags),
                "nps" => info.nps = number(tok, &mut tokens, rule::INFO_004, diags),
                "hashfull" => {
                    info.hashfull = number(tok, &mut tokens, rule::INFO_004, diags);
                    if let Some(permill) = info.hashfull.filter(|&h| h > 1000) {
                        diags.push(Diagnostic::new(
                            rule::INFO_004,
                            format!("`hashfull {permill}` exceeds 1000 permill"),
                        ));
                    }
                }
                "cpuload" => {
                    not_parsed_by_guis(tok, diags);
                    info.cpuload = number(tok, &mut tokens, rule::INFO_013, diags);
                }
                "multipv" => {
                    info.multipv = number(tok, &mut tokens, rule::INFO_010, diags);
                    if info.multipv == Some(0) {
                        diags.push(Diagnostic::new(
                            rule::INFO_010,
                            "`multipv 0`: lines are numbered from 1",
                        ));
                    }
                }
                "currmovenumber" => {
                    not_parsed_by_guis(tok, diags);
                    info.currmovenumber = number(tok, &mut tokens, rule::INFO_005, diags);
                    if info.currmovenumber == Some(0) {
                        diags.push(Diagnostic::new(
                            rule::INFO_005,
                            "`currmovenumber 0`: moves are numbered from 1",
                        ));
                    }
                }
                "currmove" => match tokens.peek().filter(|t| !is_field(t)) {
                    Some(token) => {
                        tokens.next();
                        let mv = MoveToken::parse(token);
                        if mv.as_move().is_none() {
                            diags.push(Diagnostic::new(
                                rule::POSITION_006,
                                MoveToken::invalid_reason(token),
                            ));
                        }
                        info.currmove = Some(mv);
                    }
                    None => {
                        diags.push(Diagnostic::new(rule::INFO_005, "`currmove` without a move"))
                    }
                },
                "score" => info.score = parse_score(&mut tokens, diags),
                "lowerbound" | "upperbound" => {
                    diags.push(Diagnostic::new(
                        rule::INFO_009,
                        format!("`{tok}` does not follow the score value"),
                    ));
                    if let Some(score) = info.score.as_mut().filter(|s| s.bound.is_none()) {
                        score.bound = Some(if tok == "lowerbound" {
                            Bound::Lower
                        } else {
                            Bound::Upper
                        });
                    }
                }
                "refutation" => {
                    not_parsed_by_guis(tok, diags);
                    info.refutation = Some(move_list(&mut tokens, diags));
                }
                "currline" => {
                    not_parsed_by_guis(tok, diags);
                    let cpu = tokens.peek().and_then(|t| t.parse().ok());
                    if cpu.is_some() {
                        tokens.next();
                    }
                    info.currline = Some(CurrLine {
                        cpu,
                        moves: move_list(&mut tokens, diags),
                    });
                }
                "pv" => {
                    let pv = move_list(&mut tokens, diags);
                    check_pv(&pv, tokens.peek(), diags);
                    info.pv = Some(pv);
                }
                "string" => {
                    if info.pv.is_some() {
                        diags.push(Diagnostic::new(
                            rule::INFO_012,
                            "`string` and `pv` on one line",
                        ));
                    }
                    info.string = Some(tokens.rest().to_string());
                }
                unknown => {
                    diags.push(Diagnostic::new(
                        rule::INFO_013,
                        format!("unknown info field `{unknown}`"),
                    ));
                    // Skip its arguments, as lenient GUIs do.
                    while tokens.peek().is_some_and(|t| !is_field(t)) {
                        tokens.next();
                    }
                }
            }
        }
        if info.pv.is_some() && info.time.is_none() {
            diags.push(Diagnostic::new(rule::INFO_003, "`pv` without `time`"));
        }
        info
    }
}

fn not_parsed_by_guis(field: &str, diags: &mut Vec<Diagnostic>) {
    diags.push(Diagnostic::new(
        rule::INFO_013,
        format!("`{field}` is outside the field set GUIs parse"),
    ));
}

/// A pv is last on its line (the next field, if any, is `string` or another keyword) and may
/// end with one USI 2.0 special token.
fn check_pv(pv: &[MoveToken], next_field: Option<&str>, diags: &mut Vec<Diagnostic>) {
    if pv.is_empty() {
        diags.push(Diagnostic::new(rule::INFO_011, "`pv` without moves"));
    }
    if let Some(pos) = pv.iter().position(|m| matches!(m, MoveToken::Special(_)))
        && pos + 1 < pv.len()
    {
        diags.push(Diagnostic::new(
            rule::EXT_007,
            format!("special token `{}` is not the last pv token", pv[pos]),
        ));
    }
    match next_field {
        None | Some("string") => {}
        Some(field) => diags.push(Diagnostic::new(
            rule::INFO_011,
            format!("`{field}` after `pv`: pv must be last"),
        )),
    }
}

fn parse_score(tokens: &mut Tokens<'_>, diags: &mut Vec<Diagnostic>) -> Option<Score> {
    // The bound written before the value (`score lowerbound cp 0`) is one mistake, the bound's
    // place (USI-INFO-009): the value after it is read as usual.
    let bound_first = match tokens.peek() {
        Some("lowerbound") => Some(Bound::Lower),
        Some("upperbound") => Some(Bound::Upper),
        _ => None,
    };
    if let Some(bound) = bound_first {
        let tok = tokens.next().unwrap_or_default();
        diags.push(Diagnostic::new(
            rule::INFO_009,
            format!("`{tok}` comes before the score value; it follows it"),
        ));
        let mut score = parse_score(tokens, diags)?;
        score.bound.get_or_insert(bound);
        return Some(score);
    }
    let value = match tokens.peek() {
        Some("cp") => {
            tokens.next();
            let cp = number::<i64>("score cp", tokens, rule::INFO_006, diags)?;
            // `unsigned_abs`: `abs` overflows on `i64::MIN`, which an engine may well print.
            if cp.unsigned_abs() >= MATE_LIKE_CP.unsigned_abs() {
                diags.push(Diagnostic::new(
                    rule::INFO_006,
                    format!("`score cp {cp}` looks like an encoded mate score; use `score mate`"),
                ));
            }
            ScoreValue::Cp(cp)
        }
        Some("mate") => {
            tokens.next();
            match tokens.peek() {
                Some("+") => {
                    tokens.next();
                    ScoreValue::EngineMates
                }
                Some("-") => {
                    tokens.next();
                    ScoreValue::EngineMated
                }
                _ => ScoreValue::Mate(number("score mate", tokens, rule::INFO_007, diags)?),
            }
        }
        _ => {
            diags.push(Diagnostic::new(
                rule::INFO_006,
                "`score` without `cp` or `mate` and a value",
            ));
            return None;
        }
    };
    let mut score = Score { value, bound: None };
    match tokens.peek() {
        Some("lowerbound") => score.bound = Some(Bound::Lower),
        Some("upperbound") => score.bound = Some(Bound::Upper),
        _ => return Some(score),
    }
    tokens.next();
    Some(score)
}

fn write_moves(f: &mut fmt::Formatter<'_>, key: &str, moves: &[MoveToken]) -> fmt::Result {
    f.write_str(" ")?;
    f.write_str(key)?;
    for mv in moves {
        write!(f, " {mv}")?;
    }
    Ok(())
}

/// Canonical order: statistics, score, current move, then `pv` (last, as USI requires) and
/// `string` (rest of line).
impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        let numbers = [
            ("depth", self.depth.map(u64::from)),
            ("seldepth", self.seldepth.map(u64::from)),
            ("time", self.time),
            ("nodes", self.nodes),
            ("nps", self.nps),
            ("hashfull", self.hashfull),
            ("cpuload", self.cpuload),
            ("multipv", self.multipv.map(u64::from)),
        ];
        for (key, value) in numbers {
            if let Some(v) = value {
                write!(f, " {key} {v}")?;
            }
        }
        if let Some(score) = &self.score {
            write!(f, " {score}")?;
        }
        if let Some(mv) = &self.currmove {
            write!(f, " currmove {mv}")?;
        }
        if let Some(n) = self.currmovenumber {
            write!(f, " currmovenumber {n}")?;
        }
        if let Some(line) = &self.currline {
            f.write_str(" currline")?;
            if let Some(cpu) = line.cpu {
                write!(f, " {cpu}")?;
            }
            for mv in &line.moves {
                write!(f, " {mv}")?;
            }
        }
        if let Some(refutation) = &self.refutation {
            write_moves(f, "refutation", refutation)?;
        }
        if let Some(pv) = &self.pv {
            write_moves(f, "pv", pv)?;
        }
        match self.string.as_deref() {
            None => Ok(()),
            Some("") => f.write_str(" string"),
            Some(text) => write!(f, " string {text}"),
        }
    }
}
