/* pagerank / pagerank_ooc: push-style PageRank as in section 6 of the BDMPI
 * paper, a plain MPI program.
 *
 *   pagerank FILE [--iters N] [--tol T]
 *   pagerank_ooc FILE [--iters N] [--tol T] [--ooc-dir DIR]
 *
 * 1-D decomposition: rank k owns the consecutive vertices
 * graph_split(p, k) .. graph_split(p, k+1) - 1 (balanced by edges +
 * vertices) and their out-edges. Setup: each rank lists the distinct targets
 * of its edges (sorted, hence grouped by owner), tells every owner which of
 * its vertices it will send values for (MPI_Alltoall of the counts,
 * MPI_Alltoallv of the ids) and replaces each edge's target by the slot of
 * that target in its send buffer. Each iteration then:
 *   1. pushes r_u / outdeg(u) into the send slots (pr_push);
 *   2. MPI_Alltoallv of the slot values; each owner adds what it received
 *      to its vertices;
 *   3. the update (pr_update) with the dangling mass, then one
 *      MPI_Allreduce of the L1 change (which --tol tests) and of the next
 *      iteration's dangling mass.
 * Rank 0 prints ITER and L1 lines per iteration and RESULT pagerank
 * <checksum> (pagerank_kernel.h) at the end.
 *
 * pagerank_ooc (built with APP_OOC): before each of those blocking calls
 * the rank hands its arrays to the ooc store (apps/common/ooc_store.h),
 * which writes what changed to the rank's file and frees them; it reads them
 * back after. The graph block, the slots and the receive map are written
 * once (READONLY); the rank vector is READWRITE. The send and receive
 * buffers of step 2 live only around that call. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_alloc.h"
#include "app_util.h"
#include "graph_format.h"
#include "ooc_store.h"
#include "pagerank_kernel.h"

typedef struct pr_rank {
  int size, me;
  uint64_t n, lo, nloc;
  uint64_t* rowptr;     /* nloc + 1 (absolute edge offsets) */
  uint32_t* slots;      /* per local edge: its slot in the send buffer */
  uint32_t* recv_local; /* per received value: the local vertex it is for */
  double* rank;         /* nloc */
  int *send_counts, *send_displs, *recv_counts, *recv_displs;
  uint64_t nsend, nrecv;
  app_ooc_store* store; /* NULL unless pagerank_ooc */
} pr_rank;

/* The ooc discipline around a blocking call (no-ops without a store). */
static void before_blocking(pr_rank* s) {
  if (s->store != NULL) app_ooc_save(s->store);
}
static void after_blocking(pr_rank* s) {
  if (s->store != NULL) app_ooc_load(s->store);
}

static int compare_u32(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return (x > y) - (x < y);
}

/* Index of `key` in the sorted, distinct `keys` (it is there). */
static uint32_t find_slot(const uint32_t* keys, uint64_t count, uint32_t key) {
  uint64_t lo = 0, hi = count;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (uint32_t)lo;
}

