//! Game records a GUI opens (ShogiHome, Shogidokoro, …): CSA (V2.2) and KIF.
//!
//! Both need the piece that moves, which USI moves do not name, so the game is replayed
//! on the reference board.

use super::game::{GameRecord, Reason, Winner, base_sfen};
use crate::shogi::{Color, Move, Piece, PieceKind, Position, Square};

/// The position before each move of the record and the move, for the moves that parse and
/// are legal (an illegal last move is written as the end of the game).
fn replay(record: &GameRecord) -> (Position, Vec<(Position, Move, Option<f64>)>) {
    let start = Position::from_sfen(&base_sfen(&record.base)).unwrap_or_default();
    let mut position = start.clone();
    let mut moves = Vec::new();
    let opening = record.opening_moves.iter().map(|m| (m.as_str(), None));
    let played = record.plies.iter().map(|p| (p.usi.as_str(), p.used_ms));
    for (text, used) in opening.chain(played) {
        let Ok(mv) = text.parse::<Move>() else { break };
        let before = position.clone();
        if position.play(mv).is_err() {
            break;
        }
        moves.push((before, mv, used));
    }
    (start, moves)
}

fn csa_kind(kind: PieceKind) -> &'static str {
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

fn csa_sign(color: Color) -> char {
    match color {
        Color::Black => '+',
        Color::White => '-',
    }
}

/// The kind on the destination after `mv` (promoted if it promotes).
fn moved_kind(before: &Position, mv: Move) -> PieceKind {
    match mv {
        Move::Drop { kind, .. } => kind,
        Move::Normal { from, promote, .. } => {
            let kind = before.piece_at(from).map_or(PieceKind::Pawn, |p| p.kind);
            if promote {
                kind.promoted().unwrap_or(kind)
            } else {
                kind
            }
        }
    }
}

/// How a game ended, as CSA and KIF write it.
fn end_terms(reason: Reason, winner: Winner) -> (&'static str, &'static str) {
    match reason {
        Reason::Mate => ("%TSUMI", "詰み"),
        Reason::Resign => ("%TORYO", "投了"),
        Reason::Declaration => ("%KACHI", "入玉勝ち"),
        Reason::Repetition => ("%SENNICHITE", "千日手"),
        Reason::PerpetualCheck => ("%OUTE_SENNICHITE", "反則負け"),
        Reason::MoveLimit => ("%MAX_MOVES", "持将棋"),
        Reason::Time => ("%TIME_UP", "切れ負け"),
        Reason::InvalidDeclaration | Reason::IllegalMove => ("%ILLEGAL_MOVE", "反則負け"),
        // Neither format has adjudication: an adjudicated draw is a declared one; a loss is a
        // game stopped (%TORYO would make the winner resign: its loser has just moved), its
        // result said by a comment (CSA) and the result line (KIF).
        Reason::Adjudication if winner == Winner::Draw => ("%HIKIWAKE", "中断"),
        Reason::Crash | Reason::Hang | Reason::CutShort | Reason::Adjudication => {
            ("%CHUDAN", "中断")
        }
    }
}

/// The comment line of an adjudicated game: who won and why, in ASCII (the referee's words).
fn adjudication_note(record: &GameRecord) -> Option<String> {
    (record.reason == Reason::Adjudication).then(|| {
        let result = match record.winner {
            Winner::Black => "Black wins",
            Winner::White => "White wins",
            _ => "draw",
        };
        format!("adjudicated by usicheck: {result}: {}", record.detail)
    })
}

