/*
 * mpi41: MPI-4.1's additions and MPI-4.0's hardware split types.
 *
 *  1. Every library: a buffered send through MPI_Buffer_attach's buffer,
 *     whose detach gives the buffer back, and MPI_Request_get_status,
 *     which leaves the request for MPI_Wait (the baseline the 4.1 calls
 *     extend; the only part Open MPI 4.1 runs).
 *  2. MPI_Status_get/set_source, _tag, _error, and MPI_ERR_ARG for a null
 *     status.
 *  3. MPI_Request_get_status_all, _any and _some on a receive, a send and
 *     a null request: complete with the right statuses, no request freed,
 *     MPI_UNDEFINED when no request is active, MPI_ERR_COUNT for a
 *     negative count.
 *  4. MPI_Remove_error_string, _code and _class, in that order only
 *     (MPI_ERR_ARG otherwise), and added values given out again many
 *     times over (MPICH's adderr does 10000 rounds).
 *  5. MPI_Type_get_value_index: the MINLOC/MAXLOC pair types, and
 *     MPI_DATATYPE_NULL for a pair without one; MPI_COMBINER_VALUE_INDEX.
 *  6. MPI_Get_hw_resource_info: "hwloc://<type>" keys valued "true" or
 *     "false", "hwloc://Machine" true; MPI_Comm_split_type's
 *     MPI_COMM_TYPE_HW_GUIDED ("mpi_shared_memory" is the node, a type the
 *     info says true splits by node, one it says false gives
 *     MPI_COMM_NULL, an unknown one MPI_COMM_NULL), _RESOURCE_GUIDED by
 *     "mpi_pset_name" (mpi://WORLD, mpi://SELF) and _HW_UNGUIDED (strict
 *     subsets: by node across nodes, MPI_COMM_NULL within one); hints
 *     that differ between ranks give MPI_COMM_NULL, and a rank may pass
 *     MPI_UNDEFINED beside the others' guided type.
 *  7. Buffers attached to a communicator and to a session: a buffered send
 *     uses the communicator's, else its session's (communicators made from
 *     a session's group, and their duplicates), else the process's; a
 *     message that does not fit fails with MPI_ERR_BUFFER; flush, iflush
 *     and detach; MPI_BUFFER_AUTOMATIC has no limit and detaches as itself
 *     with size 0.
 *
 *  8. The names of the null handles (MPI_COMM_NULL, MPI_DATATYPE_NULL,
 *     MPI_WIN_NULL), and the handle conversions as functions one may take
 *     the address of (MPI-4.1 allows no macros for them); MPI_Alloc_mem
 *     with MPI-4.0's hint mpi_minimum_memory_alignment.
 *
 * Parts 2-8 need MPI-4.1 (or BDMPI, which has them): under Open MPI 4.1
 * (MPI 3.1) the program runs part 1 only.
 */
#include <mpi.h>

#include "check.h"

#if defined(BDMPI) || MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
#define HAVE_MPI41 1
#else
#define HAVE_MPI41 0
#endif

enum { kTag = 41, kInts = 16 };

static int rank, size;

/* Rank r sends its ring neighbour right kInts ints valued r * 1000 + i by
 * MPI_Bsend on comm; each rank receives from its left and checks. */
static void bsend_ring(MPI_Comm comm) {
  int me = rank_in(comm), n = size_of(comm);
  int out[kInts], in[kInts];
  for (int i = 0; i < kInts; ++i) out[i] = me * 1000 + i;
  MPI_Request recv;
  CHECK_MPI(MPI_Irecv(in, kInts, MPI_INT, (me + n - 1) % n, kTag, comm, &recv));
  CHECK_MPI(MPI_Bsend(out, kInts, MPI_INT, (me + 1) % n, kTag, comm));
  CHECK_MPI(MPI_Wait(&recv, MPI_STATUS_IGNORE));
  int left = (me + n - 1) % n;
  for (int i = 0; i < kInts; ++i)
    CHECK(in[i] == left * 1000 + i, "bsend ring: element %d is %d, want %d", i, in[i],
          left * 1000 + i);
}

enum { kRoom = kInts * (int)sizeof(int) + MPI_BSEND_OVERHEAD };

