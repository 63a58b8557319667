/*
 * header: the parts of mpi.h that real programs use besides sending and
 * receiving: constants and types, versions and thread queries, the
 * predefined attributes, info objects, memory and addresses, handle
 * conversions, packing, the send modes, MPI_Sendrecv_replace, names,
 * MPI_Dims_create. Each must compile and behave as MPI specifies.
 */
#include "check.h"

static void test_environment(int size) {
  int version = 0, subversion = -1, len = 0, provided = -1, flag = -1;
  MPI_Get_version(&version, &subversion);
  CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION && version >= 3,
        "MPI_Get_version %d.%d, header %d.%d", version, subversion,
        MPI_VERSION, MPI_SUBVERSION);
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Get_library_version(library, &len);
  CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && library[0] != 0,
        "library version of length %d", len);
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Get_processor_name(host, &len);
  CHECK(len > 0 && (int)strlen(host) == len, "processor name '%s'", host);
  MPI_Query_thread(&provided);
  CHECK(provided == MPI_THREAD_SINGLE, "MPI_Query_thread gave %d", provided);
  MPI_Is_thread_main(&flag);
  CHECK(flag == 1, "MPI_Is_thread_main gave %d", flag);
  CHECK(MPI_Pcontrol(0) == MPI_SUCCESS, "MPI_Pcontrol failed");
  const double t0 = MPI_Wtime(), tick = MPI_Wtick();
  CHECK(tick > 0 && tick < 1 && MPI_Wtime() >= t0, "MPI_Wtick %g", tick);

  int *value = NULL;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
  CHECK(flag && *value >= 32767, "MPI_TAG_UB: flag %d", flag);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &value, &flag);
  CHECK(!flag || *value == 0 || *value == 1, "MPI_WTIME_IS_GLOBAL %d",
        *value);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &value, &flag);
  CHECK(!flag || *value == MPI_PROC_NULL || (*value >= 0 && *value < size),
        "MPI_HOST %d", *value);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &value, &flag);
  CHECK(!flag || *value == MPI_ANY_SOURCE || *value == MPI_PROC_NULL ||
            (*value >= 0 && *value < size),
        "MPI_IO %d", *value);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &value, &flag);
  CHECK(!flag || *value >= 1, "MPI_UNIVERSE_SIZE %d", *value);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &value, &flag);
  CHECK(!flag || *value >= 0, "MPI_APPNUM %d", *value);

  int inter = -1;
  MPI_Comm_test_inter(MPI_COMM_WORLD, &inter);
  CHECK(inter == 0, "MPI_COMM_WORLD is an intercommunicator?");
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "name of MPI_COMM_WORLD: '%s'",
        name);
  MPI_Comm_set_name(MPI_COMM_WORLD, "world");
  MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
  CHECK(strcmp(name, "world") == 0 && len == 5, "renamed: '%s'", name);
}

static void test_info(void) {
  MPI_Info info, copy;
  char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
  int flag = -1, nkeys = -1, len = -1;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_nodes", "4");
  MPI_Info_set(info, "striping_unit", "1048576");
  MPI_Info_set(info, "cb_nodes", "8"); /* replaces */
  MPI_Info_get_nkeys(info, &nkeys);
  CHECK(nkeys == 2, "info has %d keys", nkeys);
  MPI_Info_get(info, "cb_nodes", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag && strcmp(value, "8") == 0, "cb_nodes = '%s' (flag %d)", value,
        flag);
  MPI_Info_get(info, "striping_unit", 3, value, &flag);
  CHECK(flag && strcmp(value, "104") == 0, "truncated value '%s'", value);
  MPI_Info_get_valuelen(info, "striping_unit", &len, &flag);
  CHECK(flag && len == 7, "valuelen %d", len);
  MPI_Info_get(info, "absent", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag == 0, "absent key found");
  int seen = 0;
  for (int n = 0; n < nkeys; ++n) {
    MPI_Info_get_nthkey(info, n, key);
    seen += strcmp(key, "cb_nodes") == 0 || strcmp(key, "striping_unit") == 0;
  }
  CHECK(seen == 2, "nthkey named %d of the 2 keys", seen);
  MPI_Info_dup(info, &copy);
  MPI_Info_delete(info, "cb_nodes");
  MPI_Info_get_nkeys(info, &nkeys);
  CHECK(nkeys == 1, "after delete: %d keys", nkeys);
  MPI_Info_get(copy, "cb_nodes", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag && strcmp(value, "8") == 0, "the dup lost cb_nodes");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Info_delete(info, "cb_nodes"), MPI_ERR_INFO_NOKEY);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Info_free(&info);
  MPI_Info_free(&copy);
  CHECK(info == MPI_INFO_NULL && copy == MPI_INFO_NULL,
        "MPI_Info_free did not null the handles");

  double *mem = NULL;
  MPI_Alloc_mem(100 * sizeof(double), MPI_INFO_NULL, &mem);
  CHECK(mem != NULL, "MPI_Alloc_mem gave NULL");
  for (int i = 0; i < 100; ++i) mem[i] = i;
  MPI_Free_mem(mem);
}