/// The record in CSA format (V2.2): players, the start position, every move with its time.
pub fn csa(record: &GameRecord, black: &str, white: &str) -> String {
    let (start, moves) = replay(record);
    let mut out = format!("V2.2\nN+{black}\nN-{white}\n");
    for rank in 1..=9u8 {
        out.push_str(&format!("P{rank}"));
        for file in (1..=9u8).rev() {
            match Square::new(file, rank).and_then(|sq| start.piece_at(sq)) {
                Some(Piece { color, kind }) => {
                    out.push(csa_sign(color));
                    out.push_str(csa_kind(kind));
                }
                None => out.push_str(" * "),
            }
        }
        out.push('\n');
    }
    for color in Color::ALL {
        let hand = start.hand(color);
        if !hand.is_empty() {
            out.push('P');
            out.push(csa_sign(color));
            for (kind, count) in hand.iter() {
                for _ in 0..count {
                    out.push_str("00");
                    out.push_str(csa_kind(kind));
                }
            }
            out.push('\n');
        }
    }
    out.push(csa_sign(start.side_to_move()));
    out.push('\n');
    for (before, mv, used) in &moves {
        let from = mv
            .from()
            .map_or("00".to_owned(), |sq| format!("{}{}", sq.file(), sq.rank()));
        let to = mv.to();
        out.push_str(&format!(
            "{}{from}{}{}{}\n",
            csa_sign(before.side_to_move()),
            to.file(),
            to.rank(),
            csa_kind(moved_kind(before, *mv))
        ));
        if let Some(ms) = used {
            out.push_str(&format!("T{}\n", (ms / 1000.0).floor() as u64));
        }
    }
    if let Some(note) = adjudication_note(record) {
        out.push_str(&format!("'{note}\n"));
    }
    out.push_str(end_terms(record.reason, record.winner).0);
    out.push('\n');
    out
}

const KIF_DIGITS: [&str; 10] = ["", "１", "２", "３", "４", "５", "６", "７", "８", "９"];
const KIF_RANKS: [&str; 10] = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九"];

fn kif_kind(kind: PieceKind) -> &'static str {
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
fn bod_kind(kind: PieceKind) -> &'static str {
    match kind {
        PieceKind::ProLance => "杏",
        PieceKind::ProKnight => "圭",
        PieceKind::ProSilver => "全",
        other => kif_kind(other),
    }
}

fn kif_hand(position: &Position, color: Color) -> String {
    let hand = position.hand(color);
    if hand.is_empty() {
        return "なし".into();
    }
    let numbers = ["", "", "二", "三", "四", "五", "六", "七", "八", "九", "十"];
    PieceKind::HAND_ORDER
        .iter()
        .filter(|&&kind| hand.count(kind) > 0)
        .map(|&kind| {
            let count = usize::from(hand.count(kind));
            let number = numbers
                .get(count)
                .map_or_else(|| format!("十{}", numbers[count - 10]), |n| (*n).to_owned());
            format!("{}{number}　", kif_kind(kind))
        })
        .collect()
}

/// The start position as a BOD board diagram (for a game not from the start position).
fn bod(position: &Position) -> String {
    let mut out = format!("後手の持駒：{}\n", kif_hand(position, Color::White));
    out.push_str("  ９ ８ ７ ６ ５ ４ ３ ２ １\n+---------------------------+\n");
    for rank in 1..=9u8 {
        out.push('|');
        for file in (1..=9u8).rev() {
            match Square::new(file, rank).and_then(|sq| position.piece_at(sq)) {
                Some(piece) => {
                    out.push(if piece.color == Color::White {
                        'v'
                    } else {
                        ' '
                    });
                    out.push_str(bod_kind(piece.kind));
                }
                None => out.push_str(" ・"),
            }
        }
        out.push_str(&format!("|{}\n", KIF_RANKS[usize::from(rank)]));
    }
    out.push_str("+---------------------------+\n");
    out.push_str(&format!(
        "先手の持駒：{}\n",
        kif_hand(position, Color::Black)
    ));
    if position.side_to_move() == Color::White {
        out.push_str("後手番\n");
    }
    out
}

fn kif_clock(ms: f64) -> String {
    let seconds = (ms / 1000.0).floor() as u64;
    format!("{:2}:{:02}", seconds / 60, seconds % 60)
}

