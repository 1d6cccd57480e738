#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Runs the built `steadyflake` binary through the documented exit paths of merge-check and
# resume-point (docs/cli.md, docs/merging.md) on game shards built from data/shards/.
#
#   cli_merge_check_test.sh <path to steadyflake> <case>
#
# As cli_test.sh: one CTest per case (tests/cli/CMakeLists.txt), exit 0 pass, 1 fail, 77
# skipped (no sqlite3 shell); each case in a fresh folder (cli_lib.sh).

# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# --- merge-check --------------------------------------------------------------------------

SHARDS="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../data/shards" && pwd)"

# make_shard NAME a|b [SQL]: $T/NAME, a SQLite database of game shard A or B from
# data/shards/, plus SQL. Skips the case (77) without the sqlite3 shell.
make_shard() {
  command -v sqlite3 >/dev/null || { echo "SKIP: the sqlite3 shell is not installed"; exit 77; }
  cat "$SHARDS/game_schema.sql" "$SHARDS/game_$2.sql" | sqlite3 "$T/$1" || fail "sqlite3 $1"
  if [[ -n "${3:-}" ]]; then sqlite3 "$T/$1" "$3" || fail "sqlite3 $1: $3"; fi
}

# The verdict is the last line of the text report.
expect_verdict() {
  [[ "$(tail -n 1 "$T/out")" == "verdict: $1" ]] ||
    fail "last line is '$(tail -n 1 "$T/out")', expected 'verdict: $1'"
}

# In layout game: tick 4466880100 (2025-06-01T00:00:01Z), server 101, sequence 0: one of
# shard A's item IDs.
A_ITEM=299767249135309824

test_merge_check_safe() {
  make_shard a.db a
  make_shard b.db b
  run merge-check "$T/a.db" "$T/b.db"
  expect_rc 0
  expect_verdict "safe to merge"
  grep -qF "item (id) primary key: A 6, B 6, overlap 0" "$T/out" || fail "no item line"
  grep -qF "server ids in A: 101" "$T/out" || fail "no server ids of A"
  [[ ! -s "$T/err" ]] || fail "stderr is not empty (no progress when it is not a terminal)"
}

test_merge_check_conflict() {
  make_shard a.db a
  make_shard b.db b "INSERT INTO item VALUES($A_ITEM, 1, 'dup'); INSERT INTO player VALUES(5, 'alice', NULL);"
  run merge-check "$T/a.db" "$T/b.db"
  expect_rc 1
  expect_verdict "CONFLICT — 2 values in 2 keys (from 2 tables) overlap: 2 rows differ, 0 identical"
  grep -qF "$A_ITEM  2025-06-01T00:00:01.000Z server=101 seq=0" "$T/out" ||
    fail "the conflicting ID is not decoded"
  grep -qF "'alice'" "$T/out" || fail "the conflicting name is not listed"
}

test_merge_check_risk() {
  make_shard a.db a
  # Server 101 again, 999 ticks later: no overlap yet.
  make_shard b.db b "INSERT INTO item VALUES($(((4466880000 + 999) << 26 | 101 << 10 | 5)), 1, 'later');"
  run merge-check "$T/a.db" "$T/b.db"
  expect_rc 3
  expect_verdict "RISK — server id 101 issues IDs in both shards"
}

# The same shared server id, in item's primary key: --not-id-column item:id leaves it out of
# the analysis (exit 0); the options' bad forms are usage errors.
test_merge_check_id_columns() {
  make_shard a.db a
  make_shard b.db b "INSERT INTO item VALUES($(((4466880000 + 999) << 26 | 101 << 10 | 5)), 1, 'later');"
  run merge-check "$T/a.db" "$T/b.db" --not-id-column item:id
  expect_rc 0
  expect_verdict "safe to merge"
  grep -qxF "not analysed for server ids: item (id): --not-id-column" "$T/out" ||
    fail "the report does not say item (id) was left out"
  run merge-check "$T/a.db" "$T/b.db" --id-column item
  expect_usage_error
  expect_err_has "bad --id-column 'item': not TABLE:COL"
  run merge-check "$T/a.db" "$T/b.db" --id-column player:name
  expect_usage_error
  expect_err_has "player has no integer key of that one column"
}

test_merge_check_json() {
  make_shard a.db a
  make_shard b.db b "INSERT INTO item VALUES($A_ITEM, 1, 'dup'); INSERT INTO account VALUES('zed', X'00ff10', '');"
  run merge-check "$T/a.db" "$T/b.db" --json --limit 1 --table item --table account
  expect_rc 1
  python3 - "$T/out" "$A_ITEM" <<'PY' || fail "--json is not the documented document"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["verdict"] == "conflict", doc["verdict"]
assert [i["format"] for i in doc["inputs"]] == ["sqlite", "sqlite"]
keys = {(k["table"], tuple(k["columns"])): k for k in doc["keys"]}
assert set(keys) == {("item", ("id",)), ("account", ("login",)), ("account", ("token",))}, keys
item = keys[("item", ("id",))]
assert item["kind"] == "primary" and item["overlap"] == 1 and item["rows_b"] == 7
assert item["conflicts"] == [[sys.argv[2]]], item["conflicts"]
assert keys[("account", ("token",))]["conflicts"] == [["x'00ff10'"]]
assert doc["servers"]["shared"] == [101] and doc["servers"]["a"] == [101]
assert doc["legacy"] == {"a": 0, "b": 0} and doc["drift"] == []
PY
  # A SQLite file named .sql is still a SQLite file: inputs are recognised by content.
  cp "$T/a.db" "$T/a.sql"
  run merge-check "$T/a.sql" "$T/b.db" --json
  expect_rc 1
  python3 -c 'import json,sys; json.load(sys.stdin)' <"$T/out" || fail "not JSON"
}

