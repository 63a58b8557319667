/* BDMPI_COMM_CWORLD and BDMPI_COMM_NODE (bdmpi.h): their sizes and ranks
 * agree with BDMPI_Comm_nsize/nrank/lsize/lrank and with the world ranks,
 * they cannot be freed, and point-to-point (a ring) and the collectives
 * work on them. Under mpirun (no BDMPI) the same steps run on
 * MPI_COMM_WORLD and on a copy of it, with nothing BDMPI-specific checked. */
#include "check.h"
#ifdef BDMPI
#include <bdmpi.h>
#endif

/* A ring exchange, then Allreduce, Bcast, Barrier and Allgather on comm;
 * world_of[r] is the world rank of comm's rank r. */
static void exercise(MPI_Comm comm, const int *world_of) {
  int me, n;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  CHECK(world_of[me] == world_rank(), "rank %d maps to world %d, I am %d", me, world_of[me],
        world_rank());

  /* Ring: send my world rank to the right, get the left's. */
  int right = (me + 1) % n, left = (me + n - 1) % n;
  int got = -1, mine = world_rank();
  MPI_Status st;
  MPI_Sendrecv(&mine, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, comm, &st);
  CHECK(got == world_of[left], "ring got %d from rank %d, want world rank %d", got, left,
        world_of[left]);
  CHECK_STATUS(st, left, 7, MPI_INT, 1);
  /* And back the other way with separate sends and receives. */
  MPI_Request req;
  MPI_Irecv(&got, 1, MPI_INT, right, 8, comm, &req);
  MPI_Send(&me, 1, MPI_INT, left, 8, comm);
  MPI_Wait(&req, &st);
  CHECK(got == right, "reverse ring got %d, want %d", got, right);

  /* Allreduce: the sum of world ranks and the sum of comm ranks. */
  long long in[2] = {world_rank(), me}, out[2] = {0, 0};
  MPI_Allreduce(in, out, 2, MPI_LONG_LONG, MPI_SUM, comm);
  long long want_world = 0;
  for (int r = 0; r < n; ++r) want_world += world_of[r];
  CHECK(out[0] == want_world && out[1] == (long long)n * (n - 1) / 2,
        "allreduce %lld %lld, want %lld %lld", out[0], out[1], want_world,
        (long long)n * (n - 1) / 2);
  int max = -1;
  MPI_Allreduce(&me, &max, 1, MPI_INT, MPI_MAX, comm);
  CHECK(max == n - 1, "allreduce max %d, want %d", max, n - 1);

  /* Bcast from every root. */
  for (int root = 0; root < n; ++root) {
    int value = me == root ? 1000 + world_rank() : -1;
    MPI_Bcast(&value, 1, MPI_INT, root, comm);
    CHECK(value == 1000 + world_of[root], "bcast from %d got %d", root, value);
  }

  MPI_Barrier(comm);

  /* Allgather of world ranks gives the rank -> world rank map. */
  int *all = xmalloc(sizeof(int) * (size_t)n);
  MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, comm);
  for (int r = 0; r < n; ++r)
    CHECK(all[r] == world_of[r], "allgather[%d] = %d, want %d", r, all[r], world_of[r]);
  free(all);

  /* A split of it works too. */
  MPI_Comm half;
  MPI_Comm_split(comm, me % 2, me, &half);
  int hn = 0, sum = 0;
  MPI_Comm_size(half, &hn);
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, half);
  int want = 0;
  for (int r = me % 2; r < n; r += 2) want += r;
  CHECK(hn == (n + 1 - me % 2) / 2 && sum == want, "split size %d sum %d, want sum %d", hn, sum,
        want);
  MPI_Comm_free(&half);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int wsize = world_size(), wrank = world_rank();
  int *world_of = xmalloc(sizeof(int) * (size_t)wsize);
#ifdef BDMPI
  MPI_Comm cworld = BDMPI_COMM_CWORLD, node = BDMPI_COMM_NODE;
  int nnodes, node_rank, per_node, local;
  BDMPI_Comm_nsize(MPI_COMM_WORLD, &nnodes);
  BDMPI_Comm_nrank(MPI_COMM_WORLD, &node_rank);
  BDMPI_Comm_lsize(MPI_COMM_WORLD, &per_node);
  BDMPI_Comm_lrank(MPI_COMM_WORLD, &local);
  /* Ranks in blocks: each node runs wsize / nnodes, the first wsize % nnodes
   * one more (mpiexec -n 7 on 3 nodes: 3, 2, 2). */
  const int base = wsize / nnodes, extra = wsize % nnodes;
