/*
 * check.h -- the checking helpers shared by the job-test programs.
 *
 * Every program in this folder is a plain MPI program (standard <mpi.h> only)
 * that checks its own results. It is built twice: against Open MPI, to prove
 * the program itself is right, and against libbdmpi, to test our runtime. A
 * failed check prints one line naming rank, file, line and what differed, and
 * then aborts the whole job, so that a failure can never look like a pass.
 */
#ifndef BDMPI_JOBS_CHECK_H
#define BDMPI_JOBS_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Message sizes that straddle the thresholds a runtime is likely to switch
 * protocols at: 4 KiB (one page: the BDMPI paper's memory/disk threshold,
 * Open MPI's shared-memory eager limit) and 64 KiB (our default
 * --mem-threshold, Open MPI's TCP eager limit). 1 MiB is a large message. */
static const size_t kThresholdSizes[] = {
    0, 1, 4095, 4096, 4097, 65535, 65536, 65537, 1 << 20,
};
enum {
  kNumThresholdSizes = sizeof(kThresholdSizes) / sizeof(kThresholdSizes[0])
};

static inline int world_rank(void) {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

static inline int world_size(void) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

/* This rank's rank in, and the size of, a communicator (-1 on error). */
static inline int rank_in(MPI_Comm comm) {
  int rank = -1;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

static inline int size_of(MPI_Comm comm) {
  int size = -1;
  MPI_Comm_size(comm, &size);
  return size;
}

/* Prints "rank R: file:line: message" to stderr and aborts the job. Not
 * exit(): the other ranks may be blocked waiting for this one. */
static inline void check_fail(const char *file, int line, const char *fmt,
                              ...) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  int rank = (initialized && !finalized) ? world_rank() : -1;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", rank, file, line, msg);
  fflush(stderr);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

/* CHECK(cond, "fmt", args...): the message should show the values that
 * differed, e.g. CHECK(n == 4, "count %d, want 4", n). */
#define CHECK(cond, ...)                                      \
  do {                                                        \
    if (!(cond)) check_fail(__FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

/* Text of an error code, for messages; never fails. */
static inline const char *error_text(int code, char buf[MPI_MAX_ERROR_STRING]) {
  int len = 0;
  if (MPI_Error_string(code, buf, &len) != MPI_SUCCESS) {
    snprintf(buf, MPI_MAX_ERROR_STRING, "(no string for code %d)", code);
  }
  return buf;
}

/* Class of an error code as returned by a call (MPI_Error_class maps an
 * implementation's code, which may carry extra bits, to its class). */
static inline int error_class_of(int code) {
  int cls = -1;
  if (MPI_Error_class(code, &cls) != MPI_SUCCESS) return -1;
  return cls;
}

/* CHECK_MPI(call): the call must succeed. Meaningful when the errors-return
 * handler is set; under errors-are-fatal a failure never returns anyway. */
#define CHECK_MPI(call)                                                      \
  do {                                                                       \
    int check_rc_ = (call);                                                  \
    char check_buf_[MPI_MAX_ERROR_STRING];                                   \
    CHECK(check_rc_ == MPI_SUCCESS, "%s returned %d (%s)", #call, check_rc_, \
          error_text(check_rc_, check_buf_));                                \
  } while (0)

/* CHECK_CLASS(call, MPI_ERR_x): the call must fail with that error class. */
#define CHECK_CLASS(call, want)                                            \
  do {                                                                     \
    int check_rc_ = (call);                                                \
    int check_cls_ = error_class_of(check_rc_);                            \
    char check_buf_[MPI_MAX_ERROR_STRING];                                 \
    CHECK(check_rc_ != MPI_SUCCESS && check_cls_ == (want),                \
          "%s returned %d, class %d (%s); want class %s = %d", #call,      \
          check_rc_, check_cls_, error_text(check_rc_, check_buf_), #want, \
          (want));                                                         \
  } while (0)

static inline void *xmalloc(size_t bytes) {
  /* malloc(0) may return NULL; a zero-byte message still needs a pointer. */
  void *p = malloc(bytes ? bytes : 1);
  CHECK(p != NULL, "malloc(%zu) failed", bytes);
  return p;
}

/* A byte pattern that differs per (seed, offset), so that a message from
 * the wrong sender, a shifted copy or a stale buffer all show up. */
static inline unsigned char pattern_byte(uint64_t seed, size_t i) {
  uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return (unsigned char)(x ^ (x >> 8));
}

static inline void fill_pattern(void *buf, size_t bytes, uint64_t seed) {
  unsigned char *p = (unsigned char *)buf;
  for (size_t i = 0; i < bytes; ++i) p[i] = pattern_byte(seed, i);
}

/* Returns the index of the first wrong byte, or bytes when all match. */
static inline size_t first_mismatch(const void *buf, size_t bytes,
                                    uint64_t seed) {
  const unsigned char *p = (const unsigned char *)buf;
  for (size_t i = 0; i < bytes; ++i) {
    if (p[i] != pattern_byte(seed, i)) return i;
  }
  return bytes;
}

#define CHECK_PATTERN(buf, bytes, seed, what)                                 \
  do {                                                                        \
    size_t check_at_ = first_mismatch((buf), (bytes), (seed));                \
    CHECK(check_at_ == (size_t)(bytes),                                       \
          "%s: %zu-byte buffer differs from the pattern at byte %zu", (what), \
          (size_t)(bytes), check_at_);                                        \
  } while (0)

/* Seed of the message src sends to dst with a given size, so that the
 * receiver can recompute what it should have got. */
static inline uint64_t msg_seed(int src, int dst, size_t bytes) {
  return ((uint64_t)src << 40) ^ ((uint64_t)dst << 20) ^ (uint64_t)bytes;
}

/* The value of "--name N" on the command line, or def if absent. */
static inline long long arg_ll(int argc, char **argv, const char *name,
                               long long def) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (strcmp(argv[i], name) == 0) return atoll(argv[i + 1]);
  }
  return def;
}

/* How many of kThresholdSizes (ascending) are at most "--max-bytes N"
 * (default: all), so a test can loop over s < threshold_sizes(...). */
static inline int threshold_sizes(int argc, char **argv) {
  const long long max = arg_ll(argc, argv, "--max-bytes", -1);
  int n = 0;
  while (n < kNumThresholdSizes &&
         (max < 0 || kThresholdSizes[n] <= (unsigned long long)max)) {
    ++n;
  }
  return n;
}

/* Whether the flag "--name" is on the command line. */
static inline int arg_flag(int argc, char **argv, const char *name) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], name) == 0) return 1;
  }
  return 0;
}

