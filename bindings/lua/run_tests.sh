#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# CTest's entry point for the LuaJIT binding's tests (bindings/CMakeLists.txt):
#   run_tests.sh LIBSTEADYFLAKE_C_SO ID_VECTORS_JSON WORK_DIR [VERSION]
# Exits 77 (CTest: skipped) when luajit is missing, else with the tests' status.
set -euo pipefail
if ! command -v luajit >/dev/null 2>&1; then
  echo "SKIP: luajit not found; install the Debian package luajit (scripts/setup installs it)"
  exit 77
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
library=$1 vectors=$2 work=$3 version=${4:-}
# A host-guard namespace of its own: other tests run in parallel with the same server ids.
export STEADYFLAKE_HOST_GUARD_NAMESPACE="lua-test-$$"
rm -rf "$work"
mkdir -p "$work"
STEADYFLAKE_C_LIBRARY=$library LUA_PATH="$here/?.lua;;" \
  exec luajit "$here/steadyflake_test.lua" "$vectors" "$work" "$version"
