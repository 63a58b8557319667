/*
 * intercomm: intercommunicators between the even and the odd world ranks.
 *
 *  1. MPI_Intercomm_create (peer MPI_COMM_WORLD, leaders the lowest rank of
 *     each group): MPI_Comm_test_inter, sizes, MPI_Comm_remote_size,
 *     MPI_Comm_remote_group (translated to world ranks).
 *  2. Point-to-point names remote ranks: each rank sends to remote rank
 *     (its rank mod the remote size) and receives with MPI_ANY_SOURCE as
 *     many messages as are sent to it; statuses give remote ranks; then
 *     MPI_Isend/MPI_Irecv with a named source, MPI_Probe and MPI_Iprobe.
 *  3. MPI_Barrier across the groups.
 *  4. MPI_Intercomm_merge with the odd group high: even ranks first; an
 *     allreduce on the result. MPI_Comm_dup of the intercommunicator keeps
 *     the groups and its messages apart from the original's.
 *  5. MPI_Comm_split of the intercommunicator by local rank parity with
 *     reversed keys: the local and remote groups of each color, in key
 *     order; MPI_Comm_create with the local group minus its rank 0.
 *  6. Collectives across the groups (MPI_ROOT / MPI_PROC_NULL roots):
 *     bcast, reduce, allreduce (each group gets the other's sum), gather,
 *     scatter, allgather, alltoall; MPI_Scan, which MPI leaves undefined
 *     there, fails with MPI_ERR_COMM.
 */