test_merge_check_errors() {
  make_shard a.db a
  make_shard b.db b
  run merge-check "$T/a.db" "$T/missing.db"
  expect_usage_error
  expect_err_has "$T/missing.db: no such file"
  run merge-check "$T/a.db"
  expect_usage_error
  expect_err_has "two inputs"
  printf '\x7fELF\x02\x01\x01\x00\x00\x00' >"$T/binary"
  run merge-check "$T/a.db" "$T/binary"
  expect_usage_error
  expect_err_has "neither a SQLite database nor an SQL dump"
  run merge-check "$T/a.db" "$T/b.db" --key item
  expect_usage_error
  expect_err_has "--key 'item'"
  run merge-check "$T/a.db" "$T/b.db" --key item:nosuch
  expect_usage_error
  expect_err_has "nosuch"
  run merge-check "$T/a.db" "$T/b.db" --table nosuch
  expect_usage_error
  expect_err_has "nosuch"
  run merge-check "$T/a.db" "$T/b.db" --limit many
  expect_usage_error
  expect_err_has "--limit"
  run merge-check "$T/a.db" "$T/b.db" --bogus
  expect_usage_error
  expect_err_has "steadyflake merge-check --help"
  # A damaged database: page 2 onwards overwritten.
  cp "$T/a.db" "$T/bad.db"
  dd if=/dev/urandom of="$T/bad.db" bs=4096 seek=1 count=3 conv=notrunc 2>/dev/null
  run merge-check "$T/a.db" "$T/bad.db"
  expect_usage_error
  expect_err_has "$T/bad.db"
  # The same file twice, by a symlink: nothing to compare.
  ln -s a.db "$T/link.db"
  run merge-check "$T/a.db" "$T/link.db"
  expect_usage_error
  expect_err_has "are the same file"
  # A FIFO: refused at once, not a wait for a writer that never comes.
  mkfifo "$T/pipe.sql"
  run merge-check "$T/a.db" "$T/pipe.sql"
  expect_usage_error
  expect_err_has "is not a regular file"
}

# A live WAL database given through a symlink in another folder: the rows in its log count.
test_merge_check_wal_through_symlink() {
  make_shard a.db a
  mkdir "$T/live"
  make_shard live/b.db b
  sqlite3 "$T/live/b.db" "PRAGMA journal_mode=WAL;" >/dev/null
  ln -s live/b.db "$T/b-link.db"
  # A writer that stays open with its last row in the log only (no checkpoint), as a live
  # server's: the row is one of A's item IDs.
  mkfifo "$T/ready" "$T/hold"
  sqlite3 "$T/live/b.db" "PRAGMA wal_autocheckpoint=0; INSERT INTO item VALUES($A_ITEM, 1, 'dup');" \
    ".shell echo committed > '$T/ready'" ".shell cat '$T/hold'" >/dev/null &
  local writer=$!
  read -r _ <"$T/ready"  # blocks until the writer has committed
  [[ -s "$T/live/b.db-wal" ]] || fail "the writer's row is not in the log"
  run merge-check "$T/a.db" "$T/b-link.db"
  echo >"$T/hold"
  wait "$writer"
  expect_rc 1
  grep -qF "$A_ITEM" "$T/out" || fail "the conflicting ID in the log is not reported"
}

# A writer that reopens its connection and rewrites B (VACUUM) again and again while the check
# runs: every run must say "conflict" (a key both shards hold throughout) or exit 2 with the
# reason; never "safe", never a signal (issue 9.2 saw both). Bounded: 30 runs.
test_merge_check_writer_during_check() {
  local rows="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000)"
  make_shard a.db a "$rows INSERT INTO item SELECT i, 1, 'a' FROM n;"
  make_shard b.db b "$rows INSERT INTO item SELECT 100000 + i, 1, 'b' FROM n;
    INSERT INTO item VALUES($A_ITEM, 1, 'dup');"
  (
    while :; do
      # The file shrinks and grows: half of B's own rows go, then come back.
      sqlite3 "$T/b.db" "DELETE FROM item WHERE id > 100000 AND id <= 115000; VACUUM;" \
        >/dev/null 2>&1 || true
      sqlite3 "$T/b.db" "INSERT OR IGNORE INTO item SELECT 100000 + value, 1, 'b' FROM
        generate_series(1, 15000); VACUUM;" >/dev/null 2>&1 || true
    done
  ) &
  BACKGROUND_PID=$!
  local i conflict=0 refused=0
  for ((i = 0; i < 30; ++i)); do
    run merge-check "$T/a.db" "$T/b.db"
    case "$RC" in
      1) grep -qF "$A_ITEM" "$T/out" || fail "run $i: conflict without the shared ID"
        ((++conflict)) ;;
      2) [[ $(wc -l <"$T/err") -eq 1 ]] || fail "run $i: exit 2 without a one-line reason"
        ((++refused)) ;;
      *) fail "run $i: exit status $RC (0 is a false 'safe'; above 128 a signal)" ;;
    esac
  done
  echo "30 runs under a writer: $conflict conflict, $refused refused (exit 2)"
}

