// Collectives that differ between nodes. On one node the
// master sees every member's call (JoinCollective); across nodes each
// master sees only its own ranks', and learns the others' from the
// signature of the inter-node step's messages (step_signature.h).
#include <string>
#include <vector>

#include "master/coll/collectives.h"
#include "master/message_table.h"

namespace bdmpi {
namespace {

// A signature comes from another node: its type may be no collective's.
bool IsRooted(MsgType type) {
  const MessageRow* row = FindMessageRow(type);
  return row != nullptr && row->rooted;
}

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

StepSignature Collectives::SignatureOf(const Collective& collective) const {
  StepSignature signature;
  signature.type = static_cast<std::int32_t>(collective.type);
  const MessageRow& row = *FindMessageRow(collective.type);
  if (row.rooted) signature.root = collective.root;
  if (row.same_size) signature.bytes = collective.bytes;
  return signature;
}

void Collectives::FailStepMismatch(const StepConflict& conflict) {
  // Node 0 may learn of a conflict on a communicator without members on it
  // (the deadlock watch); it then names the nodes.
  const MasterComm* comm = comms_.Find(conflict.comm);
  auto ranks_of = [&](int node) {
    std::vector<int> ranks;
    if (comm != nullptr) {
      for (int world_rank : comm->world_ranks)
        if (NodeOf(world_rank) == node) ranks.push_back(world_rank);
    }
    return ranks.empty() ? "the ranks on node " + std::to_string(node) : RanksText(ranks);
  };
  std::string first = ranks_of(conflict.first_node), second = ranks_of(conflict.second_node);
  const StepSignature& a = conflict.first;
  const StepSignature& b = conflict.second;
  if (a.type == b.type && a.root == b.root) {
    // Same call, other size: worded like the single-node case.
    master_.Fail(1, std::string(MpiCallName(static_cast<MsgType>(a.type))) +
                        " with different sizes on different nodes: " + first + " passed " +
                        std::to_string(a.bytes) + " bytes, " + second + " passed " +
                        std::to_string(b.bytes) +
                        " bytes (every rank must give the same count and datatype)");
    return;
  }
  std::string comm_name =
      UserCommId(conflict.comm) == kWorldCommId ? "MPI_COMM_WORLD" : "their communicator";
  // MPI leaves this undefined; silently mixing them would corrupt data.
  master_.Fail(
      1, first + " called " + CallText(a) + " while " + second + " called " + CallText(b) + " on " +
             comm_name +
             " (every rank must call the same collectives, with the same root, in the same "
             "order)");
}

}  // namespace bdmpi
