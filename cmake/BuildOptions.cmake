# Compiler warnings, -Werror, sanitizers and debug information.
#
#   BDMPI_WERROR=ON      warnings are errors (our own code only: src, tools,
#                        tests/unit; see bdmpi_strict_warnings below)
#   BDMPI_SANITIZE=LIST  sanitizers for every target, e.g. address,undefined
#                        (scripts/test.sh --sanitize address), undefined, or
#                        thread. In such a build libbdmpi does not interpose
#                        malloc (see src/slave/CMakeLists.txt).
#   BDMPI_DEBUG_INFO=OFF no debug information (-g0) whatever the build type:
#                        for a build that only runs the tests (CI's), whose
#                        compiles then take about a third less time. The code
#                        is the same: GCC's -g does not change what it emits.

option(BDMPI_WERROR "Treat compiler warnings in BDMPI's own code as errors" OFF)
set(BDMPI_SANITIZE "" CACHE STRING
    "Sanitizers to build with: address, undefined, thread, or a comma-separated list")

# Every target, the applications and examples included.
add_compile_options(-Wall -Wextra)

option(BDMPI_DEBUG_INFO "Debug information where the build type has it (-g)" ON)
if(NOT BDMPI_DEBUG_INFO)
  # After the build type's flags on the command line, so it wins over -g.
  add_compile_options(-g0)
endif()

# The stricter set for the runtime, the tools and the unit tests; each of
# their CMakeLists.txt calls this first. -Wshadow catches a member or an
# outer variable hidden by a local; -Wconversion an implicit narrowing
# (sizes into int, 64 into 32 bits); -Wnon-virtual-dtor and
# -Woverloaded-virtual interface mistakes; -Wpointer-arith and -Wcast-qual
# byte arithmetic on void* and casts that drop const. -Wsign-conversion is
# left out: it flags every int rank or count used as an index (hundreds of
# casts that would hide the real findings).
macro(bdmpi_strict_warnings)
  add_compile_options(-Wshadow -Wconversion -Wpointer-arith -Wcast-qual -Wundef
                      $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor>
                      $<$<COMPILE_LANGUAGE:CXX>:-Woverloaded-virtual>)
  if(BDMPI_WERROR)
    add_compile_options(-Werror)
  endif()
endmacro()

set(BDMPI_SANITIZERS "")
if(BDMPI_SANITIZE)
  string(REPLACE "," ";" BDMPI_SANITIZERS "${BDMPI_SANITIZE}")
  foreach(sanitizer IN LISTS BDMPI_SANITIZERS)
    if(NOT sanitizer MATCHES "^(address|undefined|thread)$")
      message(FATAL_ERROR "BDMPI_SANITIZE: unknown sanitizer '${sanitizer}' "
                          "(use address, undefined or thread)")
    endif()
  endforeach()
  if("thread" IN_LIST BDMPI_SANITIZERS AND "address" IN_LIST BDMPI_SANITIZERS)
    message(FATAL_ERROR "BDMPI_SANITIZE: thread and address cannot be combined")
  endif()
  list(JOIN BDMPI_SANITIZERS "," sanitizers)
  add_compile_options(-fsanitize=${sanitizers} -fno-omit-frame-pointer)
  # The instrumentation makes GCC's flow analysis report uninitialised
  # values that are not (GCC 12: inside libstdc++'s std::regex and
  # std::function), which BDMPI_WERROR would turn into errors. The normal
  # build keeps the warning.
  add_compile_options(-Wno-maybe-uninitialized)
  add_link_options(-fsanitize=${sanitizers})
  if("undefined" IN_LIST BDMPI_SANITIZERS)
    # A finding fails the program (and its test) instead of scrolling by.
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()