static void baseline(void) {
  static char buffer[4 * kRoom];
  CHECK_MPI(MPI_Buffer_attach(buffer, (int)sizeof buffer));
  bsend_ring(MPI_COMM_WORLD);
  void *back = NULL;
  int back_size = 0;
  CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == buffer && back_size == (int)sizeof buffer,
        "MPI_Buffer_detach gave %p, %d; want %p, %d", back, back_size, (void *)buffer,
        (int)sizeof buffer);

  int value = rank, got = -1;
  MPI_Request req;
  CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, kTag, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Send(&value, 1, MPI_INT, (rank + 1) % size, kTag, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int flag = 0;
  MPI_Status st;
  while (!flag) CHECK_MPI(MPI_Request_get_status(req, &flag, &st));
  CHECK(req != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
  CHECK(st.MPI_SOURCE == (rank + size - 1) % size, "source %d", st.MPI_SOURCE);
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(got == (rank + size - 1) % size, "received %d", got);
}

#if HAVE_MPI41

static void statuses(void) {
  MPI_Status st;
  memset(&st, 0, sizeof st);
  CHECK_MPI(MPI_Status_set_source(&st, 7));
  CHECK_MPI(MPI_Status_set_tag(&st, 123));
  CHECK_MPI(MPI_Status_set_error(&st, MPI_ERR_TAG));
  int source = -1, tag = -1, error = -1;
  CHECK_MPI(MPI_Status_get_source(&st, &source));
  CHECK_MPI(MPI_Status_get_tag(&st, &tag));
  CHECK_MPI(MPI_Status_get_error(&st, &error));
  CHECK(source == 7 && st.MPI_SOURCE == 7, "source %d", source);
  CHECK(tag == 123 && st.MPI_TAG == 123, "tag %d", tag);
  CHECK(error == MPI_ERR_TAG && st.MPI_ERROR == MPI_ERR_TAG, "error %d", error);
  CHECK_CLASS(MPI_Status_get_source(MPI_STATUS_IGNORE, &source), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Status_set_tag(MPI_STATUS_IGNORE, 1), MPI_ERR_ARG);
}

static void get_status_of_several(void) {
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int out = rank * 10, in = -1;
  MPI_Request reqs[3];
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, left, kTag, MPI_COMM_WORLD, &reqs[0]));
  reqs[1] = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, right, kTag, MPI_COMM_WORLD, &reqs[2]));
  /* Every rank has sent: the requests complete without another call. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  int index = -1, flag = 0;
  MPI_Status st;
  while (!flag) CHECK_MPI(MPI_Request_get_status_any(3, reqs, &index, &flag, &st));
  CHECK(index == 0 || index == 2, "get_status_any: index %d", index);
  if (index == 0) CHECK(st.MPI_SOURCE == left && st.MPI_TAG == kTag, "any: source %d", st.MPI_SOURCE);

  MPI_Status all[3];
  flag = 0;
  while (!flag) CHECK_MPI(MPI_Request_get_status_all(3, reqs, &flag, all));
  CHECK(all[0].MPI_SOURCE == left && all[0].MPI_TAG == kTag, "all: source %d tag %d",
        all[0].MPI_SOURCE, all[0].MPI_TAG);
  CHECK(all[1].MPI_SOURCE == MPI_ANY_SOURCE && all[1].MPI_TAG == MPI_ANY_TAG,
        "all: the null request's status is not empty (%d, %d)", all[1].MPI_SOURCE,
        all[1].MPI_TAG);
  CHECK(in == left * 10, "received %d before MPI_Wait, want %d", in, left * 10);

  int outcount = -1, indices[3];
  MPI_Status some[3];
  CHECK_MPI(MPI_Request_get_status_some(3, reqs, &outcount, indices, some));
  CHECK(outcount == 2 && indices[0] == 0 && indices[1] == 2,
        "get_status_some: %d complete (%d, %d), want 0 and 2", outcount, indices[0],
        indices[1]);
  CHECK(some[0].MPI_SOURCE == left, "some: source %d", some[0].MPI_SOURCE);
  CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[2] != MPI_REQUEST_NULL,
        "a get_status call freed a request");
  CHECK_MPI(MPI_Waitall(3, reqs, all));
  CHECK(all[0].MPI_SOURCE == left, "MPI_Waitall after the get_status calls: source %d",
        all[0].MPI_SOURCE);

  /* No active request: _any says so at once, _some with MPI_UNDEFINED. */
  flag = 0;
  CHECK_MPI(MPI_Request_get_status_any(3, reqs, &index, &flag, &st));
  CHECK(flag && index == MPI_UNDEFINED, "any of null requests: flag %d index %d", flag, index);
  CHECK_MPI(MPI_Request_get_status_some(3, reqs, &outcount, indices, some));
  CHECK(outcount == MPI_UNDEFINED, "some of null requests: outcount %d", outcount);
  CHECK_MPI(MPI_Request_get_status_all(3, reqs, &flag, MPI_STATUSES_IGNORE));
  CHECK(flag, "all of null requests: not complete");
  CHECK_CLASS(MPI_Request_get_status_all(-1, reqs, &flag, all), MPI_ERR_COUNT);
}

