// The request table and what requests do unless their kind says
// otherwise; see request.h.
#include "slave/request/request.h"

#include <utility>
#include <vector>

#include "common/error.h"
#include "common/handles.h"
#include "slave/request/generalized_wait.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

// Slot 0 is MPI_REQUEST_NULL; a null pointer is a free slot.
std::vector<std::unique_ptr<Request>>& Requests() {
  static std::vector<std::unique_ptr<Request>> requests;
  return requests;
}

// Reused last freed first.
std::vector<int>& FreeRequestSlots() {
  static std::vector<int> slots;
  return slots;
}

}  // namespace

void Request::Await() {
  BDMPI_ENFORCE(false, "a request the master completes has nothing else to wait for");
}

void Request::Absorb(const ReplyMsg&) {
  SetEmptyStatus(&status);
  done = true;
}

void Request::Start() { throw Error(kErrRequest, "MPI_Start of a non-persistent request"); }

int Request::Complete(MPI_Status* out) {
  CopyResult(out, status);
  return status.MPI_ERROR;
}

int Request::PeekStatus(MPI_Status* out) { return Complete(out); }

bool Request::Free() {
  // The master keeps the receive posted so that it still takes its message
  // in MPI order, and drops that message (see MsgType::kFreeRecv).
  if (active && !done) Runtime::Instance()->Post(ReceiveIdRequest(MsgType::kFreeRecv, id));
  return true;
}

MPI_Request NewRequest(std::unique_ptr<Request> request) {
  // Slots of generalized requests that another thread completed after the
  // program freed them: only this thread changes the table.
  for (MPI_Request released : TakeReleasedGeneralized()) FreeRequest(released);
  std::vector<std::unique_ptr<Request>>& requests = Requests();
  std::vector<int>& free_slots = FreeRequestSlots();
  if (requests.empty()) requests.emplace_back();  // MPI_REQUEST_NULL
  int slot;
  if (!free_slots.empty()) {
    slot = free_slots.back();
    free_slots.pop_back();
    requests[static_cast<std::size_t>(slot)] = std::move(request);
  } else {
    slot = static_cast<int>(requests.size());
    requests.push_back(std::move(request));
  }
  return MakeHandle(HandleKind::kRequest, slot);
}

Request& LookupRequest(MPI_Request request) {
  std::vector<std::unique_ptr<Request>>& requests = Requests();
  int slot = HandleIndex(request);
  if (!HandleIs(request, HandleKind::kRequest) || slot == 0 ||
      slot >= static_cast<int>(requests.size()) || !requests[static_cast<std::size_t>(slot)])
    throw Error(kErrRequest, "invalid request");
  return *requests[static_cast<std::size_t>(slot)];
}

std::unique_ptr<Request> TakeRequest(MPI_Request request) {
  LookupRequest(request);
  int slot = HandleIndex(request);
  FreeRequestSlots().push_back(slot);
  return std::move(Requests()[static_cast<std::size_t>(slot)]);
}

void FreeRequest(MPI_Request request) { TakeRequest(request); }

MPI_Request NewDoneRequest(MPI_Comm comm, const MPI_Status& status) {
  auto request = std::make_unique<Request>(comm);
  request->done = true;
  request->status = status;
  return NewRequest(std::move(request));
}

RequestMsg ReceiveIdRequest(MsgType type, std::uint64_t id) {
  RequestMsg request;
  request.type = type;
  request.id = id;
  return request;
}

}  // namespace bdmpi
