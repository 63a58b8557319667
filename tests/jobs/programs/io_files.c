/*
 * io_files: MPI-IO's calls on files as a whole, and their errors.
 *
 * open/close with every access mode and its errors (MPI_ERR_AMODE,
 * MPI_ERR_NO_SUCH_FILE, MPI_ERR_FILE_EXISTS with MPI_MODE_EXCL, writing a
 * read-only file, reading a write-only one), the default error handler of
 * files (MPI_ERRORS_RETURN, even when MPI_COMM_WORLD's is fatal) and
 * MPI_File_set/get_errhandler and a handler of MPI_File_create_errhandler
 * (called with the file and the code), MPI_File_delete, get/set_size, preallocate,
 * get_amode/group/info/set_info, atomicity, sync, MPI_MODE_APPEND and
 * MPI_MODE_DELETE_ON_CLOSE. Rank 0 prints "io_files: ok".
 *
 * --fatal-open: MPI_FILE_NULL's handler set to MPI_ERRORS_ARE_FATAL, the
 * open of a missing file must end the job (with a message naming it).
 * --abort-open: the same with MPI-4's MPI_ERRORS_ABORT, which an open file
 * also takes (where mpi.h has it: not Open MPI 4.1).
 */
#include "io_common.h"

/* One of several classes: implementations differ where the standard lets them. */
#define CHECK_CLASS_IN(call, a, b)                                           \
  do {                                                                       \
    int rc_ = (call), cls_ = error_class_of(rc_);                            \
    CHECK(rc_ != MPI_SUCCESS && (cls_ == (a) || cls_ == (b)),                \
          "%s returned class %d, want %s (%d) or %s (%d)", #call, cls_, #a, \
          (a), #b, (b));                                                     \
  } while (0)

/* The user error handler: counts its calls, remembers the file and code. */
static int handler_calls = 0, handler_code = 0;
static MPI_File handler_file = MPI_FILE_NULL;
static void count_errors(MPI_File *file, int *code, ...) {
  ++handler_calls;
  handler_file = *file;
  handler_code = *code;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  char path[kPathMax], missing[kPathMax];
  io_path("files", path);
  io_path("missing", missing);
  MPI_File fh;
  if (arg_flag(argc, argv, "--fatal-open")) {
    CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL));
    MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(0, "MPI_File_open of the missing %s returned under MPI_ERRORS_ARE_FATAL", missing);
  }
#ifdef MPI_ERRORS_ABORT
  if (arg_flag(argc, argv, "--abort-open")) {
    CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ABORT));
    MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(0, "MPI_File_open of the missing %s returned under MPI_ERRORS_ABORT", missing);
  }
#else
  CHECK(!arg_flag(argc, argv, "--abort-open"), "--abort-open needs MPI_ERRORS_ABORT (MPI-4)");
