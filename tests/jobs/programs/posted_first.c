/*
 * posted_first: large messages whose receive is posted before the send,
 * which a runtime may write straight into the receive buffer (BDMPI's
 * placed messages, Open MPI's single copy) instead of buffering them.
 * Ranks pair up (0-1, 2-3, ...; an odd last rank sits out); in each pair
 * the even rank sends, the odd one receives, and a barrier separates the
 * posting of the receives from the sends:
 *  1. one large message into a posted MPI_Irecv, and one into a posted
 *     MPI_Recv (the receiver blocked in it);
 *  2. order across routes: two receives with MPI_ANY_TAG posted, then a
 *     small message and a large one sent: the first receive must take the
 *     small one, which went the buffered way;
 *  3. a receive buffer of a non-contiguous type (every other double);
 *  4. MPI_ANY_SOURCE: receives posted for any sender of MPI_COMM_WORLD
 *     take the pair's message, the status names the sender;
 *  5. a receive larger than the message: the status counts what came;
 *  6. many receives posted at once (MPI_Waitall), as osu_bw's window.
 * Every payload is a pattern of its own, checked byte by byte.
 *
 * Usage: posted_first [--bytes N]   (default 1 MiB)
 */
#include "check.h"

enum { kWindow = 8, kTagSmall = 1, kTagLarge = 2 };

static void barrier(void) { CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); }

