# jemalloc inside libbdmpi: the small-object allocator of the storage arena
# (src/slave/memory/heap.cpp).
#
# Debian's libjemalloc is built unprefixed: its objects define malloc, free,
# operator new, ... themselves. libbdmpi's own malloc family must be the
# only one in a program, and jemalloc must be reachable only through the
# arena libbdmpi gives it. So the objects of libjemalloc_pic.a are copied
# with every symbol they define renamed to bdmpi_je_<name> (references
# among them follow; references to the C library stay), and become objects
# of libbdmpi itself, shared and static alike: a program links nothing more
# than -lm, jemalloc's names cannot clash with a jemalloc or another
# allocator the program links itself, and the version script keeps them out
# of libbdmpi.so's exports.
#
# Also removed: jemalloc's constructor, which would initialise it at load
# time in every process; libbdmpi initialises it at the first small
# allocation of a rank whose storage is on, and never otherwise. And the C++
# operators (jemalloc_cpp): libstdc++'s call malloc, which is libbdmpi's.
#
# Sets BDMPI_JEMALLOC_OBJECTS (the renamed objects) and
# BDMPI_JEMALLOC_INCLUDE_DIR (jemalloc.h, for its types and flags).

find_file(BDMPI_JEMALLOC_PIC_ARCHIVE libjemalloc_pic.a
          PATH_SUFFIXES lib/${CMAKE_LIBRARY_ARCHITECTURE} lib)
find_path(BDMPI_JEMALLOC_INCLUDE_DIR jemalloc/jemalloc.h)
if(NOT BDMPI_JEMALLOC_PIC_ARCHIVE OR NOT BDMPI_JEMALLOC_INCLUDE_DIR)
  message(FATAL_ERROR "jemalloc's position-independent archive (libjemalloc_pic.a) "
          "or jemalloc/jemalloc.h not found: install libjemalloc-dev "
          "(scripts/install-deps.sh)")
endif()
find_program(BDMPI_OBJCOPY NAMES objcopy REQUIRED)
find_program(BDMPI_NM NAMES nm REQUIRED)

set(_je_dir ${PROJECT_BINARY_DIR}/jemalloc)
set(_je_stamp ${_je_dir}/source.txt)
file(TIMESTAMP ${BDMPI_JEMALLOC_PIC_ARCHIVE} _je_time UTC)
set(_je_source "${BDMPI_JEMALLOC_PIC_ARCHIVE} ${_je_time} v1")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${BDMPI_JEMALLOC_PIC_ARCHIVE})

execute_process(COMMAND ${CMAKE_AR} t ${BDMPI_JEMALLOC_PIC_ARCHIVE}
                OUTPUT_VARIABLE _je_members RESULT_VARIABLE _je_rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _je_rc EQUAL 0)
  message(FATAL_ERROR "cannot list ${BDMPI_JEMALLOC_PIC_ARCHIVE}")
endif()
string(REPLACE "\n" ";" _je_members "${_je_members}")
list(REMOVE_ITEM _je_members jemalloc_cpp.pic.o)

set(BDMPI_JEMALLOC_OBJECTS "")
foreach(_member IN LISTS _je_members)
  list(APPEND BDMPI_JEMALLOC_OBJECTS ${_je_dir}/bdmpi_${_member})
endforeach()

set(_je_current "")
if(EXISTS ${_je_stamp})
  file(READ ${_je_stamp} _je_current)
endif()
if(NOT _je_current STREQUAL _je_source)
  file(REMOVE_RECURSE ${_je_dir})
  file(MAKE_DIRECTORY ${_je_dir}/raw)
  execute_process(COMMAND ${BDMPI_NM} -g --defined-only ${BDMPI_JEMALLOC_PIC_ARCHIVE}
                  OUTPUT_VARIABLE _je_nm RESULT_VARIABLE _je_rc)
  if(NOT _je_rc EQUAL 0)
    message(FATAL_ERROR "nm failed on ${BDMPI_JEMALLOC_PIC_ARCHIVE}")
  endif()
  # "address type name" lines; the DWARF personality references are
  # link-once helpers, left as they are.
  string(REGEX MATCHALL "[0-9a-fA-F]* [A-Za-z] [^\n]+" _je_defs "${_je_nm}")
  set(_je_renames "")
  foreach(_def IN LISTS _je_defs)
    string(REGEX REPLACE "^[0-9a-fA-F]* [A-Za-z] " "" _name "${_def}")
    if(_name MATCHES "^DW\\.ref\\.")
      continue()
    endif()
    string(APPEND _je_renames "${_name} bdmpi_je_${_name}\n")
  endforeach()
  file(WRITE ${_je_dir}/renames.txt "${_je_renames}")
  foreach(_member IN LISTS _je_members)
    execute_process(COMMAND ${CMAKE_AR} x ${BDMPI_JEMALLOC_PIC_ARCHIVE} ${_member}
                    WORKING_DIRECTORY ${_je_dir}/raw RESULT_VARIABLE _je_rc)
    set(_extra "")
    if(_member STREQUAL "jemalloc.pic.o")
      set(_extra --remove-section=.init_array --remove-section=.rela.init_array)
    endif()
    if(_je_rc EQUAL 0)
      execute_process(COMMAND ${BDMPI_OBJCOPY} --redefine-syms=${_je_dir}/renames.txt
                              ${_extra} ${_je_dir}/raw/${_member} ${_je_dir}/bdmpi_${_member}
                      RESULT_VARIABLE _je_rc)
    endif()
    if(NOT _je_rc EQUAL 0)
      message(FATAL_ERROR "cannot copy ${_member} of ${BDMPI_JEMALLOC_PIC_ARCHIVE} "
              "with renamed symbols")
    endif()
  endforeach()
  file(REMOVE_RECURSE ${_je_dir}/raw)
  file(WRITE ${_je_stamp} "${_je_source}")
endif()
