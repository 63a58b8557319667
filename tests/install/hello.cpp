// hello.cpp -- the C++ counterpart of hello.c, compiled with the installed
// bdmpicxx and CMake package: checks that mpi.h works from C++ code.
#include <mpi.h>

#include <algorithm>
#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::cout << "hello from rank " << rank << " of " << size << std::endl;

  std::vector<long> mine(4, rank);
  std::vector<long> sums(mine.size());
  MPI_Allreduce(mine.data(), sums.data(), static_cast<int>(mine.size()),
                MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  const long expected = static_cast<long>(size) * (size - 1) / 2;
  const bool ok = std::all_of(sums.begin(), sums.end(),
                              [&](long s) { return s == expected; });
  if (rank == 0) {
    std::cout << "hello: allreduce " << (ok ? "ok" : "WRONG") << std::endl;
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}
