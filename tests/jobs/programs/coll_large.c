/*
 * coll_large.c -- collectives built from point-to-point messages with
 * blocks of 1 MiB and more, checked element by element: alltoall,
 * alltoallv (uneven blocks), gather, scatter, allgather, alltoall into a
 * receive type with gaps, and a nonblocking alltoall whose ranks make
 * other calls before they wait (an odd rank receives a message its even
 * neighbour sends only after its own wait), and a send buffer rewritten
 * after its alltoallv (in part, the rest read) and sent again, and one
 * freed untouched, read, rewritten in part, written to a file or kept
 * through more calls after its alltoallv. Under BDMPI such blocks are
 * lent: the receiver reads them from the sender's memory (or, with
 * --single-copy off, a refused read or a switched-out sender, through a
 * copy); the results must be the same bit for bit.
 *
 *   --rounds N   repeat everything N times (default 2)
 *   --kept-only  only the send buffers kept after their alltoallv
 *   --die-kept   instead: rank 0 dies right after an alltoallv, its
 *                send buffer kept
 *   --die        instead: rank 0 starts an MPI_Igather of 1 MiB to the
 *                last rank (a lent block) and is killed by SIGSEGV; the
 *                job must end naming it
 */
#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

enum { kBlockInts = (1 << 20) / (int)sizeof(int) }; /* 1 MiB */

static int rank, size;

/* The i-th int rank `from` sends rank `to` in round `round`. */
static int value(int from, int to, int i, int round) {
  return (int)((unsigned)from * 2654435761u ^ (unsigned)to * 40503u ^ (unsigned)i ^
               ((unsigned)round << 28));
}

static void fill(int *block, int from, int to, int n, int round) {
  for (int i = 0; i < n; ++i) block[i] = value(from, to, i, round);
}

static void check_block(const int *block, int from, int to, int n, int round,
                        const char *what) {
  for (int i = 0; i < n; ++i)
    CHECK(block[i] == value(from, to, i, round), "%s: int %d from rank %d is %d, not %d",
          what, i, from, block[i], value(from, to, i, round));
}

