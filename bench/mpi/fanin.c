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
 * Output: BENCH fanin <ranks> <seconds per round>
 */
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

int main(int argc, char **argv) {
  BENCH_MPI(MPI_Init(&argc, &argv));
  if (bench_size() < 2) bench_fail("fanin needs at least 2 ranks");
  int rank = bench_rank();
  bench_run("fanin", bench_size(), round_of_messages, &rank, 100, 2000, 5);
  BENCH_MPI(MPI_Finalize());
  return 0;
}
