/*
 * barrier: nobody leaves MPI_Barrier before everybody has entered it.
 *
 * In each round one rank is late: before entering the barrier it waits
 * ~20 ms while polling MPI_Iprobe for a "left the barrier" message. Every
 * other rank enters at once and, on leaving, sends that message to the late
 * rank. If the barrier let anyone out early, the late rank sees the message
 * before it has entered. After the barrier it must receive exactly one such
 * message from every other rank.
 *
 * The late rank is every rank for up to 8 ranks, else 0, 1, size/2 and the
 * last. Between rounds, 100 back-to-back barriers check that consecutive
 * barriers are kept apart.
 */
#include <time.h>

#include "check.h"

enum { kLeftTag = 50 };

static void late_round(int late, int rank, int size, int round) {
  const int tag = kLeftTag + round;
  if (rank != late) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(&rank, 1, MPI_INT, late, tag, MPI_COMM_WORLD);
    return;
  }
  const double until = MPI_Wtime() + 0.02;
  do {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
    CHECK(!flag, "round %d: rank %d left the barrier before rank %d entered",
          round, st.MPI_SOURCE, late);
    struct timespec pause = {0, 1000 * 1000};
    nanosleep(&pause, NULL);
  } while (MPI_Wtime() < until);
  MPI_Barrier(MPI_COMM_WORLD);
  int *seen = calloc((size_t)size, sizeof(int));
  for (int n = 0; n < size - 1; ++n) {
    int who = -1;
    MPI_Status st;
    MPI_Recv(&who, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
    CHECK(who == st.MPI_SOURCE && who >= 0 && who < size && who != late &&
              !seen[who],
          "round %d: unexpected 'left' message from %d (says %d)", round,
          st.MPI_SOURCE, who);
    seen[who] = 1;
  }
  free(seen);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int some[] = {0, 1, size / 2, size - 1};
  const int rounds = size <= 8 ? size : 4;
  for (int round = 0; round < rounds; ++round) {
    late_round(size <= 8 ? round : some[round], rank, size, round);
    for (int i = 0; i < 100; ++i) MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
