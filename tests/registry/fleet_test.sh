#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Fleets on a real etcd (issue 10, docs/fleet.md): server-id claims, the reservation fence, and
# the host guard, through the built `steadyflake` binary.
#
#   fleet_test.sh <path to steadyflake> <case>
#
# The secured etcd (TLS, auth) and the game server: fleet_secured_test.sh.
#
# Exit status: 0 pass, 1 fail (with the reason on stderr), 77 skipped (etcd or faketime is not
# installed; the message names the Debian package). Each case runs in a fresh `mktemp -d`
# folder that the EXIT trap removes, with its own etcd (Debian etcd-server) listening on
# free 127.0.0.1 ports (fleet_lib.sh, free_port), its data in that folder; the trap stops it.

# shellcheck source=tests/registry/fleet_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/fleet_lib.sh"

# --- cases --------------------------------------------------------------------------------

# Two processes race for one id, 50 times: exactly one wins each time, and the loser names the
# winner's pid before printing any ID.
test_race() {
  start_etcd
  local round first rc a b winner loser line
  for ((round = 1; round <= 50; round++)); do
    # Each writes to a FIFO that is read once: the winner blocks on it and keeps the id while
    # the loser claims; only the loser exits. (If both won, neither would exit: CTest's
    # timeout then fails the case.)
    mkfifo "$T/a.$round" "$T/b.$round" || fail "mkfifo"
    "$BIN" gen --registry "$ETCD" --server-id "$round" --count 1000000000 \
      >"$T/a.$round" 2>"$T/a.err" &
    a=$!
    "$BIN" gen --registry "$ETCD" --server-id "$round" --count 1000000000 \
      >"$T/b.$round" 2>"$T/b.err" &
    b=$!
    PIDS+=("$a" "$b")
    exec {fa}<"$T/a.$round" {fb}<"$T/b.$round"
    wait -n -p first "$a" "$b"
    rc=$?
    ((rc == 2)) || fail "round $round: the first to exit exited $rc, expected 2 (lost the race)"
    if ((first == a)); then winner=$b loser=a; else winner=$a loser=b; fi
    kill -0 "$winner" 2>/dev/null || fail "round $round: the winner exited too"
    grep -qF "server id $round is held by host $(hostname) pid $winner since" "$T/$loser.err" ||
      fail "round $round: the loser did not name the winner (pid $winner): $(cat "$T/$loser.err")"
    local winner_fd=$fa loser_fd=$fb
    [[ $loser == a ]] && { winner_fd=$fb loser_fd=$fa; }
    IFS= read -r line <&"$winner_fd" && [[ "$line" =~ ^[0-9]+$ ]] ||
      fail "round $round: the winner printed no ID"
    ! IFS= read -r line <&"$loser_fd" || fail "round $round: the loser printed '$line'"
    kill "$winner"
    wait "$winner" 2>/dev/null
    exec {fa}<&- {fb}<&-
  done
}

# auto takes the lowest free id; list shows the holder, its reservation and lease.
test_auto_and_list() {
  start_etcd
  hold 101 first
  local first_pid=$HOLDER_PID
  run gen --registry "$ETCD" --server-id auto --server-range 101-103 --count 3
  expect_rc 0
  expect_err_has "claimed server id 102"
  local id
  id=$("$BIN" decode --json "$(head -n 1 "$T/out")" | python3 -c 'import json,sys; print(json.load(sys.stdin)["server_id"])')
  [[ "$id" == 102 ]] || fail "auto's IDs carry server id $id, not 102"

  run registry list --registry "$ETCD" --json
  expect_rc 0
  python3 - "$T/out" "$first_pid" <<'EOF' || fail "registry list --json: $(cat "$T/out")"
import json, sys
rows = {r["server_id"]: r for r in json.load(open(sys.argv[1]))}
first = rows[101]
assert first["lease"] == "alive", first
assert first["holder"]["pid"] == int(sys.argv[2]), first
assert first["reserved_until"].endswith("Z"), first
assert rows[102]["holder"] is None and rows[102]["lease"] == "none", rows[102]
EOF
  run registry list --registry "$ETCD"
  expect_rc 0
  grep -qE "^101 +$(hostname) pid $first_pid since .* alive$" "$T/out" ||
    fail "registry list lacks server 101: $(cat "$T/out")"

  # Every id of the range held: refused, naming the range.
  hold 102 second
  hold 103 third
  run gen --registry "$ETCD" --server-id auto --server-range 101-103
  expect_rc 2
  expect_err_has "no free server id in 101-103"
}

