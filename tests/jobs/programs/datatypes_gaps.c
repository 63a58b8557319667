/*
 * datatypes_gaps: derived datatypes with gaps, a lower bound other than 0
 * or padding, in point-to-point calls and MPI_Pack/Unpack. Each rank sends
 * to the next in a ring and checks every byte it receives, gaps included
 * (which must keep their sentinel).
 *
 *  1. A strided MPI_Type_vector, count 2 (elements overlap the next one's
 *     gap): received as the same vector, and as plain ints (same signature).
 *  2. struct { double d; int i; } built with MPI_Type_create_struct and no
 *     MPI_Type_create_resized: MPI pads the extent to 16, so count 3 walks
 *     a C array (BDMPI used 12 before and read the wrong bytes).
 *  3. MPI_Type_indexed / create_hindexed / create_indexed_block with holes,
 *     and MPI_Type_create_resized with a negative lower bound; bounds by
 *     MPI_Type_get_extent / get_true_extent.
 *  4. Isend/Irecv with the receive type freed before MPI_Wait; a message
 *     shorter than the receive: MPI_Get_count and MPI_Get_elements.
 *  5. MPI_BOTTOM with absolute addresses (MPI_Get_address).
 *  6. MPI_Pack / MPI_Unpack / MPI_Pack_size of a vector.
 *  7. MPI_Type_create_subarray in C and Fortran order, and
 *     MPI_Type_create_hindexed_block; a negative extent (MPI_Type_create_
 *     resized); the MPI-1 names MPI_Type_hvector, MPI_Type_struct,
 *     MPI_Type_extent/lb/ub, MPI_Address and the MPI_LB/MPI_UB markers (not
 *     in an MPI-3 header without compatibility flags, so BDMPI only).
 *  8. MPI_Bcast, and under BDMPI only MPI_Reduce and MPI_Allreduce (also
 *     MPI_IN_PLACE), on a strided vector: gaps keep their sentinel.
 *  9. MPI_Type_get_envelope / get_contents of named, vector, struct, dup,
 *     resized and subarray types, with an inner type freed meanwhile. BDMPI
 *     only: the Open MPI 4.1 the tests compare with segfaults inside
 *     MPI_Type_get_contents even for a plain committed MPI_Type_vector.
 */
#include "check.h"

#include <stddef.h>

enum { kSentinel = -7 };

static void fill_ints(int *v, int n, int value) {
  for (int i = 0; i < n; ++i) v[i] = value;
}

/* 1: vector(3, 2, 4) of int: ints {0,1, 4,5, 8,9} of each element, extent
 * 10 ints; count 2 places the second element at int 10. */
