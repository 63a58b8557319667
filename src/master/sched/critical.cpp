#include "master/sched/critical.h"

#include <algorithm>

namespace bdmpi {

void CriticalSections::HandleEnter(Slave& slave, const RequestMsg& request) {
  if (static_cast<int>(holders_.size()) < places_) {
    holders_.insert(slave.index);
    ReplyMsg reply;
    reply.type = request.type;
    master_.Reply(slave, reply);
    return;
  }
  waiters_.push_back(slave.index);
  master_.Block(slave, SlaveState::kCBlocked, request);
}

void CriticalSections::HandleExit(Slave& slave, const RequestMsg&) { GiveUpPlace(slave); }

bool CriticalSections::Ready(const Slave& slave, const RequestMsg&) const {
  return holders_.contains(slave.index);
}

void CriticalSections::Leave(const Slave& slave) {
  std::erase(waiters_, slave.index);
  GiveUpPlace(slave);
}

void CriticalSections::GiveUpPlace(const Slave& slave) {
  if (holders_.erase(slave.index) == 0) return;
  if (waiters_.empty()) return;
  Slave& next = master_.slaves()[waiters_.front()];
  waiters_.pop_front();
  holders_.insert(next.index);
  master_.WakeIfReady(next);
}

}  // namespace bdmpi
