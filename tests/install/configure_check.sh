#!/bin/sh
# configure_check.sh -- the two checks an autotools project makes before it
# uses MPI (AC_CHECK_HEADER(mpi.h) and AC_CHECK_FUNC(MPI_Init), as AX_MPI
# does), written out the way autoconf generates them, so that the drop-in
# test needs no autoconf. Run as `CC=mpicc sh configure`.
: "${CC:=cc}"

printf 'checking for mpi.h... '
printf '#include <mpi.h>\nint main(void) { return 0; }\n' >conftest.c
if $CC -c conftest.c -o conftest.o >>config.log 2>&1; then
  echo yes
else
  echo no
fi

# autoconf declares the function with a made-up prototype, so that only the
# link decides.
printf 'checking for MPI_Init... '
printf '%s\n' '#ifdef __cplusplus' 'extern "C"' '#endif' 'char MPI_Init ();' \
  'int main (void) { return MPI_Init (); }' >conftest.c
if $CC -o conftest conftest.c >>config.log 2>&1; then
  echo yes
else
  echo no
  exit 1
fi