#endif

  /* Files default to MPI_ERRORS_RETURN whatever MPI_COMM_WORLD has. */
  MPI_Errhandler eh;
  CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "MPI_FILE_NULL's handler is not MPI_ERRORS_RETURN");
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
              MPI_ERR_NO_SUCH_FILE);
  CHECK(fh == MPI_FILE_NULL, "a failed open left a handle");
  CHECK_CLASS(MPI_File_delete(missing, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
  MPI_Offset none;
  CHECK_CLASS(MPI_File_get_size(MPI_FILE_NULL, &none), MPI_ERR_FILE);
  /* Bad access modes. */
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE,
                            MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_WRONLY |
                            MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
              MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL |
                            MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK(!file_exists(path), "a refused open created %s", path);

  /* Create, with info; amode, group, info. */
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "access_style", "write_once"));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                          MPI_MODE_EXCL, info, &fh));
  CHECK_MPI(MPI_Info_free(&info));
  int amode = 0;
  CHECK_MPI(MPI_File_get_amode(fh, &amode));
  CHECK(amode == (MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL), "amode %d", amode);
  MPI_Group group, world_group;
  int cmp = MPI_UNEQUAL;
  CHECK_MPI(MPI_File_get_group(fh, &group));
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  CHECK_MPI(MPI_Group_compare(group, world_group, &cmp));
  CHECK(cmp == MPI_IDENT, "the file's group is not MPI_COMM_WORLD's (%d)", cmp);
  CHECK_MPI(MPI_Group_free(&group));
  CHECK_MPI(MPI_Group_free(&world_group));
  MPI_Info used;
  CHECK_MPI(MPI_File_get_info(fh, &used));
  CHECK(used != MPI_INFO_NULL, "MPI_File_get_info gave MPI_INFO_NULL");
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "access_style", "read_mostly"));
  CHECK_MPI(MPI_File_set_info(fh, info));
  CHECK_MPI(MPI_Info_free(&info));

  /* Sizes: each rank writes 100 bytes at rank * 100. */
  MPI_Offset fsize = -1;
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == 0, "new file has size %lld", fsize);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  char text[100];
  fill_pattern(text, sizeof text, (uint64_t)rank);
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * 100, text, 100, MPI_CHAR, &st));
  CHECK_COUNT(st, MPI_CHAR, 100);
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_File_sync(fh));
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == 100LL * size, "size %lld, want %lld", fsize, 100LL * size);
  CHECK_MPI(MPI_File_preallocate(fh, 100LL * size + 4096));
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == 100LL * size + 4096, "size after preallocate %lld", fsize);
  CHECK_MPI(MPI_File_set_size(fh, 100LL * size - 50));
  CHECK_MPI(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == 100LL * size - 50, "size after set_size %lld", fsize);
  int flag = 1;
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 0, "atomic mode is on by default");
  CHECK_MPI(MPI_File_set_atomicity(fh, 1));
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 1, "atomic mode did not turn on");
  char back[100];
  CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)rank * 100, back, 100, MPI_CHAR, &st));
  CHECK_COUNT(st, MPI_CHAR, rank == size - 1 ? 50 : 100);
  CHECK_PATTERN(back, rank == size - 1 ? 50 : 100, (uint64_t)rank, "read back");
  CHECK_MPI(MPI_File_set_atomicity(fh, 0));
  /* A file handle's own error handler. */
  CHECK_MPI(MPI_File_get_errhandler(fh, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "a new file's handler is not MPI_ERRORS_RETURN");
#ifdef MPI_ERRORS_ABORT
  CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_ABORT));
  CHECK_MPI(MPI_File_get_errhandler(fh, &eh));
  CHECK(eh == MPI_ERRORS_ABORT, "a file's handler set to MPI_ERRORS_ABORT is not");
#endif
  CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
  CHECK_CLASS(MPI_File_read_at(fh, -1, back, 1, MPI_CHAR, &st), MPI_ERR_ARG);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(fh == MPI_FILE_NULL, "close did not set MPI_FILE_NULL");

  /* EXCL on an existing file. */
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_CREATE |
                            MPI_MODE_EXCL, MPI_INFO_NULL, &fh), MPI_ERR_FILE_EXISTS);
  /* Read-only: no writes; write-only: no reads. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_CLASS_IN(MPI_File_write_at(fh, 0, text, 1, MPI_CHAR, &st), MPI_ERR_READ_ONLY,
                 MPI_ERR_ACCESS);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  CHECK_CLASS_IN(MPI_File_read_at(fh, 0, back, 1, MPI_CHAR, &st), MPI_ERR_ACCESS,
                 MPI_ERR_IO);
  /* The same error through a handler of the program's. */
  MPI_Errhandler mine;
  CHECK_MPI(MPI_File_create_errhandler(count_errors, &mine));
  CHECK_MPI(MPI_File_set_errhandler(fh, mine));
  CHECK_MPI(MPI_Errhandler_free(&mine)); /* the file keeps it */
  MPI_File_read_at(fh, 0, back, 1, MPI_CHAR, &st);
  CHECK(handler_calls == 1 && handler_file == fh && handler_code != MPI_SUCCESS,
        "the file's handler was called %d times (file ok: %d, code %d)", handler_calls,
        handler_file == fh, handler_code);
  CHECK_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));

  /* APPEND: the pointers start at the end. */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_APPEND,
                          MPI_INFO_NULL, &fh));
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 100LL * size - 50, "APPEND position %lld", pos);
  CHECK_MPI(MPI_File_close(&fh));

  /* delete, then DELETE_ON_CLOSE. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(!file_exists(path), "%s is still there after MPI_File_delete", path);
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE |
                          MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_write_at_all(fh, rank, text, 1, MPI_CHAR, &st));
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(!file_exists(path), "%s is still there after a DELETE_ON_CLOSE close", path);

  /* Fatal handlers still return for MPI_FILE_NULL's default... set it back. */
  CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "MPI_FILE_NULL's handler did not change");
  CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("io_files: ok\n");
  MPI_Finalize();
  return 0;
}
