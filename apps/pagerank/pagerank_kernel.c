#include "pagerank_kernel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app_args.h"
#include "app_util.h"

void pr_parse_args(int argc, char** argv, const char* program, int ooc_dir,
                   int chunk, int reader, pr_options* o) {
  *o = (pr_options){NULL, 10, 0, NULL, 64ull << 20, "posix"};
  app_arg args[] = {
      APP_ARG("--iters", APP_ARG_INT, &o->iters),
      APP_ARG("--tol", APP_ARG_DOUBLE, &o->tol),
      APP_ARG(ooc_dir ? "--ooc-dir" : "", APP_ARG_STRING, &o->ooc_dir),
      APP_ARG(chunk ? "--chunk" : "", APP_ARG_SIZE, &o->chunk),
      APP_ARG(reader ? "--reader" : "", APP_ARG_STRING, &o->reader)};
  char usage[200];
  snprintf(usage, sizeof usage, "%s FILE [--iters N] [--tol T]%s%s%s", program,
           ooc_dir ? " [--ooc-dir DIR]" : "", chunk ? " [--chunk SIZE]" : "",
           reader ? " [--reader posix|mpiio]" : "");
  app_parse_args(argc, argv, args, 5, &o->file, usage);
  if (strcmp(o->reader, "posix") != 0 && strcmp(o->reader, "mpiio") != 0)
    app_args_fail(usage, "--reader takes posix or mpiio, not ", o->reader);
  if (o->file == NULL) app_args_fail(usage, "no graph file given", "");
  if (args[1].seen && !args[0].seen) o->iters = 1000;
  if (o->tol < 0 || o->chunk < 4096)
    app_args_fail(usage, "need --tol >= 0 and --chunk >= 4k", "");
}

void pr_push(const uint64_t* rowptr, uint64_t nrows, const uint32_t* targets,
             const double* rank, double* acc) {
  const uint32_t* t = targets;
  for (uint64_t i = 0; i < nrows; ++i) {
    uint64_t degree = rowptr[i + 1] - rowptr[i];
    if (degree == 0) continue;
    double share = rank[i] / (double)degree;
    for (uint64_t e = 0; e < degree; ++e) acc[t[e]] += share;
    t += degree;
  }
}

double pr_dangling(const uint64_t* rowptr, uint64_t nrows, const double* rank) {
  double dangling = 0;
  for (uint64_t i = 0; i < nrows; ++i)
    if (rowptr[i + 1] == rowptr[i]) dangling += rank[i];
  return dangling;
}

double pr_update(double* rank, double* incoming, uint64_t count, uint64_t n,
                 double dangling) {
  double base = (1 - PR_DAMPING) / (double)n;
  double spread = dangling / (double)n;
  double l1 = 0;
  for (uint64_t i = 0; i < count; ++i) {
    double next = base + PR_DAMPING * (incoming[i] + spread);
    l1 += fabs(next - rank[i]);
    rank[i] = next;
    incoming[i] = 0;
  }
  return l1;
}

double pr_checksum(const double* rank, uint64_t first, uint64_t count) {
  double sum = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t h = (first + i + 1) * 0x9e3779b97f4a7c15ull;
    sum += rank[i] * (1.0 + (double)(h >> 54) / 1024.0);
  }
  return sum;
}

void pr_report_iteration(int i, double seconds, double l1) {
  app_print_iteration("pagerank", i, seconds);
  printf("L1 %d %.17g\n", i, l1);
  fflush(stdout);
}
