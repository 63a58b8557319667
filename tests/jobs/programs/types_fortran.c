/*
 * types_fortran: the Fortran-named and multi-language predefined datatypes
 * that C programs use (MPI_COMPLEX, MPI_INTEGER, MPI_2REAL, MPI_LOGICAL,
 * ...), with the sizes Open MPI 4.1 gives them, and their reductions:
 *
 *  1. MPI_Type_size and extent of each, against the C type it stands for;
 *     MPI_Type_get_name gives the name the program used, also for types of
 *     the same layout (MPI_C_COMPLEX and MPI_C_FLOAT_COMPLEX).
 *  2. MPI_Allreduce SUM and PROD on the complex types, SUM/MAX on the
 *     integer and real ones (and MPI_AINT/OFFSET/COUNT), MINLOC/MAXLOC on
 *     MPI_2INTEGER/2REAL/2DOUBLE_PRECISION, LAND/LOR/LXOR on MPI_LOGICAL
 *     and MPI_C_BOOL.
 *  3. A ring exchange of MPI_CHARACTER.
 *  4. MPI_Type_match_size, and (BDMPI only: Open MPI 4.1 crashes in
 *     MPICH's createf90types) MPI_Type_create_f90_real/complex/integer:
 *     sizes, envelopes, the same handle for the same arguments, and a sum.
 */
#include "check.h"

#include <complex.h>
#include <stdbool.h>

static void check_size(MPI_Datatype type, int want, const char *name) {
  int size = -1;
  MPI_Aint lb = -1, extent = -1;
  MPI_Type_size(type, &size);
  MPI_Type_get_extent(type, &lb, &extent);
  CHECK(size == want && lb == 0 && extent == want, "%s: size %d extent %ld, want %d",
        name, size, (long)extent, want);
}

static void test_sizes(void) {
#define SIZE(type, want) check_size(type, want, #type)
  SIZE(MPI_CHARACTER, 1);
  SIZE(MPI_LOGICAL, 4);
  SIZE(MPI_INTEGER, 4);
  SIZE(MPI_REAL, 4);
  SIZE(MPI_DOUBLE_PRECISION, 8);
  SIZE(MPI_COMPLEX, 8);
  SIZE(MPI_DOUBLE_COMPLEX, 16);
  SIZE(MPI_C_COMPLEX, 8);
  SIZE(MPI_C_FLOAT_COMPLEX, 8);
  SIZE(MPI_C_DOUBLE_COMPLEX, 16);
  SIZE(MPI_C_LONG_DOUBLE_COMPLEX, (int)sizeof(long double _Complex));
  SIZE(MPI_C_BOOL, (int)sizeof(bool));
  SIZE(MPI_INTEGER1, 1);
  SIZE(MPI_INTEGER2, 2);
  SIZE(MPI_INTEGER4, 4);
  SIZE(MPI_INTEGER8, 8);
  SIZE(MPI_REAL4, 4);
  SIZE(MPI_REAL8, 8);
  SIZE(MPI_COMPLEX8, 8);
  SIZE(MPI_COMPLEX16, 16);
  SIZE(MPI_2INTEGER, 8);
  SIZE(MPI_2REAL, 8);
  SIZE(MPI_2DOUBLE_PRECISION, 16);
  SIZE(MPI_AINT, (int)sizeof(MPI_Aint));
  SIZE(MPI_OFFSET, (int)sizeof(MPI_Offset));
  SIZE(MPI_COUNT, (int)sizeof(MPI_Count));
  SIZE(MPI_LONG_LONG, (int)sizeof(long long));
#undef SIZE
}

/* `synonym`: another name MPI lets the type carry (or NULL). */
static void check_name(MPI_Datatype type, const char *want, const char *synonym) {
  char name[MPI_MAX_OBJECT_NAME];
  int length = -1;
  MPI_Type_get_name(type, name, &length);
  const int known = strcmp(name, want) == 0 || (synonym != NULL && strcmp(name, synonym) == 0);
  CHECK(known && length == (int)strlen(name), "name '%s' (%d), want '%s'", name, length, want);
}

