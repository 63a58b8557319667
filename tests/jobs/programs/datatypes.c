/*
 * datatypes: contiguous derived datatypes in point-to-point, broadcast and
 * reductions, and their life cycle.
 *
 *  1. MPI_Type_contiguous(4, MPI_INT): size, extent, true extent; an
 *     uncommitted type cannot be used for communication (MPI_ERR_TYPE).
 *  2. Committed: a ring exchange of 3 elements (12 ints) with MPI_Get_count
 *     in the derived and the base type, MPI_Get_elements.
 *  3. A contiguous type of a contiguous type; freeing the inner one leaves
 *     the outer one usable; MPI_Type_free nulls the handle.
 *  4. MPI_Bcast on a contiguous type of MPI_DOUBLE; under BDMPI only (an
 *     extension of MPI-3.1, see below) MPI_Reduce and MPI_Allreduce on
 *     contiguous types of MPI_INT, MPI_DOUBLE and MPI_2INT (MAXLOC), small
 *     and 2 MiB (through disk).
 *  5. Dense vector / indexed / struct types behave like contiguous ones;
 *     MPI_Type_dup keeps the committed state; names.
 *  6. Errors: freeing a predefined type, a negative count; and, under BDMPI
 *     only (MPI_Gather takes types without gaps only), MPI_ERR_TYPE for
 *     MPI_Gather of a strided vector.
 */
#include "check.h"

static void check_extent(MPI_Datatype t, MPI_Aint want_extent, int want_size,
                         const char *what) {
  MPI_Aint lb = -1, extent = -1, true_lb = -1, true_extent = -1;
  int size = -1;
  MPI_Type_get_extent(t, &lb, &extent);
  MPI_Type_get_true_extent(t, &true_lb, &true_extent);
  MPI_Type_size(t, &size);
  CHECK(lb == 0 && extent == want_extent && size == want_size &&
            true_lb == 0 && true_extent == want_extent,
        "%s: lb %ld extent %ld size %d true (%ld, %ld); want extent %ld size "
        "%d",
        what, (long)lb, (long)extent, size, (long)true_lb, (long)true_extent,
        (long)want_extent, want_size);
}

static void test_p2p(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Datatype t4, t8;
  MPI_Type_contiguous(4, MPI_INT, &t4);
  check_extent(t4, 4 * sizeof(int), 4 * sizeof(int), "contiguous(4, INT)");

  int out[12], in[12];
  for (int i = 0; i < 12; ++i) out[i] = rank * 100 + i;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Send(out, 3, t4, right, 1, MPI_COMM_WORLD), MPI_ERR_TYPE);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  MPI_Type_commit(&t4);
  MPI_Status st;
  memset(in, 0, sizeof in);
  MPI_Sendrecv(out, 3, t4, right, 1, in, 3, t4, left, 1, MPI_COMM_WORLD, &st);
  for (int i = 0; i < 12; ++i)
    CHECK(in[i] == left * 100 + i, "in[%d] = %d", i, in[i]);
  int count = -1;
  MPI_Get_count(&st, t4, &count);
  CHECK(count == 3, "Get_count(t4) = %d, want 3", count);
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 12, "Get_count(MPI_INT) = %d, want 12", count);
  MPI_Get_elements(&st, t4, &count);
  CHECK(count == 12, "Get_elements(t4) = %d, want 12", count);

  /* A message of 12 ints is not a whole number of contiguous(8) elements. */
  MPI_Type_contiguous(2, t4, &t8);
  MPI_Type_commit(&t8);
  check_extent(t8, 8 * sizeof(int), 8 * sizeof(int), "contiguous(2, t4)");
  MPI_Get_count(&st, t8, &count);
  CHECK(count == MPI_UNDEFINED, "Get_count(t8) of 12 ints = %d", count);
  MPI_Type_free(&t4);
  CHECK(t4 == MPI_DATATYPE_NULL, "MPI_Type_free did not null the handle");
  /* t8 outlives the type it was made of. */
  int out8[16], in8[16];
  for (int i = 0; i < 16; ++i) out8[i] = rank * 1000 + i;
  MPI_Sendrecv(out8, 2, t8, right, 2, in8, 2, t8, left, 2, MPI_COMM_WORLD,
               &st);
  for (int i = 0; i < 16; ++i)
    CHECK(in8[i] == left * 1000 + i, "in8[%d] = %d", i, in8[i]);
  MPI_Type_free(&t8);

  /* An empty type. */
  MPI_Datatype empty;
  MPI_Type_contiguous(0, MPI_INT, &empty);
  MPI_Type_commit(&empty);
  check_extent(empty, 0, 0, "contiguous(0, INT)");
  MPI_Sendrecv(out, 5, empty, right, 3, in, 5, empty, left, 3, MPI_COMM_WORLD,
               &st);
  MPI_Get_count(&st, MPI_BYTE, &count);
  CHECK(count == 0, "a message of empty elements has %d bytes", count);
  MPI_Type_free(&empty);
}

