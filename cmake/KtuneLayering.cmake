# Enforces cmake/KtuneLayers.cmake: at configure time every ktune_<folder> library may link
# only the ktune libraries its folder may depend on, and on every build the target
# ktune_layering (part of ALL) scans the sources' includes with check_layering.cmake, so an
# include against the direction fails the build. ktune_comment_paths, beside it, fails the
# build when a comment names a file that is not in the repository.
include(${CMAKE_CURRENT_LIST_DIR}/KtuneLayers.cmake)

function(ktune_check_link_layering)
  foreach(_lib IN LISTS KTUNE_LIBRARY_FOLDERS)
    if(NOT TARGET ktune_${_lib})
      continue()
    endif()
    get_target_property(_links ktune_${_lib} LINK_LIBRARIES)
    foreach(_link IN LISTS _links)
      if(_link MATCHES "^ktune_(.+)$" AND CMAKE_MATCH_1 IN_LIST KTUNE_LIBRARY_FOLDERS)
        if(NOT CMAKE_MATCH_1 IN_LIST KTUNE_LAYER_${_lib})
          message(FATAL_ERROR "ktune_${_lib} links ${_link}, but ${_lib} may not depend on ${CMAKE_MATCH_1} "
                              "(cmake/KtuneLayers.cmake)")
        endif()
      endif()
    endforeach()
  endforeach()
endfunction()

add_custom_target(ktune_layering ALL
  COMMAND ${CMAKE_COMMAND} -DKTUNE_ROOT=${PROJECT_SOURCE_DIR} -P ${CMAKE_CURRENT_LIST_DIR}/check_layering.cmake
  COMMENT "Checking that includes follow cmake/KtuneLayers.cmake"
  VERBATIM)

# Every file a comment names is in the tree: the target ktune_comment_paths (part of ALL)
# runs check_comment_paths.cmake on every build, so a comment that cites a moved, renamed or
# missing file fails it.
add_custom_target(ktune_comment_paths ALL
  COMMAND ${CMAKE_COMMAND} -DKTUNE_ROOT=${PROJECT_SOURCE_DIR} -P ${CMAKE_CURRENT_LIST_DIR}/check_comment_paths.cmake
  COMMENT "Checking that every file a comment names is in the repository"
  VERBATIM)
