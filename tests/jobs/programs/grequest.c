/*
 * grequest: generalized requests (MPI_Grequest_start), which the program
 * completes itself with MPI_Grequest_complete.
 *
 *   * Not complete before MPI_Grequest_complete (MPI_Test, MPI_Testall);
 *     then MPI_Wait returns the status the query function sets and the
 *     free function runs once, with the extra state.
 *   * MPI_Request_free before completion: the free function runs at
 *     MPI_Grequest_complete.
 *   * MPI_Waitany over a generalized request and a receive; MPI_Cancel
 *     calls the cancel function with "complete" as it is.
 *   * With --wait-for-thread: MPI_Wait, MPI_Waitany and MPI_Waitsome on a
 *     request that another thread completes 200 ms later return with its
 *     status, and the waiting thread sleeps meanwhile (under 50 ms of CPU
 *     time each: a wait that spins would take most of the 200 ms).
 *   * With --complete-in-thread: another thread completes thousands of
 *     requests as soon as they exist while this one starts more (the
 *     request table grows under it), frees half of them before they
 *     complete and waits for the others with MPI_Waitany and MPI_Waitsome:
 *     each completes once, its free function runs once, and the requests
 *     started meanwhile stay valid.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "check.h"

struct state {
  int queried, freed, cancelled, cancel_complete;
};

static int query_fn(void *extra, MPI_Status *status) {
  struct state *s = (struct state *)extra;
  ++s->queried;
  status->MPI_SOURCE = 77;
  status->MPI_TAG = 78;
  status->MPI_ERROR = MPI_SUCCESS;
  MPI_Status_set_cancelled(status, 0);
  MPI_Status_set_elements(status, MPI_INT, 3);
  return MPI_SUCCESS;
}

static int free_fn(void *extra) {
  ++((struct state *)extra)->freed;
  return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete) {
  struct state *s = (struct state *)extra;
  ++s->cancelled;
  s->cancel_complete = complete;
  return MPI_SUCCESS;
}

struct completion {
  MPI_Request request;
  long delay_ms;
};

static void *complete_later(void *arg) {
  struct completion *c = (struct completion *)arg;
  struct timespec pause = {c->delay_ms / 1000, (c->delay_ms % 1000) * 1000000L};
  nanosleep(&pause, NULL);
  MPI_Grequest_complete(c->request);
  return NULL;
}

static double thread_cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

enum wait_call { kWait, kWaitany, kWaitsome };
static const char *const kWaitNames[] = {"MPI_Wait", "MPI_Waitany", "MPI_Waitsome"};

/* Waits with `call` (beside a null request, for the array calls) for a
 * generalized request another thread completes 200 ms later. */
static void wait_for_thread(struct state *s, enum wait_call call) {
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status st;
  int index = -1, indices[2] = {-1, -1};
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, s, &reqs[1]);
  struct completion completion = {reqs[1], 200};
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, complete_later, &completion) == 0, "pthread_create");
  double cpu = thread_cpu_s();
  if (call == kWait) {
    MPI_Wait(&reqs[1], &st);
  } else if (call == kWaitany) {
    MPI_Waitany(2, reqs, &index, &st);
    CHECK(index == 1, "MPI_Waitany: index %d", index);
  } else {
    MPI_Status sts[2];
    int count = 0;
    MPI_Waitsome(2, reqs, &count, indices, sts);
    CHECK(count == 1 && indices[0] == 1, "MPI_Waitsome: %d done, first %d", count, indices[0]);
    st = sts[0];
  }
  cpu = thread_cpu_s() - cpu;
  pthread_join(thread, NULL);
  CHECK(reqs[1] == MPI_REQUEST_NULL, "%s left the generalized request", kWaitNames[call]);
  CHECK_STATUS(st, 77, 78, MPI_INT, 3);
  CHECK(cpu < 0.05, "%s spent %.0f ms of CPU time waiting 200 ms for another thread",
        kWaitNames[call], cpu * 1e3);
}

/* --complete-in-thread: requests published to the completer in order. */
enum { kRounds = 150, kBatch = 32, kMaxPublished = kRounds * kBatch };
static MPI_Request published[kMaxPublished];
static atomic_int published_count, completed_count;
static atomic_int stress_freed;