# A restart on another "host" (no local state at all) with its wall clock an hour back issues
# only IDs above everything issued before: the reservation on etcd is the fence.
test_restart_clock_back() {
  need faketime faketime
  export FAKETIME_DONT_FAKE_MONOTONIC=1
  start_etcd
  "$BIN" gen --registry "$ETCD" --server-id 7 --count 5000 >"$T/run1" 2>"$T/err" || fail "run 1"
  # Without etcd the rolled-back run issues smaller IDs: the test has teeth.
  faketime -f '-1h' "$BIN" gen --server-id 7 --no-state >"$T/nostate" 2>/dev/null ||
    fail "faked run without etcd"
  id_less "$(cat "$T/nostate")" "$(head -n 1 "$T/run1")" ||
    fail "faketime did not set the clock back"
  HOME="$T/other-host" faketime -f '-1h' "$BIN" gen --registry "$ETCD" --server-id 7 \
    --count 5000 >"$T/run2" 2>"$T/err" || fail "run 2 with the clock an hour back"
  id_less "$(tail -n 1 "$T/run1")" "$(head -n 1 "$T/run2")" ||
    fail "run 2 starts at $(head -n 1 "$T/run2"), not above run 1's $(tail -n 1 "$T/run1")"
  no_duplicates "$T/run1" "$T/run2"
}

# The holder is paused longer than its lease; a new holder (wall clock 30 s back) starts; the
# old one resumes. No ID is issued twice, and the old one stops with an error instead of IDs.
test_paused_holder() {
  need faketime faketime
  export FAKETIME_DONT_FAKE_MONOTONIC=1
  start_etcd
  "$BIN" gen --registry "$ETCD" --server-id 9 --count 100000000 --lease-ttl-ms 2000 \
    >"$T/old" 2>"$T/old.err" &
  local old=$!
  PIDS+=("$old")
  # Polls until it has issued (its first chunk is written).
  local i=0
  while [[ ! -s "$T/old" ]] && ((i++ < 500)); do kill -0 "$old" || break; sleep 0.02; done
  [[ -s "$T/old" ]] || fail "the old holder issued nothing: $(cat "$T/old.err")"
  kill -STOP "$old"
  # Its lease (2 s) runs out while it is stopped; the new claim polls until etcd let it go.
  local rc=2
  for ((i = 0; i < 100 && rc != 0; i++)); do
    HOME="$T/new-host" faketime -f '-30s' "$BIN" gen --registry "$ETCD" --server-id 9 \
      --count 20000 >"$T/new" 2>"$T/err"
    rc=$?
    ((rc == 0)) || grep -qF "is held by" "$T/err" || fail "new holder: exit $rc"
    ((rc == 0)) || sleep 0.1  # polling until etcd expires the old lease
  done
  ((rc == 0)) || fail "the new holder never got server id 9"
  kill -CONT "$old"
  wait "$old"
  rc=$?
  ((rc == 2)) || fail "the old holder exited $rc, expected 2 once it could not extend"
  grep -qF "server id 9 is lost" "$T/old.err" || fail "the old holder did not say it lost the id: $(cat "$T/old.err")"
  no_duplicates "$T/old" "$T/new"
  # The new holder started past everything the old one could issue.
  local old_max
  old_max=$(sort "$T/old" | awk '{ if (length($0) > length(m) || (length($0) == length(m) && $0 > m)) m = $0 } END { print m }')
  id_less "$old_max" "$(head -n 1 "$T/new")" || fail "new IDs start below the old holder's"
}

