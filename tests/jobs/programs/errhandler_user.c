/*
 * errhandler_user: error handlers a program makes, error codes it adds,
 * and the communicator calls around them.
 *
 *  1. MPI_Comm_create_errhandler: a failing call on the communicator (a send
 *     to a rank outside it) calls the handler with the communicator and an
 *     MPI_ERR_RANK code, and the call returns that code; MPI_Comm_dup
 *     inherits the handler; MPI_Comm_get_errhandler hands it back (freed
 *     after); MPI_Errhandler_free of a handler in use leaves it working;
 *     a handler of MPI_File_create_errhandler is refused (MPI_ERR_ARG).
 *  2. MPI_Comm_call_errhandler calls it with the given code and returns
 *     MPI_SUCCESS (MPI-3.1 8.3.6), also under MPI_ERRORS_RETURN.
 *  3. The MPI-1 names MPI_Errhandler_create/set/get (removed in MPI-3.0:
 *     Open MPI's header leaves them out, BDMPI still has them).
 *  4. MPI_Add_error_class/code/string: codes above MPI_ERR_LASTCODE, their
 *     classes under MPI_Error_class, their strings, MPI_LASTUSEDCODE.
 *  5. MPI_Info_get_string and MPI_Info_create_env (MPI-4),
 *     MPI_Comm_set_info/get_info, and
 *     MPI_Comm_idup / MPI_Comm_idup_with_info (MPI-4; the new communicator
 *     works once the request is complete). The MPI-4 calls are left out
 *     under an MPI-3 library (Open MPI 4.1).
 */
#include "check.h"

static int calls, last_code;
static MPI_Comm last_comm = MPI_COMM_NULL;

static void handler(MPI_Comm *comm, int *code, ...) {
  ++calls;
  last_code = *code;
  last_comm = *comm;
}

static void file_handler(MPI_File *file, int *code, ...) { (void)file, (void)code; }

static void user_handlers(void) {
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_create_errhandler(handler, &eh));
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, eh));
  int size = world_size(), value = 0;
  int rc = MPI_Send(&value, 1, MPI_INT, size, 0, comm);
  CHECK(calls == 1 && last_comm == comm, "handler called %d times", calls);
  CHECK(error_class_of(last_code) == MPI_ERR_RANK, "handler got class %d",
        error_class_of(last_code));
  CHECK(rc == last_code, "the call returned %d, the handler got %d", rc, last_code);
  MPI_Comm copy;
  CHECK_MPI(MPI_Comm_dup(comm, &copy));
  MPI_Errhandler got;
  CHECK_MPI(MPI_Comm_get_errhandler(copy, &got));
  CHECK(got == eh, "the duplicate's handler is not the parent's");
  CHECK_MPI(MPI_Errhandler_free(&got));
  CHECK(got == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free left the handle");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  /* Freed by the program, still the communicators' handler. */
  CHECK_MPI(MPI_Comm_call_errhandler(copy, MPI_ERR_TAG));
  CHECK(calls == 2 && last_code == MPI_ERR_TAG && last_comm == copy,
        "MPI_Comm_call_errhandler: %d calls, code %d", calls, last_code);
  CHECK_MPI(MPI_Comm_set_errhandler(copy, MPI_ERRORS_RETURN));
  rc = MPI_Comm_call_errhandler(copy, MPI_ERR_COUNT);
  CHECK(rc == MPI_SUCCESS && calls == 2, "MPI_ERRORS_RETURN: returned %d", rc);
  /* A handler made for files is refused (MPI_ERR_ARG, as Open MPI does). */
  MPI_Errhandler for_files;
  CHECK_MPI(MPI_File_create_errhandler(file_handler, &for_files));
  CHECK_CLASS(MPI_Comm_set_errhandler(copy, for_files), MPI_ERR_ARG);
  CHECK_MPI(MPI_Errhandler_free(&for_files));
  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK_MPI(MPI_Comm_free(&comm));
}

static void mpi1_names(void) {
#ifdef BDMPI
  MPI_Errhandler eh, got;
  CHECK_MPI(MPI_Errhandler_create(handler, &eh));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_SELF, eh));
  CHECK_MPI(MPI_Errhandler_get(MPI_COMM_SELF, &got));
  CHECK(got == eh, "MPI_Errhandler_get");
  CHECK_MPI(MPI_Errhandler_free(&got));
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_Errhandler_set(MPI_COMM_SELF, MPI_ERRORS_RETURN));
#endif
}

