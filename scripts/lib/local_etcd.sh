# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Sourced by scripts/demo, bench/run and the registry's tests: a one-member etcd (Debian
# etcd-server) for a demo, a benchmark or a test, on free 127.0.0.1 ports (local_free_port), its
# data in a folder the caller removes.
#
#   start_local_etcd DATA_DIR LOG_FILE
#
# Sets LOCAL_ETCD_URL (http://127.0.0.1:PORT) and LOCAL_ETCD_PID once etcd answers /health;
# returns 1 (the log's tail on stderr) when it does not start. The caller stops it:
# kill "$LOCAL_ETCD_PID". Needs etcd, curl and python3 (scripts/setup installs them).

# A 127.0.0.1 TCP port free now, below the kernel's ephemeral range (ip_local_port_range) when
# there is room: a port from that range can be taken as the local port of any connection made
# meanwhile (a client of the server itself, while it restarts), which fails its bind.
local_free_port() {
  python3 -c '
import random, socket
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
for _ in range(200):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", random.randrange(10000, low) if low > 11000 else 0))
    except OSError:
        continue
    print(s.getsockname()[1])
    break
else:
    raise SystemExit("no free port below " + str(low))
'
}

start_local_etcd() {
  local data=$1 log=$2 attempt
  # A port free a moment ago can be taken before etcd binds it (by another test's server):
  # etcd then exits with "address already in use", and the next try picks new ports and a
  # fresh data folder (three tries).
  for attempt in 1 2 3; do
    launch_local_etcd "$data" "$log" && return 0
    if [[ -n ${LOCAL_ETCD_PID:-} ]]; then
      kill "$LOCAL_ETCD_PID" 2>/dev/null
      wait "$LOCAL_ETCD_PID" 2>/dev/null
    fi
    LOCAL_ETCD_PID=""
    tail -n 3 "$log" | grep -qF "address already in use" || break
    rm -rf "$data"
  done
  echo "etcd did not start on ${LOCAL_ETCD_URL:-no port} (try $attempt):" >&2
  tail -n 5 "$log" >&2
  return 1
}

# launch_local_etcd DATA_DIR LOG_FILE: one try on new ports; returns 1 if etcd exits or does not
# answer.
launch_local_etcd() {
  local data=$1 log=$2 client peer
  LOCAL_ETCD_PID=""
  client=$(local_free_port 2>>"$log") && peer=$(local_free_port 2>>"$log") || return 1
  LOCAL_ETCD_URL="http://127.0.0.1:$client"
  etcd --name local --data-dir "$data" --listen-client-urls "$LOCAL_ETCD_URL" \
    --advertise-client-urls "$LOCAL_ETCD_URL" --listen-peer-urls "http://127.0.0.1:$peer" \
    --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "local=http://127.0.0.1:$peer" --log-level error --logger zap \
    >"$log" 2>&1 &
  LOCAL_ETCD_PID=$!
  etcd_serving "$LOCAL_ETCD_URL" "$LOCAL_ETCD_PID"
}

# etcd_serving URL PID [CURL OPTIONS...]: returns 0 once the etcd at URL answers /health, 1 if
# its process PID exits first, 2 if it does not answer within 200 tries. curl
# --retry-connrefused waits for the listener; /health for the member to serve.
etcd_serving() {
  local url=$1 pid=$2 i
  shift 2
  for ((i = 0; i < 200; i++)); do
    if curl -fsS --max-time 1 "$@" "$url/health" 2>/dev/null | grep -q '"health":"true"'; then
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || return 1
    curl -s --retry 1 --retry-connrefused --max-time 0.1 "$url/health" >/dev/null 2>&1 || true
  done
  return 2
}
