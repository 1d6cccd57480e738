# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# Warnings are set per target (PRIVATE), never through CMAKE_CXX_FLAGS, so a project that adds
# steadyflake as a subdirectory keeps its own flags.
option(STEADYFLAKE_WERROR "Treat warnings as errors" OFF)

function(steadyflake_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion)
  if(STEADYFLAKE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# STEADYFLAKE_SANITIZE=thread|address|fuzz: instrument every steadyflake target (scripts/test
# builds the tests once under thread and address; scripts/fuzz builds with fuzz, which is
# ASan+UBSan plus libFuzzer's coverage and needs clang).
set(STEADYFLAKE_SANITIZE "" CACHE STRING
    "Sanitizer build: thread, address (ASan+UBSan), fuzz (clang: libFuzzer+ASan+UBSan) or empty")
# A sanitizer's report names file and line: a build type without debug information gets line
# tables (-g1); Debug and RelWithDebInfo keep what their flags ask for (scripts/test asks -g1 of
# its sanitizer builds: a third less compile time than -g, and the reports read the same).
set(STEADYFLAKE_SANITIZE_LINES $<$<NOT:$<CONFIG:Debug,RelWithDebInfo>>:-g1>)
function(steadyflake_sanitize target)
  if(STEADYFLAKE_SANITIZE STREQUAL "thread")
    # GCC warns (-Wtsan) at each of Boost.Asio's fenced blocks (std::atomic_thread_fence, which
    # TSan does not model): 243 lines in a build of the server and the registry. The handlers
    # they guard are ordered by Asio's scheduler lock too, which TSan does see.
    target_compile_options(${target} PRIVATE -fsanitize=thread ${STEADYFLAKE_SANITIZE_LINES}
                                             $<$<CXX_COMPILER_ID:GNU>:-Wno-tsan>)
    target_link_options(${target} PRIVATE -fsanitize=thread)
  elseif(STEADYFLAKE_SANITIZE STREQUAL "address")
    # float-cast-overflow by name: GCC leaves it out of -fsanitize=undefined (clang does not), and
    # a double beyond the integer it is converted to is undefined behaviour all the same.
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined,float-cast-overflow
                                             -fno-sanitize-recover=all -fno-omit-frame-pointer
                                             ${STEADYFLAKE_SANITIZE_LINES})
    target_link_options(${target} PRIVATE -fsanitize=address,undefined,float-cast-overflow)
  elseif(STEADYFLAKE_SANITIZE STREQUAL "fuzz")
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
      message(FATAL_ERROR "STEADYFLAKE_SANITIZE=fuzz needs clang (libFuzzer): configure with "
                          "CXX=clang++, as scripts/fuzz does")
    endif()
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link,address,undefined
                                             -fno-sanitize-recover=all -fno-omit-frame-pointer
                                             ${STEADYFLAKE_SANITIZE_LINES})
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  elseif(NOT STEADYFLAKE_SANITIZE STREQUAL "")
    message(FATAL_ERROR "STEADYFLAKE_SANITIZE must be thread, address, fuzz or empty, not '${STEADYFLAKE_SANITIZE}'")
  endif()
endfunction()
