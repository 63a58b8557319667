/*
 * large_message: one message of more than 2 GiB (2^31 + 24 bytes) from
 * rank 0 to the last rank, sent with MPI_Send_c and received with
 * MPI_Recv_c, counted with MPI_Get_count_c, and checked byte for byte
 * (each 8-byte word holds its index). The other ranks only take part in
 * the barrier.
 *
 * Open MPI 4.1, the oracle, has no _c calls: built against it, the
 * program sends the same bytes as one element of a struct type (two
 * 1 GiB blocks and the rest) and counts them with MPI_Get_elements_x.
 */
#include "check.h"

#include <limits.h>

#if defined(BDMPI) || MPI_VERSION >= 4
#define HAVE_LARGE_COUNT 1
#endif

static const MPI_Count kBytes = ((MPI_Count)1 << 31) + 24;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int last = size - 1;
  const size_t words = (size_t)kBytes / 8;
  if (size > 1 && (rank == 0 || rank == last)) {
    unsigned long long *buffer = malloc((size_t)kBytes);
    CHECK(buffer != NULL, "no memory for %lld bytes", (long long)kBytes);
    MPI_Datatype type = MPI_BYTE;
    MPI_Count count = kBytes;
#ifndef HAVE_LARGE_COUNT
    MPI_Datatype gib;
    MPI_Type_contiguous(1 << 30, MPI_BYTE, &gib);
    int lengths[2] = {2, 24};
    MPI_Aint disps[2] = {0, (MPI_Aint)1 << 31};
    MPI_Datatype types[2] = {gib, MPI_BYTE};
    MPI_Type_create_struct(2, lengths, disps, types, &type);
    MPI_Type_commit(&type);
    MPI_Type_free(&gib);
    count = 1;
#endif
    if (rank == 0) {
      for (size_t i = 0; i < words; ++i) buffer[i] = i * 0x9E3779B97F4A7C15ull;
#ifdef HAVE_LARGE_COUNT
      MPI_Send_c(buffer, count, type, last, 3, MPI_COMM_WORLD);
#else
      MPI_Send(buffer, (int)count, type, last, 3, MPI_COMM_WORLD);
#endif
    } else {
      memset(buffer, 0, (size_t)kBytes);
      MPI_Status status;
#ifdef HAVE_LARGE_COUNT
      MPI_Recv_c(buffer, count, type, 0, 3, MPI_COMM_WORLD, &status);
      MPI_Count got = 0;
      MPI_Get_count_c(&status, MPI_BYTE, &got);
      CHECK(got == kBytes, "MPI_Get_count_c: %lld bytes", (long long)got);
      int narrow = 0;
      MPI_Get_count(&status, MPI_BYTE, &narrow);
      CHECK(narrow == MPI_UNDEFINED, "MPI_Get_count of 2 GiB: %d", narrow);
#else
      MPI_Recv(buffer, (int)count, type, 0, 3, MPI_COMM_WORLD, &status);
      MPI_Count got = 0;
      MPI_Get_elements_x(&status, MPI_BYTE, &got);
      CHECK(got == kBytes, "MPI_Get_elements_x: %lld bytes", (long long)got);
#endif
      for (size_t i = 0; i < words; ++i)
        CHECK(buffer[i] == i * 0x9E3779B97F4A7C15ull, "word %zu differs", i);
    }
#ifndef HAVE_LARGE_COUNT
    MPI_Type_free(&type);
#endif
    free(buffer);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("large_message: OK\n");
  MPI_Finalize();
  return 0;
}
