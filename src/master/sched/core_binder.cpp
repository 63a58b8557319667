#include "master/sched/core_binder.h"

#include <hwloc.h>

#include <algorithm>
#include <utility>

#include "common/log.h"

namespace bdmpi {

CoreBinder::CoreBinder() {
  if (hwloc_topology_init(&topology_) != 0 || hwloc_topology_load(topology_) != 0) {
    BDMPI_WARN("sched", "hwloc could not read the topology: slaves stay unbound");
    return;
  }
  int cores = hwloc_get_nbobjs_by_type(topology_, HWLOC_OBJ_CORE);
  load_.assign(cores > 0 ? cores : 0, 0);
  bind_ = [this](pid_t pid, int core) { return BindWithHwloc(pid, core); };
}

CoreBinder::CoreBinder(int cores, BindFunction bind)
    : bind_(std::move(bind)), load_(cores > 0 ? cores : 0, 0) {}

CoreBinder::~CoreBinder() {
  if (topology_ != nullptr) hwloc_topology_destroy(topology_);
}

int CoreBinder::Bind(pid_t pid, int bound_core, int preferred_core) {
  if (load_.empty()) return -1;
  int least = *std::min_element(load_.begin(), load_.end());
  int core = static_cast<int>(std::find(load_.begin(), load_.end(), least) - load_.begin());
  auto least_busy = [&](int c) { return c >= 0 && c < cores() && load_[c] == least; };
  if (least_busy(preferred_core)) {
    core = preferred_core;
  } else if (least_busy(bound_core)) {
    core = bound_core;
  }
  if (core != bound_core && !bind_(pid, core)) return -1;
  ++load_[core];
  return core;
}

bool CoreBinder::BindWithHwloc(pid_t pid, int core) {
  hwloc_obj_t obj = hwloc_get_obj_by_type(topology_, HWLOC_OBJ_CORE, core);
  // The slave's main thread only (its tid is its pid): the whole process
  // would cost a walk of /proc/<pid>/task per move. The main thread is the
  // one that talks to the master; threads it starts inherit its core.
  return obj != nullptr &&
         hwloc_set_proc_cpubind(topology_, pid, obj->cpuset, HWLOC_CPUBIND_THREAD) == 0;
}

int CoreBinder::CoreOfCpu(int cpu) const {
  if (topology_ == nullptr || cpu < 0) return cpu < cores() ? cpu : -1;
  hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topology_, static_cast<unsigned>(cpu));
  hwloc_obj_t core = pu == nullptr ? nullptr : hwloc_get_ancestor_obj_by_type(topology_, HWLOC_OBJ_CORE, pu);
  return core == nullptr ? -1 : static_cast<int>(core->logical_index);
}

int CoreBinder::UsableCores() const {
  if (topology_ == nullptr) return 0;
  hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
  if (allowed == nullptr) return 0;
  int usable = 0;
  if (hwloc_get_cpubind(topology_, allowed, HWLOC_CPUBIND_PROCESS) == 0) {
    int cores = hwloc_get_nbobjs_by_type(topology_, HWLOC_OBJ_CORE);
    for (int i = 0; i < cores; ++i) {
      hwloc_obj_t core = hwloc_get_obj_by_type(topology_, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
      if (core != nullptr && hwloc_bitmap_intersects(core->cpuset, allowed)) ++usable;
    }
  }
  hwloc_bitmap_free(allowed);
  return usable;
}

void CoreBinder::Release(int core) {
  if (core >= 0 && core < cores() && load_[core] > 0) --load_[core];
}

}  // namespace bdmpi
