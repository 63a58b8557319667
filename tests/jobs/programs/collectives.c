/* Gather(v), scatter(v), allgather(v), alltoall(v), scan, exscan,
 * reduce_scatter(_block): every root, MPI_IN_PLACE, zero counts, several
 * types, ops and communicators; user messages in flight never match them;
 * and the argument errors. */
#include "check.h"

static int rank, size;

/* The value rank r contributes at element i. */
static int val(int r, int i) { return r * 1000 + i + 1; }

static void test_gather_scatter(MPI_Comm comm) {
  int me, n;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  for (int root = 0; root < n; root += (n > 8 && root == 1) ? n - 3 : 1) {
    for (int count = 0; count <= 3; count += 3) {
      int send[3], *recv = malloc(sizeof(int) * (size_t)(n * 3 + 1));
      for (int i = 0; i < count; ++i) send[i] = val(me, i);
      for (int i = 0; i < n * 3 + 1; ++i) recv[i] = -1;
      MPI_Gather(send, count, MPI_INT, recv, count, MPI_INT, root, comm);
      if (me == root)
        for (int r = 0; r < n; ++r)
          for (int i = 0; i < count; ++i)
            CHECK(recv[r * count + i] == val(r, i), "gather root %d r %d i %d: %d", root, r, i,
                  recv[r * count + i]);
      /* In place at the root. */
      if (me == root) {
        for (int i = 0; i < count; ++i) recv[root * count + i] = val(me, i);
        MPI_Gather(MPI_IN_PLACE, count, MPI_INT, recv, count, MPI_INT, root, comm);
        for (int r = 0; r < n; ++r)
          for (int i = 0; i < count; ++i) CHECK(recv[r * count + i] == val(r, i), "gather ip");
      } else {
        MPI_Gather(send, count, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, comm);
      }
      /* Scatter back. */
      int got[3] = {-1, -1, -1};
      MPI_Scatter(recv, count, MPI_INT, got, count, MPI_INT, root, comm);
      for (int i = 0; i < count; ++i) CHECK(got[i] == val(me, i), "scatter %d", got[i]);
      if (me == root) {
        MPI_Scatter(recv, count, MPI_INT, MPI_IN_PLACE, count, MPI_INT, root, comm);
        for (int i = 0; i < count; ++i) CHECK(recv[root * count + i] == val(me, i), "scatter ip");
      } else {
        MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, got, count, MPI_INT, root, comm);
        for (int i = 0; i < count; ++i) CHECK(got[i] == val(me, i), "scatter 2");
      }
      free(recv);
    }
    /* Gatherv/scatterv: rank r has r % 3 doubles, placed in reverse order. */
    {
      int *counts = malloc(sizeof(int) * (size_t)n), *displs = malloc(sizeof(int) * (size_t)n);
      int total = 0;
      for (int r = n - 1; r >= 0; --r) {
        counts[r] = r % 3;
        displs[r] = total;
        total += counts[r] + 1;
      }
      double send[3], *recv = malloc(sizeof(double) * (size_t)(total + 1));
      for (int i = 0; i < me % 3; ++i) send[i] = val(me, i) + 0.5;
      for (int i = 0; i <= total; ++i) recv[i] = -1;
      MPI_Gatherv(send, me % 3, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, root, comm);
      if (me == root)
        for (int r = 0; r < n; ++r) {
          for (int i = 0; i < counts[r]; ++i)
            CHECK(recv[displs[r] + i] == val(r, i) + 0.5, "gatherv r %d i %d", r, i);
          CHECK(recv[displs[r] + counts[r]] == -1, "gatherv wrote a gap");
        }
      double got[3] = {0, 0, 0};
      MPI_Scatterv(recv, counts, displs, MPI_DOUBLE, got, me % 3, MPI_DOUBLE, root, comm);
      for (int i = 0; i < me % 3; ++i) CHECK(got[i] == val(me, i) + 0.5, "scatterv");
      free(recv);
      free(counts);
      free(displs);
    }
  }
}

