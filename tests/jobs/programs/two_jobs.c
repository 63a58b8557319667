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
 * allreduce across the jobs and barrier on a dup, the other blocking
 * collectives and MPI_Ssend across the jobs (inter_collectives), the
 * other send modes, persistent requests, a cancelled receive and matched
 * probes (more_p2p), alltoallw, the reduce-scatters and nonblocking and
 * persistent collectives (later_inter_collectives), merge, allreduce,
 * bcast, barrier and the same collectives with scan and exscan on the
 * merged communicator (merged_collectives, later_merged_collectives),
 * large-count forms on both (large_counts; BDMPI only, as Open MPI 4.1
 * has none), MPI_Comm_idup of both (idups), topologies of the merged one
 * and neighbourhood collectives (topologies), communicators made of it (merged_communicators) and disconnect. Then
 * rank 0 of each joins over a Unix socket in DIR and the two exchange a
 * message over the joined communicator. A ends
 * without unpublishing under BDMPI (its job's end takes its names away),
 * and B waits until A's name is gone. `two_jobs hold DIR` (BDMPI)
 * publishes and kills its master (the driver checks that the name goes
 * with the job). `two_jobs quit DIR` connects to A's port and kills its
 * master while A (`two_jobs stay DIR`) waits for its message: A must end
 * with an error naming the other job, not hang. `two_jobs grow DIR I`:
 * three jobs join one communicator (grow, below).
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

/* The root argument of an intercommunicator's collective rooted at A's
 * rank `in_a` (B's rank `in_b`), as rank `rank` passes it (`low`: of A). */
static int root_in_a(int low, int rank, int in_a) {
  return low ? (rank == in_a ? MPI_ROOT : MPI_PROC_NULL) : in_a;
}
static int root_in_b(int low, int rank, int in_b) {
  return low ? in_b : (rank == in_b ? MPI_ROOT : MPI_PROC_NULL);
}

/* MPI_Ssend from rank `from` to rank `to` of `comm`, then back; `rank` is
 * this rank's, `local_is_from` whether it is in the group of `from` (on an
 * intercommunicator `to` names a rank of the other group). */
static void ssend_both_ways(MPI_Comm comm, int from, int to, int rank, int local_is_from) {
  int mine = 7000 + rank, got = -1;
  if (local_is_from && rank == from) {
    CHECK_MPI(MPI_Ssend(&mine, 1, MPI_INT, to, 11, comm));
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, to, 12, comm, MPI_STATUS_IGNORE));
    CHECK(got == 7000 + to, "ssend back: %d", got);
  } else if (!local_is_from && rank == to) {
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, from, 11, comm, MPI_STATUS_IGNORE));
    CHECK(got == 7000 + from, "ssend: %d", got);
    CHECK_MPI(MPI_Ssend(&mine, 1, MPI_INT, from, 12, comm));
  }
}

/* The blocking collectives on the intercommunicator, roots in either job
 * (MPI_ROOT, MPI_PROC_NULL), and MPI_Ssend between the jobs' ranks 0.
 * Rank r of a job sends values made of its job's `base`, r and the
 * destination's rank, so that every receiver knows what to expect. */
static void inter_collectives(MPI_Comm inter, int low, int remote) {
  int rank = world_rank();
  int base = low ? 100 : 200, their_base = low ? 200 : 100;
  int mine = base + rank;
  int in[16], out[16], counts[4], displs[4], rcounts[4], rdispls[4];
#define RESET(a) for (int i_ = 0; i_ < 16; ++i_) (a)[i_] = -1

  RESET(in);
  CHECK_MPI(MPI_Gather(&mine, 1, MPI_INT, in, 1, MPI_INT, root_in_a(low, rank, 0), inter));
  if (low && rank == 0)
    for (int r = 0; r < remote; ++r)
      CHECK(in[r] == their_base + r, "inter gather: [%d] = %d", r, in[r]);

  /* Rank r of A sends r + 1 values to B's rank 1, which puts them at 3 r. */
  RESET(in);
  for (int i = 0; i <= rank; ++i) out[i] = base + 10 * rank + i;
  for (int r = 0; r < 4; ++r) counts[r] = r + 1, displs[r] = 3 * r;
  CHECK_MPI(MPI_Gatherv(out, rank + 1, MPI_INT, in, counts, displs, MPI_INT,
                        root_in_b(low, rank, 1), inter));
  if (!low && rank == 1)
    for (int r = 0; r < remote; ++r)
      for (int i = 0; i <= r; ++i)
        CHECK(in[3 * r + i] == their_base + 10 * r + i, "inter gatherv: [%d] = %d", 3 * r + i,
              in[3 * r + i]);

  int got = -1;
  for (int r = 0; r < 4; ++r) out[r] = base + 50 + r;
  CHECK_MPI(MPI_Scatter(out, 1, MPI_INT, &got, 1, MPI_INT, root_in_b(low, rank, 0), inter));
  if (low) CHECK(got == their_base + 50 + rank, "inter scatter: %d", got);

  RESET(in);
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i <= r; ++i) out[3 * r + i] = base + 10 * r + i;
  CHECK_MPI(MPI_Scatterv(out, counts, displs, MPI_INT, in, rank + 1, MPI_INT,
                         root_in_a(low, rank, 1), inter));
  if (!low)
    for (int i = 0; i <= rank; ++i)
      CHECK(in[i] == their_base + 10 * rank + i, "inter scatterv: [%d] = %d", i, in[i]);

  RESET(in);
  CHECK_MPI(MPI_Allgather(&mine, 1, MPI_INT, in, 1, MPI_INT, inter));
  for (int r = 0; r < remote; ++r)
    CHECK(in[r] == their_base + r, "inter allgather: [%d] = %d", r, in[r]);

  RESET(in);
  for (int i = 0; i <= rank; ++i) out[i] = base + 10 * rank + i;
  CHECK_MPI(MPI_Allgatherv(out, rank + 1, MPI_INT, in, counts, displs, MPI_INT, inter));
  for (int r = 0; r < remote; ++r)
    for (int i = 0; i <= r; ++i)
      CHECK(in[3 * r + i] == their_base + 10 * r + i, "inter allgatherv: [%d] = %d", 3 * r + i,
            in[3 * r + i]);

  RESET(in);
  for (int r = 0; r < remote; ++r) out[r] = base + 10 * rank + r;
  CHECK_MPI(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, inter));
  for (int r = 0; r < remote; ++r)
    CHECK(in[r] == their_base + 10 * r + rank, "inter alltoall: [%d] = %d", r, in[r]);

  /* To remote rank r: r + 1 values at 4 r; from each: rank + 1. */
  RESET(in);
  for (int r = 0; r < remote; ++r) {
    counts[r] = r + 1, displs[r] = 4 * r;
    rcounts[r] = rank + 1, rdispls[r] = 4 * r;
    for (int i = 0; i <= r; ++i) out[4 * r + i] = base * 100 + 10 * rank + r + i;
  }
  CHECK_MPI(MPI_Alltoallv(out, counts, displs, MPI_INT, in, rcounts, rdispls, MPI_INT, inter));
  for (int r = 0; r < remote; ++r)
    for (int i = 0; i <= rank; ++i)
      CHECK(in[4 * r + i] == their_base * 100 + 10 * r + rank + i, "inter alltoallv: [%d] = %d",
            4 * r + i, in[4 * r + i]);

  /* Reduce to A's rank 0 (of B's values), then to B's last rank. */
  int sum = -1;
  CHECK_MPI(MPI_Reduce(&mine, &sum, 1, MPI_INT, MPI_SUM, root_in_a(low, rank, 0), inter));
  if (low && rank == 0)
    CHECK(sum == remote * their_base + remote * (remote - 1) / 2, "inter reduce to A: %d", sum);
  sum = -1;
  CHECK_MPI(MPI_Reduce(&mine, &sum, 1, MPI_INT, MPI_SUM, root_in_b(low, rank, 2), inter));
  if (!low && rank == 2)
    CHECK(sum == remote * their_base + remote * (remote - 1) / 2, "inter reduce to B: %d", sum);

  /* A's rank 0 to B's rank 1 and back. */
  ssend_both_ways(inter, 0, 1, rank, low);
