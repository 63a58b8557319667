/*
 * fail_segv: one rank (--rank R, default the last) writes through a NULL
 * pointer after a barrier, while the others block in MPI_Recv from it.
 * Expected: the job fails; under bdmpiexec with exit status 128 + SIGSEGV
 * (139) and a message naming the rank.
 */
#include <signal.h>
#include <sys/resource.h>

#include "check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (is_failing_rank(argc, argv)) {
    /* No core file: the crash is the point, not something to debug. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    fprintf(stderr, "fail_segv: writing through NULL on purpose\n");
    fflush(stderr);
    /* Both volatile: through a volatile pointer variable the compiler cannot
     * prove the pointer NULL (and emit a trap, SIGILL, instead), and GCC 12
     * at -O2 still dropped a store to a non-volatile int through it. */
    volatile int *volatile null_ptr = NULL;
    *null_ptr = 42;
    raise(SIGSEGV);
    survived_failure("fail_segv", "SIGSEGV");
  }
  MPI_Finalize();
  return 0;
}