fn kif_total(ms: f64) -> String {
    let seconds = (ms / 1000.0).floor() as u64;
    format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// The standard start positions by their KIF name (手合割): the even game and the handicaps,
/// board, side to move and hands as SFEN gives them (the handicap giver is White and moves
/// first).
const HANDICAPS: [(&str, &str); 11] = [
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
        "四枚落ち",
        "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w -",
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

/// The KIF name of `base`'s start position when it is the even game or a standard handicap.
fn handicap_name(base: &str) -> Option<&'static str> {
    let sfen = base_sfen(base);
    let fields: Vec<&str> = sfen.split_whitespace().take(3).collect();
    let position = fields.join(" ");
    HANDICAPS
        .iter()
        .find(|(_, start)| *start == position)
        .map(|(name, _)| *name)
}

/// The record in KIF format: header, the start (handicap name or board), numbered moves with
/// the time of each and in total, the end and the result.
pub fn kif(record: &GameRecord, black: &str, white: &str) -> String {
    let (start, moves) = replay(record);
    let mut out = String::from("# KIF形式棋譜ファイル\n");
    let handicap = handicap_name(&record.base);
    match handicap {
        Some(name) => out.push_str(&format!("手合割：{name}\n")),
        None => out.push_str(&bod(&start)),
    }
    // In a handicap game the giver (上手) is White, the receiver (下手) Black.
    let (sente, gote) = match handicap {
        Some(name) if name != "平手" => ("下手", "上手"),
        _ => ("先手", "後手"),
    };
    out.push_str(&format!("{sente}：{black}\n{gote}：{white}\n"));
    out.push_str("手数----指手---------消費時間--\n");
    let mut totals = [0.0f64; 2];
    let mut previous_to: Option<Square> = None;
    for (number, (before, mv, used)) in moves.iter().enumerate() {
        let side = before.side_to_move();
        let used = used.unwrap_or(0.0);
        totals[side.index()] += used;
        let to = mv.to();
        let target = if previous_to == Some(to) {
            "同　".to_owned()
        } else {
            format!(
                "{}{}",
                KIF_DIGITS[usize::from(to.file())],
                KIF_RANKS[usize::from(to.rank())]
            )
        };
        let text = match *mv {
            Move::Drop { kind, .. } => format!("{target}{}打", kif_kind(kind)),
            Move::Normal { from, promote, .. } => {
                let kind = before.piece_at(from).map_or(PieceKind::Pawn, |p| p.kind);
                let promotes = if promote { "成" } else { "" };
                format!(
                    "{target}{}{promotes}({}{})",
                    kif_kind(kind),
                    from.file(),
                    from.rank()
                )
            }
        };
        out.push_str(&format!(
            "{:4} {text}   ({}/{})\n",
            number + 1,
            kif_clock(used),
            kif_total(totals[side.index()])
        ));
        previous_to = Some(to);
    }
    out.push_str(&format!(
        "{:4} {}\n",
        moves.len() + 1,
        end_terms(record.reason, record.winner).1
    ));
    if let Some(note) = adjudication_note(record) {
        out.push_str(&format!("#{note}\n"));
    }
    let winner = match record.winner {
        Winner::Black => format!("{sente}の勝ち"),
        Winner::White => format!("{gote}の勝ち"),
        Winner::Draw => "引き分け".to_owned(),
        Winner::Unfinished => "中断".to_owned(),
    };
    out.push_str(&format!("まで{}手で{winner}\n", moves.len()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_starts_are_named_others_are_not() {
        assert_eq!(handicap_name("startpos"), Some("平手"));
        for opening in super::super::Opening::bundled() {
            if opening.base != "startpos" {
                assert!(handicap_name(&opening.base).is_some(), "{}", opening.base);
            }
        }
        assert_eq!(
            handicap_name("sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"),
            Some("香落ち")
        );
        assert_eq!(
            handicap_name("sfen 4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 7"),
            Some("十枚落ち")
        );
        // The same board with Black to move is no handicap start.
        assert_eq!(
            handicap_name("sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"),
            None
        );
        assert_eq!(handicap_name("sfen 4k4/9/9/9/9/9/9/9/R3K4 b - 1"), None);
    }
}