#undef RESET
}

/* The same collectives on the merged communicator (`at` of `size`), with
 * scan and exscan and the in-place forms of allgather and alltoall. */
static void merged_collectives(MPI_Comm merged) {
  int size = size_of(merged), at = rank_in(merged);
  int in[32], out[32], counts[8], displs[8], rcounts[8], rdispls[8];
  CHECK(size <= 5, "merged size %d", size);
#define RESET(a) for (int i_ = 0; i_ < 32; ++i_) (a)[i_] = -1

  RESET(in);
  CHECK_MPI(MPI_Gather(&at, 1, MPI_INT, in, 1, MPI_INT, size - 1, merged));
  if (at == size - 1)
    for (int r = 0; r < size; ++r) CHECK(in[r] == r, "merged gather: [%d] = %d", r, in[r]);

  RESET(in);
  for (int r = 0; r < size; ++r) counts[r] = r + 1, displs[r] = 5 * r;
  for (int i = 0; i <= at; ++i) out[i] = 10 * at + i;
  CHECK_MPI(MPI_Gatherv(out, at + 1, MPI_INT, in, counts, displs, MPI_INT, 1, merged));
  if (at == 1)
    for (int r = 0; r < size; ++r)
      for (int i = 0; i <= r; ++i)
        CHECK(in[5 * r + i] == 10 * r + i, "merged gatherv: [%d] = %d", 5 * r + i,
              in[5 * r + i]);

  int got = -1;
  for (int r = 0; r < size; ++r) out[r] = 300 + r;
  CHECK_MPI(MPI_Scatter(out, 1, MPI_INT, &got, 1, MPI_INT, 2, merged));
  CHECK(got == 300 + at, "merged scatter: %d", got);

  RESET(in);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i <= r; ++i) out[5 * r + i] = 10 * r + i;
  CHECK_MPI(MPI_Scatterv(out, counts, displs, MPI_INT, in, at + 1, MPI_INT, 0, merged));
  for (int i = 0; i <= at; ++i)
    CHECK(in[i] == 10 * at + i, "merged scatterv: [%d] = %d", i, in[i]);

  RESET(in);
  in[at] = at;
  CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in, 1, MPI_INT, merged));
  for (int r = 0; r < size; ++r) CHECK(in[r] == r, "merged allgather: [%d] = %d", r, in[r]);

  RESET(in);
  for (int i = 0; i <= at; ++i) out[i] = 10 * at + i;
  CHECK_MPI(MPI_Allgatherv(out, at + 1, MPI_INT, in, counts, displs, MPI_INT, merged));
  for (int r = 0; r < size; ++r)
    for (int i = 0; i <= r; ++i)
      CHECK(in[5 * r + i] == 10 * r + i, "merged allgatherv: [%d] = %d", 5 * r + i,
            in[5 * r + i]);

  /* In place: block r goes to rank r, rank r's block at comes back. */
  for (int r = 0; r < size; ++r) in[r] = 10 * at + r;
  CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in, 1, MPI_INT, merged));
  for (int r = 0; r < size; ++r)
    CHECK(in[r] == 10 * r + at, "merged alltoall: [%d] = %d", r, in[r]);

  RESET(in);
  for (int r = 0; r < size; ++r) {
    counts[r] = r + 1, displs[r] = 5 * r;
    rcounts[r] = at + 1, rdispls[r] = 5 * r;
    for (int i = 0; i <= r; ++i) out[5 * r + i] = 100 * at + 10 * r + i;
  }
  CHECK_MPI(MPI_Alltoallv(out, counts, displs, MPI_INT, in, rcounts, rdispls, MPI_INT, merged));
  for (int r = 0; r < size; ++r)
    for (int i = 0; i <= at; ++i)
      CHECK(in[5 * r + i] == 100 * r + 10 * at + i, "merged alltoallv: [%d] = %d", 5 * r + i,
            in[5 * r + i]);

  int one_more = at + 1, sum = -1;
  CHECK_MPI(MPI_Reduce(&one_more, &sum, 1, MPI_INT, MPI_SUM, 3, merged));
  if (at == 3) CHECK(sum == size * (size + 1) / 2, "merged reduce: %d", sum);
  CHECK_MPI(MPI_Scan(&one_more, &sum, 1, MPI_INT, MPI_SUM, merged));
  CHECK(sum == (at + 1) * (at + 2) / 2, "merged scan: %d", sum);
  sum = -1;
  CHECK_MPI(MPI_Exscan(&one_more, &sum, 1, MPI_INT, MPI_SUM, merged));
  if (at > 0) CHECK(sum == at * (at + 1) / 2, "merged exscan: %d", sum);

  /* Between the jobs (rank 0 is A's, the last B's), then within B. */
  ssend_both_ways(merged, 0, size - 1, at, at == 0);
  ssend_both_ways(merged, size - 1, size - 2, at, at == size - 1);
  /* Each posts a receive, then sends the other synchronously: a posted
   * receive has started, so neither waits for the other's. */
  if (at == 0 || at == size - 1) {
    int peer = size - 1 - at, got = -1, mine = 8000 + at;
    MPI_Request posted;
    CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, peer, 13, merged, &posted));
    CHECK_MPI(MPI_Ssend(&mine, 1, MPI_INT, peer, 13, merged));
    CHECK_MPI(MPI_Wait(&posted, MPI_STATUS_IGNORE));
    CHECK(got == 8000 + peer, "crossed ssends: %d", got);
  }
