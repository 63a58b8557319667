/*
 * cancel: MPI_Cancel and MPI_Test_cancelled, honestly either way.
 *
 *   * A receive nobody sends to is cancelled: MPI_Wait returns, the status
 *     says cancelled; the next message with that source and tag goes to
 *     the receive posted after it (a cancelled MPI_ANY_SOURCE receive takes
 *     nothing).
 *   * A receive whose message has arrived (probed first) is not cancelled
 *     and has the data.
 *   * Sends (MPI_Isend, MPI_Ibsend, MPI_Issend) to the right neighbour,
 *     which receives only after it hears whether the send was cancelled:
 *     either answer is allowed, but it must be true. Under BDMPI a send to
 *     a rank of the same node is cancelled (its message waits unreceived
 *     in the node's master), one to another node is not.
 */
#include "check.h"

static int cancelled(const MPI_Status *st) {
  int flag = -1;
  MPI_Test_cancelled(st, &flag);
  return flag;
}

enum { kStandard, kBuffered, kSynchronous, kModes };
static const char *const kModeName[kModes] = {"MPI_Isend", "MPI_Ibsend", "MPI_Issend"};

/* The sender cancels, then (after a barrier, so the receiver's receive
 * may be posted) completes the send and tells the receiver the outcome. */
static int cancel_send(int mode, int right, int left, MPI_Comm comm) {
  const int rank = world_rank();
  int value = 500 + rank, got = -1, outcome = -1;
  MPI_Request send, recv;
  MPI_Status st;
  if (mode == kStandard) MPI_Isend(&value, 1, MPI_INT, right, 20 + mode, comm, &send);
  if (mode == kBuffered) MPI_Ibsend(&value, 1, MPI_INT, right, 20 + mode, comm, &send);
  if (mode == kSynchronous) MPI_Issend(&value, 1, MPI_INT, right, 20 + mode, comm, &send);
  MPI_Cancel(&send);
  MPI_Barrier(comm);
  MPI_Irecv(&got, 1, MPI_INT, left, 20 + mode, comm, &recv);
  MPI_Wait(&send, &st);
  int sent_cancelled = cancelled(&st);
  MPI_Sendrecv(&sent_cancelled, 1, MPI_INT, right, 30, &outcome, 1, MPI_INT, left, 30, comm,
               MPI_STATUS_IGNORE);
  if (outcome) {
    MPI_Cancel(&recv);
    MPI_Wait(&recv, &st);
    CHECK(cancelled(&st), "%s cancelled, but the receive posted for it was not",
          kModeName[mode]);
  } else {
    MPI_Wait(&recv, &st);
    CHECK(!cancelled(&st), "a received message's status says cancelled");
    CHECK(got == 500 + left, "%s not cancelled: got %d, want %d", kModeName[mode], got,
          500 + left);
  }
  return sent_cancelled;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Comm comm = MPI_COMM_WORLD;
  int got = -1, value = 0;
  MPI_Request req, next;
  MPI_Status st;

  /* Unmatched receives are cancelled; later messages go elsewhere. */
  MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 10, comm, &req);
  MPI_Cancel(&req);
  MPI_Wait(&req, &st);
  CHECK(cancelled(&st), "an unmatched MPI_ANY_SOURCE receive was not cancelled");
  CHECK(req == MPI_REQUEST_NULL, "MPI_Wait of a cancelled request left it");
  MPI_Irecv(&got, 1, MPI_INT, left, 11, comm, &req);
  MPI_Cancel(&req);
  MPI_Test(&req, &value, &st);
  CHECK(value && cancelled(&st), "MPI_Test of a cancelled receive: flag %d", value);
  /* Nobody sends tag 10 or 11 before every rank has cancelled. */
  MPI_Barrier(comm);
  MPI_Irecv(&got, 1, MPI_INT, left, 10, comm, &next);
  value = 300 + rank;
  MPI_Send(&value, 1, MPI_INT, right, 10, comm);
  MPI_Wait(&next, &st);
  CHECK(!cancelled(&st) && got == 300 + left, "after a cancelled receive: got %d, want %d",
        got, 300 + left);

  /* A receive that has its message is not cancelled. */
  value = 400 + rank;
  MPI_Send(&value, 1, MPI_INT, right, 12, comm);
  MPI_Probe(left, 12, comm, &st);
  MPI_Irecv(&got, 1, MPI_INT, left, 12, comm, &req);
  MPI_Cancel(&req);
  MPI_Wait(&req, &st);
  CHECK(!cancelled(&st) && got == 400 + left,
        "a matched receive: cancelled %d, got %d, want %d", cancelled(&st), got, 400 + left);

  /* Sends. */
  int pack_size = 0;
  MPI_Pack_size(1, MPI_INT, comm, &pack_size);
  int buffer_size = pack_size + MPI_BSEND_OVERHEAD;
  void *buffer = xmalloc((size_t)buffer_size);
  MPI_Buffer_attach(buffer, buffer_size);
  int outcome[kModes];
  for (int mode = 0; mode < kModes; ++mode) outcome[mode] = cancel_send(mode, right, left, comm);
  void *detached = NULL;
  MPI_Buffer_detach(&detached, &buffer_size);
  free(buffer);
#ifdef BDMPI
  /* The ranks of this node: the same node's mailbox holds the message. */
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Group world_group, node_group;
  MPI_Comm_group(comm, &world_group);
  MPI_Comm_group(node, &node_group);
  int right_in_node = MPI_UNDEFINED;
  MPI_Group_translate_ranks(world_group, 1, &right, node_group, &right_in_node);
  for (int mode = 0; mode < kModes; ++mode)
    CHECK(outcome[mode] == (right_in_node != MPI_UNDEFINED),
          "%s to rank %d (%s node): cancelled %d", kModeName[mode], right,
          right_in_node != MPI_UNDEFINED ? "this" : "another", outcome[mode]);
  MPI_Group_free(&world_group);
  MPI_Group_free(&node_group);
  MPI_Comm_free(&node);
#endif
  (void)outcome;

  MPI_Barrier(comm);
  MPI_Finalize();
  return 0;
}
