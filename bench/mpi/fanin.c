/*
 * fanin -- many small messages through one rank: each round, rank 0 receives
 * a 12-byte message from every other rank (in rank order), then sends one
 * back to each.  The others send, then wait for rank 0's answer.
 *
 * Under BDMPI this is a stream of hand-overs between slaves: with -nr 1 every
 * message switches slaves, with -nr > 1 ranks wake each other across cores.
 * The messages carry the round and the sender so that a lost, duplicated or
 * reordered message fails the run.
 *
 * With --isend N (MPICH's sendflood's pattern): each other rank starts N
 * MPI_Isend of 12 bytes to rank 0 and waits for them; rank 0 takes the
 * N x (ranks - 1) messages with MPI_ANY_SOURCE, checking each sender's
 * order, then answers each rank once.
 *
 * Output: BENCH fanin <ranks> <seconds per round>, or with --isend N
 *         BENCH isendflood <ranks> <seconds per round>
 */
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

enum { kTag = 23, kWords = 3 };

static void round_of_messages(void *ctx, long iter) {
  int rank = *(const int *)ctx, size = bench_size();
  int msg[kWords];
  if (rank == 0) {
    for (int peer = 1; peer < size; ++peer) {
      BENCH_MPI(MPI_Recv(msg, kWords, MPI_INT, peer, kTag, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
      if (msg[0] != (int)iter || msg[1] != peer)
        bench_fail("round %ld: got round %d from %d, expected rank %d", iter,
                   msg[0], msg[1], peer);
    }
    for (int peer = 1; peer < size; ++peer) {
      msg[0] = (int)iter;
      msg[1] = 0;
      msg[2] = peer;
      BENCH_MPI(MPI_Send(msg, kWords, MPI_INT, peer, kTag, MPI_COMM_WORLD));
    }
  } else {
    msg[0] = (int)iter;
    msg[1] = rank;
    msg[2] = 0;
    BENCH_MPI(MPI_Send(msg, kWords, MPI_INT, 0, kTag, MPI_COMM_WORLD));
    BENCH_MPI(MPI_Recv(msg, kWords, MPI_INT, 0, kTag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    if (msg[0] != (int)iter || msg[2] != rank)
      bench_fail("round %ld: answer for round %d, rank %d", iter, msg[0],
                 msg[2]);
  }
}

enum { kMaxFlood = 1024 };
static long flood_ = 0;

static void flood_round(void *ctx, long iter) {
  int rank = *(const int *)ctx, size = bench_size();
  int msg[kWords];
  if (rank == 0) {
    static int next[kMaxFlood];  /* per sender: the message it sends next */
    memset(next, 0, sizeof next);
    for (long k = 0; k < flood_ * (size - 1); ++k) {
      MPI_Status status;
      BENCH_MPI(MPI_Recv(msg, kWords, MPI_INT, MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &status));
      int peer = status.MPI_SOURCE;
      if (msg[0] != (int)iter || msg[1] != peer || msg[2] != next[peer])
        bench_fail("round %ld: from %d got round %d rank %d message %d, expected %d", iter, peer,
                   msg[0], msg[1], msg[2], next[peer]);
      ++next[peer];
    }
    for (int peer = 1; peer < size; ++peer) {
      msg[0] = (int)iter;
      msg[1] = 0;
      msg[2] = peer;
      BENCH_MPI(MPI_Send(msg, kWords, MPI_INT, peer, kTag, MPI_COMM_WORLD));
    }
  } else {
    static int out[kMaxFlood][kWords];
    static MPI_Request requests[kMaxFlood];
    for (long k = 0; k < flood_; ++k) {
      out[k][0] = (int)iter;
      out[k][1] = rank;
      out[k][2] = (int)k;
      BENCH_MPI(MPI_Isend(out[k], kWords, MPI_INT, 0, kTag, MPI_COMM_WORLD, &requests[k]));
    }
    BENCH_MPI(MPI_Waitall((int)flood_, requests, MPI_STATUSES_IGNORE));
    BENCH_MPI(MPI_Recv(msg, kWords, MPI_INT, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (msg[0] != (int)iter || msg[2] != rank)
      bench_fail("round %ld: answer for round %d, rank %d", iter, msg[0], msg[2]);
  }
}

int main(int argc, char **argv) {
  BENCH_MPI(MPI_Init(&argc, &argv));
  if (bench_size() < 2) bench_fail("fanin needs at least 2 ranks");
  int rank = bench_rank();
  if (argc > 2 && strcmp(argv[1], "--isend") == 0) {
    flood_ = atol(argv[2]);
    if (flood_ < 1 || flood_ > kMaxFlood || bench_size() > kMaxFlood)
      bench_fail("--isend takes 1 to %d messages, on at most %d ranks", kMaxFlood, kMaxFlood);
    bench_run("isendflood", bench_size(), flood_round, &rank, 10, 200, 5);
    BENCH_MPI(MPI_Finalize());
    return 0;
  }
  bench_run("fanin", bench_size(), round_of_messages, &rank, 100, 2000, 5);
  BENCH_MPI(MPI_Finalize());
  return 0;
}
