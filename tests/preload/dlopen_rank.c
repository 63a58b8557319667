/*
 * dlopen_rank: a rank that does not link libbdmpi but loads it at run time,
 * after its data is allocated, the way Python does with mpi4py
 * (`import mpi4py.MPI` dlopens libbdmpi). Its array is storage-backed only
 * if libbdmpi's malloc was in effect from the start: the master preloads
 * libbdmpi into such ranks (src/master/launch/spawn.cpp).
 *
 *   dlopen_rank LIBBDMPI|- MIB
 *
 * LIBBDMPI: the library to dlopen ("-": the program is linked with it).
 * Every rank fills MIB MiB with its rank number + 1, lets the others run
 * (a barrier switches it out), checks its data and the sum over all ranks.
 * Rank 0 prints its LD_PRELOAD and "dlopen_rank: ok".
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h> /* BDMPI's: the handles' values and the prototypes' types */

typedef int (*InitFn)(int*, char***);
typedef int (*CommIntFn)(MPI_Comm, int*);
typedef int (*BarrierFn)(MPI_Comm);
typedef int (*AllreduceFn)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);
typedef int (*FinalizeFn)(void);

static void* Need(const char* name) {
  void* fn = dlsym(RTLD_DEFAULT, name);
  if (fn == NULL) {
    fprintf(stderr, "dlopen_rank: %s not found: %s\n", name, dlerror());
    exit(2);
  }
  return fn;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: dlopen_rank LIBBDMPI|- MIB\n");
    return 2;
  }
  size_t count = (size_t)atoi(argv[2]) * (1u << 20) / sizeof(double);
  double* data = malloc(count * sizeof(double));
  if (data == NULL) return 3;
  if (argv[1][0] != '-' && dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL) == NULL) {
    fprintf(stderr, "dlopen_rank: %s\n", dlerror());
    return 2;
  }
  InitFn init = (InitFn)Need("MPI_Init");
  CommIntFn comm_rank = (CommIntFn)Need("MPI_Comm_rank");
  CommIntFn comm_size = (CommIntFn)Need("MPI_Comm_size");
  BarrierFn barrier = (BarrierFn)Need("MPI_Barrier");
  AllreduceFn allreduce = (AllreduceFn)Need("MPI_Allreduce");
  FinalizeFn finalize = (FinalizeFn)Need("MPI_Finalize");

  init(&argc, &argv);
  int rank = 0, size = 0;
  comm_rank(MPI_COMM_WORLD, &rank);
  comm_size(MPI_COMM_WORLD, &size);
  for (size_t i = 0; i < count; ++i) data[i] = rank + 1;
  barrier(MPI_COMM_WORLD);
  double sum = 0;
  for (size_t i = 0; i < count; ++i) sum += data[i];
  int errors = sum != (double)count * (rank + 1);
  double total = 0;
  allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  errors += total != (double)count * size * (size + 1) / 2;
  if (errors != 0) fprintf(stderr, "dlopen_rank: rank %d: wrong sums\n", rank);
  if (rank == 0) {
    const char* preload = getenv("LD_PRELOAD");
    printf("LD_PRELOAD=%s\n", preload != NULL ? preload : "(unset)");
    if (errors == 0) printf("dlopen_rank: ok\n");
  }
  free(data);
  finalize();
  return errors != 0;
}
