/*
 * coll_gaps.c -- every collective with a datatype that has gaps: an int
 * followed by a hole of one int (a vector resized to two ints). Data lands
 * in the even ints; the holes must keep their sentinel. Senders and
 * receivers mix the gapped type with plain MPI_INT (same type signature),
 * reductions use a user-defined operation (Open MPI refuses predefined ones
 * on derived types), and the nonblocking forms are checked too.
 */
#include <mpi.h>

#include "check.h"

enum { kCount = 2, kHole = -7 };

static int rank, size;
static MPI_Datatype gapped; /* one int, then a hole of one int */
static MPI_Op user_sum;     /* MPI_SUM as a user function (commutative) */

static void sum_fn(void *in_v, void *inout_v, int *len, MPI_Datatype *type) {
  /* Called with the gapped type: elements are two ints apart. */
  int stride = *type == gapped ? 2 : 1;
  int *in = in_v, *io = inout_v;
  for (int i = 0; i < *len; ++i) io[i * stride] += in[i * stride];
}

static int value(int r, int i) { return r * 100 + i + 1; }

/* A gapped buffer of n elements (2n ints) with holes set. */
static int *gapped_buffer(int n) {
  int *b = xmalloc(sizeof(int) * (size_t)(2 * n + 1));
  for (int k = 0; k < 2 * n + 1; ++k) b[k] = kHole;
  return b;
}

static void check_holes(const int *b, int n, const char *what) {
  for (int k = 1; k < 2 * n; k += 2)
    CHECK(b[k] == kHole, "%s: hole %d overwritten (%d)", what, k, b[k]);
}

static void wait(MPI_Request *req) { CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE)); }

static void test_gather_family(int nonblocking) {
  int n = size * kCount, root = size - 1;
  int *g = gapped_buffer(n), plain[kCount], *counts = xmalloc(sizeof(int) * (size_t)size),
      *displs = xmalloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < kCount; ++i) plain[i] = value(rank, i);
  for (int r = 0; r < size; ++r) counts[r] = kCount, displs[r] = (size - 1 - r) * kCount;
  MPI_Request req;
  /* Gather ints into the gapped type at the root. */
  if (nonblocking) {
    CHECK_MPI(MPI_Igather(plain, kCount, MPI_INT, g, kCount, gapped, root, MPI_COMM_WORLD, &req));
    wait(&req);
  } else {
    CHECK_MPI(MPI_Gatherv(plain, kCount, MPI_INT, g, counts, displs, gapped, root, MPI_COMM_WORLD));
  }
  if (rank == root) {
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < kCount; ++i) {
        int at = ((nonblocking ? r : size - 1 - r) * kCount + i) * 2;
        CHECK(g[at] == value(r, i), "gather into gaps: from %d [%d] = %d", r, i, g[at]);
      }
    check_holes(g, n, "gather");
  }
  /* Scatter from the gapped type into gapped receive buffers. */
  int *mine = gapped_buffer(kCount);
  if (nonblocking) {
    CHECK_MPI(MPI_Iscatter(g, kCount, gapped, mine, kCount, gapped, root, MPI_COMM_WORLD, &req));
    wait(&req);
  } else {
    CHECK_MPI(MPI_Scatterv(g, counts, displs, gapped, mine, kCount, gapped, root, MPI_COMM_WORLD));
  }
  for (int i = 0; i < kCount; ++i)
    CHECK(mine[2 * i] == value(rank, i), "scatter [%d] = %d", i, mine[2 * i]);
  check_holes(mine, kCount, "scatter");
  /* Allgather(v) from gapped into gapped. */
  int *all = gapped_buffer(n);
  if (nonblocking) {
    CHECK_MPI(
        MPI_Iallgatherv(mine, kCount, gapped, all, counts, displs, gapped, MPI_COMM_WORLD, &req));
    wait(&req);
  } else {
    CHECK_MPI(MPI_Allgather(mine, kCount, gapped, all, kCount, gapped, MPI_COMM_WORLD));
  }
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < kCount; ++i) {
      int at = ((nonblocking ? size - 1 - r : r) * kCount + i) * 2;
      CHECK(all[at] == value(r, i), "allgather: from %d [%d] = %d", r, i, all[at]);
    }
  check_holes(all, n, "allgather");
  free(g), free(mine), free(all), free(counts), free(displs);
}

