/*
 * attributes: attribute caching on communicators and datatypes.
 *
 *  1. MPI_COMM_WORLD's predefined attributes: MPI_TAG_UB >= 32767, MPI_HOST,
 *     MPI_IO, MPI_WTIME_IS_GLOBAL present; MPI_UNIVERSE_SIZE and MPI_APPNUM
 *     read when given.
 *  2. A keyval with counting copy and delete callbacks: set, get, replace
 *     (the delete callback sees the old value), MPI_Comm_dup runs the copy
 *     callback (and the copy sees the copied value), MPI_Comm_free runs the
 *     delete callback, MPI_Comm_delete_attr runs it and the value is gone.
 *  3. MPI_COMM_NULL_COPY_FN is not copied, MPI_COMM_DUP_FN is; a keyval
 *     freed while an attribute uses it keeps working for that attribute,
 *     (get, delete, and the delete callback when its communicator is
 *     freed), and may be freed again until that attribute is gone (as in a
 *     delete callback that frees its keyval, MPICH's keyval_double_free).
 *  4. A copy callback that fails makes MPI_Comm_dup fail with its code
 *     (MPI_ERRORS_RETURN).
 *  5. The MPI-1 names: MPI_Keyval_create, MPI_Attr_put/get/delete,
 *     MPI_Keyval_free, MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN.
 *  6. Datatype attributes: MPI_Type_create_keyval, set/get, MPI_Type_dup
 *     copies (MPI_TYPE_DUP_FN), MPI_Type_free deletes; a comm keyval on a
 *     datatype is an error (MPI_ERR_KEYVAL in BDMPI, MPI_ERR_OTHER in Open
 *     MPI).
 *  7. MPI_COMM_SELF attributes are deleted at MPI_Finalize, the last set
 *     first (checked after MPI_Finalize: the exit status tells).
 */
#include "check.h"

static int copies, deletes;
static void *last_deleted;

static int count_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out,
                      int *flag) {
  (void)comm, (void)keyval;
  CHECK(extra == &copies, "extra_state %p, want %p", extra, (void *)&copies);
  ++copies;
  *(void **)out = (char *)in + 1; /* the copy's value tells it is a copy */
  *flag = 1;
  return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm, (void)keyval, (void)extra;
  ++deletes;
  last_deleted = value;
  return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out,
                        int *flag) {
  (void)comm, (void)keyval, (void)extra, (void)in, (void)out, (void)flag;
  return MPI_ERR_OTHER;
}

static int type_deletes;
static int type_delete(MPI_Datatype type, int keyval, void *value, void *extra) {
  (void)type, (void)keyval, (void)value, (void)extra;
  ++type_deletes;
  return MPI_SUCCESS;
}

/* The order MPI_COMM_SELF's attributes are deleted in at MPI_Finalize. */
static int self_order[2], self_deleted;
static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)keyval, (void)extra;
  if (comm == MPI_COMM_SELF && self_deleted < 2) self_order[self_deleted] = (int)(intptr_t)value;
  ++self_deleted;
  return MPI_SUCCESS;
}

static void *get(MPI_Comm comm, int keyval, int *flag) {
  void *value = NULL;
  CHECK_MPI(MPI_Comm_get_attr(comm, keyval, &value, flag));
  return value;
}

static void predefined(void) {
  int flag = 0;
  int *value = (int *)get(MPI_COMM_WORLD, MPI_TAG_UB, &flag);
  CHECK(flag && *value >= 32767, "MPI_TAG_UB: flag %d", flag);
  int keys[] = {MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL};
  for (int i = 0; i < 3; ++i) {
    get(MPI_COMM_WORLD, keys[i], &flag);
    CHECK(flag, "predefined attribute %d missing", i);
  }
  value = (int *)get(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &flag);
  CHECK(!flag || *value >= 1, "MPI_UNIVERSE_SIZE %d", flag ? *value : 0);
  value = (int *)get(MPI_COMM_WORLD, MPI_APPNUM, &flag);
  CHECK(!flag || *value >= 0, "MPI_APPNUM %d", flag ? *value : 0);
}