static void test_vector(int rank, int right, int left) {
  MPI_Datatype vec;
  MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(vec, &lb, &extent);
  CHECK(lb == 0 && extent == 10 * (MPI_Aint)sizeof(int), "vector extent %ld",
        (long)extent);
  int size;
  MPI_Type_size(vec, &size);
  CHECK(size == 6 * (int)sizeof(int), "vector size %d", size);

  int out[20], in[20];
  for (int i = 0; i < 20; ++i) out[i] = 1000 * rank + i;
  fill_ints(in, 20, kSentinel);
  MPI_Status status;
  MPI_Sendrecv(out, 2, vec, right, 1, in, 2, vec, left, 1, MPI_COMM_WORLD, &status);
  for (int i = 0; i < 20; ++i) {
    int j = i % 10;
    int want = (j % 4 < 2 && j < 10 && j != 2 && j != 3 && j != 6 && j != 7)
                   ? 1000 * left + i
                   : kSentinel;
    CHECK(in[i] == want, "vector: in[%d] = %d, want %d", i, in[i], want);
  }
  int count, elements;
  MPI_Get_count(&status, vec, &count);
  MPI_Get_elements(&status, vec, &elements);
  CHECK(count == 2 && elements == 12, "vector: count %d elements %d", count, elements);

  /* Same signature, other layout: 12 ints in a row. */
  int flat[12];
  MPI_Sendrecv(out, 2, vec, right, 2, flat, 12, MPI_INT, left, 2, MPI_COMM_WORLD,
               &status);
  const int picked[12] = {0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19};
  for (int i = 0; i < 12; ++i)
    CHECK(flat[i] == 1000 * left + picked[i], "vector as ints: flat[%d] = %d", i,
          flat[i]);
  /* ...and back: plain ints into the vector's places. */
  fill_ints(in, 20, kSentinel);
  MPI_Sendrecv(flat, 12, MPI_INT, right, 3, in, 2, vec, left, 3, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  int left2 = (left - 1 + world_size()) % world_size();
  for (int i = 0; i < 12; ++i)
    CHECK(in[picked[i]] == 1000 * left2 + picked[i], "ints as vector: in[%d] = %d",
          picked[i], in[picked[i]]);
  CHECK(in[2] == kSentinel && in[13] == kSentinel, "ints as vector wrote a gap");
  MPI_Type_free(&vec);
}

/* 2: an array of struct { double d; int i; } without resizing. */
struct DoubleInt {
  double d;
  int i;
};

static void test_padded_struct(int rank, int right, int left) {
  int blocklengths[2] = {1, 1};
  MPI_Aint displacements[2] = {offsetof(struct DoubleInt, d),
                               offsetof(struct DoubleInt, i)};
  MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
  MPI_Datatype st;
  MPI_Type_create_struct(2, blocklengths, displacements, types, &st);
  MPI_Type_commit(&st);
  MPI_Aint lb, extent, true_lb, true_extent;
  MPI_Type_get_extent(st, &lb, &extent);
  MPI_Type_get_true_extent(st, &true_lb, &true_extent);
  CHECK(lb == 0 && extent == (MPI_Aint)sizeof(struct DoubleInt),
        "struct extent %ld, want %zu", (long)extent, sizeof(struct DoubleInt));
  CHECK(true_lb == 0 && true_extent == 12, "struct true extent %ld", (long)true_extent);

  struct DoubleInt out[3], in[3];
  for (int k = 0; k < 3; ++k) {
    out[k].d = rank + 0.5 * k;
    out[k].i = 100 * rank + k;
    in[k].d = -1.0;
    in[k].i = kSentinel;
  }
  MPI_Status status;
  MPI_Sendrecv(out, 3, st, right, 4, in, 3, st, left, 4, MPI_COMM_WORLD, &status);
  for (int k = 0; k < 3; ++k)
    CHECK(in[k].d == left + 0.5 * k && in[k].i == 100 * left + k,
          "struct[%d] = {%g, %d}", k, in[k].d, in[k].i);
  int elements;
  MPI_Get_elements(&status, st, &elements);
  CHECK(elements == 6, "struct: elements %d, want 6", elements);
  MPI_Type_free(&st);
}

/* 3: indexed types with holes and a resized type; bounds. */
static void test_indexed_and_resized(int rank, int right, int left) {
  int blocklengths[3] = {2, 1, 3};
  int displacements[3] = {1, 5, 8}; /* ints 1,2, 5, 8,9,10 */
  MPI_Datatype idx, blk, hidx, resized;
  MPI_Type_indexed(3, blocklengths, displacements, MPI_INT, &idx);
  int block_displacements[2] = {3, 0}; /* out of order: ints 3,4 then 0,1 */
  MPI_Type_create_indexed_block(2, 2, block_displacements, MPI_INT, &blk);
  MPI_Aint hdisp[2] = {4 * sizeof(int), 0};
  int hlen[2] = {1, 1};
  MPI_Type_create_hindexed(2, hlen, hdisp, MPI_INT, &hidx);
  MPI_Type_create_resized(MPI_INT, -(MPI_Aint)sizeof(int), 3 * sizeof(int), &resized);
  MPI_Datatype all[4] = {idx, blk, hidx, resized};
  for (int t = 0; t < 4; ++t) MPI_Type_commit(&all[t]);

  MPI_Aint lb, extent, true_lb, true_extent;
  MPI_Type_get_extent(idx, &lb, &extent);
  MPI_Type_get_true_extent(idx, &true_lb, &true_extent);
  CHECK(lb == 4 && extent == 40 && true_lb == 4 && true_extent == 40,
        "indexed bounds %ld %ld %ld %ld", (long)lb, (long)extent, (long)true_lb,
        (long)true_extent);
  MPI_Type_get_extent(resized, &lb, &extent);
  MPI_Type_get_true_extent(resized, &true_lb, &true_extent);
  CHECK(lb == -4 && extent == 12 && true_lb == 0 && true_extent == 4,
        "resized bounds %ld %ld %ld %ld", (long)lb, (long)extent, (long)true_lb,
        (long)true_extent);

  /* Each type's picked ints, in type-map order, for count 2 (idx, blk,
   * hidx) or 3 (resized: every third int from int 0). */
  const int picked[4][12] = {
      {1, 2, 5, 8, 9, 10, 11, 12, 15, 18, 19, 20},
      {3, 4, 0, 1, 8, 9, 5, 6},
      {4, 0, 9, 5},
      {0, 3, 6},
  };
  const int npicked[4] = {12, 8, 4, 3};
  const int counts[4] = {2, 2, 2, 3};
  for (int t = 0; t < 4; ++t) {
    int out[24], in[24];
    for (int i = 0; i < 24; ++i) out[i] = 1000 * rank + i;
    fill_ints(in, 24, kSentinel);
    int flat[12];
    /* Typed to ints, and ints back into the type. */
    MPI_Sendrecv(out, counts[t], all[t], right, 5, flat, npicked[t], MPI_INT, left, 5,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < npicked[t]; ++i)
      CHECK(flat[i] == 1000 * left + picked[t][i], "type %d: flat[%d] = %d", t, i,
            flat[i]);
    MPI_Sendrecv(out, npicked[t], MPI_INT, right, 6, in, counts[t], all[t], left, 6,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* blk's two elements overlap (ints 3 and 2..3 of the next): MPI
     * leaves the order of such writes undefined, so check the others. */
    int touched[24] = {0};
    for (int i = 0; i < npicked[t]; ++i) touched[picked[t][i]]++;
    for (int i = 0; i < npicked[t]; ++i) {
      int at = picked[t][i];
      if (touched[at] == 1)
        CHECK(in[at] == 1000 * left + i, "type %d: in[%d] = %d, want %d", t, at, in[at],
              1000 * left + i);
    }
    for (int i = 0; i < 24; ++i)
      if (touched[i] == 0) CHECK(in[i] == kSentinel, "type %d wrote gap %d", t, i);
  }
  for (int t = 0; t < 4; ++t) MPI_Type_free(&all[t]);
}

/* 4: nonblocking, type freed while the receive is pending; a short message. */
static void test_nonblocking_and_counts(int rank, int right, int left) {
  MPI_Datatype vec;
  MPI_Type_vector(4, 1, 2, MPI_INT, &vec); /* ints 0, 2, 4, 6 */
  MPI_Type_commit(&vec);
  int in[16], out[5] = {rank, rank + 1, rank + 2, rank + 3, rank + 4};
  fill_ints(in, 16, kSentinel);
  MPI_Request request;
  MPI_Irecv(in, 2, vec, left, 7, MPI_COMM_WORLD, &request);
  MPI_Datatype freed = vec;
  MPI_Type_free(&freed); /* MPI: the pending receive completes normally */
  MPI_Send(out, 5, MPI_INT, right, 7, MPI_COMM_WORLD);
  MPI_Status status;
  MPI_Wait(&request, &status);
  const int at[5] = {0, 2, 4, 6, 7};
  for (int i = 0; i < 5; ++i)
    CHECK(in[at[i]] == left + i, "short message: in[%d] = %d", at[i], in[at[i]]);
  for (int i = 0; i < 16; ++i)
    if (i > 8 || (i % 2 == 1 && i != 7))
      CHECK(in[i] == kSentinel, "short message wrote in[%d]", i);
  /* 5 ints into a type of 4: MPI_UNDEFINED count, 5 elements. */
  MPI_Datatype vec2;
  MPI_Type_vector(4, 1, 2, MPI_INT, &vec2);
  MPI_Type_commit(&vec2);
  int count, elements;
  MPI_Get_count(&status, vec2, &count);
  MPI_Get_elements(&status, vec2, &elements);
  CHECK(count == MPI_UNDEFINED && elements == 5, "count %d elements %d", count,
        elements);
  MPI_Type_free(&vec2);
}

/* 5: a struct of absolute addresses, sent from and received to MPI_BOTTOM. */
static void test_bottom(int rank, int right, int left) {
  int a = rank, a_in = kSentinel;
  double b = rank * 2.0, b_in = -1.0;
  MPI_Aint disp[2], disp_in[2];
  MPI_Get_address(&a, &disp[0]);
  MPI_Get_address(&b, &disp[1]);
  MPI_Get_address(&a_in, &disp_in[0]);
  MPI_Get_address(&b_in, &disp_in[1]);
  int bl[2] = {1, 1};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, st, st_in;
  MPI_Type_create_struct(2, bl, disp, types, &st);
  MPI_Type_create_struct(2, bl, disp_in, types, &st_in);
  MPI_Type_commit(&st);
  MPI_Type_commit(&st_in);
  MPI_Sendrecv(MPI_BOTTOM, 1, st, right, 8, MPI_BOTTOM, 1, st_in, left, 8,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(a_in == left && b_in == left * 2.0, "MPI_BOTTOM: %d %g", a_in, b_in);
  MPI_Type_free(&st);
  MPI_Type_free(&st_in);
}

/* 6: MPI_Pack of a vector is its elements in a row. */
static void test_pack(void) {
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 3, MPI_INT, &vec); /* ints 0, 3, 6; extent 7 */
  MPI_Type_commit(&vec);
  int size;
  MPI_Pack_size(2, vec, MPI_COMM_WORLD, &size);
  CHECK(size >= 6 * (int)sizeof(int), "MPI_Pack_size %d", size);
  int src[14], packed[64], dst[14];
  for (int i = 0; i < 14; ++i) src[i] = i;
  int position = 0;
  MPI_Pack(src, 2, vec, packed, sizeof packed, &position, MPI_COMM_WORLD);
  CHECK(position == 6 * (int)sizeof(int), "MPI_Pack position %d", position);
  fill_ints(dst, 14, kSentinel);
  int unpacked_at = 0;
  MPI_Unpack(packed, position, &unpacked_at, dst, 2, vec, MPI_COMM_WORLD);
  CHECK(unpacked_at == position, "MPI_Unpack position %d", unpacked_at);
  for (int i = 0; i < 14; ++i) {
    int want = (i % 7) % 3 == 0 ? i : kSentinel;
    CHECK(dst[i] == want, "unpacked dst[%d] = %d, want %d", i, dst[i], want);
  }
  int flat[6];
  position = 0;
  MPI_Unpack(packed, sizeof packed, &position, flat, 6, MPI_INT, MPI_COMM_WORLD);
  const int want[6] = {0, 3, 6, 7, 10, 13};
  for (int i = 0; i < 6; ++i) CHECK(flat[i] == want[i], "packed[%d] = %d", i, flat[i]);
  MPI_Type_free(&vec);
}

/* Sends `count` of `type` from a 0..n-1 array to the right and checks that
 * the ints picked[] (in order) arrived from the left and nothing else. */
static void check_picks(MPI_Datatype type, int count, const int *picked, int npicked,
                        int right, int left, const char *what) {
  int out[40], flat[40], in[40];
  for (int i = 0; i < 40; ++i) out[i] = 1000 * world_rank() + i;
  MPI_Sendrecv(out, count, type, right, 9, flat, npicked, MPI_INT, left, 9,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < npicked; ++i)
    CHECK(flat[i] == 1000 * left + picked[i], "%s: flat[%d] = %d, want %d", what, i,
          flat[i], 1000 * left + picked[i]);
  fill_ints(in, 40, kSentinel);
  MPI_Sendrecv(flat, npicked, MPI_INT, right, 10, in, count, type, left, 10,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int left2 = (left - 1 + world_size()) % world_size();
  int touched[40] = {0};
  for (int i = 0; i < npicked; ++i) touched[picked[i]] = 1;
  for (int i = 0; i < 40; ++i) {
    int want = touched[i] ? 1000 * left2 + i : kSentinel;
    CHECK(in[i] == want, "%s: in[%d] = %d, want %d", what, i, in[i], want);
  }
}

static void test_subarray_and_more(int right, int left) {
  const int sizes[2] = {4, 5}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
  MPI_Datatype c_order, f_order, hblock;
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &c_order);
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT,
                           &f_order);
  MPI_Aint hdisp[2] = {6 * sizeof(int), sizeof(int)};
  MPI_Type_create_hindexed_block(2, 2, hdisp, MPI_INT, &hblock);
  MPI_Type_commit(&c_order);
  MPI_Type_commit(&f_order);
  MPI_Type_commit(&hblock);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(c_order, &lb, &extent);
  CHECK(lb == 0 && extent == 20 * (MPI_Aint)sizeof(int), "subarray extent %ld",
        (long)extent);
  const int c_picks[6] = {7, 8, 9, 12, 13, 14};
  check_picks(c_order, 1, c_picks, 6, right, left, "subarray C");
  const int c2_picks[12] = {7, 8, 9, 12, 13, 14, 27, 28, 29, 32, 33, 34};
  check_picks(c_order, 2, c2_picks, 12, right, left, "subarray C, count 2");
  const int f_picks[6] = {9, 10, 13, 14, 17, 18};
  check_picks(f_order, 1, f_picks, 6, right, left, "subarray Fortran");
  const int h_picks[8] = {6, 7, 1, 2, 13, 14, 8, 9}; /* extent 7 ints, lb 1 */
  check_picks(hblock, 2, h_picks, 8, right, left, "hindexed_block");
  MPI_Type_free(&c_order);
  MPI_Type_free(&f_order);
  MPI_Type_free(&hblock);
  /* A negative extent: element k of one int at 30 lies at int 30 - 8k. */
  MPI_Datatype at30, backwards;
  MPI_Aint d30 = 30 * sizeof(int), blo, bext;
  int one = 1;
  MPI_Type_create_hindexed(1, &one, &d30, MPI_INT, &at30);
  MPI_Type_create_resized(at30, 0, -8 * (MPI_Aint)sizeof(int), &backwards);
  MPI_Type_get_extent(backwards, &blo, &bext);
  CHECK(blo == 0 && bext == -8 * (MPI_Aint)sizeof(int), "negative extent: %ld %ld", (long)blo,
        (long)bext);
  MPI_Type_commit(&backwards);
  const int b_picks[3] = {30, 22, 14};
  check_picks(backwards, 3, b_picks, 3, right, left, "negative extent");
  MPI_Type_free(&backwards);
  MPI_Type_free(&at30);
#ifdef BDMPI
  /* MPI-1 bound markers { (LB,-1 int), (INT,2 ints), (UB,5 ints) }: lb -1
   * int, extent 6 ints, so count 2 picks ints 2 and 8. */
  int mbl[3] = {1, 1, 1};
  MPI_Aint mdisp[3] = {-(MPI_Aint)sizeof(int), 2 * sizeof(int), 5 * sizeof(int)};
  MPI_Datatype mtypes[3] = {MPI_LB, MPI_INT, MPI_UB}, marked;
  MPI_Type_create_struct(3, mbl, mdisp, mtypes, &marked);
  MPI_Aint mlo, mext;
  MPI_Type_get_extent(marked, &mlo, &mext);
  CHECK(mlo == -(MPI_Aint)sizeof(int) && mext == 6 * (MPI_Aint)sizeof(int),
        "MPI_LB/MPI_UB bounds %ld %ld", (long)mlo, (long)mext);
  MPI_Type_commit(&marked);
  const int m_picks[2] = {2, 8};
  check_picks(marked, 2, m_picks, 2, right, left, "MPI_LB/MPI_UB markers");
  MPI_Type_free(&marked);

  MPI_Datatype hv, st;
  MPI_Type_hvector(2, 1, 3 * sizeof(int), MPI_INT, &hv); /* ints 0, 3 */
  MPI_Aint a0, a1;
  int ints[2];
  MPI_Address(&ints[0], &a0);
  MPI_Address(&ints[1], &a1);
  int bl[1] = {1};
  MPI_Aint disp[1] = {2 * sizeof(int)};
  MPI_Datatype types[1] = {hv};
  MPI_Type_struct(1, bl, disp, types, &st); /* ints 2, 5 */
  MPI_Aint ext, lo, hi;
  MPI_Type_extent(st, &ext);
  MPI_Type_lb(st, &lo);
  MPI_Type_ub(st, &hi);
  CHECK(a1 - a0 == sizeof(int) && ext == 4 * sizeof(int) && lo == 2 * sizeof(int) &&
            hi == 6 * sizeof(int),
        "MPI-1 names: %ld %ld %ld %ld", (long)(a1 - a0), (long)ext, (long)lo, (long)hi);
  MPI_Type_commit(&st);
  const int s_picks[2] = {2, 5};
  check_picks(st, 1, s_picks, 2, right, left, "MPI_Type_struct");
  MPI_Type_free(&st);
  MPI_Type_free(&hv);
#endif
}

static void test_collectives(int rank, int size) {
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec); /* ints 0, 2, 4; extent 5 */
  MPI_Type_commit(&vec);
  int buf[10];
  for (int i = 0; i < 10; ++i) buf[i] = rank == 1 % size ? 100 + i : kSentinel;
  MPI_Bcast(buf, 2, vec, 1 % size, MPI_COMM_WORLD);
  for (int i = 0; i < 10; ++i) {
    int picked = (i % 5) % 2 == 0;
    int want = picked || rank == 1 % size ? 100 + i : kSentinel;
    CHECK(buf[i] == want, "bcast: buf[%d] = %d, want %d", i, buf[i], want);
  }
#ifdef BDMPI
  /* Predefined ops on derived types: an MPICH and BDMPI extension that
   * Open MPI refuses (MPI_ERR_OP), as datatypes.c explains. */
  int in[10], out[10];
  for (int i = 0; i < 10; ++i) {
    in[i] = rank + i;
    out[i] = kSentinel;
  }
  const int sum = size * (size - 1) / 2;
  MPI_Allreduce(in, out, 2, vec, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < 10; ++i) {
    int want = (i % 5) % 2 == 0 ? sum + size * i : kSentinel;
    CHECK(out[i] == want, "allreduce: out[%d] = %d, want %d", i, out[i], want);
  }
  const int root = size - 1;
  for (int i = 0; i < 10; ++i) out[i] = rank == root ? rank + i : kSentinel;
  MPI_Reduce(rank == root ? MPI_IN_PLACE : in, out, 2, vec, MPI_MAX, root,
             MPI_COMM_WORLD);
  for (int i = 0; i < 10; ++i) {
    int want = rank != root ? kSentinel : (i % 5) % 2 == 0 ? size - 1 + i : rank + i;
    CHECK(out[i] == want, "reduce in place: out[%d] = %d, want %d", i, out[i], want);
  }
#endif
  MPI_Type_free(&vec);
}

