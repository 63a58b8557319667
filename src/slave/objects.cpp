#include "slave/objects.h"

#include <vector>

#include "common/error.h"
#include "common/handles.h"

namespace bdmpi {

static_assert(MPI_COMM_WORLD == MakeHandle(HandleKind::kComm, 0));
static_assert(MPI_INT == MakeHandle(HandleKind::kDatatype,
                                    static_cast<int>(DatatypeId::kInt)));
static_assert(MPI_REQUEST_NULL == MakeHandle(HandleKind::kRequest, 0));

namespace {

std::vector<CommInfo>& Comms() {
  static std::vector<CommInfo> comms(1);
  return comms;
}

std::vector<PendingRequest>& Requests() {
  static std::vector<PendingRequest> requests;
  return requests;
}

std::vector<int>& FreeRequestSlots() {
  static std::vector<int> slots;
  return slots;
}

std::vector<bool>& RequestInUse() {
  static std::vector<bool> in_use;
  return in_use;
}

}  // namespace

CommInfo& LookupComm(MPI_Comm comm) {
  std::vector<CommInfo>& comms = Comms();
  if (!HandleIs(comm, HandleKind::kComm) ||
      HandleIndex(comm) >= static_cast<int>(comms.size()) ||
      comms[HandleIndex(comm)].size == 0)
    throw Error(kErrComm, "invalid communicator");
  return comms[HandleIndex(comm)];
}

void ResetComms(int world_rank, int world_size) {
  std::vector<CommInfo>& comms = Comms();
  comms.assign(1, CommInfo{});
  comms[0].id = 0;
  comms[0].rank = world_rank;
  comms[0].size = world_size;
  comms[0].name = "MPI_COMM_WORLD";
}

MPI_Request NewRequest(const PendingRequest& request) {
  std::vector<PendingRequest>& requests = Requests();
  std::vector<bool>& in_use = RequestInUse();
  std::vector<int>& free_slots = FreeRequestSlots();
  if (requests.empty()) {  // slot 0 is MPI_REQUEST_NULL
    requests.emplace_back();
    in_use.push_back(false);
  }
  int slot;
  if (!free_slots.empty()) {
    slot = free_slots.back();
    free_slots.pop_back();
    requests[slot] = request;
  } else {
    slot = static_cast<int>(requests.size());
    requests.push_back(request);
    in_use.push_back(false);
  }
  in_use[slot] = true;
  return MakeHandle(HandleKind::kRequest, slot);
}

PendingRequest& LookupRequest(MPI_Request request) {
  std::vector<bool>& in_use = RequestInUse();
  int slot = HandleIndex(request);
  if (!HandleIs(request, HandleKind::kRequest) || slot == 0 ||
      slot >= static_cast<int>(in_use.size()) || !in_use[slot])
    throw Error(kErrRequest, "invalid request");
  return Requests()[slot];
}

void FreeRequest(MPI_Request request) {
  LookupRequest(request);
  int slot = HandleIndex(request);
  RequestInUse()[slot] = false;
  FreeRequestSlots().push_back(slot);
}

void SetStatus(MPI_Status* status, int source, int tag, int error,
               std::uint64_t bytes) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->MPI_ERROR = error;
  status->bdmpi_cancelled = 0;
  status->bdmpi_count = static_cast<long long>(bytes);
}

void SetEmptyStatus(MPI_Status* status) {
  SetStatus(status, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0);
}

}  // namespace bdmpi