static void test_allgather_alltoall(MPI_Comm comm) {
  int me, n;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  /* Allgather of 2 longs, also in place; a contiguous derived type. */
  long *all = malloc(sizeof(long) * (size_t)(2 * n));
  long mine[2] = {val(me, 0), val(me, 1)};
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_LONG, &pair);
  MPI_Type_commit(&pair);
  MPI_Allgather(mine, 1, pair, all, 2, MPI_LONG, comm);
  for (int r = 0; r < n; ++r)
    CHECK(all[2 * r] == val(r, 0) && all[2 * r + 1] == val(r, 1), "allgather r %d", r);
  for (int i = 0; i < 2 * n; ++i) all[i] = (i / 2 == me) ? val(me, i % 2) : -1;
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, pair, comm);
  for (int r = 0; r < n; ++r)
    CHECK(all[2 * r] == val(r, 0) && all[2 * r + 1] == val(r, 1), "allgather ip r %d", r);
  MPI_Type_free(&pair);
  free(all);
  /* Allgatherv: rank r gives r % 4 shorts (zero for some). */
  {
    int *counts = malloc(sizeof(int) * (size_t)n), *displs = malloc(sizeof(int) * (size_t)n);
    int total = 0;
    for (int r = 0; r < n; ++r) {
      counts[r] = r % 4;
      displs[r] = total;
      total += r % 4;
    }
    short send[4], *recv = malloc(sizeof(short) * (size_t)(total + 1));
    for (int i = 0; i < me % 4; ++i) send[i] = (short)(me * 10 + i);
    MPI_Allgatherv(send, me % 4, MPI_SHORT, recv, counts, displs, MPI_SHORT, comm);
    for (int r = 0; r < n; ++r)
      for (int i = 0; i < counts[r]; ++i)
        CHECK(recv[displs[r] + i] == r * 10 + i, "allgatherv r %d i %d", r, i);
    for (int i = 0; i < total; ++i) recv[i] = -1;
    for (int i = 0; i < me % 4; ++i) recv[displs[me] + i] = (short)(me * 10 + i);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, counts, displs, MPI_SHORT, comm);
    for (int r = 0; r < n; ++r)
      for (int i = 0; i < counts[r]; ++i) CHECK(recv[displs[r] + i] == r * 10 + i, "agv ip");
    free(recv);
    free(counts);
    free(displs);
  }
  /* Alltoall: block to d is {me, d}. */
  {
    int *send = malloc(sizeof(int) * (size_t)(2 * n)), *recv = malloc(sizeof(int) * (size_t)(2 * n));
    for (int d = 0; d < n; ++d) {
      send[2 * d] = me;
      send[2 * d + 1] = d;
    }
    MPI_Alltoall(send, 2, MPI_INT, recv, 2, MPI_INT, comm);
    for (int s = 0; s < n; ++s)
      CHECK(recv[2 * s] == s && recv[2 * s + 1] == me, "alltoall from %d", s);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, send, 2, MPI_INT, comm);
    for (int s = 0; s < n; ++s)
      CHECK(send[2 * s] == s && send[2 * s + 1] == me, "alltoall ip from %d", s);
    MPI_Alltoall(send, 0, MPI_INT, recv, 0, MPI_INT, comm);
    free(send);
    free(recv);
  }
  /* Alltoallv: me sends (me + d) % 3 unsigned chars to d, in reverse order. */
  {
    int *sc = malloc(sizeof(int) * (size_t)n), *sd = malloc(sizeof(int) * (size_t)n);
    int *rc = malloc(sizeof(int) * (size_t)n), *rd = malloc(sizeof(int) * (size_t)n);
    int st = 0, rt = 0;
    for (int d = n - 1; d >= 0; --d) {
      sc[d] = (me + d) % 3;
      sd[d] = st;
      st += sc[d];
    }
    for (int s = 0; s < n; ++s) {
      rc[s] = (me + s) % 3;
      rd[s] = rt;
      rt += rc[s];
    }
    unsigned char *send = malloc((size_t)st + 1), *recv = malloc((size_t)rt + 1);
    for (int d = 0; d < n; ++d)
      for (int i = 0; i < sc[d]; ++i) send[sd[d] + i] = (unsigned char)(me * 7 + d * 3 + i);
    MPI_Alltoallv(send, sc, sd, MPI_UNSIGNED_CHAR, recv, rc, rd, MPI_UNSIGNED_CHAR, comm);
    for (int s = 0; s < n; ++s)
      for (int i = 0; i < rc[s]; ++i)
        CHECK(recv[rd[s] + i] == (unsigned char)(s * 7 + me * 3 + i), "alltoallv from %d", s);
    free(send);
    free(recv);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
  }
}

