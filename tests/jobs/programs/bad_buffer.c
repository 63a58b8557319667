/*
 * bad_buffer: invalid buffers under MPI_ERRORS_RETURN return MPI_ERR_BUFFER,
 * as Open MPI does (its user-buffer check), and the job carries on:
 *
 *   MPI_Send / MPI_Isend / MPI_Recv of 4 ints from or into NULL
 *   MPI_Send of 1 MiB from NULL (beyond the memory threshold: the spill
 *   path, which returned MPI_ERR_OTHER)
 *   --unmapped: MPI_Send of 1 MiB from an unmapped (PROT_NONE) buffer;
 *     BDMPI only: Open MPI's shared-memory copy crashes on it. And an
 *     MPI_Alltoallv whose blocks for the other ranks (256 KiB each, above
 *     the memory threshold: blocks BDMPI would lend) are unmapped: every
 *     rank fails at its first send, before anything is sent
 *
 * Afterwards a ring exchange and an Iprobe check that nothing was sent.
 */
#include <string.h>
#include <sys/mman.h>

#include "check.h"

enum { kLarge = 1 << 20 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size;
  int unmapped = argc > 1 && strcmp(argv[1], "--unmapped") == 0;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status st;

  CHECK_CLASS(MPI_Send(NULL, 4, MPI_INT, right, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Isend(NULL, 4, MPI_INT, right, 0, MPI_COMM_WORLD, &req),
              MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Recv(NULL, 4, MPI_INT, right, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Send(NULL, kLarge, MPI_BYTE, right, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  if (unmapped) {
    void *hole = mmap(NULL, kLarge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(hole != MAP_FAILED, "mmap failed");
    CHECK_CLASS(MPI_Send(hole, kLarge, MPI_BYTE, right, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    munmap(hole, kLarge);
    if (size > 1) {
      /* This rank's own block first, readable; the others' after it, not. */
      enum { kBlock = kLarge / 4 };
      char *buffer = mmap(NULL, (size_t)kBlock * (size_t)size, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      CHECK(buffer != MAP_FAILED, "mmap failed");
      CHECK(mprotect(buffer + kBlock, (size_t)kBlock * (size_t)(size - 1), PROT_NONE) == 0,
            "mprotect failed");
      char *recv = xmalloc((size_t)kBlock * (size_t)size);
      int *counts = xmalloc(sizeof(int) * (size_t)size), *sdispls = xmalloc(sizeof(int) * (size_t)size),
          *rdispls = xmalloc(sizeof(int) * (size_t)size);
      for (int r = 0, next = 1; r < size; ++r) {
        counts[r] = kBlock;
        rdispls[r] = r * kBlock;
        sdispls[r] = r == rank ? 0 : (next++) * kBlock;
      }
      CHECK_CLASS(MPI_Alltoallv(buffer, counts, sdispls, MPI_BYTE, recv, counts, rdispls,
                                MPI_BYTE, MPI_COMM_WORLD),
                  MPI_ERR_BUFFER);
      free(recv), free(counts), free(sdispls), free(rdispls);
      munmap(buffer, (size_t)kBlock * (size_t)size);
    }
  }
  /* A send of nothing from NULL is valid. */
  CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, right, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, (rank + size - 1) % size, 1, MPI_COMM_WORLD, &st));

  /* Nothing above may have sent anything else. */
  int out = rank, in = -1;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, right, 9, &in, 1, MPI_INT,
                         (rank + size - 1) % size, 9, MPI_COMM_WORLD, &st));
  CHECK(in == (rank + size - 1) % size, "ring after errors gave %d", in);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int flag = 1;
  CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
  CHECK(!flag, "a message from rank %d tag %d is left over", st.MPI_SOURCE, st.MPI_TAG);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
