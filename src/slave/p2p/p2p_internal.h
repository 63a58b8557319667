// Pieces of the slave's point-to-point half (p2p.cpp) that its other
// files (p2p_more.cpp) share: argument checks, the
// requests to the master and the copy of a received message.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "common/protocol.h"
#include "slave/datatype/datatypes.h"
#include "slave/runtime/objects.h"

namespace bdmpi {

void CheckSource(const CommInfo& comm, int source);
void CheckRecvTag(int tag);
// A null buffer for data of a dense type: MPI_ERR_BUFFER.
void CheckBuffer(const void* buffer, std::uint64_t bytes, MPI_Datatype datatype);
void ThrowIfError(int error_class, const char* what);

// Checks a probe's arguments; false for MPI_PROC_NULL, whose status it
// sets (the probe is then answered without the master).
bool ProbeNeedsMaster(int source, int tag, MPI_Comm comm, MPI_Status* status);

RequestMsg RecvRequest(MsgType type, const CommInfo& comm, int source, int tag,
                       std::uint64_t capacity, std::uint64_t id);
RequestMsg IdRequest(MsgType type, std::uint64_t id);

// Copies a completed receive's data and status out of the master's reply
// (unpacking it when `scattered`, see wire_data.h); returns its error class.
// `comm`: for the source's number (an intercommunicator's remote rank).
int FinishRecv(const ReplyMsg& reply, void* buffer, int count, const TypeInfo* scattered,
               std::uint64_t capacity, MPI_Status* status, const CommInfo* comm = nullptr);
// A status the single-completion calls hand out (MPI_Recv, MPI_Wait,
// MPI_Probe, ...): every field but MPI_ERROR, which only the calls with an
// array of statuses set (MPI-3.1 3.7.5), as in Open MPI.
void SetResult(MPI_Status* status, int source, int tag, std::uint64_t bytes);
void CopyResult(MPI_Status* to, const MPI_Status& from);
// Copies the master's completion of request `pending` into it.
void Absorb(PendingRequest& pending, const ReplyMsg& reply);

}  // namespace bdmpi
