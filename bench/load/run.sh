#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Load test of steadyflake-server with wrk on loopback, beside nginx answering a fixed
# `return 200` on this machine in the same run (the HTTP ceiling here).
#
#   bench/load/run.sh [--quick] [--duration SECONDS] [--server PATH]
#
# Runs, each for SECONDS (default 10; --quick: 3), with the same wrk settings:
#   nginx  GET /              and  steadyflake-server GET /ids?count=1
#   nginx  POST /players      and  steadyflake-server POST /players (unique names, players.lua)
# and prints requests/s, p99 latency and non-2xx counts, then the server/nginx ratios.
# Targets: GET /ids >= 0.5x nginx's requests/s, p99 < 5 ms.
#
# Needs wrk and nginx (Debian: wrk, nginx-light; installed here when missing) and a built
# server (default: $BUILD_DIR/sample_server/steadyflake-server, BUILD_DIR defaulting to build).
# Environment: WRK_THREADS (default 2), WRK_CONNECTIONS (default 32), SERVER_THREADS (default:
# the number of cores). Everything runs in a temporary folder on 127.0.0.1 and is stopped and
# removed on exit, also when interrupted. Exit status: 0 measured (whether or not the targets
# were met), 1 a run failed, 2 usage or a missing tool.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

duration=10
server=${BUILD_DIR:-build}/sample_server/steadyflake-server
while (($# > 0)); do
  case $1 in
    --quick) duration=3 ;;
    --duration) duration=${2:?--duration needs SECONDS}; shift ;;
    --server) server=${2:?--server needs PATH}; shift ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "load: unknown argument '$1'; see bench/load/run.sh --help" >&2; exit 2 ;;
  esac
  shift
done
[[ $duration =~ ^[1-9][0-9]*$ ]] || { echo "load: --duration must be a positive integer" >&2; exit 2; }
# wrk and nginx are for this script only, so it installs them itself (scripts/setup does not:
# CI never needs them). Debian's policy-rc.d on these machines keeps nginx's own service from
# starting; this script runs a private nginx on a free loopback port.
missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v nginx >/dev/null || missing+=(nginx-light)
command -v curl >/dev/null || missing+=(curl)
if ((${#missing[@]} > 0)); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "load: missing ${missing[*]}: run as root or install them with apt-get" >&2
    exit 2
  fi
  echo "load: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[[ -x $server ]] || { echo "load: no server at $server; build it with scripts/setup" >&2; exit 2; }

WRK_THREADS=${WRK_THREADS:-2}
WRK_CONNECTIONS=${WRK_CONNECTIONS:-32}
SERVER_THREADS=${SERVER_THREADS:-$(nproc)}
script_dir=$(realpath bench/load)

T=$(mktemp -d)
server_pid=""
nginx_pid=""
cleanup() {
  local pid
  for pid in $server_pid $nginx_pid; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in $server_pid $nginx_pid; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A port nothing listens on (nginx cannot be told to pick one): random ones tried with bash's
# /dev/tcp until a connect fails.
free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
}

# wait_for CONDITION-COMMAND WHAT: polls for at most 10 s (the only way to see a file appear).
wait_for() {
  local i
  for ((i = 0; i < 200; i++)); do
    if eval "$1"; then return 0; fi
    sleep 0.05
  done
  echo "load: $2 did not start within 10 s" >&2
  return 1
}

# nginx, in the foreground (daemon off), as a child of this script.
nginx_port=$(free_port)
mkdir -p "$T/nginx"
cat >"$T/nginx/nginx.conf" <<CONF
daemon off;
worker_processes $SERVER_THREADS;
pid $T/nginx/nginx.pid;
error_log $T/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $T/nginx/body;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$nginx_port;
    location / { default_type application/json; return 200 '{"ok":true}'; }
  }
}
CONF
nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" -e "$T/nginx/error.log" &
nginx_pid=$!
wait_for "curl -fs -o /dev/null http://127.0.0.1:$nginx_port/" nginx

"$server" --server-id 1 --db "$T/load.db" --listen 127.0.0.1:0 --threads "$SERVER_THREADS" \
  >"$T/server.out" 2>"$T/server.err" &
server_pid=$!
wait_for "grep -q '^listening on' '$T/server.out'" steadyflake-server
server_port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$T/server.out")

echo "load: wrk -t$WRK_THREADS -c$WRK_CONNECTIONS -d${duration}s on $(nproc) cores;" \
  "server --threads $SERVER_THREADS, nginx worker_processes $SERVER_THREADS"

# run NAME URL [wrk args...]: prints one table row; sets rps and p99_ms.
run() {
  local name=$1 url=$2
  shift 2
  local out=$T/wrk-$RANDOM.txt
  wrk -t"$WRK_THREADS" -c"$WRK_CONNECTIONS" -d"${duration}s" --latency "$@" "$url" >"$out"
  rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
  # "99%  1.23ms": to milliseconds.
  p99_ms=$(awk '$1 == "99%" {
      v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
      if (u == "us") v /= 1000; else if (u == "s") v *= 1000; else if (u == "m") v *= 60000;
      printf "%.3f", v }' "$out")
  local non2xx
  non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$out")
  local errors
  errors=$(awk '/Socket errors:/ { sub(/.*Socket errors: /, ""); print }' "$out")
  printf '%-34s %12s req/s   p99 %8s ms   non-2xx %s%s\n' "$name" "$rps" "$p99_ms" \
    "${non2xx:-0}" "${errors:+   socket errors: $errors}"
  [[ -n $rps && -n $p99_ms ]] || { echo "load: could not read wrk's output:" >&2; cat "$out" >&2; exit 1; }
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# shellcheck source=bench/load/verdict.sh
source "$script_dir/verdict.sh"

echo
run "nginx GET / (return 200)" "http://127.0.0.1:$nginx_port/"
nginx_get=$rps
run "steadyflake-server GET /ids?count=1" "http://127.0.0.1:$server_port/ids?count=1"
ids_rps=$rps ids_p99=$p99_ms
run "nginx POST /players (return 200)" "http://127.0.0.1:$nginx_port/players" -s "$script_dir/players.lua"
nginx_post=$rps
run "steadyflake-server POST /players" "http://127.0.0.1:$server_port/players" -s "$script_dir/players.lua"
players_rps=$rps players_p99=$p99_ms

get_ratio=$(ratio "$ids_rps" "$nginx_get")
echo
echo "GET /ids?count=1: $get_ratio x nginx's requests/s (target >= 0.5: $(verdict "$get_ratio" ">=" 0.5 || true));" \
  "p99 $ids_p99 ms (target < 5: $(verdict "$ids_p99" "<" 5 || true))"
echo "POST /players:    $(ratio "$players_rps" "$nginx_post") x nginx's requests/s; p99 $players_p99 ms" \
  "(each answer waits for its group's SQLite commit, synchronous=FULL)"
echo "server's own count: $(curl -fs "http://127.0.0.1:$server_port/metrics" |
  grep -E '^steadyflake_(ids_issued_total|db_transactions_total|db_operations_total) ' | tr '\n' ' ')"

kill -TERM "$server_pid"
rc=0
wait "$server_pid" || rc=$?
server_pid=""
if ((rc != 0)); then
  echo "load: the server exited with status $rc on SIGTERM:" >&2
  cat "$T/server.err" >&2
  exit 1
fi
