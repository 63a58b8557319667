#include "master/sched/slave_table.h"

#include <algorithm>
#include <utility>

#include "common/job_names.h"
#include "master/observe/job_recorder.h"

namespace bdmpi {

SlaveTable::SlaveTable(int nrunning, SchedulePolicy policy,
                       std::function<double(int)> resident_fraction)
    : scheduler_(nrunning, policy, std::move(resident_fraction)) {}

void SlaveTable::Create(int count, int first_world_rank, std::uint32_t reserved_token) {
  first_world_rank_ = first_world_rank;
  slaves_.resize(count);
  for (int i = 0; i < count; ++i) {
    Slave& slave = slaves_[i];
    slave.index = i;
    slave.world_rank = first_world_rank + i;
    slave.token = NewToken(reserved_token);
  }
}

std::uint32_t SlaveTable::NewToken(std::uint32_t reserved_token) const {
  for (;;) {
    std::uint32_t token = NewRequestToken();
    bool taken = token == 0 || token == reserved_token ||
                 std::any_of(slaves_.begin(), slaves_.end(),
                             [&](const Slave& other) { return other.token == token; });
    if (!taken) return token;
  }
}

void SlaveTable::AddReserved(const RankLayout& layout, int node, std::uint32_t reserved_token) {
  layout_ = layout;
  node_ = node;
  for (int slot = layout.Count(node); slot < layout.SlotCount(node); ++slot) {
    Slave slave;
    slave.index = slot;
    slave.world_rank = layout.JobRankOfSlot(node, slot);
    slave.state = SlaveState::kExited;
    slave.token = NewToken(reserved_token);
    slaves_.push_back(std::move(slave));
  }
}

void SlaveTable::Revive(Slave& slave) {
  slave.state = SlaveState::kStarting;
  ++live_;
}

int SlaveTable::IndexOf(int world_rank) const {
  if (layout_) {
    if (world_rank < 0 || world_rank >= layout_->universe_size() ||
        layout_->NodeOf(world_rank) != node_)
      return -1;
    return layout_->SlotOf(world_rank);
  }
  int index = world_rank - first_world_rank_;
  return index >= 0 && index < size() ? index : -1;
}

Slave* SlaveTable::ByWorldRank(int world_rank) {
  int index = IndexOf(world_rank);
  return index < 0 ? nullptr : &slaves_[index];
}

const Slave* SlaveTable::ByWorldRank(int world_rank) const {
  int index = IndexOf(world_rank);
  return index < 0 ? nullptr : &slaves_[index];
}

Slave* SlaveTable::ByToken(std::uint32_t token) {
  for (Slave& slave : slaves_) {
    if (slave.token == token) return &slave;
  }
  return nullptr;
}

void SlaveTable::MarkExited(Slave& slave) {
  slave.state = SlaveState::kExited;
  --live_;
}

void SlaveTable::MakeRunnable(Slave& slave) {
  slave.runnable_since_ns = MonotonicNs();
  scheduler_.MakeRunnable(slave.index);
}

void SlaveTable::MakeRunnableAfterYield(Slave& slave) {
  slave.runnable_since_ns = MonotonicNs();
  scheduler_.MakeRunnableAfterYield(slave.index);
}

std::int64_t SlaveTable::OldestRunnableSince() const {
  std::int64_t oldest = -1;
  for (const Slave& slave : slaves_) {
    if (slave.state != SlaveState::kRunnable || slave.runnable_since_ns < 0) continue;
    if (oldest < 0 || slave.runnable_since_ns < oldest) oldest = slave.runnable_since_ns;
  }
  return oldest;
}

void SlaveTable::StopRunning(Slave& slave) {
  scheduler_.StopRunning(slave.index);
  if (binder_) binder_->Release(slave.core);
  slave.core = -1;
}

Slave* SlaveTable::StartNext() {
  std::optional<int> next = scheduler_.PickNext();
  if (!next) return nullptr;
  Slave& slave = slaves_[*next];
  if (binder_) {
    slave.core = binder_->Bind(slave.pid, slave.bound_core, preferred_core_);
    if (slave.core >= 0) slave.bound_core = slave.core;
  }
  return &slave;
}

}  // namespace bdmpi
