/*
 * coll_requests: what the request calls other than completion do with a
 * collective's request.
 *
 *  1. MPI_Request_get_status of an MPI_Iallreduce (a schedule of several
 *     receives, one per other rank) says complete only once the whole
 *     result is in the buffer, and leaves the request for MPI_Wait. The
 *     same for MPI_Ibcast and, where the library has them, MPI_Allreduce_init.
 *  2. MPI_Cancel of an active collective request (MPI_Ibcast,
 *     MPI_Iallreduce, and a started MPI_Bcast_init): MPI makes it
 *     erroneous, and Open MPI refuses it with MPI_ERR_REQUEST (under
 *     MPI_ERRORS_RETURN), the request still there; the operation then
 *     completes as usual, with its data, and is not cancelled. Of an
 *     inactive persistent one: MPI_SUCCESS.
 */
#include <mpi.h>

#include "check.h"

enum { kCount = 4, kRounds = 3 };

static int rank, size;

/* x_r[i] = (r + 1) * (i + 1) + round: the sum over r is known. */
static int contribution(int r, int i, int round) { return (r + 1) * (i + 1) + round; }

static void check_sum(const int *got, int round, const char *what) {
  for (int i = 0; i < kCount; ++i) {
    int want = 0;
    for (int r = 0; r < size; ++r) want += contribution(r, i, round);
    CHECK(got[i] == want, "%s round %d: element %d is %d, want %d", what, round, i, got[i], want);
  }
}

static int not_cancelled(const MPI_Status *st) {
  int flag = -1;
  CHECK_MPI(MPI_Test_cancelled(st, &flag));
  return flag == 0;
}

/* MPI_Request_get_status until complete: by then the result is there,
 * and the request stays until MPI_Wait takes it. */
static void get_status_until_complete(MPI_Request *req) {
  int flag = 0;
  MPI_Status st;
  while (!flag) CHECK_MPI(MPI_Request_get_status(*req, &flag, &st));
  CHECK(*req != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
}

static void get_status_allreduce(int round) {
  int send[kCount], recv[kCount];
  for (int i = 0; i < kCount; ++i) {
    send[i] = contribution(rank, i, round);
    recv[i] = -1;
  }
  MPI_Request req;
  CHECK_MPI(MPI_Iallreduce(send, recv, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
  /* Every rank has sent its contribution: most steps are there at once. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  get_status_until_complete(&req);
  check_sum(recv, round, "MPI_Iallreduce at MPI_Request_get_status's complete");
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL, "MPI_Wait left the request");
  check_sum(recv, round, "MPI_Iallreduce after MPI_Wait");
}

static void get_status_bcast(int root) {
  int buf[kCount];
  for (int i = 0; i < kCount; ++i) buf[i] = rank == root ? 70 + i : -1;
  MPI_Request req;
  CHECK_MPI(MPI_Ibcast(buf, kCount, MPI_INT, root, MPI_COMM_WORLD, &req));
  get_status_until_complete(&req);
  for (int i = 0; i < kCount; ++i)
    CHECK(buf[i] == 70 + i, "MPI_Ibcast from %d at MPI_Request_get_status's complete: "
          "element %d is %d", root, i, buf[i]);
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
}

static void cancel_ibcast(int root) {
  int buf[kCount];
  for (int i = 0; i < kCount; ++i) buf[i] = rank == root ? 300 + root + i : -1;
  MPI_Request req;
  CHECK_MPI(MPI_Ibcast(buf, kCount, MPI_INT, root, MPI_COMM_WORLD, &req));
  CHECK_CLASS(MPI_Cancel(&req), MPI_ERR_REQUEST);
  CHECK(req != MPI_REQUEST_NULL, "a refused MPI_Cancel freed the request");
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(not_cancelled(&st), "MPI_Ibcast's status says cancelled");
  for (int i = 0; i < kCount; ++i)
    CHECK(buf[i] == 300 + root + i, "MPI_Ibcast from %d after a refused MPI_Cancel: "
          "element %d is %d", root, i, buf[i]);
}

static void cancel_iallreduce(int round) {
  int send[kCount], recv[kCount];
  for (int i = 0; i < kCount; ++i) send[i] = contribution(rank, i, round);
  MPI_Request req;
  CHECK_MPI(MPI_Iallreduce(send, recv, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
  CHECK_CLASS(MPI_Cancel(&req), MPI_ERR_REQUEST);
  MPI_Status st;
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Test(&req, &flag, &st));
  CHECK(not_cancelled(&st), "MPI_Iallreduce's status says cancelled");
  check_sum(recv, round, "MPI_Iallreduce after a refused MPI_Cancel");
}

#if MPI_VERSION >= 4 || defined(BDMPI)
static void persistent(void) {
  int send[kCount], recv[kCount];
  MPI_Request reduce, bcast;
  int b = -1;
  CHECK_MPI(MPI_Allreduce_init(send, recv, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &reduce));
  CHECK_MPI(MPI_Bcast_init(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bcast));
  /* Inactive: nothing to cancel. */
  CHECK_MPI(MPI_Cancel(&bcast));
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kCount; ++i) {
      send[i] = contribution(rank, i, round);
      recv[i] = -1;
    }
    b = rank == 0 ? 900 + round : -1;
    CHECK_MPI(MPI_Start(&reduce));
    CHECK_MPI(MPI_Start(&bcast));
    CHECK_CLASS(MPI_Cancel(&bcast), MPI_ERR_REQUEST);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    get_status_until_complete(&reduce);
    check_sum(recv, round, "MPI_Allreduce_init at MPI_Request_get_status's complete");
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&bcast, &st));
    CHECK(not_cancelled(&st), "MPI_Bcast_init's status says cancelled");
    CHECK(b == 900 + round, "MPI_Bcast_init round %d after a refused MPI_Cancel gave %d", round, b);
    CHECK_MPI(MPI_Wait(&reduce, MPI_STATUS_IGNORE));
    CHECK(reduce != MPI_REQUEST_NULL, "MPI_Wait freed a persistent request");
  }
  CHECK_MPI(MPI_Request_free(&reduce));
  CHECK_MPI(MPI_Request_free(&bcast));
}
#endif

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int round = 0; round < kRounds; ++round) get_status_allreduce(round);
  for (int root = 0; root < size; ++root) get_status_bcast(root);
  for (int root = 0; root < size; ++root) cancel_ibcast(root);
  for (int round = 0; round < kRounds; ++round) cancel_iallreduce(round);
#if MPI_VERSION >= 4 || defined(BDMPI)
  persistent();
#endif
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