static void callbacks(void) {
  static char base[4];
  int keyval = MPI_KEYVAL_INVALID, keyval2 = MPI_KEYVAL_INVALID, flag = 0;
  CHECK_MPI(MPI_Comm_create_keyval(count_copy, count_delete, &keyval, &copies));
  CHECK_MPI(MPI_Comm_create_keyval(count_copy, count_delete, &keyval2, &copies));
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  get(comm, keyval, &flag);
  CHECK(!flag, "an attribute before any was set");
  CHECK_MPI(MPI_Comm_set_attr(comm, keyval, base));
  CHECK(get(comm, keyval, &flag) == base && flag, "get after set");
  CHECK_MPI(MPI_Comm_set_attr(comm, keyval, base + 2));
  CHECK(deletes == 1 && last_deleted == base, "replacing: %d deletes", deletes);
  MPI_Comm copy;
  CHECK_MPI(MPI_Comm_dup(comm, &copy));
  CHECK(copies == 1, "%d copies after dup, want 1", copies);
  CHECK(get(copy, keyval, &flag) == base + 3 && flag, "the copy's value");
  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK(deletes == 2 && last_deleted == base + 3, "free: %d deletes", deletes);
  CHECK_MPI(MPI_Comm_delete_attr(comm, keyval));
  CHECK(deletes == 3 && last_deleted == base + 2, "delete_attr: %d deletes", deletes);
  get(comm, keyval, &flag);
  CHECK(!flag, "an attribute after delete_attr");
  /* A keyval freed while in use still deletes its attribute later. */
  CHECK_MPI(MPI_Comm_set_attr(comm, keyval, base + 1));
  int freed = keyval;
#ifdef BDMPI /* Open MPI refuses the second free */
  int again = keyval;
#endif
  CHECK_MPI(MPI_Comm_free_keyval(&freed));
  CHECK(freed == MPI_KEYVAL_INVALID, "free_keyval left %d", freed);
#ifdef BDMPI
  CHECK_MPI(MPI_Comm_free_keyval(&again));
#endif
  /* The freed keyval still gets and deletes its attribute. */
  CHECK(get(comm, keyval, &flag) == base + 1 && flag, "get with a freed keyval");
  CHECK_MPI(MPI_Comm_delete_attr(comm, keyval));
  CHECK(deletes == 4 && last_deleted == base + 1, "delete with a freed keyval: %d", deletes);
  CHECK_MPI(MPI_Comm_set_attr(comm, keyval2, base + 1));
  CHECK_MPI(MPI_Comm_free(&comm));
  CHECK(deletes == 5 && last_deleted == base + 1, "freed keyval: %d deletes", deletes);
  CHECK_MPI(MPI_Comm_free_keyval(&keyval2));
}

static void predefined_callbacks(void) {
  int null_key, dup_key, flag = 0;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                                   &null_key, NULL));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dup_key, NULL));
  MPI_Comm comm, copy;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_attr(comm, null_key, &flag));
  CHECK_MPI(MPI_Comm_set_attr(comm, dup_key, &copies));
  CHECK_MPI(MPI_Comm_dup(comm, &copy));
  get(copy, null_key, &flag);
  CHECK(!flag, "MPI_COMM_NULL_COPY_FN copied");
  CHECK(get(copy, dup_key, &flag) == &copies && flag, "MPI_COMM_DUP_FN did not copy");
  /* A failing copy callback fails the dup with its code. */
  int bad_key;
  CHECK_MPI(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &bad_key, NULL));
  CHECK_MPI(MPI_Comm_set_attr(comm, bad_key, NULL));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  MPI_Comm never = MPI_COMM_NULL;
  int rc = MPI_Comm_dup(comm, &never);
  CHECK(rc != MPI_SUCCESS, "MPI_Comm_dup succeeded with a failing copy callback");
  CHECK_MPI(MPI_Comm_delete_attr(comm, bad_key));
  CHECK_MPI(MPI_Comm_free_keyval(&bad_key));
  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK_MPI(MPI_Comm_free(&comm));
  CHECK_MPI(MPI_Comm_free_keyval(&null_key));
  CHECK_MPI(MPI_Comm_free_keyval(&dup_key));
}

