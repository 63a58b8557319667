/*
 * ssend: synchronous sends complete only when a receive has taken the
 * message, and then deliver it like any send.
 *
 *   * MPI_Issend to the right neighbour, which cannot have posted its
 *     receive yet (it first waits for a go message from us): MPI_Test and
 *     MPI_Request_get_status must say "not complete"; after the go it
 *     completes, and the data arrives.
 *   * MPI_Ssend of every threshold size around the ring, one hop after
 *     the other (with -nr 1 the sender blocks, and the receiver must get
 *     to run).
 *   * MPI_Ssend_init started twice, MPI_Issend to itself with MPI_Waitall,
 *     MPI_Ssend to MPI_PROC_NULL, an MPI_Issend completed by MPI_Waitany
 *     among receives.
 */
#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int value = 100 + rank, got = -1, flag = 1, go = 1;
  MPI_Request req;
  MPI_Status st;

  /* Not matched before the receiver was told to receive: rank 0 sends to
   * rank 1, which first waits for the go. */
  if (rank == 0 && size > 1) {
    MPI_Issend(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &req);
    MPI_Test(&req, &flag, &st);
    CHECK(!flag, "MPI_Issend complete before its receive was posted");
    MPI_Request_get_status(req, &flag, &st);
    CHECK(!flag, "MPI_Request_get_status: complete before its receive was posted");
    MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    MPI_Wait(&req, &st);
    CHECK(req == MPI_REQUEST_NULL, "MPI_Wait left the request");
  } else if (rank == 1) {
    MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&got, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
    CHECK_STATUS(st, 0, 1, MPI_INT, 1);
    CHECK(got == 100, "got %d from the Issend, want 100", got);
  }

  /* Blocking MPI_Ssend of every size around the ring: rank 0 sends first,
   * every other rank receives from its left before it sends on. */
  const int nsizes = threshold_sizes(argc, argv);
  for (int s = 0; s < nsizes && size > 1; ++s) {
    const size_t bytes = kThresholdSizes[s];
    unsigned char *out = xmalloc(bytes), *in = xmalloc(bytes);
    fill_pattern(out, bytes, msg_seed(rank, right, bytes));
    if (rank == 0) MPI_Ssend(out, (int)bytes, MPI_BYTE, right, 3, MPI_COMM_WORLD);
    MPI_Recv(in, (int)bytes, MPI_BYTE, left, 3, MPI_COMM_WORLD, &st);
    CHECK_STATUS(st, left, 3, MPI_BYTE, bytes);
    CHECK_PATTERN(in, bytes, msg_seed(left, rank, bytes), "MPI_Ssend's message");
    if (rank != 0) MPI_Ssend(out, (int)bytes, MPI_BYTE, right, 3, MPI_COMM_WORLD);
    free(out);
    free(in);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* Persistent synchronous sends, started twice. */
  MPI_Request preq, rreq;
  MPI_Ssend_init(&value, 1, MPI_INT, right, 4, MPI_COMM_WORLD, &preq);
  for (int round = 0; round < 2; ++round) {
    value = 1000 * round + rank;
    MPI_Irecv(&got, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &rreq);
    MPI_Start(&preq);
    MPI_Wait(&rreq, &st);
    CHECK(got == 1000 * round + left, "round %d: got %d from MPI_Ssend_init", round, got);
    MPI_Wait(&preq, &st);
    CHECK(preq != MPI_REQUEST_NULL, "a persistent request was freed by MPI_Wait");
  }
  MPI_Request_free(&preq);

  /* To itself: complete once its own receive is posted. */
  MPI_Request pair[2];
  value = 7 + rank;
  MPI_Issend(&value, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &pair[0]);
  MPI_Irecv(&got, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &pair[1]);
  MPI_Waitall(2, pair, MPI_STATUSES_IGNORE);
  CHECK(got == 7 + rank, "MPI_Issend to itself: got %d", got);

  /* MPI_PROC_NULL: complete at once. */
  MPI_Ssend(&value, 1, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD);
  MPI_Issend(&value, 1, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD, &req);
  MPI_Test(&req, &flag, &st);
  CHECK(flag, "MPI_Issend to MPI_PROC_NULL not complete");

  /* MPI_Waitany over a synchronous send and a receive: both complete. */
  MPI_Request mix[2];
  MPI_Issend(&value, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &mix[0]);
  MPI_Irecv(&got, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &mix[1]);
  for (int done = 0; done < 2; ++done) {
    int index = -1;
    MPI_Waitany(2, mix, &index, &st);
    CHECK(index == 0 || index == 1, "MPI_Waitany index %d", index);
  }
  CHECK(mix[0] == MPI_REQUEST_NULL && mix[1] == MPI_REQUEST_NULL, "MPI_Waitany left requests");

  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
