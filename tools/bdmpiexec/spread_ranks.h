// mpiexec's -n N: the job's ranks in all, spread over its nodes in blocks
// (common/rank_layout.h): each node runs N / nn ranks and the first N % nn
// nodes one more, so `-n 7 -nn 3` runs 3, 2 and 2 ranks.
#pragma once

#include <string>

#include "bdmpiexec/launch_options.h"

namespace bdmpi {

// Sets options.nslaves from options.nranks (when given) and options.nnodes:
// the ranks of the nodes that run the most (what -nr is checked against).
// `ns_given`: -ns was given too, and must make the same ranks on every node.
// `nodes_from` says where the node count came from, for the message ("-nn",
// "the Slurm allocation"). Throws Error(kErrArg) naming what would work.
void SpreadRanks(LaunchOptions& options, bool ns_given, const std::string& nodes_from);

}  // namespace bdmpi