static int* prefix_sums(const int* counts, int size, uint64_t* total) {
  int* displs = app_alloc(sizeof(int) * (size_t)size, 0, "pagerank");
  uint64_t at = 0;
  for (int q = 0; q < size; ++q) {
    displs[q] = (int)at;
    at += (uint64_t)counts[q];
  }
  if (at > (uint64_t)INT32_MAX) {
    fprintf(stderr,
            "pagerank: more than 2^31 values to exchange per rank; "
            "use more ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  *total = at;
  return displs;
}

/* Reads the rank's block and builds the exchange plan (see the top). */
static void setup(pr_rank* s, graph_file* g) {
  s->n = g->n;
  s->lo = graph_split(g, (uint64_t)s->size, (uint64_t)s->me);
  uint64_t hi = graph_split(g, (uint64_t)s->size, (uint64_t)s->me + 1);
  s->nloc = hi - s->lo;
  uint64_t* bounds = app_alloc(8 * ((size_t)s->size + 1), 0, "pagerank");
  MPI_Allgather(&s->lo, 1, MPI_UINT64_T, bounds, 1, MPI_UINT64_T,
                MPI_COMM_WORLD);
  bounds[s->size] = s->n;

  uint64_t edges;
  if (graph_block_edges(g, s->lo, hi, &edges) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  s->rowptr = app_alloc(8 * (s->nloc + 1), 0, "pagerank");
  s->slots = app_alloc(4 * edges, 0, "pagerank");
  if (graph_read_rows(g, s->lo, hi, s->rowptr, s->slots) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);

  /* Distinct targets, sorted: grouped by owner, since owners hold ranges. */
  uint32_t* wanted = app_alloc(4 * edges, 0, "pagerank");
  memcpy(wanted, s->slots, 4 * edges);
  qsort(wanted, edges, 4, compare_u32);
  uint64_t distinct = 0;
  for (uint64_t e = 0; e < edges; ++e)
    if (distinct == 0 || wanted[e] != wanted[distinct - 1])
      wanted[distinct++] = wanted[e];
  for (uint64_t e = 0; e < edges; ++e)
    s->slots[e] = find_slot(wanted, distinct, s->slots[e]);

  s->send_counts = app_alloc(sizeof(int) * (size_t)s->size, 0, "pagerank");
  s->recv_counts = app_alloc(sizeof(int) * (size_t)s->size, 0, "pagerank");
  uint64_t at = 0;
  for (int q = 0; q < s->size; ++q) {
    uint64_t start = at;
    while (at < distinct && wanted[at] < bounds[q + 1]) ++at;
    s->send_counts[q] = (int)(at - start);
  }
  MPI_Alltoall(s->send_counts, 1, MPI_INT, s->recv_counts, 1, MPI_INT,
               MPI_COMM_WORLD);
  s->send_displs = prefix_sums(s->send_counts, s->size, &s->nsend);
  s->recv_displs = prefix_sums(s->recv_counts, s->size, &s->nrecv);
  s->recv_local = app_alloc(4 * s->nrecv, 0, "pagerank");
  MPI_Alltoallv(wanted, s->send_counts, s->send_displs, MPI_UINT32_T,
                s->recv_local, s->recv_counts, s->recv_displs, MPI_UINT32_T,
                MPI_COMM_WORLD);
  for (uint64_t k = 0; k < s->nrecv; ++k) {
    if (s->recv_local[k] < s->lo || s->recv_local[k] >= hi) {
      fprintf(stderr, "pagerank: rank %d got vertex %u, owns %llu..%llu\n",
              s->me, s->recv_local[k], (unsigned long long)s->lo,
              (unsigned long long)hi - 1);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    s->recv_local[k] -= (uint32_t)s->lo;
  }
  free(wanted);
  free(bounds);

  s->rank = app_alloc(8 * s->nloc, 0, "pagerank");
  for (uint64_t i = 0; i < s->nloc; ++i) s->rank[i] = 1.0 / (double)s->n;
  if (s->store != NULL) {
    app_ooc_add(s->store, (void**)&s->rowptr, 8 * (s->nloc + 1),
                APP_OOC_READONLY);
    app_ooc_add(s->store, (void**)&s->slots, 4 * edges, APP_OOC_READONLY);
    app_ooc_add(s->store, (void**)&s->recv_local, 4 * s->nrecv,
                APP_OOC_READONLY);
    app_ooc_add(s->store, (void**)&s->rank, 8 * s->nloc, APP_OOC_READWRITE);
  }
}

/* Global sums of values[0..count) (MPI_Allreduce). */
static void sum_all(pr_rank* s, double* values, int count) {
  double totals[2];
  before_blocking(s);
  MPI_Allreduce(values, totals, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  after_blocking(s);
  memcpy(values, totals, sizeof(double) * (size_t)count);
}

/* One iteration. `dangling` is the graph's dangling mass of the current
 * ranks on entry and of the new ones on return. Returns the L1 change. */
static double iterate(pr_rank* s, double* dangling) {
  double* send = app_alloc(8 * s->nsend, 1, "pagerank");
  pr_push(s->rowptr, s->nloc, s->slots, s->rank, send);
  double* recv = app_alloc(8 * s->nrecv, 0, "pagerank");
  before_blocking(s);
  MPI_Alltoallv(send, s->send_counts, s->send_displs, MPI_DOUBLE, recv,
                s->recv_counts, s->recv_displs, MPI_DOUBLE, MPI_COMM_WORLD);
  after_blocking(s);
  free(send);
  /* Received values are added in rank order, where the serial code adds
   * them in edge order: only rounding differs. */
  double* incoming = app_alloc(8 * s->nloc, 1, "pagerank");
  for (uint64_t k = 0; k < s->nrecv; ++k) incoming[s->recv_local[k]] += recv[k];
  free(recv);
  double sums[2];
  sums[0] = pr_update(s->rank, incoming, s->nloc, s->n, *dangling);
  free(incoming);
  /* The next iteration's dangling mass rides along with this one's L1. */
  sums[1] = pr_dangling(s->rowptr, s->nloc, s->rank);
  sum_all(s, sums, 2);
  *dangling = sums[1];
  return sums[0];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  pr_rank s = {0};
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  MPI_Comm_rank(MPI_COMM_WORLD, &s.me);
  pr_options o;
#ifdef APP_OOC
  pr_parse_args(argc, argv, "pagerank_ooc", 1, 0, &o);
  s.store = app_ooc_open(o.ooc_dir, s.me);
#else
  pr_parse_args(argc, argv, "pagerank", 0, 0, &o);
#endif
  graph_file g;
  if (graph_open(o.file, &g) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  setup(&s, &g);
  graph_close(&g);

  double dangling = pr_dangling(s.rowptr, s.nloc, s.rank);
  sum_all(&s, &dangling, 1);
  for (int it = 1; it <= o.iters; ++it) {
    double start = app_now();
    double l1 = iterate(&s, &dangling);
    if (s.me == 0) pr_report_iteration(it, app_now() - start, l1);
    if (o.tol > 0 && l1 < o.tol) break;
  }
  double checksum = pr_checksum(s.rank, s.lo, s.nloc);
  sum_all(&s, &checksum, 1);
  if (s.me == 0) printf("RESULT pagerank %.17g\n", checksum);

  if (s.store != NULL) app_ooc_close(s.store);
  free(s.rowptr);
  free(s.slots);
  free(s.recv_local);
  free(s.rank);
  free(s.send_counts);
  free(s.send_displs);
  free(s.recv_counts);
  free(s.recv_displs);
  MPI_Finalize();
  return 0;
}
