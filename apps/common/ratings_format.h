/* The user-item ratings data file (kind APP_KIND_RATINGS), read by SGD.
 *
 * Users and items are each cut into B "buckets" of consecutive ids: user u
 * is in user bucket u*B/n, item i in item bucket i*B/m (integer division),
 * so bucket k starts at ceil(k n / B). The ratings are stored grouped by
 * (user bucket, item bucket), user bucket major, with an index of where each
 * group starts. A block of a G x G grid (G <= B) is a rectangle of whole
 * buckets: user block i = user buckets [i B/G, (i+1) B/G), likewise for
 * items. So a rank reads exactly its block, in one contiguous read per user
 * bucket, and never anything else.
 *
 * Header dims (see file_header.h):
 *   dims[0] = n, users (0 < n < 2^32)
 *   dims[1] = m, items (0 < m < 2^32)
 *   dims[2] = nnz, ratings
 *   dims[3] = B, buckets per side (1 <= B <= min(n, m, RATINGS_MAX_BUCKETS))
 *   dims[4] = 0
 * Payload, right after the 64-byte header (little endian):
 *   index    u64[B*B + 1]  group (ub, ib) holds the ratings
 *                          [index[ub*B + ib], index[ub*B + ib + 1]);
 *                          index[0] = 0, non-decreasing, index[B*B] = nnz
 *   ratings  rating[nnz]   12-byte records {u32 user, u32 item, f32 value};
 *                          within a group in the order the generator made
 *                          them (by user, then item)
 * so the file is exactly 64 + 8 (B*B + 1) + 12 nnz bytes. */
#ifndef BDMPI_APPS_RATINGS_FORMAT_H
#define BDMPI_APPS_RATINGS_FORMAT_H

#include <stdint.h>

#include "file_header.h"

#define RATINGS_MAX_BUCKETS 256u

typedef struct rating {
  uint32_t user;
  uint32_t item;
  float value;
} rating;
_Static_assert(sizeof(rating) == 12, "rating records are 12 bytes on disk");

typedef struct ratings_file {
  const char* path;
  int fd;
  uint64_t users, items, nnz, buckets;
  uint64_t seed;
  uint64_t* index; /* B*B + 1 group offsets, checked */
} ratings_file;

static inline uint64_t ratings_index_offset(void) { return APP_HEADER_BYTES; }
static inline uint64_t ratings_record_offset(uint64_t buckets, uint64_t r) {
  return APP_HEADER_BYTES + 8 * (buckets * buckets + 1) + 12 * r;
}

/* First id of bucket k of B over `count` ids (k = B gives count). */
static inline uint64_t ratings_bucket_start(uint64_t count, uint64_t buckets,
                                            uint64_t k) {
  return (k * count + buckets - 1) / buckets;
}
static inline uint64_t ratings_bucket_of(uint64_t count, uint64_t buckets,
                                         uint64_t id) {
  return id * buckets / count;
}

/* The exact file size the header describes (for app_header_read). */
uint64_t ratings_file_bytes(const app_header* header);

/* Opens and checks `path` and loads its index. Returns 0, or -1 after
 * printing why. */
int ratings_open(const char* path, ratings_file* r);
void ratings_close(ratings_file* r);

/* Block (bi, bj) of a G x G grid: users [*u0, *u1), items [*i0, *i1).
 * G must be <= B (checked by ratings_check_grid). */
void ratings_block_users(const ratings_file* r, uint64_t grid, uint64_t bi,
                         uint64_t* u0, uint64_t* u1);
void ratings_block_items(const ratings_file* r, uint64_t grid, uint64_t bj,
                         uint64_t* i0, uint64_t* i1);

/* 0 if a G x G grid can be cut along the buckets, else -1 with a message. */
int ratings_check_grid(const ratings_file* r, uint64_t grid);

/* Number of ratings in block (bi, bj) of the G x G grid. */
uint64_t ratings_block_count(const ratings_file* r, uint64_t grid, uint64_t bi,
                             uint64_t bj);

/* Calls `fn(ctx, records, count)` for the ratings of block (bi, bj) in file
 * order, at most `chunk` records at a time, through `buffer` (room for
 * `chunk` records). Every record is checked to lie in the block. Returns 0,
 * or -1 after printing why (I/O error or corrupt data). */
typedef void (*ratings_chunk_fn)(void* ctx, const rating* records,
                                 uint64_t count);
int ratings_stream_block(const ratings_file* r, uint64_t grid, uint64_t bi,
                         uint64_t bj, rating* buffer, uint64_t chunk,
                         ratings_chunk_fn fn, void* ctx);

/* Reads the whole block (bi, bj) into `out` (room for
 * ratings_block_count() records). Returns 0 or -1 as above. */
int ratings_read_block(const ratings_file* r, uint64_t grid, uint64_t bi,
                       uint64_t bj, rating* out);

#endif
