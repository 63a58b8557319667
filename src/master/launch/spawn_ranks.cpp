// The master's half of dynamic processes: MPI_Comm_spawn(_multiple)'s root
// asks its master (MsgType::kSpawn) to start ranks in the node's reserved
// slots (common/rank_layout.h), and the node's published names
// (kPublishName, kLookupName, kUnpublishName). The slave's half is
// src/slave/comm/dynamic.cpp; docs/processes.md, "Dynamic processes".
#include <signal.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "common/job_names.h"
#include "common/log.h"
#include "common/program_path.h"
#include "common/spawn_plan.h"
#include "master/master.h"

namespace bdmpi {

void Master::HandleSpawn(Slave& slave, const RequestMsg& request,
                         const std::byte* inline_payload) {
  std::vector<std::byte> bytes(request.bytes);
  payloads_.Read(request, io_->Window(slave.index), inline_payload, bytes.data(), bytes.size());
  ReplyMsg reply;
  reply.type = request.type;
  SpawnPlan plan;
  std::vector<std::string> paths;
  try {
    plan = SpawnPlan::Decode(bytes.data(), bytes.size());
    for (const SpawnCommand& command : plan.commands) {
      if (command.node >= 0 && command.node != node_)
        throw Error(kErrSpawn, "node " + std::to_string(command.node));
      paths.push_back(ResolveProgram(command.command));
    }
  } catch (const Error& error) {
    // The root checked the commands and nodes already; what changed since
    // (a program removed) is MPI_ERR_SPAWN all the same.
    BDMPI_WARN("sched", "MPI_Comm_spawn of rank %d refused: %s", slave.world_rank, error.what());
    reply.error = kErrSpawn;
    reply.source = -1;
    Reply(slave, reply);
    return;
  }
  if (next_spawn_slot_ < layout_.Count(node_)) next_spawn_slot_ = layout_.Count(node_);
  int free_slots = layout_.SlotCount(node_) - next_spawn_slot_;
  int total = plan.TotalRanks();
  if (total > free_slots) {
    reply.error = kErrSpawn;
    reply.source = free_slots;  // the root's message says how many were left
    Reply(slave, reply);
    return;
  }
  int first_slot = next_spawn_slot_;
  int first = layout_.JobRankOfSlot(node_, first_slot);
  // The intercommunicator's tag is the first rank's job rank: unique in
  // the job, and known to both sides. Each spawned rank's MPI_COMM_SELF and their MPI_COMM_WORLD, before any
  // of them can send on them.
  std::vector<int> world;
  for (int i = 0; i < total; ++i) {
    int job_rank = layout_.JobRankOfSlot(node_, first_slot + i);
    world.push_back(job_rank);
    comms_.Add(CommId(job_rank, 0, layout_.universe_size()), {job_rank});
  }
  comms_.Add(CommId(first, kSpawnWorldCreation, layout_.universe_size()), world);
  next_spawn_slot_ += total;
  int started = 0;
  try {
    int appnum = 0;
    for (std::size_t c = 0; c < plan.commands.size(); ++c, ++appnum) {
      const SpawnCommand& command = plan.commands[c];
      std::vector<std::string> env = RankEnvironment(paths[c]);
      env.push_back(std::string(kEnvSpawn) + "=" + std::to_string(first) + " " +
                    std::to_string(total) + " " + std::to_string(request.peer) + " " +
                    std::to_string(first) + " " + std::to_string(appnum));
      std::vector<std::string> argv = {command.command};
      argv.insert(argv.end(), command.args.begin(), command.args.end());
      for (int i = 0; i < command.maxprocs; ++i) {
        Slave& child = slaves_[first_slot + started];
        slaves_.Revive(child);
        try {
          StartRank(child, paths[c], argv, env);
        } catch (...) {
          slaves_.MarkExited(child);
          throw;
        }
        ++started;
      }
    }
  } catch (const Error& error) {
    // exec failed after the checks: the ranks of this spawn that started
    // go again, and the root hears MPI_ERR_SPAWN.
    BDMPI_WARN("sched", "MPI_Comm_spawn of rank %d failed: %s", slave.world_rank, error.what());
    for (int i = 0; i < started; ++i) {
      Slave& child = slaves_[first_slot + i];
      child.discarded = true;
      kill(child.pid, SIGKILL);
    }
    reply.error = kErrSpawn;
    reply.source = -1;
    Reply(slave, reply);
    return;
  }
  BDMPI_DEBUG("sched", "rank %d spawned ranks %d-%d", slave.world_rank, first,
              first + total - 1);
  reply.tag = first;
  reply.source = total;
  Reply(slave, reply);
}

std::string Master::ServiceName(const Slave& slave, const RequestMsg& request,
                                const std::byte* inline_payload) {
  std::string name(request.bytes, '\0');
  payloads_.Read(request, io_->Window(slave.index), inline_payload, name.data(), name.size());
  return name;
}

void Master::HandlePublishName(Slave& slave, const RequestMsg& request,
                               const std::byte* inline_payload) {
  std::string name = ServiceName(slave, request, inline_payload);
  ReplyMsg reply;
  reply.type = request.type;
  if (!published_.emplace(name, request.id).second) reply.error = kErrName;
  Reply(slave, reply);
}

void Master::HandleLookupName(Slave& slave, const RequestMsg& request,
                              const std::byte* inline_payload) {
  auto found = published_.find(ServiceName(slave, request, inline_payload));
  ReplyMsg reply;
  reply.type = request.type;
  if (found == published_.end()) {
    reply.error = kErrName;
  } else {
    reply.bytes = found->second;
  }
  Reply(slave, reply);
}

void Master::HandleUnpublishName(Slave& slave, const RequestMsg& request,
                                 const std::byte* inline_payload) {
  auto found = published_.find(ServiceName(slave, request, inline_payload));
  ReplyMsg reply;
  reply.type = request.type;
  if (found == published_.end() || found->second != request.id) {
    reply.error = kErrName;
  } else {
    published_.erase(found);
  }
  Reply(slave, reply);
}

}  // namespace bdmpi
