/*
 * coll_engines: the blocking collectives whose engine can be forced under
 * BDMPI (--coll-engine: master, fold_bcast, schedule, chain), each checked
 * against its known result, on MPI_COMM_WORLD and on the halves of a split
 * (a communicator of its own, not starting at world rank 0):
 *
 *   MPI_Barrier, MPI_Bcast from every root, MPI_Reduce to every root and
 *   MPI_Allreduce (MPI_SUM, and a user-defined non-commutative operation:
 *   2x2 matrix products mod a prime, right only in rank order),
 *   MPI_Scan and MPI_Exscan (the same two operations).
 *
 * Then the node engine's cases (it serves small barriers, bcasts and
 * allreduces among running ranks of one node by default): a member that
 * comes late to each call (the others' spins time out and they wait at the
 * master), back-to-back calls whose parts must not mix, with a ring
 * exchange of point-to-point messages between them, and parts above the
 * direct path's size (the masters' engine, chosen per call).
 *
 * With --hold-memory N each rank holds N bytes it touches before each
 * late call, so that under a small --node-memory the ranks are switched out
 * in the middle of the node engine's calls; --rounds R back-to-back calls
 * (default 100).
 *
 * The tests registered with it force each engine and check, from the log,
 * that it served the call.
 */
#include <mpi.h>
#include <time.h>

#include "check.h"

enum { kCount = 5, kPrime = 1009 };

/* A 2x2 matrix per element; x_r = [[r + 1, 1], [0, 1]] shifted by i. */
typedef struct {
  int a, b, c, d;
} mat;

static MPI_Datatype mat_type;
static MPI_Op mat_op;

static mat mat_mul(mat x, mat y) {
  mat z = {(x.a * y.a + x.b * y.c) % kPrime, (x.a * y.b + x.b * y.d) % kPrime,
           (x.c * y.a + x.d * y.c) % kPrime, (x.c * y.b + x.d * y.d) % kPrime};
  return z;
}

/* inout = in * inout: MPI's order, in coming from the lower ranks. */
static void mat_prod(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  mat *x = in, *y = inout;
  for (int i = 0; i < *len; ++i) y[i] = mat_mul(x[i], y[i]);
}

static mat mat_of(int r, int i) {
  mat m = {r + 2, i + 1, r % 3, 1};
  return m;
}

static int mat_eq(mat x, mat y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }

/* x_from * ... * x_{to - 1} of element i. */
static mat mat_range(int from, int to, int i) {
  mat p = {1, 0, 0, 1};
  for (int r = from; r < to; ++r) p = mat_mul(p, mat_of(r, i));
  return p;
}

static int int_of(int r, int i) { return (r + 1) * 10 + i; }

static int int_range(int from, int to, int i) {
  int s = 0;
  for (int r = from; r < to; ++r) s += int_of(r, i);
  return s;
}

