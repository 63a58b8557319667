/*
 * types_pairs: the value-index pair types (MPI_FLOAT_INT, MPI_DOUBLE_INT,
 * MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT) match any
 * type of the same type signature, whatever its layout (MPI-3.1 3.3.1).
 * Most of them have padding in memory; a runtime that moves that padding
 * garbles every pair after the first when the other side uses, say, a
 * struct. For each pair type, with `split`, a struct of 2n blocks that
 * takes the values from one array and the indices from another:
 *
 *  1. Sendrecv in a ring: n pairs received as split, and split received as
 *     n pairs; MPI_Get_count / MPI_Get_elements of both receives (a pair
 *     counts as two basic elements, MPI-3.1 4.1.11).
 *  2. MPI_Bcast (root sends split, the others receive pairs), MPI_Gather
 *     (every rank sends split, the root receives pairs).
 *  3. MPI_Pack of n pairs, MPI_Unpack as split.
 *  3b. On an intercommunicator of the even and the odd ranks: MPI_Bcast
 *     (split from the root, pairs on the other side) and MPI_Allreduce
 *     MAXLOC on pairs.
 *  4. MPI_MAXLOC and MPI_MINLOC by MPI_Allreduce (on the pairs and, BDMPI
 *     only, on a contiguous type of them and a strided vector of them),
 *     MPI_Reduce, MPI_Scan and MPI_Reduce_local; ties go to the lower index.
 */
#include "check.h"

#include <stddef.h>

enum { kPairs = 3, kMaxValue = sizeof(long double) };

typedef struct { float v; int i; } FloatInt;
typedef struct { double v; int i; } DoubleInt;
typedef struct { long v; int i; } LongInt;
typedef struct { int v; int i; } TwoInt;
typedef struct { short v; int i; } ShortInt;
typedef struct { long double v; int i; } LongDoubleInt;

typedef struct {
  const char *name;
  MPI_Datatype pair, value;
  size_t value_size, extent, index_offset;
} PairType;

