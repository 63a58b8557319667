#include "slave/comm/hw_resources.h"

#include <hwloc.h>
#include <strings.h>

#include <cstring>

namespace bdmpi {
namespace {

constexpr const char* kScheme = "hwloc://";

std::vector<HwResource> ReadResources() {
  std::vector<HwResource> resources;
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return resources;
  if (hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    return resources;
  }
  auto add = [&](hwloc_obj_type_t type, int count) {
    std::string name = std::string(kScheme) + hwloc_obj_type_string(type);
    for (HwResource& known : resources) {
      if (known.name != name) continue;
      known.single = known.single && count == 1;  // a type at several depths (Group)
      return;
    }
    resources.push_back(HwResource{name, count == 1});
  };
  int depths = hwloc_topology_get_depth(topology);
  for (int depth = 0; depth < depths; ++depth) {
    add(hwloc_get_depth_type(topology, depth),
        static_cast<int>(hwloc_get_nbobjs_by_depth(topology, depth)));
  }
  // Memory is beside the cpu tree in hwloc 2: NUMA nodes have a depth of
  // their own.
  int numa = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
  if (numa > 0) add(HWLOC_OBJ_NUMANODE, numa);
  hwloc_topology_destroy(topology);
  return resources;
}

}  // namespace

const std::vector<HwResource>& HwResources() {
  // The topology does not change while the job runs; reading it costs
  // milliseconds, so once per process.
  static const std::vector<HwResource> resources = ReadResources();
  return resources;
}

HwAnswer HwResourceOf(const std::string& name) {
  std::string bare = name;
  if (strncasecmp(bare.c_str(), kScheme, std::strlen(kScheme)) == 0)
    bare = bare.substr(std::strlen(kScheme));
  for (const HwResource& resource : HwResources()) {
    if (strcasecmp(resource.name.c_str() + std::strlen(kScheme), bare.c_str()) == 0)
      return resource.single ? HwAnswer::kSingle : HwAnswer::kSeveral;
  }
  return HwAnswer::kUnknown;
}

}  // namespace bdmpi
