/*
 * rma_ops.c -- every one-sided communication call, with derived datatypes
 * on both sides and every predefined operation, on windows of
 * MPI_Win_create (program memory) and MPI_Win_allocate, over the ranks of
 * each node, then (on several nodes) over all ranks, where most targets
 * are on another node. With -nr 1 the ranks are switched out at every
 * fence.
 */
#include "check.h"

enum { kN = 64, kSlots = 16 };

/* Window layout (ints): [0, 2*kN) data, [2*kN, 2*kN + kSlots) op slots,
 * then one counter and one CAS word. */
enum { kData = 0, kOps = 2 * kN, kCounter = 2 * kN + kSlots, kCas, kInts };

static const MPI_Op kIntOps[] = {MPI_MAX, MPI_MIN,  MPI_SUM, MPI_PROD, MPI_BAND, MPI_BOR,
                                 MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_REPLACE};
enum { kNumIntOps = sizeof(kIntOps) / sizeof(kIntOps[0]) };

static int value_of(int rank, int k) { return (rank * 7 + k * 3) % 11 + 1; }

static int fold(MPI_Op op, int a, int b) {
  if (op == MPI_MAX) return a > b ? a : b;
  if (op == MPI_MIN) return a < b ? a : b;
  if (op == MPI_SUM) return a + b;
  if (op == MPI_PROD) return a * b;
  if (op == MPI_BAND) return a & b;
  if (op == MPI_BOR) return a | b;
  if (op == MPI_BXOR) return a ^ b;
  if (op == MPI_LAND) return a && b;
  if (op == MPI_LOR) return a || b;
  if (op == MPI_LXOR) return !a != !b;
  return b;
}

