// heap_blocks: a rank's data held in small heap objects (malloc blocks of
// a fixed or mixed size, a std::map, a vector of vectors) keeps its
// contents, bit for bit, across blocking MPI calls. Under BDMPI with a
// node memory of a fraction of the data, those calls switch ranks out:
// the small objects must be written back and read again like large ones.
//
// Usage: heap_blocks [--mib M] [--block B | --mixed | --map | --vectors]
//                    [--steps S]
//   --mib M     data per rank (default 8)
//   --block B   malloc blocks of B bytes (default 4096)
//   --mixed     malloc blocks of 16 B to 96 KiB
//   --map       a std::map<uint64_t, uint64_t>
//   --vectors   a std::vector<std::vector<uint32_t>> of rows of 1 to 2000
//   --steps S   rewrite-and-check rounds, each ended by a barrier (default 3)
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

namespace {

int g_rank = 0;

[[noreturn]] void Fail(const char* what, std::size_t index) {
  std::fprintf(stderr, "rank %d: heap_blocks: check failed: %s at %zu\n", g_rank, what, index);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

std::uint64_t Value(std::uint64_t i, int version) {
  std::uint64_t x = (static_cast<std::uint64_t>(g_rank) << 44) ^ i ^
                    (static_cast<std::uint64_t>(version) << 36);
  x *= 0x9e3779b97f4a7c15ull;
  return x ^ (x >> 31);
}

// Size of block i in --mixed: mostly small, some of tens of KiB.
std::size_t MixedSize(std::size_t i) {
  std::uint64_t v = Value(i, 99);
  if (v % 16 == 0) return 16 * 1024 + v % (80 * 1024);
  return 16 + v % 2000;
}

struct Blocks {
  std::vector<unsigned char*> pointers;
  std::vector<std::size_t> sizes;
};

void FillBlock(unsigned char* p, std::size_t bytes, std::size_t index, int version) {
  std::uint64_t seed = Value(index, version);
  for (std::size_t j = 0; j < bytes; ++j) p[j] = static_cast<unsigned char>((seed >> (j % 57)) + j);
}

void CheckBlock(const unsigned char* p, std::size_t bytes, std::size_t index, int version) {
  std::uint64_t seed = Value(index, version);
  for (std::size_t j = 0; j < bytes; ++j)
    if (p[j] != static_cast<unsigned char>((seed >> (j % 57)) + j)) Fail("malloc block", index);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  std::size_t mib = 8, block = 4096;
  int steps = 3;
  enum { kBlocks, kMixed, kMap, kVectors } mode = kBlocks;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mib") == 0 && i + 1 < argc) {
      mib = std::strtoul(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--block") == 0 && i + 1 < argc) {
      block = std::strtoul(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      steps = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--mixed") == 0) {
      mode = kMixed;
    } else if (std::strcmp(argv[i], "--map") == 0) {
      mode = kMap;
    } else if (std::strcmp(argv[i], "--vectors") == 0) {
      mode = kVectors;
    } else {
      if (g_rank == 0) std::fprintf(stderr, "heap_blocks: unknown argument '%s'\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  const std::size_t bytes = mib << 20;

  Blocks blocks;
  std::map<std::uint64_t, std::uint64_t> map;
  std::vector<std::vector<std::uint32_t>> rows;
  if (mode == kBlocks || mode == kMixed) {
    for (std::size_t total = 0, i = 0; total < bytes; ++i) {
      std::size_t size = mode == kBlocks ? block : MixedSize(i);
      auto* p = static_cast<unsigned char*>(std::malloc(size));
      if (p == nullptr) Fail("malloc", i);
      blocks.pointers.push_back(p);
      blocks.sizes.push_back(size);
      total += size;
    }
  } else if (mode == kMap) {
    // A map node is about 64 bytes with its two keys.
    for (std::uint64_t i = 0; i < bytes / 64; ++i) map.emplace(Value(i, 0), i);
  } else {
    for (std::size_t total = 0, i = 0; total < bytes; ++i) {
      rows.emplace_back(1 + Value(i, 7) % 2000);
      total += rows.back().size() * sizeof(std::uint32_t);
    }
  }

  for (int step = 0; step <= steps; ++step) {
    // Rewrite every element with this step's values, block, node and row,
    // then check everything after the barrier (where ranks switch).
    if (mode == kBlocks || mode == kMixed) {
      for (std::size_t i = 0; i < blocks.pointers.size(); ++i)
        FillBlock(blocks.pointers[i], blocks.sizes[i], i, step);
    } else if (mode == kMap) {
      for (auto& [key, value] : map) value = Value(key, step);
    } else {
      for (std::size_t i = 0; i < rows.size(); ++i)
        for (std::size_t j = 0; j < rows[i].size(); ++j)
          rows[i][j] = static_cast<std::uint32_t>(Value(i * 4096 + j, step));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (mode == kBlocks || mode == kMixed) {
      for (std::size_t i = 0; i < blocks.pointers.size(); ++i)
        CheckBlock(blocks.pointers[i], blocks.sizes[i], i, step);
    } else if (mode == kMap) {
      std::uint64_t i = 0;
      for (const auto& [key, value] : map) {
        if (value != Value(key, step)) Fail("map value", i);
        ++i;
      }
      if (i != bytes / 64) Fail("map size", i);
      for (std::uint64_t k = 0; k < bytes / 64; k += 97)
        if (map.find(Value(k, 0)) == map.end()) Fail("map key", k);
    } else {
      for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].size() != 1 + Value(i, 7) % 2000) Fail("row size", i);
        for (std::size_t j = 0; j < rows[i].size(); ++j)
          if (rows[i][j] != static_cast<std::uint32_t>(Value(i * 4096 + j, step)))
            Fail("row", i);
      }
    }
    // One value per rank across ranks, so that ranks wait on each other.
    unsigned long long local = static_cast<unsigned long long>(step), total = 0;
    MPI_Allreduce(&local, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (total != local * static_cast<unsigned long long>(size)) Fail("Allreduce", 0);
  }
  for (unsigned char* p : blocks.pointers) std::free(p);
  MPI_Finalize();
  return 0;
}
