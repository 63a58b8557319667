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
  int node = -1;                   // the node info bdmpi_node asks for; -1: none
  std::string host;                // the host info `host` asks for; "": none
  std::string wdir;                // info `wdir`, absolute; "": the master's directory
};

struct SpawnPlan {
  std::vector<SpawnCommand> commands;

  int TotalRanks() const;
  // NUL-terminated fields: the count of commands, then per command its
  // maxprocs, node, host, wdir, command, argument count and arguments.
  std::vector<std::byte> Encode() const;
  // Throws Error(kErrArg) on bytes that are no plan.
  static SpawnPlan Decode(const std::byte* data, std::size_t bytes);
};

// Why the root's master refused a spawn (ReplyMsg::flag of kSpawn's reply
// with error MPI_ERR_SPAWN): a node had too little room (comm: the node,
// -1 for the job; bytes: ranks asked there; source: its room), the info
// `host` named no node (comm: the command), or a rank could not be started
// (the master's log says why).
enum SpawnRefusal : int { kSpawnNoRoom = 1, kSpawnNoHost = 2, kSpawnNotStarted = 3 };
// ReplyMsg::tag of a kSpawnNoRoom refusal while spawned ranks that may
// still exit hold slots: the root lets them run and asks again.
inline constexpr int kSpawnRoomSoon = 1;

// The node a command's info `host` names, given the job's nodes' host
// names in node order and the asking master's node: that node when `host`
// is its name or "localhost" (several nodes may share a host), else the
// first node of that name; -1 when no node has it.
int NodeOfHost(const std::string& host, const std::vector<std::string>& hosts, int own_node);

// The masters' dynamic-process messages to each other (dynamic_messages.cpp)
// are lists of NUL-terminated text fields, in the plan's encoding.
std::vector<std::byte> EncodeFields(const std::vector<std::string>& fields);
// Throws Error(kErrArg) when the last field is not terminated.
std::vector<std::string> DecodeFields(const std::byte* data, std::size_t bytes);

// A port (MPI_Open_port) names the rank that opened it, by job rank, its
// count of ports and the tag of its listening socket (an abstract Unix
// socket no other process can guess before it exists, slave/comm/cross_job.h),
// and, when its host has a network address, the TCP endpoint other hosts
// reach it at (whose callers prove they read the name by sending the tag):
// "bdmpi-port:<job id>:<job rank>:<count>:<tag in hex>[:<IPv4>:<TCP port>]".
std::string PortName(const std::string& job_id, int job_rank, std::uint32_t count,
                     std::uint64_t tag, const std::string& tcp = {});
struct PortAddress {
  std::string job;
  int rank = 0;
  std::uint32_t count = 0;
  std::uint64_t tag = 0;
  std::string tcp;  // "<IPv4>:<TCP port>", or empty
};
// Throws Error(kErrPort) naming what is wrong when `name` is no port name;
// trailing blanks and newlines are ignored.
PortAddress ParsePort(const std::string& name);
// The port's id (job rank << 32 | count); throws Error(kErrPort) naming
// what is wrong when `name` is no port of job `job_id`.
std::uint64_t ParsePortName(const std::string& name, const std::string& job_id);
inline int PortRank(std::uint64_t port) { return static_cast<int>(port >> 32); }

}  // namespace bdmpi
