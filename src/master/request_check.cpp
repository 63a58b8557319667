// Who sent a request, and whether its fields are the sender's to give.
//
// Every slave of a node writes to one request queue, and all run as the same
// user, so nothing in the message proves who wrote it. Each slave gets a
// secret token at spawn (BDMPI_SLAVE_TOKEN) and puts it in every request;
// the master's own threads use the master's token for events. The sender is
// the slave whose token the request carries; its `slave` field, its rank in
// the communicator and the spill files it hands over must all be that
// slave's. Anything else (a buggy program that writes to BDMPI's queues, a
// stray process) ends the job with a message that names the rank, instead of
// a receive returning data "from" a rank that never sent it.
#include <algorithm>
#include <string>
#include <string_view>

#include "master/master.h"

namespace bdmpi {
namespace {

std::string Rank(int world_rank) { return "rank " + std::to_string(world_rank); }

// "a Send request", "an Abort request".
std::string Describe(MsgType type) {
  std::string name = MsgTypeName(type);
  bool vowel = std::string_view("AEIOU").find(name.front()) != std::string_view::npos;
  return (vowel ? "an " : "a ") + name + " request";
}

}  // namespace

Slave* Master::AuthenticatedSender(const RequestMsg& request) {
  if (request.version != kProtocolVersion) {
    Fail(1, "a request of protocol version " + std::to_string(request.version) +
                " reached the master, which speaks version " +
                std::to_string(kProtocolVersion) +
                ": the program was built against another libbdmpi");
    return nullptr;
  }
  // The common case first: the slave named by the request holds the token.
  bool named_in_range = request.slave >= 0 && request.slave < slaves_.size();
  Slave* sender = named_in_range && slaves_[request.slave].token == request.token
                      ? &slaves_[request.slave]
                      : slaves_.ByToken(request.token);
  // Every request passes through here: the message text is built only
  // when there is something to report.
  if (sender == nullptr) {
    Fail(1, Describe(request.type) + " (claiming to be from slave " + std::to_string(request.slave) +
                ") carries none of this job's tokens: only the ranks this master "
                "started may write to its request queue");
    return nullptr;
  }
  const MessageRow* row = FindMessageRow(request.type);
  bool master_event = row != nullptr && row->master_event;
  if (master_event || sender->index != request.slave) {
    std::string claimed = master_event ? "the master"
                          : named_in_range ? Rank(slaves_[request.slave].world_rank)
                                           : "slave " + std::to_string(request.slave);
    Fail(1, Rank(sender->world_rank) + " sent " + Describe(request.type) + " claiming to be " +
                claimed +
                " (a program must not write to BDMPI's queues itself)");
    return nullptr;
  }
  std::string bad = ForgedField(*sender, request);
  if (!bad.empty()) {
    Fail(1, Rank(sender->world_rank) + " sent " + Describe(request.type) + " with " + bad);
    return nullptr;
  }
  return sender;
}

std::string Master::ForgedField(const Slave& slave, const RequestMsg& request) const {
  const MessageRow* row = FindMessageRow(request.type);
  if (row != nullptr && row->may_lend && request.where != Where::kLent)
    return "a lent send without its block";
  switch (request.where) {
    case Where::kNone:
      break;
    case Where::kInline:
      if (request.bytes > kInlinePayloadMax)
        return "an inline payload of " + std::to_string(request.bytes) + " bytes";
      break;
    case Where::kWindow:
      if (request.bytes > payloads_.window_size())
        return "a payload of " + std::to_string(request.bytes) +
               " bytes, larger than its window";
      break;
    case Where::kLent:
      // Only a collective's send lends, and only the sender's own memory
      // (the master names the sender's pid to the receiver).
      if (row == nullptr || !row->may_lend || LentSendArgs::Of(request).id == 0)
        return "a lent block outside a send that waits for it";
      break;
    case Where::kFile:
    case Where::kMemoryFile:
      // A file id names its creator (MakeFileId); taking another rank's file
      // would steal that rank's message.
      if (FileIdOwner(request.file_id) != static_cast<std::uint64_t>(slave.index))
        return std::string(request.where == Where::kFile ? "spill" : "memory") + " file " +
               std::to_string(request.file_id) + ", which it did not write";
      break;
    case Where::kPlaceGrant:
    case Where::kPlaced:
      // Only replies say so: a placement is its own row (PlaceOffer, Placed).
      return "a reply's payload place in a request";
  }
  CommCheck check = row != nullptr ? row->comm_check : CommCheck::kNone;
  if (check == CommCheck::kNone) return "";
  // Collectives run on a communicator's twin too (CollectiveCommId); only
  // the communicator itself is freed.
  bool freeing = check == CommCheck::kLiveMember;
  const MasterComm* comm = comms_.Find(freeing ? request.comm : UserCommId(request.comm));
  if (comm == nullptr || (freeing && comm->live_members == 0))
    return "communicator " + std::to_string(request.comm) + ", which does not exist";
  const std::vector<int>& members = comm->world_ranks;
  if (freeing) {
    if (std::find(members.begin(), members.end(), slave.world_rank) == members.end())
      return "communicator " + std::to_string(request.comm) + ", of which it is no member";
    return "";
  }
  // Derived from the communicator, not believed: the rank is the sender's.
  if (request.rank < 0 || request.rank >= static_cast<int>(members.size()) ||
      members[request.rank] != slave.world_rank)
    return "rank " + std::to_string(request.rank) + " in communicator " +
           std::to_string(request.comm) + " as its own";
  // A send's destination, a broadcast's or reduction's root.
  bool has_peer = check == CommCheck::kOwnRankAndPeer;
  if (has_peer && (request.peer < 0 || request.peer >= static_cast<int>(members.size())))
    return "rank " + std::to_string(request.peer) + " outside communicator " +
           std::to_string(request.comm) + " as the other end";
  return "";
}

}  // namespace bdmpi
