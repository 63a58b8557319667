#include "common/memory_cgroup.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>

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

// The value after `key` on its line of a "key value" file, or -1.
long ReadKeyed(const std::string& path, const std::string& key) {
  std::ifstream file(path);
  std::string name;
  long value = 0;
  while (file >> name >> value) {
    if (name == key) return value;
  }
  return -1;
}

std::uint64_t MeminfoField(const char* format) {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    unsigned long long kib = 0;
    if (std::sscanf(line.c_str(), format, &kib) == 1) return kib * 1024;
  }
  return 0;
}

}  // namespace

MemoryCgroup FindMemoryCgroup() {
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  MemoryCgroup v1, v2;
  v2.v2 = true;
  auto take = [](MemoryCgroup& cgroup, const std::string& file) {
    std::uint64_t value = ReadLimit(file);
    if (value != 0 && (cgroup.limit == 0 || value < cgroup.limit)) {
      cgroup.limit = value;
      cgroup.limit_file = file;
    }
  };
  while (std::getline(cgroups, line)) {
    // "ID:CONTROLLERS:PATH"; v2 has the empty controller list.
    std::size_t first = line.find(':');
    std::size_t second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    bool memory = false;
    std::stringstream list(controllers);
    std::string name;
    while (std::getline(list, name, ',')) memory = memory || name == "memory";
    if (memory) {
      v1.dir = "/sys/fs/cgroup/memory" + (path == "/" ? "" : path);
      // Limits of the parents apply too.
      for (std::string dir = path;;) {
        take(v1, "/sys/fs/cgroup/memory" + (dir == "/" ? "" : dir) + "/memory.limit_in_bytes");
        if (dir == "/" || dir.empty()) break;
        std::size_t slash = dir.rfind('/');
        dir = slash == 0 ? "/" : dir.substr(0, slash);
      }
    } else if (controllers.empty()) {
      for (const char* root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
        std::string dir = std::string(root) + (path == "/" ? "" : path);
        // The memory controller is on in this hierarchy where the root
        // (or the cgroup) has memory.events or memory.max files.
        if (std::ifstream(dir + "/memory.events").good() ||
            std::ifstream(dir + "/memory.max").good()) {
          if (v2.dir.empty()) v2.dir = dir;
          if (path != "/") take(v2, dir + "/memory.max");
        }
      }
    }
  }
  // The v1 memory controller where it is mounted (the v2 hierarchy then
  // has no memory controller of its own).
  if (!v1.dir.empty()) return v1;
  return v2;
}

std::uint64_t CgroupMemoryLimit() { return FindMemoryCgroup().limit; }

std::uint64_t AvailableMemory() { return MeminfoField("MemAvailable: %llu kB"); }

std::uint64_t TotalMemory() { return MeminfoField("MemTotal: %llu kB"); }

bool ReadCgroupReclaim(const MemoryCgroup& cgroup, CgroupReclaim& out) {
  if (cgroup.limit_file.empty()) return false;
  std::string stat = cgroup.limit_file.substr(0, cgroup.limit_file.rfind('/')) + "/memory.stat";
  // v1 counts a cgroup's descendants in its total_ lines, v2 in every line.
  std::string prefix = cgroup.v2 ? "" : "total_";
  std::ifstream file(stat);
  std::map<std::string, std::uint64_t, std::less<>> counts;
  std::string name;
  unsigned long long value = 0;
  while (file >> name >> value)
    if (name.starts_with(prefix)) counts[name.substr(prefix.size())] = value;
  auto count = [&counts](std::string_view key) {
    auto it = counts.find(key);
    return it != counts.end() ? it->second : 0;
  };
  std::uint64_t refaulted_pages = 0;
  if (counts.contains("workingset_refault_file"))
    refaulted_pages = count("workingset_refault_file") + count("workingset_refault_anon");
  else if (counts.contains("workingset_refault"))
    refaulted_pages = count("workingset_refault");
  else
    return false;
  static const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  out = {.refaulted = refaulted_pages * page,
         .unreclaimable = count(cgroup.v2 ? "anon" : "rss") + count("shmem")};
  return true;
}

std::uint64_t CgroupPeakUsage(const MemoryCgroup& cgroup) {
  if (cgroup.dir.empty()) return 0;
  return ReadLimit(cgroup.dir + (cgroup.v2 ? "/memory.peak" : "/memory.max_usage_in_bytes"));
}

std::string OomEventsFile(const MemoryCgroup& cgroup) {
  if (cgroup.dir.empty()) return "";
  return cgroup.dir + (cgroup.v2 ? "/memory.events" : "/memory.oom_control");
}

OomCounts ReadOomCounts(const MemoryCgroup& cgroup) {
  OomCounts counts;
  std::string events = OomEventsFile(cgroup);
  if (!events.empty()) counts.cgroup = ReadKeyed(events, "oom_kill");
  counts.machine = ReadKeyed("/proc/vmstat", "oom_kill");
  return counts;
}

}  // namespace bdmpi
