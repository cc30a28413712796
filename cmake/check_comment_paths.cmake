# cmake -DKTUNE_ROOT=<source tree> -P check_comment_paths.cmake
# Fails (exit code 1) when a comment names a repository file that is not there: in every
# .h, .cc, .js, .cmake, .sh, .py, CMakeLists.txt and .in template of the tree (build folders,
# .git and tests/data left out), the text after `//` (C++, JavaScript) or `#` (the others)
# is searched for names ending in .h, .cc, .cmake, .md, .sh, .py or .json, and each is
# checked:
#  - a path (`scheduler/space.h`, `internal/child_process.h`) whose first folder exists at
#    the top of the tree, beside the file or in the file's top-level folder must exist
#    relative to one of those three (or be generated from its `<path>.in` template);
#  - a bare name (`json_export.cc`, `README.md`) must be the name of some file in the
#    tree (or of its `<name>.in` template); bare .json names are examples of user files;
#  - placeholders are skipped: a first word in capitals (`DIR/manifest.json`,
#    `RESULTS.json`), `<name>.h`, `*.json`, `${dir}/x.h`, absolute paths and URLs, and the
#    names in KTUNE_NAMES_NOT_IN_TREE below.
cmake_minimum_required(VERSION 3.16)
if(NOT KTUNE_ROOT)
  message(FATAL_ERROR "check_comment_paths.cmake: pass -DKTUNE_ROOT=<source tree>")
endif()

# Files comments may name that are not the repository's: Halide's and CUDA's headers, and
# files ktune and its tests write into their output folders.
set(KTUNE_NAMES_NOT_IN_TREE Halide.h HalideRuntime.h HalideBuffer.h cuda.h run.cc check.cc my_kernels.h
                            demo_tuned.schedule.h)
set(_extensions "h|cc|cmake|md|sh|py|json")

# The tree's files, relative to KTUNE_ROOT, without build folders, .git and tests/data.
file(GLOB _top RELATIVE ${KTUNE_ROOT} ${KTUNE_ROOT}/*)
set(_all_files "")
foreach(_entry IN LISTS _top)
  if(_entry MATCHES "^(build.*|\\..*)$")
    continue()
  endif()
  if(IS_DIRECTORY ${KTUNE_ROOT}/${_entry})
    file(GLOB_RECURSE _files RELATIVE ${KTUNE_ROOT} ${KTUNE_ROOT}/${_entry}/*)
    list(APPEND _all_files ${_files})
  else()
    list(APPEND _all_files ${_entry})
  endif()
endforeach()
set(_names "")
set(_sources "")
foreach(_file IN LISTS _all_files)
  get_filename_component(_name ${_file} NAME)
  list(APPEND _names ${_name})
  if(_file MATCHES "^tests/data/")
    continue()
  endif()
  if(_name MATCHES "\\.(h|cc|js|cmake|sh|py)(\\.in)?$" OR _name STREQUAL "CMakeLists.txt")
    list(APPEND _sources ${_file})
  endif()
endforeach()
list(REMOVE_DUPLICATES _names)

# True in `out` when `path` (relative) names a folder or file under one of `bases`.
function(_ktune_exists_under out path bases)
  foreach(_base IN LISTS bases)
    if(EXISTS ${KTUNE_ROOT}/${_base}/${path})
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} FALSE PARENT_SCOPE)
endfunction()

# Appends to `_violations` when `token`, named in a comment of `file`, is not there.
function(_ktune_check_token file token)
  if(token MATCHES "^[<>*{}$%/]" OR token MATCHES "^\\." OR token IN_LIST KTUNE_NAMES_NOT_IN_TREE)
    return()  # a placeholder, an absolute path or URL, `.schedule.h`, a file from elsewhere
  endif()
  if(NOT token MATCHES "\\.(${_extensions})$")
    return()  # `x.hpp`, `y.json5`: another extension
  endif()
  get_filename_component(_dir ${file} DIRECTORY)
  string(REGEX REPLACE "/.*" "" _top_folder "${file}")
  set(_bases "." "${_dir}" "${_top_folder}")
  if(token MATCHES "/")
    string(REGEX REPLACE "/.*" "" _first "${token}")
    if(_first MATCHES "^[A-Z][A-Z0-9_]*$")
      return()  # DIR/manifest.json
    endif()
    _ktune_exists_under(_repository_path "${_first}" "${_bases}")
    if(NOT _repository_path)
      return()  # test_data/check.cc: a folder ktune writes, not one of the tree's
    endif()
    _ktune_exists_under(_found "${token}" "${_bases}")
    if(NOT _found)
      _ktune_exists_under(_found "${token}.in" "${_bases}")
    endif()
  else()
    if(token MATCHES "\\.json$" OR token MATCHES "^[A-Z][A-Z0-9_]*\\.")
      return()  # gemm.json, RESULTS.json: a user's file
    endif()
    if(token IN_LIST _names OR "${token}.in" IN_LIST _names)
      set(_found TRUE)
    else()
      set(_found FALSE)
    endif()
  endif()
  if(NOT _found)
    set(_violations ${_violations} "${file}: names ${token}, which is not in the repository" PARENT_SCOPE)
  endif()
endfunction()

set(_violations "")
foreach(_file IN LISTS _sources)
  file(READ ${KTUNE_ROOT}/${_file} _text)
  # Characters that CMake lists treat specially become harmless ones before splitting lines.
  string(REPLACE "\\" "/" _text "${_text}")
  string(REPLACE ";" "," _text "${_text}")
  string(REPLACE "[" "(" _text "${_text}")
  string(REPLACE "]" ")" _text "${_text}")
  if(_file MATCHES "\\.(h|cc|js)(\\.in)?$")
    string(REGEX MATCHALL "//[^\n]*\\.(${_extensions})[^\n]*" _comments "${_text}")
  else()
    string(REGEX MATCHALL "(^|[ \t\n])#[^\n]*\\.(${_extensions})[^\n]*" _comments "${_text}")
  endif()
  foreach(_comment IN LISTS _comments)
    string(REGEX MATCHALL "[<>*{}$%]?[A-Za-z0-9_./+-]*[A-Za-z0-9_]\\.(${_extensions})[A-Za-z0-9_]*" _tokens
           "${_comment}")
    foreach(_token IN LISTS _tokens)
      _ktune_check_token(${_file} "${_token}")
    endforeach()
  endforeach()
endforeach()

list(LENGTH _violations _count)
if(_count GREATER 0)
  list(REMOVE_DUPLICATES _violations)
  list(JOIN _violations "\n  " _text)
  message(FATAL_ERROR "ktune comment paths: comments name files that are not in the repository:\n  ${_text}")
endif()
message(STATUS "ktune comment paths: every file a comment names is in the repository")
