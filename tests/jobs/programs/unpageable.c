/*
 * unpageable: ranks that hold memory a runtime cannot page out (an
 * anonymous mmap of their own, touched) next to ordinary large arrays
 * (malloc), or one rank that allocates without bound.
 *
 * Usage: unpageable [--mmap-mib U] [--mib S] [--steps N] [--compute-ms C]
 *                   [--hog-cap-mib H] [--crash-step K]
 *   Each rank maps U MiB (default 8) with mmap(MAP_PRIVATE|MAP_ANONYMOUS)
 *   and mallocs S MiB (default 4), fills both with a pattern, and then for
 *   N steps (default 4) computes for about C ms (default 20) over its
 *   arrays, rewrites half of the malloc'ed one, and checks both in a
 *   ring Sendrecv and an Allreduce of a checksum. Under BDMPI the malloc'ed
 *   array is storage-backed (switched out while the rank waits) and the
 *   mapping is not.
 *   With --hog-cap-mib H the last rank instead maps and touches 1 MiB at
 *   a time without end while the others wait in a barrier: a memory limit
 *   must stop it (the kernel's OOM killer). Past H MiB it aborts with a
 *   message saying that no limit stopped it, so that the program cannot
 *   eat a machine that has no limit.
 *   With --crash-step K the last rank raises SIGSEGV at step K, after its
 *   computation, while the others wait for it in the ring: a failure after
 *   the ranks have been switched out and read back.
 */
#include <signal.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <time.h>

#include "check.h"

static uint64_t pattern(int rank, int array, size_t word, int version) {
  uint64_t x = ((uint64_t)rank << 48) ^ ((uint64_t)array << 40) ^ (uint64_t)word ^
               ((uint64_t)version << 32);
  x ^= x >> 31;
  x *= 0x9e3779b97f4a7c15ull;
  x ^= x >> 29;
  return x;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void hog(size_t cap_mib) {
  for (size_t mib = 1;; ++mib) {
    char *block = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(block != MAP_FAILED, "mmap of 1 MiB failed after %zu MiB", mib);
    memset(block, (int)mib, 1 << 20);
    CHECK(mib < cap_mib, "no memory limit stopped this rank at %zu MiB", mib);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  size_t mmap_mib = 8, mib = 4, hog_cap = 0;
  int steps = 4, crash_step = -1;
  double compute_ms = 20;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--mmap-mib") == 0 && i + 1 < argc) mmap_mib = (size_t)atoi(argv[++i]);
    else if (strcmp(argv[i], "--mib") == 0 && i + 1 < argc) mib = (size_t)atoi(argv[++i]);
    else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) steps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--compute-ms") == 0 && i + 1 < argc) compute_ms = atof(argv[++i]);
    else if (strcmp(argv[i], "--hog-cap-mib") == 0 && i + 1 < argc) hog_cap = (size_t)atoi(argv[++i]);
    else if (strcmp(argv[i], "--crash-step") == 0 && i + 1 < argc) crash_step = atoi(argv[++i]);
  }
  if (hog_cap > 0) {
    if (rank == size - 1) hog(hog_cap);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
  }

  const size_t mapped_words = (mmap_mib << 20) / 8, words = (mib << 20) / 8;
  uint64_t *mapped = NULL;
  if (mapped_words > 0) {
    mapped = mmap(NULL, mapped_words * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                  -1, 0);
    CHECK(mapped != MAP_FAILED, "mmap of %zu MiB failed", mmap_mib);
    for (size_t i = 0; i < mapped_words; ++i) mapped[i] = pattern(rank, 1, i, 0);
  }
  uint64_t *data = xmalloc(words * 8 + 8);
  for (size_t i = 0; i < words; ++i) data[i] = pattern(rank, 2, i, 0);

  uint64_t token[2] = {0, 0}, in[2];
  for (int step = 0; step < steps; ++step) {
    /* Compute: read everything for about compute_ms. */
    double until = now_ms() + compute_ms;
    uint64_t sum = 0;
    do {
      for (size_t i = 0; i < mapped_words; i += 512) sum += mapped[i];
      for (size_t i = 0; i < words; i += 512) sum += data[i];
    } while (now_ms() < until);
    for (size_t i = 0; i < mapped_words; ++i)
      CHECK(mapped[i] == pattern(rank, 1, i, 0), "mapped word %zu changed (step %d)", i, step);
    for (size_t i = 0; i < words; ++i) {
      int version = (i / 512) % 2 == (size_t)step % 2 ? step : (step > 0 ? step - 1 : 0);
      if (step == 0) version = 0;
      CHECK(data[i] == pattern(rank, 2, i, version), "malloc'ed word %zu changed (step %d)", i,
            step);
    }
    /* Half of the malloc'ed pages change: a switch-out has work to do. */
    for (size_t i = 0; i < words; ++i)
      if ((i / 512) % 2 == (size_t)(step + 1) % 2) data[i] = pattern(rank, 2, i, step + 1);
    if (step == crash_step && rank == size - 1) {
      struct rlimit no_core = {0, 0};
      setrlimit(RLIMIT_CORE, &no_core);
      fprintf(stderr, "unpageable: rank %d raises SIGSEGV at step %d on purpose\n", rank, step);
      fflush(stderr);
      raise(SIGSEGV);
    }
    token[0] = (uint64_t)rank;
    token[1] = sum;
    MPI_Sendrecv(token, 2, MPI_UINT64_T, (rank + 1) % size, 7, in, 2, MPI_UINT64_T,
                 (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in[0] == (uint64_t)((rank + size - 1) % size), "ring: got rank %llu",
          (unsigned long long)in[0]);
    uint64_t steps_done = (uint64_t)step + 1, total = 0;
    MPI_Allreduce(&steps_done, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == (uint64_t)size * steps_done, "allreduce: %llu", (unsigned long long)total);
  }
  free(data);
  if (mapped != NULL) munmap(mapped, mapped_words * 8);
  MPI_Finalize();
  return 0;
}
