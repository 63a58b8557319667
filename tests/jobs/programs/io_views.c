/*
 * io_views: data access through file views on derived datatypes, with each
 * kind of file pointer and call (MPI-3.1 13.3-13.4).
 *
 * 1. Interleaved blocks: rank r sees blocks of B ints, every size-th block
 *    (a vector filetype, displacement r * B ints); it writes its part with
 *    two MPI_File_write (individual pointer), then MPI_File_write_all, and
 *    the whole file read back by every rank with the default view must hold
 *    each rank's values in place, and its own blocks through its view. get_position, get_byte_offset, seek
 *    (SET/CUR/END), get_view with the derived types (freed after).
 * 2. A 2-D array of doubles, columns split among ranks with a subarray
 *    filetype written with write_at_all from a strided memory type (a
 *    vector with gaps), read back by rows with another subarray view into a
 *    resized type.
 * 3. Non-blocking iwrite_at/iread_at/iread completed by MPI_Wait, Waitall
 *    and Test; split collectives (write_at_all_begin/end, read_all_begin/
 *    end); a read at the end of file returns a short count.
 * Rank 0 prints "io_views: ok".
 */
#include "io_common.h"

enum { B = 3, kBlocks = 5 };

static int value(int rank, int i) { return rank * 100000 + i; }