#undef RESET
}

/* The other point-to-point calls across the jobs, between A's rank 0
 * and B's rank 0 (and B's rank 1 for the persistent ones): MPI_Issend
 * both ways at once, buffered sends through an attached buffer, ready
 * sends to posted receives, persistent sends of every mode and receives
 * started twice, a cancelled receive, and matched probes. */
static void more_p2p(MPI_Comm inter, int low) {
  int rank = world_rank(), base = low ? 100 : 200, their_base = low ? 200 : 100;
  int mine = base + rank, got = -1, flag = 0;
  MPI_Request request, requests[4];
  MPI_Status status;

  if (rank == 0) {
    CHECK_MPI(MPI_Issend(&mine, 1, MPI_INT, 0, 20, inter, &request));
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 20, inter, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    CHECK(got == their_base, "issend: %d", got);

    /* Buffered: A sends two, B receives them. */
    if (low) {
      int size = 2 * (MPI_BSEND_OVERHEAD + (int)sizeof(int)), *out = NULL;
      char *space = malloc((size_t)size);
      CHECK_MPI(MPI_Buffer_attach(space, size));
      int two[2] = {mine, mine + 1};
      CHECK_MPI(MPI_Bsend(&two[0], 1, MPI_INT, 0, 21, inter));
      CHECK_MPI(MPI_Ibsend(&two[1], 1, MPI_INT, 0, 22, inter, &request));
      CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Buffer_detach(&out, &size));
      CHECK(out == (int *)(void *)space, "detached another buffer");
      free(space);
    } else {
      for (int t = 21; t <= 22; ++t) {
        CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, t, inter, MPI_STATUS_IGNORE));
        CHECK(got == their_base + t - 21, "bsend tag %d: %d", t, got);
      }
    }
#ifdef BDMPI
    /* With no buffer attached, a buffered send fails at once. */
    int rc = MPI_Bsend(&mine, 1, MPI_INT, 0, 29, inter);
    CHECK(error_class_of(rc) == MPI_ERR_BUFFER, "bsend without a buffer: class %d",
          error_class_of(rc));
#endif
  }

  /* Ready sends from B's rank 0 to receives A's rank 0 posted first. */
  int ready[2] = {-1, -1};
  if (low && rank == 0)
    for (int i = 0; i < 2; ++i)
      CHECK_MPI(MPI_Irecv(&ready[i], 1, MPI_INT, 0, 23 + i, inter, &requests[i]));
  CHECK_MPI(MPI_Barrier(inter));
  if (!low && rank == 0) {
    CHECK_MPI(MPI_Rsend(&mine, 1, MPI_INT, 0, 23, inter));
    CHECK_MPI(MPI_Irsend(&mine, 1, MPI_INT, 0, 24, inter, &request));
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  }
  if (low && rank == 0) {
    CHECK_MPI(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE));
    CHECK(ready[0] == their_base && ready[1] == their_base, "rsend: %d %d", ready[0], ready[1]);
  }

  /* Persistent: A's rank 0 sends B's rank 1 a standard, a synchronous
   * and a buffered message per round, twice; B's rank 1 receives them
   * with persistent receives. */
  if (low && rank == 0) {
    int value = 0, size = 2 * (MPI_BSEND_OVERHEAD + (int)sizeof(int)), *out = NULL;
    char *space = malloc((size_t)size);
    CHECK_MPI(MPI_Buffer_attach(space, size));
    CHECK_MPI(MPI_Send_init(&value, 1, MPI_INT, 1, 25, inter, &requests[0]));
    CHECK_MPI(MPI_Ssend_init(&value, 1, MPI_INT, 1, 26, inter, &requests[1]));
    CHECK_MPI(MPI_Bsend_init(&value, 1, MPI_INT, 1, 27, inter, &requests[2]));
    CHECK_MPI(MPI_Rsend_init(&value, 1, MPI_INT, MPI_PROC_NULL, 28, inter, &requests[3]));
    for (int round = 0; round < 2; ++round)
      for (int i = 0; i < 4; ++i) {
        value = 1000 * round + i;
        CHECK_MPI(MPI_Start(&requests[i]));
        CHECK_MPI(MPI_Wait(&requests[i], MPI_STATUS_IGNORE));
      }
    for (int i = 0; i < 4; ++i) CHECK_MPI(MPI_Request_free(&requests[i]));
    CHECK_MPI(MPI_Buffer_detach(&out, &size));
    free(space);
  } else if (!low && rank == 1) {
    int values[3];
    for (int i = 0; i < 3; ++i)
      CHECK_MPI(MPI_Recv_init(&values[i], 1, MPI_INT, 0, 25 + i, inter, &requests[i]));
    for (int round = 0; round < 2; ++round) {
      for (int i = 0; i < 3; ++i) values[i] = -1;
      CHECK_MPI(MPI_Startall(3, requests));
      CHECK_MPI(MPI_Waitall(3, requests, MPI_STATUSES_IGNORE));
      for (int i = 0; i < 3; ++i)
        CHECK(values[i] == 1000 * round + i, "persistent round %d: [%d] = %d", round, i,
              values[i]);
    }
    for (int i = 0; i < 3; ++i) CHECK_MPI(MPI_Request_free(&requests[i]));
  }

  /* A receive nobody sends to, cancelled. */
  CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 99, inter, &request));
  CHECK_MPI(MPI_Cancel(&request));
  CHECK_MPI(MPI_Wait(&request, &status));
  CHECK_MPI(MPI_Test_cancelled(&status, &flag));
  CHECK(flag, "the receive was not cancelled");

  /* Matched probes: B's rank 0 takes A's second message first. */
  if (low && rank == 0) {
    int two[2] = {mine, mine + 5};
    CHECK_MPI(MPI_Send(&two[0], 1, MPI_INT, 0, 31, inter));
    CHECK_MPI(MPI_Send(&two[1], 1, MPI_INT, 0, 32, inter));
  } else if (!low && rank == 0) {
    MPI_Message second, first;
    CHECK_MPI(MPI_Mprobe(0, 32, inter, &second, &status));
    CHECK(status.MPI_SOURCE == 0 && status.MPI_TAG == 32, "mprobe: source %d tag %d",
          status.MPI_SOURCE, status.MPI_TAG);
    for (flag = 0; !flag;)
      CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, inter, &flag, &first, &status));
    CHECK(status.MPI_TAG == 31, "improbe: tag %d", status.MPI_TAG);
    CHECK_MPI(MPI_Iprobe(0, MPI_ANY_TAG, inter, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a matched message is still there to probe");
    CHECK_MPI(MPI_Mrecv(&got, 1, MPI_INT, &second, &status));
    CHECK(got == their_base + 5 && second == MPI_MESSAGE_NULL, "mrecv: %d", got);
    CHECK_MPI(MPI_Imrecv(&got, 1, MPI_INT, &first, &request));
    CHECK_MPI(MPI_Wait(&request, &status));
    CHECK(got == their_base && status.MPI_TAG == 31, "imrecv: %d tag %d", got, status.MPI_TAG);
  }
  CHECK_MPI(MPI_Barrier(inter));
}

