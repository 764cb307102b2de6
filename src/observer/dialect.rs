//! Vendor dialects usicheck recognises (RULES.md §15): Fairy-Stockfish's USI (USI-EXT-020),
//! noted once per run as one verdict that names the dialect and where its known deviations
//! are charged, so a reader sees one cause behind them.

use crate::rules::RuleId;
use crate::usi::OptionKind;

/// USI-EXT-020: Fairy-Stockfish's USI dialect.
pub const RULE: RuleId = crate::rule!("USI-EXT-020");

/// Whether an `id name` is Fairy-Stockfish's (`Fairy-Stockfish 11.1 LB 64`, …): the dialect
/// is recognised by the name the engine gives itself, not guessed from its deviations, which
/// other engines share (Sjaak II also advertises `UCI_Variant`).
pub fn is_fairy_stockfish(id_name: &str) -> bool {
    id_name
        .get(..15)
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case("Fairy-Stockfish"))
}

/// The one note on the dialect: the engine's name, the deviations RULES.md lists for it and
/// the rules they are charged to where seen, and the variant its handshake selects.
///
/// ```
/// use usicheck::observer::fairy_stockfish_note;
/// use usicheck::usi::OptionKind;
/// let variant = OptionKind::Combo { default: Some("minishogi".into()), vars: vec![] };
/// let note = fairy_stockfish_note("Fairy-Stockfish 11.1", Some(("USI_Variant", &variant)));
/// assert!(note.contains("USI-MATE-002") && note.contains("`USI_Variant` defaults to `minishogi`"));
/// ```
pub fn fairy_stockfish_note(id_name: &str, variant: Option<(&str, &OptionKind)>) -> String {
    let variant = match variant {
        Some((name, OptionKind::Combo { default, .. })) => match default.as_deref() {
            Some(v) if v.eq_ignore_ascii_case("shogi") => {
                format!("`{name}` defaults to `shogi`")
            }
            Some(v) => {
                format!("`{name}` defaults to `{v}`, not `shogi`: set `--option {name}=shogi`")
            }
            None => format!("`{name}` has no default: set `--option {name}=shogi`"),
        },
        _ => "no `USI_Variant` option advertised".to_owned(),
    };
    format!(
        "Fairy-Stockfish's USI dialect (`id name {id_name}`): its known deviations are charged \
         where they are seen: `go mate` has UCI's meaning (mate in N moves) and ends in \
         `bestmove` (USI-MATE-002, USI-MATE-006), `gameover` is an unknown command \
         (USI-GAMEOVER-003); `byoyomi` is read as an increment added to both clocks; {variant}"
    )
}
