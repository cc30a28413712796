# Use ccache when it is installed. The sloppiness settings let ccache cache translation
# units that use a precompiled header (Halide.h), and the base directory makes paths inside
# the source tree relative, so that two checkouts of ktune share cache entries; both are
# passed through the environment because Debian 12's ccache 4.7 takes no settings on its
# command line.
find_program(KTUNE_CCACHE ccache)
if(KTUNE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      ${CMAKE_COMMAND} -E env
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      CCACHE_BASEDIR=${CMAKE_SOURCE_DIR}
      ${KTUNE_CCACHE})
  set(CMAKE_C_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} ${KTUNE_CCACHE})
  message(STATUS "ktune: using ccache at ${KTUNE_CCACHE}")
endif()
