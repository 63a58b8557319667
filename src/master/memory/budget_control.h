// The node budget where the kernel can tell when it is too large
// (memory.cpp asks; docs/scheduling-and-memory.md, "A budget that follows
// the cgroup's reclaim").
//
// The master counts the ranks' data it holds resident, not the page cache
// the ranks' faults read ahead or the file copies of the pages they write,
// which the cgroup charges all the same. How much of that there is depends
// on the program, so no fixed margin suits all: HPCG ran 1.25 x as fast
// with a budget of 160 MiB of a 192 MiB limit as with the default 120,
// LULESH took 1.22-1.60 x as long at 168. When the budget is too large,
// the cgroup's reclaim evicts pages the master counts as resident and they
// come back by faults: the cgroup counts those as refaults. The default
// itself can be too large: what the master, the node's tables and the
// kernel hold in the cgroup besides the ranks' data is the program's too
// (Graph500's master buffers a quarter of the limit, and refaulted three
// quarters of what its ranks read at the default). So, starting at the
// default, between half of it (the floor) and the limit less a small
// margin (the ceiling), the budget grows by a small step while refaults
// are a small share of what the ranks read from disk and the memory that
// reclaim cannot take without swap (anonymous and shared memory) leaves
// room for the step, and shrinks by a larger one when they are a larger
// share, below the default only when they are a large one (the default
// suits most programs, whose refaults there are a few percent); back to
// the default at once, if above it, when that memory comes near the
// limit.
#pragma once

#include <cstdint>
#include <optional>

namespace bdmpi {

// What the controller looks at, read together. Totals so far, but
// `unreclaimable` and `held`, which are what is held now.
struct ReclaimSample {
  std::int64_t ns = 0;
  std::uint64_t refaulted = 0;      // bytes the cgroup evicted and faulted back (file + anon)
  std::uint64_t read = 0;           // bytes the ranks read from disk
  std::uint64_t unreclaimable = 0;  // the cgroup's anonymous and shared memory
  std::uint64_t held = 0;           // messages the master holds in memory: buffer, memory files
};

class BudgetControl {
 public:
  // How often it looks (the caller asks Due first): a second holds many
  // switch-ins of a job out of core, and one read of memory.stat and of
  // each rank's io file a second costs nothing against them.
  static constexpr std::int64_t kIntervalNs = 1'000'000'000;

  // Starts at `start` (the default budget); between half of it and the
  // cgroup's `limit` less the margin.
  BudgetControl(std::uint64_t start, std::uint64_t limit);

  bool Due(std::int64_t now_ns) const;
  // Takes a reading and returns the budget from now on.
  std::uint64_t Look(const ReclaimSample& sample);
  std::uint64_t budget() const { return budget_; }
  std::uint64_t floor() const { return start_ / 2; }
  // The most the budget may be while the master holds `held` bytes of
  // messages in memory: those cannot be reclaimed either. Not below the
  // default, whose margins are there for what the master holds.
  std::uint64_t Ceiling(std::uint64_t held) const;
  // Whether the budget may grow a step while the cgroup holds
  // `unreclaimable` bytes that reclaim cannot take without swap: a rank
  // that fills fresh memory (or the master's buffer, filling up between
  // two looks) gets no page cache to take from, and the kernel's
  // out-of-memory killer comes before the next look.
  bool RoomToGrow(std::uint64_t unreclaimable) const;

  // Tuning, in shares of the limit; measured in
  // docs/scheduling-and-memory.md.
  std::uint64_t margin() const { return limit_ / 16; }  // left to the page cache at most
  std::uint64_t grow_step() const { return limit_ / 64; }
  std::uint64_t shrink_step() const { return limit_ / 16; }
  // A judgement needs this much read (or refaulted) since the last one:
  // fewer bytes say little, and mean the budget is not what limits.
  std::uint64_t least_sample() const { return limit_ / 16; }
  // Refaulted / read at or below which it grows, at or above which it
  // shrinks, and at or above which it shrinks below the default.
  static constexpr double kGrowShare = 1.0 / 32;
  static constexpr double kShrinkShare = 1.0 / 10;
  static constexpr double kBelowDefaultShare = 1.0 / 4;

 private:
  std::uint64_t start_;
  std::uint64_t limit_;
  std::uint64_t budget_;
  std::int64_t last_look_ns_ = -1;
  // Where the current judgement's counts start.
  std::optional<ReclaimSample> base_;
};

// The budget over a run: least, most and mean over time, for the run
// report and the -v summary.
class BudgetRange {
 public:
  // The budget is `bytes` from `now_ns` on.
  void Note(std::uint64_t bytes, std::int64_t now_ns);
  std::uint64_t least() const { return least_; }
  std::uint64_t most() const { return most_; }
  // Weighted by how long each value held, up to `now_ns`.
  std::uint64_t Mean(std::int64_t now_ns) const;

 private:
  std::uint64_t least_ = 0;
  std::uint64_t most_ = 0;
  std::uint64_t current_ = 0;
  std::int64_t start_ns_ = -1;
  std::int64_t since_ns_ = -1;
  long double weighted_ = 0;  // bytes x ns up to since_ns_
};

}  // namespace bdmpi
