#include "master/network/transfer_log.h"

#include <utility>

namespace bdmpi {

void TransferLog::Sent(int peer, std::uint64_t bytes, std::uint32_t chunks,
                       std::int64_t begin_ns, std::int64_t end_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++figures_.sent.messages;
  figures_.sent.bytes += bytes;
  figures_.sent_chunks += chunks;
  figures_.send_ns += static_cast<std::uint64_t>(end_ns - begin_ns);
  Keep("send to", peer, bytes, chunks, begin_ns, end_ns);
}

void TransferLog::Received(int peer, std::uint64_t bytes, std::uint32_t chunks,
                           std::int64_t begin_ns, std::int64_t end_ns) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++figures_.received.messages;
  figures_.received.bytes += bytes;
  figures_.received_chunks += chunks;
  figures_.receive_ns += static_cast<std::uint64_t>(end_ns - begin_ns);
  Keep("receive from", peer, bytes, chunks, begin_ns, end_ns);
}

void TransferLog::Keep(const char* direction, int peer, std::uint64_t bytes,
                       std::uint32_t chunks, std::int64_t begin_ns, std::int64_t end_ns) {
  if (!trace_) return;
  if (events_.size() >= kEventCap) {
    ++dropped_;
    return;
  }
  events_.push_back({begin_ns, end_ns, std::string(direction) + " node " + std::to_string(peer),
                     "\"bytes\": " + std::to_string(bytes) +
                         ", \"chunks\": " + std::to_string(chunks)});
}

NetworkFigures TransferLog::Figures() {
  std::lock_guard<std::mutex> lock(mutex_);
  return figures_;
}

std::vector<TransferLog::Event> TransferLog::TakeEvents(std::uint64_t& dropped) {
  std::lock_guard<std::mutex> lock(mutex_);
  dropped = dropped_;
  return std::move(events_);
}

}  // namespace bdmpi
