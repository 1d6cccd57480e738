#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Runs the built `steadyflake` binary through every documented exit path (docs/cli.md) but
# merge-check's and resume-point's (cli_merge_check_test.sh).
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

# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

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

run_case
