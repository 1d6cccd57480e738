# Copyright 2026 The steadyflake Authors.
# SPDX-License-Identifier: Apache-2.0
#
# CPACK_PRE_BUILD_SCRIPTS of the Debian packages (cmake/steadyflake_packaging.cmake): strips
# the debug sections from every static library in cpack's staging folder, as Debian's dh_strip
# does (symbols stay: a consumer links against them).
if(NOT CPACK_STEADYFLAKE_STRIP)
  message(FATAL_ERROR "steadyflake_deb_strip.cmake: no strip program (CMAKE_STRIP is empty)")
endif()
file(GLOB_RECURSE archives "${CPACK_TEMPORARY_DIRECTORY}/*.a")
foreach(archive IN LISTS archives)
  execute_process(COMMAND ${CPACK_STEADYFLAKE_STRIP} --strip-debug --remove-section=.comment
                          --remove-section=.note --enable-deterministic-archives ${archive}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "steadyflake_deb_strip.cmake: strip failed (${rc}) on ${archive}")
  endif()
endforeach()
