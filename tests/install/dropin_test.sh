#!/usr/bin/env bash
# The drop-in tests: an existing MPI project switches to BDMPI by
# PATH or `module load` alone. Each runs on the prefix install.build made,
# in a fresh temporary directory, with an environment that has nothing of
# BDMPI but PATH (or the module):
#
#   dropin_test.sh names BUILD_DIR WORK_DIR LIBDIR
#     mpicc/mpicxx/mpic++/mpiexec/mpirun are installed and answer the
#     wrapper options of Open MPI and MPICH; a CMake project with
#     find_package(MPI) finds BDMPI's compiler, libbdmpi and mpiexec and its
#     ctest passes; a Makefile project built with CC=mpicc and a
#     configure-style check of MPI_Init work; the programs run as jobs.
#     An install with prefix /usr (into a DESTDIR) leaves the names out.
#   dropin_test.sh self_configure BUILD_DIR WORK_DIR LIBDIR
#     configuring BDMPI itself with the installed BDMPI in PATH and MPI_HOME
#     still finds Open MPI for the master, not BDMPI's own mpicc.
#   dropin_test.sh module BUILD_DIR WORK_DIR LIBDIR
#     `module load bdmpi` (Debian's environment-modules) puts BDMPI first;
#     exits 77 (skipped) when environment-modules is not installed.
#
# CMAKE_COMMAND, CC and RUN_JOB (tests/jobs/run_job.sh) come from ctest.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/install/test_lib.sh
source "$here/test_lib.sh" "$@"
run_job=${RUN_JOB:?RUN_JOB must name tests/jobs/run_job.sh}

[[ -x $prefix/bin/bdmpiexec ]] || fail "no install in $prefix; run install.build"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
quiet_log=$tmp/last.log
cd "$tmp"

# A user's shell: the system's PATH with BDMPI's bin first, nothing else
# of ours (Open MPI's mpicc and mpiexec stay in /usr/bin behind it).
user() {
  env -i HOME="$tmp" LANG=C PATH="$prefix/bin:/usr/bin:/bin" "$@"
}

expect_equal() {  # expect_equal WHAT GOT WANT
  [[ $2 == "$3" ]] || fail "$1: got '$2', want '$3'"
}

expect_contains() {  # expect_contains WHAT TEXT PART...
  local what=$1 text=$2
  shift 2
  local part
  for part in "$@"; do
    [[ $text == *"$part"* ]] || fail "$what: '$part' missing from: $text"
  done
}

# Runs hello under LAUNCHER (a path) on NN nodes of NS ranks through
# run_job.sh, which also checks that the job left nothing behind. In the
# user's PATH, where "mpirun" is BDMPI's own: a job on several nodes must
# still start its masters with Open MPI's.
run_hello() {
  local launcher=$1 nn=$2 ns=$3 program=$4 output
  step "$launcher -nn $nn -ns $ns $program"
  output=$(user "$run_job" --launcher bdmpiexec --bdmpiexec "$launcher" \
           --nn "$nn" --ns "$ns" --nr 1 --timeout 60 -- "$program" 2>&1) ||
    fail "job failed:"$'\n'"$output"
  expect_contains "$program" "$output" \
    "hello from rank $((nn * ns - 1)) of $((nn * ns))" \
    "hello: allreduce ok" "run_job: PASS"
}

