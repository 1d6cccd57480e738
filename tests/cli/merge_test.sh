#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# `steadyflake merge` end to end (issue 29, docs/merging.md "Merge and verify"): plan, merge,
# and prove by the rows' `uid`s that every row of A and B still refers to the same rows; the
# rewrite corrupted by hand three ways, each caught before anything is written; inputs changed
# after the plan; the process killed at every stage, and merge-plan and merge killed at random
# points (the seed printed; STEADYFLAKE_TEST_SEED repeats it).
#
#   merge_test.sh <path to steadyflake> <case>
#
# Exit status: 0 pass, 1 fail (with the reason on stderr), 77 skipped (sqlite3 or python3 is not
# installed; the message names the Debian package). Every case runs in a fresh `mktemp -d`
# folder that the EXIT trap removes.

set -u -o pipefail

BIN=${1:?usage: merge_test.sh <steadyflake binary> <case>}
CASE=${2:?usage: merge_test.sh <steadyflake binary> <case>}
[[ -x "$BIN" ]] || { echo "not executable: $BIN" >&2; exit 1; }
DATA=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../data/merge_plan" && pwd)

T=$(mktemp -d "${TMPDIR:-/tmp}/steadyflake-merge.XXXXXX")
CHILD=""
MARIADB_PID=""
cleanup() {
  [[ -n "$CHILD" ]] && kill -9 "$CHILD" 2>/dev/null
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
export STEADYFLAKE_HOST_GUARD_NAMESPACE="merge-test-$$"
unset XDG_STATE_HOME STEADYFLAKE_STATE_DIR

# shellcheck source=tests/cli/merge_fixture.sh
source "$(dirname "${BASH_SOURCE[0]}")/merge_fixture.sh"
DIALECT=sqlite

fail() {
  echo "FAIL [$CASE]: $*" >&2
  for f in out err; do
    [[ -s "$T/$f" ]] && { echo "--- $f of the last run:" >&2; head -c 3000 "$T/$f" >&2; }
  done
  exit 1
}
need() { command -v "$1" >/dev/null || { echo "SKIP: $1 not found: apt-get install $2"; exit 77; }; }
run() {
  "$BIN" "$@" >"$T/out" 2>"$T/err"
  RC=$?
}
expect_rc() { [[ "$RC" == "$1" ]] || fail "exit status $RC, expected $1"; }
sums() { sha256sum "$T/a.db" "$T/b.db"; }

# The shards, their checksums and the plan (with the fixture's references confirmed).
setup() {
  need sqlite3 sqlite3
  need python3 python3
  for s in a b; do
    cat "$DATA/schema.sqlite.sql" "$DATA/$s.data.sql" | sqlite3 "$T/$s.db" || fail "load $s"
  done
  write_refs "$T/refs"
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/plan" --server-id 103 --refs "$T/refs" \
    --state-dir "$T/state"
  expect_rc 0
  SUMS=$(sums)
}

# Every reference of A's and of B's rows, by uid (names aside: B's may be renamed).
snapshot() { sqlite3 "$1" -separator $'\t' "$(snapshot_sql)" | grep -v $'^name\t' | sort; }

# --- merged and verified; every row keeps what it refers to -----------------------------------

test_merge_sqlite() {
  setup
  snapshot "$T/a.db" >"$T/refs.a"
  snapshot "$T/b.db" >"$T/refs.b"
  run merge "$T/a.db" "$T/b.db" --plan "$T/plan" --out "$T/m.db"
  expect_rc 0
  grep -q "^merged and verified: $T/m.db" "$T/out" || fail "no verdict 'merged and verified'"
  [[ "$(sums)" == "$SUMS" ]] || fail "merge modified an input"
  # Every reference of A and of B as it was, by uid: nothing repointed, nothing lost.
  snapshot "$T/m.db" >"$T/refs.m"
  sort -m "$T/refs.a" "$T/refs.b" | sort >"$T/refs.ab"
  # B's items whose template was dropped as identical to A's refer to A's same template.
  diff "$T/refs.ab" "$T/refs.m" >"$T/diff" || fail "a reference moved: $(head -5 "$T/diff")"
  for t in $TABLES; do
    local na nb nm
    na=$(sqlite3 "$T/a.db" "SELECT count(*) FROM $t")
    nb=$(sqlite3 "$T/b.db" "SELECT count(*) FROM $t")
    nm=$(sqlite3 "$T/m.db" "SELECT count(*) FROM $t")
    local dropped=0
    [[ $t == item_template ]] && dropped=20
    [[ $nm == $((na + nb - dropped)) ]] || fail "$t: $nm rows merged, A $na + B $nb - $dropped"
  done
  [[ $(sqlite3 "$T/m.db" "PRAGMA integrity_check") == ok ]] || fail "integrity_check"
  # The JSON report says the same.
  run merge "$T/a.db" "$T/b.db" --plan "$T/plan" --out "$T/m2.db" --json
  expect_rc 0
  python3 -c "
import json, sys
r = json.load(open('$T/out'))
assert r['verified'] and r['verdict'] == 'merged and verified', r['verdict']
t = {x['table']: x for x in r['tables']}
assert t['player']['merged'] == 560 and t['item_template']['dropped'] == 20, t
k = {(x['table'], x['column']): x for x in r['keys']}
assert k[('player', 'id')]['entities'] == 260 and k[('player', 'id')]['references'] == 5, k
" || fail "the JSON report"
  cmp -s "$T/m.db" "$T/m2.db" || true  # same content; the file may differ in its header
  # An existing OUT is never replaced.
  run merge "$T/a.db" "$T/b.db" --plan "$T/plan" --out "$T/m.db"
  expect_rc 2
  grep -q "m.db exists" "$T/err" || fail "no 'exists' error"
}

# --- the rewrite corrupted by hand: caught before anything is merged ----------------------------

# corrupt NAME SED-SCRIPT WHAT: edits rewrite-b.sql of a copy of the plan and expects exit 1,
# no output file, and a mismatch naming WHAT.
corrupt() {
  local name=$1 script=$2 what=$3
  rm -rf "$T/p.$name"
  cp -r "$T/plan" "$T/p.$name"
  sed -i "$script" "$T/p.$name/rewrite-b.sql"
  cmp -s "$T/plan/rewrite-b.sql" "$T/p.$name/rewrite-b.sql" && fail "$name: sed changed nothing"
  run merge "$T/a.db" "$T/b.db" --plan "$T/p.$name" --out "$T/m.$name.db"
  expect_rc 1
  grep -q "^verification failed, nothing written" "$T/out" || fail "$name: no verdict"
  grep -qF "$what" "$T/out" || fail "$name: no mismatch naming '$what'"
  [[ ! -e "$T/m.$name.db" ]] || fail "$name: the output was written"
  ls "$T" | grep -q '\.tmp-' && fail "$name: temporary files left: $(ls "$T" | grep '\.tmp-')"
  [[ "$(sums)" == "$SUMS" ]] || fail "$name: an input was modified"
}

test_merge_corrupt() {
  setup
  # One reference UPDATE left out: the mail of B's players stays on A's player ids.
  corrupt no_mail_update '/^UPDATE OR ROLLBACK "mail" SET "to_player"/d' \
    "mail: B's row (id="
  # One offset off by one: B's last player gets 561, not 560.
  corrupt off_by_one 's/^  (260, 560)/  (260, 561)/' "player: B' has row (id=561"
  # One identical-row DELETE too many: template 1020 differs from A's, and is deleted.
  corrupt delete_too_many 's/^  (1019);/  (1019),\n  (1020);/' "item_template: B's row (id=1020"
}

# --- inputs that changed after the plan: refused, naming what ----------------------------------

test_merge_changed_input() {
  setup
  cp "$T/b.db" "$T/b.copy.db"
  # A copy (another mtime, the same bytes) still fits the plan.
  touch -d '2001-01-01' "$T/b.copy.db"
  run merge "$T/a.db" "$T/b.copy.db" --plan "$T/plan" --out "$T/m.copy.db"
  expect_rc 0
  grep -q "^note: B was modified" "$T/out" || fail "no note of B's new mtime"
  sqlite3 "$T/b.copy.db" "INSERT INTO mail SELECT id + 1, to_player, subject, uid FROM mail WHERE id = (SELECT max(id) FROM mail)"
  run merge "$T/a.db" "$T/b.copy.db" --plan "$T/plan" --out "$T/m.changed.db"
  expect_rc 2
  grep -q "changed since plan .*table mail: 420 rows at the plan, 421 now" "$T/err" ||
    fail "no error naming mail's rows"
  sqlite3 "$T/b.copy.db" "DELETE FROM mail WHERE id = (SELECT max(id) FROM mail); UPDATE player SET level = level + 1 WHERE id = 1"
  run merge "$T/a.db" "$T/b.copy.db" --plan "$T/plan" --out "$T/m.changed.db"
  expect_rc 2
  grep -q "changed since plan .*its content" "$T/err" || fail "no error naming the content"
  [[ ! -e "$T/m.changed.db" ]] || fail "the output was written"
  # plan.json of one run beside rewrite-b.sql of another (a merge-plan killed between renames).
  cp -r "$T/plan" "$T/mixed"
  sed -i "s/steadyflake_merge_plan VALUES ('[0-9a-f]*'/steadyflake_merge_plan VALUES ('0123456789abcdef'/" \
    "$T/mixed/rewrite-b.sql"
  run merge "$T/a.db" "$T/b.db" --plan "$T/mixed" --out "$T/m.mixed.db"
  expect_rc 2
  grep -q "rewrite-b.sql was written for plan 0123456789abcdef" "$T/err" ||
    fail "no error naming the two plans"
  [[ ! -e "$T/m.mixed.db" ]] || fail "the output was written"
  # A plan folder that is not a plan.
  mkdir -p "$T/noplan"
  run merge "$T/a.db" "$T/b.db" --plan "$T/noplan" --out "$T/m.none.db"
  expect_rc 2
  grep -q "cannot read .*plan.json" "$T/err" || fail "no error naming plan.json"
}

# --- kill -9 at every stage: no OUT, inputs intact, the next run succeeds ----------------------

test_merge_killed() {
  setup
  mkfifo "$T/stopped"
  local stage
  for stage in copy rewrite "verify the rewrite" merge publish; do
    STEADYFLAKE_TEST_STOP_AT=$stage STEADYFLAKE_TEST_STOP_FIFO="$T/stopped" \
      "$BIN" merge "$T/a.db" "$T/b.db" --plan "$T/plan" --out "$T/m.db" >"$T/out" 2>"$T/err" &
    CHILD=$!
    local said
    read -r said <"$T/stopped" || fail "$stage: the merge did not reach the stage"
    [[ $said == "$stage" ]] || fail "stopped at '$said', expected '$stage'"
    kill -9 "$CHILD"
    wait "$CHILD" 2>/dev/null
    CHILD=""
    [[ ! -e "$T/m.db" ]] || fail "$stage: killed, it left $T/m.db"
    [[ "$(sums)" == "$SUMS" ]] || fail "$stage: an input was modified"
  done
  run merge "$T/a.db" "$T/b.db" --plan "$T/plan" --out "$T/m.db"
  expect_rc 0
  grep -q "^note: removed .*left by a run that died" "$T/out" || fail "no note of the stale files"
  ls "$T" | grep -q '\.tmp-' && fail "temporary files left: $(ls "$T" | grep '\.tmp-')"
  [[ $(sqlite3 "$T/m.db" "SELECT count(*) FROM player") == 560 ]] || fail "not 560 players"
  # merge-plan over a plan of another server id: killed with every file written and none
  # renamed, the old plan stands; killed between its two renames, merge refuses the pair.
  cp -r "$T/plan" "$T/p"
  local old_id
  old_id=$(plan_ids "$T/p" | sort -u)
  for stage in rename "rename rewrite-b.sql"; do
    STEADYFLAKE_TEST_STOP_AT=$stage STEADYFLAKE_TEST_STOP_FIFO="$T/stopped" \
      "$BIN" merge-plan "$T/a.db" "$T/b.db" --out "$T/p" --server-id 104 --refs "$T/refs" \
      --state-dir "$T/state" >"$T/out" 2>"$T/err" &
    CHILD=$!
    read -r said <"$T/stopped" || fail "$stage: merge-plan did not reach the stage"
    kill -9 "$CHILD"
    wait "$CHILD" 2>/dev/null
    CHILD=""
    ls "$T/p" | grep -q '\.tmp-' || fail "$stage: no temporary file left to remove"
  done
  [[ $(plan_ids "$T/p" | tail -1) == "$old_id" ]] || fail "rewrite-b.sql is not the old plan's"
  [[ $(plan_ids "$T/p" | head -1) != "$old_id" ]] || fail "plan.json is not the new plan's"
  run merge "$T/a.db" "$T/b.db" --plan "$T/p" --out "$T/m2.db"
  expect_rc 2
  grep -q "rewrite-b.sql was written for plan $old_id" "$T/err" || fail "the mixed plan was taken"
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/p" --server-id 104 --refs "$T/refs" \
    --state-dir "$T/state"
  expect_rc 0
  grep -q "^note: removed .*/p/.*\.tmp-[0-9]*, left by a run that died" "$T/out" ||
    fail "merge-plan said nothing of the stale files"
  ls "$T/p" | grep -q '\.tmp-' && fail "merge-plan left temporary files: $(ls "$T/p")"
  [[ $(plan_ids "$T/p" | sort -u | wc -l) == 1 ]] || fail "the plan's two files disagree"
}

# --- kill -9 at random points, merge-plan and merge: never a partial output -------------------

# now_ms: the monotonic-enough wall clock in milliseconds (for the delays only).
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# kill_at_random N MAX_MS CMD...: starts CMD N times, each killed with SIGKILL after a random
# delay in [0, MAX_MS] ms (a run that ends first is not killed), calling `after_kill` each time.
kill_at_random() {
  local n=$1 max=$2 i delay killed=0
  shift 2
  for ((i = 0; i < n; i++)); do
    delay=$((RANDOM % (max + 1)))
    "$@" >"$T/out" 2>"$T/err" &
    CHILD=$!
    sleep "$((delay / 1000)).$(printf %03d $((delay % 1000)))"
    kill -9 "$CHILD" 2>/dev/null
    wait "$CHILD" 2>/dev/null
    [[ $? == 137 ]] && killed=$((killed + 1))
    CHILD=""
    after_kill "$i" "$delay"
  done
  echo "$2: $killed of $n runs killed before their end (delays up to $max ms)"
  ((killed > 0)) || fail "no run of $2 was killed before its end: the delays are too long"
}

# The plan id plan.json names, and the one rewrite-b.sql's guard inserts.
plan_ids() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["plan"])' "$1/plan.json"
  sed -n "s/.*steadyflake_merge_plan VALUES ('\([0-9a-f]*\)'.*/\1/p" "$1/rewrite-b.sql"
}

