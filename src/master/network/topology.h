// Where this node sits in the cluster: its rack, for chains that cross each
// rack boundary once (Twister's topology-aware broadcast).
#pragma once

#include <string>

namespace bdmpi {

// The rack of this host: from `topology_file` when given (lines "HOST RACK";
// '#' starts a comment), else from Slurm's SLURM_TOPOLOGY_ADDR (set by the
// topology/tree plugin, e.g. "core.rack1.vc2": everything before the host),
// else "" (all nodes in one rack). Throws Error(kErrArg) when the file cannot
// be read or does not name this host.
std::string DetectRack(const std::string& topology_file);

// "core.rack1.vc2" -> "core.rack1"; "" when there is no switch level.
std::string RackFromSlurmAddress(const std::string& address);

}  // namespace bdmpi
