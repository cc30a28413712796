# ktune_add_kernel_library: tuned kernels from a ktune database as a linkable target.
#
#   find_package(ktune REQUIRED)
#   ktune_add_kernel_library(TARGET my_kernels DB tuning.db DEVICE host
#                            SPECS gemm.json softmax.json [FALLBACK heuristic|error]
#                            [NAME my_kernels] [TEST_DATA])
#   target_link_libraries(app PRIVATE my_kernels)   # #include "my_kernels.h"
#
# At build time it runs `ktune export` (again whenever the database, a spec or ktune
# changes) into ${CMAKE_CURRENT_BINARY_DIR}/<TARGET>: lib<NAME>.a with one C function per
# spec, include/<NAME>.h, manifest.json, schedules/ and, with TEST_DATA, seeded inputs and
# reference outputs in test_data/. The export directory is also stored in the variable
# <TARGET>_EXPORT_DIR. DEVICE defaults to host, FALLBACK to heuristic (untuned workloads
# get the heuristic schedule and a warning); FALLBACK error fails the build instead.
# Relative DB and SPECS paths are relative to the current source directory.
function(ktune_add_kernel_library)
  cmake_parse_arguments(ARG "TEST_DATA" "TARGET;DB;DEVICE;FALLBACK;NAME" "SPECS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ktune_add_kernel_library: unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  foreach(required TARGET DB SPECS)
    if(NOT ARG_${required})
      message(FATAL_ERROR "ktune_add_kernel_library: ${required} is required")
    endif()
  endforeach()
  if(NOT ARG_DEVICE)
    set(ARG_DEVICE host)
  endif()
  if(NOT ARG_FALLBACK)
    set(ARG_FALLBACK heuristic)
  endif()
  if(NOT ARG_FALLBACK MATCHES "^(heuristic|error)$")
    message(FATAL_ERROR "ktune_add_kernel_library: FALLBACK must be heuristic or error, not ${ARG_FALLBACK}")
  endif()
  if(NOT ARG_NAME)
    set(ARG_NAME ${ARG_TARGET})
  endif()
  if(NOT ARG_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "ktune_add_kernel_library: NAME (default: TARGET) must be a C identifier, not ${ARG_NAME}")
  endif()
  if(NOT TARGET ktune::ktune)
    message(FATAL_ERROR "ktune_add_kernel_library: ktune::ktune is not defined; call find_package(ktune) first")
  endif()

  get_filename_component(db "${ARG_DB}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(specs)
  set(workload_flags)
  foreach(spec IN LISTS ARG_SPECS)
    get_filename_component(spec "${spec}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND specs "${spec}")
    list(APPEND workload_flags --workload "${spec}")
  endforeach()
  set(test_data_flag)
  if(ARG_TEST_DATA)
    set(test_data_flag --test-data)
  endif()

  set(out "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}")
  set(library "${out}/lib${ARG_NAME}.a")
  set(header "${out}/include/${ARG_NAME}.h")
  set(manifest "${out}/manifest.json")
  add_custom_command(
    OUTPUT "${library}" "${header}" "${manifest}"
    COMMAND ktune::ktune export --db "${db}" --device "${ARG_DEVICE}" ${workload_flags} --out "${out}"
            --name "${ARG_NAME}" --fallback "${ARG_FALLBACK}" ${test_data_flag}
    DEPENDS "${db}" ${specs} "$<TARGET_FILE:ktune::ktune>"
    COMMENT "ktune: exporting ${ARG_TARGET} from ${ARG_DB} for device ${ARG_DEVICE}"
    VERBATIM)
  add_custom_target(${ARG_TARGET}_ktune_export DEPENDS "${library}" "${header}" "${manifest}")

  # An imported library's include directory must exist when the project is configured.
  file(MAKE_DIRECTORY "${out}/include")
  add_library(${ARG_TARGET} STATIC IMPORTED GLOBAL)
  set_target_properties(${ARG_TARGET} PROPERTIES
    IMPORTED_LOCATION "${library}"
    INTERFACE_INCLUDE_DIRECTORIES "${out}/include"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS}")
  add_dependencies(${ARG_TARGET} ${ARG_TARGET}_ktune_export)
  set(${ARG_TARGET}_EXPORT_DIR "${out}" PARENT_SCOPE)
endfunction()
