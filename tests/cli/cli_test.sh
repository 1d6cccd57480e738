#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Runs the built `steadyflake` binary through every documented exit path (docs/cli.md).
#
#   cli_test.sh <path to steadyflake> <case>
#
# Each case is a function test_<case> below; tests/cli/CMakeLists.txt registers one CTest per
# case. Exit status: 0 pass, 1 fail (with the reason on stderr), 77 skipped.
#
# Every case runs in a fresh `mktemp -d` folder that the EXIT trap removes, with HOME pointed
# into it and XDG_STATE_HOME / STEADYFLAKE_STATE_DIR unset, so nothing touches the user's
# home. No case uses sleep to synchronise: the lock case waits on a blocking read of a FIFO.
# IDs are compared as decimal strings (length first), never as awk numbers, which are doubles
# and lose the low digits of 64-bit IDs.

set -u -o pipefail

BIN=${1:?usage: cli_test.sh <steadyflake binary> <case>}
CASE=${2:?usage: cli_test.sh <steadyflake binary> <case>}
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

# --- top level ----------------------------------------------------------------------------

test_version() {
  run --version
  expect_rc 0
  expect_out "steadyflake 0.1.0"
}

test_help() {
  local args
  for args in "--help" "-h" "layout --help" "gen --help" "decode --help" "gen -h"; do
    # shellcheck disable=SC2086  # split on purpose
    run $args
    expect_rc 0
    head -n 1 "$T/out" | grep -q '^Usage: steadyflake' || fail "'$args' printed no usage"
    [[ ! -s "$T/err" ]] || fail "'$args' wrote on stderr"
  done
  run --help
  local cmd
  for cmd in layout gen decode; do
    grep -q "^  $cmd " "$T/out" || fail "--help does not list $cmd"
  done
  run gen --help
  grep -q -- '--server-id' "$T/out" || fail "gen --help does not list --server-id"
}

test_no_command() {
  run
  expect_usage_error
  expect_err_has "missing command"
}

test_unknown_command() {
  run frobnicate
  expect_usage_error
  expect_err_has "unknown command 'frobnicate'"
}

test_unknown_option() {
  run --bogus
  expect_usage_error
  expect_err_has "--bogus"
  local cmd
  for cmd in layout gen decode; do
    run "$cmd" --bogus
    expect_usage_error
    expect_err_has "--bogus"
    expect_err_has "steadyflake $cmd --help"
  done
  run layout --layout
  expect_usage_error
  run layout stray
  expect_usage_error
}

# --- layout -------------------------------------------------------------------------------

test_layout_json_game() {
  local want='{"time_bits":37,"server_bits":16,"sequence_bits":10,"tick_ms":10,"epoch":"2024-01-01T00:00:00Z","end":"2067-07-21T06:52:14.720Z","max_server_id":65535,"ids_per_second":102400}'
  run layout --json
  expect_rc 0
  expect_out "$want"
  # The end is epoch + 2^37 ticks of 10 ms: 1704067200000 + 1374389534720 ms.
  [[ $((1704067200000 + (1 << 37) * 10)) -eq 3078456734720 ]] || fail "arithmetic"
  run layout --layout game --json
  expect_out "$want"
  # A custom spec with game's figures gets game's epoch.
  run layout --layout 37/16/10@10ms --json
  expect_out "$want"
}

test_layout_json_snowflake() {
  run layout --layout snowflake --json
  expect_rc 0
  # Twitter's epoch is 1288834974657 ms, not a whole second: printed with its milliseconds.
  expect_out '{"time_bits":41,"server_bits":10,"sequence_bits":12,"tick_ms":1,"epoch":"2010-11-04T01:42:54.657Z","end":"2080-07-10T17:30:30.209Z","max_server_id":1023,"ids_per_second":4096000}'
}

test_layout_table() {
  run layout
  expect_rc 0
  local line
  for line in "37/16/10@10ms" "time 37 + server 16 + sequence 10 = 63 of 63" "10 ms" \
      "2024-01-01T00:00:00Z" "2067-07-21T06:52:14.720Z" "43.55 years" "65,535" "102,400"; do
    grep -qF -- "$line" "$T/out" || fail "layout table lacks '$line'"
  done
}