test_merge_killed_at_random() {
  setup
  local seed=${STEADYFLAKE_TEST_SEED:-$(($(date +%s%N) % 1000000))}
  echo "seed $seed (STEADYFLAKE_TEST_SEED=$seed repeats these delays)"
  RANDOM=$seed
  # merge-plan over a complete plan of another server id (another plan id), so that a run
  # killed between its renames would show as two ids.
  cp -r "$T/plan" "$T/p"
  local start took
  start=$(now_ms)
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/timed" --server-id 104 --refs "$T/refs" \
    --state-dir "$T/state"
  took=$(($(now_ms) - start))
  after_kill() {
    local left ids
    left=$(ls -A "$T/p" | grep -vE '^(plan\.json|rewrite-b\.sql)(\.tmp-[0-9]+)?$')
    [[ -z $left ]] || fail "merge-plan killed after $2 ms left $left"
    ids=$(plan_ids "$T/p" | sort -u | wc -l)
    if [[ $ids != 1 ]]; then  # killed between the renames: merge must refuse the pair
      "$BIN" merge "$T/a.db" "$T/b.db" --plan "$T/p" --out "$T/mixed.db" >/dev/null 2>"$T/err"
      [[ $? == 2 ]] && grep -q "was written for plan" "$T/err" ||
        fail "a plan.json and rewrite-b.sql of two runs were not refused"
    fi
    [[ "$(sums)" == "$SUMS" ]] || fail "merge-plan killed after $2 ms modified an input"
  }
  kill_at_random 12 $((took + took / 4 + 1)) "$BIN" merge-plan "$T/a.db" "$T/b.db" --out "$T/p" \
    --server-id 104 --refs "$T/refs" --state-dir "$T/state"
  run merge-plan "$T/a.db" "$T/b.db" --out "$T/p" --server-id 104 --refs "$T/refs" \
    --state-dir "$T/state"
  expect_rc 0
  ls "$T/p" | grep -q '\.tmp-' && fail "merge-plan left temporary files: $(ls "$T/p")"
  [[ $(plan_ids "$T/p" | sort -u | wc -l) == 1 ]] || fail "the plan's two files disagree"
  # merge, killed anywhere from its start to its end.
  start=$(now_ms)
  run merge "$T/a.db" "$T/b.db" --plan "$T/plan" --out "$T/timed.db"
  expect_rc 0
  took=$(($(now_ms) - start))
  after_kill() {
    if [[ -e "$T/m.db" ]]; then  # it finished first: then it is whole
      [[ $(sqlite3 "$T/m.db" "PRAGMA integrity_check") == ok ]] || fail "a damaged m.db"
      rm "$T/m.db"
    fi
    [[ "$(sums)" == "$SUMS" ]] || fail "merge killed after $2 ms modified an input"
  }
  kill_at_random 12 $((took + took / 4 + 1)) "$BIN" merge "$T/a.db" "$T/b.db" --plan "$T/plan" \
    --out "$T/m.db"
  run merge "$T/a.db" "$T/b.db" --plan "$T/plan" --out "$T/m.db"
  expect_rc 0
  ls "$T" | grep -q '\.tmp-' && fail "temporary files left: $(ls "$T" | grep '\.tmp-')"
  return 0
}

