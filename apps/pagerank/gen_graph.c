/* gen_graph: writes a power-law directed graph (R-MAT style) in the graph
 * format of apps/common/graph_format.h.
 *
 *   gen_graph --out FILE (--bytes SIZE | --vertices N) [--avg-degree D]
 *             [--seed S]
 *
 * R-MAT (Chakrabarti et al. 2004) drops each edge into one quadrant of the
 * adjacency matrix with probabilities a, b, c, d (Graph500's 0.57, 0.19,
 * 0.19, 0.05), recursively, one bit of source and target per level. To
 * write CSR rows in order without holding the edges, we sample the same
 * distribution row by row: the source's bits fix the marginal
 * P(u) = prod over bits (a+b or c+d), which gives vertex u its expected
 * out-degree; and given a source bit, the target bit is 1 with probability
 * b/(a+b) or d/(c+d), which gives its targets. Vertex u draws everything from
 * its own random stream (app_rng_seed(seed, u)), so a second pass reproduces
 * the first exactly: pass 1 writes the row pointers, pass 2 the targets.
 * Memory stays constant whatever the size.
 *
 * R-MAT puts the hubs at ids with few one-bits (vertex 0 is the largest);
 * the ids are renumbered by a seeded affine permutation (app_perm.h) so
 * that the hubs spread over the id range, as the paper renumbered its
 * graphs at random. Ids >= n (when n is not a power of two) are redrawn. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"
#include "app_perm.h"
#include "app_util.h"
#include "graph_format.h"

static const double kA = 0.57, kB = 0.19, kC = 0.19, kD = 0.05;

typedef struct generator {
  uint64_t n, seed;
  int scale;           /* bits per id: 2^scale >= n */
  double degree_scale; /* avg degree * n / sum of P(u) */
  double weight[65];   /* P(u) for u with k one-bits */
  app_perm perm;       /* R-MAT id -> written id */
} generator;

static void generator_init(generator* g, uint64_t n, double avg_degree,
                           uint64_t seed) {
  g->n = n;
  g->seed = seed;
  g->scale = 1;
  while ((1ull << g->scale) < n) ++g->scale;
  for (int k = 0; k <= g->scale; ++k)
    g->weight[k] = pow(kA + kB, g->scale - k) * pow(kC + kD, k);
  double total = 0;
  for (uint64_t u = 0; u < n; ++u) total += g->weight[__builtin_popcountll(u)];
  g->degree_scale = avg_degree * (double)n / total;
  /* Its own stream: vertex streams are 0 .. n-1. */
  g->perm = app_perm_make(n, seed, UINT64_MAX);
}

/* Out-degree of R-MAT source u: its expected degree, rounded up or down at
 * random so the total stays right. The first draw of u's stream. */
static uint64_t draw_degree(const generator* g, uint64_t u, app_rng* rng) {
  double x = g->degree_scale * g->weight[__builtin_popcountll(u)];
  double whole = floor(x);
  return (uint64_t)whole + (app_rng_uniform(rng) < x - whole ? 1 : 0);
}

/* A target of source u: bit by bit from the top, 1 with probability
 * b/(a+b) under a 0 bit of u and d/(c+d) under a 1 bit. Each level takes
 * 16 random bits (probabilities to 1/65536), four levels per draw: the
 * generator's main cost. */
static uint64_t draw_target(const generator* g, uint64_t u, app_rng* rng) {
  static const uint32_t kOne[2] = {(uint32_t)(kB / (kA + kB) * 65536 + 0.5),
                                   (uint32_t)(kD / (kC + kD) * 65536 + 0.5)};
  for (int attempt = 0; attempt < 64; ++attempt) {
    uint64_t t = 0, bits = 0;
    for (int bit = g->scale - 1, left = 0; bit >= 0; --bit, --left) {
      if (left == 0) {
        bits = app_rng_next(rng);
        left = 4;
      }
      t = t << 1 | ((bits & 0xffff) < kOne[u >> bit & 1] ? 1u : 0u);
      bits >>= 16;
    }
    if (t < g->n) return t;
  }
  return app_rng_below(rng, g->n); /* practically never */
}

