#include "collectives/inproc_transport.h"

#include <cstring>

#include "common/error.h"

namespace bdmpi::coll {

class InprocNetwork::Peer final : public Transport {
 public:
  Peer(InprocNetwork& net, int rank) : net_(net), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return net_.size(); }
  RequestId Isend(int peer, int tag, const std::byte* data,
                  std::size_t bytes) override {
    // Never written through: Deliver copies from a send, never into it.
    return net_.Post(true, rank_, peer, tag, const_cast<std::byte*>(data),
                     bytes);
  }
  RequestId Irecv(int peer, int tag, std::byte* data,
                  std::size_t bytes) override {
    return net_.Post(false, rank_, peer, tag, data, bytes);
  }
  bool Test(RequestId request) override { return net_.Test(rank_, request); }

 private:
  InprocNetwork& net_;
  int rank_;
};

InprocNetwork::InprocNetwork(int size, Options options)
    : options_(options), random_(options.seed) {
  BDMPI_ENFORCE(size > 0, "a network needs a peer");
  for (int r = 0; r < size; ++r)
    peers_.push_back(std::make_unique<Peer>(*this, r));
}

InprocNetwork::~InprocNetwork() = default;

Transport& InprocNetwork::peer(int rank) {
  BDMPI_ENFORCE(rank >= 0 && rank < size(), "rank " + std::to_string(rank));
  return *peers_[rank];
}

RequestId InprocNetwork::Post(bool is_send, int owner, int peer, int tag,
                              std::byte* data, std::size_t bytes) {
  BDMPI_ENFORCE(peer >= 0 && peer < size(), "peer " + std::to_string(peer));
  BDMPI_ENFORCE(tag >= 0 && tag < 32768, "tag " + std::to_string(tag));
  BDMPI_ENFORCE(bytes == 0 || data != nullptr, "null buffer");
  BDMPI_ENFORCE(
      options_.max_message_bytes == 0 || bytes <= options_.max_message_bytes,
      std::to_string(bytes) + "-byte message");
  RequestId id = next_id_++;
  requests_.emplace(id, Request{is_send, owner, peer, tag, data, bytes});
  max_outstanding_ = std::max(max_outstanding_, requests_.size());
  ++events_;
  Key key = is_send ? Key{owner, peer, tag} : Key{peer, owner, tag};
  auto& waiting = is_send ? unmatched_recvs_ : unmatched_sends_;
  auto it = waiting.find(key);
  if (it == waiting.end() || it->second.empty()) {
    (is_send ? unmatched_sends_ : unmatched_recvs_)[key].push_back(id);
  } else {
    RequestId other = it->second.front();
    it->second.pop_front();
    if (it->second.empty()) waiting.erase(it);
    requests_.at(id).partner = other;
    requests_.at(other).partner = id;
  }
  return id;
}

void InprocNetwork::Deliver(Request& a, Request& b) {
  Request& send = a.is_send ? a : b;
  Request& recv = a.is_send ? b : a;
  if (send.bytes != recv.bytes)
    throw Error(kErrTruncate, "inproc: " + std::to_string(send.bytes) +
                                  "-byte message from " +
                                  std::to_string(send.owner) + " to " +
                                  std::to_string(recv.owner) + " tag " +
                                  std::to_string(send.tag) + " for a " +
                                  std::to_string(recv.bytes) + "-byte receive");
  if (send.bytes > 0) std::memcpy(recv.data, send.data, send.bytes);
  send.done = recv.done = true;
  ++messages_;
}

bool InprocNetwork::Test(int owner, RequestId id) {
  auto it = requests_.find(id);
  BDMPI_ENFORCE(it != requests_.end(),
                "request " + std::to_string(id) + " unknown or already done");
  Request& request = it->second;
  BDMPI_ENFORCE(request.owner == owner, "request tested by another peer");
  if (request.partner == 0) return false;
  if (options_.delay > 0 &&
      std::uniform_real_distribution<double>(0, 1)(random_) < options_.delay)
    return false;
  if (!request.done) Deliver(request, requests_.at(request.partner));
  // The partner keeps its entry, marked done, until its owner tests it.
  requests_.erase(it);
  ++events_;
  return true;
}

std::string InprocNetwork::DescribeOutstanding() const {
  std::map<RequestId, const Request*> sorted;
  for (const auto& [id, r] : requests_) sorted.emplace(id, &r);
  std::string text;
  for (const auto& [id, r] : sorted)
    text += "  #" + std::to_string(id) + " peer " + std::to_string(r->owner) +
            (r->is_send ? " send to " : " recv from ") +
            std::to_string(r->peer) + " tag " + std::to_string(r->tag) + " " +
            std::to_string(r->bytes) + " B" +
            (r->done      ? " (done, not tested)"
             : r->partner ? " (matched)"
                          : " (unmatched)") +
            "\n";
  return text;
}

bool RunToCompletion(InprocNetwork& net, std::span<Operation* const> ops,
                     int idle_sweeps) {
  std::vector<bool> done(ops.size(), false);
  std::size_t remaining = ops.size();
  int idle = 0;
  while (remaining > 0) {
    std::uint64_t before = net.events();
    std::size_t remaining_before = remaining;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (!done[i] && ops[i]->Progress()) {
        done[i] = true;
        --remaining;
      }
    }
    bool changed = net.events() != before || remaining != remaining_before;
    idle = changed ? 0 : idle + 1;
    if (idle >= idle_sweeps) return false;
  }
  return true;
}

bool RunToCompletion(InprocNetwork& net,
                     const std::vector<std::unique_ptr<Operation>>& ops,
                     int idle_sweeps) {
  std::vector<Operation*> raw;
  for (const auto& op : ops) raw.push_back(op.get());
  return RunToCompletion(net, raw, idle_sweeps);
}

}  // namespace bdmpi::coll
