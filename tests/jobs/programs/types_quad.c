/*
 * types_quad: the 16-byte Fortran kinds from C: MPI_REAL16 (gfortran's
 * REAL(16), IEEE binary128: C's __float128, not the x87 long double),
 * MPI_COMPLEX32 (two of them) and MPI_INTEGER16 (__int128; Open MPI 4.1
 * has no MPI_INTEGER16, so that part is compiled where mpi.h has it).
 *
 *  1. Sizes, extents and names; MPI_Type_match_size gives them for 16
 *     (32) bytes.
 *  2. With --reduce (BDMPI only: Open MPI 4.1 and MPICH reduce MPI_REAL16
 *     as a long double and get these sums wrong), MPI_Allreduce: SUM of 1 + r * 2^-100 (exact only in binary128: a
 *     long double would lose the low bits), MAX, MIN, PROD; SUM and PROD
 *     of complex values (i^n); SUM, MAX, PROD and the bitwise ops of
 *     128-bit integers beyond 64 bits.
 *  3. A ring exchange of each type (point-to-point).
 * Rank 0 prints "types_quad: ok".
 */
#include <string.h>

#include "check.h"

typedef __float128 quad;
typedef struct {
  quad re, im;
} complex32;

static const quad kTiny = 1.0 / 1267650600228229401496703205376.0; /* 2^-100 */

static void check_type(MPI_Datatype type, int want, const char *name) {
  int size = -1, len = 0;
  MPI_Aint lb = -1, extent = -1;
  char got[MPI_MAX_OBJECT_NAME];
  CHECK_MPI(MPI_Type_size(type, &size));
  CHECK_MPI(MPI_Type_get_extent(type, &lb, &extent));
  CHECK(size == want && lb == 0 && extent == want, "%s: size %d extent %ld, want %d", name,
        size, (long)extent, want);
  CHECK_MPI(MPI_Type_get_name(type, got, &len));
  CHECK(strcmp(got, name) == 0, "the name of %s is %s", name, got);
}

static void check_match(int typeclass, int size, MPI_Datatype want, const char *name) {
  MPI_Datatype got = MPI_DATATYPE_NULL;
  CHECK_MPI(MPI_Type_match_size(typeclass, size, &got));
  CHECK(got == want, "MPI_Type_match_size(%d bytes) is not %s", size, name);
}

static void reals(int rank, int size) {
  quad mine = 1 + rank * kTiny, sum = 0, max = 0, min = 0, prod = 0;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD));
  quad want = size + (quad)(size * (size - 1) / 2) * kTiny;
  CHECK(sum == want, "MPI_REAL16 SUM is off by %g", (double)((sum - want) / kTiny));
  CHECK_MPI(MPI_Allreduce(&mine, &max, 1, MPI_REAL16, MPI_MAX, MPI_COMM_WORLD));
  CHECK(max == 1 + (size - 1) * kTiny, "MPI_REAL16 MAX");
  CHECK_MPI(MPI_Allreduce(&mine, &min, 1, MPI_REAL16, MPI_MIN, MPI_COMM_WORLD));
  CHECK(min == 1, "MPI_REAL16 MIN");
  quad two = 2;
  CHECK_MPI(MPI_Allreduce(&two, &prod, 1, MPI_REAL16, MPI_PROD, MPI_COMM_WORLD));
  CHECK(prod == (quad)(1u << size), "MPI_REAL16 PROD");
}

static void complexes(int rank, int size) {
  complex32 mine = {rank, rank * kTiny}, sum, unit = {0, 1}, prod;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_COMPLEX32, MPI_SUM, MPI_COMM_WORLD));
  quad total = (quad)(size * (size - 1) / 2);
  CHECK(sum.re == total && sum.im == total * kTiny, "MPI_COMPLEX32 SUM");
  CHECK_MPI(MPI_Allreduce(&unit, &prod, 1, MPI_COMPLEX32, MPI_PROD, MPI_COMM_WORLD));
  /* i^size */
  const quad re[4] = {1, 0, -1, 0}, im[4] = {0, 1, 0, -1};
  CHECK(prod.re == re[size % 4] && prod.im == im[size % 4], "MPI_COMPLEX32 PROD of i");
}

