/*
 * comm_idup: MPI_Comm_idup does not wait for the other members.
 *
 *  1. Every rank but 0 starts an idup of MPI_COMM_WORLD and then sends to
 *     rank 0 with MPI_Ssend, which completes only when rank 0 receives;
 *     rank 0 receives from everyone first and idups last. An idup that
 *     waited for the others would deadlock here (with -nr 1 as well).
 *  2. Several idups outstanding at once on two parents (MPI_COMM_WORLD and
 *     a split of it) with a nonblocking allreduce on the parent between
 *     them, completed with MPI_Waitall in reverse order of the calls and,
 *     for a second round, with MPI_Waitany and MPI_Testall: each copy has
 *     the parent's members in order, works for collectives and keeps its
 *     messages apart from the others'.
 *  3. MPI_Comm_idup keeps attributes whose copy callback asks for it.
 *  4. MPI_Comm_disconnect of an idup'd communicator: it is freed.
 *  5. MPI_Request_free of an idup that cannot have completed (rank 0
 *     joins only after the others' Ssends, sent after their free) fails
 *     with MPI_ERR_REQUEST and keeps the request, as Open MPI does: the new
 *     communicator must come out of a completion to be usable and freed.
 *     The request then completes, and the copy works.
 */
#include "check.h"

enum { kDups = 3 };

static int copies;
static int count_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)comm, (void)keyval, (void)extra;
  ++copies;
  *(void **)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

/* The copy has the parent's members in order and its own messages. */
static void check_copy(MPI_Comm copy, MPI_Comm parent, const char *what) {
  int result = -1;
  CHECK_MPI(MPI_Comm_compare(copy, parent, &result));
  CHECK(result == MPI_CONGRUENT, "%s: compare gives %d", what, result);
  int one = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, copy));
  CHECK(sum == size_of(parent), "%s: allreduce %d", what, sum);
  int n = size_of(copy), r = rank_in(copy);
  int token = -1, mine = 1000 + r;
  CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, (r + 1) % n, 5, &token, 1, MPI_INT, (r + n - 1) % n,
                         5, copy, MPI_STATUS_IGNORE));
  CHECK(token == 1000 + (r + n - 1) % n, "%s: ring token %d", what, token);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me = world_rank(), size = world_size();

  /* 1. Rank 0 idups only after everyone else's Ssend reached it. */
  MPI_Comm late;
  MPI_Request request;
  int buf = me;
  if (me == 0) {
    for (int r = 1; r < size; ++r)
      CHECK_MPI(MPI_Recv(&buf, 1, MPI_INT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &late, &request));
  } else {
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &late, &request));
    CHECK_MPI(MPI_Ssend(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
  }
  CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  CHECK(request == MPI_REQUEST_NULL, "the request was not freed");
  check_copy(late, MPI_COMM_WORLD, "late idup");
  CHECK_MPI(MPI_Comm_free(&late));

  /* 2. Several outstanding on two parents, completed in other orders. */
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me % 2, size - me, &half));
  for (int round = 0; round < 2; ++round) {
    MPI_Comm world_dups[kDups], half_dups[kDups];
    MPI_Request requests[2 * kDups + 1];
    int one = 1, total = 0;
    for (int k = 0; k < kDups; ++k) {
      CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &world_dups[k], &requests[2 * k]));
      CHECK_MPI(MPI_Comm_idup(half, &half_dups[k], &requests[2 * k + 1]));
      if (k == 1)
        CHECK_MPI(MPI_Iallreduce(&one, &total, 1, MPI_INT, MPI_SUM, half, &requests[2 * kDups]));
    }
    if (round == 0) {
      /* Reverse order: the last call's request first. */
      MPI_Request reversed[2 * kDups + 1];
      for (int i = 0; i <= 2 * kDups; ++i) reversed[i] = requests[2 * kDups - i];
      CHECK_MPI(MPI_Waitall(2 * kDups + 1, reversed, MPI_STATUSES_IGNORE));
    } else {
      int flag = 0, index = -1;
      CHECK_MPI(MPI_Waitany(2 * kDups + 1, requests, &index, MPI_STATUS_IGNORE));
      CHECK(index >= 0 && index <= 2 * kDups, "waitany index %d", index);
      while (!flag) CHECK_MPI(MPI_Testall(2 * kDups + 1, requests, &flag, MPI_STATUSES_IGNORE));
    }
    CHECK(total == size_of(half), "iallreduce between idups: %d", total);
    for (int k = kDups - 1; k >= 0; --k) {
      check_copy(half_dups[k], half, "idup of a split");
      check_copy(world_dups[k], MPI_COMM_WORLD, "idup of the world");
      CHECK_MPI(MPI_Comm_free(&half_dups[k]));
      CHECK_MPI(MPI_Comm_free(&world_dups[k]));
    }
  }
  CHECK_MPI(MPI_Comm_free(&half));

  /* 3. Attributes follow their copy callbacks. */
  int keyval;
  static int value = 7;
  CHECK_MPI(MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &keyval, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &value));
  MPI_Comm copy;
  CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &copy, &request));
  CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  int *got = NULL, flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(copy, keyval, &got, &flag));
  CHECK(flag && got == &value && copies == 1, "attribute on the copy: flag %d, copies %d", flag,
        copies);
  CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval));
  /* 4. Disconnect instead of free. */
  CHECK_MPI(MPI_Comm_disconnect(&copy));
  CHECK(copy == MPI_COMM_NULL, "MPI_Comm_disconnect left the handle");
  CHECK_MPI(MPI_Comm_free_keyval(&keyval));

  /* 5. Freeing an active idup is refused. */
  MPI_Comm unfreed = MPI_COMM_NULL;
  MPI_Errhandler previous;
  CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &previous));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  if (me == 0) {
    for (int r = 1; r < size; ++r)
      CHECK_MPI(MPI_Recv(&buf, 1, MPI_INT, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &unfreed, &request));
  int rc = MPI_Request_free(&request), error_class = -1;
  MPI_Error_class(rc, &error_class);
  CHECK(error_class == MPI_ERR_REQUEST, "MPI_Request_free of an active idup: class %d",
        error_class);
  CHECK(request != MPI_REQUEST_NULL, "the refused MPI_Request_free nulled the request");
  if (me != 0) CHECK_MPI(MPI_Ssend(&buf, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, previous));
  CHECK_MPI(MPI_Errhandler_free(&previous));
  CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  check_copy(unfreed, MPI_COMM_WORLD, "idup whose free was refused");
  CHECK_MPI(MPI_Comm_free(&unfreed));

  if (me == 0) printf("comm_idup: ok\n");
  MPI_Finalize();
  return 0;
}
