#include "master/mailbox.h"

#include <utility>

namespace bdmpi {

bool Matches(const PostedRecv& recv, const Envelope& envelope) {
  return recv.comm == envelope.comm &&
         (recv.source == kAnySource || recv.source == envelope.source) &&
         (recv.tag == kAnyTag || recv.tag == envelope.tag);
}

std::optional<std::uint64_t> Mailbox::Deliver(Message message) {
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    if (!Matches(*it, message.envelope)) continue;
    std::uint64_t id = it->id;
    bool discard = it->discard;
    if (!discard) completed_.emplace(id, CompletedRecv{*it, std::move(message)});
    posted_.erase(it);  // a discarded message is released here
    if (discard) return std::nullopt;
    return id;
  }
  unexpected_.push_back(std::move(message));
  return std::nullopt;
}

bool Mailbox::Post(const PostedRecv& recv) {
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (!Matches(recv, it->envelope)) continue;
    completed_.emplace(recv.id, CompletedRecv{recv, std::move(*it)});
    unexpected_.erase(it);
    return true;
  }
  posted_.push_back(recv);
  return false;
}

std::optional<CompletedRecv> Mailbox::TakeCompleted(std::uint64_t id) {
  auto it = completed_.find(id);
  if (it == completed_.end()) return std::nullopt;
  CompletedRecv done = std::move(it->second);
  completed_.erase(it);
  return done;
}

void Mailbox::Discard(std::uint64_t id) {
  if (completed_.erase(id) != 0) return;
  for (PostedRecv& recv : posted_) {
    if (recv.id == id) {
      recv.discard = true;
      return;
    }
  }
}

const PostedRecv* Mailbox::FindPosted(std::uint64_t id) const {
  for (const PostedRecv& recv : posted_) {
    if (recv.id == id) return &recv;
  }
  return nullptr;
}

const Message* Mailbox::Probe(int comm, int source, int tag) const {
  PostedRecv probe{0, comm, source, tag, 0};
  for (const Message& message : unexpected_) {
    if (Matches(probe, message.envelope)) return &message;
  }
  return nullptr;
}

}  // namespace bdmpi