# --- a full disk and a read-only folder: a clear error, nothing left, the next run succeeds ----

# in_namespace CMD...: runs CMD in a mount namespace of its own (util-linux unshare), where the
# test's tmpfs and read-only mounts live and die with it.
in_namespace() { unshare -m -- "$@"; }

test_merge_faults() {
  setup
  need unshare util-linux
  in_namespace true || fail "unshare -m failed: the test needs root with CAP_SYS_ADMIN (mounts)"
  mkdir -p "$T/small" "$T/ro"
  # A disk with room for a copy of A but not for the whole merge; for merge-plan, room for
  # plan.json but not rewrite-b.sql as well.
  local size
  for command in merge merge-plan; do
    size=$(($(stat -c %s "$T/a.db") * 3 / 2))
    [[ $command == merge-plan ]] && size=$(($(stat -c %s "$T/plan/plan.json") + 4096))
    local args=(merge "$T/a.db" "$T/b.db" --plan "$T/plan" --out "$T/small/m.db")
    [[ $command == merge-plan ]] && args=(merge-plan "$T/a.db" "$T/b.db" --out "$T/small/plan"
      --server-id 103 --refs "$T/refs" --state-dir "$T/state")
    # What the command left on the small disk is listed before the namespace (and the disk)
    # goes away.
    in_namespace sh -c 'mount -t tmpfs -o size=$1 tmpfs "$2/small" || exit 9; t=$2; shift 2
      "$@"; rc=$?; ls -A "$t/small" >"$t/left"; exit $rc' \
      sh "$size" "$T" "$BIN" "${args[@]}" >"$T/out" 2>"$T/err"
    RC=$?
    expect_rc 2
    grep -qiE "full|No space" "$T/err" || fail "$command on a full disk: no clear error"
    [[ $(wc -l <"$T/err") == 1 ]] || fail "$command on a full disk: more than one line on stderr"
    [[ ! -s "$T/left" ]] || fail "$command left on the full disk: $(cat "$T/left")"
    # Read-only: the same folder, bind-mounted read-only.
    args=("${args[@]//\/small\//\/ro\/}")
    in_namespace sh -c 'mount --bind "$1/ro" "$1/ro" && mount -o remount,ro,bind "$1/ro" &&
      shift && exec "$@"' sh "$T" "$BIN" "${args[@]}" >"$T/out" 2>"$T/err"
    RC=$?
    expect_rc 2
    grep -qi "read-only" "$T/err" || fail "$command into a read-only folder: no clear error"
    [[ -z $(ls -A "$T/ro") && -z $(ls -A "$T/small") ]] || fail "$command left files behind"
    [[ "$(sums)" == "$SUMS" ]] || fail "$command: an input was modified"
  done
  run merge "$T/a.db" "$T/b.db" --plan "$T/plan" --out "$T/ro/m.db"
  expect_rc 0
}

