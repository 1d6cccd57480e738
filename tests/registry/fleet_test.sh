#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Fleets on a real etcd (issue 10, docs/fleet.md): server-id claims, the reservation fence, and
# the host guard, through the built `steadyflake` binary.
#
#   fleet_test.sh <path to steadyflake> <case> [<path to steadyflake-server>]
#
# Exit status: 0 pass, 1 fail (with the reason on stderr), 77 skipped (etcd or faketime is not
# installed; the message names the Debian package). Each case runs in a fresh `mktemp -d`
# folder that the EXIT trap removes, with its own etcd (Debian etcd-server) listening on
# 127.0.0.1 ports the kernel picked free, its data in that folder; the trap stops it.

set -u -o pipefail

BIN=${1:?usage: fleet_test.sh <steadyflake binary> <case>}
CASE=${2:?usage: fleet_test.sh <steadyflake binary> <case>}
SERVER=${3:-}  # steadyflake-server, for the server case
[[ -x "$BIN" ]] || { echo "not executable: $BIN" >&2; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/steadyflake-fleet.XXXXXX")
ETCD_PID=""
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill -CONT "$pid" 2>/dev/null; kill "$pid" 2>/dev/null; done
  [[ -n "$ETCD_PID" ]] && { kill "$ETCD_PID" 2>/dev/null; wait "$ETCD_PID" 2>/dev/null; }
  [[ -n "${KEEP:-}" ]] && { echo "kept $T" >&2; return; }
  rm -rf "$T"
}
trap cleanup EXIT
export HOME="$T/home"
# A host-guard namespace of this case's own: CTest runs cases in parallel with the same ids.
export STEADYFLAKE_HOST_GUARD_NAMESPACE="fleet-test-$$"
unset XDG_STATE_HOME STEADYFLAKE_STATE_DIR

