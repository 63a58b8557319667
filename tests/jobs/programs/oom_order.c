/*
 * oom_order: where the node runs out of memory, the kernel should kill a
 * rank rather than the process that started it. Every rank reads its own
 * out-of-memory score adjustment and its parent's; with --expect-above-parent
 * (under bdmpiexec, whose master starts the ranks) each checks that its own
 * is 500 above the master's, or at the maximum of 1000.
 */
#include <unistd.h>

#include "check.h"

static int read_adj(const char *path) {
  FILE *file = fopen(path, "r");
  CHECK(file != NULL, "cannot open %s", path);
  int value = 0;
  CHECK(fscanf(file, "%d", &value) == 1, "cannot read %s", path);
  fclose(file);
  return value;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  char parent_path[64];
  snprintf(parent_path, sizeof parent_path, "/proc/%d/oom_score_adj", (int)getppid());
  const int mine = read_adj("/proc/self/oom_score_adj");
  const int parent = read_adj(parent_path);
  CHECK(mine >= -1000 && mine <= 1000, "oom_score_adj %d out of range", mine);
  if (arg_flag(argc, argv, "--expect-above-parent")) {
    const int want = parent + 500 > 1000 ? 1000 : parent + 500;
    CHECK(mine == want, "rank %d: oom_score_adj %d, its master's %d: want %d", world_rank(), mine,
          parent, want);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Finalize();
  return 0;
}