static void test_collectives(int rank, int size) {
  /* Bcast of 2 elements of contiguous(5, DOUBLE). */
  MPI_Datatype d5;
  MPI_Type_contiguous(5, MPI_DOUBLE, &d5);
  MPI_Type_commit(&d5);
  double b[10];
  for (int root = 0; root < size && root < 3; ++root) {
    for (int i = 0; i < 10; ++i) b[i] = rank == root ? root + i * 0.5 : -1;
    MPI_Bcast(b, 2, d5, root, MPI_COMM_WORLD);
    for (int i = 0; i < 10; ++i)
      CHECK(b[i] == root + i * 0.5, "bcast from %d: b[%d] = %g", root, i, b[i]);
  }

#ifdef BDMPI
  /* MPI-3.1 (5.9.2) defines the predefined operations on predefined types
   * only, and Open MPI 4.1 refuses derived ones (MPI_ERR_OP); BDMPI reduces
   * contiguous types of a predefined type as that type. */
  /* Allreduce SUM of 3 elements of contiguous(4, INT). */
  MPI_Datatype t4;
  MPI_Type_contiguous(4, MPI_INT, &t4);
  MPI_Type_commit(&t4);
  int in[12], out[12];
  for (int i = 0; i < 12; ++i) in[i] = rank * i + 1;
  MPI_Allreduce(in, out, 3, t4, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < 12; ++i) {
    const int want = i * (size * (size - 1) / 2) + size;
    CHECK(out[i] == want, "allreduce sum [%d] = %d, want %d", i, out[i], want);
  }
  /* In place, MAX, at every root of Reduce. */
  for (int root = 0; root < size && root < 3; ++root) {
    double r[10];
    for (int i = 0; i < 10; ++i) r[i] = (rank + i) % size;
    MPI_Reduce(rank == root ? MPI_IN_PLACE : r, r, 2, d5, MPI_MAX, root,
               MPI_COMM_WORLD);
    if (rank == root) {
      for (int i = 0; i < 10; ++i)
        CHECK(r[i] == size - 1, "reduce max [%d] = %g", i, r[i]);
    }
  }

  /* MAXLOC on contiguous(2, MPI_2INT). */
  MPI_Datatype pair2;
  MPI_Type_contiguous(2, MPI_2INT, &pair2);
  MPI_Type_commit(&pair2);
  int loc_in[4] = {rank % 3, rank, -rank, rank}, loc_out[4];
  MPI_Allreduce(loc_in, loc_out, 1, pair2, MPI_MAXLOC, MPI_COMM_WORLD);
  const int max_mod = size >= 3 ? 2 : size - 1;
  CHECK(loc_out[0] == max_mod && loc_out[1] == max_mod,
        "maxloc pair 0 = (%d, %d), want (%d, %d)", loc_out[0], loc_out[1],
        max_mod, max_mod);
  CHECK(loc_out[2] == 0 && loc_out[3] == 0, "maxloc pair 1 = (%d, %d)",
        loc_out[2], loc_out[3]);

  /* 2 MiB: 4 elements of contiguous(65536, DOUBLE). */
  MPI_Datatype big;
  MPI_Type_contiguous(1 << 16, MPI_DOUBLE, &big);
  MPI_Type_commit(&big);
  const size_t n = 4u << 16;
  double *x = xmalloc(n * sizeof(double)), *y = xmalloc(n * sizeof(double));
  for (size_t i = 0; i < n; ++i) x[i] = (double)(i % 1000) + rank;
  MPI_Allreduce(x, y, 4, big, MPI_SUM, MPI_COMM_WORLD);
  for (size_t i = 0; i < n; ++i) {
    const double want = size * (double)(i % 1000) + size * (size - 1) / 2.0;
    if (y[i] != want) CHECK(0, "big allreduce [%zu] = %g, want %g", i, y[i], want);
  }
  free(x);
  free(y);
  MPI_Type_free(&big);
  MPI_Type_free(&pair2);
  MPI_Type_free(&t4);
#endif
  MPI_Type_free(&d5);
}

