/*
 * sessions: MPI-4 sessions (MPI 4.1 11.3), without MPI_Init or alongside it.
 *
 * Each rank opens a session, finds the process sets "mpi://WORLD" and
 * "mpi://SELF" among the session's (MPI_Session_get_num_psets/get_nth_pset,
 * with the length query and a truncated name), checks their mpi_size
 * (also asked for in lower case),
 * makes groups of them and communicators of the groups
 * (MPI_Comm_create_from_group) and uses those: an allreduce, a ring, two
 * communicators over one group whose messages do not mix, disjoint halves
 * made with one string tag, and an intercommunicator between the halves
 * (MPI_Intercomm_create_from_groups). A session error handler sees an unknown set's
 * MPI_ERR_ARG and MPI_Session_call_errhandler's code; a second session
 * opens and closes while the first stays. With --with-init the world model
 * runs alongside: MPI_Init after MPI_Session_init, errors on
 * MPI_SESSION_NULL raised on MPI_COMM_SELF's handler, the session's WORLD
 * communicator congruent with MPI_COMM_WORLD, and MPI_Finalize before the
 * session's communicators are used a last time and MPI_Session_finalize.
 * After the last finalize a rank computes a while (rank 0 longest, so the
 * others wait for it in MPI_Comm_create_from_group) and starts a session
 * again (MPI 4.1 11.3.1), makes a communicator of mpi://WORLD and reduces
 * on it; then the last rank exits while the others start a third session
 * and use a communicator of the group without it.
 *
 * Open MPI 4.1 has no sessions, so there is no mpirun oracle: every value
 * is computed here from the rank and the size.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank = -1;
static MPI_Comm g_abort_comm = MPI_COMM_NULL;

static void fail(int line, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "rank %d: sessions.c:%d: check failed: %s\n", g_rank, line, msg);
  fflush(stderr);
  if (g_abort_comm != MPI_COMM_NULL) MPI_Abort(g_abort_comm, 1);
  exit(1);
}

#define CHECK(cond, ...) \
  do {                   \
    if (!(cond)) fail(__LINE__, __VA_ARGS__); \
  } while (0)
#define CHECK_MPI(call)                                        \
  do {                                                         \
    int check_rc_ = (call);                                    \
    CHECK(check_rc_ == MPI_SUCCESS, "%s returned %d", #call, check_rc_); \
  } while (0)

static int g_handler_calls = 0;
static int g_handler_code = 0;
static MPI_Session g_handler_session = MPI_SESSION_NULL;

static void session_handler(MPI_Session *session, int *code, ...) {
  ++g_handler_calls;
  g_handler_code = *code;
  g_handler_session = *session;
}

static MPI_Comm comm_of_pset(MPI_Session session, const char *pset, const char *tag) {
  MPI_Group group;
  MPI_Comm comm;
  CHECK_MPI(MPI_Group_from_session_pset(session, pset, &group));
  CHECK_MPI(MPI_Comm_create_from_group(group, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
  CHECK_MPI(MPI_Group_free(&group));
  return comm;
}

static void check_psets(MPI_Session session) {
  int npsets = 0, found_world = 0, found_self = 0;
  CHECK_MPI(MPI_Session_get_num_psets(session, MPI_INFO_NULL, &npsets));
  CHECK(npsets >= 2, "%d process sets, want at least mpi://WORLD and mpi://SELF", npsets);
  for (int n = 0; n < npsets; ++n) {
    char name[MPI_MAX_PSET_NAME_LEN];
    int len = 0;
    CHECK_MPI(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, n, &len, name));
    CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "set %d: length %d", n, len);
    int given = len;
    CHECK_MPI(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, n, &given, name));
    CHECK((int)strlen(name) + 1 == len, "set %d: \"%s\" but length %d", n, name, len);
    if (strcmp(name, "mpi://WORLD") == 0) found_world = 1;
    if (strcmp(name, "mpi://SELF") == 0) found_self = 1;
    /* A shorter buffer gets the start of the name, null-terminated. */
    char start[4] = {'x', 'x', 'x', 'x'};
    int short_len = 4;
    CHECK_MPI(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, n, &short_len, start));
    CHECK(start[3] == '\0' && strncmp(start, name, 3) == 0, "set %d truncated: \"%.4s\"", n,
          start);
  }
  CHECK(found_world && found_self, "mpi://WORLD %s, mpi://SELF %s",
        found_world ? "found" : "missing", found_self ? "found" : "missing");
}

static int pset_size(MPI_Session session, const char *pset) {
  MPI_Info info;
  char value[64];
  int flag = 0;
  CHECK_MPI(MPI_Session_get_pset_info(session, pset, &info));
  CHECK_MPI(MPI_Info_get(info, "mpi_size", (int)sizeof value - 1, value, &flag));
  CHECK(flag, "%s: no mpi_size", pset);
  CHECK_MPI(MPI_Info_free(&info));
  return atoi(value);
}

