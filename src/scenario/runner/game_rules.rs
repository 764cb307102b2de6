//! The game rules usicheck judges by, set on an engine that lets them be set (USI-EXT-019):
//! YaneuraOu's `EnteringKingRule` and `MaxMovesToDraw`, sent right after `usiok` in every
//! handshake, so that the declaration (USI-RULES-001) and repetition and move-limit
//! (USI-RULES-003..005) scenarios play by the rules they are judged by.

use crate::usi::OptionKind;

/// The declaration rule usicheck judges `bestmove win` by: the CSA 27-point rule
/// (USI-RULES-001), `CSARule27` among YaneuraOu's `EnteringKingRule` choices.
pub const ENTERING_KING_RULE: (&str, &str) = ("EnteringKingRule", "CSARule27");

/// The move limit of usicheck's games: none draws before 1000 moves (ShogiHome's default
/// limit, USI-RULES-005; the longest bundled game has 400 plies).
pub const MAX_MOVES_TO_DRAW: (&str, i64) = ("MaxMovesToDraw", 1000);

/// The `setoption` lines that set the engine's game rules to usicheck's: for each of the two
/// options the engine advertised (`advertised` finds one by name, case-insensitive) with a
/// value usicheck's rule fits (a combo with that choice, a spin whose range holds the limit),
/// unless `given` (the command line's and the scenario's options, sent after these) sets it.
///
/// ```
/// use usicheck::scenario::runner::game_rule_settings;
/// use usicheck::usi::OptionKind;
/// let combo = OptionKind::Combo {
///     default: Some("CSARule27".into()),
///     vars: vec!["NoEnteringKing".into(), "CSARule27".into()],
/// };
/// let spin = OptionKind::Spin { default: Some(0), min: Some(0), max: Some(100000) };
/// let advertised = |name: &str| match name {
///     "EnteringKingRule" => Some(("EnteringKingRule", &combo)),
///     "MaxMovesToDraw" => Some(("MaxMovesToDraw", &spin)),
///     _ => None,
/// };
/// assert_eq!(
///     game_rule_settings(advertised, &[]),
///     ["setoption name EnteringKingRule value CSARule27", "setoption name MaxMovesToDraw value 1000"]
/// );
/// assert_eq!(game_rule_settings(advertised, &["maxmovestodraw"]).len(), 1);
/// ```
pub fn game_rule_settings<'a>(
    advertised: impl Fn(&str) -> Option<(&'a str, &'a OptionKind)>,
    given: &[&str],
) -> Vec<String> {
    let mut lines = Vec::new();
    let free = |name: &str| !given.iter().any(|g| g.eq_ignore_ascii_case(name));
    let (rule_option, rule) = ENTERING_KING_RULE;
    if let Some((name, OptionKind::Combo { vars, .. })) = advertised(rule_option)
        && free(rule_option)
        && let Some(var) = vars.iter().find(|v| v.eq_ignore_ascii_case(rule))
    {
        lines.push(format!("setoption name {name} value {var}"));
    }
    let (limit_option, limit) = MAX_MOVES_TO_DRAW;
    if let Some((name, OptionKind::Spin { min, max, .. })) = advertised(limit_option)
        && free(limit_option)
        && min.is_none_or(|min| min <= limit)
        && max.is_none_or(|max| limit <= max)
    {
        lines.push(format!("setoption name {name} value {limit}"));
    }
    lines
}
