/*
 * rma_errors.c -- the error classes of one-sided calls, returned under
 * MPI_ERRORS_RETURN set on the window: an operation outside an epoch or
 * after it (MPI_ERR_RMA_SYNC), outside the target's window
 * (MPI_ERR_RMA_RANGE), to a rank not in the window (MPI_ERR_RANK), whose
 * datatypes differ in size or element type (MPI_ERR_TYPE), epoch calls out
 * of order, a call of another flavour's (MPI_ERR_RMA_FLAVOR), an invalid
 * window (MPI_ERR_WIN); the same for targets on another node, and shared
 * memory over several nodes (MPI_ERR_RMA_SHARED). --deadlock MODE and
 * --abort end the job on purpose (see below).
 */
#include <string.h>

#include "check.h"

/* --deadlock MODE: ranks 0 and 1 of `comm` wait for each other, one of
 * them (or both) in a synchronization call; the runtime must find the
 * deadlock and name the one-sided call, not the receive or barrier it
 * waits in. lock: rank 0 holds an exclusive lock on itself and waits for
 * a message, rank 1 waits for the lock. fence: rank 0 in a fence, rank 1
 * in a receive. start: rank 0 starts an access epoch to rank 1, which
 * never posts. wait: rank 1 waits for rank 0's complete, which waits for
 * a message. */
static void deadlock(MPI_Comm comm, const char *mode) {
  int *mem = NULL;
  int me = rank_in(comm);
  MPI_Win win;
  MPI_Group all, other;
  CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &mem, &win));
  CHECK_MPI(MPI_Comm_group(comm, &all));
  int peer = 1 - me;
  if (me <= 1) CHECK_MPI(MPI_Group_incl(all, 1, &peer, &other));
  if (strcmp(mode, "lock") == 0) {
    if (me == 0) {
      CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK_MPI(MPI_Barrier(comm));
      CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 1, 9, comm, MPI_STATUS_IGNORE));
    } else if (me == 1) {
      CHECK_MPI(MPI_Barrier(comm));
      /* On another node the lock is taken lazily: at the unlock at the
       * latest. */
      CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK_MPI(MPI_Win_unlock(0, win));
    }
  } else if (strcmp(mode, "fence") == 0) {
    if (me == 0) CHECK_MPI(MPI_Win_fence(0, win));
    if (me == 1) CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, 9, comm, MPI_STATUS_IGNORE));
  } else if (strcmp(mode, "start") == 0) {
    if (me == 0) CHECK_MPI(MPI_Win_start(other, 0, win));
    if (me == 1) CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, 9, comm, MPI_STATUS_IGNORE));
  } else if (strcmp(mode, "wait") == 0) {
    if (me == 0) {
      CHECK_MPI(MPI_Win_start(other, 0, win));
      CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 1, 9, comm, MPI_STATUS_IGNORE));
    } else if (me == 1) {
      CHECK_MPI(MPI_Win_post(other, 0, win));
      CHECK_MPI(MPI_Win_wait(win));
    }
  } else {
    CHECK(0, "unknown --deadlock mode %s", mode);
  }
  CHECK(0, "the deadlock returned");
}

/* --abort: MPI_ERRORS_ABORT on a window ends the job at its first error
 * (here an operation outside any epoch), naming the call. */
static void abort_on_error(MPI_Comm comm) {
#ifndef MPI_ERRORS_ABORT /* MPI-4: not in Open MPI 4.1 */
  CHECK(0, "this MPI has no MPI_ERRORS_ABORT (comm %d)", rank_in(comm));
#else
  int *mem = NULL;
  int v = 0;
  MPI_Win win;
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &mem, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_ABORT));
  CHECK_MPI(MPI_Win_get_errhandler(win, &handler));
  CHECK(handler == MPI_ERRORS_ABORT, "MPI_Win_get_errhandler lost MPI_ERRORS_ABORT");
  CHECK_MPI(MPI_Barrier(comm));
  if (rank_in(comm) == 0) MPI_Put(&v, 1, MPI_INT, size_of(comm) - 1, 0, 1, MPI_INT, win);
  else MPI_Recv(NULL, 0, MPI_BYTE, 0, 9, comm, MPI_STATUS_IGNORE);
  CHECK(0, "the error did not end the job");
