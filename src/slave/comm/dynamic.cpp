// Dynamic processes; see dynamic.h.
#include "slave/comm/dynamic.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/program_path.h"
#include "common/protocol.h"
#include "common/rank_wiring.h"
#include "common/rendezvous.h"
#include "common/unique_fd.h"
#include "slave/coll/coll_p2p.h"
#include "slave/coll/collectives.h"
#include "slave/comm/cross_job.h"
#include "slave/comm/cross_job_mesh.h"
#include "slave/comm/intercomm.h"
#include "slave/p2p/p2p.h"
#include "slave/runtime/info.h"
#include "slave/runtime/objects.h"
#include "slave/runtime/runtime.h"

namespace bdmpi {
namespace {

// Tags of the leaders' messages on the universe communicator (through
// MPI_Intercomm_create's leader tag, 24 bits): a spawn's is its first
// child's job rank (below 2^22), a port's 2^22 + its count, a join's the
// one above.
constexpr int kPortTagBase = 1 << 22;
constexpr int kJoinTag = (1 << 23) - 1;
// A connecting root of this job tells the port's owner who it is, on the
// universe communicator, far above the leaders' tags.
constexpr int kTagPortKnock = 0x5a000000;

MPI_Comm parent = MPI_COMM_NULL;

const std::string& JobId() {
  static const std::string id = wiring::Require(Wire::kJobId);
  return id;
}

int PortTag(std::uint64_t port) {
  return kPortTagBase + static_cast<int>(port & ((1u << 21) - 1));
}

// The node a spawn's info asks for: `bdmpi_node` (an index, checked
// here) or `host` (a node's host name, which the root's master resolves).
void InfoNode(MPI_Info info, SpawnCommand& command) {
  if (info == MPI_INFO_NULL) return;
  Runtime* runtime = Runtime::Instance();
  if (const std::string* value = FindInfo(info, "bdmpi_node")) {
    char* end = nullptr;
    long asked = std::strtol(value->c_str(), &end, 10);
    if (value->empty() || *end != '\0' || asked < 0 || asked >= runtime->layout().nnodes())
      throw Error(kErrSpawn, "MPI_Comm_spawn: info bdmpi_node is '" + *value +
                                 "', not a node of this job (0 to " +
                                 std::to_string(runtime->layout().nnodes() - 1) + ")");
    command.node = static_cast<int>(asked);
  }
  if (const std::string* host = FindInfo(info, "host")) {
    if (command.node >= 0)
      throw Error(kErrSpawn, "MPI_Comm_spawn: info names both a host and a bdmpi_node; "
                             "give one of them");
    if (host->empty()) throw Error(kErrSpawn, "MPI_Comm_spawn: info host is empty");
    command.host = *host;
  }
}

// The spawned ranks' working directory, info `wdir` (MPI's reserved key;
// Open MPI and MPICH make it the children's working directory): a
// relative one is taken from this rank's working directory, as a bare
// program name is, and made absolute and canonical, so that every master
// enters the directory the root checked. Without it the ranks start where the
// master runs: the directory the job started in.
void InfoWdir(MPI_Info info, SpawnCommand& command) {
  if (info == MPI_INFO_NULL) return;
  const std::string* value = FindInfo(info, "wdir");
  if (value == nullptr) return;
  if (value->empty()) throw Error(kErrSpawn, "MPI_Comm_spawn: info wdir is empty");
  // Absolute (realpath takes a relative one from the working directory)
  // and canonical (no "." or ".."), so that it can be the ranks' PWD too.
  std::string dir;
  int why = 0;
  char* real = realpath(value->c_str(), nullptr);
  if (real == nullptr) {
    why = errno;
  } else {
    dir = real;
    std::free(real);
    struct stat status {};
    if (stat(dir.c_str(), &status) != 0) {
      why = errno;
    } else if (!S_ISDIR(status.st_mode)) {
      why = ENOTDIR;
    } else if (access(dir.c_str(), X_OK) != 0) {
      why = errno;
    }
  }
  if (why != 0)
    throw Error(kErrSpawn, "MPI_Comm_spawn: info wdir '" + *value +
                               "' is no directory the spawned ranks can enter (" +
                               std::strerror(why) + "); name an existing directory");
  command.wdir = dir;
}

// The program a spawn runs, found as mpiexec finds it: a name holding a
// '/' as it is, else in the info's `path` directories (MPI's reserved key,
// separated by ':'), then in PATH, then in this rank's working directory
// (Open MPI and MPICH both run a program there by its bare name). Made
// absolute, so that the masters run what the root checked, whatever their
// own directory.
std::string SpawnProgram(const std::string& command, MPI_Info info) {
  std::string found;
  if (command.find('/') == std::string::npos && info != MPI_INFO_NULL) {
    if (const std::string* dirs = FindInfo(info, "path")) {
      std::size_t start = 0;
      while (found.empty() && start <= dirs->size()) {
        std::size_t end = dirs->find(':', start);
        if (end == std::string::npos) end = dirs->size();
        std::string dir = dirs->substr(start, end - start);
        if (!dir.empty()) {
          try {
            found = ResolveProgram(dir + "/" + command);
          } catch (const Error&) {
          }
        }
        start = end + 1;
      }
    }
  }
  if (found.empty()) {
    try {
      found = ResolveProgram(command);
    } catch (const Error& not_in_path) {
      if (command.find('/') != std::string::npos) throw;
      try {
        found = ResolveProgram("./" + command);
      } catch (const Error&) {
        throw Error(kErrArg, std::string(not_in_path.what()) +
                                 ", the info's path or the working directory");
      }
    }
  }
  if (found[0] == '/') return found;
  std::vector<char> cwd(4096);
  if (getcwd(cwd.data(), cwd.size()) == nullptr) return found;
  return std::string(cwd.data()) + "/" + found;
}

// The spawn's outcome, the same at every rank of `comm`: error class,
// first job rank (or ranks left), how many.
struct Outcome {
  int error = 0;
  int first = 0;
  int count = 0;
};

// What the root's master said when it refused (common/spawn_plan.h).
std::string SpawnRefusalText(const ReplyMsg& reply, const SpawnPlan& plan, int universe) {
  std::string text = "MPI_Comm_spawn: ";
  switch (reply.flag) {
    case kSpawnNoRoom:
      return text + std::to_string(reply.bytes) + " ranks asked for " +
             (reply.comm >= 0 ? "on node " + std::to_string(reply.comm) + ", which has"
                              : std::string("across the job's nodes, which have")) +
             " room for " + std::to_string(reply.source) + " more (MPI_UNIVERSE_SIZE " +
             std::to_string(universe) +
             " at once, laid out over the nodes like -n; a spawned rank's place is free again "
             "once it has exited); start the job with a larger --universe";
    case kSpawnNoHost: {
      std::size_t c = static_cast<std::size_t>(reply.comm);
      return text + "info host '" + (c < plan.commands.size() ? plan.commands[c].host : "") +
             "' names no node of this job; name one of its nodes' hosts (or localhost), or "
             "a node by index with info bdmpi_node";
    }
    default:
      return text + "the masters could not start the ranks (a command that cannot be "
                    "executed" + (reply.comm >= 0 && reply.flag == kSpawnNotStarted
                                      ? " on node " + std::to_string(reply.comm)
                                      : std::string()) +
             "; the master's log says why)";
  }
}

}  // namespace

SpawnPlan PlanSpawn(int count, char* commands[], char** argvs[], const int maxprocs[],
                    const MPI_Info infos[], int& asked) {
  if (count < 1) throw Error(kErrArg, "MPI_Comm_spawn_multiple: count is " +
                                          std::to_string(count) + ", it needs at least 1");
  // So that array_of_errcodes is filled when a command or info is refused.
  asked = 0;
  for (int c = 0; c < count; ++c) asked += std::max(maxprocs[c], 0);
  SpawnPlan plan;
  for (int c = 0; c < count; ++c) {
    if (commands == nullptr || commands[c] == nullptr)
      throw Error(kErrArg, "MPI_Comm_spawn: command " + std::to_string(c) + " is NULL");
    if (maxprocs[c] < 0)
      throw Error(kErrArg, "MPI_Comm_spawn: maxprocs is " + std::to_string(maxprocs[c]));
    SpawnCommand command;
    try {
      command.command =
          SpawnProgram(commands[c], infos != nullptr ? infos[c] : MPI_INFO_NULL);
    } catch (const Error& error) {
      throw Error(kErrSpawn, std::string("MPI_Comm_spawn: ") + error.what());
    }
    if (argvs != nullptr && argvs[c] != MPI_ARGV_NULL)
      for (char** arg = argvs[c]; *arg != nullptr; ++arg) command.args.emplace_back(*arg);
    command.maxprocs = maxprocs[c];
    InfoNode(infos != nullptr ? infos[c] : MPI_INFO_NULL, command);
    InfoWdir(infos != nullptr ? infos[c] : MPI_INFO_NULL, command);
    plan.commands.push_back(std::move(command));
  }
  return plan;
}

MPI_Comm CommSpawn(const std::function<SpawnPlan(int& asked)>& make_plan, int root,
                   MPI_Comm comm, int* errcodes) {
  const CommInfo& info = LookupComm(comm);
  RequireIntracomm(info);
  if (root < 0 || root >= info.size)
    throw Error(kErrRoot, "MPI_Comm_spawn: root " + std::to_string(root) + " is not a rank of "
                          "the communicator (size " + std::to_string(info.size) + ")");
  Runtime* runtime = Runtime::Instance();
  Outcome outcome;
  std::string why;  // at the root, when it failed
  if (info.rank == root) {
    int total = 0;
    try {
      SpawnPlan plan = make_plan(total);
      std::vector<std::byte> bytes = plan.Encode();
      ReplyMsg reply;
      for (;;) {
        RequestMsg request;
        request.type = MsgType::kSpawn;
        request.peer = runtime->world_rank();
        runtime->StagePayload(bytes.data(), bytes.size(), request);
        reply = runtime->Call(request);
        // Earlier children that may still exit hold the room: they run,
        // then the masters look again (as Open MPI spawns once they are gone).
        if (reply.error == 0 || reply.flag != kSpawnNoRoom || reply.tag != kSpawnRoomSoon)
          break;
        YieldRunningSlot();
      }
      if (reply.error == 0) {
        outcome = {0, reply.tag, reply.source};
      } else {
        outcome = {kErrSpawn, 0, total};
        why = SpawnRefusalText(reply, plan, runtime->universe_size());
      }
    } catch (const Error& error) {
      outcome = {error.error_class(), 0, total};
      why = error.what();
    }
  }
  int shared[3] = {outcome.error, outcome.first, outcome.count};
  Bcast(shared, 3, MPI_INT, root, comm);
  outcome = {shared[0], shared[1], shared[2]};
  for (int i = 0; i < outcome.count && errcodes != MPI_ERRCODES_IGNORE; ++i)
    errcodes[i] = outcome.error != 0 ? MPI_ERR_SPAWN : MPI_SUCCESS;
  if (outcome.error != 0) {
    if (!why.empty()) throw Error(outcome.error, why);
    throw Error(outcome.error, "MPI_Comm_spawn failed at its root (rank " +
                                   std::to_string(root) + "), which says why");
  }
  if (outcome.count == 0) return MPI_COMM_NULL;
  return IntercommCreate(comm, root, UniverseComm(), outcome.first, outcome.first);
}

void ConnectToParents() {
  const auto& spawned = Runtime::Instance()->spawned();
  if (!spawned) return;
  parent = IntercommCreate(MPI_COMM_WORLD, 0, UniverseComm(), spawned->parent_leader,
                           spawned->tag);
  LookupComm(parent).name = "MPI_COMM_PARENT";
}

MPI_Comm CommGetParent() {
  return parent != MPI_COMM_NULL && FindComm(parent) != nullptr ? parent : MPI_COMM_NULL;
}

void ForgetParent(MPI_Comm comm) {
  if (comm == parent) parent = MPI_COMM_NULL;
}

std::string OpenPort() {
  static std::uint32_t ports = 0;
  std::uint64_t tag = RandomTag();
  int rank = Runtime::Instance()->world_rank();
  ++ports;
  return ListenOnPort(
      tag, [&](const std::string& tcp) { return PortName(JobId(), rank, ports, tag, tcp); });
}

void ClosePort(const std::string& port) {
  std::uint64_t id = ParsePortName(port, JobId());
  if (PortRank(id) != Runtime::Instance()->world_rank())
    throw Error(kErrPort, "MPI_Close_port: port '" + port + "' was opened by another rank");
  StopListening(port);
}

namespace {

// A port's error at the root of MPI_Comm_accept or _connect reaches every
// rank of the communicator (which would otherwise wait for the root).
void ShareRootError(int error, const std::string& why, const char* call, int root,
                    MPI_Comm comm) {
  int shared = error;
  Bcast(&shared, 1, MPI_INT, root, comm);
  if (shared == 0) return;
  if (!why.empty()) throw Error(shared, why);
  throw Error(shared, std::string(call) + " failed at its root (rank " + std::to_string(root) +
                          "), which says why");
}

// What the root of MPI_Comm_accept or _connect tells its group: whether
// the other side is of this job (then the other root's job rank and the
// port's tag, for MPI_Intercomm_create) or of another (cross_job.h).
struct PortPeer {
  int other_job = 0;
  int remote = 0;
  int tag = 0;
};

MPI_Comm JoinPortPeer(PortPeer peer, UniqueFd& link, bool accepting, int root, MPI_Comm comm) {
  Bcast(&peer, 3, MPI_INT, root, comm);
  if (peer.other_job == 0 && CrossJob(comm) != nullptr)
    throw Error(kErrUnsupportedOperation,
                std::string(accepting ? "MPI_Comm_accept" : "MPI_Comm_connect") +
                    " over a communicator between two jobs, with ranks of the root's own job "
                    "on the other side: BDMPI links such a communicator with other jobs only");
  if (peer.other_job == 0)
    return IntercommCreate(comm, root, UniverseComm(), peer.remote, peer.tag);
  return LinkJobs(link.get(), accepting, root, comm);
}

}  // namespace

MPI_Comm CommAccept(const std::string& port, int root, MPI_Comm comm) {
  const CommInfo& info = LookupComm(comm);
  RequireIntracomm(info);
  PortPeer peer;
  int error = 0;
  std::string why;
  if (info.rank == root) {
    try {
      std::uint64_t id = ParsePortName(port, JobId());
      if (PortRank(id) != Runtime::Instance()->world_rank())
        throw Error(kErrPort, "MPI_Comm_accept: port '" + port + "' was opened by another "
                              "rank; BDMPI accepts on a port at the rank that opened it");
      RequireListening(port);
      peer.tag = PortTag(id);
    } catch (const Error& failed) {
      error = failed.error_class();
      why = failed.what();
    }
  }
  ShareRootError(error, why, "MPI_Comm_accept", root, comm);
  UniqueFd link;
  if (info.rank == root) {
    // A rank of this job knocks on the universe communicator, one of
    // another job at the port's socket: the root looks for both, and its
    // probe lets the job's other ranks run meanwhile.
    for (;;) {
      int knocked = 0;
      MPI_Status status;
      PMPI_Iprobe(MPI_ANY_SOURCE, kTagPortKnock + peer.tag, UniverseComm(), &knocked, &status);
      if (knocked != 0) {
        Recv(&peer.remote, 1, MPI_INT, status.MPI_SOURCE, kTagPortKnock + peer.tag,
             UniverseComm(), MPI_STATUS_IGNORE);
        break;
      }
      RankCard card;
      int fd = -1;
      if (TryKnock(port, &card, &fd)) {
        link.reset(fd);
        peer.other_job = 1;
        break;
      }
    }
  }
  return JoinPortPeer(peer, link, /*accepting=*/true, root, comm);
}

MPI_Comm CommConnect(const std::string& port, int root, MPI_Comm comm) {
  const CommInfo& info = LookupComm(comm);
  RequireIntracomm(info);
  PortPeer peer;
  UniqueFd link;
  int error = 0;
  std::string why;
  if (info.rank == root) {
    try {
      PortAddress address = ParsePort(port);
      if (address.job != JobId()) {
        peer.other_job = 1;
        link.reset(KnockAt(port, address.tag, address.tcp));
      } else {
        peer.remote = address.rank;
        peer.tag = PortTag(ParsePortName(port, JobId()));
        if (peer.remote >= Runtime::Instance()->universe_size())
          throw Error(kErrPort, "MPI_Comm_connect: port '" + port + "' names no rank of this job");
        int me = Runtime::Instance()->world_rank();
        Send(&me, 1, MPI_INT, peer.remote, kTagPortKnock + peer.tag, UniverseComm());
      }
    } catch (const Error& failed) {
      error = failed.error_class();
      why = failed.what();
    }
  }
  ShareRootError(error, why, "MPI_Comm_connect", root, comm);
  return JoinPortPeer(peer, link, /*accepting=*/false, root, comm);
}

namespace {

// The payload of a name request: the service, and for a publish or
// unpublish a NUL and the port, which is any string (Open MPI and MPICH
// publish any; MPI_Open_port's is the one Comm_connect takes).
ReplyMsg NameRequest(MsgType type, const std::string& service, const std::string* port) {
  if (service.empty()) throw Error(kErrArg, "the service name is empty");
  std::string payload = service;
  if (port != nullptr) {
    if (port->size() >= MPI_MAX_PORT_NAME)
      throw Error(kErrArg, "the port name has " + std::to_string(port->size()) +
                               " bytes, MPI_MAX_PORT_NAME allows " +
                               std::to_string(MPI_MAX_PORT_NAME - 1));
    payload += '\0';
    payload += *port;
  }
  RequestMsg request;
  request.type = type;
  Runtime* runtime = Runtime::Instance();
  runtime->StagePayload(payload.data(), payload.size(), request);
  return runtime->Call(request);
}

}  // namespace

void PublishName(const std::string& service, const std::string& port) {
  if (service.size() > kMaxSharedServiceName)
    throw Error(kErrName, "MPI_Publish_name: the service name has " +
                              std::to_string(service.size()) + " bytes; BDMPI publishes names of " +
                              std::to_string(kMaxSharedServiceName) +
                              " bytes or fewer (they are shared with the user's other jobs)");
  ReplyMsg reply = NameRequest(MsgType::kPublishName, service, &port);
  if (reply.error != 0)
    throw Error(kErrName, "MPI_Publish_name: service '" + service + "' is published already" +
                              (reply.flag != 0 ? " by another job of this user on this node"
                                               : " in this job"));
}

void UnpublishName(const std::string& service, const std::string& port) {
  if (NameRequest(MsgType::kUnpublishName, service, &port).error != 0)
    throw Error(kErrName, "MPI_Unpublish_name: service '" + service +
                              "' is not published with port '" + port + "'");
}

std::string LookupName(const std::string& service) {
  ReplyMsg reply = NameRequest(MsgType::kLookupName, service, nullptr);
  if (reply.error != 0) {
    std::string unshared;  // why the user's other jobs' names cannot be read
    try {
      if (std::optional<std::string> shared = LookupBetweenJobs(service)) return *shared;
    } catch (const Error& error) {
      unshared = std::string(" (the user's other jobs' names cannot be read: ") + error.what() +
                 ")";
    }
    throw Error(kErrName, "MPI_Lookup_name: no service '" + service +
                              "' is published in this job or another job of this user on "
                              "this node" + unshared);
  }
  // The port comes in the reply's payload.
  std::string port(reply.bytes, '\0');
  Runtime::Instance()->FetchPayload(reply, port.data(), port.size());
  return port;
}

MPI_Comm CommJoin(int fd) {
  RankCard mine = OwnCard();
  // Both sides write first: a socket buffers far more than a card.
  WriteFully(fd, &mine, sizeof mine, "MPI_Comm_join");
  RankCard theirs;
  ReadFully(fd, &theirs, sizeof theirs, "MPI_Comm_join");
  theirs.job[sizeof theirs.job - 1] = '\0';
  // Another job's rank: the side of the lower job id comes first.
  if (JobId() != theirs.job)
    return LinkJobs(fd, JobId() < std::string(theirs.job), 0, MPI_COMM_SELF);
  if (theirs.rank == mine.rank)
    throw Error(kErrArg, "MPI_Comm_join: both ends of the socket are this rank");
  return IntercommCreate(MPI_COMM_SELF, 0, UniverseComm(), theirs.rank, kJoinTag);
}

}  // namespace bdmpi
