// What a master's network thread moved to and from other nodes, for the run
// report (per node: messages, bytes, chunks, seconds) and the trace (one
// master-track event per message, bounded like the recorder's). Off unless
// the event loop turns it on (Enable, before the network starts): each hook
// then costs one test of a flag. The network thread writes, the event loop
// reads at the end; a mutex guards the figures and events.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "common/run_report.h"

namespace bdmpi {

class TransferLog {
 public:
  // Events kept at most (later ones are counted as dropped).
  static constexpr std::size_t kEventCap = 1 << 16;

  void Enable(bool trace) {
    trace_ = trace;
    on_.store(true, std::memory_order_release);
  }
  bool on() const { return on_.load(std::memory_order_relaxed); }

  // One message of `bytes` in `chunks` (0: inline) to or from `peer` node,
  // between `begin_ns` and `end_ns` (CLOCK_MONOTONIC).
  void Sent(int peer, std::uint64_t bytes, std::uint32_t chunks, std::int64_t begin_ns,
            std::int64_t end_ns);
  void Received(int peer, std::uint64_t bytes, std::uint32_t chunks, std::int64_t begin_ns,
                std::int64_t end_ns);

  NetworkFigures Figures();
  // The trace's events: (begin, end, name, args) for the recorder.
  struct Event {
    std::int64_t begin_ns = 0;
    std::int64_t end_ns = 0;
    std::string name;
    std::string args;
  };
  std::vector<Event> TakeEvents(std::uint64_t& dropped);

 private:
  void Keep(const char* direction, int peer, std::uint64_t bytes, std::uint32_t chunks,
            std::int64_t begin_ns, std::int64_t end_ns);

  std::atomic<bool> on_{false};
  bool trace_ = false;
  std::mutex mutex_;
  NetworkFigures figures_;
  std::vector<Event> events_;
  std::uint64_t dropped_ = 0;
};

}  // namespace bdmpi