test_layout_epoch() {
  run layout --epoch 2030-01-01 --json
  expect_rc 0
  grep -qF '"epoch":"2030-01-01T00:00:00Z"' "$T/out" || fail "--epoch not applied"
  run layout --epoch 2030-01-01T00:00:00Z --json
  grep -qF '"epoch":"2030-01-01T00:00:00Z"' "$T/out" || fail "--epoch ISO not applied"
  run layout --epoch 1893456000000 --json
  grep -qF '"epoch":"2030-01-01T00:00:00Z"' "$T/out" || fail "--epoch in ms not applied"
}

test_layout_bad() {
  run layout --layout 37/20/16@1ms
  expect_usage_error
  expect_err_has "73 bits"
  run layout --layout nonsense
  expect_usage_error
  expect_err_has "nonsense"
  run layout --layout 0/16/10@10ms
  expect_usage_error
  run gen --server-id 1 --layout 37/20/16@1ms --state-dir "$T/state"
  expect_usage_error
  expect_err_has "73 bits"
}

test_layout_bad_epoch() {
  run layout --epoch yesterday
  expect_usage_error
  expect_err_has "yesterday"
  # 9990 + 43.5 years runs past the year 9999.
  run layout --epoch 9990-01-01
  expect_usage_error
}

# --- gen ----------------------------------------------------------------------------------

test_gen_missing_server_id() {
  run gen --state-dir "$T/state"
  expect_usage_error
  expect_err_has "missing --server-id"
}

test_gen_server_id_out_of_range() {
  run gen --server-id 65536 --state-dir "$T/state"
  expect_usage_error
  expect_err_has "65536"
  expect_err_has "[0, 65535]"
  run gen --server-id 1024 --layout snowflake --state-dir "$T/state"
  expect_usage_error
  expect_err_has "[0, 1023]"
  run gen --server-id -1 --state-dir "$T/state"
  expect_usage_error
  expect_err_has "[0, 65535]"
  run gen --server-id seven --state-dir "$T/state"
  expect_usage_error
  expect_err_has "seven"
}

test_gen_bad_count() {
  local count
  for count in 0 -3 many 99999999999999999999; do
    run gen --server-id 1 --count "$count" --state-dir "$T/state"
    expect_usage_error
    expect_err_has "--count"
  done
  run gen --server-id 1 --max-lead-ms soon --state-dir "$T/state"
  expect_usage_error
  expect_err_has "--max-lead-ms"
  # The engine's ceiling, passed through: its message names the range.
  run gen --server-id 1 --max-lead-ms 86400001 --state-dir "$T/state"
  expect_usage_error
  expect_err_has "[0, 86400000]"
  run gen --server-id 1 --no-state --state-dir "$T/state"
  expect_usage_error
}

test_gen_count() {
  run gen --server-id 42 --state-dir "$T/state"
  expect_rc 0
  [[ $(wc -l <"$T/out") -eq 1 ]] || fail "default --count is not 1"
  run gen --server-id 42 --count 5000 --max-lead-ms 0 --state-dir "$T/state"
  expect_rc 0
  [[ $(wc -l <"$T/out") -eq 5000 ]] || fail "--count 5000 printed $(wc -l <"$T/out") lines"
  check_increasing "$T/out"
  [[ ! -s "$T/err" ]] || fail "gen wrote on stderr"
}

# Issue 9.9: the corrupt-state message names resume_after, so gen offers it.
test_gen_resume_after() {
  run gen --server-id 5 --no-state
  expect_rc 0
  # An ID of server 5 ten seconds (1,000 game ticks) ahead: tick bits start at bit 26.
  local ahead=$(($(cat "$T/out") + (1000 << 26)))
  run gen --server-id 5 --count 3 --no-state --resume-after "$ahead"
  expect_rc 0
  awk -v a="$ahead" '$1 <= a { print "ID " $1 " is not after " a; exit 1 }' "$T/out" >&2 ||
    fail "gen --resume-after issued an ID at or below it"
  run gen --server-id 5 --no-state --resume-after soon
  expect_usage_error
  expect_err_has "--resume-after"
}

