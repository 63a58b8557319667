#!/usr/bin/env bash
# The install test (tests/install/CMakeLists.txt registers it twice).
#
#   install_test.sh build BUILD_DIR WORK_DIR LIBDIR
#     installs BUILD_DIR into WORK_DIR/prefix and compiles the hello programs
#     with bdmpicc/bdmpicxx, with a CMake project using find_package(BDMPI)
#     and with pkg-config; lists them in WORK_DIR/programs.
#   install_test.sh run BUILD_DIR WORK_DIR LIBDIR
#     runs each listed program under the installed bdmpiexec.
#
# CC, CXX and CMAKE_COMMAND come from the environment (set by ctest).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/install/test_lib.sh
source "$here/test_lib.sh" "$@"
quiet_log=$work/last_command.log
cc=${CC:-cc}
cxx=${CXX:-c++}

contains() {  # contains TEXT WORD...: every WORD is a word of TEXT
  local text=" $1 " word
  shift
  for word in "$@"; do
    [[ $text == *" $word "* ]] || fail "'$word' missing from: $1"
  done
}

install_and_build() {
  rm -rf "$work"
  mkdir -p "$work"
  cd "$work"

  step "cmake --install $build_dir --prefix $prefix"
  quiet "$cmake" --install "$build_dir" --prefix "$prefix"
  for file in bin/bdmpicc bin/bdmpicxx bin/bdmpiexec bin/bdmprun \
              include/bdmpi/mpi.h "$libdir/libbdmpi.so" \
              "$libdir/cmake/BDMPI/BDMPIConfig.cmake" \
              "$libdir/cmake/BDMPI/BDMPIConfigVersion.cmake" \
              "$libdir/cmake/BDMPI/BDMPITargets.cmake" \
              "$libdir/pkgconfig/bdmpi.pc"; do
    [[ -e $prefix/$file ]] || fail "not installed: $file"
  done
  # Our mpi.h must never sit where another MPI's would be found.
  [[ ! -e $prefix/include/mpi.h ]] || fail "mpi.h installed into include/"

  step "bdmpicc -show"
  local show
  show=$("$prefix/bin/bdmpicc" -show hello.c -o hello)
  echo "$show"
  contains "$show" "-I$prefix/include/bdmpi" hello.c -o hello \
    "-L$lib" "-Wl,-rpath,$lib" -lbdmpi
  [[ $("$prefix/bin/bdmpicc" -showme hello.c) == "$("$prefix/bin/bdmpicc" -show hello.c)" ]] ||
    fail "-showme differs from -show"
  show=$("$prefix/bin/bdmpicc" -show -c hello.c)
  contains "$show" "-I$prefix/include/bdmpi" -c hello.c
  [[ $show != *-lbdmpi* ]] || fail "-c must not link: $show"
  show=$(BDMPI_CC="env $cc" "$prefix/bin/bdmpicc" -show x.c)
  [[ $show == "env $cc "* ]] || fail "BDMPI_CC not honoured: $show"
  show=$(CC="$prefix/bin/bdmpicc" BDMPI_CC="" "$prefix/bin/bdmpicc" -show x.c)
  [[ $show != *bin/bdmpicc* ]] || fail "CC=bdmpicc would recurse: $show"
  show=$("$prefix/bin/bdmpicxx" -show hello.cpp)
  contains "$show" "-I$prefix/include/bdmpi" hello.cpp -lbdmpi

  step "compile with bdmpicc and bdmpicxx"
  quiet "$prefix/bin/bdmpicc" -O2 -Wall -Werror -o hello_c "$here/hello.c"
  quiet "$prefix/bin/bdmpicc" -O2 -c -o hello_split.o "$here/hello.c"
  quiet "$prefix/bin/bdmpicc" -o hello_split hello_split.o
  quiet "$prefix/bin/bdmpicxx" -O2 -Wall -Werror -std=c++17 -o hello_cxx \
    "$here/hello.cpp"
  check_linkage hello_c
  check_linkage hello_split
  check_linkage hello_cxx

  step "find_package(BDMPI) with CMAKE_PREFIX_PATH=$prefix"
  quiet "$cmake" -S "$here/consumer" -B consumer \
    -DCMAKE_PREFIX_PATH="$prefix" -DHELLO_DIR="$here" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx"
  quiet "$cmake" --build consumer
  check_linkage consumer/hello_cmake_c
  check_linkage consumer/hello_cmake_cxx
  local programs=(hello_c hello_split hello_cxx consumer/hello_cmake_c
                  consumer/hello_cmake_cxx)
  if [[ -e $lib/libbdmpi.a ]]; then
    [[ -x consumer/hello_cmake_static ]] ||
      fail "libbdmpi.a is installed but BDMPI::mpi_static did not link"
    [[ $(ldd consumer/hello_cmake_static) != *libbdmpi.so* ]] ||
      fail "hello_cmake_static loads libbdmpi.so"
    programs+=(consumer/hello_cmake_static)
  fi

  step "pkg-config --cflags --libs bdmpi"
  local flags
  flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags --libs bdmpi)
  echo "$flags"
  contains "$flags" "-I$prefix/include/bdmpi" "-L$lib" -lbdmpi
  # shellcheck disable=SC2086  # $flags is a list of words
  quiet "$cc" -O2 -o hello_pc "$here/hello.c" $flags
  check_linkage hello_pc
  programs+=(hello_pc)

  printf '%s\n' "${programs[@]}" >programs
  echo "built: ${programs[*]}"
}

run_programs() {
  cd "$work"
  [[ -s programs ]] || fail "nothing to run; install.build did not finish"
  step "bdmpiexec --help"
  quiet "$prefix/bin/bdmpiexec" --help
  local program output
  while read -r program; do
    step "bdmpiexec -ns 2 -nr 1 $program"
    if ! output=$(timeout 120 "$prefix/bin/bdmpiexec" -ns 2 -nr 1 \
                  "$work/$program" 2>&1); then
      echo "$output" >&2
      fail "$program failed under bdmpiexec"
    fi
    echo "$output"
    [[ $output == *"hello from rank 0 of 2"* &&
       $output == *"hello from rank 1 of 2"* &&
       $output == *"hello: allreduce ok"* ]] ||
      fail "$program: unexpected output"
  done <programs
}

case $mode in
  build) install_and_build ;;
  run) run_programs ;;
  *) fail "unknown mode '$mode' (build or run)" ;;
esac
echo "PASS: install.$mode"
