// The extern "C" entry points of point-to-point beyond api.cpp's:
// synchronous sends, cancellation, matched probes, request status,
// generalized requests, statuses set by the program, MPI-4's non-blocking sendrecv and buffer
// flushes. Each is PMPI_name with MPI_name a weak
// alias, as in api.cpp.
#include <mpi.h>

#include "common/error.h"
#include "slave/bsend_buffer.h"
#include "slave/datatypes.h"
#include "slave/errors.h"
#include "slave/objects.h"
#include "slave/p2p.h"
#include "slave/p2p_more.h"

using bdmpi::Error;
using bdmpi::Guard;
using bdmpi::SendMode;

namespace {

void ThrowIfTruncated(int error_class) {
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

}  // namespace

extern "C" {

#pragma weak MPI_Ssend = PMPI_Ssend
int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return Guard("MPI_Ssend", comm, [&] {
    bdmpi::Send(buf, count, datatype, dest, tag, comm, SendMode::kSynchronous);
  });
}

#pragma weak MPI_Issend = PMPI_Issend
int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Issend", comm, [&] {
    *request = bdmpi::Isend(buf, count, datatype, dest, tag, comm, SendMode::kSynchronous);
  });
}

#pragma weak MPI_Ssend_init = PMPI_Ssend_init
int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Ssend_init", comm, [&] {
    *request = bdmpi::SendInit(buf, count, datatype, dest, tag, comm, SendMode::kSynchronous);
  });
}

#pragma weak MPI_Cancel = PMPI_Cancel
int PMPI_Cancel(MPI_Request* request) {
  return Guard("MPI_Cancel", bdmpi::RequestComm(*request), [&] { bdmpi::Cancel(request); });
}

#pragma weak MPI_Request_get_status = PMPI_Request_get_status
int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  return Guard("MPI_Request_get_status", bdmpi::RequestComm(request), [&] {
    ThrowIfTruncated(bdmpi::RequestGetStatus(request, flag, status));
  });
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message,
                MPI_Status* status) {
  return Guard("MPI_Mprobe", comm,
               [&] { *message = bdmpi::Mprobe(source, tag, comm, status); });
}

#pragma weak MPI_Improbe = PMPI_Improbe
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                 MPI_Status* status) {
  return Guard("MPI_Improbe", comm, [&] {
    *message = bdmpi::Improbe(source, tag, comm, status);
    *flag = *message != MPI_MESSAGE_NULL;
  });
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
               MPI_Status* status) {
  return Guard("MPI_Mrecv", bdmpi::MessageComm(*message), [&] {
    ThrowIfTruncated(bdmpi::Mrecv(buf, count, datatype, message, status));
  });
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                MPI_Request* request) {
  return Guard("MPI_Imrecv", bdmpi::MessageComm(*message),
               [&] { *request = bdmpi::Imrecv(buf, count, datatype, message); });
}

// Sends are copied out when they are made, so the send half of these is
// complete at once and the request is the receive's.
#pragma weak MPI_Isendrecv = PMPI_Isendrecv
int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return Guard("MPI_Isendrecv", comm, [&] {
    bdmpi::Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
    *request = bdmpi::Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm);
  });
}

#pragma weak MPI_Isendrecv_replace = PMPI_Isendrecv_replace
int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest,
                           int sendtag, int source, int recvtag, MPI_Comm comm,
                           MPI_Request* request) {
  return Guard("MPI_Isendrecv_replace", comm, [&] {
    bdmpi::Send(buf, count, datatype, dest, sendtag, comm);
    *request = bdmpi::Irecv(buf, count, datatype, source, recvtag, comm);
  });
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

// Wait for the buffered messages to be received (slave/bsend_buffer.h).
#pragma weak MPI_Buffer_flush = PMPI_Buffer_flush
int PMPI_Buffer_flush(void) {
  return Guard("MPI_Buffer_flush", MPI_COMM_WORLD, [] {
    bdmpi::RequireInitialized();
    bdmpi::FlushBuffered();
  });
}

#pragma weak MPI_Buffer_iflush = PMPI_Buffer_iflush
int PMPI_Buffer_iflush(MPI_Request* request) {
  return Guard("MPI_Buffer_iflush", MPI_COMM_WORLD, [&] {
    bdmpi::RequireInitialized();
    *request = bdmpi::IflushBuffered();
  });
}

#pragma weak MPI_Message_c2f = PMPI_Message_c2f
MPI_Fint PMPI_Message_c2f(MPI_Message message) { return static_cast<MPI_Fint>(message); }

#pragma weak MPI_Message_f2c = PMPI_Message_f2c
MPI_Message PMPI_Message_f2c(MPI_Fint message) { return static_cast<MPI_Message>(message); }

}  // extern "C"
