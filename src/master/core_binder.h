// Spreads the running slaves over the node's cores (hwloc): with -nr > 1 a
// slave that resumes is bound to the least busy core, so that the running
// slaves do not pile up on one core while others idle.
#pragma once

#include <sys/types.h>

#include <vector>

struct hwloc_topology;

namespace bdmpi {

class CoreBinder {
 public:
  CoreBinder();
  ~CoreBinder();
  CoreBinder(const CoreBinder&) = delete;
  CoreBinder& operator=(const CoreBinder&) = delete;

  int cores() const { return static_cast<int>(load_.size()); }
  // Binds `pid` to the core with the fewest running slaves; returns it, or
  // -1 if binding failed (the slave then runs wherever the kernel puts it).
  int Bind(pid_t pid);
  void Release(int core);

 private:
  hwloc_topology* topology_ = nullptr;
  std::vector<int> load_;  // running slaves per core
};

}  // namespace bdmpi
