/*
 * singleton: a program that its tests start directly, without bdmpiexec
 * (a singleton MPI_Init). It must find itself a job of one rank
 * with all its arguments, and every way of ending must leave nothing.
 *
 *   singleton [ARGS...]        checks the job and that its arguments are
 *                              exactly "one", "two words" and "three"
 *   singleton --help           prints its usage and ends (exit 0)
 *   singleton --exit N         MPI_Finalize, then returns N
 *   singleton --abort N        MPI_Abort(MPI_COMM_WORLD, N)
 *   singleton --crash          dies of SIGSEGV after MPI_Init
 *   singleton --term-launcher  sends SIGTERM to the process that was started
 *                              (now bdmpiexec, the parent of this rank's
 *                              master), as `kill` or a batch system would
 */
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "check.h"

/* The parent of process `pid`, from /proc/<pid>/stat. */
static pid_t parent_of(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *file = fopen(path, "r");
  CHECK(file != NULL, "cannot open %s", path);
  int parent = -1;
  CHECK(fscanf(file, "%*d (%*[^)]) %*c %d", &parent) == 1, "cannot parse %s",
        path);
  fclose(file);
  return (pid_t)parent;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK(world_size() == 1, "MPI_Comm_size is %d, want 1", world_size());
  CHECK(world_rank() == 0, "MPI_Comm_rank is %d, want 0", world_rank());

  if (argc == 2 && strcmp(argv[1], "--help") == 0) {
    printf("usage: singleton [--help | --exit N | --abort N | --crash]\n");
    MPI_Finalize();
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "--abort") == 0) {
    fprintf(stderr, "singleton: aborting\n");
    MPI_Abort(MPI_COMM_WORLD, atoi(argv[2]));
  }
  if (argc == 2 && strcmp(argv[1], "--crash") == 0) raise(SIGSEGV);
  if (argc == 2 && strcmp(argv[1], "--term-launcher") == 0) {
    kill(parent_of(getppid()), SIGTERM);
    sleep(30); /* the job ends this rank long before */
    CHECK(0, "still running 30 s after SIGTERM to the launcher");
  }
  if (argc == 3 && strcmp(argv[1], "--exit") == 0) {
    MPI_Finalize();
    return atoi(argv[2]);
  }

  static const char *const kWant[] = {"one", "two words", "three"};
  CHECK(argc == 4, "%d arguments, want 3", argc - 1);
  for (int i = 0; i < 3; ++i) {
    CHECK(strcmp(argv[i + 1], kWant[i]) == 0, "argument %d is '%s', want '%s'",
          i + 1, argv[i + 1], kWant[i]);
  }
  /* The runtime works: a message to oneself and a collective. */
  int out = 42, in = 0, sum = 0;
  MPI_Sendrecv(&out, 1, MPI_INT, 0, 3, &in, 1, MPI_INT, 0, 3, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  CHECK(in == 42, "self message %d", in);
  MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == 42, "allreduce %d", sum);
  printf("singleton: rank 0 of 1, 3 arguments ok\n");
  MPI_Finalize();
  return 0;
}
