// Topology communicators; see topology_comm.h.
#include "slave/comm/topology_comm.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "slave/coll/collectives.h"
#include "slave/comm/comm.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"

namespace bdmpi {
namespace {

void CheckDims(int ndims, const int dims[]) {
  if (ndims < 0) throw Error(MPI_ERR_DIMS, "negative number of dimensions");
  for (int d = 0; d < ndims; ++d) {
    if (dims[d] <= 0)
      throw Error(MPI_ERR_DIMS, "dimension " + std::to_string(d) + " has extent " +
                                    std::to_string(dims[d]) + "; extents must be positive");
  }
}

// The ranks a topology of `nodes` ranks takes from a communicator of
// `size`: its first `nodes`.
void CheckFits(long long nodes, int size, const char* what) {
  if (nodes > size)
    throw Error(kErrArg, std::string(what) + " of " + std::to_string(nodes) +
                             " ranks on a communicator of " + std::to_string(size));
}

long long Product(int ndims, const int dims[]) {
  long long product = 1;
  for (int d = 0; d < ndims; ++d) product *= dims[d];
  return product;
}

// The first `nodes` ranks of comm, in order, with `topology`.
MPI_Comm Attach(MPI_Comm comm, long long nodes, Topology topology) {
  int rank = LookupComm(comm).rank;
  MPI_Comm made = CommSplit(comm, rank < nodes ? 0 : MPI_UNDEFINED, rank);
  if (made != MPI_COMM_NULL)
    LookupComm(made).topology = std::make_shared<const Topology>(std::move(topology));
  return made;
}

void CheckGraph(int nnodes, const int index[], const int edges[]) {
  if (nnodes < 0) throw Error(kErrArg, "negative number of graph nodes");
  int previous = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < previous) throw Error(kErrArg, "the graph's index array decreases");
    previous = index[i];
  }
  for (int e = 0; e < previous; ++e) {
    if (edges[e] < 0 || edges[e] >= nnodes)
      throw Error(kErrArg, "graph edge to node " + std::to_string(edges[e]) +
                               ", which is not one of the " + std::to_string(nnodes));
  }
}

std::vector<int> Weights(int degree, const int weights[]) {
  if (weights == MPI_UNWEIGHTED || weights == MPI_WEIGHTS_EMPTY || weights == nullptr)
    return std::vector<int>(static_cast<std::size_t>(degree), 1);
  return std::vector<int>(weights, weights + degree);
}

void CheckNeighbors(int degree, const int ranks[], int size) {
  if (degree < 0) throw Error(kErrArg, "negative degree");
  for (int i = 0; i < degree; ++i) {
    if (ranks[i] < 0 || ranks[i] >= size)
      throw Error(kErrRank,
                  "neighbour " + std::to_string(ranks[i]) + " is not a rank of the communicator");
  }
}

}  // namespace

MPI_Comm CartCreate(MPI_Comm comm, int ndims, const int dims[], const int periods[]) {
  RequireInitialized();
  CheckDims(ndims, dims);
  long long nodes = Product(ndims, dims);
  CheckFits(nodes, LookupComm(comm).size, "a Cartesian grid");
  Topology topology;
  topology.kind = MPI_CART;
  topology.dims.assign(dims, dims + ndims);
  for (int d = 0; d < ndims; ++d) topology.periods.push_back(periods[d] != 0);
  return Attach(comm, nodes, std::move(topology));
}

MPI_Comm CartSub(MPI_Comm comm, const int remain_dims[]) {
  const Topology& grid = TopologyOf(comm, MPI_CART);
  const CommInfo& info = LookupComm(comm);
  std::vector<int> coords = grid.CartCoords(info.rank);
  // Ranks that agree on the dropped coordinates share a subgrid; their
  // order in it is their order in the grid.
  int color = 0;
  Topology sub;
  sub.kind = MPI_CART;
  for (std::size_t d = 0; d < grid.dims.size(); ++d) {
    if (remain_dims[d]) {
      sub.dims.push_back(grid.dims[d]);
      sub.periods.push_back(grid.periods[d]);
    } else {
      color = color * grid.dims[d] + coords[d];
    }
  }
  MPI_Comm made = CommSplit(comm, color, info.rank);
  LookupComm(made).topology = std::make_shared<const Topology>(std::move(sub));
  return made;
}

int CartMap(MPI_Comm comm, int ndims, const int dims[]) {
  RequireInitialized();
  CheckDims(ndims, dims);
  const CommInfo& info = LookupComm(comm);
  long long nodes = Product(ndims, dims);
  CheckFits(nodes, info.size, "a Cartesian grid");
  return info.rank < nodes ? info.rank : MPI_UNDEFINED;
}

