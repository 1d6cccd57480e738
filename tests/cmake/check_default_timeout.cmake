# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# A plain `ctest` ends a hanging test within 5 minutes (issue 16.7): the default timeout that
# include(CTest) wrote into the build folder's DartConfiguration.tcl must be set and at most
# 300 s. Run by CTest as `cmake -DDART_CONFIG=<file> -P check_default_timeout.cmake`.
file(STRINGS "${DART_CONFIG}" lines REGEX "^TimeOut: ")
if(NOT lines)
  message(FATAL_ERROR "${DART_CONFIG} has no TimeOut line: a plain ctest would wait forever "
                      "for a hanging test; set DART_TESTING_TIMEOUT before include(CTest)")
endif()
string(REGEX REPLACE "^TimeOut: *" "" seconds "${lines}")
if(NOT seconds MATCHES "^[0-9]+$" OR seconds EQUAL 0 OR seconds GREATER 300)
  message(FATAL_ERROR "${DART_CONFIG} gives a plain ctest a timeout of '${seconds}' s, not 1-300: "
                      "set DART_TESTING_TIMEOUT (top-level CMakeLists.txt) to 300 or less")
endif()
message(STATUS "a plain ctest ends a hanging test after ${seconds} s")
