// Communicators that no split over a common parent makes: their members
// agree on the id and each node's tag channel among themselves with
// point-to-point messages, and each tells its master
// (MsgType::kCommNewId, kCommChannel, kCommMembers; the master's half is src/master/comm/comm_register.cpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "slave/runtime/objects.h"

namespace bdmpi {

// The three registration steps (MsgType::kCommNewId, kCommChannel,
// kCommMembers). A fresh communicator id, led by
// this rank; this node's channel for communicator `id`; and the members
// (world rank << 32 | its node's channel, by rank), which this rank's
// master adds the communicator with.
int NewCommId();
int NodeChannelFor(int id);
void RegisterMembers(int id, const std::vector<std::uint64_t>& entries);

// Makes a communicator of `world_ranks` (the members by their new rank;
// this rank among them). They talk on `exchange`'s collective twin, where
// member i is rank exchange_ranks[i], with internal tag `tag`; member 0
// leads. Returns the new id; every member must call it.
int AgreeOnComm(const CommInfo& exchange, const std::vector<int>& exchange_ranks,
                const std::vector<int>& world_ranks, int tag);

// The same with the two rounds' tags given.
int AgreeOnCommTags(const CommInfo& exchange, const std::vector<int>& exchange_ranks,
                    const std::vector<int>& world_ranks, int id_tag, int channel_tag);

// MPI_Comm_create_from_group: the members of `group` (world ranks) agree
// over MPI_COMM_WORLD's twin, on internal tags derived from `stringtag` and
// the group, so calls with the same group and tag make one communicator
// and calls with other tags or groups never mix.
MPI_Comm CommCreateFromGroup(MPI_Group group, const char* stringtag, MPI_Info info,
                             MPI_Errhandler errhandler);

// MPI_Intercomm_create_from_groups: MPI_Comm_create_from_group of the
// local group, then MPI_Intercomm_create over MPI_COMM_WORLD's twin with a
// leaders' tag derived from `stringtag` and both groups.
MPI_Comm IntercommCreateFromGroups(MPI_Group local_group, int local_leader,
                                   MPI_Group remote_group, int remote_leader,
                                   const char* stringtag, MPI_Info info,
                                   MPI_Errhandler errhandler);

// MPI_Comm_create_group: only the members of `group` (a subgroup of
// comm's) call it; `tag` tells concurrent calls on one communicator apart.
MPI_Comm CommCreateGroup(MPI_Comm comm, MPI_Group group, int tag);

}  // namespace bdmpi
