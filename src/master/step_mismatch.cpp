// Collectives that differ between nodes (issue 14.5). On one node the
// master sees every member's call (JoinCollective); across nodes each
// master sees only its own ranks', and learns the others' from the
// signature of the inter-node step's messages (step_signature.h).
#include <string>
#include <vector>

#include "master/master.h"

namespace bdmpi {
namespace {

bool IsRooted(MsgType type) { return type == MsgType::kBcast || type == MsgType::kReduce; }

// "rank 3", "ranks 1-2", "ranks 0, 4-6"
std::string RanksText(const std::vector<int>& ranks) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t end = i;
    while (end + 1 < ranks.size() && ranks[end + 1] == ranks[end] + 1) ++end;
    if (!text.empty()) text += ", ";
    text += std::to_string(ranks[i]);
    if (end > i) text += "-" + std::to_string(ranks[end]);
    i = end + 1;
  }
  return (ranks.size() == 1 ? "rank " : "ranks ") + text;
}

std::string CallText(const StepSignature& signature) {
  auto type = static_cast<MsgType>(signature.type);
  std::string text = MpiCallName(type);
  if (IsRooted(type)) text += " (root " + std::to_string(signature.root) + ")";
  return text;
}

}  // namespace

StepSignature Master::SignatureOf(const Collective& collective) const {
  StepSignature signature;
  signature.type = static_cast<std::int32_t>(collective.type);
  if (IsRooted(collective.type)) signature.root = collective.root;
  if (collective.type != MsgType::kBarrier && collective.type != MsgType::kCommSplit)
    signature.bytes = collective.bytes;
  return signature;
}

void Master::FailStepMismatch(const NetworkEvent& event) {
  auto it = collectives_.find({event.comm, event.seq});
  BDMPI_ENFORCE(it != collectives_.end(), "inter-node step of an unknown collective");
  const MasterComm& comm = Comm(event.comm);
  std::vector<int> ours, theirs;
  for (int world_rank : comm.world_ranks) {
    if (NodeOf(world_rank) == node_) ours.push_back(world_rank);
    else if (NodeOf(world_rank) == event.status) theirs.push_back(world_rank);
  }
  StepSignature mine = SignatureOf(it->second);
  std::string comm_name =
      UserCommId(event.comm) == kWorldCommId ? "MPI_COMM_WORLD" : "their communicator";
  if (mine.type == event.theirs.type && mine.root == event.theirs.root) {
    // Same call, other size: worded like the single-node case.
    Fail(1, std::string(MpiCallName(static_cast<MsgType>(mine.type))) + " with different sizes on different nodes: " + RanksText(ours) +
                " passed " + std::to_string(mine.bytes) + " bytes, " + RanksText(theirs) +
                " passed " + std::to_string(event.theirs.bytes) +
                " bytes (every rank must give the same count and datatype)");
    return;
  }
  // MPI leaves this undefined; silently mixing them would corrupt data.
  Fail(1, RanksText(ours) + " called " + CallText(mine) + " while " + RanksText(theirs) +
              " called " + CallText(event.theirs) + " on " + comm_name +
              " (every rank must call the same collectives in the same order)");
}

}  // namespace bdmpi
