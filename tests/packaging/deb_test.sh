#!/usr/bin/env bash
# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# CTest's packaging.deb (tests/packaging/CMakeLists.txt): the Debian packages of
# docs/packaging.md, made from the build tree and used as a studio would use them.
#   deb_test.sh BUILD_DIR SOURCE_DIR WORK_DIR DEB_VERSION SONAME LIBDIR CONFIG GENERATOR CXX CC
# 1. `cpack -G DEB` into WORK_DIR/out: exactly libsteadyflake0, libsteadyflake-dev and
#    steadyflake-tools, named <package>_<DEB_VERSION>_<arch>.deb, with their control fields,
#    dependencies (dpkg-shlibdeps' for the binaries, the runtime of the same version for -dev),
#    shlibs and ldconfig trigger; what each ships, and no file in two packages;
# 2. all three extracted (dpkg-deb -x) into a fresh root, and only that root used: the
#    find_package consumer (tests/find_package/consumer) and the C consumer built against it
#    and run; the extracted `steadyflake --version` and `steadyflake-server --help`;
# 3. lintian on the three packages: any error (E:) fails; warnings are printed and pass
#    (docs/packaging.md lists the ones left in, and why).
# CMAKE and CPACK (environment) name the build's own cmake and cpack; default: those on PATH.
# Exits 0 pass, 1 fail, 77 (skipped) when a Debian tool it needs is missing.
set -euo pipefail
cmake=${CMAKE:-cmake} cpack=${CPACK:-cpack}

for tool in dpkg-deb:dpkg dpkg-shlibdeps:dpkg-dev file:file lintian:lintian; do
  if ! command -v "${tool%%:*}" >/dev/null 2>&1; then
    echo "SKIP: ${tool%%:*} not found; install the Debian package ${tool#*:} (scripts/setup installs it)"
    exit 77
  fi