/* Element i of the reduce-scatters' vectors at rank r of a job of base
 * `base`, and the sum of the other job's (of `n` ranks) at element i. */
static int rs_value(int base, int r, int i) { return base + 10 * r + i; }
static int rs_sum(int base, int n, int i) { return n * base + 10 * n * (n - 1) / 2 + n * i; }

/* The collectives added later on the intercommunicator: alltoallw and the
 * reduce-scatters (A's 2 ranks and B's 3 split a vector of 6), then
 * nonblocking ones several at a time (an MPI_Ibarrier that a message
 * overtakes: neither side waits in the barrier before its MPI_Wait) and
 * persistent ones started twice. */
static void later_inter_collectives(MPI_Comm inter, int low, int remote) {
  int rank = world_rank();
  int base = low ? 100 : 200, their_base = low ? 200 : 100;
  int in[16], out[16], counts[4], displs[4], rcounts[4], rdispls[4];
  MPI_Datatype types[4];
  for (int i = 0; i < 16; ++i) in[i] = -1;
  for (int r = 0; r < remote; ++r) {
    out[4 * r] = base * 100 + 10 * rank + r;
    counts[r] = 1, displs[r] = 4 * r * (int)sizeof(int);
    rcounts[r] = 1, rdispls[r] = 2 * r * (int)sizeof(int);
    types[r] = MPI_INT;
  }
  CHECK_MPI(MPI_Alltoallw(out, counts, displs, types, in, rcounts, rdispls, types, inter));
  for (int r = 0; r < remote; ++r)
    CHECK(in[2 * r] == their_base * 100 + 10 * r + rank, "inter alltoallw: [%d] = %d", 2 * r,
          in[2 * r]);

  /* Each group's vector of 6 is scattered over the other group: in 3s
   * over A, in 2s over B (block), and as 1+5 over A, 2+1+3 over B. */
  int block = low ? 3 : 2, first = block * rank;
  for (int i = 0; i < 6; ++i) out[i] = rs_value(base, rank, i);
  CHECK_MPI(MPI_Reduce_scatter_block(out, in, block, MPI_INT, MPI_SUM, inter));
  for (int i = 0; i < block; ++i)
    CHECK(in[i] == rs_sum(their_base, remote, first + i), "inter reduce_scatter_block: [%d] = %d",
          i, in[i]);
  int a_counts[2] = {1, 5}, b_counts[3] = {2, 1, 3};
  int *mine = low ? a_counts : b_counts;
  first = 0;
  for (int r = 0; r < rank; ++r) first += mine[r];
  CHECK_MPI(MPI_Reduce_scatter(out, in, mine, MPI_INT, MPI_SUM, inter));
  for (int i = 0; i < mine[rank]; ++i)
    CHECK(in[i] == rs_sum(their_base, remote, first + i), "inter reduce_scatter: [%d] = %d", i,
          in[i]);

  /* Nonblocking, five in flight at once. */
  MPI_Request requests[6];
  int token = -1, bcast[2] = {-1, -1}, sum = -1, reduced = -1, all[4] = {-1, -1, -1, -1};
  CHECK_MPI(MPI_Ibarrier(inter, &requests[0]));
  if (!low && rank == 0) CHECK_MPI(MPI_Send(&base, 1, MPI_INT, 0, 40, inter));
  if (low && rank == 0) {
    CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 0, 40, inter, MPI_STATUS_IGNORE));
    CHECK(token == their_base, "a message past an ibarrier: %d", token);
    bcast[0] = 7, bcast[1] = 8;
  }
  CHECK_MPI(MPI_Ibcast(bcast, 2, MPI_INT, root_in_a(low, rank, 0), inter, &requests[1]));
  int one = base + rank;
  CHECK_MPI(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter, &requests[2]));
  CHECK_MPI(MPI_Ireduce(&one, &reduced, 1, MPI_INT, MPI_MAX, root_in_b(low, rank, 2), inter,
                        &requests[3]));
  CHECK_MPI(MPI_Iallgather(&one, 1, MPI_INT, all, 1, MPI_INT, inter, &requests[4]));
  CHECK_MPI(MPI_Waitall(5, requests, MPI_STATUSES_IGNORE));
  if (!low) CHECK(bcast[0] == 7 && bcast[1] == 8, "inter ibcast: %d %d", bcast[0], bcast[1]);
  CHECK(sum == remote * their_base + remote * (remote - 1) / 2, "inter iallreduce: %d", sum);
  if (!low && rank == 2) CHECK(reduced == their_base + remote - 1, "inter ireduce: %d", reduced);
  for (int r = 0; r < remote; ++r)
    CHECK(all[r] == their_base + r, "inter iallgather: [%d] = %d", r, all[r]);

