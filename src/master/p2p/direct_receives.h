// The master's half of direct messages (docs/data-path.md, "Direct
// messages"): a small send whose receive its rank has published in the
// node's direct table (common/direct_table.h) is written there by its
// sender, without the master. The master claims a published receive
// before it matches a message to it (Mailbox), decrements the senders'
// pending counts as their messages are matched, and completes a receive
// the slave had told it about when the sender's notice (DirectDone) says
// its message is in place. The slave's half is src/slave/p2p/direct_path.
#pragma once

#include <atomic>
#include <cstdint>

#include "common/direct_table.h"
#include "common/protocol.h"
#include "master/master_services.h"
#include "master/p2p/mailbox.h"
#include "master/slave.h"

namespace bdmpi {

class PointToPoint;

// Part of the point-to-point family (p2p.h), whose mailboxes it completes
// receives in.
class DirectReceives {
 public:
  DirectReceives(MasterServices& master, PointToPoint& p2p) : master_(master), p2p_(p2p) {}
  DirectReceives(const DirectReceives&) = delete;
  DirectReceives& operator=(const DirectReceives&) = delete;

  // The slot of a receive `receiver` posts, when its PostRecv names one.
  // False when the receive is over already: a sender wrote it while the
  // slave polled for it (kDonePolled), and the slave has collected the
  // slot, maybe reused it, before this post was read.
  bool Attach(const Slave& receiver, const RequestMsg& request, PostedRecv& recv);
  // After the post: a sender may have written it already.
  void CompleteIfWritten(Slave& receiver, std::uint64_t id);
  // A sender's notice (MsgType::kDirectDone).
  void HandleDone(Slave& sender, const RequestMsg& request);
  // The count a Send from `sender` to `dest` of this node holds, or null.
  std::atomic<std::uint32_t>* PendingOf(const Slave& sender, const Slave& dest,
                                        const RequestMsg& request);

 private:
  // Completes posted receive `recv` of `receiver`, written by a sender.
  void Complete(Slave& receiver, const PostedRecv& recv, int sender_world_rank);

  MasterServices& master_;
  PointToPoint& p2p_;
};

}  // namespace bdmpi
