// Spreads the running slaves over the node's cores (hwloc): with -nr > 1 a
// slave that resumes is bound to the least busy core, so that the running
// slaves do not pile up on one core while others idle.
//
// A slave takes the preferred core (the master's, where hand-overs are
// cheap) when it is among the least busy, else keeps the core it had when
// that one is: a move costs the slave a migration. Binding the whole
// process on every resume (a walk of /proc/<pid>/task, a dozen system calls
// in the master) makes an 8-byte round trip with -nr 2 cost 5-30x the -nr 1
// one, so a move binds the main thread only, one system call.
#pragma once

#include <sys/types.h>

#include <functional>
#include <vector>

struct hwloc_topology;

namespace bdmpi {

class CoreBinder {
 public:
  // Binds `pid` to core `core`; false if it could not.
  using BindFunction = std::function<bool(pid_t pid, int core)>;

  // The node's cores, bound through hwloc.
  CoreBinder();
  // `cores` cores, bound by `bind` (tests).
  CoreBinder(int cores, BindFunction bind);
  ~CoreBinder();
  CoreBinder(const CoreBinder&) = delete;
  CoreBinder& operator=(const CoreBinder&) = delete;

  int cores() const { return static_cast<int>(load_.size()); }
  // Running slaves bound to `core`.
  int load(int core) const { return core >= 0 && core < cores() ? load_[core] : 0; }
  // Binds `pid` to the core with the fewest running slaves, `bound_core`
  // (where it is bound already, or -1) when that is one of them, which
  // needs no system call. Returns the core, or -1 if binding failed (the
  // slave then runs wherever the kernel puts it).
  int Bind(pid_t pid, int bound_core, int preferred_core = -1);
  // The core holding CPU `cpu`, or -1.
  int CoreOfCpu(int cpu) const;
  // Cores with a processor this process may run on (its affinity), or 0
  // when hwloc cannot say (-nr auto, master/running_slots.h).
  int UsableCores() const;
  void Release(int core);

 private:
  bool BindWithHwloc(pid_t pid, int core);

  hwloc_topology* topology_ = nullptr;
  BindFunction bind_;
  std::vector<int> load_;  // running slaves per core
};

}  // namespace bdmpi
