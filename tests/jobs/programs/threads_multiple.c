/*
 * threads_multiple: MPI_THREAD_MULTIPLE, several threads of each rank in MPI
 * at once. Each part runs its threads, joins them, and checks what they saw:
 *
 *   * init: `provided` is MPI_THREAD_MULTIPLE, MPI_Query_thread agrees,
 *     MPI_Is_thread_main is false in another thread.
 *   * tags: four threads each send K numbered messages to every rank (itself
 *     too) on a communicator of their own and on MPI_COMM_WORLD with a tag
 *     of their own, and receive them in order (MPI's order is per thread):
 *     two with MPI_Recv, two with MPI_Irecv and MPI_Waitall / MPI_Waitany.
 *   * anysource: one thread receives with MPI_ANY_SOURCE while another sends
 *     the messages it takes; the order from each sender is kept.
 *   * probe: two threads loop on MPI_Probe, one on MPI_Iprobe and one on
 *     MPI_Improbe/MPI_Mrecv, each on its own tag, while the main thread sends.
 *   * collectives: four threads run MPI_Allreduce, MPI_Bcast, MPI_Reduce,
 *     MPI_Barrier, MPI_Allgather and MPI_Alltoall on communicators of their
 *     own, and MPI_Comm_dup and MPI_Comm_split of them, all at once.
 *   * loop: a thread waits in MPI_Recv for a message that another thread of
 *     the same rank causes after computing: it sends to the next rank, whose
 *     forwarding thread sends the answer back.
 *   * sendrecv: threads exchange with MPI_Ssend and MPI_Sendrecv on their
 *     own tags.
 *
 *   * storage (with --storage-mib N): one thread rewrites and checks an
 *     N MiB heap array over and over while another passes messages round the
 *     ring; under BDMPI with a small --node-memory the ranks are asked to
 *     switch out meanwhile, and no write may be lost.
 *
 * --rounds K (default 20) sets the messages per thread and peer.
 */
#include <pthread.h>

#include "check.h"

enum { kThreads = 4 };

static int g_rank, g_size, g_rounds;
static MPI_Comm g_comms[kThreads];

typedef struct {
  int id;
  void *(*body)(int id);
} Thread;

static void *run_thread(void *arg) {
  Thread *thread = (Thread *)arg;
  return thread->body(thread->id);
}

/* Runs body(0) ... body(n - 1) in n threads and waits for them. */
static void run_threads(int n, void *(*body)(int id)) {
  pthread_t handles[8];
  Thread threads[8];
  for (int i = 0; i < n; ++i) {
    threads[i].id = i;
    threads[i].body = body;
    CHECK(pthread_create(&handles[i], NULL, run_thread, &threads[i]) == 0, "pthread_create");
  }
  for (int i = 0; i < n; ++i) pthread_join(handles[i], NULL);
}

/* The value message k from `src` by thread t carries. */
static int value_of(int src, int t, int k) { return (src * 64 + t) * 4096 + k; }

/* ---- init ---- */

static void *ask_is_main(int id) {
  int flag = -1;
  MPI_Is_thread_main(&flag);
  CHECK(flag == 0, "MPI_Is_thread_main %d in thread %d", flag, id);
  int level = -1;
  MPI_Query_thread(&level);
  CHECK(level == MPI_THREAD_MULTIPLE, "MPI_Query_thread %d in thread %d", level, id);
  return NULL;
}

/* ---- tags ---- */

