/*
 * comms: communicators and groups.
 *
 *  1. MPI_COMM_SELF: size 1, a message to oneself, collectives, comparisons.
 *  2. MPI_Comm_dup of MPI_COMM_WORLD: congruent, inherits the error handler,
 *     and a message on one never matches a receive on the other (even with
 *     MPI_ANY_SOURCE / MPI_ANY_TAG), in either order.
 *  3. MPI_Comm_split by rank % 3 with reversed keys, and by halves of the
 *     world (a subset of the nodes when there are several): ranks, sizes,
 *     point-to-point, barrier, bcast (small and 1 MiB), reduce and allreduce
 *     (small and 1 MiB) on each, and on a split of a split; MPI_UNDEFINED
 *     gives MPI_COMM_NULL.
 *  4. Rows and columns of a grid: collectives on both, so that collectives
 *     on different communicators of overlapping ranks are in progress at
 *     the same time.
 *  5. Groups: MPI_Comm_group, size, rank, translate_ranks (with
 *     MPI_PROC_NULL), incl, excl, range_incl, union, intersection,
 *     difference, compare, free; MPI_Comm_create from a group.
 *  6. MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), MPI_Comm_compare.
 *  7. 100 rounds of dup + allreduce + free (communicator ids and the
 *     masters' tag channels are reused or renewed without confusion).
 */
#include "check.h"

enum { kBig = 1 << 17 }; /* doubles: 1 MiB */

static int comm_rank(MPI_Comm c) {
  int r = -1;
  MPI_Comm_rank(c, &r);
  return r;
}

static int comm_size(MPI_Comm c) {
  int s = -1;
  MPI_Comm_size(c, &s);
  return s;
}

/* World rank of rank r of c. */
static int world_of(MPI_Comm c, int r) {
  MPI_Group g, world;
  int w = -1;
  MPI_Comm_group(c, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_translate_ranks(g, 1, &r, world, &w);
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  return w;
}

/* Point-to-point around c's ring and every collective, checked against the
 * members' world ranks. */
static void exercise(MPI_Comm c, const char *what) {
  const int rank = comm_rank(c), size = comm_size(c);
  const int me = world_rank();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int got = -1;
  MPI_Status st;
  MPI_Sendrecv(&me, 1, MPI_INT, right, 9, &got, 1, MPI_INT, left, 9, c, &st);
  CHECK(got == world_of(c, left) && st.MPI_SOURCE == left,
        "%s: ring got %d from %d, want %d from %d", what, got, st.MPI_SOURCE,
        world_of(c, left), left);
  MPI_Barrier(c);

  int sum = 0, want = 0;
  for (int r = 0; r < size; ++r) want += world_of(c, r);
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c);
  CHECK(sum == want, "%s: allreduce %d, want %d", what, sum, want);
  const int root = size > 1 ? 1 : 0;
  int max = -1;
  MPI_Reduce(&me, &max, 1, MPI_INT, MPI_MAX, root, c);
  if (rank == root) {
    int want_max = -1;
    for (int r = 0; r < size; ++r)
      if (world_of(c, r) > want_max) want_max = world_of(c, r);
    CHECK(max == want_max, "%s: reduce max %d, want %d", what, max, want_max);
  }
  int token = rank == root ? 1000 + me : -1;
  MPI_Bcast(&token, 1, MPI_INT, root, c);
  CHECK(token == 1000 + world_of(c, root), "%s: bcast got %d", what, token);

  double *big = xmalloc(kBig * sizeof(double));
  double *out = xmalloc(kBig * sizeof(double));
  for (int i = 0; i < kBig; ++i) big[i] = rank == 0 ? i * 0.5 : -1;
  MPI_Bcast(big, kBig, MPI_DOUBLE, 0, c);
  for (int i = 0; i < kBig; ++i)
    if (big[i] != i * 0.5) CHECK(0, "%s: big bcast [%d] = %g", what, i, big[i]);
  for (int i = 0; i < kBig; ++i) big[i] = (i % 7) + me;
  MPI_Allreduce(big, out, kBig, MPI_DOUBLE, MPI_SUM, c);
  for (int i = 0; i < kBig; ++i)
    if (out[i] != size * (i % 7) + (double)want)
      CHECK(0, "%s: big allreduce [%d] = %g", what, i, out[i]);
  free(big);
  free(out);
}