fail() {
  echo "FAIL [$CASE]: $*" >&2
  [[ -s "$T/err" ]] && { echo "--- stderr of the last run:" >&2; head -c 2000 "$T/err" >&2; }
  [[ -s "$T/etcd.log" ]] && { echo "--- etcd log (tail):" >&2; tail -n 5 "$T/etcd.log" >&2; }
  exit 1
}
need() { command -v "$1" >/dev/null || { echo "SKIP: $1 not found: apt-get install $2"; exit 77; }; }
run() {
  "$BIN" "$@" >"$T/out" 2>"$T/err"
  RC=$?
}
expect_rc() { [[ "$RC" == "$1" ]] || fail "exit status $RC, expected $1"; }
expect_err_has() { grep -qF -- "$1" "$T/err" || fail "stderr lacks '$1'"; }
id_less() { [[ ${#1} -lt ${#2} || (${#1} -eq ${#2} && "$1" < "$2") ]]; }
no_duplicates() {
  local dup
  dup=$(cat "$@" | sort | uniq -d | head -n 3)
  [[ -z "$dup" ]] || fail "IDs issued twice: $dup"
}

# A free TCP port on 127.0.0.1, chosen by the kernel.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Starts (or, with the same data folder, restarts) the case's etcd and waits until it serves.
start_etcd() {
  need etcd etcd-server
  need python3 python3
  [[ -n "${CLIENT_PORT:-}" ]] || { CLIENT_PORT=$(free_port); PEER_PORT=$(free_port); }
  ETCD="http://127.0.0.1:$CLIENT_PORT"
  etcd --name fleet-test --data-dir "$T/etcd" \
    --listen-client-urls "$ETCD" --advertise-client-urls "$ETCD" \
    --listen-peer-urls "http://127.0.0.1:$PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$PEER_PORT" \
    --initial-cluster "fleet-test=http://127.0.0.1:$PEER_PORT" \
    --log-level error --logger zap >>"$T/etcd.log" 2>&1 &
  ETCD_PID=$!
  wait_healthy etcd
}
# wait_healthy NAME [CURL OPTIONS...]: returns once the etcd at $ETCD (process $ETCD_PID)
# answers /health; fails if it exits or does not answer. curl --retry-connrefused waits for the
# listener; /health for the member to serve.
wait_healthy() {
  local name=$1 i
  shift
  for ((i = 0; i < 200; i++)); do
    if curl -fsS --max-time 1 "$@" "$ETCD/health" 2>/dev/null | grep -q '"health":"true"'; then
      return
    fi
    kill -0 "$ETCD_PID" 2>/dev/null || fail "$name exited at start"
    curl -s --retry 1 --retry-connrefused --max-time 0.1 "$ETCD/health" >/dev/null 2>&1
  done
  fail "$name did not become healthy"
}
stop_etcd() {
  kill -9 "$ETCD_PID" 2>/dev/null
  wait "$ETCD_PID" 2>/dev/null
  ETCD_PID=""
}

# hold ID NAME [ARGS...]: a gen that claims server id ID and keeps it: it blocks on a FIFO that
# is read only once (its first line); HOLDER_PID is its pid once it has printed, i.e. claimed.
hold() {
  local id=$1 name=$2
  shift 2
  mkfifo "$T/$name.fifo" || fail "mkfifo"
  "$BIN" gen --registry "$ETCD" --server-id "$id" --count 1000000000 "$@" \
    >"$T/$name.fifo" 2>"$T/$name.err" &
  HOLDER_PID=$!
  PIDS+=("$HOLDER_PID")
  exec {HOLDER_FD}<"$T/$name.fifo"
  local first
  IFS= read -r first <&"$HOLDER_FD" || fail "holder $name printed nothing: $(cat "$T/$name.err")"
  [[ "$first" =~ ^[0-9]+$ ]] || fail "holder $name's first line '$first' is no ID"
}

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

# A secured etcd: TLS with client certificates (etcd --client-cert-auth) and etcd's auth (user
# root), certificates made with `openssl` here. gen and registry list work over it with the CA,
# the client certificate and the password from the environment or a file; each thing missing
# or wrong fails with a one-line error naming it; the password never shows; a token etcd
# refuses (etcd restarted, or it expired) is renewed while a holder issues.
# make_cert NAME SUBJECT EXTENSIONS [CA]: an EC key NAME.key and certificate NAME.pem in
# $T/tls, signed by CA (default: self-signed, a CA).
make_cert() {
  local name=$1 subject=$2 ext=$3 ca=${4:-} d="$T/tls"
  if [[ -z "$ca" ]]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
      -keyout "$d/$name.key" -out "$d/$name.pem" -subj "$subject" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=keyCertSign,cRLSign" \
      >>"$d/openssl.log" 2>&1 || fail "openssl: CA $name: $(tail -n 3 "$d/openssl.log")"
    return
  fi
  printf '%s\n' "$ext" >"$d/$name.ext"
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$d/$name.key" -out "$d/$name.csr" -subj "$subject" >>"$d/openssl.log" 2>&1 &&
    openssl x509 -req -in "$d/$name.csr" -CA "$d/$ca.pem" -CAkey "$d/$ca.key" -set_serial "$RANDOM$RANDOM" \
      -days 2 -extfile "$d/$name.ext" -out "$d/$name.pem" >>"$d/openssl.log" 2>&1 ||
    fail "openssl: certificate $name: $(tail -n 3 "$d/openssl.log")"
}

# tls_curl PATH BODY_FILE: a POST to the TLS etcd's gateway with the test's client certificate.
tls_curl() {
  curl -fsS --max-time 5 --cacert "$T/tls/ca.pem" --cert "$T/tls/client.pem" \
    --key "$T/tls/client.key" -X POST --data-binary "@$2" "$ETCD$1"
}

# Starts (or restarts) the case's etcd with TLS on its client URL and waits until it serves.
start_tls_etcd() {
  [[ -n "${CLIENT_PORT:-}" ]] || { CLIENT_PORT=$(free_port); PEER_PORT=$(free_port); }
  ETCD="https://127.0.0.1:$CLIENT_PORT"
  etcd --name fleet-test --data-dir "$T/etcd" \
    --listen-client-urls "$ETCD" --advertise-client-urls "$ETCD" \
    --cert-file "$T/tls/server.pem" --key-file "$T/tls/server.key" \
    --trusted-ca-file "$T/tls/ca.pem" --client-cert-auth \
    --auth-token simple --auth-token-ttl 1 \
    --listen-peer-urls "http://127.0.0.1:$PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$PEER_PORT" \
    --initial-cluster "fleet-test=http://127.0.0.1:$PEER_PORT" \
    --log-level error --logger zap >>"$T/etcd.log" 2>&1 &
  ETCD_PID=$!
  wait_healthy "etcd (TLS)" --cacert "$T/tls/ca.pem" --cert "$T/tls/client.pem" \
    --key "$T/tls/client.key"
}

test_tls() {
  need etcd etcd-server
  need openssl openssl
  need python3 python3
  need curl curl
  mkdir -p "$T/tls" || fail "mkdir"
  make_cert ca "/CN=steadyflake test CA" ""
  make_cert other-ca "/CN=another CA" ""
  # etcd's gateway presents the server certificate to etcd itself: clientAuth too. Its CN is no
  # etcd user, so a call without a token is refused.
  make_cert server /CN=etcd-test-server \
    "$(printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth')" ca
  # etcd 3.4's gateway refuses a client certificate with a CN (it would be a user name): none.
  make_cert client "/O=steadyflake test clients" "extendedKeyUsage=clientAuth" ca
  make_cert client-cn /CN=root "extendedKeyUsage=clientAuth" ca
  start_tls_etcd
  # The password: random, never on a command line; root with the root role; auth on.
  local password
  password="pw-$(python3 -c 'import secrets; print(secrets.token_hex(12))')"
  printf '{"name":"root","password":"%s"}' "$password" >"$T/tls/user.json"
  printf '{"user":"root","role":"root"}' >"$T/tls/grant.json"
  printf '{}' >"$T/tls/empty.json"
  tls_curl /v3/auth/user/add "$T/tls/user.json" >/dev/null || fail "etcd: user add"
  tls_curl /v3/auth/user/grant "$T/tls/grant.json" >/dev/null || fail "etcd: grant root"
  tls_curl /v3/auth/enable "$T/tls/empty.json" >/dev/null || fail "etcd: auth enable"
  printf '%s\n' "$password" >"$T/tls/password"
  printf 'not-%s\n' "$password" >"$T/tls/wrong-password"
  # Every output of steadyflake in this case goes to $T/all too: the password must be in none.
  tls_run() {
    run "$@"
    cat "$T/out" "$T/err" >>"$T/all"
  }
  local tls=(--registry-ca "$T/tls/ca.pem" --registry-cert "$T/tls/client.pem"
    --registry-key "$T/tls/client.key")

  # The password from the environment: claims the lowest free id and issues.
  STEADYFLAKE_REGISTRY_PASSWORD=$password tls_run gen --registry "$ETCD" "${tls[@]}" \
    --registry-user root --server-id auto --server-range 1-5 --count 3
  expect_rc 0
  expect_err_has "claimed server id 1"
  [[ $(wc -l <"$T/out") == 3 ]] || fail "gen over TLS with auth printed no 3 IDs: $(cat "$T/out")"
  # From a file (its newline dropped), held by a holder that registry list shows.
  hold 2 holder "${tls[@]}" --registry-user root --registry-password-file "$T/tls/password"
  local holder=$HOLDER_PID
  tls_run registry list --registry "$ETCD" "${tls[@]}" --registry-user root \
    --registry-password-file "$T/tls/password"
  expect_rc 0
  grep -qE "^2 +$(hostname) pid $holder since .* alive$" "$T/out" ||
    fail "registry list over TLS lacks the holder of server 2: $(cat "$T/out")"
  grep -qE "^1 +- " "$T/out" || fail "registry list over TLS lacks server 1's reservation"

  # A token etcd refuses is renewed: while a holder issues 600,000 IDs of `game` (about 6 s, an
  # extension every 1.5 s), etcd is restarted on its data. Its simple tokens live in its memory:
  # every token given before is refused after ("invalid auth token"), as is one unused for a
  # second (--auth-token-ttl 1). Without a new token the holder could not extend and would stall.
  STEADYFLAKE_REGISTRY_PASSWORD=$password "$BIN" gen --registry "$ETCD" "${tls[@]}" \
    --registry-user root --server-id 3 --count 600000 >"$T/ids" 2>"$T/gen.err" &
  local gen=$! i=0
  PIDS+=("$gen")
  while [[ ! -s "$T/ids" ]] && ((i++ < 500)); do kill -0 "$gen" || break; sleep 0.02; done
  [[ -s "$T/ids" ]] || fail "the holder issued nothing: $(cat "$T/gen.err")"
  stop_etcd
  start_tls_etcd
  # Polls until the holder ends, bounded: 40 s for what takes 6.
  local started=$SECONDS
  while kill -0 "$gen" 2>/dev/null && ((SECONDS - started < 40)); do sleep 0.1; done
  kill -0 "$gen" 2>/dev/null && fail "the holder stalled after etcd's restart: $(cat "$T/gen.err")"
  wait "$gen"
  local rc=$?
  cat "$T/gen.err" >>"$T/all"
  ((rc == 0)) || fail "the holder exited $rc after etcd's restart: $(cat "$T/gen.err")"
  [[ $(wc -l <"$T/ids") == 600000 ]] || fail "the holder printed $(wc -l <"$T/ids") IDs, not 600000"
  no_duplicates "$T/ids"

  # Each missing or wrong piece: exit 2, one line naming it, no ID.
  expect_refused() {
    local what=$1
    shift
    tls_run "$@"
    expect_rc 2
    expect_err_has "$what"
    [[ $(wc -l <"$T/err") == 1 ]] || fail "not a one-line error: $(cat "$T/err")"
    [[ ! -s "$T/out" ]] || fail "printed IDs: $(head -n 3 "$T/out")"
  }
  local auth=(--registry-user root --registry-password-file "$T/tls/password")
  expect_refused "authentication as user 'root' failed" gen --registry "$ETCD" "${tls[@]}" \
    --registry-user root --registry-password-file "$T/tls/wrong-password" --server-id 4
  STEADYFLAKE_REGISTRY_PASSWORD=wrong expect_refused "authentication as user 'root' failed" \
    gen --registry "$ETCD" "${tls[@]}" --registry-user root --server-id 4
  expect_refused "TLS certificate verification failed" gen --registry "$ETCD" \
    --registry-cert "$T/tls/client.pem" --registry-key "$T/tls/client.key" "${auth[@]}" \
    --server-id 4
  expect_err_has "--registry-ca"
  expect_refused "TLS certificate verification failed" gen --registry "$ETCD" \
    --registry-ca "$T/tls/other-ca.pem" --registry-cert "$T/tls/client.pem" \
    --registry-key "$T/tls/client.key" "${auth[@]}" --server-id 4
  expect_err_has "did not sign etcd's certificate"
  # The certificate names 127.0.0.1, not localhost.
  expect_refused "TLS certificate verification failed" gen \
    --registry "https://localhost:$CLIENT_PORT" "${tls[@]}" "${auth[@]}" --server-id 4
  expect_err_has "does not name localhost"
  expect_refused "client certificate" gen --registry "$ETCD" --registry-ca "$T/tls/ca.pem" \
    "${auth[@]}" --server-id 4
  expect_refused "https://127.0.0.1:$CLIENT_PORT" gen --registry "http://127.0.0.1:$CLIENT_PORT" \
    "${auth[@]}" --server-id 4
  # No user: etcd refuses (the call carries no token).
  expect_refused "etcd has auth enabled: give --registry-user" gen --registry "$ETCD" "${tls[@]}" \
    --server-id 4
  # etcd's peer port speaks plain HTTP.
  expect_refused "does not speak TLS" gen --registry "https://127.0.0.1:$PEER_PORT" \
    --registry-ca "$T/tls/ca.pem" --server-id 4
  expect_refused "refuses a client certificate with a CommonName" gen --registry "$ETCD" \
    --registry-ca "$T/tls/ca.pem" --registry-cert "$T/tls/client-cn.pem" \
    --registry-key "$T/tls/client-cn.key" "${auth[@]}" --server-id 4
  # Command lines that cannot work.
  expect_refused "--registry-password is refused" gen --registry "$ETCD" "${tls[@]}" \
    --registry-user root --registry-password "$password" --server-id 4
  expect_refused "--registry-cert needs --registry-key" gen --registry "$ETCD" \
    --registry-ca "$T/tls/ca.pem" --registry-cert "$T/tls/client.pem" --server-id 4
  expect_refused "--registry-user 'root' has no password" gen --registry "$ETCD" "${tls[@]}" \
    --registry-user root --server-id 4
  STEADYFLAKE_REGISTRY_PASSWORD=$password expect_refused "without --registry-user" \
    gen --registry "$ETCD" "${tls[@]}" --server-id 4
  expect_refused "mix http:// and https://" gen \
    --registry "$ETCD,http://127.0.0.1:$PEER_PORT" "${tls[@]}" "${auth[@]}" --server-id 4
  expect_refused "$T/tls/missing.pem (--registry-ca) cannot be read" gen --registry "$ETCD" \
    --registry-ca "$T/tls/missing.pem" --server-id 4
  expect_refused "cannot read --registry-password-file" gen --registry "$ETCD" "${tls[@]}" \
    --registry-user root --registry-password-file "$T/tls/missing" --server-id 4
  expect_refused "is not the key of the certificate" gen --registry "$ETCD" \
    --registry-cert "$T/tls/client.pem" --registry-key "$T/tls/server.key" --server-id 4
  expect_refused "--registry-ca needs --registry" gen --registry-ca "$T/tls/ca.pem" --server-id 4

  kill "$holder"
  wait "$holder" 2>/dev/null
  cat "$T/holder.err" >>"$T/all"
  ! grep -qF -- "$password" "$T/all" || fail "the password shows in steadyflake's output"
  [[ -s "$T/all" ]] || fail "no output collected"
}

# steadyflake-server with --registry: it claims its id at start; a second server and a gen
# asking for that id are refused, naming it; /metrics shows the reservation headroom and the
# registry's errors; without etcd, gen and the server with one server id on one host (each with
# its own state folder) are refused by the host guard, whichever starts second.
# start_server NAME ARGS...: steadyflake-server with database $T/NAME.db on a free port; sets
# SERVER_PID and SERVER_PORT once it printed "listening on".
start_server() {
  local name=$1 i
  shift
  "$SERVER" "$@" --db "$T/$name.db" --listen 127.0.0.1:0 >"$T/$name.out" 2>"$T/$name.err" &
  SERVER_PID=$!
  PIDS+=("$SERVER_PID")
  for ((i = 0; i < 500; i++)); do
    grep -qs '^listening on' "$T/$name.out" && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.02  # polling a file for the server's first line
  done
  SERVER_PORT=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$T/$name.out")
  [[ -n "$SERVER_PORT" ]] || fail "server $name did not start: $(cat "$T/$name.err")"
}

test_server() {
  [[ -x "$SERVER" ]] || fail "usage: fleet_test.sh <steadyflake> server <steadyflake-server>"
  start_etcd
  start_server a --registry "$ETCD" --server-id 21
  local a=$SERVER_PID port=$SERVER_PORT
  curl -fsS -X POST -H 'Content-Type: application/json' -d '{"name":"x"}' \
    "http://127.0.0.1:$port/players" >"$T/player" || fail "POST /players"
  curl -fsS "http://127.0.0.1:$port/metrics" >"$T/metrics" || fail "GET /metrics"
  grep -qE '^steadyflake_registry_errors_total 0$' "$T/metrics" || fail "no registry errors metric"
  awk '/^steadyflake_reservation_headroom_seconds / { exit !($2 > 1 && $2 < 4) }' "$T/metrics" ||
    fail "headroom not between 1 s and 4 s: $(grep headroom "$T/metrics")"

  "$SERVER" --registry "$ETCD" --server-id 21 --db "$T/b.db" --listen 127.0.0.1:0 \
    >"$T/out" 2>"$T/err"
  RC=$?
  expect_rc 1
  expect_err_has "server id 21 is held by host $(hostname) pid $a"
  [[ ! -e "$T/b.db" ]] || fail "the refused server created its database"
  run gen --registry "$ETCD" --server-id 21
  expect_rc 2
  expect_err_has "pid $a"
  "$SERVER" --registry "$ETCD" --server-id 21 --state-dir "$T/s" --db "$T/b.db" \
    --listen 127.0.0.1:0 >"$T/out" 2>"$T/err"
  RC=$?
  expect_rc 2
  expect_err_has "contradict"
  kill -TERM "$a"
  wait "$a" || fail "the server exited $? after SIGTERM"

  # One host, no etcd: the server (state beside its database) and gen (state under HOME).
  start_server c --server-id 22
  local c=$SERVER_PID
  run gen --server-id 22
  expect_rc 2
  expect_err_has "in use on this host by pid $c"
  kill -TERM "$c"
  wait "$c" || fail "the server exited $? after SIGTERM"
}

"test_$CASE"