#define PAIR(type, pair, value, c)                                                   \
  { #pair, pair, value, sizeof(((c *)0)->v), sizeof(c), offsetof(c, i) }
static const PairType kTypes[] = {
    PAIR(float, MPI_FLOAT_INT, MPI_FLOAT, FloatInt),
    PAIR(double, MPI_DOUBLE_INT, MPI_DOUBLE, DoubleInt),
    PAIR(long, MPI_LONG_INT, MPI_LONG, LongInt),
    PAIR(int, MPI_2INT, MPI_INT, TwoInt),
    PAIR(short, MPI_SHORT_INT, MPI_SHORT, ShortInt),
    PAIR(long double, MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, LongDoubleInt),
};

/* Values are small integers, exact in every value type. */
static void put_value(const PairType *t, void *at, int x) {
  if (t->value == MPI_FLOAT) *(float *)at = (float)x;
  else if (t->value == MPI_DOUBLE) *(double *)at = x;
  else if (t->value == MPI_LONG) *(long *)at = x;
  else if (t->value == MPI_INT) *(int *)at = x;
  else if (t->value == MPI_SHORT) *(short *)at = (short)x;
  else *(long double *)at = x;
}

static int get_value(const PairType *t, const void *at) {
  if (t->value == MPI_FLOAT) return (int)*(const float *)at;
  if (t->value == MPI_DOUBLE) return (int)*(const double *)at;
  if (t->value == MPI_LONG) return (int)*(const long *)at;
  if (t->value == MPI_INT) return *(const int *)at;
  if (t->value == MPI_SHORT) return *(const short *)at;
  return (int)*(const long double *)at;
}

/* n pairs laid out as the C struct, at `pairs`. */
static unsigned char *pair_at(const PairType *t, unsigned char *pairs, int k) {
  return pairs + (size_t)k * t->extent;
}
static void put_pair(const PairType *t, unsigned char *pairs, int k, int value, int index) {
  put_value(t, pair_at(t, pairs, k), value);
  memcpy(pair_at(t, pairs, k) + t->index_offset, &index, sizeof index);
}
static void check_pair(const PairType *t, unsigned char *pairs, int k, int value, int index,
                       const char *what) {
  int got_index;
  memcpy(&got_index, pair_at(t, pairs, k) + t->index_offset, sizeof got_index);
  int got_value = get_value(t, pair_at(t, pairs, k));
  CHECK(got_value == value && got_index == index, "%s %s pair %d: (%d, %d), want (%d, %d)",
        t->name, what, k, got_value, got_index, value, index);
}

/* The same n pairs as two arrays, and the struct type that reads them
 * (absolute addresses: used with MPI_BOTTOM). */
typedef struct {
  _Alignas(16) unsigned char values[kPairs * kMaxValue];
  int indices[kPairs];
  MPI_Datatype type;
} Split;

static void split_init(const PairType *t, Split *s, int n) {
  int lengths[2 * kPairs];
  MPI_Aint displs[2 * kPairs];
  MPI_Datatype types[2 * kPairs];
  for (int k = 0; k < n; ++k) {
    lengths[2 * k] = lengths[2 * k + 1] = 1;
    MPI_Get_address(s->values + (size_t)k * t->value_size, &displs[2 * k]);
    MPI_Get_address(&s->indices[k], &displs[2 * k + 1]);
    types[2 * k] = t->value;
    types[2 * k + 1] = MPI_INT;
  }
  MPI_Type_create_struct(2 * n, lengths, displs, types, &s->type);
  MPI_Type_commit(&s->type);
}
static void put_split(const PairType *t, Split *s, int k, int value, int index) {
  put_value(t, s->values + (size_t)k * t->value_size, value);
  s->indices[k] = index;
}
static void check_split(const PairType *t, Split *s, int k, int value, int index,
                        const char *what) {
  int got_value = get_value(t, s->values + (size_t)k * t->value_size);
  CHECK(got_value == value && s->indices[k] == index,
        "%s %s pair %d: (%d, %d), want (%d, %d)", t->name, what, k, got_value,
        s->indices[k], value, index);
}

/* Rank r's pair k. */
static int value_of(int r, int k) { return 100 * r + 10 * k + 1; }
static int index_of(int r, int k) { return -(1000 * r + k); }

static void test_point_to_point(const PairType *t, int rank, int right, int left) {
  unsigned char pairs[kPairs * sizeof(LongDoubleInt)];
  Split split;
  split_init(t, &split, kPairs);
  MPI_Status status;
  int count = -1, elements = -1;

  /* Pairs out, split in. */
  for (int k = 0; k < kPairs; ++k) put_pair(t, pairs, k, value_of(rank, k), index_of(rank, k));
  MPI_Sendrecv(pairs, kPairs, t->pair, right, 1, MPI_BOTTOM, 1, split.type, left, 1,
               MPI_COMM_WORLD, &status);
  for (int k = 0; k < kPairs; ++k)
    check_split(t, &split, k, value_of(left, k), index_of(left, k), "pairs -> struct");
  MPI_Get_count(&status, split.type, &count);
  MPI_Get_elements(&status, split.type, &elements);
  CHECK(count == 1 && elements == 2 * kPairs, "%s as struct: count %d elements %d", t->name,
        count, elements);

  /* Split out, pairs in. */
  for (int k = 0; k < kPairs; ++k) put_split(t, &split, k, value_of(rank, k), index_of(rank, k));
  memset(pairs, 0, sizeof pairs);
  MPI_Sendrecv(MPI_BOTTOM, 1, split.type, right, 2, pairs, kPairs, t->pair, left, 2,
               MPI_COMM_WORLD, &status);
  for (int k = 0; k < kPairs; ++k)
    check_pair(t, pairs, k, value_of(left, k), index_of(left, k), "struct -> pairs");
  MPI_Get_count(&status, t->pair, &count);
  MPI_Get_elements(&status, t->pair, &elements);
#ifdef OPEN_MPI
  /* Open MPI 4.1 counts a pair as one basic element (MPICH's
   * get_elements_pairtype fails there); MPI-3.1 4.1.11 counts two. */
  const int pair_elements = 1;
#else
  const int pair_elements = 2;
#endif
  CHECK(count == kPairs && elements == pair_elements * kPairs,
        "%s as pairs: count %d elements %d", t->name, count, elements);
  MPI_Type_free(&split.type);
}

static void test_collectives(const PairType *t, int rank, int size) {
  enum { kMaxRanks = 64 };
  static unsigned char pairs[kMaxRanks * kPairs * sizeof(LongDoubleInt)];
  Split split;
  split_init(t, &split, kPairs);
  const int root = size - 1;

  /* Bcast: the root's split, everyone else's pairs. */
  if (rank == root) {
    for (int k = 0; k < kPairs; ++k) put_split(t, &split, k, value_of(root, k), index_of(root, k));
    MPI_Bcast(MPI_BOTTOM, 1, split.type, root, MPI_COMM_WORLD);
  } else {
    memset(pairs, 0, sizeof pairs);
    MPI_Bcast(pairs, kPairs, t->pair, root, MPI_COMM_WORLD);
    for (int k = 0; k < kPairs; ++k)
      check_pair(t, pairs, k, value_of(root, k), index_of(root, k), "Bcast");
  }

  /* Gather: split from every rank, pairs at the root. */
  CHECK(size <= kMaxRanks, "at most %d ranks", kMaxRanks);
  for (int k = 0; k < kPairs; ++k) put_split(t, &split, k, value_of(rank, k), index_of(rank, k));
  memset(pairs, 0, sizeof pairs);
  MPI_Gather(MPI_BOTTOM, 1, split.type, pairs, kPairs, t->pair, root, MPI_COMM_WORLD);
  if (rank == root) {
    for (int r = 0; r < size; ++r)
      for (int k = 0; k < kPairs; ++k)
        check_pair(t, pairs, r * kPairs + k, value_of(r, k), index_of(r, k), "Gather");
  }
  MPI_Type_free(&split.type);
}

static void test_pack(const PairType *t, int rank) {
  unsigned char pairs[kPairs * sizeof(LongDoubleInt)];
  unsigned char packed[kPairs * sizeof(LongDoubleInt)];
  Split split;
  split_init(t, &split, kPairs);
  for (int k = 0; k < kPairs; ++k) put_pair(t, pairs, k, value_of(rank, k), index_of(rank, k));
  int size = 0, position = 0;
  MPI_Pack_size(kPairs, t->pair, MPI_COMM_WORLD, &size);
  CHECK(size <= (int)sizeof packed, "%s: MPI_Pack_size %d", t->name, size);
  MPI_Pack(pairs, kPairs, t->pair, packed, (int)sizeof packed, &position, MPI_COMM_WORLD);
  const int packed_bytes = position;
  position = 0;
  MPI_Unpack(packed, (int)sizeof packed, &position, MPI_BOTTOM, 1, split.type, MPI_COMM_WORLD);
  CHECK(position == packed_bytes, "%s: MPI_Unpack read %d bytes, MPI_Pack wrote %d", t->name,
        position, packed_bytes);
  for (int k = 0; k < kPairs; ++k)
    check_split(t, &split, k, value_of(rank, k), index_of(rank, k), "Pack -> Unpack");
  MPI_Type_free(&split.type);
}

static void test_intercomm(const PairType *t, int rank, int size) {
  if (size < 2) return;
  MPI_Comm half, inter;
  const int odd = rank % 2;
  MPI_Comm_split(MPI_COMM_WORLD, odd, rank, &half);
  /* Local leader 0 of each half; the other half's leader is world rank 1 or 0. */
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, odd ? 0 : 1, 7, &inter);
  unsigned char pairs[kPairs * sizeof(LongDoubleInt)];
  Split split;
  split_init(t, &split, kPairs);
  /* Bcast from world rank 0 (even rank 0) to the odd ranks. */
  if (!odd) {
    int root = rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
    for (int k = 0; k < kPairs; ++k) put_split(t, &split, k, value_of(0, k), index_of(0, k));
    MPI_Bcast(MPI_BOTTOM, 1, split.type, root, inter);
  } else {
    memset(pairs, 0, sizeof pairs);
    MPI_Bcast(pairs, kPairs, t->pair, 0, inter);
    for (int k = 0; k < kPairs; ++k)
      check_pair(t, pairs, k, value_of(0, k), index_of(0, k), "intercomm Bcast");
  }
  /* MAXLOC: each side gets the other side's maximum, (world rank, rank). */
  unsigned char in[sizeof(LongDoubleInt)], out[sizeof(LongDoubleInt)];
  put_pair(t, in, 0, rank, rank);
  MPI_Allreduce(in, out, 1, t->pair, MPI_MAXLOC, inter);
  int last_other = (size - 1) % 2 != odd ? size - 1 : size - 2;
  check_pair(t, out, 0, last_other, last_other, "intercomm Allreduce MAXLOC");
  MPI_Type_free(&split.type);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
}

