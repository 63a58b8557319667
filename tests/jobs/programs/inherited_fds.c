/*
 * inherited_fds: a rank holds no descriptor it did not open but 0, 1, 2
 * and its node's liveness file (the lock that says a process of the job
 * still lives): the master's others (Open MPI's pipe and sockets to the
 * orted a singleton master starts, its PMIx connections) and whatever
 * bdmpiexec's own environment left open are none of a rank's business,
 * and one held by a rank outlives the master. What libbdmpi opens itself
 * is close-on-exec. BDMPI only: under mpirun the ranks hold Open MPI's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  DIR *dir = opendir("/proc/self/fd");
  CHECK(dir != NULL, "cannot list /proc/self/fd");
  int inherited = 0, liveness = 0;
  for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
    if (entry->d_name[0] == '.') continue;
    int fd = atoi(entry->d_name);
    if (fd <= 2 || fd == dirfd(dir)) continue;
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0 || (flags & FD_CLOEXEC) != 0) continue;  /* ours, or closed by now */
    char path[64], target[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    target[n > 0 ? n : 0] = '\0';
    if (strncmp(target, "/dev/shm/bdmpi-", 15) == 0 && strstr(target, "-live-") != NULL) {
      ++liveness;
      continue;
    }
    fprintf(stderr, "rank %d: inherited descriptor %d -> %s\n", world_rank(), fd, target);
    ++inherited;
  }
  closedir(dir);
  CHECK(inherited == 0, "%d descriptor(s) inherited besides the liveness file", inherited);
  CHECK(liveness == 1, "%d liveness descriptors, want 1", liveness);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) printf("inherited_fds: ok\n");
  MPI_Finalize();
  return 0;
}