/* A non-commutative op: 2x2 integer matrix product (mod 1000). */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  int *a = in, *b = inout;
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    int c[4] = {(a[0] * b[0] + a[1] * b[2]) % 1000, (a[0] * b[1] + a[1] * b[3]) % 1000,
                (a[2] * b[0] + a[3] * b[2]) % 1000, (a[2] * b[1] + a[3] * b[3]) % 1000};
    memcpy(b, c, sizeof c);
  }
}

static void matrix_of(int r, int m[4]) {
  m[0] = r + 1;
  m[1] = 1;
  m[2] = 2 * r;
  m[3] = 1;
}

static void matprod(int from, int to, int out[4]) { /* product of ranks [from, to) */
  int acc[4] = {1, 0, 0, 1};
  for (int r = from; r < to; ++r) {
    int m[4];
    matrix_of(r, m);
    int len = 1;
    matmul(acc, m, &len, NULL);
    memcpy(acc, m, sizeof acc);
  }
  memcpy(out, acc, sizeof acc);
}

static void test_scans(MPI_Comm comm) {
  int me, n;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  int x[2] = {me + 1, 2 * me}, y[2];
  MPI_Scan(x, y, 2, MPI_INT, MPI_SUM, comm);
  CHECK(y[0] == (me + 1) * (me + 2) / 2 && y[1] == me * (me + 1), "scan %d %d", y[0], y[1]);
  y[0] = me + 1;
  y[1] = 2 * me;
  MPI_Scan(MPI_IN_PLACE, y, 2, MPI_INT, MPI_MAX, comm);
  CHECK(y[0] == me + 1 && y[1] == 2 * me, "scan max ip");
  double d = me + 1.0, e = -7;
  MPI_Exscan(&d, &e, 1, MPI_DOUBLE, MPI_PROD, comm);
  if (me > 0) {
    double want = 1;
    for (int r = 1; r <= me; ++r) want *= r;
    CHECK(e == want, "exscan %g want %g", e, want);
  }
  e = me + 1.0;
  MPI_Exscan(MPI_IN_PLACE, &e, 1, MPI_DOUBLE, MPI_SUM, comm);
  if (me > 0) CHECK(e == me * (me + 1) / 2.0, "exscan ip %g", e);
  MPI_Scan(x, y, 0, MPI_INT, MPI_SUM, comm);
  /* User ops, non-commutative. */
  MPI_Op op;
  MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_INT, &mat);
  MPI_Type_commit(&mat);
  MPI_Op_create(matmul, 0, &op);
  int m[4], out[4], want[4];
  matrix_of(me, m);
  MPI_Scan(m, out, 1, mat, op, comm);
  matprod(0, me + 1, want);
  CHECK(memcmp(out, want, sizeof want) == 0, "user scan");
  MPI_Exscan(m, out, 1, mat, op, comm);
  matprod(0, me, want);
  if (me > 0) CHECK(memcmp(out, want, sizeof want) == 0, "user exscan");
  matprod(0, n, want);
  for (int root = 0; root < n; root += (n > 8 && root == 1) ? n - 3 : 1) {
    memset(out, 0, sizeof out);
    MPI_Reduce(m, out, 1, mat, op, root, comm);
    if (me == root) CHECK(memcmp(out, want, sizeof want) == 0, "user reduce root %d", root);
  }
  memcpy(out, m, sizeof m);
  MPI_Allreduce(MPI_IN_PLACE, out, 1, mat, op, comm);
  CHECK(memcmp(out, want, sizeof want) == 0, "user allreduce");
  /* Reduce_scatter(_block): element i of rank r is r + i. */
  int *in = malloc(sizeof(int) * (size_t)(3 * n)), *counts = malloc(sizeof(int) * (size_t)n);
  int total = 0;
  for (int r = 0; r < n; ++r) total += counts[r] = r % 3;
  for (int i = 0; i < 3 * n; ++i) in[i] = me + i;
  int res[3] = {0, 0, 0}, first = 0;
  for (int r = 0; r < me; ++r) first += counts[r];
  MPI_Reduce_scatter(in, res, counts, MPI_INT, MPI_SUM, comm);
  for (int i = 0; i < counts[me]; ++i)
    CHECK(res[i] == n * (n - 1) / 2 + n * (first + i), "reduce_scatter %d", res[i]);
  MPI_Reduce_scatter_block(in, res, 3, MPI_INT, MPI_MIN, comm);
  for (int i = 0; i < 3; ++i) CHECK(res[i] == 3 * me + i, "rsb min %d", res[i]);
  MPI_Reduce_scatter_block(MPI_IN_PLACE, in, 3, MPI_INT, MPI_SUM, comm);
  for (int i = 0; i < 3; ++i)
    CHECK(in[i] == n * (n - 1) / 2 + n * (3 * me + i), "rsb ip %d", in[i]);
  /* With the user op: rank r's block k is matrix_of(r) for every k. */
  int *mats = malloc(sizeof(int) * (size_t)(4 * n));
  for (int k = 0; k < n; ++k) memcpy(mats + 4 * k, m, sizeof m);
  MPI_Reduce_scatter_block(mats, out, 1, mat, op, comm);
  CHECK(memcmp(out, want, sizeof want) == 0, "user reduce_scatter_block");
  (void)total;
  free(mats);
  free(in);
  free(counts);
  MPI_Op_free(&op);
  CHECK(op == MPI_OP_NULL, "op not nulled");
  MPI_Type_free(&mat);
}

