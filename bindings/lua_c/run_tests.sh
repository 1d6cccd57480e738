#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# CTest's entry point for the Lua C module's tests (bindings/lua_c/CMakeLists.txt), once per
# Lua version built:
#   run_tests.sh INTERPRETER MODULE_DIR ID_VECTORS_JSON WORK_DIR [VERSION]
# INTERPRETER is lua5.4, lua5.3 or lua5.1; MODULE_DIR holds the steadyflake.so built for it.
# Exits 77 (CTest: skipped) when the interpreter is missing, else with the tests' status.
set -euo pipefail
interpreter=$1 modules=$2 vectors=$3 work=$4 version=${5:-}
if ! command -v "$interpreter" >/dev/null 2>&1; then
  echo "SKIP: $interpreter not found; install the Debian package $interpreter" \
    "(scripts/setup installs it)"
  exit 77
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# A host-guard namespace of its own: other tests run in parallel with the same server ids.
export STEADYFLAKE_HOST_GUARD_NAMESPACE="lua-c-test-$$"
rm -rf "$work"
mkdir -p "$work"
# Only the module under test on the C path (LUA_CPATH_5_4 and _5_3 would win over LUA_CPATH).
unset LUA_CPATH_5_4 LUA_CPATH_5_3 LUA_INIT LUA_INIT_5_4 LUA_INIT_5_3
LUA_CPATH="$modules/?.so" exec "$interpreter" "$here/steadyflake_c_test.lua" "$vectors" "$work" \
  "$version"