#ifdef MPI_INTEGER16
static void integers(int rank, int size) {
  const __int128 big = (__int128)1 << 100;
  __int128 mine = big * (rank + 1) - rank, sum = 0, max = 0, bits = 0, prod = 0, want = 0;
  for (int r = 0; r < size; ++r) want += big * (r + 1) - r;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == want, "MPI_INTEGER16 SUM");
  CHECK_MPI(MPI_Allreduce(&mine, &max, 1, MPI_INTEGER16, MPI_MAX, MPI_COMM_WORLD));
  CHECK(max == big * size - (size - 1), "MPI_INTEGER16 MAX");
  __int128 bit = (__int128)1 << (64 + rank % 60);
  CHECK_MPI(MPI_Allreduce(&bit, &bits, 1, MPI_INTEGER16, MPI_BOR, MPI_COMM_WORLD));
  __int128 want_bits = 0;
  for (int r = 0; r < size; ++r) want_bits |= (__int128)1 << (64 + r % 60);
  CHECK(bits == want_bits, "MPI_INTEGER16 BOR");
  /* At most 7 factors of -2^16: 2^112 fits. */
  __int128 factor = rank < 7 ? -((__int128)1 << 16) : 1;
  CHECK_MPI(MPI_Allreduce(&factor, &prod, 1, MPI_INTEGER16, MPI_PROD, MPI_COMM_WORLD));
  __int128 want_prod = 1;
  for (int r = 0; r < size && r < 7; ++r) want_prod *= -((__int128)1 << 16);
  CHECK(prod == want_prod, "MPI_INTEGER16 PROD");
}
#endif

/* Each rank sends its values to the next one round the ring. */
static void ring(int rank, int size) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  quad q[3] = {rank * kTiny, -1, 1 + rank * kTiny}, qin[3];
  complex32 c = {rank, -rank * kTiny}, cin;
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(q, 3, MPI_REAL16, next, 1, qin, 3, MPI_REAL16, prev, 1,
                         MPI_COMM_WORLD, &st));
  CHECK(qin[0] == prev * kTiny && qin[1] == -1 && qin[2] == 1 + prev * kTiny,
        "MPI_REAL16 from rank %d", prev);
  CHECK_MPI(MPI_Sendrecv(&c, 1, MPI_COMPLEX32, next, 2, &cin, 1, MPI_COMPLEX32, prev, 2,
                         MPI_COMM_WORLD, &st));
  CHECK(cin.re == prev && cin.im == -prev * kTiny, "MPI_COMPLEX32 from rank %d", prev);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  check_type(MPI_REAL16, 16, "MPI_REAL16");
  check_type(MPI_COMPLEX32, 32, "MPI_COMPLEX32");
  check_match(MPI_TYPECLASS_REAL, 16, MPI_REAL16, "MPI_REAL16");
  check_match(MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32, "MPI_COMPLEX32");
#ifdef MPI_INTEGER16
  /* (MPICH defines it as MPI_DATATYPE_NULL.) */
  const int have_integer16 = MPI_INTEGER16 != MPI_DATATYPE_NULL;
  if (have_integer16) {
    check_type(MPI_INTEGER16, 16, "MPI_INTEGER16");
    check_match(MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16, "MPI_INTEGER16");
  }
#endif
  if (arg_flag(argc, argv, "--reduce")) {
    reals(rank, size);
    complexes(rank, size);
#ifdef MPI_INTEGER16
    if (have_integer16) integers(rank, size);
#endif
  }
  ring(rank, size);
  if (rank == 0) printf("types_quad: ok\n");
  MPI_Finalize();
  return 0;
}
