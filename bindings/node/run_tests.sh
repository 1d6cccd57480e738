#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# CTest's entry point for the Node addon's tests (bindings/CMakeLists.txt):
#   run_tests.sh STEADYFLAKE_NODE ID_VECTORS_JSON WORK_DIR [VERSION]
# STEADYFLAKE_NODE is the built addon, or "" when CMake found no node_api.h and did not build it.
# Exits 77 (CTest: skipped) when node or the addon's headers are missing, else with the tests'
# status.
set -euo pipefail
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node not found; install the Debian package nodejs (scripts/setup installs it)"
  exit 77
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
addon=$1 vectors=$2 work=$3 version=${4:-}
if [[ -z $addon ]]; then
  echo "SKIP: the Node addon was not built: node_api.h not found; install the Debian package" \
    "libnode-dev (scripts/setup installs it) and configure the build again"
  exit 77
fi
# A host-guard namespace of its own: other tests run in parallel with the same server ids.
export STEADYFLAKE_HOST_GUARD_NAMESPACE="node-test-$$"
rm -rf "$work"
mkdir -p "$work"
STEADYFLAKE_NODE_ADDON=$addon STEADYFLAKE_TEST_VECTORS=$vectors STEADYFLAKE_TEST_WORK=$work \
  STEADYFLAKE_TEST_VERSION=$version exec node --test "$here/test/steadyflake.test.js" "$here/test/buffer.test.js"
