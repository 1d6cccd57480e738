# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# What the merge-plan end-to-end scripts share (merge_plan_test.sh, merge_plan_legacy_test.sh),
# sourced by each: the arguments, a fresh folder per case removed on exit (and the private
# MariaDB stopped), the fixture's references, and the comparisons of B' and the merged shard
# with the originals by uid.

set -u -o pipefail

BIN=${1:?usage: $0 <steadyflake binary> <case>}
CASE=${2:?usage: $0 <steadyflake binary> <case>}
[[ -x "$BIN" ]] || { echo "not executable: $BIN" >&2; exit 1; }
DATA=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../data/merge_plan" && pwd)

T=$(mktemp -d "${TMPDIR:-/tmp}/steadyflake-plan.XXXXXX")
MARIADB_PID=""
cleanup() {
  if [[ -n "$MARIADB_PID" ]]; then
    mariadb-admin --no-defaults -S "$T/my.sock" -uroot shutdown >/dev/null 2>&1 ||
      kill "$MARIADB_PID" 2>/dev/null
    wait "$MARIADB_PID" 2>/dev/null
  fi
  [[ -n "${KEEP:-}" ]] && { echo "kept $T" >&2; return; }
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
need() { command -v "$1" >/dev/null || { echo "SKIP: $1 not found: apt-get install $2"; exit 77; }; }
run() {
  "$BIN" "$@" >"$T/out" 2>"$T/err"
  RC=$?
}
expect_rc() { [[ "$RC" == "$1" ]] || fail "exit status $RC, expected $1"; }

# The fixture's references, tables and uid snapshot (shared with merge_test.sh).
# shellcheck source=tests/cli/merge_fixture.sh
source "$(dirname "${BASH_SOURCE[0]}")/merge_fixture.sh"
write_refs "$T/refs"

# B' against B: every reference points at the same row (by uid); 5 players renamed. Items whose
# template was dropped as identical to A's refer to no template in B' alone (A has it).
compare_rewritten() {
  grep -vE $'^(name|template)\t' "$T/before" >"$T/before.refs"
  grep -vE $'^(name|template)\t' "$T/after" >"$T/after.refs"
  diff "$T/before.refs" "$T/after.refs" >"$T/diff" || fail "a reference moved: $(head -5 "$T/diff")"
  local renamed
  renamed=$(diff <(grep $'^name\t' "$T/before") <(grep $'^name\t' "$T/after") | grep -c '^>')
  [[ $renamed == 5 ]] || fail "$renamed players renamed, expected 5"
}
# The merged database against B: B's rows refer to the same rows, templates included.
compare_merged() {
  grep -v $'^name\t' "$T/before" >"$T/before.refs"
  grep -v $'^name\t' "$T/merged" >"$T/merged.refs"
  diff "$T/before.refs" "$T/merged.refs" >"$T/diff" ||
    fail "a reference of B moved in the merge: $(head -5 "$T/diff")"
  diff <(grep $'^name\t' "$T/after") <(grep $'^name\t' "$T/merged") >"$T/diff" ||
    fail "a name changed in the merge: $(head -5 "$T/diff")"
}

# The JSON value at a Python expression over plan.json (`p`).
plan_json() { python3 -c "import json,sys; p=json.load(open('$T/plan/plan.json')); print($1)"; }

check_plan_json() {
  [[ $(plan_json "sum(len(r['values']) for r in p['remaps'] if r['table']=='player')") == 260 ]] ||
    fail "plan.json: not 260 player remaps"
  [[ $(plan_json "[x['found'] for r in p['remaps'] if r['table']=='player' for x in r['references'] \
        if x['table']=='mail'][0]") == --refs ]] || fail "plan.json: mail.to_player not from --refs"
  [[ $(plan_json "[x['found'] for r in p['remaps'] if r['table']=='player' for x in r['references'] \
        if x['table']=='item'][0]") == --refs ]] || fail "plan.json: item.owner_id not from --refs"
  [[ $(plan_json "[r['method'] for r in p['remaps'] if r['table']=='item'][0]") == "fresh IDs" ]] ||
    fail "plan.json: item ids are not fresh IDs"
  # The twin item is identical in both shards, but its owner is remapped: moved, not dropped.
  [[ $(plan_json "[r['count'] for r in p['remaps'] if r['table']=='item'][0]") == 11 ]] ||
    fail "plan.json: not 11 item remaps (10 differing, 1 identical row that refers to a remap)"
  # Every new name fits VARCHAR(12) and keeps its suffix whole.
  [[ $(plan_json "all(len(n) <= 12 and '.s102' in n for r in p['renames'] \
        if r['table']=='player' for o, n in r['values'])") == True ]] ||
    fail "plan.json: a rename is longer than 12 characters or lost its suffix"
  [[ $(plan_json "p['drops'][0]['rows']") == 20 ]] || fail "plan.json: not 20 identical rows dropped"
  [[ $(plan_json "len(p['unresolved'])") == 0 ]] || fail "plan.json: unresolved items"
}
