// When the master starts runnable slaves with -nr > 1 (master/sched/handover.cpp).
//
// A hand-over between slaves on one core costs a wake-up on that core
// (~5 us); across cores it costs ~55 us on an idle VM and hundreds under
// load. So:
// * Hold: a slave that a running slave's send makes runnable is not started
//   at once. The sender usually blocks a few microseconds later (a send, then
//   a receive) and the woken slave then takes the core it leaves, the
//   master's. The hold ends when the sender stops running or after
//   `hold_limit`, so a sender that computes after its send delays the
//   receiver by at most that. (-nr 1 gets the same effect from deferred
//   posts, which would delay the receiver for as long as the sender computes.)
// * Spread: a runnable slave starts on another core than the master's only
//   once some runnable slave has waited `spread_after`; until then the slaves
//   that exchange messages take turns on the master's core, as with -nr 1.
//   Slaves that compute for longer than that still spread over every core.
// Times are CLOCK_MONOTONIC nanoseconds (MonotonicNs, job_recorder.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace bdmpi {

class HandoverHold {
 public:
  // bdmprun's (measured: a send and the receive after it
  // reach the master within ~10 us; a round of 8 ranks through one core
  // takes ~70 us).
  static constexpr std::chrono::microseconds kHoldLimit{100};
  static constexpr std::chrono::microseconds kSpreadAfter{250};

  // From now on (a master without it starts slaves at once).
  void Enable(std::chrono::microseconds hold_limit, std::chrono::microseconds spread_after);
  bool enabled() const { return hold_limit_ns_ > 0; }
  std::int64_t spread_after_ns() const { return spread_after_ns_; }

  bool holding() const { return sender_ >= 0; }
  // The slave whose stop ends the hold.
  int sender() const { return sender_; }
  void Hold(int sender, std::int64_t now);
  bool HoldExpired(std::int64_t now) const { return now >= hold_until_; }
  void EndHold() { sender_ = -1; }
  // Look again at the runnable slaves at `when` (the earliest asked for).
  void SpreadAt(std::int64_t when);
  void ClearSpread() { spread_at_ = -1; }
  // When the master must look again, if it must.
  std::optional<std::int64_t> NextDeadline() const;

 private:
  std::int64_t hold_limit_ns_ = 0;
  std::int64_t spread_after_ns_ = 0;
  int sender_ = -1;
  std::int64_t hold_until_ = 0;
  std::int64_t spread_at_ = -1;
};

}  // namespace bdmpi
