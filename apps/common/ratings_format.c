#include "ratings_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_io.h"

uint64_t ratings_file_bytes(const app_header* header) {
  uint64_t n = header->dims[0], m = header->dims[1], nnz = header->dims[2],
           b = header->dims[3];
  /* A corrupt header must not overflow into a size that happens to match. */
  if (n == 0 || m == 0 || n >= (1ull << 32) || m >= (1ull << 32) || b == 0 ||
      b > RATINGS_MAX_BUCKETS || b > n || b > m || nnz >= (1ull << 58))
    return 0;
  return ratings_record_offset(b, nnz);
}

int ratings_open(const char* path, ratings_file* r) {
  app_header header;
  memset(r, 0, sizeof *r);
  r->fd = app_data_open(path, APP_KIND_RATINGS, ratings_file_bytes, &header);
  if (r->fd < 0) return -1;
  r->path = path;
  r->users = header.dims[0];
  r->items = header.dims[1];
  r->nnz = header.dims[2];
  r->buckets = header.dims[3];
  r->seed = header.seed;
  uint64_t groups = r->buckets * r->buckets;
  r->index = malloc(8 * (groups + 1));
  if (r->index == NULL) {
    fprintf(stderr, "%s: out of memory for the index\n", path);
    ratings_close(r);
    return -1;
  }
  if (app_pread_all(r->fd, path, r->index, 8 * (groups + 1),
                    ratings_index_offset()) != 0) {
    ratings_close(r);
    return -1;
  }
  int ok = r->index[0] == 0 && r->index[groups] == r->nnz;
  for (uint64_t g = 0; ok && g < groups; ++g)
    ok = r->index[g] <= r->index[g + 1];
  if (!ok) {
    fprintf(stderr,
            "%s: corrupt ratings: the group index is not a "
            "non-decreasing 0..%llu\n",
            path, (unsigned long long)r->nnz);
    ratings_close(r);
    return -1;
  }
  return 0;
}

void ratings_close(ratings_file* r) {
  if (r->fd >= 0) close(r->fd);
  free(r->index);
  r->index = NULL;
}

int ratings_check_grid(const ratings_file* r, uint64_t grid) {
  if (grid == 0 || grid > r->buckets) {
    fprintf(stderr,
            "%s: a %llu x %llu grid needs at least %llu buckets per side; "
            "the file has %llu (use fewer ranks or a larger data set)\n",
            r->path, (unsigned long long)grid, (unsigned long long)grid,
            (unsigned long long)grid, (unsigned long long)r->buckets);
    return -1;
  }
  return 0;
}

/* Buckets [*b0, *b1) of block k of the grid. */
static void block_buckets(const ratings_file* r, uint64_t grid, uint64_t k,
                          uint64_t* b0, uint64_t* b1) {
  *b0 = k * r->buckets / grid;
  *b1 = (k + 1) * r->buckets / grid;
}

void ratings_block_users(const ratings_file* r, uint64_t grid, uint64_t bi,
                         uint64_t* u0, uint64_t* u1) {
  uint64_t b0, b1;
  block_buckets(r, grid, bi, &b0, &b1);
  *u0 = ratings_bucket_start(r->users, r->buckets, b0);
  *u1 = ratings_bucket_start(r->users, r->buckets, b1);
}

void ratings_block_items(const ratings_file* r, uint64_t grid, uint64_t bj,
                         uint64_t* i0, uint64_t* i1) {
  uint64_t b0, b1;
  block_buckets(r, grid, bj, &b0, &b1);
  *i0 = ratings_bucket_start(r->items, r->buckets, b0);
  *i1 = ratings_bucket_start(r->items, r->buckets, b1);
}

uint64_t ratings_block_count(const ratings_file* r, uint64_t grid, uint64_t bi,
                             uint64_t bj) {
  uint64_t ub0, ub1, ib0, ib1, count = 0;
  block_buckets(r, grid, bi, &ub0, &ub1);
  block_buckets(r, grid, bj, &ib0, &ib1);
  for (uint64_t ub = ub0; ub < ub1; ++ub)
    count += r->index[ub * r->buckets + ib1] - r->index[ub * r->buckets + ib0];
  return count;
}

/* Reads records [first, first + count) into `dst` and checks that each lies
 * in users [u0, u1) x items [i0, i1). */
static int read_span(const ratings_file* r, uint64_t first, uint64_t count,
                     rating* dst, const uint64_t box[4]) {
  if (app_pread_all(r->fd, r->path, dst, 12 * count,
                    ratings_record_offset(r->buckets, first)) != 0)
    return -1;
  for (uint64_t k = 0; k < count; ++k) {
    if (dst[k].user < box[0] || dst[k].user >= box[1] || dst[k].item < box[2] ||
        dst[k].item >= box[3]) {
      fprintf(stderr,
              "%s: corrupt ratings: record %llu (user %u, item %u) is not "
              "in the group the index puts it in\n",
              r->path, (unsigned long long)(first + k), dst[k].user,
              dst[k].item);
      return -1;
    }
  }
  return 0;
}

/* Streams the groups [ib0, ib1) of user bucket `ub` (contiguous in the
 * file) through `buffer`, `chunk` records at a time. */
static int stream_bucket_row(const ratings_file* r, uint64_t ub, uint64_t ib0,
                             uint64_t ib1, rating* buffer, uint64_t chunk,
                             ratings_chunk_fn fn, void* ctx) {
  uint64_t first = r->index[ub * r->buckets + ib0];
  uint64_t end = r->index[ub * r->buckets + ib1];
  const uint64_t box[4] = {ratings_bucket_start(r->users, r->buckets, ub),
                           ratings_bucket_start(r->users, r->buckets, ub + 1),
                           ratings_bucket_start(r->items, r->buckets, ib0),
                           ratings_bucket_start(r->items, r->buckets, ib1)};
  while (first < end) {
    uint64_t count = end - first < chunk ? end - first : chunk;
    if (read_span(r, first, count, buffer, box) != 0) return -1;
    fn(ctx, buffer, count);
    first += count;
  }
  return 0;
}

int ratings_stream_block(const ratings_file* r, uint64_t grid, uint64_t bi,
                         uint64_t bj, rating* buffer, uint64_t chunk,
                         ratings_chunk_fn fn, void* ctx) {
  uint64_t ub0, ub1, ib0, ib1;
  block_buckets(r, grid, bi, &ub0, &ub1);
  block_buckets(r, grid, bj, &ib0, &ib1);
  for (uint64_t ub = ub0; ub < ub1; ++ub)
    if (stream_bucket_row(r, ub, ib0, ib1, buffer, chunk, fn, ctx) != 0)
      return -1;
  return 0;
}

/* ratings_read_block reads each user bucket's records straight into place;
 * the callback only moves the cursor past them. */
static void advance_cursor(void* ctx, const rating* records, uint64_t count) {
  (void)records;
  *(rating**)ctx += count;
}

int ratings_read_block(const ratings_file* r, uint64_t grid, uint64_t bi,
                       uint64_t bj, rating* out) {
  uint64_t ub0, ub1, ib0, ib1;
  block_buckets(r, grid, bi, &ub0, &ub1);
  block_buckets(r, grid, bj, &ib0, &ib1);
  rating* cursor = out;
  for (uint64_t ub = ub0; ub < ub1; ++ub)
    if (stream_bucket_row(r, ub, ib0, ib1, cursor, UINT64_MAX, advance_cursor,
                          &cursor) != 0)
      return -1;
  return 0;
}
