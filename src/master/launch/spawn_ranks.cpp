// The master's half of MPI_Comm_spawn(_multiple): the root asks its master
// (MsgType::kSpawn) to start ranks in the job's reserved slots
// (common/rank_layout.h), on any node. The slave's half is
// src/slave/comm/dynamic.cpp; docs/processes.md, "Dynamic processes".
//
// A spawn's masters talk in three steps (dynamic_messages.cpp; the root's
// own master answers itself through dynamic_inbox_):
//   query   root's master -> each master in turn, node 0 first, the next
//           once the last has answered: hold your free slots for me
//   free    -> root's master: my next slot's job rank, free slots, channel,
//           and the places of other nodes whose spawn's world my live
//           ranks hold (no new world may be led from them)
//   start   root's master -> every master: start these ranks (0: release)
//   started -> root's master, from each master that starts ranks
//   discard root's master -> masters that started ranks of a spawn that
//           failed elsewhere: kill them
// A master holds its free slots for one spawn at a time (queries of others
// wait), so the root's master knows each node's job ranks before any rank
// starts, and the children's MPI_COMM_WORLD is the same list everywhere.
// Holds taken in node order cannot wait for each other in a circle.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/log.h"
#include "common/program_path.h"
#include "common/spawn_plan.h"
#include "master/launch/dynamic_fields.h"
#include "master/master.h"

