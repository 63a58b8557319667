// Which waiting rank to switch out, and which runnable rank to resume, when
// the node's ranks do not fit its memory (memory.cpp applies these; the
// facts come from the slaves' states and their posted receives).
//
// A rank switched out is read back when it runs again, so the right rank
// to write back is the one that will run again last. Programs that
// exchange halos block in a receive whose sender is about to run: a rank
// waiting for a rank that runs or may run now is woken within the round,
// and writing it back costs a write and a read for one exchange (CoMD's
// face-by-face exchanges switched each rank out 20 times a step). A rank
// in a collective, or waiting for ranks that are blocked themselves, runs
// again later. Among the runnable, a rank whose data is resident goes
// first (the paper's policy), and among those alike, one that resident
// blocked ranks wait for: running it wakes them while their data is in
// memory.
//
// Among waiting ranks alike (the same state and prospects, holding about
// as much), the one that stopped running last is switched out first. The
// ranks of an iteration tend to run in the same order every iteration
// (a token ring; a solver's product in about rank order), so the one that
// ran last runs last again: evicting it keeps the others' data for their
// turn, where evicting the one that ran longest ago reads every rank's
// data back every iteration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "master/slave.h"

namespace bdmpi {

// What the policy knows of a waiting rank that might be switched out.
struct SwitchOutCandidate {
  SlaveState state = SlaveState::kRBlocked;
  bool woken_soon = false;   // WokenSoon
  bool read_ahead = false;   // told to read back before it runs
  std::uint64_t bytes = 0;   // storage-backed bytes it holds
  std::int64_t stopped_ns = -1;  // when it last stopped running (-1: never ran)
};

// Whether a rank in `state` waiting for messages from `sources` (slave
// indices on this node; -1: any source, or a rank of another node) will be
// woken by ranks that run or may run now: blocked in a receive, and every
// source running or runnable (`state_of` gives a source's state). Unknown
// sources are not counted on.
bool WokenSoon(SlaveState state, std::span<const int> sources,
               const std::function<SlaveState(int)>& state_of);

// The order in which to switch out `candidates` (indices into it): blocked
// ranks before runnable ones (a runnable one would read its data straight
// back), ranks that will not be woken soon before those that will, a rank
// reading ahead last (its reads would be wasted). Within each of those
// classes, the ranks holding at least half the class's largest go first
// (fewest switch-outs), the one that stopped running last first among
// them; then the rest, the largest first.
std::vector<std::size_t> SwitchOutOrder(std::span<const SwitchOutCandidate> candidates);

// The memory policy's score of a runnable rank (the larger runs first):
// its resident fraction in [0, 1], raised to halfway to 1 when it is not
// all resident and a resident blocked rank waits for it. Resident ranks
// still go first, in the order they became runnable, and among ranks that
// must be read back the one whose run wakes others while those are
// resident.
double ResumeScore(double resident_fraction, bool awaited_by_resident);

}  // namespace bdmpi