# etcd is killed (SIGKILL) for 5 s while a holder issues IDs as fast as the layout allows, then
# restarted on the same data. The holder issues up to its reservation, waits, and resumes when
# etcd is back: it finishes, no ID twice, and the longest gap in its IDs' times is bounded by
# the outage (and is there at all: the outage did stall it).
test_outage() {
  need python3 python3
  start_etcd
  # 1.2M IDs of `game` (102,400 a second) take about 12 s: the outage falls in the middle.
  "$BIN" gen --registry "$ETCD" --server-id 11 --count 1200000 >"$T/ids" 2>"$T/gen.err" &
  local gen=$!
  PIDS+=("$gen")
  local i=0
  while [[ ! -s "$T/ids" ]] && ((i++ < 500)); do kill -0 "$gen" || break; sleep 0.02; done
  [[ -s "$T/ids" ]] || fail "the holder issued nothing: $(cat "$T/gen.err")"
  sleep 1  # the scenario: a second of issuing with etcd up
  stop_etcd
  local stopped=$SECONDS
  sleep 5  # the scenario: a 5 s outage
  kill -0 "$gen" 2>/dev/null || fail "the holder ended during the outage: $(cat "$T/gen.err")"
  start_etcd
  wait "$gen"
  local rc=$?
  ((rc == 0)) || fail "the holder exited $rc after the outage: $(cat "$T/gen.err")"
  echo "holder finished $((SECONDS - stopped)) s after etcd was killed" >&2
  [[ $(wc -l <"$T/ids") == 1200000 ]] || fail "the holder printed $(wc -l <"$T/ids") IDs, not 1200000"
  no_duplicates "$T/ids"
  # The IDs' ticks (game: id >> 26, 10 ms each): the longest gap between consecutive IDs.
  python3 - "$T/ids" <<'PY' || fail "the stall is not bounded by the outage"
import sys
ticks = [int(line) >> 26 for line in open(sys.argv[1])]
gap_ms = max(b - a for a, b in zip(ticks, ticks[1:])) * 10
print(f"longest gap between consecutive IDs: {gap_ms} ms", file=sys.stderr)
# Teeth: a 5 s outage longer than the 3 s reservation stalls issuing. Bound: the outage, plus
# etcd's restart and one 2 s call timeout.
assert 500 <= gap_ms <= 5000 + 3000, gap_ms
assert all(a <= b for a, b in zip(ticks, ticks[1:])), "IDs not increasing"
PY
}

