/*
 * topologies: Cartesian, graph and distributed graph communicators and the
 * neighbourhood collectives on them.
 *
 *  1. MPI_Dims_create: the most balanced factors (72 in 2 dimensions is
 *     9 x 8, not 12 x 6 as Open MPI 4.1 has it), with fixed entries kept; into 2 dimensions for
 *     the world size, and MPI_Cart_create of that periodic
 *     grid: MPI_Topo_test, MPI_Cartdim_get, MPI_Cart_get, MPI_Cart_rank of
 *     MPI_Cart_coords (and of wrapped coordinates), MPI_Cart_shift against
 *     the coordinates; MPI_Comm_dup keeps the topology.
 *  2. A non-periodic line of all but one rank: the last rank gets
 *     MPI_COMM_NULL, the ends shift to MPI_PROC_NULL; MPI_Cart_map.
 *  3. MPI_Cart_sub into rows and columns: sizes, ranks, and an allreduce
 *     along each.
 *  4. Neighbourhood collectives on the grid (a dimension of extent 1 or 2
 *     makes both neighbours the same rank) and on the line (MPI_PROC_NULL
 *     neighbours leave their blocks untouched): Neighbor_allgather(v),
 *     Neighbor_alltoall(v,w) each block tagged with sender and direction,
 *     their nonblocking MPI_Ineighbor_* forms and (BDMPI only) their
 *     persistent MPI_Neighbor_*_init forms, started twice.
 *  5. MPI_Graph_create of a ring (plus a chord from rank 0):
 *     MPI_Graphdims_get, MPI_Graph_get, MPI_Graph_neighbors(_count),
 *     MPI_Graph_map, and Neighbor_alltoall on it.
 *  6. MPI_Dist_graph_create_adjacent (each rank to the next two, weighted)
 *     and MPI_Dist_graph_create (rank 0 names every edge of a ring):
 *     MPI_Dist_graph_neighbors(_count), and Neighbor_allgather on both.
 */
#include "check.h"

/* MPI_UNWEIGHTED is a made-up pointer (Open MPI's and BDMPI's (int *)2):
 * GCC would warn that the calls below read through it. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

/* The value rank `from` sends to its neighbour number `slot`. */
static int token(int from, int slot) { return 1000 * (from + 1) + slot; }

/* Neighbour collectives where out-neighbour i of rank r receives block i
 * from r into its in-slot recv_slot[i] (computed by the caller). */
