# Precompiled standard headers for the C++ libraries and the unit tests.
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

set(_bdmpi_pch_default ON)
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(_bdmpi_pch_default OFF)
endif()
option(BDMPI_PRECOMPILE_HEADERS
       "Precompile the standard headers (default: ON without a compiler launcher)"
       ${_bdmpi_pch_default})

# The standard headers most of src/ includes (in 20 or more files).
set(BDMPI_PCH_STD_HEADERS
  <algorithm> <atomic> <cstddef> <cstdint> <cstdio> <cstdlib> <cstring>
  <functional> <map> <memory> <optional> <span> <string> <utility> <vector>)

# bdmpi_precompile_std_headers(target...): each target (of C++ sources
# only) gets its own precompiled copy of BDMPI_PCH_STD_HEADERS, built with
# its own flags.
function(bdmpi_precompile_std_headers)
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
