// Hardware resources as MPI-4 names them (MPI_Get_hw_resource_info and the
// split types MPI_COMM_TYPE_HW_GUIDED, _HW_UNGUIDED, _RESOURCE_GUIDED):
// hwloc's object types, "hwloc://Package" and so on.
//
// A BDMPI rank does not stay on one core: each time it resumes, its master
// binds it to one of the node's cores (master/sched/core_binder.h), the
// least busy. So the hardware a rank runs within, over its life, is its
// node's: it is within one instance of a resource type exactly when its
// node has one instance of that type (hwloc's "Machine" always, "Package"
// on a one-socket node, "Core" on a one-core node). A type with several
// instances on the node is one the rank is not confined to.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace bdmpi {

struct HwResource {
  std::string name;  // "hwloc://<hwloc type name>"
  bool single = false;  // the node holds one instance
};

// The node's resource types, from the whole machine down to the PU, as
// hwloc finds them (the process's allowed cpus); empty when hwloc cannot
// read the topology.
const std::vector<HwResource>& HwResources();

enum class HwAnswer { kUnknown, kSingle, kSeveral };
// Whether the rank runs within one instance of the type named `name`
// ("hwloc://Package" or hwloc's bare name "Package", in any case).
HwAnswer HwResourceOf(const std::string& name);

// The value of MPI_COMM_TYPE_HW_UNGUIDED's "mpi_hw_resource_type" when it
// splits by node.
inline constexpr const char* kHwNode = "hwloc://Machine";

}  // namespace bdmpi
