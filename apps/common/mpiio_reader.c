#include "mpiio_reader.h"

#include <stdio.h>

/* MPI counts are ints: a block goes in pieces of at most 1 GiB, and every
 * rank makes as many collective calls as the rank with the most pieces. */
enum { kPieceBytes = 1 << 30 };

static int report(const char* path, const char* what, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  fprintf(stderr, "%s: %s failed: %s\n", path, what, text);
  return -1;
}

static int read_block(void* ctx, const char* path, void* buf, uint64_t bytes,
                      uint64_t offset) {
  app_mpiio* io = ctx;
  long long pieces = (long long)((bytes + kPieceBytes - 1) / kPieceBytes), most = 0;
  MPI_Allreduce(&pieces, &most, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  int failed = 0;
  for (long long k = 0; k < most; ++k) {
    uint64_t at = (uint64_t)k * kPieceBytes;
    int count = at >= bytes ? 0 : (int)(bytes - at < kPieceBytes ? bytes - at : kPieceBytes);
    MPI_Status status;
    int rc = MPI_File_read_at_all(io->file, (MPI_Offset)(offset + at),
                                  count ? (char*)buf + at : buf, count, MPI_BYTE, &status);
    int got = 0;
    if (rc == MPI_SUCCESS) MPI_Get_count(&status, MPI_BYTE, &got);
    if (failed) continue;
    if (rc != MPI_SUCCESS) {
      failed = report(path, "MPI_File_read_at_all", rc);
    } else if (got != count) {
      fprintf(stderr, "%s: read of %d bytes at offset %llu: unexpected end of file\n", path,
              count, (unsigned long long)(offset + at));
      failed = -1;
    }
  }
  return failed;
}

int app_mpiio_open(app_mpiio* io, const char* path, app_block_reader* reader) {
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &io->file);
  if (rc != MPI_SUCCESS) return report(path, "MPI_File_open", rc);
  reader->read = read_block;
  reader->ctx = io;
  io->reader = reader;
  return 0;
}

void app_mpiio_close(app_mpiio* io) {
  MPI_File_close(&io->file);
  io->reader->read = NULL;
  io->reader->ctx = NULL;
}
