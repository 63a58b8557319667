/*
 * two_jobs.c -- names, ports and MPI_Comm_join between two jobs started
 * independently (tests/jobs/two_jobs.sh starts them): `two_jobs a DIR` and
 * `two_jobs b DIR`, DIR shared by both. Rank 0 of each opens a port,
 * publishes it under its job's service, writes it to DIR/<job>.port and
 * looks the other job's service up until it is there, checking it against
 * the other's file; publishing the other job's service fails
 * (MPI_ERR_NAME; not checked under Open MPI 4.1, which overwrites it).
 * Then A (2 ranks) accepts and B (3 ranks) connects, and over the
 * intercommunicator (exchange below) they send small messages both ways
 * (nonblocking), from any source (probed), 4 MiB each way at once,
 * allreduce across the jobs and barrier on a dup, merge, allreduce, bcast
 * and barrier on the merged communicator (BDMPI refuses an allgather
 * there) and disconnect. Then rank 0 of each joins over a Unix socket in DIR and
 * the two exchange a message over the joined communicator. A ends
 * without unpublishing under BDMPI (its job's end takes its names away),
 * and B waits until A's name is gone. `two_jobs hold DIR` (BDMPI)
 * publishes and kills its master (the driver checks that the name goes
 * with the job). `two_jobs quit DIR` connects to A's port and kills its
 * master while A (`two_jobs stay DIR`) waits for its message: A must end
 * with an error naming the other job, not hang.
 */
#include <errno.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"

static char dir[512];

static void path_of(char *out, size_t size, const char *name) {
  snprintf(out, size, "%s/%s", dir, name);
}

static void write_file(const char *name, const char *text) {
  char path[600], aside[640];
  path_of(path, sizeof path, name);
  snprintf(aside, sizeof aside, "%s.new", path);
  FILE *file = fopen(aside, "w");
  CHECK(file != NULL, "cannot write %s", aside);
  fputs(text, file);
  CHECK(fclose(file) == 0, "cannot write %s", aside);
  CHECK(rename(aside, path) == 0, "cannot rename %s", aside);
}

static int read_file(const char *name, char *text, size_t size) {
  char path[600];
  path_of(path, sizeof path, name);
  FILE *file = fopen(path, "r");
  if (file == NULL) return 0;
  size_t n = fread(text, 1, size - 1, file);
  text[n] = '\0';
  fclose(file);
  return 1;
}

static void pause_ms(int ms) { usleep((useconds_t)ms * 1000); }

/* Looks `service` up until it is there (up to 30 s). */
static void await_name(const char *service, char *port) {
  for (int i = 0; i < 1500; ++i) {
    if (MPI_Lookup_name(service, MPI_INFO_NULL, port) == MPI_SUCCESS) return;
    pause_ms(20);
  }
  CHECK(0, "service '%s' was never published", service);
}

/* A Unix socket between the two jobs' ranks 0 for MPI_Comm_join: A
 * listens on DIR/join.sock, B connects. */
