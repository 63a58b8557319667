/*
 * launch_env: what mpiexec's options gave the job.
 *
 *   --size N          the world has N ranks
 *   --node-size N     under BDMPI, N ranks per node (BDMPI_Comm_lsize)
 *   --nodes N         under BDMPI, N nodes (BDMPI_NODE_COUNT) running the
 *                     ranks in blocks: each size / N ranks, the first
 *                     size % N nodes one more
 *   --env VAR=VALUE   every rank sees VAR set to VALUE (repeatable)
 *   --sleep S         the last rank sleeps S seconds while the others wait
 *                     for it in MPI_Barrier (a job for --timeout to end)
 *
 * Rank 0 prints "launch_env: N ranks ok" when every check passed.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#ifdef BDMPI
#include <bdmpi.h>
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const long long want_size = arg_ll(argc, argv, "--size", size);
  CHECK(size == want_size, "world size %d, want %lld", size, want_size);
  // The ranks of this rank's node (0 when not known: not BDMPI).
  long long node_size = 0;
#ifdef BDMPI
  int lsize = 0;
  CHECK_MPI(BDMPI_Comm_lsize(MPI_COMM_WORLD, &lsize));
  node_size = lsize;
#endif
  const long long want_node = arg_ll(argc, argv, "--node-size", 0);
  CHECK(want_node == 0 || node_size == 0 || node_size == want_node,
        "rank %d: %lld ranks per node, want %lld", rank, node_size, want_node);
  const char *node_count = getenv("BDMPI_NODE_COUNT");
  const long long nodes = arg_ll(argc, argv, "--nodes", 0);
  if (nodes > 0 && node_size != 0) {
    CHECK(node_count != NULL && atoll(node_count) == nodes, "rank %d: %s nodes, want %lld",
          rank, node_count, nodes);
    const long long base = size / nodes, extra = size % nodes;
    const long long mine = rank < extra * (base + 1) ? base + 1 : base;
    CHECK(node_size == mine, "rank %d: %lld ranks on its node, want %lld", rank, node_size,
          mine);
  }
  for (int i = 1; i + 1 < argc; ++i) {
    if (strcmp(argv[i], "--env") != 0) continue;
    const char *spec = argv[i + 1], *equals = strchr(spec, '=');
    CHECK(equals != NULL, "--env takes VAR=VALUE, got '%s'", spec);
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(equals - spec), spec);
    const char *value = getenv(name);
    CHECK(value != NULL && strcmp(value, equals + 1) == 0,
          "rank %d: %s is '%s', want '%s'", rank, name, value ? value : "(unset)",
          equals + 1);
  }
  if (rank == size - 1) sleep((unsigned)arg_ll(argc, argv, "--sleep", 0));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("launch_env: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