/* Work outside MPI: the rank needs no running slot for it. */
static double compute(long steps) {
  volatile double x = 0;
  for (long i = 0; i < steps; ++i) x += 1.0 / (double)(i + 1);
  return x;
}

/* A session after the last one was finalized, its WORLD communicator made
 * of the group without the ranks from `first_gone` on. */
static void session_again(int rank, int first_gone, const char *tag) {
  MPI_Session again;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &again));
  MPI_Group group, members;
  CHECK_MPI(MPI_Group_from_session_pset(again, "mpi://WORLD", &group));
  int range[1][3] = {{0, first_gone - 1, 1}};
  CHECK_MPI(MPI_Group_range_incl(group, 1, range, &members));
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_create_from_group(members, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
  g_abort_comm = comm;
  int comm_rank = -1, comm_size = -1;
  CHECK_MPI(MPI_Comm_rank(comm, &comm_rank));
  CHECK_MPI(MPI_Comm_size(comm, &comm_size));
  CHECK(comm_rank == rank && comm_size == first_gone, "%s: rank %d of %d, want %d of %d", tag,
        comm_rank, comm_size, rank, first_gone);
  long mine = rank + 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm));
  CHECK(sum == (long)first_gone * (first_gone + 1) / 2, "%s: allreduce %ld", tag, sum);
  g_abort_comm = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_free(&comm));
  CHECK_MPI(MPI_Group_free(&members));
  CHECK_MPI(MPI_Group_free(&group));
  CHECK_MPI(MPI_Session_finalize(&again));
}

