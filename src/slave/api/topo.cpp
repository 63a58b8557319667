// MPI entry points for process topologies and neighbourhood collectives
// (MPI-3.1 chapter 7). See comm/topology_comm.h and coll/neighbor.h;
// the neighbourhood collectives are in neighbor.cpp.
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/error.h"
#include "slave/comm/topology.h"
#include "slave/comm/topology_comm.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/info.h"
#include "slave/runtime/objects.h"

using bdmpi::Error;
using bdmpi::Guard;
using bdmpi::Topology;

namespace {

void CheckRank(MPI_Comm comm, int rank) {
  int size = bdmpi::LookupComm(comm).size;
  if (rank < 0 || rank >= size)
    throw Error(MPI_ERR_RANK, "rank " + std::to_string(rank) + " is not in a communicator of " +
                                  std::to_string(size));
}

// Copies at most `max` of `values` to `out`.
void CopyOut(const std::vector<int>& values, int max, int out[]) {
  if (max < 0) throw Error(MPI_ERR_ARG, "negative array length");
  std::copy_n(values.begin(), std::min<std::size_t>(values.size(), static_cast<std::size_t>(max)),
              out);
}

}  // namespace

extern "C" {

// ---------------------------------------------------------------- dims

#pragma weak MPI_Dims_create = PMPI_Dims_create
int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  return Guard("MPI_Dims_create", MPI_COMM_WORLD,
               [&] { bdmpi::DimsCreate(nnodes, ndims, dims); });
}

// -------------------------------------------------------------- Cartesian

#pragma weak MPI_Cart_create = PMPI_Cart_create
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm* comm_cart) {
  (void)reorder;  // ranks keep their order, which MPI allows
  return Guard("MPI_Cart_create", comm_old,
               [&] { *comm_cart = bdmpi::CartCreate(comm_old, ndims, dims, periods); });
}

#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get
int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  return Guard("MPI_Cartdim_get", comm,
               [&] { *ndims = static_cast<int>(bdmpi::TopologyOf(comm, MPI_CART).dims.size()); });
}

#pragma weak MPI_Cart_get = PMPI_Cart_get
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  return Guard("MPI_Cart_get", comm, [&] {
    const Topology& grid = bdmpi::TopologyOf(comm, MPI_CART);
    CopyOut(grid.dims, maxdims, dims);
    CopyOut(grid.periods, maxdims, periods);
    CopyOut(grid.CartCoords(bdmpi::LookupComm(comm).rank), maxdims, coords);
  });
}

#pragma weak MPI_Cart_rank = PMPI_Cart_rank
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  return Guard("MPI_Cart_rank", comm, [&] {
    const Topology& grid = bdmpi::TopologyOf(comm, MPI_CART);
    *rank = grid.CartRank(std::vector<int>(coords, coords + grid.dims.size()));
  });
}

#pragma weak MPI_Cart_coords = PMPI_Cart_coords
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  return Guard("MPI_Cart_coords", comm, [&] {
    const Topology& grid = bdmpi::TopologyOf(comm, MPI_CART);
    CheckRank(comm, rank);
    CopyOut(grid.CartCoords(rank), maxdims, coords);
  });
}

#pragma weak MPI_Cart_shift = PMPI_Cart_shift
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  return Guard("MPI_Cart_shift", comm, [&] {
    const Topology& grid = bdmpi::TopologyOf(comm, MPI_CART);
    if (direction < 0 || direction >= static_cast<int>(grid.dims.size()))
      throw Error(MPI_ERR_ARG, "direction " + std::to_string(direction) + " of a grid of " +
                                   std::to_string(grid.dims.size()) + " dimensions");
    grid.CartShift(bdmpi::LookupComm(comm).rank, direction, disp, rank_source, rank_dest);
  });
}

#pragma weak MPI_Cart_sub = PMPI_Cart_sub
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  return Guard("MPI_Cart_sub", comm, [&] { *newcomm = bdmpi::CartSub(comm, remain_dims); });
}