static void check_alltoall(MPI_Comm comm, int n_in, const int *ins, int n_out,
                           const int *in_slot_from_sender) {
  int me = rank_in(comm);
  int send[64], recv[64], counts[64], displs[64], rcounts[64], rdispls[64];
  MPI_Aint sbytes[64], rbytes[64];
  MPI_Datatype types[64];
  for (int i = 0; i < n_out; ++i) {
    send[i] = token(me, i);
    counts[i] = 1;
    displs[i] = i;
    sbytes[i] = (MPI_Aint)(i * sizeof(int));
    types[i] = MPI_INT;
  }
  for (int j = 0; j < n_in; ++j) {
    recv[j] = -1;
    rcounts[j] = 1;
    rdispls[j] = j;
    rbytes[j] = (MPI_Aint)(j * sizeof(int));
  }
  /* Rounds 3 to 5: the nonblocking forms. Open MPI 4.1's mix up the
   * blocks of two directions that lead to the same rank (a dimension of
   * extent 1 or 2), so under it they run only where the neighbours differ. */
  int rounds = 6;
#ifndef BDMPI
  for (int j = 0; j < n_in; ++j)
    for (int k = 0; k < j; ++k)
      if (ins[j] == ins[k] && ins[j] != MPI_PROC_NULL) rounds = 3;
#endif
  for (int round = 0; round < rounds; ++round) {
    MPI_Request request = MPI_REQUEST_NULL;
    for (int j = 0; j < n_in; ++j) recv[j] = -1;
    if (round == 0)
      CHECK_MPI(MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, comm));
    if (round == 1)
      CHECK_MPI(MPI_Neighbor_alltoallv(send, counts, displs, MPI_INT, recv, rcounts, rdispls,
                                       MPI_INT, comm));
    if (round == 2)
      CHECK_MPI(MPI_Neighbor_alltoallw(send, counts, sbytes, types, recv, rcounts, rbytes,
                                       types, comm));
    if (round == 3)
      CHECK_MPI(MPI_Ineighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, comm, &request));
    if (round == 4)
      CHECK_MPI(MPI_Ineighbor_alltoallv(send, counts, displs, MPI_INT, recv, rcounts, rdispls,
                                        MPI_INT, comm, &request));
    if (round == 5)
      CHECK_MPI(MPI_Ineighbor_alltoallw(send, counts, sbytes, types, recv, rcounts, rbytes,
                                        types, comm, &request));
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    for (int j = 0; j < n_in; ++j) {
      int want = ins[j] == MPI_PROC_NULL ? -1 : token(ins[j], in_slot_from_sender[j]);
      CHECK(recv[j] == want, "round %d: block %d from %d is %d, want %d", round, j, ins[j],
            recv[j], want);
    }
  }
  /* Allgather(v): every in-neighbour's rank. */
  int mine = me + 1;
  for (int j = 0; j < n_in; ++j) recv[j] = -1;
  CHECK_MPI(MPI_Neighbor_allgather(&mine, 1, MPI_INT, recv, 1, MPI_INT, comm));
  for (int j = 0; j < n_in; ++j)
    CHECK(recv[j] == (ins[j] == MPI_PROC_NULL ? -1 : ins[j] + 1), "allgather block %d: %d", j,
          recv[j]);
  for (int j = 0; j < n_in; ++j) recv[j] = -1;
  CHECK_MPI(MPI_Neighbor_allgatherv(&mine, 1, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm));
  for (int j = 0; j < n_in; ++j)
    CHECK(recv[j] == (ins[j] == MPI_PROC_NULL ? -1 : ins[j] + 1), "allgatherv block %d: %d",
          j, recv[j]);
  /* The nonblocking forms, both outstanding at once. */
  int recv2[64];
  MPI_Request requests[2];
  for (int j = 0; j < n_in; ++j) recv[j] = recv2[j] = -1;
  CHECK_MPI(MPI_Ineighbor_allgather(&mine, 1, MPI_INT, recv, 1, MPI_INT, comm, &requests[0]));
  CHECK_MPI(MPI_Ineighbor_allgatherv(&mine, 1, MPI_INT, recv2, rcounts, rdispls, MPI_INT, comm,
                                     &requests[1]));
  CHECK_MPI(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE));
  for (int j = 0; j < n_in; ++j)
    CHECK(recv[j] == recv2[j] && recv[j] == (ins[j] == MPI_PROC_NULL ? -1 : ins[j] + 1),
          "ineighbor_allgather(v) block %d: %d %d", j, recv[j], recv2[j]);
#ifdef BDMPI /* MPI-4.0's persistent forms: Open MPI 4.1 has them only as MPIX_ */
  /* All six outstanding at once, started twice; the last through _c. */
  enum { kPersistent = 6 };
  int precv[kPersistent][64];
  MPI_Count ccounts[64];
  MPI_Aint cdispls[64];
  for (int j = 0; j < n_in; ++j) {
    ccounts[j] = 1;
    cdispls[j] = j;
  }
  MPI_Request persistent[kPersistent];
  CHECK_MPI(MPI_Neighbor_alltoall_init(send, 1, MPI_INT, precv[0], 1, MPI_INT, comm,
                                       MPI_INFO_NULL, &persistent[0]));
  CHECK_MPI(MPI_Neighbor_alltoallv_init(send, counts, displs, MPI_INT, precv[1], rcounts,
                                        rdispls, MPI_INT, comm, MPI_INFO_NULL, &persistent[1]));
  CHECK_MPI(MPI_Neighbor_alltoallw_init(send, counts, sbytes, types, precv[2], rcounts, rbytes,
                                        types, comm, MPI_INFO_NULL, &persistent[2]));
  CHECK_MPI(MPI_Neighbor_allgather_init(&mine, 1, MPI_INT, precv[3], 1, MPI_INT, comm,
                                        MPI_INFO_NULL, &persistent[3]));
  CHECK_MPI(MPI_Neighbor_allgatherv_init(&mine, 1, MPI_INT, precv[4], rcounts, rdispls, MPI_INT,
                                         comm, MPI_INFO_NULL, &persistent[4]));
  CHECK_MPI(MPI_Neighbor_allgatherv_init_c(&mine, 1, MPI_INT, precv[5], ccounts, cdispls,
                                           MPI_INT, comm, MPI_INFO_NULL, &persistent[5]));
  for (int start = 0; start < 2; ++start) {
    for (int k = 0; k < kPersistent; ++k)
      for (int j = 0; j < n_in; ++j) precv[k][j] = -1;
    CHECK_MPI(MPI_Startall(kPersistent, persistent));
    CHECK_MPI(MPI_Waitall(kPersistent, persistent, MPI_STATUSES_IGNORE));
    for (int j = 0; j < n_in; ++j) {
      int block = ins[j] == MPI_PROC_NULL ? -1 : token(ins[j], in_slot_from_sender[j]);
      int rank1 = ins[j] == MPI_PROC_NULL ? -1 : ins[j] + 1;
      for (int k = 0; k < kPersistent; ++k)
        CHECK(precv[k][j] == (k < 3 ? block : rank1),
              "start %d: persistent neighbourhood collective %d: block %d from %d is %d", start,
              k, j, ins[j], precv[k][j]);
    }
  }
  for (int k = 0; k < kPersistent; ++k) {
    CHECK_MPI(MPI_Request_free(&persistent[k]));
    CHECK(persistent[k] == MPI_REQUEST_NULL, "MPI_Request_free left request %d", k);
  }
