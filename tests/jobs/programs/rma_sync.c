/*
 * rma_sync.c -- every one-sided synchronization mode, with the ranks
 * switched out in the middle of their epochs (a blocking call or a yield
 * inside each; -nr 1 makes each a switch), over the ranks of each node:
 * post-start-complete-wait and Win_test, exclusive locks as a mutex,
 * shared locks and lock_all with flushes, and passive target on a rank
 * that waits in MPI_Recv the whole time (with a small --node-memory its
 * window memory is written back meanwhile). --bytes sets that window's size.
 * Over all ranks most targets are on another node, where an epoch's
 * operations travel in batches: their order, a flush in the middle, shared
 * locks, and a lock epoch with no operation (batched()).
 * MPI_Win_allocate memory of a target switched out in the middle of an
 * epoch and resumed (switched_out()); --expect-release (BDMPI, a small
 * --node-memory) checks that it was written back meanwhile. A handoff
 * polled with flushes of the poller's own rank only, as mpi4py's
 * util.sync Mutex does (polled_handoff()).
 */
#include <unistd.h>

#include "check.h"

/* A call that lets other ranks run (an empty probe yields under BDMPI). */
static void yield(MPI_Comm comm) {
  int flag;
  MPI_Iprobe(MPI_ANY_SOURCE, 999, comm, &flag, MPI_STATUS_IGNORE);
}

static void pscw(MPI_Comm node, int use_test) {
  int rank = rank_in(node), size = size_of(node);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int *mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mem, &win));
  mem[0] = mem[1] = -1;
  MPI_Group group, from, to;
  MPI_Comm_group(node, &group);
  MPI_Group_incl(group, 1, &prev, &from);
  MPI_Group_incl(group, 1, &next, &to);
  for (int round = 0; round < 3; ++round) {
    CHECK_MPI(MPI_Win_post(from, 0, win));
    CHECK_MPI(MPI_Win_start(to, 0, win));
    int v = rank * 10 + round;
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, next, round % 2, 1, MPI_INT, win));
    yield(node);
    CHECK_MPI(MPI_Win_complete(win));
    if (use_test) {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Win_test(win, &flag));
    } else {
      CHECK_MPI(MPI_Win_wait(win));
    }
    CHECK(mem[round % 2] == prev * 10 + round, "pscw round %d: %d, want %d", round,
          mem[round % 2], prev * 10 + round);
  }
  MPI_Group_free(&group);
  MPI_Group_free(&from);
  MPI_Group_free(&to);
  CHECK_MPI(MPI_Win_free(&win));
}

/* An exclusive lock as a mutex: read, yield, write; no increment is lost. */
static void exclusive(MPI_Comm node, int allocate) {
  int rank = rank_in(node), size = size_of(node);
  enum { kRounds = 10 };
  int *mem = NULL, *own = NULL;
  MPI_Win win;
  if (allocate) {
    CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mem, &win));
  } else {
    own = xmalloc(sizeof(int));
    mem = own;
    CHECK_MPI(MPI_Win_create(mem, sizeof(int), sizeof(int), MPI_INFO_NULL, node, &win));
  }
  *mem = 0;
  CHECK_MPI(MPI_Barrier(node));
  int target = size - 1;
  for (int i = 0; i < kRounds; ++i) {
    int v = -1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
    CHECK_MPI(MPI_Get(&v, 1, MPI_INT, target, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(target, win));
    yield(node);
    ++v;
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, target, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(target, win));
  }
  CHECK_MPI(MPI_Barrier(node));
  if (rank == target) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    CHECK(*mem == kRounds * size, "counter %d, want %d", *mem, kRounds * size);
    CHECK_MPI(MPI_Win_unlock(target, win));
  }
  CHECK_MPI(MPI_Win_free(&win));
  free(own);
}

/* lock_all: every rank writes its slot of every other rank, flushes,
 * yields, and reads them back. */
static void lock_all(MPI_Comm node) {
  int rank = rank_in(node), size = size_of(node);
  int *mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate((MPI_Aint)size * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mem,
                             &win));
  for (int i = 0; i < size; ++i) mem[i] = -1;
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  for (int t = 0; t < size; ++t) {
    int v = rank * 100 + t;
    CHECK_MPI(MPI_Put(&v, 1, MPI_INT, t, rank, 1, MPI_INT, win));
  }
  CHECK_MPI(MPI_Win_flush_all(win));
  yield(node);
  for (int t = 0; t < size; ++t) {
    int v = -2;
    CHECK_MPI(MPI_Get(&v, 1, MPI_INT, t, rank, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush_local(t, win));
    CHECK(v == rank * 100 + t, "lock_all: read back %d from %d, want %d", v, t, rank * 100 + t);
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_sync(win));
  for (int r = 0; r < size; ++r)
    CHECK(mem[r] == r * 100 + rank, "lock_all: slot %d = %d, want %d", r, mem[r], r * 100 + rank);
  CHECK_MPI(MPI_Win_free(&win));
}

