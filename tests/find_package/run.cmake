# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# cmake -P script behind the find_package_consumer test (see CMakeLists.txt beside it).
# Inputs: STEADYFLAKE_BUILD_DIR, CONSUMER_SOURCE_DIR, WORK_DIR, CONFIG, GENERATOR, CXX_COMPILER,
# LINK_FLAGS (may be empty); with the C ABI built, C_COMPILER, C_CONSUMER_SOURCE, INCLUDEDIR
# and LIBDIR (C_COMPILER empty: no C ABI to check); DOCDIR, where LICENSE must be installed;
# README, whose marked examples are built and run.
cmake_minimum_required(VERSION 3.20)

foreach(var STEADYFLAKE_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run.cmake: ${var} is not set")
  endif()
endforeach()
if("${CONFIG}" STREQUAL "")
  set(CONFIG RelWithDebInfo)
endif()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/build)
# Start clean, so an install from an earlier run cannot make this one pass.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run)
  list(JOIN ARGV " " command)
  message(STATUS "find_package_consumer: ${command}")
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "find_package_consumer: failed (${rc}): ${command}")
  endif()
endfunction()

# The C++ consumer links steadyflake::c too when the build has the C ABI.
set(consumer_capi OFF)
if(NOT "${C_COMPILER}" STREQUAL "")
  set(consumer_capi ON)
endif()

run(${CMAKE_COMMAND} --install ${STEADYFLAKE_BUILD_DIR} --prefix ${prefix} --config ${CONFIG})
# The licence travels with the libraries.
if(NOT "${DOCDIR}" STREQUAL "" AND NOT EXISTS ${prefix}/${DOCDIR}/LICENSE)
  message(FATAL_ERROR "find_package_consumer: cmake --install did not install ${DOCDIR}/LICENSE")
endif()
# The README's examples: each ```cpp block right after a line `<!-- example: NAME.cpp -->`,
# written to readme/NAME.cpp for the consumer project to build (README_EXAMPLES_DIR).
set(examples_dir ${WORK_DIR}/readme)
set(example_names "")
if(NOT "${README}" STREQUAL "")
  file(MAKE_DIRECTORY ${examples_dir})
  file(READ ${README} text)
  while(TRUE)
    string(FIND "${text}" "<!-- example: " at)
    if(at EQUAL -1)
      break()
    endif()
    string(SUBSTRING "${text}" ${at} -1 text)
    string(REGEX MATCH "^<!-- example: ([a-z0-9_]+)\\.cpp -->\n```cpp\n" header "${text}")
    if(header STREQUAL "")
      message(FATAL_ERROR "find_package_consumer: ${README}: an `<!-- example: NAME.cpp -->` "
                          "line must be followed by a ```cpp block")
    endif()
    set(name ${CMAKE_MATCH_1})
    string(LENGTH "${header}" header_length)
    string(SUBSTRING "${text}" ${header_length} -1 text)
    string(FIND "${text}" "\n```" end)
    string(SUBSTRING "${text}" 0 ${end} code)
    file(WRITE ${examples_dir}/${name}.cpp "${code}\n")
    list(APPEND example_names ${name})
  endwhile()
  list(LENGTH example_names example_count)
  if(example_count LESS 2)
    message(FATAL_ERROR "find_package_consumer: ${README} has ${example_count} marked examples, "
                        "expected at least 2 (game_server, game_loop)")
  endif()
endif()

run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${consumer_build} -G "${GENERATOR}"
    -DCMAKE_BUILD_TYPE=${CONFIG}
    -DREADME_EXAMPLES_DIR=${examples_dir}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_PREFIX_PATH=${prefix}
    "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}"
    -DSTEADYFLAKE_CONSUMER_CAPI=${consumer_capi})

# The package must come from the prefix just installed, not from one found elsewhere.
file(STRINGS ${consumer_build}/CMakeCache.txt found_dir REGEX "^steadyflake_DIR:")
string(REGEX REPLACE "^[^=]*=" "" found_dir "${found_dir}")
file(REAL_PATH "${prefix}" real_prefix)
file(REAL_PATH "${found_dir}" real_found_dir)
string(FIND "${real_found_dir}" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR
          "find_package_consumer: steadyflake was found in ${found_dir}, not under ${prefix}")
endif()

run(${CMAKE_COMMAND} --build ${consumer_build} --config ${CONFIG})
set(programs consumer consumer17)
foreach(name ${example_names})
  list(APPEND programs readme_${name})
endforeach()
foreach(program ${programs})
  set(path ${consumer_build}/${program})
  if(EXISTS ${consumer_build}/${CONFIG}/${program})
    set(path ${consumer_build}/${CONFIG}/${program})  # multi-config generators
  endif()
  # In WORK_DIR: the README's examples keep their state folder in the current one.
  message(STATUS "find_package_consumer: ${path}")
  execute_process(COMMAND ${path} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "find_package_consumer: ${program} failed (${rc})")
  endif()
endforeach()

# The C ABI as a C user without CMake meets it: the installed header and shared library, one
# compiler command, and the program runs (found through its rpath, not LD_LIBRARY_PATH).
if(NOT "${C_COMPILER}" STREQUAL "")
  foreach(file ${prefix}/${INCLUDEDIR}/steadyflake/c.h ${prefix}/${LIBDIR}/libsteadyflake_c.so)
    if(NOT EXISTS ${file})
      message(FATAL_ERROR "find_package_consumer: cmake --install did not install ${file}")
    endif()
  endforeach()
  separate_arguments(c_link_flags UNIX_COMMAND "${LINK_FLAGS}")
  run(${C_COMPILER} -std=c11 -Wall -Wextra -Wpedantic -Werror ${C_CONSUMER_SOURCE}
      -I${prefix}/${INCLUDEDIR} -L${prefix}/${LIBDIR} -lsteadyflake_c
      -Wl,-rpath,${prefix}/${LIBDIR} ${c_link_flags} -o ${WORK_DIR}/c_consumer)
  run(${WORK_DIR}/c_consumer)
endif()