static void added_codes(void) {
  int cls, code, cls_of = -1, len = 0, flag = 0;
  char text[MPI_MAX_ERROR_STRING];
  CHECK_MPI(MPI_Add_error_class(&cls));
  CHECK(cls > MPI_ERR_LASTCODE, "added class %d", cls);
  CHECK_MPI(MPI_Add_error_code(cls, &code));
  CHECK(code > MPI_ERR_LASTCODE && code != cls, "added code %d", code);
  CHECK_MPI(MPI_Error_class(code, &cls_of));
  CHECK(cls_of == cls, "class of the added code: %d, want %d", cls_of, cls);
#ifdef BDMPI /* Open MPI 4.1 gives MPI_ERR_UNKNOWN (MPI-3.1 8.5: the class itself) */
  CHECK_MPI(MPI_Error_class(cls, &cls_of));
  CHECK(cls_of == cls, "class of the added class: %d", cls_of);
#endif
  CHECK_MPI(MPI_Add_error_string(code, "a code of the test's own"));
  CHECK_MPI(MPI_Error_string(code, text, &len));
  CHECK(strcmp(text, "a code of the test's own") == 0 && len == (int)strlen(text),
        "string of the added code: '%s'", text);
  int other;
  CHECK_MPI(MPI_Add_error_code(MPI_ERR_ARG, &other));
  CHECK_MPI(MPI_Error_class(other, &cls_of));
  CHECK(cls_of == MPI_ERR_ARG, "an added code of MPI_ERR_ARG has class %d", cls_of);
  int *last = NULL;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
  CHECK(flag && *last >= other && *last >= code, "MPI_LASTUSEDCODE %d", flag ? *last : -1);
}

static void info_and_idup(void) {
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "bdmpi_test_key", "value"));
#if defined(BDMPI) || MPI_VERSION >= 4
  char value[16];
  int buflen = sizeof value, flag = 0;
  CHECK_MPI(MPI_Info_get_string(info, "bdmpi_test_key", &buflen, value, &flag));
  CHECK(flag && buflen == 6 && strcmp(value, "value") == 0, "MPI_Info_get_string: %d '%s'",
        buflen, value);
  buflen = 3;
  CHECK_MPI(MPI_Info_get_string(info, "bdmpi_test_key", &buflen, value, &flag));
  CHECK(flag && buflen == 6 && strcmp(value, "va") == 0, "a short buffer: %d '%s'", buflen,
        value);
  CHECK_MPI(MPI_Info_get_string(info, "absent", &buflen, value, &flag));
  CHECK(!flag, "an absent key found");
  MPI_Info env;
  CHECK_MPI(MPI_Info_create_env(0, NULL, &env));
  CHECK_MPI(MPI_Info_free(&env));
#endif

  MPI_Comm comm, hinted;
  MPI_Request request;
  CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &comm, &request));
  CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  CHECK(request == MPI_REQUEST_NULL, "the request was not freed");
  int result;
  CHECK_MPI(MPI_Comm_compare(comm, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_CONGRUENT, "idup: compare gives %d", result);
  int sum = 0, one = 1;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == world_size(), "allreduce on the idup'd communicator: %d", sum);
#if defined(BDMPI) || MPI_VERSION >= 4
  CHECK_MPI(MPI_Comm_idup_with_info(comm, info, &hinted, &request));
#else
  CHECK_MPI(MPI_Comm_idup(comm, &hinted, &request));
#endif
  CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Barrier(hinted));
  CHECK_MPI(MPI_Comm_set_info(comm, info));
  MPI_Info used;
  CHECK_MPI(MPI_Comm_get_info(comm, &used));
  CHECK(used != MPI_INFO_NULL, "MPI_Comm_get_info gave MPI_INFO_NULL");
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_Comm_free(&hinted));
  CHECK_MPI(MPI_Comm_free(&comm));
  CHECK_MPI(MPI_Info_free(&info));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  user_handlers();
  mpi1_names();
  added_codes();
  info_and_idup();
  if (world_rank() == 0) printf("errhandler_user: ok\n");
  MPI_Finalize();
  return 0;
}
