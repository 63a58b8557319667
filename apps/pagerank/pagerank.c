/* pagerank / pagerank_ooc: push-style PageRank as in section 6 of the BDMPI
 * paper, a plain MPI program.
 *
 *   pagerank FILE [--iters N] [--tol T] [--reader posix|mpiio]
 *   pagerank_ooc FILE [--iters N] [--tol T] [--ooc-dir DIR] [--reader ..]
 * (--reader mpiio: each rank's block comes from MPI_File_read_at_all,
 * apps/common/mpiio_reader.h, instead of pread; same results)
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
 * the rank hands its arrays to ooc stores (apps/common/ooc_store.h), which
 * write what changed to the rank's files and free them, and it reads each
 * group back only when it next needs it (ooc_lazy.h): the slots for the
 * push, the receive map for the update, the row pointers and the rank
 * vector for both. All but the rank vector are written once (READONLY).
 * The send and receive buffers of step 2 live only around that call, as
 * do the lists of ids the setup exchanges. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_alloc.h"
#include "app_util.h"
#include "graph_format.h"
#include "mpiio_reader.h"
#include "ooc_lazy.h"
#include "ooc_store.h"
#include "pagerank_kernel.h"

/* The push needs the edges and the vertex arrays, the update what was
 * received and the vertex arrays: the slots (4 bytes an edge) and the
 * receive map (about as large) are then read once an iteration, the small
 * vertex arrays twice. */
enum { kEdges, kReceive, kVertices, kGroups };

typedef struct pr_rank {
  int size, me;
  uint64_t n, lo, nloc;
  uint64_t* rowptr;     /* nloc + 1 (absolute edge offsets) */
  uint32_t* slots;      /* per local edge: its slot in the send buffer */
  uint32_t* recv_local; /* per received value: the local vertex it is for */
  double* rank;         /* nloc */
  int *send_counts, *send_displs, *recv_counts, *recv_displs;
  uint64_t nsend, nrecv;
  /* pagerank_ooc: the arrays in three groups, each read back only when
   * next needed (stores NULL otherwise). */
  app_ooc_lazy ooc[kGroups];
} pr_rank;

/* Every group out before a blocking call. */
static void before_blocking(pr_rank* s) {
  for (int k = 0; k < kGroups; ++k) app_ooc_lazy_save(&s->ooc[k]);
}

/* Gives each distinct target of the rank's edges a send slot, in
 * increasing target order (so grouped by owner, since owners hold ranges):
 * slots[e] = slot of targets[e], wanted[slot] = target. Returns the number
 * of slots. A map over a window of target ids marks and numbers them: one
 * window covers n up to 16M; larger graphs take a pass over the edges per
 * window, with the map's memory bounded. (Sorting the targets and a binary
 * search per edge took longer than many iterations on a 60M-edge graph.) */
