/* The MPI-IO reader of the MPI applications (--reader mpiio): the data file
 * opened collectively on MPI_COMM_WORLD, each rank's block read with
 * MPI_File_read_at_all. Under BDMPI a rank waiting in the collective read
 * lets the others run, and a block that lands in storage-backed memory
 * goes into the rank's backing file without being resident. Plugs into
 * the format readers as their app_block_reader. */
#ifndef BDMPI_APPS_MPIIO_READER_H
#define BDMPI_APPS_MPIIO_READER_H

#include <mpi.h>

#include "app_io.h"

typedef struct app_mpiio {
  MPI_File file;
  app_block_reader* reader; /* the format reader's, reset at close */
} app_mpiio;

/* Collective. Returns 0 and fills `reader`, or -1 after printing why. */
int app_mpiio_open(app_mpiio* io, const char* path, app_block_reader* reader);
/* Collective. The format reader reads with pread again afterwards (its
 * later reads, e.g. rank 0's alone, must not be collective). */
void app_mpiio_close(app_mpiio* io);

#endif
