#include "master/memory/budget_control.h"

#include <algorithm>

namespace bdmpi {

BudgetControl::BudgetControl(std::uint64_t start, std::uint64_t limit)
    : start_(start), limit_(limit), budget_(start) {}

bool BudgetControl::Due(std::int64_t now_ns) const {
  return last_look_ns_ < 0 || now_ns - last_look_ns_ >= kIntervalNs;
}

std::uint64_t BudgetControl::Ceiling(std::uint64_t held) const {
  std::uint64_t reserved = margin() + held;
  return limit_ > reserved ? std::max(start_, limit_ - reserved) : start_;
}

bool BudgetControl::RoomToGrow(std::uint64_t unreclaimable) const {
  return unreclaimable + margin() + grow_step() <= limit_;
}

std::uint64_t BudgetControl::Look(const ReclaimSample& sample) {
  last_look_ns_ = sample.ns;
  std::uint64_t ceiling = Ceiling(sample.held);
  // What reclaim cannot take without swap near the limit: an OOM kill is
  // what comes next, so give the page cache all the room there is.
  if (sample.unreclaimable + margin() / 2 >= limit_) {
    budget_ = std::min(budget_, start_);
    base_ = sample;
    return budget_;
  }
  // Counters that went back (a rank gone and its reads with it) start a
  // new judgement.
  if (!base_ || sample.refaulted < base_->refaulted || sample.read < base_->read) {
    base_ = sample;
    budget_ = std::min(budget_, ceiling);
    return budget_;
  }
  std::uint64_t refaulted = sample.refaulted - base_->refaulted;
  std::uint64_t read = std::max(sample.read - base_->read, refaulted);
  std::uint64_t least = floor();
  if (read >= least_sample()) {
    double share = static_cast<double>(refaulted) / static_cast<double>(read);
    if (share <= kGrowShare && RoomToGrow(sample.unreclaimable)) {
      budget_ += grow_step();
    } else if (share >= kShrinkShare) {
      if (share < kBelowDefaultShare) least = std::min(budget_, start_);
      budget_ -= std::min(budget_, shrink_step());
    }
    base_ = sample;
  }
  budget_ = std::clamp(budget_, least, ceiling);
  return budget_;
}

void BudgetRange::Note(std::uint64_t bytes, std::int64_t now_ns) {
  if (start_ns_ < 0) {
    start_ns_ = since_ns_ = now_ns;
    least_ = most_ = current_ = bytes;
    return;
  }
  weighted_ += static_cast<long double>(current_) * static_cast<long double>(now_ns - since_ns_);
  since_ns_ = now_ns;
  current_ = bytes;
  least_ = std::min(least_, bytes);
  most_ = std::max(most_, bytes);
}

std::uint64_t BudgetRange::Mean(std::int64_t now_ns) const {
  if (start_ns_ < 0) return 0;
  now_ns = std::max(now_ns, since_ns_);
  if (now_ns <= start_ns_) return current_;
  long double weighted =
      weighted_ + static_cast<long double>(current_) * static_cast<long double>(now_ns - since_ns_);
  return static_cast<std::uint64_t>(weighted / static_cast<long double>(now_ns - start_ns_));
}

}  // namespace bdmpi
