/*
 * io_no_space: MPI-IO on a full disk (run by job_test with the job's
 * scratch directory, where the file goes, on a small tmpfs).
 *
 * Every rank writes a 100-byte header at rank * 100, then --mib MiB
 * (default 4) beyond the headers with MPI_File_write_at_all. On a full disk
 * the large write must return MPI_ERR_NO_SPACE (files default to
 * MPI_ERRORS_RETURN) and nothing else may be lost: the headers read back,
 * the job carries on (an allreduce), the file closes and is deleted.
 * --expect-no-space makes a successful large write an error (the test
 * would prove nothing). Rank 0 prints "io_no_space: ok".
 */
#include "io_common.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const size_t bytes = (size_t)arg_ll(argc, argv, "--mib", 4) << 20;
  const int expect_no_space = arg_flag(argc, argv, "--expect-no-space");
  char path[kPathMax];
  io_path("no_space", path);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                          &fh));
  unsigned char header[100], back[100];
  fill_pattern(header, sizeof header, (uint64_t)rank);
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at_all(fh, rank * 100, header, 100, MPI_BYTE, &st));
  unsigned char *big = xmalloc(bytes);
  fill_pattern(big, bytes, (uint64_t)rank + 1000);
  int rc = MPI_File_write_at_all(fh, (MPI_Offset)size * 100 + (MPI_Offset)bytes * rank, big,
                                 (int)bytes, MPI_BYTE, &st);
  int cls = error_class_of(rc);
  CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_NO_SPACE,
        "large write: class %d, want MPI_SUCCESS or MPI_ERR_NO_SPACE (%d)", cls, MPI_ERR_NO_SPACE);
  int failed = rc != MPI_SUCCESS, any_failed = 0;
  CHECK_MPI(MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD));
  CHECK(!expect_no_space || any_failed, "every %zu-byte write succeeded on a full disk", bytes);
  CHECK_MPI(MPI_File_read_at(fh, rank * 100, back, 100, MPI_BYTE, &st));
  CHECK_COUNT(st, MPI_BYTE, 100);
  CHECK_PATTERN(back, 100, (uint64_t)rank, "header after the large write");
  free(big);
  CHECK_MPI(MPI_File_close(&fh));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(!file_exists(path), "%s is still there", path);
  if (rank == 0) printf("io_no_space: ok%s\n", any_failed ? " (the disk was full)" : "");
  MPI_Finalize();
  return 0;
}
