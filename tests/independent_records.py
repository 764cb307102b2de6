"""Reads every game record of a `usicheck play` report directory with python-shogi, an
independent reader: each .csa with its CSA parser, each .kif (decoded as Shift_JIS, strictly)
and .kifu (UTF-8) with its KIF parser; replays every move on python-shogi's board, checking
that each is legal there; and prints one line per record:

    NAME<TAB>MOVES<TAB>FINAL SFEN      or      NAME<TAB>error: WHAT

Usage: python3 tests/independent_records.py DIR/games (tests/independent_records.rs runs it).
"""

import pathlib
import sys

import shogi
import shogi.CSA
import shogi.KIF


def games(path):
    """python-shogi's summaries of the record at `path` (sfen, moves, names, win)."""
    if path.suffix == ".csa":
        return shogi.CSA.Parser.parse_file(str(path))
    # KIF.Parser.parse_file tries cp932, then UTF-8, and swallows every error: decode by the
    # extension's convention here, strictly, so that a .kif in UTF-8 fails as it does in a GUI.
    encoding = "cp932" if path.suffix == ".kif" else "utf-8"
    return shogi.KIF.Parser.parse_str(path.read_bytes().decode(encoding))


def final_sfen(summary):
    """The position after replaying the game's moves, each checked legal."""
    board = shogi.Board(summary["sfen"])
    for number, usi in enumerate(summary["moves"], start=1):
        move = shogi.Move.from_usi(usi)
        if not board.is_legal(move):
            raise ValueError(f"move {number} ({usi}) is illegal in {board.sfen()}")
        board.push(move)
    return len(summary["moves"]), board.sfen()


def main(directory):
    records = sorted(
        p for p in pathlib.Path(directory).iterdir() if p.suffix in (".csa", ".kif", ".kifu")
    )
    for path in records:
        try:
            summaries = games(path)
            if len(summaries) != 1:
                raise ValueError(f"{len(summaries)} games, not 1")
            moves, sfen = final_sfen(summaries[0])
            print(f"{path.name}\t{moves}\t{sfen}")
        except Exception as error:  # every failure is reported, per record
            print(f"{path.name}\terror: {type(error).__name__}: {error}")


if __name__ == "__main__":
    main(sys.argv[1])
