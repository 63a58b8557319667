/*
 * pingpong -- round trip between ranks 0 and 1: 8 bytes, or each of the
 * sizes given (multiples of 8, k/m suffixes, comma-separated).
 *
 * Every other rank only takes part in the barriers and reductions of the
 * timing harness, so under BDMPI with -nr 1 it stays blocked in a collective
 * and each round trip costs two slave switches plus two messages.
 *
 * BENCH_THREAD_LEVEL=single|funneled|serialized|multiple asks MPI_Init_thread
 * for that level (default: MPI_Init), and BENCH_IDLE_THREAD=1 keeps a second
 * thread waiting on a condition variable in every rank meanwhile (at
 * MULTIPLE, a rank with other threads polls where it would wait:
 * bench/run_threads_bench.sh).
 *
 * Usage:  pingpong [BYTES[,BYTES...]]
 * Output: BENCH pingpong <bytes> <seconds per round trip>
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

enum { kTag = 17 };

struct large {
  int rank;
  long elements;
  double *buf;
};

/* The same exchange with a buffer of doubles, checked at sampled elements
 * (bench_stamp/bench_check): each side stamps what it sends. */
static void large_round_trip(void *ctx, long iter) {
  struct large *l = ctx;
  double out = (double)(2 * iter + 1) * BENCH_SEQ, back = out + BENCH_SEQ;
  int peer = 1 - l->rank;
  if (l->rank > 1) return;
  if (l->rank == 0) {
    bench_stamp(l->buf, l->elements, out);
    BENCH_MPI(MPI_Send(l->buf, (int)l->elements, MPI_DOUBLE, peer, kTag, MPI_COMM_WORLD));
    bench_poison(l->buf, l->elements);
    BENCH_MPI(MPI_Recv(l->buf, (int)l->elements, MPI_DOUBLE, peer, kTag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    bench_check(l->buf, l->elements, back, 1.0, "pingpong reply");
  } else {
    bench_poison(l->buf, l->elements);
    BENCH_MPI(MPI_Recv(l->buf, (int)l->elements, MPI_DOUBLE, peer, kTag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    bench_check(l->buf, l->elements, out, 1.0, "pingpong request");
    bench_stamp(l->buf, l->elements, back);
    BENCH_MPI(MPI_Send(l->buf, (int)l->elements, MPI_DOUBLE, peer, kTag, MPI_COMM_WORLD));
  }
}

static void round_trip(void *ctx, long iter) {
  int rank = *(const int *)ctx;
  long long expect = 2 * (long long)iter, msg;
  if (rank == 0) {
    msg = expect;
    BENCH_MPI(MPI_Send(&msg, 1, MPI_LONG_LONG, 1, kTag, MPI_COMM_WORLD));
    BENCH_MPI(MPI_Recv(&msg, 1, MPI_LONG_LONG, 1, kTag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    if (msg != expect + 1)
      bench_fail("pingpong reply %lld, expected %lld", msg, expect + 1);
  } else if (rank == 1) {
    msg = -1;
    BENCH_MPI(MPI_Recv(&msg, 1, MPI_LONG_LONG, 0, kTag, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE));
    if (msg != expect)
      bench_fail("pingpong request %lld, expected %lld", msg, expect);
    ++msg;
    BENCH_MPI(MPI_Send(&msg, 1, MPI_LONG_LONG, 0, kTag, MPI_COMM_WORLD));
  }
}

static void run_size(int rank, long bytes) {
  if (bytes == 8) {
    bench_run("pingpong", 8, round_trip, &rank, 1000, 10000, 5);
    return;
  }
  struct large l = {rank, bytes / (long)sizeof(double), bench_alloc((size_t)bytes)};
  memset(l.buf, 0, (size_t)bytes);
  long reps = bytes <= (64L << 10) ? 1000 : 100;
  bench_run("pingpong", bytes, large_round_trip, &l, reps / 10, reps, 5);
  free(l.buf);
}

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cond = PTHREAD_COND_INITIALIZER;
static int idle_done;

static void *idle_thread(void *unused) {
  (void)unused;
  pthread_mutex_lock(&idle_lock);
  while (!idle_done) pthread_cond_wait(&idle_cond, &idle_lock);
  pthread_mutex_unlock(&idle_lock);
  return NULL;
}

static void init(int *argc, char ***argv) {
  const char *level = getenv("BENCH_THREAD_LEVEL");
  if (level == NULL || *level == '\0') {
    BENCH_MPI(MPI_Init(argc, argv));
    return;
  }
  static const char *names[] = {"single", "funneled", "serialized", "multiple"};
  static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                               MPI_THREAD_MULTIPLE};
  int want = -1, provided = -1;
  for (int i = 0; i < 4; ++i)
    if (strcmp(level, names[i]) == 0) want = levels[i];
  if (want < 0) bench_fail("BENCH_THREAD_LEVEL=%s is no thread level", level);
  BENCH_MPI(MPI_Init_thread(argc, argv, want, &provided));
  if (provided != want) bench_fail("MPI_Init_thread provided %d, want %d", provided, want);
}

int main(int argc, char **argv) {
  init(&argc, &argv);
  const char *idle = getenv("BENCH_IDLE_THREAD");
  pthread_t idler;
  int idling = idle != NULL && strcmp(idle, "1") == 0;
  if (idling && pthread_create(&idler, NULL, idle_thread, NULL) != 0)
    bench_fail("pthread_create");
  if (bench_size() < 2) bench_fail("pingpong needs at least 2 ranks");
  int rank = bench_rank();
  enum { kMaxSizes = 32 };
  long sizes[kMaxSizes] = {8};
  int nsizes = argc > 1 ? bench_parse_sizes(argv[1], sizes, kMaxSizes) : 1;
  for (int p = 0; p < nsizes; ++p) run_size(rank, sizes[p]);
  if (idling) {
    pthread_mutex_lock(&idle_lock);
    idle_done = 1;
    pthread_cond_signal(&idle_cond);
    pthread_mutex_unlock(&idle_lock);
    pthread_join(idler, NULL);
  }
  BENCH_MPI(MPI_Finalize());
  return 0;
}
