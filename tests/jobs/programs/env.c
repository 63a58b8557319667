/*
 * env: the environment calls around a job's life.
 *
 * Checks MPI_Initialized / MPI_Finalized before, during and after the job,
 * the thread level granted by MPI_Init_thread (run with "--thread" to use it
 * instead of MPI_Init), size and rank, the processor name, that MPI_Wtime
 * never goes back and advances across a sleep, and that MPI_Wtick > 0.
 */
#include <time.h>

#include "check.h"

static void check_flags(int want_initialized, int want_finalized,
                        const char *when) {
  int initialized = -1, finalized = -1;
  /* These two may be called at any time, even before MPI_Init. */
  if (MPI_Initialized(&initialized) != MPI_SUCCESS ||
      MPI_Finalized(&finalized) != MPI_SUCCESS ||
      initialized != want_initialized || finalized != want_finalized) {
    fprintf(stderr, "env: %s: initialized %d finalized %d, want %d %d\n", when,
            initialized, finalized, want_initialized, want_finalized);
    exit(1);
  }
}

int main(int argc, char **argv) {
  check_flags(0, 0, "before init");
  if (arg_flag(argc, argv, "--thread")) {
    int provided = -1;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    /* A runtime that supports FUNNELED must grant at least that much. */
    CHECK(provided >= MPI_THREAD_FUNNELED && provided <= MPI_THREAD_MULTIPLE,
          "MPI_Init_thread(FUNNELED) provided %d", provided);
  } else {
    CHECK_MPI(MPI_Init(&argc, &argv));
  }
  check_flags(1, 0, "after init");

  int size = -1, rank = -1;
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK(size >= 1, "size %d", size);
  CHECK(rank >= 0 && rank < size, "rank %d of %d", rank, size);
  /* Every rank must agree on the size, and the ranks must be 0..size-1
   * without duplicates: the sum of ranks is checked too. */
  int sizes[2] = {size, -size}, ext[2];
  CHECK_MPI(MPI_Allreduce(sizes, ext, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(ext[0] == size && -ext[1] == size, "sizes differ: %d..%d", -ext[1],
        ext[0]);
  long long rank_sum = rank, want_sum = (long long)size * (size - 1) / 2;
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &rank_sum, 1, MPI_LONG_LONG, MPI_SUM,
                          MPI_COMM_WORLD));
  CHECK(rank_sum == want_sum, "ranks sum to %lld, want %lld", rank_sum,
        want_sum);

  char name[MPI_MAX_PROCESSOR_NAME];
  int len = -1;
  memset(name, 'X', sizeof name);
  CHECK_MPI(MPI_Get_processor_name(name, &len));
  CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "processor name length %d",
        len);
  CHECK(name[len] == '\0' && strlen(name) == (size_t)len,
        "processor name not terminated at its length %d", len);

  double tick = MPI_Wtick();
  CHECK(tick > 0 && tick < 1, "MPI_Wtick() = %g", tick);
  double start = MPI_Wtime(), prev = start;
  for (int i = 0; i < 100000; ++i) {
    double now = MPI_Wtime();
    CHECK(now >= prev, "MPI_Wtime went back from %.9f to %.9f", prev, now);
    prev = now;
  }
  struct timespec pause = {0, 20 * 1000 * 1000};
  nanosleep(&pause, NULL);
  double slept = MPI_Wtime() - start;
  /* Generous bounds: the machine is shared and ranks may be descheduled. */
  CHECK(slept >= 0.019 && slept < 600, "20 ms sleep measured as %g s", slept);

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Finalize());
  check_flags(1, 1, "after finalize");
  return 0;
}
