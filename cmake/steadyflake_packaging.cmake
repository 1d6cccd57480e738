# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Debian packages from the build tree: `cpack -G DEB` (docs/packaging.md). Included from the
# top-level CMakeLists.txt after the install rules, whose COMPONENTs make one package each:
#   runtime -> libsteadyflake0     libsteadyflake_c.so.<SOVERSION>, the C ABI (the one shared
#                                  library: the engine, merge checker and registry are C++
#                                  libraries with no stable ABI, linked statically)
#   dev     -> libsteadyflake-dev  headers, static libraries, the CMake package, the .so link
#   tools   -> steadyflake-tools   the `steadyflake` CLI and steadyflake-server
# Runtime dependencies come from dpkg-shlibdeps (CPACK_DEBIAN_PACKAGE_SHLIBDEPS), never by
# hand; only libsteadyflake-dev names its own, the -dev packages a consumer of the static
# libraries and of steadyflakeConfig.cmake's find_dependency() calls needs.

set(STEADYFLAKE_PACKAGE_MAINTAINER "The steadyflake Authors <steadyflake@example.org>" CACHE STRING
    "Maintainer field of the Debian packages (a studio's own packages name their own)")
set(STEADYFLAKE_PACKAGE_RELEASE 1 CACHE STRING
    "Debian revision of the packages: <version>-<revision>")

set(steadyflake_deb_version ${PROJECT_VERSION}-${STEADYFLAKE_PACKAGE_RELEASE})
set(steadyflake_deb_files ${PROJECT_BINARY_DIR}/packaging)

# Each package's /usr/share/doc/<package>/: the copyright file (machine-readable, pointing at
# Debian's copy of the licence) and a changelog.Debian.gz, which Debian policy asks of every
# package. EXCLUDE_FROM_ALL: only cpack's per-component install puts them in; a plain
# `cmake --install` keeps its share/doc/steadyflake/LICENSE alone.
file(CONFIGURE OUTPUT ${steadyflake_deb_files}/copyright CONTENT [=[
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: steadyflake

Files: *
Copyright: 2026 The steadyflake Authors.
License: Apache-2.0

License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may not use this
 file except in compliance with the License.
 .
 Unless required by applicable law or agreed to in writing, software distributed under
 the License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
 KIND, either express or implied. See the License for the specific language governing
 permissions and limitations under the License.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0 can be found in
 "/usr/share/common-licenses/Apache-2.0".
]=] @ONLY)
# The date honours SOURCE_DATE_EPOCH, so a reproducible build gets the same changelog.
string(TIMESTAMP steadyflake_deb_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(CONFIGURE OUTPUT ${steadyflake_deb_files}/changelog.Debian CONTENT [=[
steadyflake (@steadyflake_deb_version@) unstable; urgency=medium

  * Built with cpack -G DEB from the steadyflake @PROJECT_VERSION@ source tree.

 -- @STEADYFLAKE_PACKAGE_MAINTAINER@  @steadyflake_deb_date@
]=] @ONLY)
# gzip -9n: best compression and no name or time stamp in the header, as policy asks.
find_program(STEADYFLAKE_GZIP gzip REQUIRED)
execute_process(COMMAND ${STEADYFLAKE_GZIP} -9nc ${steadyflake_deb_files}/changelog.Debian
                OUTPUT_FILE ${steadyflake_deb_files}/changelog.Debian.gz
                RESULT_VARIABLE steadyflake_gzip_rc)
if(NOT steadyflake_gzip_rc EQUAL 0)
  message(FATAL_ERROR "gzip failed (${steadyflake_gzip_rc}) on ${steadyflake_deb_files}/changelog.Debian")
endif()

# steadyflake_deb_component(COMPONENT PACKAGE SECTION SUMMARY DESCRIPTION): one package.
function(steadyflake_deb_component component package section summary description)
  string(TOUPPER ${component} upper)
  set(CPACK_DEBIAN_${upper}_PACKAGE_NAME ${package} PARENT_SCOPE)
  set(CPACK_DEBIAN_${upper}_PACKAGE_SECTION ${section} PARENT_SCOPE)
  # First line: the synopsis; the rest: the extended description.
  set(CPACK_COMPONENT_${upper}_DESCRIPTION "${summary}\n${description}" PARENT_SCOPE)
  install(FILES ${steadyflake_deb_files}/copyright ${steadyflake_deb_files}/changelog.Debian.gz
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package}
          COMPONENT ${component} EXCLUDE_FROM_ALL)
endfunction()

set(CPACK_COMPONENTS_ALL dev)
if(STEADYFLAKE_BUILD_CAPI)
  list(APPEND CPACK_COMPONENTS_ALL runtime)
  steadyflake_deb_component(runtime libsteadyflake0 libs
    "64-bit time-ordered ID generator for game servers - C library"
    "libsteadyflake_c, the C ABI of steadyflake (steadyflake/c.h): a thread-safe
generator of 64-bit, time-ordered IDs, unique across every server of a game,
for game code in C and in languages with a C FFI (Lua, Go, C#).")
  # A binary built against this SONAME depends on exactly this version: before 1.0 the
  # SONAME changes with the minor version, and the package name does not follow it.
  set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
  set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")
  # ldconfig runs through dpkg's trigger, as policy asks of a package with a public shared
  # library (CMake 3.25's CPack also writes postinst/postrm that call it: harmless).
  file(WRITE ${steadyflake_deb_files}/triggers "activate-noawait ldconfig\n")
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA ${steadyflake_deb_files}/triggers)
  set(CPACK_COMPONENT_DEV_DEPENDS runtime)
endif()
steadyflake_deb_component(dev libsteadyflake-dev libdevel
  "64-bit time-ordered ID generator for game servers - development files"
  "Headers, static libraries (the engine and the merge checker) and the CMake
package (find_package(steadyflake)) of steadyflake, and the link to
libsteadyflake_c for C programs.")
# The static merge checker's private dependencies are the consumer's to link, and
# steadyflakeConfig.cmake finds them (find_dependency): their -dev packages, by hand.
if(STEADYFLAKE_BUILD_MERGECHECK)
  set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
      "libsqlite3-dev, zlib1g-dev, libicu-dev, libxxhash-dev, nlohmann-json3-dev, liburing-dev")
endif()
if(STEADYFLAKE_BUILD_TOOLS OR STEADYFLAKE_BUILD_SERVER)
  list(APPEND CPACK_COMPONENTS_ALL tools)
  steadyflake_deb_component(tools steadyflake-tools utils
    "64-bit time-ordered ID generator for game servers - tools"
    "The steadyflake command-line tool (layout, gen, decode, and merge-check and
merge-plan for merging game shards) and steadyflake-server, the sample game
server.")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME steadyflake)
set(CPACK_PACKAGE_VENDOR "The steadyflake Authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${STEADYFLAKE_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${STEADYFLAKE_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_RELEASE ${STEADYFLAKE_PACKAGE_RELEASE})
set(CPACK_DEBIAN_PACKAGE_SOURCE steadyflake)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Binaries and the shared library without their debug sections, as Debian ships them; the
# static libraries too (CMake's install strips only those two kinds), by a script run on the
# staging folder: their debug sections are nine tenths of the merge checker's 66 MB.
set(CPACK_STRIP_FILES ON)
set(CPACK_STEADYFLAKE_STRIP ${CMAKE_STRIP})
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/steadyflake_deb_strip.cmake)
include(CPack)
