/*
 * nbc.c -- nonblocking collectives (MPI_I*), MPI_Alltoallw,
 * MPI_Reduce_local, MPI_Op_commutative and, where the MPI library has them
 * (MPI-4, and BDMPI), persistent collectives (MPI_*_init + MPI_Start).
 *
 *  1. Progress without a progress thread: rank 0 calls MPI_Ibarrier then
 *     MPI_Recv from rank 1, which calls MPI_Ibarrier, MPI_Wait and only then
 *     sends. Any rank that waited in MPI_Ibarrier for another to progress
 *     its barrier would deadlock here.
 *  2. Every nonblocking collective, each completed together with a
 *     point-to-point exchange by one of the eight completion calls in turn
 *     (Wait, Test, Waitall, Waitany, Waitsome, Testall, Testany, Testsome),
 *     with and without MPI_IN_PLACE, and the reductions with a predefined
 *     operation and a non-commutative user-defined one (2x2 matrix
 *     products mod a prime: the result is right only in rank order).
 *  3. Several collectives outstanding on one communicator, completed in
 *     the reverse order of their calls; three MPI_Ibarriers outstanding
 *     on MPI_COMM_WORLD and one on a duplicate, started by rank 0 only
 *     after every other rank has started its own (their messages wait
 *     for rank 0's receives: in its inbox on one node), and completed by
 *     MPI_Test loops, MPI_Wait and MPI_Waitall.
 *  4. Persistent collectives: all of 2. again with MPI_*_init, MPI_Start,
 *     the same completion calls and MPI_Request_free; and some started
 *     three times with new data, with MPI_Start and MPI_Startall.
 */
#include <mpi.h>

#include "check.h"

enum { kCount = 3, kPrime = 1000003 };

static int rank, size;

/* ------------------------------------------------------------ completion */

static int method;

/* Completes a collective request together with a ring exchange, by the
 * next of the eight completion calls. The loops of the any/some calls run
 * until the call reports no active request left (MPI_UNDEFINED), as an
 * inactive persistent request counts as none. A persistent request keeps
 * its handle. */