MPI_Comm GraphCreate(MPI_Comm comm, int nnodes, const int index[], const int edges[]) {
  RequireInitialized();
  CheckGraph(nnodes, index, edges);
  CheckFits(nnodes, LookupComm(comm).size, "a graph");
  Topology topology;
  topology.kind = MPI_GRAPH;
  topology.index.assign(index, index + nnodes);
  topology.edges.assign(edges, edges + (nnodes > 0 ? index[nnodes - 1] : 0));
  return Attach(comm, nnodes, std::move(topology));
}

int GraphMap(MPI_Comm comm, int nnodes, const int index[], const int edges[]) {
  RequireInitialized();
  CheckGraph(nnodes, index, edges);
  const CommInfo& info = LookupComm(comm);
  CheckFits(nnodes, info.size, "a graph");
  return info.rank < nnodes ? info.rank : MPI_UNDEFINED;
}

MPI_Comm DistGraphCreateAdjacent(MPI_Comm comm, int indegree, const int sources[],
                                 const int source_weights[], int outdegree,
                                 const int destinations[], const int destination_weights[]) {
  RequireInitialized();
  int size = LookupComm(comm).size;
  CheckNeighbors(indegree, sources, size);
  CheckNeighbors(outdegree, destinations, size);
  Topology topology;
  topology.kind = MPI_DIST_GRAPH;
  topology.sources.assign(sources, sources + indegree);
  topology.destinations.assign(destinations, destinations + outdegree);
  topology.source_weights = Weights(indegree, source_weights);
  topology.destination_weights = Weights(outdegree, destination_weights);
  topology.weighted = source_weights != MPI_UNWEIGHTED;
  return Attach(comm, size, std::move(topology));
}

MPI_Comm DistGraphCreate(MPI_Comm comm, int n, const int sources[], const int degrees[],
                         const int destinations[], const int weights[]) {
  RequireInitialized();
  int size = LookupComm(comm).size;
  if (n < 0) throw Error(kErrArg, "negative number of source nodes");
  CheckNeighbors(n, sources, size);
  // This rank's edges as (source, destination, weight) triples.
  std::vector<int> mine;
  int edge = 0;
  for (int i = 0; i < n; ++i) {
    if (degrees[i] < 0) throw Error(kErrArg, "negative degree");
    CheckNeighbors(degrees[i], destinations + edge, size);
    for (int k = 0; k < degrees[i]; ++k, ++edge) {
      bool weighted = weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY;
      mine.insert(mine.end(), {sources[i], destinations[edge], weighted ? weights[edge] : 1});
    }
  }
  Topology topology;
  topology.kind = MPI_DIST_GRAPH;
  topology.weighted = weights != MPI_UNWEIGHTED;
  MPI_Comm made = Attach(comm, size, topology);
  // Every rank learns every edge on the new communicator, before the
  // program can use it.
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, made);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[static_cast<std::size_t>(r)] = total;
    total += counts[static_cast<std::size_t>(r)];
  }
  std::vector<int> all(static_cast<std::size_t>(total) + 1);
  Allgatherv(mine.data(), count, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, made);
  int me = LookupComm(made).rank;
  for (int i = 0; i + 2 < total; i += 3) {
    int from = all[static_cast<std::size_t>(i)], to = all[static_cast<std::size_t>(i) + 1];
    int weight = all[static_cast<std::size_t>(i) + 2];
    if (to == me) {
      topology.sources.push_back(from);
      topology.source_weights.push_back(weight);
    }
    if (from == me) {
      topology.destinations.push_back(to);
      topology.destination_weights.push_back(weight);
    }
  }
  LookupComm(made).topology = std::make_shared<const Topology>(std::move(topology));
  return made;
}

const Topology& TopologyOf(MPI_Comm comm, int kind) {
  RequireInitialized();
  const CommInfo& info = LookupComm(comm);
  if (info.topology == nullptr || (kind != 0 && info.topology->kind != kind)) {
    const char* wanted = kind == MPI_CART         ? "a Cartesian topology"
                         : kind == MPI_GRAPH      ? "a graph topology"
                         : kind == MPI_DIST_GRAPH ? "a distributed graph topology"
                                                  : "a topology";
    throw Error(MPI_ERR_TOPOLOGY, std::string("the communicator has no ") + wanted);
  }
  return *info.topology;
}

int TopoTest(MPI_Comm comm) {
  RequireInitialized();
  const CommInfo& info = LookupComm(comm);
  return info.topology == nullptr ? MPI_UNDEFINED : info.topology->kind;
}

}  // namespace bdmpi
