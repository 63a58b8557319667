// The slave's half of communicators and groups. Creating a communicator is
// a collective through the masters (MsgType::kCommSplit; the master's half
// is src/master/comm/comm.cpp); groups and comparisons are local.
#pragma once

#include <mpi.h>

namespace bdmpi {

// MPI_Comm_split; MPI_COMM_NULL for color MPI_UNDEFINED. The new
// communicator inherits the parent's error handler.
MPI_Comm CommSplit(MPI_Comm comm, int color, int key);
MPI_Comm CommDup(MPI_Comm comm);
// MPI_COMM_TYPE_SHARED: the ranks of this node; the hardware-guided types
// by the info's "mpi_hw_resource_type" (hw_resources.h) or, for
// MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name"; MPI_COMM_TYPE_HW_UNGUIDED
// by node when the communicator spans nodes.
MPI_Comm CommSplitType(MPI_Comm comm, int split_type, int key, MPI_Info info);
// MPI_Comm_create: `group` must be a subgroup of comm's, the same on all
// its members; different processes may pass disjoint groups (MPI-2.2).
MPI_Comm CommCreate(MPI_Comm comm, MPI_Group group);
void CommFree(MPI_Comm* comm);
int CommCompare(MPI_Comm comm1, MPI_Comm comm2);
MPI_Group CommGroup(MPI_Comm comm);

// This process's rank in the group, or MPI_UNDEFINED.
int GroupRank(MPI_Group group);
void GroupTranslateRanks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                         int ranks2[]);
int GroupCompare(MPI_Group group1, MPI_Group group2);
MPI_Group GroupIncl(MPI_Group group, int n, const int ranks[]);
MPI_Group GroupExcl(MPI_Group group, int n, const int ranks[]);
MPI_Group GroupRangeIncl(MPI_Group group, int n, int ranges[][3]);
MPI_Group GroupRangeExcl(MPI_Group group, int n, int ranges[][3]);
MPI_Group GroupUnion(MPI_Group group1, MPI_Group group2);
MPI_Group GroupIntersection(MPI_Group group1, MPI_Group group2);
MPI_Group GroupDifference(MPI_Group group1, MPI_Group group2);

}  // namespace bdmpi