/* Many operations in one epoch (one batch to another node's target):
 * accumulates of one origin to one location are applied in order
 * (MPI_REPLACE's last value stays), a flush in the middle completes those
 * before it (a get after it sees them), flush_local fills a get's buffer,
 * shared locks of every rank on one target let all accumulate, and an
 * exclusive lock epoch with no operation waits for the holder's unlock. */
static void batched(MPI_Comm comm) {
  int rank = rank_in(comm), size = size_of(comm);
  int next = (rank + 1) % size;
  enum { kOps = 100, kHold = 20 };
  int *mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &mem, &win));
  mem[0] = mem[1] = mem[2] = mem[3] = 0;
  CHECK_MPI(MPI_Barrier(comm));

  /* Ordering and a flush in the middle, under an exclusive lock. */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
  int values[kOps], one = 1;
  for (int i = 0; i < kOps; ++i) {
    values[i] = rank * 1000 + i;
    CHECK_MPI(MPI_Accumulate(&values[i], 1, MPI_INT, next, 0, 1, MPI_INT, MPI_REPLACE, win));
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, next, 1, 1, MPI_INT, MPI_SUM, win));
    if (i == kOps / 2 - 1) {
      int seen[2] = {-1, -1};
      CHECK_MPI(MPI_Win_flush(next, win));
      CHECK_MPI(MPI_Get(seen, 2, MPI_INT, next, 0, 2, MPI_INT, win));
      CHECK_MPI(MPI_Win_flush(next, win));
      CHECK(seen[0] == values[i] && seen[1] == kOps / 2,
            "batched: after the flush %d, %d; want %d, %d", seen[0], seen[1], values[i], kOps / 2);
    }
  }
  int last = -1;
  CHECK_MPI(MPI_Fetch_and_op(NULL, &last, MPI_INT, next, 0, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock(next, win));
  CHECK(last == values[kOps - 1], "batched: last value %d, want %d", last, values[kOps - 1]);
  CHECK_MPI(MPI_Barrier(comm));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  int prev = (rank + size - 1) % size;
  CHECK(mem[0] == prev * 1000 + kOps - 1 && mem[1] == kOps,
        "batched: own slots %d, %d; want %d, %d", mem[0], mem[1], prev * 1000 + kOps - 1, kOps);
  CHECK_MPI(MPI_Win_unlock(rank, win));
  CHECK_MPI(MPI_Barrier(comm));

  /* Shared locks: every rank adds to rank 0's slot 2, a get with
   * flush_local in between. */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  for (int i = 0; i < 10; ++i)
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win));
  int at_least = -1;
  CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT, &at_least, 1, MPI_INT, 0, 2, 1, MPI_INT,
                               MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_flush_local(0, win));
  CHECK(at_least >= 10 && at_least <= 10 * size, "batched: shared sum read %d", at_least);
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK_MPI(MPI_Barrier(comm));
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    CHECK(mem[2] == 10 * size, "batched: shared sum %d, want %d", mem[2], 10 * size);
    CHECK_MPI(MPI_Win_unlock(0, win));
  }
  CHECK_MPI(MPI_Barrier(comm));

  /* An empty exclusive epoch on rank 0 ends only after rank 0's own
   * exclusive epoch, in which it stores slot 3: read after it with
   * MPI_MODE_NOCHECK, that store is seen. */
  if (rank == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Barrier(comm));
    for (int i = 0; i < kHold; ++i) yield(comm);
    mem[3] = 7;
    CHECK_MPI(MPI_Win_unlock(0, win));
  } else {
    CHECK_MPI(MPI_Barrier(comm));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    int seen = -1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win));
    CHECK_MPI(MPI_Get(&seen, 1, MPI_INT, 0, 3, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_unlock(0, win));
    CHECK(seen == 7, "batched: after an empty exclusive epoch slot 3 = %d, want 7", seen);
  }
  CHECK_MPI(MPI_Barrier(comm));
  CHECK_MPI(MPI_Win_free(&win));
}