# A three-member cluster, every member's URL given, the first one's member killed (SIGKILL)
# while a holder issues: the client fails over to the others and the holder finishes with no ID
# twice; a claim that lists the dead member first still succeeds.
test_cluster() {
  need etcd etcd-server
  need python3 python3
  local i urls=() peers=() cluster="" pids=() ok healthy attempt n
  # free_port's port may be taken by another test before etcd binds it: a member that exits at
  # start is retried with new ports (three times), never waited for.
  for attempt in 1 2 3; do
    cluster=""
    for i in 1 2 3; do
      urls[i]="http://127.0.0.1:$(free_port)"
      peers[i]="http://127.0.0.1:$(free_port)"
      cluster+="${cluster:+,}m$i=${peers[i]}"
    done
    for i in 1 2 3; do
      rm -rf "$T/etcd$i"
      etcd --name "m$i" --data-dir "$T/etcd$i" --listen-client-urls "${urls[i]}" \
        --advertise-client-urls "${urls[i]}" --listen-peer-urls "${peers[i]}" \
        --initial-advertise-peer-urls "${peers[i]}" --initial-cluster "$cluster" \
        --initial-cluster-state new --log-level error --logger zap >>"$T/etcd.log" 2>&1 &
      pids[i]=$!
      PIDS+=("${pids[i]}")
    done
    healthy=1
    for i in 1 2 3; do
      ok=0
      for ((n = 0; n < 300 && !ok; n++)); do
        curl -fsS --max-time 1 "${urls[i]}/health" 2>/dev/null | grep -q '"health":"true"' && ok=1
        ((ok)) && break
        kill -0 "${pids[i]}" 2>/dev/null || break
        curl -s --retry 1 --retry-connrefused --max-time 0.1 "${urls[i]}/health" >/dev/null 2>&1
      done
      ((ok)) || { healthy=0; break; }
    done
    ((healthy)) && break
    for i in 1 2 3; do kill -9 "${pids[i]}" 2>/dev/null; wait "${pids[i]}" 2>/dev/null; done
  done
  ((healthy)) || fail "the 3-member cluster did not become healthy: $(tail -3 "$T/etcd.log")"
  local all="${urls[1]},${urls[2]},${urls[3]}"
  # 600,000 IDs of `game` take about 6 s.
  "$BIN" gen --registry "$all" --server-id 41 --count 600000 >"$T/ids" 2>"$T/gen.err" &
  local gen=$!
  PIDS+=("$gen")
  i=0
  while [[ ! -s "$T/ids" ]] && ((i++ < 500)); do kill -0 "$gen" || break; sleep 0.02; done
  [[ -s "$T/ids" ]] || fail "the holder issued nothing: $(cat "$T/gen.err")"
  kill -9 "${pids[1]}"
  wait "${pids[1]}" 2>/dev/null
  wait "$gen" || fail "the holder exited $? after member m1 died: $(cat "$T/gen.err")"
  [[ $(wc -l <"$T/ids") == 600000 ]] || fail "the holder printed $(wc -l <"$T/ids") IDs, not 600000"
  no_duplicates "$T/ids"
  run gen --registry "$all" --server-id 42 --count 3
  expect_rc 0
  [[ $(wc -l <"$T/out") == 3 ]] || fail "a claim listing the dead member first printed no IDs"
  run registry list --registry "$all"
  expect_rc 0
  grep -qE "^41 " "$T/out" || fail "registry list through the live members lacks server 41"
}

# Bad input and an unreachable etcd: a one-line error, exit 2, no ID.
test_errors() {
  need python3 python3
  local port
  port=$(free_port)  # nothing listens there
  run gen --registry "http://127.0.0.1:$port" --server-id 5
  expect_rc 2
  expect_err_has "127.0.0.1:$port"
  [[ ! -s "$T/out" ]] || fail "printed IDs without etcd"
  run gen --registry "127.0.0.1:$port" --server-id 5
  expect_rc 2
  expect_err_has "has no scheme"
  run gen --server-id auto
  expect_rc 2
  expect_err_has "--server-id auto needs --registry"
  run gen --server-id 5 --server-range 1-9
  expect_rc 2
  expect_err_has "--server-range needs --registry"
  run gen --registry "http://127.0.0.1:$port" --server-id 5 --state-dir "$T/s"
  expect_rc 2
  expect_err_has "contradict"
  run gen --registry "http://127.0.0.1:$port" --server-id 5 --lease-ttl-ms 500
  expect_rc 2
  expect_err_has "lease TTL 500 ms"
  run gen --registry "http://127.0.0.1:$port" --server-id 5 --registry-prefix nope/
  expect_rc 2
  expect_err_has "registry prefix 'nope/'"
  run registry list
  expect_rc 2
  expect_err_has "missing --registry"
}

