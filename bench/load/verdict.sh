# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# shellcheck shell=bash
#
# Sourced by bench/load/run.sh: a target's verdict, computed from the figure.
#
#   verdict VALUE OP LIMIT     OP one of >= > <= <
#
# Prints "met" when VALUE OP LIMIT holds as numbers, else "NOT met"; for a VALUE or LIMIT that
# is not a number, or another OP, prints "NOT met (cannot compare ...)" and returns 2. (It once
# handed awk the comparison as one string, which is always true: "0.39 >= 0.5: met".)
verdict() {
  local value=$1 op=$2 limit=$3 number='^-?[0-9]+([.][0-9]+)?$'
  if [[ ! $value =~ $number || ! $limit =~ $number ]] ||
    [[ $op != ">=" && $op != ">" && $op != "<=" && $op != "<" ]]; then
    echo "NOT met (cannot compare '$value' $op '$limit')"
    return 2
  fi
  if awk -v v="$value" -v l="$limit" -v op="$op" 'BEGIN {
      if (op == ">=") r = (v + 0 >= l + 0); else if (op == ">") r = (v + 0 > l + 0);
      else if (op == "<=") r = (v + 0 <= l + 0); else r = (v + 0 < l + 0);
      exit !r }'; then
    echo "met"
  else
    echo "NOT met"
  fi
}