#pragma weak MPI_Cart_map = PMPI_Cart_map
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  (void)periods;
  return Guard("MPI_Cart_map", comm, [&] { *newrank = bdmpi::CartMap(comm, ndims, dims); });
}

// ------------------------------------------------------------------ graph

#pragma weak MPI_Graph_create = PMPI_Graph_create
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm* comm_graph) {
  (void)reorder;
  return Guard("MPI_Graph_create", comm_old,
               [&] { *comm_graph = bdmpi::GraphCreate(comm_old, nnodes, index, edges); });
}

#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  return Guard("MPI_Graphdims_get", comm, [&] {
    const Topology& graph = bdmpi::TopologyOf(comm, MPI_GRAPH);
    *nnodes = static_cast<int>(graph.index.size());
    *nedges = static_cast<int>(graph.edges.size());
  });
}

#pragma weak MPI_Graph_get = PMPI_Graph_get
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  return Guard("MPI_Graph_get", comm, [&] {
    const Topology& graph = bdmpi::TopologyOf(comm, MPI_GRAPH);
    CopyOut(graph.index, maxindex, index);
    CopyOut(graph.edges, maxedges, edges);
  });
}

#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  return Guard("MPI_Graph_neighbors_count", comm, [&] {
    const Topology& graph = bdmpi::TopologyOf(comm, MPI_GRAPH);
    CheckRank(comm, rank);
    *nneighbors = static_cast<int>(graph.InNeighbors(rank).size());
  });
}

#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  return Guard("MPI_Graph_neighbors", comm, [&] {
    const Topology& graph = bdmpi::TopologyOf(comm, MPI_GRAPH);
    CheckRank(comm, rank);
    CopyOut(graph.InNeighbors(rank), maxneighbors, neighbors);
  });
}

#pragma weak MPI_Graph_map = PMPI_Graph_map
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  return Guard("MPI_Graph_map", comm,
               [&] { *newrank = bdmpi::GraphMap(comm, nnodes, index, edges); });
}

// ------------------------------------------------------ distributed graph

#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  (void)reorder;
  return Guard("MPI_Dist_graph_create_adjacent", comm_old, [&] {
    bdmpi::CheckInfoArgument(info);
    *comm_dist_graph = bdmpi::DistGraphCreateAdjacent(comm_old, indegree, sources, sourceweights,
                                                      outdegree, destinations, destweights);
  });
}

#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm* comm_dist_graph) {
  (void)reorder;
  return Guard("MPI_Dist_graph_create", comm_old, [&] {
    bdmpi::CheckInfoArgument(info);
    *comm_dist_graph = bdmpi::DistGraphCreate(comm_old, n, sources, degrees, destinations, weights);
  });
}

#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  return Guard("MPI_Dist_graph_neighbors_count", comm, [&] {
    const Topology& graph = bdmpi::TopologyOf(comm, MPI_DIST_GRAPH);
    *indegree = static_cast<int>(graph.sources.size());
    *outdegree = static_cast<int>(graph.destinations.size());
    *weighted = graph.weighted;
  });
}

#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[]) {
  return Guard("MPI_Dist_graph_neighbors", comm, [&] {
    const Topology& graph = bdmpi::TopologyOf(comm, MPI_DIST_GRAPH);
    CopyOut(graph.sources, maxindegree, sources);
    CopyOut(graph.destinations, maxoutdegree, destinations);
    if (!graph.weighted) return;
    if (sourceweights != MPI_UNWEIGHTED && sourceweights != nullptr)
      CopyOut(graph.source_weights, maxindegree, sourceweights);
    if (destweights != MPI_UNWEIGHTED && destweights != nullptr)
      CopyOut(graph.destination_weights, maxoutdegree, destweights);
  });
}

#pragma weak MPI_Topo_test = PMPI_Topo_test
int PMPI_Topo_test(MPI_Comm comm, int* status) {
  return Guard("MPI_Topo_test", comm, [&] { *status = bdmpi::TopoTest(comm); });
}

}  // extern "C"