#endif
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], "--deadlock") == 0)
      deadlock(size_of(node) >= 2 ? node : MPI_COMM_WORLD, argv[i + 1]);
  if (arg_flag(argc, argv, "--abort")) abort_on_error(MPI_COMM_WORLD);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int size = size_of(node);
  int *mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mem, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  int v[32] = {0};
  double d = 1.0;

  /* No epoch yet. */
  CHECK_CLASS(MPI_Put(v, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);

  CHECK_MPI(MPI_Win_fence(0, win));
  /* Past the end of the target's 16 ints, and before its start. */
  CHECK_CLASS(MPI_Put(v, 2, MPI_INT, 0, 15, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
  CHECK_CLASS(MPI_Get(v, 17, MPI_INT, 0, 0, 17, MPI_INT, win), MPI_ERR_RMA_RANGE);
  CHECK_CLASS(MPI_Put(v, 1, MPI_INT, 0, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
  /* A rank not in the window. */
  CHECK_CLASS(MPI_Put(v, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
  /* MPI_PROC_NULL is a no-op. */
  CHECK_MPI(MPI_Put(v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win));
  /* An accumulate whose sides are of different predefined types. */
  CHECK_CLASS(MPI_Accumulate(&d, 1, MPI_DOUBLE, 0, 0, 2, MPI_INT, MPI_SUM, win), MPI_ERR_TYPE);
  /* A put or get whose sides carry different numbers of bytes. */
  CHECK_CLASS(MPI_Put(v, 2, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Get(&d, 1, MPI_DOUBLE, 0, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
  /* Request-based operations belong to passive-target epochs. */
  MPI_Request req;
  CHECK_CLASS(MPI_Rput(v, 1, MPI_INT, 0, 0, 1, MPI_INT, win, &req), MPI_ERR_RMA_SYNC);
  /* A correct one still works. */
  CHECK_MPI(MPI_Accumulate(v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  /* The fence epoch is over. */
  CHECK_CLASS(MPI_Get(v, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);

  /* Lock twice, unlock twice. */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC);
  /* A fence or lock_all inside a lock epoch. */
  CHECK_CLASS(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK_CLASS(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_flush(0, win), MPI_ERR_RMA_SYNC);
  CHECK_CLASS(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
  /* An unknown lock type. */
  CHECK_CLASS(MPI_Win_lock(3, 0, 0, win), MPI_ERR_LOCKTYPE);

  /* MPI_Win_attach belongs to dynamic windows. */
  CHECK_CLASS(MPI_Win_attach(win, v, sizeof v), MPI_ERR_RMA_FLAVOR);

  /* An invalid window goes to MPI_COMM_WORLD's handler. */
  CHECK_CLASS(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);

  CHECK_MPI(MPI_Win_free(&win));

  /* Windows over ranks of several nodes: the errors of an operation on
   * another node's target come back from its master; shared memory needs
   * one node. */
  if (size < world_size()) {
    MPI_Win wide;
    int far = (world_rank() + size) % world_size();
    CHECK_MPI(MPI_Win_create(v, 16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                             &wide));
    CHECK_MPI(MPI_Win_set_errhandler(wide, MPI_ERRORS_RETURN));
    CHECK_CLASS(MPI_Put(v, 1, MPI_INT, far, 0, 1, MPI_INT, wide), MPI_ERR_RMA_SYNC);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, far, 0, wide));
    CHECK_CLASS(MPI_Put(v, 2, MPI_INT, far, 15, 2, MPI_INT, wide), MPI_ERR_RMA_RANGE);
    CHECK_CLASS(MPI_Get(v, 17, MPI_INT, far, 0, 17, MPI_INT, wide), MPI_ERR_RMA_RANGE);
    CHECK_CLASS(MPI_Put(v, 2, MPI_INT, far, 0, 1, MPI_INT, wide), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Accumulate(&d, 1, MPI_DOUBLE, far, 0, 2, MPI_INT, MPI_SUM, wide),
                MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, far, 0, wide), MPI_ERR_RMA_SYNC);
    CHECK_MPI(MPI_Win_unlock(far, wide));
    /* The lock epoch is over. */
    CHECK_CLASS(MPI_Get(v, 1, MPI_INT, far, 0, 1, MPI_INT, wide), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_flush(far, wide), MPI_ERR_RMA_SYNC);
    CHECK_MPI(MPI_Win_free(&wide));
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &wide));
    CHECK_MPI(MPI_Win_set_errhandler(wide, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, far, 0, wide));
    /* Nothing is attached there: the target's master says so, when the
     * operation reaches it (at the unlock, or at once), and the epoch
     * still ends. */
    int put = MPI_Put(v, 1, MPI_INT, far, 4096, 1, MPI_INT, wide);
    int unlock = MPI_Win_unlock(far, wide);
    CHECK(put == MPI_SUCCESS ? error_class_of(unlock) == MPI_ERR_RMA_RANGE
                             : error_class_of(put) == MPI_ERR_RMA_RANGE && unlock == MPI_SUCCESS,
          "a put outside the regions: MPI_Put %d, MPI_Win_unlock %d", put, unlock);
    CHECK_CLASS(MPI_Get(v, 1, MPI_INT, far, 0, 1, MPI_INT, wide), MPI_ERR_RMA_SYNC);
    CHECK_MPI(MPI_Win_free(&wide));
    CHECK_CLASS(MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &wide),
                MPI_ERR_RMA_SHARED);
  }
  MPI_Comm_free(&node);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) printf("rma_errors: OK\n");
  MPI_Finalize();
  return 0;
}