test_gen_no_state_warns() {
  run gen --server-id 3 --count 2 --no-state
  expect_rc 0
  [[ $(wc -l <"$T/out") -eq 2 ]] || fail "no IDs"
  [[ $(wc -l <"$T/err") -eq 1 ]] || fail "expected one warning line"
  expect_err_has "may repeat"
  [[ ! -e "$HOME" ]] || fail "--no-state wrote into HOME"
}

test_gen_default_state_dir() {
  STEADYFLAKE_STATE_DIR="$T/env" XDG_STATE_HOME="$T/xdg" run gen --server-id 9
  expect_rc 0
  [[ -f "$T/env/server-9.state" ]] || fail "\$STEADYFLAKE_STATE_DIR not used"
  XDG_STATE_HOME="$T/xdg" run gen --server-id 9
  expect_rc 0
  [[ -f "$T/xdg/steadyflake/server-9.state" ]] || fail "\$XDG_STATE_HOME/steadyflake not used"
  run gen --server-id 9
  expect_rc 0
  [[ -f "$HOME/.local/state/steadyflake/server-9.state" ]] ||
    fail "\$HOME/.local/state/steadyflake not used"
  STEADYFLAKE_STATE_DIR="$T/env" run gen --server-id 9 --state-dir "$T/explicit"
  expect_rc 0
  [[ -f "$T/explicit/server-9.state" ]] || fail "--state-dir does not win"
  (unset HOME && "$BIN" gen --server-id 9 >"$T/out" 2>"$T/err")
  RC=$?
  expect_usage_error
  expect_err_has "--state-dir"
}

test_gen_decode_300k() {
  local start end
  start=$(date +%s%N)
  "$BIN" gen --server-id 7 --count 300000 --state-dir "$T/state" >"$T/ids" 2>"$T/err" ||
    fail "gen failed"
  end=$(date +%s%N)
  local ms=$(((end - start) / 1000000))
  echo "gen --count 300000: ${ms} ms"
  # Layout game issues 102,400 IDs/s sustained after 2 s of borrowing: about 1 s here.
  [[ $ms -lt 10000 ]] || fail "300,000 IDs took ${ms} ms"
  [[ $(wc -l <"$T/ids") -eq 300000 ]] || fail "not 300000 lines"
  check_increasing "$T/ids"

  "$BIN" decode --json <"$T/ids" >"$T/json" 2>"$T/err" || fail "decode failed"
  awk -F'"' '
    function gt(a, b) { return length(a) > length(b) || (length(a) == length(b) && a "" > b "") }
    !/^\{"id":"[0-9]+","time":"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9][0-9][0-9]Z","server_id":7,"sequence":[0-9]+\}$/ {
      print "line " NR " is not decode --json of server 7: " $0; exit 1
    }
    NR > 1 && !gt($4, prev) { print "line " NR ": id " $4 " is not above " prev; exit 1 }
    { prev = $4; if (!seen[$4]++) distinct++ }
    END { if (NR != 300000 || distinct != 300000) { print NR " lines, " distinct " distinct"; exit 1 } }
  ' "$T/json" >&2 || fail "decode --json of 300000 IDs"
  # A pipe hands decode short reads, so tokens are cut at other places than in a file.
  "$BIN" gen --server-id 7 --count 300000 --state-dir "$T/state" | "$BIN" decode >"$T/plain" ||
    fail "gen | decode failed"
  [[ $(wc -l <"$T/plain") -eq 300000 ]] || fail "gen | decode: not 300000 lines"
  awk '$3 != "server=7" { print "line " NR ": " $0; exit 1 }' "$T/plain" >&2 ||
    fail "gen | decode: wrong server"
}

test_gen_restart_state() {
  "$BIN" gen --server-id 11 --count 1000 --state-dir "$T/state" >"$T/run1" || fail "run 1"
  "$BIN" gen --server-id 11 --count 1000 --state-dir "$T/state" >"$T/run2" || fail "run 2"
  check_increasing "$T/run1"
  check_increasing "$T/run2"
  id_less "$(tail -n 1 "$T/run1")" "$(head -n 1 "$T/run2")" ||
    fail "run 2 starts at $(head -n 1 "$T/run2"), not above run 1's $(tail -n 1 "$T/run1")"
}

