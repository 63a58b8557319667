/*
 * send_then_compute: a send reaches a running receiver while the sender
 * computes, without waiting for the sender's next MPI call.
 *
 * Rank 0 sends to rank 1 and then computes for 2 s without calling MPI;
 * rank 1 notes when its receive returned. With -nr > 1 both run at once, so
 * the message must arrive during the computation: the master holds the
 * receiver back only briefly, hoping to hand over the sender's core, and the
 * sender must not defer its post (as it may with -nr 1, where the receiver
 * cannot run before the sender blocks anyway). Ranks share one node here, so
 * CLOCK_MONOTONIC is one clock for both.
 */
#include <time.h>

#include "check.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank();
  const double compute = 2.0;
  int value = 42;
  double sent = 0, received = 0;
  if (rank == 0) {
    sent = now();
    CHECK_MPI(MPI_Send(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD));
    volatile unsigned long spin = 0;
    while (now() - sent < compute) ++spin;
    CHECK_MPI(MPI_Recv(&received, 1, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(received - sent < compute / 2,
          "rank 1 got the message %.3f s after it was sent, while rank 0 computed "
          "for %.1f s without calling MPI: the send waited for the sender's next call",
          received - sent, compute);
  } else if (rank == 1) {
    int got = 0;
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    received = now();
    CHECK(got == 42, "rank 1 received %d, expected 42", got);
    CHECK_MPI(MPI_Send(&received, 1, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Finalize();
  return 0;
}
