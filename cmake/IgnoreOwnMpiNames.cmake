# BDMPI's master (bdmprun) is an Open MPI program, found with find_package(MPI).
# Once BDMPI is installed and its bin directory is in PATH (export PATH=...,
# module load bdmpi), the mpicc and mpiexec there are BDMPI's own
# and FindMPI would take them: the master would link libbdmpi. So every
# directory of PATH and MPI_HOME whose mpicc says it is BDMPI's is hidden
# from the find_* commands. Included by the root CMakeLists.txt before
# find_package(MPI).
set(_bdmpi_search_dirs "$ENV{PATH}")
string(REPLACE ":" ";" _bdmpi_search_dirs "${_bdmpi_search_dirs}")
if(DEFINED ENV{MPI_HOME})
  list(APPEND _bdmpi_search_dirs "$ENV{MPI_HOME}/bin")
endif()
foreach(_dir IN LISTS _bdmpi_search_dirs)
  if(NOT _dir OR NOT EXISTS "${_dir}/mpicc" OR _dir IN_LIST CMAKE_IGNORE_PATH)
    continue()
  endif()
  execute_process(COMMAND "${_dir}/mpicc" -showme:version
                  OUTPUT_VARIABLE _bdmpi_version ERROR_QUIET
                  RESULT_VARIABLE _bdmpi_result)
  if(_bdmpi_result EQUAL 0 AND _bdmpi_version MATCHES "BDMPI")
    message(STATUS "Not building BDMPI with BDMPI's own MPI in ${_dir}")
    list(APPEND CMAKE_IGNORE_PATH "${_dir}")
  endif()
endforeach()
