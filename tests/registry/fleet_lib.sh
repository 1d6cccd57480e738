# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# What the fleet scripts share (fleet_test.sh, fleet_secured_test.sh), sourced by each: the
# arguments, a fresh folder per case removed on exit with every process it started, the case's
# etcd on free 127.0.0.1 ports, and the run, expect and holder helpers.

set -u -o pipefail

BIN=${1:?usage: $0 <steadyflake binary> <case>}
CASE=${2:?usage: $0 <steadyflake binary> <case>}
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

# shellcheck source=../../scripts/lib/local_etcd.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/local_etcd.sh"
# A free TCP port on 127.0.0.1, below the ephemeral range (local_free_port).
free_port() { local_free_port; }

# Starts (or, with the same data folder, restarts) the case's etcd and waits until it serves.
start_etcd() {
  need etcd etcd-server
  need python3 python3
  start_member launch_etcd etcd
}
launch_etcd() {
  ETCD="http://127.0.0.1:$CLIENT_PORT"
  etcd --name fleet-test --data-dir "$T/etcd" \
    --listen-client-urls "$ETCD" --advertise-client-urls "$ETCD" \
    --listen-peer-urls "http://127.0.0.1:$PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$PEER_PORT" \
    --initial-cluster "fleet-test=http://127.0.0.1:$PEER_PORT" \
    --log-level error --logger zap >>"$T/etcd.log" 2>&1 &
  ETCD_PID=$!
}
# start_member LAUNCH NAME [CURL OPTIONS...]: LAUNCH starts the case's etcd on $CLIENT_PORT and
# $PEER_PORT and sets ETCD and ETCD_PID; this waits until it serves. A port free_port returned
# can be taken before etcd binds it, by another test's server. So when this call picked the
# ports and etcd exits with "address already in use", it picks new ones and starts on a fresh
# data folder (three tries). A restart keeps its ports: its clients hold the URL.
start_member() {
  local launch=$1 name=$2 picked=0 attempt
  shift 2
  [[ -n "${CLIENT_PORT:-}" ]] || picked=1
  for attempt in 1 2 3; do
    ((picked)) && { CLIENT_PORT=$(free_port); PEER_PORT=$(free_port); }
    "$launch"
    wait_healthy "$name" "$@" && return
    wait "$ETCD_PID" 2>/dev/null
    ETCD_PID=""
    if ((!picked)) || ! tail -n 3 "$T/etcd.log" | grep -qF "address already in use"; then
      fail "$name exited at start"
    fi
    rm -rf "$T/etcd"
  done
  fail "$name exited at start $attempt times: its ports were taken each time"
}
# wait_healthy NAME [CURL OPTIONS...]: returns 0 once the etcd at $ETCD (process $ETCD_PID)
# answers /health, 1 if it exits first; fails if it does not answer (etcd_serving).
wait_healthy() {
  local name=$1 rc=0
  shift
  etcd_serving "$ETCD" "$ETCD_PID" "$@" || rc=$?
  ((rc != 2)) || fail "$name did not become healthy"
  return "$rc"
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
