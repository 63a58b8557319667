/*
 * io_common.h -- helpers of the MPI-IO job programs (io_*.c).
 *
 * Test files go to $JOB_IO_DIR (run_job.sh --io-in-scratch points it at the
 * job's scratch directory, e.g. a full tmpfs), else $TMPDIR, else /tmp; their
 * names carry rank 0's pid, so that tests running at once never share one.
 * Every program removes its files; run_job.sh checks the scratch dir.
 */
#ifndef BDMPI_JOBS_IO_COMMON_H
#define BDMPI_JOBS_IO_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

enum { kPathMax = 512 };

/* The same path on every rank of MPI_COMM_WORLD (collective). */
static inline void io_path(const char *name, char path[kPathMax]) {
  if (world_rank() == 0) {
    const char *dir = getenv("JOB_IO_DIR");
    if (dir == NULL || *dir == '\0') dir = getenv("TMPDIR");
    if (dir == NULL || *dir == '\0') dir = "/tmp";
    snprintf(path, kPathMax, "%s/io_%s.%ld", dir, name, (long)getpid());
  }
  CHECK_MPI(MPI_Bcast(path, kPathMax, MPI_CHAR, 0, MPI_COMM_WORLD));
}

static inline int file_exists(const char *path) { return access(path, F_OK) == 0; }

/* A status's element count, checked. */
#define CHECK_COUNT(st, datatype, want)                                    \
  do {                                                                     \
    int check_count_ = -1;                                                 \
    CHECK_MPI(MPI_Get_count(&(st), (datatype), &check_count_));           \
    CHECK(check_count_ == (want), "status count %d, want %d", check_count_, \
          (int)(want));                                                    \
  } while (0)

#endif
