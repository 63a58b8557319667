#include "master/node_memory.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace bdmpi {
namespace {

// A number from a cgroup file; 0 for "max", a huge "unlimited" value or
// no file.
std::uint64_t ReadLimit(const std::string& path) {
  std::ifstream file(path);
  std::string text;
  if (!(file >> text) || text == "max") return 0;
  unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  // v1 reports "no limit" as a page-rounded LLONG_MAX.
  if (value >= (1ull << 60)) return 0;
  return value;
}

}  // namespace

std::uint64_t CgroupMemoryLimit() {
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  std::uint64_t limit = 0;
  auto take = [&](std::uint64_t value) {
    if (value != 0 && (limit == 0 || value < limit)) limit = value;
  };
  while (std::getline(cgroups, line)) {
    // "ID:CONTROLLERS:PATH"; v2 has the empty controller list.
    std::size_t first = line.find(':');
    std::size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    bool v1 = false;
    std::stringstream list(controllers);
    std::string name;
    while (std::getline(list, name, ',')) v1 = v1 || name == "memory";
    if (v1) {
      // Limits of the parents apply too.
      for (std::string dir = path;;) {
        take(ReadLimit("/sys/fs/cgroup/memory" + (dir == "/" ? "" : dir) +
                       "/memory.limit_in_bytes"));
        if (dir == "/" || dir.empty()) break;
        std::size_t slash = dir.rfind('/');
        dir = slash == 0 ? "/" : dir.substr(0, slash);
      }
    } else if (controllers.empty() && path != "/") {
      for (const char* root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"})
        take(ReadLimit(std::string(root) + path + "/memory.max"));
    }
  }
  return limit;
}

std::uint64_t AvailableMemory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    unsigned long long kib = 0;
    if (std::sscanf(line.c_str(), "MemAvailable: %llu kB", &kib) == 1) return kib * 1024;
  }
  return 0;
}

std::uint64_t DefaultNodeMemory(std::uint64_t message_budget) {
  // The smaller of the two that are known.
  std::uint64_t total = CgroupMemoryLimit();
  std::uint64_t available = AvailableMemory();
  if (total == 0 || (available != 0 && available < total)) total = available;
  if (total == 0) total = 1ull << 30;  // nothing known: be modest
  std::uint64_t margin = total / 8 + std::min(message_budget, total / 4);
  return total - margin;
}

}  // namespace bdmpi