test_merge_check_inputs_untouched() {
  make_shard a.db a
  make_shard b.db b
  sqlite3 "$T/b.db" "PRAGMA journal_mode=WAL;" >/dev/null
  local before after
  before=$(cd "$T" && ls -la --time-style=full-iso a.db* b.db* && sha256sum a.db b.db)
  run merge-check "$T/a.db" "$T/b.db" --json
  expect_rc 0
  # Like any SQLite reader, the check may create a WAL database's -wal (empty) and -shm.
  [[ ! -s "$T/b.db-wal" ]] || fail "b.db-wal is not empty"
  rm -f "$T/b.db-wal" "$T/b.db-shm"
  after=$(cd "$T" && ls -la --time-style=full-iso a.db* b.db* && sha256sum a.db b.db)
  [[ "$before" == "$after" ]] || fail "the inputs' folder changed:"$'\n'"$before"$'\n'"$after"
}

# resume-point: the largest ID of the server id, not max(id). Shard A's IDs are server 101's;
# a merged-in row of server 102, a day later, is max(id). The answer is checked against SQLite
# itself (the server-id field of every integer primary key), and the database is not written.
test_resume_point() {
  make_shard a.db a "INSERT INTO item VALUES($(((4466880000 + 8640000) << 26 | 102 << 10 | 3)), 1, 'merged');
                     CREATE TABLE mail(id BIGINT PRIMARY KEY, body TEXT);
                     INSERT INTO mail VALUES($(((4466880000 + 100000) << 26 | 101 << 10 | 9)), 'x');"
  local want max before
  want=$(sqlite3 "$T/a.db" "SELECT max(id) FROM (SELECT id FROM player UNION ALL SELECT id FROM item
                            UNION ALL SELECT id FROM event UNION ALL SELECT id FROM mail)
                            WHERE (id >> 10) & 65535 = 101")
  max=$(sqlite3 "$T/a.db" "SELECT max(id) FROM item")
  [[ -n "$want" && "$want" != "$max" ]] || fail "the fixture has no ID of 101 below max(id)"
  before=$(sha256sum <"$T/a.db")
  run resume-point "$T/a.db" --server-id 101
  expect_rc 0
  expect_out "$want"
  run resume-point "$T/a.db" --server-id 101 --json
  expect_rc 0
  python3 - "$T/out" "$want" <<'PY' || fail "--json: $(cat "$T/out")"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["id"] == sys.argv[2] and doc["server_id"] == 101, doc
assert doc["table"] == "mail" and doc["column"] == "id", doc
assert doc["time"] == "2025-06-01T00:16:40.000Z" and doc["columns_read"] == 4, doc
PY
  # Server 102's own: the merged-in row. A server id with no ID in the database: 0.
  run resume-point "$T/a.db" --server-id 102
  expect_out "$max"
  run resume-point "$T/a.db" --server-id 7
  expect_rc 0
  expect_out "0"
  [[ "$(sha256sum <"$T/a.db")" == "$before" ]] || fail "resume-point wrote the database"
  # A generator resuming after it starts above it.
  run gen --server-id 101 --no-state --count 1 --resume-after "$want"
  expect_rc 0
  id_less "$want" "$(cat "$T/out")" || fail "gen did not start above the resume point"
  # Errors: one line, exit 2.
  run resume-point "$T/a.db"
  expect_usage_error
  expect_err_has "missing --server-id"
  run resume-point "$T/a.db" "$T/a.db" --server-id 1
  expect_usage_error
  run resume-point "$T/a.db" --server-id 65536
  expect_usage_error
  expect_err_has "--server-id"
  run resume-point "$T/missing.db" --server-id 1
  expect_usage_error
  expect_err_has "missing.db"
  printf 'not a database at all, just text long enough to be read as a header......' >"$T/text.db"
  run resume-point "$T/text.db" --server-id 1
  expect_usage_error
  expect_err_has "text.db"
}

test_merge_check_help() {
  run merge-check --help
  expect_rc 0
  head -n 1 "$T/out" | grep -q '^Usage: steadyflake merge-check' || fail "no usage"
  local option
  for option in --layout --epoch --json --key --table --limit; do
    grep -q -- "$option" "$T/out" || fail "merge-check --help does not list $option"
  done
  run --help
  grep -q "^  merge-check " "$T/out" || fail "--help does not list merge-check"
}

run_case