static void write_or_die(FILE* f, const char* path, const void* data,
                         size_t bytes) {
  if (fwrite(data, 1, bytes, f) != bytes) {
    fprintf(stderr, "gen_graph: writing %s: %s\n", path, strerror(errno));
    exit(1);
  }
}

int main(int argc, char** argv) {
  const char* out = NULL;
  uint64_t bytes = 0, vertices = 0, seed = 1;
  double avg_degree = 16;
  app_arg args[] = {APP_ARG("--out", APP_ARG_STRING, &out),
                    APP_ARG("--bytes", APP_ARG_SIZE, &bytes),
                    APP_ARG("--vertices", APP_ARG_SIZE, &vertices),
                    APP_ARG("--avg-degree", APP_ARG_DOUBLE, &avg_degree),
                    APP_ARG("--seed", APP_ARG_U64, &seed)};
  const char* usage =
      "gen_graph --out FILE (--bytes SIZE | --vertices N) [--avg-degree D] "
      "[--seed S]";
  app_parse_args(argc, argv, args, 5, NULL, usage);
  if (out == NULL || args[1].seen == args[2].seen)
    app_args_fail(usage, "give --out and one of --bytes, --vertices", "");
  if (!(avg_degree > 0 && avg_degree <= 1e6)) {
    fprintf(stderr, "gen_graph: --avg-degree must be in (0, 1e6]\n");
    return 2;
  }
  /* Each vertex costs 8 bytes of row pointer and 4 per out-edge. */
  if (vertices == 0) vertices = bytes / (uint64_t)(8 + 4 * avg_degree);
  if (vertices < 2 || vertices >= (1ull << 32)) {
    fprintf(stderr, "gen_graph: need 2 <= vertices < 2^32 (got %llu)\n",
            (unsigned long long)vertices);
    return 2;
  }

  generator g;
  generator_init(&g, vertices, avg_degree, seed);
  FILE* f = fopen(out, "wb");
  if (f == NULL) {
    fprintf(stderr, "gen_graph: cannot create %s: %s\n", out, strerror(errno));
    return 1;
  }
  static char buffer[1 << 20];
  setvbuf(f, buffer, _IOFBF, sizeof buffer);
  /* A zero header first: an interrupted run leaves a file every reader
   * rejects. The real one is written last. */
  app_header header = {0};
  if (app_header_write(f, &header) != 0) {
    fprintf(stderr, "gen_graph: writing %s: %s\n", out, strerror(errno));
    return 1;
  }

  uint64_t edges = 0;
  write_or_die(f, out, &edges, 8);
  for (uint64_t v = 0; v < g.n; ++v) {
    uint64_t u = app_perm_invert(&g.perm, v);
    app_rng rng = app_rng_seed(seed, u);
    edges += draw_degree(&g, u, &rng);
    write_or_die(f, out, &edges, 8);
  }
  static uint32_t batch[1 << 16];
  size_t batched = 0;
  for (uint64_t v = 0; v < g.n; ++v) {
    uint64_t u = app_perm_invert(&g.perm, v);
    app_rng rng = app_rng_seed(seed, u);
    uint64_t degree = draw_degree(&g, u, &rng);
    for (uint64_t e = 0; e < degree; ++e) {
      batch[batched++] =
          (uint32_t)app_perm_apply(&g.perm, draw_target(&g, u, &rng));
      if (batched == sizeof batch / sizeof batch[0]) {
        write_or_die(f, out, batch, sizeof batch);
        batched = 0;
      }
    }
  }
  write_or_die(f, out, batch, 4 * batched);

  header.version = APP_FORMAT_VERSION;
  header.kind = APP_KIND_GRAPH;
  header.dims[0] = g.n;
  header.dims[1] = edges;
  header.seed = seed;
  if (app_header_write(f, &header) != 0 || fclose(f) != 0) {
    fprintf(stderr, "gen_graph: writing %s: %s\n", out, strerror(errno));
    return 1;
  }
  printf("gen_graph: %s: %llu vertices, %llu edges, %llu bytes\n", out,
         (unsigned long long)g.n, (unsigned long long)edges,
         (unsigned long long)graph_target_offset(g.n, edges));
  return 0;
}