static void test_addresses_and_handles(void) {
  struct {
    int a;
    double b[3];
  } s;
  MPI_Aint base, at_b;
  MPI_Get_address(&s, &base);
  MPI_Get_address(&s.b[1], &at_b);
  CHECK(MPI_Aint_diff(at_b, base) == (MPI_Aint)((char *)&s.b[1] - (char *)&s),
        "MPI_Aint_diff");
  CHECK(MPI_Aint_add(base, MPI_Aint_diff(at_b, base)) == at_b, "MPI_Aint_add");
  MPI_Offset offset = 1LL << 40;
  MPI_Count count = 1LL << 40;
  CHECK(offset == count && sizeof(MPI_Fint) >= 4, "MPI_Offset / MPI_Count");
  CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD,
        "MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD))");
  CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "MPI_Type_f2c");
  CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "MPI_Op_f2c");
  CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL,
        "MPI_Request_f2c");
  CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL,
        "MPI_Info_f2c");
  CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY,
        "MPI_Group_f2c");
  CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) ==
            MPI_ERRORS_RETURN,
        "MPI_Errhandler_f2c");
  CHECK(MPI_BOTTOM == (void *)0 || MPI_BOTTOM != (void *)0, "MPI_BOTTOM");
}

static void test_send_modes(int rank, int size) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  /* Pack an int and three doubles, send them as MPI_PACKED. */
  int isz = 0, dsz = 0, position = 0;
  MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &isz);
  MPI_Pack_size(3, MPI_DOUBLE, MPI_COMM_WORLD, &dsz);
  CHECK(isz >= (int)sizeof(int) && dsz >= 3 * (int)sizeof(double),
        "MPI_Pack_size %d %d", isz, dsz);
  char *packed = xmalloc((size_t)(isz + dsz)), *got = xmalloc((size_t)(isz + dsz));
  int i_out = rank * 7;
  double d_out[3] = {rank + 0.5, rank + 1.5, rank + 2.5};
  MPI_Pack(&i_out, 1, MPI_INT, packed, isz + dsz, &position, MPI_COMM_WORLD);
  MPI_Pack(d_out, 3, MPI_DOUBLE, packed, isz + dsz, &position, MPI_COMM_WORLD);
  MPI_Status st;
  MPI_Sendrecv(packed, position, MPI_PACKED, right, 1, got, isz + dsz,
               MPI_PACKED, left, 1, MPI_COMM_WORLD, &st);
  int received = 0;
  MPI_Get_count(&st, MPI_PACKED, &received);
  int i_in = -1, in_pos = 0;
  double d_in[3] = {0, 0, 0};
  MPI_Unpack(got, received, &in_pos, &i_in, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Unpack(got, received, &in_pos, d_in, 3, MPI_DOUBLE, MPI_COMM_WORLD);
  CHECK(i_in == left * 7 && d_in[0] == left + 0.5 && d_in[2] == left + 2.5,
        "unpacked %d %g %g", i_in, d_in[0], d_in[2]);
  CHECK(in_pos == position, "unpacked %d of %d bytes", in_pos, position);
  free(packed);
  free(got);

  /* MPI_Sendrecv_replace around the ring. */
  int ring[4] = {rank, rank + 1, rank + 2, rank + 3};
  MPI_Sendrecv_replace(ring, 4, MPI_INT, right, 2, left, 2, MPI_COMM_WORLD,
                       &st);
  CHECK(ring[0] == left && ring[3] == left + 3 && st.MPI_SOURCE == left,
        "Sendrecv_replace gave %d..%d from %d", ring[0], ring[3],
        st.MPI_SOURCE);
  int flag = -1;
  MPI_Test_cancelled(&st, &flag);
  CHECK(flag == 0, "a received message reports cancelled");

  /* Buffered sends with an attached buffer; ready sends to a posted
   * receive. */
  int bsize = 4 * ((int)sizeof(int) + MPI_BSEND_OVERHEAD);
  char *bbuf = xmalloc((size_t)bsize);
  MPI_Buffer_attach(bbuf, bsize);
  int b_out[2] = {rank, -rank}, b_in[2] = {0, 0}, r_in[2] = {0, 0};
  MPI_Request reqs[4];
  MPI_Irecv(&r_in[0], 1, MPI_INT, left, 5, MPI_COMM_WORLD, &reqs[0]);
  MPI_Irecv(&r_in[1], 1, MPI_INT, left, 6, MPI_COMM_WORLD, &reqs[1]);
  MPI_Barrier(MPI_COMM_WORLD); /* every ready send finds its receive */
  MPI_Bsend(&b_out[0], 1, MPI_INT, right, 3, MPI_COMM_WORLD);
  MPI_Ibsend(&b_out[1], 1, MPI_INT, right, 4, MPI_COMM_WORLD, &reqs[2]);
  MPI_Rsend(&b_out[0], 1, MPI_INT, right, 5, MPI_COMM_WORLD);
  MPI_Irsend(&b_out[1], 1, MPI_INT, right, 6, MPI_COMM_WORLD, &reqs[3]);
  MPI_Recv(&b_in[0], 1, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Recv(&b_in[1], 1, MPI_INT, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
  CHECK(b_in[0] == left && b_in[1] == -left && r_in[0] == left &&
            r_in[1] == -left,
        "buffered/ready sends gave %d %d %d %d", b_in[0], b_in[1], r_in[0],
        r_in[1]);
  void *detached = NULL;
  int detached_size = 0;
  MPI_Buffer_detach(&detached, &detached_size);
  CHECK(detached == bbuf && detached_size == bsize,
        "MPI_Buffer_detach gave back %p (%d bytes)", detached, detached_size);
  free(bbuf);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void check_dims(int nnodes, int ndims, const int *given,
                       const int *want) {
  int dims[4];
  for (int d = 0; d < ndims; ++d) dims[d] = given[d];
  MPI_Dims_create(nnodes, ndims, dims);
  for (int d = 0; d < ndims; ++d)
    CHECK(dims[d] == want[d], "Dims_create(%d, %d): dim %d is %d, want %d",
          nnodes, ndims, d, dims[d], want[d]);
}

static void test_dims(void) {
  check_dims(12, 2, (int[]){0, 0}, (int[]){4, 3});
  check_dims(16, 3, (int[]){0, 0, 0}, (int[]){4, 2, 2});
  check_dims(6, 2, (int[]){0, 3}, (int[]){2, 3});
  check_dims(7, 2, (int[]){0, 0}, (int[]){7, 1});
  check_dims(1, 3, (int[]){0, 0, 0}, (int[]){1, 1, 1});
  check_dims(24, 3, (int[]){0, 0, 0}, (int[]){4, 3, 2});
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int dims[2] = {0, 5};
  CHECK_CLASS(MPI_Dims_create(12, 2, dims), MPI_ERR_DIMS);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank(), size = world_size();
  test_environment(size);
  test_info();
  test_addresses_and_handles();
  test_send_modes(rank, size);
  test_dims();
  MPI_Finalize();
  return 0;
}
