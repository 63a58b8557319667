/*
 * requests: the multiple-completion calls, MPI_Request_free and
 * MPI_PROC_NULL, with the statuses MPI specifies.
 *
 *  1. MPI_Waitany over receives of every threshold size from both
 *     neighbours, mixed with MPI_REQUEST_NULL, a send and a receive from
 *     MPI_PROC_NULL: every request completes exactly once with its status and
 *     data, then an all-null array gives MPI_UNDEFINED and an empty status.
 *  2. The same with MPI_Waitsome, MPI_Testany, MPI_Testsome loops.
 *  3. MPI_Testall: false while a message cannot have been sent (the sender
 *     sends after a barrier), leaving every request untouched; true later.
 *  4. Many (600) receives completed by MPI_Waitsome: the request list is
 *     larger than one queue message (and than a 4 KiB window).
 *  5. MPI_Request_free: of a send, and of a receive, which must still take
 *     the first matching message (a later MPI_Recv gets the second one); of
 *     MPI_REQUEST_NULL: MPI_ERR_REQUEST.
 *  6. MPI_PROC_NULL as source and destination of every point-to-point call.
 *  7. A truncated receive in MPI_Waitsome: MPI_ERR_IN_STATUS and the
 *     status's MPI_ERROR says MPI_ERR_TRUNCATE.
 *  8. Persistent requests: MPI_Recv_init / MPI_Send_init (and the buffered
 *     and ready variants) started again and again with MPI_Startall and
 *     MPI_Start; between rounds they are inactive, which the completion
 *     calls treat like null requests (empty status, MPI_UNDEFINED).
 *
 * Test loops rely on the MPI progress rule (see iprobe.c).
 *
 * Options: --max-bytes N skips larger sizes.
 */
#include "check.h"

enum { kMaxReqs = 2 * kNumThresholdSizes + 3, kMany = 600 };

/* The empty status of MPI-3.1 section 3.7.3. */
static void check_empty(const MPI_Status *st, const char *what) {
  int count = -1;
  MPI_Get_count(st, MPI_BYTE, &count);
  CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG &&
            count == 0,
        "%s: status (source %d, tag %d, count %d) is not empty", what,
        st->MPI_SOURCE, st->MPI_TAG, count);
}

static void check_proc_null(const MPI_Status *st, const char *what) {
  int count = -1;
  MPI_Get_count(st, MPI_BYTE, &count);
  CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG &&
            count == 0,
        "%s: status (source %d, tag %d, count %d), want (MPI_PROC_NULL, "
        "MPI_ANY_TAG, 0)",
        what, st->MPI_SOURCE, st->MPI_TAG, count);
}

/* One round: receives of every size from both neighbours (request 2s from
 * the left with tag 2s, 2s+1 from the right with tag 2s+1), then a null
 * request, a send to MPI_PROC_NULL and a receive from MPI_PROC_NULL (the
 * last request). */
struct Round {
  int n, nrecv;
  MPI_Request reqs[kMaxReqs];
  unsigned char *buf[kMaxReqs];
  int peer[kMaxReqs], tag[kMaxReqs];
  size_t bytes[kMaxReqs];
  int completed[kMaxReqs];
  unsigned char *send_buf[2 * kNumThresholdSizes];
  int send_token;
};

static void post_round(struct Round *r, int rank, int size, int nsizes) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  r->n = 0;
  for (int s = 0; s < nsizes; ++s) {
    for (int k = 0; k < 2; ++k) {
      const int i = r->n++;
      r->peer[i] = k == 0 ? left : right;
      r->tag[i] = 2 * s + k;
      r->bytes[i] = kThresholdSizes[s];
      r->buf[i] = xmalloc(r->bytes[i]);
      memset(r->buf[i], 0, r->bytes[i]);
      r->completed[i] = 0;
      MPI_Irecv(r->buf[i], (int)r->bytes[i], MPI_BYTE, r->peer[i], r->tag[i],
                MPI_COMM_WORLD, &r->reqs[i]);
    }
  }
  r->nrecv = r->n;
  /* A null request, a (buffered or eager) send, a PROC_NULL receive. */
  r->reqs[r->n] = MPI_REQUEST_NULL;
  r->completed[r->n++] = 0;
  r->send_token = rank;
  r->completed[r->n] = 0;
  MPI_Isend(&r->send_token, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
            &r->reqs[r->n++]);
  r->completed[r->n] = 0;
  MPI_Irecv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
            &r->reqs[r->n++]);
  /* Now the sends: to the right with tag 2s, to the left with tag 2s+1. */
  for (int s = 0; s < nsizes; ++s) {
    for (int k = 0; k < 2; ++k) {
      const int to = k == 0 ? right : left;
      const size_t bytes = kThresholdSizes[s];
      unsigned char *b = xmalloc(bytes);
      fill_pattern(b, bytes, msg_seed(rank, to, bytes) + (size_t)(2 * s + k));
      MPI_Send(b, (int)bytes, MPI_BYTE, to, 2 * s + k, MPI_COMM_WORLD);
      r->send_buf[2 * s + k] = b;
    }
  }
}

