// Intercommunicators (MPI-3.1 6.6). Both groups' members form a hidden
// intracommunicator that the masters know like any other (registered with
// the registration steps, see comm_register.h); point-to-point on the
// intercommunicator travels on it, with ranks translated (CommInfo::
// WirePeer, UserSource), and MPI_Intercomm_merge and MPI_Comm_dup split it.
// MPI_Comm_split and MPI_Comm_create make intercommunicators; MPI_Barrier
// and the collectives of nbc_inter.h work across the two groups; the scans,
// which MPI defines on intracommunicators only, refuse them (MPI_ERR_COMM).
#pragma once

#include <mpi.h>

#include "slave/runtime/objects.h"

namespace bdmpi {

MPI_Comm IntercommCreate(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag);
MPI_Comm IntercommMerge(MPI_Comm intercomm, int high);
// MPI_Comm_dup of an intercommunicator.
MPI_Comm IntercommDup(MPI_Comm intercomm);
// MPI_Comm_split (and MPI_Comm_create) of an intercommunicator: the
// members of each color on either side, ordered by key, face those of the
// same color on the other; MPI_COMM_NULL when one side has none. Keys
// must lie within ±2^30 (the two sides share one split of the hidden
// communicator).
MPI_Comm IntercommSplit(MPI_Comm intercomm, int color, int key);
void IntercommBarrier(MPI_Comm intercomm);
// Throws MPI_ERR_COMM for an intercommunicator: for the calls that take
// intracommunicators only.
void RequireIntracomm(const CommInfo& comm);

}  // namespace bdmpi
