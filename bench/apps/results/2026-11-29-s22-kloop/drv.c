/* km_assign with the centroids and sums placed by hand (the similarity
 * vector stays km_assign's own malloc). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include "documents_format.h"
#include "kmeans_kernels.h"

static char* region(size_t bytes, size_t off, int huge) {
  size_t len = bytes + off + (4u << 20);
  char* p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) abort();
  char* a = (char*)(((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
  if (huge) madvise(a, bytes + off, MADV_HUGEPAGE);
  return a + off;
}

static double utime(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6;
}

int main(int argc, char** argv) {
  /* drv FILE ITERS CENT_OFF SUMS_OFF UNUSED HUGE; LAYOUT=up or down puts both in one map */
  app_documents doc;
  if (app_documents_open(argv[1], &doc) != 0) return 1;
  app_doc_rows rows;
  if (app_documents_read_rows(&doc, 0, doc.rows, &rows) != 0) return 1;
  int iters = atoi(argv[2]);
  size_t coff = strtoul(argv[3], 0, 0), soff = strtoul(argv[4], 0, 0), doff = strtoul(argv[5], 0, 0);
  int huge = atoi(argv[6]);
  km_model m;
  km_model_init(&m, 16, doc.cols);
  km_initial_centroids(&doc, 1, &m);
  size_t n = km_sums_len(&m) * 8;
  double* c; double* s;
  const char* lay = getenv("LAYOUT");
  if (lay) {
    size_t dist = (n + 4095) / 4096 * 4096;
    char* b = region(2 * dist + 8192, 0, huge) + 4096;
    if (lay[0] == 'u') { c = (double*)(b + coff); s = (double*)(b + dist + soff); }
    else { s = (double*)(b + soff); c = (double*)(b + dist + coff); }
  } else {
    c = (double*)region(n, coff, huge);
    s = (double*)region(n, soff, huge);
  }
  memcpy(c, m.centroids, n);
  memset(s, 0, n);
  int32_t* as = calloc(rows.count, 4);
  double t0 = utime();
  free(m.centroids);
  free(m.sums);
  m.centroids = c;
  m.sums = s;
  for (int it = 0; it < iters; ++it) km_assign(&m, &rows, as);
  printf("%s coff %zu soff %zu doff %zu huge %d user %.3f\n", getenv("LAYOUT") ? getenv("LAYOUT") : "-", coff, soff, doff, huge, utime() - t0);
  return 0;
}
