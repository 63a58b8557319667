/*
 * reduce: MPI_Reduce and MPI_Allreduce over every predefined operation and
 * the datatypes it is defined for (C integers, fixed-width integers, floating
 * point, C bool, MPI_BYTE), with counts 1, 5 and 1500, rotating roots,
 * MPI_IN_PLACE on every other case and a NULL receive buffer on non-roots
 * (it is not significant there). Then MPI_MAXLOC / MPI_MINLOC on all pair
 * types, with ties, which must resolve to the lowest rank.
 *
 * Contributions are small integers chosen so that no result overflows even
 * an 8-bit type for up to 128 ranks, so every result is exact and is
 * recomputed here in long long.
 */
#include <stdbool.h>
#include <stdint.h>

#include "check.h"

enum Kind { kInteger, kFloating, kBool, kByte };

struct Type {
  MPI_Datatype type;
  const char *name;
  int size, is_signed, kind;
};

#define T(t, c, s, k) \
  { t, #t, sizeof(c), s, k }
static const struct Type kTypes[] = {
    T(MPI_INT, int, 1, kInteger),
    T(MPI_UNSIGNED, unsigned, 0, kInteger),
    T(MPI_LONG, long, 1, kInteger),
    T(MPI_UNSIGNED_LONG, unsigned long, 0, kInteger),
    T(MPI_LONG_LONG, long long, 1, kInteger),
    T(MPI_UNSIGNED_LONG_LONG, unsigned long long, 0, kInteger),
    T(MPI_SHORT, short, 1, kInteger),
    T(MPI_UNSIGNED_SHORT, unsigned short, 0, kInteger),
    T(MPI_SIGNED_CHAR, signed char, 1, kInteger),
    T(MPI_UNSIGNED_CHAR, unsigned char, 0, kInteger),
    T(MPI_INT8_T, int8_t, 1, kInteger),
    T(MPI_UINT8_T, uint8_t, 0, kInteger),
    T(MPI_INT16_T, int16_t, 1, kInteger),
    T(MPI_UINT16_T, uint16_t, 0, kInteger),
    T(MPI_INT32_T, int32_t, 1, kInteger),
    T(MPI_UINT32_T, uint32_t, 0, kInteger),
    T(MPI_INT64_T, int64_t, 1, kInteger),
    T(MPI_UINT64_T, uint64_t, 0, kInteger),
    T(MPI_FLOAT, float, 1, kFloating),
    T(MPI_DOUBLE, double, 1, kFloating),
    T(MPI_LONG_DOUBLE, long double, 1, kFloating),
    T(MPI_C_BOOL, bool, 0, kBool),
    T(MPI_BYTE, unsigned char, 0, kByte),
};
#undef T

struct Op {
  MPI_Op op;
  const char *name;
};
static const struct Op kOps[] = {
    {MPI_SUM, "MPI_SUM"},   {MPI_PROD, "MPI_PROD"}, {MPI_MAX, "MPI_MAX"},
    {MPI_MIN, "MPI_MIN"},   {MPI_LAND, "MPI_LAND"}, {MPI_LOR, "MPI_LOR"},
    {MPI_LXOR, "MPI_LXOR"}, {MPI_BAND, "MPI_BAND"}, {MPI_BOR, "MPI_BOR"},
    {MPI_BXOR, "MPI_BXOR"},
};
enum {
  kNumTypes = sizeof kTypes / sizeof kTypes[0],
  kNumOps = sizeof kOps / sizeof kOps[0]
};

static int is_logical(MPI_Op op) {
  return op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;
}
static int is_bitwise(MPI_Op op) {
  return op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
}

/* Which (type, op) pairs MPI defines (MPI-3.1 section 5.9.2). */
static int defined(const struct Type *t, MPI_Op op) {
  switch (t->kind) {
    case kInteger:
      return 1;
    case kFloating:
      return !is_logical(op) && !is_bitwise(op);
    case kBool:
      return is_logical(op);
    default:
      return is_bitwise(op); /* kByte */
  }
}

/* Rank r's contribution at index i; fits in 7 bits (so also in int8). */
static long long contribution(const struct Type *t, MPI_Op op, int r, int i,
                              int size) {
  if (op == MPI_SUM) return t->is_signed ? (r + i) % 3 - 1 : (r + i) % 2;
  if (op == MPI_PROD) {
    /* One rank per index contributes 2 (or -1): products stay in {±1, ±2}. */
    if (r == i % size) return 2;
    return (t->is_signed && r == (i + 1) % size) ? -1 : 1;
  }
  if (op == MPI_MAX || op == MPI_MIN) {
    return (r * 7 + i * 3) % 11 - (t->is_signed ? 5 : 0);
  }
  if (is_logical(op)) {
    if (t->kind == kBool) return (r + i) % (size + 1) != 0;
    /* Non-zero values other than 1 must count as true. */
    return (r + i) % (size + 1) != 0 ? 1 + r % 3 : 0;
  }
  if (op == MPI_BAND) return 127 & ~(1 << ((r + i) % 7));
  if (op == MPI_BOR) return 1 << ((r + i) % 7);
  return (r * 37 + i * 11) & 127; /* MPI_BXOR */
}

static long long combine(MPI_Op op, long long a, long long b) {
  if (op == MPI_SUM) return a + b;
  if (op == MPI_PROD) return a * b;
  if (op == MPI_MAX) return a > b ? a : b;
  if (op == MPI_MIN) return a < b ? a : b;
  if (op == MPI_LAND) return a && b;
  if (op == MPI_LOR) return a || b;
  if (op == MPI_LXOR) return !a != !b;
  if (op == MPI_BAND) return a & b;
  if (op == MPI_BOR) return a | b;
  return a ^ b;
}

static void store(const struct Type *t, void *buf, int i, long long v) {
  if (t->type == MPI_FLOAT)
    ((float *)buf)[i] = (float)v;
  else if (t->type == MPI_DOUBLE)
    ((double *)buf)[i] = (double)v;
  else if (t->type == MPI_LONG_DOUBLE)
    ((long double *)buf)[i] = v;
  else if (t->type == MPI_C_BOOL)
    ((bool *)buf)[i] = v != 0;
  else if (t->size == 1)
    ((int8_t *)buf)[i] = (int8_t)v;
  else if (t->size == 2)
    ((int16_t *)buf)[i] = (int16_t)v;
  else if (t->size == 4)
    ((int32_t *)buf)[i] = (int32_t)v;
  else
    ((int64_t *)buf)[i] = v;
}

static long long load(const struct Type *t, const void *buf, int i) {
  if (t->type == MPI_FLOAT) return (long long)((const float *)buf)[i];
  if (t->type == MPI_DOUBLE) return (long long)((const double *)buf)[i];
  if (t->type == MPI_LONG_DOUBLE) {
    return (long long)((const long double *)buf)[i];
  }
  if (t->type == MPI_C_BOOL) return ((const bool *)buf)[i];
  /* No ?: between signed and unsigned here: it would convert to unsigned. */
  if (t->is_signed) {
    if (t->size == 1) return ((const int8_t *)buf)[i];
    if (t->size == 2) return ((const int16_t *)buf)[i];
    if (t->size == 4) return ((const int32_t *)buf)[i];
    return ((const int64_t *)buf)[i];
  }
  if (t->size == 1) return ((const uint8_t *)buf)[i];
  if (t->size == 2) return ((const uint16_t *)buf)[i];
  if (t->size == 4) return ((const uint32_t *)buf)[i];
  return (long long)((const uint64_t *)buf)[i];
}

/* The result is stored back into the type; compare in the type's terms. */
static long long expected(const struct Type *t, MPI_Op op, int i, int size) {
  long long acc = contribution(t, op, 0, i, size);
  for (int r = 1; r < size; ++r) {
    acc = combine(op, acc, contribution(t, op, r, i, size));
  }
  if (is_logical(op)) acc = acc != 0;
  char tmp[16];
  store(t, tmp, 0, acc);
  return load(t, tmp, 0);
}

static void check_result(const struct Type *t, const struct Op *op,
                         const void *buf, int count, int size,
                         const char *what) {
  for (int i = 0; i < count; ++i) {
    long long got = load(t, buf, i), want = expected(t, op->op, i, size);
    if (is_logical(op->op)) got = got != 0;
    CHECK(got == want, "%s %s on %s, count %d: element %d is %lld, want %lld",
          what, op->name, t->name, count, i, got, want);
  }
}

static void run_case(const struct Type *t, const struct Op *op, int count,
                     int root, int in_place, int rank, int size) {
  const size_t bytes = (size_t)count * (size_t)t->size;
  unsigned char *send = xmalloc(bytes), *recv = xmalloc(bytes);
  for (int i = 0; i < count; ++i) {
    store(t, send, i, contribution(t, op->op, rank, i, size));
  }

  /* Reduce: recvbuf matters only at the root, so others pass NULL. */
  if (in_place && rank == root) {
    memcpy(recv, send, bytes);
    MPI_Reduce(MPI_IN_PLACE, recv, count, t->type, op->op, root,
               MPI_COMM_WORLD);
  } else {
    MPI_Reduce(send, rank == root ? recv : NULL, count, t->type, op->op, root,
               MPI_COMM_WORLD);
  }
  if (rank == root) check_result(t, op, recv, count, size, "Reduce");

  if (in_place) {
    memcpy(recv, send, bytes);
    MPI_Allreduce(MPI_IN_PLACE, recv, count, t->type, op->op, MPI_COMM_WORLD);
  } else {
    MPI_Allreduce(send, recv, count, t->type, op->op, MPI_COMM_WORLD);
  }
  check_result(t, op, recv, count, size, "Allreduce");
  free(send);
  free(recv);
}

/* ---- MAXLOC / MINLOC on the pair types. */

/* Value of rank r at index i: few distinct values, so ties are common. */
static int loc_value(int r, int i) { return (r * 5 + i * 3) % 7 - 3; }

/* Checks (value, location) pairs; ties resolve to the lowest rank. */
static void check_loc(const long double *v, const int *loc, int count,
                      MPI_Op op, int size, const char *what) {
  for (int i = 0; i < count; ++i) {
    int want_loc = 0, want_v = loc_value(0, i);
    for (int r = 1; r < size; ++r) {
      const int x = loc_value(r, i);
      if (op == MPI_MAXLOC ? x > want_v : x < want_v) {
        want_v = x;
        want_loc = r;
      }
    }
    CHECK(v[i] == want_v && loc[i] == want_loc,
          "%s %s element %d: (%Lg, %d), want (%d, %d)", what,
          op == MPI_MAXLOC ? "MAXLOC" : "MINLOC", i, v[i], loc[i], want_v,
          want_loc);
  }
}

/* Defines loc_test_<Pair>(): MAXLOC or MINLOC on `count` pairs of the C
 * struct Pair {value v; int loc;}, by Reduce to root and by Allreduce. */
#define DEFINE_LOC_TEST(Pair, value_type, mpi_type)                     \
  typedef struct {                                                      \
    value_type v;                                                       \
    int loc;                                                            \
  } Pair;                                                               \
  static void loc_test_##Pair(int count, int root, MPI_Op op, int rank, \
                              int size) {                               \
    Pair *in = xmalloc((size_t)count * sizeof(Pair));                   \
    Pair *out = xmalloc((size_t)count * sizeof(Pair));                  \
    long double *v = xmalloc((size_t)count * sizeof(long double));      \
    int *loc = xmalloc((size_t)count * sizeof(int));                    \
    for (int i = 0; i < count; ++i) {                                   \
      in[i].v = (value_type)loc_value(rank, i);                         \
      in[i].loc = rank;                                                 \
    }                                                                   \
    for (int all = 0; all <= 1; ++all) {                                \
      if (all) {                                                        \
        MPI_Allreduce(in, out, count, mpi_type, op, MPI_COMM_WORLD);    \
      } else {                                                          \
        MPI_Reduce(in, out, count, mpi_type, op, root, MPI_COMM_WORLD); \
        if (rank != root) continue;                                     \
      }                                                                 \
      for (int i = 0; i < count; ++i) {                                 \
        v[i] = out[i].v;                                                \
        loc[i] = out[i].loc;                                            \
      }                                                                 \
      check_loc(v, loc, count, op, size,                                \
                all ? #mpi_type " Allreduce" : #mpi_type " Reduce");    \
    }                                                                   \
    free(in);                                                           \
    free(out);                                                          \
    free(v);                                                            \
    free(loc);                                                          \
  }

DEFINE_LOC_TEST(DoubleInt, double, MPI_DOUBLE_INT)
DEFINE_LOC_TEST(TwoInt, int, MPI_2INT)
DEFINE_LOC_TEST(FloatInt, float, MPI_FLOAT_INT)
DEFINE_LOC_TEST(LongInt, long, MPI_LONG_INT)
DEFINE_LOC_TEST(ShortInt, short, MPI_SHORT_INT)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int counts[] = {1, 5, 1500};
  int n = 0; /* case number: picks the root and whether to go in place */
  for (int t = 0; t < kNumTypes; ++t) {
    for (int o = 0; o < kNumOps; ++o) {
      if (!defined(&kTypes[t], kOps[o].op)) continue;
      for (int c = 0; c < 3; ++c, ++n) {
        run_case(&kTypes[t], &kOps[o], counts[c], n % size, n % 2, rank, size);
      }
    }
  }
  const MPI_Op loc_ops[2] = {MPI_MAXLOC, MPI_MINLOC};
  for (int k = 0; k < 2; ++k) {
    for (int c = 0; c < 3; ++c, ++n) {
      const int root = n % size;
      loc_test_DoubleInt(counts[c], root, loc_ops[k], rank, size);
      loc_test_TwoInt(counts[c], root, loc_ops[k], rank, size);
      loc_test_FloatInt(counts[c], root, loc_ops[k], rank, size);
      loc_test_LongInt(counts[c], root, loc_ops[k], rank, size);
      loc_test_ShortInt(counts[c], root, loc_ops[k], rank, size);
    }
  }
  MPI_Finalize();
  return 0;
}