static void test_alltoall_family(int nonblocking) {
  int n = size * kCount;
  int *s = gapped_buffer(n), *r_g = gapped_buffer(n), *r_plain = xmalloc(sizeof(int) * (size_t)n);
  int *counts = xmalloc(sizeof(int) * (size_t)size), *displs = xmalloc(sizeof(int) * (size_t)size);
  int *bdispls = xmalloc(sizeof(int) * (size_t)size);
  MPI_Datatype *stypes = xmalloc(sizeof(MPI_Datatype) * (size_t)size),
               *rtypes = xmalloc(sizeof(MPI_Datatype) * (size_t)size);
  for (int p = 0; p < size; ++p) {
    counts[p] = kCount;
    displs[p] = p * kCount;
    for (int i = 0; i < kCount; ++i) s[(p * kCount + i) * 2] = rank * 1000 + p * 10 + i;
  }
  MPI_Request req;
  /* Gapped to plain. */
  if (nonblocking) {
    CHECK_MPI(MPI_Ialltoall(s, kCount, gapped, r_plain, kCount, MPI_INT, MPI_COMM_WORLD, &req));
    wait(&req);
  } else {
    CHECK_MPI(
        MPI_Alltoallv(s, counts, displs, gapped, r_plain, counts, displs, MPI_INT, MPI_COMM_WORLD));
  }
  for (int p = 0; p < size; ++p)
    for (int i = 0; i < kCount; ++i)
      CHECK(r_plain[p * kCount + i] == p * 1000 + rank * 10 + i, "alltoall gapped->int from %d", p);
  /* Alltoallw: gapped from even peers' blocks, plain ints into gapped. */
  for (int p = 0; p < size; ++p) {
    stypes[p] = gapped;
    rtypes[p] = gapped;
    bdispls[p] = p * kCount * 2 * (int)sizeof(int);
  }
  if (nonblocking) {
    CHECK_MPI(MPI_Ialltoallw(s, counts, bdispls, stypes, r_g, counts, bdispls, rtypes,
                             MPI_COMM_WORLD, &req));
    wait(&req);
  } else {
    CHECK_MPI(
        MPI_Alltoallw(s, counts, bdispls, stypes, r_g, counts, bdispls, rtypes, MPI_COMM_WORLD));
  }
  for (int p = 0; p < size; ++p)
    for (int i = 0; i < kCount; ++i)
      CHECK(r_g[(p * kCount + i) * 2] == p * 1000 + rank * 10 + i, "alltoallw from %d", p);
  check_holes(r_g, n, "alltoallw");
  free(s), free(r_g), free(r_plain), free(counts), free(displs), free(bdispls), free(stypes),
      free(rtypes);
}

static void test_reductions(int nonblocking) {
  int n = size * kCount;
  int *in = gapped_buffer(n), *out = gapped_buffer(n);
  for (int k = 0; k < n; ++k) in[2 * k] = value(rank, k);
  int sum_all = 0;
  MPI_Op ops[1] = {user_sum};
  MPI_Request req;
  for (int o = 0; o < 1; ++o) {
    /* Allreduce of n gapped elements. */
    for (int k = 0; k < 2 * n + 1; ++k) out[k] = kHole;
    if (nonblocking) {
      CHECK_MPI(MPI_Iallreduce(in, out, n, gapped, ops[o], MPI_COMM_WORLD, &req));
      wait(&req);
    } else {
      CHECK_MPI(MPI_Reduce(in, out, n, gapped, ops[o], 0, MPI_COMM_WORLD));
    }
    if (nonblocking || rank == 0) {
      for (int k = 0; k < n; ++k) {
        sum_all = 0;
        for (int r = 0; r < size; ++r) sum_all += value(r, k);
        CHECK(out[2 * k] == sum_all, "%sreduce op %d [%d] = %d", nonblocking ? "Iall" : "", o, k,
              out[2 * k]);
      }
      check_holes(out, n, "reduce");
    }
    /* Scan. */
    for (int k = 0; k < 2 * n + 1; ++k) out[k] = kHole;
    if (nonblocking) {
      CHECK_MPI(MPI_Iscan(in, out, n, gapped, ops[o], MPI_COMM_WORLD, &req));
      wait(&req);
    } else {
      CHECK_MPI(MPI_Scan(in, out, n, gapped, ops[o], MPI_COMM_WORLD));
    }
    for (int k = 0; k < n; ++k) {
      int want = 0;
      for (int r = 0; r <= rank; ++r) want += value(r, k);
      CHECK(out[2 * k] == want, "scan op %d [%d] = %d, want %d", o, k, out[2 * k], want);
    }
    check_holes(out, n, "scan");
    /* Reduce_scatter_block: kCount elements each. */
    for (int k = 0; k < 2 * n + 1; ++k) out[k] = kHole;
    if (nonblocking) {
      CHECK_MPI(MPI_Ireduce_scatter_block(in, out, kCount, gapped, ops[o], MPI_COMM_WORLD, &req));
      wait(&req);
    } else {
      CHECK_MPI(MPI_Reduce_scatter_block(in, out, kCount, gapped, ops[o], MPI_COMM_WORLD));
    }
    for (int i = 0; i < kCount; ++i) {
      int want = 0;
      for (int r = 0; r < size; ++r) want += value(r, rank * kCount + i);
      CHECK(out[2 * i] == want, "reduce_scatter_block op %d [%d] = %d", o, i, out[2 * i]);
    }
    check_holes(out, kCount, "reduce_scatter_block");
  }
  /* Reduce_local on the gapped type. */
  int *io = gapped_buffer(n);
  for (int k = 0; k < n; ++k) io[2 * k] = 1;
  CHECK_MPI(MPI_Reduce_local(in, io, n, gapped, user_sum));
  for (int k = 0; k < n; ++k) CHECK(io[2 * k] == value(rank, k) + 1, "Reduce_local [%d]", k);
  check_holes(io, n, "Reduce_local");
  free(io), free(in), free(out);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype one;
  CHECK_MPI(MPI_Type_vector(1, 1, 2, MPI_INT, &one));
  CHECK_MPI(MPI_Type_create_resized(one, 0, 2 * (MPI_Aint)sizeof(int), &gapped));
  CHECK_MPI(MPI_Type_commit(&gapped));
  MPI_Type_free(&one);
  CHECK_MPI(MPI_Op_create(sum_fn, 1, &user_sum));
  for (int nonblocking = 0; nonblocking < 2; ++nonblocking) {
    test_gather_family(nonblocking);
    test_alltoall_family(nonblocking);
    test_reductions(nonblocking);
  }
  MPI_Op_free(&user_sum);
  MPI_Type_free(&gapped);
  if (rank == 0) printf("coll_gaps: all checks passed on %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
