// The master's half of BDMPI_Enter_critical / BDMPI_Exit_critical: a
// counting semaphore of -nc places with a FIFO of waiting slaves. The
// slave's half is src/slave/api/critical.cpp.
#pragma once

#include <deque>
#include <set>

#include "common/protocol.h"
#include "master/master_services.h"
#include "master/slave.h"

namespace bdmpi {

class CriticalSections {
 public:
  CriticalSections(MasterServices& master, int places) : master_(master), places_(places) {}
  CriticalSections(const CriticalSections&) = delete;
  CriticalSections& operator=(const CriticalSections&) = delete;

  // The message table's handlers and ready function.
  void HandleEnter(Slave& slave, const RequestMsg& request);
  void HandleExit(Slave& slave, const RequestMsg& request);
  bool Ready(const Slave& slave, const RequestMsg& request) const;
  // `slave` finalized or exited: it gives up the place it holds, or its
  // turn in the queue.
  void Leave(const Slave& slave);

 private:
  void GiveUpPlace(const Slave& slave);

  MasterServices& master_;
  int places_;
  std::set<int> holders_;      // slave indices, inside a critical section
  std::deque<int> waiters_;    // slave indices, in arrival order
};

}  // namespace bdmpi
