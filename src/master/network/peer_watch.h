// Liveness of the other masters. A master that dies makes mpirun/srun end
// the job, but one that hangs (stopped, stuck in the kernel, its host cut
// off) would leave every collective and stream that waits for it blocked
// forever: MPI has no timeouts. So each network thread sends a heartbeat to
// every peer at a fixed interval and gives up on a peer it has heard nothing
// from (no heartbeat, no data) for the timeout.
//
// The timeout is BDMPI_PEER_TIMEOUT seconds (default 120, 0 = never); the
// interval a quarter of it, at most a second. The network thread is never
// busy for long (it only polls MPI and copies chunks), so a silent peer is a
// hung master or an unreachable host, not a slow program.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

namespace bdmpi {

class PeerWatch {
 public:
  using Clock = std::chrono::steady_clock;

  // BDMPI_PEER_TIMEOUT, or the default; throws on a malformed value.
  static Clock::duration TimeoutFromEnvironment();
  static Clock::duration IntervalFor(Clock::duration timeout);

  // timeout == 0: never reports a silent peer and sends no heartbeats.
  PeerWatch(int nnodes, int self, Clock::duration timeout, Clock::time_point now);

  bool enabled() const { return timeout_ > Clock::duration::zero() && nnodes_ > 1; }
  Clock::duration timeout() const { return timeout_; }

  void Heard(int peer, Clock::time_point now) { last_heard_[peer] = now; }
  // Called on every round of the network thread. After a stall of this
  // thread itself longer than half the timeout (the master was stopped, or
  // starved of CPU), the silence it saw was its own: everyone counts as
  // just heard.
  void Tick(Clock::time_point now);
  // True once per interval: time to send every peer a heartbeat.
  bool HeartbeatDue(Clock::time_point now);
  // A peer silent for longer than the timeout (the longest silent first).
  std::optional<int> Silent(Clock::time_point now) const;

 private:
  int nnodes_;
  int self_;
  Clock::duration timeout_;
  Clock::duration interval_;
  Clock::time_point next_heartbeat_;
  Clock::time_point last_tick_;
  std::vector<Clock::time_point> last_heard_;
};

}  // namespace bdmpi