static void remove_errors(void) {
  int lastcode = 0, found = 0, *attr = NULL;
  for (int round = 0; round < 1000; ++round) {
    int cls, codes[3];
    CHECK_MPI(MPI_Add_error_class(&cls));
    for (int i = 0; i < 3; ++i) {
      CHECK_MPI(MPI_Add_error_code(cls, &codes[i]));
      CHECK_MPI(MPI_Add_error_string(codes[i], "an added code"));
    }
    CHECK_MPI(MPI_Add_error_string(cls, "an added class"));
    if (round == 0) {
      /* Out of order: the code's string first, the codes before the class. */
      CHECK_CLASS(MPI_Remove_error_code(codes[0]), MPI_ERR_ARG);
      CHECK_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG);
      CHECK_CLASS(MPI_Remove_error_string(MPI_ERR_TAG), MPI_ERR_ARG);
      CHECK_CLASS(MPI_Remove_error_code(MPI_ERR_TAG), MPI_ERR_ARG);
      CHECK_CLASS(MPI_Remove_error_class(MPI_ERR_TAG), MPI_ERR_ARG);
      CHECK_CLASS(MPI_Remove_error_code(cls), MPI_ERR_ARG);
    }
    for (int i = 0; i < 3; ++i) {
      CHECK_MPI(MPI_Remove_error_string(codes[i]));
      if (round == 0) CHECK_CLASS(MPI_Remove_error_string(codes[i]), MPI_ERR_ARG);
      CHECK_MPI(MPI_Remove_error_code(codes[i]));
    }
    /* The class's own string goes before the class, as a code's. */
    if (round == 0) CHECK_CLASS(MPI_Remove_error_class(cls), MPI_ERR_ARG);
    CHECK_MPI(MPI_Remove_error_string(cls));
    CHECK_MPI(MPI_Remove_error_class(cls));
    if (round == 0) {
      int got = -1;
      CHECK(MPI_Error_class(codes[0], &got) != MPI_SUCCESS, "a removed code still has class %d",
            got);
      CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &attr, &found));
      lastcode = *attr;
    }
  }
  /* The values were given out again: the last used code did not grow. */
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &attr, &found));
  CHECK(found && *attr <= lastcode + 4, "MPI_LASTUSEDCODE grew to %d from %d", *attr, lastcode);
}