int main(int argc, char **argv) {
  int with_init = argc > 1 && strcmp(argv[1], "--with-init") == 0;
  MPI_Info info;
  MPI_Session session;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "thread_level", "MPI_THREAD_FUNNELED"));
  CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &session));
  CHECK_MPI(MPI_Info_free(&info));
  if (with_init) {
    int initialized = 0;
    CHECK_MPI(MPI_Initialized(&initialized));
    CHECK(!initialized, "MPI_Initialized is true after MPI_Session_init only");
    CHECK_MPI(MPI_Init(&argc, &argv));
    /* MPI 4.1 9.3: an error on an invalid session goes to MPI_COMM_SELF's
     * handler once the World Model is initialized (mpi4py checks it). */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int npsets = -1, error_class = MPI_SUCCESS;
    MPI_Group none;
    MPI_Error_class(MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &npsets),
                    &error_class);
    CHECK(error_class == MPI_ERR_SESSION, "MPI_Session_get_num_psets(MPI_SESSION_NULL): class %d",
          error_class);
    MPI_Error_class(MPI_Group_from_session_pset(MPI_SESSION_NULL, "mpi://SELF", &none),
                    &error_class);
    CHECK(error_class == MPI_ERR_SESSION,
          "MPI_Group_from_session_pset(MPI_SESSION_NULL): class %d", error_class);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
  }

  CHECK_MPI(MPI_Session_get_info(session, &info));
  {
    char level[64];
    int flag = 0;
    CHECK_MPI(MPI_Info_get(info, "thread_level", (int)sizeof level - 1, level, &flag));
    CHECK(flag && strncmp(level, "MPI_THREAD_", 11) == 0, "thread_level %s",
          flag ? level : "missing");
    CHECK_MPI(MPI_Info_free(&info));
  }
  check_psets(session);

  MPI_Group world_group;
  int size = 0;
  CHECK_MPI(MPI_Group_from_session_pset(session, "mpi://WORLD", &world_group));
  CHECK_MPI(MPI_Group_size(world_group, &size));
  CHECK_MPI(MPI_Group_rank(world_group, &g_rank));
  CHECK(size == pset_size(session, "mpi://WORLD"), "WORLD: group of %d", size);
  CHECK(pset_size(session, "mpi://SELF") == 1, "SELF: mpi_size %d",
        pset_size(session, "mpi://SELF"));
  /* Set names in any case, as Open MPI and MPICH take them (MPICH's
   * tests ask for "mpi://world"). */
  CHECK(pset_size(session, "mpi://world") == size && pset_size(session, "MPI://Self") == 1,
        "mpi://world: mpi_size %d, MPI://Self: %d", pset_size(session, "mpi://world"),
        pset_size(session, "MPI://Self"));
  MPI_Group lower_group;
  int lower_size = 0;
  CHECK_MPI(MPI_Group_from_session_pset(session, "mpi://world", &lower_group));
  CHECK_MPI(MPI_Group_size(lower_group, &lower_size));
  CHECK(lower_size == size, "the group of mpi://world has %d ranks, want %d", lower_size, size);
  CHECK_MPI(MPI_Group_free(&lower_group));
  int rank = g_rank;

  MPI_Comm world;
  CHECK_MPI(MPI_Comm_create_from_group(world_group, "org.bdmpi.test.sessions.world",
                                       MPI_INFO_NULL, MPI_ERRORS_RETURN, &world));
  g_abort_comm = world;
  int comm_rank = -1, comm_size = -1;
  CHECK_MPI(MPI_Comm_rank(world, &comm_rank));
  CHECK_MPI(MPI_Comm_size(world, &comm_size));
  CHECK(comm_rank == rank && comm_size == size, "WORLD communicator: rank %d of %d, want %d of %d",
        comm_rank, comm_size, rank, size);
  if (with_init) {
    int result = -1;
    CHECK_MPI(MPI_Comm_compare(world, MPI_COMM_WORLD, &result));
    CHECK(result == MPI_CONGRUENT, "compared with MPI_COMM_WORLD: %d, want MPI_CONGRUENT", result);
  }
  long sum = 0;
  long mine = rank + 1;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, world));
  CHECK(sum == (long)size * (size + 1) / 2, "allreduce %ld", sum);
  int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, world,
                         MPI_STATUS_IGNORE));
  CHECK(got == left, "ring: got %d from %d", got, left);

  /* A second communicator over the same group: its messages never match
   * the first's, whatever the order. */
  MPI_Comm world2;
  CHECK_MPI(MPI_Comm_create_from_group(world_group, "org.bdmpi.test.sessions.world2",
                                       MPI_INFO_NULL, MPI_ERRORS_RETURN, &world2));
  int one = 1000 + rank, two = 2000 + rank, got_one = -1, got_two = -1;
  MPI_Request requests[2];
  CHECK_MPI(MPI_Isend(&two, 1, MPI_INT, right, 3, world2, &requests[0]));
  CHECK_MPI(MPI_Isend(&one, 1, MPI_INT, right, 3, world, &requests[1]));
  CHECK_MPI(MPI_Recv(&got_one, 1, MPI_INT, left, 3, world, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Recv(&got_two, 1, MPI_INT, left, 3, world2, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE));
  CHECK(got_one == 1000 + left && got_two == 2000 + left, "two communicators: %d and %d",
        got_one, got_two);
  CHECK_MPI(MPI_Comm_free(&world2));

  /* Even and odd ranks, one tag: two communicators. */
  MPI_Group half_group;
  int range[1][3] = {{rank % 2, size - 1, 2}};
  if (range[0][0] > range[0][1]) range[0][1] = range[0][0];
  CHECK_MPI(MPI_Group_range_incl(world_group, 1, range, &half_group));
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_create_from_group(half_group, "org.bdmpi.test.sessions.half",
                                       MPI_INFO_NULL, MPI_ERRORS_RETURN, &half));
  int half_size = -1, half_rank = -1;
  CHECK_MPI(MPI_Comm_size(half, &half_size));
  CHECK_MPI(MPI_Comm_rank(half, &half_rank));
  int want_half = rank % 2 == 0 ? (size + 1) / 2 : size / 2;
  CHECK(half_size == want_half && half_rank == rank / 2, "half: rank %d of %d", half_rank,
        half_size);
  long half_sum = 0, expect_half = 0;
  for (int r = rank % 2; r < size; r += 2) expect_half += r;
  mine = rank;
  CHECK_MPI(MPI_Allreduce(&mine, &half_sum, 1, MPI_LONG, MPI_SUM, half));
  CHECK(half_sum == expect_half, "half allreduce %ld, want %ld", half_sum, expect_half);
  CHECK_MPI(MPI_Comm_free(&half));

  /* The halves face each other: an intercommunicator from the two groups,
   * leaders rank 0 of each; every rank sends its world rank to the remote
   * rank of its own number (when there is one). */
  if (size > 1) {
    MPI_Group other_group;
    int other_range[1][3] = {{1 - rank % 2, size - 1, 2}};
    if (other_range[0][0] > other_range[0][1]) other_range[0][1] = other_range[0][0];
    CHECK_MPI(MPI_Group_range_incl(world_group, 1, other_range, &other_group));
    MPI_Comm inter;
    CHECK_MPI(MPI_Intercomm_create_from_groups(half_group, 0, other_group, 0,
                                               "org.bdmpi.test.sessions.inter", MPI_INFO_NULL,
                                               MPI_ERRORS_RETURN, &inter));
    int is_inter = 0, remote_size = -1, inter_rank = -1;
    CHECK_MPI(MPI_Comm_test_inter(inter, &is_inter));
    CHECK_MPI(MPI_Comm_remote_size(inter, &remote_size));
    CHECK_MPI(MPI_Comm_rank(inter, &inter_rank));
    int want_remote = size - want_half;
    CHECK(is_inter && remote_size == want_remote && inter_rank == rank / 2,
          "intercommunicator: inter %d, rank %d, remote size %d (want %d)", is_inter, inter_rank,
          remote_size, want_remote);
    MPI_Request pair[2];
    int from_remote = -1, partner = inter_rank;
    int sends = partner < remote_size;
    if (sends) {
      CHECK_MPI(MPI_Irecv(&from_remote, 1, MPI_INT, partner, 11, inter, &pair[0]));
      CHECK_MPI(MPI_Isend(&rank, 1, MPI_INT, partner, 11, inter, &pair[1]));
      CHECK_MPI(MPI_Waitall(2, pair, MPI_STATUSES_IGNORE));
      int want_from = 2 * partner + (1 - rank % 2);
      CHECK(from_remote == want_from, "intercommunicator: got %d from remote %d, want %d",
            from_remote, partner, want_from);
    }
    CHECK_MPI(MPI_Barrier(inter));
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Group_free(&other_group));
  }
  CHECK_MPI(MPI_Group_free(&half_group));

  MPI_Comm self = comm_of_pset(session, "mpi://SELF", "org.bdmpi.test.sessions.self");
  CHECK(self != MPI_COMM_NULL, "no SELF communicator");
  CHECK_MPI(MPI_Comm_size(self, &comm_size));
  CHECK_MPI(MPI_Comm_rank(self, &comm_rank));
  CHECK(comm_size == 1 && comm_rank == 0, "SELF communicator: rank %d of %d", comm_rank,
        comm_size);
  CHECK_MPI(MPI_Comm_free(&self));

  /* The session's error handler. */
  MPI_Errhandler handler, got_handler;
  CHECK_MPI(MPI_Session_create_errhandler(session_handler, &handler));
  CHECK_MPI(MPI_Session_set_errhandler(session, handler));
  CHECK_MPI(MPI_Session_get_errhandler(session, &got_handler));
  CHECK(got_handler == handler, "MPI_Session_get_errhandler gave another handler");
  CHECK_MPI(MPI_Errhandler_free(&got_handler));
  MPI_Group none = MPI_GROUP_NULL;
  int rc = MPI_Group_from_session_pset(session, "mpi://NO-SUCH-SET", &none);
  int error_class = -1;
  CHECK_MPI(MPI_Error_class(rc, &error_class));
  CHECK(error_class == MPI_ERR_ARG && g_handler_calls == 1 && g_handler_code == rc &&
            g_handler_session == session,
        "unknown set: class %d, handler called %d times with %d", error_class, g_handler_calls,
        g_handler_code);
  CHECK_MPI(MPI_Session_call_errhandler(session, MPI_ERR_OTHER));
  CHECK(g_handler_calls == 2 && g_handler_code == MPI_ERR_OTHER,
        "MPI_Session_call_errhandler: handler called %d times with %d", g_handler_calls,
        g_handler_code);
  CHECK_MPI(MPI_Session_set_errhandler(session, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Errhandler_free(&handler));

  /* A second session comes and goes; the first stays usable. */
  MPI_Session second;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &second));
  CHECK(second != session, "two sessions with one handle");
  MPI_Comm other = comm_of_pset(second, "mpi://WORLD", "org.bdmpi.test.sessions.second");
  int token = rank == 0 ? 42 : -1;
  CHECK_MPI(MPI_Bcast(&token, 1, MPI_INT, 0, other));
  CHECK(token == 42, "bcast in the second session: %d", token);
  CHECK_MPI(MPI_Comm_free(&other));
  CHECK_MPI(MPI_Session_finalize(&second));
  CHECK(second == MPI_SESSION_NULL, "MPI_Session_finalize left the handle");

  if (with_init) {
    CHECK_MPI(MPI_Finalize());
    int finalized = 0;
    CHECK_MPI(MPI_Finalized(&finalized));
    CHECK(finalized, "MPI_Finalized is false after MPI_Finalize");
  }
  /* The session outlives the world model. */
  CHECK_MPI(MPI_Barrier(world));
  CHECK_MPI(MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_MAX, world));
  CHECK(got == size - 1, "last allreduce %d", got);
  g_abort_comm = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_free(&world));
  CHECK_MPI(MPI_Group_free(&world_group));
  CHECK_MPI(MPI_Session_finalize(&session));

  CHECK(compute(rank == 0 ? 20000000 : 100000) > 0, "compute");
  session_again(rank, size, "org.bdmpi.test.sessions.again");
  /* The last rank leaves; the others go on without it. */
  if (size > 1 && rank == size - 1) return 0;
  if (size > 1) session_again(rank, size - 1, "org.bdmpi.test.sessions.without_last");
  if (rank == 0) printf("sessions%s: OK (%d ranks)\n", with_init ? " with MPI_Init" : "", size);
  return 0;
}