/* The status fields every receive test looks at. */
#define CHECK_STATUS(st, src, tag, datatype, count)                        \
  do {                                                                     \
    int check_n_ = -1;                                                     \
    MPI_Get_count(&(st), (datatype), &check_n_);                           \
    CHECK((st).MPI_SOURCE == (src) && (st).MPI_TAG == (tag) &&             \
              check_n_ == (int)(count),                                    \
          "status (source %d, tag %d, count %d), want (%d, %d, %d)",       \
          (st).MPI_SOURCE, (st).MPI_TAG, check_n_, (int)(src), (int)(tag), \
          (int)(count));                                                   \
  } while (0)

/* ---- For the expected-failure programs (fail_*.c).
 *
 * One rank fails on purpose after a barrier while the others wait for a
 * message from it. If the failure did not end the job, the failing rank
 * releases them and everybody exits 0, so the test (which expects a
 * failure) reports it; nobody hangs. Their messages never say "rank N",
 * so a runner can check that the runtime itself named the failing rank. */

enum { kReleaseTag = 4242 };

/* The failing rank: "--rank R" (default: the last rank). */
static inline int failing_rank(int argc, char **argv) {
  const int size = world_size();
  const long long r = arg_ll(argc, argv, "--rank", size - 1);
  CHECK(r >= 0 && r < size, "--rank %lld is not a rank of %d", r, size);
  return (int)r;
}

/* After a barrier, returns 1 on the rank that is to fail; the others block
 * until the failure ends the job (or the failing rank releases them) and
 * then return 0. */
static inline int is_failing_rank(int argc, char **argv) {
  const int failing = failing_rank(argc, argv);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == failing) return 1;
  int dummy = 0;
  MPI_Recv(&dummy, 1, MPI_INT, failing, kReleaseTag, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  return 0;
}

/* Called by the failing rank when it is still alive against expectation. */
static inline void survived_failure(const char *prog, const char *what) {
  fprintf(stderr, "%s: %s did not end the job; exiting 0 so the test fails\n",
          prog, what);
  int dummy = 0;
  for (int r = 0; r < world_size(); ++r) {
    if (r != world_rank()) {
      MPI_Send(&dummy, 1, MPI_INT, r, kReleaseTag, MPI_COMM_WORLD);
    }
  }
}

#endif /* BDMPI_JOBS_CHECK_H */