static void test_self(int rank, int size) {
  CHECK(comm_size(MPI_COMM_SELF) == 1 && comm_rank(MPI_COMM_SELF) == 0,
        "MPI_COMM_SELF has size %d rank %d", comm_size(MPI_COMM_SELF),
        comm_rank(MPI_COMM_SELF));
  int out = rank, in = -1;
  MPI_Status st;
  MPI_Sendrecv(&out, 1, MPI_INT, 0, 1, &in, 1, MPI_INT, 0, 1, MPI_COMM_SELF,
               &st);
  CHECK(in == rank && st.MPI_SOURCE == 0, "self message %d from %d", in,
        st.MPI_SOURCE);
  exercise(MPI_COMM_SELF, "MPI_COMM_SELF");
  int result = -1;
  MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_SELF, &result);
  CHECK(result == MPI_IDENT, "SELF vs SELF: %d", result);
  MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &result);
  CHECK(result == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL),
        "SELF vs WORLD: %d", result);
  MPI_Comm self_dup;
  MPI_Comm_dup(MPI_COMM_SELF, &self_dup);
  exercise(self_dup, "dup of MPI_COMM_SELF");
  MPI_Comm_free(&self_dup);
}

static void test_dup(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Errhandler handler;
  MPI_Comm_get_errhandler(dup, &handler);
  CHECK(handler == MPI_ERRORS_RETURN, "the dup did not inherit the handler");
  MPI_Errhandler_free(&handler);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_ARE_FATAL);
  int result = -1;
  MPI_Comm_compare(dup, MPI_COMM_WORLD, &result);
  CHECK(result == MPI_CONGRUENT, "dup vs WORLD: %d", result);
  CHECK(comm_rank(dup) == rank && comm_size(dup) == size, "dup rank/size");

  /* Send on the dup first, then on WORLD; wildcard receives on WORLD first
   * must still get the WORLD message, and the other way round. */
  int a = 100 + rank, b = 200 + rank, got = -1;
  MPI_Status st;
  MPI_Send(&a, 1, MPI_INT, right, 1, dup);
  MPI_Send(&b, 1, MPI_INT, right, 2, MPI_COMM_WORLD);
  MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  CHECK(got == 200 + left && st.MPI_TAG == 2,
        "WORLD receive got %d (tag %d): a message of the dup?", got,
        st.MPI_TAG);
  MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &st);
  CHECK(got == 100 + left && st.MPI_TAG == 1, "dup receive got %d", got);
  /* A posted wildcard receive on the dup is not taken by a WORLD message. */
  MPI_Request req;
  MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &req);
  MPI_Send(&b, 1, MPI_INT, right, 3, MPI_COMM_WORLD);
  MPI_Send(&a, 1, MPI_INT, right, 4, dup);
  MPI_Wait(&req, &st);
  CHECK(got == 100 + left && st.MPI_TAG == 4, "posted dup receive got %d",
        got);
  MPI_Recv(&got, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &st);
  CHECK(got == 200 + left, "WORLD message %d", got);
  exercise(dup, "dup of MPI_COMM_WORLD");
  MPI_Comm_free(&dup);
  CHECK(dup == MPI_COMM_NULL, "MPI_Comm_free did not null the handle");
}

