// Placed messages: a send whose receive is already posted on this node is
// written straight into the receive buffer (process_vm_writev) and held by
// nobody. One larger than the window by the sender itself: one copy
// instead of two (into a payload segment, out of it). The sender asks first
// (PlaceOffer); the master reserves the receive that MPI order gives
// the message, or refuses, and the sender then sends it as usual, so a
// send still never waits for its receiver. One that came through the
// sender's window by the master, from the window: two copies instead of
// four (into the window, into master memory, into the receiver's window,
// out of it). docs/data-path.md, "Placed messages"; the slave's half is
// Runtime::Place (chosen by ChooseSendPath, slave/p2p/send_path.h).
#pragma once

#include <map>

#include "common/protocol.h"
#include "master/master_services.h"
#include "master/p2p/mailbox.h"
#include "master/slave.h"

namespace bdmpi {

class PointToPoint;

// Part of the point-to-point family (p2p.h), whose mailboxes it reserves
// receives in.
class PlacedMessages {
 public:
  PlacedMessages(MasterServices& master, PointToPoint& p2p) : master_(master), p2p_(p2p) {}
  PlacedMessages(const PlacedMessages&) = delete;
  PlacedMessages& operator=(const PlacedMessages&) = delete;

  // A sender asks to write its message into the receive it matches.
  void HandleOffer(Slave& slave, const RequestMsg& request);
  // It reports the write (Placed: PlacedArgs, 0 or the errno that failed it).
  void HandleDone(Slave& slave, const RequestMsg& request);
  // A window payload written by the master straight into its posted
  // receive at `dest` (null: another node's); false when it must go the
  // usual way.
  bool FromWindow(Slave& slave, const RequestMsg& request, Slave* dest);
  // Whether senders may be writing into `slave`'s memory now (it is not
  // switched out meanwhile: a write-back would race their writes).
  bool HasIncoming(const Slave& slave) const { return incoming_.contains(slave.index); }

 private:
  // Whether a message of `sender` may be written into `dest`'s memory.
  static bool MayPlaceInto(const Slave& sender, const Slave* dest);
  void Complete(const Slave& sender, const RequestMsg& request, Slave& dest,
                std::uint64_t recv_id, const Envelope& envelope);

  MasterServices& master_;
  PointToPoint& p2p_;
  // The receive each sender (by slave index) was allowed to write into and
  // has not reported on yet.
  struct Granted {
    int dest_world_rank = -1;
    std::uint64_t recv_id = 0;
    Envelope envelope;
  };
  std::map<int, Granted> granted_;
  // Receivers (by slave index) -> how many senders may be writing into them.
  std::map<int, int> incoming_;
};

}  // namespace bdmpi