static uint64_t assign_slots(const uint32_t* targets, uint64_t edges,
                             uint64_t n, uint32_t* slots, uint32_t* wanted) {
  const uint32_t kAbsent = UINT32_MAX, kPresent = 0;
  uint64_t window = n < (1u << 24) ? n : (1u << 24), distinct = 0;
  uint32_t* map = app_alloc(4 * window, 0, "pagerank");
  for (uint64_t w0 = 0; w0 < n; w0 += window) {
    uint64_t w1 = w0 + window < n ? w0 + window : n;
    memset(map, 0xff, 4 * (w1 - w0)); /* kAbsent */
    for (uint64_t e = 0; e < edges; ++e)
      if (targets[e] >= w0 && targets[e] < w1) map[targets[e] - w0] = kPresent;
    for (uint64_t t = w0; t < w1; ++t) {
      if (map[t - w0] == kAbsent) continue;
      map[t - w0] = (uint32_t)distinct;
      wanted[distinct++] = (uint32_t)t;
    }
    for (uint64_t e = 0; e < edges; ++e)
      if (targets[e] >= w0 && targets[e] < w1) slots[e] = map[targets[e] - w0];
  }
  free(map);
  return distinct;
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
  if (edges >= UINT32_MAX) {
    fprintf(stderr,
            "pagerank: rank %d has %llu edges (2^32 at most); use "
            "more ranks\n",
            s->me, (unsigned long long)edges);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  s->rowptr = app_alloc(8 * (s->nloc + 1), 0, "pagerank");
  uint32_t* targets = app_alloc(4 * edges, 0, "pagerank");
  if (graph_read_rows(g, s->lo, hi, s->rowptr, targets) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  s->slots = app_alloc(4 * edges, 0, "pagerank");
  uint32_t* wanted = app_alloc(4 * edges, 0, "pagerank");
  uint64_t distinct = assign_slots(targets, edges, s->n, s->slots, wanted);
  free(targets);
  uint32_t* shrunk = realloc(wanted, 4 * (distinct ? distinct : 1));
  if (shrunk != NULL) wanted = shrunk;
  s->rank = app_alloc(8 * s->nloc, 0, "pagerank");
  for (uint64_t i = 0; i < s->nloc; ++i) s->rank[i] = 1.0 / (double)s->n;
  /* From here on the ooc discipline holds: the exchange of the ids below
   * already blocks. */
  if (s->ooc[0].store != NULL) {
    app_ooc_add(s->ooc[kEdges].store, (void**)&s->slots, 4 * edges,
                APP_OOC_READONLY);
    app_ooc_add(s->ooc[kVertices].store, (void**)&s->rowptr, 8 * (s->nloc + 1),
                APP_OOC_READONLY);
    app_ooc_add(s->ooc[kVertices].store, (void**)&s->rank, 8 * s->nloc,
                APP_OOC_READWRITE);
  }
  s->ooc[kEdges].loaded = s->ooc[kVertices].loaded = 1;

  s->send_counts = app_alloc(sizeof(int) * (size_t)s->size, 0, "pagerank");
  s->recv_counts = app_alloc(sizeof(int) * (size_t)s->size, 0, "pagerank");
  uint64_t at = 0;
  for (int q = 0; q < s->size; ++q) {
    uint64_t start = at;
    while (at < distinct && wanted[at] < bounds[q + 1]) ++at;
    s->send_counts[q] = (int)(at - start);
  }
  before_blocking(s);
  MPI_Alltoall(s->send_counts, 1, MPI_INT, s->recv_counts, 1, MPI_INT,
               MPI_COMM_WORLD);
  s->send_displs = prefix_sums(s->send_counts, s->size, &s->nsend);
  s->recv_displs = prefix_sums(s->recv_counts, s->size, &s->nrecv);
  s->recv_local = app_alloc(4 * s->nrecv, 0, "pagerank");
  MPI_Alltoallv(wanted, s->send_counts, s->send_displs, MPI_UINT32_T,
                s->recv_local, s->recv_counts, s->recv_displs, MPI_UINT32_T,
                MPI_COMM_WORLD);
  free(wanted);
  free(bounds);
  for (uint64_t k = 0; k < s->nrecv; ++k) {
    if (s->recv_local[k] < s->lo || s->recv_local[k] >= hi) {
      fprintf(stderr, "pagerank: rank %d got vertex %u, owns %llu..%llu\n",
              s->me, s->recv_local[k], (unsigned long long)s->lo,
              (unsigned long long)hi - 1);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    s->recv_local[k] -= (uint32_t)s->lo;
  }
  if (s->ooc[kReceive].store != NULL)
    app_ooc_add(s->ooc[kReceive].store, (void**)&s->recv_local, 4 * s->nrecv,
                APP_OOC_READONLY);
  s->ooc[kReceive].loaded = 1;
}

/* Global sums of values[0..count) (MPI_Allreduce). */
static void sum_all(pr_rank* s, double* values, int count) {
  double totals[2];
  before_blocking(s);
  MPI_Allreduce(values, totals, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  memcpy(values, totals, sizeof(double) * (size_t)count);
}

/* One iteration. `dangling` is the graph's dangling mass of the current
 * ranks on entry and of the new ones on return. Returns the L1 change. */
static double iterate(pr_rank* s, double* dangling) {
  app_ooc_lazy_need(&s->ooc[kEdges]);
  app_ooc_lazy_need(&s->ooc[kVertices]);
  double* send = app_alloc(8 * s->nsend, 1, "pagerank");
  pr_push(s->rowptr, s->nloc, s->slots, s->rank, send);
  double* recv = app_alloc(8 * s->nrecv, 0, "pagerank");
  before_blocking(s);
  MPI_Alltoallv(send, s->send_counts, s->send_displs, MPI_DOUBLE, recv,
                s->recv_counts, s->recv_displs, MPI_DOUBLE, MPI_COMM_WORLD);
  free(send);
  app_ooc_lazy_need(&s->ooc[kReceive]);
  app_ooc_lazy_need(&s->ooc[kVertices]);
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
  pr_parse_args(argc, argv, "pagerank_ooc", 1, 0, 1, &o);
  for (int k = 0; k < kGroups; ++k)
    s.ooc[k].store = app_ooc_open(o.ooc_dir, s.me);
#else
  pr_parse_args(argc, argv, "pagerank", 0, 0, 1, &o);
#endif
  graph_file g;
  if (graph_open(o.file, &g) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  app_mpiio mpiio;
  int use_mpiio = strcmp(o.reader, "mpiio") == 0;
  if (use_mpiio && app_mpiio_open(&mpiio, o.file, &g.blocks) != 0)
    MPI_Abort(MPI_COMM_WORLD, 1);
  setup(&s, &g);
  if (use_mpiio) app_mpiio_close(&mpiio);
  graph_close(&g);

  app_ooc_lazy_need(&s.ooc[kVertices]);
  double dangling = pr_dangling(s.rowptr, s.nloc, s.rank);
  sum_all(&s, &dangling, 1);
  for (int it = 1; it <= o.iters; ++it) {
    double start = app_now();
    double l1 = iterate(&s, &dangling);
    if (s.me == 0) pr_report_iteration(it, app_now() - start, l1);
    if (o.tol > 0 && l1 < o.tol) break;
  }
  app_ooc_lazy_need(&s.ooc[kVertices]);
  double checksum = pr_checksum(s.rank, s.lo, s.nloc);
  sum_all(&s, &checksum, 1);
  if (s.me == 0) printf("RESULT pagerank %.17g\n", checksum);

  for (int k = 0; k < kGroups; ++k)
    if (s.ooc[k].store != NULL) app_ooc_close(s.ooc[k].store);
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