#endif
}

/* On a Cartesian communicator the in-neighbours are, per dimension, the
 * lower then the upper; the lower one sent us its "upper" block. */
static void cart_neighbors(MPI_Comm cart, int ndims) {
  int ins[16], slots[16];
  for (int d = 0; d < ndims; ++d) {
    CHECK_MPI(MPI_Cart_shift(cart, d, 1, &ins[2 * d], &ins[2 * d + 1]));
    slots[2 * d] = 2 * d + 1;
    slots[2 * d + 1] = 2 * d;
  }
  check_alltoall(cart, 2 * ndims, ins, 2 * ndims, slots);
}

static void dims_create(void) {
  int two[2] = {0, 0}, three[3] = {0, 0, 0}, fixed[3] = {0, 5, 0};
  CHECK_MPI(MPI_Dims_create(72, 2, two));
  CHECK_MPI(MPI_Dims_create(180, 3, three));
  CHECK_MPI(MPI_Dims_create(60, 3, fixed));
  CHECK(two[0] * two[1] == 72 && two[0] >= two[1], "72 in 2d: %d x %d", two[0], two[1]);
  CHECK(fixed[1] == 5 && fixed[0] * fixed[2] == 12, "60 with a fixed 5: %d x %d x %d",
        fixed[0], fixed[1], fixed[2]);
#ifdef BDMPI /* Open MPI 4.1 gives 12 x 6 for 72, not the closest factors */
  CHECK(two[0] == 9 && two[1] == 8, "72 in 2d: %d x %d", two[0], two[1]);
  CHECK(three[0] == 6 && three[1] == 6 && three[2] == 5, "180 in 3d: %d x %d x %d", three[0],
        three[1], three[2]);
  CHECK(fixed[0] == 4 && fixed[2] == 3, "60 with a fixed 5: %d x %d x %d", fixed[0], fixed[1],
        fixed[2]);
#endif
}

