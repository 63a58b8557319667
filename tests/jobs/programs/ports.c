/*
 * ports.c -- MPI_Open_port, MPI_Publish_name and MPI_Lookup_name,
 * MPI_Comm_accept and MPI_Comm_connect between the two halves of
 * MPI_COMM_WORLD: the lower half (rank 0 opens the port and publishes it)
 * accepts, the upper half connects; then messages, an allreduce and a
 * merge across, MPI_Comm_disconnect, and the name and the port gone again.
 * Rank 1 and the connecting root (the upper half's first rank, on the
 * last node with -nn 2) look the name up and check it against the port
 * rank 0 hands round; the connecting root connects to the port it looked
 * up (names are the job's, seen from every node). A name may also stand
 * for any string, not only a port of MPI_Open_port's (as in MPICH's
 * namepub test). Needs two ranks or more.
 */
#include <unistd.h>

#include "check.h"

/* Published names are seen by the user's other jobs on the node (BDMPI;
 * Open MPI with ompi-server), so each run names its own service. */
static char service[64];

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank(), size = world_size();
  CHECK(size >= 2, "ports needs two ranks, has %d", size);
  int lower = rank < size / 2;
  int run = (int)getpid();
  CHECK_MPI(MPI_Bcast(&run, 1, MPI_INT, 0, MPI_COMM_WORLD));
  snprintf(service, sizeof service, "bdmpi-jobs-ports-%d", run);
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, lower, rank, &half));
  char port[MPI_MAX_PORT_NAME] = "";
  if (rank == 0) {
    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK_MPI(MPI_Publish_name(service, MPI_INFO_NULL, port));
  }
  CHECK_MPI(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
  if (rank == 1 || rank == size / 2) {
    char found[MPI_MAX_PORT_NAME] = "";
    CHECK_MPI(MPI_Lookup_name(service, MPI_INFO_NULL, found));
    CHECK(strcmp(found, port) == 0, "looked up '%s', published '%s'", found, port);
    if (rank == size / 2) strcpy(port, found);
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
    CHECK_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char again[MPI_MAX_PORT_NAME];
    int rc = MPI_Lookup_name(service, MPI_INFO_NULL, again);
    CHECK(error_class_of(rc) == MPI_ERR_NAME, "lookup after unpublish: class %d",
          error_class_of(rc));
    CHECK_MPI(MPI_Close_port(port));
  }
  /* Any string, published at rank 0 and looked up from the last node. */
  char any_service[80], any[MPI_MAX_PORT_NAME] = "";
  snprintf(any_service, sizeof any_service, "%s-any", service);
  const char *text = "otherhost:122 any string";
  if (rank == 0) CHECK_MPI(MPI_Publish_name(any_service, MPI_INFO_NULL, text));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == size - 1) {
    CHECK_MPI(MPI_Lookup_name(any_service, MPI_INFO_NULL, any));
    CHECK(strcmp(any, text) == 0, "looked up '%s', published '%s'", any, text);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK_MPI(MPI_Unpublish_name(any_service, MPI_INFO_NULL, text));
  CHECK_MPI(MPI_Comm_free(&half));
  MPI_Finalize();
  return 0;
}