static void check_collectives(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int in[kCount], out[kCount];
  mat min[kCount], mout[kCount];
  for (int i = 0; i < kCount; ++i) {
    in[i] = int_of(rank, i);
    min[i] = mat_of(rank, i);
  }

  CHECK_MPI(MPI_Barrier(comm));

  for (int root = 0; root < size; ++root) {
    for (int i = 0; i < kCount; ++i) out[i] = rank == root ? 500 + root * 7 + i : -1;
    CHECK_MPI(MPI_Bcast(out, kCount, MPI_INT, root, comm));
    for (int i = 0; i < kCount; ++i)
      CHECK(out[i] == 500 + root * 7 + i, "%s: MPI_Bcast from %d: element %d is %d", name, root,
            i, out[i]);
  }

  for (int root = 0; root < size; ++root) {
    for (int i = 0; i < kCount; ++i) out[i] = -1;
    CHECK_MPI(MPI_Reduce(in, out, kCount, MPI_INT, MPI_SUM, root, comm));
    if (rank == root)
      for (int i = 0; i < kCount; ++i)
        CHECK(out[i] == int_range(0, size, i), "%s: MPI_Reduce(MPI_SUM) to %d: element %d is %d",
              name, root, i, out[i]);
    CHECK_MPI(MPI_Reduce(min, mout, kCount, mat_type, mat_op, root, comm));
    if (rank == root)
      for (int i = 0; i < kCount; ++i)
        CHECK(mat_eq(mout[i], mat_range(0, size, i)),
              "%s: MPI_Reduce(user op) to %d: element %d out of rank order", name, root, i);
  }

  CHECK_MPI(MPI_Allreduce(in, out, kCount, MPI_INT, MPI_SUM, comm));
  for (int i = 0; i < kCount; ++i)
    CHECK(out[i] == int_range(0, size, i), "%s: MPI_Allreduce(MPI_SUM): element %d is %d", name,
          i, out[i]);
  for (int i = 0; i < kCount; ++i) out[i] = in[i];
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, out, kCount, MPI_INT, MPI_MAX, comm));
  for (int i = 0; i < kCount; ++i)
    CHECK(out[i] == int_of(size - 1, i), "%s: MPI_Allreduce(MPI_MAX, in place): element %d is %d",
          name, i, out[i]);
  CHECK_MPI(MPI_Allreduce(min, mout, kCount, mat_type, mat_op, comm));
  for (int i = 0; i < kCount; ++i)
    CHECK(mat_eq(mout[i], mat_range(0, size, i)),
          "%s: MPI_Allreduce(user op): element %d out of rank order", name, i);

  CHECK_MPI(MPI_Scan(in, out, kCount, MPI_INT, MPI_SUM, comm));
  for (int i = 0; i < kCount; ++i)
    CHECK(out[i] == int_range(0, rank + 1, i), "%s: MPI_Scan(MPI_SUM): element %d is %d", name,
          i, out[i]);
  CHECK_MPI(MPI_Scan(min, mout, kCount, mat_type, mat_op, comm));
  for (int i = 0; i < kCount; ++i)
    CHECK(mat_eq(mout[i], mat_range(0, rank + 1, i)),
          "%s: MPI_Scan(user op): element %d out of rank order", name, i);
  CHECK_MPI(MPI_Exscan(in, out, kCount, MPI_INT, MPI_SUM, comm));
  if (rank > 0)
    for (int i = 0; i < kCount; ++i)
      CHECK(out[i] == int_range(0, rank, i), "%s: MPI_Exscan(MPI_SUM): element %d is %d", name, i,
            out[i]);
  CHECK_MPI(MPI_Exscan(min, mout, kCount, mat_type, mat_op, comm));
  if (rank > 0)
    for (int i = 0; i < kCount; ++i)
      CHECK(mat_eq(mout[i], mat_range(0, rank, i)),
            "%s: MPI_Exscan(user op): element %d out of rank order", name, i);
}

static void nap_ms(int ms) {
  struct timespec t = {0, ms * 1000000L};
  nanosleep(&t, NULL);
}

enum { kLarge = 1536 }; /* 12 KiB of doubles: above the direct path's 4 KiB */

static char *held;
static size_t held_bytes;
static int back_to_back = 100;

