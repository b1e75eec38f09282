# Helpers for wren's explicit build lists.
#
# Every folder of the stack (src/<module>/CMakeLists.txt) names its sources
# with wren_sources(); they collect in the global property
# WREN_STACK_SOURCES, from which each runtime builds its stack library.
# Nothing is globbed: a file is built because a list names it.

function(wren_sources)
  foreach(f ${ARGN})
    set_property(GLOBAL APPEND PROPERTY WREN_STACK_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${f})
  endforeach()
endfunction()