static void *tags_thread(int t) {
  const int k_max = g_rounds;
  const int n = g_size * k_max;
  MPI_Request *sends = xmalloc(2 * (size_t)n * sizeof(MPI_Request));
  int *out = xmalloc(2 * (size_t)n * sizeof(int));
  int *in = xmalloc(2 * (size_t)n * sizeof(int));
  MPI_Comm comms[2] = {g_comms[t], MPI_COMM_WORLD};
  int tags[2] = {t, 100 + t};
  int s = 0;
  for (int k = 0; k < k_max; ++k)
    for (int c = 0; c < 2; ++c)
      for (int dest = 0; dest < g_size; ++dest) {
        out[s] = value_of(g_rank, t, k) + c;
        CHECK_MPI(MPI_Isend(&out[s], 1, MPI_INT, dest, tags[c], comms[c], &sends[s]));
        ++s;
      }
  if (t < 2) {
    for (int src = 0; src < g_size; ++src)
      for (int c = 0; c < 2; ++c)
        for (int k = 0; k < k_max; ++k) {
          int got = -1;
          MPI_Status status;
          CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, src, tags[c], comms[c], &status));
          CHECK(got == value_of(src, t, k) + c,
                "thread %d: message %d from %d (comm %d) is %d, want %d", t, k, src, c, got,
                value_of(src, t, k) + c);
        }
  } else {
    /* Irecv all, then Waitall (thread 2) or Waitany (thread 3). */
    MPI_Request *recvs = xmalloc(2 * (size_t)n * sizeof(MPI_Request));
    int r = 0;
    for (int src = 0; src < g_size; ++src)
      for (int c = 0; c < 2; ++c)
        for (int k = 0; k < k_max; ++k) {
          CHECK_MPI(MPI_Irecv(&in[r], 1, MPI_INT, src, tags[c], comms[c], &recvs[r]));
          ++r;
        }
    if (t == 2) {
      CHECK_MPI(MPI_Waitall(r, recvs, MPI_STATUSES_IGNORE));
    } else {
      for (int done = 0; done < r; ++done) {
        int index = -1;
        CHECK_MPI(MPI_Waitany(r, recvs, &index, MPI_STATUS_IGNORE));
        CHECK(index >= 0 && index < r, "MPI_Waitany index %d", index);
      }
    }
    r = 0;
    for (int src = 0; src < g_size; ++src)
      for (int c = 0; c < 2; ++c)
        for (int k = 0; k < k_max; ++k, ++r)
          CHECK(in[r] == value_of(src, t, k) + c,
                "thread %d: received %d from %d (comm %d, #%d), want %d", t, in[r], src, c, k,
                value_of(src, t, k) + c);
    free(recvs);
  }
  CHECK_MPI(MPI_Waitall(s, sends, MPI_STATUSES_IGNORE));
  free(sends);
  free(out);
  free(in);
  return NULL;
}

/* ---- anysource ---- */

static void *anysource_thread(int id) {
  const int tag = 7;
  if (id == 1) {
    for (int k = 0; k < g_rounds; ++k)
      for (int dest = 0; dest < g_size; ++dest) {
        int value = value_of(g_rank, 0, k);
        CHECK_MPI(MPI_Send(&value, 1, MPI_INT, dest, tag, MPI_COMM_WORLD));
      }
    return NULL;
  }
  int *next = calloc((size_t)g_size, sizeof(int));
  for (int i = 0; i < g_size * g_rounds; ++i) {
    int got = -1;
    MPI_Status status;
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &status));
    int src = status.MPI_SOURCE;
    CHECK(src >= 0 && src < g_size, "MPI_ANY_SOURCE gave source %d", src);
    CHECK(got == value_of(src, 0, next[src]), "from %d: %d, want message %d (%d)", src, got,
          next[src], value_of(src, 0, next[src]));
    ++next[src];
  }
  free(next);
  return NULL;
}

/* ---- probe ---- */

static void *probe_thread(int id) {
  const int tag = 200 + id;
  int *next = calloc((size_t)g_size, sizeof(int));
  for (int i = 0; i < g_size * g_rounds; ++i) {
    MPI_Status status;
    int got = -1;
    if (id < 2) {
      CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &status));
      CHECK(status.MPI_TAG == tag, "MPI_Probe found tag %d, want %d", status.MPI_TAG, tag);
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, status.MPI_SOURCE, tag, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
    } else if (id == 2) {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &status));
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, status.MPI_SOURCE, tag, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
    } else {
      int flag = 0;
      MPI_Message message = MPI_MESSAGE_NULL;
      while (!flag)
        CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &message, &status));
      CHECK_MPI(MPI_Mrecv(&got, 1, MPI_INT, &message, MPI_STATUS_IGNORE));
    }
    int src = status.MPI_SOURCE;
    CHECK(src >= 0 && src < g_size, "probe gave source %d", src);
    CHECK(got == value_of(src, id, next[src]), "tag %d from %d: %d, want message %d", tag, src,
          got, next[src]);
    ++next[src];
  }
  free(next);
  return NULL;
}