static void interleaved(const char *path) {
  const int rank = world_rank(), size = world_size();
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                          MPI_INFO_NULL, &fh));
  MPI_Datatype blocks, filetype;
  CHECK_MPI(MPI_Type_vector(1, B, B * size, MPI_INT, &blocks));
  CHECK_MPI(MPI_Type_create_resized(blocks, 0, (MPI_Aint)sizeof(int) * B * size, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  CHECK_MPI(MPI_Type_free(&blocks));
  const MPI_Offset disp = (MPI_Offset)sizeof(int) * B * rank;
  CHECK_MPI(MPI_File_set_view(fh, disp, MPI_INT, filetype, "native", MPI_INFO_NULL));
  int mine[B * kBlocks];
  for (int i = 0; i < B * kBlocks; ++i) mine[i] = value(rank, i);
  /* Two independent writes of 2 and the rest, then check the pointer. */
  MPI_Status st;
  CHECK_MPI(MPI_File_write(fh, mine, 2, MPI_INT, &st));
  CHECK_COUNT(st, MPI_INT, 2);
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 2, "position %lld after writing 2 etypes", pos);
  CHECK_MPI(MPI_File_write_all(fh, mine + 2, B * kBlocks - 2, MPI_INT, &st));
  CHECK_COUNT(st, MPI_INT, B * kBlocks - 2);
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == B * kBlocks, "position %lld, want %d", pos, B * kBlocks);
  /* Byte offsets: etype k of the view. */
  MPI_Offset byte = -1;
  CHECK_MPI(MPI_File_get_byte_offset(fh, B + 1, &byte));
  CHECK(byte == disp + (MPI_Offset)sizeof(int) * (B * size + 1),
        "byte offset of etype %d: %lld", B + 1, byte);
  /* The view as it was set. */
  MPI_Offset got_disp;
  MPI_Datatype etype, ftype;
  char rep[MPI_MAX_DATAREP_STRING];
  CHECK_MPI(MPI_File_get_view(fh, &got_disp, &etype, &ftype, rep));
  int fsize = 0;
  CHECK_MPI(MPI_Type_size(ftype, &fsize));
  CHECK(got_disp == disp && etype == MPI_INT && fsize == (int)sizeof(int) * B &&
            strcmp(rep, "native") == 0,
        "get_view: disp %lld, filetype size %d, datarep %s", got_disp, fsize, rep);
  CHECK_MPI(MPI_Type_free(&ftype));
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_sync(fh));
  /* Seeks; END is the view's end of file: every rank wrote all its blocks. */
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == B * kBlocks, "end of file at etype %lld, want %d", pos, B * kBlocks);
  CHECK_MPI(MPI_File_seek(fh, 4, MPI_SEEK_SET));
  CHECK_MPI(MPI_File_seek(fh, -2, MPI_SEEK_CUR));
  int two[2];
  CHECK_MPI(MPI_File_read(fh, two, 2, MPI_INT, &st));
  CHECK(two[0] == value(rank, 2) && two[1] == value(rank, 3), "read %d %d at etype 2",
        two[0], two[1]);
  /* All of my blocks through the view (pieces with gaps). (Not past the
   * end of file: ROMIO then counts what was asked for, not what was read.) */
  int back[B * kBlocks];
  CHECK_MPI(MPI_File_read_at(fh, 0, back, B * kBlocks, MPI_INT, &st));
  CHECK_COUNT(st, MPI_INT, B * kBlocks);
  for (int i = 0; i < B * kBlocks; ++i)
    CHECK(back[i] == value(rank, i), "int %d of my view is %d, want %d", i, back[i],
          value(rank, i));
  CHECK_MPI(MPI_Type_free(&filetype));
  /* The whole file through the default view. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  const int total = B * kBlocks * size;
  int *all = xmalloc(sizeof(int) * (size_t)total);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, all, total, MPI_INT, &st));
  CHECK_COUNT(st, MPI_INT, total);
  for (int g = 0; g < total; ++g) {
    int owner = (g / B) % size, local = (g / (B * size)) * B + g % B;
    CHECK(all[g] == value(owner, local), "file int %d is %d, want %d", g, all[g],
          value(owner, local));
  }
  free(all);
  CHECK_MPI(MPI_File_close(&fh));
}

enum { kRows = 4, kColsPerRank = 3 };

static void subarrays(const char *path) {
  const int rank = world_rank(), size = world_size();
  const int cols = kColsPerRank * size, rows = kRows * size;
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                          MPI_INFO_NULL, &fh));
  /* My columns of the whole array. */
  int sizes[2] = {rows, cols}, sub[2] = {rows, kColsPerRank}, starts[2] = {0, kColsPerRank * rank};
  MPI_Datatype colblock;
  CHECK_MPI(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &colblock));
  CHECK_MPI(MPI_Type_commit(&colblock));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_DOUBLE, colblock, "native", MPI_INFO_NULL));
  /* Memory: every other double of a buffer (gaps). */
  const int n = rows * kColsPerRank;
  double *spread = xmalloc(sizeof(double) * 2 * (size_t)n);
  for (int i = 0; i < n; ++i) {
    int r = i / kColsPerRank, c = kColsPerRank * rank + i % kColsPerRank;
    spread[2 * i] = r * 1000.0 + c;
    spread[2 * i + 1] = -1.0;
  }
  MPI_Datatype strided;
  CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at_all(fh, 0, spread, 1, strided, &st));
  CHECK_COUNT(st, strided, 1);
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_sync(fh));
  /* Read my rows back, each into a slot of 2 doubles (a resized type). */
  int rsub[2] = {kRows, cols}, rstarts[2] = {kRows * rank, 0};
  MPI_Datatype rowblock, slot;
  CHECK_MPI(MPI_Type_create_subarray(2, sizes, rsub, rstarts, MPI_ORDER_C, MPI_DOUBLE, &rowblock));
  CHECK_MPI(MPI_Type_commit(&rowblock));
  CHECK_MPI(MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &slot));
  CHECK_MPI(MPI_Type_commit(&slot));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_DOUBLE, rowblock, "native", MPI_INFO_NULL));
  const int m = kRows * cols;
  double *rowsbuf = xmalloc(sizeof(double) * 2 * (size_t)m);
  for (int i = 0; i < 2 * m; ++i) rowsbuf[i] = -7.0;
  CHECK_MPI(MPI_File_read_all(fh, rowsbuf, m, slot, &st));
  CHECK_COUNT(st, slot, m);
  for (int i = 0; i < m; ++i) {
    double want = (kRows * rank + i / cols) * 1000.0 + i % cols;
    CHECK(rowsbuf[2 * i] == want && rowsbuf[2 * i + 1] == -7.0,
          "row element %d: %g (gap %g), want %g", i, rowsbuf[2 * i], rowsbuf[2 * i + 1], want);
  }
  free(rowsbuf);
  free(spread);
  CHECK_MPI(MPI_Type_free(&slot));
  CHECK_MPI(MPI_Type_free(&rowblock));
  CHECK_MPI(MPI_Type_free(&strided));
  CHECK_MPI(MPI_Type_free(&colblock));
  CHECK_MPI(MPI_File_close(&fh));
}

