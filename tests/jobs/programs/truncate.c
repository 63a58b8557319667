/*
 * truncate: a message longer than the receive buffer. With MPI_ERRORS_RETURN
 * the receive returns an error of class MPI_ERR_TRUNCATE, writes nothing
 * past the end of the buffer, and consumes the message: the next receive
 * gets the next message. The sender's side completes without error.
 *
 * Covered: MPI_Recv and MPI_Irecv+MPI_Wait, from the left neighbour and from
 * the rank itself, for a small (400-byte) message; with --large also for a
 * 390 KiB message, above any memory threshold.
 *
 * --large is off by default because Open MPI 4.1.4 itself fails it: its
 * rendezvous path (ob1 over vader/CMA, tcp or self) ignores the short receive
 * buffer, so it overruns the buffer (100000 ints into 99999 writes all 100000),
 * corrupts the heap or segfaults instead of returning MPI_ERR_TRUNCATE.
 */
#include "check.h"

enum { kCanary = 0x5a, kSlack = 64 };

/* One case: peer sends `ints` ints then a 1-int follow-up; we receive the
 * first into a buffer of `cap` ints. */
static void truncate_case(int rank, int dst, int src, int ints, int cap,
                          int use_irecv, int tag) {
  int *out = xmalloc((size_t)ints * sizeof(int));
  for (int i = 0; i < ints; ++i) out[i] = rank + i;
  const int follow = 1000 + rank;
  MPI_Request sreq[2];
  MPI_Isend(out, ints, MPI_INT, dst, tag, MPI_COMM_WORLD, &sreq[0]);
  MPI_Isend(&follow, 1, MPI_INT, dst, tag, MPI_COMM_WORLD, &sreq[1]);

  const size_t bytes = (size_t)cap * sizeof(int);
  unsigned char *in = xmalloc(bytes + kSlack);
  memset(in, kCanary, bytes + kSlack);
  MPI_Status st;
  int rc;
  if (use_irecv) {
    MPI_Request req;
    rc = MPI_Irecv(in, cap, MPI_INT, src, tag, MPI_COMM_WORLD, &req);
    CHECK(rc == MPI_SUCCESS, "Irecv posting failed with %d", rc);
    rc = MPI_Wait(&req, &st);
  } else {
    rc = MPI_Recv(in, cap, MPI_INT, src, tag, MPI_COMM_WORLD, &st);
  }
  char text[MPI_MAX_ERROR_STRING];
  CHECK(rc != MPI_SUCCESS && error_class_of(rc) == MPI_ERR_TRUNCATE,
        "%s of %d ints into %d: returned %d, class %d (%s), want "
        "MPI_ERR_TRUNCATE",
        use_irecv ? "Irecv+Wait" : "Recv", ints, cap, rc, error_class_of(rc),
        error_text(rc, text));
  for (size_t i = bytes; i < bytes + kSlack; ++i) {
    CHECK(in[i] == kCanary, "truncated receive wrote past the buffer at +%zu",
          i - bytes);
  }

  int next = -1;
  CHECK_MPI(MPI_Recv(&next, 1, MPI_INT, src, tag, MPI_COMM_WORLD, &st));
  CHECK(next == 1000 + src, "after truncation got %d, want the follow-up %d",
        next, 1000 + src);
  CHECK_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  const int large = arg_flag(argc, argv, "--large");
  int tag = 0;
  for (int use_irecv = 0; use_irecv <= 1; ++use_irecv) {
    truncate_case(rank, right, left, 100, 50, use_irecv, ++tag);
    truncate_case(rank, rank, rank, 100, 0, use_irecv, ++tag);
    if (large) {
      /* 100000 ints (390 KiB) into 1000, and into one int too few. */
      truncate_case(rank, right, left, 100000, 1000, use_irecv, ++tag);
      truncate_case(rank, right, left, 100000, 99999, use_irecv, ++tag);
      truncate_case(rank, rank, rank, 100000, 1000, use_irecv, ++tag);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