# Without etcd, one host: gen with its state under the user's home and gen with another state
# folder, one server id: the second is refused at start, naming the first (the host guard).
test_host_guard() {
  mkfifo "$T/fifo" || fail "mkfifo"
  "$BIN" gen --server-id 7 --count 1000000000 >"$T/fifo" 2>"$T/err1" &
  local first=$!
  PIDS+=("$first")
  exec 3<"$T/fifo"
  local line
  IFS= read -r line <&3 || fail "the first gen printed nothing: $(cat "$T/err1")"
  run gen --server-id 7 --state-dir "$T/elsewhere"
  expect_rc 2
  expect_err_has "in use on this host by pid $first"
  [[ ! -s "$T/out" ]] || fail "the second gen printed IDs"
  run gen --server-id 7 --no-state
  expect_rc 2
  expect_err_has "in use on this host by pid $first"
  # Another namespace is another host to the guard.
  STEADYFLAKE_HOST_GUARD_NAMESPACE="$STEADYFLAKE_HOST_GUARD_NAMESPACE-other" \
    run gen --server-id 7 --no-state
  expect_rc 0
}

# hold_port: a listener on a free port (free_port) until the case ends; HELD_PORT is its port.
hold_port() {
  need python3 python3
  mkfifo "$T/held.fifo" || fail "mkfifo"
  python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(600)' "$(free_port)" >"$T/held.fifo" &
  PIDS+=("$!")
  IFS= read -r HELD_PORT <"$T/held.fifo" || true
  [[ "$HELD_PORT" =~ ^[0-9]+$ ]] || fail "no listener to hold a port"
}

# start_etcd's first pick is a port a listener holds (as when another test took it between the
# pick and etcd's bind): etcd starts on the next ports and serves; with every pick held, the
# start fails after three tries, naming why.
test_port_taken() {
  need etcd etcd-server
  hold_port
  free_port() {  # the held port first (a file: called in a subshell), then free ones
    [[ -e "$T/given" ]] && { local_free_port; return; }
    touch "$T/given"
    echo "$HELD_PORT"
  }
  start_etcd
  [[ $(grep -c "address already in use" "$T/etcd.log") == 1 ]] ||
    fail "etcd did not fail once on the held port first"
  [[ "$CLIENT_PORT" != "$HELD_PORT" ]] || fail "etcd serves on the held port"
  run gen --registry "$ETCD" --server-id 5 --count 3
  expect_rc 0
  stop_etcd
  free_port() { echo "$HELD_PORT"; }
  local rc
  (CLIENT_PORT="" && rm -rf "$T/etcd" && start_etcd) 2>"$T/start.err"
  rc=$?
  [[ $rc == 1 ]] || fail "a start on held ports exited $rc"
  grep -qF "exited at start 3 times: its ports were taken each time" "$T/start.err" ||
    fail "a start on held ports did not say why: $(head -c 300 "$T/start.err")"
}

# start_local_etcd (scripts/lib/local_etcd.sh: the registry's C++ tests, scripts/demo, bench/run)
# the same way: its first pick held, it serves on the next; every pick held, it returns 1 after
# three tries, naming why.
test_local_port_taken() {
  need etcd etcd-server
  need curl curl
  hold_port
  eval "free_local_port() $(declare -f local_free_port | tail -n +2)"
  local_free_port() {
    [[ -e "$T/given" ]] && { free_local_port; return; }
    touch "$T/given"
    echo "$HELD_PORT"
  }
  start_local_etcd "$T/local" "$T/local.log" 2>"$T/err" || fail "start_local_etcd returned 1"
  PIDS+=("$LOCAL_ETCD_PID")
  [[ "$LOCAL_ETCD_URL" != *":$HELD_PORT" ]] || fail "etcd serves on the held port"
  run gen --registry "$LOCAL_ETCD_URL" --server-id 6 --count 3
  expect_rc 0
  kill "$LOCAL_ETCD_PID"
  wait "$LOCAL_ETCD_PID" 2>/dev/null
  local_free_port() { echo "$HELD_PORT"; }
  if start_local_etcd "$T/local2" "$T/local2.log" 2>"$T/err"; then
    PIDS+=("$LOCAL_ETCD_PID")
    fail "start_local_etcd started on held ports"
  fi
  expect_err_has "(try 3)"
  expect_err_has "address already in use"
}

"test_$CASE"
