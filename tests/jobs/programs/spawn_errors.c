/*
 * spawn_errors.c -- MPI_Comm_spawn's errors: a command that does not exist
 * gives an error at every rank (with --spawn-class: MPI_ERR_SPAWN, which
 * BDMPI gives; MPICH gives MPI_ERR_OTHER), with array_of_errcodes filled,
 * and no intercommunicator; a later spawn still works. With --room N, the
 * job was started with room for N spawned ranks (bdmpiexec --universe):
 * asking for more is MPI_ERR_SPAWN too, and MPI_UNIVERSE_SIZE says so
 * (on several nodes the room is spread over them like -n, and a spawn
 * fills what is left wherever it is). An info host that names no node of
 * the job is MPI_ERR_SPAWN, and so is an info wdir that is no directory
 * (a missing one, a file).
 * (Open MPI 4.1's mpirun ends the whole job on a missing command; see
 * tests/jobs/CMakeLists.txt.)
 */
#include "check.h"

static void spawn_and_greet(const char *self, int n) {
  char *args[] = {"child", NULL};
  MPI_Comm inter;
  CHECK_MPI(MPI_Comm_spawn(self, args, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                           MPI_ERRCODES_IGNORE));
  int sum = 0, one = 1;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter));
  CHECK(sum == n, "%d children answered, want %d", sum, n);
  CHECK_MPI(MPI_Comm_disconnect(&inter));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1 && strcmp(argv[1], "child") == 0) {
    MPI_Comm parent;
    CHECK_MPI(MPI_Comm_get_parent(&parent));
    int sum = 0, one = 1;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, parent));
    CHECK_MPI(MPI_Comm_disconnect(&parent));
    MPI_Finalize();
    return 0;
  }
  int spawn_class = 0, room = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--spawn-class") == 0) spawn_class = 1;
    if (strcmp(argv[i], "--room") == 0 && i + 1 < argc) room = atoi(argv[++i]);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int errcodes[2] = {-1, -1};
  MPI_Comm inter = MPI_COMM_WORLD;
  int rc = MPI_Comm_spawn("./no-such-program-bdmpi", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                          MPI_COMM_WORLD, &inter, errcodes);
  CHECK(rc != MPI_SUCCESS, "spawning a missing program succeeded");
  if (spawn_class)
    CHECK(error_class_of(rc) == MPI_ERR_SPAWN, "missing program: class %d",
          error_class_of(rc));
  CHECK(inter == MPI_COMM_NULL, "no intercommunicator after a failed spawn");
  for (int i = 0; i < 2; ++i)
    CHECK(errcodes[i] != MPI_SUCCESS, "errcode %d is MPI_SUCCESS", i);

  spawn_and_greet(argv[0], 1);

  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "host", "no-such-host.invalid"));
  rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, info, 0, MPI_COMM_WORLD, &inter, errcodes);
  CHECK_MPI(MPI_Info_free(&info));
  CHECK(error_class_of(rc) == MPI_ERR_SPAWN && inter == MPI_COMM_NULL,
        "spawning onto an unknown host: class %d", error_class_of(rc));
  CHECK(errcodes[0] == MPI_ERR_SPAWN, "unknown host: errcode %d", errcodes[0]);

  const char *not_dirs[] = {"/no-such-directory-bdmpi", argv[0]};
  for (int i = 0; i < 2; ++i) {
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "wdir", not_dirs[i]));
    errcodes[0] = -1;
    rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, info, 0, MPI_COMM_WORLD, &inter, errcodes);
    CHECK_MPI(MPI_Info_free(&info));
    CHECK(error_class_of(rc) == MPI_ERR_SPAWN && inter == MPI_COMM_NULL,
          "spawning into wdir %s: class %d", not_dirs[i], error_class_of(rc));
    CHECK(errcodes[0] == MPI_ERR_SPAWN, "wdir %s: errcode %d", not_dirs[i], errcodes[0]);
  }

  if (room > 0) {
    /* Room for N at once: N + 1 is too many, N fit once the first child
     * has exited and left its place. */
    int flag = 0, *universe = NULL;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag));
    CHECK(flag && *universe == world_size() + room, "MPI_UNIVERSE_SIZE %d, want %d",
          *universe, world_size() + room);
    int codes[64];
    rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, room + 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                        &inter, codes);
    CHECK(error_class_of(rc) == MPI_ERR_SPAWN, "spawning beyond the universe: class %d",
          error_class_of(rc));
    for (int i = 0; i <= room; ++i) CHECK(codes[i] == MPI_ERR_SPAWN, "errcode %d", codes[i]);
    spawn_and_greet(argv[0], room);
  }
  MPI_Finalize();
  return 0;
}
