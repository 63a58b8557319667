/*
 * io_datarep: data representations of file views (MPI-4.1 14.5).
 *
 * 1. "external32": every rank writes its ints through an interleaving view
 *    (blocks of K ints, every size-th block) collectively and its doubles
 *    at an explicit offset; reading back through the view gives the
 *    values, and the raw bytes (a "native" MPI_BYTE view) are big-endian.
 *    MPI_File_get_view names the representation, MPI_File_get_type_extent
 *    gives the file's extents. MPI_Register_datarep of a name already
 *    registered fails with MPI_ERR_DUP_DATAREP, an unknown name in a view
 *    with MPI_ERR_UNSUPPORTED_DATAREP.
 * 2. With --user (Open MPI 4.1's and MPICH's ROMIO refuse user
 *    representations in views, so only BDMPI runs it): a registered
 *    representation "wide64" stores each MPI_INT as a big-endian 8-byte
 *    integer. A vector filetype is portable, so its stride scales to the
 *    file's 8 bytes (MPI-4.1 14.5.1); the raw file shows the values where
 *    the scaled layout puts them, the conversion functions see the extra
 *    state, a short read at the end of the file counts whole items.
 *    MPI_CONVERSION_FN_NULL keeps the native bytes; a failing conversion
 *    function gives MPI_ERR_CONVERSION. In "external32" an MPI_LONG is 4
 *    bytes in the file, also inside a vector filetype.
 * Rank 0 prints "io_datarep: ok".
 */
#include <stdint.h>
#include <string.h>

#include "io_common.h"

enum { K = 3, kBlocks = 4, kDoubles = 5 };

static int value(int rank, int i) { return 0x01020000 + rank * 256 + i; }

static uint64_t be_bytes(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

/* The whole file as bytes (a native byte view, every rank). */
static unsigned char *read_raw(MPI_File fh, MPI_Offset *size) {
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_get_size(fh, size));
  unsigned char *raw = xmalloc((size_t)*size + 1);
  MPI_Status st;
  CHECK_MPI(MPI_File_read_at_all(fh, 0, raw, (int)*size, MPI_BYTE, &st));
  CHECK_COUNT(st, MPI_BYTE, (int)*size);
  return raw;
}

static void external32(const char *path) {
  const int rank = world_rank(), size = world_size();
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                          MPI_INFO_NULL, &fh));
  MPI_Datatype block, filetype;
  CHECK_MPI(MPI_Type_contiguous(K, MPI_INT, &block));
  CHECK_MPI(MPI_Type_create_resized(block, 0, (MPI_Aint)4 * K * size, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  CHECK_MPI(MPI_Type_free(&block));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)4 * K * rank, MPI_INT, filetype, "external32",
                              MPI_INFO_NULL));
  char rep[MPI_MAX_DATAREP_STRING];
  MPI_Offset disp;
  MPI_Datatype etype, ftype;
  CHECK_MPI(MPI_File_get_view(fh, &disp, &etype, &ftype, rep));
  CHECK(strcmp(rep, "external32") == 0, "get_view's datarep \"%s\"", rep);
  CHECK(etype == MPI_INT, "get_view's etype");
  CHECK_MPI(MPI_Type_free(&ftype));
  MPI_Aint extent = 0;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &extent));
  CHECK(extent == 4, "external32 extent of MPI_INT %ld", (long)extent);
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_DOUBLE, &extent));
  CHECK(extent == 8, "external32 extent of MPI_DOUBLE %ld", (long)extent);

  int mine[K * kBlocks], back[K * kBlocks];
  for (int i = 0; i < K * kBlocks; ++i) mine[i] = value(rank, i);
  MPI_Status st;
  CHECK_MPI(MPI_File_write_all(fh, mine, K * kBlocks, MPI_INT, &st));
  CHECK_COUNT(st, MPI_INT, K * kBlocks);
  memset(back, 0, sizeof back);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, back, K * kBlocks, MPI_INT, &st));
  CHECK_COUNT(st, MPI_INT, K * kBlocks);
  for (int i = 0; i < K * kBlocks; ++i)
    CHECK(back[i] == mine[i], "int %d read back as %#x, want %#x", i, back[i], mine[i]);

  /* Doubles after the ints, kDoubles per rank at an explicit offset. */
  const MPI_Offset ints_end = (MPI_Offset)4 * K * kBlocks * size;
  CHECK_MPI(MPI_File_set_view(fh, ints_end, MPI_DOUBLE, MPI_DOUBLE, "external32",
                              MPI_INFO_NULL));
  double d[kDoubles], dback[kDoubles];
  for (int i = 0; i < kDoubles; ++i) d[i] = rank + i / 8.0 - 1e10;
  CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)kDoubles * rank, d, kDoubles, MPI_DOUBLE,
                                  &st));
  CHECK_COUNT(st, MPI_DOUBLE, kDoubles);
  CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)kDoubles * rank, dback, kDoubles,
                                 MPI_DOUBLE, &st));
  for (int i = 0; i < kDoubles; ++i) CHECK(dback[i] == d[i], "double %d read back", i);

  /* The bytes in the file: big-endian. */
  MPI_Offset bytes = 0;
  unsigned char *raw = read_raw(fh, &bytes);
  CHECK(bytes == ints_end + (MPI_Offset)8 * kDoubles * size, "file of %lld bytes", bytes);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < K * kBlocks; ++i) {
      MPI_Offset at = (MPI_Offset)4 * ((i / K) * K * size + r * K + i % K);
      CHECK(be_bytes(raw + at, 4) == (uint64_t)(uint32_t)value(r, i),
            "rank %d's int %d in the file: %#llx", r, i,
            (unsigned long long)be_bytes(raw + at, 4));
    }
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < kDoubles; ++i) {
      double want = r + i / 8.0 - 1e10;
      uint64_t bits;
      memcpy(&bits, &want, 8);
      CHECK(be_bytes(raw + ints_end + 8 * (r * kDoubles + i), 8) == bits,
            "rank %d's double %d is not big-endian IEEE in the file", r, i);
    }
  free(raw);
  CHECK_MPI(MPI_Type_free(&filetype));

  /* Names: registered twice, unknown. */
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "io_datarep_no_such", MPI_INFO_NULL),
              MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static int extent_fn(MPI_Datatype datatype, MPI_Aint *file_extent, void *extra_state) {
  (void)extra_state;
  MPI_Aint lb;
  return MPI_Type_get_extent(datatype, &lb, file_extent);
}

