#include "bdmpiexec/rank_layout.h"

#include <vector>

#include "common/error.h"

namespace bdmpi {
namespace {

// "-n 6 or -n 9, or -nn 1 or -nn 7": the multiples of `nnodes` around
// `nranks`, and the divisors of `nranks` around `nnodes`.
std::string NearestValid(int nranks, int nnodes) {
  std::vector<std::string> counts;
  int below = nranks / nnodes * nnodes;
  if (below > 0) counts.push_back("-n " + std::to_string(below));
  counts.push_back("-n " + std::to_string(below + nnodes));
  int fewer = nnodes;
  while (fewer > 1 && nranks % fewer != 0) --fewer;
  int more = nnodes;
  while (more <= nranks && nranks % more != 0) ++more;
  std::string text = counts[0];
  if (counts.size() > 1) text += " or " + counts[1];
  text += " on " + std::to_string(nnodes) + " nodes, or -nn " + std::to_string(fewer);
  if (more <= nranks) text += " or -nn " + std::to_string(more);
  return text + " for " + std::to_string(nranks) + " ranks";
}

}  // namespace

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
  if (nranks % nnodes != 0)
    throw Error(kErrArg, "-n " + std::to_string(nranks) + " ranks cannot be spread evenly over " +
                             std::to_string(nnodes) + " nodes (" + nodes_from +
                             "), and BDMPI runs the same number of ranks on every node: use " +
                             NearestValid(nranks, nnodes));
  options.nslaves = nranks / nnodes;
}

}  // namespace bdmpi
