// What the master shares with its protocol families (p2p.h, collectives.h,
// critical.h), node memory (memory.h) and observation (observe.h): the slave table, the
// scheduling that answers slaves, blocks, wakes and reaps them, the
// communicators, the slaves' windows and storage table, the network and the
// run report's counts. Master implements it; each family holds a reference,
// so a family's handlers reach nothing else of the master.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/direct_table.h"
#include "common/protocol.h"
#include "common/rank_layout.h"
#include "common/storage_table.h"
#include "master/comm/comm_registry.h"
#include "master/memory/payload.h"
#include "master/p2p/mailbox.h"
#include "master/sched/slave_table.h"
#include "master/slave.h"

namespace bdmpi {

class Network;

class MasterServices {
 public:
  virtual SlaveTable& slaves() = 0;
  // The reply that lets `slave` run on.
  virtual void Reply(Slave& slave, const ReplyMsg& reply) = 0;
  // `slave` waits in `request` (in `state`, as the message table's row
  // says) until the row's ready function lets it run.
  virtual void Block(Slave& slave, SlaveState state, const RequestMsg& request) = 0;
  // `slave` lets the others run first; `request` is answered when it runs.
  virtual void Yield(Slave& slave, const RequestMsg& request) = 0;
  // `request`, a test of `slave`, found nothing: whether it yields, or is
  // answered at once (the rank sent just before, and a yield would cost it
  // its memory: sched/sending_turn.cpp).
  virtual bool TestYields(Slave& slave, const RequestMsg& request) = 0;
  // Runs a blocked slave again if its request's ready function lets it.
  virtual void WakeIfReady(Slave& slave) = 0;
  // WakeIfReady without scheduling (the caller schedules); true if it made
  // the slave runnable.
  virtual bool MakeRunnableIfReady(Slave& slave) = 0;
  // The reply that lets a resumed slave run, held back while it waited
  // for memory (memory.h).
  virtual void SendResumeReply(Slave& slave) = 0;
  // Reaps `slave` if it has died (its exit event may still be on its way)
  // and ends the job as its exit does; false if it lives.
  virtual bool ReapIfExited(Slave& slave) = 0;
  // Ends the job with `message` (and tells the other nodes).
  virtual void Fail(int exit_status, const std::string& message) = 0;
  // A communicator with members on this node.
  virtual const MasterComm& Comm(int id) const = 0;
  // The same, or nullptr when `id` names none (a request's own field).
  virtual const MasterComm* FindComm(int id) const = 0;
  // The node where `world_rank` runs.
  virtual int NodeOf(int world_rank) const = 0;
  // Where every rank of the job runs, reserved slots included.
  virtual const RankLayout& layout() const = 0;
  // The shared window of slave `index`, where its payloads travel.
  virtual std::byte* Window(int index) = 0;
  // The network thread; nullptr on one node.
  virtual Network* network() = 0;
  // A receive of `slave` that completes without being posted (the
  // outcome of its MPI_Comm_idup): the point-to-point family's mailbox.
  virtual void AwaitUnposted(const Slave& slave, std::uint64_t id) = 0;
  virtual void CompleteUnposted(const Slave& slave, std::uint64_t id, Message outcome) = 0;
  // Whether senders may be writing into `slave`'s memory now (placed.h),
  // and its lent blocks made ordinary messages (copied): what node memory
  // asks of point-to-point before it switches a slave out.
  virtual bool HasIncomingWrites(const Slave& slave) const = 0;
  virtual void CopyLentBlocksOf(const Slave& lender) = 0;
  // What a blocked slave waits in, as the user wrote it ("MPI_Recv(source
  // 1, tag 7)"), from the message table's describe functions.
  virtual std::string DescribeBlockedCall(const Slave& slave) const = 0;
  // The world ranks whose messages `slave`'s posted receives wait for
  // (-1: any source, or not known), for the memory policy; none known
  // without point-to-point.
  virtual void AwaitedSources(const Slave&, std::vector<int>& world_ranks) const {
    world_ranks.clear();
  }
  // The slaves' storage table (common/storage_table.h); nullptr without one.
  virtual const StorageSlot* StorageTable() = 0;
  // The node's published receives (common/direct_table.h); invalid
  // without them.
  virtual DirectTable Direct() { return {}; }
  // Counts a message sent, for the run report (observe.h).
  virtual void RecordSend(const Slave& slave, const RequestMsg& request, const Payload& payload,
                          bool cross_node) = 0;

 protected:
  virtual ~MasterServices() = default;
};

}  // namespace bdmpi
