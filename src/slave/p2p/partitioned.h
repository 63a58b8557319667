// Partitioned point-to-point (MPI 4.1 chapter 4): MPI_Psend_init,
// MPI_Precv_init, MPI_Pready(_range, _list), MPI_Parrived.
//
// A partitioned send sends its whole buffer as one message when the last
// of its partitions is marked ready; a partitioned receive is one receive
// of the whole buffer, so MPI_Parrived says true for every partition once
// it has come. One message, not one per partition: BDMPI copies a message
// out when it is sent, so every message costs a request to the master and
// a staging of its payload; one message costs that once, and it lets the
// two sides partition the same data differently, as MPI allows. What it
// gives up is a receiver working on early partitions while later ones are
// still on their way.
//
// The messages travel on the communicator's collective twin
// (common/protocol.h) with the tag INT_MIN + tag: they match partitioned
// receives only, never the program's other messages, whatever the tag or
// MPI_ANY_TAG, nor the collectives' (whose internal tags are positive).
// That leaves MPI_TAG_UB itself (INT_MIN + MPI_TAG_UB is MPI_ANY_TAG's -1),
// which these calls refuse.
#pragma once

#include <mpi.h>

namespace bdmpi {

// Inactive persistent requests; MPI_Start activates them. `count` is the
// elements of one partition.
MPI_Request PsendInit(const void* buffer, int partitions, MPI_Count count, MPI_Datatype datatype,
                      int dest, int tag, MPI_Comm comm, MPI_Info info);
MPI_Request PrecvInit(void* buffer, int partitions, MPI_Count count, MPI_Datatype datatype,
                      int source, int tag, MPI_Comm comm, MPI_Info info);
// Marks partitions [low, high] of an active partitioned send ready; the
// last one sends the message.
void Pready(int low, int high, MPI_Request request);
void PreadyList(int length, const int partitions[], MPI_Request request);
// Whether partition `partition` of a partitioned receive has arrived.
bool Parrived(MPI_Request request, int partition);

}  // namespace bdmpi