static void *probe_or_send(int id) {
  if (id < 4) return probe_thread(id);
  for (int k = 0; k < g_rounds; ++k)
    for (int t = 0; t < 4; ++t)
      for (int dest = 0; dest < g_size; ++dest) {
        int value = value_of(g_rank, t, k);
        CHECK_MPI(MPI_Send(&value, 1, MPI_INT, dest, 200 + t, MPI_COMM_WORLD));
      }
  return NULL;
}

/* ---- collectives ---- */

static void *collectives_thread(int t) {
  MPI_Comm comm = g_comms[t];
  int *all = xmalloc((size_t)g_size * sizeof(int));
  int *mine = xmalloc((size_t)g_size * sizeof(int));
  for (int i = 0; i < g_rounds / 2 + 1; ++i) {
    int sum = -1, value = g_rank + t + i;
    CHECK_MPI(MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, comm));
    int want = g_size * (g_size - 1) / 2 + g_size * (t + i);
    CHECK(sum == want, "thread %d: MPI_Allreduce %d, want %d", t, sum, want);
    int root = i % g_size;
    int data = g_rank == root ? 1000 * t + i : -1;
    CHECK_MPI(MPI_Bcast(&data, 1, MPI_INT, root, comm));
    CHECK(data == 1000 * t + i, "thread %d: MPI_Bcast %d", t, data);
    int max = -1;
    CHECK_MPI(MPI_Reduce(&value, &max, 1, MPI_INT, MPI_MAX, root, comm));
    if (g_rank == root)
      CHECK(max == g_size - 1 + t + i, "thread %d: MPI_Reduce max %d", t, max);
    CHECK_MPI(MPI_Barrier(comm));
    CHECK_MPI(MPI_Allgather(&value, 1, MPI_INT, all, 1, MPI_INT, comm));
    for (int r = 0; r < g_size; ++r)
      CHECK(all[r] == r + t + i, "thread %d: MPI_Allgather [%d] = %d", t, r, all[r]);
    for (int r = 0; r < g_size; ++r) mine[r] = g_rank * 1000 + r + t;
    CHECK_MPI(MPI_Alltoall(mine, 1, MPI_INT, all, 1, MPI_INT, comm));
    for (int r = 0; r < g_size; ++r)
      CHECK(all[r] == r * 1000 + g_rank + t, "thread %d: MPI_Alltoall [%d] = %d", t, r, all[r]);
  }
  /* Communicators made from different communicators at once. */
  MPI_Comm dup = MPI_COMM_NULL, split = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_dup(comm, &dup));
  CHECK(size_of(dup) == g_size && rank_in(dup) == g_rank, "thread %d: MPI_Comm_dup", t);
  CHECK_MPI(MPI_Comm_split(dup, g_rank % 2, -g_rank, &split));
  int expected = (g_size + 1 - g_rank % 2) / 2;
  CHECK(size_of(split) == expected, "thread %d: split size %d, want %d", t, size_of(split),
        expected);
  int sum = -1, one = 1;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, split));
  CHECK(sum == expected, "thread %d: MPI_Allreduce on the split %d", t, sum);
  CHECK_MPI(MPI_Comm_free(&split));
  CHECK_MPI(MPI_Comm_free(&dup));
  free(all);
  free(mine);
  return NULL;
}

/* ---- loop ---- */

static volatile double g_sink;