#define FIRST_RANK(node) ((node) * base + ((node) < extra ? (node) : extra))
  CHECK(per_node == base + (node_rank < extra), "%d ranks on node %d of %d, world %d", per_node,
        node_rank, nnodes, wsize);
  CHECK(wrank == FIRST_RANK(node_rank) + local, "world rank %d is not node %d, local %d", wrank,
        node_rank, local);

  /* CWORLD: everybody, cyclic across the nodes. */
  int size, rank, v;
  MPI_Comm_size(cworld, &size);
  MPI_Comm_rank(cworld, &rank);
  CHECK(size == wsize, "CWORLD size %d, want %d", size, wsize);
  CHECK(rank == local * nnodes + node_rank, "CWORLD rank %d, want %d", rank,
        local * nnodes + node_rank);
  BDMPI_Comm_nsize(cworld, &v);
  CHECK(v == nnodes, "CWORLD nsize %d, want %d", v, nnodes);
  BDMPI_Comm_nrank(cworld, &v);
  CHECK(v == node_rank, "CWORLD nrank %d, want %d", v, node_rank);
  BDMPI_Comm_lsize(cworld, &v);
  CHECK(v == per_node, "CWORLD lsize %d, want %d", v, per_node);
  BDMPI_Comm_lrank(cworld, &v);
  CHECK(v == local, "CWORLD lrank %d, want %d", v, local);
  BDMPI_Comm_rrank(cworld, &v);
  CHECK(v == node_rank, "CWORLD rrank %d, want %d", v, node_rank);
  for (int r = 0; r < wsize; ++r) world_of[r] = FIRST_RANK(r % nnodes) + r / nnodes;

  /* The world group translates to CWORLD ranks the same way. */
  MPI_Group wg, cg;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Comm_group(cworld, &cg);
  for (int r = 0; r < wsize; ++r) {
    int c = -1;
    MPI_Group_translate_ranks(cg, 1, &r, wg, &c);
    CHECK(c == world_of[r], "CWORLD rank %d is world %d, want %d", r, c, world_of[r]);
  }
  MPI_Group_free(&wg);
  MPI_Group_free(&cg);

  /* NODE: this node's ranks, by world rank. */
  MPI_Comm_size(node, &size);
  MPI_Comm_rank(node, &rank);
  CHECK(size == per_node, "NODE size %d, want %d", size, per_node);
  CHECK(rank == local, "NODE rank %d, want %d", rank, local);
  BDMPI_Comm_nsize(node, &v);
  CHECK(v == 1, "NODE nsize %d", v);
  BDMPI_Comm_nrank(node, &v);
  CHECK(v == 0, "NODE nrank %d", v);
  BDMPI_Comm_lsize(node, &v);
  CHECK(v == per_node, "NODE lsize %d, want %d", v, per_node);
  BDMPI_Comm_lrank(node, &v);
  CHECK(v == local, "NODE lrank %d, want %d", v, local);
  BDMPI_Comm_rrank(node, &v);
  CHECK(v == 0, "NODE rrank %d", v);
  int *node_world = xmalloc(sizeof(int) * (size_t)per_node);
  for (int i = 0; i < per_node; ++i) node_world[i] = FIRST_RANK(node_rank) + i;

  /* Neither can be freed. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(cworld, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
  MPI_Comm c = cworld;
  CHECK_CLASS(MPI_Comm_free(&c), MPI_ERR_COMM);
  CHECK(c == cworld, "a failed free changed the handle");
  c = node;
  CHECK_CLASS(MPI_Comm_free(&c), MPI_ERR_COMM);
  CHECK(c == node, "a failed free changed the handle");
  int cmp;
  MPI_Comm_compare(cworld, MPI_COMM_WORLD, &cmp);
  CHECK(cmp == (nnodes > 1 && wsize > nnodes ? MPI_SIMILAR : MPI_CONGRUENT),
        "CWORLD vs WORLD compare %d", cmp);
  MPI_Comm_set_errhandler(cworld, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(node, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#else
  MPI_Comm cworld, node;
  MPI_Comm_dup(MPI_COMM_WORLD, &cworld);
  MPI_Comm_dup(MPI_COMM_WORLD, &node);
  for (int r = 0; r < wsize; ++r) world_of[r] = r;
  int *node_world = xmalloc(sizeof(int) * (size_t)wsize);
  for (int r = 0; r < wsize; ++r) node_world[r] = r;
#endif
  (void)wrank;

  /* Interleave them, so that their traffic must stay apart. */
  for (int round = 0; round < 2; ++round) {
    exercise(cworld, world_of);
    exercise(node, node_world);
  }
  /* Same-tag messages on WORLD, CWORLD and NODE at once. */
  {
    int n_c, me_c, n_n, me_n;
    MPI_Comm_size(cworld, &n_c);
    MPI_Comm_rank(cworld, &me_c);
    MPI_Comm_size(node, &n_n);
    MPI_Comm_rank(node, &me_n);
    int in[3] = {-1, -1, -1};
    int out[3] = {1, 2, 3};
    MPI_Request reqs[6];
    MPI_Irecv(&in[0], 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(&in[1], 1, MPI_INT, MPI_ANY_SOURCE, 5, cworld, &reqs[1]);
    MPI_Irecv(&in[2], 1, MPI_INT, MPI_ANY_SOURCE, 5, node, &reqs[2]);
    MPI_Isend(&out[2], 1, MPI_INT, (me_n + 1) % n_n, 5, node, &reqs[3]);
    MPI_Isend(&out[1], 1, MPI_INT, (me_c + 1) % n_c, 5, cworld, &reqs[4]);
    MPI_Isend(&out[0], 1, MPI_INT, (wrank + 1) % wsize, 5, MPI_COMM_WORLD, &reqs[5]);
    MPI_Waitall(6, reqs, MPI_STATUSES_IGNORE);
    CHECK(in[0] == 1 && in[1] == 2 && in[2] == 3, "mixed-up messages %d %d %d", in[0], in[1],
          in[2]);
  }
#ifndef BDMPI
  MPI_Comm_free(&cworld);
  MPI_Comm_free(&node);
#endif
  free(world_of);
  free(node_world);
  MPI_Finalize();
  return 0;
}
