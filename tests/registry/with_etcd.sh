#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Runs a registry test binary against a one-member etcd of its own (Debian etcd-server) on
# free 127.0.0.1 ports (scripts/lib/local_etcd.sh, local_free_port), its data in a temporary
# folder; the URL is in STEADYFLAKE_TEST_ETCD. Stops etcd and removes the folder at the end.
#
#   with_etcd.sh <test binary> [arguments...]
#
# Exit status: the test's, or 77 (skipped) when etcd, curl or python3 is not installed.

set -u -o pipefail

for tool in etcd:etcd-server curl:curl python3:python3; do
  command -v "${tool%%:*}" >/dev/null ||
    { echo "SKIP: ${tool%%:*} not found: apt-get install ${tool#*:}"; exit 77; }
done
# shellcheck source=../../scripts/lib/local_etcd.sh
source "$(dirname "$0")/../../scripts/lib/local_etcd.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/steadyflake-etcd.XXXXXX")
LOCAL_ETCD_PID=""
cleanup() {
  [[ -n "$LOCAL_ETCD_PID" ]] && { kill "$LOCAL_ETCD_PID" 2>/dev/null; wait "$LOCAL_ETCD_PID" 2>/dev/null; }
  rm -rf "$T"
}
trap cleanup EXIT
start_local_etcd "$T/data" "$T/etcd.log" || exit 1
STEADYFLAKE_TEST_ETCD=$LOCAL_ETCD_URL "$@"