static void mpi1_names(void) {
  int keyval, flag = 0, value = 7;
  CHECK_MPI(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &keyval, NULL));
  MPI_Comm comm, copy;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Attr_put(comm, keyval, &value));
  int *got = NULL;
  CHECK_MPI(MPI_Attr_get(comm, keyval, &got, &flag));
  CHECK(flag && got == &value, "MPI_Attr_get");
  CHECK_MPI(MPI_Comm_dup(comm, &copy));
  CHECK_MPI(MPI_Attr_get(copy, keyval, &got, &flag));
  CHECK(flag && got == &value, "MPI_DUP_FN");
  CHECK_MPI(MPI_Attr_delete(copy, keyval));
  CHECK_MPI(MPI_Attr_get(copy, keyval, &got, &flag));
  CHECK(!flag, "MPI_Attr_delete");
  int null_key;
  CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &null_key, NULL));
  CHECK_MPI(MPI_Keyval_free(&null_key));
  CHECK_MPI(MPI_Keyval_free(&keyval));
  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK_MPI(MPI_Comm_free(&comm));
}

static void type_attributes(void) {
  int keyval, flag = 0, value = 3;
  CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_delete, &keyval, NULL));
  MPI_Datatype type, copy;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &type));
  CHECK_MPI(MPI_Type_set_attr(type, keyval, &value));
  int *got = NULL;
  CHECK_MPI(MPI_Type_get_attr(type, keyval, &got, &flag));
  CHECK(flag && got == &value, "MPI_Type_get_attr");
  CHECK_MPI(MPI_Type_dup(type, &copy));
  got = NULL;
  CHECK_MPI(MPI_Type_get_attr(copy, keyval, &got, &flag));
  CHECK(flag && got == &value, "MPI_Type_dup did not copy the attribute");
  CHECK_MPI(MPI_Type_free(&copy));
  CHECK(type_deletes == 1, "%d type deletes after free, want 1", type_deletes);
  CHECK_MPI(MPI_Type_delete_attr(type, keyval));
  CHECK(type_deletes == 2, "%d type deletes after delete_attr, want 2", type_deletes);
  CHECK_MPI(MPI_Type_free(&type));
  CHECK_MPI(MPI_Type_free_keyval(&keyval));
  /* A communicator keyval is no datatype keyval. */
  int comm_key;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_key,
                                   NULL));
#ifdef BDMPI
  CHECK_CLASS(MPI_Type_set_attr(MPI_INT, comm_key, &value), MPI_ERR_KEYVAL);
#else
  CHECK(MPI_Type_set_attr(MPI_INT, comm_key, &value) != MPI_SUCCESS,
        "a communicator keyval set a datatype attribute");
#endif
  CHECK_MPI(MPI_Comm_free_keyval(&comm_key));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  predefined();
  callbacks();
  predefined_callbacks();
  mpi1_names();
  type_attributes();
  int first, second;
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &first, NULL));
  CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &second, NULL));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, first, (void *)(intptr_t)1));
  CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, second, (void *)(intptr_t)2));
  CHECK_MPI(MPI_Comm_free_keyval(&first));
  CHECK_MPI(MPI_Comm_free_keyval(&second));
  int rank = world_rank();
  MPI_Finalize();
  if (self_deleted != 2 || self_order[0] != 2 || self_order[1] != 1) {
    fprintf(stderr, "rank %d: MPI_COMM_SELF attributes deleted %d times, in order %d %d "
            "(want 2, 2 1)\n", rank, self_deleted, self_order[0], self_order[1]);
    return 1;
  }
  if (rank == 0) printf("attributes: ok\n");
  return 0;
}