static void test_split(int rank, int size) {
  /* By rank % 3, keys reversed. */
  MPI_Comm mod3;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 3, -rank, &mod3);
  const int n = (size - rank % 3 + 2) / 3; /* ranks with this residue */
  CHECK(comm_size(mod3) == n, "mod-3 comm of size %d, want %d",
        comm_size(mod3), n);
  /* Reversed keys: the highest world rank is rank 0. */
  CHECK(comm_rank(mod3) == n - 1 - rank / 3, "mod-3 rank %d, want %d",
        comm_rank(mod3), n - 1 - rank / 3);
  exercise(mod3, "split by rank % 3");

  /* A message on mod3 is not taken by a receive on WORLD. */
  const int r = comm_rank(mod3);
  int x = rank, got = -1, flag = 1;
  MPI_Send(&x, 1, MPI_INT, (r + 1) % n, 5, mod3);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
             MPI_STATUS_IGNORE);
  CHECK(flag == 0, "a message of the split is visible on WORLD");
  MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, mod3, MPI_STATUS_IGNORE);
  CHECK(got == world_of(mod3, (r + n - 1) % n), "split message %d", got);

  /* Halves of the world: with several nodes, a subset of them. */
  MPI_Comm half, quarter;
  MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
  exercise(half, "half of the world");
  /* A split of the split. */
  MPI_Comm_split(half, comm_rank(half) % 2, 0, &quarter);
  exercise(quarter, "split of the half");

  /* MPI_UNDEFINED. */
  MPI_Comm some;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 4 == 3 ? MPI_UNDEFINED : 7, rank,
                 &some);
  if (rank % 4 == 3) {
    CHECK(some == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
  } else {
    CHECK(some != MPI_COMM_NULL, "no communicator for color 7");
    CHECK(comm_size(some) == size - size / 4, "color 7 of size %d",
          comm_size(some));
    exercise(some, "all but rank % 4 == 3");
    MPI_Comm_free(&some);
  }
  MPI_Comm_free(&quarter);
  MPI_Comm_free(&half);
  MPI_Comm_free(&mod3);
}

static void test_grid(int rank, int size) {
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm row, col;
  MPI_Comm_split(MPI_COMM_WORLD, rank / dims[1], rank, &row);
  MPI_Comm_split(MPI_COMM_WORLD, rank % dims[1], rank, &col);
  CHECK(comm_size(row) == dims[1] && comm_size(col) == dims[0],
        "grid %dx%d: row %d col %d", dims[0], dims[1], comm_size(row),
        comm_size(col));
  for (int round = 0; round < 5; ++round) {
    int v = rank + round, rsum = 0, csum = 0, rwant = 0, cwant = 0;
    MPI_Allreduce(&v, &rsum, 1, MPI_INT, MPI_SUM, row);
    MPI_Allreduce(&v, &csum, 1, MPI_INT, MPI_SUM, col);
    for (int c = 0; c < dims[1]; ++c) rwant += (rank / dims[1]) * dims[1] + c + round;
    for (int r = 0; r < dims[0]; ++r) cwant += r * dims[1] + rank % dims[1] + round;
    CHECK(rsum == rwant && csum == cwant, "grid round %d: row %d/%d col %d/%d",
          round, rsum, rwant, csum, cwant);
    int token = comm_rank(row) == round % dims[1] ? rank : -1;
    MPI_Bcast(&token, 1, MPI_INT, round % dims[1], row);
    CHECK(token == (rank / dims[1]) * dims[1] + round % dims[1],
          "row bcast %d", token);
  }
  MPI_Comm_free(&row);
  MPI_Comm_free(&col);
}

