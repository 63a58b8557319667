#include "master/network/peer_watch.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "common/job_names.h"

namespace bdmpi {

PeerWatch::Clock::duration PeerWatch::TimeoutFromEnvironment() {
  constexpr int kDefaultSeconds = 120;
  const char* text = std::getenv(kEnvPeerTimeout);
  if (text == nullptr || *text == '\0') return std::chrono::seconds(kDefaultSeconds);
  char* end = nullptr;
  double seconds = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(seconds >= 0) || seconds > 1e6)
    throw Error(kErrArg, std::string(kEnvPeerTimeout) + "=" + text +
                             ": expected seconds (0 turns the timeout off)");
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

PeerWatch::Clock::duration PeerWatch::IntervalFor(Clock::duration timeout) {
  return std::min<Clock::duration>(timeout / 4, std::chrono::seconds(1));
}

PeerWatch::PeerWatch(int nnodes, int self, Clock::duration timeout, Clock::time_point now)
    : nnodes_(nnodes),
      self_(self),
      timeout_(timeout),
      interval_(IntervalFor(timeout)),
      next_heartbeat_(now),
      last_tick_(now),
      last_heard_(nnodes, now) {}

void PeerWatch::Tick(Clock::time_point now) {
  if (now - last_tick_ > timeout_ / 2) std::fill(last_heard_.begin(), last_heard_.end(), now);
  last_tick_ = now;
}

bool PeerWatch::HeartbeatDue(Clock::time_point now) {
  if (!enabled() || now < next_heartbeat_) return false;
  next_heartbeat_ = now + interval_;
  return true;
}

std::optional<int> PeerWatch::Silent(Clock::time_point now) const {
  if (!enabled()) return std::nullopt;
  std::optional<int> silent;
  for (int peer = 0; peer < nnodes_; ++peer) {
    if (peer == self_ || now - last_heard_[peer] <= timeout_) continue;
    if (!silent || last_heard_[peer] < last_heard_[*silent]) silent = peer;
  }
  return silent;
}

}  // namespace bdmpi