#if MPI_VERSION >= 4 || defined(BDMPI)
  /* Persistent: an allreduce started twice, with a bcast from B between. */
  MPI_Request persistent[2];
  int value = 0, total = -1, from_b = -1;
  CHECK_MPI(MPI_Allreduce_init(&value, &total, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL,
                               &persistent[0]));
  CHECK_MPI(MPI_Bcast_init(&from_b, 1, MPI_INT, root_in_b(low, rank, 1), inter, MPI_INFO_NULL,
                           &persistent[1]));
  for (int round = 0; round < 2; ++round) {
    value = base + rank + round;
    from_b = !low && rank == 1 ? 50 + round : -1;
    CHECK_MPI(MPI_Startall(2, persistent));
    CHECK_MPI(MPI_Waitall(2, persistent, MPI_STATUSES_IGNORE));
    CHECK(total == remote * their_base + remote * (remote - 1) / 2 + remote * round,
          "inter allreduce_init round %d: %d", round, total);
    if (low) CHECK(from_b == 50 + round, "inter bcast_init round %d: %d", round, from_b);
  }
  CHECK_MPI(MPI_Request_free(&persistent[0]));
  CHECK_MPI(MPI_Request_free(&persistent[1]));
#endif
}

/* The later collectives on the merged communicator: the reduce-scatters
 * (blocking and nonblocking), nonblocking scans and an in-place
 * ialltoall, in flight at once. */
static void later_merged_collectives(MPI_Comm merged) {
  int size = size_of(merged), at = rank_in(merged);
  int out[16], in[16], counts[8] = {1, 2, 1, 2, 1, 2, 1, 2};
  for (int i = 0; i < 2 * size; ++i) out[i] = 100 * at + i;
  CHECK_MPI(MPI_Reduce_scatter_block(out, in, 2, MPI_INT, MPI_SUM, merged));
  for (int i = 0; i < 2; ++i)
    CHECK(in[i] == 100 * size * (size - 1) / 2 + size * (2 * at + i),
          "merged reduce_scatter_block: [%d] = %d", i, in[i]);
  int first = 0;
  for (int r = 0; r < at; ++r) first += counts[r];
  MPI_Request requests[4];
  int rs[2] = {-1, -1}, scan = -1, exscan = -1, swapped[8];
  CHECK_MPI(MPI_Ireduce_scatter(out, rs, counts, MPI_INT, MPI_SUM, merged, &requests[0]));
  int one_more = at + 1;
  CHECK_MPI(MPI_Iscan(&one_more, &scan, 1, MPI_INT, MPI_SUM, merged, &requests[1]));
  CHECK_MPI(MPI_Iexscan(&one_more, &exscan, 1, MPI_INT, MPI_SUM, merged, &requests[2]));
  for (int r = 0; r < size; ++r) swapped[r] = 10 * at + r;
  CHECK_MPI(MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, swapped, 1, MPI_INT, merged,
                          &requests[3]));
  CHECK_MPI(MPI_Waitall(4, requests, MPI_STATUSES_IGNORE));
  for (int i = 0; i < counts[at]; ++i)
    CHECK(rs[i] == 100 * size * (size - 1) / 2 + size * (first + i),
          "merged ireduce_scatter: [%d] = %d", i, rs[i]);
  CHECK(scan == (at + 1) * (at + 2) / 2, "merged iscan: %d", scan);
  if (at > 0) CHECK(exscan == at * (at + 1) / 2, "merged iexscan: %d", exscan);
  for (int r = 0; r < size; ++r)
    CHECK(swapped[r] == 10 * r + at, "merged ialltoall: [%d] = %d", r, swapped[r]);
}

/* Communicators made of the merged one (`low_size` ranks of A first):
 * a split by parity with the keys reversed, used and duplicated (a
 * communicator of part of the ranks makes another); its group against
 * MPI_COMM_WORLD's (A's ranks are this job's or not); a communicator of
 * A's rank 0 and B's last rank made with MPI_Comm_create, one of ranks 1
 * to 3 made by them (MPI_Comm_create_group), and a split by type. */
