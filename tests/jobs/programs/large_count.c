/*
 * large_count: MPI-4's large counts without large memory.
 *
 *  1. A vector of 2^30 blocks (int counts) and, with the _c calls, one of
 *     2^31 + 5 blocks (MPI_Type_vector_c): sizes, extents and true extents
 *     are the 64-bit values, MPI_Type_size says MPI_UNDEFINED, and building
 *     and committing them costs memory for their description, not for
 *     their blocks (the process grows by less than 64 MiB).
 *  2. A vector of many blocks of a type with gaps, and a vector of such
 *     vectors, sent between ranks: every byte arrives, every gap keeps its
 *     sentinel (the types are walked lazily, not expanded).
 *  3. The _c collectives: MPI_Bcast_c, MPI_Allreduce_c with an operation
 *     of MPI_Op_create_c (it sees MPI_Count lengths), MPI_Gatherv_c whose
 *     displacements lie beyond 2^31 elements (in a reserved, mostly
 *     untouched mapping), MPI_Alltoallw_c with MPI_Aint displacements;
 *     MPI_Get_count_c / MPI_Get_elements_c of a received message;
 *     MPI_Pack_c / MPI_Unpack_c / MPI_Pack_size_c.
 *  4. MPI_Type_get_envelope_c / get_contents_c of MPI_Type_vector_c, and
 *     MPI_Type_get_envelope refusing it (MPI_ERR_TYPE).
 *  5. Error classes: a negative MPI_Count (MPI_ERR_COUNT), an uncommitted
 *     type with a count beyond INT_MAX (MPI_ERR_TYPE), a darray global size
 *     beyond INT_MAX (MPI_ERR_COUNT).
 *
 * Open MPI 4.1, the oracle, has no _c calls: built against it, the program
 * runs the parts with int counts (1, 2 and the int forms of 3) and checks
 * the same computed values.
 */
#include "check.h"

#include <limits.h>
#include <sys/mman.h>
#include <sys/resource.h>

#if defined(BDMPI) || MPI_VERSION >= 4
#define HAVE_LARGE_COUNT 1
#endif

enum { kSentinel = -7 };

