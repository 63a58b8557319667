/*
 * comm_join.c -- MPI_Comm_join over a TCP socket the program made: rank 0
 * listens on the loopback, tells rank 1 the port, rank 1 connects; both
 * join, exchange across the intercommunicator, merge and disconnect. The
 * other ranks only watch. Twice: first rank 0 waits in MPI until rank 1
 * has connected; then, as mpi4py's testJoin does, rank 0 calls accept()
 * at once, before rank 1 has run, so with one running slot per node
 * (-nr 1) it waits in accept() for a rank that needs its slot (BDMPI's
 * accept lets the slot go: slave/comm/socket_accept.cpp). Needs two ranks
 * or more.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"

/* Rank `rank`'s end (0 or 1) of a loopback connection; with
 * `accept_at_once` rank 0 accepts without waiting for rank 1's word. */
static int connected_pair(int rank, int accept_at_once) {
  int fd = -1;
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (rank == 0) {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(listener >= 0, "socket");
    CHECK(bind(listener, (struct sockaddr *)&addr, sizeof addr) == 0, "bind");
    CHECK(listen(listener, 1) == 0, "listen");
    socklen_t len = sizeof addr;
    CHECK(getsockname(listener, (struct sockaddr *)&addr, &len) == 0, "getsockname");
    int port = ntohs(addr.sin_port), connected = 0;
    CHECK_MPI(MPI_Send(&port, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
    /* accept() is no MPI call: wait in MPI until rank 1 has connected. */
    if (!accept_at_once)
      CHECK_MPI(MPI_Recv(&connected, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    fd = accept(listener, NULL, NULL);
    CHECK(fd >= 0, "accept");
    close(listener);
  } else {
    int port = 0, connected = 1;
    CHECK_MPI(MPI_Recv(&port, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    addr.sin_port = htons((unsigned short)port);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(fd >= 0, "socket");
    CHECK(connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0, "connect");
    if (!accept_at_once) CHECK_MPI(MPI_Send(&connected, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
  }
  return fd;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = world_rank();
  CHECK(world_size() >= 2, "comm_join needs two ranks");
  for (int accept_at_once = 0; accept_at_once <= 1; ++accept_at_once) {
    if (rank > 1) continue;
    int fd = connected_pair(rank, accept_at_once);
    MPI_Comm inter;
    CHECK_MPI(MPI_Comm_join(fd, &inter));
    int remote = 0;
    CHECK_MPI(MPI_Comm_remote_size(inter, &remote));
    CHECK(remote == 1 && size_of(inter) == 1, "join made %d x %d", size_of(inter), remote);
    int mine = 100 + rank, theirs = -1;
    CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 5, &theirs, 1, MPI_INT, 0, 5, inter,
                           MPI_STATUS_IGNORE));
    CHECK(theirs == 100 + (1 - rank), "rank %d got %d", rank, theirs);
    MPI_Comm merged;
    CHECK_MPI(MPI_Intercomm_merge(inter, rank, &merged));
    CHECK(rank_in(merged) == rank, "merged rank %d", rank_in(merged));
    CHECK_MPI(MPI_Comm_free(&merged));
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    close(fd);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Finalize();
  return 0;
}