test_gen_restart_clock_back() {
  command -v faketime >/dev/null || { echo "SKIP: faketime is not installed"; exit 77; }
  # The wall clock only: a clock set back leaves the monotonic clock alone.
  export FAKETIME_DONT_FAKE_MONOTONIC=1
  local real faked
  real=$(date +%s)
  faked=$(faketime -f '-1h' date +%s) || { echo "SKIP: faketime does not run"; exit 77; }
  ((real - faked > 3000)) || { echo "SKIP: faketime does not move the clock"; exit 77; }

  "$BIN" gen --server-id 12 --count 1000 --state-dir "$T/state" >"$T/run1" || fail "run 1"
  # Without the state file the rolled-back run would issue smaller IDs: the test has teeth.
  faketime -f '-1h' "$BIN" gen --server-id 12 --no-state >"$T/nostate" 2>/dev/null ||
    fail "faked --no-state run"
  id_less "$(cat "$T/nostate")" "$(head -n 1 "$T/run1")" ||
    fail "faketime did not set the generator's clock back"

  faketime -f '-1h' "$BIN" gen --server-id 12 --count 1000 --state-dir "$T/state" \
    >"$T/run2" 2>"$T/err" || fail "run 2 with the clock set back an hour"
  check_increasing "$T/run2"
  id_less "$(tail -n 1 "$T/run1")" "$(head -n 1 "$T/run2")" ||
    fail "after the clock went back, run 2 starts at $(head -n 1 "$T/run2"), not above $(tail -n 1 "$T/run1")"
}

test_gen_lock_held() {
  mkfifo "$T/fifo" || fail "mkfifo"
  # The first gen would run for hours; it blocks on the full FIFO once we stop reading,
  # holding the state-folder lock until it is killed.
  "$BIN" gen --server-id 13 --count 1000000000 --state-dir "$T/state" >"$T/fifo" 2>"$T/err1" &
  BACKGROUND_PID=$!
  exec 3<"$T/fifo"
  local first
  # Blocks until the first gen has printed, so it has its lock; EOF if it failed.
  IFS= read -r first <&3 || fail "the first gen printed nothing: $(cat "$T/err1")"
  [[ "$first" =~ ^[0-9]+$ ]] || fail "first line '$first' is no ID"

  timeout 60 "$BIN" gen --server-id 13 --state-dir "$T/state" >"$T/out" 2>"$T/err"
  RC=$?
  expect_usage_error
  expect_err_has "pid $BACKGROUND_PID"

  kill "$BACKGROUND_PID"
  wait "$BACKGROUND_PID" 2>/dev/null
  BACKGROUND_PID=""
  exec 3<&-
  # The lock went with the process.
  run gen --server-id 13 --state-dir "$T/state"
  expect_rc 0
}

test_gen_state_file_problems() {
  mkdir -p "$T/state"
  "$BIN" gen --server-id 14 --state-dir "$T/state" >/dev/null || fail "first run"
  # Written for another layout: refused, never replaced.
  run gen --server-id 14 --layout snowflake --state-dir "$T/state"
  expect_usage_error
  expect_err_has "layout"
  # Corrupt.
  echo "garbage" >"$T/state/server-14.state"
  run gen --server-id 14 --state-dir "$T/state"
  expect_usage_error
  expect_err_has "server-14.state"
  [[ $(cat "$T/state/server-14.state") == garbage ]] || fail "corrupt state file was replaced"
  # The state folder is a file.
  touch "$T/notadir"
  run gen --server-id 14 --state-dir "$T/notadir"
  expect_usage_error
  expect_err_has "notadir"
}

test_gen_broken_pipe() {
  "$BIN" gen --server-id 15 --count 100000000 --state-dir "$T/state" 2>"$T/err" | head -n 1 >"$T/out"
  local statuses=("${PIPESTATUS[@]}")
  [[ ${statuses[0]} -eq 141 ]] || fail "gen | head: gen exited ${statuses[0]}, expected 141"
  [[ ! -s "$T/err" ]] || fail "gen | head wrote on stderr"
  grep -qE '^[0-9]+$' "$T/out" || fail "no ID through head"
}

# --- decode -------------------------------------------------------------------------------