# --- MariaDB: merge.sql on a private server; its checks refuse a corrupted B' -----------------

# The checksum of A's tables on the server: equal before and after a refused merge.
a_sum() { sql -N a -e "CHECKSUM TABLE $(echo $TABLES | tr ' ' ',')"; }

# load_b DB [SED-SCRIPT]: B's dump into database DB, then rewrite-b.sql (edited by the script).
load_b() {
  sql -e "CREATE DATABASE $1" || fail "create $1"
  sql "$1" <"$DATA/b.mariadb.sql" || fail "load B into $1"
  sed "${2:-}" "$T/plan/rewrite-b.sql" | sql "$1" >"$T/apply.out" 2>&1 ||
    fail "rewrite-b.sql into $1: $(head -c 300 "$T/apply.out")"
}

test_merge_mariadb() {
  DIALECT=mysql
  need python3 python3
  start_mariadb
  sql -e "CREATE DATABASE a" || fail "create a"
  sql a <"$DATA/a.mariadb.sql" || fail "load A"
  local snap sums_in
  snap=$(snapshot_sql)
  sums_in=$(sha256sum "$DATA/a.mariadb.sql" "$DATA/b.mariadb.sql")
  sql -N a -e "$snap" | grep -v $'^name\t' | sort >"$T/refs.a"
  sql -e "CREATE DATABASE b0" && sql b0 <"$DATA/b.mariadb.sql" || fail "load B"
  sql -N b0 -e "$snap" | grep -v $'^name\t' | sort >"$T/refs.b"
  write_refs "$T/refs"
  run merge-plan "$DATA/a.mariadb.sql" "$DATA/b.mariadb.sql" --out "$T/plan" --server-id 103 \
    --refs "$T/refs" --state-dir "$T/state"
  expect_rc 0

  # B' corrupted three ways: merge.sql stops at a check, and A is as it was.
  local before name
  before=$(a_sum)
  local -A edits=(
    [no_mail_update]='/^UPDATE `mail` AS t JOIN/d'
    [off_by_one]='s/^  (260, 560)/  (260, 561)/'
    [delete_too_many]='s/^  (1019);/  (1019),\n  (1020);/')
  for name in "${!edits[@]}"; do
    load_b "b_$name" "${edits[$name]}"
    run merge "$DATA/a.mariadb.sql" "$DATA/b.mariadb.sql" --plan "$T/plan" --out "$T/m_$name" \
      --b-db "b_$name"
    expect_rc 0
    if sql <"$T/m_$name/merge.sql" >"$T/merge.out" 2>&1; then fail "$name: merge.sql passed"; fi
    grep -q "steadyflake_verification_failed" "$T/merge.out" ||
      fail "$name: not stopped by a check: $(tail -c 400 "$T/merge.out")"
    [[ $(a_sum) == "$before" ]] || fail "$name: A changed"
  done

  # The right B': merged, verified, and every row keeps what it refers to (by uid).
  load_b b
  run merge "$DATA/a.mariadb.sql" "$DATA/b.mariadb.sql" --plan "$T/plan" --out "$T/m"
  expect_rc 0
  # A check that fails after the inserts rolls them back: one expected count made wrong.
  sed 's/) = 560);$/) = 561);/' "$T/m/merge.sql" >"$T/wrong.sql"
  cmp -s "$T/m/merge.sql" "$T/wrong.sql" && fail "sed changed nothing in merge.sql"
  if sql <"$T/wrong.sql" >"$T/merge.out" 2>&1; then fail "the wrong merge.sql passed"; fi
  [[ $(a_sum) == "$before" ]] || fail "a failed check after the inserts left them in A"
  sql <"$T/m/merge.sql" >"$T/merge.out" 2>&1 || fail "merge.sql: $(tail -c 400 "$T/merge.out")"
  sql <"$T/m/verify.sql" >"$T/verify.out" 2>&1 || fail "verify.sql: $(cat "$T/verify.out")"
  [[ ! -s "$T/verify.out" ]] || fail "verify.sql lists failing checks: $(cat "$T/verify.out")"
  sql -N a -e "$snap" | grep -v $'^name\t' | sort >"$T/refs.m"
  sort -m "$T/refs.a" "$T/refs.b" | sort | diff - "$T/refs.m" >"$T/diff" ||
    fail "a reference moved: $(head -5 "$T/diff")"
  # Moved by hand afterwards, one mail: verify.sql says so.
  sql a -e "UPDATE mail SET to_player = to_player + 1 ORDER BY id LIMIT 1"
  sql <"$T/m/verify.sql" >"$T/verify.out" 2>&1
  grep -q "mail.to_player: who refers to what" "$T/verify.out" ||
    fail "verify.sql missed a moved mail: $(cat "$T/verify.out")"
  [[ $(sha256sum "$DATA/a.mariadb.sql" "$DATA/b.mariadb.sql") == "$sums_in" ]] ||
    fail "an input changed"
}

"test_$CASE"
echo "PASS [$CASE]"