static void merged_communicators(MPI_Comm merged, int low_size) {
  int size = size_of(merged), at = rank_in(merged);
  MPI_Comm half, copy;
  CHECK_MPI(MPI_Comm_split(merged, at % 2, -at, &half));
  int half_size = size_of(half), expected = (size - at % 2 + 1) / 2;
  CHECK(half_size == expected, "split: %d ranks, not %d", half_size, expected);
  CHECK(rank_in(half) == half_size - 1 - at / 2, "split: rank %d at %d", rank_in(half), at);
  int sum = -1;
  CHECK_MPI(MPI_Allreduce(&at, &sum, 1, MPI_INT, MPI_SUM, half));
  int want = 0;
  for (int r = at % 2; r < size; r += 2) want += r;
  CHECK(sum == want, "allreduce on the split: %d, not %d", sum, want);
  CHECK_MPI(MPI_Comm_dup(half, &copy));
  int from_first = at;
  CHECK_MPI(MPI_Bcast(&from_first, 1, MPI_INT, 0, copy));
  CHECK(from_first == (at % 2 == 0 ? (size - 1) / 2 * 2 : (size - 2) / 2 * 2 + 1),
        "bcast on the split's dup: %d", from_first);
  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK_MPI(MPI_Comm_free(&half));

  MPI_Group group, world, pair;
  CHECK_MPI(MPI_Comm_group(merged, &group));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int ranks[8], translated[8];
  for (int r = 0; r < size; ++r) ranks[r] = r;
  CHECK_MPI(MPI_Group_translate_ranks(group, size, ranks, world, translated));
  int a = at < low_size;
  for (int r = 0; r < size; ++r) {
    int mine = (r < low_size) == a;
    int want_rank = !mine ? MPI_UNDEFINED : a ? r : r - low_size;
    CHECK(translated[r] == want_rank, "merged rank %d in MPI_COMM_WORLD: %d", r, translated[r]);
  }
  int ends[2] = {0, size - 1};
  CHECK_MPI(MPI_Group_incl(group, 2, ends, &pair));
  MPI_Comm two;
  CHECK_MPI(MPI_Comm_create(merged, pair, &two));
  if (at == 0 || at == size - 1) {
    CHECK(two != MPI_COMM_NULL && size_of(two) == 2 && rank_in(two) == (at != 0),
          "comm_create: rank %d", two == MPI_COMM_NULL ? -1 : rank_in(two));
    int got = -1;
    CHECK_MPI(MPI_Sendrecv(&at, 1, MPI_INT, 1 - rank_in(two), 41, &got, 1, MPI_INT,
                           1 - rank_in(two), 41, two, MPI_STATUS_IGNORE));
    CHECK(got == size - 1 - at, "comm_create: got %d", got);
    CHECK_MPI(MPI_Comm_free(&two));
  } else {
    CHECK(two == MPI_COMM_NULL, "comm_create: a communicator outside the group");
  }
  /* Ranks 1 to 3 (of both jobs) make one by themselves; then a split by
   * type (one communicator per job: memory is shared within a job). */
  int middle[3] = {1, 2, 3};
  MPI_Group trio;
  CHECK_MPI(MPI_Group_incl(group, 3, middle, &trio));
  if (at >= 1 && at <= 3) {
    MPI_Comm three;
    CHECK_MPI(MPI_Comm_create_group(merged, trio, 7, &three));
    CHECK(size_of(three) == 3 && rank_in(three) == at - 1, "create_group: rank %d of %d",
          rank_in(three), size_of(three));
    int total = -1;
    CHECK_MPI(MPI_Allreduce(&at, &total, 1, MPI_INT, MPI_SUM, three));
    CHECK(total == 1 + 2 + 3, "allreduce on create_group's: %d", total);
    CHECK_MPI(MPI_Comm_free(&three));
  }
  /* Split by job, and within a job as its own world splits (by node
   * under BDMPI, whose job B has two). */
  MPI_Comm shared, own;
  CHECK_MPI(MPI_Comm_split_type(merged, MPI_COMM_TYPE_SHARED, size - at, MPI_INFO_NULL, &shared));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_size() - world_rank(),
                                MPI_INFO_NULL, &own));
  CHECK(size_of(shared) == size_of(own) && rank_in(shared) == rank_in(own),
        "split_type shared: rank %d of %d, in its job's own split %d of %d", rank_in(shared),
        size_of(shared), rank_in(own), size_of(own));
  CHECK_MPI(MPI_Barrier(shared));
  CHECK_MPI(MPI_Comm_free(&shared));
  CHECK_MPI(MPI_Comm_free(&own));
  MPI_Group_free(&trio);
  MPI_Group_free(&pair);
  MPI_Group_free(&world);
  MPI_Group_free(&group);
}

#if MPI_VERSION >= 4 || defined(BDMPI)
/* MPI-4's large-count forms across the jobs (Open MPI 4.1, the mpirun
 * oracle, has none: MPI_VERSION 3 there skips this): a message each way
 * between the ranks of one index, a bcast from B over `inter`, and on
 * `merged` an allreduce, an alltoallv blocking and persistent (started
 * twice), an allgatherv and a gatherv; an alltoallv whose displacement
 * does not fit the implementation's int is MPI_ERR_COUNT at every rank,
 * before anything moves. */
