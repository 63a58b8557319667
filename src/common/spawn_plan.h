// What MPI_Comm_spawn(_multiple)'s root asks its master to start
// (MsgType::kSpawn's payload), in one form both halves read and write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bdmpi {

struct SpawnCommand {
  std::string command;             // as the user gave it (resolved by the master)
  std::vector<std::string> args;   // argv[1..]
  int maxprocs = 1;
  int node = -1;                   // the node the info asks for; -1: the root's
};

struct SpawnPlan {
  std::vector<SpawnCommand> commands;

  int TotalRanks() const;
  // NUL-terminated fields: the count of commands, then per command its
  // maxprocs, node, command, argument count and arguments.
  std::vector<std::byte> Encode() const;
  // Throws Error(kErrArg) on bytes that are no plan.
  static SpawnPlan Decode(const std::byte* data, std::size_t bytes);
};

// A port (MPI_Open_port) names the rank that opened it, by job rank, and
// its count of ports: "bdmpi-port:<job id>:<job rank>:<count>".
std::string PortName(const std::string& job_id, int job_rank, std::uint32_t count);
// The port's id (job rank << 32 | count); throws Error(kErrPort) naming
// what is wrong when `name` is no port of job `job_id`.
std::uint64_t ParsePortName(const std::string& name, const std::string& job_id);
inline int PortRank(std::uint64_t port) { return static_cast<int>(port >> 32); }

}  // namespace bdmpi