static void test_groups(int rank, int size) {
  MPI_Group world, evens, odds, both, none, first, tmp;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int gsize = -1, grank = -1, result = -1;
  MPI_Group_size(world, &gsize);
  MPI_Group_rank(world, &grank);
  CHECK(gsize == size && grank == rank, "world group %d/%d", grank, gsize);

  int neven = (size + 1) / 2;
  int *ranks = xmalloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < neven; ++i) ranks[i] = 2 * i;
  MPI_Group_incl(world, neven, ranks, &evens);
  MPI_Group_excl(world, neven, ranks, &odds);
  MPI_Group_size(evens, &gsize);
  MPI_Group_rank(evens, &grank);
  CHECK(gsize == neven && grank == (rank % 2 ? MPI_UNDEFINED : rank / 2),
        "evens: rank %d size %d", grank, gsize);
  int range[1][3] = {{0, size - 1, 2}};
  MPI_Group_range_incl(world, 1, range, &tmp);
  MPI_Group_compare(tmp, evens, &result);
  CHECK(result == MPI_IDENT, "range_incl vs incl: %d", result);
  MPI_Group_free(&tmp);
  MPI_Group_range_excl(world, 1, range, &tmp);
  MPI_Group_compare(tmp, odds, &result);
  CHECK(result == MPI_IDENT, "range_excl vs excl: %d", result);
  MPI_Group_free(&tmp);

  MPI_Group_union(odds, evens, &both);
  MPI_Group_compare(both, world, &result);
  CHECK(result == (size > 1 ? MPI_SIMILAR : MPI_IDENT), "odds+evens vs world: %d",
        result);
  MPI_Group_intersection(odds, evens, &none);
  MPI_Group_size(none, &gsize);
  CHECK(gsize == 0, "odds and evens intersect in %d", gsize);
  MPI_Group_difference(world, odds, &tmp);
  MPI_Group_compare(tmp, evens, &result);
  CHECK(result == MPI_IDENT, "world - odds vs evens: %d", result);
  MPI_Group_free(&tmp);

  /* translate: every world rank to evens, and MPI_PROC_NULL. */
  int *out = xmalloc(sizeof(int) * (size_t)(size + 1));
  for (int i = 0; i < size; ++i) ranks[i] = i;
  ranks[size - 1] = MPI_PROC_NULL; /* the last one as MPI_PROC_NULL */
  MPI_Group_translate_ranks(world, size, ranks, evens, out);
  for (int i = 0; i < size - 1; ++i)
    CHECK(out[i] == (i % 2 ? MPI_UNDEFINED : i / 2), "translate %d -> %d", i,
          out[i]);
  CHECK(out[size - 1] == MPI_PROC_NULL, "MPI_PROC_NULL translated to %d",
        out[size - 1]);

  /* MPI_Comm_create from the evens, in reverse order. */
  for (int i = 0; i < neven; ++i) ranks[i] = neven - 1 - i;
  MPI_Group_incl(evens, neven, ranks, &first);
  MPI_Comm created;
  MPI_Comm_create(MPI_COMM_WORLD, first, &created);
  if (rank % 2) {
    CHECK(created == MPI_COMM_NULL, "an odd rank got a created comm");
  } else {
    CHECK(comm_size(created) == neven && comm_rank(created) == neven - 1 - rank / 2,
          "created comm rank %d size %d", comm_rank(created),
          comm_size(created));
    MPI_Group cg;
    MPI_Comm_group(created, &cg);
    MPI_Group_compare(cg, first, &result);
    CHECK(result == MPI_IDENT, "created comm's group vs its group: %d", result);
    MPI_Group_free(&cg);
    exercise(created, "created from the evens");
    MPI_Comm_free(&created);
  }
  free(out);
  free(ranks);
  MPI_Group_free(&first);
  MPI_Group_free(&none);
  MPI_Group_free(&both);
  MPI_Group_free(&odds);
  MPI_Group_free(&evens);
  MPI_Group_free(&world);
  CHECK(world == MPI_GROUP_NULL, "MPI_Group_free did not null the handle");
}

static void test_split_type_and_compare(int rank, int size) {
  MPI_Comm node, same, reversed;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                      MPI_INFO_NULL, &node);
  int one = 1, n = 0;
  MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, node);
  CHECK(n == comm_size(node) && n >= 1 && n <= size, "node comm of %d / %d",
        n, comm_size(node));
  MPI_Comm_free(&node);

  MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &same);
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &reversed);
  int result = -1;
  MPI_Comm_compare(same, MPI_COMM_WORLD, &result);
  CHECK(result == MPI_CONGRUENT, "same order vs WORLD: %d", result);
  MPI_Comm_compare(reversed, MPI_COMM_WORLD, &result);
  CHECK(result == (size > 1 ? MPI_SIMILAR : MPI_CONGRUENT),
        "reversed vs WORLD: %d", result);
  MPI_Comm_free(&reversed);
  MPI_Comm_free(&same);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm world = MPI_COMM_WORLD, null = MPI_COMM_NULL;
  CHECK_CLASS(MPI_Comm_free(&world), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_free(&null), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_split(MPI_COMM_NULL, 0, 0, &null), MPI_ERR_COMM);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_many_dups(int rank, int size) {
  for (int round = 0; round < 100; ++round) {
    MPI_Comm dup;
    MPI_Comm_dup(round % 2 ? MPI_COMM_WORLD : MPI_COMM_SELF, &dup);
    int v = rank + round, sum = -1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, dup);
    const int want =
        round % 2 ? size * (size - 1) / 2 + size * round : rank + round;
    CHECK(sum == want, "round %d: sum %d, want %d", round, sum, want);
    MPI_Comm_free(&dup);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  test_self(rank, size);
  test_dup(rank, size);
  test_split(rank, size);
  test_grid(rank, size);
  test_groups(rank, size);
  test_split_type_and_compare(rank, size);
  test_many_dups(rank, size);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