static void *loop_thread(int id) {
  const int next = (g_rank + 1) % g_size, prev = (g_rank + g_size - 1) % g_size;
  for (int k = 0; k < g_rounds; ++k) {
    if (id == 0) {
      /* Waits for the answer to what thread 1 sends after computing. */
      int got = -1;
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, next, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(got == value_of(g_rank, 1, k) + 1, "loop: answer %d, want %d", got,
            value_of(g_rank, 1, k) + 1);
    } else if (id == 1) {
      double x = 0;
      for (int i = 0; i < 200000; ++i) x += (double)i * 1e-9;
      g_sink = x;
      int value = value_of(g_rank, 1, k);
      CHECK_MPI(MPI_Send(&value, 1, MPI_INT, next, 301, MPI_COMM_WORLD));
    } else {
      /* Forwards the previous rank's question back to it. */
      int question = -1;
      CHECK_MPI(MPI_Recv(&question, 1, MPI_INT, prev, 301, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      int answer = question + 1;
      CHECK_MPI(MPI_Send(&answer, 1, MPI_INT, prev, 300, MPI_COMM_WORLD));
    }
  }
  return NULL;
}

/* ---- sendrecv ---- */

static void *sendrecv_thread(int t) {
  const int next = (g_rank + 1) % g_size, prev = (g_rank + g_size - 1) % g_size;
  for (int k = 0; k < g_rounds; ++k) {
    int out = value_of(g_rank, t, k), in = -1;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, next, 400 + t, &in, 1, MPI_INT, prev, 400 + t,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in == value_of(prev, t, k), "thread %d: MPI_Sendrecv got %d", t, in);
    if (g_size > 1) {
      /* Ssend to the next rank, received by its thread t. */
      MPI_Request request;
      CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, prev, 500 + t, MPI_COMM_WORLD, &request));
      CHECK_MPI(MPI_Ssend(&out, 1, MPI_INT, next, 500 + t, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
      CHECK(in == value_of(prev, t, k), "thread %d: MPI_Ssend's message %d", t, in);
    }
  }
  return NULL;
}

/* ---- storage ---- */

static size_t g_storage_words;
static volatile int g_ring_done;

static void *storage_thread(int id) {
  const int next = (g_rank + 1) % g_size, prev = (g_rank + g_size - 1) % g_size;
  if (id == 1) {
    for (int k = 0; k < 4 * g_rounds; ++k) {
      int out = value_of(g_rank, 5, k), in = -1;
      CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, next, 600, &in, 1, MPI_INT, prev, 600,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(in == value_of(prev, 5, k), "storage ring: got %d", in);
    }
    __atomic_store_n(&g_ring_done, 1, __ATOMIC_RELEASE);
    return NULL;
  }
  uint64_t *data = xmalloc(g_storage_words * sizeof(uint64_t));
  uint64_t pass = 0;
  for (;; ++pass) {
    for (size_t i = 0; i < g_storage_words; ++i) {
      if (pass > 0)
        CHECK(data[i] == ((pass - 1) << 32 | i), "storage: word %zu of pass %llu lost", i,
              (unsigned long long)pass - 1);
      data[i] = pass << 32 | i;
    }
    if (__atomic_load_n(&g_ring_done, __ATOMIC_ACQUIRE) && pass >= 2) break;
  }
  free(data);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d, want MPI_THREAD_MULTIPLE", provided);
  int queried = -1, is_main = -1;
  MPI_Query_thread(&queried);
  CHECK(queried == provided, "MPI_Query_thread %d", queried);
  MPI_Is_thread_main(&is_main);
  CHECK(is_main == 1, "MPI_Is_thread_main false in the main thread");
  g_rank = world_rank();
  g_size = world_size();
  g_rounds = (int)arg_ll(argc, argv, "--rounds", 20);
  for (int t = 0; t < kThreads; ++t) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &g_comms[t]));

  run_threads(2, ask_is_main);
  run_threads(kThreads, tags_thread);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  run_threads(2, anysource_thread);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  run_threads(5, probe_or_send);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  run_threads(kThreads, collectives_thread);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  run_threads(3, loop_thread);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  run_threads(kThreads, sendrecv_thread);
  g_storage_words = (size_t)arg_ll(argc, argv, "--storage-mib", 0) << 17;
  if (g_storage_words > 0) {
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    run_threads(2, storage_thread);
  }

  for (int t = 0; t < kThreads; ++t) CHECK_MPI(MPI_Comm_free(&g_comms[t]));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
