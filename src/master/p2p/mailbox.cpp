#include "master/p2p/mailbox.h"

#include <algorithm>
#include <atomic>
#include <utility>

namespace bdmpi {
namespace {

// Takes a published receive for the master (idempotent); false while a
// sender of the node has it (its notice completes it; should its write
// fail, it is the master's to match again).
bool ClaimForMaster(const PostedRecv& recv) {
  if (recv.slot == nullptr) return true;
  const std::uint64_t mine = DirectWord(recv.seq, DirectState::kMaster);
  // Told, or polled by its slave (which then finds kMaster and waits here).
  std::uint64_t word = DirectWord(recv.seq, DirectState::kTold);
  for (;;) {
    if (recv.slot->word.compare_exchange_strong(word, mine, std::memory_order_acq_rel))
      return true;
    if (word == mine) return true;
    if (word != DirectWord(recv.seq, DirectState::kTold) &&
        word != DirectWord(recv.seq, DirectState::kPolling))
      return false;
  }
}

// A receive its rank freed (MPI_Request_free) is over for the master too:
// its slot in the direct table goes back to the rank (DirectPath::Post
// frees it on kCancelled), which otherwise never publishes on it again.
void GiveBack(const PostedRecv& recv) {
  if (recv.slot != nullptr)
    recv.slot->word.store(DirectWord(recv.seq, DirectState::kCancelled), std::memory_order_release);
}

void ReleasePending(Message& message) {
  if (message.pending == nullptr) return;
  message.pending->fetch_sub(1, std::memory_order_seq_cst);
  message.pending = nullptr;
}

}  // namespace

bool Matches(const PostedRecv& recv, const Envelope& envelope) {
  return recv.comm == envelope.comm && recv.ordinal == envelope.ordinal &&
         (recv.source == kAnySource || recv.source == envelope.source) &&
         (recv.tag == kAnyTag || recv.tag == envelope.tag);
}

std::optional<std::uint64_t> Mailbox::Deliver(Message message) {
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    if (it->reserved || !Matches(*it, message.envelope) || !ClaimForMaster(*it)) continue;
    std::uint64_t id = it->id;
    bool discard = it->discard;
    NoteMatched(message);
    if (!discard) AddCompleted(id, CompletedRecv{*it, std::move(message)});
    if (discard) GiveBack(*it);
    posted_.erase(it);  // a discarded message is released here
    if (discard) return std::nullopt;
    return id;
  }
  unexpected_.push_back(std::move(message));
  return std::nullopt;
}

bool Mailbox::Post(const PostedRecv& posted) {
  PostedRecv recv = posted;
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (!Matches(recv, it->envelope)) continue;
    if (!ClaimForMaster(recv)) break;  // a sender's message takes it
    NoteMatched(*it);
    AddCompleted(recv.id, CompletedRecv{recv, std::move(*it)});
    unexpected_.erase(it);
    return true;
  }
  posted_.push_back(recv);
  return false;
}

void Mailbox::PublishCompletedTo(std::atomic<std::uint32_t>* word) {
  published_ = word;
  PublishCompleted();
}

void Mailbox::AddCompleted(std::uint64_t id, CompletedRecv done) {
  completed_.emplace(id, std::move(done));
  PublishCompleted();
}

void Mailbox::PublishCompleted() {
  if (published_ == nullptr) return;
  auto value = static_cast<std::uint32_t>(std::min<std::size_t>(completed_.size(), 0xfffffffe) + 1);
  if (published_->load(std::memory_order_relaxed) != value)
    published_->store(value, std::memory_order_release);
}

std::optional<CompletedRecv> Mailbox::TakeCompleted(std::uint64_t id) {
  auto it = completed_.find(id);
  if (it == completed_.end()) return std::nullopt;
  CompletedRecv done = std::move(it->second);
  completed_.erase(it);
  PublishCompleted();
  return done;
}

void Mailbox::Discard(std::uint64_t id) {
  if (auto done = completed_.find(id); done != completed_.end()) {
    GiveBack(done->second.recv);
    completed_.erase(done);
    PublishCompleted();
    return;
  }
  for (AwaitedMatch& send : awaited_) {
    if (send.id == id) {
      send.discard = true;
      return;
    }
  }
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

void Mailbox::CompleteUnposted(std::uint64_t id, Message message) {
  unposted_.erase(id);
  PostedRecv recv{id, message.envelope.comm, message.envelope.source, message.envelope.tag,
                  message.payload.bytes(), message.envelope.ordinal};
  AddCompleted(id, CompletedRecv{recv, std::move(message)});
}

bool Mailbox::MatchProbe(std::uint64_t id, int comm, int source, int tag) {
  PostedRecv probe{id, comm, source, tag, 0};
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (!Matches(probe, it->envelope)) continue;
    NoteMatched(*it);
    AddCompleted(id, CompletedRecv{probe, std::move(*it)});
    unexpected_.erase(it);
    return true;
  }
  return false;
}