static void check_node_engine(MPI_Comm comm, const char *name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* Longer than a spin (1 ms): the others give up their slots meanwhile. */
  for (int late = 0; late < size; ++late) {
    if (held_bytes > 0) memset(held, late + 1, held_bytes);
    if (rank == late) nap_ms(3);
    CHECK_MPI(MPI_Barrier(comm));
    if (rank == late) nap_ms(3);
    int sum = rank + late, got = -1;
    CHECK_MPI(MPI_Allreduce(&sum, &got, 1, MPI_INT, MPI_SUM, comm));
    CHECK(got == size * (size - 1) / 2 + size * late, "%s: late rank %d: MPI_Allreduce gives %d",
          name, late, got);
    if (rank == late) nap_ms(3);
    int value = rank == late ? 900 + late : -1;
    CHECK_MPI(MPI_Bcast(&value, 1, MPI_INT, late, comm));
    CHECK(value == 900 + late, "%s: late root %d: MPI_Bcast gives %d", name, late, value);
  }
  /* Back to back: a call's parts never land in the next call's receives;
   * between them a ring exchange as in a halo exchange (MPI_Irecv,
   * MPI_Send, MPI_Wait, as HPCG does around its dot products), whose
   * messages must not mix with the collectives' either. */
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  for (int i = 0; i < back_to_back; ++i) {
    long halo = -1, mine_halo = 1000L * rank + i;
    MPI_Request request;
    CHECK_MPI(MPI_Irecv(&halo, 1, MPI_LONG, left, 31, comm, &request));
    CHECK_MPI(MPI_Send(&mine_halo, 1, MPI_LONG, right, 31, comm));
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    CHECK(halo == 1000L * left + i, "%s: ring message %d from %d is %ld", name, i, left, halo);
    long mine[2] = {i + rank, (long)rank * i}, all[2] = {-1, -1};
    CHECK_MPI(MPI_Allreduce(mine, all, 2, MPI_LONG, MPI_SUM, comm));
    CHECK(all[0] == (long)size * i + size * (size - 1) / 2 &&
              all[1] == (long)i * (size * (size - 1) / 2),
          "%s: MPI_Allreduce %d gives %ld %ld", name, i, all[0], all[1]);
    int value = rank == i % size ? i : -1;
    CHECK_MPI(MPI_Bcast(&value, 1, MPI_INT, i % size, comm));
    CHECK(value == i, "%s: MPI_Bcast %d gives %d", name, i, value);
    if (i % 7 == 0) CHECK_MPI(MPI_Barrier(comm));
  }
  /* Above the direct path's size, then small again. */
  static double big[kLarge], sum_big[kLarge];
  for (int i = 0; i < kLarge; ++i) big[i] = rank + i;
  CHECK_MPI(MPI_Allreduce(big, sum_big, kLarge, MPI_DOUBLE, MPI_SUM, comm));
  for (int i = 0; i < kLarge; ++i)
    CHECK(sum_big[i] == (double)size * (size - 1) / 2 + (double)size * i,
          "%s: MPI_Allreduce of %d doubles: element %d is %g", name, kLarge, i, sum_big[i]);
  CHECK_MPI(MPI_Bcast(big, kLarge, MPI_DOUBLE, size - 1, comm));
  for (int i = 0; i < kLarge; ++i)
    CHECK(big[i] == size - 1 + i, "%s: MPI_Bcast of %d doubles: element %d is %g", name, kLarge, i,
          big[i]);
  CHECK_MPI(MPI_Barrier(comm));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &mat_type));
  CHECK_MPI(MPI_Type_commit(&mat_type));
  CHECK_MPI(MPI_Op_create(mat_prod, /*commute=*/0, &mat_op));
  held_bytes = (size_t)arg_ll(argc, argv, "--hold-memory", 0);
  back_to_back = (int)arg_ll(argc, argv, "--rounds", back_to_back);
  if (held_bytes > 0) held = xmalloc(held_bytes);

  check_collectives(MPI_COMM_WORLD, "MPI_COMM_WORLD");
  check_node_engine(MPI_COMM_WORLD, "MPI_COMM_WORLD");
  /* The upper and lower halves, ranked in reverse. */
  int rank = world_rank(), size = world_size();
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, size - rank, &half));
  MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
  check_collectives(half, "a half");
  check_node_engine(half, "a half");
  CHECK_MPI(MPI_Comm_free(&half));

  free(held);
  CHECK_MPI(MPI_Op_free(&mat_op));
  CHECK_MPI(MPI_Type_free(&mat_type));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