static void registration(void) {
  CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Register_datarep("io_datarep_once", MPI_CONVERSION_FN_NULL,
                                 MPI_CONVERSION_FN_NULL, extent_fn, NULL));
  CHECK_CLASS(MPI_Register_datarep("io_datarep_once", MPI_CONVERSION_FN_NULL,
                                   MPI_CONVERSION_FN_NULL, extent_fn, NULL),
              MPI_ERR_DUP_DATAREP);
}

/* ---- a user representation: MPI_INT as a big-endian 8-byte integer.
 * Compiled where MPI-4's MPI_Register_datarep_c is (a macro of it tells). */
#ifdef MPI_CONVERSION_FN_NULL_C

static int calls;

static int wide_extent(MPI_Datatype datatype, MPI_Aint *file_extent, void *extra_state) {
  CHECK(extra_state == &calls, "extent function's extra_state");
  if (datatype != MPI_INT) return MPI_ERR_TYPE;
  *file_extent = 8;
  return MPI_SUCCESS;
}

/* The test passes contiguous MPI_INT buffers only. */
static int wide_write(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                      MPI_Offset position, void *extra_state) {
  CHECK(extra_state == &calls && datatype == MPI_INT, "write conversion's arguments");
  ++*(int *)extra_state;
  const int *in = (const int *)userbuf + position;
  unsigned char *out = filebuf;
  for (int i = 0; i < count; ++i) {
    uint64_t v = (uint64_t)(int64_t)in[i];
    for (int b = 0; b < 8; ++b) out[8 * i + b] = (unsigned char)(v >> (56 - 8 * b));
  }
  return MPI_SUCCESS;
}

static int wide_read(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                     MPI_Offset position, void *extra_state) {
  CHECK(extra_state == &calls && datatype == MPI_INT, "read conversion's arguments");
  ++*(int *)extra_state;
  int *out = (int *)userbuf + position;
  for (int i = 0; i < count; ++i)
    out[i] = (int)(int64_t)be_bytes((const unsigned char *)filebuf + 8 * i, 8);
  return MPI_SUCCESS;
}

static int failing_write(void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf,
                         MPI_Offset position, void *extra_state) {
  (void)userbuf, (void)datatype, (void)count, (void)filebuf, (void)position,
      (void)extra_state;
  return MPI_ERR_OTHER;
}

