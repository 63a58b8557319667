// Communicators with a process topology (MPI-3.1 chapter 7): creating them
// (through MPI_Comm_split: BDMPI never reorders ranks, which MPI allows) and
// the questions a program asks of them. The topology itself is
// CommInfo::topology (topology.h).
#pragma once

#include <mpi.h>

#include "slave/comm/topology.h"

namespace bdmpi {

MPI_Comm CartCreate(MPI_Comm comm, int ndims, const int dims[], const int periods[]);
MPI_Comm CartSub(MPI_Comm comm, const int remain_dims[]);
// MPI_Cart_map / MPI_Graph_map: rank order kept; MPI_UNDEFINED for ranks
// left out.
int CartMap(MPI_Comm comm, int ndims, const int dims[]);
MPI_Comm GraphCreate(MPI_Comm comm, int nnodes, const int index[], const int edges[]);
int GraphMap(MPI_Comm comm, int nnodes, const int index[], const int edges[]);
// weights: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY or one per edge.
MPI_Comm DistGraphCreateAdjacent(MPI_Comm comm, int indegree, const int sources[],
                                 const int source_weights[], int outdegree,
                                 const int destinations[], const int destination_weights[]);
// MPI_Dist_graph_create: the edges any rank names are gathered by all, and
// each keeps those that touch it, in the order of the naming ranks.
MPI_Comm DistGraphCreate(MPI_Comm comm, int n, const int sources[], const int degrees[],
                         const int destinations[], const int weights[]);

// The communicator's topology, which must be of `kind` (MPI_ERR_TOPOLOGY
// otherwise; kind 0 accepts any but none).
const Topology& TopologyOf(MPI_Comm comm, int kind = 0);
int TopoTest(MPI_Comm comm);

}  // namespace bdmpi