/* Passive target on a rank that sits in MPI_Recv: rank 0 writes all of
 * the last rank's window and reads it back, then tells it. */
static void passive(MPI_Comm node, size_t bytes, int allocate) {
  int rank = rank_in(node), size = size_of(node);
  int target = size - 1;
  unsigned char *mem = NULL, *own = NULL;
  MPI_Win win;
  size_t mine = rank == target ? bytes : 0;
  if (allocate) {
    CHECK_MPI(MPI_Win_allocate((MPI_Aint)mine, 1, MPI_INFO_NULL, node, &mem, &win));
  } else {
    own = mine ? xmalloc(mine) : NULL;
    mem = own;
    CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)mine, 1, MPI_INFO_NULL, node, &win));
  }
  if (rank == target) memset(mem, 0xee, mine);
  CHECK_MPI(MPI_Barrier(node));
  if (rank == 0) {
    unsigned char *buf = xmalloc(bytes), *back = xmalloc(bytes);
    fill_pattern(buf, bytes, 77 + (uint64_t)allocate);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
    size_t chunk = bytes / 4;
    for (size_t at = 0; at < bytes; at += chunk) {
      size_t n = bytes - at < chunk ? bytes - at : chunk;
      CHECK_MPI(MPI_Put(buf + at, (int)n, MPI_BYTE, target, (MPI_Aint)at, (int)n, MPI_BYTE, win));
      yield(node);
    }
    CHECK_MPI(MPI_Win_unlock(target, win));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    CHECK_MPI(MPI_Get(back, (int)bytes, MPI_BYTE, target, 0, (int)bytes, MPI_BYTE, win));
    CHECK_MPI(MPI_Win_unlock(target, win));
    CHECK_PATTERN(back, bytes, 77 + (uint64_t)allocate, "passive get");
    free(buf);
    free(back);
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, target, 5, node));
  }
  if (rank == target) {
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, 5, node, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    CHECK_PATTERN(mem, bytes, 77 + (uint64_t)allocate, "passive target's memory");
    CHECK_MPI(MPI_Win_unlock(target, win));
  }
  CHECK_MPI(MPI_Win_free(&win));
  free(own);
}

/* lock_all behind exclusive locks on two targets: rank size-2 holds
 * exclusive locks on ranks 0 and 1 while rank size-1 puts to both under
 * lock_all and flushes them together (on other nodes' targets, both
 * batches in flight, both locks queued); the holder releases rank 1's
 * first, and rank 0's value must not change before it releases that one
 * too: each grant is for its own target. */
static void queued_all(MPI_Comm comm) {
  int rank = rank_in(comm), size = size_of(comm);
  if (size < 4) return;
  int holder = size - 2, origin = size - 1;
  int *mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &mem, &win));
  *mem = -1;
  CHECK_MPI(MPI_Barrier(comm));
  if (rank == holder) {
    for (int t = 0; t < 2; ++t) {
      CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
      CHECK_MPI(MPI_Win_flush(t, win)); /* taken now, also on another node */
    }
    CHECK_MPI(MPI_Barrier(comm));
    for (int i = 0; i < 20; ++i) yield(comm);
    CHECK_MPI(MPI_Win_unlock(1, win));
    for (int i = 0; i < 20; ++i) yield(comm);
    int seen = 0;
    CHECK_MPI(MPI_Get(&seen, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    CHECK_MPI(MPI_Win_flush(0, win));
    CHECK(seen == -1, "queued_all: rank 0's value changed to %d under rank %d's exclusive lock",
          seen, holder);
    CHECK_MPI(MPI_Win_unlock(0, win));
  } else if (rank == origin) {
    CHECK_MPI(MPI_Barrier(comm));
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int t = 0; t < 2; ++t) {
      int v = 100 + t;
      CHECK_MPI(MPI_Put(&v, 1, MPI_INT, t, 0, 1, MPI_INT, win));
    }
    CHECK_MPI(MPI_Win_flush_all(win));
    CHECK_MPI(MPI_Win_unlock_all(win));
  } else {
    CHECK_MPI(MPI_Barrier(comm));
  }
  CHECK_MPI(MPI_Barrier(comm));
  if (rank < 2) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    CHECK(*mem == 100 + rank, "queued_all: rank %d holds %d, want %d", rank, *mem, 100 + rank);
    CHECK_MPI(MPI_Win_unlock(rank, win));
  }
  CHECK_MPI(MPI_Win_free(&win));
}