static int join_socket(int listening) {
  struct sockaddr_un address;
  memset(&address, 0, sizeof address);
  address.sun_family = AF_UNIX;
  char path[600];
  path_of(path, sizeof path, "join.sock");
  CHECK(strlen(path) < sizeof address.sun_path, "socket path %s is too long", path);
  memcpy(address.sun_path, path, strlen(path) + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK(fd >= 0, "socket: %s", strerror(errno));
  if (listening) {
    CHECK(bind(fd, (struct sockaddr *)&address, sizeof address) == 0, "bind: %s",
          strerror(errno));
    CHECK(listen(fd, 1) == 0, "listen: %s", strerror(errno));
    int peer = accept(fd, NULL, NULL);
    CHECK(peer >= 0, "accept: %s", strerror(errno));
    close(fd);
    unlink(address.sun_path);
    return peer;
  }
  for (int i = 0; connect(fd, (struct sockaddr *)&address, sizeof address) != 0; ++i) {
    CHECK(i < 1500, "connect to %s: %s", address.sun_path, strerror(errno));
    pause_ms(20);
  }
  return fd;
}

/* Over `inter` (`low` is A, which accepted): small messages both ways, a
 * receive from any source at rank 0, a large message each way between the
 * ranks 0 at once, an allreduce across the jobs; then a merge, an
 * allreduce, a bcast and a barrier on the merged communicator, and
 * disconnect. */
static void exchange(MPI_Comm inter, int low) {
  int rank = world_rank(), remote = 0, is_inter = 0;
  CHECK_MPI(MPI_Comm_test_inter(inter, &is_inter));
  CHECK(is_inter, "not an intercommunicator");
  CHECK_MPI(MPI_Comm_remote_size(inter, &remote));
  CHECK(remote == (low ? 3 : 2), "remote group of %d", remote);
  int base = low ? 100 : 200, their_base = low ? 200 : 100;
  int mine = base + rank, got = -1, from[3] = {-1, -1, -1};
  MPI_Request requests[4], request;
  int pending = 0;
  for (int r = 0; r < remote; ++r)
    if (r % world_size() == rank)
      CHECK_MPI(MPI_Irecv(&from[r], 1, MPI_INT, r, 7, inter, &requests[pending++]));
  CHECK_MPI(MPI_Isend(&mine, 1, MPI_INT, rank % remote, 7, inter, &requests[pending++]));
  CHECK_MPI(MPI_Waitall(pending, requests, MPI_STATUSES_IGNORE));
  for (int r = 0; r < remote; ++r)
    if (r % world_size() == rank)
      CHECK(from[r] == their_base + r, "got %d from remote %d", from[r], r);

  CHECK_MPI(MPI_Send(&mine, 1, MPI_INT, 0, 8, inter));
  if (rank == 0) {
    int seen[8] = {0}, count = -1;
    MPI_Status probed;
    CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 8, inter, &probed));
    CHECK_MPI(MPI_Get_count(&probed, MPI_INT, &count));
    CHECK(probed.MPI_SOURCE >= 0 && probed.MPI_SOURCE < remote && count == 1,
          "probed source %d, %d ints", probed.MPI_SOURCE, count);
    for (int r = 0; r < remote; ++r) {
      MPI_Status status;
      CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 8, inter, &status));
      CHECK(status.MPI_SOURCE >= 0 && status.MPI_SOURCE < remote && status.MPI_TAG == 8,
            "any source: source %d tag %d", status.MPI_SOURCE, status.MPI_TAG);
      CHECK(got == their_base + status.MPI_SOURCE, "any source: %d from %d", got,
            status.MPI_SOURCE);
      seen[status.MPI_SOURCE]++;
    }
    for (int r = 0; r < remote; ++r) CHECK(seen[r] == 1, "remote %d sent %d", r, seen[r]);

    /* 4 MiB each way at once: neither side may wait for the other to read. */
    enum { kLarge = 1 << 19 };
    double *out = malloc(kLarge * sizeof *out), *in = malloc(kLarge * sizeof *in);
    CHECK(out != NULL && in != NULL, "out of memory");
    for (int i = 0; i < kLarge; ++i) out[i] = base + i * 0.5;
    CHECK_MPI(MPI_Isend(out, kLarge, MPI_DOUBLE, 0, 9, inter, &request));
    MPI_Status status;
    CHECK_MPI(MPI_Recv(in, kLarge, MPI_DOUBLE, 0, 9, inter, &status));
    CHECK_MPI(MPI_Get_count(&status, MPI_DOUBLE, &count));
    CHECK(count == kLarge, "large message of %d doubles", count);
    for (int i = 0; i < kLarge; ++i)
      CHECK(in[i] == their_base + i * 0.5, "large message: [%d] = %g", i, in[i]);
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    free(out);
    free(in);
  }

  int one = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter));
  CHECK(sum == remote, "allreduce across the jobs: %d of %d", sum, remote);

  MPI_Comm copy;
  CHECK_MPI(MPI_Comm_dup(inter, &copy));
  CHECK_MPI(MPI_Barrier(copy));
  CHECK_MPI(MPI_Comm_free(&copy));

  MPI_Comm merged;
  CHECK_MPI(MPI_Intercomm_merge(inter, low ? 0 : 1, &merged));
  int size = size_of(merged), at = rank_in(merged);
  CHECK(size == world_size() + remote, "merged size %d", size);
  CHECK(at == (low ? rank : remote + rank), "merged rank %d", at);
  int total = -1;
  CHECK_MPI(MPI_Allreduce(&at, &total, 1, MPI_INT, MPI_SUM, merged));
  CHECK(total == size * (size - 1) / 2, "allreduce on the merged communicator: %d", total);
  int from_last[3] = {at, at, at};
  CHECK_MPI(MPI_Bcast(from_last, 3, MPI_INT, size - 1, merged));
  for (int i = 0; i < 3; ++i)
    CHECK(from_last[i] == size - 1, "bcast on the merged communicator: [%d] = %d", i,
          from_last[i]);
  CHECK_MPI(MPI_Barrier(merged));
#ifdef BDMPI
  /* BDMPI serves some collectives between two jobs and refuses the others. */
  MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
  int all[8];
  int rc = MPI_Allgather(&at, 1, MPI_INT, all, 1, MPI_INT, merged);
  CHECK(error_class_of(rc) == MPI_ERR_COMM, "MPI_Allgather between two jobs: class %d",
        error_class_of(rc));
