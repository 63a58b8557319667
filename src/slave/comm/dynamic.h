// Dynamic processes (MPI-4.1 chapter 11.8-11.10): MPI_Comm_spawn(_multiple)
// and MPI_Comm_get_parent, ports, name publishing and MPI_Comm_join. Every
// intercommunicator they make is MPI_Intercomm_create's (intercomm.h) with
// the hidden communicator of all job ranks as the peer (UniverseComm), so
// it works with everything intercommunicators do. The master's half is
// src/master/launch/spawn_ranks.cpp; docs/processes.md, "Dynamic processes".
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "common/spawn_plan.h"

namespace bdmpi {

// At the connection of a spawned rank: the intercommunicator to its
// parents (collective over its MPI_COMM_WORLD, which the parents' spawn
// call waits for). Does nothing in a rank that was not spawned.
void ConnectToParents();
MPI_Comm CommGetParent();
// Called by MPI_Comm_free and MPI_Comm_disconnect of `comm`.
void ForgetParent(MPI_Comm comm);

// `make_plan` is called at the root only, with how many ranks are asked
// for to set before anything else; an error it throws reaches every rank.
// `errcodes` (may be null) gets one code per rank asked for.
MPI_Comm CommSpawn(const std::function<SpawnPlan(int& asked)>& make_plan, int root,
                   MPI_Comm comm, int* errcodes);
// The root's plan of MPI_Comm_spawn(_multiple)'s arguments (the commands
// checked, the info read); throws MPI_ERR_SPAWN or MPI_ERR_ARG naming
// what is wrong, once `asked` holds how many ranks the arguments ask for.
SpawnPlan PlanSpawn(int count, char* commands[], char** argvs[], const int maxprocs[],
                    const MPI_Info infos[], int& asked);

std::string OpenPort();
void ClosePort(const std::string& port);
MPI_Comm CommAccept(const std::string& port, int root, MPI_Comm comm);
MPI_Comm CommConnect(const std::string& port, int root, MPI_Comm comm);
void PublishName(const std::string& service, const std::string& port);
void UnpublishName(const std::string& service, const std::string& port);
std::string LookupName(const std::string& service);
MPI_Comm CommJoin(int fd);

}  // namespace bdmpi
