# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# What the CLI case scripts share (cli_test.sh, cli_merge_check_test.sh), sourced by each:
# the arguments, a fresh folder per case removed on exit, HOME inside it, and the run and
# expect helpers. Each script ends with run_case.

set -u -o pipefail

BIN=${1:?usage: $0 <steadyflake binary> <case>}
CASE=${2:?usage: $0 <steadyflake binary> <case>}
[[ -x "$BIN" ]] || { echo "not executable: $BIN" >&2; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/steadyflake-cli.XXXXXX")
BACKGROUND_PID=""
cleanup() {
  if [[ -n "$BACKGROUND_PID" ]]; then
    kill "$BACKGROUND_PID" 2>/dev/null
    wait "$BACKGROUND_PID" 2>/dev/null
  fi
  rm -rf "$T"
}
trap cleanup EXIT
export HOME="$T/home"
# A host-guard namespace of this test's own (engine/src/host_guard.h): CTest runs the cases in
# parallel, with the same server ids; the processes one case starts share it.
export STEADYFLAKE_HOST_GUARD_NAMESPACE="cli-test-$$"
unset XDG_STATE_HOME STEADYFLAKE_STATE_DIR

fail() {
  echo "FAIL [$CASE]: $*" >&2
  if [[ -s "$T/err" ]]; then
    echo "--- stderr of the last run:" >&2
    head -c 2000 "$T/err" >&2
  fi
  exit 1
}

# run ARGS...: runs the binary; stdout in $T/out, stderr in $T/err, exit status in $RC.
run() {
  "$BIN" "$@" >"$T/out" 2>"$T/err"
  RC=$?
}

expect_rc() { [[ "$RC" == "$1" ]] || fail "exit status $RC, expected $1"; }

# expect_out TEXT: stdout is exactly TEXT (plus the final newline).
expect_out() {
  local got
  got=$(cat "$T/out")
  [[ "$got" == "$1" ]] || fail "stdout is"$'\n'"$got"$'\n'"expected"$'\n'"$1"
}

expect_err_has() {
  grep -qF -- "$1" "$T/err" || fail "stderr does not mention '$1'"
}

# The error contract: exit 2 and exactly one line on stderr, "steadyflake: <problem>; <fix>".
expect_usage_error() {
  expect_rc 2
  [[ $(wc -l <"$T/err") -eq 1 ]] || fail "stderr is not exactly one line"
  grep -qE '^steadyflake: .+; .+$' "$T/err" || fail "stderr is not 'steadyflake: <problem>; <fix>'"
  [[ ! -s "$T/out" ]] || fail "an error run printed on stdout"
}

# check_increasing FILE: every line is a decimal ID, strictly greater than the line before.
check_increasing() {
  awk 'function gt(a, b) { return length(a) > length(b) || (length(a) == length(b) && a "" > b "") }
       !/^[0-9]+$/ { print "line " NR " is not an ID: " $0; exit 1 }
       NR > 1 && !gt($0, prev) { print "line " NR ": " $0 " is not above " prev; exit 1 }
       { prev = $0 }' "$1" >&2 || fail "$1 is not strictly increasing"
}

# id_less A B: true if ID A < ID B (compared as decimal strings).
id_less() {
  [[ ${#1} -lt ${#2} || (${#1} -eq ${#2} && "$1" < "$2") ]]
}


# Runs test_$CASE, which the sourcing script defines.
run_case() {
  declare -F "test_$CASE" >/dev/null || { echo "no such case: $CASE" >&2; exit 1; }
  "test_$CASE"
  echo "PASS [$CASE]"
}
