// The master's half of BDMPI_Enter_critical / BDMPI_Exit_critical: a
// counting semaphore of -nc places with a FIFO of waiting slaves. The
// slave's half is src/slave/api/critical.cpp.
#include "master/master.h"

namespace bdmpi {

void Master::HandleEnterCritical(Slave& slave, const RequestMsg& request) {
  if (critical_holders_ < options_.ncritical) {
    ++critical_holders_;
    slave.in_critical = true;
    ReplyMsg reply;
    reply.type = request.type;
    Reply(slave, reply);
    return;
  }
  critical_waiters_.push_back(slave.index);
  Block(slave, SlaveState::kCBlocked, request);
}

void Master::HandleExitCritical(Slave& slave, const RequestMsg&) { LeaveCritical(slave); }

bool Master::CriticalReady(const Slave& slave, const RequestMsg&) const {
  return slave.in_critical;
}

void Master::LeaveCritical(Slave& slave) {
  if (!slave.in_critical) return;
  slave.in_critical = false;
  --critical_holders_;
  if (critical_waiters_.empty()) return;
  Slave& next = slaves_[critical_waiters_.front()];
  critical_waiters_.pop_front();
  ++critical_holders_;
  next.in_critical = true;
  WakeIfReady(next);
}

}  // namespace bdmpi
