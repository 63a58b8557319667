// What the master shares with its protocol families (p2p.h, collectives.h,
// critical.h): the slave table, the scheduling that answers slaves, blocks them
// and wakes them, the communicators, the slaves' windows and the run
// report's counts. Master implements it; each family holds a reference, so a
// family's handlers reach nothing else of the master.
#pragma once

#include <cstdint>
#include <string>

#include "common/protocol.h"
#include "master/comm_registry.h"
#include "master/mailbox.h"
#include "master/payload.h"
#include "master/slave.h"
#include "master/slave_table.h"

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
  // Runs a blocked slave again if its request's ready function lets it.
  virtual void WakeIfReady(Slave& slave) = 0;
  // WakeIfReady without scheduling (the caller schedules); true if it made
  // the slave runnable.
  virtual bool MakeRunnableIfReady(Slave& slave) = 0;
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
  // The shared window of slave `index`, where its payloads travel.
  virtual std::byte* Window(int index) = 0;
  // The network thread; nullptr on one node.
  virtual Network* network() = 0;
  // A receive of `slave` that completes without being posted (the
  // outcome of its MPI_Comm_idup): the point-to-point family's mailbox.
  virtual void AwaitUnposted(const Slave& slave, std::uint64_t id) = 0;
  virtual void CompleteUnposted(const Slave& slave, std::uint64_t id, Message outcome) = 0;
  // Counts a message sent, for the run report (observe.cpp).
  virtual void RecordSend(const Slave& slave, const RequestMsg& request, const Payload& payload,
                          bool cross_node) = 0;

 protected:
  virtual ~MasterServices() = default;
};

}  // namespace bdmpi
