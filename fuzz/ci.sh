#!/usr/bin/env bash
# CI gate for the fuzz targets (called by .ci/run): builds every target, replays the committed
# regression inputs, then fuzzes each target for FUZZ_SECONDS (default 30) from the seed corpus,
# FUZZ_JOBS targets at a time (default: one per core).
# Any crash, panic, timeout or out-of-memory fails the run; the input is left in fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${FUZZ_SECONDS:-30}
targets=(sfen usi_move engine_line gui_command scenario movegen engine_session refengine_session)
# Safe Rust: coverage and debug assertions find the bugs; ASan would only slow the runs, and
# without it the stable toolchain needs no RUSTC_BOOTSTRAP. These flags must be the same for
# `build` and `run`, or `run` rebuilds everything.
flags=(-O --debug-assertions --sanitizer none)

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi

cargo fuzz build "${flags[@]}"
./seed.sh

# engine_session drives a real engine process: the built-in reference engine, which must
# stand every session (build it first: `cargo build --release` in the crate root).
export USICHECK_ENGINE=${USICHECK_ENGINE:-$(cd .. && pwd)/target/release/usicheck}
export USICHECK_ENGINE_ARGS=${USICHECK_ENGINE_ARGS:-engine}

logs=$(mktemp -d)

# One target: its regressions, then FUZZ_SECONDS of fuzzing; fails if either does.
run_target() {
  local target=$1 ok=true
  if [ -d "regressions/$target" ]; then
    echo "fuzz: replaying regressions/$target"
    cargo fuzz run "${flags[@]}" "$target" "regressions/$target" -- -runs=0 2>&1 || ok=false
  fi
  if $ok; then
    echo "fuzz: $target for ${seconds}s"
    # Structured inputs: whole games from the first run on, not libFuzzer's slowly growing lengths.
    local extra=(-timeout=10)
    case "$target" in
      movegen) extra+=(-max_len=4096 -len_control=0) ;;
      # One input is a whole session of short real searches; its own deadlines catch hangs.
      engine_session) extra=(-max_len=512 -len_control=0 -timeout=60) ;;
      # The in-process harness reads one episode per 4 bytes, 8 at most.
      refengine_session) extra=(-max_len=32 -len_control=0 -timeout=60) ;;
    esac
    mkdir -p "corpus/$target"
    cargo fuzz run "${flags[@]}" "$target" "corpus/$target" -- "${extra[@]}" \
      -dict=usi.dict -max_total_time="$seconds" -rss_limit_mb=2048 \
      -print_final_stats=1 2>"$logs/$target.log" || ok=false
    grep -E '^(stat::number_of_executed_units|stat::average_exec_per_sec)' "$logs/$target.log" || true
  fi
  $ok
}

# libFuzzer runs a target on one core: one target per core at a time.
jobs=${FUZZ_JOBS:-$(nproc)}
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || true
  done
  # What a target prints goes to $logs/$target.out; $logs/$target.failed marks a failure.
  { run_target "$target" || touch "$logs/$target.failed"; } >"$logs/$target.out" 2>&1 &
done
wait

passed=0
failed=0
for target in "${targets[@]}"; do
  cat "$logs/$target.out"
  if [ -e "$logs/$target.failed" ]; then
    failed=$((failed + 1))
    echo "fuzz: $target FAILED" >&2
    tail -n 40 "$logs/$target.log" >&2 || true
  else
    passed=$((passed + 1))
  fi
done
rm -rf "$logs"
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