static void run(MPI_Comm node, int allocate) {
  int rank = rank_in(node), size = size_of(node);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int *mem = NULL, *own = NULL;
  MPI_Win win;
  if (allocate) {
    CHECK_MPI(MPI_Win_allocate(kInts * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mem, &win));
  } else {
    own = xmalloc(kInts * sizeof(int));
    mem = own;
    CHECK_MPI(MPI_Win_create(mem, kInts * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &win));
  }
  for (int i = 0; i < kInts; ++i) mem[i] = -1;
  for (int k = 0; k < kNumIntOps; ++k) mem[kOps + k] = 5;
  mem[kCounter] = 0;

  /* Put: kN contiguous ints into every other int of the next rank (a
   * vector at the target). */
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(kN, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  int src[kN];
  for (int i = 0; i < kN; ++i) src[i] = rank * 1000 + i;
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put(src, kN, MPI_INT, next, kData, 1, every_other, win));
  /* No element: any predefined operation, even one undefined on the type
   * (mpi4py's Get_accumulate of nothing with MPI_SUM on MPI_BYTE). */
  char none = 0;
  CHECK_MPI(MPI_Get_accumulate(&none, 0, MPI_BYTE, &none, 0, MPI_BYTE, next, kData, 0, MPI_BYTE,
                               MPI_SUM, win));
  CHECK_MPI(MPI_Accumulate(&none, 0, MPI_BYTE, next, kData, 0, MPI_BYTE, MPI_PROD, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < kN; ++i) {
    CHECK(mem[2 * i] == prev * 1000 + i, "put: [%d] = %d, want %d", 2 * i, mem[2 * i],
          prev * 1000 + i);
    CHECK(mem[2 * i + 1] == -1, "put wrote the gap at %d", 2 * i + 1);
  }

  /* Get: the next rank's every-other ints into an indexed origin type. */
  int blocklens[2] = {kN / 2, kN / 2}, displs[2] = {kN / 2, 0};
  MPI_Datatype swapped;
  CHECK_MPI(MPI_Type_indexed(2, blocklens, displs, MPI_INT, &swapped));
  CHECK_MPI(MPI_Type_commit(&swapped));
  int dst[kN];
  CHECK_MPI(MPI_Get(dst, 1, swapped, next, kData, 1, every_other, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < kN; ++i) {
    int at = i < kN / 2 ? i + kN / 2 : i - kN / 2;
    CHECK(dst[at] == rank * 1000 + i, "get: [%d] = %d, want %d", at, dst[at], rank * 1000 + i);
  }

  /* Accumulate with every predefined operation on ints, all ranks into
   * rank 0 in one epoch: the same-origin ones in order. */
  for (int k = 0; k < kNumIntOps; ++k) {
    int v = value_of(rank, k);
    CHECK_MPI(MPI_Accumulate(&v, 1, MPI_INT, 0, kOps + k, 1, MPI_INT, kIntOps[k], win));
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank == 0) {
    for (int k = 0; k < kNumIntOps; ++k) {
      if (kIntOps[k] == MPI_REPLACE) {
        int v = mem[kOps + k], found = 0;
        for (int r = 0; r < size; ++r) found |= v == value_of(r, k);
        CHECK(found, "MPI_REPLACE left %d, no rank's value", v);
        continue;
      }
      int want = 5;
      for (int r = 0; r < size; ++r) want = fold(kIntOps[k], value_of(r, k), want);
      CHECK(mem[kOps + k] == want, "op %d: %d, want %d", k, mem[kOps + k], want);
    }
  }

  /* Fetch_and_op under a shared lock: every rank adds 1 to rank 0's
   * counter twice; the values fetched are all different. */
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  int one = 1, fetched[2];
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Fetch_and_op(&one, &fetched[0], MPI_INT, 0, kCounter, MPI_SUM, win));
  CHECK_MPI(MPI_Fetch_and_op(&one, &fetched[1], MPI_INT, 0, kCounter, MPI_SUM, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK(fetched[1] > fetched[0], "fetches out of order: %d then %d", fetched[0], fetched[1]);
  int *all = xmalloc(2 * (size_t)size * sizeof(int));
  CHECK_MPI(MPI_Allgather(fetched, 2, MPI_INT, all, 2, MPI_INT, node));
  for (int v = 0; v < 2 * size; ++v) {
    int seen = 0;
    for (int i = 0; i < 2 * size; ++i) seen += all[i] == v;
    CHECK(seen == 1, "fetch_and_op value %d fetched %d times", v, seen);
  }
  free(all);

  /* Compare_and_swap: exactly one rank turns -1 into its rank. */
  int compare = -1, mine = rank, old = 0;
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
  CHECK_MPI(MPI_Compare_and_swap(&mine, &compare, &old, MPI_INT, 0, kCas, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  int won = old == -1, winners = 0;
  CHECK_MPI(MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, node));
  CHECK(winners == 1, "%d ranks won the compare-and-swap", winners);

  /* Get_accumulate and MPI_NO_OP: read the counter atomically. */
  int counter = -5, unused = 0;
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
  CHECK_MPI(MPI_Get_accumulate(&unused, 1, MPI_INT, &counter, 1, MPI_INT, 0, kCounter, 1,
                               MPI_INT, MPI_NO_OP, win));
  CHECK_MPI(MPI_Win_unlock(0, win));
  CHECK(counter == 2 * size, "counter %d, want %d", counter, 2 * size);

  /* Request-based calls in a lock_all epoch. */
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  MPI_Request reqs[4];
  int rval = 100 + rank, racc = 1, rres = 0, back = 0;
  CHECK_MPI(MPI_Rput(&rval, 1, MPI_INT, next, kData + 1, 1, MPI_INT, win, &reqs[0]));
  CHECK_MPI(MPI_Raccumulate(&racc, 1, MPI_INT, next, kData + 3, 1, MPI_INT, MPI_SUM, win,
                            &reqs[1]));
  CHECK_MPI(MPI_Rget_accumulate(&racc, 1, MPI_INT, &rres, 1, MPI_INT, next, kData + 5, 1, MPI_INT,
                                MPI_SUM, win, &reqs[2]));
  CHECK_MPI(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Rget(&back, 1, MPI_INT, next, kData + 1, 1, MPI_INT, win, &reqs[3]));
  CHECK_MPI(MPI_Wait(&reqs[3], MPI_STATUS_IGNORE));
  CHECK(back == 100 + rank, "rget after rput: %d", back);
  CHECK(rres == -1, "rget_accumulate fetched %d", rres);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(node));
  CHECK(mem[1] == 100 + prev && mem[3] == 0 && mem[5] == 0, "request-based results %d %d %d",
        mem[1], mem[3], mem[5]);

  /* Doubles and MAXLOC on a pair type. */
  double dv = 0.5 * rank;
  struct {
    int value, index;
  } pair = {rank % 3, rank}, best;
  double *dwin_mem = NULL;
  MPI_Win dwin;
  CHECK_MPI(MPI_Win_allocate(4 * sizeof(double), 1, MPI_INFO_NULL, node, &dwin_mem, &dwin));
  dwin_mem[0] = 1.0;
  int *pair_mem = (int *)&dwin_mem[1];
  pair_mem[0] = -1;
  pair_mem[1] = -1;
  CHECK_MPI(MPI_Win_fence(0, dwin));
  CHECK_MPI(MPI_Accumulate(&dv, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, dwin));
  CHECK_MPI(MPI_Accumulate(&pair, 1, MPI_2INT, 0, sizeof(double), 1, MPI_2INT, MPI_MAXLOC, dwin));
  CHECK_MPI(MPI_Win_fence(0, dwin));
  if (rank == 0) {
    double want = 1.0;
    for (int r = 0; r < size; ++r) want += 0.5 * r;
    CHECK(dwin_mem[0] == want, "double sum %g, want %g", dwin_mem[0], want);
    best.value = -1;
    best.index = -1;
    for (int r = 0; r < size; ++r)
      if (r % 3 > best.value) {
        best.value = r % 3;
        best.index = r;
      }
    CHECK(pair_mem[0] == best.value && pair_mem[1] == best.index, "maxloc (%d, %d), want (%d, %d)",
          pair_mem[0], pair_mem[1], best.value, best.index);
  }
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, dwin));
  CHECK_MPI(MPI_Win_free(&dwin));

  MPI_Type_free(&every_other);
  MPI_Type_free(&swapped);
  CHECK_MPI(MPI_Win_free(&win));
  free(own);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  run(node, 0);
  run(node, 1);
  if (size_of(node) < world_size()) {
    run(MPI_COMM_WORLD, 0);
    run(MPI_COMM_WORLD, 1);
  }
  MPI_Comm_free(&node);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) printf("rma_ops: OK\n");
  MPI_Finalize();
  return 0;
}