namespace bdmpi {

struct Master::PendingSpawn {
  int id = 0;
  int slave_index = 0;    // the root's, on this node
  int root_job_rank = 0;  // MPI_Comm_spawn's root
  SpawnPlan plan;
  // By node, from its `free`: the job rank of its next slot, its free
  // slots and the channel it holds for the children's world.
  std::vector<int> next, free, channel;
  // Spawned ranks of the nodes that may still exit and so free their
  // slots (SpawnRoomSoon).
  int soon = 0;
  // Job ranks of places whose spawn's world a live rank of another node
  // holds (RemoteWorldLeadersHeld).
  std::set<int> held_leaders;
  std::vector<int> count;  // ranks placed on each node
  std::vector<int> world;  // the children's job ranks, by rank
  int answers = 0;
  int expected = 0;
  std::vector<bool> started;
  ReplyMsg refusal;  // error != 0 once the spawn failed
};

namespace {

// The children's world as BDMPI_SPAWN gives it: runs "first:count" of
// consecutive job ranks.
std::string WorldRuns(const std::vector<int>& world) {
  std::string runs;
  for (std::size_t i = 0; i < world.size();) {
    std::size_t j = i + 1;
    while (j < world.size() && world[j] == world[j - 1] + 1) ++j;
    runs += " " + Str(world[i]) + ":" + Str(static_cast<int>(j - i));
    i = j;
  }
  return runs;
}

std::string OwnHost() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

void Master::HandleSpawn(Slave& slave, const RequestMsg& request,
                         const std::byte* inline_payload) {
  std::vector<std::byte> bytes(request.bytes);
  payloads_.Read(request, io_->Window(slave.index), inline_payload, bytes.data(), bytes.size());
  auto pending = std::make_shared<PendingSpawn>();
  pending->id = next_spawn_id_++;
  pending->slave_index = slave.index;
  pending->root_job_rank = request.peer;
  ReplyMsg refusal;
  refusal.type = request.type;
  refusal.error = kErrSpawn;
  try {
    pending->plan = SpawnPlan::Decode(bytes.data(), bytes.size());
    for (SpawnCommand& command : pending->plan.commands) {
      if (command.node >= nnodes_) throw Error(kErrSpawn, "node " + Str(command.node));
      ResolveProgram(command.command);
    }
  } catch (const Error& error) {
    // The root checked the commands and nodes already; what changed since
    // (a program removed) is MPI_ERR_SPAWN all the same.
    BDMPI_WARN("sched", "MPI_Comm_spawn of rank %d refused: %s", slave.world_rank, error.what());
    refusal.flag = kSpawnNotStarted;
    refusal.comm = node_;
    Reply(slave, refusal);
    return;
  }
  // info `host`: this node when it is its name (or localhost), else the
  // first node of that name.
  std::vector<std::string> hosts = network_ ? network_->hosts() : std::vector<std::string>{};
  if (hosts.empty()) hosts.push_back(OwnHost());
  for (std::size_t c = 0; c < pending->plan.commands.size(); ++c) {
    SpawnCommand& command = pending->plan.commands[c];
    if (command.host.empty()) continue;
    command.node = NodeOfHost(command.host, hosts, node_);
    if (command.node < 0) {
      refusal.flag = kSpawnNoHost;
      refusal.comm = static_cast<int>(c);
      Reply(slave, refusal);
      return;
    }
  }
  std::size_t nodes = static_cast<std::size_t>(nnodes_);
  pending->next.assign(nodes, 0);
  pending->free.assign(nodes, 0);
  pending->channel.assign(nodes, -1);
  pending->count.assign(nodes, 0);
  pending->started.assign(nodes, false);
  int id = pending->id;
  spawns_[id] = std::move(pending);
  // The masters are asked one after the other, node 0 first (OnSpawnFree
  // asks the next): each holds its slots until the spawn is placed, so two
  // roots asking all at once could each hold a node the other waits for.
  SendDynamic(0, {"query", Str(id), Str(node_)});
  ServeDynamicInbox();
}

void Master::OnSpawnDiscard(const std::vector<std::string>& fields) {
  // The spawn failed on another node: this node's ranks of it go again.
  for (std::size_t i = 2; i < fields.size(); ++i) {
    Slave* child = slaves_.ByWorldRank(ToInt(fields[i]));
    if (child == nullptr || child->state == SlaveState::kExited || child->pid <= 0) continue;
    child->discarded = true;
    kill(child->pid, SIGKILL);
  }
}

void Master::OnSpawnQuery(int spawn, int origin) {
  if (spawn_hold_) {
    spawn_queries_.emplace_back(origin, spawn);
    return;
  }
  // The room offered is the longest run of free slots (the first of the
  // longest): a node's slots hold consecutive job ranks, and the root's
  // master places a block from the first. A node whose ranks have all
  // exited has told the others it is done (Network::Shutdown): it starts
  // no more.
  int first = -1, free = 0;
  for (int slot = layout_.Count(node_), end = layout_.SlotCount(node_);
       slot < end && !network_shutdown_;) {
    if (!SlotFree(slot) || !SlotMayLead(slot)) {
      ++slot;
      continue;
    }
    int run = slot;
    while (run < end && SlotFree(run)) ++run;
    if (run - slot > free) {
      first = slot;
      free = run - slot;
    }
    slot = run;
  }
  int next = free > 0 ? layout_.JobRankOfSlot(node_, first) : 0;
  int channel = -1;
  if (free > 0 && network_) {
    try {
      channel = comms_.AllocateChannel(network_->max_channels());
    } catch (const Error& error) {
      BDMPI_WARN("sched", "no room for spawned ranks: %s", error.what());
      free = 0;
    }
  }
  if (free > 0) {
    spawn_hold_ = std::make_pair(origin, spawn);
    spawn_hold_channel_ = channel;
    spawn_hold_slot_ = first;
  }
  std::vector<std::string> answer = {"free",       Str(spawn),   Str(node_),
                                     Str(next),    Str(free),    Str(channel),
                                     Str(SpawnRoomSoon())};
  for (int job_rank : RemoteWorldLeadersHeld()) answer.push_back(Str(job_rank));
  SendDynamic(origin, answer);
}

std::vector<int> Master::RemoteWorldLeadersHeld() const {
  // A spawn's world spanning nodes is registered on each of them, but each
  // master sees only its own members: the one of the world's first place
  // may find none live and offer the place while a member elsewhere lives.
  std::vector<int> held;
  int universe = layout_.universe_size();
  for (int node = 0; node < nnodes_; ++node) {
    if (node == node_) continue;
    for (int slot = layout_.Count(node); slot < layout_.SlotCount(node); ++slot) {
      int job_rank = layout_.JobRankOfSlot(node, slot);
      if (LiveMemberOf(CommId(job_rank, kSpawnWorldCreation, universe)) != nullptr)
        held.push_back(job_rank);
    }
  }
  return held;
}

int Master::SpawnRoomSoon() const {
  // Spawned ranks that are not blocked may still reach their end, and
  // their slots come free; a root that finds too little room then waits
  // for them. Ranks that wait for a message or a collective may wait for
  // the spawning ranks themselves, and the roots of spawns wait here.
  int soon = 0;
  for (int slot = layout_.Count(node_); slot < layout_.SlotCount(node_); ++slot) {
    const Slave& slave = slaves_[slot];
    bool root = std::any_of(spawns_.begin(), spawns_.end(), [&](const auto& entry) {
      return entry.second->slave_index == slot;
    });
    if (!root && (slave.state == SlaveState::kStarting || slave.state == SlaveState::kRunnable ||
                  slave.state == SlaveState::kRunning || slave.state == SlaveState::kFinalized))
      ++soon;
  }
  return soon;
}

bool Master::SlotFree(int slot) const {
  const Slave& slave = slaves_[slot];
  // Reaped (OnSlaveExit), so its requests, which came before its exit's
  // event on the request queue, have all been served.
  return slave.state == SlaveState::kExited && !p2p_.HasIncoming(slave);
}

const Slave* Master::LiveMemberOf(int id) const {
  const MasterComm* comm = comms_.Find(id);
  if (comm == nullptr) return nullptr;
  for (int rank : comm->local_ranks) {
    const Slave* member = slaves_.ByWorldRank(comm->world_ranks[static_cast<std::size_t>(rank)]);
    if (member == nullptr || member->state == SlaveState::kExited) continue;
    // A rank spawned into the place of one of its members after it came
    // is not one (a world of exited ranks names places that hold new ones).
    auto placed = place_stamps_.find(member->index);
    if (placed == place_stamps_.end() || placed->second < comm->stamp) return member;
  }
  return nullptr;
}

bool Master::SlotMayLead(int slot) const {
  // A rank of a spawn's world that outlives the world's first rank (a
  // sibling still finishing, or one the program keeps) still holds that
  // world; a spawn led from its slot would take the world's id, so the
  // room offered starts after it, and ClearPlace never meets it.
  int job_rank = layout_.JobRankOfSlot(node_, slot);
  int universe = layout_.universe_size();
  return LiveMemberOf(CommId(job_rank, kSpawnWorldCreation, universe)) == nullptr &&
         LiveMemberOf(NodeCommId(job_rank, universe)) == nullptr;
}

bool Master::ClearPlace(Slave& slave, const std::vector<int>& reused_ids, std::string* why) {
  for (int id : reused_ids) {
    if (const Slave* member = LiveMemberOf(id)) {
      *why = "job rank " + std::to_string(member->world_rank) +
             " still holds a communicator of the rank that had slot " +
             std::to_string(slave.index) + " before";
      return false;
    }
    comms_.Erase(id);
  }
  place_stamps_[slave.index] = comms_.Stamp();
  if (slave.pid <= 0) return true;  // never held a rank
  io_->ClearSlot(slave.index);
  p2p_.ClearPeer(slave);
  collectives_.ForgetMember(slave);
  Slave fresh;
  fresh.index = slave.index;
  fresh.world_rank = slave.world_rank;
  fresh.token = slave.token;
  fresh.state = SlaveState::kExited;
  fresh.storage_peak = slave.storage_peak;  // the report's row is the slot's
  slave = std::move(fresh);
  return true;
}

void Master::ReleaseSpawnHold() {
  spawn_hold_.reset();
  spawn_hold_channel_ = -1;
  spawn_hold_slot_ = -1;
  while (!spawn_hold_ && !spawn_queries_.empty()) {
    auto [origin, spawn] = spawn_queries_.front();
    spawn_queries_.pop_front();
    OnSpawnQuery(spawn, origin);
  }
}

Master::PendingSpawn& Master::AnsweredSpawn(const std::vector<std::string>& fields,
                                            std::size_t size) {
  BDMPI_ENFORCE(fields.size() >= size, "a spawn's " + fields[0] + " message is malformed");
  auto found = spawns_.find(ToInt(fields[1]));
  BDMPI_ENFORCE(found != spawns_.end(), "a " + fields[0] + " message for no spawn");
  return *found->second;
}

void Master::OnSpawnFree(const std::vector<std::string>& fields) {
  PendingSpawn& pending = AnsweredSpawn(fields, 7);
  auto node = static_cast<std::size_t>(ToInt(fields[2]));
  pending.next[node] = ToInt(fields[3]);
  pending.free[node] = ToInt(fields[4]);
  pending.channel[node] = ToInt(fields[5]);
  pending.soon += ToInt(fields[6]);
  for (std::size_t i = 7; i < fields.size(); ++i) pending.held_leaders.insert(ToInt(fields[i]));
  if (++pending.answers == nnodes_) {
    PlaceSpawn(pending);
  } else {
    SendDynamic(pending.answers, {"query", Str(pending.id), Str(node_)});
  }
}

void Master::PlaceSpawn(PendingSpawn& pending) {
  std::size_t nodes = static_cast<std::size_t>(nnodes_);
  // The nodes that hold slots for this spawn hear its outcome, whatever
  // room is left of them below.
  std::vector<bool> holds(nodes);
  for (std::size_t k = 0; k < nodes; ++k) holds[k] = pending.free[k] > 0;
  // A node's run must not start at a place whose world another node's
  // live rank holds: the children's world, if led from it, would take
  // that world's id. (Only the run that holds the world's first rank
  // needs it; skipping on every node is simpler and costs a slot at most
  // while such a world lives.)
  for (std::size_t k = 0; k < nodes; ++k) {
    while (pending.free[k] > 0 && pending.held_leaders.count(pending.next[k]) > 0) {
      ++pending.next[k];
      --pending.free[k];
    }
  }
  // Each rank's node, by rank of the children's world: the info's, or
  // spread over the nodes in blocks like -n, each block cut to the node's
  // room and the rest carried to the next nodes with room.
  std::vector<int> rank_node;
  for (const SpawnCommand& command : pending.plan.commands)
    for (int i = 0; i < command.maxprocs; ++i) rank_node.push_back(command.node);
  int total = static_cast<int>(rank_node.size());
  int unplaced = 0;
  for (int node : rank_node) {
    if (node < 0) {
      ++unplaced;
    } else {
      ++pending.count[static_cast<std::size_t>(node)];
    }
  }
  ReplyMsg& refusal = pending.refusal;
  refusal.type = MsgType::kSpawn;
  int room = 0;
  for (std::size_t k = 0; k < nodes; ++k) {
    room += pending.free[k];
    if (pending.count[k] > pending.free[k] && refusal.error == 0) {
      refusal = {};
      refusal.type = MsgType::kSpawn;
      refusal.error = kErrSpawn;
      refusal.flag = kSpawnNoRoom;
      refusal.comm = static_cast<int>(k);
      refusal.bytes = static_cast<std::uint64_t>(pending.count[k]);
      refusal.source = pending.free[k];
    }
  }
  std::vector<int> give(nodes, 0);
  if (refusal.error == 0 && unplaced > 0) {
    int carry = 0;
    for (std::size_t k = 0; k < nodes; ++k) {
      int share = unplaced / nnodes_ + (static_cast<int>(k) < unplaced % nnodes_ ? 1 : 0);
      give[k] = std::min(share, pending.free[k] - pending.count[k]);
      carry += share - give[k];
    }
    for (std::size_t k = 0; k < nodes && carry > 0; ++k) {
      int extra = std::min(carry, pending.free[k] - pending.count[k] - give[k]);
      give[k] += extra;
      carry -= extra;
    }
    if (carry > 0) {
      refusal.error = kErrSpawn;
      refusal.flag = kSpawnNoRoom;
      refusal.comm = -1;
      refusal.bytes = static_cast<std::uint64_t>(total);
      refusal.source = room;
    }
  }
  // Too little room now, but spawned ranks may still exit: the root asks
  // again after letting them run.
  if (refusal.error != 0 && refusal.flag == kSpawnNoRoom && pending.soon > 0)
    refusal.tag = kSpawnRoomSoon;
  if (refusal.error == 0) {
    std::size_t k = 0;
    std::vector<int> cursor = pending.next;
    for (int& node : rank_node) {
      if (node < 0) {
        while (give[k] == 0) ++k;
        --give[k];
        ++pending.count[k];
        node = static_cast<int>(k);
      }
      pending.world.push_back(cursor[static_cast<std::size_t>(node)]++);
    }
  }
  // Every node hears the outcome: those with ranks start them, the others
  // release what they held.
  std::vector<std::string> start = {"start", Str(pending.id), Str(node_), "0",
                                    Str(pending.root_job_rank)};
  if (refusal.error == 0) {
    start.push_back(Str(static_cast<int>(pending.world.size())));
    for (int job_rank : pending.world) start.push_back(Str(job_rank));
    int used = 0;
    for (std::size_t n = 0; n < nodes; ++n) used += pending.count[n] > 0 ? 1 : 0;
    start.push_back(Str(used));
    for (std::size_t n = 0; n < nodes; ++n) {
      if (pending.count[n] == 0) continue;
      start.push_back(Str(static_cast<int>(n)));
      start.push_back(Str(pending.channel[n]));
    }
    start.push_back(Str(static_cast<int>(pending.plan.commands.size())));
    for (const SpawnCommand& command : pending.plan.commands) {
      start.push_back(Str(command.maxprocs));
      start.push_back(command.wdir);
      start.push_back(command.command);
      start.push_back(Str(static_cast<int>(command.args.size())));
      start.insert(start.end(), command.args.begin(), command.args.end());
    }
  }
  pending.answers = 0;
  pending.expected = 0;
  int id = pending.id;
  for (std::size_t n = 0; n < nodes; ++n) {
    if (!holds[n]) continue;  // holds nothing for this spawn
    start[3] = Str(refusal.error == 0 ? pending.count[n] : 0);
    if (refusal.error == 0 && pending.count[n] > 0) ++pending.expected;
    SendDynamic(static_cast<int>(n), start);
  }
  if (pending.expected == 0) FinishSpawn(id);
}

void Master::OnSpawnStart(const std::vector<std::string>& fields) {
  int spawn = ToInt(fields[1]);
  int origin = ToInt(fields[2]);
  int count = ToInt(fields[3]);
  bool held = spawn_hold_ && *spawn_hold_ == std::make_pair(origin, spawn);
  BDMPI_ENFORCE(held, "a spawn's start reached a node that holds nothing for it");
  int channel = spawn_hold_channel_;
  if (count == 0) {
    if (channel >= 0) comms_.ReleaseChannel(channel);
    ReleaseSpawnHold();
    return;
  }
  // The children's world, their channels and commands (see PlaceSpawn).
  std::size_t at = 4;
  auto next = [&]() -> const std::string& {
    BDMPI_ENFORCE(at < fields.size(), "a spawn's start message is cut short");
    return fields[at++];
  };
  int parent = ToInt(next());
  std::vector<int> world(static_cast<std::size_t>(ToInt(next())));
  for (int& job_rank : world) job_rank = ToInt(next());
  std::map<int, int> channels;
  for (int n = ToInt(next()); n > 0; --n) {
    int node = ToInt(next());
    channels[node] = ToInt(next());
  }
  std::vector<SpawnCommand> commands(static_cast<std::size_t>(ToInt(next())));
  for (SpawnCommand& command : commands) {
    command.maxprocs = ToInt(next());
    command.wdir = next();
    command.command = next();
    command.args.resize(static_cast<std::size_t>(ToInt(next())));
    for (std::string& arg : command.args) arg = next();
  }
  // This node's ranks of it, by rank in the children's world, with their
  // command (MPI_APPNUM).
  std::vector<int> local, appnum_of;
  for (std::size_t c = 0; c < commands.size(); ++c)
    for (int i = 0; i < commands[c].maxprocs; ++i) appnum_of.push_back(static_cast<int>(c));
  for (std::size_t r = 0; r < world.size(); ++r)
    if (layout_.NodeOf(world[r]) == node_) local.push_back(static_cast<int>(r));
  // The run starts where this node's free run did, or later when the
  // root's master skipped places another node's rank holds (PlaceSpawn).
  int first_slot = local.empty() ? -1 : layout_.SlotOf(world[static_cast<std::size_t>(local[0])]);
  BDMPI_ENFORCE(static_cast<int>(local.size()) == count && appnum_of.size() == world.size() &&
                    spawn_hold_slot_ >= 0 && first_slot >= spawn_hold_slot_ &&
                    first_slot + count <= layout_.SlotCount(node_),
                "a spawn's start does not match the slots this node held for it");
  int universe = layout_.universe_size();
  bool spans = channels.size() > 1;
  std::vector<int> local_ranks;
  for (int r : local) local_ranks.push_back(world[static_cast<std::size_t>(r)]);
  // A slot that held a rank before: the ids the children take whatever
  // their slot (MPI_COMM_SELF, the spawn's world, its part on the node)
  // may still name the old rank's communicators. Every other id a rank
  // makes counts on from its slot's last (Collectives::ForgetMember), so
  // no live rank can take the new rank for the old one.
  std::vector<int> reused_ids = {CommId(world[0], kSpawnWorldCreation, universe)};
  if (spans) reused_ids.push_back(NodeCommId(local_ranks[0], universe));
  for (int job_rank : local_ranks) reused_ids.push_back(CommId(job_rank, 0, universe));
  std::string failure;
  for (int i = 0; i < count && failure.empty(); ++i)
    ClearPlace(slaves_[first_slot + i], reused_ids, &failure);
  if (!failure.empty()) {
    if (channel >= 0) comms_.ReleaseChannel(channel);
    BDMPI_WARN("sched", "MPI_Comm_spawn of rank %d failed on node %d: %s", parent, node_,
               failure.c_str());
    ReleaseSpawnHold();
    SendDynamic(origin, {"started", Str(spawn), Str(node_), "1", failure});
    return;
  }
  // Each child's MPI_COMM_SELF, their MPI_COMM_WORLD (creation 4 of its
  // rank 0) and, when it spans nodes, this node's part of it (their
  // BDMPI_COMM_NODE), before any of them can send on them.
  for (int job_rank : local_ranks) comms_.Add(CommId(job_rank, 0, universe), {job_rank});
  comms_.Add(CommId(world[0], kSpawnWorldCreation, universe), world,
             spans ? channels : std::map<int, int>{});
  if (spans) {
    comms_.Add(NodeCommId(local_ranks[0], universe), local_ranks);
  } else if (channel >= 0) {
    comms_.ReleaseChannel(channel);  // within this node: no channel needed
  }
  int started = 0;
  try {
    std::string runs = WorldRuns(world);
    for (int r : local) {
      const SpawnCommand& command =
          commands[static_cast<std::size_t>(appnum_of[static_cast<std::size_t>(r)])];
      std::string path = ResolveProgram(command.command);
      std::vector<std::string> env = RankEnvironment(path);
      env.push_back(std::string(kEnvSpawn) + "=" + Str(parent) + " " + Str(world[0]) + " " +
                    Str(appnum_of[static_cast<std::size_t>(r)]) + runs);
      std::vector<std::string> argv = {command.command};
      argv.insert(argv.end(), command.args.begin(), command.args.end());
      Slave& child = slaves_[first_slot + started];
      slaves_.Revive(child);
      child.spawned_rank = r;
      try {
        StartRank(child, path, argv, env, command.wdir);
      } catch (...) {
        slaves_.MarkExited(child);
        throw;
      }
      ++started;
    }
  } catch (const Error& error) {
    // exec failed after the checks: the ranks of this spawn that started
    // go again, and the root hears MPI_ERR_SPAWN.
    failure = error.what();
    BDMPI_WARN("sched", "MPI_Comm_spawn of rank %d failed on node %d: %s", parent, node_,
               error.what());
    for (int i = 0; i < started; ++i) {
      Slave& child = slaves_[first_slot + i];
      child.discarded = true;
      kill(child.pid, SIGKILL);
    }
  }
  if (failure.empty())
    BDMPI_DEBUG("sched", "started %d rank(s) of rank %d's spawn", count, parent);
  ReleaseSpawnHold();
  SendDynamic(origin, {"started", Str(spawn), Str(node_), failure.empty() ? "0" : "1", failure});
}

void Master::OnSpawnStarted(const std::vector<std::string>& fields) {
  PendingSpawn& pending = AnsweredSpawn(fields, 5);
  auto node = static_cast<std::size_t>(ToInt(fields[2]));
  if (fields[3] == "0") {
    pending.started[node] = true;
  } else if (pending.refusal.error == 0) {
    pending.refusal.type = MsgType::kSpawn;
    pending.refusal.error = kErrSpawn;
    pending.refusal.flag = kSpawnNotStarted;
    pending.refusal.comm = static_cast<int>(node);
  }
  if (++pending.answers < pending.expected) return;
  if (pending.refusal.error != 0) {
    for (std::size_t n = 0; n < pending.started.size(); ++n) {
      if (!pending.started[n]) continue;
      std::vector<std::string> discard = {"discard", Str(pending.id)};
      for (int job_rank : pending.world)
        if (layout_.NodeOf(job_rank) == static_cast<int>(n)) discard.push_back(Str(job_rank));
      SendDynamic(static_cast<int>(n), discard);
    }
  }
  FinishSpawn(pending.id);
}

void Master::FinishSpawn(int spawn) {
  auto found = spawns_.find(spawn);
  std::shared_ptr<PendingSpawn> pending = std::move(found->second);
  spawns_.erase(found);
  Slave& root = slaves_[pending->slave_index];
  if (root.state == SlaveState::kExited) return;
  ReplyMsg reply = pending->refusal;
  reply.type = MsgType::kSpawn;
  if (reply.error == 0) {
    // The intercommunicator's tag is the first child's job rank: unique
    // in the job, and known to both sides.
    reply.tag = pending->world.empty() ? 0 : pending->world[0];
    reply.source = static_cast<int>(pending->world.size());
    BDMPI_DEBUG("sched", "rank %d spawned %d rank(s) from job rank %d", root.world_rank,
                reply.source, reply.tag);
  }
  Reply(root, reply);
}

}  // namespace bdmpi