static void sender(int peer, size_t bytes) {
  const int rank = world_rank();
  char *buf = xmalloc(bytes);
  double *doubles = xmalloc(bytes);
  /* 1. */
  for (int k = 0; k < 2; ++k) {
    barrier();
    fill_pattern(buf, bytes, msg_seed(rank, peer, bytes + k));
    CHECK_MPI(MPI_Send(buf, (int)bytes, MPI_BYTE, peer, kTagLarge, MPI_COMM_WORLD));
  }
  /* 2. */
  barrier();
  char small[100];
  fill_pattern(small, sizeof small, msg_seed(rank, peer, sizeof small));
  fill_pattern(buf, bytes, msg_seed(rank, peer, bytes + 2));
  CHECK_MPI(MPI_Send(small, sizeof small, MPI_BYTE, peer, kTagSmall, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Send(buf, (int)bytes, MPI_BYTE, peer, kTagLarge, MPI_COMM_WORLD));
  /* 3. */
  barrier();
  size_t count = bytes / sizeof(double) / 2;
  for (size_t i = 0; i < count; ++i) doubles[i] = (double)i + rank;
  CHECK_MPI(MPI_Send(doubles, (int)count, MPI_DOUBLE, peer, kTagLarge, MPI_COMM_WORLD));
  /* 4. and 5. */
  for (int k = 3; k < 5; ++k) {
    barrier();
    fill_pattern(buf, bytes, msg_seed(rank, peer, bytes + k));
    CHECK_MPI(MPI_Send(buf, (int)bytes, MPI_BYTE, peer, kTagLarge, MPI_COMM_WORLD));
  }
  /* 6. */
  barrier();
  MPI_Request requests[kWindow];
  char *window = xmalloc(bytes * kWindow);
  for (int k = 0; k < kWindow; ++k) {
    fill_pattern(window + k * bytes, bytes, msg_seed(rank, peer, bytes + 10 + k));
    CHECK_MPI(MPI_Isend(window + k * bytes, (int)bytes, MPI_BYTE, peer, kTagLarge,
                        MPI_COMM_WORLD, &requests[k]));
  }
  CHECK_MPI(MPI_Waitall(kWindow, requests, MPI_STATUSES_IGNORE));
  free(window);
  free(doubles);
  free(buf);
}

static void receiver(int peer, size_t bytes) {
  const int rank = world_rank();
  char *buf = xmalloc(bytes + 4096);
  MPI_Status status;
  MPI_Request request;
  /* 1. */
  CHECK_MPI(MPI_Irecv(buf, (int)bytes, MPI_BYTE, peer, kTagLarge, MPI_COMM_WORLD, &request));
  barrier();
  CHECK_MPI(MPI_Wait(&request, &status));
  CHECK_STATUS(status, peer, kTagLarge, MPI_BYTE, bytes);
  CHECK_PATTERN(buf, bytes, msg_seed(peer, rank, bytes), "posted MPI_Irecv");
  barrier();
  CHECK_MPI(MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, kTagLarge, MPI_COMM_WORLD, &status));
  CHECK_STATUS(status, peer, kTagLarge, MPI_BYTE, bytes);
  CHECK_PATTERN(buf, bytes, msg_seed(peer, rank, bytes + 1), "MPI_Recv");
  /* 2. */
  char *first = xmalloc(bytes);
  MPI_Request two[2];
  MPI_Status statuses[2];
  CHECK_MPI(MPI_Irecv(first, (int)bytes, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &two[0]));
  CHECK_MPI(MPI_Irecv(buf, (int)bytes, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &two[1]));
  barrier();
  CHECK_MPI(MPI_Waitall(2, two, statuses));
  CHECK_STATUS(statuses[0], peer, kTagSmall, MPI_BYTE, 100);
  CHECK_PATTERN(first, 100, msg_seed(peer, rank, 100), "small message first");
  CHECK_STATUS(statuses[1], peer, kTagLarge, MPI_BYTE, bytes);
  CHECK_PATTERN(buf, bytes, msg_seed(peer, rank, bytes + 2), "large message second");
  free(first);
  /* 3. Every other double of a buffer twice the message's size. */
  size_t count = bytes / sizeof(double) / 2;
  double *strided = xmalloc(2 * count * sizeof(double));
  for (size_t i = 0; i < 2 * count; ++i) strided[i] = -1;
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector((int)count, 1, 2, MPI_DOUBLE, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  CHECK_MPI(MPI_Irecv(strided, 1, every_other, peer, kTagLarge, MPI_COMM_WORLD, &request));
  barrier();
  CHECK_MPI(MPI_Wait(&request, &status));
  CHECK_STATUS(status, peer, kTagLarge, MPI_DOUBLE, count);
  for (size_t i = 0; i < count; ++i) {
    CHECK(strided[2 * i] == (double)i + peer, "strided element %zu is %g", i, strided[2 * i]);
    CHECK(strided[2 * i + 1] == -1, "gap %zu was written", i);
  }
  CHECK_MPI(MPI_Type_free(&every_other));
  free(strided);
  /* 4. */
  CHECK_MPI(MPI_Irecv(buf, (int)bytes, MPI_BYTE, MPI_ANY_SOURCE, kTagLarge, MPI_COMM_WORLD,
                      &request));
  barrier();
  CHECK_MPI(MPI_Wait(&request, &status));
  CHECK_STATUS(status, peer, kTagLarge, MPI_BYTE, bytes);
  CHECK_PATTERN(buf, bytes, msg_seed(peer, rank, bytes + 3), "MPI_ANY_SOURCE");
  /* 5. */
  CHECK_MPI(MPI_Irecv(buf, (int)bytes + 4096, MPI_BYTE, peer, kTagLarge, MPI_COMM_WORLD,
                      &request));
  barrier();
  CHECK_MPI(MPI_Wait(&request, &status));
  CHECK_STATUS(status, peer, kTagLarge, MPI_BYTE, bytes);
  CHECK_PATTERN(buf, bytes, msg_seed(peer, rank, bytes + 4), "larger receive");
  /* 6. */
  MPI_Request requests[kWindow];
  char *window = xmalloc(bytes * kWindow);
  for (int k = 0; k < kWindow; ++k)
    CHECK_MPI(MPI_Irecv(window + k * bytes, (int)bytes, MPI_BYTE, peer, kTagLarge,
                        MPI_COMM_WORLD, &requests[k]));
  barrier();
  CHECK_MPI(MPI_Waitall(kWindow, requests, MPI_STATUSES_IGNORE));
  for (int k = 0; k < kWindow; ++k)
    CHECK_PATTERN(window + k * bytes, bytes, msg_seed(peer, rank, bytes + 10 + k), "window");
  free(window);
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  size_t bytes = (size_t)arg_ll(argc, argv, "--bytes", 1 << 20);
  const int rank = world_rank(), size = world_size();
  int peer = rank % 2 == 0 ? rank + 1 : rank - 1;
  if (peer >= size) {
    for (int k = 0; k < 7; ++k) barrier();  /* the odd one out */
  } else if (rank % 2 == 0) {
    sender(peer, bytes);
  } else {
    receiver(peer, bytes);
  }
  MPI_Finalize();
  if (rank == 0) printf("posted_first: %zu-byte messages into posted receives: ok\n", bytes);
  return 0;
}
