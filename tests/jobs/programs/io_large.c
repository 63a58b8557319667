/*
 * io_large: a file larger than the node's memory budget, read into
 * storage-backed memory.
 *
 * Every rank writes --mib MiB (default 16) of its pattern at rank * MiB with
 * MPI_File_write_at_all, then reads the next rank's part into a fresh
 * buffer with MPI_File_read_at (independent: no blocking point, so no
 * switch-out can shrink the rank meanwhile), writes that buffer, untouched,
 * after all parts with MPI_File_write_at, checks both, and reads the part
 * again with MPI_File_read_at_all, odd-sized and unaligned, and checks that.
 *
 * --max-rss-growth-pct P (BDMPI, where large buffers are storage-backed):
 * the read and the write may each grow the rank's resident memory (VmRSS)
 * by at most P% of the bytes they move: the data goes between the file and
 * the buffer's backing file, not through the rank's memory. Rank 0 prints
 * "io_large: ok" and the growth it saw.
 */
#include "io_common.h"

static long long vm_rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  CHECK(f != NULL, "cannot open /proc/self/status");
  char line[256];
  long long kib = -1;
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "VmRSS:", 6) == 0) kib = atoll(line + 6);
  }
  fclose(f);
  CHECK(kib >= 0, "no VmRSS in /proc/self/status");
  return kib;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const size_t bytes = (size_t)arg_ll(argc, argv, "--mib", 16) << 20;
  const long long max_growth_pct = arg_ll(argc, argv, "--max-rss-growth-pct", -1);
  char path[kPathMax];
  io_path("large", path);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                          MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
  unsigned char *out = xmalloc(bytes);
  fill_pattern(out, bytes, (uint64_t)rank);
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)bytes * rank, out, (int)bytes, MPI_BYTE, &st));
  CHECK_COUNT(st, MPI_BYTE, (int)bytes);
  free(out);
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_sync(fh));

  const int peer = (rank + 1) % size;
  unsigned char *in = xmalloc(bytes);
  long long before = vm_rss_kib();
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)bytes * peer, in, (int)bytes, MPI_BYTE, &st));
  long long growth = vm_rss_kib() - before;
  CHECK_COUNT(st, MPI_BYTE, (int)bytes);
  CHECK(max_growth_pct < 0 || growth * 1024 * 100 <= (long long)bytes * max_growth_pct,
        "reading %zu bytes grew VmRSS by %lld KiB, more than %lld%%", bytes, growth,
        max_growth_pct);
  /* The copy goes after everyone's part, before anything touched `in`. */
  const MPI_Offset copy_at = (MPI_Offset)bytes * (size + rank);
  before = vm_rss_kib();
  CHECK_MPI(MPI_File_write_at(fh, copy_at, in, (int)bytes, MPI_BYTE, &st));
  long long write_growth = vm_rss_kib() - before;
  CHECK_COUNT(st, MPI_BYTE, (int)bytes);
  CHECK(max_growth_pct < 0 || write_growth * 1024 * 100 <= (long long)bytes * max_growth_pct,
        "writing %zu bytes grew VmRSS by %lld KiB, more than %lld%%", bytes, write_growth,
        max_growth_pct);
  CHECK_PATTERN(in, bytes, (uint64_t)peer, "read_at of the next rank's part");
  unsigned char *copy = xmalloc(bytes);
  CHECK_MPI(MPI_File_read_at(fh, copy_at, copy, (int)bytes, MPI_BYTE, &st));
  CHECK_COUNT(st, MPI_BYTE, (int)bytes);
  CHECK_PATTERN(copy, bytes, (uint64_t)peer, "the written copy");
  free(copy);
  /* Unaligned and odd: 3 bytes into the buffer, from 5 bytes into the part. */
  const size_t odd = bytes - 4097;
  memset(in, 0, bytes);
  CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)bytes * peer + 5, in + 3, (int)odd, MPI_BYTE,
                                 &st));
  CHECK_COUNT(st, MPI_BYTE, (int)odd);
  for (size_t i = 0; i < odd; i += 4093)
    CHECK(in[3 + i] == pattern_byte((uint64_t)peer, i + 5), "byte %zu of the odd read", i);
  CHECK(in[3 + odd - 1] == pattern_byte((uint64_t)peer, odd + 4), "last byte of the odd read");
  CHECK(in[0] == 0 && in[3 + odd] == 0, "the odd read wrote outside its range");
  free(in);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(!file_exists(path), "%s is still there", path);
  if (rank == 0)
    printf("io_large: ok (%zu MiB per rank, VmRSS grew %lld KiB during the read, "
           "%lld KiB during the write)\n", bytes >> 20, growth, write_growth);
  MPI_Finalize();
  return 0;
}
