#!/usr/bin/env bash
# The usicheck step of the GitHub Action (action.yml): runs `usicheck certify`, `fuzz` or
# `play` (INPUT_COMMAND, default certify) from the action's inputs (INPUT_* variables), prints
# the report's annotations, appends its summary.md to the job summary, writes the step outputs
# and exits with usicheck's exit code (0 passed, 1 the engine failed, 2 usage or input error;
# play with --sprt also 3, H0 accepted, and 4, undecided). With INPUT_PREVIOUS (an earlier
# report.json of the same command) it then runs `usicheck diff PREVIOUS NEW --format
# markdown`, appends the comparison to the job summary, and fails the step when NEW is worse;
# INPUT_COMMAND=diff does only that, with the report an earlier step wrote into the report
# directory. USICHECK names the
# usicheck binary (default: the one on PATH). tests/action_script.rs runs it locally.
#
# Inputs that hold several words:
#   INPUT_ARGS, INPUT_FLAGS  split as a shell splits words (blanks separate them; '…', "…"
#                            and backslashes keep blanks inside one) but nothing is expanded:
#                            no $VAR, glob or command substitution (xargs's quoting rules).
#   INPUT_OPTIONS            one NAME=VALUE a line, each an --option; blank lines skipped.
# An empty input is left out, so usicheck's default applies.
set -euo pipefail

report_dir=${INPUT_REPORT_DIR:-usicheck-report}

# Writes the step outputs: the gate, the exit code, the report directory and, when usicheck
# wrote them, the report's counts (counts.txt is already NAME=VALUE lines of numbers or words).
write_outputs() {
  local status=$1 passed=false
  [[ $status == 0 ]] && passed=true
  [[ -n ${GITHUB_OUTPUT:-} ]] || return 0
  {
    echo "passed=$passed"
    echo "exit-code=$status"
    echo "report-dir=$report_dir"
    if [[ -f $report_dir/counts.txt ]]; then
      cat "$report_dir/counts.txt"
    fi
  } >>"$GITHUB_OUTPUT"
}

# An input error: says so as a workflow error annotation, writes the outputs, exits 2 as
# usicheck does for its own usage errors.
usage_error() {
  echo "::error title=usicheck action::$1" >&2
  write_outputs 2
  exit 2
}

# Sets the array `words` to the words of $1 (see INPUT_ARGS above); fails on an unmatched
# quote. xargs does the splitting because it quotes as a shell does without evaluating
# anything; its output goes through a file so that its exit status is seen.
split_words() {
  words=()
  [[ $1 =~ ^[[:space:]]*$ ]] && return 0
  local list word status=0
  list=$(mktemp)
  printf '%s\n' "$1" | xargs printf '%s\0' >"$list" || status=$?
  while IFS= read -r -d '' word; do
    words+=("$word")
  done <"$list"
  rm -f "$list"
  return "$status"
}

# A newline would let the value write further outputs (GITHUB_OUTPUT is NAME=VALUE lines).
[[ $report_dir != *$'\n'* ]] || usage_error "report-dir must be one line"
command=${INPUT_COMMAND:-certify}
case $command in
  certify | fuzz | play | diff) ;;
  *) usage_error "command must be certify, fuzz, play or diff, not '$command'" ;;
esac
[[ $command != play || -z ${INPUT_BASELINE:-} ]] ||
  usage_error "baseline applies to certify and fuzz, not play"

# Runs the command on the engine; sets status to usicheck's exit code.
run_engine() {
  [[ -n ${INPUT_ENGINE:-} ]] || usage_error "the engine input is required (the engine's program)"
  cmd=("${USICHECK:-usicheck}" "$command" --report-dir "$report_dir")
  [[ -z ${INPUT_PROFILE:-} ]] || cmd+=(--profile "$INPUT_PROFILE")
  [[ -z ${INPUT_FAIL_ON:-} ]] || cmd+=(--fail-on "$INPUT_FAIL_ON")
  [[ -z ${INPUT_JOBS:-} ]] || cmd+=(--jobs "$INPUT_JOBS")
  [[ -z ${INPUT_CWD:-} ]] || cmd+=(--cwd "$INPUT_CWD")
  [[ -z ${INPUT_BASELINE:-} ]] || cmd+=(--baseline "$INPUT_BASELINE")
  local line
  while IFS= read -r line || [[ -n $line ]]; do
    line=${line%$'\r'}
    line=${line#"${line%%[![:space:]]*}"}
    line=${line%"${line##*[![:space:]]}"}
    [[ -z $line ]] || cmd+=(--option "$line")
  done <<<"${INPUT_OPTIONS:-}"
  split_words "${INPUT_FLAGS:-}" || usage_error "flags: unmatched quote in: ${INPUT_FLAGS:-}"
  # Bash 3.2 (macOS) calls an empty "${words[@]}" unbound under set -u: hence the ${…+…}.
  cmd+=(${words[@]+"${words[@]}"} -- "$INPUT_ENGINE")
  split_words "${INPUT_ARGS:-}" || usage_error "args: unmatched quote in: ${INPUT_ARGS:-}"
  cmd+=(${words[@]+"${words[@]}"})

  printf '%q ' "${cmd[@]}"
  echo
  status=0
  "${cmd[@]}" || status=$?

  # Each failing rule as an annotation in the checks view (workflow commands, escaped by
  # usicheck).
  if [[ -f $report_dir/annotations.txt ]]; then
    cat "$report_dir/annotations.txt"
  fi
  if [[ -n ${GITHUB_STEP_SUMMARY:-} && -f $report_dir/summary.md ]]; then
    cat "$report_dir/summary.md" >>"$GITHUB_STEP_SUMMARY"
  fi
}

status=0
if [[ $command == diff ]]; then
  # An earlier step wrote the report: diff only compares it with the previous one.
  [[ -n ${INPUT_PREVIOUS:-} ]] || usage_error "command diff needs the previous input (an earlier report.json)"
  [[ -f $report_dir/report.json ]] ||
    usage_error "command diff compares the previous report with $report_dir/report.json, which is not there"
else
  run_engine
fi

# The comparison with an earlier report: its Markdown after the summary; a worse report (exit
# 1) fails a step that passed; a report it cannot compare (exit 2) is an input error.
if [[ -n ${INPUT_PREVIOUS:-} && $status != 2 && -f $report_dir/report.json ]]; then
  diff_cmd=("${USICHECK:-usicheck}" diff --format markdown)
  [[ -z ${INPUT_FAIL_ON:-} ]] || diff_cmd+=(--fail-on "$INPUT_FAIL_ON")
  diff_cmd+=("$INPUT_PREVIOUS" "$report_dir/report.json")
  printf '%q ' "${diff_cmd[@]}"
  echo
  compared=0
  comparison=$("${diff_cmd[@]}") || compared=$?
  printf '%s\n' "$comparison"
  if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
    printf '%s\n' "$comparison" >>"$GITHUB_STEP_SUMMARY"
  fi
  case $compared in
    0) ;;
    1) [[ $status != 0 ]] || status=1 ;;
    *) usage_error "previous: usicheck diff could not compare $INPUT_PREVIOUS with this run's report" ;;
  esac
fi
write_outputs "$status"
exit "$status"
