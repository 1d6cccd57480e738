# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Sourced by scripts/demo and bench/run: a one-member etcd (Debian etcd-server) for a demo or a
# benchmark, on 127.0.0.1 ports the kernel picked free, its data in a folder the caller removes.
#
#   start_local_etcd DATA_DIR LOG_FILE
#
# Sets LOCAL_ETCD_URL (http://127.0.0.1:PORT) and LOCAL_ETCD_PID once etcd answers /health;
# returns 1 (the log's tail on stderr) when it does not start. The caller stops it:
# kill "$LOCAL_ETCD_PID". Needs etcd, curl and python3 (scripts/setup installs them).

start_local_etcd() {
  local data=$1 log=$2 attempt
  # A port the kernel called free can be taken before etcd binds it (another test's server, or
  # a client's ephemeral port): etcd then exits with "address already in use", and the next try
  # picks new ports and a fresh data folder (three tries).
  for attempt in 1 2 3; do
    launch_local_etcd "$data" "$log" && return 0
    kill "$LOCAL_ETCD_PID" 2>/dev/null
    wait "$LOCAL_ETCD_PID" 2>/dev/null
    LOCAL_ETCD_PID=""
    tail -n 3 "$log" | grep -qF "address already in use" || break
    rm -rf "$data"
  done
  echo "etcd did not start on $LOCAL_ETCD_URL (try $attempt):" >&2
  tail -n 5 "$log" >&2
  return 1
}

# launch_local_etcd DATA_DIR LOG_FILE: one try on new ports; returns 1 if etcd exits or does not
# answer.
launch_local_etcd() {
  local data=$1 log=$2 client peer i
  client=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  peer=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  LOCAL_ETCD_URL="http://127.0.0.1:$client"
  etcd --name local --data-dir "$data" --listen-client-urls "$LOCAL_ETCD_URL" \
    --advertise-client-urls "$LOCAL_ETCD_URL" --listen-peer-urls "http://127.0.0.1:$peer" \
    --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "local=http://127.0.0.1:$peer" --log-level error --logger zap \
    >"$log" 2>&1 &
  LOCAL_ETCD_PID=$!
  # curl --retry-connrefused waits for the listener (bounded: 200 tries); /health for the member
  # to serve.
  for ((i = 0; i < 200; i++)); do
    if curl -fsS --max-time 1 "$LOCAL_ETCD_URL/health" 2>/dev/null | grep -q '"health":"true"'; then
      return 0
    fi
    kill -0 "$LOCAL_ETCD_PID" 2>/dev/null || return 1
    curl -s --retry 1 --retry-connrefused --max-time 0.1 "$LOCAL_ETCD_URL/health" >/dev/null 2>&1 || true
  done
  return 1
}
