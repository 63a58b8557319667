#include "master/core_binder.h"

#include <hwloc.h>

#include <algorithm>

#include "common/log.h"

namespace bdmpi {

CoreBinder::CoreBinder() {
  if (hwloc_topology_init(&topology_) != 0 || hwloc_topology_load(topology_) != 0) {
    BDMPI_WARN("sched", "hwloc could not read the topology: slaves stay unbound");
    return;
  }
  int cores = hwloc_get_nbobjs_by_type(topology_, HWLOC_OBJ_CORE);
  load_.assign(cores > 0 ? cores : 0, 0);
}

CoreBinder::~CoreBinder() {
  if (topology_ != nullptr) hwloc_topology_destroy(topology_);
}

int CoreBinder::Bind(pid_t pid) {
  if (load_.empty()) return -1;
  int core = static_cast<int>(std::min_element(load_.begin(), load_.end()) - load_.begin());
  hwloc_obj_t obj = hwloc_get_obj_by_type(topology_, HWLOC_OBJ_CORE, core);
  if (obj == nullptr || hwloc_set_proc_cpubind(topology_, pid, obj->cpuset, 0) != 0)
    return -1;
  ++load_[core];
  return core;
}

void CoreBinder::Release(int core) {
  if (core >= 0 && core < cores() && load_[core] > 0) --load_[core];
}

}  // namespace bdmpi