static long max_rss_kib(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

/* 1 */
static void test_sizes(void) {
  const long before = max_rss_kib();
  MPI_Datatype vec;
  MPI_Type_vector(1 << 30, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int size = 0;
  MPI_Type_size(vec, &size);
  CHECK(size == MPI_UNDEFINED, "MPI_Type_size of 4 GiB: %d", size);
  MPI_Count size_x = 0, lb_x = 0, extent_x = 0;
  MPI_Type_size_x(vec, &size_x);
  CHECK(size_x == (MPI_Count)4 << 30, "MPI_Type_size_x %lld", (long long)size_x);
  MPI_Type_get_extent_x(vec, &lb_x, &extent_x);
  CHECK(lb_x == 0 && extent_x == (((MPI_Count)1 << 31) - 1) * 4, "extent_x %lld",
        (long long)extent_x);
  MPI_Type_free(&vec);
#ifdef HAVE_LARGE_COUNT
  const MPI_Count blocks = ((MPI_Count)1 << 31) + 5;
  MPI_Type_vector_c(blocks, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Count size_c = 0, lb = -1, extent = 0, true_lb = -1, true_extent = 0;
  MPI_Type_size_c(vec, &size_c);
  CHECK(size_c == blocks * 4, "MPI_Type_size_c %lld", (long long)size_c);
  MPI_Type_get_extent_c(vec, &lb, &extent);
  CHECK(lb == 0 && extent == ((blocks - 1) * 2 + 1) * 4, "extent_c %lld", (long long)extent);
  MPI_Type_get_true_extent_c(vec, &true_lb, &true_extent);
  CHECK(true_lb == 0 && true_extent == extent, "true extent_c %lld", (long long)true_extent);
  /* A contiguous type of these: 2^32 blocks in all. */
  MPI_Datatype twice;
  MPI_Type_contiguous_c(2, vec, &twice);
  MPI_Type_commit(&twice);
  MPI_Type_size_c(twice, &size_c);
  CHECK(size_c == 2 * blocks * 4, "contiguous_c size %lld", (long long)size_c);
  MPI_Type_free(&twice);
  MPI_Type_free(&vec);
#endif
  const long grown = max_rss_kib() - before;
  CHECK(grown < 64 * 1024, "building the vectors grew the process by %ld KiB", grown);
}

/* 2: struct { int a; (gap) int b; } with extent 3 ints; 1000 of them in a
 * vector of stride 2 elements; a vector of 100 such vectors. */
static void test_walk(int rank, int right, int left) {
  MPI_Datatype pair, vec, outer;
  int lengths[2] = {1, 1};
  MPI_Aint disps[2] = {0, 2 * (MPI_Aint)sizeof(int)};
  MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  MPI_Datatype raw;
  MPI_Type_create_struct(2, lengths, disps, types, &raw);
  MPI_Type_create_resized(raw, 0, 3 * (MPI_Aint)sizeof(int), &pair);
  MPI_Type_free(&raw);
  MPI_Type_vector(1000, 1, 2, pair, &vec);
  MPI_Aint vec_lb, vec_extent;
  MPI_Type_get_extent(vec, &vec_lb, &vec_extent);
  MPI_Type_create_hvector(100, 1, vec_extent + 4 * (MPI_Aint)sizeof(int), vec, &outer);
  MPI_Type_commit(&outer);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(outer, &lb, &extent);
  const size_t n = (size_t)extent / sizeof(int);
  int *out = malloc(n * sizeof(int)), *in = malloc(n * sizeof(int));
  for (size_t i = 0; i < n; ++i) {
    out[i] = rank * 1000000 + (int)i;
    in[i] = kSentinel;
  }
  MPI_Status status;
  MPI_Sendrecv(out, 1, outer, right, 5, in, 1, outer, left, 5, MPI_COMM_WORLD, &status);
  const size_t vec_ints = (size_t)vec_extent / sizeof(int) + 4;
  for (size_t i = 0; i < n; ++i) {
    size_t within_vec = i % vec_ints; /* position inside one outer block */
    int data = within_vec < (size_t)vec_extent / sizeof(int) && (within_vec / 3) % 2 == 0 &&
               within_vec % 3 != 1;
    int want = data ? left * 1000000 + (int)i : kSentinel;
    CHECK(in[i] == want, "walk: in[%zu] = %d, want %d", i, in[i], want);
  }
  int count = -1;
  MPI_Get_count(&status, outer, &count);
  CHECK(count == 1, "walk: count %d", count);
  MPI_Get_count(&status, MPI_INT, &count);
  CHECK(count == 100 * 1000 * 2, "walk: ints %d", count);
  free(out);
  free(in);
  MPI_Type_free(&outer);
  MPI_Type_free(&vec);
  MPI_Type_free(&pair);
}

#ifdef HAVE_LARGE_COUNT
static void sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *type) {
  CHECK(*type == MPI_INT, "the operation sees another type");
  for (MPI_Count i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}
#endif

/* 3 */
static void test_collectives(int rank, int size) {
  int values[8];
  for (int i = 0; i < 8; ++i) values[i] = rank == 1 % size ? 100 + i : -1;
#ifdef HAVE_LARGE_COUNT
  MPI_Bcast_c(values, (MPI_Count)8, MPI_INT, 1 % size, MPI_COMM_WORLD);
#else
  MPI_Bcast(values, 8, MPI_INT, 1 % size, MPI_COMM_WORLD);
#endif
  for (int i = 0; i < 8; ++i) CHECK(values[i] == 100 + i, "bcast[%d] = %d", i, values[i]);

  int mine[5], sum[5];
  for (int i = 0; i < 5; ++i) mine[i] = rank + i;
#ifdef HAVE_LARGE_COUNT
  MPI_Op op;
  MPI_Op_create_c(sum_c, 1, &op);
  MPI_Allreduce_c(mine, sum, (MPI_Count)5, MPI_INT, op, MPI_COMM_WORLD);
  MPI_Op_free(&op);
#else
  MPI_Allreduce(mine, sum, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#endif
  for (int i = 0; i < 5; ++i)
    CHECK(sum[i] == size * (size - 1) / 2 + size * i, "allreduce[%d] = %d", i, sum[i]);

  /* Gatherv: rank r's 3 ints land at element 3^... beyond 2^31 (with _c). */
  const int root = size - 1;
  int contribution[3] = {rank, rank * 10, rank * 100};
#ifdef HAVE_LARGE_COUNT
  const MPI_Aint base = ((MPI_Aint)1 << 31) + 7; /* elements */
#else
  const MPI_Aint base = 7;
#endif
  const size_t stride = 4096; /* elements between ranks' blocks */
  const size_t bytes = ((size_t)base + (size_t)size * stride) * sizeof(int);
  int *gathered = NULL;
  if (rank == root) {
    gathered = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(gathered != MAP_FAILED, "mmap of %zu bytes", bytes);
  }
#ifdef HAVE_LARGE_COUNT
  MPI_Count *counts = malloc((size_t)size * sizeof(MPI_Count));
  MPI_Aint *displs = malloc((size_t)size * sizeof(MPI_Aint));
  for (int r = 0; r < size; ++r) {
    counts[r] = 3;
    displs[r] = base + (MPI_Aint)r * (MPI_Aint)stride;
  }
  MPI_Gatherv_c(contribution, 3, MPI_INT, gathered, counts, displs, MPI_INT, root,
                MPI_COMM_WORLD);
#else
  int *counts = malloc((size_t)size * sizeof(int));
  int *displs = malloc((size_t)size * sizeof(int));
  for (int r = 0; r < size; ++r) {
    counts[r] = 3;
    displs[r] = (int)base + r * (int)stride;
  }
  MPI_Gatherv(contribution, 3, MPI_INT, gathered, counts, displs, MPI_INT, root,
              MPI_COMM_WORLD);
#endif
  if (rank == root) {
    for (int r = 0; r < size; ++r) {
      const int *at = gathered + base + (size_t)r * stride;
      CHECK(at[0] == r && at[1] == r * 10 && at[2] == r * 100, "gatherv from %d: %d %d %d", r,
            at[0], at[1], at[2]);
    }
    munmap(gathered, bytes);
  }
  free(counts);
  free(displs);

  /* Alltoallw: one int to each rank, at byte displacements. */
  int *send = malloc((size_t)size * sizeof(int)), *recv = malloc((size_t)size * sizeof(int));
  MPI_Datatype *types = malloc((size_t)size * sizeof(MPI_Datatype));
  for (int r = 0; r < size; ++r) {
    send[r] = rank * 100 + r;
    recv[r] = kSentinel;
    types[r] = MPI_INT;
  }
#ifdef HAVE_LARGE_COUNT
  MPI_Count *wcounts = malloc((size_t)size * sizeof(MPI_Count));
  MPI_Aint *wdispls = malloc((size_t)size * sizeof(MPI_Aint));
  for (int r = 0; r < size; ++r) {
    wcounts[r] = 1;
    wdispls[r] = (MPI_Aint)r * (MPI_Aint)sizeof(int);
  }
  MPI_Alltoallw_c(send, wcounts, wdispls, types, recv, wcounts, wdispls, types,
                  MPI_COMM_WORLD);
#else
  int *wcounts = malloc((size_t)size * sizeof(int));
  int *wdispls = malloc((size_t)size * sizeof(int));
  for (int r = 0; r < size; ++r) {
    wcounts[r] = 1;
    wdispls[r] = r * (int)sizeof(int);
  }
  MPI_Alltoallw(send, wcounts, wdispls, types, recv, wcounts, wdispls, types,
                MPI_COMM_WORLD);
#endif
  for (int r = 0; r < size; ++r)
    CHECK(recv[r] == r * 100 + rank, "alltoallw from %d: %d", r, recv[r]);
  free(wcounts);
  free(wdispls);
  free(send);
  free(recv);
  free(types);
}

#ifdef HAVE_LARGE_COUNT
/* 3 (statuses, MPI_Pack_c), 4, 5 */
static void test_counts_and_errors(int rank, int right, int left) {
  double out[6] = {1, 2, 3, 4, 5, 6}, in[6];
  MPI_Status status;
  MPI_Sendrecv_c(out, (MPI_Count)6, MPI_DOUBLE, right, 9, in, (MPI_Count)6, MPI_DOUBLE, left,
                 9, MPI_COMM_WORLD, &status);
  MPI_Count count = 0, elements = 0;
  MPI_Get_count_c(&status, MPI_DOUBLE, &count);
  MPI_Get_elements_c(&status, MPI_DOUBLE, &elements);
  CHECK(count == 6 && elements == 6, "count_c %lld elements_c %lld", (long long)count,
        (long long)elements);
  MPI_Get_count_c(&status, MPI_INT, &count);
  CHECK(count == 12, "count_c as ints %lld", (long long)count);

  MPI_Datatype vec;
  MPI_Type_vector_c(3, 1, 2, MPI_DOUBLE, &vec);
  MPI_Type_commit(&vec);
  MPI_Count packed_size = 0, position = 0;
  MPI_Pack_size_c(1, vec, MPI_COMM_WORLD, &packed_size);
  CHECK(packed_size >= 24, "pack_size_c %lld", (long long)packed_size);
  char packed[64];
  MPI_Pack_c(out, 1, vec, packed, (MPI_Count)sizeof packed, &position, MPI_COMM_WORLD);
  CHECK(position == 24, "pack_c position %lld", (long long)position);
  double back[6] = {0, 0, 0, 0, 0, 0};
  position = 0;
  MPI_Unpack_c(packed, 24, &position, back, 1, vec, MPI_COMM_WORLD);
  CHECK(back[0] == 1 && back[1] == 0 && back[2] == 3 && back[4] == 5 && position == 24,
        "unpack_c %g %g %g %g", back[0], back[1], back[2], back[4]);

  /* 4 */
  MPI_Count ni = -1, na = -1, nc = -1, nd = -1;
  int combiner = -1;
  MPI_Type_get_envelope_c(vec, &ni, &na, &nc, &nd, &combiner);
  CHECK(combiner == MPI_COMBINER_VECTOR && ni == 0 && na == 0 && nc == 3 && nd == 1,
        "envelope_c %lld %lld %lld %lld", (long long)ni, (long long)na, (long long)nc,
        (long long)nd);
  MPI_Count large[3];
  MPI_Datatype inner;
  MPI_Type_get_contents_c(vec, 0, 0, 3, 1, NULL, NULL, large, &inner);
  CHECK(large[0] == 3 && large[1] == 1 && large[2] == 2 && inner == MPI_DOUBLE,
        "contents_c %lld %lld %lld", (long long)large[0], (long long)large[1],
        (long long)large[2]);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int i1, i2, i3, error_class;
  int err = MPI_Type_get_envelope(vec, &i1, &i2, &i3, &combiner);
  MPI_Error_class(err, &error_class);
  CHECK(error_class == MPI_ERR_TYPE, "int envelope of a _c type: class %d", error_class);

  /* 5 */
  err = MPI_Send_c(out, (MPI_Count)-1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
  MPI_Error_class(err, &error_class);
  CHECK(error_class == MPI_ERR_COUNT, "negative count: class %d", error_class);
  MPI_Datatype loose;
  MPI_Type_contiguous(2, MPI_DOUBLE, &loose);
  err = MPI_Send_c(out, (MPI_Count)INT_MAX + 1, loose, right, 1, MPI_COMM_WORLD);
  MPI_Error_class(err, &error_class);
  CHECK(error_class == MPI_ERR_TYPE, "uncommitted large: class %d", error_class);
  MPI_Type_free(&loose);
  MPI_Count gsizes[1] = {(MPI_Count)INT_MAX + 1};
  int distribs[1] = {MPI_DISTRIBUTE_BLOCK}, dargs[1] = {MPI_DISTRIBUTE_DFLT_DARG},
      psizes[1] = {1};
  MPI_Datatype darray = MPI_DATATYPE_NULL;
  err = MPI_Type_create_darray_c(1, 0, 1, gsizes, distribs, dargs, psizes, MPI_ORDER_C,
                                 MPI_INT, &darray);
  MPI_Error_class(err, &error_class);
  CHECK(error_class == MPI_ERR_COUNT, "darray_c: class %d", error_class);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Type_free(&vec);
  (void)rank;
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  test_sizes();
  test_walk(rank, right, left);
  test_collectives(rank, size);
#ifdef HAVE_LARGE_COUNT
  test_counts_and_errors(rank, right, left);
#endif
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("large_count: OK\n");
  MPI_Finalize();
  return 0;
}