check_names() {
  step "standard names in $prefix/bin"
  local name
  for name in mpicc:bdmpicc mpicxx:bdmpicxx mpic++:bdmpicxx \
              mpiexec:bdmpiexec mpirun:bdmpiexec; do
    [[ -L $prefix/bin/${name%:*} ]] || fail "not installed: bin/${name%:*}"
    expect_equal "bin/${name%:*}" "$(readlink "$prefix/bin/${name%:*}")" \
      "${name#*:}"
  done
  expect_equal "mpicc in PATH" "$(user sh -c 'command -v mpicc')" \
    "$prefix/bin/mpicc"

  step "wrapper options of Open MPI and MPICH"
  local inc=$prefix/include/bdmpi
  expect_equal "mpicc -showme:compile" "$(user mpicc -showme:compile)" \
    "-I$inc -pthread"
  expect_equal "mpicc --showme:incdirs" "$(user mpicc --showme:incdirs)" "$inc"
  expect_equal "mpicxx -showme:libdirs" "$(user mpicxx -showme:libdirs)" "$lib"
  expect_contains "mpicc -showme:link" "$(user mpicc -showme:link)" \
    "-L$lib" -lbdmpi
  expect_contains "mpicc -showme:version" "$(user mpicc -showme:version)" \
    "mpicc: BDMPI "
  local show compiler
  show=$(user mpicc -show hello.c)
  compiler=${show%% *}
  expect_contains "mpicc -show" "$show" "-I$inc" hello.c -lbdmpi
  show=$(user mpicc -compile-info -c x.c)
  expect_contains "mpicc -compile-info" "$show" "$compiler " "-I$inc" x.c
  [[ $show != *-lbdmpi* ]] || fail "mpicc -compile-info links: $show"
  expect_contains "mpicxx -link-info" "$(user mpicxx -link-info)" -lbdmpi
  expect_equal "mpicc -show-compile-info" "$(user mpicc -show-compile-info)" \
    "$(user mpicc -showme:compile)"
  expect_equal "mpic++ -show-link-info" "$(user mpic++ -show-link-info)" \
    "$(user mpic++ --showme:link)"
  expect_equal "mpicc --version" "$(user mpicc --version)" \
    "$(user "$compiler" --version)"
  if user mpicc -showme:nonsense >/dev/null 2>"$tmp/err"; then
    fail "mpicc -showme:nonsense succeeded"
  fi
  expect_contains "mpicc -showme:nonsense" "$(<"$tmp/err")" \
    "unknown option '-showme:nonsense'"

  step "find_package(MPI) in a CMake project"
  local id=dropin-ctest-$$
  # FindMPI's own MPIEXEC_NUMPROC_FLAG (-n): the test runs `mpiexec -n 2`.
  quiet user "$cmake" -S "$here/find_mpi" -B find_mpi -DHELLO_DIR="$here" \
    -DMPIEXEC_PREFLAGS="--job-id;$id"
  local found
  found=$(<find_mpi/found_mpi.txt)
  echo "$found"
  expect_contains "FindMPI" "$found" "MPI_C_COMPILER=$prefix/bin/mpicc" \
    "MPIEXEC_EXECUTABLE=$prefix/bin/mpiexec" "MPIEXEC_NUMPROC_FLAG=-n" \
    "$lib/libbdmpi.so" \
    "MPI_C_VERSION=4.1"
  quiet user "$cmake" --build find_mpi
  check_linkage find_mpi/hello
  quiet user ctest --test-dir find_mpi --output-on-failure --timeout 60
  local left
  left=$(find /dev/shm /dev/mqueue -maxdepth 1 -name "*bdmpi-$id*" 2>/dev/null)
  [[ -z $left ]] || fail "the ctest job left: $left"

  if [[ -x $prefix/bin/bdmpifort ]]; then
    check_fortran
  fi

  step "no standard names in /usr/bin (DESTDIR=$tmp/destdir, prefix /usr)"
  quiet env DESTDIR="$tmp/destdir" "$cmake" --install "$build_dir" --prefix /usr
  [[ -x $tmp/destdir/usr/bin/bdmpicc ]] || fail "DESTDIR install incomplete"
  for name in mpicc mpicxx mpic++ mpiexec mpirun mpifort mpif90 mpif77; do
    [[ ! -e $tmp/destdir/usr/bin/$name ]] || fail "installed /usr/bin/$name"
  done
  grep -q "Not installing mpicc, mpicxx, mpic++, mpiexec, mpirun into /usr/bin" \
    "$quiet_log" || fail "the install did not say why it left them out"

  step "a Makefile project with CC=mpicc"
  mkdir make_project
  cp "$here/hello.c" make_project/
  # shellcheck disable=SC2016  # make expands $(CC) and $@
  printf '%s\n' 'hello: hello.o' '	$(CC) -o $@ hello.o' \
    'hello.o: hello.c' '	$(CC) -O2 -c hello.c' >make_project/Makefile
  quiet user make -C make_project CC=mpicc
  check_linkage make_project/hello
  # CC in the environment as well: mpicc must not call itself.
  rm make_project/hello make_project/hello.o
  quiet user env CC=mpicc make -C make_project -e
  check_linkage make_project/hello
  run_hello "$prefix/bin/mpiexec" 1 3 "$tmp/make_project/hello"
  run_hello "$prefix/bin/mpirun" 2 2 "$tmp/find_mpi/hello"

  step "a configure-style check for MPI_Init"
  cp "$here/configure_check.sh" configure
  expect_contains "CC=mpicc ./configure" "$(user env CC=mpicc sh configure)" \
    "checking for mpi.h... yes" "checking for MPI_Init... yes"
  # The check itself must tell: a plain compiler has no MPI_Init.
  [[ $(user env CC="$compiler" sh configure 2>&1 || true) == \
     *"checking for MPI_Init... no"* ]] ||
    fail "configure finds MPI_Init without mpicc"
}