static void test_alltoall(int round) {
  size_t n = (size_t)kBlockInts * (size_t)size;
  int *send = xmalloc(n * sizeof(int)), *recv = xmalloc(n * sizeof(int));
  for (int r = 0; r < size; ++r) fill(send + (size_t)r * kBlockInts, rank, r, kBlockInts, round);
  memset(recv, 0, n * sizeof(int));
  CHECK_MPI(MPI_Alltoall(send, kBlockInts, MPI_INT, recv, kBlockInts, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r)
    check_block(recv + (size_t)r * kBlockInts, r, rank, kBlockInts, round, "alltoall");
  free(send);
  free(recv);
}

/* Block (from, to) holds 1 + (from + to) % 3 half-MiBs, stored in
 * reverse rank order. */
static int uneven(int from, int to) { return (1 + (from + to) % 3) * (kBlockInts / 2); }

static void test_alltoallv(int round) {
  int *scounts = xmalloc(sizeof(int) * (size_t)size), *sdispls = xmalloc(sizeof(int) * (size_t)size);
  int *rcounts = xmalloc(sizeof(int) * (size_t)size), *rdispls = xmalloc(sizeof(int) * (size_t)size);
  int stotal = 0, rtotal = 0;
  for (int r = size - 1; r >= 0; --r) {
    scounts[r] = uneven(rank, r), sdispls[r] = stotal, stotal += scounts[r];
    rcounts[r] = uneven(r, rank), rdispls[r] = rtotal, rtotal += rcounts[r];
  }
  int *send = xmalloc(sizeof(int) * (size_t)stotal), *recv = xmalloc(sizeof(int) * (size_t)rtotal);
  for (int r = 0; r < size; ++r) fill(send + sdispls[r], rank, r, scounts[r], round);
  memset(recv, 0, sizeof(int) * (size_t)rtotal);
  CHECK_MPI(MPI_Alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT,
                          MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r)
    check_block(recv + rdispls[r], r, rank, rcounts[r], round, "alltoallv");
  free(send), free(recv), free(scounts), free(sdispls), free(rcounts), free(rdispls);
}

static void test_gather_scatter(int round) {
  size_t n = (size_t)kBlockInts * (size_t)size;
  int *mine = xmalloc(sizeof(int) * kBlockInts), *all = xmalloc(n * sizeof(int));
  int root = size - 1;
  fill(mine, rank, root, kBlockInts, round);
  memset(all, 0, n * sizeof(int));
  CHECK_MPI(MPI_Gather(mine, kBlockInts, MPI_INT, all, kBlockInts, MPI_INT, root, MPI_COMM_WORLD));
  if (rank == root)
    for (int r = 0; r < size; ++r)
      check_block(all + (size_t)r * kBlockInts, r, root, kBlockInts, round, "gather");

  root = 0;
  if (rank == root)
    for (int r = 0; r < size; ++r) fill(all + (size_t)r * kBlockInts, root, r, kBlockInts, round);
  memset(mine, 0, sizeof(int) * kBlockInts);
  CHECK_MPI(MPI_Scatter(all, kBlockInts, MPI_INT, mine, kBlockInts, MPI_INT, root, MPI_COMM_WORLD));
  check_block(mine, root, rank, kBlockInts, round, "scatter");

  fill(mine, rank, -1, kBlockInts, round);
  memset(all, 0, n * sizeof(int));
  CHECK_MPI(MPI_Allgather(mine, kBlockInts, MPI_INT, all, kBlockInts, MPI_INT, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r)
    check_block(all + (size_t)r * kBlockInts, r, -1, kBlockInts, round, "allgather");
  free(mine);
  free(all);
}

/* Each int lands in every other int of the receive buffer; the holes
 * keep their sentinel. */
static void test_alltoall_gaps(int round) {
  enum { kHole = -7 };
  MPI_Datatype pair, gapped;
  CHECK_MPI(MPI_Type_vector(1, 1, 2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_create_resized(pair, 0, 2 * (MPI_Aint)sizeof(int), &gapped));
  CHECK_MPI(MPI_Type_commit(&gapped));
  size_t n = (size_t)kBlockInts * (size_t)size;
  int *send = xmalloc(n * sizeof(int)), *recv = xmalloc(2 * n * sizeof(int));
  for (int r = 0; r < size; ++r) fill(send + (size_t)r * kBlockInts, rank, r, kBlockInts, round);
  for (size_t k = 0; k < 2 * n; ++k) recv[k] = kHole;
  CHECK_MPI(MPI_Alltoall(send, kBlockInts, MPI_INT, recv, kBlockInts, gapped, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r) {
    const int *block = recv + 2 * (size_t)r * kBlockInts;
    for (int i = 0; i < kBlockInts; ++i) {
      CHECK(block[2 * i] == value(r, rank, i, round), "alltoall into gaps: int %d from %d", i, r);
      CHECK(block[2 * i + 1] == kHole, "alltoall into gaps: hole %d of %d overwritten", i, r);
    }
  }
  free(send);
  free(recv);
  CHECK_MPI(MPI_Type_free(&gapped));
  CHECK_MPI(MPI_Type_free(&pair));
}

/* An even rank waits for its MPI_Ialltoall before it sends to the odd
 * rank after it, which receives that message before it waits. */
static void test_ialltoall_interleaved(int round) {
  size_t n = (size_t)kBlockInts * (size_t)size;
  int *send = xmalloc(n * sizeof(int)), *recv = xmalloc(n * sizeof(int));
  for (int r = 0; r < size; ++r) fill(send + (size_t)r * kBlockInts, rank, r, kBlockInts, round);
  MPI_Request req;
  CHECK_MPI(MPI_Ialltoall(send, kBlockInts, MPI_INT, recv, kBlockInts, MPI_INT, MPI_COMM_WORLD,
                          &req));
  int token = rank;
  if (rank % 2 == 1) {
    CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, rank - 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(token == rank - 1, "token %d", token);
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (rank + 1 < size) CHECK_MPI(MPI_Send(&token, 1, MPI_INT, rank + 1, 5, MPI_COMM_WORLD));
  }
  for (int r = 0; r < size; ++r)
    check_block(recv + (size_t)r * kBlockInts, r, rank, kBlockInts, round, "ialltoall");
  free(send);
  free(recv);
}

static void check_range(const int *block, int from, int to, int lo, int hi, int round,
                        const char *what) {
  for (int i = lo; i < hi; ++i)
    CHECK(block[i] == value(from, to, i, round), "%s: int %d from rank %d is %d, not %d",
          what, i, from, block[i], value(from, to, i, round));
}

/* The send buffer after the call: an alltoallv from blocks that start
 * and end inside pages (an odd offset, with guard ints around), then the
 * first half of each block rewritten and the rest read (a sender switched
 * out while lending gets back from the master's copy the pages its
 * write-back skipped), the rest rewritten and all checked again across a
 * barrier (where a small budget switches the ranks out and in), and sent
 * again: receivers must get the new values, the guards must hold theirs
 * throughout. Blocks of `block_ints` + 5 ints: above the window, so lent;
 * of 128 KiB the buffer is in the heap, of 512 KiB a block of its own. */
static void test_send_buffer_rewritten(int round, int block_ints) {
  enum { kPad = 3, kGuard = -11 };
  int *counts = xmalloc(sizeof(int) * (size_t)size), *displs = xmalloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < size; ++r) counts[r] = block_ints + 5, displs[r] = r * counts[r];
  int total = size * counts[0], half = counts[0] / 2;
  int *buf = xmalloc(sizeof(int) * (size_t)(total + 2 * kPad)), *send = buf + kPad;
  int *recv = xmalloc(sizeof(int) * (size_t)total);
  for (int k = 0; k < kPad; ++k) buf[k] = buf[kPad + total + k] = kGuard;
  for (int pass = 0; pass < 2; ++pass) {
    int tag = round + 8 * pass;  /* what the blocks hold in this pass */
    if (pass == 0)
      for (int r = 0; r < size; ++r) fill(send + displs[r], rank, r, counts[r], tag);
    memset(recv, 0, sizeof(int) * (size_t)total);
    CHECK_MPI(MPI_Alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                            MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) check_block(recv + displs[r], r, rank, counts[r], tag,
                                               "alltoallv again");
    for (int r = 0; r < size; ++r) fill(send + displs[r], rank, r, half, round + 8);
    for (int r = 0; r < size; ++r) {
      check_range(send + displs[r], rank, r, 0, half, round + 8, "send buffer half rewritten");
      check_range(send + displs[r], rank, r, half, counts[r], tag, "send buffer after the call");
    }
    for (int r = 0; r < size; ++r) fill(send + displs[r], rank, r, counts[r], round + 8);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r)
      check_block(send + displs[r], rank, r, counts[r], round + 8, "send buffer rewritten");
  }
  for (int k = 0; k < kPad; ++k)
    CHECK(buf[k] == kGuard && buf[kPad + total + k] == kGuard, "guard int %d overwritten", k);
  free(buf), free(recv), free(counts), free(displs);
}

/* What a program may do with an alltoallv's send buffer after the call,
 * each once: (0) free it untouched, (1) read every byte, (2) rewrite part
 * of each block and read the rest, (3) hand it to write(2) and read the
 * file back, (4) keep it untouched through more calls (whose receives
 * under a small budget switch the rank out again), then read it. The
 * blocks start inside pages; under coll_large_switched_out the sender is
 * switched out while they are lent, and its pages come back mapped from
 * the master's copies. */
static void test_send_buffer_after(int round, int how) {
  enum { kPad = 5, kGuard = -13 };
  int block = kBlockInts / 2 + 7;
  int *counts = xmalloc(sizeof(int) * (size_t)size), *displs = xmalloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < size; ++r) counts[r] = block, displs[r] = r * block;
  int total = size * block, half = block / 2, tag = round + 16 + how;
  int *buf = xmalloc(sizeof(int) * (size_t)(total + 2 * kPad)), *send = buf + kPad;
  int *recv = xmalloc(sizeof(int) * (size_t)total);
  for (int k = 0; k < kPad; ++k) buf[k] = buf[kPad + total + k] = kGuard;
  for (int r = 0; r < size; ++r) fill(send + displs[r], rank, r, block, tag);
  CHECK_MPI(MPI_Alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                          MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r)
    check_block(recv + displs[r], r, rank, block, tag, "alltoallv, send buffer kept");
  if (how == 4) {
    /* More data of this rank's own, and others' turns at the budget. */
    for (int again = 0; again < 2; ++again) {
      CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INT, recv, block, MPI_INT, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
  }
  if (how == 2) {
    for (int r = 0; r < size; ++r) fill(send + displs[r], rank, r, half, tag + 1);
    for (int r = 0; r < size; ++r) {
      check_range(send + displs[r], rank, r, 0, half, tag + 1, "send buffer half rewritten");
      check_range(send + displs[r], rank, r, half, block, tag, "send buffer after the call");
    }
  } else if (how == 3) {
    FILE *file = tmpfile();
    CHECK(file != NULL, "tmpfile failed");
    size_t bytes = sizeof(int) * (size_t)(total + 2 * kPad);
    ssize_t wrote = write(fileno(file), buf, bytes);
    CHECK(wrote == (ssize_t)bytes, "write(2) of the send buffer: %zd of %zu bytes (errno %d)",
          wrote, bytes, errno);
    memset(recv, 0, sizeof(int) * (size_t)total);
    CHECK(pread(fileno(file), recv, sizeof(int) * (size_t)total, sizeof(int) * kPad) ==
              (ssize_t)(sizeof(int) * (size_t)total), "pread of the written send buffer");
    for (int r = 0; r < size; ++r)
      check_block(recv + displs[r], rank, r, block, tag, "send buffer through write(2)");
    fclose(file);
  } else if (how != 0) {
    for (int r = 0; r < size; ++r)
      check_block(send + displs[r], rank, r, block, tag, "send buffer after the call");
  }
  if (how != 0)
    for (int k = 0; k < kPad; ++k)
      CHECK(buf[k] == kGuard && buf[kPad + total + k] == kGuard, "guard int %d overwritten", k);
  free(buf), free(recv), free(counts), free(displs);
  /* A call with its payload in the request, right after the free. */
  int one = 1, ranks = 0;
  CHECK_MPI(MPI_Allreduce(&one, &ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(ranks == size, "allreduce after the free: %d, not %d", ranks, size);
}

/* Rank 0 dies right after an alltoallv whose send buffer it keeps: under
 * coll_large_kept_dies it was switched out while the blocks were lent,
 * and the master's copies are mapped into it when it dies. */
static void die_keeping(void) {
  int block = kBlockInts / 2 + 7, total = size * block;
  int *counts = xmalloc(sizeof(int) * (size_t)size), *displs = xmalloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < size; ++r) counts[r] = block, displs[r] = r * block;
  int *send = xmalloc(sizeof(int) * (size_t)total), *recv = xmalloc(sizeof(int) * (size_t)total);
  for (int r = 0; r < size; ++r) fill(send + displs[r], rank, r, block, 3);
  CHECK_MPI(MPI_Alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                          MPI_COMM_WORLD));
  if (rank == 0) raise(SIGSEGV);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(0, "rank %d passed a barrier that rank 0 never entered", rank);
}

/* Rank 0 dies while the last rank may be reading its block. Only the root
 * needs rank 0's block: another rank's part of the gather may complete
 * once its own block is taken. The root's may too, when rank 0's block
 * was taken before it died (then every block must be whole). Each then
 * waits for rank 0 in a barrier that never ends, so that the job ends on
 * rank 0's death alone. */
static void die_lending(void) {
  int *mine = xmalloc(sizeof(int) * kBlockInts);
  int *all = xmalloc(sizeof(int) * kBlockInts * (size_t)size);
  fill(mine, rank, size - 1, kBlockInts, 0);
  MPI_Request req;
  CHECK_MPI(MPI_Igather(mine, kBlockInts, MPI_INT, all, kBlockInts, MPI_INT, size - 1,
                        MPI_COMM_WORLD, &req));
  if (rank == 0) raise(SIGSEGV);
  int rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS && rank == size - 1)
    for (int r = 0; r < size; ++r)
      check_block(all + (size_t)r * kBlockInts, r, size - 1, kBlockInts, 0,
                  "a gather completed after its rank 0 died");
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(0, "rank %d passed a barrier that rank 0 never entered", rank);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  rank = world_rank();
  size = world_size();
  int rounds = 2;
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[i + 1]);
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--die") == 0) die_lending();
    if (strcmp(argv[i], "--kept-only") == 0) rounds = 0;
    if (strcmp(argv[i], "--die-kept") == 0) die_keeping();
  }
  if (rounds == 0)
    for (int how = 0; how < 5; ++how) test_send_buffer_after(0, how);
  for (int round = 0; round < rounds; ++round) {
    test_alltoall(round);
    test_alltoallv(round);
    test_gather_scatter(round);
    test_alltoall_gaps(round);
    test_ialltoall_interleaved(round);
    if (round == 0) test_send_buffer_rewritten(round, kBlockInts / 8);
    if (round == 0) test_send_buffer_rewritten(round, kBlockInts / 2);
    if (round == 0)
      for (int how = 0; how < 5; ++how) test_send_buffer_after(round, how);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
