/* A program linked with libbdmpi, shared or static (spawn_test). */
#include <mpi.h>

int main(int argc, char** argv) {
  if (argc > 99) MPI_Init(&argc, &argv);
  return 0;
}
