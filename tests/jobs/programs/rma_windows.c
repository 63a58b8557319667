/*
 * rma_windows.c -- one-sided windows: every way to make one, their
 * attributes, names, info, keyvals, error handlers and groups, shared
 * memory of MPI_Win_allocate_shared, attached regions of a dynamic window.
 *
 * Windows are made over the ranks of one node (MPI_COMM_TYPE_SHARED), so
 * that the program runs on several nodes too.
 */
#include "check.h"

static int deleted = 0;
static int copied_or_deleted_with = 0;

static int count_delete(MPI_Win win, int keyval, void *value, void *extra) {
  (void)win;
  (void)keyval;
  (void)extra;
  deleted++;
  copied_or_deleted_with = *(int *)value;
  return MPI_SUCCESS;
}

static int handler_calls = 0;
static int handler_code = 0;
static MPI_Win handler_win = MPI_WIN_NULL;

static void win_handler(MPI_Win *win, int *code, ...) {
  handler_calls++;
  handler_code = *code;
  handler_win = *win;
}

static void check_attrs(MPI_Win win, void *base, MPI_Aint size, int disp_unit, int flavor) {
  void *got_base = NULL;
  MPI_Aint *got_size = NULL;
  int *got_disp = NULL, *got_flavor = NULL, *got_model = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &got_base, &flag));
  CHECK(flag && got_base == base, "MPI_WIN_BASE %p, want %p", got_base, base);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &got_size, &flag));
  CHECK(flag && *got_size == size, "MPI_WIN_SIZE %ld, want %ld", (long)*got_size, (long)size);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &got_disp, &flag));
  CHECK(flag && *got_disp == disp_unit, "MPI_WIN_DISP_UNIT %d, want %d", *got_disp, disp_unit);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &got_flavor, &flag));
  CHECK(flag && *got_flavor == flavor, "MPI_WIN_CREATE_FLAVOR %d, want %d", *got_flavor, flavor);
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &got_model, &flag));
  CHECK(flag && (*got_model == MPI_WIN_UNIFIED || *got_model == MPI_WIN_SEPARATE),
        "MPI_WIN_MODEL %d", *got_model);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm node;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int rank = rank_in(node), size = size_of(node);

  /* MPI_Win_create over program memory. */
  int *mem = xmalloc(100 * sizeof(int));
  MPI_Win win;
  CHECK_MPI(MPI_Win_create(mem, 100 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &win));
  check_attrs(win, mem, 100 * sizeof(int), sizeof(int), MPI_WIN_FLAVOR_CREATE);

  /* Names. */
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK(len == (int)strlen(name), "name length %d for '%s'", len, name);
  CHECK_MPI(MPI_Win_set_name(win, "my window"));
  CHECK_MPI(MPI_Win_get_name(win, name, &len));
  CHECK(strcmp(name, "my window") == 0 && len == 9, "name '%s' (%d)", name, len);

  /* The group is the communicator's. */
  MPI_Group wgroup, cgroup;
  int result;
  CHECK_MPI(MPI_Win_get_group(win, &wgroup));
  CHECK_MPI(MPI_Comm_group(node, &cgroup));
  CHECK_MPI(MPI_Group_compare(wgroup, cgroup, &result));
  CHECK(result == MPI_IDENT, "window group compares %d to the communicator's", result);
  MPI_Group_free(&wgroup);
  MPI_Group_free(&cgroup);

  /* Info: the hints in use; a hint that comes back has the value set
   * (Open MPI returns none of them). */
  MPI_Info info, used;
  MPI_Info_create(&info);
  MPI_Info_set(info, "no_locks", "false");
  CHECK_MPI(MPI_Win_set_info(win, info));
  CHECK_MPI(MPI_Win_get_info(win, &used));
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  CHECK_MPI(MPI_Info_get(used, "no_locks", MPI_MAX_INFO_VAL, value, &flag));
  CHECK(!flag || strcmp(value, "false") == 0, "no_locks hint '%s'", value);
  MPI_Info_free(&used);
  MPI_Info_free(&info);

  /* Keyvals and attributes, with the delete callback at MPI_Win_free. */
  int keyval, attr_value = 42 + rank;
  CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &keyval, NULL));
  CHECK_MPI(MPI_Win_set_attr(win, keyval, &attr_value));
  int *got = NULL;
  CHECK_MPI(MPI_Win_get_attr(win, keyval, &got, &flag));
  CHECK(flag && got == &attr_value, "user attribute %p flag %d", (void *)got, flag);

  /* Error handlers: ERRORS_ARE_FATAL by default; a user handler gets the
   * window and the code. */
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Win_get_errhandler(win, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "default window error handler is not ERRORS_ARE_FATAL");
  MPI_Errhandler_free(&eh);
  CHECK_MPI(MPI_Win_create_errhandler(win_handler, &eh));
  CHECK_MPI(MPI_Win_set_errhandler(win, eh));
  CHECK_MPI(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
  CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER && handler_win == win,
        "handler calls %d code %d", handler_calls, handler_code);
  /* An error of a call goes there too. */
  int rc = MPI_Win_lock(99, 0, 0, win);
  CHECK(error_class_of(rc) == MPI_ERR_LOCKTYPE && handler_calls == 2 &&
            handler_code == MPI_ERR_LOCKTYPE,
        "bad lock type: class %d, %d calls, code %d", error_class_of(rc), handler_calls,
        handler_code);
  MPI_Errhandler_free(&eh);

  CHECK_MPI(MPI_Win_free(&win));
  CHECK(win == MPI_WIN_NULL, "MPI_Win_free left the handle");
  CHECK(deleted == 1 && copied_or_deleted_with == 42 + rank, "delete callback ran %d times", deleted);
  CHECK_MPI(MPI_Win_free_keyval(&keyval));
  free(mem);

  /* MPI_Win_allocate: the memory is the window's, aligned for doubles. */
  double *dmem = NULL;
  MPI_Aint bytes = (MPI_Aint)(rank + 1) * 1000 * sizeof(double);
  CHECK_MPI(MPI_Win_allocate(bytes, sizeof(double), MPI_INFO_NULL, node, &dmem, &win));
  CHECK(dmem != NULL && ((uintptr_t)dmem % sizeof(double)) == 0, "allocated base %p", (void *)dmem);
  check_attrs(win, dmem, bytes, sizeof(double), MPI_WIN_FLAVOR_ALLOCATE);
  for (int i = 0; i < (rank + 1) * 1000; ++i) dmem[i] = rank * 1e6 + i;
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int i = 0; i < (rank + 1) * 1000; ++i)
    CHECK(dmem[i] == rank * 1e6 + i, "allocated memory changed at %d", i);
  CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  CHECK_MPI(MPI_Win_free(&win));

  /* MPI_Win_allocate_shared: contiguous, every rank loads and stores
   * the others' memory. */
  long *shared = NULL;
  CHECK_MPI(MPI_Win_allocate_shared((MPI_Aint)(rank + 1) * sizeof(long), sizeof(long),
                                    MPI_INFO_NULL, node, &shared, &win));
  check_attrs(win, shared, (rank + 1) * sizeof(long), sizeof(long), MPI_WIN_FLAVOR_SHARED);
  for (int i = 0; i <= rank; ++i) shared[i] = 1000 * rank + i;
  CHECK_MPI(MPI_Win_fence(0, win));
  long *first = NULL;
  MPI_Aint qsize;
  int qdisp;
  CHECK_MPI(MPI_Win_shared_query(win, 0, &qsize, &qdisp, &first));
  CHECK(qsize == sizeof(long) && qdisp == sizeof(long), "rank 0: size %ld unit %d", (long)qsize,
        qdisp);
  long *p = first;
  for (int r = 0; r < size; ++r) {
    long *q = NULL;
    CHECK_MPI(MPI_Win_shared_query(win, r, &qsize, &qdisp, &q));
    CHECK(q == p, "rank %d's memory at %p, contiguous would be %p", r, (void *)q, (void *)p);
    CHECK(qsize == (MPI_Aint)((r + 1) * sizeof(long)), "rank %d's size %ld", r, (long)qsize);
    for (int i = 0; i <= r; ++i) CHECK(q[i] == 1000 * r + i, "rank %d's [%d] = %ld", r, i, q[i]);
    p += r + 1;
  }
  CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &qdisp, &p));
  CHECK(p == first, "MPI_PROC_NULL: %p, want rank 0's %p", (void *)p, (void *)first);
  CHECK_MPI(MPI_Win_fence(0, win));
  /* Stores into the next rank's memory, seen by it after a fence. */
  int next = (rank + 1) % size;
  long *theirs = NULL;
  CHECK_MPI(MPI_Win_shared_query(win, next, &qsize, &qdisp, &theirs));
  theirs[0] = -rank;
  CHECK_MPI(MPI_Win_fence(0, win));
  int prev = (rank + size - 1) % size;
  CHECK(shared[0] == -prev, "shared[0] %ld, want %d", shared[0], -prev);
  CHECK_MPI(MPI_Win_free(&win));

  /* A dynamic window: its base is MPI_BOTTOM; regions come and go. */
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, node, &win));
  check_attrs(win, MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
  int *region = xmalloc(64 * sizeof(int));
  for (int i = 0; i < 64; ++i) region[i] = rank * 100 + i;
  CHECK_MPI(MPI_Win_attach(win, region, 64 * sizeof(int)));
  MPI_Aint address, *addresses = xmalloc((size_t)size * sizeof(MPI_Aint));
  CHECK_MPI(MPI_Get_address(region, &address));
  CHECK_MPI(MPI_Allgather(&address, 1, MPI_AINT, addresses, 1, MPI_AINT, node));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  int got_value[4];
  CHECK_MPI(MPI_Get(got_value, 4, MPI_INT, next, addresses[next] + 8 * sizeof(int), 4, MPI_INT,
                    win));
  CHECK_MPI(MPI_Win_flush(next, win));
  for (int i = 0; i < 4; ++i)
    CHECK(got_value[i] == next * 100 + 8 + i, "dynamic get [%d] = %d", i, got_value[i]);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_detach(win, region));
  CHECK_MPI(MPI_Win_free(&win));
  free(region);
  free(addresses);

  MPI_Comm_free(&node);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) printf("rma_windows: OK\n");
  MPI_Finalize();
  return 0;
}