/* Request i of the round has completed with status st. */
static void completed(struct Round *r, int i, const MPI_Status *st, int rank,
                      const char *how) {
  CHECK(i >= 0 && i < r->n, "%s: index %d out of range", how, i);
  CHECK(!r->completed[i], "%s: request %d completed twice", how, i);
  CHECK(r->reqs[i] == MPI_REQUEST_NULL,
        "%s: completed request %d is not MPI_REQUEST_NULL", how, i);
  CHECK(i != r->nrecv, "%s: the null request %d was reported complete", how, i);
  r->completed[i] = 1;
  if (i < r->nrecv) {
    CHECK_STATUS(*st, r->peer[i], r->tag[i], MPI_BYTE, r->bytes[i]);
    CHECK_PATTERN(r->buf[i], r->bytes[i],
                  msg_seed(r->peer[i], rank, r->bytes[i]) + (size_t)r->tag[i],
                  how);
  } else if (i == r->n - 1) {
    check_proc_null(st, how);
  }
}

static void finish_round(struct Round *r, int nsizes, const char *how) {
  for (int i = 0; i < r->n; ++i) {
    CHECK(r->reqs[i] == MPI_REQUEST_NULL, "%s: request %d left active", how,
          i);
    CHECK(r->completed[i] == (i != r->nrecv), "%s: request %d completed %d",
          how, i, r->completed[i]);
  }
  for (int i = 0; i < r->nrecv; ++i) free(r->buf[i]);
  for (int i = 0; i < 2 * nsizes; ++i) free(r->send_buf[i]);
}

static void all_null_checks(struct Round *r) {
  MPI_Status st;
  int index = 0, flag = 0, outcount = 0, indices[kMaxReqs];
  MPI_Waitany(r->n, r->reqs, &index, &st);
  CHECK(index == MPI_UNDEFINED, "Waitany on null requests gave index %d",
        index);
  check_empty(&st, "Waitany on null requests");
  MPI_Testany(r->n, r->reqs, &index, &flag, &st);
  CHECK(flag == 1 && index == MPI_UNDEFINED,
        "Testany on null requests gave flag %d index %d", flag, index);
  check_empty(&st, "Testany on null requests");
  MPI_Waitsome(r->n, r->reqs, &outcount, indices, MPI_STATUSES_IGNORE);
  CHECK(outcount == MPI_UNDEFINED, "Waitsome on null requests: outcount %d",
        outcount);
  MPI_Testsome(r->n, r->reqs, &outcount, indices, MPI_STATUSES_IGNORE);
  CHECK(outcount == MPI_UNDEFINED, "Testsome on null requests: outcount %d",
        outcount);
  MPI_Status sts[kMaxReqs];
  MPI_Testall(r->n, r->reqs, &flag, sts);
  CHECK(flag == 1, "Testall on null requests gave flag %d", flag);
  for (int i = 0; i < r->n; ++i) check_empty(&sts[i], "Testall on null");
  MPI_Waitany(0, NULL, &index, &st);
  CHECK(index == MPI_UNDEFINED, "Waitany(0) gave index %d", index);
}

