// The extern "C" entry points of requests and statuses: completion
// (MPI_Wait, MPI_Test and their any/some/all forms), MPI_Request_free,
// MPI_Cancel and MPI_Request_get_status (MPI-3.1 3.7-3.8) with MPI-4.1's
// _all, _any and _some, generalized requests and the statuses a program
// reads and sets (MPI-3.1 12.2-12.3, MPI-4.1's MPI_Status_get/set_*).
#include <mpi.h>

#include <algorithm>
#include <vector>

#include "common/error.h"
#include "slave/datatype/datatypes.h"
#include "slave/request/completion.h"
#include "slave/request/generalized.h"
#include "slave/request/request.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/request_guard.h"

using bdmpi::Error;
using bdmpi::Guard;

namespace {

void ThrowIfRecvTruncated(int error_class) {
  if (error_class != MPI_SUCCESS) throw Error(error_class, "message truncated");
}

// The wire bytes of `elements` basic elements of `datatype`, which
// MPI_Get_elements of the status then gives back (a derived type's
// elements are taken as equally sized).
long long BytesOfElements(MPI_Count elements, MPI_Datatype datatype) {
  if (elements < 0) throw Error(bdmpi::kErrCount, "negative element count");
  const bdmpi::TypeInfo& type = bdmpi::LookupType(datatype);
  auto per_element = static_cast<MPI_Count>(bdmpi::ElementsOf(type.size, datatype));
  if (per_element <= 0) return 0;
  auto wire = static_cast<MPI_Count>(type.size);
  return (elements / per_element) * wire + (elements % per_element) * (wire / per_element);
}

// MPI_Request_get_status of one request of an array; `active` says whether
// it is a request in progress (not null, not an inactive persistent one).
struct Peeked {
  bool active = false;
  bool done = false;
  int error = MPI_SUCCESS;
};

Peeked Peek(MPI_Request request, MPI_Status* status) {
  Peeked peeked;
  peeked.active = request != MPI_REQUEST_NULL && bdmpi::LookupRequest(request).active;
  int flag = 0;
  peeked.error = bdmpi::RequestGetStatus(request, &flag, status);
  peeked.done = flag != 0;
  if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = peeked.error;
  return peeked;
}

void CheckCount(int count) {
  if (count < 0) throw Error(bdmpi::kErrCount, "negative number of requests");
}

template <class Field>
int GetField(const char* function, const MPI_Status* status, int* value, Field field) {
  return Guard(function, MPI_COMM_WORLD, [&] {
    if (status == MPI_STATUS_IGNORE || value == nullptr)
      throw Error(bdmpi::kErrArg, "the status or the output is null (MPI_STATUS_IGNORE)");
    *value = field(*status);
  });
}

template <class Field>
int SetField(const char* function, MPI_Status* status, Field field) {
  return Guard(function, MPI_COMM_WORLD, [&] {
    if (status == MPI_STATUS_IGNORE)
      throw Error(bdmpi::kErrArg, "the status is null (MPI_STATUS_IGNORE)");
    field(*status);
  });
}

}  // namespace

extern "C" {

#pragma weak MPI_Wait = PMPI_Wait
int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  return bdmpi::GuardRequest(
      "MPI_Wait", [&] { return bdmpi::RequestComm(*request); },
      [&] {
        int error = bdmpi::Wait(request, status);
        if (error != MPI_SUCCESS)
          throw Error(error, "message truncated");
      });
}

#pragma weak MPI_Test = PMPI_Test
int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  return bdmpi::GuardRequest(
      "MPI_Test", [&] { return bdmpi::RequestComm(*request); },
      [&] {
        int error = bdmpi::Test(request, flag, status);
        if (error != MPI_SUCCESS)
          throw Error(error, "message truncated");
      });
}

#pragma weak MPI_Waitall = PMPI_Waitall
int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  return bdmpi::GuardRequest(
      "MPI_Waitall", [&] { return bdmpi::RequestsComm(count, requests); },
      [&] {
        if (bdmpi::Waitall(count, requests, statuses) != MPI_SUCCESS)
          throw Error(bdmpi::kErrInStatus, "a request failed; see its status");
      });
}

#pragma weak MPI_Waitany = PMPI_Waitany
int PMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  return bdmpi::GuardRequest(
      "MPI_Waitany", [&] { return bdmpi::RequestsComm(count, requests); },
      [&] {
        int error = bdmpi::Waitany(count, requests, index, status);
        if (error != MPI_SUCCESS)
          throw Error(error, "message truncated");
      });
}

