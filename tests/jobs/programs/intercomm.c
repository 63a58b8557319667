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
 *  7. MPI_Reduce_scatter_block, MPI_Reduce_scatter (each group gets blocks
 *     of the other's sum) and MPI_Alltoallw across the groups.
 *  8. Nonblocking collectives across the groups, started together and
 *     completed in reverse order: Ibarrier, Ibcast, Iallreduce, Ireduce,
 *     Igather, Ireduce_scatter_block, Ialltoall; MPI_Comm_idup of the
 *     intercommunicator, twice, completed in reverse order, between them.
 */
#include "check.h"

/* Open MPI 4.1 hangs now and then when an idup of an intercommunicator is
 * outstanding with other nonblocking collectives on it: there, it is
 * completed at once. */
static void settle_idup(MPI_Request *request) {
#ifdef BDMPI
  (void)request;
#else
  CHECK_MPI(MPI_Wait(request, MPI_STATUS_IGNORE));
#endif
}

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
  /* An idle rank's arguments are not significant: mpi4py passes no
   * buffers, count 0 and MPI_SUM on MPI_BYTE there. */
  if (root == MPI_PROC_NULL) {
    CHECK_MPI(MPI_Reduce(NULL, NULL, 0, MPI_BYTE, MPI_SUM, root, inter));
  } else {
    CHECK_MPI(MPI_Reduce(&mine1, &result, 1, MPI_INT, MPI_SUM, root, inter));
    if (root == MPI_ROOT) CHECK(result == odd_sum, "reduce again: %d", result);
  }
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

  /* 7. Reduce-scatters: the other group's vectors summed; both groups'
   * vectors hold 2 * nlocal * nremote elements, 2 * nremote per local rank. */
  if (size <= 64) {
    int n = 2 * nlocal * nremote; /* the same total in both groups */
    int vec[2 * 32 * 32], got_block[2 * 64];
    for (int i = 0; i < n; ++i) vec[i] = (me + 1) * 1000 + i;
    int rsum = parity ? even_sum : odd_sum;
    int per = 2 * nremote; /* each local rank's block */
    CHECK_MPI(MPI_Reduce_scatter_block(vec, got_block, per, MPI_INT, MPI_SUM, inter));
    for (int i = 0; i < per; ++i) {
      int index = mine * per + i;
      CHECK(got_block[i] == rsum * 1000 + nremote * index, "reduce_scatter_block [%d]: %d", i,
            got_block[i]);
    }
    int counts[64];
    for (int j = 0; j < nlocal; ++j) counts[j] = per;
    CHECK_MPI(MPI_Reduce_scatter(vec, got_block, counts, MPI_INT, MPI_SUM, inter));
    for (int i = 0; i < per; ++i)
      CHECK(got_block[i] == rsum * 1000 + nremote * (mine * per + i), "reduce_scatter [%d]: %d",
            i, got_block[i]);
    int wcounts[64], wdispls[64], out[64];
    MPI_Datatype wtypes[64];
    for (int j = 0; j < nremote; ++j) {
      out[j] = 100 * me + j, all[j] = -1;
      wcounts[j] = 1, wdispls[j] = j * (int)sizeof(int), wtypes[j] = MPI_INT;
    }
    CHECK_MPI(MPI_Alltoallw(out, wcounts, wdispls, wtypes, all, wcounts, wdispls, wtypes, inter));
    for (int j = 0; j < nremote; ++j)
      CHECK(all[j] == 100 * (2 * j + 1 - parity) + mine, "alltoallw block %d: %d", j, all[j]);

    /* 8. Nonblocking, completed in reverse order. */
    MPI_Request requests[9];
    int bvalue = root == MPI_ROOT ? 4242 : -1, isum = -1, ired = -1;
    int gathered[64], ialltoall_out[64], ialltoall_in[64], iblock[2 * 64];
    for (int j = 0; j < nremote; ++j) ialltoall_out[j] = 10 * me + j;
    CHECK_MPI(MPI_Ibarrier(inter, &requests[0]));
    CHECK_MPI(MPI_Ibcast(&bvalue, 1, MPI_INT, root, inter, &requests[1]));
    CHECK_MPI(MPI_Iallreduce(&mine1, &isum, 1, MPI_INT, MPI_SUM, inter, &requests[2]));
    MPI_Comm dup1, dup2;
    CHECK_MPI(MPI_Comm_idup(inter, &dup1, &requests[3]));
    settle_idup(&requests[3]);
    CHECK_MPI(MPI_Ireduce(&mine1, &ired, 1, MPI_INT, MPI_SUM, root, inter, &requests[4]));
    CHECK_MPI(MPI_Igather(&me, 1, MPI_INT, gathered, 1, MPI_INT, root, inter, &requests[5]));
    CHECK_MPI(MPI_Comm_idup(inter, &dup2, &requests[6]));
    settle_idup(&requests[6]);
    CHECK_MPI(MPI_Ireduce_scatter_block(vec, iblock, per, MPI_INT, MPI_SUM, inter, &requests[7]));
    CHECK_MPI(MPI_Ialltoall(ialltoall_out, 1, MPI_INT, ialltoall_in, 1, MPI_INT, inter,
                            &requests[8]));
    for (int k = 8; k >= 0; --k) CHECK_MPI(MPI_Wait(&requests[k], MPI_STATUS_IGNORE));
    if (parity == 1) CHECK(bvalue == 4242, "ibcast: %d", bvalue);
    CHECK(isum == (parity ? even_sum : odd_sum), "iallreduce: %d", isum);
    if (root == MPI_ROOT) {
      CHECK(ired == odd_sum, "ireduce: %d, want %d", ired, odd_sum);
      for (int j = 0; j < nremote; ++j)
        CHECK(gathered[j] == 2 * j + 1, "igather block %d: %d", j, gathered[j]);
    }
    for (int i = 0; i < per; ++i)
      CHECK(iblock[i] == rsum * 1000 + nremote * (mine * per + i),
            "ireduce_scatter_block [%d]: %d", i, iblock[i]);
    for (int j = 0; j < nremote; ++j)
      CHECK(ialltoall_in[j] == 10 * (2 * j + 1 - parity) + mine, "ialltoall block %d: %d", j,
            ialltoall_in[j]);
    MPI_Comm dups[2] = {dup1, dup2};
    for (int k = 0; k < 2; ++k) {
      int rsize = -1, inter_flag = 0;
      CHECK_MPI(MPI_Comm_test_inter(dups[k], &inter_flag));
      CHECK_MPI(MPI_Comm_remote_size(dups[k], &rsize));
      CHECK(inter_flag && rsize == nremote && rank_in(dups[k]) == mine, "idup %d: %d %d %d", k,
            inter_flag, rsize, rank_in(dups[k]));
      CHECK_MPI(MPI_Allreduce(&mine1, &isum, 1, MPI_INT, MPI_SUM, dups[k]));
      CHECK(isum == (parity ? even_sum : odd_sum), "allreduce on idup %d: %d", k, isum);
      CHECK_MPI(MPI_Comm_free(&dups[k]));
    }
  }

  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&local));
  if (me == 0) printf("intercomm: ok\n");
  MPI_Finalize();
  return 0;
}