static void grid(void) {
  int size = world_size(), dims[2] = {0, 0}, periods[2] = {1, 1};
  CHECK_MPI(MPI_Dims_create(size, 2, dims));
  CHECK(dims[0] * dims[1] == size && dims[0] >= dims[1], "dims %d x %d", dims[0], dims[1]);
  MPI_Comm cart;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
  int status = -1, ndims = -1;
  CHECK_MPI(MPI_Topo_test(cart, &status));
  CHECK(status == MPI_CART, "MPI_Topo_test: %d", status);
  CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &status));
  CHECK(status == MPI_UNDEFINED, "MPI_COMM_WORLD has topology %d", status);
  CHECK_MPI(MPI_Cartdim_get(cart, &ndims));
  CHECK(ndims == 2, "MPI_Cartdim_get: %d", ndims);
  int gdims[2], gperiods[2], coords[2], me = rank_in(cart), r = -1;
  CHECK_MPI(MPI_Cart_get(cart, 2, gdims, gperiods, coords));
  CHECK(gdims[0] == dims[0] && gdims[1] == dims[1] && gperiods[0] && gperiods[1],
        "MPI_Cart_get");
  CHECK(coords[0] == me / dims[1] && coords[1] == me % dims[1], "row-major coordinates");
  CHECK_MPI(MPI_Cart_rank(cart, coords, &r));
  CHECK(r == me, "MPI_Cart_rank of my coordinates: %d", r);
  int wrapped[2] = {coords[0] + dims[0], coords[1] - dims[1]};
  CHECK_MPI(MPI_Cart_rank(cart, wrapped, &r));
  CHECK(r == me, "MPI_Cart_rank of wrapped coordinates: %d", r);
  int down, up;
  CHECK_MPI(MPI_Cart_shift(cart, 1, 1, &down, &up));
  int c[2];
  CHECK_MPI(MPI_Cart_coords(cart, up, 2, c));
  CHECK(c[0] == coords[0] && c[1] == (coords[1] + 1) % dims[1], "shift up");
  CHECK_MPI(MPI_Cart_coords(cart, down, 2, c));
  CHECK(c[0] == coords[0] && c[1] == (coords[1] + dims[1] - 1) % dims[1], "shift down");
  cart_neighbors(cart, 2);

  MPI_Comm copy;
  CHECK_MPI(MPI_Comm_dup(cart, &copy));
  CHECK_MPI(MPI_Topo_test(copy, &status));
  CHECK(status == MPI_CART, "the duplicate lost the topology");
  CHECK_MPI(MPI_Comm_free(&copy));

  /* Rows and columns. */
  int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
  MPI_Comm row, col;
  CHECK_MPI(MPI_Cart_sub(cart, keep_row, &row));
  CHECK_MPI(MPI_Cart_sub(cart, keep_col, &col));
  CHECK(size_of(row) == dims[1] && rank_in(row) == coords[1], "row %d/%d", rank_in(row),
        size_of(row));
  CHECK(size_of(col) == dims[0] && rank_in(col) == coords[0], "column %d/%d", rank_in(col),
        size_of(col));
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, row));
  int want = 0;
  for (int j = 0; j < dims[1]; ++j) want += coords[0] * dims[1] + j;
  CHECK(sum == want, "row sum %d, want %d", sum, want);
  CHECK_MPI(MPI_Cartdim_get(col, &ndims));
  CHECK(ndims == 1, "a column has %d dimensions", ndims);
  CHECK_MPI(MPI_Comm_free(&row));
  CHECK_MPI(MPI_Comm_free(&col));
  CHECK_MPI(MPI_Comm_free(&cart));
}

static void line(void) {
  int size = world_size(), n = size > 1 ? size - 1 : 1, period = 0, newrank = -2;
  CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, &n, &period, &newrank));
  int me = world_rank();
  /* Open MPI 4.1 maps the ranks beyond the grid to themselves. */
#ifdef BDMPI
  CHECK(newrank == (me < n ? me : MPI_UNDEFINED), "MPI_Cart_map: %d", newrank);
#else
  CHECK(me >= n || newrank == me, "MPI_Cart_map: %d", newrank);
#endif
  MPI_Comm cart;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &period, 0, &cart));
  if (me >= n) {
    CHECK(cart == MPI_COMM_NULL, "a rank outside the line got a communicator");
    return;
  }
  int down, up;
  CHECK_MPI(MPI_Cart_shift(cart, 0, 1, &down, &up));
  CHECK(down == (me == 0 ? MPI_PROC_NULL : me - 1), "line: down %d", down);
  CHECK(up == (me == n - 1 ? MPI_PROC_NULL : me + 1), "line: up %d", up);
  cart_neighbors(cart, 1);
  CHECK_MPI(MPI_Comm_free(&cart));
}

