#include "master/p2p/direct_receives.h"

#include "common/log.h"
#include "master/p2p/p2p.h"

namespace bdmpi {

bool DirectReceives::Attach(const Slave& receiver, const RequestMsg& request,
                            PostedRecv& recv) {
  DirectTable table = master_.Direct();
  if (request.code <= 0 || !table.valid() || request.code > static_cast<int>(kDirectSlots))
    return true;
  DirectSlot& slot = table.rank(receiver.index).slots[request.code - 1];
  // The slot stays this receive's until the slave collects it, which it
  // does before the master completes it only for a receive written while
  // the slave polled (kDonePolled): the master then no longer matches it
  // (its word is not kTold) and forgets it on the slave's notice
  // (Mailbox::ForgetTaken). A later receive that took the slot meanwhile
  // wrote its id before its word.
  std::uint64_t word = slot.word.load(std::memory_order_acquire);
  if (slot.recv_id.load(std::memory_order_relaxed) != request.id) return false;
  recv.slot = &slot;
  recv.seq = DirectSeq(word);
  return true;
}

void DirectReceives::CompleteIfWritten(Slave& receiver, std::uint64_t id) {
  const PostedRecv* recv = p2p_.mailbox(receiver).FindPosted(id);
  if (recv == nullptr || recv->slot == nullptr) return;
  // Written before the post arrived: the sender's notice may have come
  // first (and found nothing to complete), so complete it now; a later
  // notice finds nothing.
  if (recv->slot->word.load(std::memory_order_acquire) ==
      DirectWord(recv->seq, DirectState::kDoneTold))
    Complete(receiver, *recv, -1);
}

void DirectReceives::HandleDone(Slave& sender, const RequestMsg& request) {
  Slave* receiver = request.peer >= 0 && request.peer < master_.slaves().size()
                        ? &master_.slaves()[request.peer]
                        : nullptr;
  if (receiver == nullptr || receiver->state == SlaveState::kExited) return;
  const PostedRecv* recv = p2p_.mailbox(*receiver).FindPosted(request.id);
  // Unknown: completed when its post arrived (CompleteIfWritten).
  if (recv == nullptr || recv->slot == nullptr) return;
  BDMPI_ENFORCE(recv->slot->word.load(std::memory_order_acquire) ==
                    DirectWord(recv->seq, DirectState::kDoneTold),
                "rank " + std::to_string(sender.world_rank) +
                    " reported a direct message that is not in place");
  Complete(*receiver, *recv, sender.world_rank);
}

void DirectReceives::Complete(Slave& receiver, const PostedRecv& recv, int sender_world_rank) {
  const DirectSlot& slot = *recv.slot;
  Message message;
  message.envelope = Envelope{recv.comm, slot.sent_source.load(std::memory_order_relaxed),
                              slot.sent_tag.load(std::memory_order_relaxed)};
  std::uint64_t bytes = slot.sent_bytes.load(std::memory_order_relaxed);
  if (slot.sent_in_slot.load(std::memory_order_relaxed) != 0) {
    // A small message the sender left in the slot (no system call on its
    // side): taken as an inline or window payload is, counted in the
    // budget, and handed over in the reply. The slot stays the receive's
    // until the rank collects it, after this.
    RequestMsg staged;
    staged.bytes = bytes;
    staged.where = bytes <= static_cast<std::uint64_t>(kInlinePayloadMax) ? Where::kInline
                                                                           : Where::kWindow;
    const auto* data = reinterpret_cast<const std::byte*>(slot.data);
    message.payload = p2p_.payloads_.Take(staged, data, data);
  } else {
    message.payload = Payload::Placed(bytes);
  }
  message.sent_by = SentBy{sender_world_rank, 0, false};
  p2p_.mailbox(receiver).CompleteDirect(recv.id, std::move(message));
  master_.WakeIfReady(receiver);
}

std::atomic<std::uint32_t>* DirectReceives::PendingOf(const Slave& sender, const Slave& dest,
                                                      const RequestMsg& request) {
  DirectTable table = master_.Direct();
  if (request.counted == 0 || !table.valid()) return nullptr;
  return &table.pending(sender.index, dest.index);
}

}  // namespace bdmpi