static void test_names(void) {
#define NAME(type) check_name(type, #type, NULL)
  NAME(MPI_C_COMPLEX);
  /* Open MPI 4.1 names both MPI_C_COMPLEX; MPICH's typename test allows it. */
  check_name(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", "MPI_C_COMPLEX");
  NAME(MPI_COMPLEX);
  NAME(MPI_COMPLEX8);
  NAME(MPI_INTEGER);
  NAME(MPI_INTEGER4);
  NAME(MPI_DOUBLE_INT);
#undef NAME
}

static void test_complex(int rank, int size) {
  float _Complex f[2] = {rank + 1.0f * I, 1.0f};
  double _Complex d[2] = {rank + 2.0 * I, 1.0};
  float _Complex fs[2];
  double _Complex ds[2];
  MPI_Datatype ftypes[3] = {MPI_COMPLEX, MPI_C_COMPLEX, MPI_COMPLEX8};
  MPI_Datatype dtypes[3] = {MPI_DOUBLE_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_COMPLEX16};
  const double sum_re = size * (size - 1) / 2.0;
  for (int t = 0; t < 3; ++t) {
    MPI_Allreduce(f, fs, 2, ftypes[t], MPI_SUM, MPI_COMM_WORLD);
    CHECK(crealf(fs[0]) == sum_re && cimagf(fs[0]) == size && crealf(fs[1]) == size,
          "float complex sum, type %d: %g%+gi", t, crealf(fs[0]), cimagf(fs[0]));
    MPI_Allreduce(d, ds, 2, dtypes[t], MPI_SUM, MPI_COMM_WORLD);
    CHECK(creal(ds[0]) == sum_re && cimag(ds[0]) == 2.0 * size,
          "double complex sum, type %d: %g%+gi", t, creal(ds[0]), cimag(ds[0]));
  }
  /* PROD of i (one per rank) is i^size. */
  double _Complex unit = I, prod;
  MPI_Allreduce(&unit, &prod, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
  const double want_re[4] = {1, 0, -1, 0}, want_im[4] = {0, 1, 0, -1};
  CHECK(creal(prod) == want_re[size % 4] && cimag(prod) == want_im[size % 4],
        "i^%d = %g%+gi", size, creal(prod), cimag(prod));
  float _Complex funit = I, fprod;
  MPI_Allreduce(&funit, &fprod, 1, MPI_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
  CHECK(crealf(fprod) == want_re[size % 4] && cimagf(fprod) == want_im[size % 4],
        "MPI_COMPLEX i^%d = %g%+gi", size, crealf(fprod), cimagf(fprod));
}

static void test_integers_and_reals(int rank, int size) {
  const long long sum = (long long)size * (size - 1) / 2;
  int8_t i1 = (int8_t)rank, s1;
  MPI_Allreduce(&i1, &s1, 1, MPI_INTEGER1, MPI_MAX, MPI_COMM_WORLD);
  CHECK(s1 == size - 1, "INTEGER1 max %d", s1);
  int16_t i2 = (int16_t)rank, s2;
  MPI_Allreduce(&i2, &s2, 1, MPI_INTEGER2, MPI_SUM, MPI_COMM_WORLD);
  CHECK(s2 == sum, "INTEGER2 sum %d", s2);
  int32_t i4 = rank, s4;
  MPI_Datatype int4[2] = {MPI_INTEGER, MPI_INTEGER4};
  for (int t = 0; t < 2; ++t) {
    MPI_Allreduce(&i4, &s4, 1, int4[t], MPI_SUM, MPI_COMM_WORLD);
    CHECK(s4 == sum, "INTEGER(4) sum %d", s4);
  }
  int64_t i8 = rank, s8;
  MPI_Datatype int8[4] = {MPI_INTEGER8, MPI_AINT, MPI_OFFSET, MPI_COUNT};
  for (int t = 0; t < 4; ++t) {
    MPI_Allreduce(&i8, &s8, 1, int8[t], MPI_SUM, MPI_COMM_WORLD);
    CHECK(s8 == sum, "64-bit integer type %d: sum %lld", t, (long long)s8);
  }
  float r4 = rank + 0.5f, m4;
  MPI_Datatype real4[2] = {MPI_REAL, MPI_REAL4};
  for (int t = 0; t < 2; ++t) {
    MPI_Allreduce(&r4, &m4, 1, real4[t], MPI_MAX, MPI_COMM_WORLD);
    CHECK(m4 == size - 0.5f, "REAL max %g", m4);
  }
  double r8 = rank + 0.25, s;
  MPI_Datatype real8[2] = {MPI_DOUBLE_PRECISION, MPI_REAL8};
  for (int t = 0; t < 2; ++t) {
    MPI_Allreduce(&r8, &s, 1, real8[t], MPI_SUM, MPI_COMM_WORLD);
    CHECK(s == sum + 0.25 * size, "DOUBLE PRECISION sum %g", s);
  }
}

static void test_pairs(int rank, int size) {
  /* Value peaks at the middle rank; ties go to the smaller index. */
  int mid = size / 2;
  int32_t in_i[2] = {rank == mid ? 100 : rank % 2, rank}, out_i[2];
  MPI_Allreduce(in_i, out_i, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD);
  CHECK(out_i[0] == 100 && out_i[1] == mid, "2INTEGER maxloc (%d, %d)", out_i[0],
        out_i[1]);
  float in_r[2] = {rank == mid ? -1.0f : 1.0f, (float)rank}, out_r[2];
  MPI_Allreduce(in_r, out_r, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD);
  CHECK(out_r[0] == -1.0f && out_r[1] == (float)mid, "2REAL minloc (%g, %g)", out_r[0],
        out_r[1]);
  double in_d[4] = {1.0, (double)rank, (double)rank, (double)rank}, out_d[4];
  MPI_Allreduce(in_d, out_d, 2, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD);
  CHECK(out_d[0] == 1.0 && out_d[1] == 0.0, "2DOUBLE_PRECISION tie (%g, %g)", out_d[0],
        out_d[1]);
  CHECK(out_d[2] == size - 1 && out_d[3] == size - 1, "2DOUBLE_PRECISION max (%g, %g)",
        out_d[2], out_d[3]);
}

static void test_logicals(int rank, int size) {
  /* Fortran .TRUE. is 1 (gfortran, as Open MPI is built). */
  int32_t l[3] = {1, rank == 0, rank == 0}, out[3];
  MPI_Allreduce(l, out, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD);
  MPI_Allreduce(l + 1, out + 1, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD);
  MPI_Allreduce(l + 2, out + 2, 1, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD);
  CHECK(out[0] && out[1] && out[2], "LOGICAL land/lor/lxor %d %d %d", out[0], out[1],
        out[2]);
  bool b[2] = {true, rank == size - 1}, bout[2];
  MPI_Allreduce(b, bout, 1, MPI_C_BOOL, MPI_LAND, MPI_COMM_WORLD);
  MPI_Allreduce(b + 1, bout + 1, 1, MPI_C_BOOL, MPI_LAND, MPI_COMM_WORLD);
  CHECK(bout[0] && bout[1] == (size == 1), "C_BOOL land %d %d", bout[0], bout[1]);
}

static void test_character(int rank, int size) {
  char out[16] = {0}, in[16] = {0}, want[16] = {0};
  snprintf(out, sizeof out, "r%06d", rank % 1000000);
  int left = (rank - 1 + size) % size;
  MPI_Sendrecv(out, 8, MPI_CHARACTER, (rank + 1) % size, 0, in, 8, MPI_CHARACTER, left,
               0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  snprintf(want, sizeof want, "r%06d", left % 1000000);
  CHECK(strcmp(in, want) == 0, "MPI_CHARACTER: '%s', want '%s'", in, want);
}

static void check_type_size(MPI_Datatype type, int want, const char *what) {
  int size = -1;
  MPI_Type_size(type, &size);
  CHECK(size == want, "%s: size %d, want %d", what, size, want);
}

static void test_sized_types(int size) {
  MPI_Datatype matched;
  const int classes[3] = {MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_REAL, MPI_TYPECLASS_COMPLEX};
  const int sizes[3][2] = {{2, 8}, {4, 8}, {8, 16}};
  for (int c = 0; c < 3; ++c)
    for (int s = 0; s < 2; ++s) {
      MPI_Type_match_size(classes[c], sizes[c][s], &matched);
      check_type_size(matched, sizes[c][s], "MPI_Type_match_size");
    }
#ifdef BDMPI
  MPI_Datatype real, again, cplx, integer;
  MPI_Type_create_f90_real(10, MPI_UNDEFINED, &real);
  MPI_Type_create_f90_real(10, MPI_UNDEFINED, &again);
  MPI_Type_create_f90_complex(5, 30, &cplx);
  MPI_Type_create_f90_integer(5, &integer);
  CHECK(real == again, "MPI_Type_create_f90_real gave two handles for the same arguments");
  check_type_size(real, 8, "f90 real(10)");
  check_type_size(cplx, 8, "f90 complex(5, 30)");
  check_type_size(integer, 4, "f90 integer(5)");
  int nints, naddrs, ntypes, combiner, ints[2];
  MPI_Type_get_envelope(real, &nints, &naddrs, &ntypes, &combiner);
  MPI_Type_get_contents(real, 2, 0, 0, ints, NULL, NULL);
  CHECK(combiner == MPI_COMBINER_F90_REAL && nints == 2 && ntypes == 0 && ints[0] == 10 &&
            ints[1] == MPI_UNDEFINED,
        "f90 real envelope %d %d %d (%d, %d)", combiner, nints, ntypes, ints[0], ints[1]);
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, integer, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == size, "f90 integer sum %d", sum);
#else
  (void)size;
#endif
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  test_sizes();
  test_names();
  test_complex(rank, size);
  test_integers_and_reals(rank, size);
  test_pairs(rank, size);
  test_logicals(rank, size);
  test_character(rank, size);
  test_sized_types(size);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("types_fortran: OK\n");
  MPI_Finalize();
  return 0;
}
