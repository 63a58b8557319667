// mpiexec's -n N: the job's ranks in all, spread over its nodes.
//
// Every master runs the same number of slaves: the runtime places world
// rank r on node r / ns (master, slaves and the inter-node collectives all
// assume it). So -n must be a multiple of the node count; an N that is not
// is refused with the nearest -n and -nn that are, rather than run a layout
// the user did not ask for.
#pragma once

#include <string>

#include "bdmpiexec/launch_options.h"

namespace bdmpi {

// Sets options.nslaves from options.nranks (when given) and options.nnodes.
// `ns_given`: -ns was given too, and must agree. `nodes_from` says where the
// node count came from, for the message ("-nn 3", "the Slurm allocation").
// Throws Error(kErrArg) naming the values that would work.
void SpreadRanks(LaunchOptions& options, bool ns_given, const std::string& nodes_from);

}  // namespace bdmpi
