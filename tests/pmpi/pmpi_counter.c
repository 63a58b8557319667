/*
 * pmpi_counter -- a minimal profiling tool written the way every PMPI tool
 * is (mpiP, IPM, Score-P's wrappers): it defines MPI_Send, MPI_Recv,
 * MPI_Bcast, MPI_Allreduce and MPI_Comm_get_attr, counts the calls and
 * the bytes they name, and passes each call on to the PMPI_ twin. Linked
 * before libbdmpi, its definitions replace libbdmpi's weak MPI_ ones.
 *
 * At MPI_Finalize rank 0 prints the totals over all ranks to stderr:
 *   pmpi_counter: MPI_Send 8 calls 320 bytes, MPI_Recv ..., ...
 * A call libbdmpi makes internally (MPI_Attr_get using
 * MPI_Comm_get_attr, a collective built from point-to-point) goes to the
 * PMPI_ name and is not counted, as in MPICH and Open MPI.
 */
#include <mpi.h>
#include <stdio.h>

enum { kSend, kRecv, kBcast, kAllreduce, kGetAttr, kNumCounted };
static const char *const kNames[kNumCounted] = {
    "MPI_Send", "MPI_Recv", "MPI_Bcast", "MPI_Allreduce", "MPI_Comm_get_attr"};

/* calls[i] and bytes[i] of this rank, as one array for one reduction. */
static long long counts[2 * kNumCounted];

static void count(int which, int elements, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  counts[which] += 1;
  counts[kNumCounted + which] += (long long)elements * size;
}

int MPI_Send(const void *buf, int n, MPI_Datatype type, int dest, int tag,
             MPI_Comm comm) {
  count(kSend, n, type);
  return PMPI_Send(buf, n, type, dest, tag, comm);
}

int MPI_Recv(void *buf, int n, MPI_Datatype type, int source, int tag,
             MPI_Comm comm, MPI_Status *status) {
  count(kRecv, n, type);
  return PMPI_Recv(buf, n, type, source, tag, comm, status);
}

int MPI_Bcast(void *buf, int n, MPI_Datatype type, int root, MPI_Comm comm) {
  count(kBcast, n, type);
  return PMPI_Bcast(buf, n, type, root, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int n,
                  MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  count(kAllreduce, n, type);
  return PMPI_Allreduce(sendbuf, recvbuf, n, type, op, comm);
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag) {
  count(kGetAttr, 0, MPI_BYTE);
  return PMPI_Comm_get_attr(comm, keyval, value, flag);
}

int MPI_Finalize(void) {
  long long totals[2 * kNumCounted];
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Reduce(counts, totals, 2 * kNumCounted, MPI_LONG_LONG, MPI_SUM, 0,
              MPI_COMM_WORLD);
  if (rank == 0) {
    fprintf(stderr, "pmpi_counter:");
    for (int i = 0; i < kNumCounted; ++i) {
      fprintf(stderr, "%s %s %lld calls %lld bytes", i ? "," : "", kNames[i],
              totals[i], totals[kNumCounted + i]);
    }
    fprintf(stderr, "\n");
    fflush(stderr);
  }
  return PMPI_Finalize();
}
