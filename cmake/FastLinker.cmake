# Links with mold where it is installed: the build has some 290 links
# (bdmprun, libbdmpi, every test and benchmark program), and with debug
# information GNU ld spends about 1.2 s on each of the larger ones against
# 0.3 s for mold. BDMPI_LINKER=default keeps the compiler's own linker.

set(BDMPI_LINKER "auto" CACHE STRING "Linker: auto (mold if found), mold, or default")
set_property(CACHE BDMPI_LINKER PROPERTY STRINGS auto mold default)

if(NOT BDMPI_LINKER STREQUAL "default")
  include(CheckLinkerFlag)
  check_linker_flag(C "-fuse-ld=mold" BDMPI_HAVE_MOLD)
  if(BDMPI_HAVE_MOLD)
    add_link_options(-fuse-ld=mold)
    message(STATUS "Linking with mold")
  elseif(BDMPI_LINKER STREQUAL "mold")
    message(FATAL_ERROR "BDMPI_LINKER=mold, but the compiler cannot link with "
                        "-fuse-ld=mold (install Debian's mold package)")
  endif()
endif()