#ifdef BDMPI
static void check_envelope(MPI_Datatype type, int want_combiner, int want_ints,
                           int want_aints, int want_types, const char *what) {
  int ni = -1, na = -1, nt = -1, combiner = -1;
  MPI_Type_get_envelope(type, &ni, &na, &nt, &combiner);
  CHECK(combiner == want_combiner && ni == want_ints && na == want_aints &&
            nt == want_types,
        "%s: envelope %d (%d, %d, %d), want %d (%d, %d, %d)", what, combiner, ni, na,
        nt, want_combiner, want_ints, want_aints, want_types);
}

static void test_envelopes(void) {
  check_envelope(MPI_INT, MPI_COMBINER_NAMED, 0, 0, 0, "MPI_INT");
  MPI_Datatype vec, st, dup, resized, sub;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  int bl[2] = {2, 1};
  MPI_Aint disp[2] = {0, 64};
  MPI_Datatype types[2] = {vec, MPI_DOUBLE};
  MPI_Type_create_struct(2, bl, disp, types, &st);
  MPI_Type_free(&vec); /* st keeps it */
  check_envelope(st, MPI_COMBINER_STRUCT, 3, 2, 2, "struct");
  int ints[8];
  MPI_Aint aints[4];
  MPI_Datatype inner[4];
  MPI_Type_get_contents(st, 8, 4, 4, ints, aints, inner);
  CHECK(ints[0] == 2 && ints[1] == 2 && ints[2] == 1 && aints[0] == 0 &&
            aints[1] == 64 && inner[1] == MPI_DOUBLE,
        "struct contents %d %d %d %ld %ld", ints[0], ints[1], ints[2], (long)aints[0],
        (long)aints[1]);
  check_envelope(inner[0], MPI_COMBINER_VECTOR, 3, 0, 1, "struct's vector");
  MPI_Type_get_contents(inner[0], 8, 4, 4, ints, aints, inner + 2);
  CHECK(ints[0] == 3 && ints[1] == 1 && ints[2] == 2 && inner[2] == MPI_INT,
        "vector contents %d %d %d", ints[0], ints[1], ints[2]);
  MPI_Type_free(&inner[0]); /* a derived type from get_contents is ours */
  MPI_Type_dup(st, &dup);
  check_envelope(dup, MPI_COMBINER_DUP, 0, 0, 1, "dup");
  MPI_Type_create_resized(st, -8, 100, &resized);
  check_envelope(resized, MPI_COMBINER_RESIZED, 0, 2, 1, "resized");
  MPI_Type_get_contents(resized, 8, 4, 4, ints, aints, inner);
  CHECK(aints[0] == -8 && aints[1] == 100, "resized contents %ld %ld", (long)aints[0],
        (long)aints[1]);
  MPI_Type_free(&inner[0]);
  const int sizes[2] = {4, 5}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &sub);
  check_envelope(sub, MPI_COMBINER_SUBARRAY, 8, 0, 1, "subarray");
  MPI_Type_get_contents(sub, 8, 4, 4, ints, aints, inner);
  CHECK(ints[0] == 2 && ints[1] == 4 && ints[6] == 2 && ints[7] == MPI_ORDER_C &&
            inner[0] == MPI_INT,
        "subarray contents %d %d %d %d", ints[0], ints[1], ints[6], ints[7]);
  MPI_Type_free(&sub);
  MPI_Type_free(&resized);
  MPI_Type_free(&dup);
  MPI_Type_free(&st);
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  test_vector(rank, right, left);
  test_padded_struct(rank, right, left);
  test_indexed_and_resized(rank, right, left);
  test_nonblocking_and_counts(rank, right, left);
  test_bottom(rank, right, left);
  test_pack();
  test_subarray_and_more(right, left);
  test_collectives(rank, size);
#ifdef BDMPI
  test_envelopes();
#endif
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("datatypes_gaps: OK\n");
  MPI_Finalize();
  return 0;
}