done
if (($# != 10)); then
  echo "usage: deb_test.sh BUILD_DIR SOURCE_DIR WORK_DIR DEB_VERSION SONAME LIBDIR CONFIG GENERATOR CXX CC" >&2
  exit 1
fi
build=$1 source=$2 work=$3 version=$4 soname=$5 libdir=$6 config=$7 generator=$8 cxx=$9 cc=${10}
upstream=${version%-*}
arch=$(dpkg --print-architecture)
runtime=libsteadyflake0 dev=libsteadyflake-dev tools=steadyflake-tools
# Consumers open generators: a host-guard namespace of their own (engine/src/host_guard.h).
export STEADYFLAKE_HOST_GUARD_NAMESPACE="deb-test-$$"

fail() {
  echo "deb_test: FAIL: $*" >&2
  exit 1
}
# run LOG COMMAND...: runs the command with its output in LOG, shown only if it fails.
run() {
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    fail "$* (log: $log)"
  fi
}

rm -rf "$work"
mkdir -p "$work/out" "$work/root"
out=$work/out root=$work/root

# 1. The packages.
run "$work/cpack.log" "$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$out"
deb() { echo "$out/${1}_${version}_${arch}.deb"; }
made() { (cd "$out" && echo *.deb); }
for package in $runtime $dev $tools; do
  [[ -f $(deb "$package") ]] || fail "cpack made no $(basename "$(deb "$package")"); it made: $(made)"
done
count=$(find "$out" -maxdepth 1 -name '*.deb' | wc -l)
((count == 3)) || fail "cpack made $count packages, expected 3: $(made)"

field() { dpkg-deb -f "$(deb "$1")" "$2"; }
expect_field() { # PACKAGE FIELD VALUE
  local got
  got=$(field "$1" "$2")
  [[ $got == "$3" ]] || fail "$1: $2 is '$got', expected '$3'"
}
expect_depends() { # PACKAGE DEPENDENCY...: each the start of one of Depends' entries
  local package=$1 depends
  shift
  depends=", $(field "$package" Depends)"
  for want in "$@"; do
    [[ $depends == *", $want"* ]] || fail "$package: Depends lacks '$want': ${depends:2}"
  done
}
for package in $runtime $dev $tools; do
  expect_field "$package" Package "$package"
  expect_field "$package" Version "$version"
  expect_field "$package" Architecture "$arch"
  expect_field "$package" Source steadyflake
  [[ -n $(field "$package" Maintainer) ]] || fail "$package has no Maintainer"
  [[ $(field "$package" Description) == *$'\n '* ]] || fail "$package has no extended Description"
done
expect_field $runtime Section libs
expect_field $dev Section libdevel
expect_field $tools Section utils
# dpkg-shlibdeps' answer, with the versions it reads from the libraries' symbols files.
expect_depends $runtime "libc6 (>= " "libstdc++6 (>= "
expect_depends $tools "libc6 (>= " "libstdc++6 (>= " "libsqlite3-0 (>= " \
  "libboost-program-options" "libicu" "libssl3 (>= " "zlib1g (>= " "libxxhash0 (>= "
# -dev: the library of exactly this build, and what steadyflakeConfig.cmake finds.
expect_depends $dev "$runtime (= $version)" libsqlite3-dev zlib1g-dev libicu-dev libxxhash-dev \
  nlohmann-json3-dev
control() { dpkg-deb --ctrl-tarfile "$(deb "$1")" | tar -xO "./$2" 2>/dev/null || true; }
soversion=${soname#libsteadyflake_c.so.}
[[ $(control $runtime shlibs) == "libsteadyflake_c $soversion $runtime (= $version)" ]] ||
  fail "$runtime: shlibs is '$(control $runtime shlibs)'"
[[ $(control $runtime triggers) == *"activate-noawait ldconfig"* ]] ||
  fail "$runtime: no ldconfig trigger"

# What each package ships (files and links; `dpkg-deb -c` has the path in column 6).
contents() { dpkg-deb -c "$(deb "$1")" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./||' | sort; }
for package in $runtime $dev $tools; do
  contents "$package" >"$work/$package.files"
done
expect_files() { # PACKAGE PATH...
  local package=$1
  shift
  for path in "$@"; do
    grep -qx "$path" "$work/$package.files" || fail "$package does not ship $path"
  done
}
for package in $runtime $dev $tools; do
  expect_files "$package" "usr/share/doc/$package/copyright" \
    "usr/share/doc/$package/changelog.Debian.gz"
done
expect_files $runtime "usr/$libdir/$soname" "usr/$libdir/libsteadyflake_c.so.$upstream"
headers=()
while IFS= read -r -d '' header; do
  headers+=("usr/include/steadyflake/${header#*/include/steadyflake/}")
done < <(find "$source/engine/include" "$source/mergecheck/include" "$source/capi/include" \
  -name '*.h' -print0)
expect_files $dev "${headers[@]}" usr/include/steadyflake/version.h \
  "usr/$libdir/libsteadyflake.a" "usr/$libdir/libsteadyflake_mergecheck.a" \
  "usr/$libdir/libsteadyflake_c.so" "usr/$libdir/cmake/steadyflake/steadyflakeConfig.cmake" \
  "usr/$libdir/cmake/steadyflake/steadyflakeConfigVersion.cmake" \
  "usr/$libdir/cmake/steadyflake/steadyflakeTargets.cmake"
expect_files $tools usr/bin/steadyflake usr/bin/steadyflake-server
# The runtime is the library alone: no header, no -l link, nothing a newer -dev could clash on.
extra=$(grep -v -x -e "usr/$libdir/$soname" -e "usr/$libdir/libsteadyflake_c.so.$upstream" \
  -e "usr/share/doc/$runtime/.*" "$work/$runtime.files" || true)
[[ -z $extra ]] || fail "$runtime ships more than the library: $extra"
if grep -q '^usr/bin/' "$work/$dev.files"; then
  fail "$dev ships a program: $(grep '^usr/bin/' "$work/$dev.files")"
fi
# dpkg refuses to install two packages that ship one path.
shared=$(sort "$work/$runtime.files" "$work/$dev.files" "$work/$tools.files" | uniq -d)
[[ -z $shared ]] || fail "more than one package ships: $shared"

# 2. A fresh root holding the three packages and nothing else.
for package in $runtime $dev $tools; do
  dpkg-deb -x "$(deb "$package")" "$root"
done
lib=$root/usr/$libdir
got_soname=$(readelf -d "$lib/$soname" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ $got_soname == "$soname" ]] || fail "$lib/$soname has SONAME '$got_soname', expected $soname"
for archive in "$lib"/*.a; do
  # Into a variable, not a pipe: grep -q would close it early, and pipefail take that as failure.
  sections=$(objdump -h "$archive")
  if [[ $sections == *.debug_info* ]]; then
    fail "$archive keeps its debug sections (the packaging's strip script did not run)"
  fi
done
export LD_LIBRARY_PATH=$lib

# The C++ consumer through find_package(steadyflake), steadyflake::c included.
run "$work/consumer-configure.log" "$cmake" -S "$source/tests/find_package/consumer" \
  -B "$work/consumer" -G "$generator" -DCMAKE_BUILD_TYPE="$config" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DSTEADYFLAKE_CONSUMER_CAPI=ON
found=$(sed -n 's/^steadyflake_DIR:[A-Z]*=//p' "$work/consumer/CMakeCache.txt")
[[ $found == "$root/usr/"* ]] || fail "find_package found steadyflake in '$found', not in $root/usr"
run "$work/consumer-build.log" "$cmake" --build "$work/consumer" -j 2
for program in consumer consumer17; do
  (cd "$work" && run "$work/$program.log" "$work/consumer/$program")
done

# The C consumer: the packaged header, the -dev link and the runtime's library, one command.
run "$work/c-consumer-build.log" "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror \
  "$source/tests/find_package/c_consumer/main.c" -I"$root/usr/include" -L"$lib" -lsteadyflake_c \
  -o "$work/c_consumer"
[[ $(ldd "$work/c_consumer") == *"$soname => $lib/$soname"* ]] ||
  fail "c_consumer does not load the extracted $soname: $(ldd "$work/c_consumer")"
run "$work/c_consumer.log" "$work/c_consumer"
grep -q "steadyflake $upstream (C ABI)" "$work/c_consumer.log" ||
  fail "c_consumer did not report version $upstream: $(cat "$work/c_consumer.log")"

# The tools, from the root.
got=$("$root/usr/bin/steadyflake" --version) || fail "steadyflake --version failed: $got"
[[ $got == "steadyflake $upstream" ]] || fail "steadyflake --version printed '$got'"
run "$work/server-help.log" "$root/usr/bin/steadyflake-server" --help
grep -q -- '--server-id' "$work/server-help.log" || fail "steadyflake-server --help shows no usage"

# 3. lintian. Its status: 0 no error, 1 errors found, anything else it could not check.
rc=0
lintian --fail-on error --tag-display-limit 0 "$(deb $runtime)" "$(deb $dev)" "$(deb $tools)" \
  >"$work/lintian.log" 2>&1 || rc=$?
grep -E '^[EW]: ' "$work/lintian.log" || true
if ((rc == 1)) || grep -q '^E: ' "$work/lintian.log"; then
  fail "lintian found errors (above)"
elif ((rc != 0)); then
  cat "$work/lintian.log" >&2
  fail "lintian could not check the packages (status $rc)"
fi
echo "deb_test: the three packages build, install into a fresh root and serve their users"
