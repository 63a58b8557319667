/*
 * io_shared: the shared file pointer (MPI-3.1 13.4.4) with every rank at once.
 *
 * 1. Each rank appends --records records (its rank and a sequence number)
 *    with MPI_File_write_shared; the file must then hold every record
 *    exactly once, nothing else, and the shared pointer its end.
 * 2. MPI_File_seek_shared back to 0, every rank reads the same number of
 *    records with MPI_File_read_shared: together they read each exactly once.
 * 3. MPI_File_write_ordered (rank r writes r + 1 ints r, through a view
 *    with etype MPI_INT) lays the parts out in rank order;
 *    MPI_File_read_ordered gives each rank its own part back and the shared
 *    pointer ends past all parts.
 * Rank 0 prints "io_shared: ok".
 *
 * --crash: after 1., rank 0 removes the data file (an open file may go)
 * and the last rank crashes, so no rank closes the file: the job must still
 * leave nothing behind, the shared pointer's lock file included.
 */
#include <signal.h>

#include "io_common.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int records = (int)arg_ll(argc, argv, "--records", 20);
  char path[kPathMax];
  io_path("shared", path);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                          MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
  MPI_Status st;
  for (int i = 0; i < records; ++i) {
    int record[2] = {rank, i};
    CHECK_MPI(MPI_File_write_shared(fh, record, 2, MPI_INT, &st));
    CHECK_COUNT(st, MPI_INT, 2);
  }
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (arg_flag(argc, argv, "--crash")) {
    if (rank == 0) CHECK(unlink(path) == 0, "unlink %s", path);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == size - 1) raise(SIGSEGV);
    MPI_Barrier(MPI_COMM_WORLD); /* the job ends here */
  }
  CHECK_MPI(MPI_File_sync(fh));
  const int total = records * size;
  MPI_Offset pos = -1, fsize = -1;
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == (MPI_Offset)total * 8, "shared pointer at %lld, want %d", pos, total * 8);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* before anyone moves it again */
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == (MPI_Offset)total * 8, "file size %lld, want %d", fsize, total * 8);
  int *all = xmalloc(sizeof(int) * 2 * (size_t)total);
  char *seen = calloc((size_t)total, 1);
  CHECK_MPI(MPI_File_read_at(fh, 0, all, 2 * total, MPI_INT, &st));
  for (int k = 0; k < total; ++k) {
    int r = all[2 * k], i = all[2 * k + 1];
    CHECK(r >= 0 && r < size && i >= 0 && i < records, "record %d is (%d, %d)", k, r, i);
    CHECK(!seen[r * records + i], "record (%d, %d) written twice", r, i);
    seen[r * records + i] = 1;
  }
  /* Read it back through the shared pointer. */
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  long long sum = 0, count = 0;
  for (int i = 0; i < records; ++i) {
    int record[2];
    CHECK_MPI(MPI_File_read_shared(fh, record, 2, MPI_INT, &st));
    CHECK_COUNT(st, MPI_INT, 2);
    sum += record[0] * (long long)records + record[1];
    ++count;
  }
  long long sums[2] = {sum, count}, totals[2];
  CHECK_MPI(MPI_Allreduce(sums, totals, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  CHECK(totals[1] == total && totals[0] == (long long)total * (total - 1) / 2,
        "read_shared read %lld records summing to %lld", totals[1], totals[0]);

  /* Ordered access through an int view, after the records. */
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)total * 8, MPI_INT, MPI_INT, "native",
                              MPI_INFO_NULL));
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == 0, "set_view left the shared pointer at %lld", pos);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* before anyone moves it again */
  int *part = xmalloc(sizeof(int) * (size_t)(rank + 1));
  for (int i = 0; i <= rank; ++i) part[i] = rank;
  CHECK_MPI(MPI_File_write_ordered(fh, part, rank + 1, MPI_INT, &st));
  CHECK_COUNT(st, MPI_INT, rank + 1);
  const int parts = size * (size + 1) / 2;
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == parts, "shared pointer at %lld after write_ordered, want %d", pos, parts);
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_sync(fh));
  int *layout = xmalloc(sizeof(int) * (size_t)parts);
  CHECK_MPI(MPI_File_read_at(fh, 0, layout, parts, MPI_INT, &st));
  for (int r = 0, k = 0; r < size; ++r)
    for (int i = 0; i <= r; ++i, ++k) CHECK(layout[k] == r, "ordered int %d is %d", k, layout[k]);
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  for (int i = 0; i <= rank; ++i) part[i] = -1;
  CHECK_MPI(MPI_File_read_ordered(fh, part, rank + 1, MPI_INT, &st));
  CHECK_COUNT(st, MPI_INT, rank + 1);
  for (int i = 0; i <= rank; ++i) CHECK(part[i] == rank, "read_ordered int %d is %d", i, part[i]);
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == parts, "shared pointer at %lld after read_ordered, want %d", pos, parts);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* before anyone moves it again */
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
  CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == parts, "seek_shared END at %lld, want %d", pos, parts);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(!file_exists(path), "%s is still there", path);
  free(layout);
  free(part);
  free(seen);
  free(all);
  if (rank == 0) printf("io_shared: ok\n");
  MPI_Finalize();
  return 0;
}
