/* For the data-file readers: opening with the header checked, and whole
 * reads at an offset (pread until done, retrying on EINTR). Header-only. */
#ifndef BDMPI_APPS_APP_IO_H
#define BDMPI_APPS_APP_IO_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "file_header.h"

/* Reads exactly `bytes` at `offset` of `fd`. Returns 0, or -1 after
 * printing why (naming `path`). */
static inline int app_pread_all(int fd, const char* path, void* buf,
                                uint64_t bytes, uint64_t offset) {
  char* p = (char*)buf;
  while (bytes > 0) {
    size_t want = bytes > (1u << 30) ? (1u << 30) : (size_t)bytes;
    ssize_t got = pread(fd, p, want, (off_t)offset);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      fprintf(stderr, "%s: read of %llu bytes at offset %llu failed: %s\n",
              path, (unsigned long long)bytes, (unsigned long long)offset,
              got < 0 ? strerror(errno) : "unexpected end of file");
      return -1;
    }
    p += got;
    bytes -= (uint64_t)got;
    offset += (uint64_t)got;
  }
  return 0;
}

/* Where a rank's block of a data file comes from when not from pread: the
 * MPI-IO reader (apps/common/mpiio_reader.h) reads it collectively. Reads
 * exactly `bytes` at `offset`; returns 0, or -1 after printing why. Every
 * rank reads its block through it the same number of times. */
typedef struct app_block_reader {
  int (*read)(void* ctx, const char* path, void* buf, uint64_t bytes,
              uint64_t offset);
  void* ctx;
} app_block_reader;

/* A block through `reader`, or with app_pread_all when it has none. */
static inline int app_read_block(const app_block_reader* reader, int fd,
                                 const char* path, void* buf, uint64_t bytes,
                                 uint64_t offset) {
  if (reader->read != NULL) return reader->read(reader->ctx, path, buf, bytes, offset);
  return app_pread_all(fd, path, buf, bytes, offset);
}

/* Checks the header of `path` (app_header_read) and opens it for reading.
 * Returns the descriptor, or -1 after printing why. */
static inline int app_data_open(const char* path, enum app_data_kind kind,
                                uint64_t (*expected_bytes)(const app_header*),
                                app_header* header) {
  if (app_header_read(path, kind, expected_bytes, header) != 0) return -1;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
  return fd;
}

#endif
