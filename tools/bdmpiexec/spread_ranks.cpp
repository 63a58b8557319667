#include "bdmpiexec/spread_ranks.h"

#include "common/error.h"
#include "common/rank_layout.h"

namespace bdmpi {

void SpreadRanks(LaunchOptions& options, bool ns_given, const std::string& nodes_from) {
  if (options.nranks == 0) return;
  int nranks = options.nranks, nnodes = options.nnodes;
  if (ns_given) {
    if (nranks == nnodes * options.nslaves) return;
    throw Error(kErrArg, "-n " + std::to_string(nranks) + " contradicts -ns " +
                             std::to_string(options.nslaves) + " on " + std::to_string(nnodes) +
                             " node(s) (" + nodes_from + "), which make " +
                             std::to_string(nnodes * options.nslaves) +
                             " ranks: give -n alone, or -ns (with -nn)");
  }
  if (nranks < nnodes)
    throw Error(kErrArg, "-n " + std::to_string(nranks) + " ranks are fewer than the " +
                             std::to_string(nnodes) + " nodes (" + nodes_from +
                             "), and every node runs at least one rank: use -n " +
                             std::to_string(nnodes) + " or more, or -nn " +
                             std::to_string(nranks));
  options.nslaves = RankLayout(nranks, nnodes).MaxCount();
}

}  // namespace bdmpi
