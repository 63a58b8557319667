/*
 * darray_external: MPI_Type_create_darray and the external32 calls.
 *
 *  1. A 7 x 5 array distributed cyclic(2) x block over the process grid of
 *     MPI_Dims_create, in C and Fortran order, and 9 elements distributed
 *     cyclic with the default argument: every rank packs its part of an
 *     array holding each element's own index. The parts must come out in
 *     increasing index order (the type map follows the array's order), be
 *     the elements the distribution names, and cover the array exactly once
 *     over all ranks (MPI_Allreduce of who owns what). The type's extent is
 *     the whole array; MPI_Type_get_envelope says MPI_COMBINER_DARRAY.
 *  2. MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size of a
 *     darray of ints and of doubles with a gap (a strided vector): sizes,
 *     big-endian bytes, and the round trip, gaps untouched.
 */
#include "check.h"

enum { kRows = 7, kCols = 5, kElements = kRows * kCols };

/* Which process of the grid owns index i of a dimension. */
static int owner_cyclic(int i, int block, int nprocs) { return (i / block) % nprocs; }
static int owner_block(int i, int size, int nprocs) {
  int block = (size + nprocs - 1) / nprocs;
  return i / block;
}

static void test_darray_2d(int rank, int size, int order) {
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int gsizes[2] = {kRows, kCols};
  const int distribs[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
  const int dargs[2] = {2, MPI_DISTRIBUTE_DFLT_DARG};
  MPI_Datatype darray;
  MPI_Type_create_darray(size, rank, 2, gsizes, distribs, dargs, dims, order, MPI_INT, &darray);
  MPI_Type_commit(&darray);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(darray, &lb, &extent);
  CHECK(lb == 0 && extent == kElements * (MPI_Aint)sizeof(int), "darray bounds %ld %ld",
        (long)lb, (long)extent);
  int nints, naddrs, ntypes, combiner;
  MPI_Type_get_envelope(darray, &nints, &naddrs, &ntypes, &combiner);
  CHECK(combiner == MPI_COMBINER_DARRAY && nints == 4 * 2 + 4 && naddrs == 0 && ntypes == 1,
        "darray envelope %d: %d %d %d", combiner, nints, naddrs, ntypes);

  /* Element (r, c) sits at linear index r * kCols + c in C order and
   * c * kRows + r in Fortran order, and holds that index. */
  int global[kElements], packed[kElements];
  for (int i = 0; i < kElements; ++i) global[i] = i;
  int type_size = 0, position = 0;
  MPI_Type_size(darray, &type_size);
  MPI_Pack(global, 1, darray, packed, (int)sizeof packed, &position, MPI_COMM_WORLD);
  const int mine = type_size / (int)sizeof(int);
  CHECK(position == type_size, "packed %d bytes of %d", position, type_size);

  const int my_row = rank / dims[1], my_col = rank % dims[1];
  int owned[kElements] = {0}, everyone[kElements];
  for (int k = 0; k < mine; ++k) {
    const int i = packed[k];
    CHECK(i >= 0 && i < kElements && (k == 0 || i > packed[k - 1]),
          "order %d: element %d is %d after %d", order, k, i, k > 0 ? packed[k - 1] : -1);
    const int r = order == MPI_ORDER_C ? i / kCols : i % kRows;
    const int c = order == MPI_ORDER_C ? i % kCols : i / kRows;
    CHECK(owner_cyclic(r, 2, dims[0]) == my_row && owner_block(c, kCols, dims[1]) == my_col,
          "order %d: rank %d got (%d, %d), which it does not own", order, rank, r, c);
    owned[i] = 1;
  }
  MPI_Allreduce(owned, everyone, kElements, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < kElements; ++i)
    CHECK(everyone[i] == 1, "order %d: element %d owned %d times", order, i, everyone[i]);
  MPI_Type_free(&darray);
}

static void test_darray_default_cyclic(int rank, int size) {
  const int gsize = 9, distrib = MPI_DISTRIBUTE_CYCLIC, darg = MPI_DISTRIBUTE_DFLT_DARG;
  MPI_Datatype darray;
  MPI_Type_create_darray(size, rank, 1, &gsize, &distrib, &darg, &size, MPI_ORDER_C, MPI_INT,
                         &darray);
  MPI_Type_commit(&darray);
  int global[9], packed[9], position = 0;
  for (int i = 0; i < 9; ++i) global[i] = i;
  MPI_Pack(global, 1, darray, packed, (int)sizeof packed, &position, MPI_COMM_WORLD);
  int k = 0;
  for (int i = rank; i < 9; i += size, ++k)
    CHECK(packed[k] == i, "cyclic: element %d is %d, want %d", k, packed[k], i);
  CHECK(position == k * (int)sizeof(int), "cyclic: %d bytes for %d elements", position, k);
  MPI_Type_free(&darray);
}

static void test_external32(int rank) {
  /* Ints: 4 bytes each, most significant first. */
  int values[3] = {0x01020304, -2, rank};
  unsigned char buffer[64];
  MPI_Aint size = 0, position = 0;
  MPI_Pack_external_size("external32", 3, MPI_INT, &size);
  CHECK(size == 12, "external32 size of 3 ints: %ld", (long)size);
  MPI_Pack_external("external32", values, 3, MPI_INT, buffer, sizeof buffer, &position);
  CHECK(position == 12 && buffer[0] == 1 && buffer[3] == 4 && buffer[4] == 0xff &&
            buffer[7] == 0xfe,
        "external32 ints: position %ld, bytes %02x %02x %02x %02x", (long)position, buffer[0],
        buffer[3], buffer[4], buffer[7]);
  int back[3] = {0, 0, 0};
  position = 0;
  MPI_Unpack_external("external32", buffer, sizeof buffer, &position, back, 3, MPI_INT);
  CHECK(position == 12 && back[0] == values[0] && back[1] == -2 && back[2] == rank,
        "external32 ints back: %d %d %d", back[0], back[1], back[2]);

  /* Every other double: only the data travels, gaps stay as they were. */
  double spread[6] = {1.5, -1, -2.25, -1, 1e300, -1};
  MPI_Datatype strided;
  MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &strided);
  MPI_Type_commit(&strided);
  MPI_Pack_external_size("external32", 1, strided, &size);
  CHECK(size == 24, "external32 size of a vector of 3 doubles: %ld", (long)size);
  position = 0;
  MPI_Pack_external("external32", spread, 1, strided, buffer, sizeof buffer, &position);
  /* 1.5 is 0x3ff8000000000000. */
  CHECK(position == 24 && buffer[0] == 0x3f && buffer[1] == 0xf8 && buffer[7] == 0,
        "external32 doubles: position %ld, bytes %02x %02x", (long)position, buffer[0],
        buffer[1]);
  double out[6] = {7, 7, 7, 7, 7, 7};
  position = 0;
  MPI_Unpack_external("external32", buffer, sizeof buffer, &position, out, 1, strided);
  CHECK(out[0] == 1.5 && out[2] == -2.25 && out[4] == 1e300 && out[1] == 7 && out[3] == 7 &&
            out[5] == 7,
        "external32 doubles back: %g %g %g, gaps %g %g %g", out[0], out[2], out[4], out[1],
        out[3], out[5]);
  MPI_Type_free(&strided);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  test_darray_2d(rank, size, MPI_ORDER_C);
  test_darray_2d(rank, size, MPI_ORDER_FORTRAN);
  test_darray_default_cyclic(rank, size);
  test_external32(rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("darray_external: OK\n");
  MPI_Finalize();
  return 0;
}