static void test_dense_constructors(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Datatype vec, idx, st2, mixed, dup;
  MPI_Type_vector(3, 2, 2, MPI_INT, &vec); /* stride = blocklength: dense */
  int bl[2] = {2, 4}, disp[2] = {0, 2};
  MPI_Type_indexed(2, bl, disp, MPI_INT, &idx);
  int sbl[2] = {1, 1};
  MPI_Aint sdisp[2] = {0, sizeof(int)};
  MPI_Datatype stypes[2] = {MPI_INT, MPI_INT};
  MPI_Type_create_struct(2, sbl, sdisp, stypes, &st2);
  struct Mixed {
    double d;
    int i[2];
  };
  int mbl[2] = {1, 2};
  MPI_Aint mdisp[2] = {offsetof(struct Mixed, d), offsetof(struct Mixed, i)};
  MPI_Datatype mtypes[2] = {MPI_DOUBLE, MPI_INT};
  MPI_Type_create_struct(2, mbl, mdisp, mtypes, &mixed);
  check_extent(vec, 6 * sizeof(int), 6 * sizeof(int), "dense vector");
  check_extent(idx, 6 * sizeof(int), 6 * sizeof(int), "dense indexed");
  check_extent(st2, 2 * sizeof(int), 2 * sizeof(int), "dense struct");
  check_extent(mixed, sizeof(struct Mixed), sizeof(struct Mixed),
               "dense mixed struct");
  MPI_Type_commit(&vec);
  MPI_Type_commit(&idx);
  MPI_Type_commit(&st2);
  MPI_Type_commit(&mixed);
  MPI_Type_dup(vec, &dup);

  int out[6], in[6];
  for (int i = 0; i < 6; ++i) out[i] = rank * 10 + i;
  MPI_Datatype types[4] = {vec, idx, dup, st2};
  const int counts[4] = {1, 1, 1, 3};
  for (int k = 0; k < 4; ++k) {
    memset(in, 0, sizeof in);
    MPI_Sendrecv(out, counts[k], types[k], right, 4, in, counts[k], types[k],
                 left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 6; ++i)
      CHECK(in[i] == left * 10 + i, "type %d: in[%d] = %d", k, i, in[i]);
  }
  struct Mixed mout[2] = {{rank + 0.25, {rank, -rank}}, {rank + 0.5, {7, 8}}};
  struct Mixed min[2];
  memset(min, 0, sizeof min);
  MPI_Sendrecv(mout, 2, mixed, right, 5, min, 2, mixed, left, 5,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(min[0].d == left + 0.25 && min[0].i[0] == left &&
            min[0].i[1] == -left && min[1].d == left + 0.5 &&
            min[1].i[1] == 8,
        "mixed struct received (%g, %d, %d)", min[0].d, min[0].i[0],
        min[0].i[1]);

  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  MPI_Type_get_name(MPI_INT, name, &len);
  CHECK(strcmp(name, "MPI_INT") == 0 && len == 7, "name of MPI_INT: '%s'",
        name);
  MPI_Type_set_name(vec, "my vector");
  MPI_Type_get_name(vec, name, &len);
  CHECK(strcmp(name, "my vector") == 0, "name of vec: '%s'", name);

  MPI_Type_free(&dup);
  MPI_Type_free(&mixed);
  MPI_Type_free(&st2);
  MPI_Type_free(&idx);
  MPI_Type_free(&vec);
}

static void test_errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype t = MPI_INT, nt;
  CHECK_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);
  CHECK(t == MPI_INT, "a failed MPI_Type_free changed the handle");
  t = MPI_DATATYPE_NULL;
  CHECK_CLASS(MPI_Type_commit(&t), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_contiguous(-1, MPI_INT, &nt), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &nt), MPI_ERR_TYPE);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  test_p2p(rank, size);
  test_collectives(rank, size);
  test_dense_constructors(rank, size);
  test_errors();
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