static void graph(void) {
  int size = world_size(), index[64], edges[256], nedges = 0;
  if (size > 64) return;
  /* A ring; rank 0 also links to the middle rank, and back. */
  for (int r = 0; r < size; ++r) {
    if (size > 1) {
      edges[nedges++] = (r + 1) % size;
      edges[nedges++] = (r + size - 1) % size;
    }
    if (size > 3 && r == 0) edges[nedges++] = size / 2;
    if (size > 3 && r == size / 2) edges[nedges++] = 0;
    index[r] = nedges;
  }
  MPI_Comm comm;
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &comm));
  int status, nnodes, ne, me = rank_in(comm), count;
  CHECK_MPI(MPI_Topo_test(comm, &status));
  CHECK(status == MPI_GRAPH, "MPI_Topo_test: %d", status);
  CHECK_MPI(MPI_Graphdims_get(comm, &nnodes, &ne));
  CHECK(nnodes == size && ne == nedges, "MPI_Graphdims_get: %d %d", nnodes, ne);
  int gindex[64], gedges[256];
  CHECK_MPI(MPI_Graph_get(comm, size, nedges, gindex, gedges));
  CHECK(memcmp(gindex, index, (size_t)size * sizeof(int)) == 0, "MPI_Graph_get index");
  CHECK(memcmp(gedges, edges, (size_t)nedges * sizeof(int)) == 0, "MPI_Graph_get edges");
  CHECK_MPI(MPI_Graph_neighbors_count(comm, me, &count));
  int first = me == 0 ? 0 : index[me - 1];
  CHECK(count == index[me] - first, "MPI_Graph_neighbors_count: %d", count);
  int neighbors[8];
  CHECK_MPI(MPI_Graph_neighbors(comm, me, 8, neighbors));
  CHECK(memcmp(neighbors, edges + first, (size_t)count * sizeof(int)) == 0,
        "MPI_Graph_neighbors");
  int newrank;
  CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank));
  CHECK(newrank == world_rank(), "MPI_Graph_map: %d", newrank);
  /* The neighbour lists are symmetric with no repeated pairs when size > 2:
   * neighbour j of mine sent me the block of its slot that names me. */
  if (size > 2) {
    int slots[8];
    for (int j = 0; j < count; ++j) {
      int theirs[8], n;
      MPI_Graph_neighbors_count(comm, neighbors[j], &n);
      MPI_Graph_neighbors(comm, neighbors[j], 8, theirs);
      slots[j] = -1;
      for (int k = 0; k < n; ++k)
        if (theirs[k] == me) slots[j] = k;
    }
    check_alltoall(comm, count, neighbors, count, slots);
  }
  CHECK_MPI(MPI_Comm_free(&comm));
}

static void dist_graph(void) {
  int size = world_size(), me = world_rank();
  if (size < 3) return;
  /* Adjacent: each rank sends to the next two and hears from the previous
   * two, with weights naming the edge. */
  int sources[2] = {(me + size - 1) % size, (me + size - 2) % size};
  int sw[2] = {10 * sources[0] + me, 10 * sources[1] + me};
  int dests[2] = {(me + 1) % size, (me + 2) % size};
  int dw[2] = {10 * me + dests[0], 10 * me + dests[1]};
  MPI_Comm comm;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, sw, 2, dests, dw,
                                           MPI_INFO_NULL, 0, &comm));
  int status, indeg, outdeg, weighted;
  CHECK_MPI(MPI_Topo_test(comm, &status));
  CHECK(status == MPI_DIST_GRAPH, "MPI_Topo_test: %d", status);
  CHECK_MPI(MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted));
  CHECK(indeg == 2 && outdeg == 2 && weighted, "counts %d %d %d", indeg, outdeg, weighted);
  int gs[2], gsw[2], gd[2], gdw[2];
  CHECK_MPI(MPI_Dist_graph_neighbors(comm, 2, gs, gsw, 2, gd, gdw));
  CHECK(gs[0] == sources[0] && gs[1] == sources[1] && gsw[1] == sw[1], "sources");
  CHECK(gd[0] == dests[0] && gd[1] == dests[1] && gdw[0] == dw[0], "destinations");
  /* My source i sent its block to me as its destination number i. */
  int slots[2] = {0, 1};
  check_alltoall(comm, 2, sources, 2, slots);
  CHECK_MPI(MPI_Comm_free(&comm));

  /* Rank 0 names the whole ring i -> i+1; the others name nothing. */
  int n = me == 0 ? size : 0, all[64], degrees[64], targets[64];
  if (size > 64) return;
  for (int i = 0; i < n; ++i) {
    all[i] = i;
    degrees[i] = 1;
    targets[i] = (i + 1) % size;
  }
  CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, n, all, degrees, targets, MPI_UNWEIGHTED,
                                  MPI_INFO_NULL, 0, &comm));
  CHECK_MPI(MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted));
  CHECK(indeg == 1 && outdeg == 1 && !weighted, "ring counts %d %d %d", indeg, outdeg, weighted);
  CHECK_MPI(MPI_Dist_graph_neighbors(comm, 1, gs, MPI_UNWEIGHTED, 1, gd, MPI_UNWEIGHTED));
  CHECK(gs[0] == (me + size - 1) % size && gd[0] == (me + 1) % size, "ring: %d -> me -> %d",
        gs[0], gd[0]);
  int slot0 = 0;
  check_alltoall(comm, 1, gs, 1, &slot0);
  CHECK_MPI(MPI_Comm_free(&comm));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  dims_create();
  grid();
  line();
  graph();
  dist_graph();
  if (world_rank() == 0) printf("topologies: ok\n");
  MPI_Finalize();
  return 0;
}