static void value_index(void) {
  static const struct {
    MPI_Datatype value, index, pair;
  } cases[] = {
      {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},   {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
      {MPI_LONG, MPI_INT, MPI_LONG_INT},     {MPI_INT, MPI_INT, MPI_2INT},
      {MPI_SHORT, MPI_INT, MPI_SHORT_INT},   {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
      {MPI_INT, MPI_DOUBLE, MPI_DATATYPE_NULL}, {MPI_CHAR, MPI_INT, MPI_DATATYPE_NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    MPI_Datatype pair = MPI_BYTE;
    CHECK_MPI(MPI_Type_get_value_index(cases[i].value, cases[i].index, &pair));
    CHECK(pair == cases[i].pair, "MPI_Type_get_value_index case %zu: wrong pair type", i);
  }
  MPI_Datatype pair;
  CHECK_CLASS(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &pair), MPI_ERR_TYPE);
  /* The predefined pair types are named; MPI-4.1's combiner of a made pair
   * type exists (mpi4py looks for it) and is no other combiner. */
  int integers = -1, addresses = -1, types = -1, combiner = -1;
  CHECK_MPI(MPI_Type_get_envelope(MPI_FLOAT_INT, &integers, &addresses, &types, &combiner));
  CHECK(combiner == MPI_COMBINER_NAMED, "MPI_FLOAT_INT's combiner is %d", combiner);
  CHECK(MPI_COMBINER_VALUE_INDEX != MPI_COMBINER_NAMED &&
            MPI_COMBINER_VALUE_INDEX != MPI_COMBINER_HINDEXED_BLOCK &&
            MPI_COMBINER_VALUE_INDEX != MPI_COMBINER_RESIZED,
        "MPI_COMBINER_VALUE_INDEX is %d", MPI_COMBINER_VALUE_INDEX);
}

/* The value of a key of MPI_Get_hw_resource_info's info: 1 true, 0 false,
 * -1 absent. */
static int hw_value(MPI_Info hw, const char *key) {
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  CHECK_MPI(MPI_Info_get(hw, key, MPI_MAX_INFO_VAL, value, &flag));
  if (!flag) return -1;
  CHECK(strcmp(value, "true") == 0 || strcmp(value, "false") == 0, "%s = \"%s\"", key, value);
  return strcmp(value, "true") == 0;
}

static MPI_Comm split_with(int split_type, const char *key, const char *value) {
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  if (key != NULL) CHECK_MPI(MPI_Info_set(info, key, value));
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, split_type, rank, info, &comm));
  CHECK_MPI(MPI_Info_free(&info));
  return comm;
}

/* Whether comm holds the same ranks of MPI_COMM_WORLD as `want`. */
static int same_members(MPI_Comm comm, MPI_Comm want) {
  int result = MPI_UNEQUAL;
  MPI_Group a, b;
  CHECK_MPI(MPI_Comm_group(comm, &a));
  CHECK_MPI(MPI_Comm_group(want, &b));
  CHECK_MPI(MPI_Group_compare(a, b, &result));
  MPI_Group_free(&a);
  MPI_Group_free(&b);
  return result == MPI_IDENT;
}

