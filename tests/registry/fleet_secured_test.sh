#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Fleets on a secured etcd (TLS with client certificates, etcd auth) and steadyflake-server with
# --registry (issue 10, docs/fleet.md), through the built binaries.
#
#   fleet_secured_test.sh <path to steadyflake> <case> [<path to steadyflake-server>]
#
# As fleet_test.sh (fleet_lib.sh): exit 0 pass, 1 fail, 77 skipped naming the Debian package
# that is missing; each case with its own etcd on 127.0.0.1, stopped by the trap.

# shellcheck source=tests/registry/fleet_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/fleet_lib.sh"

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
  start_member launch_tls_etcd "etcd (TLS)" --cacert "$T/tls/ca.pem" \
    --cert "$T/tls/client.pem" --key "$T/tls/client.key"
}
launch_tls_etcd() {
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
  [[ -x "$SERVER" ]] || fail "usage: fleet_secured_test.sh <steadyflake> server <steadyflake-server>"
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
