# Every dependency comes from Debian 12 packages (scripts/setup.sh installs them).
find_package(Halide 14 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(ISL REQUIRED IMPORTED_TARGET isl)
find_package(SQLite3 REQUIRED)
find_package(TBB REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)
# Open MPI (openmpi-bin, libopenmpi-dev) for tuning across machines; optional: without it
# ktune tune runs on one machine.
find_package(MPI COMPONENTS CXX)
if(MPI_CXX_FOUND)
  message(STATUS "ktune: MPI ${MPI_CXX_VERSION} found: mpirun ktune tune measures on several ranks")
else()
  message(STATUS "ktune: MPI not found: ktune tune measures on this machine only")
endif()

# Debian's xgboost CMake config references a binary the package does not ship and fails
# even with QUIET, so find the C library directly.
find_library(KTUNE_XGBOOST_LIB xgboost REQUIRED)
find_path(KTUNE_XGBOOST_INCLUDE xgboost/c_api.h REQUIRED)
add_library(ktune_xgboost SHARED IMPORTED)
set_target_properties(ktune_xgboost PROPERTIES IMPORTED_LOCATION ${KTUNE_XGBOOST_LIB}
                                               INTERFACE_INCLUDE_DIRECTORIES ${KTUNE_XGBOOST_INCLUDE})

# Libraries that include Halide.h use this precompiled header.
function(ktune_use_halide_pch target)
  target_precompile_headers(${target} PRIVATE <Halide.h>)
endfunction()