static void hardware(void) {
  MPI_Info hw;
  CHECK_MPI(MPI_Get_hw_resource_info(&hw));
  int nkeys = 0;
  CHECK_MPI(MPI_Info_get_nkeys(hw, &nkeys));
  CHECK(nkeys > 0, "MPI_Get_hw_resource_info gave no keys");
  for (int i = 0; i < nkeys; ++i) {
    char key[MPI_MAX_INFO_KEY + 1];
    CHECK_MPI(MPI_Info_get_nthkey(hw, i, key));
    CHECK(strncmp(key, "hwloc://", 8) == 0, "key \"%s\" is not hwloc://<type>", key);
    hw_value(hw, key);
  }
  CHECK(hw_value(hw, "hwloc://Machine") == 1, "hwloc://Machine is not true");
  int core = hw_value(hw, "hwloc://Core");
  CHECK(core >= 0, "no hwloc://Core");

  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_Comm comm = split_with(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "mpi_shared_memory");
  CHECK(comm != MPI_COMM_NULL && same_members(comm, node), "HW_GUIDED mpi_shared_memory");
  MPI_Comm_free(&comm);
  comm = split_with(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "hwloc://Machine");
  CHECK(comm != MPI_COMM_NULL && same_members(comm, node), "HW_GUIDED hwloc://Machine");
  MPI_Comm_free(&comm);
  comm = split_with(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "Core");
  if (core == 1) {
    CHECK(comm != MPI_COMM_NULL && same_members(comm, node), "HW_GUIDED Core on one core");
    MPI_Comm_free(&comm);
  } else {
    CHECK(comm == MPI_COMM_NULL, "HW_GUIDED Core: the rank is not within one core");
  }
  comm = split_with(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "no-such-resource");
  CHECK(comm == MPI_COMM_NULL, "HW_GUIDED with an unknown type");
  comm = split_with(MPI_COMM_TYPE_HW_GUIDED, NULL, NULL);
  CHECK(comm == MPI_COMM_NULL, "HW_GUIDED without the info key");
  comm = split_with(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type", "mpi_shared_memory");
  CHECK(comm != MPI_COMM_NULL && same_members(comm, node), "RESOURCE_GUIDED shared memory");
  MPI_Comm_free(&comm);
  comm = split_with(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://WORLD");
  CHECK(comm != MPI_COMM_NULL && same_members(comm, MPI_COMM_WORLD), "RESOURCE_GUIDED world");
  MPI_Comm_free(&comm);
  comm = split_with(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://SELF");
  CHECK(comm != MPI_COMM_NULL && same_members(comm, MPI_COMM_SELF), "RESOURCE_GUIDED self");
  MPI_Comm_free(&comm);

  /* Hints that differ between ranks are ignored: MPI_COMM_NULL everywhere. */
  comm = split_with(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type",
                    rank % 2 == 0 ? "mpi_shared_memory" : "hwloc://Machine");
  CHECK(size == 1 ? comm != MPI_COMM_NULL : comm == MPI_COMM_NULL,
        "RESOURCE_GUIDED with different hints on different ranks");
  if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  /* A rank may pass MPI_UNDEFINED while the others pass a guided type. */
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_HW_GUIDED,
                                rank, info, &comm));
  CHECK_MPI(MPI_Info_free(&info));
  if (rank == 0) {
    CHECK(comm == MPI_COMM_NULL, "MPI_UNDEFINED beside HW_GUIDED gave a communicator");
  } else {
    CHECK(comm != MPI_COMM_NULL, "HW_GUIDED beside a rank's MPI_UNDEFINED gave MPI_COMM_NULL");
    MPI_Comm_free(&comm);
  }

  /* Unguided: strict subsets, by node when the job spans nodes. The info
   * passed in learns the resource type (MPI 4.1 7.4.2), as the new
   * communicator's does (mpi4py's testSplitTypeHWUnguided reads it there). */
  int node_size = size_of(node);
  MPI_Info asked;
  CHECK_MPI(MPI_Info_create(&asked));
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, asked, &comm));
  if (node_size < size) {
    CHECK(comm != MPI_COMM_NULL && same_members(comm, node), "HW_UNGUIDED across nodes");
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    CHECK_MPI(MPI_Info_get(asked, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcmp(value, "hwloc://Machine") == 0, "HW_UNGUIDED's type in the info given");
    MPI_Info used;
    CHECK_MPI(MPI_Comm_get_info(comm, &used));
    flag = 0;
    CHECK_MPI(MPI_Info_get(used, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, value, &flag));
    CHECK(flag && strcmp(value, "hwloc://Machine") == 0, "HW_UNGUIDED's resource type");
    MPI_Info_free(&used);
    MPI_Comm finer;
    CHECK_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &finer));
    CHECK(finer == MPI_COMM_NULL, "HW_UNGUIDED within a node split again");
    MPI_Comm_free(&comm);
  } else {
    CHECK(comm == MPI_COMM_NULL, "HW_UNGUIDED within one node");
  }
  CHECK_MPI(MPI_Info_free(&asked));
  MPI_Comm_free(&node);
  MPI_Info_free(&hw);
}

/* A buffered send of kInts ints to oneself on comm, received at once:
 * MPI_SUCCESS or the call's error. */
static int bsend_self(MPI_Comm comm, int seed) {
  int out[kInts], in[kInts];
  for (int i = 0; i < kInts; ++i) out[i] = seed + i;
  int me = rank_in(comm);
  int rc = MPI_Bsend(out, kInts, MPI_INT, me, kTag, comm);
  if (rc != MPI_SUCCESS) return rc;
  CHECK_MPI(MPI_Recv(in, kInts, MPI_INT, me, kTag, comm, MPI_STATUS_IGNORE));
  for (int i = 0; i < kInts; ++i) CHECK(in[i] == seed + i, "bsend to self: element %d", i);
  return MPI_SUCCESS;
}