enum { kChunk = 1000 };

static void nonblocking(const char *path) {
  const int rank = world_rank(), size = world_size();
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                          MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_size(fh, 0));
  long long out[2][kChunk], in[2][kChunk];
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < kChunk; ++i) out[k][i] = (long long)rank * 1000000 + k * kChunk + i;
  MPI_Request reqs[2];
  MPI_Status sts[2];
  for (int k = 0; k < 2; ++k)
    CHECK_MPI(MPI_File_iwrite_at(fh, (MPI_Offset)(8 * kChunk) * (2 * rank + k), out[k],
                                 kChunk, MPI_LONG_LONG, &reqs[k]));
  CHECK_MPI(MPI_Waitall(2, reqs, sts));
  for (int k = 0; k < 2; ++k) CHECK_COUNT(sts[k], MPI_LONG_LONG, kChunk);
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_sync(fh));
  /* The next rank's data, with iread_at + Wait and seek + iread + Test. */
  const int peer = (rank + 1) % size;
  MPI_Request req;
  MPI_Status st;
  CHECK_MPI(MPI_File_iread_at(fh, (MPI_Offset)(8 * kChunk) * (2 * peer), in[0], kChunk,
                              MPI_LONG_LONG, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL, "MPI_Wait left the request");
  CHECK_COUNT(st, MPI_LONG_LONG, kChunk);
  CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)(8 * kChunk) * (2 * peer + 1), MPI_SEEK_SET));
  CHECK_MPI(MPI_File_iread(fh, in[1], kChunk, MPI_LONG_LONG, &req));
  int done = 0;
  while (!done) CHECK_MPI(MPI_Test(&req, &done, &st));
  CHECK_COUNT(st, MPI_LONG_LONG, kChunk);
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < kChunk; ++i)
      CHECK(in[k][i] == (long long)peer * 1000000 + k * kChunk + i, "value %d.%d: %lld", k, i,
            in[k][i]);
  /* Split collectives. */
  CHECK_MPI(MPI_File_write_at_all_begin(fh, (MPI_Offset)(8 * kChunk) * (2 * rank), out[1],
                                        kChunk, MPI_LONG_LONG));
  CHECK_MPI(MPI_File_write_at_all_end(fh, out[1], &st));
  CHECK_COUNT(st, MPI_LONG_LONG, kChunk);
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)(8 * kChunk) * (2 * peer), MPI_SEEK_SET));
  CHECK_MPI(MPI_File_read_all_begin(fh, in[0], kChunk, MPI_LONG_LONG));
  CHECK_MPI(MPI_File_read_all_end(fh, in[0], &st));
  CHECK_COUNT(st, MPI_LONG_LONG, kChunk);
  for (int i = 0; i < kChunk; ++i)
    CHECK(in[0][i] == (long long)peer * 1000000 + kChunk + i, "split read %d: %lld", i, in[0][i]);
  /* Short read at the end of the file. */
  MPI_Offset end = (MPI_Offset)(8 * kChunk) * 2 * size;
  CHECK_MPI(MPI_File_read_at(fh, end - 8 * 10, in[0], kChunk, MPI_LONG_LONG, &st));
  CHECK_COUNT(st, MPI_LONG_LONG, 10);
  CHECK_MPI(MPI_File_read_at(fh, end + 100, in[0], kChunk, MPI_LONG_LONG, &st));
  CHECK_COUNT(st, MPI_LONG_LONG, 0);
  CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  char path[kPathMax];
  io_path("views", path);
  interleaved(path);
  subarrays(path);
  nonblocking(path);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (world_rank() == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(!file_exists(path), "%s is still there", path);
  if (world_rank() == 0) printf("io_views: ok\n");
  MPI_Finalize();
  return 0;
}