static int stress_query(void *extra, MPI_Status *status) {
  (void)extra;
  MPI_Status_set_elements(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG = MPI_UNDEFINED;
  status->MPI_ERROR = MPI_SUCCESS;
  return MPI_SUCCESS;
}
static int stress_free(void *extra) {
  (void)extra;
  atomic_fetch_add(&stress_freed, 1);
  return MPI_SUCCESS;
}
static int stress_cancel(void *extra, int complete) {
  (void)extra, (void)complete;
  return MPI_SUCCESS;
}

static void *complete_all(void *arg) {
  (void)arg;
  for (int next = 0; next < kMaxPublished;) {
    if (next < atomic_load(&published_count)) {
      CHECK_MPI(MPI_Grequest_complete(published[next++]));
      atomic_fetch_add(&completed_count, 1);
    } else {
      sched_yield();
    }
  }
  return NULL;
}

/* Waits for the even requests of `batch` (the odd ones were freed), with
 * MPI_Waitany or MPI_Waitsome. */
static void wait_even(MPI_Request *batch, int round) {
  if (round % 2 == 0) {
    for (int left = kBatch / 2; left > 0; --left) {
      int index = -1;
      CHECK_MPI(MPI_Waitany(kBatch, batch, &index, MPI_STATUS_IGNORE));
      CHECK(index >= 0 && index % 2 == 0, "MPI_Waitany: index %d", index);
    }
  } else {
    for (int left = kBatch / 2; left > 0;) {
      int count = 0, indices[kBatch];
      CHECK_MPI(MPI_Waitsome(kBatch, batch, &count, indices, MPI_STATUSES_IGNORE));
      CHECK(count >= 1 && count <= left, "MPI_Waitsome: %d of %d", count, left);
      left -= count;
    }
  }
  for (int i = 0; i < kBatch; ++i)
    CHECK(batch[i] == MPI_REQUEST_NULL, "request %d of round %d left", i, round);
}

static void complete_in_thread(void) {
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, complete_all, NULL) == 0, "pthread_create");
  /* Requests that stay open until the end, so that the table keeps growing
   * while the other thread completes. */
  static MPI_Request fillers[kRounds * 4];
  int nfillers = 0;
  /* Two batches in flight: this thread starts and frees one while the
   * other thread completes the one before. */
  MPI_Request batches[2][kBatch];
  for (int round = 0; round < kRounds; ++round) {
    MPI_Request *batch = batches[round % 2];
    for (int i = 0; i < kBatch; ++i) {
      CHECK_MPI(MPI_Grequest_start(stress_query, stress_free, stress_cancel, NULL, &batch[i]));
      published[round * kBatch + i] = batch[i];
      if (i % 8 == 0) {
        CHECK_MPI(MPI_Grequest_start(stress_query, stress_free, stress_cancel, NULL,
                                     &fillers[nfillers++]));
      }
    }
    /* Half freed before the other thread completes them (not published
     * yet): their free functions run at MPI_Grequest_complete. */
    for (int i = 1; i < kBatch; i += 2) CHECK_MPI(MPI_Request_free(&batch[i]));
    atomic_store(&published_count, (round + 1) * kBatch);
    if (round > 0) wait_even(batches[(round + 1) % 2], round - 1);
  }
  wait_even(batches[(kRounds - 1) % 2], kRounds - 1);
  pthread_join(thread, NULL);
  CHECK(atomic_load(&completed_count) == kMaxPublished, "%d completed",
        atomic_load(&completed_count));
  for (int i = 0; i < nfillers; ++i) CHECK_MPI(MPI_Grequest_complete(fillers[i]));
  CHECK_MPI(MPI_Waitall(nfillers, fillers, MPI_STATUSES_IGNORE));
  CHECK(atomic_load(&stress_freed) == kMaxPublished + nfillers, "free function ran %d times, "
        "want %d", atomic_load(&stress_freed), kMaxPublished + nfillers);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--complete-in-thread") == 0) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
    complete_in_thread();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
  }
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  struct state s = {0, 0, 0, -1};
  MPI_Request req, pair[2];
  MPI_Status st;
  int flag = 1;

  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &req);
  MPI_Test(&req, &flag, &st);
  CHECK(!flag, "a generalized request complete before MPI_Grequest_complete");
  MPI_Testall(1, &req, &flag, MPI_STATUSES_IGNORE);
  CHECK(!flag, "MPI_Testall: complete before MPI_Grequest_complete");
  MPI_Cancel(&req);
  CHECK(s.cancelled == 1 && s.cancel_complete == 0, "cancel function: %d calls, complete %d",
        s.cancelled, s.cancel_complete);
  MPI_Grequest_complete(req);
  MPI_Wait(&req, &st);
  CHECK(req == MPI_REQUEST_NULL, "MPI_Wait left the generalized request");
  CHECK(s.queried >= 1 && s.freed == 1, "query %d, free %d calls", s.queried, s.freed);
  CHECK_STATUS(st, 77, 78, MPI_INT, 3);

  s.freed = 0;
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &req);
  MPI_Request keep = req;
  MPI_Request_free(&req);
  CHECK(s.freed == 0, "free function ran before completion");
  MPI_Grequest_complete(keep);
  CHECK(s.freed == 1, "free function of a freed request: %d calls at completion", s.freed);

  /* MPI_Waitany: the receive's message comes; the generalized one after. */
  int value = 10 + rank, got = -1;
  s.freed = 0;
  MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &pair[0]);
  MPI_Irecv(&got, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &pair[1]);
  MPI_Send(&value, 1, MPI_INT, right, 5, MPI_COMM_WORLD);
  int index = -1;
  MPI_Waitany(2, pair, &index, &st);
  CHECK(index == 1 && got == 10 + left, "MPI_Waitany: index %d, got %d", index, got);
  MPI_Grequest_complete(pair[0]);
  MPI_Waitany(2, pair, &index, &st);
  CHECK(index == 0 && s.freed == 1, "MPI_Waitany: index %d, free %d calls", index, s.freed);

  if (argc > 1 && strcmp(argv[1], "--wait-for-thread") == 0) {
    for (int call = kWait; call <= kWaitsome; ++call) wait_for_thread(&s, (enum wait_call)call);
  }

  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
