// What the master shares with its protocol families (critical.h, placed.h,
// ...): the slave table, the scheduling that answers slaves, blocks them
// and wakes them, the communicators, the slaves' windows and the run
// report's counts. Master implements it; each family holds a reference, so a
// family's handlers reach nothing else of the master.
#pragma once

#include <string>

#include "common/protocol.h"
#include "master/comm_registry.h"
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
  // Ends the job with `message` (and tells the other nodes).
  virtual void Fail(int exit_status, const std::string& message) = 0;
  // A communicator with members on this node.
  virtual const MasterComm& Comm(int id) const = 0;
  // The shared window of slave `index`, where its payloads travel.
  virtual std::byte* Window(int index) = 0;
  // The network thread; nullptr on one node.
  virtual Network* network() = 0;
  // Counts a message sent, for the run report (observe.cpp).
  virtual void RecordSend(const Slave& slave, const RequestMsg& request, const Payload& payload,
                          bool cross_node) = 0;

 protected:
  virtual ~MasterServices() = default;
};

}  // namespace bdmpi