static void large_counts(MPI_Comm inter, MPI_Comm merged, int low) {
  int rank = world_rank(), base = low ? 100 : 200, their_base = low ? 200 : 100;
  if (rank < 2) {
    int mine = base + rank, got = -1;
    MPI_Request request;
    CHECK_MPI(MPI_Isend_c(&mine, 1, MPI_INT, rank, 30, inter, &request));
    CHECK_MPI(MPI_Recv_c(&got, (MPI_Count)1, MPI_INT, rank, 30, inter, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    CHECK(got == their_base + rank, "recv_c: %d", got);
  }
  int from_b[2] = {-1, -1};
  if (!low && rank == 2) from_b[0] = 77, from_b[1] = 78;
  CHECK_MPI(MPI_Bcast_c(from_b, 2, MPI_INT, root_in_b(low, rank, 2), inter));
  if (low) CHECK(from_b[0] == 77 && from_b[1] == 78, "bcast_c: %d %d", from_b[0], from_b[1]);

  int size = size_of(merged), at = rank_in(merged), total = -1;
  CHECK_MPI(MPI_Allreduce_c(&at, &total, 1, MPI_INT, MPI_SUM, merged));
  CHECK(total == size * (size - 1) / 2, "allreduce_c: %d", total);
  /* Rank at sends r + 1 ints to rank r; so each receives at + 1 from each. */
  int out[16], in[16];
  MPI_Count sc[8], rc[8];
  MPI_Aint sd[8], rd[8];
  for (int r = 0, o = 0; r < size; o += r + 1, ++r) {
    sc[r] = r + 1, sd[r] = o, rc[r] = at + 1, rd[r] = (MPI_Aint)r * (at + 1);
    for (int i = 0; i <= r; ++i) out[o + i] = 100 * at + r;
  }
  MPI_Request persistent;
  CHECK_MPI(MPI_Alltoallv_init_c(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, merged, MPI_INFO_NULL,
                                 &persistent));
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 16; ++i) in[i] = -1;
    if (round == 0) {
      CHECK_MPI(MPI_Alltoallv_c(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, merged));
    } else {
      CHECK_MPI(MPI_Start(&persistent));
      CHECK_MPI(MPI_Wait(&persistent, MPI_STATUS_IGNORE));
    }
    for (int r = 0; r < size; ++r)
      for (int i = 0; i <= at; ++i)
        CHECK(in[r * (at + 1) + i] == 100 * r + at, "alltoallv_c round %d: from %d [%d] = %d",
              round, r, i, in[r * (at + 1) + i]);
  }
  CHECK_MPI(MPI_Request_free(&persistent));

  for (int r = 0; r < size; ++r) rc[r] = 1, rd[r] = size - 1 - r;
  CHECK_MPI(MPI_Allgatherv_c(&at, 1, MPI_INT, in, rc, rd, MPI_INT, merged));
  for (int r = 0; r < size; ++r) CHECK(in[size - 1 - r] == r, "allgatherv_c: from %d", r);
  for (int i = 0; i < 16; ++i) in[i] = -1;
  CHECK_MPI(MPI_Gatherv_c(&at, 1, MPI_INT, in, rc, rd, MPI_INT, size - 1, merged));
  if (at == size - 1)
    for (int r = 0; r < size; ++r) CHECK(in[size - 1 - r] == r, "gatherv_c: from %d", r);

  MPI_Errhandler previous;
  CHECK_MPI(MPI_Comm_get_errhandler(merged, &previous));
  CHECK_MPI(MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN));
  for (int r = 0; r < size; ++r) sc[r] = rc[r] = 1, sd[r] = rd[r] = r;
  sd[0] = (MPI_Aint)1 << 33;
  int error = MPI_Alltoallv_c(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, merged), error_class = -1;
  MPI_Error_class(error, &error_class);
  CHECK(error_class == MPI_ERR_COUNT, "alltoallv_c beyond INT_MAX: class %d", error_class);
  CHECK_MPI(MPI_Comm_set_errhandler(merged, previous));
  CHECK_MPI(MPI_Errhandler_free(&previous));
  CHECK_MPI(MPI_Barrier(merged));
}
#endif

/* MPI_Comm_idup across the jobs. On `inter` A's rank 0 sends to B's rank
 * 0 synchronously before its idup while B's rank 0 receives after its
 * own, so an idup that waited for the other members at the call would
 * hang; a dup of `merged` is made while it is pending. Then two idups of
 * `merged` in flight at once (one with info, MPI-4), whose communicators
 * each carry a ring of messages and an allreduce. */
static void idups(MPI_Comm inter, MPI_Comm merged, int low) {
  int rank = world_rank(), token = 5, got = -1;
  MPI_Comm copy, merged_copy, again, other;
  MPI_Request request, requests[2];
  if (low && rank == 0) CHECK_MPI(MPI_Ssend(&token, 1, MPI_INT, 0, 40, inter));
  CHECK_MPI(MPI_Comm_idup(inter, &copy, &request));
  if (!low && rank == 0) {
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 40, inter, MPI_STATUS_IGNORE));
    CHECK(got == token, "ssend before the idup: %d", got);
  }
  CHECK_MPI(MPI_Comm_dup(merged, &merged_copy));
  CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  int one = 1, sum = -1, remote = 0, is_inter = 0;
  CHECK_MPI(MPI_Comm_test_inter(copy, &is_inter));
  CHECK_MPI(MPI_Comm_remote_size(copy, &remote));
  CHECK(is_inter && remote == (low ? 3 : 2), "idup of inter: remote size %d", remote);
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, copy));
  CHECK(sum == remote, "allreduce on the idup of inter: %d", sum);

  int size = size_of(merged), at = rank_in(merged);
#if MPI_VERSION >= 4 || defined(BDMPI)
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Comm_idup_with_info(merged, info, &again, &requests[0]));
  CHECK_MPI(MPI_Info_free(&info));
#else
  CHECK_MPI(MPI_Comm_idup(merged, &again, &requests[0]));
#endif
  CHECK_MPI(MPI_Comm_idup(merged, &other, &requests[1]));
  CHECK_MPI(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE));
  MPI_Comm made[3] = {again, other, merged_copy};
  int received[3] = {-1, -1, -1};
  MPI_Request ring[3];
  for (int c = 0; c < 3; ++c) {
    int value = 1000 * c + at;
    CHECK_MPI(MPI_Irecv(&received[c], 1, MPI_INT, (at + size - 1) % size, 41, made[c], &ring[c]));
    CHECK_MPI(MPI_Send(&value, 1, MPI_INT, (at + 1) % size, 41, made[c]));
  }
  CHECK_MPI(MPI_Waitall(3, ring, MPI_STATUSES_IGNORE));
  for (int c = 0; c < 3; ++c) {
    CHECK(received[c] == 1000 * c + (at + size - 1) % size, "ring on idup %d: %d", c,
          received[c]);
    CHECK_MPI(MPI_Allreduce(&at, &sum, 1, MPI_INT, MPI_SUM, made[c]));
    CHECK(sum == size * (size - 1) / 2, "allreduce on idup %d: %d", c, sum);
    CHECK_MPI(MPI_Comm_free(&made[c]));
  }
  CHECK_MPI(MPI_Comm_free(&copy));
}

/* Topologies of the merged communicator and neighbourhood collectives
 * over them: a periodic ring of all its ranks (a blocking alltoall with
 * the ranks on each side), one of its first two ranks (each the other's
 * neighbour on both sides; an allgather, persistent under MPI-4), and a
 * distributed graph where each rank sends to the rank two after it (a
 * nonblocking alltoallv), and the ring again as a graph whose edges rank 0
 * names (MPI_Dist_graph_create). */
