/*
 * errhandler: error handlers and error classes.
 *
 *  - MPI_COMM_WORLD starts with MPI_ERRORS_ARE_FATAL; MPI_Comm_get_errhandler
 *    returns whatever MPI_Comm_set_errhandler last set.
 *  - Every error class the standard defines is its own class under
 *    MPI_Error_class, lies in 1..MPI_ERR_LASTCODE, and has a non-empty,
 *    terminated MPI_Error_string shorter than MPI_MAX_ERROR_STRING.
 *  - An error code returned by a failing call maps to its class and has a
 *    string too (implementations may return codes other than the class).
 */
#include "check.h"

#define C(x) \
  { x, #x }
static const struct {
  int cls;
  const char *name;
} kClasses[] = {
    C(MPI_ERR_BUFFER),
    C(MPI_ERR_COUNT),
    C(MPI_ERR_TYPE),
    C(MPI_ERR_TAG),
    C(MPI_ERR_COMM),
    C(MPI_ERR_RANK),
    C(MPI_ERR_REQUEST),
    C(MPI_ERR_ROOT),
    C(MPI_ERR_GROUP),
    C(MPI_ERR_OP),
    C(MPI_ERR_TOPOLOGY),
    C(MPI_ERR_DIMS),
    C(MPI_ERR_ARG),
    C(MPI_ERR_UNKNOWN),
    C(MPI_ERR_TRUNCATE),
    C(MPI_ERR_OTHER),
    C(MPI_ERR_INTERN),
    C(MPI_ERR_IN_STATUS),
    C(MPI_ERR_PENDING),
    C(MPI_ERR_KEYVAL),
    C(MPI_ERR_NO_MEM),
    C(MPI_ERR_BASE),
    C(MPI_ERR_INFO_KEY),
    C(MPI_ERR_INFO_VALUE),
    C(MPI_ERR_INFO_NOKEY),
    C(MPI_ERR_SPAWN),
    C(MPI_ERR_PORT),
    C(MPI_ERR_SERVICE),
    C(MPI_ERR_NAME),
    C(MPI_ERR_WIN),
    C(MPI_ERR_SIZE),
    C(MPI_ERR_DISP),
    C(MPI_ERR_INFO),
    C(MPI_ERR_LOCKTYPE),
    C(MPI_ERR_ASSERT),
    C(MPI_ERR_RMA_CONFLICT),
    C(MPI_ERR_RMA_SYNC),
    C(MPI_ERR_RMA_RANGE),
    C(MPI_ERR_RMA_ATTACH),
    C(MPI_ERR_RMA_SHARED),
    C(MPI_ERR_RMA_FLAVOR),
    C(MPI_ERR_FILE),
    C(MPI_ERR_NOT_SAME),
    C(MPI_ERR_AMODE),
    C(MPI_ERR_UNSUPPORTED_DATAREP),
    C(MPI_ERR_UNSUPPORTED_OPERATION),
    C(MPI_ERR_NO_SUCH_FILE),
    C(MPI_ERR_FILE_EXISTS),
    C(MPI_ERR_BAD_FILE),
    C(MPI_ERR_ACCESS),
    C(MPI_ERR_NO_SPACE),
    C(MPI_ERR_QUOTA),
    C(MPI_ERR_READ_ONLY),
    C(MPI_ERR_FILE_IN_USE),
    C(MPI_ERR_DUP_DATAREP),
    C(MPI_ERR_CONVERSION),
    C(MPI_ERR_IO),
};
#undef C
enum { kNumClasses = sizeof kClasses / sizeof kClasses[0] };

static void check_string(int code, const char *name) {
  char text[MPI_MAX_ERROR_STRING + 1];
  memset(text, 'X', sizeof text);
  int len = -1;
  CHECK_MPI(MPI_Error_string(code, text, &len));
  CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && text[len] == '\0' &&
            strlen(text) == (size_t)len,
        "MPI_Error_string(%s) gave length %d for a %zu-char string", name, len,
        strnlen(text, sizeof text));
}

static void check_handler(MPI_Errhandler want, const char *name) {
  MPI_Errhandler got = MPI_ERRHANDLER_NULL;
  CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
  CHECK(got == want, "MPI_Comm_get_errhandler did not return %s", name);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  check_handler(MPI_ERRORS_ARE_FATAL, "the default MPI_ERRORS_ARE_FATAL");
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  check_handler(MPI_ERRORS_RETURN, "MPI_ERRORS_RETURN after setting it");
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  check_handler(MPI_ERRORS_ARE_FATAL, "MPI_ERRORS_ARE_FATAL after setting it");
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  check_handler(MPI_ERRORS_RETURN, "MPI_ERRORS_RETURN after setting it again");

  int cls = -1;
  CHECK_MPI(MPI_Error_class(MPI_SUCCESS, &cls));
  CHECK(cls == MPI_SUCCESS, "class of MPI_SUCCESS is %d", cls);
  check_string(MPI_SUCCESS, "MPI_SUCCESS");
  for (int i = 0; i < kNumClasses; ++i) {
    const int want = kClasses[i].cls;
    CHECK(want > MPI_SUCCESS && want <= MPI_ERR_LASTCODE,
          "%s = %d is outside 1..MPI_ERR_LASTCODE (%d)", kClasses[i].name, want,
          MPI_ERR_LASTCODE);
    cls = -1;
    CHECK_MPI(MPI_Error_class(want, &cls));
    CHECK(cls == want, "MPI_Error_class(%s) = %d, want %d", kClasses[i].name,
          cls, want);
    check_string(want, kClasses[i].name);
  }

  /* Codes that real failures return. */
  int buf = 0;
  const int size = world_size();
  const int rank_code = MPI_Send(&buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
  CHECK(error_class_of(rank_code) == MPI_ERR_RANK, "bad rank gave code %d",
        rank_code);
  check_string(rank_code, "code of a bad-rank send");
  const int tag_code = MPI_Send(&buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
  CHECK(error_class_of(tag_code) == MPI_ERR_TAG, "bad tag gave code %d",
        tag_code);
  check_string(tag_code, "code of a bad-tag send");

  MPI_Finalize();
  return 0;
}
