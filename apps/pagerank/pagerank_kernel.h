/* The numerical part of PageRank, shared by the MPI program (pagerank,
 * pagerank_ooc) and the serial ones (pagerank_serial, pagerank_serial_ooc),
 * so every variant does the same arithmetic in the same order per block.
 *
 * One iteration (push algorithm, damping d = 0.85, n vertices):
 *   1. every vertex u with out-degree k > 0 pushes r_u / k along each
 *      out-edge; vertices with no out-edges ("dangling") hold mass D = sum
 *      of their r_u, which is spread evenly over all vertices;
 *   2. r'_v = (1 - d) / n + d (in_v + D / n), where in_v is what v received.
 * The ranks stay a probability vector (sum 1), and the L1 change
 * sum |r'_v - r_v| measures convergence.
 *
 * Result checksum: sum_v r_v w_v with weights w_v = 1 + h(v) / 1024 for a
 * hash h(v) in [0, 1024). Moving rank mass between vertices (a lost, doubled
 * or misrouted contribution) changes it at about the size of the mass moved,
 * unlike sum r_v, which is 1 whatever goes wrong; summation order only
 * changes its last few bits (relative 1e-15 or so, see README). */
#ifndef BDMPI_APPS_PAGERANK_KERNEL_H
#define BDMPI_APPS_PAGERANK_KERNEL_H

#include <stdint.h>

#define PR_DAMPING 0.85

typedef struct pr_options {
  const char* file;
  int iters;           /* at most this many iterations */
  double tol;          /* stop once the L1 change is below (0: never) */
  const char* ooc_dir; /* pagerank_ooc: where ranks keep their arrays (NULL:
                        * $TMPDIR or /tmp) */
  uint64_t chunk;      /* pagerank_serial_ooc: bytes of graph read at a time */
  const char* reader;  /* MPI programs: "posix" or "mpiio" (--reader) */
} pr_options;

/* Parses "FILE [--iters N] [--tol T]" plus --ooc-dir / --chunk / --reader
 * (the MPI programs' posix or mpiio) where `program` takes them. Defaults: 10 iterations, or up to 1000 with --tol. */
void pr_parse_args(int argc, char** argv, const char* program, int ooc_dir,
                   int chunk, int reader, pr_options* options);

/* Step 1 for rows [0, nrows) of a CSR block (rowptr absolute, `targets`
 * starting at edge rowptr[0]): acc[targets[e]] += rank[i] / degree for each
 * out-edge, where targets are whatever indexes `acc` (global vertex ids in
 * the serial programs, send-buffer slots in the MPI one). */
void pr_push(const uint64_t* rowptr, uint64_t nrows, const uint32_t* targets,
             const double* rank, double* acc);

/* The dangling mass of rows [0, nrows): the sum of their ranks with no
 * out-edges. */
double pr_dangling(const uint64_t* rowptr, uint64_t nrows, const double* rank);

/* Step 2 for `count` vertices: rank[i] <- r', incoming[i] <- 0. `dangling`
 * is the whole graph's dangling mass. Returns the L1 change of these. */
double pr_update(double* rank, double* incoming, uint64_t count, uint64_t n,
                 double dangling);

/* The checksum's terms for vertices first .. first + count - 1. */
double pr_checksum(const double* rank, uint64_t first, uint64_t count);

/* ITER / L1 lines after iteration i (1-based). */
void pr_report_iteration(int i, double seconds, double l1);

#endif