#pragma weak MPI_Testany = PMPI_Testany
int PMPI_Testany(int count, MPI_Request requests[], int* index, int* flag,
                MPI_Status* status) {
  return bdmpi::GuardRequest(
      "MPI_Testany", [&] { return bdmpi::RequestsComm(count, requests); },
      [&] {
        int error = bdmpi::Testany(count, requests, index, flag, status);
        if (error != MPI_SUCCESS)
          throw Error(error, "message truncated");
      });
}

#pragma weak MPI_Waitsome = PMPI_Waitsome
int PMPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  return bdmpi::GuardRequest(
      "MPI_Waitsome", [&] { return bdmpi::RequestsComm(incount, requests); },
      [&] {
        if (bdmpi::Waitsome(incount, requests, outcount, indices, statuses) !=
            MPI_SUCCESS)
          throw Error(bdmpi::kErrInStatus, "a request failed; see its status");
      });
}

#pragma weak MPI_Testsome = PMPI_Testsome
int PMPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  return bdmpi::GuardRequest(
      "MPI_Testsome", [&] { return bdmpi::RequestsComm(incount, requests); },
      [&] {
        if (bdmpi::Testsome(incount, requests, outcount, indices, statuses) !=
            MPI_SUCCESS)
          throw Error(bdmpi::kErrInStatus, "a request failed; see its status");
      });
}

#pragma weak MPI_Testall = PMPI_Testall
int PMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  return bdmpi::GuardRequest(
      "MPI_Testall", [&] { return bdmpi::RequestsComm(count, requests); },
      [&] {
        if (bdmpi::Testall(count, requests, flag, statuses) != MPI_SUCCESS)
          throw Error(bdmpi::kErrInStatus, "a request failed; see its status");
      });
}

#pragma weak MPI_Request_free = PMPI_Request_free
int PMPI_Request_free(MPI_Request* request) {
  return bdmpi::GuardRequest(
      "MPI_Request_free", [&] { return bdmpi::RequestComm(*request); },
      [&] { bdmpi::RequestFree(request); });
}

#pragma weak MPI_Cancel = PMPI_Cancel
int PMPI_Cancel(MPI_Request* request) {
  return bdmpi::GuardRequest(
      "MPI_Cancel", [&] { return bdmpi::RequestComm(*request); },
      [&] { bdmpi::Cancel(request); });
}

#pragma weak MPI_Request_get_status = PMPI_Request_get_status
int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  return bdmpi::GuardRequest(
      "MPI_Request_get_status", [&] { return bdmpi::RequestComm(request); },
      [&] {
        ThrowIfRecvTruncated(bdmpi::RequestGetStatus(request, flag, status));
      });
}

#pragma weak MPI_Request_get_status_all = PMPI_Request_get_status_all
int PMPI_Request_get_status_all(int count, const MPI_Request requests[], int* flag,
                                MPI_Status statuses[]) {
  return bdmpi::GuardRequest(
      "MPI_Request_get_status_all", [&] { return bdmpi::RequestsComm(count, requests); },
      [&] {
        CheckCount(count);
        // The statuses are written only once every request is complete.
        std::vector<MPI_Status> peeked(static_cast<std::size_t>(count));
        bool failed = false;
        for (int i = 0; i < count; ++i) {
          Peeked one = Peek(requests[i], &peeked[static_cast<std::size_t>(i)]);
          if (!one.done) {
            *flag = 0;
            return;
          }
          failed = failed || one.error != MPI_SUCCESS;
        }
        *flag = 1;
        if (statuses != MPI_STATUSES_IGNORE)
          std::copy(peeked.begin(), peeked.end(), statuses);
        if (failed) throw Error(bdmpi::kErrInStatus, "a request failed; see its status");
      });
}

#pragma weak MPI_Request_get_status_any = PMPI_Request_get_status_any
int PMPI_Request_get_status_any(int count, const MPI_Request requests[], int* index,
                                int* flag, MPI_Status* status) {
  return bdmpi::GuardRequest(
      "MPI_Request_get_status_any", [&] { return bdmpi::RequestsComm(count, requests); },
      [&] {
        CheckCount(count);
        bool any_active = false;
        *index = MPI_UNDEFINED;
        for (int i = 0; i < count; ++i) {
          MPI_Status peeked;
          Peeked one = Peek(requests[i], &peeked);
          if (!one.active) continue;
          any_active = true;
          if (!one.done) continue;
          *index = i;
          *flag = 1;
          if (status != MPI_STATUS_IGNORE) *status = peeked;
          if (one.error != MPI_SUCCESS) throw Error(one.error, "the request failed");
          return;
        }
        // MPI: with no active request the call says so at once, with an
        // empty status.
        *flag = any_active ? 0 : 1;
        if (!any_active) bdmpi::SetEmptyStatus(status);
      });
}

