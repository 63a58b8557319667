/*
 * thread_level: the environment calls a program asks about itself.
 *
 *   * MPI_Init_thread(MPI_THREAD_MULTIPLE): `provided` is a level, the one
 *     MPI_Query_thread reports (BDMPI: MPI_THREAD_MULTIPLE; with
 *     --capped, run with BDMPI_THREAD_LEVEL=funneled, MPI_THREAD_FUNNELED);
 *     MPI_Is_thread_main is true in the main thread, false in another;
 *     an MPI_Send from another thread reaches the main thread, except under
 *     BDMPI capped to FUNNELED, where it fails (MPI_ERR_OTHER).
 *   * MPI_Get_version, MPI_Get_library_version, MPI_Pcontrol.
 *   * MPI_Alloc_mem/MPI_Free_mem of a small and a large (16 MiB) block,
 *     written and read back whole.
 */
#include <pthread.h>

#include "check.h"

static void *ask_is_main(void *result) {
  MPI_Is_thread_main((int *)result);
  return NULL;
}

static void *send_from_thread(void *rc) {
  int value = 1;
  *(int *)rc = MPI_Send(&value, 1, MPI_INT, world_rank(), 99, MPI_COMM_WORLD);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1, queried = -2, is_main = -1, other_is_main = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
        "provided %d is no thread level", provided);
  const int capped = arg_flag(argc, argv, "--capped");
  const int want = capped ? MPI_THREAD_FUNNELED : MPI_THREAD_MULTIPLE;
  (void)want;
#ifdef BDMPI
  CHECK(provided == want, "BDMPI provided %d, want %d", provided, want);
#endif
  MPI_Query_thread(&queried);
  CHECK(queried == provided, "MPI_Query_thread %d, MPI_Init_thread provided %d", queried,
        provided);
  MPI_Is_thread_main(&is_main);
  CHECK(is_main, "MPI_Is_thread_main false in the main thread");
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, ask_is_main, &other_is_main) == 0, "pthread_create");
  pthread_join(thread, NULL);
  CHECK(other_is_main == 0, "MPI_Is_thread_main %d in another thread", other_is_main);
  if (provided == MPI_THREAD_MULTIPLE) {
    /* Another thread's send reaches this one. */
    int other_rc = -1, got = 0;
    CHECK(pthread_create(&thread, NULL, send_from_thread, &other_rc) == 0, "pthread_create");
    pthread_join(thread, NULL);
    CHECK_MPI(other_rc);
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, world_rank(), 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == 1, "received %d from the other thread's send", got);
  }
#ifdef BDMPI
  if (capped) {
    /* FUNNELED: a call from another thread is refused with an error. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int other_rc = MPI_SUCCESS;
    CHECK(pthread_create(&thread, NULL, send_from_thread, &other_rc) == 0, "pthread_create");
    pthread_join(thread, NULL);
    CHECK(error_class_of(other_rc) == MPI_ERR_OTHER,
          "MPI_Send from another thread returned class %d, want MPI_ERR_OTHER",
          error_class_of(other_rc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }
#endif

  int version = 0, subversion = -1;
  MPI_Get_version(&version, &subversion);
  CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION,
        "MPI_Get_version %d.%d, mpi.h says %d.%d", version, subversion, MPI_VERSION,
        MPI_SUBVERSION);
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = -1;
  MPI_Get_library_version(library, &len);
  CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && library[0] != '\0',
        "MPI_Get_library_version length %d", len);
  CHECK_MPI(MPI_Pcontrol(0));
  CHECK_MPI(MPI_Pcontrol(1));

  const size_t sizes[] = {16, (size_t)16 << 20};
  for (int i = 0; i < 2; ++i) {
    unsigned char *block = NULL;
    CHECK_MPI(MPI_Alloc_mem((MPI_Aint)sizes[i], MPI_INFO_NULL, &block));
    CHECK(block != NULL, "MPI_Alloc_mem gave NULL");
    fill_pattern(block, sizes[i], (uint64_t)world_rank() + sizes[i]);
    CHECK_PATTERN(block, sizes[i], (uint64_t)world_rank() + sizes[i], "MPI_Alloc_mem block");
    CHECK_MPI(MPI_Free_mem(block));
  }

  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
