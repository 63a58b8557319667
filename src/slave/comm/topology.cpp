#include "slave/comm/topology.h"

#include <mpi.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "common/error.h"

namespace bdmpi {

int Topology::CartRank(const std::vector<int>& coords) const {
  int rank = 0;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    int c = coords[d];
    if (periods[d]) {
      c %= dims[d];
      if (c < 0) c += dims[d];
    } else if (c < 0 || c >= dims[d]) {
      throw Error(kErrRank, "coordinate " + std::to_string(coords[d]) + " of dimension " +
                                std::to_string(d) + " is outside its extent " +
                                std::to_string(dims[d]));
    }
    rank = rank * dims[d] + c;
  }
  return rank;
}

std::vector<int> Topology::CartCoords(int rank) const {
  std::vector<int> coords(dims.size());
  for (std::size_t d = dims.size(); d-- > 0;) {
    coords[d] = rank % dims[d];
    rank /= dims[d];
  }
  return coords;
}

void Topology::CartShift(int rank, int dim, int disp, int* source, int* dest) const {
  std::vector<int> coords = CartCoords(rank);
  auto moved = [&](int step) {
    std::vector<int> there = coords;
    there[static_cast<std::size_t>(dim)] += step;
    int c = there[static_cast<std::size_t>(dim)];
    int extent = dims[static_cast<std::size_t>(dim)];
    if (!periods[static_cast<std::size_t>(dim)] && (c < 0 || c >= extent)) return MPI_PROC_NULL;
    return CartRank(there);
  };
  *source = moved(-disp);
  *dest = moved(disp);
}

std::vector<int> Topology::InNeighbors(int rank) const {
  switch (kind) {
    case MPI_CART: {
      std::vector<int> neighbors;
      for (std::size_t d = 0; d < dims.size(); ++d) {
        int down = 0, up = 0;
        CartShift(rank, static_cast<int>(d), 1, &down, &up);
        neighbors.push_back(down);
        neighbors.push_back(up);
      }
      return neighbors;
    }
    case MPI_GRAPH: {
      int first = rank == 0 ? 0 : index[static_cast<std::size_t>(rank) - 1];
      return std::vector<int>(edges.begin() + first,
                              edges.begin() + index[static_cast<std::size_t>(rank)]);
    }
    default: return sources;
  }
}

std::vector<int> Topology::OutNeighbors(int rank) const {
  return kind == MPI_DIST_GRAPH ? destinations : InNeighbors(rank);
}

namespace {

// The k factors of n (non-increasing) whose largest and smallest differ
// least, and among those the one whose smallest factors are largest: what
// MPICH's MPI_Dims_create gives (its test suite checks 75 000 cases). A search over
// n's divisors, largest first, cut where it cannot beat the best found.
struct FactorSearch {
  std::vector<int> divisors;  // of n, descending
  std::vector<int> current, best;
  int best_spread = -1;

  // Factors `rest` into k factors of at most `largest`, from divisors[from].
  void Run(int rest, int k, std::size_t from) {
    if (k == 1) {
      if (rest > (current.empty() ? rest : current.back())) return;
      int spread = (current.empty() ? rest : current.front()) - rest;
      current.push_back(rest);
      // Among equal spreads: the largest smallest factor, then the largest
      // next smallest, ...
      bool better = best_spread < 0 || spread < best_spread ||
                    (spread == best_spread &&
                     std::lexicographical_compare(best.rbegin(), best.rend(), current.rbegin(),
                                                  current.rend()));
      if (better) {
        best_spread = spread;
        best = current;
      }
      current.pop_back();
      return;
    }
    for (std::size_t i = from; i < divisors.size(); ++i) {
      int d = divisors[i];
      if (d > rest || rest % d != 0) continue;
      // The other k - 1 factors are at most d: d^k must reach rest.
      long long power = 1;
      for (int j = 0; j < k && power < rest; ++j) power *= d;
      if (power < rest) break;
      // Smaller factors only spread further from the first.
      if (best_spread >= 0 && !current.empty() && current.front() - d > best_spread) break;
      current.push_back(d);
      Run(rest / d, k - 1, i);
      current.pop_back();
    }
  }
};

std::vector<int> BalancedFactors(int n, int k) {
  FactorSearch search;
  for (int d = 1; static_cast<long long>(d) * d <= n; ++d) {
    if (n % d != 0) continue;
    search.divisors.push_back(d);
    if (d != n / d) search.divisors.push_back(n / d);
  }
  std::sort(search.divisors.begin(), search.divisors.end(), std::greater<>());
  search.Run(n, k, 0);
  return search.best;
}

}  // namespace

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
  std::vector<int> sizes = BalancedFactors(static_cast<int>(nnodes / fixed),
                                           static_cast<int>(free_dims.size()));
  for (std::size_t i = 0; i < free_dims.size(); ++i) dims[free_dims[i]] = sizes[i];
}

}  // namespace bdmpi