/* Few distinct values, so that ties (lower index wins) are common. */
static int loc_value(int r, int k) { return (r * 5 + k * 3) % 7 - 3; }

/* Pair k of the result of `op` over ranks [0, last]. */
static void want_loc(MPI_Op op, int last, int k, int *value, int *index) {
  *value = loc_value(0, k);
  *index = 0;
  for (int r = 1; r <= last; ++r) {
    int x = loc_value(r, k);
    if (op == MPI_MAXLOC ? x > *value : x < *value) {
      *value = x;
      *index = r;
    }
  }
}

static void check_loc(const PairType *t, MPI_Op op, unsigned char *pairs, int stride, int last,
                      const char *what) {
  for (int k = 0; k < kPairs; ++k) {
    int value, index;
    want_loc(op, last, k, &value, &index);
    check_pair(t, pairs, k * stride, value, index, what);
  }
}

static void test_reductions(const PairType *t, MPI_Op op, int rank, int size) {
  unsigned char in[kPairs * sizeof(LongDoubleInt)];
  unsigned char out[2 * kPairs * sizeof(LongDoubleInt)];
  /* Pair k of every rank r is (loc_value(r, k), r). */
  for (int k = 0; k < kPairs; ++k) put_pair(t, in, k, loc_value(rank, k), rank);
  MPI_Allreduce(in, out, kPairs, t->pair, op, MPI_COMM_WORLD);
  check_loc(t, op, out, 1, size - 1, "Allreduce");

#ifdef BDMPI
  /* Predefined ops on derived types of pairs: as MPICH; Open MPI 4.1
   * refuses them (MPI_ERR_OP). */
  MPI_Datatype contiguous, strided;
  MPI_Type_contiguous(kPairs, t->pair, &contiguous);
  MPI_Type_commit(&contiguous);
  memset(out, 0, sizeof out);
  MPI_Allreduce(in, out, 1, contiguous, op, MPI_COMM_WORLD);
  check_loc(t, op, out, 1, size - 1, "Allreduce of a contiguous type");
  MPI_Type_free(&contiguous);

  /* Every other pair: kPairs pairs with a pair-sized gap after each. */
  unsigned char spread[2 * kPairs * sizeof(LongDoubleInt)];
  for (int k = 0; k < 2 * kPairs; ++k) put_pair(t, spread, k, loc_value(rank, k / 2), rank);
  MPI_Type_vector(kPairs, 1, 2, t->pair, &strided);
  MPI_Type_commit(&strided);
  memset(out, 0, sizeof out);
  MPI_Allreduce(spread, out, 1, strided, op, MPI_COMM_WORLD);
  check_loc(t, op, out, 2, size - 1, "Allreduce of a strided vector");
  MPI_Type_free(&strided);
#endif

  const int root = size / 2;
  memset(out, 0, sizeof out);
  MPI_Reduce(in, out, kPairs, t->pair, op, root, MPI_COMM_WORLD);
  if (rank == root) check_loc(t, op, out, 1, size - 1, "Reduce");

  memset(out, 0, sizeof out);
  MPI_Scan(in, out, kPairs, t->pair, op, MPI_COMM_WORLD);
  check_loc(t, op, out, 1, rank, "Scan");

  /* Reduce_local: in = rank 1's pairs, inout = rank 0's (a lower index on
   * ties must win even when it is inout's). */
  unsigned char mine[kPairs * sizeof(LongDoubleInt)];
  for (int k = 0; k < kPairs; ++k) {
    put_pair(t, mine, k, loc_value(1, k), 1);
    put_pair(t, out, k, loc_value(0, k), 0);
  }
  MPI_Reduce_local(mine, out, kPairs, t->pair, op);
  check_loc(t, op, out, 1, 1, "Reduce_local");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; ++i) {
    const PairType *t = &kTypes[i];
    test_point_to_point(t, rank, right, left);
    test_collectives(t, rank, size);
    test_pack(t, rank);
    test_intercomm(t, rank, size);
    test_reductions(t, MPI_MAXLOC, rank, size);
    test_reductions(t, MPI_MINLOC, rank, size);
  }
  MPI_Finalize();
  if (rank == 0) printf("types_pairs: OK\n");
  return 0;
}