# The Fortran bindings (when BDMPI was built with gfortran): mpifort,
# mpif90 and mpif77 answer like mpicc, find_package(MPI COMPONENTS Fortran)
# finds all three interfaces, and pkg-config knows bdmpi-fort.
check_fortran() {
  step "Fortran: mpifort, mpif90, mpif77"
  local name inc=$prefix/include/bdmpi
  for name in mpifort mpif90 mpif77; do
    expect_equal "bin/$name" "$(readlink "$prefix/bin/$name")" bdmpifort
  done
  expect_equal "mpifort -showme:compile" "$(user mpifort -showme:compile)" \
    "-I$inc -pthread"
  expect_contains "mpif90 -showme:link" "$(user mpif90 -showme:link)" \
    "-L$lib" "-lbdmpi_f -lbdmpi"
  expect_contains "mpif77 -show" "$(user mpif77 -show x.f)" "-I$inc" x.f \
    -lbdmpi_f
  local file
  for file in mpif.h mpi.mod mpi_f08.mod; do
    [[ -f $inc/$file ]] || fail "not installed: include/bdmpi/$file"
  done
  expect_contains "pkg-config bdmpi-fort" \
    "$(user env PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags --libs \
       bdmpi-fort)" "-I$inc" -lbdmpi_f -lbdmpi

  # FindMPI takes the first of mpif90, mpif77, mpifort ... it finds.
  step "find_package(MPI COMPONENTS Fortran) in a CMake project"
  local id=dropin-fortran-$$
  quiet user "$cmake" -S "$here/find_mpi_fortran" -B find_mpi_fortran \
    -DHELLO_DIR="$here" -DMPIEXEC_PREFLAGS="--job-id;$id"
  local found
  found=$(<find_mpi_fortran/found_mpi.txt)
  echo "$found"
  expect_contains "FindMPI Fortran" "$found" \
    "MPI_Fortran_COMPILER=$prefix/bin/mpif" "$lib/libbdmpi_f.so" \
    "MPI_Fortran_HAVE_F77_HEADER=TRUE" "MPI_Fortran_HAVE_F90_MODULE=TRUE" \
    "MPI_Fortran_HAVE_F08_MODULE=TRUE" "MPIEXEC_EXECUTABLE=$prefix/bin/mpiexec"
  quiet user "$cmake" --build find_mpi_fortran
  check_linkage find_mpi_fortran/hello_f
  quiet user ctest --test-dir find_mpi_fortran --output-on-failure --timeout 60
  run_hello "$prefix/bin/mpiexec" 2 2 "$tmp/find_mpi_fortran/hello_f"
}

check_self_configure() {
  step "configure BDMPI with BDMPI's mpicc first in PATH"
  local source_dir
  source_dir=$(cd "$here/../.." && pwd)
  quiet env PATH="$prefix/bin:$PATH" MPI_HOME="$prefix" "$cmake" \
    -S "$source_dir" -B self -DBDMPI_BUILD_TESTS=OFF -DBDMPI_BUILD_BENCH=OFF
  grep -q "Not building BDMPI with BDMPI's own MPI in $prefix/bin" \
    "$quiet_log" || fail "configure did not say it skips $prefix/bin"
  local cache
  cache=$(grep -E '^(MPI_C_COMPILER|MPIEXEC_EXECUTABLE|MPI_C_LIB_NAMES):' \
          self/CMakeCache.txt)
  echo "$cache"
  [[ $cache != *"$prefix"* && $cache == *"MPI_C_LIB_NAMES:STRING=mpi"* ]] ||
    fail "BDMPI's build took BDMPI's own MPI for its master:"$'\n'"$cache"
}

check_module() {
  local init=/usr/share/modules/init/bash
  if [[ ! -r $init ]]; then
    echo "SKIP: environment-modules is not installed ($init missing);" \
      "scripts/install-deps.sh installs it"
    exit 77
  fi
  local modulefiles=$prefix/share/modulefiles
  [[ -f $(echo "$modulefiles"/bdmpi/*) ]] ||
    fail "no modulefile under $modulefiles/bdmpi"
  step "module load bdmpi"
  local out
  # shellcheck disable=SC2016  # expanded by the inner shell
  out=$(env -i HOME="$tmp" LANG=C PATH=/usr/bin:/bin bash -c '
    source '"$init"'
    module use '"$modulefiles"' && module load bdmpi || exit 1
    echo "mpicc=$(command -v mpicc)"
    echo "mpiexec=$(command -v mpiexec)"
    echo "show=$(mpicc -show hello.c)"
    printf "%s\n" "CMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH" \
      "PKG_CONFIG_PATH=$PKG_CONFIG_PATH" "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" \
      "LIBRARY_PATH=$LIBRARY_PATH" "MPI_HOME=$MPI_HOME"
    echo "pkg-config=$(pkg-config --libs bdmpi)"
    module unload bdmpi
    echo "after unload: mpicc=$(command -v mpicc || echo none)"
  ' 2>&1) || fail "module load failed:"$'\n'"$out"
  echo "$out"
  expect_contains "module load bdmpi" "$out" "mpicc=$prefix/bin/mpicc" \
    "mpiexec=$prefix/bin/mpiexec" "-lbdmpi" "-L$lib" \
    "CMAKE_PREFIX_PATH=$prefix" "PKG_CONFIG_PATH=$lib/pkgconfig" \
    "LD_LIBRARY_PATH=$lib" "LIBRARY_PATH=$lib" "MPI_HOME=$prefix" \
    "pkg-config=-Wl,-rpath,$lib -lbdmpi"
  [[ $out != *"after unload: mpicc=$prefix"* ]] ||
    fail "module unload left BDMPI's mpicc in PATH"
}

case $mode in
  names) check_names ;;
  self_configure) check_self_configure ;;
  module) check_module ;;
  *) fail "unknown mode '$mode' (names, self_configure or module)" ;;
esac
echo "PASS: dropin.$mode"
