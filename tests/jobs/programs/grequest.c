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
 */
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

int main(int argc, char **argv) {
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

  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
