# Faster builds from scratch: precompiled standard headers and unity builds
# for the C++ libraries (and precompiled googletest for the unit tests).
#
# Parsing the standard headers (and googletest's) is a good part of what
# compiling one of BDMPI's smaller C++ files costs (precompiled, the 48 files
# of src/common and src/collectives took a fifth less CPU), and a build from
# scratch (CI's: two cores, no compiler cache) compiles some 250. With a compiler
# cache the headers are parsed only on a miss, while ccache cannot cache a
# file compiled with a precompiled header unless told to be sloppy about
# it, so BDMPI_PRECOMPILE_HEADERS defaults to OFF when a compiler launcher
# is set, ON otherwise. Builds with and without it compile the same code:
# a file that forgets an include still fails in the cached build.
#
# A unity build compiles a library's files in batches of eight, each batch
# as one file: the project's own headers and the templates they instantiate
# are compiled once per batch instead of once per file (measured on the five
# libraries, from scratch with precompiled headers: 145 CPU-s against 229).
# It suits a build from scratch only: a change to one file recompiles its
# batch, and a file that forgets an include may compile through the file
# before it in the batch. So BDMPI_UNITY_BUILD follows the same default,
# and the cached builds (one file per unit) keep both honest. Files of one
# library share a batch, so they may not define two functions or types of
# one name, even in anonymous namespaces.

set(_bdmpi_fast_build_default ON)
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(_bdmpi_fast_build_default OFF)
endif()
option(BDMPI_PRECOMPILE_HEADERS
       "Precompile the standard headers (default: ON without a compiler launcher)"
       ${_bdmpi_fast_build_default})

# The standard headers most of src/ includes (in 20 or more files).
set(BDMPI_PCH_STD_HEADERS
  <algorithm> <atomic> <cstddef> <cstdint> <cstdio> <cstdlib> <cstring>
  <functional> <map> <memory> <optional> <span> <string> <utility> <vector>)

option(BDMPI_UNITY_BUILD
       "Compile the C++ libraries in batches of files (default: ON without a compiler launcher)"
       ${_bdmpi_fast_build_default})

# Files per unit; 0 puts each library in one, which shows every clash of
# names a library has whatever the batches (the check to run after adding
# a file or a helper in an anonymous namespace).
set(BDMPI_UNITY_BATCH_SIZE 8 CACHE STRING "Files per unit of a unity build (0: all)")

# bdmpi_fast_build(target...): each target (of C++ sources only) gets its
# own precompiled copy of BDMPI_PCH_STD_HEADERS, built with its own flags,
# and is a unity build.
function(bdmpi_fast_build)
  if(BDMPI_UNITY_BUILD)
    set_target_properties(${ARGN} PROPERTIES UNITY_BUILD ON
                          UNITY_BUILD_BATCH_SIZE ${BDMPI_UNITY_BATCH_SIZE})
  endif()
  if(NOT BDMPI_PRECOMPILE_HEADERS)
    return()
  endif()
  foreach(target IN LISTS ARGN)
    target_precompile_headers(${target} PRIVATE ${BDMPI_PCH_STD_HEADERS})
    # GCC 12 does not keep a precompiled header's system-header status for
    # code it inlines from it, and then reports its known false positives
    # on std::string's operator+ and assignments (char_traits.h: "forming
    # offset ... out of the bounds", "writing 18 bytes into a region of size
    # 16"), which the same files compiled without the header do not get.
    # Builds with a compiler cache (no precompiled headers) keep these
    # warnings for BDMPI's own code.
    target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overflow
                                             -Wno-stringop-overread)
  endforeach()
endfunction()