# In layout game, tick 100 (1 s after 2024-01-01), server 7, sequence 3:
# 100 << 26 | 7 << 10 | 3 = 6710893571.
test_decode_plain() {
  [[ $((100 << 26 | 7 << 10 | 3)) -eq 6710893571 ]] || fail "arithmetic"
  run decode 6710893571 0
  expect_rc 0
  expect_out "6710893571 2024-01-01T00:00:01.000Z server=7 seq=3
0 2024-01-01T00:00:00.000Z server=0 seq=0"
  run decode 9223372036854775807
  expect_out "9223372036854775807 2067-07-21T06:52:14.710Z server=65535 seq=1023"
  # snowflake: tick 1000 (1 s after Twitter's epoch), server 5, sequence 9.
  run decode --layout snowflake $((1000 << 22 | 5 << 12 | 9))
  expect_out "4194324489 2010-11-04T01:42:55.657Z server=5 seq=9"
  run decode --epoch 2030-01-01 6710893571
  expect_out "6710893571 2030-01-01T00:00:01.000Z server=7 seq=3"
}

test_decode_json() {
  run decode --json 6710893571
  expect_rc 0
  expect_out '{"id":"6710893571","time":"2024-01-01T00:00:01.000Z","server_id":7,"sequence":3}'
}

test_decode_stdin() {
  printf '  6710893571\t0\r\n\n 6710893571   ' | "$BIN" decode >"$T/out" 2>"$T/err"
  RC=$?
  expect_rc 0
  expect_out "6710893571 2024-01-01T00:00:01.000Z server=7 seq=3
0 2024-01-01T00:00:00.000Z server=0 seq=0
6710893571 2024-01-01T00:00:01.000Z server=7 seq=3"
  "$BIN" decode </dev/null >"$T/out" 2>"$T/err"
  RC=$?
  expect_rc 0
  [[ ! -s "$T/out" ]] || fail "empty input gave output"
  # Several MiB, read in 1 MiB chunks from a file and in short reads from a pipe: the same.
  awk 'BEGIN { for (i = 0; i < 400000; i++) printf "%d%s", i * 977, (i % 7 ? " " : "\n") }' \
    >"$T/many"
  "$BIN" decode <"$T/many" >"$T/from_file" || fail "decode < file"
  # shellcheck disable=SC2002  # the pipe is the point
  cat "$T/many" | "$BIN" decode >"$T/from_pipe" || fail "cat | decode"
  [[ $(wc -l <"$T/from_file") -eq 400000 ]] || fail "decode < file: not 400000 lines"
  cmp -s "$T/from_file" "$T/from_pipe" || fail "file and pipe input decode differently"
  awk '{ if ($1 != (NR - 1) * 977) { print "line " NR ": " $0; exit 1 } }' "$T/from_file" >&2 ||
    fail "tokens split at chunk boundaries"
}

test_decode_bad_id() {
  local bad
  for bad in abc 12x -5 9223372036854775808 +5 1.5; do
    run decode "$bad"
    expect_usage_error
    expect_err_has "'$bad'"
  done
  run decode -- -5
  expect_usage_error
  expect_err_has "negative"
  # Too large for a 20-bit layout.
  run decode --layout 10/5/5@1ms 1048576
  expect_usage_error
  expect_err_has "1048576"
  run decode --layout 10/5/5@1ms 1048575
  expect_rc 0
  # From stdin: the IDs before the bad token are printed, then the error names it.
  printf '0 1 oops 3\n' | "$BIN" decode >"$T/out" 2>"$T/err"
  RC=$?
  expect_rc 2
  [[ $(wc -l <"$T/out") -eq 2 ]] || fail "the IDs before the bad token were not printed"
  expect_err_has "'oops'"
  expect_err_has "#3"
}

test_decode_broken_pipe() {
  awk 'BEGIN { for (i = 0; i < 2000000; i++) print i }' |
    "$BIN" decode 2>"$T/err" | head -n 1 >"$T/out"
  local statuses=("${PIPESTATUS[@]}")
  [[ ${statuses[1]} -eq 141 ]] || fail "decode | head: decode exited ${statuses[1]}, expected 141"
  [[ ! -s "$T/err" ]] || fail "decode | head wrote on stderr"
}

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

declare -F "test_$CASE" >/dev/null || { echo "no such case: $CASE" >&2; exit 1; }
"test_$CASE"
echo "PASS [$CASE]"
