#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# CTest's entry point for the Go binding's tests (bindings/CMakeLists.txt):
#   run_tests.sh LIBSTEADYFLAKE_C_DIR INCLUDE_DIR ID_VECTORS_JSON WORK_DIR [VERSION] [GO TEST ARGS]
# Builds the cgo package against the library in LIBSTEADYFLAKE_C_DIR and the headers in
# INCLUDE_DIR (the build tree's), offline, with Go's caches under WORK_DIR, then runs `go vet`
# and `go test`. Exits 77 (CTest: skipped) when go is missing, 1 when a file is not gofmt'd,
# else with go test's status.
set -euo pipefail
if ! command -v go >/dev/null 2>&1; then
  echo "SKIP: go not found; install the Debian package golang-go (scripts/setup installs it)"
  exit 77
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
libdir=$1 include=$2 vectors=$3 work=$4 version=${5:-}
shift $(($# < 5 ? $# : 5))
mkdir -p "$work/tmp"
# Absolute: Go refuses a relative GOPATH, and the rpath must hold from any folder.
work=$(cd "$work" && pwd) libdir=$(cd "$libdir" && pwd) include=$(cd "$include" && pwd)
vectors=$(cd "$(dirname "$vectors")" && pwd)/$(basename "$vectors")

unformatted=$(gofmt -l "$here")
if [[ -n $unformatted ]]; then
  echo "FAIL: not gofmt'd (run gofmt -w on them): $unformatted"
  exit 1
fi

# Offline and self-contained: the module has no dependencies, nothing is downloaded, and the
# caches live in the build folder (CI's HOME may be read-only or shared).
export GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GO111MODULE=on GOWORK=off
export GOCACHE=$work/gocache GOPATH=$work/gopath GOTMPDIR=$work/tmp
export CGO_ENABLED=1
export CGO_CFLAGS="-I$include -O2 -g"
export CGO_LDFLAGS="-L$libdir -Wl,-rpath,$libdir"
# A host-guard namespace of its own: other tests run in parallel with the same server ids.
export STEADYFLAKE_HOST_GUARD_NAMESPACE="go-test-$$"
export STEADYFLAKE_ID_VECTORS=$vectors STEADYFLAKE_TEST_DIR=$work/tmp STEADYFLAKE_VERSION=$version
cd "$here"
go vet ./...
exec go test -count=1 "${@:--v}" ./...
