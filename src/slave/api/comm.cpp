// The extern "C" entry points of communicators (MPI-3.1 chapter 6, groups
// aside): their creation (by split, from a group, duplication blocking or
// not), their names and hints, and intercommunicators (comm/intercomm.h).
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "slave/coll/collectives.h"
#include "slave/comm/comm.h"
#include "slave/comm/comm_idup.h"
#include "slave/comm/comm_register.h"
#include "slave/comm/dynamic.h"
#include "slave/comm/intercomm.h"
#include "slave/runtime/errors.h"
#include "slave/runtime/info.h"
#include "slave/runtime/objects.h"

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

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int* size) {
  return Guard("MPI_Comm_size", comm, [&] {
    bdmpi::RequireInitialized();
    *size = bdmpi::LookupComm(comm).size;
  });
}

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  return Guard("MPI_Comm_rank", comm, [&] {
    bdmpi::RequireInitialized();
    *rank = bdmpi::LookupComm(comm).rank;
  });
}

#pragma weak MPI_Comm_split = PMPI_Comm_split
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return Guard("MPI_Comm_split", comm,
               [&] { *newcomm = bdmpi::CommSplit(comm, color, key); });
}

#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm* newcomm) {
  return Guard("MPI_Comm_split_type", comm, [&] {
    bdmpi::CheckInfoArgument(info);
    *newcomm = bdmpi::CommSplitType(comm, split_type, key, info);
  });
}

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return Guard("MPI_Comm_dup", comm, [&] { *newcomm = bdmpi::CommDup(comm); });
}

#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return Guard("MPI_Comm_dup_with_info", comm, [&] {
    bdmpi::CheckInfoArgument(info);
    *newcomm = bdmpi::CommDup(comm);
  });
}

#pragma weak MPI_Comm_create = PMPI_Comm_create
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return Guard("MPI_Comm_create", comm,
               [&] { *newcomm = bdmpi::CommCreate(comm, group); });
}

#pragma weak MPI_Comm_free = PMPI_Comm_free
int PMPI_Comm_free(MPI_Comm* comm) {
  return Guard("MPI_Comm_free", *comm, [&] {
    bdmpi::ForgetParent(*comm);
    bdmpi::CommFree(comm);
  });
}

#pragma weak MPI_Comm_compare = PMPI_Comm_compare
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  return Guard("MPI_Comm_compare", comm1,
               [&] { *result = bdmpi::CommCompare(comm1, comm2); });
}

#pragma weak MPI_Comm_group = PMPI_Comm_group
int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  return Guard("MPI_Comm_group", comm, [&] { *group = bdmpi::CommGroup(comm); });
}

#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
int PMPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
  return Guard("MPI_Comm_set_name", comm, [&] {
    bdmpi::RequireInitialized();
    bdmpi::LookupComm(comm).name = std::string(comm_name).substr(0, MPI_MAX_OBJECT_NAME - 1);
  });
}

#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
int PMPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
  return Guard("MPI_Comm_get_name", comm, [&] {
    bdmpi::RequireInitialized();
    // MPI-4.1 7.8: the null handle is named too.
    std::snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s",
                  comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : bdmpi::LookupComm(comm).name.c_str());
    *resultlen = static_cast<int>(std::strlen(comm_name));
  });
}

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
  // The processes of a job stay in it until they finalize, so there is
  // nothing to detach: what is left is the wait for the other members'
  // pending communication (MPI-4.1 11.10.4), a barrier, and the free.
  return Guard("MPI_Comm_disconnect", *comm, [&] {
    bdmpi::Barrier(*comm);
    bdmpi::ForgetParent(*comm);
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

}  // extern "C"