void Mailbox::SetCapacity(std::uint64_t id, std::uint64_t capacity) {
  auto it = completed_.find(id);
  if (it != completed_.end()) it->second.recv.capacity = capacity;
}

bool Mailbox::CancelRecv(std::uint64_t id) {
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    if (it->id != id) continue;
    if (it->reserved || !ClaimForMaster(*it)) return false;  // a sender writes its data
    if (it->slot != nullptr)
      it->slot->word.store(DirectWord(it->seq, DirectState::kCancelled), std::memory_order_release);
    posted_.erase(it);
    return true;
  }
  return false;
}

std::optional<PostedRecv> Mailbox::ReserveForPlacing(const Envelope& envelope,
                                                     std::uint64_t bytes) {
  for (PostedRecv& recv : posted_) {
    if (recv.reserved || !Matches(recv, envelope) || !ClaimForMaster(recv)) continue;
    // The first match is the one MPI order gives this message: if it
    // cannot take the data in place, no other may.
    if (recv.address == 0 || recv.capacity < bytes || recv.discard) return std::nullopt;
    recv.reserved = true;
    return recv;
  }
  return std::nullopt;
}

bool Mailbox::HasPostedMatch(const Envelope& envelope) const {
  for (const PostedRecv& recv : posted_) {
    if (!recv.reserved && Matches(recv, envelope)) return true;
  }
  return false;
}

bool Mailbox::CompleteReserved(std::uint64_t id, Message message) {
  return CompleteWritten(id, std::move(message), [](const PostedRecv& recv) {
    return recv.reserved;
  });
}

bool Mailbox::CompleteDirect(std::uint64_t id, Message message) {
  return CompleteWritten(id, std::move(message), [](const PostedRecv& recv) {
    return recv.slot != nullptr;
  });
}

bool Mailbox::CompleteWritten(std::uint64_t id, Message message,
                              bool (*written_by_sender)(const PostedRecv&)) {
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    if (it->id != id || !written_by_sender(*it)) continue;
    PostedRecv recv = *it;
    posted_.erase(it);
    if (recv.discard) {
      GiveBack(recv);
      return false;
    }
    AddCompleted(id, CompletedRecv{recv, std::move(message)});
    return true;
  }
  return false;
}

void Mailbox::ForgetTaken(std::uint64_t id) {
  // By id alone: the slave has freed the slot by now, maybe reused it.
  // Until this notice the receive was skipped by every match (its word was
  // kDonePolled, or a later receive's).
  std::erase_if(posted_,
                [id](const PostedRecv& recv) { return recv.id == id && recv.slot != nullptr; });
}

void Mailbox::Unreserve(std::uint64_t id) {
  for (PostedRecv& recv : posted_) {
    if (recv.id == id) recv.reserved = false;
  }
}

void Mailbox::AwaitMatch(const AwaitedMatch& send) { awaited_.push_back(send); }

bool Mailbox::Matched(std::uint64_t id) {
  for (auto it = awaited_.begin(); it != awaited_.end(); ++it) {
    if (it->id != id) continue;
    AwaitedMatch send = *it;
    awaited_.erase(it);
    if (send.discard) return false;
    Message none;
    none.envelope = Envelope{send.comm, send.dest, send.tag};
    AddCompleted(id, CompletedRecv{PostedRecv{id, send.comm, send.dest, send.tag, 0},
                                         std::move(none)});
    return true;
  }
  return false;
}

void Mailbox::ForgetAwaited(std::uint64_t id) {
  std::erase_if(awaited_, [id](const AwaitedMatch& send) { return send.id == id; });
}

const AwaitedMatch* Mailbox::FindAwaited(std::uint64_t id) const {
  for (const AwaitedMatch& send : awaited_) {
    if (send.id == id) return &send;
  }
  return nullptr;
}

bool Mailbox::WithdrawMessage(int sender, std::uint64_t id) {
  if (id == 0) return false;
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (it->sent_by.id != id || it->sent_by.world_rank != sender) continue;
    ReleasePending(*it);
    unexpected_.erase(it);
    return true;
  }
  return false;
}

std::vector<SentBy> Mailbox::TakeMatchedSenders() {
  std::vector<SentBy> senders;
  senders.swap(matched_senders_);
  return senders;
}

void Mailbox::NoteMatched(Message& message) {
  ReleasePending(message);
  if (message.sent_by.synchronous) matched_senders_.push_back(message.sent_by);
}

}  // namespace bdmpi