static void topologies(MPI_Comm merged) {
  int size = size_of(merged), at = rank_in(merged), periodic = 1;
  MPI_Comm ring, pair, graph;
  CHECK_MPI(MPI_Cart_create(merged, 1, &size, &periodic, 0, &ring));
  int kind = MPI_UNDEFINED, left = -1, right = -1;
  CHECK_MPI(MPI_Topo_test(ring, &kind));
  CHECK(kind == MPI_CART, "cart_create: topology %d", kind);
  CHECK_MPI(MPI_Cart_shift(ring, 0, 1, &left, &right));
  CHECK(left == (at + size - 1) % size && right == (at + 1) % size, "cart_shift: %d %d", left,
        right);
  int out[2] = {10 * at, 10 * at + 1}, in[2] = {-1, -1};
  CHECK_MPI(MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, ring));
  CHECK(in[0] == 10 * left + 1 && in[1] == 10 * right, "neighbor_alltoall on the ring: %d %d",
        in[0], in[1]);
  CHECK_MPI(MPI_Comm_free(&ring));

  int two = 2;
  CHECK_MPI(MPI_Cart_create(merged, 1, &two, &periodic, 0, &pair));
  if (at < 2) {
    MPI_Request request;
    int mine = 100 + at, got[2] = {-1, -1};
#if MPI_VERSION >= 4 || defined(BDMPI)
    CHECK_MPI(MPI_Neighbor_allgather_init(&mine, 1, MPI_INT, got, 1, MPI_INT, pair,
                                          MPI_INFO_NULL, &request));
    for (int round = 0; round < 2; ++round) {
      CHECK_MPI(MPI_Start(&request));
      CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Request_free(&request));
#else
    CHECK_MPI(MPI_Ineighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, pair, &request));
    CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
#endif
    CHECK(got[0] == 101 - at && got[1] == 101 - at, "neighbor_allgather on a pair: %d %d",
          got[0], got[1]);
    CHECK_MPI(MPI_Comm_free(&pair));
  } else {
    CHECK(pair == MPI_COMM_NULL, "a rank beyond the grid got a communicator");
  }

  int from = (at + size - 2) % size, to = (at + 2) % size, weight = 1;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(merged, 1, &from, &weight, 1, &to, &weight,
                                           MPI_INFO_NULL, 0, &graph));
  int counts[1] = {2}, displs[1] = {0}, pairs_out[2] = {at, -at}, pairs_in[2] = {-1, -1};
  MPI_Request request;
  CHECK_MPI(MPI_Ineighbor_alltoallv(pairs_out, counts, displs, MPI_INT, pairs_in, counts, displs,
                                    MPI_INT, graph, &request));
  CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  CHECK(pairs_in[0] == from && pairs_in[1] == -from, "neighbor_alltoallv on the graph: %d %d",
        pairs_in[0], pairs_in[1]);
  CHECK_MPI(MPI_Comm_free(&graph));

  /* The same ring as a distributed graph whose edges rank 0 names all. */
  int sources[8], degrees[8], destinations[8], weights[8];
  for (int r = 0; r < size; ++r)
    sources[r] = r, degrees[r] = 1, destinations[r] = (r + 1) % size, weights[r] = 1;
  CHECK_MPI(MPI_Dist_graph_create(merged, at == 0 ? size : 0, sources, degrees, destinations,
                                  weights, MPI_INFO_NULL, 0, &graph));
  int before = -1;
  CHECK_MPI(MPI_Neighbor_allgather(&at, 1, MPI_INT, &before, 1, MPI_INT, graph));
  CHECK(before == left, "neighbor_allgather on the named graph: %d", before);
  CHECK_MPI(MPI_Comm_free(&graph));
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
  inter_collectives(inter, low, remote);
  more_p2p(inter, low);
  later_inter_collectives(inter, low, remote);

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
  merged_collectives(merged);
  later_merged_collectives(merged);
#if MPI_VERSION >= 4 || defined(BDMPI)
  large_counts(inter, merged, low);
#endif
  idups(inter, merged, low);
  topologies(merged);
  merged_communicators(merged, low ? world_size() : remote);
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

/* `two_jobs grow DIR I`: jobs 0 (2 ranks), 1 and 2 (1 rank each) join
 * one communicator one job at a time, as MPICH's test/mpi/manual/
 * testconnect does: job 0 accepts on a port it writes to DIR, a job that
 * connects is merged in, and the group so far accepts the next job over
 * the merged communicator (one between jobs, under BDMPI). Then an
 * allreduce and a split over the four ranks of three jobs. */
static void grow(int index) {
  enum { kTotal = 4 };
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm comm = MPI_COMM_WORLD, tmp, next;
  if (index == 0 && world_rank() == 0) {
    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
    write_file("grow.port", port);
  }
  if (index > 0) {
    for (int i = 0; world_rank() == 0 && !read_file("grow.port", port, sizeof port); ++i) {
      CHECK(i < 1500, "no grow.port");
      pause_ms(20);
    }
    CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &tmp));
    CHECK_MPI(MPI_Intercomm_merge(tmp, 1, &comm));
    CHECK_MPI(MPI_Comm_free(&tmp));
  }
  while (size_of(comm) < kTotal) {
    CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, comm, &tmp));
    CHECK_MPI(MPI_Intercomm_merge(tmp, 0, &next));
    CHECK_MPI(MPI_Comm_free(&tmp));
    if (comm != MPI_COMM_WORLD) CHECK_MPI(MPI_Comm_free(&comm));
    comm = next;
  }
  int jobs = 0;
  CHECK_MPI(MPI_Allreduce(&index, &jobs, 1, MPI_INT, MPI_SUM, comm));
  CHECK(jobs == 0 + 0 + 1 + 2, "allreduce over the three jobs: %d", jobs);
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(comm, index == 0, 0, &half));
  CHECK(size_of(half) == 2, "split of the three jobs: %d ranks", size_of(half));
  CHECK_MPI(MPI_Barrier(half));
  CHECK_MPI(MPI_Comm_free(&half));
  CHECK_MPI(MPI_Comm_free(&comm));
  if (index == 0 && world_rank() == 0) CHECK_MPI(MPI_Close_port(port));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK(argc == 3 || (argc == 4 && strcmp(argv[1], "grow") == 0),
        "usage: two_jobs a|b|hold|stay|quit DIR, or two_jobs grow DIR I");
  snprintf(dir, sizeof dir, "%s", argv[2]);
  const char *role = argv[1];
  if (strcmp(role, "grow") == 0) {
    grow(atoi(argv[3]));
    MPI_Finalize();
    return 0;
  }
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
