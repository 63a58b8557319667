# Installation and packaging: headers, libbdmpi (shared + static), bdmprun,
# bdmpiexec, the compiler wrappers bdmpicc / bdmpicxx, the standard names
# mpicc / mpicxx / mpic++ / mpiexec / mpirun, the CMake package
# (find_package(BDMPI) -> BDMPI::mpi, BDMPI::mpi_static), bdmpi.pc and an
# environment module.
#
# Included at the end of the root CMakeLists.txt, after every target exists.
# Each target is installed only if it is defined, so this file also works
# while parts of the tree are still missing. Target definitions stay where
# they are; what installation needs on top of them (install-time include
# directory, export names, install rpath) is set here.

include(CMakePackageConfigHelpers)

# Our mpi.h goes into its own folder, never next to another MPI's mpi.h in
# <prefix>/include; the wrappers, the CMake package and bdmpi.pc add it.
set(BDMPI_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/bdmpi)
set(BDMPI_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/BDMPI)
set(BDMPI_INSTALL_PKGCONFIGDIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ---------------------------------------------------------------- headers

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/
        DESTINATION ${BDMPI_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")

# -------------------------------------------------------------- libraries

# The libraries of this project that `target` links, directly or through
# other such libraries. A static libbdmpi.a needs them at the user's link
# step (and CMake refuses to export it otherwise), so they are installed and
# exported with it.
function(bdmpi_internal_deps target out_var)
  set(found "")
  set(pending ${target})
  set(seen ${target})
  while(pending)
    list(POP_FRONT pending current)
    get_target_property(links ${current} LINK_LIBRARIES)
    get_target_property(iface_links ${current} INTERFACE_LINK_LIBRARIES)
    foreach(item IN LISTS links iface_links)
      # Unwrap $<LINK_ONLY:x> and $<BUILD_INTERFACE:x>, the only generator
      # expressions that name a target in a plain link list.
      string(REGEX REPLACE "^\\$<(LINK_ONLY|BUILD_INTERFACE):(.*)>$" "\\2"
                           item "${item}")
      if(NOT TARGET "${item}" OR "${item}" IN_LIST seen)
        continue()
      endif()
      list(APPEND seen ${item})
      get_target_property(imported ${item} IMPORTED)
      get_target_property(type ${item} TYPE)
      if(NOT imported AND type MATCHES "^(STATIC|OBJECT|INTERFACE)_LIBRARY$")
        list(APPEND found ${item})
        list(APPEND pending ${item})
      endif()
    endforeach()
  endwhile()
  set(${out_var} ${found} PARENT_SCOPE)
endfunction()

# Include directories given as plain source/build paths cannot be exported;
# keep them for the build tree only.
function(bdmpi_build_only_includes target)
  get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT dirs)
    return()
  endif()
  set(wrapped "")
  foreach(dir IN LISTS dirs)
    if(dir MATCHES "^\\$<")
      list(APPEND wrapped "${dir}")
    else()
      list(APPEND wrapped "$<BUILD_INTERFACE:${dir}>")
    endif()
  endforeach()
  set_property(TARGET ${target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES
                                         "${wrapped}")
endfunction()

set(_bdmpi_exported "")
set(_bdmpi_internal_libs "")

foreach(_lib bdmpi bdmpi_static)
  if(NOT TARGET ${_lib})
    continue()
  endif()
  bdmpi_build_only_includes(${_lib})
  target_include_directories(${_lib}
    INTERFACE $<INSTALL_INTERFACE:${BDMPI_INSTALL_INCLUDEDIR}>)
  list(APPEND _bdmpi_exported ${_lib})
  bdmpi_internal_deps(${_lib} _deps)
  list(APPEND _bdmpi_internal_libs ${_deps})
endforeach()
list(REMOVE_DUPLICATES _bdmpi_internal_libs)

# BDMPI::mpi is the shared library, BDMPI::mpi_static the static one; the
# same names work inside this build tree through the aliases.
foreach(_lib_and_name bdmpi:mpi bdmpi_static:mpi_static)
  string(REPLACE ":" ";" _lib_and_name ${_lib_and_name})
  list(GET _lib_and_name 0 _lib)
  list(GET _lib_and_name 1 _name)
  if(TARGET ${_lib})
    set_property(TARGET ${_lib} PROPERTY EXPORT_NAME ${_name})
    if(NOT TARGET BDMPI::${_name})
      add_library(BDMPI::${_name} ALIAS ${_lib})
    endif()
  endif()
endforeach()
foreach(_lib IN LISTS _bdmpi_internal_libs)
  bdmpi_build_only_includes(${_lib})
  list(APPEND _bdmpi_exported ${_lib})
endforeach()

# The Fortran bindings (src/fortran), when built: BDMPI::mpi_fortran, with
# mpif.h and the .mod files beside mpi.h.
if(TARGET bdmpi_f)
  target_include_directories(bdmpi_f
    INTERFACE $<INSTALL_INTERFACE:${BDMPI_INSTALL_INCLUDEDIR}>)
  set_target_properties(bdmpi_f PROPERTIES
    EXPORT_NAME mpi_fortran INSTALL_RPATH "$ORIGIN")
  if(NOT TARGET BDMPI::mpi_fortran)
    add_library(BDMPI::mpi_fortran ALIAS bdmpi_f)
  endif()
  list(APPEND _bdmpi_exported bdmpi_f)
  install(FILES ${BDMPI_FORTRAN_INCLUDE_DIR}/mpif.h
          DESTINATION ${BDMPI_INSTALL_INCLUDEDIR})
  install(DIRECTORY ${BDMPI_FORTRAN_INCLUDE_DIR}/
          DESTINATION ${BDMPI_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.mod")
endif()

if(_bdmpi_exported)
  install(TARGETS ${_bdmpi_exported}
          EXPORT BDMPITargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          OBJECTS DESTINATION ${CMAKE_INSTALL_LIBDIR}/bdmpi-objects
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# --------------------------------------------------------------- programs

# bdmpiexec finds bdmprun next to itself, so both go to bin. Installed
# programs find libbdmpi (and an MPI outside the system paths) by rpath.
file(RELATIVE_PATH _bdmpi_bin_to_lib
     ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
foreach(_prog bdmprun bdmpiexec)
  if(NOT TARGET ${_prog})
    continue()
  endif()
  set_target_properties(${_prog} PROPERTIES
    INSTALL_RPATH "$ORIGIN/${_bdmpi_bin_to_lib}"
    INSTALL_RPATH_USE_LINK_PATH TRUE)
  if(_prog STREQUAL "bdmpiexec")
    # BDMPI::bdmpiexec lets a user's CMake project run jobs in add_test().
    install(TARGETS ${_prog} EXPORT BDMPITargets
            RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  else()
    install(TARGETS ${_prog} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

# ------------------------------------------------------- compiler wrappers

# Each wrapper is generated twice from the same template: into build/bin,
# pointing at the source include/ and build/lib, and for installation, where
# the script finds its prefix from its own location (so an installed tree
# may be moved).
set(_bdmpi_wrapper_dir ${PROJECT_SOURCE_DIR}/tools/wrappers)
set(_bdmpi_exec_perms OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                      GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
file(READ ${_bdmpi_wrapper_dir}/wrapper_body.sh.in _bdmpi_body_template)

# A path in the installed wrapper: relative ones hang off the run-time
# ${prefix}, absolute ones (a user's -DCMAKE_INSTALL_LIBDIR=/x) stay as given.
function(bdmpi_wrapper_path dir out_var)
  if(IS_ABSOLUTE "${dir}")
    set(${out_var} "${dir}" PARENT_SCOPE)
  else()
    set(${out_var} "\${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

set(_bdmpi_wrappers bdmpicc bdmpicxx)
if(TARGET bdmpi_f)
  list(APPEND _bdmpi_wrappers bdmpifort)
  set(BDMPI_DEFAULT_FC ${CMAKE_Fortran_COMPILER})
  set(BDMPI_FORTRAN_COMPILER_VERSION ${CMAKE_Fortran_COMPILER_VERSION})
endif()
foreach(_wrapper IN LISTS _bdmpi_wrappers)
  foreach(_where build install)
    if(_where STREQUAL "build")
      set(BDMPI_WRAPPER_FIND_PREFIX "")
      set(BDMPI_WRAPPER_INCLUDEDIR ${PROJECT_SOURCE_DIR}/include)
      set(BDMPI_WRAPPER_LIBDIR ${PROJECT_BINARY_DIR}/lib)
      set(BDMPI_WRAPPER_FORTRAN_INCLUDEDIR "${BDMPI_FORTRAN_INCLUDE_DIR}")
      set(_out ${PROJECT_BINARY_DIR}/bin/${_wrapper})
    else()
      file(RELATIVE_PATH _bin_to_prefix
           ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_PREFIX})
      if(NOT _bin_to_prefix)
        set(_bin_to_prefix .)
      endif()
      set(BDMPI_WRAPPER_FIND_PREFIX
          "prefix=$(CDPATH= cd -- \"$(dirname -- \"$(readlink -f -- \"$0\")\")/${_bin_to_prefix}\" && pwd)")
      bdmpi_wrapper_path(${BDMPI_INSTALL_INCLUDEDIR} BDMPI_WRAPPER_INCLUDEDIR)
      bdmpi_wrapper_path(${CMAKE_INSTALL_LIBDIR} BDMPI_WRAPPER_LIBDIR)
      set(BDMPI_WRAPPER_FORTRAN_INCLUDEDIR "${BDMPI_WRAPPER_INCLUDEDIR}")
      set(_out ${PROJECT_BINARY_DIR}/wrappers/${_wrapper})
    endif()
    # What bdmpifort adds (after the prefix is known in the installed one).
    set(BDMPI_WRAPPER_LANG_SETTINGS "")
    if(_wrapper STREQUAL "bdmpifort")
      set(BDMPI_WRAPPER_LANG_SETTINGS
          "lang_includedir=\"${BDMPI_WRAPPER_FORTRAN_INCLUDEDIR}\"\nlang_libs=bdmpi_f")
    endif()
    set(BDMPI_DEFAULT_CC ${CMAKE_C_COMPILER})
    set(BDMPI_DEFAULT_CXX ${CMAKE_CXX_COMPILER})
    string(CONFIGURE "${_bdmpi_body_template}" BDMPI_WRAPPER_BODY @ONLY)
    configure_file(${_bdmpi_wrapper_dir}/${_wrapper}.in ${_out} @ONLY
                   FILE_PERMISSIONS ${_bdmpi_exec_perms})
  endforeach()
  install(PROGRAMS ${PROJECT_BINARY_DIR}/wrappers/${_wrapper}
          DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()

# ------------------------------------------------------- standard MPI names

# mpicc, mpicxx, mpic++, mpiexec and mpirun (and mpifort, mpif90, mpif77
# with the Fortran bindings) as links to our wrappers and launcher, so that
# an MPI project switches to BDMPI by PATH alone.
# They go into BDMPI's own bin directory only: in /usr/bin or
# /usr/local/bin they would shadow the system's MPI for every user, so an
# install there leaves them out and says so.
option(BDMPI_MPI_ALIASES
       "Install mpicc, mpicxx, mpic++, mpiexec and mpirun as BDMPI's" ON)
set(_bdmpi_aliases mpicc:bdmpicc mpicxx:bdmpicxx mpic++:bdmpicxx
                   mpiexec:bdmpiexec mpirun:bdmpiexec)
if(TARGET bdmpi_f)
  list(APPEND _bdmpi_aliases mpifort:bdmpifort mpif90:bdmpifort
                             mpif77:bdmpifort)
endif()
if(BDMPI_MPI_ALIASES)
  foreach(_alias IN LISTS _bdmpi_aliases)
    string(REPLACE ":" ";" _alias ${_alias})
    list(GET _alias 0 _name)
    list(GET _alias 1 _target)
    file(CREATE_LINK ${_target} ${PROJECT_BINARY_DIR}/bin/${_name} SYMBOLIC)
  endforeach()
  install(CODE "
    set(_bin \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
    if(IS_ABSOLUTE \"${CMAKE_INSTALL_BINDIR}\")
      set(_bin \"${CMAKE_INSTALL_BINDIR}\")
    endif()
    get_filename_component(_bin \"\${_bin}\" ABSOLUTE)
    if(_bin MATCHES \"^(/usr|/usr/local)?/bin$\")
      message(STATUS \"Not installing mpicc, mpicxx, mpic++, mpiexec, mpirun \"
              \"into \${_bin}: they would replace the system's MPI there. \"
              \"Install BDMPI into a prefix of its own (e.g. /opt/bdmpi) \"
              \"to get them.\")
    else()
      foreach(_alias ${_bdmpi_aliases})
        string(REPLACE \":\" \";\" _alias \${_alias})
        list(GET _alias 0 _name)
        list(GET _alias 1 _target)
        set(_link \"\$ENV{DESTDIR}\${_bin}/\${_name}\")
        message(STATUS \"Installing: \${_link} -> \${_target}\")
        file(CREATE_LINK \${_target} \${_link} SYMBOLIC)
      endforeach()
    endif()
  ")
else()
  foreach(_alias IN LISTS _bdmpi_aliases)
    string(REGEX REPLACE ":.*" "" _name ${_alias})
    file(REMOVE ${PROJECT_BINARY_DIR}/bin/${_name})
  endforeach()
endif()

# ---------------------------------------------------------- CMake package

if(_bdmpi_exported)
  install(EXPORT BDMPITargets
          NAMESPACE BDMPI::
          DESTINATION ${BDMPI_INSTALL_CMAKEDIR})
endif()
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/BDMPIConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/BDMPIConfig.cmake
  INSTALL_DESTINATION ${BDMPI_INSTALL_CMAKEDIR}
  PATH_VARS BDMPI_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
# 0.x releases may change the ABI between minor versions.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/BDMPIConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/BDMPIConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/BDMPIConfigVersion.cmake
        DESTINATION ${BDMPI_INSTALL_CMAKEDIR})

# ------------------------------------------------------------- pkg-config

# A static link against libbdmpi.a also needs the project's internal static
# libraries, the C++ runtime (libbdmpi is C++), rt/pthread and libm (for the
# jemalloc inside it, cmake/Jemalloc.cmake).
set(BDMPI_PC_LIBS_PRIVATE "")
foreach(_lib IN LISTS _bdmpi_internal_libs)
  get_target_property(_type ${_lib} TYPE)
  if(NOT _type STREQUAL "STATIC_LIBRARY")
    continue()
  endif()
  get_target_property(_name ${_lib} OUTPUT_NAME)
  if(NOT _name)
    set(_name ${_lib})
  endif()
  string(APPEND BDMPI_PC_LIBS_PRIVATE "-l${_name} ")
endforeach()
string(APPEND BDMPI_PC_LIBS_PRIVATE "-lstdc++ -pthread -lrt -lm -lhwloc")

# bdmpi.pc and the environment module carry absolute paths, so
# they are written at install time, when the final prefix (`cmake --install
# build --prefix P`) is known. Both read ${prefix}/dir the same way (a
# pkg-config variable, a Tcl variable).
set(_bdmpi_pc_in ${PROJECT_SOURCE_DIR}/cmake/bdmpi.pc.in)
set(_bdmpi_pc_out ${PROJECT_BINARY_DIR}/cmake/bdmpi.pc)
set(_bdmpi_module_in ${PROJECT_SOURCE_DIR}/cmake/bdmpi.modulefile.in)
set(_bdmpi_module_out ${PROJECT_BINARY_DIR}/cmake/modulefile/${PROJECT_VERSION})
install(CODE "
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  set(BDMPI_PC_LIBS_PRIVATE \"${BDMPI_PC_LIBS_PRIVATE}\")
  set(BDMPI_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  foreach(_kind INCLUDEDIR LIBDIR BINDIR)
    if(_kind STREQUAL INCLUDEDIR)
      set(_dir \"${BDMPI_INSTALL_INCLUDEDIR}\")
    elseif(_kind STREQUAL LIBDIR)
      set(_dir \"${CMAKE_INSTALL_LIBDIR}\")
    else()
      set(_dir \"${CMAKE_INSTALL_BINDIR}\")
    endif()
    if(IS_ABSOLUTE \"\${_dir}\")
      set(BDMPI_PC_\${_kind} \"\${_dir}\")
    else()
      set(BDMPI_PC_\${_kind} \"\\\${prefix}/\${_dir}\")
    endif()
  endforeach()
  configure_file(\"${_bdmpi_pc_in}\" \"${_bdmpi_pc_out}\" @ONLY)
  configure_file(\"${_bdmpi_module_in}\" \"${_bdmpi_module_out}\" @ONLY)
")
install(FILES ${_bdmpi_pc_out} DESTINATION ${BDMPI_INSTALL_PKGCONFIGDIR})
if(TARGET bdmpi_f)
  set(_bdmpi_fort_pc_out ${PROJECT_BINARY_DIR}/cmake/bdmpi-fort.pc)
  install(CODE "
    set(BDMPI_PC_FORTRAN_COMPILER
        \"${CMAKE_Fortran_COMPILER_ID} ${CMAKE_Fortran_COMPILER_VERSION}\")
    configure_file(\"${PROJECT_SOURCE_DIR}/cmake/bdmpi-fort.pc.in\"
                   \"${_bdmpi_fort_pc_out}\" @ONLY)
  ")
  install(FILES ${_bdmpi_fort_pc_out}
          DESTINATION ${BDMPI_INSTALL_PKGCONFIGDIR})
endif()
install(FILES ${_bdmpi_module_out}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/modulefiles/bdmpi)
