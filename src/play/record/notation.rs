//! The names records give pieces, squares and standard start positions: CSA's two letters
//! (`FU`, `RY`), KIF's kanji (`歩`, `龍`), and the KIF names of the handicaps (手合割), both
//! ways, for the writers and the readers alike.

use crate::shogi::{Color, PieceKind};

/// CSA's two-letter name of `kind`.
pub(super) fn csa_kind(kind: PieceKind) -> &'static str {
    match kind {
        PieceKind::Pawn => "FU",
        PieceKind::Lance => "KY",
        PieceKind::Knight => "KE",
        PieceKind::Silver => "GI",
        PieceKind::Gold => "KI",
        PieceKind::Bishop => "KA",
        PieceKind::Rook => "HI",
        PieceKind::King => "OU",
        PieceKind::ProPawn => "TO",
        PieceKind::ProLance => "NY",
        PieceKind::ProKnight => "NK",
        PieceKind::ProSilver => "NG",
        PieceKind::Horse => "UM",
        PieceKind::Dragon => "RY",
    }
}

/// The kind CSA names `name` (`FU` … `RY`).
pub(super) fn kind_of_csa(name: &str) -> Option<PieceKind> {
    PieceKind::ALL
        .into_iter()
        .find(|&kind| csa_kind(kind) == name)
}

/// CSA's sign of a side: `+` Black, `-` White.
pub(super) fn csa_sign(color: Color) -> char {
    match color {
        Color::Black => '+',
        Color::White => '-',
    }
}

/// KIF's full-width file digits and kanji rank numbers, indexed from 1.
pub(super) const KIF_FILES: [&str; 10] = ["", "１", "２", "３", "４", "５", "６", "７", "８", "９"];
pub(super) const KIF_RANKS: [&str; 10] = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];

/// KIF's name of `kind` in a move.
pub(super) fn kif_kind(kind: PieceKind) -> &'static str {
    match kind {
        PieceKind::Pawn => "歩",
        PieceKind::Lance => "香",
        PieceKind::Knight => "桂",
        PieceKind::Silver => "銀",
        PieceKind::Gold => "金",
        PieceKind::Bishop => "角",
        PieceKind::Rook => "飛",
        PieceKind::King => "玉",
        PieceKind::ProPawn => "と",
        PieceKind::ProLance => "成香",
        PieceKind::ProKnight => "成桂",
        PieceKind::ProSilver => "成銀",
        PieceKind::Horse => "馬",
        PieceKind::Dragon => "龍",
    }
}

/// The one-character board names of the BOD diagram (promoted pieces abbreviated).
pub(super) fn bod_kind(kind: PieceKind) -> &'static str {
    match kind {
        PieceKind::ProLance => "杏",
        PieceKind::ProKnight => "圭",
        PieceKind::ProSilver => "全",
        other => kif_kind(other),
    }
}

/// The kind a KIF move or board diagram names `name`, with the variants writers use (`王`
/// for the king, `竜` for the dragon, the one-character promoted names of the diagram).
pub(super) fn kind_of_kif(name: &str) -> Option<PieceKind> {
    match name {
        "王" => Some(PieceKind::King),
        "竜" => Some(PieceKind::Dragon),
        _ => PieceKind::ALL
            .into_iter()
            .find(|&kind| kif_kind(kind) == name || bod_kind(kind) == name),
    }
}

/// KIF's kanji digits, from 0.
const KANJI_DIGITS: [&str; 10] = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];

/// A count of pieces in hand as KIF writes it after the piece: nothing for 1, `二` … `十八`.
pub(super) fn kif_count(count: u8) -> String {
    match count {
        0 | 1 => String::new(),
        2..=9 => KANJI_DIGITS[usize::from(count)].to_owned(),
        _ => format!("十{}", KANJI_DIGITS[usize::from(count % 10)]),
    }
}

/// The count a KIF hand entry writes as `number` (`""` or `一` is 1, `十八` 18).
pub(super) fn count_of_kif(number: &str) -> Option<u8> {
    let digit = |text: &str| {
        KANJI_DIGITS
            .iter()
            .position(|&d| d == text)
            .map(|d| d as u8)
    };
    match number.strip_prefix('十') {
        Some(rest) => digit(rest).map(|d| 10 + d),
        None => digit(number).map(|d| d.max(1)),
    }
}

/// The standard start positions by their KIF name (手合割): the even game and the handicaps,
/// board, side to move and hands as SFEN gives them (the handicap giver is White and moves
/// first).
const HANDICAPS: [(&str, &str); 14] = [
    (
        "平手",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -",
    ),
    (
        "香落ち",
        "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ),
    (
        "右香落ち",
        "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ),
    (
        "角落ち",
        "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ),
    (
        "飛車落ち",
        "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ),
    (
        "飛香落ち",
        "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ),
    (
        "二枚落ち",
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ),
    (
        "三枚落ち",
        "lnsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ),
    (
        "四枚落ち",
        "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ),
    (
        "五枚落ち",
        "2sgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ),
    (
        "左五枚落ち",
        "1nsgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ),
    (
        "六枚落ち",
        "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ),
    (
        "八枚落ち",
        "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ),
    (
        "十枚落ち",
        "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
    ),
];

/// The KIF name of the start position `sfen` (board, side and hands; the move number is
/// ignored) when it is the even game or a standard handicap.
pub(super) fn handicap_name(sfen: &str) -> Option<&'static str> {
    let fields: Vec<&str> = sfen.split_whitespace().take(3).collect();
    let position = fields.join(" ");
    HANDICAPS
        .iter()
        .find(|(_, start)| *start == position)
        .map(|(name, _)| *name)
}

/// The start position (SFEN, move number 1) of the handicap KIF names `name`.
pub(super) fn handicap_sfen(name: &str) -> Option<String> {
    HANDICAPS
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, sfen)| format!("{sfen} 1"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::{Opening, base_sfen};

    #[test]
    fn standard_starts_are_named_others_are_not() {
        assert_eq!(handicap_name(&base_sfen("startpos")), Some("平手"));
        for opening in Opening::bundled() {
            if opening.base != "startpos" {
                assert!(
                    handicap_name(&base_sfen(&opening.base)).is_some(),
                    "{}",
                    opening.base
                );
            }
        }
        assert_eq!(
            handicap_name("lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"),
            Some("香落ち")
        );
        assert_eq!(
            handicap_name("4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 7"),
            Some("十枚落ち")
        );
        // The same board with Black to move is no handicap start.
        assert_eq!(
            handicap_name("lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"),
            None
        );
        assert_eq!(handicap_name("4k4/9/9/9/9/9/9/9/R3K4 b - 1"), None);
    }

    #[test]
    fn every_name_reads_back_as_its_kind_and_count() {
        for kind in PieceKind::ALL {
            assert_eq!(kind_of_csa(csa_kind(kind)), Some(kind));
            assert_eq!(kind_of_kif(kif_kind(kind)), Some(kind));
            assert_eq!(kind_of_kif(bod_kind(kind)), Some(kind));
        }
        for count in 1..=18 {
            assert_eq!(count_of_kif(&kif_count(count)), Some(count), "{count}");
        }
        assert_eq!(count_of_kif("一"), Some(1));
        assert_eq!(count_of_kif("十十"), None);
        for (name, _) in HANDICAPS {
            let sfen = handicap_sfen(name).unwrap();
            assert_eq!(handicap_name(&sfen), Some(name));
        }
    }
}
