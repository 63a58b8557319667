/*
 * type_size: MPI_Type_size of the predefined datatypes equals the C size of
 * what they describe; the pair types used by MINLOC/MAXLOC count only their
 * two members (size is data, not extent, so no padding).
 */
#include <stdbool.h>
#include <stdint.h>
#include <wchar.h>

#include "check.h"

static void check_size(MPI_Datatype type, const char *name, int want) {
  int got = -1;
  CHECK_MPI(MPI_Type_size(type, &got));
  CHECK(got == want, "MPI_Type_size(%s) = %d, want %d", name, got, want);
}

#define CHECK_SIZE(type, want) check_size((type), #type, (int)(want))

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK_SIZE(MPI_CHAR, sizeof(char));
  CHECK_SIZE(MPI_SIGNED_CHAR, sizeof(signed char));
  CHECK_SIZE(MPI_UNSIGNED_CHAR, sizeof(unsigned char));
  CHECK_SIZE(MPI_BYTE, 1);
  CHECK_SIZE(MPI_WCHAR, sizeof(wchar_t));
  CHECK_SIZE(MPI_SHORT, sizeof(short));
  CHECK_SIZE(MPI_UNSIGNED_SHORT, sizeof(unsigned short));
  CHECK_SIZE(MPI_INT, sizeof(int));
  CHECK_SIZE(MPI_UNSIGNED, sizeof(unsigned));
  CHECK_SIZE(MPI_LONG, sizeof(long));
  CHECK_SIZE(MPI_UNSIGNED_LONG, sizeof(unsigned long));
  CHECK_SIZE(MPI_LONG_LONG, sizeof(long long));
  CHECK_SIZE(MPI_UNSIGNED_LONG_LONG, sizeof(unsigned long long));
  CHECK_SIZE(MPI_FLOAT, sizeof(float));
  CHECK_SIZE(MPI_DOUBLE, sizeof(double));
  CHECK_SIZE(MPI_LONG_DOUBLE, sizeof(long double));
  CHECK_SIZE(MPI_INT8_T, 1);
  CHECK_SIZE(MPI_INT16_T, 2);
  CHECK_SIZE(MPI_INT32_T, 4);
  CHECK_SIZE(MPI_INT64_T, 8);
  CHECK_SIZE(MPI_UINT8_T, 1);
  CHECK_SIZE(MPI_UINT16_T, 2);
  CHECK_SIZE(MPI_UINT32_T, 4);
  CHECK_SIZE(MPI_UINT64_T, 8);
  CHECK_SIZE(MPI_C_BOOL, sizeof(bool));
  CHECK_SIZE(MPI_FLOAT_INT, sizeof(float) + sizeof(int));
  CHECK_SIZE(MPI_DOUBLE_INT, sizeof(double) + sizeof(int));
  CHECK_SIZE(MPI_LONG_INT, sizeof(long) + sizeof(int));
  CHECK_SIZE(MPI_2INT, 2 * sizeof(int));
  CHECK_SIZE(MPI_SHORT_INT, sizeof(short) + sizeof(int));
  MPI_Finalize();
  return 0;
}