#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int me = world_rank(), size = world_size();
  if (size < 2) {
    if (me == 0) printf("intercomm: ok (needs 2 ranks; skipped)\n");
    MPI_Finalize();
    return 0;
  }
  int parity = me % 2;
  int nlocal = (size - parity + 1) / 2, nremote = size - nlocal;
  MPI_Comm local, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, parity, me, &local));
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - parity, 12, &inter));
  int flag = 0, remote_size = -1;
  CHECK_MPI(MPI_Comm_test_inter(inter, &flag));
  CHECK(flag, "MPI_Comm_test_inter says no");
  CHECK_MPI(MPI_Comm_test_inter(local, &flag));
  CHECK(!flag, "an intracommunicator tests as inter");
  CHECK(size_of(inter) == nlocal && rank_in(inter) == me / 2, "local %d of %d",
        rank_in(inter), size_of(inter));
  CHECK_MPI(MPI_Comm_remote_size(inter, &remote_size));
  CHECK(remote_size == nremote, "remote size %d, want %d", remote_size, nremote);
  MPI_Group remote, world;
  CHECK_MPI(MPI_Comm_remote_group(inter, &remote));
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  for (int r = 0; r < nremote; ++r) {
    int w = -1;
    MPI_Group_translate_ranks(remote, 1, &r, world, &w);
    CHECK(w == 2 * r + 1 - parity, "remote rank %d is world rank %d", r, w);
  }
  MPI_Group_free(&remote);
  MPI_Group_free(&world);

  /* 2. Point-to-point. */
  int mine = me / 2, value = me, got = -1;
  CHECK_MPI(MPI_Send(&value, 1, MPI_INT, mine % nremote, 3, inter));
  int expected = 0;
  for (int j = 0; j < nremote; ++j)
    if (j % nlocal == mine) ++expected;
  for (int k = 0; k < expected; ++k) {
    MPI_Status status;
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 3, inter, &status));
    int j = status.MPI_SOURCE;
    CHECK(j >= 0 && j < nremote && j % nlocal == mine, "a message from remote rank %d", j);
    CHECK(got == 2 * j + 1 - parity, "remote rank %d sent %d", j, got);
  }
  int partner = mine < nremote ? mine : nremote - 1;
  MPI_Request requests[2];
  int in = -1, out = 100 + me;
  if (mine < nremote) {
    /* Pairs: local rank i and remote rank i, both ways. */
    CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, partner, 4, inter, &requests[0]));
    CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, partner, 4, inter, &requests[1]));
    MPI_Status statuses[2];
    CHECK_MPI(MPI_Waitall(2, requests, statuses));
    CHECK(in == 100 + 2 * partner + 1 - parity && statuses[0].MPI_SOURCE == partner,
          "pair exchange: %d from %d", in, statuses[0].MPI_SOURCE);
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, partner, 5, inter));
    MPI_Status status;
    CHECK_MPI(MPI_Probe(partner, 5, inter, &status));
    CHECK(status.MPI_SOURCE == partner, "probe: source %d", status.MPI_SOURCE);
    int found = 0;
    while (!found) CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 5, inter, &found, &status));
    CHECK(status.MPI_SOURCE == partner, "iprobe: source %d", status.MPI_SOURCE);
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, partner, 5, inter, MPI_STATUS_IGNORE));
  }

  /* 3. Barrier across the groups. */
  CHECK_MPI(MPI_Barrier(inter));

  /* 4. Merge and dup. */
  MPI_Comm merged, copy;
  CHECK_MPI(MPI_Intercomm_merge(inter, parity, &merged));
  int want_rank = parity ? (size + 1) / 2 + mine : mine;
  CHECK(size_of(merged) == size && rank_in(merged) == want_rank, "merged: rank %d of %d, want %d",
        rank_in(merged), size_of(merged), want_rank);
  CHECK_MPI(MPI_Comm_test_inter(merged, &flag));
  CHECK(!flag, "the merged communicator tests as inter");
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, merged));
  CHECK(sum == size * (size - 1) / 2, "allreduce on the merged communicator: %d", sum);
  CHECK_MPI(MPI_Comm_dup(inter, &copy));
  CHECK_MPI(MPI_Comm_test_inter(copy, &flag));
  CHECK(flag && size_of(copy) == nlocal, "the duplicate is not the same intercommunicator");
  if (mine < nremote) {
    /* The same tag on both: each arrives on its own communicator. */
    int a = 1000 + me, b = 2000 + me, ra = -1, rb = -1;
    CHECK_MPI(MPI_Send(&a, 1, MPI_INT, partner, 6, inter));
    CHECK_MPI(MPI_Send(&b, 1, MPI_INT, partner, 6, copy));
    CHECK_MPI(MPI_Recv(&rb, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, copy, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(&ra, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, inter, MPI_STATUS_IGNORE));
    int other = 2 * partner + 1 - parity;
    CHECK(ra == 1000 + other && rb == 2000 + other, "dup: %d and %d", ra, rb);
  }
  CHECK_MPI(MPI_Barrier(copy));

  /* 5. Split and create. */
  MPI_Comm half;
  int color = mine % 2;
  CHECK_MPI(MPI_Comm_split(inter, color, -mine, &half));
  int nl = 0, nr = 0;
  for (int i = 0; i < nlocal; ++i) nl += i % 2 == color;
  for (int j = 0; j < nremote; ++j) nr += j % 2 == color;
  if (nr == 0) {
    CHECK(half == MPI_COMM_NULL, "a split with nobody across gave a communicator");
  } else {
    int rsize = -1, higher = 0;
    for (int i = mine + 1; i < nlocal; ++i) higher += i % 2 == color;
    CHECK_MPI(MPI_Comm_remote_size(half, &rsize));
    CHECK(size_of(half) == nl && rsize == nr && rank_in(half) == higher,
          "split: rank %d of %d (remote %d), want %d of %d (remote %d)", rank_in(half),
          size_of(half), rsize, higher, nl, nr);
    /* Remote rank 0 of the half is the highest remote rank of the color. */
    int top = nremote - 1;
    while (top % 2 != color) --top;
    if (rank_in(half) == 0) { /* the two ranks 0 of a color swap world ranks */
      int v = me, w = -1;
      MPI_Status status;
      CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, 0, 8, &w, 1, MPI_INT, 0, 8, half, &status));
      CHECK(w == 2 * top + 1 - parity, "split: remote rank 0 is world rank %d", w);
    }
    CHECK_MPI(MPI_Barrier(half));
    CHECK_MPI(MPI_Comm_free(&half));
  }
  MPI_Group local_group, rest;
  int zero = 0;
  CHECK_MPI(MPI_Comm_group(inter, &local_group));
  CHECK_MPI(MPI_Group_excl(local_group, 1, &zero, &rest));
  MPI_Comm part;
  CHECK_MPI(MPI_Comm_create(inter, rest, &part));
  if (mine == 0 || nlocal == 1 || nremote == 1) {
    CHECK(part == MPI_COMM_NULL, "MPI_Comm_create: rank %d of %d got a communicator", mine,
          nlocal);
  } else {
    int rsize = -1;
    CHECK_MPI(MPI_Comm_remote_size(part, &rsize));
    CHECK(size_of(part) == nlocal - 1 && rsize == nremote - 1 && rank_in(part) == mine - 1,
          "MPI_Comm_create: rank %d of %d, remote %d", rank_in(part), size_of(part), rsize);
    CHECK_MPI(MPI_Comm_free(&part));
  }
  MPI_Group_free(&rest);
  MPI_Group_free(&local_group);

  /* 6. Collectives across the groups: the even group's rank 0 is the root
   * of the rooted ones. */
  int root = parity == 0 ? (mine == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  int data[3] = {-1, -1, -1};
  if (root == MPI_ROOT) data[0] = 77, data[1] = 78, data[2] = 79;
  CHECK_MPI(MPI_Bcast(data, 3, MPI_INT, root, inter));
  if (parity == 1) CHECK(data[0] == 77 && data[2] == 79, "bcast: %d %d", data[0], data[2]);
  if (root == MPI_PROC_NULL) CHECK(data[0] == -1, "bcast wrote an idle rank's buffer");
  int odd_sum = 0, even_sum = 0; /* of world ranks + 1 */
  for (int r = 0; r < size; ++r) *(r % 2 ? &odd_sum : &even_sum) += r + 1;
  int mine1 = me + 1, result = -1;
  CHECK_MPI(MPI_Reduce(&mine1, &result, 1, MPI_INT, MPI_SUM, root, inter));
  if (root == MPI_ROOT) CHECK(result == odd_sum, "reduce: %d, want %d", result, odd_sum);
  CHECK_MPI(MPI_Allreduce(&mine1, &result, 1, MPI_INT, MPI_SUM, inter));
  CHECK(result == (parity ? even_sum : odd_sum), "allreduce: %d", result);
  int all[64], block[2];
  if (size <= 64) {
    for (int j = 0; j < 64; ++j) all[j] = -1;
    CHECK_MPI(MPI_Gather(&me, 1, MPI_INT, all, 1, MPI_INT, root, inter));
    for (int j = 0; root == MPI_ROOT && j < nremote; ++j)
      CHECK(all[j] == 2 * j + 1, "gather block %d: %d", j, all[j]);
    if (root == MPI_ROOT)
      for (int j = 0; j < nremote; ++j) all[j] = 500 + j;
    int piece = -1;
    CHECK_MPI(MPI_Scatter(all, 1, MPI_INT, &piece, 1, MPI_INT, root, inter));
    if (parity == 1) CHECK(piece == 500 + mine, "scatter: %d", piece);
    CHECK_MPI(MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, inter));
    for (int j = 0; j < nremote; ++j)
      CHECK(all[j] == 2 * j + 1 - parity, "allgather block %d: %d", j, all[j]);
    int out[64];
    for (int j = 0; j < nremote; ++j) out[j] = 1000 * me + j;
    CHECK_MPI(MPI_Alltoall(out, 1, MPI_INT, all, 1, MPI_INT, inter));
    for (int j = 0; j < nremote; ++j)
      CHECK(all[j] == 1000 * (2 * j + 1 - parity) + mine, "alltoall block %d: %d", j, all[j]);
  }
  (void)block;
#ifdef BDMPI /* MPI_Scan is not defined on intercommunicators */
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Scan(&me, &sum, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
#endif

  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&local));
  if (me == 0) printf("intercomm: ok\n");
  MPI_Finalize();
  return 0;
}
