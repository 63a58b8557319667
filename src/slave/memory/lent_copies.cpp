// Lent blocks restored lazily; see lent_copies.h.
#include "slave/memory/lent_copies.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "slave/memory/arena.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace bdmpi::memory {

namespace {

struct MappedLentCopy {
  std::uint64_t address = 0;  // the lent block's, as the master names it
  std::uint64_t pages = 0;    // the mapped pages
  std::uint64_t bytes = 0;
  bool settled = false;
  std::uint64_t read = 0;
};

// Taken by the arena's hooks under the arena's lock, so never around a
// call into the arena (nor an allocation, which may be one).
std::mutex g_lent_copies_lock;
std::vector<MappedLentCopy> g_lent_copies;
std::atomic<bool> g_lent_copies_mapped{false};  // some not settled yet
std::atomic<bool> g_lent_copies_settled{false};

// Reads the mapped pages into the rank's own: a write fault on each copies
// it out of the file's page.
void ReadLentCopyIn(const MappedLentCopy& copy) {
  void* at = reinterpret_cast<void*>(copy.pages);
  if (madvise(at, copy.bytes, MADV_POPULATE_WRITE) == 0) return;
  // Kernels before 5.14: one atomic add of zero per page, which no thread
  // writing the page at the same time can lose.
  for (std::uint64_t page = 0; page < copy.bytes; page += kArenaPage)
    __atomic_fetch_add(reinterpret_cast<unsigned char*>(copy.pages + page), 0, __ATOMIC_RELAXED);
}

// Settles the copies mapped over any of [block, block + length): `keep`
// reads them in, else fresh memory replaces them (a freed block holds
// its copies whole).
void SettleLentCopiesIn(const void* block, std::size_t length, bool keep) {
  if (!g_lent_copies_mapped.load(std::memory_order_acquire)) return;
  std::lock_guard lock(g_lent_copies_lock);
  auto lo = reinterpret_cast<std::uintptr_t>(block);
  bool left = false;
  for (MappedLentCopy& copy : g_lent_copies) {
    if (copy.settled) continue;
    if (copy.pages >= lo + length || copy.pages + copy.bytes <= lo) {
      left = true;
      continue;
    }
    if (keep) {
      ReadLentCopyIn(copy);
      copy.read = copy.bytes;
    } else if (mmap(reinterpret_cast<void*>(copy.pages), copy.bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
      // Still mapped from the copy, which then stays until the switch-out.
      left = true;
      continue;
    }
    copy.settled = true;
    g_lent_copies_settled.store(true, std::memory_order_release);
  }
  g_lent_copies_mapped.store(left, std::memory_order_release);
}

}  // namespace

bool MapLentCopy(int fd, std::uint64_t address, std::uint64_t skipped, std::uint64_t bytes,
                 std::uint64_t offset) {
  // Room for the note first, allocated outside the lock (the allocation
  // may take the arena's lock, which may wait for this one).
  for (;;) {
    std::size_t need = 0;
    {
      std::lock_guard lock(g_lent_copies_lock);
      if (g_lent_copies.size() < g_lent_copies.capacity()) break;
      need = 2 * g_lent_copies.size() + 8;
    }
    std::vector<MappedLentCopy> larger;
    larger.reserve(need);
    std::lock_guard lock(g_lent_copies_lock);
    larger.assign(g_lent_copies.begin(), g_lent_copies.end());
    g_lent_copies.swap(larger);  // the old storage goes after the lock
  }
  std::lock_guard lock(g_lent_copies_lock);
  if (mmap(reinterpret_cast<void*>(skipped), bytes, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_FIXED, fd, static_cast<off_t>(offset)) == MAP_FAILED)
    return false;
  g_lent_copies.push_back({.address = address, .pages = skipped, .bytes = bytes});
  g_lent_copies_mapped.store(true, std::memory_order_release);
  return true;
}

void LentCopiesFreed(const void* block, std::size_t length) {
  SettleLentCopiesIn(block, length, /*keep=*/false);
}

void LentCopiesKept(const void* block, std::size_t length) {
  SettleLentCopiesIn(block, length, /*keep=*/true);
}

void SettleLentCopies() {
  SettleLentCopiesIn(nullptr, SIZE_MAX, /*keep=*/true);
}

bool LentCopiesToTell() { return g_lent_copies_settled.load(std::memory_order_acquire); }

bool TakeSettledLentCopy(SettledLentCopy& settled) {
  std::lock_guard lock(g_lent_copies_lock);
  auto it = std::find_if(g_lent_copies.begin(), g_lent_copies.end(),
                         [](const MappedLentCopy& copy) { return copy.settled; });
  if (it == g_lent_copies.end()) {
    g_lent_copies_settled.store(false, std::memory_order_release);
    return false;
  }
  settled = {it->address, it->read};
  g_lent_copies.erase(it);
  return true;
}

}  // namespace bdmpi::memory
