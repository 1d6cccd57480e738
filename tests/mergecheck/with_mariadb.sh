#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Runs a merge checker test binary against a MariaDB of its own (Debian mariadb-server): its data
# and unix socket in a temporary folder, no network (data/private_mariadb.sh); the socket's path
# is in STEADYFLAKE_TEST_MARIADB. Stops the server and removes the folder at the end.
#
#   with_mariadb.sh <test binary> [arguments...]
#
# Exit status: the test's, or 77 (skipped) when mariadbd or the mariadb client is not installed.

set -u -o pipefail

for tool in mariadbd:mariadb-server mariadb-install-db:mariadb-server mariadb-admin:mariadb-client \
  mariadb:mariadb-client; do
  command -v "${tool%%:*}" >/dev/null ||
    { echo "SKIP: ${tool%%:*} not found: apt-get install ${tool#*:}"; exit 77; }
done
# shellcheck source=../../data/private_mariadb.sh
source "$(dirname "$0")/../../data/private_mariadb.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/steadyflake-mariadb.XXXXXX")
start_private_mariadb "$T"  # sets $sock; its EXIT trap stops the server and removes $T
STEADYFLAKE_TEST_MARIADB=$sock "$@"