static void user_datarep(const char *path) {
  const int rank = world_rank(), size = world_size();
  CHECK_MPI(MPI_Register_datarep("wide64", wide_read, wide_write, wide_extent, &calls));
  CHECK_MPI(MPI_Register_datarep_c("failing", MPI_CONVERSION_FN_NULL_C, failing_write,
                                   wide_extent, &calls));
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                          MPI_INFO_NULL, &fh));
  /* Every size-th int from int `rank`: in the file 8 bytes each. */
  MPI_Datatype vector, filetype;
  CHECK_MPI(MPI_Type_vector(kBlocks, 1, size, MPI_INT, &vector));
  CHECK_MPI(MPI_Type_commit(&vector));
  /* A tile covers the rank's whole part: a byte extent, as in the file. */
  CHECK_MPI(MPI_Type_create_resized(vector, 0, (MPI_Aint)8 * kBlocks * size, &filetype));
  CHECK_MPI(MPI_Type_commit(&filetype));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)8 * rank, MPI_INT, filetype, "wide64",
                              MPI_INFO_NULL));
  MPI_Aint extent = 0;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &extent));
  CHECK(extent == 8, "wide64 extent of MPI_INT %ld", (long)extent);
  CHECK_MPI(MPI_File_get_type_extent(fh, vector, &extent));
  CHECK(extent == 8 * ((kBlocks - 1) * size + 1), "wide64 extent of the vector %ld",
        (long)extent);
  CHECK_MPI(MPI_File_get_type_extent(fh, filetype, &extent));
  CHECK(extent == 8 * kBlocks * size, "wide64 extent of the resized vector %ld", (long)extent);
  int mine[kBlocks], back[kBlocks + 2];
  for (int i = 0; i < kBlocks; ++i) mine[i] = (i % 2 ? -1 : 1) * value(rank, i);
  MPI_Status st;
  calls = 0;
  CHECK_MPI(MPI_File_write_all(fh, mine, kBlocks, MPI_INT, &st));
  CHECK_COUNT(st, MPI_INT, kBlocks);
  CHECK(calls > 0, "the write conversion function was not called");
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == kBlocks, "position %lld after %d etypes", pos, kBlocks);
  memset(back, 0, sizeof back);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, back, kBlocks, MPI_INT, &st));
  CHECK_COUNT(st, MPI_INT, kBlocks);
  for (int i = 0; i < kBlocks; ++i)
    CHECK(back[i] == mine[i], "wide64 int %d read back as %d, want %d", i, back[i], mine[i]);
  /* From the last etype, 3 asked: the file ends after 1. */
  memset(back, 0, sizeof back);
  CHECK_MPI(MPI_File_read_at_all(fh, kBlocks - 1, back, 3, MPI_INT, &st));
  CHECK_COUNT(st, MPI_INT, 1);
  CHECK(back[0] == mine[kBlocks - 1] && back[1] == 0, "short read at the end");

  MPI_Offset bytes = 0;
  unsigned char *raw = read_raw(fh, &bytes);
  CHECK(bytes == (MPI_Offset)8 * kBlocks * size, "wide64 file of %lld bytes", bytes);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < kBlocks; ++i) {
      int64_t want = (i % 2 ? -1 : 1) * (int64_t)value(r, i);
      CHECK(be_bytes(raw + 8 * (i * size + r), 8) == (uint64_t)want,
            "rank %d's int %d in the wide64 file", r, i);
    }
  free(raw);

  /* A conversion function that fails. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "failing", MPI_INFO_NULL));
  CHECK_CLASS(MPI_File_write_at(fh, 0, mine, 1, MPI_INT, &st), MPI_ERR_CONVERSION);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* MPI_CONVERSION_FN_NULL: the native bytes, in the layout of the file's
   * extents (here the native ones). */
  CHECK_MPI(MPI_File_set_size(fh, 0));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)4 * rank, MPI_INT, vector, "io_datarep_once",
                              MPI_INFO_NULL));
  CHECK_MPI(MPI_File_write_at_all(fh, 0, mine, kBlocks, MPI_INT, &st));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int plain[kBlocks];
  CHECK_MPI(MPI_File_read_at(fh, 0, plain, kBlocks, MPI_INT, &st));
  CHECK(memcmp(plain, mine, sizeof mine) == 0, "io_datarep_once read back");

  /* external32's MPI_LONG is 4 bytes in the file, the vector scaled. */
  CHECK_MPI(MPI_File_set_size(fh, 0));
  MPI_Datatype longs;
  CHECK_MPI(MPI_Type_vector(kBlocks, 1, size, MPI_LONG, &longs));
  CHECK_MPI(MPI_Type_commit(&longs));
  CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)4 * rank, MPI_LONG, longs, "external32",
                              MPI_INFO_NULL));
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_LONG, &extent));
  CHECK(extent == 4, "external32 extent of MPI_LONG %ld", (long)extent);
  long lv[kBlocks], lback[kBlocks];
  for (int i = 0; i < kBlocks; ++i) lv[i] = -value(rank, i);
  CHECK_MPI(MPI_File_write_all(fh, lv, kBlocks, MPI_LONG, &st));
  CHECK_COUNT(st, MPI_LONG, kBlocks);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, lback, kBlocks, MPI_LONG, &st));
  CHECK_COUNT(st, MPI_LONG, kBlocks);
  for (int i = 0; i < kBlocks; ++i) CHECK(lback[i] == lv[i], "long %d read back", i);
  raw = read_raw(fh, &bytes);
  CHECK(bytes == (MPI_Offset)4 * kBlocks * size, "external32 long file of %lld bytes", bytes);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < kBlocks; ++i)
      CHECK(be_bytes(raw + 4 * (i * size + r), 4) == (uint32_t)-value(r, i),
            "rank %d's long %d in the file", r, i);
  free(raw);
  CHECK_MPI(MPI_Type_free(&longs));
  CHECK_MPI(MPI_Type_free(&filetype));
  CHECK_MPI(MPI_Type_free(&vector));
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  char path[kPathMax];
  io_path("datarep", path);
  registration();
  external32(path);
#ifdef MPI_CONVERSION_FN_NULL_C
  if (arg_flag(argc, argv, "--user")) user_datarep(path);
#else
  CHECK(!arg_flag(argc, argv, "--user"), "--user needs MPI_Register_datarep_c (MPI-4)");
#endif
  if (world_rank() == 0) printf("io_datarep: ok\n");
  MPI_Finalize();
  return 0;
}
