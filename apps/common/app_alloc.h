/* Allocation that ends the program with a message instead of returning
 * NULL: the applications have nothing better to do when memory runs out
 * (in an MPI program the exit ends the whole job). Header-only. */
#ifndef BDMPI_APPS_APP_ALLOC_H
#define BDMPI_APPS_APP_ALLOC_H

#include <stdio.h>
#include <stdlib.h>

/* `bytes` may be 0 (gives a valid, unique pointer); zeroed if `zero`. */
static inline void* app_alloc(size_t bytes, int zero, const char* program) {
  void* p = zero ? calloc(bytes ? bytes : 1, 1) : malloc(bytes ? bytes : 1);
  if (p == NULL) {
    fprintf(stderr, "%s: out of memory (%zu bytes)\n", program, bytes);
    exit(1);
  }
  return p;
}

#endif