#pragma weak MPI_Request_get_status_some = PMPI_Request_get_status_some
int PMPI_Request_get_status_some(int incount, const MPI_Request requests[], int* outcount,
                                 int indices[], MPI_Status statuses[]) {
  return bdmpi::GuardRequest(
      "MPI_Request_get_status_some", [&] { return bdmpi::RequestsComm(incount, requests); },
      [&] {
        CheckCount(incount);
        bool any_active = false;
        bool failed = false;
        int done = 0;
        for (int i = 0; i < incount; ++i) {
          MPI_Status peeked;
          Peeked one = Peek(requests[i], &peeked);
          if (!one.active) continue;
          any_active = true;
          if (!one.done) continue;
          indices[done] = i;
          if (statuses != MPI_STATUSES_IGNORE) statuses[done] = peeked;
          failed = failed || one.error != MPI_SUCCESS;
          ++done;
        }
        *outcount = any_active ? done : MPI_UNDEFINED;
        if (failed) throw Error(bdmpi::kErrInStatus, "a request failed; see its status");
      });
}

#pragma weak MPI_Status_get_source = PMPI_Status_get_source
int PMPI_Status_get_source(const MPI_Status* status, int* source) {
  return GetField("MPI_Status_get_source", status, source,
                  [](const MPI_Status& s) { return s.MPI_SOURCE; });
}

#pragma weak MPI_Status_set_source = PMPI_Status_set_source
int PMPI_Status_set_source(MPI_Status* status, int source) {
  return SetField("MPI_Status_set_source", status,
                  [source](MPI_Status& s) { s.MPI_SOURCE = source; });
}

#pragma weak MPI_Status_get_tag = PMPI_Status_get_tag
int PMPI_Status_get_tag(const MPI_Status* status, int* tag) {
  return GetField("MPI_Status_get_tag", status, tag,
                  [](const MPI_Status& s) { return s.MPI_TAG; });
}

#pragma weak MPI_Status_set_tag = PMPI_Status_set_tag
int PMPI_Status_set_tag(MPI_Status* status, int tag) {
  return SetField("MPI_Status_set_tag", status, [tag](MPI_Status& s) { s.MPI_TAG = tag; });
}

#pragma weak MPI_Status_get_error = PMPI_Status_get_error
int PMPI_Status_get_error(const MPI_Status* status, int* error) {
  return GetField("MPI_Status_get_error", status, error,
                  [](const MPI_Status& s) { return s.MPI_ERROR; });
}

#pragma weak MPI_Status_set_error = PMPI_Status_set_error
int PMPI_Status_set_error(MPI_Status* status, int error) {
  return SetField("MPI_Status_set_error", status,
                  [error](MPI_Status& s) { s.MPI_ERROR = error; });
}

#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  *flag = status->bdmpi_cancelled;
  return MPI_SUCCESS;
}

#pragma weak MPI_Grequest_start = PMPI_Grequest_start
int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn,
                        MPI_Grequest_free_function* free_fn,
                        MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                        MPI_Request* request) {
  return Guard("MPI_Grequest_start", MPI_COMM_WORLD, [&] {
    *request = bdmpi::GrequestStart(query_fn, free_fn, cancel_fn, extra_state);
  });
}

#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
int PMPI_Grequest_complete(MPI_Request request) {
  return Guard("MPI_Grequest_complete", MPI_COMM_WORLD,
               [&] { bdmpi::GrequestComplete(request); });
}

#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  status->bdmpi_cancelled = flag != 0;
  return MPI_SUCCESS;
}

#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return Guard("MPI_Status_set_elements", MPI_COMM_WORLD,
               [&] { status->bdmpi_count = BytesOfElements(count, datatype); });
}

#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x
int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return Guard("MPI_Status_set_elements_x", MPI_COMM_WORLD,
               [&] { status->bdmpi_count = BytesOfElements(count, datatype); });
}

}  // extern "C"
