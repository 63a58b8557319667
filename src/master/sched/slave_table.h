// The slaves of one node and which of them run: their records, found by
// index on the node, world rank or token; how many are still alive; and the
// glue to the Scheduler (runnable, yielded, running slots) and to the
// CoreBinder (the core a running slave is bound to with -nr > 1). What a
// slave's state means and when it changes is the master's (master.cpp);
// this class keeps the books consistent.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "common/rank_layout.h"
#include "master/options.h"
#include "master/sched/core_binder.h"
#include "master/sched/scheduler.h"
#include "master/slave.h"

namespace bdmpi {

class SlaveTable {
 public:
  // `nrunning` slaves run at once, picked by `policy`; `resident_fraction`
  // (of a slave index) serves the memory policy.
  SlaveTable(int nrunning, SchedulePolicy policy,
             std::function<double(int)> resident_fraction);

  // Makes `count` records, of world ranks `first_world_rank` onwards, each
  // with a token of its own that is not `reserved_token` (the master's).
  void Create(int count, int first_world_rank, std::uint32_t reserved_token);
  // Appends the records of `node`'s reserved slots of `layout` (ranks that
  // MPI_Comm_spawn may start there), as exited records that count as no
  // rank until Revive; ranks are found by `layout` from then on.
  void AddReserved(const RankLayout& layout, int node, std::uint32_t reserved_token);
  // A reserved slot's process has been started: it counts as live.
  void Revive(Slave& slave);
  // Binds running slaves to cores from now on (-nr > 1).
  void BindToCores(std::unique_ptr<CoreBinder> binder) { binder_ = std::move(binder); }
  // Of the least busy cores, a resumed slave takes `core` (the master's: a
  // hand-over within one core is cheap), else the one it had.
  void PreferCore(int core) { preferred_core_ = core; }
  // Drops every record (the master's end).
  void Clear() { slaves_.clear(); }

  int size() const { return static_cast<int>(slaves_.size()); }
  Slave& operator[](int index) { return slaves_[index]; }
  const Slave& operator[](int index) const { return slaves_[index]; }
  std::vector<Slave>::iterator begin() { return slaves_.begin(); }
  std::vector<Slave>::iterator end() { return slaves_.end(); }
  std::vector<Slave>::const_iterator begin() const { return slaves_.begin(); }
  std::vector<Slave>::const_iterator end() const { return slaves_.end(); }
  // The slave of `world_rank`, or nullptr when that rank lives on another node.
  Slave* ByWorldRank(int world_rank);
  const Slave* ByWorldRank(int world_rank) const;
  // The slave holding `token`, or nullptr.
  Slave* ByToken(std::uint32_t token);

  // Slaves started and not reaped yet.
  int live() const { return live_; }
  void CountStarted() { ++live_; }
  // The slave is reaped: its state becomes kExited and it no longer counts
  // as live (its running slot, if any, is the caller's to give back).
  void MarkExited(Slave& slave);

  // Scheduling: a slave becomes runnable (after a yield: behind every other
  // runnable slave), gives up its running slot and core, or, having died
  // while runnable, is forgotten.
  void MakeRunnable(Slave& slave);
  void MakeRunnableAfterYield(Slave& slave);
  bool Promote(const Slave& slave) { return scheduler_.Promote(slave.index); }
  void StopRunning(Slave& slave);
  void Forget(const Slave& slave) { scheduler_.Forget(slave.index); }
  // If a running slot is free and a slave runnable: takes the slot for the
  // next one, binds it to a core (with a binder), returns it; else nullptr.
  Slave* StartNext();
  // StartNext would start a slave.
  bool CanStartNext() const { return scheduler_.CanPick(); }
  // No running slave is bound to the preferred core (or none is preferred).
  bool PreferredCoreFree() const {
    return !binder_ || preferred_core_ < 0 || binder_->load(preferred_core_) == 0;
  }
  // Every running slave is bound to the preferred core.
  bool OnlyPreferredCoreBusy() const {
    return binder_ && preferred_core_ >= 0 && binder_->load(preferred_core_) == scheduler_.running();
  }
  // When the slave that has been runnable longest became so (CLOCK_MONOTONIC
  // ns), or -1 when none is.
  std::int64_t OldestRunnableSince() const;
  // The slave StartNext will start next, if one is runnable.
  Slave* PeekNext() {
    std::optional<int> next = scheduler_.PeekNext();
    return next ? &slaves_[*next] : nullptr;
  }
  // Slaves holding a running slot, and how many may.
  int running() const { return scheduler_.running(); }
  int running_limit() const { return scheduler_.limit(); }
  void SetRunningLimit(int nrunning) { scheduler_.SetLimit(nrunning); }
  // No slave is runnable.
  bool idle() const { return scheduler_.idle(); }

 private:
  // Index on this node of `world_rank`, or -1.
  int IndexOf(int world_rank) const;

  // A token no other record has and that is not `reserved_token`.
  std::uint32_t NewToken(std::uint32_t reserved_token) const;

  std::vector<Slave> slaves_;
  int first_world_rank_ = 0;
  std::optional<RankLayout> layout_;  // with reserved slots
  int node_ = 0;
  int live_ = 0;
  Scheduler scheduler_;
  std::unique_ptr<CoreBinder> binder_;  // only with -nr > 1
  int preferred_core_ = -1;
};

}  // namespace bdmpi