static void complete_request(MPI_Request *coll, int persistent) {
  int m = method++;
  int out = rank * 1000 + m, in = -1;
  MPI_Request reqs[3];
  reqs[0] = *coll;
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 77, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 77, MPI_COMM_WORLD, &reqs[2]));
  int flag = 0, index = 0, outcount = 0, indices[3];
  switch (m % 8) {
    case 0:
      for (int i = 2; i >= 0; --i) CHECK_MPI(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
      break;
    case 1:
      for (int i = 0; i < 3; ++i) {
        do CHECK_MPI(MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE));
        while (!flag);
      }
      break;
    case 2:
      CHECK_MPI(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
      break;
    case 3:
      do CHECK_MPI(MPI_Waitany(3, reqs, &index, MPI_STATUS_IGNORE));
      while (index != MPI_UNDEFINED);
      break;
    case 4:
      do CHECK_MPI(MPI_Waitsome(3, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
      while (outcount != MPI_UNDEFINED);
      break;
    case 5:
      do CHECK_MPI(MPI_Testall(3, reqs, &flag, MPI_STATUSES_IGNORE));
      while (!flag);
      break;
    case 6:
      do CHECK_MPI(MPI_Testany(3, reqs, &index, &flag, MPI_STATUS_IGNORE));
      while (!flag || index != MPI_UNDEFINED);
      break;
    case 7:
      do CHECK_MPI(MPI_Testsome(3, reqs, &outcount, indices, MPI_STATUSES_IGNORE));
      while (outcount != MPI_UNDEFINED);
      break;
  }
  CHECK(reqs[1] == MPI_REQUEST_NULL && reqs[2] == MPI_REQUEST_NULL,
        "completion call %d (collective #%d) left a point-to-point request", m % 8, m);
  if (persistent) {
    CHECK(reqs[0] == *coll, "completion call %d freed a persistent request", m % 8);
  } else {
    CHECK(reqs[0] == MPI_REQUEST_NULL, "completion call %d (collective #%d) left the request",
          m % 8, m);
    *coll = MPI_REQUEST_NULL;
  }
  CHECK(in == ((rank + size - 1) % size) * 1000 + m, "ring exchange got %d", in);
}

/* Set for the second pass of the tests below, where every collective is
 * a persistent one (MPI_*_init, MPI_Start, complete, MPI_Request_free). */
static int persistent_mode;

#if MPI_VERSION >= 4 || defined(BDMPI)
static int start_persistent(int rc, MPI_Request *req) {
  return rc != MPI_SUCCESS ? rc : MPI_Start(req);
}
#define START(icall, initcall, ...)                                                     \
  (persistent_mode ? start_persistent(initcall(__VA_ARGS__, MPI_INFO_NULL, &req), &req) \
                   : icall(__VA_ARGS__, &req))
#define HAVE_PERSISTENT 1
#else
#define START(icall, initcall, ...) icall(__VA_ARGS__, &req)
#define HAVE_PERSISTENT 0
#endif

static void complete(MPI_Request *coll) {
  if (!persistent_mode) {
    complete_request(coll, 0);
    return;
  }
  complete_request(coll, 1);
  CHECK_MPI(MPI_Request_free(coll));
  CHECK(*coll == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
}

/* ------------------------------------------------------------ test data */

/* Element i of rank r's contribution. */
static int value(int r, int i) { return r * 100 + i + 1; }

/* The non-commutative operation: 2x2 matrices (4 ints) multiplied mod a
 * prime, inout = in * inout. */
static void matmul(void *in_v, void *inout_v, int *len, MPI_Datatype *type) {
  (void)type;
  int *in = in_v, *io = inout_v;
  for (int k = 0; k < *len; ++k, in += 4, io += 4) {
    long long a = in[0], b = in[1], c = in[2], d = in[3];
    long long e = io[0], f = io[1], g = io[2], h = io[3];
    io[0] = (int)((a * e + b * g) % kPrime);
    io[1] = (int)((a * f + b * h) % kPrime);
    io[2] = (int)((c * e + d * g) % kPrime);
    io[3] = (int)((c * f + d * h) % kPrime);
  }
}

static void matrix_of(int r, int i, int m[4]) {
  m[0] = r + 2;
  m[1] = i + 1;
  m[2] = 1;
  m[3] = r + i;
}

/* The product M_from * ... * M_{to-1} of element i (identity if empty). */
static void product(int from, int to, int i, int out[4]) {
  out[0] = 1, out[1] = 0, out[2] = 0, out[3] = 1;
  for (int r = from; r < to; ++r) {
    int m[4], len = 1;
    matrix_of(r, i, m);
    matmul(out, m, &len, NULL);
    memcpy(out, m, sizeof m);
  }
}

static MPI_Datatype mat_type;
static MPI_Op mat_op;

/* ------------------------------------------------------------ 1. progress */

static void test_progress(void) {
  if (size < 2) return;
  MPI_Request req;
  int data = 0;
  CHECK_MPI(START(MPI_Ibarrier, MPI_Barrier_init, MPI_COMM_WORLD));
  if (rank == 0) {
    CHECK_MPI(MPI_Recv(&data, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(data == 42, "rank 1 sent %d", data);
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (rank == 1) {
      data = 42;
      CHECK_MPI(MPI_Send(&data, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
    }
  }
  /* The same with a bcast whose root waits in a receive. */
  int b = rank == 0 ? 7 : 0;
  CHECK_MPI(START(MPI_Ibcast, MPI_Bcast_init, &b, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    CHECK_MPI(MPI_Recv(&data, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(b == 7, "Ibcast gave %d", b);
    if (rank == 1) CHECK_MPI(MPI_Send(&b, 1, MPI_INT, 0, 6, MPI_COMM_WORLD));
  }
}

/* ------------------------------------------------- 2. one call at a time */

static void test_bcast_barrier(void) {
  MPI_Request req;
  CHECK_MPI(START(MPI_Ibarrier, MPI_Barrier_init, MPI_COMM_WORLD));
  complete(&req);
  for (int root = 0; root<size; root += size> 2 ? size - 1 : 1) {
    int buf[kCount];
    for (int i = 0; i < kCount; ++i) buf[i] = rank == root ? value(root, i) : -1;
    CHECK_MPI(START(MPI_Ibcast, MPI_Bcast_init, buf, kCount, MPI_INT, root, MPI_COMM_WORLD));
    complete(&req);
    for (int i = 0; i < kCount; ++i) CHECK(buf[i] == value(root, i), "Ibcast[%d] = %d", i, buf[i]);
  }
}

static void test_reduce(int in_place) {
  int root = size - 1;
  int send[kCount], recv[kCount];
  for (int i = 0; i < kCount; ++i) send[i] = recv[i] = value(rank, i);
  int sum[kCount] = {0};
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < kCount; ++i) sum[i] += value(r, i);
  MPI_Request req;
  const void *s = in_place && rank == root ? MPI_IN_PLACE : send;
  CHECK_MPI(
      START(MPI_Ireduce, MPI_Reduce_init, s, recv, kCount, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
  complete(&req);
  if (rank == root)
    for (int i = 0; i < kCount; ++i) CHECK(recv[i] == sum[i], "Ireduce[%d] = %d", i, recv[i]);
  for (int i = 0; i < kCount; ++i) recv[i] = value(rank, i);
  CHECK_MPI(START(MPI_Iallreduce, MPI_Allreduce_init, in_place ? MPI_IN_PLACE : send, recv, kCount,
                  MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  complete(&req);
  for (int i = 0; i < kCount; ++i) CHECK(recv[i] == sum[i], "Iallreduce[%d] = %d", i, recv[i]);

  /* Non-commutative: the product of every rank's matrix in rank order. */
  int msend[kCount][4], mrecv[kCount][4], want[4];
  for (int i = 0; i < kCount; ++i) {
    matrix_of(rank, i, msend[i]);
    memcpy(mrecv[i], msend[i], sizeof want);
  }
  const void *ms = in_place && rank == root ? MPI_IN_PLACE : (const void *)msend;
  CHECK_MPI(START(MPI_Ireduce, MPI_Reduce_init, ms, mrecv, kCount, mat_type, mat_op, root,
                  MPI_COMM_WORLD));
  complete(&req);
  for (int i = 0; i < kCount && rank == root; ++i) {
    product(0, size, i, want);
    CHECK(memcmp(mrecv[i], want, sizeof want) == 0, "Ireduce user op [%d]", i);
  }
  for (int i = 0; i < kCount; ++i) memcpy(mrecv[i], msend[i], sizeof want);
  CHECK_MPI(START(MPI_Iallreduce, MPI_Allreduce_init, in_place ? MPI_IN_PLACE : (const void *)msend,
                  mrecv, kCount, mat_type, mat_op, MPI_COMM_WORLD));
  complete(&req);
  for (int i = 0; i < kCount; ++i) {
    product(0, size, i, want);
    CHECK(memcmp(mrecv[i], want, sizeof want) == 0, "Iallreduce user op [%d]", i);
  }

  /* Scan and exscan with the user op. */
  for (int exclusive = 0; exclusive < 2; ++exclusive) {
    for (int i = 0; i < kCount; ++i) memcpy(mrecv[i], msend[i], sizeof want);
    const void *src = in_place ? MPI_IN_PLACE : (const void *)msend;
    if (exclusive) {
      CHECK_MPI(START(MPI_Iexscan, MPI_Exscan_init, src, mrecv, kCount, mat_type, mat_op,
                      MPI_COMM_WORLD));
    } else {
      CHECK_MPI(
          START(MPI_Iscan, MPI_Scan_init, src, mrecv, kCount, mat_type, mat_op, MPI_COMM_WORLD));
    }
    complete(&req);
    if (exclusive && rank == 0) continue;
    for (int i = 0; i < kCount; ++i) {
      product(0, exclusive ? rank : rank + 1, i, want);
      CHECK(memcmp(mrecv[i], want, sizeof want) == 0, "I%sscan [%d]", exclusive ? "ex" : "", i);
    }
  }

  /* Reduce_scatter(_block) with the user op: rank r gets blocks r. */
  int(*mall)[4] = xmalloc(sizeof(int[4]) * (size_t)size * kCount);
  int *counts = xmalloc(sizeof(int) * (size_t)size);
  for (int b = 0; b < size * kCount; ++b) matrix_of(rank, b, mall[b]);
  for (int r = 0; r < size; ++r) counts[r] = kCount;
  for (int block = 0; block < 2; ++block) {
    int(*out)[4] = in_place ? mall : mrecv;
    const void *src = in_place ? MPI_IN_PLACE : (const void *)mall;
    if (block) {
      CHECK_MPI(START(MPI_Ireduce_scatter_block, MPI_Reduce_scatter_block_init, src, out, kCount,
                      mat_type, mat_op, MPI_COMM_WORLD));
    } else {
      CHECK_MPI(START(MPI_Ireduce_scatter, MPI_Reduce_scatter_init, src, out, counts, mat_type,
                      mat_op, MPI_COMM_WORLD));
    }
    complete(&req);
    for (int i = 0; i < kCount; ++i) {
      product(0, size, rank * kCount + i, want);
      CHECK(memcmp(out[i], want, sizeof want) == 0, "Ireduce_scatter%s [%d]", block ? "_block" : "",
            i);
    }
    for (int b = 0; b < size * kCount; ++b) matrix_of(rank, b, mall[b]);
  }
  free(counts);
  free(mall);
}

static void test_gather_scatter(int in_place) {
  int root = size / 2;
  int n = size * kCount;
  int *all = xmalloc(sizeof(int) * (size_t)n);
  int *counts = xmalloc(sizeof(int) * (size_t)size), *displs = xmalloc(sizeof(int) * (size_t)size);
  int mine[kCount];
  for (int i = 0; i < kCount; ++i) mine[i] = value(rank, i);
  for (int r = 0; r < size; ++r) counts[r] = kCount, displs[r] = (size - 1 - r) * kCount;
  MPI_Request req;
  for (int v = 0; v < 2; ++v) {
    for (int k = 0; k < n; ++k) all[k] = -1;
    if (in_place && rank == root)
      memcpy(all + (v ? displs[rank] : rank * kCount), mine, sizeof mine);
    const void *s = in_place && rank == root ? MPI_IN_PLACE : mine;
    if (v) {
      CHECK_MPI(START(MPI_Igatherv, MPI_Gatherv_init, s, kCount, MPI_INT, all, counts, displs,
                      MPI_INT, root, MPI_COMM_WORLD));
    } else {
      CHECK_MPI(START(MPI_Igather, MPI_Gather_init, s, kCount, MPI_INT, all, kCount, MPI_INT, root,
                      MPI_COMM_WORLD));
    }
    complete(&req);
    for (int r = 0; r < size && rank == root; ++r)
      for (int i = 0; i < kCount; ++i) {
        int got = all[(v ? displs[r] : r * kCount) + i];
        CHECK(got == value(r, i), "Igather%s from %d [%d] = %d", v ? "v" : "", r, i, got);
      }

    /* Scatter it back. */
    int back[kCount] = {-1, -1, -1};
    if (rank == root)
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < kCount; ++i) all[(v ? displs[r] : r * kCount) + i] = value(r, i) + 7;
    void *rb = in_place && rank == root ? MPI_IN_PLACE : back;
    if (v) {
      CHECK_MPI(START(MPI_Iscatterv, MPI_Scatterv_init, all, counts, displs, MPI_INT, rb, kCount,
                      MPI_INT, root, MPI_COMM_WORLD));
    } else {
      CHECK_MPI(START(MPI_Iscatter, MPI_Scatter_init, all, kCount, MPI_INT, rb, kCount, MPI_INT,
                      root, MPI_COMM_WORLD));
    }
    complete(&req);
    if (!(in_place && rank == root))
      for (int i = 0; i < kCount; ++i) CHECK(back[i] == value(rank, i) + 7, "Iscatter [%d]", i);

    /* Allgather(v). */
    for (int k = 0; k < n; ++k) all[k] = -1;
    if (in_place) memcpy(all + (v ? displs[rank] : rank * kCount), mine, sizeof mine);
    s = in_place ? MPI_IN_PLACE : mine;
    if (v) {
      CHECK_MPI(START(MPI_Iallgatherv, MPI_Allgatherv_init, s, kCount, MPI_INT, all, counts, displs,
                      MPI_INT, MPI_COMM_WORLD));
    } else {
      CHECK_MPI(START(MPI_Iallgather, MPI_Allgather_init, s, kCount, MPI_INT, all, kCount, MPI_INT,
                      MPI_COMM_WORLD));
    }
    complete(&req);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < kCount; ++i)
        CHECK(all[(v ? displs[r] : r * kCount) + i] == value(r, i), "Iallgather%s", v ? "v" : "");
  }
  free(all);
  free(counts);
  free(displs);
}

/* Element i of the block rank `from` sends to rank `to`. */
static int a2a(int from, int to, int i) { return from * 10000 + to * 10 + i; }

static void test_alltoall(int in_place) {
  int n = size * kCount;
  int *send = xmalloc(sizeof(int) * (size_t)n), *recv = xmalloc(sizeof(int) * (size_t)n);
  int *counts = xmalloc(sizeof(int) * (size_t)size), *displs = xmalloc(sizeof(int) * (size_t)size);
  int *bdispls = xmalloc(sizeof(int) * (size_t)size);
  MPI_Datatype *types = xmalloc(sizeof(MPI_Datatype) * (size_t)size);
  for (int r = 0; r < size; ++r) {
    counts[r] = kCount;
    displs[r] = (size - 1 - r) * kCount;
    bdispls[r] = displs[r] * (int)sizeof(int);
    types[r] = MPI_INT;
  }
  MPI_Request req;
  for (int form = 0; form < 3; ++form) {
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < kCount; ++i) send[(form ? displs[r] : r * kCount) + i] = a2a(rank, r, i);
    int *out = recv;
    const void *s = send;
    if (in_place) {
      out = send;
      s = MPI_IN_PLACE;
    }
    if (form == 0)
      CHECK_MPI(START(MPI_Ialltoall, MPI_Alltoall_init, s, kCount, MPI_INT, out, kCount, MPI_INT,
                      MPI_COMM_WORLD));
    if (form == 1)
      CHECK_MPI(START(MPI_Ialltoallv, MPI_Alltoallv_init, s, counts, displs, MPI_INT, out, counts,
                      displs, MPI_INT, MPI_COMM_WORLD));
    if (form == 2)
      CHECK_MPI(START(MPI_Ialltoallw, MPI_Alltoallw_init, s, counts, bdispls, types, out, counts,
                      bdispls, types, MPI_COMM_WORLD));
    complete(&req);
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < kCount; ++i) {
        int got = out[(form ? displs[r] : r * kCount) + i];
        CHECK(got == a2a(r, rank, i), "Ialltoall form %d from %d [%d] = %d", form, r, i, got);
      }
  }
  /* Blocking MPI_Alltoallw with a different type per peer: rank r gets
   * ints from even ranks and pairs of ints (one contiguous type) from odd. */
  MPI_Datatype pair;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_commit(&pair));
  int *scounts = xmalloc(sizeof(int) * (size_t)size),
      *rcounts = xmalloc(sizeof(int) * (size_t)size);
  MPI_Datatype *stypes = xmalloc(sizeof(MPI_Datatype) * (size_t)size);
  int *big_s = xmalloc(sizeof(int) * (size_t)size * 2),
      *big_r = xmalloc(sizeof(int) * (size_t)size * 2);
  for (int r = 0; r < size; ++r) {
    /* Two ints to every peer: as 2 x MPI_INT or 1 x pair by the sender's parity. */
    stypes[r] = rank % 2 ? pair : MPI_INT;
    scounts[r] = rank % 2 ? 1 : 2;
    rcounts[r] = 2;
    types[r] = MPI_INT;
    bdispls[r] = r * 2 * (int)sizeof(int);
    big_s[2 * r] = a2a(rank, r, 0);
    big_s[2 * r + 1] = a2a(rank, r, 1);
  }
  CHECK_MPI(MPI_Alltoallw(big_s, scounts, bdispls, stypes, big_r, rcounts, bdispls, types,
                          MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r)
    CHECK(big_r[2 * r] == a2a(r, rank, 0) && big_r[2 * r + 1] == a2a(r, rank, 1),
          "Alltoallw from %d", r);
  MPI_Type_free(&pair);
  free(scounts), free(rcounts), free(stypes), free(big_s), free(big_r);
  free(send), free(recv), free(counts), free(displs), free(bdispls), free(types);
}

/* ----------------------------------------------- 3. several outstanding */

static void test_outstanding_barriers(void) {
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_Request reqs[4];
  int token = 0, flag = 0;
  if (rank != 0) {
    for (int k = 0; k < 3; ++k) CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[k]));
    CHECK_MPI(MPI_Ibarrier(dup, &reqs[3]));
    /* None may complete before rank 0 has started its own. */
    CHECK_MPI(MPI_Test(&reqs[0], &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "MPI_Ibarrier complete before rank 0 called it");
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
  } else {
    for (int r = 1; r < size; ++r)
      CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, r, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int k = 0; k < 3; ++k) CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[k]));
    CHECK_MPI(MPI_Ibarrier(dup, &reqs[3]));
  }
  do CHECK_MPI(MPI_Test(&reqs[3], &flag, MPI_STATUS_IGNORE));
  while (!flag);
  do CHECK_MPI(MPI_Test(&reqs[2], &flag, MPI_STATUS_IGNORE));
  while (!flag);
  CHECK_MPI(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Waitall(1, &reqs[0], MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Comm_free(&dup));
}

static void test_outstanding(void) {
  enum { kOps = 4 };
  MPI_Request reqs[kOps];
  int b = rank == 0 ? 99 : -1, sum = -1, g[1] = {rank};
  int *all = xmalloc(sizeof(int) * (size_t)size);
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Ibcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Iallreduce(g, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[2]));
  CHECK_MPI(MPI_Iallgather(g, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &reqs[3]));
  for (int k = kOps - 1; k >= 0; --k) complete(&reqs[k]);
  CHECK(b == 99, "Ibcast among others gave %d", b);
  CHECK(sum == size * (size - 1) / 2, "Iallreduce among others gave %d", sum);
  for (int r = 0; r < size; ++r) CHECK(all[r] == r, "Iallgather among others [%d] = %d", r, all[r]);
  /* Two of the same kind, and a blocking one of that kind in between. */
  int x1 = -1, x2 = -1, x3 = -1;
  int v1 = rank == 0 ? 1 : -1, v3 = rank == 0 ? 3 : -1;
  CHECK_MPI(MPI_Ibcast(rank == 0 ? &v1 : &x1, 1, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]));
  x2 = rank == 0 ? 2 : -1;
  CHECK_MPI(MPI_Bcast(&x2, 1, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Ibcast(rank == 0 ? &v3 : &x3, 1, MPI_INT, 0, MPI_COMM_WORLD, &reqs[1]));
  complete(&reqs[1]);
  complete(&reqs[0]);
  if (rank != 0) CHECK(x1 == 1 && x2 == 2 && x3 == 3, "bcasts gave %d %d %d", x1, x2, x3);
  free(all);
  test_outstanding_barriers();
}

/* -------------------------------------------------------- misc. calls */

static void test_local(void) {
  int commute = -1;
  CHECK_MPI(MPI_Op_commutative(MPI_SUM, &commute));
  CHECK(commute == 1, "MPI_SUM commutative = %d", commute);
  CHECK_MPI(MPI_Op_commutative(mat_op, &commute));
  CHECK(commute == 0, "the matrix product commutative = %d", commute);
  int in[2] = {3, 4}, io[2] = {10, 20};
  CHECK_MPI(MPI_Reduce_local(in, io, 2, MPI_INT, MPI_SUM));
  CHECK(io[0] == 13 && io[1] == 24, "Reduce_local gave %d %d", io[0], io[1]);
  int a[4], b[4], want[4], len = 1;
  matrix_of(1, 0, a);
  matrix_of(2, 0, b);
  memcpy(want, b, sizeof want);
  matmul(a, want, &len, NULL);
  CHECK_MPI(MPI_Reduce_local(a, b, 1, mat_type, mat_op));
  CHECK(memcmp(b, want, sizeof want) == 0, "Reduce_local with a user op");
}

/* ------------------------------------------------------- 4. persistent */

#if MPI_VERSION >= 4 || defined(BDMPI)
static void test_persistent(void) {
  MPI_Request reqs[3];
  int b = -1, sum = -1, contribution = 0;
  int *all = xmalloc(sizeof(int) * (size_t)size);
  CHECK_MPI(MPI_Bcast_init(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
  CHECK_MPI(MPI_Allreduce_init(&contribution, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &reqs[1]));
  CHECK_MPI(MPI_Allgather_init(&contribution, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &reqs[2]));
  /* An inactive persistent request completes at once, like a null one. */
  CHECK_MPI(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
  CHECK(reqs[0] != MPI_REQUEST_NULL, "Wait on an inactive persistent request freed it");
  for (int round = 0; round < 3; ++round) {
    b = rank == 0 ? round + 50 : -1;
    contribution = rank + round;
    if (round == 1) {
      CHECK_MPI(MPI_Startall(3, reqs));
    } else {
      for (int k = 0; k < 3; ++k) CHECK_MPI(MPI_Start(&reqs[k]));
    }
    for (int k = 0; k < 3; ++k) complete_request(&reqs[k], 1);
    CHECK(b == round + 50, "Bcast_init round %d gave %d", round, b);
    CHECK(sum == size * (size - 1) / 2 + size * round, "Allreduce_init round %d gave %d", round,
          sum);
    for (int r = 0; r < size; ++r) CHECK(all[r] == r + round, "Allgather_init round %d", round);
  }
  for (int k = 0; k < 3; ++k) {
    CHECK_MPI(MPI_Request_free(&reqs[k]));
    CHECK(reqs[k] == MPI_REQUEST_NULL, "Request_free left the handle");
  }
  /* Barrier_init, Reduce_init and Scan_init once each. */
  int s = -1, one = 1;
  CHECK_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
  CHECK_MPI(
      MPI_Reduce_init(&one, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]));
  CHECK_MPI(MPI_Scan_init(&one, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[2]));
  CHECK_MPI(MPI_Startall(3, reqs));
  CHECK_MPI(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
  if (rank == 0) CHECK(sum == size, "Reduce_init gave %d", sum);
  CHECK(s == rank + 1, "Scan_init gave %d", s);
  for (int k = 0; k < 3; ++k) CHECK_MPI(MPI_Request_free(&reqs[k]));
  free(all);
}
#else
static void test_persistent(void) {}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &mat_type));
  CHECK_MPI(MPI_Type_commit(&mat_type));
  CHECK_MPI(MPI_Op_create(matmul, 0, &mat_op));

  test_progress();
  for (persistent_mode = 0; persistent_mode <= HAVE_PERSISTENT; ++persistent_mode) {
    test_bcast_barrier();
    for (int in_place = 0; in_place < 2; ++in_place) {
      test_reduce(in_place);
      test_gather_scatter(in_place);
      test_alltoall(in_place);
    }
  }
  persistent_mode = 0;
  test_outstanding();
  test_local();
  test_persistent();

  MPI_Op_free(&mat_op);
  MPI_Type_free(&mat_type);
  if (rank == 0) printf("nbc: all checks passed on %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
