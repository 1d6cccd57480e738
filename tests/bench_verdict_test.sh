#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# bench/load/verdict.sh: a printed verdict is computed from the figure, never a constant. The
# load test once printed "target >= 0.5: met" for a ratio of 0.39 (issue 31).
#
#   bench_verdict_test.sh PATH/TO/verdict.sh
set -uo pipefail
# shellcheck source=/dev/null
source "$1"
failed=0
expect() {  # expect WANT VALUE OP LIMIT
  local got
  got=$(verdict "$2" "$3" "$4")
  if [[ $got != "$1" ]]; then
    echo "FAIL: verdict $2 $3 $4 printed '$got', expected '$1'"
    failed=1
  fi
}
expect "NOT met" 0.39 ">=" 0.5
expect "met" 0.62 ">=" 0.5
expect "met" 0.5 ">=" 0.5
expect "NOT met" 0.5 ">" 0.5
expect "met" 1.25 "<" 5
expect "NOT met" 5 "<" 5
expect "NOT met" 12 "<=" 5
expect "met" 10 ">=" 9.5   # as numbers, not as text ("10" < "9.5")
if verdict "n/a" ">=" 0.5 >/dev/null; then
  echo "FAIL: a figure that is not a number gave a verdict"
  failed=1
fi
if verdict 1 "==" 1 >/dev/null; then
  echo "FAIL: an unknown comparison gave a verdict"
  failed=1
fi
((failed == 0)) && echo "verdicts: every comparison computed"
exit "$failed"
