// Pieces of the slave's point-to-point half (p2p.cpp) that its other
// files (p2p_more.cpp, and the communicators between two jobs:
// comm/cross_job.cpp) share: argument checks, the
// requests to the master and the copy of a received message.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/protocol.h"
#include "slave/p2p/direct_path.h"
#include "slave/datatype/datatypes.h"
#include "slave/request/request.h"
#include "slave/runtime/objects.h"

namespace bdmpi {

void CheckDest(const CommInfo& comm, int dest);
void CheckSendTag(int tag);
void CheckSource(const CommInfo& comm, int source);
void CheckRecvTag(int tag);
// A null buffer for data of a dense type: MPI_ERR_BUFFER.
void CheckBuffer(const void* buffer, std::uint64_t bytes, MPI_Datatype datatype);
void CheckBufferOf(const void* buffer, std::uint64_t bytes, const TypeInfo& type);
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
// Completes a receive a sender wrote without the master, or that took a
// message from the inbox (direct_path.h); returns its error class.
int FinishDirect(DirectRecv& recv, const CommInfo* comm, MPI_Status* status, void* buffer,
                 int count, const TypeInfo* scattered, std::uint64_t capacity);
// A probe (`probe`: its request to the master) answered from this rank's
// inbox, whose messages come before their senders' ones at the master;
// `close` as DirectPath::ProbeInbox.
bool ProbeQueued(const CommInfo& comm, const RequestMsg& probe, bool close, MPI_Status* status);
// Whom a receive from `source` (a rank of `comm`, or MPI_ANY_SOURCE) waits
// for, as DirectPath::Poll's `sender`: a node slave index, kAnySender, or
// kFarSender when its message may come through the master (another node,
// an intercommunicator's any source).
int DirectSender(const CommInfo* comm, int source);

int FinishRecv(const ReplyMsg& reply, void* buffer, int count, const TypeInfo* scattered,
               std::uint64_t capacity, MPI_Status* status, const CommInfo* comm = nullptr);

// A point-to-point request (request.h): a receive, complete once the
// master's completion is copied into its buffer; or a send, complete when
// started (sends are buffered) unless synchronous: then when the master
// says a receive took its message.
class P2pRequest : public Request {
 public:
  using Request::Request;

  bool is_recv = false;
  void* buffer = nullptr;
  std::uint64_t capacity = 0;
  // Persistent requests (MPI_Send_init, MPI_Recv_init): the arguments each
  // MPI_Start uses.
  const void* send_buffer = nullptr;
  int count = 0;
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  // A receive into a datatype with gaps: where to unpack (see FinishRecv).
  std::shared_ptr<const TypeInfo> layout;
  int peer = 0;
  int tag = 0;
  SendMode mode = SendMode::kStandard;
  // A receive as the direct path knows it (direct_path.h).
  std::shared_ptr<DirectRecv> direct;
  // A send whose message waits in its receiver's inbox (MPI_Cancel).
  DirectQueued queued;

  void Absorb(const ReplyMsg& reply) override;
  void ProgressAlone(bool wait) override;
  // A receive published in the node's table and not told to the master,
  // that no sender has written yet, while DirectPath::MayStayUntold.
  bool TestHere() override;
  void Start() override;
  void Cancel() override;  // p2p_more.cpp
  bool Free() override;

  // From a short list of freed ones before the heap: a stream of
  // MPI_Isend makes and frees one per message, and the allocator's round
  // trip was about a tenth of such a sender's time. Made and freed under
  // the rank's lock, as the request table is (request.cpp).
  static void* operator new(std::size_t bytes);
  static void operator delete(void* request, std::size_t bytes);
};

}  // namespace bdmpi
