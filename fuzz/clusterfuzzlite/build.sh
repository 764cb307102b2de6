#!/bin/bash -eu
# Builds every fuzz target with the sanitizer the infrastructure asks for ($SANITIZER, set by
# the base image's cargo wrapper) and ships each with the USI dictionary and a seed corpus.
cd "$SRC/usicheck/fuzz"
cargo fuzz build -O --debug-assertions
./seed.sh
release=target/x86_64-unknown-linux-gnu/release
for target in sfen usi_move engine_line gui_command scenario movegen refengine_session; do
  cp "$release/$target" "$OUT/"
  cp usi.dict "$OUT/$target.dict"
  if [ -n "$(ls -A "corpus/$target")" ]; then
    (cd "corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  fi
done