/* A handoff polled with flushes of the poller's own rank, as mpi4py's
 * util.sync Mutex (an MCS lock) does: under lock_all the waiter
 * accumulates its rank into the holder's slot 0 and flushes nothing but
 * itself while it polls its own slot 1 (MPI_Win_sync, a flush of its own
 * rank, a sleep); the holder polls its slot 0 the same way, then sets the
 * waiter's slot 1. The waiter's accumulate must reach the holder although
 * no call names the holder's rank: the flushes and syncs of the poll
 * loops are all that may carry it. A bounded wait fails instead of
 * hanging. */
static int polled_slot(MPI_Win win, const volatile int *slot, int rank) {
  double until = MPI_Wtime() + 20.0;
  CHECK_MPI(MPI_Win_sync(win));
  while (*slot == -1) {
    CHECK(MPI_Wtime() < until, "polled_handoff: slot never set");
    usleep(100);
    CHECK_MPI(MPI_Win_flush(rank, win));
    CHECK_MPI(MPI_Win_sync(win));
  }
  return *slot;
}

static void polled_handoff(MPI_Comm comm) {
  int rank = rank_in(comm), size = size_of(comm);
  if (size < 2) return;
  int holder = 0, waiter = size - 1;
  int *mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &mem, &win));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  mem[0] = mem[1] = -1;
  CHECK_MPI(MPI_Win_unlock(rank, win));
  CHECK_MPI(MPI_Barrier(comm));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  if (rank == waiter) {
    CHECK_MPI(MPI_Accumulate(&waiter, 1, MPI_INT, holder, 0, 1, MPI_INT, MPI_REPLACE, win));
    int got = polled_slot(win, &mem[1], rank);
    CHECK(got == holder, "polled_handoff: waiter got %d, want %d", got, holder);
  } else if (rank == holder) {
    int next = polled_slot(win, &mem[0], rank);
    CHECK(next == waiter, "polled_handoff: holder got %d, want %d", next, waiter);
    CHECK_MPI(MPI_Accumulate(&holder, 1, MPI_INT, waiter, 1, 1, MPI_INT, MPI_REPLACE, win));
    CHECK_MPI(MPI_Win_flush(waiter, win));
  }
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(comm));
  CHECK_MPI(MPI_Win_free(&win));
}

/* BDMPI's bdmpi_written_back_bytes counter of this rank, started. */
typedef struct {
  MPI_T_pvar_session session;
  MPI_T_pvar_handle handle;
} Counter;

static Counter written_back_counter(void) {
  Counter c;
  int index = -1, count = 0;
  CHECK_MPI(MPI_T_pvar_get_index("bdmpi_written_back_bytes", MPI_T_PVAR_CLASS_COUNTER, &index));
  CHECK_MPI(MPI_T_pvar_session_create(&c.session));
  CHECK_MPI(MPI_T_pvar_handle_alloc(c.session, index, NULL, &c.handle, &count));
  CHECK_MPI(MPI_T_pvar_start(c.session, c.handle));
  return c;
}

static unsigned long long counter_read(Counter *c) {
  unsigned long long value = 0;
  CHECK_MPI(MPI_T_pvar_read(c->session, c->handle, &value));
  return value;
}

static void counter_free(Counter *c) {
  CHECK_MPI(MPI_T_pvar_handle_free(c->session, &c->handle));
  CHECK_MPI(MPI_T_pvar_session_free(&c->session));
}

/* MPI_Win_allocate memory of a rank switched out in the middle of a
 * passive-target epoch, and resumed: while the last rank waits in
 * MPI_Recv (rank 0's buffers, 2 x bytes, push it out of a small
 * --node-memory), rank 0 puts, accumulates, fetches and gets in one
 * exclusive epoch; the target resumes and reads its window back; it then
 * rewrites it and waits again while rank 0 reads it (a shared epoch and a
 * fence-less get on memory written back a second time). */
