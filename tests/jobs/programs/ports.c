/*
 * ports.c -- MPI_Open_port, MPI_Publish_name and MPI_Lookup_name,
 * MPI_Comm_accept and MPI_Comm_connect between the two halves of
 * MPI_COMM_WORLD: the lower half (rank 0 opens the port and publishes it)
 * accepts, the upper half connects; then messages, an allreduce and a
 * merge across, MPI_Comm_disconnect, and the name and the port gone again.
 * Rank 1 looks the name up and checks it against the port rank 0 hands
 * round; the connecting root uses the one handed round (BDMPI keeps names
 * per node, and rank 1 shares rank 0's node in every configuration here).
 * Needs two ranks or more.
 */
#include "check.h"

static const char *kService = "bdmpi-jobs-ports";

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  CHECK(size >= 2, "ports needs two ranks, has %d", size);
  int lower = rank < size / 2;
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, lower, rank, &half));
  char port[MPI_MAX_PORT_NAME] = "";
  if (rank == 0) {
    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK_MPI(MPI_Publish_name(kService, MPI_INFO_NULL, port));
  }
  CHECK_MPI(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
  if (rank == 1) {
    char found[MPI_MAX_PORT_NAME] = "";
    CHECK_MPI(MPI_Lookup_name(kService, MPI_INFO_NULL, found));
    CHECK(strcmp(found, port) == 0, "looked up '%s', published '%s'", found, port);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Comm inter;
  if (lower) {
    CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter));
  } else {
    CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter));
  }
  int remote = 0;
  CHECK_MPI(MPI_Comm_remote_size(inter, &remote));
  CHECK(remote == size - size_of(half), "remote group of %d", remote);
  /* Rank r of each half sends to rank r % remote of the other. */
  int me = rank_in(half), mine = 10 * rank, got = -1;
  MPI_Request request;
  CHECK_MPI(MPI_Isend(&mine, 1, MPI_INT, me % remote, 3, inter, &request));
  for (int r = 0; r < remote; ++r) {
    if (r % size_of(half) != me) continue;
    MPI_Status status;
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, r, 3, inter, &status));
    int world_of_r = lower ? size / 2 + r : r;
    CHECK(got == 10 * world_of_r, "rank %d got %d from remote %d", rank, got, r);
  }
  CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  int one = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter));
  CHECK(sum == remote, "allreduce across: %d", sum);
  MPI_Comm merged;
  CHECK_MPI(MPI_Intercomm_merge(inter, lower ? 0 : 1, &merged));
  CHECK(rank_in(merged) == rank, "merged rank %d of world rank %d", rank_in(merged), rank);
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK_MPI(MPI_Comm_disconnect(&inter));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    CHECK_MPI(MPI_Unpublish_name(kService, MPI_INFO_NULL, port));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char again[MPI_MAX_PORT_NAME];
    int rc = MPI_Lookup_name(kService, MPI_INFO_NULL, again);
    CHECK(error_class_of(rc) == MPI_ERR_NAME, "lookup after unpublish: class %d",
          error_class_of(rc));
    CHECK_MPI(MPI_Close_port(port));
  }
  CHECK_MPI(MPI_Comm_free(&half));
  MPI_Finalize();
  return 0;
}
