// Freeing 100,000 small blocks: from the storage-backed heap (jemalloc on
// the storage arena, src/slave/memory/heap.h) against glibc's malloc, in
// one process. The process re-executes itself looking like a slave, as
// tests/unit/storage_alloc_test.cpp does, so that its malloc is the
// runtime's (linked from bdmpi_slave_core).
//
//   heap_free_bench [--benchmark_* options]
//
// BM_Free/where:W/bytes:B: the time to free 100,000 blocks of B bytes
// from the heap (W 0) or glibc (W 1)
// (allocated, and touched, outside the timing); BM_AllocFree: both.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "slave/memory/arena.h"

extern "C" {
void* __libc_malloc(std::size_t size);
void __libc_free(void* p);
}

__attribute__((constructor)) static void BecomeSlave(int, char** argv, char**) {
  if (std::getenv("BDMPI_SPILL_DIR") != nullptr) return;
  const char* dir = std::getenv("TMPDIR");
  setenv("BDMPI_SPILL_DIR", dir != nullptr ? dir : "/tmp", 1);
  setenv("BDMPI_SLAVE", "0", 1);
  execv("/proc/self/exe", argv);
  std::perror("heap_free_bench: re-exec");
  _exit(2);
}

namespace {

constexpr std::size_t kBlocks = 100000;

enum Where { kHeap = 0, kGlibc = 1 };

void* Get(Where where, std::size_t bytes) {
  return where == kHeap ? std::malloc(bytes) : __libc_malloc(bytes);
}
void Put(Where where, void* p) {
  if (where == kHeap) {
    std::free(p);
  } else {
    __libc_free(p);
  }
}

void BM_Free(benchmark::State& state) {
  auto where = static_cast<Where>(state.range(0));
  auto bytes = static_cast<std::size_t>(state.range(1));
  if (where == kHeap && !bdmpi::memory::InHeap(std::malloc(1)))
    state.SkipWithError("storage-backed allocation is off here");
  std::vector<void*> blocks(kBlocks);
  for (auto _ : state) {
    state.PauseTiming();
    for (void*& p : blocks) {
      p = Get(where, bytes);
      static_cast<char*>(p)[0] = 1;
    }
    state.ResumeTiming();
    for (void* p : blocks) Put(where, p);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kBlocks));
}

void BM_AllocFree(benchmark::State& state) {
  auto where = static_cast<Where>(state.range(0));
  auto bytes = static_cast<std::size_t>(state.range(1));
  std::vector<void*> blocks(kBlocks);
  for (auto _ : state) {
    for (void*& p : blocks) {
      p = Get(where, bytes);
      static_cast<char*>(p)[0] = 1;
    }
    for (void* p : blocks) Put(where, p);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kBlocks));
}

void Args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"where", "bytes"});  // where: 0 the heap, 1 glibc
  for (int where : {kHeap, kGlibc})
    for (int bytes : {64, 4096, 65536 - 16}) b->Args({where, bytes});
  b->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK(BM_Free)->Apply(Args);
BENCHMARK(BM_AllocFree)->Apply(Args);
