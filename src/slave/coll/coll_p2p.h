// Collectives built from point-to-point messages: the blocking
// scan and exscan chain here, and the helpers of the schedules in nbc*.cpp
// (gather, scatter, allgather, alltoall, reduce_scatter, user-defined
// reductions and every nonblocking and persistent collective).
//
// They travel on the communicator's collective twin (CollectiveCommId in
// common/protocol.h): the master buffers them like any message (its memory
// or a spill file, by size), but they never match user messages. Each
// operation has its own tag; since the members of a communicator call its
// collectives in the same order, receives match in the order they were
// posted and messages between a pair do not overtake, no sequence numbers
// are needed. Sends are buffered, so sending first never deadlocks.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "common/coll_engine.h"
#include "common/handles.h"
#include "common/protocol.h"
#include "slave/runtime/objects.h"

namespace bdmpi {

// Internal tags, one per operation.
enum CollTag : int {
  kTagGather = 1,
  kTagScatter,
  kTagAllgather,
  kTagAlltoall,
  kTagScan,
  kTagExscan,
  kTagUserReduce,
  // The schedules of nbc_move.cpp and nbc_reduce.cpp (blocking or not).
  kTagBarrier,
  kTagBcast,
  kTagReduce,
  kTagAllreduce,
  kTagReduceScatter,
  kTagIscan,
  kTagIexscan,
};

// The barrier schedule's receives all go through the direct path, which
// looks in the inbox (Schedule::RecvEmpty): its messages may wait there.
static_assert(kTagBarrier == kScheduleBarrierTag);

// A point-to-point request on a collective context (`twin`: the hidden
// CollectiveCommId of a communicator), shared by CollSend/CollRecv and the
// nonblocking collectives' schedules (nbc.cpp).
RequestMsg CollRequest(MsgType type, std::int32_t twin, int rank, int peer, int tag);

void CollSend(const CommInfo& comm, int dest, int tag, const void* data, std::uint64_t bytes);
// Receives into data (at most capacity bytes; more is MPI_ERR_TRUNCATE).
void CollRecv(const CommInfo& comm, int source, int tag, void* data, std::uint64_t capacity);

// A reduction operation checked against a datatype.
struct CheckedOp {
  OpId predefined = OpId::kNull;       // kNull for a user-defined operation
  MPI_User_function* user = nullptr;
  MPI_User_function_c* user_c = nullptr;  // MPI_Op_create_c's
  bool commute = true;

  bool UserDefined() const { return predefined == OpId::kNull; }
};
// kErrOp for invalid operations and predefined ones MPI leaves undefined on
// the datatype.
CheckedOp CheckOp(MPI_Op op, MPI_Datatype datatype);
// inout = in op inout, element-wise on count elements of datatype (the
// order of an MPI_User_function: `in` holds the lower ranks).
void ApplyOp(const CheckedOp& op, MPI_Datatype datatype, const void* in, void* inout,
             int count);
// ApplyOp on wire bytes (wire_data.h): a user-defined function sees the
// elements laid out as in memory, so a type with gaps is unpacked for it.
void ApplyOpWire(const CheckedOp& op, MPI_Datatype datatype, const void* in, void* inout,
                 int count);
MPI_Op OpCreate(MPI_User_function* function, int commute);
MPI_Op OpCreate(MPI_User_function_c* function, int commute);
void OpFree(MPI_Op* op);
bool OpCommutative(MPI_Op op);

}  // namespace bdmpi
