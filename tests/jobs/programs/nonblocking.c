/*
 * nonblocking: MPI_Isend / MPI_Irecv completed three ways.
 *
 * Each rank exchanges one message of every threshold size with both of its
 * neighbours (all requests posted at once, receives before sends for half
 * of the sizes and after for the other half), then completes them:
 *  1. with one MPI_Waitall (statuses checked in request order);
 *  2. by calling MPI_Test on each request in turn until all report done;
 *  3. with MPI_Wait one by one, in reverse order.
 * Completed requests must become MPI_REQUEST_NULL; MPI_Test and MPI_Wait on
 * MPI_REQUEST_NULL return at once with flag = 1.
 *
 * Test loops rely on the MPI progress rule (see iprobe.c).
 *
 * Options: --max-bytes N skips larger sizes.
 */
#include "check.h"

enum { kMax = 4 * kNumThresholdSizes };

struct Exchange {
  int n;                  /* number of requests */
  MPI_Request reqs[kMax]; /* receives and sends, interleaved */
  MPI_Status sts[kMax];
  int is_recv[kMax], peer[kMax], tag[kMax];
  size_t bytes[kMax];
  unsigned char *buf[kMax];
};

static void post(struct Exchange *x, int recv, int peer, int tag, size_t bytes,
                 int rank) {
  const int i = x->n++;
  x->is_recv[i] = recv;
  x->peer[i] = peer;
  x->tag[i] = tag;
  x->bytes[i] = bytes;
  x->buf[i] = xmalloc(bytes);
  if (recv) {
    memset(x->buf[i], 0, bytes);
    MPI_Irecv(x->buf[i], (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD,
              &x->reqs[i]);
  } else {
    fill_pattern(x->buf[i], bytes, msg_seed(rank, peer, bytes) + (size_t)tag);
    MPI_Isend(x->buf[i], (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD,
              &x->reqs[i]);
  }
}

/* Posts everything: to the right with tag 2s, to the left with tag 2s+1. */
static void post_all(struct Exchange *x, int rank, int size, int nsizes) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  x->n = 0;
  for (int s = 0; s < nsizes; ++s) {
    const size_t bytes = kThresholdSizes[s];
    const int recv_first = s % 2;
    for (int k = 0; k < 2; ++k) {
      const int as_recv = recv_first ? k == 0 : k == 1;
      if (as_recv) {
        post(x, 1, left, 2 * s, bytes, rank);
        post(x, 1, right, 2 * s + 1, bytes, rank);
      } else {
        post(x, 0, right, 2 * s, bytes, rank);
        post(x, 0, left, 2 * s + 1, bytes, rank);
      }
    }
  }
}

static void check_done(struct Exchange *x, int rank, const char *how) {
  for (int i = 0; i < x->n; ++i) {
    CHECK(x->reqs[i] == MPI_REQUEST_NULL,
          "%s: request %d not MPI_REQUEST_NULL after completion", how, i);
    if (x->is_recv[i]) {
      CHECK_STATUS(x->sts[i], x->peer[i], x->tag[i], MPI_BYTE, x->bytes[i]);
      CHECK_PATTERN(x->buf[i], x->bytes[i],
                    msg_seed(x->peer[i], rank, x->bytes[i]) + (size_t)x->tag[i],
                    how);
    }
    free(x->buf[i]);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int nsizes = threshold_sizes(argc, argv);
  static struct Exchange x;

  post_all(&x, rank, size, nsizes);
  MPI_Waitall(x.n, x.reqs, x.sts);
  check_done(&x, rank, "Waitall");

  post_all(&x, rank, size, nsizes);
  for (int left = x.n; left > 0;) {
    for (int i = 0; i < x.n; ++i) {
      if (x.reqs[i] == MPI_REQUEST_NULL) continue;
      int flag = 0;
      MPI_Test(&x.reqs[i], &flag, &x.sts[i]);
      left -= flag;
    }
  }
  check_done(&x, rank, "Test loop");

  post_all(&x, rank, size, nsizes);
  for (int i = x.n - 1; i >= 0; --i) MPI_Wait(&x.reqs[i], &x.sts[i]);
  check_done(&x, rank, "Wait in reverse");

  MPI_Request null_req = MPI_REQUEST_NULL;
  int flag = 0;
  MPI_Status st;
  MPI_Test(&null_req, &flag, &st);
  CHECK(flag == 1, "MPI_Test(MPI_REQUEST_NULL) gave flag %d", flag);
  MPI_Wait(&null_req, &st);
  CHECK(null_req == MPI_REQUEST_NULL, "MPI_Wait changed a null request");

  MPI_Finalize();
  return 0;
}
