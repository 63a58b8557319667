// What a rank resumed with its data switched out is expected to touch
// before it blocks again (memory.cpp admits the resume on it).
//
// With --prefetch lazy a switched-out rank gets back only the pages it
// touches. A rank resumed out of a dot product's allreduce touches its
// vectors, a few MiB, until its next blocking call; resumed out of the
// matrix-vector product's exchange it reads its matrix. Admitting every
// resume on the rank's peak switched out another rank for room the
// resumed one never used (miniFE: 21 switch-outs per CG iteration, 14 of
// them at the allreduces). So the master measures, per rank and per
// request the rank was resumed out of (its "point"), what the rank touched
// between the resume and its next block (its resident bytes, statm, above
// those at the resume), and admits the next resume out of that point on
// it. A rank that touches more than it was admitted on is seen by a
// watcher thread (touch_watch.h) and counted larger at once, which makes
// room by switching out blocked ranks while it runs.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace bdmpi {

// A rank's memory as far as what it touches goes: its resident anonymous
// and file (or shared) bytes (statm) and the bytes it has had read from
// disk (/proc/<pid>/io). A page it faults in from its storage file is in
// the page cache, charged to the cgroup, whether it stays mapped or not
// (the fault's read-ahead brings pages it never maps), and a page it then
// writes is an anonymous copy beside it.
struct TouchReading {
  std::uint64_t anonymous = 0;
  std::uint64_t shared = 0;
  std::uint64_t read = 0;
  std::uint64_t resident() const { return anonymous + shared; }
};

// What a rank has added to the node's memory since `base`: its new
// anonymous pages, and the larger of its new file pages and what it read.
std::uint64_t TouchedSince(const TouchReading& base, const TouchReading& now);

class TouchEstimates {
 public:
  // The bytes a resume out of `point` is expected to touch beyond what the
  // rank holds resident; nullopt until one has been measured.
  std::optional<std::uint64_t> Expected(int point) const;
  // Notes `bytes` touched by a resume out of `point`. The estimate is the
  // larger of that and half the one before: a rank whose work between two
  // calls shrinks for once keeps most of its room, one whose work grows is
  // counted at once at what it did.
  void Note(int point, std::uint64_t bytes);

 private:
  // By point; a program blocks in a handful of request types.
  std::vector<std::pair<int, std::uint64_t>> points_;
};

// What a resume is admitted on: the `resident` bytes the rank touched since
// its switch-in, plus the estimate with a margin (an eighth and 1 MiB: the
// stack, a message copied in, the noise of the reading), at most `full`
// (its data and peak); `full` where nothing has been measured.
std::uint64_t TouchAdmission(std::uint64_t resident, std::optional<std::uint64_t> expected,
                             std::uint64_t full);

// A running rank counted at `counted` that has touched `touched`: within
// its count it stays; beyond it, it is counted at what it touched plus a
// `step` (so that each look does not ask for a page more), at most `full`.
std::uint64_t TouchGrown(std::uint64_t counted, std::uint64_t touched, std::uint64_t step,
                         std::uint64_t full);

}  // namespace bdmpi
