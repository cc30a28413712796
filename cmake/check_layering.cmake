# cmake -DKTUNE_ROOT=<source tree> -P check_layering.cmake
# Fails (exit code 1) when a source includes against the layering of KtuneLayers.cmake:
#  - a header of a library that is not among its folder's dependencies (an upward or
#    undeclared edge), or
#  - another library's internal/ header (internal/ is private to its folder).
# tests/<folder>/ may include what <folder> may, plus <folder>'s own internal/ headers and
# tests/; tests/tools and tests/generators may include any public header.
cmake_minimum_required(VERSION 3.16)
if(NOT KTUNE_ROOT)
  message(FATAL_ERROR "check_layering.cmake: pass -DKTUNE_ROOT=<source tree>")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/KtuneLayers.cmake)

set(_violations "")

# Checks every quoted include of the files under `dir` (relative to KTUNE_ROOT).
# `own` may include its own internal/; `allowed` lists the other folders it may include.
function(_ktune_check_folder dir own allowed)
  file(GLOB_RECURSE _files RELATIVE ${KTUNE_ROOT} ${KTUNE_ROOT}/${dir}/*.h ${KTUNE_ROOT}/${dir}/*.cc
       ${KTUNE_ROOT}/${dir}/*.cpp)
  foreach(_file IN LISTS _files)
    file(STRINGS ${KTUNE_ROOT}/${_file} _includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"[a-z_]+/")
    foreach(_line IN LISTS _includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([^\"]+)\".*" "\\1" _path "${_line}")
      string(REGEX REPLACE "/.*" "" _folder "${_path}")
      if(NOT _folder IN_LIST KTUNE_LIBRARY_FOLDERS)
        continue()  # tests/..., a system folder such as CLI/ or xgboost/
      endif()
      if(_path MATCHES "^[a-z_]+/internal/" AND NOT _folder STREQUAL own)
        list(APPEND _violations "${_file}: #include \"${_path}\": internal/ headers are private to ${_folder}/")
      elseif(NOT _folder STREQUAL own AND NOT _folder IN_LIST allowed)
        list(APPEND _violations "${_file}: #include \"${_path}\": ${dir} may not depend on ${_folder} (cmake/KtuneLayers.cmake)")
      endif()
    endforeach()
  endforeach()
  set(_violations "${_violations}" PARENT_SCOPE)
endfunction()

foreach(_lib IN LISTS KTUNE_LIBRARY_FOLDERS)
  _ktune_check_folder(${_lib} ${_lib} "${KTUNE_LAYER_${_lib}}")
  if(EXISTS ${KTUNE_ROOT}/tests/${_lib} AND NOT _lib STREQUAL "tools")
    _ktune_check_folder(tests/${_lib} ${_lib} "${KTUNE_LAYER_${_lib}}")
  endif()
endforeach()
foreach(_everything tests/tools tests/generators tests/cmake_package)
  if(EXISTS ${KTUNE_ROOT}/${_everything})
    _ktune_check_folder(${_everything} "" "${KTUNE_LIBRARY_FOLDERS}")
  endif()
endforeach()

list(LENGTH _violations _count)
if(_count GREATER 0)
  list(JOIN _violations "\n  " _text)
  message(FATAL_ERROR "ktune layering: ${_count} include(s) against cmake/KtuneLayers.cmake:\n  ${_text}")
endif()
message(STATUS "ktune layering: every include follows cmake/KtuneLayers.cmake")