/* User messages in flight (any source, any tag) never take collective data. */
static void test_isolation(void) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int token = rank, got = -1, all[64];
  MPI_Send(&token, 1, MPI_INT, next, 5, MPI_COMM_WORLD);
  MPI_Request req;
  MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
  if (size <= 64) MPI_Allgather(&token, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(got == prev, "user message %d, want %d", got, prev);
  if (size <= 64)
    for (int r = 0; r < size; ++r) CHECK(all[r] == r, "allgather beside user messages");
}

static void test_errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int x = 0, y[2];
  int rc = MPI_Gather(&x, -1, MPI_INT, y, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(error_class_of(rc) == MPI_ERR_COUNT, "gather count: %d", rc);
  rc = MPI_Gather(&x, 1, MPI_INT, y, 1, MPI_INT, size, MPI_COMM_WORLD);
  CHECK(error_class_of(rc) == MPI_ERR_ROOT, "gather root: %d", rc);
  rc = MPI_Allgather(&x, 1, MPI_DATATYPE_NULL, y, 1, MPI_INT, MPI_COMM_WORLD);
  CHECK(error_class_of(rc) == MPI_ERR_TYPE, "allgather type: %d", rc);
  rc = MPI_Scan(&x, y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
  CHECK(error_class_of(rc) == MPI_ERR_OP, "scan op: %d", rc);
  rc = MPI_Exscan(&x, y, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD);
  CHECK(error_class_of(rc) == MPI_ERR_OP, "exscan band double: %d", rc);
  if (rank != 0) {
    rc = MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, 0, MPI_COMM_WORLD);
    /* MPI_ERR_BUFFER here; Open MPI says MPI_ERR_ARG. */
    CHECK(error_class_of(rc) == MPI_ERR_BUFFER || error_class_of(rc) == MPI_ERR_ARG, "gather in place off root: %d", rc);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rank = world_rank();
  size = world_size();
  MPI_Comm half, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm comms[] = {MPI_COMM_WORLD, half, dup, MPI_COMM_SELF};
  for (int c = 0; c < 4; ++c) {
    test_gather_scatter(comms[c]);
    test_allgather_alltoall(comms[c]);
    test_scans(comms[c]);
  }
  test_isolation();
  test_errors();
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
