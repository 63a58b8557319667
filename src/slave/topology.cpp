#include "slave/topology.h"

#include <mpi.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "common/error.h"

namespace bdmpi {

void DimsCreate(int nnodes, int ndims, int dims[]) {
  if (ndims < 0) throw Error(MPI_ERR_DIMS, "negative number of dimensions");
  if (nnodes <= 0) throw Error(kErrArg, "MPI_Dims_create of " + std::to_string(nnodes) + " nodes");
  long long fixed = 1;
  std::vector<int> free_dims;
  for (int d = 0; d < ndims; ++d) {
    if (dims[d] < 0) throw Error(MPI_ERR_DIMS, "negative dimension");
    if (dims[d] == 0) {
      free_dims.push_back(d);
    } else {
      fixed *= dims[d];
    }
  }
  if (nnodes % fixed != 0 || (free_dims.empty() && fixed != nnodes))
    throw Error(MPI_ERR_DIMS, "the given dimensions do not divide " + std::to_string(nnodes));
  if (free_dims.empty()) return;
  // Prime factors, largest first, each to the currently smallest dimension.
  std::vector<int> factors;
  int rest = static_cast<int>(nnodes / fixed);
  for (int p = 2; static_cast<long long>(p) * p <= rest; ++p) {
    while (rest % p == 0) {
      factors.push_back(p);
      rest /= p;
    }
  }
  if (rest > 1) factors.push_back(rest);
  std::vector<int> sizes(free_dims.size(), 1);
  for (auto it = factors.rbegin(); it != factors.rend(); ++it)
    *std::min_element(sizes.begin(), sizes.end()) *= *it;
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  for (std::size_t i = 0; i < free_dims.size(); ++i) dims[free_dims[i]] = sizes[i];
}

}  // namespace bdmpi
