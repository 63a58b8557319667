// Process topologies: what a communicator's topology is, and the arithmetic
// that needs no communication. Creating topology communicators and asking
// them is in topology_comm.h; neighbourhood collectives in neighbor.h.
#pragma once

#include <vector>

namespace bdmpi {

// MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH (include/mpi.h).
struct Topology {
  int kind = 0;
  // Cartesian: the extent and periodicity of each dimension.
  std::vector<int> dims;
  std::vector<int> periods;
  // Graph: MPI_Graph_create's index and edges, for every rank.
  std::vector<int> index;
  std::vector<int> edges;
  // Distributed graph: this rank's in- and out-neighbours with their
  // weights (all 1 when unweighted).
  std::vector<int> sources;
  std::vector<int> source_weights;
  std::vector<int> destinations;
  std::vector<int> destination_weights;
  bool weighted = false;

  // Cartesian rank <-> coordinates (row-major, as MPI specifies).
  int CartRank(const std::vector<int>& coords) const;
  std::vector<int> CartCoords(int rank) const;
  // The ranks `disp` steps down and up dimension `dim` from `rank`
  // (MPI_Cart_shift): MPI_PROC_NULL off the edge of a non-periodic one.
  void CartShift(int rank, int dim, int disp, int* source, int* dest) const;
  // The in- and out-neighbours of `rank` in the order the neighbourhood
  // collectives use (MPI-3.1 7.6): for a Cartesian topology, per
  // dimension the lower then the upper neighbour.
  std::vector<int> InNeighbors(int rank) const;
  std::vector<int> OutNeighbors(int rank) const;
};

// MPI_Dims_create: fills the zero entries of dims[ndims] so that the
// product is nnodes, as balanced as possible and in non-increasing order.
void DimsCreate(int nnodes, int ndims, int dims[]);

}  // namespace bdmpi