static void attached_buffers(void) {
  /* The process's buffer holds the ring's message (its receiver may not have
   * taken it yet) and one more. */
  static char process_buffer[2 * kRoom], comm_buffer[2 * kRoom], session_buffer[kRoom];
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);

  /* No buffer anywhere: MPI_ERR_BUFFER. */
  CHECK_CLASS(bsend_self(dup, 1), MPI_ERR_BUFFER);
  /* The communicator's buffer holds two messages until they are received;
   * its messages do not use the process's. */
  CHECK_MPI(MPI_Comm_attach_buffer(dup, comm_buffer, (int)sizeof comm_buffer));
  CHECK_CLASS(MPI_Comm_attach_buffer(dup, comm_buffer, (int)sizeof comm_buffer), MPI_ERR_BUFFER);
  int out[kInts] = {0}, in[kInts];
  CHECK_MPI(MPI_Bsend(out, kInts, MPI_INT, rank, kTag, dup));
  CHECK_MPI(MPI_Bsend(out, kInts, MPI_INT, rank, kTag, dup));
  CHECK_CLASS(MPI_Bsend(out, kInts, MPI_INT, rank, kTag, dup), MPI_ERR_BUFFER);
  MPI_Request flush;
  CHECK_MPI(MPI_Comm_iflush_buffer(dup, &flush));
  CHECK_MPI(MPI_Recv(in, kInts, MPI_INT, rank, kTag, dup, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Recv(in, kInts, MPI_INT, rank, kTag, dup, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&flush, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Comm_flush_buffer(dup));
  CHECK(bsend_self(dup, 2) == MPI_SUCCESS, "bsend with the communicator's buffer");
  /* The process's buffer is for the other communicators. */
  CHECK_MPI(MPI_Buffer_attach(process_buffer, (int)sizeof process_buffer));
  bsend_ring(MPI_COMM_WORLD);
  void *back = NULL;
  int back_size = 0;
  CHECK_MPI(MPI_Comm_detach_buffer(dup, &back, &back_size));
  CHECK(back == comm_buffer && back_size == (int)sizeof comm_buffer,
        "MPI_Comm_detach_buffer gave %p, %d", back, back_size);
  CHECK_CLASS(MPI_Comm_detach_buffer(dup, &back, &back_size), MPI_ERR_BUFFER);
  /* Without its own, the communicator's sends use the process's. */
  CHECK(bsend_self(dup, 3) == MPI_SUCCESS, "bsend with the process's buffer");
  CHECK_MPI(MPI_Buffer_flush());
  CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == process_buffer, "MPI_Buffer_detach gave another buffer");
  /* Automatic: no limit, detached as MPI_BUFFER_AUTOMATIC of size 0. */
  CHECK_MPI(MPI_Comm_attach_buffer(dup, MPI_BUFFER_AUTOMATIC, 0));
  for (int i = 0; i < 8; ++i) CHECK_MPI(MPI_Bsend(out, kInts, MPI_INT, rank, kTag, dup));
  for (int i = 0; i < 8; ++i)
    CHECK_MPI(MPI_Recv(in, kInts, MPI_INT, rank, kTag, dup, MPI_STATUS_IGNORE));
  MPI_Count wide = -1;
  CHECK_MPI(MPI_Comm_detach_buffer_c(dup, &back, &wide));
  CHECK(back == MPI_BUFFER_AUTOMATIC && wide == 0, "automatic detach gave %p, %lld", back,
        (long long)wide);
  CHECK_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
  CHECK(bsend_self(dup, 4) == MPI_SUCCESS, "bsend with the process's automatic buffer");
  CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == MPI_BUFFER_AUTOMATIC && back_size == 0, "automatic process detach");
  /* A freed communicator's buffer goes with it. */
  CHECK_MPI(MPI_Comm_attach_buffer(dup, comm_buffer, (int)sizeof comm_buffer));
  CHECK_MPI(MPI_Comm_free(&dup));

  /* A session's buffer serves its communicators and their duplicates. */
  MPI_Session session;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
  MPI_Group group;
  CHECK_MPI(MPI_Group_from_session_pset(session, "mpi://WORLD", &group));
  MPI_Comm scomm, sdup;
  CHECK_MPI(MPI_Comm_create_from_group(group, "mpi41.buffers", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                       &scomm));
  CHECK_MPI(MPI_Comm_dup(scomm, &sdup));
  CHECK_CLASS(bsend_self(sdup, 5), MPI_ERR_BUFFER);
  CHECK_MPI(MPI_Session_attach_buffer(session, session_buffer, (int)sizeof session_buffer));
  CHECK(bsend_self(scomm, 6) == MPI_SUCCESS, "bsend with the session's buffer");
  CHECK(bsend_self(sdup, 7) == MPI_SUCCESS, "bsend on a duplicate with the session's buffer");
  /* One message fits: a second before the first is received does not. */
  CHECK_MPI(MPI_Bsend(out, kInts, MPI_INT, rank, kTag, sdup));
  CHECK_CLASS(MPI_Bsend(out, kInts, MPI_INT, rank, kTag, sdup), MPI_ERR_BUFFER);
  CHECK_MPI(MPI_Session_iflush_buffer(session, &flush));
  CHECK_MPI(MPI_Recv(in, kInts, MPI_INT, rank, kTag, sdup, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Wait(&flush, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Session_flush_buffer(session));
  /* MPI_COMM_WORLD is not the session's: it has no buffer. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_CLASS(bsend_self(MPI_COMM_WORLD, 8), MPI_ERR_BUFFER);
  CHECK_MPI(MPI_Session_detach_buffer(session, &back, &back_size));
  CHECK(back == session_buffer && back_size == (int)sizeof session_buffer,
        "MPI_Session_detach_buffer gave %p, %d", back, back_size);
  CHECK_MPI(MPI_Session_attach_buffer_c(session, MPI_BUFFER_AUTOMATIC, 0));
  bsend_ring(sdup);
  CHECK_MPI(MPI_Session_detach_buffer_c(session, &back, &wide));
  CHECK(back == MPI_BUFFER_AUTOMATIC && wide == 0, "automatic session detach");
  CHECK_CLASS(MPI_Session_detach_buffer(session, &back, &back_size), MPI_ERR_BUFFER);
  CHECK_MPI(MPI_Comm_free(&sdup));
  CHECK_MPI(MPI_Comm_free(&scomm));
  CHECK_MPI(MPI_Group_free(&group));
  CHECK_MPI(MPI_Session_finalize(&session));
}

static void null_names_and_conversions(void) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_NULL, name, &len));
  CHECK(strcmp(name, "MPI_COMM_NULL") == 0 && len == 13, "MPI_COMM_NULL's name \"%s\" (%d)",
        name, len);
  CHECK_MPI(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
  CHECK(strcmp(name, "MPI_DATATYPE_NULL") == 0 && len == 17,
        "MPI_DATATYPE_NULL's name \"%s\" (%d)", name, len);
  CHECK_MPI(MPI_Win_get_name(MPI_WIN_NULL, name, &len));
  CHECK(strcmp(name, "MPI_WIN_NULL") == 0 && len == 12, "MPI_WIN_NULL's name \"%s\" (%d)", name,
        len);
  MPI_Fint (*comm_c2f)(MPI_Comm) = MPI_Comm_c2f;
  MPI_Comm (*comm_f2c)(MPI_Fint) = MPI_Comm_f2c;
  MPI_Datatype (*type_f2c)(MPI_Fint) = MPI_Type_f2c;
  CHECK(comm_f2c(comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD &&
            type_f2c(MPI_Type_c2f(MPI_INT)) == MPI_INT,
        "a handle converted to Fortran and back is another");
  MPI_Info aligned;
  CHECK_MPI(MPI_Info_create(&aligned));
  CHECK_MPI(MPI_Info_set(aligned, "mpi_minimum_memory_alignment", "4096"));
  double *block = NULL;
  CHECK_MPI(MPI_Alloc_mem(1000 * sizeof(double), aligned, &block));
  CHECK(block != NULL && (uintptr_t)block % 4096 == 0, "MPI_Alloc_mem aligned to 4096: %p",
        (void *)block);
  block[999] = 1.0;
  CHECK_MPI(MPI_Free_mem(block));
  CHECK_MPI(MPI_Info_free(&aligned));
}

#endif /* HAVE_MPI41 */

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  baseline();
#if HAVE_MPI41
  statuses();
  get_status_of_several();
  remove_errors();
  value_index();
  hardware();
  attached_buffers();
  null_names_and_conversions();
#endif
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