static void switched_out(MPI_Comm node, size_t bytes, int expect_release) {
  int rank = rank_in(node), size = size_of(node);
  int target = size - 1;
  int64_t words = (int64_t)(bytes / sizeof(int64_t)), half = words / 2;
  int64_t *mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(rank == target ? (MPI_Aint)bytes : 0, sizeof(int64_t),
                             MPI_INFO_NULL, node, &mem, &win));
  Counter counter;
  unsigned long long before = 0;
  if (rank == target) {
    for (int64_t i = 0; i < words; ++i) mem[i] = i;
    if (expect_release) {
      counter = written_back_counter();
      before = counter_read(&counter);
    }
  }
  CHECK_MPI(MPI_Barrier(node));
  if (rank == 0 && size > 1) {
    int64_t *buf = xmalloc(bytes), *back = xmalloc(bytes);
    for (int64_t i = 0; i < words; ++i) buf[i] = i < half ? -i : 3;
    memset(back, 0, bytes);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
    CHECK_MPI(MPI_Put(buf, (int)half, MPI_INT64_T, target, 0, (int)half, MPI_INT64_T, win));
    yield(node);
    CHECK_MPI(MPI_Accumulate(buf + half, (int)(words - half), MPI_INT64_T, target, half,
                             (int)(words - half), MPI_INT64_T, MPI_SUM, win));
    yield(node);
    int64_t one = 1, old = -1;
    CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, target, words - 1, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(target, win));
    CHECK(old == words - 1 + 3, "switched_out: fetched %lld, want %lld", (long long)old,
          (long long)(words - 1 + 3));
    CHECK_MPI(MPI_Get(back, (int)words, MPI_INT64_T, target, 0, (int)words, MPI_INT64_T, win));
    CHECK_MPI(MPI_Win_unlock(target, win));
    for (int64_t i = 0; i < words; ++i) {
      int64_t want = i < half ? -i : i + 3 + (i == words - 1);
      CHECK(back[i] == want, "switched_out: got word %lld = %lld, want %lld", (long long)i,
            (long long)back[i], (long long)want);
    }
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, target, 6, node));
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, target, 7, node, MPI_STATUS_IGNORE));
    memset(buf, 0, bytes);  /* pushes the target out again */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    CHECK_MPI(MPI_Get(back, (int)words, MPI_INT64_T, target, 0, (int)words, MPI_INT64_T, win));
    CHECK_MPI(MPI_Win_unlock(target, win));
    for (int64_t i = 0; i < words; ++i)
      CHECK(back[i] == 2 * i + 1, "switched_out: word %lld read back as %lld, want %lld",
            (long long)i, (long long)back[i], (long long)(2 * i + 1));
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, target, 8, node));
    free(buf);
    free(back);
  }
  if (rank == target && size > 1) {
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, 6, node, MPI_STATUS_IGNORE));
    if (expect_release) {
      unsigned long long after = counter_read(&counter);
      CHECK(after - before >= bytes,
            "switched_out: %llu bytes written back while waiting, want the window's %zu",
            after - before, bytes);
    }
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
    for (int64_t i = 0; i < words; ++i) {
      int64_t want = i < half ? -i : i + 3 + (i == words - 1);
      CHECK(mem[i] == want, "switched_out: own word %lld = %lld, want %lld", (long long)i,
            (long long)mem[i], (long long)want);
      mem[i] = 2 * i + 1;
    }
    CHECK_MPI(MPI_Win_unlock(target, win));
    CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, 0, 7, node));
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, 8, node, MPI_STATUS_IGNORE));
  }
  if (rank == target && expect_release) counter_free(&counter);
  CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  size_t bytes = (size_t)arg_ll(argc, argv, "--bytes", 1 << 20);
  int expect_release = arg_flag(argc, argv, "--expect-release");
  int provided = 0;
  if (expect_release) CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  pscw(node, 0);
  pscw(node, 1);
  exclusive(node, 0);
  exclusive(node, 1);
  lock_all(node);
  passive(node, bytes, 0);
  passive(node, bytes, 1);
  switched_out(node, bytes, expect_release);
  queued_all(node);
  batched(node);
  polled_handoff(node);
  if (size_of(node) < world_size()) {
    /* Over all ranks: most targets are on another node. */
    pscw(MPI_COMM_WORLD, 0);
    pscw(MPI_COMM_WORLD, 1);
    exclusive(MPI_COMM_WORLD, 0);
    exclusive(MPI_COMM_WORLD, 1);
    lock_all(MPI_COMM_WORLD);
    passive(MPI_COMM_WORLD, bytes, 0);
    passive(MPI_COMM_WORLD, bytes, 1);
    switched_out(MPI_COMM_WORLD, bytes, 0);
    queued_all(MPI_COMM_WORLD);
    batched(MPI_COMM_WORLD);
    polled_handoff(MPI_COMM_WORLD);
  }
  MPI_Comm_free(&node);
  MPI_Barrier(MPI_COMM_WORLD);
  if (expect_release) CHECK_MPI(MPI_T_finalize());
  if (world_rank() == 0) printf("rma_sync: OK\n");
  MPI_Finalize();
  return 0;
}
