/*
 * rma_random.c -- a window far larger than memory, touched at random by
 * passive-target gets and accumulates from the other ranks. Every rank
 * gives --bytes of its memory (MPI_Win_create over malloc'd memory, or
 * MPI_Win_allocate with --allocate); with a small --node-memory the
 * targets are switched out and written back while the others reach into
 * them. The first half of each window is only read (every get checks the
 * value its owner wrote), the second half only accumulated into (MPI_SUM
 * of 1 on 64-bit words); at the end every rank checks its second half
 * against a replay of every origin's random choices.
 * --expect-storage (BDMPI): MPI_Win_allocate's memory is storage-backed,
 * counted in the rank's bdmpi_storage_bytes (and so in the node's budget).
 */
#include "check.h"

static uint64_t next_random(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return *state >> 17;
}

/* bdmpi_storage_bytes: the rank's storage-backed bytes now. */
static unsigned long long storage_bytes(void) {
  int index = -1, count = 0;
  unsigned long long value = 0;
  MPI_T_pvar_session session;
  MPI_T_pvar_handle handle;
  CHECK_MPI(MPI_T_pvar_get_index("bdmpi_storage_bytes", MPI_T_PVAR_CLASS_LEVEL, &index));
  CHECK_MPI(MPI_T_pvar_session_create(&session));
  CHECK_MPI(MPI_T_pvar_handle_alloc(session, index, NULL, &handle, &count));
  CHECK_MPI(MPI_T_pvar_read(session, handle, &value));
  CHECK_MPI(MPI_T_pvar_handle_free(session, &handle));
  CHECK_MPI(MPI_T_pvar_session_free(&session));
  return value;
}

static int64_t initial(int rank, uint64_t i) { return (int64_t)rank * 1000000007ll + (int64_t)i; }

/* Origin `origin`'s k-th choice: a target other than itself, a word, and
 * whether it is a get (first half) or an accumulate (second half). */
typedef struct {
  int target;
  uint64_t word;
  int get;
} Choice;

static Choice choose(uint64_t *state, int origin, int size, uint64_t words) {
  Choice c;
  c.target = (origin + 1 + (int)(next_random(state) % (uint64_t)(size - 1))) % size;
  c.get = (int)(next_random(state) & 1);
  uint64_t half = words / 2;
  c.word = (c.get ? 0 : half) + next_random(state) % half;
  return c;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  size_t bytes = (size_t)arg_ll(argc, argv, "--bytes", 1 << 20);
  int ops = (int)arg_ll(argc, argv, "--ops", 2000);
  int allocate = arg_flag(argc, argv, "--allocate");
  int expect_storage = arg_flag(argc, argv, "--expect-storage");
  int provided = 0;
  if (expect_storage) CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  int rank = world_rank(), size = world_size();
  uint64_t words = bytes / sizeof(int64_t);
  CHECK(size > 1 && words >= 2, "needs two ranks and 16 bytes");
  int64_t *mem = NULL;
  MPI_Win win;
  if (allocate) {
    CHECK_MPI(MPI_Win_allocate((MPI_Aint)bytes, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                               &mem, &win));
  } else {
    mem = xmalloc(bytes);
    CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)bytes, sizeof(int64_t), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &win));
  }
  if (expect_storage) {
    unsigned long long now = storage_bytes();
    CHECK(now >= bytes, "the window's %zu bytes are not storage-backed: bdmpi_storage_bytes %llu",
          bytes, now);
  }
  for (uint64_t i = 0; i < words; ++i) mem[i] = i < words / 2 ? initial(rank, i) : 0;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  uint64_t state = 12345 + (uint64_t)rank;
  int64_t one = 1;
  for (int k = 0; k < ops; ++k) {
    Choice c = choose(&state, rank, size, words);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, c.target, 0, win));
    if (c.get) {
      int64_t got = -1;
      CHECK_MPI(MPI_Get(&got, 1, MPI_INT64_T, c.target, (MPI_Aint)c.word, 1, MPI_INT64_T, win));
      CHECK_MPI(MPI_Win_unlock(c.target, win));
      CHECK(got == initial(c.target, c.word), "get %d of rank %d word %llu: %lld, want %lld", k,
            c.target, (unsigned long long)c.word, (long long)got,
            (long long)initial(c.target, c.word));
    } else {
      CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT64_T, c.target, (MPI_Aint)c.word, 1, MPI_INT64_T,
                               MPI_SUM, win));
      CHECK_MPI(MPI_Win_unlock(c.target, win));
    }
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Replay everyone's choices: how many accumulates hit this rank, and
   * a checksum of where. */
  uint64_t want_count = 0, want_sum = 0;
  for (int origin = 0; origin < size; ++origin) {
    if (origin == rank) continue;
    uint64_t s = 12345 + (uint64_t)origin;
    for (int k = 0; k < ops; ++k) {
      Choice c = choose(&s, origin, size, words);
      if (c.target != rank || c.get) continue;
      ++want_count;
      want_sum += (c.word + 1) * 2654435761ull;
    }
  }
  uint64_t count = 0, sum = 0;
  for (uint64_t i = 0; i < words; ++i) {
    if (i < words / 2) {
      CHECK(mem[i] == initial(rank, i), "word %llu was overwritten", (unsigned long long)i);
      continue;
    }
    count += (uint64_t)mem[i];
    sum += (uint64_t)mem[i] * (i + 1) * 2654435761ull;
  }
  CHECK(count == want_count && sum == want_sum, "accumulates: %llu landed, want %llu (%s)",
        (unsigned long long)count, (unsigned long long)want_count,
        sum == want_sum ? "same places" : "in other places");
  CHECK_MPI(MPI_Win_free(&win));
  if (!allocate) free(mem);
  MPI_Barrier(MPI_COMM_WORLD);
  if (expect_storage) CHECK_MPI(MPI_T_finalize());
  if (rank == 0) printf("rma_random: OK\n");
  MPI_Finalize();
  return 0;
}
