/*
 * rma_errors.c -- the error classes of one-sided calls, returned under
 * MPI_ERRORS_RETURN set on the window: an operation outside an epoch
 * (MPI_ERR_RMA_SYNC), outside the target's window (MPI_ERR_RMA_RANGE), to
 * a rank not in the window (MPI_ERR_RANK), an accumulate whose datatypes
 * differ (MPI_ERR_TYPE), epoch calls out of order, a call of another
 * flavour's (MPI_ERR_RMA_FLAVOR), an invalid window (MPI_ERR_WIN), a window
 * over several nodes (not supported yet).
 */
#include "check.h"

/* --deadlock: rank 0 holds an exclusive lock on itself and waits for a
 * message that never comes; rank 1 waits for the lock. The runtime must
 * find the deadlock and name both waits. */
static void deadlock(MPI_Comm node) {
  int *mem = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mem, &win));
  if (rank_in(node) == 0) {
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    CHECK_MPI(MPI_Barrier(node));
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 1, 9, node, MPI_STATUS_IGNORE));
  } else if (rank_in(node) == 1) {
    CHECK_MPI(MPI_Barrier(node));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
  }
  CHECK(0, "the deadlock returned");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  if (arg_flag(argc, argv, "--deadlock")) deadlock(node);
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
  /* A correct one still works. */
  CHECK_MPI(MPI_Accumulate(v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));

  /* Lock twice, unlock twice. */
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC);
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK_CLASS(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);

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
    CHECK_MPI(MPI_Win_unlock(far, wide));
    CHECK_MPI(MPI_Win_free(&wide));
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &wide));
    CHECK_MPI(MPI_Win_set_errhandler(wide, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, far, 0, wide));
    /* Nothing is attached there: the target's master says so. */
    CHECK_CLASS(MPI_Put(v, 1, MPI_INT, far, 4096, 1, MPI_INT, wide), MPI_ERR_RMA_RANGE);
    CHECK_MPI(MPI_Win_unlock(far, wide));
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