static void test_any_some(int rank, int size, int nsizes) {
  static struct Round r;
  MPI_Status st, sts[kMaxReqs];
  int indices[kMaxReqs];

  post_round(&r, rank, size, nsizes);
  for (;;) {
    int index = -5;
    MPI_Waitany(r.n, r.reqs, &index, &st);
    if (index == MPI_UNDEFINED) break;
    completed(&r, index, &st, rank, "Waitany");
  }
  check_empty(&st, "Waitany after the last completion");
  finish_round(&r, nsizes, "Waitany");
  all_null_checks(&r);
  MPI_Barrier(MPI_COMM_WORLD);

  post_round(&r, rank, size, nsizes);
  for (;;) {
    int outcount = -5;
    MPI_Waitsome(r.n, r.reqs, &outcount, indices, sts);
    if (outcount == MPI_UNDEFINED) break;
    CHECK(outcount >= 1, "Waitsome returned outcount %d", outcount);
    for (int j = 0; j < outcount; ++j)
      completed(&r, indices[j], &sts[j], rank, "Waitsome");
  }
  finish_round(&r, nsizes, "Waitsome");
  MPI_Barrier(MPI_COMM_WORLD);

  post_round(&r, rank, size, nsizes);
  for (;;) {
    int index = -5, flag = -5;
    MPI_Testany(r.n, r.reqs, &index, &flag, &st);
    if (flag && index == MPI_UNDEFINED) break;
    if (!flag) {
      CHECK(index == MPI_UNDEFINED, "Testany: flag 0 with index %d", index);
      continue;
    }
    completed(&r, index, &st, rank, "Testany");
  }
  finish_round(&r, nsizes, "Testany");
  MPI_Barrier(MPI_COMM_WORLD);

  post_round(&r, rank, size, nsizes);
  for (;;) {
    int outcount = -5;
    MPI_Testsome(r.n, r.reqs, &outcount, indices, sts);
    if (outcount == MPI_UNDEFINED) break;
    for (int j = 0; j < outcount; ++j)
      completed(&r, indices[j], &sts[j], rank, "Testsome");
  }
  finish_round(&r, nsizes, "Testsome");
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_testall(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int in[2] = {-1, -1}, out[2] = {rank, rank + 1000};
  MPI_Request reqs[4];
  MPI_Status sts[4];
  MPI_Irecv(&in[0], 1, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[0]);
  MPI_Irecv(&in[1], 1, MPI_INT, right, 8, MPI_COMM_WORLD, &reqs[1]);
  reqs[2] = MPI_REQUEST_NULL;
  MPI_Isend(&out[0], 1, MPI_INT, MPI_PROC_NULL, 7, MPI_COMM_WORLD, &reqs[3]);
  int flag = -1;
  /* Nobody sends before the barrier below. */
  MPI_Testall(4, reqs, &flag, sts);
  CHECK(flag == 0, "Testall before any send gave flag %d", flag);
  CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL &&
            reqs[3] != MPI_REQUEST_NULL,
        "Testall with flag 0 freed a request");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Send(&out[0], 1, MPI_INT, right, 7, MPI_COMM_WORLD);
  MPI_Send(&out[1], 1, MPI_INT, left, 8, MPI_COMM_WORLD);
  do {
    MPI_Testall(4, reqs, &flag, sts);
  } while (!flag);
  for (int i = 0; i < 4; ++i)
    CHECK(reqs[i] == MPI_REQUEST_NULL, "Testall left request %d active", i);
  CHECK_STATUS(sts[0], left, 7, MPI_INT, 1);
  CHECK_STATUS(sts[1], right, 8, MPI_INT, 1);
  check_empty(&sts[2], "Testall's null request");
  CHECK(in[0] == left && in[1] == right + 1000, "Testall data %d %d", in[0],
        in[1]);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_many(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  static MPI_Request reqs[kMany];
  static MPI_Status sts[kMany];
  static int in[kMany], indices[kMany], seen[kMany];
  for (int t = 0; t < kMany; ++t) {
    in[t] = -1;
    seen[t] = 0;
    MPI_Irecv(&in[t], 1, MPI_INT, left, t, MPI_COMM_WORLD, &reqs[t]);
  }
  for (int t = kMany - 1; t >= 0; --t) {
    int value = rank * kMany + t;
    MPI_Send(&value, 1, MPI_INT, right, t, MPI_COMM_WORLD);
  }
  int done = 0;
  for (;;) {
    int outcount = 0;
    MPI_Waitsome(kMany, reqs, &outcount, indices, sts);
    if (outcount == MPI_UNDEFINED) break;
    for (int j = 0; j < outcount; ++j) {
      const int t = indices[j];
      CHECK(t >= 0 && t < kMany && !seen[t], "Waitsome index %d", t);
      seen[t] = 1;
      CHECK_STATUS(sts[j], left, t, MPI_INT, 1);
      CHECK(in[t] == left * kMany + t, "message %d holds %d", t, in[t]);
      ++done;
    }
  }
  CHECK(done == kMany, "%d of %d receives completed", done, kMany);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_request_free(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  /* The freed receive's buffer may be written at any time until the end. */
  static int freed_buf = -1;
  MPI_Request req;
  MPI_Irecv(&freed_buf, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &req);
  MPI_Request_free(&req);
  CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free left the handle set");
  int first = rank * 10 + 1, second = rank * 10 + 2;
  MPI_Isend(&first, 1, MPI_INT, right, 11, MPI_COMM_WORLD, &req);
  MPI_Request_free(&req);
  CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free left the handle set");
  MPI_Send(&second, 1, MPI_INT, right, 11, MPI_COMM_WORLD);
  int got = -1;
  MPI_Status st;
  MPI_Recv(&got, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &st);
  CHECK(got == left * 10 + 2,
        "MPI_Recv after a freed receive got %d, want the second message %d",
        got, left * 10 + 2);
  /* No third message is left over for the freed receive to have missed. */
  MPI_Barrier(MPI_COMM_WORLD);
  int flag = 1;
  MPI_Iprobe(left, 11, MPI_COMM_WORLD, &flag, &st);
  CHECK(flag == 0, "a message with tag 11 is still queued");

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  req = MPI_REQUEST_NULL;
  CHECK_CLASS(MPI_Request_free(&req), MPI_ERR_REQUEST);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_proc_null(int rank) {
  int value = rank, flag = 0;
  MPI_Status st;
  MPI_Send(&value, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD);
  value = -7;
  MPI_Recv(&value, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st);
  check_proc_null(&st, "Recv from MPI_PROC_NULL");
  CHECK(value == -7, "Recv from MPI_PROC_NULL wrote the buffer");
  MPI_Probe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  check_proc_null(&st, "Probe of MPI_PROC_NULL");
  MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st);
  CHECK(flag == 1, "Iprobe of MPI_PROC_NULL gave flag %d", flag);
  check_proc_null(&st, "Iprobe of MPI_PROC_NULL");
  MPI_Sendrecv(&value, 1, MPI_INT, MPI_PROC_NULL, 3, &value, 1, MPI_INT,
               MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st);
  check_proc_null(&st, "Sendrecv with MPI_PROC_NULL");
  MPI_Request req;
  MPI_Irecv(&value, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, &st);
  check_proc_null(&st, "Wait for a receive from MPI_PROC_NULL");
  MPI_Irecv(&value, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &req);
  flag = 0;
  MPI_Test(&req, &flag, &st);
  CHECK(flag == 1 && req == MPI_REQUEST_NULL,
        "Test of a receive from MPI_PROC_NULL: flag %d", flag);
  check_proc_null(&st, "Test of a receive from MPI_PROC_NULL");
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_truncation(int rank, int size) {
  /* Open MPI 4.1 does not report truncation of a message to oneself. */
  if (size == 1) return;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int small = -1, big[4] = {rank, rank, rank, rank};
  MPI_Request reqs[2];
  MPI_Status sts[2];
  int indices[2], outcount = 0, rc;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Irecv(&small, 1, MPI_INT, left, 21, MPI_COMM_WORLD, &reqs[0]);
  reqs[1] = MPI_REQUEST_NULL;
  MPI_Send(big, 4, MPI_INT, right, 21, MPI_COMM_WORLD);
  rc = MPI_Waitsome(2, reqs, &outcount, indices, sts);
  CHECK(error_class_of(rc) == MPI_ERR_IN_STATUS,
        "truncated Waitsome returned class %d", error_class_of(rc));
  CHECK(outcount == 1 && indices[0] == 0, "truncated Waitsome: %d, [0] %d",
        outcount, indices[0]);
  CHECK(error_class_of(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE,
        "truncated receive's status has MPI_ERROR class %d",
        error_class_of(sts[0].MPI_ERROR));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_persistent(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int in[3], out[3];
  MPI_Request reqs[6];
  MPI_Status sts[6];
  MPI_Recv_init(&in[0], 1, MPI_INT, left, 30, MPI_COMM_WORLD, &reqs[0]);
  MPI_Recv_init(&in[1], 1, MPI_INT, right, 31, MPI_COMM_WORLD, &reqs[1]);
  MPI_Recv_init(&in[2], 1, MPI_INT, MPI_PROC_NULL, 32, MPI_COMM_WORLD,
                &reqs[2]);
  MPI_Send_init(&out[0], 1, MPI_INT, right, 30, MPI_COMM_WORLD, &reqs[3]);
  MPI_Bsend_init(&out[1], 1, MPI_INT, left, 31, MPI_COMM_WORLD, &reqs[4]);
  MPI_Send_init(&out[2], 1, MPI_INT, MPI_PROC_NULL, 32, MPI_COMM_WORLD,
                &reqs[5]);
  int bsize = 2 * ((int)sizeof(int) + MPI_BSEND_OVERHEAD);
  char *bbuf = xmalloc((size_t)bsize);
  MPI_Buffer_attach(bbuf, bsize);

  /* Inactive requests complete at once with empty statuses. */
  MPI_Status st;
  int index = -5, flag = -5;
  MPI_Wait(&reqs[0], &st);
  CHECK(reqs[0] != MPI_REQUEST_NULL, "MPI_Wait freed an inactive request");
  check_empty(&st, "Wait on an inactive request");
  MPI_Waitany(6, reqs, &index, &st);
  CHECK(index == MPI_UNDEFINED, "Waitany on inactive requests: index %d",
        index);
  MPI_Testall(6, reqs, &flag, sts);
  CHECK(flag == 1, "Testall on inactive requests: flag %d", flag);
  check_empty(&sts[3], "Testall on an inactive send");

  for (int round = 0; round < 5; ++round) {
    in[0] = in[1] = in[2] = -1;
    out[0] = rank * 100 + round;
    out[1] = -(rank * 100 + round);
    if (round % 2) {
      MPI_Startall(6, reqs);
    } else {
      for (int i = 5; i >= 0; --i) MPI_Start(&reqs[i]);
    }
    if (round < 3) {
      MPI_Waitall(6, reqs, sts);
    } else {
      int done = 0, indices[6];
      while (done < 6) {
        int outcount = 0;
        MPI_Waitsome(6, reqs, &outcount, indices, sts);
        CHECK(outcount != MPI_UNDEFINED, "round %d: Waitsome found nothing "
              "active after %d", round, done);
        done += outcount;
      }
    }
    for (int i = 0; i < 6; ++i)
      CHECK(reqs[i] != MPI_REQUEST_NULL, "round %d: request %d freed", round,
            i);
    CHECK(in[0] == left * 100 + round && in[1] == -(right * 100 + round) &&
              in[2] == -1,
          "round %d: received %d %d %d", round, in[0], in[1], in[2]);
    if (round < 3) {
      CHECK_STATUS(sts[0], left, 30, MPI_INT, 1);
      check_proc_null(&sts[2], "persistent receive from MPI_PROC_NULL");
    }
  }
  MPI_Start(&reqs[0]);
#ifdef BDMPI
  /* Starting an active request is erroneous; BDMPI says so (Open MPI 4.1
   * does not check). */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Start(&reqs[0]), MPI_ERR_REQUEST);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
  /* Free the started receive (nobody sends it: its place in matching goes
   * unused) and the inactive ones. */
  for (int i = 0; i < 6; ++i) {
    MPI_Request_free(&reqs[i]);
    CHECK(reqs[i] == MPI_REQUEST_NULL, "MPI_Request_free left request %d", i);
  }
  void *detached = NULL;
  MPI_Buffer_detach(&detached, &bsize);
  free(bbuf);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int nsizes = threshold_sizes(argc, argv);
  test_any_some(rank, size, nsizes);
  test_testall(rank, size);
  test_many(rank, size);
  test_request_free(rank, size);
  test_proc_null(rank);
  test_truncation(rank, size);
  test_persistent(rank, size);
  MPI_Finalize();
  return 0;
}
