// storage_cxx: C++ containers and new[] of large arrays keep their contents
// across blocking MPI calls (under BDMPI with a tiny --node-memory: across
// switch-outs), including a std::vector that grows between the calls.
//
// Usage: storage_cxx [--steps S]
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace {

void Fail(int rank, const char* what, std::size_t index) {
  std::fprintf(stderr, "rank %d: storage_cxx: check failed: %s at %zu\n", rank, what, index);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

std::uint32_t Value(int rank, std::size_t i, int version) {
  std::uint64_t x = (static_cast<std::uint64_t>(rank) << 40) ^ i ^
                    (static_cast<std::uint64_t>(version) << 32);
  x *= 0x9e3779b97f4a7c15ull;
  return static_cast<std::uint32_t>(x >> 29);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int steps = 5;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--steps") == 0) steps = std::atoi(argv[i + 1]);

  const std::size_t n = (3u << 20) / sizeof(double);  // 3 MiB
  std::unique_ptr<double[]> table(new double[n]);
  for (std::size_t i = 0; i < n; ++i) table[i] = rank * 1e6 + static_cast<double>(i);
  std::vector<std::uint32_t> grown;
  for (int step = 0; step < steps; ++step) {
    // Grows by 1 MiB per step, through reallocation by new/delete.
    std::size_t old = grown.size();
    for (std::size_t i = old; i < old + (1u << 18); ++i) grown.push_back(Value(rank, i, 0));
    // Rewrite the table's even elements.
    for (std::size_t i = 0; i < n; i += 2) table[i] += 1.0;
    long long local = static_cast<long long>(grown.size()), total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (total != local * size) Fail(rank, "Allreduce of sizes", 0);
    MPI_Barrier(MPI_COMM_WORLD);
    for (std::size_t i = 0; i < n; ++i) {
      double want = rank * 1e6 + static_cast<double>(i) + (i % 2 == 0 ? step + 1 : 0);
      if (table[i] != want) Fail(rank, "new[] table", i);
    }
    for (std::size_t i = 0; i < grown.size(); ++i)
      if (grown[i] != Value(rank, i, 0)) Fail(rank, "grown vector", i);
  }
  MPI_Finalize();
  return 0;
}
