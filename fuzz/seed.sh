#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seed inputs: the SFENs of the published perft suite, the
# bundled scenarios, and the engine lines, GUI commands and moves listed in fuzz/seeds/.
# Idempotent: seeds are named by content, so re-running adds nothing twice.
set -euo pipefail
cd "$(dirname "$0")"
suite=../data/perft/public.tsv

seed() { # target, content
  local dir=corpus/$1
  mkdir -p "$dir"
  printf '%s' "$2" > "$dir/seed-$(printf '%s' "$2" | sha1sum | cut -c1-16)"
}

seed_lines() { # target, file: one seed per line
  while IFS= read -r line; do
    seed "$1" "$line"
  done < "$2"
}

while IFS=$'\t' read -r name sfen _; do
  case "$name" in '#'* | name | '') continue ;; esac
  seed sfen "$sfen"
  seed sfen "sfen $sfen"
  seed gui_command "position sfen $sfen moves 7g7f"
done < "$suite"
seed sfen startpos
seed_lines engine_line seeds/engine_lines.txt
seed_lines gui_command seeds/gui_commands.txt
seed_lines usi_move seeds/moves.txt
for file in ../scenarios/*/*.yaml; do
  seed scenario "$(cat "$file")"
done
mkdir -p corpus/movegen