#endif
  CHECK_MPI(MPI_Comm_free(&merged));
  CHECK_MPI(MPI_Comm_disconnect(&inter));
}

/* BDMPI only: the rank's parent is its master, whose death ends the job
 * (its ranks get SIGKILL). The other ranks wait in a barrier rank 0 never
 * joins, which gives up their running slot (-nr 1) to rank 0. */
static void kill_master(void) {
  if (world_rank() == 0) kill(getppid(), SIGKILL);
  else MPI_Barrier(MPI_COMM_WORLD);
  for (;;) pause_ms(100);
}

/* `stay` accepts `quit`'s connection and waits for a message `quit`
 * never sends: its job dies, which must end this one with an error. */
static void peer_dies(int stay) {
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm inter;
  if (stay) {
    if (world_rank() == 0) {
      CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
      write_file("stay.port", port);
    }
    CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    CHECK_MPI(MPI_Barrier(inter));
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL);
    int got = 0;
    MPI_Recv(&got, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
    CHECK(0, "a message from a job that died");
  }
  for (int i = 0; world_rank() == 0 && !read_file("stay.port", port, sizeof port); ++i) {
    CHECK(i < 1500, "no stay.port");
    pause_ms(20);
  }
  CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
  CHECK_MPI(MPI_Barrier(inter));
  kill_master();
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK(argc == 3, "usage: two_jobs a|b|hold|stay|quit DIR");
  snprintf(dir, sizeof dir, "%s", argv[2]);
  const char *role = argv[1];
  if (strcmp(role, "stay") == 0 || strcmp(role, "quit") == 0) {
    peer_dies(strcmp(role, "stay") == 0);
    return 1;
  }
  int a = strcmp(role, "a") == 0, hold = strcmp(role, "hold") == 0;
  CHECK(a || hold || strcmp(role, "b") == 0, "unknown role '%s'", role);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int rank = world_rank();
  char port[MPI_MAX_PORT_NAME] = "", service[64], other[64];
  snprintf(service, sizeof service, "bdmpi-two-jobs-%s-%s", role, getenv("TWO_JOBS_RUN"));
  snprintf(other, sizeof other, "bdmpi-two-jobs-%s-%s", a ? "b" : "a", getenv("TWO_JOBS_RUN"));
  char file[16];
  snprintf(file, sizeof file, "%s.port", role);
  if (rank == 0) {
    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
    write_file(file, port); /* before the other job can look it up */
    CHECK_MPI(MPI_Publish_name(service, MPI_INFO_NULL, port));
  }
  if (hold) kill_master();
  char theirs[MPI_MAX_PORT_NAME] = "";
  if (rank == 0) {
    char expected[MPI_MAX_PORT_NAME] = "";
    await_name(other, theirs);
    CHECK(read_file(a ? "b.port" : "a.port", expected, sizeof expected),
          "the other job's port file is missing");
    CHECK(strcmp(theirs, expected) == 0, "looked up '%s', the other job published '%s'",
          theirs, expected);
#ifdef BDMPI
    /* (Open MPI 4.1 overwrites the other job's name, ompi_unique or not.) */
    int rc = MPI_Publish_name(other, MPI_INFO_NULL, port);
    CHECK(error_class_of(rc) == MPI_ERR_NAME, "publishing a name of the other job: class %d",
          error_class_of(rc));
#endif
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Comm inter;
  if (a) {
    CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
  } else {
    CHECK_MPI(MPI_Comm_connect(theirs, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
  }
  exchange(inter, a);
  if (rank == 0) {
    int fd = join_socket(a);
    MPI_Comm joined = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_join(fd, &joined));
    int remote = 0;
    CHECK_MPI(MPI_Comm_remote_size(joined, &remote));
    CHECK(remote == 1, "joined a remote group of %d", remote);
    int mine = a ? 11 : 22, got = 0;
    CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 9, &got, 1, MPI_INT, 0, 9, joined,
                           MPI_STATUS_IGNORE));
    CHECK(got == (a ? 22 : 11), "got %d over the joined communicator", got);
    CHECK_MPI(MPI_Comm_disconnect(&joined));
    close(fd);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (!a && rank == 0) {
    CHECK_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
    CHECK_MPI(MPI_Close_port(port));
    /* A's name goes with A (under Open MPI, A unpublishes it). */
    int gone = 0;
    for (int i = 0; i < 1500 && !gone; ++i) {
      gone = MPI_Lookup_name(other, MPI_INFO_NULL, theirs) != MPI_SUCCESS;
      if (!gone) pause_ms(20);
    }
    CHECK(gone, "the other job's service '%s' outlived it", other);
  }
#ifndef BDMPI
  if (a && rank == 0) CHECK_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
#endif
  MPI_Finalize();
  return 0;
}
