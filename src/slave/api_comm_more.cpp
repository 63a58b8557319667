// MPI entry points for communicators beyond creation by split:
// MPI_Comm_create_group, MPI_Comm_idup (and its MPI-4 _with_info form),
// communicator hints, and intercommunicators (intercomm.h).
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "slave/collectives.h"
#include "slave/comm.h"
#include "slave/comm_idup.h"
#include "slave/comm_register.h"
#include "slave/errors.h"
#include "slave/info.h"
#include "slave/intercomm.h"
#include "slave/objects.h"

using bdmpi::Error;
using bdmpi::Guard;

namespace {

void SetHints(MPI_Comm comm, MPI_Info info) {
  bdmpi::CheckInfoArgument(info);
  bdmpi::LookupComm(comm).hints =
      info == MPI_INFO_NULL ? bdmpi::InfoEntries{} : bdmpi::LookupInfo(info);
}

// The remote group's world ranks; MPI_ERR_COMM for an intracommunicator.
const std::vector<int>& RemoteGroup(MPI_Comm comm) {
  bdmpi::RequireInitialized();
  const bdmpi::CommInfo& info = bdmpi::LookupComm(comm);
  if (!info.inter) throw Error(MPI_ERR_COMM, "an intracommunicator has no remote group");
  return info.remote_world_ranks;
}

}  // namespace

extern "C" {

#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  return Guard("MPI_Comm_create_group", comm,
               [&] { *newcomm = bdmpi::CommCreateGroup(comm, group, tag); });
}

#pragma weak MPI_Comm_idup = PMPI_Comm_idup
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  return Guard("MPI_Comm_idup", comm, [&] {
    *request = bdmpi::CommIdup(comm, std::nullopt, newcomm);
  });
}

#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm,
                             MPI_Request* request) {
  return Guard("MPI_Comm_idup_with_info", comm, [&] {
    bdmpi::CheckInfoArgument(info);
    *request = bdmpi::CommIdup(
        comm, info == MPI_INFO_NULL ? bdmpi::InfoEntries{} : bdmpi::LookupInfo(info), newcomm);
  });
}

#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect
int PMPI_Comm_disconnect(MPI_Comm* comm) {
  // Without dynamic processes there is nobody to detach from: what is left
  // is the wait for the other members (MPI-3.1 10.5.4) and the free.
  return Guard("MPI_Comm_disconnect", *comm, [&] {
    bdmpi::Barrier(*comm);
    bdmpi::CommFree(comm);
  });
}

#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  return Guard("MPI_Comm_set_info", comm, [&] {
    bdmpi::RequireInitialized();
    if (info == MPI_INFO_NULL) throw Error(MPI_ERR_INFO, "MPI_INFO_NULL is not an info object");
    SetHints(comm, info);
  });
}

#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  return Guard("MPI_Comm_get_info", comm, [&] {
    bdmpi::RequireInitialized();
    *info_used = bdmpi::NewInfo(bdmpi::LookupComm(comm).hints);
  });
}

#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  return Guard("MPI_Comm_test_inter", comm, [&] {
    bdmpi::RequireInitialized();
    *flag = bdmpi::LookupComm(comm).inter;
  });
}

#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  return Guard("MPI_Comm_remote_size", comm,
               [&] { *size = static_cast<int>(RemoteGroup(comm).size()); });
}

#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  return Guard("MPI_Comm_remote_group", comm, [&] { *group = bdmpi::NewGroup(RemoteGroup(comm)); });
}

#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm* newintercomm) {
  return Guard("MPI_Intercomm_create", local_comm, [&] {
    *newintercomm = bdmpi::IntercommCreate(local_comm, local_leader, peer_comm, remote_leader, tag);
  });
}

#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  return Guard("MPI_Intercomm_merge", intercomm,
               [&] { *newintracomm = bdmpi::IntercommMerge(intercomm, high); });
}

#pragma weak MPI_Info_create_env = PMPI_Info_create_env
int PMPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  (void)argc;
  (void)argv;
  // MPI-4.0 9.3: a copy of MPI_INFO_ENV, callable before MPI_Init too.
  return Guard("MPI_Info_create_env", MPI_COMM_WORLD,
               [&] { *info = bdmpi::NewInfo(bdmpi::LookupInfo(MPI_INFO_ENV)); });
}

#pragma weak MPI_Info_get_string = PMPI_Info_get_string
int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  return Guard("MPI_Info_get_string", MPI_COMM_WORLD, [&] {
    const std::string* found = bdmpi::FindInfo(info, key);
    *flag = found != nullptr;
    if (found == nullptr) return;
    // MPI-4.0 9.4: at most *buflen - 1 characters and the null; *buflen
    // becomes the length the whole value needs.
    int room = *buflen;
    if (room > 0) {
      std::size_t length = std::min<std::size_t>(found->size(), static_cast<std::size_t>(room - 1));
      std::memcpy(value, found->data(), length);
      value[length] = '\0';
    }
    *buflen = static_cast<int>(found->size()) + 1;
  });
}

}  // extern "C"
